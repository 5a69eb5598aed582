"""Hold one driver's `stopping` command to the reference (stopping_rule.replay) on every
synthetic series of tests/stopping_series.py. Usage: python tests/check_stopping.py LANGUAGE
(with JWTBENCH_ENVS pointing at its built environment). Prints one line per case; exit 1
on any difference. tests/test_contract.py runs the same comparison for every language."""

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import stopping_series

from jwtbench import stopping_rule

HERE = Path(__file__).resolve().parent


def expected(case):
    target = stopping_rule.Target.from_timing(case["timing"])
    taken = stopping_rule.replay(case["series"], case["pairs"], target)
    return {"samples": [n for n, _ in taken], "reasons": [reason for _, reason in taken]}


def observed(language, path):
    run = HERE.parent / "workflow" / "scripts" / language / "run"
    done = subprocess.run([str(run), "stopping", "--series", str(path)], capture_output=True, text=True)
    if done.returncode != 0:
        return {"error": f"exit {done.returncode}: {done.stderr.strip()[-500:]}"}
    return json.loads(done.stdout)


def main(language):
    failures = 0
    with tempfile.TemporaryDirectory() as scratch:
        for name, case in stopping_series.cases():
            path = Path(scratch) / f"{name}.json"
            path.write_text(json.dumps(case))
            want, got = expected(case), observed(language, path)
            same = want == got
            failures += not same
            print(f"{'ok  ' if same else 'DIFF'} {name}: want {want}" + ("" if same else f"\n     got  {got}"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
