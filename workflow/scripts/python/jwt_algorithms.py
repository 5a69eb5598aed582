"""PyJWT operations for one algorithm, with keys parsed once into native objects.

PyJWT takes `cryptography` key objects as they are; an HMAC secret's native form in PyJWT
is plain bytes. Whether PyJWT implements an algorithm is asked of PyJWT itself.
"""

import functools
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


def verify(token, key, alg):
    """Claims of a valid token; raises jwt.InvalidTokenError otherwise."""
    return jwt.decode(token, key, algorithms=[alg])


def decode(token):
    return jwt.decode(token, options={"verify_signature": False})


@dataclass
class AlgorithmUnderTest:
    """One algorithm with its parsed keys and payload, ready for timing."""

    alg: str
    claims: dict
    input_bytes: int
    signing_key: object
    verifying_key: object
    token: str

    @classmethod
    def prepare(cls, alg, private_key_file, public_key_file, input_file):
        ensure_supported(alg)
        raw = Path(input_file).read_bytes()
        claims = json.loads(raw)
        signing_key = load_signing_key(alg, private_key_file)
        verifying_key = load_verifying_key(alg, public_key_file)
        token = sign(claims, signing_key, alg)
        return cls(alg, claims, len(raw), signing_key, verifying_key, token)

    def operation(self, name):
        """A zero-argument callable performing `name` once, bound to prepared objects."""
        if name == "sign":
            return functools.partial(sign, self.claims, self.signing_key, self.alg)
        if name == "verify":
            return functools.partial(verify, self.token, self.verifying_key, self.alg)
        if name == "decode":
            return functools.partial(decode, self.token)
        raise ValueError(f"unknown jwt operation {name!r}")
