"""Run a language's driver the same way from every step: natively through its shim
(workflow/scripts/<language>/run) or in a fresh locked-down container of its image (the
checks, with their many short calls, keep one such container per session instead).

A container gets no network, a read-only root, no capabilities, no new privileges, a
non-root user, the configured CPUs, and only what it needs mounted at the same absolute
paths as on the host (so one spec file is valid in both modes): the files it reads,
read-only, and at most one writable output directory. Private keys enter through a
per-session copy readable only by the container's user, removed afterwards.
"""

import contextlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from jwtbench import conductor, container_engine, machine_lock, raw_samples


def parse_cpus(text):
    """CPU set from taskset-style text ("1", "0-1,3"); empty means no pinning."""
    cpus = set()
    for part in filter(None, text.split(",")):
        low, _, high = part.partition("-")
        cpus.update(range(int(low), int(high or low) + 1))
    return cpus


def cpu_list_text(cpus):
    """ "0-1,3" of {0, 1, 3}: runs of CPUs as taskset writes them."""
    runs = []
    for cpu in sorted(cpus):
        if runs and cpu == runs[-1][1] + 1:
            runs[-1][1] = cpu
        else:
            runs.append([cpu, cpu])
    return ",".join(str(low) if low == high else f"{low}-{high}" for low, high in runs)


def checked_cpus(text, key="execution.cpus", available=None):
    """The CPU set `text` names, or RuntimeError naming the config key when this process
    may not run on all of them (os.sched_getaffinity): when the workflow is read
    (config_validation.cpu_problems) and again when a timed job starts, on its host."""
    cpus = parse_cpus(text)
    available = os.sched_getaffinity(0) if available is None else set(available)
    missing = cpus - available
    if missing:
        raise RuntimeError(
            f"config key '{key}': {text!r} names CPU{'s' if len(missing) > 1 else ''} {cpu_list_text(missing)},"
            f" which this machine does not give us: the CPUs available are {cpu_list_text(available)}"
            f" ({len(available)} of them)"
        )
    return cpus


@contextlib.contextmanager
def timed_cpus(cpus, lanes, log):
    """The CPUs a timed job (a benchmark, the cross-check, cold starts, compare_native) runs
    pinned to, held while it runs: execution.cpus with the machine to itself, or with
    execution.lanes a lane's own CPUs beside the other lanes (machine_lock.benchmark_slot).
    With the machine to itself, the conductor (this process: Snakemake and the jobs it runs
    as threads, and what they start) stays off those CPUs meanwhile (conductor_aside)."""
    with machine_lock.benchmark_slot(lanes, log) as lane:
        if lane is not None:
            yield checked_cpus(lane, "execution.lanes")
            return
        pinned = checked_cpus(cpus)
        with conductor_aside(pinned, log):
            yield pinned


def _threads():
    return [int(tid) for tid in os.listdir("/proc/self/task")]


@contextlib.contextmanager
def conductor_aside(cpus, log):
    """Every thread of this process on the CPUs it has but `cpus` while a timed job runs on
    them, and back on all of them afterwards: Snakemake's scheduler, the jobs it runs as
    threads and what they start (a container engine's client and monitor) then never take
    the benchmark's CPU (on 2026-11-28 node's slow stretches were other processes on it,
    docs/disturbances-node.md). The benchmark itself is pinned to `cpus` explicitly."""
    allowed = os.sched_getaffinity(0)
    rest = allowed - set(cpus)
    if not cpus or not rest:
        yield
        return
    for tid in _threads():
        with contextlib.suppress(OSError):  # a thread that has just ended
            os.sched_setaffinity(tid, rest)
    print(
        f"the conductor (this process, {len(_threads())} threads) kept to CPUs {sorted(rest)} meanwhile",
        file=log,
        flush=True,
    )
    try:
        yield
    finally:
        for tid in _threads():
            with contextlib.suppress(OSError):
                os.sched_setaffinity(tid, allowed)


def taskset(command, cpus):
    """The command under taskset, so the process and every thread it starts stay on `cpus`."""
    if not cpus:
        return command
    found = shutil.which("taskset")
    if found is None:
        raise RuntimeError(
            "config key 'execution.cpus' asks for pinning but taskset (util-linux) is not"
            ' installed; install it or set execution.cpus to ""'
        )
    return [found, "--cpu-list", ",".join(map(str, sorted(cpus))), *command]


def cpu_list(cpus):
    return ",".join(map(str, sorted(cpus)))


@contextlib.contextmanager
def key_copy(keys_dir):
    """The keys as the container's user may read them: a private copy (0400 files in a
    0500 directory, owned by that user) when the host runs as root, else the keys
    themselves (the container then runs as the host user)."""
    if os.geteuid() != 0:
        yield str(Path(keys_dir).resolve())
        return
    uid = container_engine.CONTAINER_UID
    copy = Path(tempfile.mkdtemp(prefix="jwtbench-keys-"))
    try:
        for source in Path(keys_dir).iterdir():
            if source.is_file():
                target = copy / source.name
                shutil.copyfile(source, target)
                os.chown(target, uid, uid)
                target.chmod(0o400)
        os.chown(copy, uid, uid)
        copy.chmod(0o500)
        yield str(copy)
    finally:
        shutil.rmtree(copy, ignore_errors=True)


def writable_by_container(directory):
    """Hand an (empty, fresh) output directory to the container's user."""
    if os.geteuid() == 0:
        os.chown(directory, container_engine.CONTAINER_UID, container_engine.CONTAINER_UID)
    Path(directory).chmod(0o755)


def reclaim(path):
    """Give a file a container wrote back to the host user."""
    if os.geteuid() == 0:
        os.chown(path, 0, 0)


class DriverRunner:
    """One language's driver, native or containerised; see `session`."""

    def __init__(self, language, shim, engine, image=None, envs_dir=".envs", entrypoint=None):
        self.language = language  # the driver's name: a language, or "<language>/<library>"
        self.shim = shim
        self.engine = engine
        self.image = image
        # The driver's shim in the image (shim_in_image); None: the image's entrypoint,
        # which starts the driver the image's JWTBENCH_DRIVER names (its language's).
        self.entrypoint = entrypoint
        self.envs_dir = str(Path(envs_dir).resolve())
        if engine.in_containers and not image:
            raise ValueError(f"{language}: a container engine needs an image")

    @classmethod
    def from_params(cls, params):
        """From the `driver` param the rules pass (see common.smk: driver_params)."""
        engine = container_engine.Engine.from_dict(params["engine"])
        image = None
        if engine.in_containers:
            image = json.loads(Path(params["image_record"]).read_text())["tag"]
        return cls(params["language"], params["shim"], engine, image, entrypoint=params.get("entrypoint"))

    @property
    def in_container(self):
        return self.engine.in_containers

    def environ(self):
        """The environment a driver (or the engine running it) starts with: the workflow's,
        without credentials no driver needs (Kaggle's, read only by prepare_dataset.py)."""
        env = {k: v for k, v in self.engine.environ().items() if not k.startswith("KAGGLE_")}
        env["JWTBENCH_ENVS"] = self.envs_dir
        return env

    def describe(self):
        if self.in_container:
            return f"{self.engine.name} image {self.image}"
        return f"native ({self.shim})"

    @contextlib.contextmanager
    def session(
        self, keys_dir=None, read_only=(), writable=None, cpus=(), entrypoint=None, reuse=False, stdin=False, name=None
    ):
        """Yield `argv(*driver_args)`: the command line that runs the driver once.

        keys_dir, read_only (files or directories) and writable (a directory) are what the
        driver may see in a container; natively it sees the host. `cpus` pins it.
        `entrypoint` runs another program of the image instead of the driver, under the
        same restrictions (containers only). `stdin`: the driver reads its standard input
        (a container's is then attached). `name`: the container's name. `reuse` (for the many short calls of the
        checks, never for timing): every call runs in one container, started here with
        the same restrictions and stopped when the session ends, through `exec` (about
        0.2 s a call less than a fresh container on our VMs).
        """
        if not self.in_container:
            if entrypoint:
                raise ValueError("entrypoint applies to containers only")
            yield lambda *args: taskset([self.shim, *args], cpus)
            return
        entrypoint = entrypoint or self.entrypoint
        with contextlib.ExitStack() as stack:
            mounts = []
            if keys_dir:
                copy = stack.enter_context(key_copy(keys_dir))
                mounts += ["-v", f"{copy}:{Path(keys_dir).resolve()}:ro"]
            for path in sorted({str(Path(p).resolve()) for p in read_only}):
                mounts += ["-v", f"{path}:{path}:ro"]
            if writable:
                path = str(Path(writable).resolve())
                mounts += ["-v", f"{path}:{path}:rw"]
            options = [*self.engine.lockdown(), *self.engine.user_options(), *mounts]
            if cpus:
                options += ["--cpuset-cpus", cpu_list(cpus)]
            if stdin:
                options += ["--interactive"]
            if name:
                options += ["--name", name]
            if reuse:
                yield stack.enter_context(self.kept_container(options, entrypoint))
                return
            if entrypoint:
                options += ["--entrypoint", entrypoint]
            yield lambda *args: self.engine.command("run", "--rm", *options, self.image, *args)

    @contextlib.contextmanager
    def kept_container(self, options, entrypoint=None):
        """A container of the image that idles (the base image's `sleep`) with `options`;
        yields argv(*args) that runs the image's entrypoint (or `entrypoint`) in it."""
        if entrypoint:
            program = [entrypoint]
        else:
            inspected = self.engine.run(
                "image", "inspect", "--format", "{{json .Config.Entrypoint}}", self.image, timeout=60, check=True
            )
            program = json.loads(inspected.stdout) or []
            if not program:
                raise RuntimeError(f"{self.image} has no entrypoint to run the {self.language} driver")
        started = self.engine.run(
            "run", "--detach", "--rm", *options, "--entrypoint", "sleep", self.image, "infinity", timeout=120
        )
        if started.returncode != 0:
            raise RuntimeError(f"could not start a container of {self.image}: {started.stderr.strip()}")
        container = started.stdout.strip().splitlines()[-1]
        try:
            yield lambda *args: self.engine.command("exec", container, *program, *args)
        finally:
            self.engine.run("rm", "--force", "--time", "0", container, timeout=120)


# Where an image keeps the drivers (containers/<language>/Dockerfile: COPY workflow/scripts/<language>/).
IMAGE_SCRIPTS = "/opt/jwtbench/workflow/scripts"


def shim_in_image(name):
    """The shim that starts driver `name` ("node", or a further library's "node/jose") in its
    language's image, started directly rather than through the image's entrypoint."""
    return f"{IMAGE_SCRIPTS}/{name}/run"


@contextlib.contextmanager
def bench_command(runner, spec_path, key_dir, cpus, out_dir, conducted=False, out_name="samples.csv"):
    """Yield the command line that times a spec on `cpus`, writing out_dir/out_name: the
    conductor (jwtbench/conductor.py, on this process's CPUs, not `cpus`) over the driver's
    `serve` when `conducted`, else the driver's own `bench` (openssl's). A container sees the
    keys, the spec and its input files, and may write only out_dir (a fresh directory); a
    conducted one is named so that the conductor can stop it (WORKER_NAME: each start's own)."""
    spec = json.loads(Path(spec_path).read_text())
    inputs = sorted({cell["input_file"] for cell in spec["cells"] if cell.get("input_file")})
    writable_by_container(out_dir)
    spec_path, out = str(Path(spec_path).resolve()), str(Path(out_dir) / out_name)
    name = f"jwtbench-worker-{conductor.WORKER_NAME}" if conducted and runner.in_container else None
    # A worker writes nothing, but where a cross-check spec gives it a scratch directory.
    scratch = spec.get("crosscheck", {}).get("scratch")
    session = runner.session(
        key_dir,
        read_only=[spec_path, *inputs],
        writable=out_dir if not conducted or scratch else None,
        cpus=cpus,
        stdin=conducted,
        name=name,
    )
    with session as argv:
        if not conducted:
            yield argv("bench", "--spec", spec_path, "--out", out)
            return
        command = [sys.executable, "-m", "jwtbench.conductor", "--spec", spec_path, "--out", out]
        if name:
            command += ["--stop", shlex.join(runner.engine.command("kill", "--signal", "KILL", name))]
        yield [*command, "--", *argv("serve", "--spec", spec_path)]


def bench_rows(runner, spec_path, key_dir, cpus, scratch, log, conducted=False):
    """Time a spec once, as bench_command does (output to `log`); its cells' rows (not the
    drift reference's), checked against the contract."""
    out_dir = Path(tempfile.mkdtemp(dir=scratch)).resolve()
    with bench_command(runner, spec_path, key_dir, cpus, out_dir, conducted) as command:
        result = subprocess.run(command, stdout=log, stderr=log, env=runner.environ())
    if result.returncode != 0:
        raise RuntimeError(f"{runner.language} bench ({runner.describe()}) exited {result.returncode}")
    return raw_samples.cells_only(raw_samples.read(out_dir / "samples.csv"))
