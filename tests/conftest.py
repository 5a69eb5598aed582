"""Shared fixtures: one scratch working directory per test session.

The pipeline's own rules install the language environments and generate the keys there
(so the tests exercise them too); driver tests use those, and the smoke run reuses the
same directory.
"""

import fcntl
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from jwtbench import config_validation
from jwtbench.rules import check_conformance

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = REPO / "workflow" / "scripts"
SNAKEFILE = REPO / "workflow" / "Snakefile"
SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))
SMOKE_CONFIG = REPO / "config" / "smoke.yaml"
# What the test suite changes in it (the file says why).
SMOKE_IN_TESTS = REPO / "tests" / "data" / "smoke-in-tests.yaml"
FIXTURE = REPO / "data" / "fixtures" / "claims-001.json"


LANGUAGES = sorted(config_validation.driver_languages(SCRIPTS))
# Languages with a JWS library (driver.yaml `jws: true`): the gate, interop, cold start.
JWS_LANGUAGES = [language for language in LANGUAGES if config_validation.driver_manifest(SCRIPTS, language)["jws"]]
# Each language's further JWT libraries, "<language>/<library>": drivers of their own that
# share the language's harness, environment and image (workflow/scripts/README.md).
LIBRARY_DRIVERS = sorted(config_validation.library_drivers(SCRIPTS))
# Every JWS driver: each language's own and its further libraries.
JWS_DRIVERS = JWS_LANGUAGES + [
    driver for driver in LIBRARY_DRIVERS if config_validation.driver_manifest(SCRIPTS, driver)["jws"]
]


# Kaggle credentials planted in the smoke run's environment: they must send the datasets
# down the Kaggle path (which fails here: no network to Kaggle, and the key is fake) and
# appear nowhere in what the run writes (tests/test_seed000.py).
PLANTED_KAGGLE = {"KAGGLE_USERNAME": "jwtbench-canary-user", "KAGGLE_KEY": "f4k3k4gg13k3y0c4n4ry5ecret9d41e07"}


def smoke_env():
    """The smoke run's environment: ours, with the planted Kaggle credentials. Every later
    run in the smoke's directory uses it too (credentials decide where datasets come from)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("KAGGLE_")}
    return {**env, **PLANTED_KAGGLE}


def snakemake(workdir, *args, timeout=1800, env=None, supervised=False):
    """Run the workflow in `workdir` with the smoke config, under --strict (every warning
    about the numbers fails the run; JWTBENCH_STRICT); CompletedProcess. supervised: as
    `./jwtbench run` runs it (run_supervisor.py: the progress line and the summary on the
    terminal, Snakemake's output in logs/run-<id>.log), without a terminal."""
    command = [
        SNAKEMAKE,
        "-s",
        str(SNAKEFILE),
        "-d",
        str(workdir),
        "--configfile",
        str(SMOKE_CONFIG),
        str(SMOKE_IN_TESTS),
        "--cores",
        "2",
        *args,
    ]
    if supervised:
        command = [sys.executable, str(SCRIPTS / "jwtbench" / "run_supervisor.py"), *command]
    env = {**(os.environ if env is None else env), "JWTBENCH_STRICT": "1"}
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)


# Where the native environments the tests build are kept between sessions: every
# installer skips its work when its inputs are unchanged (a content stamp), so a second
# session (./jwtbench test --quick, say) finds them in seconds; a fresh clone builds them.
# Sessions and pytest-xdist workers take turns installing into it (TEST_ENVS/.lock).
TEST_ENVS = Path(os.environ.get("JWTBENCH_TEST_ENVS", REPO / ".test-envs"))


def link_test_envs(path):
    """Link TEST_ENVS into the working directory `path` as its .envs."""
    TEST_ENVS.mkdir(parents=True, exist_ok=True)
    (Path(path) / ".envs").symlink_to(TEST_ENVS.resolve(), target_is_directory=True)


@pytest.fixture(scope="session")
def workdir(tmp_path_factory):
    """A working directory with every language's environment (TEST_ENVS, linked in as
    .envs) and the keys in place: one per session, shared by its pytest-xdist workers
    (the first to get the lock makes it, the others find it ready)."""
    if "PYTEST_XDIST_WORKER" in os.environ:
        path = tmp_path_factory.getbasetemp().parent / "run"
    else:
        path = tmp_path_factory.mktemp("run")
    TEST_ENVS.mkdir(parents=True, exist_ok=True)
    with open(TEST_ENVS / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (path / ".ready").exists():
            path.mkdir(exist_ok=True)
            if not (path / ".envs").is_symlink():
                link_test_envs(path)
            targets = [f".envs/{language}/.installed" for language in LANGUAGES] + ["keys/manifest.json"]
            result = snakemake(path, *targets)
            assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
            (path / ".ready").touch()
    return path


@pytest.fixture(scope="session")
def keys(workdir):
    return workdir / "keys"


@pytest.fixture(scope="session")
def driver_env(workdir):
    return dict(os.environ, JWTBENCH_ENVS=str(workdir / ".envs"))


def run_driver(language, env, *args):
    return subprocess.run([str(SCRIPTS / language / "run"), *args], capture_output=True, text=True, env=env)


def run_conducted(driver, env, spec, out, *cpus):
    """Time `spec` as the pipeline does, natively: the conductor (jwtbench/conductor.py) over
    the driver's `serve`, the raw-sample CSV (the cross-check's blocks for a cross-check spec)
    to `out`; `cpus`: the worker pinned to them (taskset). CompletedProcess."""
    worker = [str(SCRIPTS / driver / "run"), "serve", "--spec", str(spec)]
    if cpus:
        worker = ["taskset", "--cpu-list", ",".join(map(str, cpus)), *worker]
    command = [sys.executable, "-m", "jwtbench.conductor", "--spec", str(spec), "--out", str(out), "--", *worker]
    env = {**env, "PYTHONPATH": os.pathsep.join(filter(None, [str(SCRIPTS), env.get("PYTHONPATH")]))}
    return subprocess.run(command, capture_output=True, text=True, env=env)


def run_batch(language, env, command, entries, tmp_path):
    """{case id: its line} of one `sign-batch` or `verify-batch` over `entries` (the cases
    as the contract writes them): the process exits 0 with one JSON line per case, in order,
    and no key material or stack trace on any stream."""
    path = tmp_path / f"{command}.cases.json"
    path.write_text(json.dumps({"cases": entries}))
    result = run_driver(language, env, command, "--cases", str(path))
    assert result.returncode == 0, result.stderr[-2000:]
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["id"] for line in lines] == [entry["id"] for entry in entries]
    output = result.stdout + result.stderr
    assert "PRIVATE KEY" not in output and not check_conformance.STACK_TRACE.search(output), output[-2000:]
    return {line["id"]: line for line in lines}


class Background(threading.Thread):
    """A function run in a thread; result() waits for it and returns or re-raises."""

    def __init__(self, function, *args):
        super().__init__(daemon=True)
        self.function, self.args, self.value, self.error = function, args, None, None
        self.start()

    def run(self):
        try:
            self.value = self.function(*self.args)
        except BaseException as error:  # handed to whoever waits for it
            self.error = error

    def result(self):
        self.join()
        if self.error is not None:
            raise self.error
        return self.value


# Work on the finished smoke run that no test needs to do itself, each started in a thread
# the moment the smoke run ends (run_smoke), so it runs beside the end-to-end tests rather
# than one after another: {name: Background}. The tests that read it wait for it.
AFTER_SMOKE = {}


def start_after_smoke(workdir):
    from test_containers import native_python_run, report_rendered_on_the_host

    AFTER_SMOKE["host_report"] = Background(report_rendered_on_the_host, workdir)
    AFTER_SMOKE["native_python"] = Background(native_python_run, workdir)


def run_smoke(workdir, images_ready):
    """The whole pipeline on the smoke config in `workdir` (engine auto: in containers
    wherever podman or docker works), with the planted Kaggle credentials. `images_ready`
    is set once its images and versions are in place (or that step failed)."""
    try:
        result = snakemake(workdir, "--until", "build_image", "record_versions", env=smoke_env())
    finally:
        images_ready.set()
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    result = snakemake(workdir, env=smoke_env(), supervised=True)
    (workdir / "smoke-output.txt").write_text(result.stdout + result.stderr)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    start_after_smoke(workdir)
    return workdir


def run_slurm_smoke(images_ready, workdir, cluster_dir, native_envs):
    """The SLURM smoke run (tests/test_slurm.py), once the local run's images exist, so
    the two never build the same image at once; it uses the native environments of the
    session's working directory too."""
    from test_slurm import run_under_slurm

    images_ready.wait()
    return run_under_slurm(workdir, cluster_dir, native_envs)


def needed_by(items, *fixtures):
    return any(fixture in item.fixturenames for item in items for fixture in fixtures)


# The quick loop's further libraries: the first of each language's (the others run in
# the whole suite). Each exercises the path every further library shares (its shim, the
# language's adapter, its own driver.yaml); the other libraries differ in their calls.
QUICK_LIBRARIES = {
    min(driver for driver in LIBRARY_DRIVERS if driver.startswith(language + "/"))
    for language in {driver.split("/")[0] for driver in LIBRARY_DRIVERS}
}


def further_library_of(item):
    """The further library a parametrized test is about, when it is not in QUICK_LIBRARIES."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    for name in ("language", "driver"):
        value = params.get(name)
        if isinstance(value, str) and value in LIBRARY_DRIVERS and value not in QUICK_LIBRARIES:
            return value
    return None


def pytest_collection_modifyitems(items):
    """Tests that need a whole pipeline run (the smoke run or the SLURM run) are marked
    end_to_end, and those about a further library beyond QUICK_LIBRARIES further_library
    (`./jwtbench test --quick` leaves both out). Tests that need neither run first: they
    run while the smoke runs do, in the background (background_runs); the rest wait for
    them."""
    for item in items:
        if needed_by([item], "smoke", "slurm_smoke"):
            item.add_marker(pytest.mark.end_to_end)
        if further_library_of(item):
            item.add_marker(pytest.mark.further_library)
    items.sort(key=lambda item: needed_by([item], "smoke", "slurm_smoke"))


@pytest.fixture(scope="session", autouse=True)
def background_runs(request, tmp_path_factory):
    """The smoke run, and the SLURM smoke run, each started at most once, in a thread, at
    the session's start, when a selected test needs them; {name: Background}. The session
    waits for both (and so for the cluster's teardown) before it ends."""
    runs = {}
    items = request.session.items
    if needed_by(items, "smoke", "slurm_smoke"):
        # Each pytest-xdist worker would start runs of its own, all competing for one
        # benchmark CPU: the end-to-end tests run in one process.
        assert "PYTEST_XDIST_WORKER" not in os.environ, (
            "the end-to-end tests (the smoke run, the SLURM run) need a single process: "
            "run them without -n, or deselect them (-m 'not end_to_end', as ./jwtbench test --quick does)"
        )
        images_ready = threading.Event()
        workdir = request.getfixturevalue("workdir")
        runs["smoke"] = Background(run_smoke, workdir, images_ready)
        if needed_by(items, "slurm_smoke"):
            slurm_workdir, cluster = tmp_path_factory.mktemp("slurm-run"), tmp_path_factory.mktemp("slurm-cluster")
            runs["slurm"] = Background(run_slurm_smoke, images_ready, slurm_workdir, cluster, workdir / ".envs")
    yield runs
    for run in [*runs.values(), *AFTER_SMOKE.values()]:
        run.join()


@pytest.fixture(scope="session")
def smoke(background_runs):
    """The smoke run's working directory, once the run has ended (background_runs)."""
    return background_runs["smoke"].result()


@pytest.fixture(scope="session")
def after_smoke(smoke):
    """AFTER_SMOKE, once the smoke run has ended (its work may still be running)."""
    return AFTER_SMOKE
