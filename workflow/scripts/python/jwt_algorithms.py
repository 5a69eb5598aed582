"""PyJWT operations for one algorithm, with keys parsed once into native objects.

PyJWT takes `cryptography` key objects as they are; an HMAC secret's native form in PyJWT
is plain bytes. Whether PyJWT implements an algorithm is asked of PyJWT itself.
"""

import functools
import itertools
import json
from dataclasses import dataclass
from pathlib import Path

import jwt
from cryptography.hazmat.primitives.serialization import (
    load_pem_private_key,
    load_pem_public_key,
)


class UnsupportedAlgorithm(Exception):
    """The library has no implementation of the algorithm."""


class InputError(Exception):
    """An input file that is not what its input_kind says."""


def is_hmac(alg):
    return alg.startswith("HS")


def ensure_supported(alg):
    try:
        jwt.get_algorithm_by_name(alg)
    except NotImplementedError as exc:
        raise UnsupportedAlgorithm(f"PyJWT {jwt.__version__} lacks {alg}: {exc}") from exc


def load_signing_key(alg, path):
    data = Path(path).read_bytes()
    return data if is_hmac(alg) else load_pem_private_key(data, password=None)


def load_verifying_key(alg, path):
    data = Path(path).read_bytes()
    return data if is_hmac(alg) else load_pem_public_key(data)


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


def rounded_mean(values):
    """The mean of non-negative integers, rounded to the nearest integer (halves up)."""
    return (2 * sum(values) + len(values)) // (2 * len(values))


def parse_object(raw, where):
    try:
        value = json.loads(raw)
    except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError alike
        raise InputError(f"{where}: not JSON: {exc}") from exc
    if not isinstance(value, dict):
        raise InputError(f"{where}: not a JSON object")
    return value


@dataclass
class Inputs:
    """The parsed claims a cell's calls take in turn, and the size of each in bytes."""

    claims: list
    sizes: list

    @property
    def mean_bytes(self):
        return rounded_mean(self.sizes)


def load_inputs(path, kind):
    """`claims`: the file is one JSON object. `records`: JSON Lines, one object a line,
    each record's bytes being its line without the newline. OSError if unreadable."""
    data = Path(path).read_bytes()
    if kind == "claims":
        return Inputs([parse_object(data, path)], [len(data)])
    lines = data.split(b"\n")
    if lines[-1] == b"":  # the last line's newline
        lines.pop()
    if not lines:
        raise InputError(f"{path}: no records")
    claims = []
    for number, line in enumerate(lines, 1):
        if not line:
            raise InputError(f"{path}:{number}: blank line")
        claims.append(parse_object(line, f"{path}:{number}"))
    return Inputs(claims, [len(line) for line in lines])


@dataclass
class AlgorithmUnderTest:
    """One algorithm with its parsed keys and inputs, and a pool of tokens signed untimed.

    `tokens[i]` is `inputs.claims[i]` signed; the checks use the first input and token.
    """

    alg: str
    inputs: Inputs
    signing_key: object
    verifying_key: object
    tokens: list

    @classmethod
    def prepare(cls, alg, private_key_file, public_key_file, inputs, pool_size=None):
        """Parse the keys and sign the first `pool_size` inputs (default: all) once."""
        ensure_supported(alg)
        signing_key = load_signing_key(alg, private_key_file)
        verifying_key = load_verifying_key(alg, public_key_file)
        tokens = [sign(claims, signing_key, alg) for claims in inputs.claims[:pool_size]]
        return cls(alg, inputs, signing_key, verifying_key, tokens)

    @property
    def claims(self):
        return self.inputs.claims[0]

    @property
    def token(self):
        return self.tokens[0]

    @functools.cached_property
    def output_bytes(self):
        return rounded_mean([len(token) for token in self.tokens])

    def sign_calls(self):
        """One zero-argument call per input, signing it, in input order."""
        return [functools.partial(sign, claims, self.signing_key, self.alg) for claims in self.inputs.claims]

    def calls(self, name):
        """An endless iterator of zero-argument calls performing `name` once each.

        The calls go through the inputs (one for claims, one per record) in order and
        wrap around, so the position carries over from batch to batch.
        """
        if name == "sign":
            calls = self.sign_calls()
        elif name == "verify":
            calls = [functools.partial(verify, token, self.verifying_key, self.alg) for token in self.tokens]
        elif name == "decode":
            calls = [functools.partial(decode, token) for token in self.tokens]
        else:
            raise ValueError(f"unknown jwt operation {name!r}")
        return itertools.cycle(calls)
