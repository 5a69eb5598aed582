"""Time JWT sign again with each language's independent harness; compare with jwtbench.

Each language may ship `workflow/scripts/<language>/crosscheck` (an executable taking
`--alg --key --payload` and printing one JSON object with `ns_per_op`), a harness that
shares no timing code with its driver: mitata for node, timeit for python. A language
without one gets a row saying so. ratio = jwtbench median / harness figure.
"""

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import variants  # noqa: E402
from run_benchmark import checked_cpus, pinned  # noqa: E402

SCRIPTS = Path(__file__).resolve().parent
COLUMNS = ["language", "harness", "harness_version", "operation", "variant",
           "harness_ns", "jwtbench_ns", "ratio", "tolerance", "within_tolerance"]  # fmt: skip


def jwtbench_figures(summary_path):
    with open(summary_path) as handle:
        return {
            (row["language"], row["operation"], row["variant"]): float(row["median_ns"])
            for row in csv.DictReader(handle)
            if row["status"] == "ok" and row["suite"] == "jwt"
        }


def compare(snake, log):
    figures = jwtbench_figures(snake.input.summary)
    cpus = checked_cpus(snake.params.cpus)
    env = dict(os.environ, JWTBENCH_ENVS=str(Path(".envs").resolve()))
    tolerance = snake.params.tolerance
    rows = []
    for language in snake.params.languages:
        harness = SCRIPTS / language / "crosscheck"
        for name in snake.params.variants:
            variant = variants.parse(name)
            mine = figures.get((language, "sign", name))
            row = dict.fromkeys(COLUMNS, "")
            row.update(language=language, operation="sign", variant=name, tolerance=tolerance)
            if not harness.exists() or mine is None:
                row["harness"] = "none"
                why = "no crosscheck harness" if not harness.exists() else "no jwtbench figure"
                print(f"{language} {name}: not cross-checked: {why}", file=log)
                rows.append(row)
                continue
            signing_key, _ = variants.key_files(variant, Path(snake.input.key_manifest).parent)
            command = [str(harness), "--alg", variant.algorithm, "--key", signing_key,
                       "--payload", snake.params.payload]  # fmt: skip
            result = subprocess.run(pinned(command, cpus), capture_output=True, text=True, env=env)
            log.write(result.stderr)
            if result.returncode != 0:
                raise RuntimeError(f"{language} crosscheck {name} exited {result.returncode}; see {snake.log[0]}")
            measured = json.loads(result.stdout)
            ratio = mine / measured["ns_per_op"]
            row.update(
                harness=measured["harness"],
                harness_version=measured["harness_version"],
                harness_ns=f"{measured['ns_per_op']:.6g}",
                jwtbench_ns=f"{mine:.6g}",
                ratio=f"{ratio:.4f}",
                within_tolerance=str(abs(ratio - 1) <= tolerance).lower(),
            )
            print(f"{language} {name}: jwtbench {mine:.0f} ns, {measured['harness']} "
                  f"{measured['ns_per_op']:.0f} ns, ratio {ratio:.3f}", file=log, flush=True)  # fmt: skip
            rows.append(row)
    with open(snake.output[0], "w", newline="") as handle:
        writer = csv.DictWriter(handle, COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)



def run_job(job):
    with open(job.log[0], "w") as log:
        compare(job, log)
