"""Suite hash with hashlib: seed 002's short strings, and a length sweep of raw bytes.

hashlib's named constructors (hashlib.md5, .sha1, .sha256, .sha512) are OpenSSL's
digests here: CPython's _hashlib links the same libcrypto as its ssl module, whose
version `versions` reports as `hash_backend` (ssl.OPENSSL_VERSION). The rows name the
implementation `hashlib` at the Python version (platform.python_version()).

One call of a `hex-digest` or `generate` cell is a single function whose body is what
one would write by hand for the cell's message; for [fresh-uuid, time-ms] and SHA-256:

    def call():
        fresh = str(uuid4())
        ms = time_ns() // 1_000_000
        return new(f"{fresh}{ms}".encode()).hexdigest()

(`generate` returns `f"{fresh}{ms}".encode()`; a one-part [cached-uuid] message is the
cached string itself, `new(cached.encode())`.) The function is generated from the cell's
parts, as dataclasses generates __init__, because the generic ways of building the string
cost more than the work they frame: on CPython 3.11 a str.format template takes about
250 ns and a join over per-call values about 100 ns more than the f-string, against
about 500 ns for a whole SHA-256 hex digest of a UUID. The source is made only from the
fixed texts below (the spec's parts are checked against MESSAGE_PARTS first).
"""

import hashlib
import itertools
from dataclasses import dataclass
from time import time_ns
from uuid import uuid4

from correctness import CheckFailed
from jwt_algorithms import UnsupportedAlgorithm

CONSTRUCTORS = {
    "MD5": hashlib.md5,
    "SHA-1": hashlib.sha1,
    "SHA-256": hashlib.sha256,
    "SHA-512": hashlib.sha512,
}
# part -> its name in a call's f-string, its length in characters (time-ms: until 2286)
PART_NAMES = {"cached-uuid": "cached", "fresh-uuid": "fresh", "time-ms": "ms"}
PART_CHARS = {"cached-uuid": 36, "fresh-uuid": 36, "time-ms": 13}
# part -> the statement that makes its value once per call (a part may appear twice)
PER_CALL = {"fresh-uuid": "fresh = str(uuid4())", "time-ms": "ms = time_ns() // 1_000_000"}
# operation -> what a call returns, for the expression of its message
RESULTS = {"hex-digest": "new({}.encode()).hexdigest()", "generate": "{}.encode()"}


class HashCheckFailed(CheckFailed):
    pass


def expected_bytes(cell):
    """The length of the cell's message: message_bytes, or what its parts add up to."""
    if cell["operation"] == "digest":
        return cell["message_bytes"]
    return sum(PART_CHARS[part] for part in cell["message"])


def constructor(algorithm):
    """hashlib's constructor for `algorithm`; UnsupportedAlgorithm if OpenSSL refuses it
    (an MD5 in FIPS mode)."""
    new = CONSTRUCTORS[algorithm]
    try:
        new(b"")
    except ValueError as exc:
        raise UnsupportedAlgorithm(f"hashlib lacks {algorithm}: {exc}") from exc
    return new


def message_call(operation, parts, new, cached):
    """A zero-argument call that builds the message of `parts` (with `cached` as the
    cached UUID) and returns its hex digest (`hex-digest`) or its UTF-8 bytes (`generate`)."""
    if parts == ["cached-uuid"]:
        message = "cached"  # used as it is, no copy
    else:
        message = 'f"' + "".join(f"{{{PART_NAMES[part]}}}" for part in parts) + '"'
    body = [statement for part, statement in PER_CALL.items() if part in parts]
    body.append("return " + RESULTS[operation].format(message))
    source = "def call():\n" + "".join(f"    {line}\n" for line in body)
    namespace = {"new": new, "cached": cached, "uuid4": uuid4, "time_ns": time_ns}
    exec(source, namespace)
    return namespace["call"]


def digest_call(new, message):
    """A zero-argument call returning the raw digest of `message` (bytes)."""
    return lambda: new(message).digest()


def sweep_message(length):
    """The length sweep's message: byte i is i mod 256."""
    return bytes(i % 256 for i in range(length))


def check_known_answer(cell, new):
    """The cell's call path on known_answer.message gives known_answer.digest_hex."""
    known = cell["known_answer"]
    if cell["operation"] == "digest":
        got = digest_call(new, known["message"].encode())().hex()
    else:
        got = message_call(cell["operation"], ["cached-uuid"], new, known["message"])()
    if got != known["digest_hex"].lower():
        raise HashCheckFailed(
            f"{cell['algorithm']} of {known['message']!r} gave {got}, not {known['digest_hex']}"
        )


@dataclass
class HashCase:
    """A checked hash cell: its call, and the sizes its rows report."""

    call: object
    input_bytes: int  # the message's length
    output_bytes: int  # the length of what one call returns

    def calls(self):
        return itertools.repeat(self.call)


def prepare(cell):
    """The cell's call, made and checked before any timing (the known answer; for a built
    message its length). Raises UnsupportedAlgorithm or HashCheckFailed."""
    operation = cell["operation"]
    new = None if operation == "generate" else constructor(cell["algorithm"])
    if new:
        check_known_answer(cell, new)
    if operation == "digest":
        message = sweep_message(cell["message_bytes"])
        call = digest_call(new, message)
        input_bytes = len(message)
    else:
        parts, cached = cell["message"], str(uuid4())
        input_bytes = len(message_call("generate", parts, new, cached)())
        expected = expected_bytes(cell)
        if input_bytes != expected:
            raise HashCheckFailed(f"message {' + '.join(parts)} has {input_bytes} bytes, not {expected}")
        call = message_call(operation, parts, new, cached)
    return HashCase(call, input_bytes, len(call()))
