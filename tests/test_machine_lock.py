"""The benchmark lock is the machine's: a benchmark excludes every other holder, from any
working directory; heavy work shares it with itself."""

import io
import subprocess
import sys
import threading

from jwtbench import machine_lock

HOLD = """
import sys, time
from jwtbench import machine_lock
with machine_lock.{kind}(sys.stderr, {path!r}):
    print("held", flush=True)
    time.sleep(1.0)
print("released", flush=True)
"""


def hold_in_another_process(kind, path, cwd):
    """A process in another working directory that holds the lock for 1 s once it has it."""
    code = HOLD.format(kind=kind, path=str(path))
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


LANE = """
import sys
from jwtbench import machine_lock
with machine_lock.benchmark_slot({lanes!r}, sys.stderr, {path!r}) as cpus:
    print(cpus, flush=True)
    sys.stdin.readline()
print("released", flush=True)
"""


def take_a_lane(lanes, path):
    """A process that holds a benchmark slot until its stdin gets a line; its CPUs once held."""
    code = LANE.format(lanes=lanes, path=str(path))
    process = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    return process


def test_without_lanes_a_benchmark_slot_is_the_machine_to_itself(tmp_path):
    path = tmp_path / "bench.lock"
    first = take_a_lane([], path)
    assert first.stdout.readline().strip() == "None"
    log = io.StringIO()
    entered = threading.Event()

    def second():
        with machine_lock.benchmark_slot([], log, path):
            entered.set()

    thread = threading.Thread(target=second)
    thread.start()
    assert not entered.wait(0.3), "two benchmarks ran at once without lanes"
    first.communicate("\n")
    thread.join(5)
    assert entered.is_set() and "waiting for other work" in log.getvalue()


def test_lanes_run_one_benchmark_each_and_nothing_exclusive_beside_them(tmp_path):
    path = tmp_path / "bench.lock"
    lanes = ["0", "1"]
    first, second = take_a_lane(lanes, path), take_a_lane(lanes, path)
    assert sorted([first.stdout.readline().strip(), second.stdout.readline().strip()]) == lanes
    log = io.StringIO()
    events = {"third": threading.Event(), "exclusive": threading.Event()}

    def third():
        with machine_lock.benchmark_slot(lanes, log, path) as cpus:
            events["third"].cpus = cpus
            events["third"].set()

    def exclusive():  # the cross-check, a cold start: alone on the machine
        with machine_lock.machine_to_ourselves(io.StringIO(), path):
            events["exclusive"].set()

    threads = [threading.Thread(target=third), threading.Thread(target=exclusive)]
    for thread in threads:
        thread.start()
    assert not events["third"].wait(0.3), "a third benchmark ran beside two lanes"
    assert not events["exclusive"].is_set(), "exclusive work ran beside the lanes' benchmarks"
    assert "waiting for one of 2 lanes" in log.getvalue()
    first.communicate("\n")
    assert events["third"].wait(5), "the freed lane was not taken"
    second.communicate("\n")
    for thread in threads:
        thread.join(5)
    assert events["exclusive"].is_set()
    assert events["third"].cpus in lanes


def test_the_conductor_keeps_off_the_benchmarks_cpu_while_it_runs(tmp_path, monkeypatch):
    """driver_runner.timed_cpus without lanes: every thread of this process (Snakemake's,
    and the jobs it runs as threads) leaves the benchmark's CPUs while the job runs, and
    gets them back afterwards."""
    import os

    from jwtbench import driver_runner

    monkeypatch.setenv("JWTBENCH_BENCHMARK_LOCK", str(tmp_path / "lock"))
    every = os.sched_getaffinity(0)
    assert len(every) >= 2, "needs two CPUs"
    benchmark = {max(every)}
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        with driver_runner.timed_cpus(str(max(every)), [], io.StringIO()) as pinned:
            assert pinned == benchmark
            seen = {tid: os.sched_getaffinity(tid) for tid in map(int, os.listdir("/proc/self/task"))}
            assert other.native_id in seen and all(cpus == every - benchmark for cpus in seen.values()), seen
        assert all(os.sched_getaffinity(int(tid)) == every for tid in os.listdir("/proc/self/task"))
    finally:
        stop.set()
        other.join()
