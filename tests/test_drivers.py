"""Every driver honours the contract (workflow/scripts/README.md) through its CLI."""

import base64
import hashlib
import hmac
import json

import pytest
from conftest import FIXTURE, JWS_DRIVERS, SCRIPTS, run_batch, run_conducted, run_driver
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from jwtbench import config_validation, raw_samples, variants

CLAIMS = json.loads(FIXTURE.read_bytes())
VARIANTS = [variants.parse(name) for name in variants.ALL_VARIANTS]
# The algorithms a driver's library lacks, as its driver.yaml declares (`unsupported`): the
# driver must report exactly those as unsupported, and do every other.
EXPECTED_UNSUPPORTED = {
    (language, algorithm)
    for language in JWS_DRIVERS
    for algorithm in config_validation.driver_manifest(SCRIPTS, language)["unsupported"]
}
# The operations a driver's library lacks (driver.yaml `unsupported_operations`: decode).
MISSING_OPERATIONS = {
    language: set(config_validation.driver_manifest(SCRIPTS, language)["unsupported_operations"])
    for language in JWS_DRIVERS
}
# Ed25519 may appear under RFC 9864's fully-specified name (fusionauth-jwt writes that).
HEADER_NAMES = {"EdDSA": {"EdDSA", "Ed25519"}}


def b64url(raw):
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def verify(language, env, keys, variant, token_text, tmp_path):
    path = tmp_path / "token.jwt"
    path.write_text(token_text + "\n")
    _, verifying = variants.key_files(variant, keys)
    return run_driver(language, env, "verify", "--alg", variant.algorithm, "--key", verifying, "--token", str(path))


def sign_cases(keys, variant_list):
    return [
        {"id": v.name, "alg": v.algorithm, "key": variants.key_files(v, keys)[0], "payload": str(FIXTURE)}
        for v in variant_list
    ]


def forgeries(variant, token, keys):
    """{check: token}: the token with its first signature bit flipped, its alg: none twin,
    and the same body validly MACed under another algorithm: HS* with the same secret under
    another hash; asymmetric keys with the public PEM as an HS256 secret (key confusion).
    A verifier pinned to the variant's algorithm must reject every one."""
    head, body, signature = token.split(".")
    flipped = bytearray(b64url_decode(signature))
    flipped[0] ^= 1
    none_header = b64url(b'{"alg":"none","typ":"JWT"}')
    other = ("HS384" if variant.algorithm == "HS256" else "HS256") if variant.symmetric else "HS256"
    secret = open(variants.key_files(variant, keys)[1], "rb").read()
    other_head = b64url(json.dumps({"alg": other, "typ": "JWT"}).encode())
    digest = {"HS256": hashlib.sha256, "HS384": hashlib.sha384}[other]
    mac = hmac.new(secret, f"{other_head}.{body}".encode(), digest).digest()
    return {
        "flipped": f"{head}.{body}.{b64url(bytes(flipped))}",
        "alg_none": f"{none_header}.{body}.",
        "other_alg": f"{other_head}.{body}.{b64url(mac)}",
    }


@pytest.mark.parametrize("language", JWS_DRIVERS)
def test_round_trip_and_forgeries(language, keys, driver_env, tmp_path):
    """Every variant, signed in one sign-batch and checked in one verify-batch (the same
    sign and verify as the commands, which test_the_commands_agree_with_the_batches runs
    one call each): its token names its algorithm and verifies to exactly the claims
    signed; its forgeries are rejected; an algorithm driver.yaml declares missing is
    `unsupported` both ways, and only those."""
    signed = run_batch(language, driver_env, "sign-batch", sign_cases(keys, VARIANTS), tmp_path)
    cases, expected = [], {}
    for variant in VARIANTS:
        line = signed[variant.name]
        verifying = variants.key_files(variant, keys)[1]
        if (language, variant.algorithm) in EXPECTED_UNSUPPORTED:
            assert line["exit"] == 3 and line["reason"], f"{language} {variant.name}: expected unsupported, got {line}"
            tokens = {"unsupported": "a.b.c"}
        else:
            assert line["exit"] == 0 and line["reason"] == "", f"{language} sign {variant.name}: {line}"
            token = line["token"]
            assert token == token.strip() and token.count(".") == 2, line
            header = json.loads(b64url_decode(token.split(".")[0]))
            assert header["alg"] in HEADER_NAMES.get(variant.algorithm, {variant.algorithm})
            tokens = {"valid": token, **forgeries(variant, token, keys)}
        for check, token in tokens.items():
            case_id = f"{variant.name}-{check}"
            path = tmp_path / f"{case_id}.jwt"
            path.write_text(token + "\n")
            cases.append(
                {"id": case_id, "alg": variant.algorithm, "key": verifying, "token": str(path), "claims": True}
            )
            expected[case_id] = {"valid": "accept", "unsupported": "unsupported"}.get(check, "reject")
    verdicts = run_batch(language, driver_env, "verify-batch", cases, tmp_path)
    wrong = {
        case_id: verdicts[case_id]["outcome"]
        for case_id in expected
        if verdicts[case_id]["outcome"] != expected[case_id]
    }
    assert not wrong, f"{language}: {wrong} (expected {[expected[case_id] for case_id in wrong]})"
    for case_id, line in verdicts.items():
        if line["outcome"] == "accept":
            assert line["claims"] == CLAIMS, case_id


@pytest.mark.parametrize("language", JWS_DRIVERS)
def test_the_commands_agree_with_the_batches(language, keys, driver_env, tmp_path):
    """`sign` and `verify`, one call each, on an HMAC and an RSA variant: the token verifies
    to the claims signed, its flipped twin exits 1; an algorithm driver.yaml declares
    missing exits 3 both ways. The batches do the same calls (test_round_trip_and_forgeries)."""
    for variant in (variants.parse("HS256"), variants.parse("RS256-2048")):
        signing, _ = variants.key_files(variant, keys)
        signed = run_driver(
            language, driver_env, "sign", "--alg", variant.algorithm, "--key", signing, "--payload", str(FIXTURE)
        )
        assert signed.returncode == 0, f"{language} sign {variant.name}: {signed.stderr}"
        token = signed.stdout.strip()
        valid = verify(language, driver_env, keys, variant, token, tmp_path)
        assert valid.returncode == 0, valid.stderr
        assert json.loads(valid.stdout) == CLAIMS
        assert (
            verify(language, driver_env, keys, variant, forgeries(variant, token, keys)["flipped"], tmp_path).returncode
            == 1
        )
    missing = sorted(algorithm for driver, algorithm in EXPECTED_UNSUPPORTED if driver == language)
    if missing:
        variant = next(v for v in VARIANTS if v.algorithm == missing[0])
        signed = run_driver(
            language,
            driver_env,
            "sign",
            "--alg",
            variant.algorithm,
            "--key",
            variants.key_files(variant, keys)[0],
            "--payload",
            str(FIXTURE),
        )
        assert signed.returncode == 3, f"{language} {variant.name}: expected exit 3 (unsupported)"
        assert verify(language, driver_env, keys, variant, "a.b.c", tmp_path).returncode == 3


@pytest.mark.parametrize("language", JWS_DRIVERS)
def test_sign_batch_answers_every_case_and_refuses_a_malformed_file(language, keys, driver_env, tmp_path):
    """A case that cannot be signed (its key file is missing) gets an exit-4 line naming
    the error, and the cases after it are still signed; a malformed cases file, or a case
    without one of its fields, exits 2 naming the file."""
    cases = sign_cases(keys, [variants.parse("HS256")] * 2)
    cases[0].update(id="missing-key", key=str(tmp_path / "no-such-key.secret"))
    lines = run_batch(language, driver_env, "sign-batch", cases, tmp_path)
    assert lines["missing-key"]["exit"] == 4 and lines["missing-key"]["reason"], lines["missing-key"]
    assert "\n" not in lines["missing-key"]["reason"] and len(lines["missing-key"]["reason"]) <= 300
    assert lines["HS256"]["exit"] == 0 and lines["HS256"]["token"].count(".") == 2
    for name, text in (
        ("not-json.json", "{not json"),
        ("no-payload.json", json.dumps({"cases": [{"id": "a", "alg": "HS256", "key": "k"}]})),
    ):
        path = tmp_path / name
        path.write_text(text)
        result = run_driver(language, driver_env, "sign-batch", "--cases", str(path))
        assert result.returncode == 2 and name in result.stderr, (name, result.returncode, result.stderr)
        assert "Traceback" not in result.stderr and "\tat " not in result.stderr


@pytest.mark.parametrize("language", JWS_DRIVERS)
def test_bad_input_exits_2_naming_it(language, driver_env, tmp_path):
    missing = tmp_path / "no-such-key.pem"
    result = run_driver(
        language, driver_env, "sign", "--alg", "HS256", "--key", str(missing), "--payload", str(FIXTURE)
    )
    assert result.returncode == 2 and "no-such-key.pem" in result.stderr
    assert run_driver(language, driver_env, "frobnicate").returncode == 2
    bad_spec = tmp_path / "spec.json"
    bad_spec.write_text("{not json")
    result = run_driver(language, driver_env, "serve", "--spec", str(bad_spec))
    assert result.returncode == 2 and "spec.json" in result.stderr


def tiny_spec(language, keys, cells, samples=3):
    return {
        "format": "jwtbench-spec/1",
        "language": config_validation.language_of(language),
        "suite": "jwt",
        "timing": {
            "warmup_seconds": 0.01,
            "samples": samples,
            "target_sample_seconds": 0.002,
            "max_cell_seconds": 20,
            "warmup_max_seconds": 0.05,
            "steady_window": 3,
            "steady_tolerance": 0.05,
        },
        "cells": cells,
    }


def cell(operation, variant_name, keys, private=None, public=None):
    variant = variants.parse(variant_name)
    signing, verifying = variants.key_files(variant, keys)
    return {
        "operation": operation,
        "algorithm": variant.algorithm,
        "key_bits": variant.key_bits,
        "private_key": private or signing,
        "public_key": public or verifying,
        "input": "claims-001",
        "input_file": str(FIXTURE),
    }


@pytest.mark.parametrize("language", JWS_DRIVERS)
def test_conducted_rows_follow_the_csv_contract(language, keys, driver_env, tmp_path):
    cells = [
        cell(op, name, keys)
        for name in ("HS256", "RS256-2048", "ES256", "EdDSA")
        for op in ("sign", "verify", "decode")
    ]
    # A public key of the right size that does not match the private one: the checks
    # must fail the cell.
    stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048).public_key()
    foreign = tmp_path / "foreign-2048.public.pem"
    foreign.write_bytes(stranger.public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo))
    cells.append(cell("sign", "RS384-2048", keys, public=str(foreign)))
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(tiny_spec(language, keys, cells, samples=4)))
    out = tmp_path / "raw.csv"
    result = run_conducted(language, driver_env, spec, str(out))
    assert result.returncode == 0, result.stderr
    rows = raw_samples.cells_only(raw_samples.read(out))  # raises on any contract violation
    versions = json.loads(run_driver(language, driver_env, "versions").stdout)
    by_cell = {}
    for row in rows:
        by_cell.setdefault((row["operation"], row["algorithm"], row["key_bits"]), []).append(row)
    assert len(by_cell) == len(cells)
    for (operation, algorithm, bits), cell_rows in by_cell.items():
        statuses = {r["status"] for r in cell_rows}
        assert len(statuses) == 1
        status = statuses.pop()
        if algorithm == "RS384":
            assert status == "failed", "a mismatched key pair must fail the check"
        elif (language, algorithm) in EXPECTED_UNSUPPORTED or operation in MISSING_OPERATIONS[language]:
            assert status == "unsupported"
        else:
            assert status == "ok", (operation, algorithm)
            assert [r["sample"] for r in cell_rows] == [1, 2, 3, 4]
            assert all(r["output_bytes"] > 100 for r in cell_rows)
        for row in cell_rows:
            assert row["language"] == config_validation.language_of(language)
            assert row["implementation"] == versions["implementation"]
            assert row["implementation_version"] == versions["implementation_version"]
            assert row["input_bytes"] == FIXTURE.stat().st_size
    assert "PRIVATE KEY" not in result.stderr + result.stdout


@pytest.mark.parametrize("language", JWS_DRIVERS)
def test_a_slow_cell_times_out(language, keys, driver_env, tmp_path):
    spec_data = tiny_spec(language, keys, [cell("sign", "RS512-4096", keys)], samples=1000)
    spec_data["timing"].update(target_sample_seconds=0.05, max_cell_seconds=0.5)
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(spec_data))
    out = tmp_path / "raw.csv"
    result = run_conducted(language, driver_env, spec, str(out))
    assert result.returncode == 0, result.stderr
    rows = raw_samples.cells_only(raw_samples.read(out))
    assert {r["status"] for r in rows} == {"timeout"}
    assert 0 < len(rows) < 1000
