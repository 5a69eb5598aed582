"""Time JWT sign again with each language's independent harness; compare with jwtbench.

Runs as the pipeline's rule crosscheck_harness, or by hand after a run:
    .venv/bin/python workflow/scripts/crosscheck_harness.py      (prints each ratio)

Each language may ship `workflow/scripts/<language>/crosscheck` (an executable taking
`--alg --key --payload` and printing one JSON object with `ns_per_op`), a harness that
shares no timing code with its driver: mitata for node, timeit for python. A language
without one gets a row saying so. ratio = jwtbench median / harness figure.
"""

import argparse
import csv
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parent))

import variants  # noqa: E402
from run_benchmark import checked_cpus, machine_to_ourselves, pinned  # noqa: E402

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
    with open(job.log[0], "w") as log, machine_to_ourselves(log):
        compare(job, log)


def main(argv=None):
    """Run the cross-check against a finished run's summary; print every ratio."""
    parser = argparse.ArgumentParser(
        description="Time JWT sign with independent harnesses (mitata, timeit) on a run's keys "
        "and payload, and print each ratio to jwtbench's figure in that run's summary.csv."
    )
    parser.add_argument("--summary", default="results/summary.csv")
    parser.add_argument("--keys", default="keys", help="the run's key directory")
    parser.add_argument("--payload", default=str(SCRIPTS.parents[1] / "data/fixtures/claims-001.json"))
    parser.add_argument("--languages", nargs="+", default=["node", "python"])
    parser.add_argument("--variants", nargs="+", default=["HS256", "RS256-2048"])
    parser.add_argument("--tolerance", type=float, default=0.15)
    parser.add_argument("--cpus", default="1", help="taskset CPU list, as config execution.cpus")
    parser.add_argument("--out", default="results/crosscheck.manual.csv", help="kept apart from the pipeline's own crosscheck.csv")
    args = parser.parse_args(argv)
    job = SimpleNamespace(
        input=SimpleNamespace(summary=args.summary, key_manifest=str(Path(args.keys) / "manifest.json")),
        output=[args.out],
        params=SimpleNamespace(languages=args.languages, variants=args.variants, tolerance=args.tolerance,
                               payload=args.payload, cpus=args.cpus),
        log=["/dev/null"],
    )  # fmt: skip
    with machine_to_ourselves(sys.stderr):
        compare(job, sys.stdout)
    with open(args.out) as handle:
        outside = [row for row in csv.DictReader(handle) if row["within_tolerance"] != "true"]
    print(f"{'all ratios' if not outside else f'{len(outside)} ratio(s) not'} within 1 +/- {args.tolerance}")
    return 1 if outside else 0


if __name__ == "__main__":
    sys.exit(main())
