"""jwcrypto behind the python harness's adapter interface (../libraries.py).

Keys are jwcrypto JWK objects, made once per key file: `JWK.from_pem` for a PEM (PKCS#8 or
SPKI), `JWK(kty="oct", k=...)` for an HMAC secret. A token is a `jwt.JWT` object per call,
as jwcrypto's API has it: there is no verifier object to build once.
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
    """The policy's "the payload must be a JSON object": with check_claims=None jwcrypto
    hands back any payload (an array, a number, text that is not JSON) as the claims."""


# jwcrypto's own errors all derive from JWException (JWTExpired, JWTNotYetValid,
# InvalidJWSSignature, InvalidJWSObject, InvalidJWAAlgorithm, ...); and the policy's own.
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


# The verify policy (workflow/scripts/README.md), each item set on the JWT object:
# - alg: algs=[alg], the only algorithm its JWS accepts (a header naming another, or none, fails);
# - signature: deserialize(token, key) verifies it, expected_type="JWS" (never a JWE),
#   strict_serialization=True (the compact serialization only, as RFC 7519 has it);
# - exp, nbf: check_claims=None is jwcrypto's mode that checks exp and nbf when present
#   (a check_claims dict would skip them unless listed, and listing them requires them);
# - iat: jwcrypto checks only that iat is an integer, not that it lies in the past
#   (driver.yaml: lacks);
# - leeway: 0, set before deserialize (jwcrypto's default is 60 s);
# - required claims: none (check_claims=None requires nothing).
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
    """The payload bytes of a compact JWS through jwcrypto's JWS layer: alg pinned by
    allowed_algs (a header without alg fails), the signature verified, no claims read."""
    signed = jws.JWS()
    signed.allowed_algs = [alg]
    signed.deserialize(_text(token), key)
    return signed.payload


decode = None
