"""PyJWT, the python driver's own JWS library, behind the adapter interface (libraries.py):
keys are `cryptography` key objects, an HMAC secret plain bytes."""

import jwt
from cryptography.hazmat.primitives.serialization import (
    load_pem_private_key,
    load_pem_public_key,
)

NAME = "pyjwt"
VERSION = jwt.__version__
DISTRIBUTIONS = ("PyJWT", "cryptography", "cffi")
# PyJWT's documented verdict on a token it refuses (its decode errors all derive from it)
INVALID_TOKEN = jwt.InvalidTokenError


def unsupported(alg):
    try:
        jwt.get_algorithm_by_name(alg)
    except NotImplementedError as exc:
        return f"PyJWT {jwt.__version__} lacks {alg}: {exc}"
    return None


def signing_key(alg, data):
    return data if alg.startswith("HS") else load_pem_private_key(data, password=None)


def verifying_key(alg, data):
    return data if alg.startswith("HS") else load_pem_public_key(data)


def sign(claims, key, alg):
    return jwt.encode(claims, key, algorithm=alg)


# The verify policy (workflow/scripts/README.md), every item set here rather than left to
# PyJWT's defaults: alg pinned by `algorithms`, signature, exp, nbf, iat (PyJWT rejects an
# iat in the future), leeway 0, no required claim. aud and iss are not part of the policy:
# with no audience or issuer given PyJWT only checks their types, as it does sub's and jti's.
VERIFY_OPTIONS = {f"verify_{item}": True for item in ("signature", "exp", "nbf", "iat", "aud", "iss", "sub", "jti")}
VERIFY_OPTIONS["require"] = []
LEEWAY_SECONDS = 0


def verify(token, key, alg):
    return jwt.decode(token, key, algorithms=[alg], options=VERIFY_OPTIONS, leeway=LEEWAY_SECONDS)


def decode(token):
    return jwt.decode(token, options={"verify_signature": False})


def verify_signature(token, key, alg):
    """The payload bytes through PyJWT's JWS layer (PyJWS), which reads no claims."""
    return jwt.PyJWS().decode_complete(token, key, algorithms=[alg])["payload"]
