"""Pick the container engine (config key execution.engine) and build its command lines.

`select()` runs when the workflow is parsed: it decides whether drivers run in containers
(docker or podman) or natively, and why. The answer travels to jobs as a plain dict
(`Engine.as_dict()`), so every job uses the same engine with the same settings.
"""

import dataclasses
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

# Containers run as this user when the host user is root (the images create it).
CONTAINER_UID = 10001
PODMAN_SETTINGS = "containers/podman/containers.conf"
LOCKDOWN = [
    "--network",
    "none",
    "--read-only",
    "--cap-drop",
    "ALL",
    "--security-opt",
    "no-new-privileges",
    "--pull=never",
]
# Every container the pipeline starts carries the label jwtbench.run=<the run's id>, so
# that what a run leaves behind when it dies (a `podman run` whose client is killed keeps
# its container running under conmon) can be found and removed: `./jwtbench run` exports
# the id as JWTBENCH_RUN_ID (workflow/scripts/jwtbench/run_supervisor.py); a Snakemake
# started without it labels its containers with its process group instead.
RUN_LABEL = "jwtbench.run"
# Engine subcommands that make a container.
MAKES_CONTAINERS = ("run", "create")
SWITCH_HINT = (
    "set execution.engine in config/config.yaml, or pass e.g."
    " --config 'execution={engine: native}' (or podman, docker, auto)"
)


def run_id():
    """This run's id: JWTBENCH_RUN_ID, else from the process group (Snakemake's)."""
    return os.environ.get("JWTBENCH_RUN_ID") or f"pgid-{os.getpgid(0)}"


def run_label():
    return ["--label", f"{RUN_LABEL}={run_id()}"]


class EngineError(Exception):
    """The requested engine is not usable; the message says what was tried."""


@dataclasses.dataclass
class Engine:
    name: str  # docker, podman or native
    requested: str
    reason: str
    executable: str | None = None
    version: str | None = None
    settings: str | None = None  # CONTAINERS_CONF this repository supplied, if used
    warning: str | None = None

    @property
    def in_containers(self):
        return self.name != "native"

    def as_dict(self):
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data):
        return cls(**data)

    def environ(self, base=None):
        env = dict(os.environ if base is None else base)
        if self.settings:
            env["CONTAINERS_CONF"] = self.settings
        return env

    def command(self, *args):
        """The engine's command line; a container it makes is labelled with the run's id."""
        if args and args[0] in MAKES_CONTAINERS:
            return [self.executable, args[0], *run_label(), *args[1:]]
        return [self.executable, *args]

    def run(self, *args, timeout=None, check=False):
        return subprocess.run(
            self.command(*args),
            capture_output=True,
            text=True,
            env=self.environ(),
            timeout=timeout,
            check=check,
        )

    def lockdown(self):
        """The isolation every container gets. podman would mount writable tmpfs on /tmp,
        /var/tmp and /run under --read-only; here nothing is writable unless mounted so."""
        extra = ["--read-only-tmpfs=false"] if self.name == "podman" else []
        return [*LOCKDOWN, *extra]

    def user_options(self):
        """--user (and user namespace) so the container runs as a non-root user that can
        read the files the host user hands it."""
        uid = os.geteuid()
        if uid == 0:
            return ["--user", f"{CONTAINER_UID}:{CONTAINER_UID}"]
        options = ["--user", f"{uid}:{os.getegid()}"]
        if self.name == "podman":
            options += ["--userns", "keep-id"]
        return options

    def image_exists(self, tag):
        return self.run("image", "inspect", tag, timeout=60).returncode == 0

    def image_id(self, tag):
        result = self.run("image", "inspect", "--format", "{{.Id}}", tag, timeout=60, check=True)
        return result.stdout.strip()


def answers(command, env=None, timeout=20):
    """(exited 0, its stdout if it did, else its stderr), or (False, why it did not run)."""
    try:
        result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as error:
        return False, str(error)
    if result.returncode == 0:
        return True, result.stdout.strip()
    return False, (result.stderr or result.stdout).strip()


def probe_rootfs(directory, program="true"):
    """A root filesystem holding only `program` (the host's, at the same path, returned)
    and the libraries it loads: enough to ask a runtime to start a container without any
    image."""
    found = Path(shutil.which(program) or f"/bin/{program}").resolve()
    files = [found]
    ldd = shutil.which("ldd")
    if ldd:
        listing = subprocess.run([ldd, str(found)], capture_output=True, text=True).stdout
        files += [Path(word) for word in listing.split() if word.startswith("/")]
    for path in files:
        target = Path(directory) / path.relative_to("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, target)
    return str(found)


def podman_runs(podman, settings):
    """Can podman start a locked-down container (with `settings` as CONTAINERS_CONF)?"""
    env = dict(os.environ, CONTAINERS_CONF=settings) if settings else None
    with tempfile.TemporaryDirectory(prefix="jwtbench-probe-") as rootfs:
        true = probe_rootfs(rootfs)
        return answers([podman, "run", "--rm", *run_label(), *LOCKDOWN[:-1], "--rootfs", rootfs, true], env=env)


def version_of(command, env=None):
    ok, output = answers(command, env=env)
    return output if ok else None


def find_docker(tried, repo):
    """Docker's daemon, if it answers (`repo` is unused: docker needs no settings of ours)."""
    docker = shutil.which("docker")
    if docker is None:
        tried.append("docker: no `docker` on PATH")
        return None
    ok, message = answers([docker, "info", "--format", "{{.ServerVersion}}"])
    if not ok:
        last = message.splitlines()[-1] if message else "no output"
        tried.append(f"docker: `docker info` got no answer from a daemon ({last})")
        return None
    version = version_of([docker, "version", "--format", "{{.Server.Version}}"])
    return dict(executable=docker, version=version, reason="docker daemon answered `docker info`")


def find_podman(tried, repo):
    podman = shutil.which("podman")
    if podman is None:
        tried.append("podman: no `podman` on PATH")
        return None
    ours = str(Path(repo) / PODMAN_SETTINGS)
    for settings in (None, ours):
        ok, message = podman_runs(podman, settings)
        if ok:
            env = dict(os.environ, CONTAINERS_CONF=settings) if settings else None
            version = version_of([podman, "version", "--format", "{{.Client.Version}}"], env)
            reason = (
                "podman ran a locked-down test container with its own settings"
                if settings is None
                else f"podman ran a locked-down test container with {PODMAN_SETTINGS} (its own settings could not)"
            )
            return dict(executable=podman, version=version, settings=settings, reason=reason)
        last = message.splitlines()[-1] if message else "no output"
        where = "its own settings" if settings is None else PODMAN_SETTINGS
        tried.append(f"podman with {where}: could not run a test container ({last})")
    return None


def select(requested, repo):
    """The engine to use for `requested` (auto, docker, podman or native)."""
    if requested == "native":
        return Engine("native", requested, "execution.engine is native")
    tried = []
    for name, find in (("docker", find_docker), ("podman", find_podman)):
        if requested not in ("auto", name):
            continue
        found = find(tried, repo)
        if found:
            return Engine(name, requested, **found)
        if requested == name:
            raise EngineError(
                f"config key 'execution.engine' is {name}, but {name} is not usable: "
                + "; ".join(tried)
                + f". To run without {name}, {SWITCH_HINT}."
            )
    warning = (
        "no container engine could be used (" + "; ".join(tried) + "), so every driver ran"
        " natively on the host's toolchains: the software stack is the host's, not the"
        " pinned images'"
    )
    return Engine("native", requested, "auto: no usable container engine", warning=warning)
