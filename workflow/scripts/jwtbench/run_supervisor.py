"""`./jwtbench run`'s supervisor: Snakemake as a supervised child, so that an interrupted
run resumes with the same command and a run that dies leaves nothing behind.

    python run_supervisor.py SNAKEMAKE [SNAKEMAKE ARGS...]

Standard library and jwtbench/run_progress.py only (it runs before, and around, the
workflow). Snakemake's output goes to logs/run-<run id>.log; the terminal gets
run_progress's progress line and its summary at the end. In the working directory
(Snakemake's -d/--directory, else the current one) it keeps .snakemake/jwtbench/:

- run.lock: flock-ed by the supervisor for as long as its run lives. The kernel drops an
  flock when its holder dies, however it dies (SIGKILL too), and never while it lives, so
  "the lock is free" is exactly "no jwtbench run in this directory is alive" — unlike a
  pid file, which a reused pid can fool. Snakemake does not inherit it.
- run.json: the live run's record (supervisor pid, Snakemake's process group and start
  time, the run id), removed when the supervisor has ended its run. Found at the start of
  a run, with run.lock free, it is a run that died without its supervisor's cleanup.

Each run gets an id, exported to Snakemake as JWTBENCH_RUN_ID: every process of the run
inherits it in its environment and every container the pipeline starts carries it as the
label jwtbench.run=<id> (container_engine.Engine.command). Snakemake runs in a session and
process group of its own. Whatever way the run ends, what is left of it is ended: the
processes of that group and those carrying the id in their environment, and the
containers labelled with the id (`rm --force`). What Snakemake left when it died gets a
SIGTERM first (SIGKILL after a grace period); a run whose supervisor died is SIGKILLed
outright, Snakemake included, so its running jobs stay incomplete and are measured again
(a SIGTERM would let Snakemake finish them, a benchmark with its driver ended by that
signal among them, kept with its cells failed):

- Snakemake exits (or is killed, SIGKILL too): the supervisor ends the rest and exits with
  Snakemake's status (128 + the signal's number when a signal ended it).
- the supervisor gets SIGINT, SIGTERM or SIGHUP: it hands the signal to the whole group
  (as a terminal's Ctrl-C would), waits for Snakemake, then ends the rest; a second
  signal ends the group at once.
- the supervisor is SIGKILLed: a watchdog it forked (in a session of its own, holding the
  read end of a pipe only the supervisor writes to) sees the pipe close and ends the run.
- both are gone (kill -9 of everything, a reboot): the next `./jwtbench run` in the
  directory finds run.json and ends what is left before it starts.

A run found interrupted (run.json left behind, or Snakemake's own lock in .snakemake/locks
with no live owner, or incomplete-job markers) is resumed: `snakemake --unlock`, then the
same command with --rerun-incomplete. Snakemake's lock is never removed while its owner
lives: with run.lock held by another supervisor, or a Snakemake started without
./jwtbench alive in the directory, the run is refused (exit 1).
"""

import ctypes
import datetime
import errno
import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

from jwtbench import run_progress

REPO = Path(__file__).resolve().parents[3]

PODMAN_SETTINGS = REPO / "containers" / "podman" / "containers.conf"
LABEL = "jwtbench.run"
GRACE_SECONDS = 10
INTERRUPTED = "the previous run in this directory was interrupted (its process is gone)"


def say(message):
    print(f"jwtbench: {message}", file=sys.stderr, flush=True)


def working_directory(args):
    """Snakemake's working directory for these arguments (-d/--directory), resolved."""
    found = None
    for index, arg in enumerate(args):
        if arg in ("-d", "--directory") and index + 1 < len(args):
            found = args[index + 1]
        elif arg.startswith("--directory="):
            found = arg.split("=", 1)[1]
        elif arg.startswith("-d") and len(arg) > 2 and not arg.startswith("--"):
            found = arg[2:]
    return Path(found or ".").resolve()


# -- processes -------------------------------------------------------------------------


def proc_stat(pid):
    """(process group, start time in clock ticks since boot) of a live pid, else None."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()  # after "pid (comm) "
    if fields[0] == "Z":
        return None  # a zombie: already dead, waiting for its parent
    return int(fields[2]), int(fields[19])


def describe_process(pid):
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return str(pid)
    words = [word.decode(errors="replace") for word in argv if word]
    if not words:
        return str(pid)
    return f"{pid} {' '.join([Path(words[0]).name, *words[1:3]])}"[:100]


def has_run_id(pid, run_id):
    try:
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        return False
    return f"JWTBENCH_RUN_ID={run_id}".encode() in environ


def run_processes(record):
    """The live processes of a run: in its process group (started no earlier than its
    Snakemake, so a reused group number is not mistaken for it), or carrying its id in
    their environment (which reaches what left the group, e.g. through setsid)."""
    ours = {os.getpid(), os.getppid()}
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) in ours:
            continue
        pid = int(entry.name)
        stat = proc_stat(pid)
        if stat is None:
            continue
        group, started = stat
        if (group == record["pgid"] and started >= record["started_ticks"]) or has_run_id(pid, record["run_id"]):
            found.append(pid)
    return found


def end_processes(record, grace=GRACE_SECONDS, first=signal.SIGTERM):
    """SIGTERM (or `first`) to every live process of the run, SIGKILL to those still alive
    after `grace` seconds; the descriptions of the processes ended."""
    pids = run_processes(record)
    if not pids:
        return []
    described = [describe_process(pid) for pid in pids]
    for pid in pids:
        signal_quietly(pid, first)
    deadline = time.monotonic() + (grace if first != signal.SIGKILL else 0)
    while time.monotonic() < deadline and run_processes(record):
        time.sleep(0.1)
        reap_orphans()
    for _ in range(3):  # what a SIGTERM did not end, and what started meanwhile
        left = run_processes(record)
        if not left:
            break
        for pid in left:
            signal_quietly(pid, signal.SIGKILL)
        time.sleep(0.2)
    return described


def signal_quietly(pid, number):
    try:
        os.kill(pid, number)
    except ProcessLookupError:
        pass


# -- containers ------------------------------------------------------------------------


def engines():
    """(executable, environment) of each container engine that may hold the run's
    containers: podman (with its own settings and with this repository's, which the
    workflow falls back to), docker when a daemon answers."""
    found = []
    podman = shutil.which("podman")
    if podman:
        found.append((podman, dict(os.environ)))
        if PODMAN_SETTINGS.is_file() and os.environ.get("CONTAINERS_CONF") != str(PODMAN_SETTINGS):
            found.append((podman, dict(os.environ, CONTAINERS_CONF=str(PODMAN_SETTINGS))))
    docker = shutil.which("docker")
    if docker and quiet([docker, "info", "--format", "{{.ServerVersion}}"], os.environ, 20) is not None:
        found.append((docker, dict(os.environ)))
    return found


def quiet(command, env, timeout=120):
    """The stdout of `command` when it exits 0, else None."""
    try:
        result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return result.stdout if result.returncode == 0 else None


def end_containers(run_id):
    """Remove every container labelled with the run's id; their short ids."""
    removed = []
    for executable, env in engines():
        listed = quiet([executable, "ps", "--all", "--quiet", "--filter", f"label={LABEL}={run_id}"], env)
        ids = sorted(set((listed or "").split()) - set(removed))
        if ids and quiet([executable, "rm", "--force", "--time", "0", *ids], env) is not None:
            removed += ids
        elif ids and quiet([executable, "rm", "--force", *ids], env) is not None:  # docker: no --time
            removed += ids
    return [container[:12] for container in removed]


def end_run(record, grace=GRACE_SECONDS, first=signal.SIGTERM):
    """End what is left of a run; a sentence saying what was ended, or None."""
    processes = end_processes(record, grace, first)
    containers = end_containers(record["run_id"])
    parts = []
    if processes:
        parts.append(f"{len(processes)} process{'es' if len(processes) > 1 else ''} ({', '.join(processes)})")
    if containers:
        parts.append(f"{len(containers)} container{'s' if len(containers) > 1 else ''} ({', '.join(containers)})")
    return " and ".join(parts) or None


# -- Snakemake's own lock --------------------------------------------------------------


def is_snakemake_main(pid):
    """A Snakemake process that owns a working directory (not one of its job processes)."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    argv = [word.decode(errors="replace") for word in raw if word]
    head = argv[:3]
    named = any(Path(word).name == "snakemake" for word in head) or "-m" in head and "snakemake" in head
    return named and not any(word in argv for word in ("--mode", "--target-jobs", "--dry-run", "-n", "--dryrun"))


def snakemakes_in(directory):
    """Live Snakemake main processes whose working directory is `directory` (Snakemake
    changes into its -d directory)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cwd = Path(os.readlink(entry / "cwd"))
        except OSError:
            continue
        if cwd == directory and proc_stat(int(entry.name)) and is_snakemake_main(int(entry.name)):
            found.append(int(entry.name))
    return found


def non_empty(directory):
    return directory.is_dir() and any(directory.iterdir())


# -- the run ---------------------------------------------------------------------------


def take_run_lock(state):
    """The open, flock-ed run.lock, or None when another run holds it."""
    handle = open(state / "run.lock", "a+")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as error:
        if error.errno not in (errno.EAGAIN, errno.EACCES):
            raise
        handle.close()
        return None
    return handle


def read_record(state):
    try:
        return json.loads((state / "run.json").read_text())
    except (OSError, ValueError):
        return None


def shown_path(path):
    """`path` relative to the current directory when it lies below it, else absolute."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def has_flag(args, *flags):
    return any(arg in flags for arg in args)


def prepare(snakemake, args, workdir, state):
    """What to do before this run starts, with run.lock held: end what a dead run left,
    refuse to touch a live Snakemake's lock, resume an interrupted one. The arguments to
    run Snakemake with, or None to stop (exit 1)."""
    previous = read_record(state)
    if previous:
        ended = end_run(previous, first=signal.SIGKILL)  # as the watchdog would (below)
        if ended:
            say(f"ended what the previous run (run id {previous['run_id']}) left running: {ended}")
    dot = workdir / ".snakemake"
    locked, incomplete = non_empty(dot / "locks"), non_empty(dot / "incomplete")
    if not (previous or locked or incomplete):
        return args
    live = snakemakes_in(workdir)
    if live:
        say(
            f"a Snakemake started without ./jwtbench is running in {workdir} ("
            + ", ".join(describe_process(pid) for pid in live)
            + "): its lock is live, so it is not unlocked; wait for it to end, or stop it"
        )
        return None
    if locked:
        say(f"{INTERRUPTED}: unlocking and rerunning its incomplete jobs")
        unlocked = subprocess.run(
            [snakemake, *args, "--unlock"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        if unlocked.returncode != 0:
            say("snakemake --unlock failed:\n" + unlocked.stderr[-2000:])
            return None
    else:
        say(f"{INTERRUPTED}: rerunning its incomplete jobs")
    if not has_flag(args, "--rerun-incomplete", "--ri"):
        args = [*args, "--rerun-incomplete"]
    return args


def watchdog(reader, record):
    """In a forked child, in a session of its own: wait until the supervisor's end of the
    pipe closes. A byte first: the supervisor ends the run itself. Nothing: it was killed
    (SIGKILL), so end the run here; run.json stays, and the next run says it was
    interrupted."""
    os.setsid()
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_IGN)
    try:
        told = os.read(reader, 1)
    except OSError:
        told = b""
    if told:
        os._exit(0)
    # SIGKILL, no SIGTERM first: Snakemake would stop gracefully, finishing its running
    # jobs, and a benchmark whose driver a SIGTERM ended would be kept with its cells
    # failed. Killed, its jobs stay incomplete, and the next run measures them again.
    ended = end_run(record, first=signal.SIGKILL)
    if ended:
        try:
            say(f"the run's supervisor (pid {record['supervisor']}) was killed: ended {ended}")
        except OSError:
            pass
    os._exit(0)


def become_subreaper():
    """Orphans of the run (a job's child whose parent died, conmon) become the supervisor's
    children rather than init's: reaped here, never left as zombies (prctl
    PR_SET_CHILD_SUBREAPER; Linux only, so best effort)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def reap_orphans():
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def exit_status(returncode):
    return 128 - returncode if returncode < 0 else returncode


# Arguments with which Snakemake runs no job (and takes no lock): passed straight on.
RUNS_NOTHING = (
    "-n",
    "--dry-run",
    "--dryrun",
    "--unlock",
    "--version",
    "-v",
    "-h",
    "--help",
    "--lint",
    "-l",
    "--list",
    "--list-rules",
    "--list-target-rules",
    "--lt",
    "--summary",
    "-S",
    "--detailed-summary",
    "-D",
    "--dag",
    "--rulegraph",
    "--filegraph",
)


def supervise(snakemake, args):
    if has_flag(args, *RUNS_NOTHING):
        os.execv(snakemake, [snakemake, *args])
    workdir = working_directory(args)
    state = workdir / ".snakemake" / "jwtbench"
    state.mkdir(parents=True, exist_ok=True)
    lock = take_run_lock(state)
    if lock is None:
        other = read_record(state) or {}
        say(
            f"another ./jwtbench run is running in {workdir} (supervisor pid {other.get('supervisor', '?')},"
            f" started {other.get('started', '?')}): its lock is live, so it is not unlocked;"
            " wait for it to end, or stop it"
        )
        return 1
    args = prepare(snakemake, args, workdir, state)
    if args is None:
        return 1
    run_id = f"{datetime.datetime.now(datetime.timezone.utc):%Y%m%dT%H%M%SZ}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    env = dict(os.environ, JWTBENCH_RUN_ID=run_id)

    received = []

    def on_signal(signum, frame):
        received.append(signum)
        if process is None:
            return
        # The first signal goes to the whole group, as a terminal's would (Snakemake
        # then stops its jobs and releases its lock); a second ends the group at once.
        try:
            os.killpg(process.pid, signum if len(received) == 1 else signal.SIGKILL)
        except ProcessLookupError:
            pass

    process = None
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, on_signal)
    become_subreaper()
    # Snakemake's own output goes to a log file, the terminal gets the progress line and
    # the summary (run_progress.py); JWTBENCH_VERBOSE=1 (./jwtbench run --verbose) keeps
    # Snakemake's output on the terminal, the summary after it.
    verbose = os.environ.get("JWTBENCH_VERBOSE") == "1"
    log_path = workdir / "logs" / f"run-{run_id}.log"
    shown = "above" if verbose else shown_path(log_path)
    output = {}
    if not verbose:
        log_path.parent.mkdir(parents=True, exist_ok=True)
        output = {"stdout": open(log_path, "w"), "stderr": subprocess.STDOUT}
        say(f"Snakemake's full log: {shown} (./jwtbench run --verbose shows it here instead)")
    started_epoch, clock = time.time(), time.monotonic()
    process = subprocess.Popen([snakemake, *args], env=env, start_new_session=True, **output)
    if output:
        output["stdout"].close()
    progress = None if verbose else run_progress.Progress(log_path, workdir)
    stat = proc_stat(process.pid)
    record = {
        "supervisor": os.getpid(),
        "pgid": process.pid,
        "started_ticks": stat[1] if stat else 0,
        "run_id": run_id,
        "started": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "workdir": str(workdir),
    }
    reader, writer = os.pipe()
    watcher = os.fork()
    if watcher == 0:
        os.close(writer)
        lock.close()
        watchdog(reader, record)
    os.close(reader)
    record["watchdog"] = watcher
    (state / "run.json").write_text(json.dumps(record, indent=1) + "\n")
    if received:  # a signal came before the group existed
        on_signal(received.pop(), None)
    while True:
        try:
            returncode = process.wait(timeout=1 if progress is None or progress.tty else 5)
            break
        except (InterruptedError, subprocess.TimeoutExpired):
            pass
        if progress is not None:
            try:
                progress.tick()
            except Exception as error:  # the line is a courtesy: never let it end a run
                say(f"progress line stopped: {error}")
                progress = None
    os.write(writer, b"x")  # the watchdog may go: the supervisor ends the run itself
    os.close(writer)
    os.waitpid(watcher, 0)
    reap_orphans()
    ended = end_run(record)  # Snakemake is gone: a SIGTERM first, for what it left
    reap_orphans()
    if ended:
        say(f"ended what the run left running when Snakemake exited: {ended}")
    (state / "run.json").unlink(missing_ok=True)
    lock.close()
    status = exit_status(returncode)
    follower = progress.follower if progress is not None else run_progress.LogFollower(log_path)
    if progress is not None:
        progress.end()
    elif not verbose:
        follower.poll()
    try:
        lines = run_progress.summary(workdir, status, time.monotonic() - clock, shown, follower, started_epoch)
    except Exception as error:  # the summary too: the run's status stands whatever it says
        lines = [f"jwtbench: no summary ({error}); Snakemake's full log: {shown}"]
    print("\n".join(lines), file=sys.stderr, flush=True)
    return status


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    return supervise(argv[1], argv[2:])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
