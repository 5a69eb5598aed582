"""jwcrypto behind the python harness's adapter interface (../libraries.py): JWK keys made
once per key file; a `jwt.JWT` object per call (jwcrypto has no verifier to build once).
"""

import json
from importlib.metadata import version

from jwcrypto import jwa, jws, jwt
from jwcrypto.common import JWException, base64url_encode
from jwcrypto.jwk import JWK

NAME = "jwcrypto"
VERSION = version("jwcrypto")
DISTRIBUTIONS = ("jwcrypto", "cryptography", "cffi", "typing_extensions")
NO_DECODE = (
    f"jwcrypto {VERSION} has no call that reads a JWT's claims without verifying it "
    "(JWT.claims is set only by a validating deserialize, JWS.payload refuses an unverified token)"
)


class PayloadNotAnObject(Exception):
    """With check_claims=None jwcrypto hands back any payload as the claims; the policy refuses it."""


# jwcrypto's own errors all derive from JWException (JWTExpired, InvalidJWSSignature, ...).
INVALID_TOKEN = (JWException, PayloadNotAnObject)


def unsupported(alg):
    try:
        jwa.JWA.signing_alg(alg)
    except jwa.InvalidJWAAlgorithm as exc:
        return f"jwcrypto {VERSION} lacks {alg}: {exc}"
    return None


def _key(alg, data):
    if alg.startswith("HS"):
        return JWK(kty="oct", k=base64url_encode(data))
    return JWK.from_pem(data)


signing_key = verifying_key = _key


def _text(token):
    return token.decode() if isinstance(token, bytes) else token


def sign(claims, key, alg):
    token = jwt.JWT(header={"alg": alg, "typ": "JWT"}, claims=claims)
    token.make_signed_token(key)
    return token.serialize()


# The verify policy: algs=[alg] pins alg; expected_type="JWS" and strict_serialization=True
# (compact only). check_claims=None checks exp and nbf when present and requires nothing (a
# check_claims dict would skip them unless listed, and listing requires them); iat only
# typed (driver.yaml: lacks); leeway 0, not jwcrypto's default 60 s.
CHECK_CLAIMS = None
LEEWAY_SECONDS = 0


def verify(token, key, alg):
    verifier = jwt.JWT(algs=[alg], check_claims=CHECK_CLAIMS, expected_type="JWS", strict_serialization=True)
    verifier.leeway = LEEWAY_SECONDS
    verifier.deserialize(_text(token), key)
    try:
        claims = json.loads(verifier.claims)
    except ValueError as exc:
        raise PayloadNotAnObject(f"the payload is not JSON: {exc}") from None
    if not isinstance(claims, dict):
        raise PayloadNotAnObject(f"the payload is a JSON {type(claims).__name__}, not an object")
    return claims


def verify_signature(token, key, alg):
    """The payload bytes through jwcrypto's JWS layer (no claims read)."""
    signed = jws.JWS()
    signed.allowed_algs = [alg]
    signed.deserialize(_text(token), key)
    return signed.payload


decode = None
