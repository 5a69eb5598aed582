"""One key set per run: right types and sizes, PEM and JWK agree, private files 0600."""

import base64
import json
import stat

import pytest
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from cryptography.hazmat.primitives.serialization import load_pem_private_key, load_pem_public_key


def manifest(keys):
    return {entry["name"]: entry for entry in json.loads((keys / "manifest.json").read_text())["keys"]}


def b64url_int(text):
    return int.from_bytes(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)), "big")


def test_key_set_matches_the_smoke_config(keys):
    """Seed 001's variants' keys, plus RSA-7680 for suite keygen (the smoke config keeps it)."""
    assert set(manifest(keys)) == {
        "hmac-256",
        "hmac-384",
        "hmac-512",
        "rsa-2048",
        "rsa-3072",
        "rsa-4096",
        "ec-p256",
        "ec-p384",
        "ec-p521",
        "ed25519",
        "rsa-7680",
    }


def test_private_files_are_owner_only(keys):
    assert stat.S_IMODE(keys.stat().st_mode) == 0o700
    for entry in manifest(keys).values():
        for role, name in entry["files"].items():
            mode = stat.S_IMODE((keys / name).stat().st_mode)
            secret = role in ("secret", "jwk", "private_pem", "private_jwk")
            assert mode == (0o600 if secret else 0o644), f"{name} has mode {oct(mode)}"


@pytest.mark.parametrize("bits", [256, 384, 512])
def test_hmac_secret_size_and_jwk(keys, bits):
    secret = (keys / f"hmac-{bits}.secret").read_bytes()
    assert len(secret) * 8 == bits
    jwk = json.loads((keys / f"hmac-{bits}.jwk").read_text())
    assert jwk["kty"] == "oct" and b64url_int(jwk["k"]).to_bytes(len(secret), "big") == secret


@pytest.mark.parametrize("bits", [2048, 3072, 4096])
def test_rsa_pair(keys, bits):
    private = load_pem_private_key((keys / f"rsa-{bits}.private.pem").read_bytes(), None)
    public = load_pem_public_key((keys / f"rsa-{bits}.public.pem").read_bytes())
    assert isinstance(private, rsa.RSAPrivateKey) and private.key_size == bits
    assert public.public_numbers() == private.public_key().public_numbers()
    jwk = json.loads((keys / f"rsa-{bits}.private.jwk").read_text())
    assert b64url_int(jwk["n"]) == public.public_numbers().n
    assert b64url_int(jwk["d"]) == private.private_numbers().d
    assert "d" not in json.loads((keys / f"rsa-{bits}.public.jwk").read_text())
    assert (keys / f"rsa-{bits}.private.pem").read_text().startswith("-----BEGIN PRIVATE KEY-----")
    assert (keys / f"rsa-{bits}.public.pem").read_text().startswith("-----BEGIN PUBLIC KEY-----")


@pytest.mark.parametrize(
    ("name", "curve", "crv"),
    [
        ("ec-p256", ec.SECP256R1, "P-256"),
        ("ec-p384", ec.SECP384R1, "P-384"),
        ("ec-p521", ec.SECP521R1, "P-521"),
    ],
)
def test_ec_pair(keys, name, curve, crv):
    private = load_pem_private_key((keys / f"{name}.private.pem").read_bytes(), None)
    assert isinstance(private.curve, curve)
    jwk = json.loads((keys / f"{name}.public.jwk").read_text())
    assert jwk["crv"] == crv and b64url_int(jwk["x"]) == private.public_key().public_numbers().x


def test_ed25519_pair(keys):
    private = load_pem_private_key((keys / "ed25519.private.pem").read_bytes(), None)
    assert isinstance(private, ed25519.Ed25519PrivateKey)
    jwk = json.loads((keys / "ed25519.private.jwk").read_text())
    assert jwk["kty"] == "OKP" and jwk["crv"] == "Ed25519" and "d" in jwk


def test_manifest_and_log_hold_no_key_material(keys, workdir):
    text = (keys / "manifest.json").read_text() + (workdir / "logs/generate_keys/generate_keys.log").read_text()
    assert "PRIVATE KEY" not in text
    for bits in (256, 384, 512):
        secret = (keys / f"hmac-{bits}.secret").read_bytes()
        assert secret.hex() not in text and base64.urlsafe_b64encode(secret).decode().rstrip("=") not in text


def test_keys_for_cold_start_and_comparisons_come_with_any_variant_list(tmp_path):
    """With only ES256 configured, the keys cold start, the cross-check and the container
    comparison sign with (HMAC-256, RSA-2048) are generated too, and, with the conformance
    suite on, the keys its hostile tokens use (Ed25519, HMAC-512)."""
    from conftest import snakemake

    suites = (
        "suites={jwt: {algorithms: [ES256]}, percall: {algorithms: [ES256]},"
        " primitive: {activate: false}, keygen: {activate: false}}"
    )
    result = snakemake(
        tmp_path, "keys/manifest.json", "--config", suites, "datasets=[]", "conformance={activate: false}"
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert set(manifest(tmp_path / "keys")) == {"ec-p256", "hmac-256", "rsa-2048"}
    (tmp_path / "keys" / "manifest.json").unlink()
    result = snakemake(tmp_path, "keys/manifest.json", "--config", suites, "datasets=[]")
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert set(manifest(tmp_path / "keys")) == {"ec-p256", "hmac-256", "rsa-2048", "ed25519", "hmac-512"}
