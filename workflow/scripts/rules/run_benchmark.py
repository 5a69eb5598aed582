"""Run one language's `bench` on one spec, alone on the machine, pinned to the configured
CPUs (or, with execution.lanes, beside other benchmarks on a lane's CPUs): natively, or in
a fresh locked-down container (see driver_runner.py).

The driver writes into a fresh directory (the only one a container may write to); its
CSV is checked against the contract and against the spec before it becomes the job's
output. If the driver exits non-zero or breaks the contract, the run goes on: every cell
of the spec is recorded as `failed` (so aggregation and the report carry on and show
it), what was measured is kept under results/failed/, and the metadata sidecar says why.
"""

import datetime
import hashlib
import json
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from jwtbench import bench_budget, driver_runner, host_identity, machine_noise, raw_samples, result_tables


def now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds")


def keep_partial(samples, job_name):
    """Copy a failed run's CSV aside, where nothing will remove it."""
    if not Path(samples).exists():
        return None
    stamp = datetime.datetime.now().strftime("%Y%m%dT%H%M%S")
    kept = Path("results/failed") / f"{job_name.replace('/', '-')}-{stamp}.csv"
    kept.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(samples, kept)
    return kept


def check_against_spec(rows, spec, samples_path):
    # A cell that names its implementation (suite hash) must have rows of that implementation.
    expected = [
        (c["operation"], c["algorithm"], c["key_bits"], c["input"], c.get("implementation")) for c in spec["cells"]
    ]
    seen = {(r["operation"], r["algorithm"], r["key_bits"], r["input"], r["implementation"]) for r in rows}
    seen |= {key[:4] + (None,) for key in seen}
    missing = [cell for cell in expected if cell not in seen]
    if missing:
        raise raw_samples.RawSamplesError(
            f"{samples_path}: {len(missing)} cells of the spec have no rows, e.g. {missing[0]}"
        )
    wrong = {r["language"] for r in rows} - {spec["language"]}
    if wrong:
        raise raw_samples.RawSamplesError(f"{samples_path}: rows for other languages {wrong}")


def failed_rows(spec, versions):
    """One untimed `failed` row per cell of the spec."""
    rows = []
    for cell in spec["cells"]:
        size = Path(cell["input_file"]).stat().st_size if cell.get("input_file") else 0
        for operation in raw_samples.operations_written(spec["suite"], cell["operation"]):
            rows.append(
                {
                    "language": spec["language"],
                    "implementation": cell.get("implementation") or versions.get("implementation") or "unknown",
                    "implementation_version": (
                        "unknown" if cell.get("implementation") else versions.get("implementation_version") or "unknown"
                    ),
                    "suite": spec["suite"],
                    "operation": operation,
                    "algorithm": cell["algorithm"],
                    "key_bits": cell["key_bits"],
                    "input": cell["input"],
                    "input_bytes": size,
                    "sample": 0,
                    "iterations": 0,
                    "elapsed_ns": 0,
                    "output_bytes": 0,
                    "status": "failed",
                    "worker": 0,
                }
            )
    return rows


def write_rows(path, rows):
    result_tables.write_csv(path, raw_samples.COLUMNS, rows)


def budget_spec(job_name, spec, spec_path, plan, scratch, log):
    """(what the benchmark budget gave this job, the spec the driver reads): the job's spec,
    or a copy in `scratch` scaled to the job's share (jwtbench/bench_budget.py): its cells
    sampled in rounds stop at a lowered sample cap, their warm-up until steady gives up
    sooner (timing.warmup_max_seconds scaled by the same share, never below
    warmup_seconds), and each has a time cap of its own (timing.max_cell_seconds, see
    bench_budget.scaled_timing). In a noisy hour no cell gets steady (within
    steady_tolerance) and each warms up for the whole warmup_max_seconds: 5 s a cell, 145 s
    of a 29-cell job, which a sample cap does not shorten (2026-11-28 10:34,
    benchmarks/noisy-neighbour)."""
    taken = bench_budget.share(job_name)
    if taken is None or plan is None:
        return None, spec_path
    share, left, budget = taken
    expected, most = plan
    timing = spec["timing"]
    lowered = bench_budget.scaled_timing(timing, share, most, spec.get("suite"))
    facts = {
        "budget_seconds": budget,
        "left_seconds": round(left, 3),
        "share_seconds": round(share, 3),
        "worst_case_seconds": round(most, 3),
        "samples_cap": lowered.get("samples"),
        "warmup_max_seconds": lowered.get("warmup_max_seconds"),
        "max_cell_seconds": lowered.get("max_cell_seconds"),
    }
    fits = share >= most
    said = {
        "samples": "its cells sampled in rounds stop at {} samples (timing.samples {:g})",
        "warmup_max_seconds": "their warm-up until steady stops at {:g} s (timing.warmup_max_seconds {:g})",
        "max_cell_seconds": "each cell's time cap is {:g} s (timing.max_cell_seconds {:g})",
    }
    head = f"benchmark budget: {left:.0f} s of {budget:.0f} s left; " + (
        f"this job's worst case ({most:.0f} s) fits"
        if fits
        else f"this job's share {share:.0f} s of its worst case {most:.0f} s"
    )
    print(head + "".join(f"; {said[key].format(value, timing[key])}" for key, value in lowered.items()), file=log)
    if not lowered:
        return facts, spec_path
    scaled = {**timing, **lowered}
    capped = scratch / Path(spec_path).name
    capped.write_text(json.dumps({**spec, "timing": scaled}, indent=2))
    capped.chmod(0o644)
    return facts, str(capped)


def run_job(snake):
    driver, suite, input_name = snake.wildcards.driver, snake.wildcards.suite, snake.wildcards.input
    job_name = f"{driver}/{suite}/{input_name}"
    spec_path, samples = snake.input.spec, snake.output.samples
    spec = json.loads(Path(spec_path).read_text())
    versions = json.loads(Path(snake.input.versions).read_text())
    runner = driver_runner.DriverRunner.from_params(snake.params.driver)
    key_dir = Path(snake.input.key_manifest).parent
    # Where the samples come from, so aggregation never pools two hosts' or two images' samples.
    host = host_identity.host_facts()
    image_id = runner.engine.image_id(runner.image) if runner.in_container else "native"
    Path(samples).parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{suite}-", dir=Path(samples).parent)).resolve()
    driver_out = scratch / "samples.csv"
    failure = None
    try:
        with (
            open(snake.log[0], "w") as log,
            driver_runner.timed_cpus(snake.params.cpus, snake.params.lanes, log) as cpus,
        ):
            # Its share of the benchmark budget, taken when it starts (after its wait for the CPUs).
            budget, timed_spec = budget_spec(job_name, spec, spec_path, snake.params.plan, scratch, log)
            conducted = snake.params.conducted
            with driver_runner.bench_command(runner, timed_spec, key_dir, cpus, scratch, conducted) as command:
                print(f"running {runner.describe()} pinned to CPUs {sorted(cpus) or 'any'}:", file=log)
                print("  " + " ".join(command), file=log, flush=True)
                bench_budget.begin(job_name)  # for the progress line, before the job's clock starts
                started, clock = now(), time.monotonic()
                # What else ran on its CPUs meanwhile (machine_noise.py), sampled from another CPU.
                result, noise = machine_noise.run(
                    command, cpus, stdout=log, stderr=log, env=runner.environ(), started=clock
                )
                seconds, ended = time.monotonic() - clock, now()
                bench_budget.record(job_name, seconds)
            try:
                if result.returncode != 0:
                    raise RuntimeError(f"{driver} bench exited {result.returncode} (see {snake.log[0]})")
                rows = raw_samples.read(driver_out)
                check_against_spec(rows, spec, driver_out)
                write_rows(samples, rows)  # with the worker column a driver's own bench leaves out
            except (RuntimeError, OSError, raw_samples.RawSamplesError) as error:
                kept = keep_partial(driver_out, job_name)
                failure = f"{error}" + (f"; what was measured is kept in {kept}" if kept else "")
                print(f"FAILED: {failure}; every cell of {job_name} is recorded as failed", file=log, flush=True)
                print(f"jwtbench: {job_name}: {failure}", file=sys.stderr)
                rows = failed_rows(spec, versions)
                write_rows(samples, rows)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    statuses = Counter(row["status"] for row in raw_samples.cells_only(rows) if row["sample"] <= 1)
    metadata = {
        "language": spec["language"],
        "driver": driver,
        "suite": suite,
        "input": input_name,
        "runner": runner.describe(),
        "host_id": host_identity.host_id(host),
        "host": host,
        "image_id": image_id,
        "started": started,
        "ended": ended,
        "seconds": round(seconds, 3),
        "budget": budget,
        "cpus": sorted(cpus),
        "exit_code": result.returncode,
        "failure": failure,
        "cells": len(spec["cells"]),
        "cell_status": dict(statuses),
        "samples": len(rows),
        "spec_sha256": hashlib.sha256(Path(spec_path).read_bytes()).hexdigest(),
        # One row per half second of the driver's run (columns: workflow/schemas/noise.schema.yaml).
        "noise": noise,
    }
    Path(snake.output.metadata).write_text(json.dumps(metadata, indent=2) + "\n")
