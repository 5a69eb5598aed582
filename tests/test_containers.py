"""Engines, images and isolated runs.

The session's smoke run (test_workflow.smoke) runs with execution.engine auto; on our
machines and in CI that is podman, and these tests require it: they fail, not skip, when
the run fell back to native.
"""

import csv
import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import JWS_LANGUAGES, LANGUAGES, REPO, SNAKEFILE, SNAKEMAKE, smoke_env, snakemake

from jwtbench import container_engine, driver_runner, raw_samples
from jwtbench.rules import build_image, native_env, run_benchmark


def read_json(path):
    return json.loads(Path(path).read_text())


def container_provenance(workdir):
    provenance = read_json(workdir / "results/provenance.json")
    engine = provenance["engine"]
    assert engine["name"] in ("podman", "docker"), (
        f"the smoke run did not use a container engine: {engine['reason']}; {engine['warning']}"
    )
    return provenance


@pytest.fixture(scope="module")
def engine(smoke):
    """The engine the smoke run used, as the pipeline selects it."""
    chosen = container_engine.select("auto", REPO)
    assert chosen.name == container_provenance(smoke)["engine"]["name"], chosen.reason
    return chosen


def test_docker_requested_without_a_daemon_is_one_clear_error(tmp_path):
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "docker").write_text("#!/bin/sh\necho 'Cannot connect to the Docker daemon' >&2\nexit 1\n")
    (fake / "docker").chmod(0o755)
    env = dict(os.environ, PATH=f"{fake}:{os.environ['PATH']}")
    result = subprocess.run(
        [
            SNAKEMAKE,
            "-s",
            str(SNAKEFILE),
            "-d",
            str(tmp_path),
            "-n",
            "--cores",
            "1",
            "--config",
            "execution={engine: docker}",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert result.returncode != 0
    message = result.stdout + result.stderr
    assert "config key 'execution.engine' is docker" in message
    assert "docker info" in message and "Cannot connect to the Docker daemon" in message
    assert "engine: native" in message  # how to switch


def test_provenance_lists_engine_and_images(smoke):
    provenance = container_provenance(smoke)
    assert provenance["engine"]["version"]
    images = provenance["images"]
    assert set(images) == {*LANGUAGES, "report", "base", "runtime"}
    base = images["base"]
    assert base["how"] in ("present", "pulled", "debootstrap", "debootstrap (built earlier)") and base["id"]
    for name in [*LANGUAGES, "report", "runtime"]:
        assert images[name]["id"] and images[name]["base"] == base["image"], name
        assert images[name]["tag"].startswith(f"localhost/jwtbench-{name}:")
    # Every driver image's final stage is the one shared runtime image (containers/runtime/).
    assert {images[language]["runtime"] for language in LANGUAGES} == {images["runtime"]["tag"]}
    for language in LANGUAGES:
        assert provenance["languages"][language]["runner"].startswith(provenance["engine"]["name"])


def test_second_run_has_nothing_to_do(smoke):
    result = snakemake(smoke, env=smoke_env())
    assert result.returncode == 0, result.stderr[-2000:]
    assert "Nothing to be done" in result.stdout + result.stderr


def test_rebuilding_an_unchanged_image_builds_nothing(smoke, engine, tmp_path):
    """The build step itself, on the smoke run's inputs: the tag exists, so no build."""
    before = read_json(smoke / "results/images/python.json")
    job = SimpleNamespace(
        wildcards=SimpleNamespace(image="python"),
        input=SimpleNamespace(
            base=str(smoke / "results/images/base.json"), runtime=[str(smoke / "results/images/runtime.json")]
        ),
        output=[str(tmp_path / "python.json")],
        log=[str(tmp_path / "build.log")],
        params=SimpleNamespace(engine=engine.as_dict(), repo=str(REPO), ca_bundle="none", build_args={}),
    )
    build_image.run_image_job(job)
    after = read_json(tmp_path / "python.json")
    assert after["built"] is False
    assert (after["tag"], after["id"]) == (before["tag"], before["id"])


def test_a_record_of_an_image_the_engine_lost_is_forgotten(smoke, engine, tmp_path):
    """Records naming images that are gone (pruned, or copied from elsewhere) are removed,
    so the pipeline rebuilds them rather than trying to run a missing image."""
    records = tmp_path / "images"
    records.mkdir()
    kept = read_json(smoke / "results/images/python.json")
    (records / "python.json").write_text(json.dumps(kept))
    (records / "node.json").write_text(json.dumps({**kept, "tag": "localhost/jwtbench-node:0000000000000000"}))
    (records / "report.json").write_text(json.dumps({**kept, "id": "0" * 64}))  # same tag, rebuilt since
    assert build_image.forget_missing_images(engine, records) == [
        str(records / n) for n in ("node.json", "report.json")
    ]
    assert [p.name for p in records.iterdir()] == ["python.json"]


def test_image_inputs_cover_only_their_language():
    python = build_image.image_input_files(REPO, "python")
    assert "containers/python/Dockerfile" in python and "envs/python/requirements.txt" in python
    assert "workflow/scripts/python/driver.py" in python
    assert not [path for path in python if "node" in Path(path).parts]
    assert build_image.image_input_files(REPO, "report") == ["containers/report/Dockerfile"]


def test_a_failed_build_names_the_image_and_its_log(engine, tmp_path):
    log_path = tmp_path / "build.log"
    with open(log_path, "w") as log, pytest.raises(build_image.BuildError) as error:
        build_image.build(
            engine,
            "python",
            "localhost/jwtbench-test:broken",
            {"RUNTIME_IMAGE": "localhost/jwtbench-no-such-runtime:0"},
            REPO,
            None,
            {},
            log,
        )
    assert "building image 'python' failed" in str(error.value) and str(log_path) in str(error.value)


PROBE = textwrap.dedent("""
    import os, socket, sys
    out, keys = sys.argv[1], sys.argv[2]
    result = {"uid": os.getuid()}
    try:
        socket.create_connection(("1.1.1.1", 53), timeout=3); result["network"] = "open"
    except OSError as error:
        result["network"] = type(error).__name__
    for place in ("/", "/tmp", "/opt/jwtbench", keys, out):
        try:
            with open(os.path.join(place, "probe"), "w") as handle:
                handle.write("x")
            result[place] = "written"
        except OSError as error:
            result[place] = type(error).__name__
    result["key_readable"] = bool(open(os.path.join(keys, "hmac-256.secret"), "rb").read())
    print(__import__("json").dumps(result))
""")


@pytest.mark.parametrize("reuse", [False, True], ids=["fresh container", "kept container"])
def test_a_benchmark_container_is_locked_down(smoke, engine, tmp_path, reuse):
    """No network, nothing writable but its output directory, keys readable but
    read-only, not root: the same options every benchmark container gets, and the
    container the checks keep for their many calls (reuse) too."""
    image = read_json(smoke / "results/images/python.json")["tag"]
    runner = driver_runner.DriverRunner("python", None, engine, image)
    out = tmp_path / "out"
    out.mkdir()
    driver_runner.writable_by_container(out)
    probe = tmp_path / "probe.py"
    probe.write_text(PROBE)
    keys = smoke / "keys"
    with runner.session(
        keys, read_only=[probe], writable=out, cpus={1}, reuse=reuse, entrypoint="/opt/jwtbench/.envs/python/bin/python"
    ) as argv:
        command = argv(str(probe), str(out), str(keys))
        results = [subprocess.run(command, capture_output=True, text=True, env=runner.environ()) for _ in range(2)]
    for result in results:
        assert result.returncode == 0, result.stderr
    seen = json.loads(results[0].stdout)
    assert seen["uid"] != 0
    assert seen["network"] in ("OSError", "ConnectionRefusedError") or seen["network"].endswith("Error")
    assert seen["network"] != "open"
    assert all(seen[place] != "written" for place in ("/", "/tmp", "/opt/jwtbench", str(keys))), seen
    assert seen[str(out)] == "written" and seen["key_readable"] is True
    if reuse:
        # Both calls ran in the one container, which is gone with the session.
        assert command[1] == "exec"
        assert engine.run("container", "exists", command[2]).returncode == 1, f"{command[2]} outlived its session"
    else:
        assert "--read-only-tmpfs=false" in command or runner.engine.name == "docker"
        assert "--network" in command and command[command.index("--network") + 1] == "none"
        assert {"--read-only", "--cap-drop", "--security-opt"} <= set(command)
    # The keys' private copy is gone with the session; the keys themselves are untouched.
    assert not [p for p in Path("/tmp").glob("jwtbench-keys-*") if str(p) in " ".join(command)]


def native_python_run(smoke):
    """Python's jwt cells on the claims file run natively beside the smoke run's directory
    (conftest.AFTER_SMOKE): (its directory, the CompletedProcess)."""
    native = Path(tempfile.mkdtemp(prefix="native-", dir=smoke.parent))
    (native / ".envs").symlink_to(smoke / ".envs")  # the native environments the smoke run built
    result = snakemake(
        native,
        "results/raw/python/jwt/claims-001.csv",
        "--config",
        "execution={engine: native}",
        "languages=[python]",
        "suites={jwt: {algorithms: [HS256], on_datasets: false}}",
    )
    return native, result


def test_native_and_container_runs_write_the_same_columns(smoke, after_smoke):
    native, result = after_smoke["native_python"].result()
    assert result.returncode == 0, result.stderr[-3000:]
    headers = []
    for path in (native / "results/raw/python/jwt/claims-001.csv", smoke / "results/raw/python/jwt/claims-001.csv"):
        with open(path) as handle:
            headers.append(next(csv.reader(handle)))
        raw_samples.read(path)
    assert headers[0] == headers[1] == raw_samples.COLUMNS
    native_meta = read_json(native / "results/raw/python/jwt/claims-001.json")
    container_meta = read_json(smoke / "results/raw/python/jwt/claims-001.json")
    assert native_meta["runner"].startswith("native") and not container_meta["runner"].startswith("native")
    assert set(native_meta) == set(container_meta)


def test_container_vs_native_and_coldstart_are_measured(smoke):
    with open(smoke / "results/container_vs_native.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert {(r["language"], r["variant"]) for r in rows} == {
        (lang, v) for lang in JWS_LANGUAGES for v in ("HS256", "RS256-2048")
    }
    assert all(float(r["ratio"]) > 0 and len(r["native_runs_ns"].split()) == int(r["repeats"]) for r in rows)
    with open(smoke / "results/coldstart.csv") as handle:
        cold = {(r["language"], r["mode"], r["measure"]): r for r in csv.DictReader(handle)}
    for language in JWS_LANGUAGES:
        for key in (("native", "process"), ("container", "process"), ("container", "startup")):
            row = cold[(language, *key)]
            assert float(row["ci_low_ns"]) <= float(row["median_ns"]) <= float(row["ci_high_ns"]), row
    html = (smoke / "results/report/report.html").read_text()
    assert 'id="fig-coldstart"' in html


def report_rendered_on_the_host(smoke):
    """The smoke run's results rendered natively (conftest.AFTER_SMOKE): (the HTML's path,
    the CompletedProcess)."""
    native = Path(tempfile.mkdtemp(prefix="host-report-", dir=smoke.parent)) / "report.html"
    script = REPO / "workflow/scripts/rules/render_report.sh"
    result = subprocess.run(
        [str(script), str(smoke / "results"), str(native), "rmarkdown"], capture_output=True, text=True, timeout=600
    )
    return native, result


def test_the_report_image_renders_the_same_html_as_the_host(smoke, after_smoke):
    """The smoke run rendered in the report image; rendered natively from the same
    results, the HTML is byte-for-byte the same (same R, knitr, pandoc from Debian)."""
    native, result = after_smoke["host_report"].result()
    assert result.returncode == 0, result.stderr[-2000:]
    assert native.read_bytes() == (smoke / "results/report/report.html").read_bytes()


def test_no_secret_or_build_credential_is_left_in_an_image(smoke, engine):
    """The CA bundle is a build secret: nothing of it in the image's config or files."""
    for name in [*LANGUAGES, "report"]:
        tag = read_json(smoke / f"results/images/{name}.json")["tag"]
        config = engine.run("image", "inspect", "--format", "{{json .Config.Env}}", tag, check=True).stdout
        assert not any(word in config for word in ("PIP_CERT", "NODE_EXTRA_CA_CERTS", "secrets")), (name, config)
        listing = engine.run(
            "run",
            "--rm",
            "--network",
            "none",
            "--entrypoint",
            "sh",
            tag,
            "-c",
            "ls -A /run/secrets 2>/dev/null; ls /usr/local/share/ca-certificates 2>/dev/null; true",
        )
        assert listing.returncode == 0 and listing.stdout.strip() == "", (name, listing.stdout)


def test_each_image_starts_its_driver_and_any_of_its_libraries_by_name(smoke, engine):
    """`podman run IMAGE versions` runs the image's own driver (the shared runtime image's
    entrypoint, containers/runtime/start-driver), JWTBENCH_DRIVER=<language>/<library> a
    further library of it, and every image carries the OCI labels the build sets."""
    libraries = {
        language: sorted(p.parent.name for p in (REPO / "workflow/scripts" / language).glob("*/driver.yaml"))
        for language in LANGUAGES
    }
    for language in LANGUAGES:
        record = read_json(smoke / f"results/images/{language}.json")
        labels = json.loads(
            engine.run("image", "inspect", "--format", "{{json .Config.Labels}}", record["tag"], check=True).stdout
        )
        assert labels["org.opencontainers.image.title"] == f"jwtbench-{language}"
        assert labels["org.opencontainers.image.base.name"] == record["base"]
        assert labels["org.opencontainers.image.description"].startswith("jwtbench")
        own = engine.run("run", "--rm", "--network", "none", record["tag"], "versions", timeout=120)
        assert own.returncode == 0 and json.loads(own.stdout)["language"] == language, (language, own.stderr)
        for library in libraries[language][:1]:
            other = engine.run(
                "run",
                "--rm",
                "--network",
                "none",
                "-e",
                f"JWTBENCH_DRIVER={language}/{library}",
                record["tag"],
                "versions",
                timeout=120,
            )
            assert other.returncode == 0, (language, library, other.stderr)
            assert json.loads(other.stdout)["implementation"] == library, (language, library, other.stdout)
        missing = engine.run(
            "run", "--rm", "--network", "none", "-e", "JWTBENCH_DRIVER=no-such", record["tag"], "versions", timeout=120
        )
        assert missing.returncode == 2 and "no driver 'no-such'" in missing.stderr


def test_a_compiled_driver_runs_natively_from_its_image(smoke, engine, tmp_path):
    """native_envs: from_images (the default config's): go's and rust's binaries are copied
    out of their images and run on the host; a binary that cannot be copied is refused."""
    for language, relative in native_env.FROM_IMAGE.items():
        tag = read_json(smoke / f"results/images/{language}.json")["tag"]
        with open(tmp_path / f"{language}.log", "w") as log:
            assert native_env.copy_from_image(engine, tag, language, tmp_path / language, log)
        versions = subprocess.run([str(tmp_path / language / relative), "versions"], capture_output=True, text=True)
        assert versions.returncode == 0 and json.loads(versions.stdout)["language"] == language
        with open(tmp_path / "missing.log", "w") as log:
            assert not native_env.copy_from_image(
                engine,
                read_json(smoke / "results/images/report.json")["tag"],
                language,
                tmp_path / "missing" / language,
                log,
            )
        assert "cannot copy" in (tmp_path / "missing.log").read_text()


def fake_driver(tmp_path, script):
    shim = tmp_path / "run"
    shim.write_text("#!/bin/sh\n" + script)
    shim.chmod(0o755)
    return {
        "language": "python",
        "shim": str(shim),
        "image_record": None,
        "engine": container_engine.Engine("native", "native", "test").as_dict(),
    }


def run_failing_job(job, tmp_path, status):
    """Run the benchmark job: its cells are recorded failed, its metadata says the exit status."""
    run_benchmark.run_job(job)
    rows = raw_samples.read(tmp_path / job.output.samples)
    assert [(r["operation"], r["status"], r["sample"]) for r in rows] == [
        ("sign", "failed", 0),
        ("verify", "failed", 0),
    ]
    metadata = read_json(tmp_path / job.output.metadata)
    assert metadata["exit_code"] == status and f"exited {status}" in metadata["failure"]


def test_a_driver_that_exits_non_zero_marks_its_cells_failed(tmp_path, monkeypatch):
    """The run goes on: every cell becomes `failed`, the partial CSV is kept, the
    metadata says why, and nothing raises. (A lock of its own: the machine's is the smoke
    run's to hold, and this driver times nothing.)"""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("JWTBENCH_BENCHMARK_LOCK", str(tmp_path / "benchmark.lock"))
    payload = tmp_path / "claims.json"
    payload.write_text('{"sub": "1"}')
    spec = {
        "format": "jwtbench-spec/1",
        "language": "python",
        "suite": "jwt",
        "timing": {},
        "cells": [
            {
                "operation": op,
                "algorithm": "HS256",
                "key_bits": 256,
                "private_key": "k",
                "public_key": "k",
                "input": "claims",
                "input_file": str(payload),
            }
            for op in ("sign", "verify")
        ],
    }
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    (tmp_path / "versions.json").write_text(json.dumps({"implementation": "pyjwt", "implementation_version": "9"}))
    (tmp_path / "keys").mkdir()
    (tmp_path / "keys/manifest.json").write_text("{}")
    header = ",".join(raw_samples.ONE_PROCESS_COLUMNS)
    partial = "python,pyjwt,9,jwt,sign,HS256,256,claims,12,1,10,1000,100,ok"
    driver = fake_driver(tmp_path, f'out=$5\nprintf "%s\\n%s\\n" "{header}" "{partial}" > "$out"\nexit 1\n')
    job = SimpleNamespace(
        wildcards=SimpleNamespace(driver="python", suite="jwt", input="claims"),
        input=SimpleNamespace(spec="spec.json", versions="versions.json", key_manifest="keys/manifest.json"),
        output=SimpleNamespace(
            samples="results/raw/python/jwt/claims.csv", metadata="results/raw/python/jwt/claims.json"
        ),
        params=SimpleNamespace(driver=driver, cpus="", lanes=[], plan=None, conducted=False),
        log=[str(tmp_path / "bench.log")],
    )
    run_failing_job(job, tmp_path, 1)
    kept = list((tmp_path / "results/failed").glob("python-jwt-claims-*.csv"))
    assert len(kept) == 1 and partial in kept[0].read_text()
    assert not list((tmp_path / "results/raw/python/jwt").glob(".jwt-*")), "scratch directory left behind"

    # Conducted: a worker (tests/fake_worker.py) that dies in round 3 fails the job alike,
    # and what the conductor wrote before (two rounds) is kept.
    timing = {"warmup_seconds": 0.01, "samples": 10, "target_sample_seconds": 0.01, "max_cell_seconds": 10}
    for cell in spec["cells"]:
        cell["fake"] = {"dies_in_round": 3}
    (tmp_path / "spec.json").write_text(json.dumps({**spec, "timing": timing}))
    worker = REPO / "tests" / "fake_worker.py"
    job.params.driver = fake_driver(tmp_path, f'exec "{sys.executable}" "{worker}" "$3"\n')
    job.params.conducted = True
    run_failing_job(job, tmp_path, 4)
    assert "round 3" in (tmp_path / "bench.log").read_text()
    kept = max((tmp_path / "results/failed").glob("python-jwt-claims-*.csv"), key=lambda path: path.stat().st_mtime)
    assert sorted(r["sample"] for r in raw_samples.read(kept) if r["operation"] == "sign") == [1, 2]


def test_the_podman_settings_are_used_only_when_needed(engine):
    settings = REPO / container_engine.PODMAN_SETTINGS
    if engine.name == "podman":
        own, _ = container_engine.podman_runs(engine.executable, None)
        assert (engine.settings == str(settings)) is (not own)
    text = settings.read_text()
    for line in ("default_ulimits = []", 'cgroup_manager = "cgroupfs"', 'runtime = "runc"'):
        assert line in text


if __name__ == "__main__":
    sys.exit(pytest.main([__file__]))
