"""The verify policy and verify-batch, through every JWS driver's CLI, natively
(workflow/scripts/README.md, "The verify policy" and "verify-batch").

Each policy item is proven with an HS256 token that fails only that item: the driver must
reject it when its driver.yaml says it validates the item, and accept it when it declares
the item under `verify.lacks` (so the declaration is true); all of a driver's in one
verify-batch, the same function as `verify`, which the command itself shows on two. Then verify-batch answers every
hostile token of data/conformance/cases.yaml: a line per case, no stack trace, no key
material, and the valid controls accepted.
"""

import base64
import hashlib
import hmac
import json
import time
import types

import pytest
import yaml
from conftest import REPO, SCRIPTS, run_batch, run_driver

from jwtbench import config_validation, conformance_cases
from jwtbench.rules import check_conformance

LANGUAGES = yaml.safe_load((REPO / "config" / "config.yaml").read_text())["languages"]
# Every driver of those languages: each language's own and its further libraries.
DRIVERS = LANGUAGES + sorted(
    driver
    for driver in config_validation.library_drivers(SCRIPTS)
    if config_validation.language_of(driver) in LANGUAGES
)
MANIFESTS = {driver: config_validation.driver_manifest(SCRIPTS, driver) for driver in DRIVERS}
JWS = [driver for driver in DRIVERS if MANIFESTS[driver]["jws"]]


def b64url(raw):
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def hs_token(secret, claims, alg="HS256"):
    signing_input = f"{b64url(json.dumps({'alg': alg, 'typ': 'JWT'}).encode())}.{b64url(json.dumps(claims).encode())}"
    digest = getattr(hashlib, f"sha{alg[2:]}")
    return f"{signing_input}.{b64url(hmac.new(secret, signing_input.encode(), digest).digest())}"


def flipped(token):
    head, body, signature = token.split(".")
    raw = bytearray(base64.urlsafe_b64decode(signature + "=" * (-len(signature) % 4)))
    raw[0] ^= 1
    return f"{head}.{body}.{b64url(bytes(raw))}"


def policy_tokens(secret):
    """{item: [tokens that fail only that item]} (the required_claims token is valid)."""
    now = int(time.time())
    valid = {"sub": "jwtbench-policy"}
    return {
        "signature": [flipped(hs_token(secret, valid))],
        "alg": [hs_token(secret, valid, alg="HS512")],
        "exp": [hs_token(secret, {**valid, "exp": now - 3600})],
        "nbf": [hs_token(secret, {**valid, "nbf": now + 3600})],
        "iat": [hs_token(secret, {**valid, "iat": now + 3600})],
        "leeway": [hs_token(secret, {**valid, "exp": now - 5}), hs_token(secret, {**valid, "nbf": now + 5})],
        "required_claims": [hs_token(secret, {})],
    }


def verify(language, driver_env, keys, tmp_path, token):
    path = tmp_path / "token.jwt"
    path.write_text(token + "\n")
    return run_driver(
        language, driver_env, "verify", "--alg", "HS256", "--key", str(keys / "hmac-256.secret"), "--token", str(path)
    )


def own_eddsa_name(language, driver_env, keys, tmp_path):
    """The alg the driver's own EdDSA tokens carry (fusionauth-jwt writes Ed25519), learnt
    as the workflow learns it: by signing one."""

    def argv(*args):
        return [str(SCRIPTS / language / "run"), *args]

    runner = types.SimpleNamespace(environ=lambda: driver_env)
    return check_conformance.eddsa_header_name(argv, runner, keys, tmp_path)


def test_every_jws_driver_declares_every_policy_item():
    for language in JWS:
        declared = MANIFESTS[language]["verify"]
        assert set(declared["validates"]) | set(declared["lacks"]) == set(config_validation.VERIFY_POLICY), language


@pytest.mark.parametrize("language", JWS)
def test_verify_checks_each_policy_item_it_declares(language, keys, driver_env, tmp_path):
    """Every item's tokens and a valid control in one verify-batch (the function `verify`
    calls); then the `verify` command itself on the control and the expired token."""
    secret = (keys / "hmac-256.secret").read_bytes()
    control = hs_token(secret, {"sub": "jwtbench-policy"})
    validates = MANIFESTS[language]["verify"]["validates"]
    cases, expected = [], {}
    for item, tokens in {"control": [control], **policy_tokens(secret)}.items():
        for number, token in enumerate(tokens):
            case_id = f"{item}-{number}"
            path = tmp_path / f"{case_id}.jwt"
            path.write_text(token + "\n")
            cases.append({"id": case_id, "alg": "HS256", "key": str(keys / "hmac-256.secret"), "token": str(path)})
            # No claim is required: a token without any verifies (required_claims).
            rejects = item != "control" and (item in validates) != (item == "required_claims")
            expected[case_id] = "reject" if rejects else "accept"
    lines = run_batch(language, driver_env, "verify-batch", cases, tmp_path)
    wrong = {
        case_id: lines[case_id]["outcome"] for case_id in expected if lines[case_id]["outcome"] != expected[case_id]
    }
    assert not wrong, f"{language}: {wrong}, expected {[expected[case_id] for case_id in wrong]}"
    result = verify(language, driver_env, keys, tmp_path, control)
    assert result.returncode == 0, result.stderr
    result = verify(language, driver_env, keys, tmp_path, policy_tokens(secret)["exp"][0])
    assert result.returncode == (1 if "exp" in validates else 0), (language, result.stderr)
    assert "Traceback" not in result.stderr and "\tat " not in result.stderr


@pytest.mark.parametrize("language", JWS)
def test_verify_batch_answers_every_hostile_token(language, keys, driver_env, tmp_path):
    cases = conformance_cases.load_cases()
    eddsa_name = own_eddsa_name(language, driver_env, keys, tmp_path)
    cases_file = conformance_cases.write_cases(cases, keys, tmp_path, eddsa_name=eddsa_name)
    result = run_driver(language, driver_env, "verify-batch", "--cases", str(cases_file))
    assert result.returncode == 0, result.stderr[-2000:]
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["id"] for line in lines] == [case["id"] for case in cases]
    for line in lines:
        assert line["outcome"] in ("accept", "reject", "error", "unsupported"), line
        assert line["exit"] == {"accept": 0, "reject": 1, "unsupported": 3, "error": 4}[line["outcome"]], line
        assert isinstance(line["elapsed_ns"], int) and line["elapsed_ns"] >= 0
        assert isinstance(line["peak_rss_kb"], int) and len(line["reason"]) <= 300
        assert (line["reason"] == "") == (line["outcome"] == "accept"), line
    output = result.stdout + result.stderr
    assert not check_conformance.STACK_TRACE.search(output)
    assert not check_conformance.leaks(output, check_conformance.key_material(keys))
    unsupported = set(MANIFESTS[language]["unsupported"])
    by_id = {line["id"]: line for line in lines}
    for case in cases:
        if case["group"] == "control":
            expected = "unsupported" if case["alg"] in unsupported else "accept"
            assert by_id[case["id"]]["outcome"] == expected, (case["id"], by_id[case["id"]])


@pytest.mark.parametrize("language", JWS)
def test_verify_batch_refuses_a_malformed_cases_file(language, driver_env, tmp_path):
    path = tmp_path / "cases.json"
    path.write_text('{"cases": [{"id": "x"}]}')
    result = run_driver(language, driver_env, "verify-batch", "--cases", str(path))
    assert result.returncode == 2 and str(path) in result.stderr
