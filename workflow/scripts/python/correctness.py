"""The checks a cell must pass before it is timed (workflow/scripts/README.md, Check)."""

import base64
import hashlib
import hmac
import json
from pathlib import Path

from jwt_algorithms import INVALID_TOKEN, decode, verify

HMAC_HASHES = {"HS256": hashlib.sha256, "HS384": hashlib.sha384, "HS512": hashlib.sha512}


class CheckFailed(Exception):
    pass


def b64url_encode(raw):
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def with_flipped_signature_bit(token):
    head, body, signature = token.split(".")
    raw = bytearray(b64url_decode(signature))
    raw[0] ^= 0x01
    return f"{head}.{body}.{b64url_encode(bytes(raw))}"


def unsigned(token):
    body = token.split(".")[1]
    header = b64url_encode(b'{"alg":"none","typ":"JWT"}')
    return f"{header}.{body}."


def hmac_token(token, alg, secret):
    """The token's payload under a header naming `alg`, HMAC'd with `secret`."""
    body = token.split(".")[1]
    header = b64url_encode(json.dumps({"alg": alg, "typ": "JWT"}).encode())
    signing_input = f"{header}.{body}".encode()
    mac = hmac.new(secret, signing_input, HMAC_HASHES[alg]).digest()
    return f"{header}.{body}.{b64url_encode(mac)}"


def other_algorithm_token(case, public_key_file):
    """For HS*, the same secret (the verifying key file, the signing one's twin) under
    another HS algorithm; else HS256 keyed with the public key's PEM (key confusion)."""
    other = "HS384" if case.alg == "HS256" else "HS256"
    return hmac_token(case.token, other, Path(public_key_file).read_bytes())


def must_reject(case, token, what):
    try:
        verify(token, case.verifying_key, case.alg)
    except INVALID_TOKEN:
        return
    raise CheckFailed(f"{case.alg}: {what} was accepted")


def check(case, public_key_file):
    """Raise CheckFailed unless `case` signs, verifies, rejects forgeries and decodes (when
    the library has a decode).

    The checks before timing take the first input and its token; a pool of tokens signed
    from records must then verify, each to its own record.
    """
    try:
        claims = verify(case.token, case.verifying_key, case.alg)
    except INVALID_TOKEN as exc:
        raise CheckFailed(f"{case.alg}: own token rejected: {exc}") from exc
    if claims != case.claims:
        raise CheckFailed(f"{case.alg}: verify returned other claims than were signed")
    must_reject(case, with_flipped_signature_bit(case.token), "a token with a flipped signature bit")
    must_reject(case, unsigned(case.token), "an alg:none token")
    must_reject(case, other_algorithm_token(case, public_key_file), "a token naming another alg")
    if decode is not None and decode(case.token) != case.claims:  # None: decode cells unsupported
        raise CheckFailed(f"{case.alg}: decode returned other claims than were signed")
    check_pool(case)


def check_pool(case):
    """Every further pooled token verifies, algorithm pinned, to exactly its claims."""
    further = zip(case.inputs.claims[1:], case.tokens[1:])
    for number, (claims, token) in enumerate(further, 2):
        try:
            verified = verify(token, case.verifying_key, case.alg)
        except INVALID_TOKEN as exc:
            raise CheckFailed(f"{case.alg}: own token for record {number} rejected: {exc}") from exc
        if verified != claims:
            raise CheckFailed(f"{case.alg}: verify returned other claims than record {number}'s")
