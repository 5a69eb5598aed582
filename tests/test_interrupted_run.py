"""An interrupted run resumes with the same command, and a run that dies leaves no process
or container behind (issue 42 item 5; workflow/scripts/jwtbench/run_supervisor.py, docs/methods.md
"An interrupted run"). A setting the machine cannot honour is refused before anything runs.

The kill tests SIGKILL a real `./jwtbench run` (natively, python only, one benchmark) while its
benchmark's driver runs; the containers are shown with a stand-in for Snakemake that starts
one labelled container the pipeline's way (container_engine.Engine.command), so no image
is needed."""

import csv
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO, SCRIPTS, SMOKE_CONFIG, SMOKE_IN_TESTS, SNAKEFILE, SNAKEMAKE, link_test_envs

from jwtbench import config_validation, container_engine, driver_runner, run_supervisor

SUPERVISOR = SCRIPTS / "jwtbench" / "run_supervisor.py"
INTERRUPTED = "the previous run in this directory was interrupted (its process is gone)"


# -- a setting the machine cannot honour ------------------------------------------------


def test_cpus_beyond_the_machine_are_refused_naming_the_key(tmp_path):
    """`execution.cpus: '99'` on a 2-CPU machine: refused while the workflow is read (so by
    a dry run), naming the key and the CPUs there are; no traceback beyond Snakemake's."""
    available = os.sched_getaffinity(0)
    cpu = 99 if 99 not in available else max(available) + 1
    result = subprocess.run(
        [SNAKEMAKE, "-s", str(SNAKEFILE), "-d", str(tmp_path), "-n", "--config", f'execution={{cpus: "{cpu}"}}'],
        capture_output=True,
        text=True,
        timeout=120,
    )
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert f"config key 'execution.cpus': '{cpu}' names CPU {cpu}" in output, output[-2000:]
    assert f"the CPUs available are {driver_runner.cpu_list_text(available)}" in output
    assert "Traceback" not in output and "Building DAG of jobs" not in output


def test_lanes_and_cpus_are_checked_against_the_cpus_there_are():
    problems = config_validation.cpu_problems(
        {"execution": {"cpus": "0-1", "lanes": ["0", "1-3", "7,9"]}}, available={0, 1}
    )
    assert len(problems) == 2
    assert problems[0].startswith("config key 'execution.lanes[1]': '1-3' names CPUs 2-3")
    assert problems[1].startswith("config key 'execution.lanes[2]': '7,9' names CPUs 7,9")
    assert "the CPUs available are 0-1" in problems[0]
    assert config_validation.cpu_problems({"execution": {"cpus": "", "lanes": []}}, available={0}) == []


# -- helpers ------------------------------------------------------------------------------


def state_of(workdir):
    return Path(workdir) / ".snakemake" / "jwtbench"


def wait_for(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = predicate()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def the_record(workdir):
    """The live run's record, once its supervisor has written it."""

    def read():
        try:
            return json.loads((state_of(workdir) / "run.json").read_text())
        except (OSError, ValueError):
            return None

    return wait_for(read, 120, "the run's record (.snakemake/jwtbench/run.json)")


def alive(record):
    """The live processes of the run `record` (its process group, or its id in their
    environment), as the supervisor finds them."""
    return run_supervisor.run_processes(record)


def command_line(pid):
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def engine_or_fail():
    engine = container_engine.select("auto", REPO)
    assert engine.in_containers, f"no container engine runs here: {engine.reason}"
    return engine


def labelled_containers(engine, run_id):
    listed = engine.run(
        "ps", "--all", "--quiet", "--filter", f"label={container_engine.RUN_LABEL}={run_id}", timeout=60
    )
    assert listed.returncode == 0, listed.stderr
    return listed.stdout.split()


def ended(process, timeout=60):
    try:
        return process.wait(timeout)
    finally:
        if process.poll() is None:
            process.kill()


# -- a real run, killed mid-benchmark -------------------------------------------------


# The benchmark's driver at work: its bench, or its serve under the conductor (driver.yaml `conducted`).
BENCHMARK_PROCESS = re.compile(r" (bench|serve) --spec ")


def small_run(workdir, engine):
    """`./jwtbench run` of one benchmark, python's hash cases, with execution.engine `engine`."""
    return [
        str(REPO / "jwtbench"),
        "run",
        "-d",
        str(workdir),
        "--configfile",
        str(SMOKE_CONFIG),
        str(SMOKE_IN_TESTS),
        "--config",
        "languages=[python]",
        f"execution={{engine: {engine}}}",
        "conformance={activate: false}",
        "libraries={drivers: []}",
        "--cores",
        "2",
        "results/raw/python/hash/cases.csv",
    ]


def run_dir(tmp_path, workdir):
    """A working directory with the session's native environments and keys."""
    path = tmp_path / "run"
    path.mkdir()
    link_test_envs(path)
    shutil.copytree(workdir / "keys", path / "keys")
    return path


def kill_mid_benchmark(workdir, tmp_path, killed, engine="native", engine_client=None):
    """Start the small run in `workdir`, SIGKILL Snakemake (or ./jwtbench itself) while its
    benchmark's driver runs, run the same command again; the first run's record."""
    # A lock of its own: the session's smoke run may hold the machine's.
    env = dict(os.environ, JWTBENCH_BENCHMARK_LOCK=str(tmp_path / "bench.lock"))
    command = small_run(workdir, engine)
    with open(tmp_path / "first.log", "w") as log:
        first = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        record = the_record(workdir)
        driver = wait_for(
            lambda: (
                [pid for pid in alive(record) if BENCHMARK_PROCESS.search(command_line(pid))]
                or first.poll() is not None
            ),
            180,
            "the benchmark's driver",
        )
        assert first.poll() is None, "the run ended before its benchmark started"
        if engine_client:
            wait_for(lambda: labelled_containers(engine_client, record["run_id"]), 60, "the benchmark's container")
        assert (workdir / ".snakemake" / "locks").is_dir()
        before = {pid: run_supervisor.proc_stat(pid) for pid in alive(record)}
        os.kill(first.pid if killed == "the wrapper" else record["pgid"], signal.SIGKILL)
        returncode = ended(first)
    finally:
        if first.poll() is None:
            first.kill()
    first_log = (tmp_path / "first.log").read_text()
    assert driver and before
    if killed == "snakemake":
        # The supervisor saw Snakemake die, ended the rest and exits with its status.
        assert returncode == 128 + signal.SIGKILL, first_log[-3000:]
        assert not alive(record), [command_line(pid) for pid in alive(record)]
        assert "ended what the run left running when Snakemake exited" in first_log
    again = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
    output = again.stdout + again.stderr
    assert again.returncode == 0, output[-3000:]
    assert INTERRUPTED in output
    assert not alive(record), [command_line(pid) for pid in alive(record)]
    assert not [pid for pid, stat in before.items() if stat and run_supervisor.proc_stat(pid) == stat]
    # The killed benchmark was measured again, not kept with its cells failed (Snakemake's
    # output is in the log file the run names; the terminal gets the summary).
    assert "jwtbench: the run finished after" in output
    log = output.split("Snakemake's full log: ", 1)[1].split(" (", 1)[0]
    assert "localrule run_benchmark:" in (Path.cwd() / log).read_text()
    rows = list(csv.DictReader(open(workdir / "results" / "raw" / "python" / "hash" / "cases.csv")))
    assert rows and {row["status"] for row in rows} == {"ok"}
    assert not (state_of(workdir) / "run.json").exists()
    return record


@pytest.mark.end_to_end
@pytest.mark.parametrize("killed", ["snakemake", "the wrapper"])
def test_a_run_killed_mid_benchmark_resumes_with_the_same_command(workdir, tmp_path, killed):
    """SIGKILL Snakemake (or ./jwtbench itself) while a benchmark's driver runs: nothing of
    the run is left, and the same command says the run was interrupted and completes."""
    kill_mid_benchmark(run_dir(tmp_path, workdir), tmp_path, killed)


def test_a_containerised_run_killed_mid_benchmark_leaves_no_container(smoke, tmp_path):
    """The same in a container, ./jwtbench killed: its `podman run` client dies with it and
    the container would run on under conmon; the watchdog removes it (once the smoke run
    has built the images, so this test builds none)."""
    engine = engine_or_fail()
    record = kill_mid_benchmark(run_dir(tmp_path, smoke), tmp_path, "the wrapper", "auto", engine)
    assert not labelled_containers(engine, record["run_id"])


# -- containers -----------------------------------------------------------------------


STAND_IN = """#!{python}
# A stand-in for Snakemake: the first time, starts a container the pipeline's way (labelled
# with the run's id) and waits; afterwards, exits 0 at once.
import os, subprocess, sys, time
from pathlib import Path
os.chdir(sys.argv[sys.argv.index("-d") + 1])  # as Snakemake does
from jwtbench import container_engine
marker, locks = Path({marker!r}), Path(".snakemake/locks")
if "--unlock" in sys.argv:
    for lock in locks.iterdir():
        lock.unlink()
    sys.exit(0)
if marker.exists():
    print("second run: nothing to do;", *sys.argv[1:], flush=True)
    sys.exit(0)
marker.touch()
locks.mkdir(parents=True, exist_ok=True)
(locks / "0.input.lock").write_text("as Snakemake's own")
engine = container_engine.select("auto", {repo!r})
run = ("run", "--rm", *container_engine.LOCKDOWN[:-1], "--rootfs", {rootfs!r}, {sleep!r}, "600")
subprocess.Popen(engine.command(*run), env=engine.environ())
time.sleep(600)
"""


@pytest.fixture
def stand_in(tmp_path, monkeypatch):
    """(workdir, the supervised command) of a stand-in run that starts a container; its
    output on the terminal (JWTBENCH_VERBOSE, as ./jwtbench run --verbose), where the
    tests read it."""
    monkeypatch.setenv("JWTBENCH_VERBOSE", "1")
    workdir, rootfs = tmp_path / "run", tmp_path / "rootfs"
    workdir.mkdir()
    sleep = container_engine.probe_rootfs(rootfs, "sleep")  # no image needed
    program = tmp_path / "snakemake"
    program.write_text(
        STAND_IN.format(
            python=sys.executable, repo=str(REPO), marker=str(tmp_path / "started"), rootfs=str(rootfs), sleep=sleep
        )
    )
    program.chmod(0o755)
    return workdir, [sys.executable, str(SUPERVISOR), str(program), "-d", str(workdir)]


def started_container(workdir, engine, process):
    record = the_record(workdir)
    wait_for(
        lambda: labelled_containers(engine, record["run_id"]) or process.poll() is not None,
        60,
        "the labelled container",
    )
    assert process.poll() is None, "the run ended before its container started"
    return record


@pytest.mark.parametrize("killed", ["snakemake", "the supervisor", "the supervisor and its watchdog"])
def test_a_killed_run_leaves_no_container(stand_in, tmp_path, killed):
    """A container started by a run is removed when the run is killed: by the supervisor
    when Snakemake dies, by its watchdog when the supervisor dies, and when both die, by the
    next run, which says what it ended."""
    engine = engine_or_fail()
    workdir, command = stand_in
    with open(tmp_path / "first.log", "w") as log:
        first = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    try:
        record = started_container(workdir, engine, first)
        if killed == "snakemake":
            os.kill(record["pgid"], signal.SIGKILL)
            assert ended(first) == 128 + signal.SIGKILL
            assert not labelled_containers(engine, record["run_id"])
        elif killed == "the supervisor":
            os.kill(first.pid, signal.SIGKILL)
            ended(first)
            wait_for(lambda: not labelled_containers(engine, record["run_id"]), 60, "the watchdog to remove it")
        else:
            os.kill(record["watchdog"], signal.SIGKILL)
            os.kill(first.pid, signal.SIGKILL)
            ended(first)
            time.sleep(1)
            assert labelled_containers(engine, record["run_id"]) and alive(record)  # nothing ended them
    finally:
        if first.poll() is None:
            first.kill()
    again = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr[-2000:]
    assert f"{INTERRUPTED}: unlocking and rerunning its incomplete jobs" in again.stderr
    assert "nothing to do; -d" in again.stdout and again.stdout.strip().endswith("--rerun-incomplete")
    assert not list((workdir / ".snakemake" / "locks").iterdir())
    if killed == "the supervisor and its watchdog":
        assert f"ended what the previous run (run id {record['run_id']}) left running" in again.stderr
        assert "1 container" in again.stderr
    assert not labelled_containers(engine, record["run_id"])
    assert not alive(record)


# -- a live run is not unlocked -------------------------------------------------------


WAITS = """#!{python}
# A stand-in for a live Snakemake: it locks its working directory (-d, else the current
# one) as Snakemake does and runs until stopped; with --unlock, it unlocks.
import os, sys, time
from pathlib import Path
if "-d" in sys.argv:
    os.chdir(sys.argv[sys.argv.index("-d") + 1])
locks = Path(".snakemake/locks")
if "--unlock" in sys.argv:
    for lock in locks.iterdir():
        lock.unlink()
    sys.exit(0)
locks.mkdir(parents=True, exist_ok=True)
(locks / "0.input.lock").write_text("held")
print("started", flush=True)
time.sleep(600)
"""


def test_a_live_run_in_the_same_directory_is_not_unlocked(tmp_path, monkeypatch):
    """A second run beside a live one (under ./jwtbench, or a Snakemake started without it)
    refuses to start, exit 1, and leaves the live run's lock alone."""
    monkeypatch.setenv("JWTBENCH_VERBOSE", "1")  # the stand-in's output where the test reads it
    workdir = tmp_path / "run"
    workdir.mkdir()
    program = tmp_path / "snakemake"
    program.write_text(WAITS.format(python=sys.executable))
    program.chmod(0o755)
    lock = workdir / ".snakemake" / "locks" / "0.input.lock"
    command = [sys.executable, str(SUPERVISOR), str(program), "-d", str(workdir)]
    live = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert live.stdout.readline().strip() == "started"
        second = subprocess.run(command, capture_output=True, text=True, timeout=60)
        assert second.returncode == 1
        assert "another ./jwtbench run is running" in second.stderr and "not unlocked" in second.stderr
        assert lock.exists()
    finally:
        live.send_signal(signal.SIGTERM)
        assert ended(live) == 128 + signal.SIGTERM
    # A Snakemake started by hand in that directory owns its lock just as well.
    lock.unlink()
    bare = subprocess.Popen([str(program)], cwd=workdir, stdout=subprocess.PIPE, text=True)
    try:
        assert bare.stdout.readline().strip() == "started"
        refused = subprocess.run(command, capture_output=True, text=True, timeout=60)
        assert refused.returncode == 1
        assert "a Snakemake started without ./jwtbench is running" in refused.stderr and str(bare.pid) in refused.stderr
        assert lock.exists()
    finally:
        bare.kill()
        bare.wait()
    # Its owner gone, the lock is stale: the same command unlocks and goes on.
    resumed = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert resumed.stdout.readline().strip() == "started"
    finally:
        resumed.send_signal(signal.SIGINT)
        assert ended(resumed) == 128 + signal.SIGINT
    assert f"{INTERRUPTED}: unlocking and rerunning its incomplete jobs" in resumed.stderr.read()


def test_strict_is_taken_out_of_snakemakes_arguments():
    """`./jwtbench run --strict ...` hands the workflow JWTBENCH_STRICT=1, not the flag
    (Snakemake would refuse an argument it does not know)."""
    result = subprocess.run(
        [str(REPO / "jwtbench"), "run", "--strict", "--version"], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip().split(".")[0].isdigit()
    text = (REPO / "jwtbench").read_text()
    assert "--strict" in text[: text.index("set -euo pipefail")]
    assert "export JWTBENCH_STRICT=1" in text[text.index("  run)") : text.index("  test)")]
