"""PyJWT, the python driver's own JWS library, behind the adapter interface (libraries.py).

PyJWT takes `cryptography` key objects as they are; an HMAC secret's native form in PyJWT
is plain bytes. Whether PyJWT implements an algorithm is asked of PyJWT itself.
"""

import jwt
from cryptography.hazmat.primitives.serialization import (
    load_pem_private_key,
    load_pem_public_key,
)

NAME = "pyjwt"
VERSION = jwt.__version__
# what `versions` lists under libraries, in order (importlib.metadata names)
DISTRIBUTIONS = ("PyJWT", "cryptography", "cffi")
# PyJWT's documented verdict on a token it refuses (its decode errors all derive from it)
INVALID_TOKEN = jwt.InvalidTokenError


def unsupported(alg):
    """Why PyJWT cannot do `alg`, or None when it can."""
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
VERIFY_OPTIONS = {
    "verify_signature": True,
    "verify_exp": True,
    "verify_nbf": True,
    "verify_iat": True,
    "verify_aud": True,
    "verify_iss": True,
    "verify_sub": True,
    "verify_jti": True,
    "require": [],
}
LEEWAY_SECONDS = 0


def verify(token, key, alg):
    """Claims of a valid token; raises jwt.InvalidTokenError otherwise."""
    return jwt.decode(token, key, algorithms=[alg], options=VERIFY_OPTIONS, leeway=LEEWAY_SECONDS)


def decode(token):
    return jwt.decode(token, options={"verify_signature": False})


def verify_signature(token, key, alg):
    """The payload bytes of a compact JWS whose header names `alg` and whose signature
    verifies with `key`: PyJWT's JWS layer (PyJWS), which reads no claims (so no exp);
    raises jwt.InvalidTokenError otherwise."""
    return jwt.PyJWS().decode_complete(token, key, algorithms=[alg])["payload"]
