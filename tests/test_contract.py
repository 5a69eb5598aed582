"""The contract test: every language in config/config.yaml honours the driver contract
(workflow/scripts/README.md) through its CLI, natively, on tiny inputs: its folders, its
`versions`, and for JWS languages sign/verify with forgeries rejected, the JWS known answers
(RFC 7515 A.1-A.4, RFC 8037 A.4) through `verify --signature-only`, and a tiny `bench`;
for the others (openssl) a tiny `bench` of its suite. The vectors themselves are checked
here with pyca/cryptography, independently of every driver; and the verification gate
(verify_tokens.self_check) is shown to fail a driver that breaks the rules.
"""

import base64
import csv
import json
import os
import re
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import jsonschema
import pytest
import yaml
from conftest import FIXTURE, REPO, SCRIPTS, run_batch, run_conducted, run_driver
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, hmac
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa, utils

from jwtbench import config_validation, container_engine, driver_runner, jwk_keys, raw_samples, variants
from jwtbench.rules import summarize_crosscheck, verify_tokens

CONFIG_LANGUAGES = yaml.safe_load((REPO / "config" / "config.yaml").read_text())["languages"]
# Every driver of those languages: each language's own and its further libraries.
DRIVERS = CONFIG_LANGUAGES + sorted(
    driver
    for driver in config_validation.library_drivers(SCRIPTS)
    if config_validation.language_of(driver) in CONFIG_LANGUAGES
)
MANIFESTS = {driver: config_validation.driver_manifest(SCRIPTS, driver) for driver in DRIVERS}
JWS = [driver for driver in DRIVERS if MANIFESTS[driver]["jws"]]
NOT_JWS = [driver for driver in DRIVERS if not MANIFESTS[driver]["jws"]]
VECTORS = jwk_keys.known_answers()
CLAIMS = json.loads(FIXTURE.read_bytes())
# Two variants for the round trips through the gate (tests/test_drivers.py does all 25;
# the known answers cover RSA and ECDSA verification).
ROUND_TRIP = ["HS256", "EdDSA"]
STATUSES = {"ok", "timeout", "failed", "unsupported"}
NATIVE = container_engine.Engine("native", "native", "contract test")
HASH_KNOWN_ANSWERS = {
    vector["algorithm"]: {"message": vector["message"], "digest_hex": vector["digest_hex"]}
    for vector in json.loads((REPO / "data" / "vectors" / "hash-known-answers.json").read_text())["vectors"]
}


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def declared(language):
    return set(MANIFESTS[language]["unsupported"])


# ---------------------------------------------------------------- the vectors, independently


def verify_with_cryptography(vector, message, signature):
    """Raises InvalidSignature unless `signature` is the vector's algorithm's signature of
    `message` under the JWK's (public) key; pyca/cryptography only, no JWS library."""
    jwk = vector["jwk"]
    if jwk["kty"] == "oct":
        mac = hmac.HMAC(jwk_keys.secret(jwk), hashes.SHA256())
        mac.update(message)
        mac.verify(signature)
        return
    public = jwk_keys.private_key(jwk).public_key()  # checks d against the public members too
    if jwk["kty"] == "RSA":
        assert public.public_numbers() == rsa.RSAPublicNumbers(
            jwk_keys.b64url_int(jwk["e"]), jwk_keys.b64url_int(jwk["n"])
        )
        public.verify(signature, message, padding.PKCS1v15(), hashes.SHA256())
    elif jwk["kty"] == "EC":
        numbers = public.public_numbers()
        assert (numbers.x, numbers.y) == (jwk_keys.b64url_int(jwk["x"]), jwk_keys.b64url_int(jwk["y"]))
        half = len(signature) // 2  # JWS ECDSA signatures are R || S
        der = utils.encode_dss_signature(
            int.from_bytes(signature[:half], "big"), int.from_bytes(signature[half:], "big")
        )
        digest = {"ES256": hashes.SHA256(), "ES512": hashes.SHA512()}[vector["algorithm"]]
        public.verify(der, message, ec.ECDSA(digest))
    else:
        assert isinstance(public, ed25519.Ed25519PublicKey)
        public.verify(signature, message)


@pytest.mark.parametrize("vector", VECTORS, ids=lambda v: v["name"])
def test_vector_verifies_under_its_jwk(vector):
    """The transcription is right: the RFC's signature verifies under the JWK, the payload
    is the one recorded; and the same check fails on a changed signing input."""
    header, body, signature = vector["jws"].split(".")
    assert json.loads(b64url_decode(header))["alg"] == vector["algorithm"]
    assert body == vector["payload_b64url"]
    assert vector["source"]["url"].startswith("https://www.rfc-editor.org/rfc/rfc")
    verify_with_cryptography(vector, f"{header}.{body}".encode(), b64url_decode(signature))
    with pytest.raises(InvalidSignature):
        verify_with_cryptography(vector, f"{header}.{body}x".encode(), b64url_decode(signature))


def test_vectors_cover_the_rfc_examples():
    assert [v["algorithm"] for v in VECTORS] == ["HS256", "RS256", "ES256", "ES512", "EdDSA"]
    assert {v["source"]["rfc"] for v in VECTORS} == {"RFC 7515", "RFC 8037"}
    assert b64url_decode(VECTORS[3]["payload_b64url"]) == b"Payload"
    assert b64url_decode(VECTORS[4]["payload_b64url"]) == b"Example of Ed25519 signing"


# ---------------------------------------------------------------- every configured language


def test_config_languages_are_checked():
    assert CONFIG_LANGUAGES and set(DRIVERS) == set(JWS) | set(NOT_JWS)


@pytest.mark.parametrize("language", CONFIG_LANGUAGES)
def test_one_folder_per_place(language):
    driver = SCRIPTS / language
    assert (driver / "driver.yaml").is_file()
    assert os.access(driver / "run", os.X_OK), f"{driver / 'run'} is not executable"
    assert (REPO / "containers" / language / "Dockerfile").is_file()
    assert os.access(REPO / "envs" / language / "install", os.X_OK)


@pytest.mark.parametrize("driver", sorted(set(DRIVERS) - set(CONFIG_LANGUAGES)))
def test_a_further_library_is_a_folder_in_its_language(driver):
    """A further library's driver: its own folder with driver.yaml and an executable shim,
    inside its language's folder (whose harness, environment and image it shares)."""
    folder = SCRIPTS / driver
    assert (folder / "driver.yaml").is_file()
    assert os.access(folder / "run", os.X_OK), f"{folder / 'run'} is not executable"
    assert MANIFESTS[driver]["library"] == folder.name


@pytest.mark.parametrize("language", DRIVERS)
def test_versions_has_the_required_fields(language, driver_env):
    result = run_driver(language, driver_env, "versions")
    assert result.returncode == 0, result.stderr
    info = json.loads(result.stdout)
    assert info["language"] == config_validation.language_of(language)
    # The library the driver's folder names is the one it times.
    assert info["implementation"] == MANIFESTS[language]["library"]
    for field in ("runtime", "runtime_version", "implementation", "implementation_version", "crypto_backend"):
        assert isinstance(info[field], str) and info[field].strip(), field
    assert isinstance(info["libraries"], dict) and info["libraries"]
    assert all(isinstance(v, str) and v for v in info["libraries"].values())


def verify_signature_only(language, env, algorithm, key, token, tmp_path):
    path = tmp_path / "token.jwt"
    path.write_text(token + "\n")
    args = ["verify", "--alg", algorithm, "--key", key, "--token", str(path), "--signature-only"]
    return subprocess.run([str(SCRIPTS / language / "run"), *args], capture_output=True, env=env)


@pytest.mark.parametrize("language", JWS)
def test_known_answers(language, driver_env, tmp_path):
    """Every vector in one verify-batch of `signature_only` cases: the RFC's token gives
    exactly its payload; its payload-changed and alg:none twins are invalid; or, for an
    algorithm driver.yaml declares missing, `unsupported` (and only then). Then the same
    as the `verify --signature-only` command, one call each, on the first vector the driver
    supports: the batch's case runs the same function."""
    cases, payloads, single = [], {}, None
    for vector in VECTORS:
        _, key = jwk_keys.write_key_files(vector["jwk"], tmp_path, vector["name"])
        for check, (token, payload) in verify_tokens.known_answer_twins(vector).items():
            case_id = f"{vector['name']}-{check}"
            path = tmp_path / f"{case_id}.jwt"
            path.write_text(token + "\n")
            cases.append(
                {"id": case_id, "alg": vector["algorithm"], "key": str(key), "token": str(path), "signature_only": True}
            )
            payloads[case_id] = payload
        if single is None and vector["algorithm"] not in declared(language):
            single = (vector, str(key))
    lines = run_batch(language, driver_env, "verify-batch", cases, tmp_path)
    for case in cases:
        line = lines[case["id"]]
        if case["alg"] in declared(language):
            assert line["outcome"] == "unsupported", line
        elif case["id"].endswith("-known_answer"):
            assert line["outcome"] == "accept", line
            assert b64url_decode(line["payload_b64url"]) == payloads[case["id"]], line
        else:
            assert line["outcome"] == "reject" and "payload_b64url" not in line, line

    vector, key = single
    twins = verify_tokens.known_answer_twins(vector)
    token, payload = twins["known_answer"]
    result = verify_signature_only(language, driver_env, vector["algorithm"], key, token, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == payload
    forged, _ = twins["known_answer_tampered"]
    result = verify_signature_only(language, driver_env, vector["algorithm"], key, forged, tmp_path)
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert result.stdout == b""
    assert b"PRIVATE KEY" not in result.stderr
    missing = [v for v in VECTORS if v["algorithm"] in declared(language)]
    if missing:
        _, key = jwk_keys.write_key_files(missing[0]["jwk"], tmp_path, missing[0]["name"])
        token, _ = verify_tokens.known_answer_twins(missing[0])["known_answer"]
        assert (
            verify_signature_only(language, driver_env, missing[0]["algorithm"], str(key), token, tmp_path).returncode
            == 3
        )


@pytest.mark.parametrize("language", JWS)
def test_gate_passes(language, workdir, keys, tmp_path, monkeypatch):
    """The gate's self-check, natively: round trips with tampered and alg:none twins on a
    few variants, and every known answer; every row ok (or declared unsupported)."""
    monkeypatch.chdir(workdir)  # the runner finds the envs in .envs, as the pipeline's do
    rows = run_gate(
        language,
        SCRIPTS / language / "run",
        keys,
        tmp_path,
        [variants.parse(n) for n in ROUND_TRIP],
        VECTORS,
        declared(language),
    )
    assert len(rows) == 3 * len(ROUND_TRIP) + 3 * len(VECTORS)
    for row in rows:
        algorithm = variants.parse(row["variant"]).algorithm
        if algorithm in declared(language):
            assert (row["observed"], row["ok"]) == ("unsupported", ""), row
        else:
            assert row["ok"] == "true", row
    assert {row["check"] for row in rows} == set(verify_tokens.EXPECTED)


def tiny_jwt_cells(keys):
    """Sign and verify of HS256 and EdDSA on the claims fixture (jsonwebtoken lacks EdDSA)."""
    cells = []
    for name in ("HS256", "EdDSA"):
        variant = variants.parse(name)
        signing, verifying = variants.key_files(variant, keys)
        cells += [
            {
                "operation": operation,
                "algorithm": variant.algorithm,
                "key_bits": variant.key_bits,
                "private_key": signing,
                "public_key": verifying,
                "input": "claims-001",
                "input_file": str(FIXTURE),
                "input_kind": "claims",
            }
            for operation in ("sign", "verify")
        ]
    return cells


@pytest.mark.parametrize("language", JWS)
def test_tiny_jwt_bench(language, keys, driver_env, tmp_path):
    cells = tiny_jwt_cells(keys)
    spec = {
        "format": "jwtbench-spec/1",
        "language": config_validation.language_of(language),
        "suite": "jwt",
        "timing": {"warmup_seconds": 0.01, "samples": 2, "target_sample_seconds": 0.002, "max_cell_seconds": 20},
        "cells": cells,
    }
    rows = raw_samples.cells_only(bench(language, driver_env, spec, tmp_path))
    assert {(r["operation"], r["algorithm"]) for r in rows} == {(c["operation"], c["algorithm"]) for c in cells}
    for row in rows:
        want = "unsupported" if row["algorithm"] in declared(language) else "ok"
        assert (row["suite"], row["language"], row["status"]) == (
            "jwt",
            config_validation.language_of(language),
            want,
        ), row


PROTOCOL = yaml.safe_load((REPO / "workflow" / "schemas" / "protocol" / "worker.schema.yaml").read_text())
CONDUCTED = [driver for driver in DRIVERS if MANIFESTS[driver]["conducted"]]


def protocol_check(definition, message):
    jsonschema.validate(message, {**PROTOCOL, "$ref": f"#/$defs/{definition}"})
    return message


@pytest.mark.parametrize("language", CONDUCTED)
def test_serve_speaks_the_conductors_protocol(language, keys, driver_env, tmp_path):
    """A conducted driver's worker, driven by hand: its first line describes every cell, it
    answers each batch asked for (a cell's, the reference's) with one line, writes nothing
    else on stdout, and ends with its sink and status 0 when asked."""
    spec = {
        "format": "jwtbench-spec/1",
        "language": config_validation.language_of(language),
        "suite": "jwt",
        "timing": {"warmup_seconds": 0.01, "samples": 2, "target_sample_seconds": 0.002, "max_cell_seconds": 20},
        "cells": tiny_jwt_cells(keys),
    }
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps(spec))
    worker = subprocess.Popen(
        [str(SCRIPTS / language / "run"), "serve", "--spec", str(spec_file)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=driver_env,
    )
    try:
        hello = protocol_check("hello", json.loads(worker.stdout.readline()))
        assert len(hello["cells"]) == len(spec["cells"])
        for cell, entry in zip(spec["cells"], hello["cells"]):
            assert entry["status"] == ("unsupported" if cell["algorithm"] in declared(language) else "ok"), entry
        ok = [index for index, entry in enumerate(hello["cells"]) if entry["status"] == "ok"]
        request = protocol_check("batches", {"batches": [[ok[0], 3], ["reference", 5], [ok[-1], 1]]})
        worker.stdin.write(json.dumps(request) + "\n")
        worker.stdin.flush()
        for _ in request["batches"]:
            assert "elapsed_ns" in protocol_check("batch_answer", json.loads(worker.stdout.readline()))
        worker.stdin.write(json.dumps(protocol_check("end", {"end": True})) + "\n")
        worker.stdin.flush()
        protocol_check("end_answer", json.loads(worker.stdout.readline()))
        assert worker.stdout.read() == ""  # nothing but the protocol's lines
        assert worker.wait(timeout=60) == 0
    finally:
        worker.kill()
        worker.wait()


@pytest.mark.parametrize("language", JWS)
def test_a_drift_reference_sample_opens_every_round(language, keys, driver_env, tmp_path):
    """The drift reference: one reference row (SHA-256 of 64 bytes) per round, numbered as
    the round, with one calibrated batch, and none of it in the stopping rule; the reference
    is one of the driver's own hash implementations (a hash cell can name it and gets the
    same version)."""
    rounds = 4
    timing = {
        "warmup_seconds": 0.01,
        "samples": rounds,
        "target_ci_pct": 0,
        "target_sample_seconds": 0.002,
        "max_cell_seconds": 20,
    }
    cells = []
    for operation in ("sign", "verify"):
        signing, verifying = variants.key_files(variants.parse("HS256"), keys)
        cells.append(
            {
                "operation": operation,
                "algorithm": "HS256",
                "key_bits": 256,
                "private_key": signing,
                "public_key": verifying,
                "input": "claims-001",
                "input_file": str(FIXTURE),
            }
        )
    spec = {
        "format": "jwtbench-spec/1",
        "language": config_validation.language_of(language),
        "suite": "jwt",
        "timing": timing,
        "cells": cells,
    }
    rows = bench(language, driver_env, spec, tmp_path)
    reference = [r for r in rows if r["operation"] == "reference"]
    timed = [r for r in rows if r["operation"] != "reference"]
    assert sorted(r["sample"] for r in reference) == list(range(1, rounds + 1)), reference
    assert sorted(r["sample"] for r in timed) == sorted(list(range(1, rounds + 1)) * 2)
    assert {
        (r["suite"], r["algorithm"], r["key_bits"], r["input"], r["input_bytes"], r["output_bytes"], r["status"])
        for r in reference
    } == {("jwt", "SHA-256", 0, "reference", 64, 32, "ok")}
    assert len({r["iterations"] for r in reference}) == 1 and reference[0]["iterations"] >= 1
    assert all(r["elapsed_ns"] > 0 for r in reference)

    named = {
        "operation": "digest",
        "algorithm": "SHA-256",
        "key_bits": 0,
        "input": "bytes-64",
        "message_bytes": 64,
        "implementation": reference[0]["implementation"],
        "known_answer": HASH_KNOWN_ANSWERS["SHA-256"],
    }
    spec = {
        "format": "jwtbench-spec/1",
        "language": config_validation.language_of(language),
        "suite": "hash",
        "timing": timing,
        "cells": [named],
    }
    rows = bench(language, driver_env, spec, tmp_path)
    versions = {(r["implementation"], r["implementation_version"]) for r in rows}
    assert versions == {(reference[0]["implementation"], reference[0]["implementation_version"])}


@pytest.mark.parametrize("language", JWS)
def test_the_first_cell_of_a_process_takes_the_process_warm_up(language, keys, driver_env, tmp_path):
    """The warm-up: the first cell warms up for process_warmup_seconds, the others for
    warmup_seconds; each cell's `steady after S s` line on stderr counts from its warm-up's
    start (a loose tolerance makes every cell steady after its first two windows). The
    process warm-up is long beside a later cell's warm-up until steady, which a loaded
    machine stretches (java asks for an idle JIT and its CPU: 0.82 s beside a parallel
    build, 2026-11-29)."""
    timing = {
        "warmup_seconds": 0.01,
        "process_warmup_seconds": 1.5,
        "samples": 2,
        "target_ci_pct": 0,
        "target_sample_seconds": 0.002,
        "max_cell_seconds": 20,
        "warmup_max_seconds": 5,
        "steady_window": 2,
        "steady_tolerance": 10.0,
    }
    signing, verifying = variants.key_files(variants.parse("HS256"), keys)
    cells = [
        {
            "operation": operation,
            "algorithm": "HS256",
            "key_bits": 256,
            "private_key": signing,
            "public_key": verifying,
            "input": "claims-001",
            "input_file": str(FIXTURE),
        }
        for operation in ("sign", "verify", "decode")
        if operation not in MANIFESTS[language]["unsupported_operations"]
    ]
    spec_file, out = tmp_path / "spec.json", tmp_path / "raw.csv"
    spec_file.write_text(
        json.dumps(
            {
                "format": "jwtbench-spec/1",
                "language": config_validation.language_of(language),
                "suite": "jwt",
                "timing": timing,
                "cells": cells,
            }
        )
    )
    result = run_conducted(language, driver_env, spec_file, str(out))
    assert result.returncode == 0, result.stderr[-2000:]
    # The cells' lines (java's drift reference says when it was steady too).
    cell_lines = "\n".join(line for line in result.stderr.splitlines() if not line.startswith("drift reference"))
    steady = [float(s) for s in re.findall(r"steady after ([0-9.]+) ?s", cell_lines)]
    assert len(steady) == len(cells), result.stderr[-2000:]
    assert steady[0] >= 1.5 and max(steady[1:]) < 1.5, steady


@pytest.mark.parametrize("language", JWS)
def test_the_loop_times_an_empty_and_a_trivial_call(language, driver_env, tmp_path):
    """Suite harness: the empty and the trivial call through the jwt sign batch, timed in
    rounds (each round opened by the drift reference), under the driver's own library."""
    timing = {
        "warmup_seconds": 0.01,
        "samples": 3,
        "target_ci_pct": 0,
        "target_sample_seconds": 0.002,
        "max_cell_seconds": 20,
    }
    cells = [
        {"operation": operation, "algorithm": "none", "key_bits": 0, "input": "none"}
        for operation in ("trivial", "empty")
    ]
    spec = {
        "format": "jwtbench-spec/1",
        "language": config_validation.language_of(language),
        "suite": "harness",
        "timing": timing,
        "cells": cells,
    }
    rows = bench(language, driver_env, spec, tmp_path)
    timed = raw_samples.cells_only(rows)
    assert sorted((r["operation"], r["sample"]) for r in timed) == [
        (op, k) for op in ("empty", "trivial") for k in (1, 2, 3)
    ]
    library = MANIFESTS[language]["library"]
    for row in timed:
        assert (row["suite"], row["algorithm"], row["key_bits"], row["input"], row["input_bytes"], row["status"]) == (
            "harness",
            "none",
            0,
            "none",
            0,
            "ok",
        ), row
        assert row["output_bytes"] == (0 if row["operation"] == "empty" else 1) and row["elapsed_ns"] > 0, row
        assert row["implementation"].lower().replace("_", "-") == library.lower(), row
    assert sorted(r["sample"] for r in rows if r["operation"] == "reference") == [1, 2, 3]


# The harnesses a worker may name (the protocol's hello, workflow/scripts/README.md).
NATIVE_HARNESSES = PROTOCOL["$defs"]["hello"]["properties"]["harness"]["properties"]["name"]["enum"]


@pytest.mark.parametrize("language", JWS)
def test_crosscheck_alternates_the_driver_with_its_languages_harness(language, keys, driver_env, tmp_path):
    """`crosscheck`: for each cell and the drift reference's SHA-256, one driver block and one
    native block per alternation, written as measured: the driver's first in odd alternations,
    the harness's first in even ones (two alternations show both orders; each of java's
    native blocks is a JMH fork); an unsupported cell has its one status row."""
    alternations = 2
    cells = tiny_jwt_cells(keys)
    spec = {
        "format": "jwtbench-spec/1",
        "language": config_validation.language_of(language),
        "suite": "jwt",
        "timing": {"warmup_seconds": 0.01, "samples": 2, "target_sample_seconds": 0.002, "max_cell_seconds": 20},
        "cells": cells,
        "crosscheck": {"alternations": alternations, "block_seconds": 0.01},
    }
    spec_file, out = tmp_path / "spec.json", tmp_path / "blocks.csv"
    spec_file.write_text(json.dumps(spec))
    result = run_conducted(language, driver_env, spec_file, out)
    assert result.returncode == 0, result.stderr[-2000:]
    rows = summarize_crosscheck.read_blocks(out)  # raises on a wrong header or a malformed row
    summarize_crosscheck.check_blocks(rows, spec, out)
    (harness,) = {r["harness"] for r in rows if r["timer"] == "native"}
    assert harness in NATIVE_HARNESSES
    wanted = [(c["operation"], c["algorithm"]) for c in cells] + [("reference", "SHA-256")]
    for operation, algorithm in wanted:
        mine = [r for r in rows if (r["operation"], r["algorithm"]) == (operation, algorithm)]
        if algorithm in declared(language):
            assert [(r["alternation"], r["status"]) for r in mine] == [(0, "unsupported")], mine
            continue
        order = [(r["alternation"], r["timer"]) for r in mine]
        assert order == [
            (k, timer)
            for k in range(1, alternations + 1)
            for timer in (("driver", "native") if k % 2 else ("native", "driver"))
        ], order
        assert {r["harness"] for r in mine if r["timer"] == "native"} == {harness}
        assert {r["harness"] for r in mine if r["timer"] == "driver"} == {"jwtbench"}
        assert all(r["harness_version"] for r in mine if r["timer"] == "native")
        assert all(r["ns_per_op"] > 0 and int(r["samples"]) >= 1 for r in mine)
        assert all(int(r["samples"]) >= 3 for r in mine if r["timer"] == "driver")
    table = summarize_crosscheck.summarize({language: out}, 0.05, {})
    assert {(r["operation"], r["variant"]) for r in table} == set(wanted)
    assert all(r["ratio"] > 0 for r in table if r["status"] == "ok")


JAVA_JWS = [driver for driver in JWS if config_validation.language_of(driver) == "java"]


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs: one for the fork, one for JMH's parent")
@pytest.mark.parametrize("language", JAVA_JWS[:1])
def test_java_crosscheck_keeps_jmhs_parent_off_the_benchmark_cpus(language, keys, driver_env, tmp_path):
    """crosscheck.cpus {benchmark, conductor} (the pipeline's, crosscheck_harness.split_cpus):
    JMH's parent JVM moves to the conductor's CPUs and each fork runs on the benchmark's, so the
    parent's reading, printing and JIT stay off the measured CPU; a CPU in both is an input error."""
    conductor, benchmark = sorted(os.sched_getaffinity(0))[:2]
    cells = [cell for cell in tiny_jwt_cells(keys) if (cell["operation"], cell["algorithm"]) == ("sign", "HS256")]
    spec = {
        "format": "jwtbench-spec/1",
        "language": "java",
        "suite": "jwt",
        "timing": {"warmup_seconds": 0.01, "samples": 2, "target_sample_seconds": 0.002, "max_cell_seconds": 20},
        "cells": cells,
        "crosscheck": {
            "alternations": 2,
            "block_seconds": 0.01,
            "cpus": {"benchmark": [benchmark], "conductor": [conductor]},
        },
    }
    spec_file, out = tmp_path / "spec.json", tmp_path / "blocks.csv"
    spec_file.write_text(json.dumps(spec))
    result = run_conducted(language, driver_env, spec_file, out, conductor, benchmark)
    assert result.returncode == 0, result.stderr[-2000:]
    assert f"JMH's parent on CPUs {conductor}, its forks on CPUs {benchmark}" in result.stderr, result.stderr
    forks = re.findall(r"the fork on CPUs ([0-9,-]+)\)", result.stderr)
    assert forks == [str(benchmark)] * 2, result.stderr  # the cell's fork and the reference's
    summarize_crosscheck.check_blocks(summarize_crosscheck.read_blocks(out), spec, out)
    spec["crosscheck"]["cpus"]["conductor"] = [conductor, benchmark]
    spec_file.write_text(json.dumps(spec))
    result = run_conducted(language, driver_env, spec_file, out)
    assert result.returncode != 0 and "must not share a CPU" in result.stderr, result.stderr


@pytest.mark.parametrize("language", JAVA_JWS[:1])
def test_java_drift_reference_is_warmed_up_until_steady_before_round_one(language, driver_env, tmp_path):
    """Java's drift reference gets a cell's warm-up until steady when the timing asks for it
    (with warmup_seconds alone its first rounds were its own JIT warm-up, docs/disturbances-java.md)."""
    timing = {
        "warmup_seconds": 0.01,
        "samples": 3,
        "target_ci_pct": 0,
        "target_sample_seconds": 0.002,
        "max_cell_seconds": 20,
        "warmup_max_seconds": 2,
        "steady_window": 3,
        "steady_tolerance": 0.5,
    }
    cells = [{"operation": "trivial", "algorithm": "none", "key_bits": 0, "input": "none"}]
    spec_file, out = tmp_path / "spec.json", tmp_path / "raw.csv"
    spec_file.write_text(
        json.dumps(
            {"format": "jwtbench-spec/1", "language": "java", "suite": "harness", "timing": timing, "cells": cells}
        )
    )
    result = run_conducted(language, driver_env, spec_file, str(out))
    assert result.returncode == 0, result.stderr[-2000:]
    line = next(line for line in result.stderr.splitlines() if "steady after" in line and "drift reference" in line)
    assert re.search(r": (not )?steady after [0-9.]+ ?s", line), line
    assert sorted(r["sample"] for r in raw_samples.read(out) if r["operation"] == "reference") == [1, 2, 3]


@pytest.mark.parametrize("language", NOT_JWS)
def test_tiny_bench_of_its_suite(language, driver_env, tmp_path):
    suite = MANIFESTS[language]["suites"][0]
    assert suite == "primitive", f"{language}: no tiny spec for suite {suite} here yet"
    vectors = json.loads((REPO / "data" / "vectors" / "primitive-known-answers.json").read_text())["vectors"]
    known = next(v for v in vectors if (v["operation"], v["algorithm"]) == ("digest", "SHA-256"))
    spec = {
        "format": "jwtbench-spec/1",
        "language": language,
        "suite": suite,
        "timing": {"warmup_seconds": 0.01, "samples": 2, "target_sample_seconds": 0.002, "max_cell_seconds": 20},
        "openssl": {"seconds": 1, "samples": 1},
        "cells": [
            {
                "operation": "digest",
                "algorithm": "SHA-256",
                "key_bits": 0,
                "input": "bytes-64",
                "message_bytes": 64,
                "known_answer": known,
            }
        ],
    }
    rows = bench(language, driver_env, spec, tmp_path)
    assert rows and all(r["status"] == "ok" and r["language"] == language for r in rows)


def bench(language, env, spec, tmp_path):
    """The spec's rows as the pipeline gets them (driver_runner.bench_command): from the
    conductor through a JWS driver's `serve` (any suite its language's worker knows), else
    from its `bench` (openssl's)."""
    spec_file, out_dir = tmp_path / "spec.json", tmp_path / "out"
    spec_file.write_text(json.dumps(spec))
    out_dir.mkdir(exist_ok=True)
    out = out_dir / "samples.csv"
    runner = driver_runner.DriverRunner(language, str(SCRIPTS / language / "run"), NATIVE)
    conducted = MANIFESTS[language]["jws"]
    with driver_runner.bench_command(runner, spec_file, None, (), out_dir, conducted) as command:
        result = subprocess.run(command, capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr[-2000:]
    rows = raw_samples.read(out)  # raises on any contract violation
    assert rows and {r["status"] for r in rows} <= STATUSES
    return rows


# ---------------------------------------------------------------- the gate fails a bad driver


def run_gate(language, shim, key_dir, tmp_path, variant_list, vectors, declared_unsupported):
    """verify_tokens.self_check on one driver, natively; the table's rows (or its error)."""
    drivers = {language: {"language": language, "shim": str(shim), "engine": NATIVE.as_dict(), "image_record": None}}
    scratch = tmp_path / "scratch"
    scratch.mkdir(exist_ok=True)
    table = tmp_path / "self.csv"
    with open(tmp_path / "gate.log", "w") as log:
        with verify_tokens.Checker(drivers, key_dir, str(FIXTURE), str(scratch), log) as checker:
            verify_tokens.self_check(
                checker, language, variant_list, tmp_path / "tokens", table, vectors, declared_unsupported
            )
    with open(table) as handle:
        return list(csv.DictReader(handle))


# A stand-in driver for the gate, answering its two batches: sign-batch for HS256 with
# hmac; verify-batch done right with pyca/cryptography for HS256 and EdDSA (claims, or
# the payload of a signature_only case), unless FLAW says how to get it wrong.
FAKE_DRIVER = textwrap.dedent("""\
    #!{python}
    import base64, hashlib, hmac, json, sys
    from cryptography.hazmat.primitives.serialization import load_pem_public_key
    FLAW = {flaw!r}
    b64 = lambda raw: base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
    decode = lambda t: base64.urlsafe_b64decode(t + "=" * (-len(t) % 4))
    command, cases = sys.argv[1], json.load(open(sys.argv[3]))["cases"]  # <command> --cases FILE
    for case in cases:
        key = open(case["key"], "rb").read()
        if case["alg"] == "EdDSA" and FLAW == "undeclared-unsupported":
            print(json.dumps({{"id": case["id"], "exit": 3, "outcome": "unsupported", "token": "",
                              "elapsed_ns": 0, "peak_rss_kb": 0, "reason": "no EdDSA here"}}))
            continue
        if command == "sign-batch":
            head = b64(json.dumps({{"alg": "HS256"}}).encode()) + "." + b64(open(case["payload"], "rb").read())
            token = head + "." + b64(hmac.new(key, head.encode(), hashlib.sha256).digest())
            print(json.dumps({{"id": case["id"], "exit": 0, "token": token, "reason": ""}}))
            continue
        header, body, signature = open(case["token"]).read().strip().split(".")
        good = FLAW == "accepts-anything" or json.loads(decode(header)).get("alg") == case["alg"]
        if good and FLAW != "accepts-anything":
            signing_input = f"{{header}}.{{body}}".encode()
            try:
                if case["alg"] == "HS256":
                    assert hmac.compare_digest(hmac.new(key, signing_input, hashlib.sha256).digest(), decode(signature))
                else:
                    load_pem_public_key(key).verify(decode(signature), signing_input)
            except Exception:
                good = False
        line = {{"id": case["id"], "exit": 0 if good else 1, "outcome": "accept" if good else "reject",
                "elapsed_ns": 1, "peak_rss_kb": 0, "reason": "" if good else "Invalid: no"}}
        if good and case.get("signature_only"):
            line["payload_b64url"] = b64(b"another payload" if FLAW == "other-payload" else decode(body))
        elif good and case.get("claims"):
            line["claims"] = {{"sub": "someone else"}} if FLAW == "other-claims" else json.loads(decode(body))
        print(json.dumps(line))
        if FLAW == "stops-early":
            break
""")


def fake_driver(tmp_path, flaw):
    shim = tmp_path / "run"
    shim.write_text(FAKE_DRIVER.format(python=sys.executable, flaw=flaw))
    shim.chmod(shim.stat().st_mode | stat.S_IXUSR)
    return shim


@pytest.mark.parametrize(
    ("flaw", "declared_unsupported", "fails"),
    [
        (None, set(), False),  # the control: done right, the gate passes
        ("undeclared-unsupported", set(), True),  # exit 3 for EdDSA, not declared
        ("undeclared-unsupported", {"EdDSA"}, False),  # the same, declared
        (None, {"EdDSA"}, True),  # declared unsupported but done after all
        ("accepts-anything", set(), True),  # accepts the tampered and alg:none twins
        ("other-payload", set(), True),  # accepts the RFC's tokens, but gives another payload
    ],
)
def test_gate_fails_a_driver_that_breaks_the_rules(flaw, declared_unsupported, fails, tmp_path):
    shim = fake_driver(tmp_path, flaw)
    vectors = [v for v in VECTORS if v["algorithm"] in ("HS256", "EdDSA")]
    if fails:
        with pytest.raises(RuntimeError, match="fake failed"):
            run_gate("fake", shim, tmp_path, tmp_path, [], vectors, declared_unsupported)
        return
    rows = run_gate("fake", shim, tmp_path, tmp_path, [], vectors, declared_unsupported)
    assert len(rows) == 6 and all(row["ok"] in ("true", "") for row in rows)
    assert Path(tmp_path / "gate.log").read_text().strip().endswith("6 checks, 0 failed")


@pytest.mark.parametrize(
    ("flaw", "error"), [(None, None), ("other-claims", "failed 1 of its own"), ("stops-early", "cases unanswered")]
)
def test_gate_checks_the_claims_a_batch_returns(flaw, error, tmp_path):
    shim = fake_driver(tmp_path, flaw)
    (tmp_path / "hmac-256.secret").write_bytes(b"k" * 32)
    if error:
        with pytest.raises(RuntimeError, match=error):
            run_gate("fake", shim, tmp_path, tmp_path, [variants.parse("HS256")], [], set())
        return
    rows = run_gate("fake", shim, tmp_path, tmp_path, [variants.parse("HS256")], [], set())
    assert [(row["check"], row["observed"]) for row in rows] == [
        ("valid", "accept"),
        ("tampered", "reject"),
        ("alg_none", "reject"),
    ]
