"""The conformance suite's parts without a real driver: the case list, the hostile tokens
it builds (checked independently with pyca/cryptography), and the harness's judgement of
a driver that hangs, crashes, prints a stack trace or a key, or newly accepts a token."""

import base64
import json
import stat
import sys
import textwrap
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, utils

from jwtbench import config_validation, conformance_cases, container_engine
from jwtbench.rules import check_conformance, generate_keys

CASES = conformance_cases.load_cases()
BY_ID = {case["id"]: case for case in CASES}


@pytest.fixture(scope="module")
def key_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("keys")
    for name in ("hmac-256", "hmac-512", "rsa-2048", "ec-p256", "ed25519"):
        generate_keys.generate(name, path)
    return path


@pytest.fixture(scope="module")
def built(key_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("cases")
    cases_file = conformance_cases.write_cases(CASES, key_dir, out, now=2_000_000_000)
    entries = json.loads(cases_file.read_text())["cases"]
    return {entry["id"]: Path(entry["token"]).read_text().strip() for entry in entries}


def b64d(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def parts(token):
    return token.split(".")


# ---------------------------------------------------------------- the case list


def test_the_case_list_covers_what_the_suite_must():
    assert len(CASES) >= 40
    groups = {case["group"] for case in CASES}
    assert groups == set(conformance_cases.GROUPS)
    ids = set(BY_ID)
    for required in (
        "alg_none",
        "alg_none_capitalised",
        "key_confusion_rsa",
        "pss_header_rs_pinned",
        "ecdsa_zero_signature",
        "ecdsa_r_order",
        "ecdsa_der",
        "rsa_signature_shorter",
        "rsa_signature_longer",
        "b64_payload_padding",
        "b64_payload_standard_alphabet",
        "b64_payload_line_break",
        "b64_signature_unused_bits",
        "segments_two",
        "segments_four",
        "header_not_json",
        "header_duplicate_alg_first_pinned",
        "crit_unknown",
        "b64_false_unencoded",
        "header_jku_remote",
        "header_jwk_embedded",
        "header_kid_path",
        "claims_array",
        "exp_past",
        "nbf_future",
        "exp_string_future",
        "exp_float_past",
        "exp_many_digits",
        "size_1mb",
        "size_16mb",
    ):
        assert required in ids
    for case in CASES:
        assert case["clause"].strip() and case["requirement"].strip(), case["id"]


def test_a_malformed_case_is_refused_naming_it(tmp_path):
    path = tmp_path / "cases.yaml"
    path.write_text("cases:\n  - {id: x, group: alg, expected: must_reject, alg: HS256, requirement: r}\n")
    with pytest.raises(conformance_cases.CaseError, match="case 0 \\(x\\): missing clause"):
        conformance_cases.load_cases(path)
    path.write_text("cases:\n  - {id: x, group: alg, expected: perhaps, alg: HS256, requirement: r, clause: c}\n")
    with pytest.raises(conformance_cases.CaseError, match="expected must be one of"):
        conformance_cases.load_cases(path)


# ---------------------------------------------------------------- the tokens, independently


def rsa_public(key_dir):
    return serialization.load_pem_public_key((key_dir / "rsa-2048.public.pem").read_bytes())


def ec_public(key_dir):
    return serialization.load_pem_public_key((key_dir / "ec-p256.public.pem").read_bytes())


def test_the_controls_verify_under_the_run_keys(built, key_dir):
    head, body, signature = parts(built["valid_rs256"])
    rsa_public(key_dir).verify(b64d(signature), f"{head}.{body}".encode(), padding.PKCS1v15(), hashes.SHA256())
    head, body, signature = parts(built["valid_es256"])
    raw = b64d(signature)
    der = utils.encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    ec_public(key_dir).verify(der, f"{head}.{body}".encode(), ec.ECDSA(hashes.SHA256()))
    assert json.loads(b64d(parts(built["exp_future"])[1]))["exp"] == 2_000_000_000 + 3600


def test_signature_changes_are_what_their_names_say(built, key_dir):
    signature = b64d(parts(built["rsa_signature_shorter"])[2])
    assert len(signature) == 255  # the modulus is 256 octets; the dropped octet was zero
    head, body, _ = parts(built["rsa_signature_shorter"])
    rsa_public(key_dir).verify(b"\x00" + signature, f"{head}.{body}".encode(), padding.PKCS1v15(), hashes.SHA256())
    assert len(b64d(parts(built["rsa_signature_longer"])[2])) == 257
    assert b64d(parts(built["ecdsa_zero_signature"])[2]) == bytes(64)
    high = b64d(parts(built["ecdsa_high_s"])[2])
    head, body, _ = parts(built["ecdsa_high_s"])
    r, s = int.from_bytes(high[:32], "big"), int.from_bytes(high[32:], "big")
    assert s > conformance_cases.P256_ORDER // 2
    ec_public(key_dir).verify(utils.encode_dss_signature(r, s), f"{head}.{body}".encode(), ec.ECDSA(hashes.SHA256()))
    assert int.from_bytes(b64d(parts(built["ecdsa_r_order"])[2])[:32], "big") == conformance_cases.P256_ORDER
    assert b64d(parts(built["ecdsa_der"])[2])[0] == 0x30  # a DER SEQUENCE
    eddsa_s = int.from_bytes(b64d(parts(built["eddsa_s_not_reduced"])[2])[32:], "little")
    assert eddsa_s >= conformance_cases.ED25519_ORDER


def test_encoding_changes_are_what_their_names_say(built):
    assert parts(built["b64_header_padding"])[0].endswith("=")
    assert parts(built["b64_payload_padding"])[1].endswith("=")
    assert set(parts(built["b64_payload_standard_alphabet"])[1]) & {"+", "/"}
    assert "\n" in built["b64_payload_line_break"] and " " in built["b64_payload_space"]
    assert built["segments_two"].count(".") == 1 and built["segments_five"].count(".") == 4
    assert json.loads(b64d(parts(built["alg_none"])[0])) == {"alg": "none"} and parts(built["alg_none"])[2] == ""
    assert b64d(parts(built["header_duplicate_alg_first_pinned"])[0]) == b'{"alg":"HS256","alg":"HS512"}'
    assert b64d(parts(built["claims_duplicate_exp_last_past"])[1]) == b'{"exp":2000003600,"exp":1999996400}'


def test_size_cases_have_their_size(built):
    assert 0.95 * 2**20 < len(built["size_1mb"]) <= 2**20
    assert 0.95 * 2**24 < len(built["size_16mb"]) <= 2**24


def test_no_token_carries_key_material(built, key_dir):
    secrets = check_conformance.key_material(key_dir)
    assert secrets  # HMAC secrets, PEM lines, JWK private members
    assert not check_conformance.leaks("\n".join(built.values()), secrets)


# ---------------------------------------------------------------- the harness's judgement

FAKE_BATCH = textwrap.dedent("""\
    #!{python}
    import json, sys, time
    flaw = {flaw!r}
    if sys.argv[1] == "sign":
        sys.exit(3)  # no EdDSA: the cases are built with EdDSA in their headers
    cases = json.load(open(sys.argv[sys.argv.index("--cases") + 1]))["cases"]
    for index, case in enumerate(cases):
        if flaw == "hang" and index == 2:
            time.sleep(60)
        if flaw == "crash" and index == 2:
            sys.exit(139)
        outcome = "accept" if case["id"] in {accepted!r} else "reject"
        reason = "" if outcome == "accept" else "Invalid: no"
        if flaw == "stack trace" and index == 1:
            print("Traceback (most recent call last):", file=sys.stderr)
        if flaw == "leak" and index == 1:
            reason = "bad key " + open(case["key"], "rb").read().hex()
        print(json.dumps({{"id": case["id"], "exit": 0 if outcome == "accept" else 1, "outcome": outcome,
                          "elapsed_ns": 1000, "peak_rss_kb": 1, "reason": reason}}), flush=True)
""")


def run_fake(tmp_path, key_dir, flaw=None, accepted=("valid_hs256",), known=()):
    shim = tmp_path / "run"
    shim.write_text(FAKE_BATCH.format(python=sys.executable, flaw=flaw, accepted=set(accepted)))
    shim.chmod(shim.stat().st_mode | stat.S_IXUSR)
    cases = [BY_ID[name] for name in ("valid_hs256", "alg_none", "exp_past", "exp_string_future")]
    engine = container_engine.Engine("native", "native", "test").as_dict()
    driver = {"language": "fake", "shim": str(shim), "engine": engine, "image_record": None}
    versions = {"fake": {"language": "fake", "implementation": "fakejwt", "implementation_version": "1.0"}}
    with open(tmp_path / "log.txt", "w") as log:
        suite = check_conformance.Conformance(cases, key_dir, versions, set(known), 3, log)
        rows = suite.run_language("fake", driver)
    return rows, suite.problems


def test_a_driver_that_answers_every_case_passes(tmp_path, key_dir):
    rows, problems = run_fake(tmp_path, key_dir)
    assert problems == []
    assert [row["verdict"] for row in rows] == ["as_required"] * 4


@pytest.mark.parametrize(
    ("flaw", "problem"),
    [
        ("hang", "within 3 s (a hang)"),
        ("crash", "exited 139 after 2 of 4 cases (a crash)"),
        ("stack trace", "a stack trace"),
        ("leak", "key material"),
    ],
)
def test_a_driver_failure_fails_the_suite(tmp_path, key_dir, flaw, problem):
    rows, problems = run_fake(tmp_path, key_dir, flaw=flaw)
    assert any(problem in text for text in problems), problems
    assert len(rows) == 4  # every case has its row, answered or not
    if flaw in ("hang", "crash"):
        assert [row["observed"] for row in rows][2:] == ["not_run", "not_run"]


def test_a_new_deviation_fails_and_a_known_one_is_reported(tmp_path, key_dir):
    accepted = ("valid_hs256", "exp_string_future")
    rows, problems = run_fake(tmp_path, key_dir, accepted=accepted)
    assert len(problems) == 1 and "exp_string_future must_reject but accept" in problems[0]
    rows, problems = run_fake(tmp_path, key_dir, accepted=accepted, known={("fake", "fakejwt", "exp_string_future")})
    assert problems == []
    assert {row["case"]: row["verdict"] for row in rows}["exp_string_future"] == "deviation"


def test_the_verify_policy_in_driver_yaml_is_checked():
    assert config_validation.verify_policy_problems({"validates": list(config_validation.VERIFY_POLICY)}) == []
    problems = config_validation.verify_policy_problems({"validates": ["signature", "alg"]})
    assert "neither validated nor lacking" in problems[0]
    lacking = {"validates": ["signature", "alg", "exp", "nbf", "leeway", "required_claims"], "lacks": {"iat": ""}}
    assert "reason" in config_validation.verify_policy_problems(lacking)[0]
