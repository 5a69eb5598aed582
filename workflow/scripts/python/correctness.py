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


def other_algorithm_token(case, public_key_file):
    """The token's payload under another HS algorithm, HMAC'd with the verifying key file's
    bytes: for HS*, the same secret; else the public key's PEM (key confusion)."""
    other = "HS384" if case.alg == "HS256" else "HS256"
    header = b64url_encode(json.dumps({"alg": other, "typ": "JWT"}).encode())
    signing_input = f"{header}.{case.token.split('.')[1]}"
    mac = hmac.new(Path(public_key_file).read_bytes(), signing_input.encode(), HMAC_HASHES[other]).digest()
    return f"{signing_input}.{b64url_encode(mac)}"


def must_reject(case, token, what):
    try:
        verify(token, case.verifying_key, case.alg)
    except INVALID_TOKEN:
        return
    raise CheckFailed(f"{case.alg}: {what} was accepted")


def check(case, public_key_file):
    """Raise CheckFailed unless every pooled token verifies to exactly its claims and the
    first token's forgeries are rejected and it decodes (when the library has a decode)."""
    for number, (claims, token) in enumerate(zip(case.inputs.claims, case.tokens), 1):
        try:
            verified = verify(token, case.verifying_key, case.alg)
        except INVALID_TOKEN as exc:
            raise CheckFailed(f"{case.alg}: own token for input {number} rejected: {exc}") from exc
        if verified != claims:
            raise CheckFailed(f"{case.alg}: verify returned other claims than input {number}'s")
    must_reject(case, with_flipped_signature_bit(case.token), "a token with a flipped signature bit")
    must_reject(case, unsigned(case.token), "an alg:none token")
    must_reject(case, other_algorithm_token(case, public_key_file), "a token naming another alg")
    if decode is not None and decode(case.token) != case.claims:  # None: decode cells unsupported
        raise CheckFailed(f"{case.alg}: decode returned other claims than were signed")
