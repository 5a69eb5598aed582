"""The benchmark lock: a benchmark holds it alone; image builds and other heavy work
share it, so they run beside each other but never beside a benchmark.

The profile's `bench` resource already serialises benchmarks within one Snakemake run;
this lock is the machine's, not the run's: it also covers a run without that profile, two
runs in one working directory, and two runs in different working directories on the same
machine (a test suite's local and SLURM runs, two users' runs). It lives in /tmp, which is
per node on a cluster; JWTBENCH_BENCHMARK_LOCK names another file.

With lanes (config key execution.lanes, for runs whose figures are not for reading, such as
the smoke config), a benchmark shares the lock instead and takes one lane of its own: as
many benchmarks run at once as there are lanes, each on its lane's CPUs, and the work that
holds the lock alone (the cross-check, cold starts, another run's benchmarks) still waits
for all of them.
"""

import contextlib
import fcntl
import os
import tempfile
import threading
import time
from pathlib import Path

# Seconds each thread has spent waiting for the lock or a lane (Snakemake runs jobs as
# threads of one process): a job's recorded wall time leaves them out (wall_times.record).
_waits = threading.local()


def waited_seconds():
    """The seconds this thread has waited for the lock or a lane so far."""
    return getattr(_waits, "seconds", 0.0)


def _waited(since):
    _waits.seconds = waited_seconds() + time.monotonic() - since


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
            since = time.monotonic()
            fcntl.flock(descriptor, mode)
            _waited(since)
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


# How often a benchmark waiting for a lane looks again (every lane busy).
LANE_POLL_SECONDS = 0.1


def _lane_path(path, index):
    return f"{path or lock_path()}.lane{index}"


@contextlib.contextmanager
def _lane(lanes, log, path):
    """The first free lane's CPU list, held until the block ends."""
    descriptors = [_open(_lane_path(path, index)) for index in range(len(lanes))]
    try:
        said, since = False, time.monotonic()
        while True:
            for index, descriptor in enumerate(descriptors):
                try:
                    fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    continue
                if said:
                    _waited(since)
                try:
                    yield lanes[index]
                finally:
                    fcntl.flock(descriptor, fcntl.LOCK_UN)
                return
            if not said:
                print(f"waiting for one of {len(lanes)} lanes to be free ...", file=log, flush=True)
                said = True
            time.sleep(LANE_POLL_SECONDS)
    finally:
        for descriptor in descriptors:
            os.close(descriptor)


@contextlib.contextmanager
def benchmark_slot(lanes, log, path=None):
    """Held by a benchmark: the machine to itself (no lanes: yields None), or the lock shared
    and a lane of its own (yields the lane's CPU list)."""
    if not lanes:
        with machine_to_ourselves(log, path):
            yield None
        return
    with beside_other_work(log, path), _lane(lanes, log, path) as cpus:
        yield cpus
