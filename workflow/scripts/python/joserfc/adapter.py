"""joserfc behind the python harness's adapter interface (../libraries.py).

Keys are joserfc key objects, imported once per key file (`OctKey.import_key` of the raw
secret, `RSAKey` / `ECKey` / `OKPKey.import_key` of a PEM). What joserfc lets an application
build once is built once: one `JWSRegistry(algorithms=[alg])` per algorithm (the pinned
algorithm list, which `jwt.encode`/`jwt.decode` would otherwise rebuild per call from
`algorithms=`) and one `JWTClaimsRegistry` for the claims.
"""

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
# joserfc's errors all derive from JoseError (BadSignatureError, DecodeError,
# UnsupportedAlgorithmError, InvalidPayloadError, ExpiredTokenError, InvalidClaimError, ...)
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
    """The JWS registry that allows `alg` alone (the pinned algorithm), made at the first
    (untimed) call for `alg` and reused."""
    return JWSRegistry(algorithms=[alg])


def sign(claims, key, alg):
    return jwt.encode({"alg": alg}, claims, key, registry=registry(alg))


# The verify policy (workflow/scripts/README.md), each item set explicitly:
# - alg: registry(alg) allows `alg` alone (a header naming another, or none, fails);
# - signature: jwt.decode verifies it with the key (and refuses a payload that is not a
#   JSON object: InvalidPayloadError);
# - exp, nbf, iat: JWTClaimsRegistry checks each when present (iat: not in the future);
# - leeway: 0, given to JWTClaimsRegistry;
# - required claims: none (no claim option marked essential).
CLAIMS = JWTClaimsRegistry(leeway=0)


def verify(token, key, alg):
    decoded = jwt.decode(token, key, registry=registry(alg))
    CLAIMS.validate(decoded.claims)
    return decoded.claims


def verify_signature(token, key, alg):
    """The payload bytes of a compact JWS through joserfc's JWS layer: alg pinned by the
    registry, the signature verified, no claims read."""
    return jws.deserialize_compact(token, key, registry=registry(alg)).payload


def decode(token):
    """The claims without verifying: jws.extract_compact, joserfc's documented read of a
    compact JWS before (or without) verifying it, then the payload's JSON as jwt.decode
    parses it."""
    return json.loads(jws.extract_compact(token.encode() if isinstance(token, str) else token).payload)
