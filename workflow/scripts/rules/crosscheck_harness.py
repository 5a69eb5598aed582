"""Run one driver's cross-check: the conductor's timing against the language's trusted harness
(mitata, timeit, JMH, testing.B, criterion, benchmark-ips) on the same calls, in alternating
blocks.

The job writes the crosscheck spec (a `jwt` bench spec of the configured variants and
operations on the claims file, with the run's timing and `crosscheck: {alternations,
block_seconds}`), runs the conductor over the driver's `serve` on it alone on the machine
(even with execution.lanes), pinned like a benchmark (natively or in the driver's image,
without network), and keeps its CSV of blocks (workflow/scripts/README.md, "The
cross-check"). summarize_crosscheck.py turns the blocks of every driver into ratios with
their CIs (results/crosscheck.csv).

By hand, after a run (natively; prints each cell's ratio, exits 1 when one disagrees):
    .venv/bin/python workflow/scripts/rules/crosscheck_harness.py [--driver node] [--config ...]
(the drivers' native environments: $JWTBENCH_ENVS, else .envs)
"""

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

from jwtbench import config_validation, driver_runner
from jwtbench.container_engine import Engine
from jwtbench.rules import summarize_crosscheck, write_bench_spec

SCRIPTS = Path(__file__).resolve().parents[1]
REPO = SCRIPTS.parents[1]
FORMAT = "jwtbench-spec/1"


def write_spec(language, settings, timing, key_dir, input_file, out):
    """The crosscheck spec: suite jwt's cells for settings' variants and operations, with the
    run's timing but the cross-check's process warm-up when that is longer."""
    suite_config = {"algorithms": settings["variants"], "operations": settings["operations"]}
    cells = write_bench_spec.cells("jwt", suite_config, key_dir, Path(input_file).stem, input_file)
    spec = {
        "format": FORMAT,
        "language": language,
        "suite": "jwt",
        "timing": {
            **timing,
            "process_warmup_seconds": max(timing.get("process_warmup_seconds", 0), settings["process_warmup_seconds"]),
        },
        "pairs": [],
        "cells": cells,
        "crosscheck": {name: settings[name] for name in ("alternations", "block_seconds")},
    }
    Path(out).write_text(json.dumps(spec, indent=2) + "\n")


# A driver whose harness runs a parent process beside the measured one (java: JMH's parent
# JVM, whose JIT ran on the fork's CPU; docs/disturbances-java.md) says so in its language's
# driver.yaml (crosscheck_parent): the cross-check gives it the conductor's CPUs too and says
# which are which in the spec (crosscheck.cpus).


def split_cpus(runner, spec_path, pinned):
    """The CPUs the driver's process gets: `pinned`; for a driver whose harness has a parent
    process (crosscheck_parent), `pinned` and the conductor's (this process's other CPUs),
    written into the spec as crosscheck.cpus {benchmark, conductor} (the driver keeps what
    it measures on the benchmark's)."""
    conductor = set(os.sched_getaffinity(0)) - set(pinned)
    parent = config_validation.driver_manifest(SCRIPTS, runner.language)["crosscheck_parent"]
    if not pinned or not conductor or not parent:
        return pinned
    spec = json.loads(Path(spec_path).read_text())
    spec["crosscheck"]["cpus"] = {"benchmark": sorted(pinned), "conductor": sorted(conductor)}
    Path(spec_path).write_text(json.dumps(spec, indent=2) + "\n")
    return set(pinned) | conductor


def run_driver(runner, spec_path, key_dir, cpus, out_csv, log):
    """The driver's `crosscheck` on spec_path, alone on the machine, pinned to `cpus` (the
    execution.cpus text), even with execution.lanes (a driver with crosscheck_parent: and the
    conductor's CPUs, split_cpus); its CSV to out_csv."""
    spec = json.loads(Path(spec_path).read_text())
    scratch = Path(tempfile.mkdtemp(prefix=".crosscheck-", dir=Path(out_csv).parent)).resolve()
    try:
        driver_runner.writable_by_container(scratch)
        written = scratch / "blocks.csv"
        # The worker's one writable place (java's JMH writes its lock and its forks' output).
        spec["crosscheck"]["scratch"] = str(scratch)
        Path(spec_path).write_text(json.dumps(spec, indent=2) + "\n")
        with driver_runner.timed_cpus(cpus, (), log) as pinned:
            pinned = split_cpus(runner, spec_path, pinned)
            timing = driver_runner.bench_command(runner, spec_path, key_dir, pinned, scratch, True, written.name)
            with timing as command:
                print(f"running {runner.describe()} pinned to CPUs {sorted(pinned) or 'any'}:", file=log)
                print("  " + " ".join(command), file=log, flush=True)
                result = subprocess.run(command, stdout=log, stderr=log, env=runner.environ())
        if result.returncode != 0:
            raise RuntimeError(f"{runner.language} cross-check ({runner.describe()}) exited {result.returncode}")
        rows = summarize_crosscheck.read_blocks(written)
        summarize_crosscheck.check_blocks(rows, spec, written)
        shutil.move(written, out_csv)
        driver_runner.reclaim(out_csv)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def run_job(job):
    language = config_validation.language_of(job.wildcards.driver)
    key_dir = str(Path(job.input.key_manifest).parent.resolve())
    write_spec(
        language,
        job.params.settings,
        job.params.timing,
        key_dir,
        str(Path(job.input.claims).resolve()),
        job.output.spec,
    )
    runner = driver_runner.DriverRunner.from_params(job.params.driver)
    with open(job.log[0], "w") as log:
        run_driver(runner, job.output.spec, key_dir, job.params.cpus, job.output.blocks, log)


# The first pass's numeric columns, read back as numbers (None when empty).
NUMBERS = ("driver_ns", "native_ns", "ratio", "ratio_low", "ratio_high", "band")


def confirm(first_rows, rerun, band, gaps_of):
    """The cross-check's table after its confirmation pass: each driver with a cell that
    disagrees in `first_rows` is measured again, whole (rerun(driver) -> its new blocks
    CSV), and each such cell's row becomes the second measurement's, with the first's ratio
    beside it and `confirmation` saying whether it disagrees again."""
    again = sorted({row["driver"] for row in first_rows if row["agreement"] == "disagrees"})
    second = {}
    for driver in again:
        table = summarize_crosscheck.summarize({driver: rerun(driver)}, band, gaps_of)
        second.update({(driver, row["operation"], row["variant"]): row for row in table})
    out = []
    for row in first_rows:
        if row["agreement"] != "disagrees":
            out.append({**row, "confirmation": ""})
            continue
        new = second.get((row["driver"], row["operation"], row["variant"]), {**row, "agreement": "disagrees"})
        out.append(
            {
                **new,
                "first_ratio": row["ratio"],
                "first_ratio_low": row["ratio_low"],
                "first_ratio_high": row["ratio_high"],
                "confirmation": "confirmed" if new["agreement"] == "disagrees" else "cleared",
            }
        )
    return out


def confirm_job(job):
    """Rule confirm_crosscheck: the first pass's disagreements measured again, at the end of
    the run, alone on the machine, on the same CPUs and settings (the first pass's specs)."""
    with open(job.input.first, newline="") as handle:
        first_rows = [
            {**row, **{name: float(row[name]) if row[name] else None for name in NUMBERS}}
            for row in csv.DictReader(handle)
        ]
    key_dir = str(Path(job.input.key_manifest).parent.resolve())
    folder = Path(job.output.table).parent / "crosscheck" / "confirmation"
    folder.mkdir(parents=True, exist_ok=True)
    with open(job.log[0], "w") as log:

        def rerun(driver):
            print(f"{driver}: a cell disagreed; its cross-check again", file=log, flush=True)
            runner = driver_runner.DriverRunner.from_params(job.params.drivers[driver])
            blocks = folder / f"{driver.replace('/', '-')}.csv"
            # The first pass's spec, copied: the run may write into the spec it runs, and
            # this one is an input of the rule.
            spec = shutil.copy(job.params.specs[driver], blocks.with_suffix(".json"))
            run_driver(runner, str(spec), key_dir, job.params.cpus, blocks, log)
            return blocks

        table = confirm(first_rows, rerun, job.params.band, job.params.gaps)
        summarize_crosscheck.write(table, job.output.table)
        for row in table:
            print(summarize_crosscheck.describe(row), file=log)


def main(argv=None):
    """The cross-check of a finished run's keys, natively; settings from the run's config."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--config",
        default=str(REPO / "config" / "config.yaml"),
        help="config whose languages, timing, execution.cpus and crosscheck.* apply",
    )
    parser.add_argument("--driver", action="append", help="a driver (default: every language's own)")
    parser.add_argument("--keys", default="keys", help="the run's key directory")
    parser.add_argument("--out", default="results/crosscheck.manual", help="directory for the blocks and ratios")
    args = parser.parse_args(argv)
    config = config_validation.validate(
        yaml.safe_load(Path(args.config).read_text()) or {},
        REPO / "config" / "schemas" / "config.schema.yaml",
        config_validation.driver_languages(SCRIPTS),
        config_validation.library_drivers(SCRIPTS),
    )
    settings = config["crosscheck"]
    drivers = args.driver or [language for language in config["languages"] if language != "openssl"]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    native = Engine("native", "native", "the cross-check by hand runs natively")
    claims = str((REPO / config["suites"]["jwt"]["input"]).resolve())
    key_dir = str(Path(args.keys).resolve())
    cpus = config["execution"]["cpus"]
    blocks = {}
    for name in drivers:
        spec, csv_path = out / f"{name.replace('/', '-')}.json", out / f"{name.replace('/', '-')}.csv"
        write_spec(config_validation.language_of(name), settings, config["timing"], key_dir, claims, spec)
        runner = driver_runner.DriverRunner(
            name, str(SCRIPTS / name / "run"), native, envs_dir=os.environ.get("JWTBENCH_ENVS", ".envs")
        )
        print(f"cross-checking {name}; progress in {csv_path.with_suffix('.log')}", file=sys.stderr)
        with open(csv_path.with_suffix(".log"), "w") as log:
            run_driver(runner, spec, key_dir, cpus, csv_path, log)
        blocks[name] = csv_path
    gaps = {name: config_validation.driver_manifest(SCRIPTS, name)["crosscheck_gaps"] for name in drivers}
    table = summarize_crosscheck.summarize(blocks, settings["band"], gaps)
    summarize_crosscheck.write(table, out / "crosscheck.csv")
    for row in table:
        print(summarize_crosscheck.describe(row))
    return 1 if any(row["agreement"] == "disagrees" for row in table) else 0


if __name__ == "__main__":
    sys.exit(main())
