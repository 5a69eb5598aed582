"""Run one language's `bench` on one spec, pinned to the configured CPUs.

Records when it ran and how in a metadata sidecar, checks the driver's CSV against the
contract and against the spec (every cell has rows), and on any failure keeps what was
measured under results/failed/ before failing the job.
"""

import contextlib
import datetime
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import raw_samples  # noqa: E402


def parse_cpus(text):
    """CPU set from taskset-style text ("1", "0-1,3"); empty means no pinning."""
    cpus = set()
    for part in filter(None, text.split(",")):
        low, _, high = part.partition("-")
        cpus.update(range(int(low), int(high or low) + 1))
    return cpus


def checked_cpus(text):
    cpus = parse_cpus(text)
    available = os.sched_getaffinity(0)
    if cpus - available:
        raise RuntimeError(
            f"config key 'execution.cpus': CPUs {sorted(cpus - available)} are not available"
            f" to this process (available: {sorted(available)})"
        )
    return cpus


def pinned(command, cpus):
    """The command under taskset, so the process and every thread it starts stay on `cpus`."""
    if not cpus:
        return command
    taskset = shutil.which("taskset")
    if taskset is None:
        raise RuntimeError(
            "config key 'execution.cpus' asks for pinning but taskset (util-linux) is not"
            " installed; install it or set execution.cpus to \"\""
        )
    return [taskset, "--cpu-list", ",".join(map(str, sorted(cpus))), *command]


@contextlib.contextmanager
def machine_to_ourselves(log, lock_path="results/.benchmark.lock"):
    """Hold the benchmark lock: no two benchmarks ever overlap, whatever the scheduler.

    The profile's `bench` resource already serialises them under Snakemake; this also
    covers a run without that profile, or two Snakemake runs in one working directory.
    """
    Path(lock_path).parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print("waiting for another benchmark to finish ...", file=log, flush=True)
            fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds")


def keep_partial(samples, language, suite):
    """Copy a failed run's CSV aside, since the job's outputs will be removed."""
    if not Path(samples).exists():
        return None
    stamp = datetime.datetime.now().strftime("%Y%m%dT%H%M%S")
    kept = Path("results/failed") / f"{language}-{suite}-{stamp}.csv"
    kept.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(samples, kept)
    return kept


def check_against_spec(rows, spec, samples_path):
    expected = [(c["operation"], c["algorithm"], c["key_bits"], c["input"]) for c in spec["cells"]]
    seen = {(r["operation"], r["algorithm"], r["key_bits"], r["input"]) for r in rows}
    missing = [cell for cell in expected if cell not in seen]
    if missing:
        raise raw_samples.RawSamplesError(
            f"{samples_path}: {len(missing)} cells of the spec have no rows, e.g. {missing[0]}"
        )
    wrong = {r["language"] for r in rows} - {spec["language"]}
    if wrong:
        raise raw_samples.RawSamplesError(f"{samples_path}: rows for other languages {wrong}")


def run_job(snake):
    language, suite = snake.wildcards.language, snake.wildcards.suite
    spec_path, samples = snake.input.spec, snake.output.samples
    spec = json.loads(Path(spec_path).read_text())
    cpus = checked_cpus(snake.params.cpus)
    command = [snake.params.driver, "bench", "--spec", spec_path, "--out", samples]
    env = dict(os.environ, JWTBENCH_ENVS=str(Path(".envs").resolve()))

    with open(snake.log[0], "w") as log, machine_to_ourselves(log):
        started, clock = now(), time.monotonic()
        print(f"running {' '.join(command)} pinned to CPUs {sorted(cpus) or 'any'}", file=log, flush=True)
        result = subprocess.run(pinned(command, cpus), stdout=log, stderr=log, env=env)
        seconds = time.monotonic() - clock
        ended = now()

    try:
        if result.returncode != 0:
            raise RuntimeError(f"{language} bench exited {result.returncode} (see {snake.log[0]})")
        rows = raw_samples.read(samples)
        check_against_spec(rows, spec, samples)
    except (RuntimeError, raw_samples.RawSamplesError) as error:
        kept = keep_partial(samples, language, suite)
        where = f"; what was measured is kept in {kept}" if kept else ""
        raise RuntimeError(f"{error}{where}") from None

    statuses = Counter()
    for row in rows:
        if row["sample"] <= 1:
            statuses[row["status"]] += 1
    metadata = {
        "language": language,
        "suite": suite,
        "started": started,
        "ended": ended,
        "seconds": round(seconds, 3),
        "cpus": sorted(cpus),
        "cells": len(spec["cells"]),
        "cell_status": dict(statuses),
        "samples": len(rows),
        "spec_sha256": hashlib.sha256(Path(spec_path).read_bytes()).hexdigest(),
    }
    Path(snake.output.metadata).write_text(json.dumps(metadata, indent=2) + "\n")

