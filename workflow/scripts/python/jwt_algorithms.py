"""The JWS library's operations for one algorithm, keys parsed once: the adapter's own
functions (libraries.py), so a timed call goes straight to them."""

import functools
import json
from dataclasses import dataclass
from pathlib import Path

from libraries import adapter


class UnsupportedAlgorithm(Exception):
    """The library has no implementation of the algorithm (or no call for the operation)."""


class InputError(Exception):
    """An input file that is not what its input_kind says."""


INVALID_TOKEN, sign, verify, decode = adapter.INVALID_TOKEN, adapter.sign, adapter.verify, adapter.decode
verify_signature = adapter.verify_signature


def ensure_supported(alg):
    reason = adapter.unsupported(alg)
    if reason:
        raise UnsupportedAlgorithm(reason)


def load_signing_key(alg, path):
    return adapter.signing_key(alg, Path(path).read_bytes())


def load_verifying_key(alg, path):
    return adapter.verifying_key(alg, Path(path).read_bytes())


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
    """One algorithm with its parsed keys and inputs; `tokens[i]` is `inputs.claims[i]` signed."""

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

    def call_list(self, name):
        """One zero-argument call performing `name` per input, in input order."""
        if name == "sign":
            return [functools.partial(sign, claims, self.signing_key, self.alg) for claims in self.inputs.claims]
        if name == "verify":
            return [functools.partial(verify, token, self.verifying_key, self.alg) for token in self.tokens]
        if name == "decode":
            if decode is None:
                raise UnsupportedAlgorithm(adapter.NO_DECODE)
            return [functools.partial(decode, token) for token in self.tokens]
        raise ValueError(f"unknown jwt operation {name!r}")
