"""joserfc behind the python harness's adapter interface (../libraries.py): keys, one
JWSRegistry per algorithm and the JWTClaimsRegistry built once (`algorithms=` would rebuild
a registry per call)."""

import functools
import json
from importlib.metadata import version

from joserfc import jws, jwt
from joserfc.errors import JoseError
from joserfc.jwk import ECKey, OctKey, OKPKey, RSAKey
from joserfc.jws import JWSRegistry
from joserfc.jwt import JWTClaimsRegistry

NAME = "joserfc"
VERSION = version("joserfc")
DISTRIBUTIONS = ("joserfc", "cryptography", "cffi")
# alg prefix -> joserfc's key type for it
KEY_TYPES = {"HS": OctKey, "RS": RSAKey, "PS": RSAKey, "ES": ECKey, "Ed": OKPKey}
# joserfc's errors all derive from JoseError (BadSignatureError, ExpiredTokenError, ...)
INVALID_TOKEN = JoseError


def unsupported(alg):
    if alg not in JWSRegistry.algorithms or alg[:2] not in KEY_TYPES:
        return f"joserfc {VERSION} lacks {alg}"
    return None


def _key(alg, data):
    return KEY_TYPES[alg[:2]].import_key(data)


signing_key = verifying_key = _key


@functools.cache
def registry(alg):
    """The JWS registry that allows `alg` alone, made at the first (untimed) call."""
    return JWSRegistry(algorithms=[alg])


def sign(claims, key, alg):
    return jwt.encode({"alg": alg}, claims, key, registry=registry(alg))


# The verify policy: registry(alg) pins alg; jwt.decode verifies the signature (and refuses
# a payload that is not a JSON object); CLAIMS checks exp, nbf, iat when present, leeway 0,
# no claim essential.
CLAIMS = JWTClaimsRegistry(leeway=0)


def verify(token, key, alg):
    decoded = jwt.decode(token, key, registry=registry(alg))
    CLAIMS.validate(decoded.claims)
    return decoded.claims


def verify_signature(token, key, alg):
    """The payload bytes through joserfc's JWS layer (no claims read)."""
    return jws.deserialize_compact(token, key, registry=registry(alg)).payload


def decode(token):
    """The claims unverified: jws.extract_compact, joserfc's documented read before verifying."""
    return json.loads(jws.extract_compact(token.encode() if isinstance(token, str) else token).payload)
