"""A real one-node SLURM cluster on loopback, for tests and by hand.

Debian's slurm-wlm and munge (22.05), no systemd: munged (as user munge), slurmctld and
slurmd are started here as child processes with SLURM_CONF pointing at a minimal
slurm.conf in a scratch directory (state, spool, logs and pid files there too), one node
at 127.0.0.1 with this machine's real CPUs and memory (from `slurmd -C`), one partition.
Everything started is stopped afterwards, also on failure; a munged that was already
running is used and left alone.

    with slurm_cluster(Path("/tmp/slurm")) as cluster:   # cluster.env has SLURM_CONF
        subprocess.run(["sbatch", ...], env=cluster.env)

By hand (starts the cluster, runs the command with SLURM_CONF set, stops the cluster):

    .venv/bin/python tests/slurm_cluster.py /tmp/slurm -- .venv/bin/snakemake --profile workflow/profiles/slurm ...
"""

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

NODE_NAME = "localhost"
PARTITION = "jwtbench"
MUNGE_SOCKET_DIR = Path("/run/munge")
MUNGE_KEY = Path("/etc/munge/munge.key")
# Where slurmd (configless) links its cached copy of slurm.conf; removed on teardown.
CONF_CACHE_LINK = Path("/run/slurm/conf")
DAEMONS = ("munged", "slurmctld", "slurmd")


class SlurmClusterError(RuntimeError):
    """A daemon did not come up; the message holds the tail of its log."""


@dataclass
class SlurmCluster:
    directory: Path
    conf: Path
    env: dict
    partition: str = PARTITION


def missing_daemons():
    """The SLURM/munge programs not installed here (`./jwtbench test` installs them)."""
    return [name for name in (*DAEMONS, "sinfo", "sbatch", "squeue") if shutil.which(name) is None]


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def node_hardware():
    """CPUs and RealMemory as slurmd itself detects them (`slurmd -C`)."""
    output = subprocess.run(["slurmd", "-C"], capture_output=True, text=True, check=True).stdout
    fields = dict(re.findall(r"(\w+)=(\S+)", output))
    return int(fields["CPUs"]), int(fields["RealMemory"])


def write_conf(directory, min_job_age):
    cpus, memory_mb = node_hardware()
    for sub in ("state", "spool", "log"):
        (directory / sub).mkdir(parents=True, exist_ok=True)
    conf = directory / "slurm.conf"
    ctld_port = free_port()
    conf.write_text(
        f"""# One-node test cluster written by tests/slurm_cluster.py
ClusterName=jwtbench
SlurmctldHost={NODE_NAME}(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort={ctld_port}
SlurmdPort={free_port()}
AuthType=auth/munge
StateSaveLocation={directory}/state
SlurmdSpoolDir={directory}/spool
SlurmctldPidFile={directory}/slurmctld.pid
SlurmdPidFile={directory}/slurmd.pid
SlurmctldLogFile={directory}/log/slurmctld.log
SlurmdLogFile={directory}/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
# Finished jobs stay visible to squeue this many seconds: the executor's status checks
# use squeue (there is no accounting database for sacct), and tests audit the jobs.
MinJobAge={min_job_age}
# slurmd fetches this file from slurmctld (configless) and caches it where srun inside a
# job finds it (/run/slurm/conf): the executor's job step drops SLURM_CONF before srun.
SlurmctldParameters=enable_configless
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName={NODE_NAME} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory={memory_mb} State=UNKNOWN
PartitionName={PARTITION} Nodes={NODE_NAME} Default=YES MaxTime=INFINITE State=UP
"""
    )
    # slurmd 22.05 reads cgroup.conf beside slurm.conf even with proctrack/linuxproc.
    (directory / "cgroup.conf").write_text("CgroupAutomount=no\n")
    return conf, ctld_port


def log_tail(path, lines=30):
    try:
        return "\n".join(Path(path).read_text(errors="replace").splitlines()[-lines:])
    except OSError as error:
        return f"(no log: {error})"


def munge_answers():
    if shutil.which("munge") is None:
        return False
    encode = subprocess.run(["munge", "-n"], capture_output=True)
    if encode.returncode != 0:
        return False
    return subprocess.run(["unmunge"], input=encode.stdout, capture_output=True).returncode == 0


def start_munge(directory, started):
    """munged as user munge, unless one already answers; a key is made if missing."""
    if munge_answers():
        return
    MUNGE_SOCKET_DIR.mkdir(parents=True, exist_ok=True)
    shutil.chown(MUNGE_SOCKET_DIR, "munge", "munge")
    MUNGE_SOCKET_DIR.chmod(0o755)
    if not MUNGE_KEY.exists():
        subprocess.run(
            ["runuser", "-u", "munge", "--", "mungekey", "--create", "--keyfile", str(MUNGE_KEY)], check=True
        )
    log = directory / "log" / "munged.log"
    process = subprocess.Popen(
        ["runuser", "-u", "munge", "--", "munged", "--foreground", "--log-file", str(log)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    started.append(("munged", process, log))
    wait_for("munged", lambda: munge_answers(), process, log, timeout=15)


def start_daemon(name, command, log, env, started):
    process = subprocess.Popen(command, env=env, stdout=open(log.with_suffix(".out"), "w"), stderr=subprocess.STDOUT)
    started.append((name, process, log))
    return process


def wait_for(name, ready, process, log, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise SlurmClusterError(
                f"{name} exited with status {process.returncode}; last lines of {log}:\n{log_tail(log)}"
            )
        if ready():
            return
        time.sleep(0.5)
    raise SlurmClusterError(f"{name} not ready after {timeout} s; last lines of {log}:\n{log_tail(log)}")


def node_state(env):
    result = subprocess.run(["sinfo", "-h", "-N", "-o", "%T"], env=env, capture_output=True, text=True)
    return result.stdout.strip() if result.returncode == 0 else ""


def stop(started):
    for name, process, _ in reversed(started):
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@contextlib.contextmanager
def slurm_cluster(directory, min_job_age=300):
    """Start munged (if needed), slurmctld and slurmd; yield a SlurmCluster once the node
    is idle; stop what was started, whatever happens. Finished jobs stay listed by
    `squeue --states=all` for `min_job_age` seconds."""
    directory = Path(directory).resolve()
    directory.mkdir(parents=True, exist_ok=True)
    conf, ctld_port = write_conf(directory, min_job_age)
    env = {**os.environ, "SLURM_CONF": str(conf)}
    started = []
    try:
        start_munge(directory, started)
        ctld_log = directory / "log" / "slurmctld.log"
        ctld = start_daemon("slurmctld", ["slurmctld", "-D", "-c", "-f", str(conf)], ctld_log, env, started)
        wait_for("slurmctld", lambda: node_state(env) != "", ctld, ctld_log, timeout=30)
        slurmd_log = directory / "log" / "slurmd.log"
        slurmd = start_daemon(
            "slurmd",
            ["slurmd", "-D", "-N", NODE_NAME, "--conf-server", f"127.0.0.1:{ctld_port}"],
            slurmd_log,
            env,
            started,
        )
        wait_for("slurmd", lambda: node_state(env) == "idle", slurmd, slurmd_log, timeout=60)
        yield SlurmCluster(directory=directory, conf=conf, env=env)
    finally:
        if started:
            subprocess.run(["scancel", "--full", "--partition", PARTITION], env=env, capture_output=True)
        stop(started)
        with contextlib.suppress(OSError):
            if CONF_CACHE_LINK.is_symlink() and Path(os.readlink(CONF_CACHE_LINK)).is_relative_to(directory):
                CONF_CACHE_LINK.unlink()


def stop_on_sigterm(signum, frame):
    """SIGTERM (kill, a CI runner's timeout) ends main like Ctrl-C: the cluster's daemons are
    stopped on the way out instead of outliving it."""
    raise KeyboardInterrupt(f"signal {signum}")


def main(argv):
    if "--" not in argv or argv.index("--") != 1:
        sys.exit("usage: slurm_cluster.py DIRECTORY -- COMMAND [ARGS...]")
    signal.signal(signal.SIGTERM, stop_on_sigterm)
    with slurm_cluster(Path(argv[0])) as cluster:
        print(f"slurm_cluster: node idle; SLURM_CONF={cluster.conf}", file=sys.stderr, flush=True)
        return subprocess.run(argv[2:], env=cluster.env).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
