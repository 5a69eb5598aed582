"""Cross-check jwtbench's timing against an independent harness per language.

For each language and JWT sign variant, in `repeats` interleaved rounds, the driver's own
`bench` times the cell (a one-cell spec with the run's timing budget) and, right after,
the language's independent harness times the same sign on the same key file and payload:
`workflow/scripts/<language>/crosscheck` (its driver's README names it: mitata for node,
timeit for python, Go's testing.Benchmark ...), which
shares no timing code with its driver and prints one JSON object with `ns_per_op`.
ratio = median of jwtbench's runs / median of the harness's runs. Measuring both within
the same minutes keeps the machine's slow spells out of the comparison; the run's own
summary figure is listed beside them. A language without a harness gets a row saying so.

Runs as the pipeline's rule crosscheck_harness, or by hand after a run (prints each ratio,
exits 1 if one is outside the tolerance):
    .venv/bin/python workflow/scripts/rules/crosscheck_harness.py
"""

import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jwtbench import config_validation, driver_runner, variants  # noqa: E402
from jwtbench.container_engine import Engine  # noqa: E402
from jwtbench.driver_runner import checked_cpus, taskset  # noqa: E402
from jwtbench.machine_lock import machine_to_ourselves  # noqa: E402
from rules import write_bench_spec  # noqa: E402

SCRIPTS = Path(__file__).resolve().parents[1]
REPO = SCRIPTS.parents[1]
# The cross-check compares harnesses on the host, whatever engine the run used.
NATIVE = Engine("native", "native", "the cross-check runs natively")
COLUMNS = ["language", "harness", "harness_version", "operation", "variant", "harness_ns",
           "jwtbench_ns", "ratio", "tolerance", "within_tolerance", "summary_ns", "repeats"]  # fmt: skip


def jwtbench_figures(summary_path):
    with open(summary_path) as handle:
        return {
            (row["language"], row["operation"], row["variant"]): float(row["median_ns"])
            for row in csv.DictReader(handle)
            if row["status"] == "ok" and row["suite"] == "jwt"
        }


def run_pinned(command, cpus, env, log):
    result = subprocess.run(taskset(command, cpus), capture_output=True, text=True, env=env)
    log.write(result.stderr)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {result.returncode}: {result.stderr.strip()[-300:]}")
    return result.stdout


def jwtbench_run(language, variant_name, settings, scratch, cpus, log):
    """The driver's own median ns/op for one sign cell, timed now with the run's budget."""
    spec = Path(scratch) / f"{language}-spec.json"
    write_bench_spec.main(language, "jwt", {"algorithms": [variant_name], "operations": ["sign"]},
                          settings.timing, settings.key_dir, settings.payload, spec)  # fmt: skip
    runner = driver_runner.DriverRunner(language, str(SCRIPTS / language / "run"), NATIVE)
    rows = [row for row in driver_runner.bench_rows(runner, spec, settings.key_dir, cpus, scratch, log)
            if row["status"] == "ok"]  # fmt: skip
    if not rows:
        raise RuntimeError(f"{language} bench timed no sample for {variant_name}")
    return statistics.median(row["elapsed_ns"] / row["iterations"] for row in rows)


def compare(snake, log, results=None):
    """Write the cross-check table; progress to `log`, one line per result to `results`."""
    results = results or log
    summary = jwtbench_figures(snake.input.summary)
    cpus = checked_cpus(snake.params.cpus)
    env = dict(os.environ, JWTBENCH_ENVS=str(Path(".envs").resolve()))
    tolerance, repeats = snake.params.tolerance, snake.params.repeats
    key_dir = str(Path(snake.input.key_manifest).parent.resolve())
    rows, checks = [], []
    for language in snake.params.languages:
        harness = SCRIPTS / language / "crosscheck"
        for name in snake.params.variants:
            row = dict.fromkeys(COLUMNS, "")
            row.update(language=language, operation="sign", variant=name, tolerance=tolerance, repeats=repeats)
            row["summary_ns"] = f"{summary[language, 'sign', name]:.6g}" if (language, "sign", name) in summary else ""
            rows.append(row)
            if not harness.exists():
                row["harness"] = "none"
                print(f"{language} {name}: not cross-checked: no {harness}", file=results)
                continue
            variant = variants.parse(name)
            signing_key, _ = variants.key_files(variant, key_dir)
            command = [str(harness), "--alg", variant.algorithm, "--key", signing_key,
                       "--payload", snake.params.payload]  # fmt: skip
            checks.append((row, command, [], []))

    settings = SimpleNamespace(timing=snake.params.timing, key_dir=key_dir, payload=snake.params.payload)
    with tempfile.TemporaryDirectory() as scratch:
        for _ in range(repeats):
            for row, command, mine, theirs in checks:
                mine.append(jwtbench_run(row["language"], row["variant"], settings, scratch, cpus, log))
                theirs.append(json.loads(run_pinned(command, cpus, env, log)))

    for row, command, mine, theirs in checks:
        jwtbench_ns = statistics.median(mine)
        harness_ns = statistics.median(run["ns_per_op"] for run in theirs)
        ratio = jwtbench_ns / harness_ns
        row.update(
            harness=theirs[0]["harness"],
            harness_version=theirs[0]["harness_version"],
            harness_ns=f"{harness_ns:.6g}",
            jwtbench_ns=f"{jwtbench_ns:.6g}",
            ratio=f"{ratio:.4f}",
            within_tolerance=str(abs(ratio - 1) <= tolerance).lower(),
        )
        mine_runs = ", ".join(f"{x:.0f}" for x in mine)
        their_runs = ", ".join(f"{run['ns_per_op']:.0f}" for run in theirs)
        print(f"{row['language']} {row['variant']}: jwtbench {jwtbench_ns:.0f} ns (runs {mine_runs}), "
              f"{row['harness']} {harness_ns:.0f} ns (runs {their_runs}), ratio {ratio:.3f}; "
              f"in the benchmark: {row['summary_ns'] or 'none'} ns", file=results, flush=True)  # fmt: skip
    with open(snake.output[0], "w", newline="") as handle:
        writer = csv.DictWriter(handle, COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def run_job(job):
    with open(job.log[0], "w") as log, machine_to_ourselves(log):
        compare(job, log)


def main(argv=None):
    """Run the cross-check on a finished run's keys; settings from the run's config."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=str(REPO / "config" / "config.yaml"),
                        help="config whose languages, timing, execution.cpus and crosscheck.* apply")  # fmt: skip
    parser.add_argument("--summary", default="results/summary.csv")
    parser.add_argument("--keys", default="keys", help="the run's key directory")
    parser.add_argument("--out", default="results/crosscheck.manual.csv",
                        help="kept apart from the pipeline's own crosscheck.csv")  # fmt: skip
    args = parser.parse_args(argv)
    config = config_validation.validate(
        yaml.safe_load(Path(args.config).read_text()) or {},
        REPO / "config" / "schemas" / "config.schema.yaml",
        config_validation.driver_languages(SCRIPTS),
        config_validation.library_drivers(SCRIPTS),
    )
    check = config["crosscheck"]
    job = SimpleNamespace(
        input=SimpleNamespace(summary=args.summary, key_manifest=str(Path(args.keys) / "manifest.json")),
        output=[args.out],
        params=SimpleNamespace(
            languages=config["languages"], variants=check["variants"], tolerance=check["tolerance"],
            repeats=check["repeats"], timing=config["timing"], cpus=config["execution"]["cpus"],
            payload=str(REPO / config["suites"]["jwt"]["input"]),
        ),
        log=[str(Path(args.out).with_suffix(".log"))],
    )  # fmt: skip
    print(f"cross-checking {', '.join(config['languages'])}; progress in {job.log[0]}", file=sys.stderr)
    with open(job.log[0], "w") as log, machine_to_ourselves(log):
        compare(job, log, results=sys.stdout)
    with open(args.out) as handle:
        outside = [row for row in csv.DictReader(handle) if row["within_tolerance"] != "true"]
    tolerance = check["tolerance"]
    print("all ratios within 1 +/- %g" % tolerance if not outside else f"{len(outside)} ratio(s) not within 1 +/- {tolerance:g}")
    return 1 if outside else 0


if __name__ == "__main__":
    sys.exit(main())
