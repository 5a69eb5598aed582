"""The benchmark lock is the machine's: a benchmark excludes every other holder, from any
working directory; heavy work shares it with itself."""

import io
import subprocess
import sys
import threading

from conftest import SCRIPTS

from jwtbench import machine_lock

HOLD = """
import sys, time
sys.path.insert(0, {scripts!r})
from jwtbench import machine_lock
with machine_lock.{kind}(sys.stderr, {path!r}):
    print("held", flush=True)
    time.sleep(1.0)
print("released", flush=True)
"""


def hold_in_another_process(kind, path, cwd):
    """A process in another working directory that holds the lock for 1 s once it has it."""
    code = HOLD.format(scripts=str(SCRIPTS), kind=kind, path=str(path))
    process = subprocess.Popen([sys.executable, "-c", code], cwd=cwd, stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline().strip() == "held"
    return process


def test_the_default_lock_is_the_same_file_from_every_working_directory(tmp_path, monkeypatch):
    monkeypatch.delenv("JWTBENCH_BENCHMARK_LOCK", raising=False)
    first = machine_lock.lock_path()
    monkeypatch.chdir(tmp_path)
    assert machine_lock.lock_path() == first and not first.startswith(str(tmp_path))
    monkeypatch.setenv("JWTBENCH_BENCHMARK_LOCK", str(tmp_path / "x.lock"))
    assert machine_lock.lock_path() == str(tmp_path / "x.lock")


def test_a_benchmark_waits_for_a_holder_in_another_working_directory(tmp_path):
    path = tmp_path / "bench.lock"
    (tmp_path / "other").mkdir()
    holder = hold_in_another_process("beside_other_work", path, tmp_path / "other")
    log = io.StringIO()
    with machine_lock.machine_to_ourselves(log, path):
        # the holder said so before its lock was ours (a line already written reads at once)
        assert holder.stdout.readline().strip() == "released"
    assert "waiting for other work" in log.getvalue()


def test_shared_holders_overlap_each_other_but_not_a_benchmark(tmp_path):
    path = tmp_path / "bench.lock"
    holder = hold_in_another_process("beside_other_work", path, tmp_path)
    log = io.StringIO()
    with machine_lock.beside_other_work(log, path):  # at once: shared beside shared
        assert log.getvalue() == ""
    holder.wait()
    benchmark = hold_in_another_process("machine_to_ourselves", path, tmp_path)
    entered = threading.Event()

    def build():
        with machine_lock.beside_other_work(log, path):
            entered.set()

    thread = threading.Thread(target=build)
    thread.start()
    assert not entered.wait(0.3), "shared work ran beside a benchmark"
    benchmark.wait()
    thread.join(5)
    assert entered.is_set() and "waiting for a benchmark" in log.getvalue()
