"""The benchmark lock: a benchmark holds it alone; image builds and other heavy work
share it, so they run beside each other but never beside a benchmark.

The profile's `bench` resource already serialises benchmarks under Snakemake; this lock
also covers a run without that profile, or two Snakemake runs in one working directory.
"""

import contextlib
import fcntl
from pathlib import Path

LOCK_PATH = "results/.benchmark.lock"


@contextlib.contextmanager
def _held(mode, log, waiting_for, lock_path):
    Path(lock_path).parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "a") as lock:
        try:
            fcntl.flock(lock, mode | fcntl.LOCK_NB)
        except BlockingIOError:
            print(f"waiting for {waiting_for} to finish ...", file=log, flush=True)
            fcntl.flock(lock, mode)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def machine_to_ourselves(log, lock_path=LOCK_PATH):
    """Held by a benchmark: nothing else that takes the lock runs meanwhile."""
    return _held(fcntl.LOCK_EX, log, "other work (a benchmark or an image build)", lock_path)


def beside_other_work(log, lock_path=LOCK_PATH):
    """Held by heavy work that may overlap itself but never a benchmark."""
    return _held(fcntl.LOCK_SH, log, "a benchmark", lock_path)
