"""deterministic_tokens: languages grouped by the bytes they signed; a group must agree,
and every signature must equal pyca/cryptography's over the same bytes."""

import base64
import hashlib
import hmac

from jwtbench.rules import deterministic_tokens as det


def token(header, payload, signature):
    return f"{header}.{payload}.{signature}"


SECRET = b"k" * 32


def hs256(header, payload):
    mac = hmac.new(SECRET, f"{header}.{payload}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).rstrip(b"=").decode()


def test_groups_by_signed_bytes_and_names_a_disagreement(tmp_path):
    (tmp_path / "hmac.secret").write_bytes(SECRET)
    one, other = "eyJhbGciOiJIUzI1NiJ9", "eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9"
    tokens = {
        "go": token(one, "e30", hs256(one, "e30")),
        "node": token(one, "e30", hs256(one, "e30")),
        "rust": token(one, "e30", "BBBB"),  # same bytes, another signature
        "java": token(other, "e30", hs256(other, "e30")),  # other header bytes, right signature
        "zig": token(one, "e31", "CCCC"),  # alone, and not the reference's signature
    }
    rows = det.rows_for("HS256", tokens, tmp_path / "hmac.secret")
    by_languages = {row["languages"]: row for row in rows}
    assert by_languages["go node rust"]["outcome"] == det.DIFFERENT
    assert by_languages["go node rust"]["signatures"] == 2
    assert by_languages["java"]["outcome"] == det.ALONE and by_languages["java"]["reference"] == "same"
    assert by_languages["zig"]["outcome"] == det.DIFFERENT and by_languages["zig"]["reference"] == det.DIFFERENT
    assert by_languages["go node rust"]["header"] == '{"alg":"HS256"}'


def test_only_deterministic_variants_and_signed_tokens_are_read(tmp_path):
    for language in ("node", "python"):
        (tmp_path / language).mkdir()
        for variant in ("HS256", "PS256-2048", "ES256"):
            (tmp_path / language / f"{variant}.jwt").write_text(token("eyJhbGciOiJIUzI1NiJ9", "e30", "AAAA") + "\n")
    (tmp_path / "java").mkdir()  # signed nothing (unsupported): no file, no row
    keys = tmp_path / "keys"
    keys.mkdir()
    (keys / "hmac-256.secret").write_bytes(SECRET)
    token_dirs = {name: tmp_path / name for name in ("node", "python", "java")}
    rows = det.check(token_dirs, ["HS256", "PS256-2048", "ES256", "EdDSA"], keys)
    assert [(r["variant"], r["languages"], r["outcome"]) for r in rows] == [("HS256", "node python", det.DIFFERENT)]
    assert rows[0]["reference"] == det.DIFFERENT  # "AAAA" is not the HMAC of those bytes


def test_header_alg_is_the_name_the_own_token_uses(tmp_path):
    """verify_tokens.header_alg: what interop compares to expect a valid token's rejection."""
    from jwtbench import variants
    from jwtbench.rules import verify_tokens

    eddsa = variants.parse("EdDSA")
    (tmp_path / "java").mkdir()
    (tmp_path / "java" / "EdDSA.jwt").write_text(token("eyJhbGciOiJFZDI1NTE5IiwidHlwIjoiSldUIn0", "e30", "AAAA") + "\n")
    assert verify_tokens.header_alg(tmp_path / "java", eddsa) == "Ed25519"
    assert verify_tokens.header_alg(tmp_path / "node", eddsa) is None
