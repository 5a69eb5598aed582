"""The benchmark lock: a benchmark holds it alone; image builds and other heavy work
share it, so they run beside each other but never beside a benchmark.

The profile's `bench` resource already serialises benchmarks within one Snakemake run;
this lock is the machine's, not the run's: it also covers a run without that profile, two
runs in one working directory, and two runs in different working directories on the same
machine (a test suite's local and SLURM runs, two users' runs). It lives in /tmp, which is
per node on a cluster; JWTBENCH_BENCHMARK_LOCK names another file.
"""

import contextlib
import fcntl
import os
import tempfile
from pathlib import Path


def lock_path():
    return os.environ.get("JWTBENCH_BENCHMARK_LOCK") or str(Path(tempfile.gettempdir()) / "jwtbench-benchmark.lock")


def _open(path):
    """A descriptor of the lock file, made readable and writable by every user so each
    user's runs take the same lock; flock needs no write access, so read-only will do."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    try:
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    except PermissionError:
        return os.open(path, os.O_RDONLY)
    with contextlib.suppress(PermissionError):
        os.fchmod(descriptor, 0o666)
    return descriptor


@contextlib.contextmanager
def _held(mode, log, waiting_for, path):
    descriptor = _open(path or lock_path())
    try:
        try:
            fcntl.flock(descriptor, mode | fcntl.LOCK_NB)
        except BlockingIOError:
            print(f"waiting for {waiting_for} to finish ...", file=log, flush=True)
            fcntl.flock(descriptor, mode)
        try:
            yield
        finally:
            fcntl.flock(descriptor, fcntl.LOCK_UN)
    finally:
        os.close(descriptor)


def machine_to_ourselves(log, path=None):
    """Held by a benchmark: nothing else that takes the lock runs meanwhile."""
    return _held(fcntl.LOCK_EX, log, "other work (a benchmark or an image build)", path)


def beside_other_work(log, path=None):
    """Held by heavy work that may overlap itself but never a benchmark."""
    return _held(fcntl.LOCK_SH, log, "a benchmark", path)
