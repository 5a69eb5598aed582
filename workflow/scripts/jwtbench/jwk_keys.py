"""JWKs (RFC 7517/7518/8037) into the key files drivers take: the raw secret for `oct`
keys, else a PKCS#8 private key PEM and an SPKI public key PEM.

Used for the JWS known-answer vectors (data/vectors/jws-known-answers.json), whose keys
the RFCs give as JWKs. Nothing here prints a key.
"""

import base64
import json
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

KNOWN_ANSWERS = Path(__file__).resolve().parents[3] / "data" / "vectors" / "jws-known-answers.json"
EC_CURVES = {"P-256": ec.SECP256R1, "P-384": ec.SECP384R1, "P-521": ec.SECP521R1}


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64url_int(text):
    return int.from_bytes(b64url_decode(text), "big")


def private_key(jwk):
    """The cryptography private key object of an RSA, EC or OKP (Ed25519) JWK."""
    kty = jwk["kty"]
    if kty == "RSA":
        public = rsa.RSAPublicNumbers(b64url_int(jwk["e"]), b64url_int(jwk["n"]))
        numbers = rsa.RSAPrivateNumbers(*(b64url_int(jwk[name]) for name in ("p", "q", "d", "dp", "dq", "qi")), public)
        return numbers.private_key()
    if kty == "EC":
        curve = EC_CURVES[jwk["crv"]]()
        public = ec.EllipticCurvePublicNumbers(b64url_int(jwk["x"]), b64url_int(jwk["y"]), curve)
        return ec.EllipticCurvePrivateNumbers(b64url_int(jwk["d"]), public).private_key()
    if kty == "OKP" and jwk["crv"] == "Ed25519":
        key = ed25519.Ed25519PrivateKey.from_private_bytes(b64url_decode(jwk["d"]))
        if key.public_key().public_bytes_raw() != b64url_decode(jwk["x"]):
            raise ValueError("Ed25519 JWK: x is not the public key of d")
        return key
    raise ValueError(f"unsupported JWK kty {kty!r} / crv {jwk.get('crv')!r}")


def secret(jwk):
    if jwk["kty"] != "oct":
        raise ValueError(f"not a symmetric JWK: kty {jwk['kty']!r}")
    return b64url_decode(jwk["k"])


def key_file_bytes(jwk):
    """(signing key bytes, verifying key bytes) as drivers read them."""
    if jwk["kty"] == "oct":
        return secret(jwk), secret(jwk)
    key = private_key(jwk)
    signing = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    verifying = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return signing, verifying


def write_key_files(jwk, directory, stem):
    """Write <stem>.signing.key and <stem>.verifying.key into `directory`; their paths."""
    paths = Path(directory) / f"{stem}.signing.key", Path(directory) / f"{stem}.verifying.key"
    for path, data in zip(paths, key_file_bytes(jwk)):
        path.write_bytes(data)
    return tuple(str(path) for path in paths)


def known_answers(path=KNOWN_ANSWERS):
    """The JWS known-answer vectors (list of dicts: name, algorithm, source, jwk, jws,
    payload_b64url)."""
    return json.loads(Path(path).read_text())["vectors"]
