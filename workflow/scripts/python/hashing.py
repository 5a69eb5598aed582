"""Suite hash with hashlib: seed 002's short strings, and a length sweep of raw bytes.

hashlib's named constructors (hashlib.md5, .sha1, .sha256, .sha512) are OpenSSL's
digests here: CPython's _hashlib links the same libcrypto as its ssl module, whose
version `versions` reports as `hash_backend` (ssl.OPENSSL_VERSION). The rows name the
implementation `hashlib` at the Python version (platform.python_version()).

A cell's work is written out as one would by hand; for [fresh-uuid, time-ms] and SHA-256
its single call (for the checks) and its batch of n calls (what is timed) are

    def call():
        fresh = str(uuid4())
        ms = time_ns() // 1_000_000
        return new(f"{fresh}{ms}".encode()).hexdigest()

    def batch(n):
        sink = 0
        for _ in repeat(None, n):
            fresh = str(uuid4())
            ms = time_ns() // 1_000_000
            sink += len(new(f"{fresh}{ms}".encode()).hexdigest())
        return sink

(`generate` returns `f"{fresh}{ms}".encode()`; a one-part [cached-uuid] message is the
cached string itself, `new(cached.encode())`; `digest` is `new(message).digest()`.) Both
are generated from the cell's parts, as dataclasses generates __init__, because on
CPython 3.11 the generic ways cost as much as the work they frame: building the string
with a str.format template takes about 250 ns, a join over per-call values about 100 ns
more than the f-string, and a function call per iteration of the batch (the jwt suite's
loop) about 50 ns, against about 500 ns for a whole SHA-256 hex digest of a UUID. The
source is made only from the fixed texts below (the spec's parts are checked against
spec.MESSAGE_PARTS first).
"""

import hashlib
from dataclasses import dataclass
from itertools import repeat
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
# operation -> what one call returns, given its message's expression
RESULTS = {
    "hex-digest": "new({}.encode()).hexdigest()",
    "generate": "{}.encode()",
    "digest": "new({}).digest()",
}


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


def compiled(operation, expression, per_call, **values):
    """(call, batch) for `operation` on the message `expression`: call() makes one
    call and returns its result; batch(n) makes n calls and returns the sum of their
    results' lengths. Each call first runs the `per_call` statements. `values` are the
    names the code uses (new, cached, message)."""
    result = RESULTS[operation].format(expression)
    lines = [
        "def call():",
        *(f"    {line}" for line in per_call),
        f"    return {result}",
        "def batch(n):",
        "    sink = 0",
        "    for _ in repeat(None, n):",
        *(f"        {line}" for line in per_call),
        f"        sink += len({result})",
        "    return sink",
    ]
    namespace = {"repeat": repeat, "uuid4": uuid4, "time_ns": time_ns, **values}
    exec("\n".join(lines) + "\n", namespace)
    return namespace["call"], namespace["batch"]


def message_compiled(operation, parts, new, cached):
    """compiled() for a message built from `parts`, with `cached` as the cached UUID."""
    if parts == ["cached-uuid"]:
        expression = "cached"  # used as it is, no copy
    else:
        expression = 'f"' + "".join(f"{{{PART_NAMES[part]}}}" for part in parts) + '"'
    per_call = [statement for part, statement in PER_CALL.items() if part in parts]
    return compiled(operation, expression, per_call, new=new, cached=cached)


def sweep_message(length):
    """The length sweep's message: byte i is i mod 256."""
    return bytes(i % 256 for i in range(length))


def check_known_answer(cell, new):
    """The cell's call path on known_answer.message gives known_answer.digest_hex."""
    known = cell["known_answer"]
    if cell["operation"] == "digest":
        call, _ = compiled("digest", "message", [], new=new, message=known["message"].encode())
        got = call().hex()
    else:
        call, _ = message_compiled(cell["operation"], ["cached-uuid"], new, known["message"])
        got = call()
    if got != known["digest_hex"].lower():
        raise HashCheckFailed(f"{cell['algorithm']} of {known['message']!r} gave {got}, not {known['digest_hex']}")


@dataclass
class HashCase:
    """A checked hash cell: its batch function (timing.CellTiming), and the sizes its rows
    report."""

    batch: object
    input_bytes: int  # the message's length
    output_bytes: int  # the length of what one call returns


def prepare(cell):
    """The cell's calls, made and checked before any timing (the known answer; for a built
    message its length). Raises UnsupportedAlgorithm or HashCheckFailed."""
    operation = cell["operation"]
    new = None if operation == "generate" else constructor(cell["algorithm"])
    if new:
        check_known_answer(cell, new)
    if operation == "digest":
        message = sweep_message(cell["message_bytes"])
        call, batch = compiled("digest", "message", [], new=new, message=message)
        input_bytes = len(message)
    else:
        parts, cached = cell["message"], str(uuid4())
        build, _ = message_compiled("generate", parts, new, cached)
        input_bytes = len(build())
        expected = expected_bytes(cell)
        if input_bytes != expected:
            raise HashCheckFailed(f"message {' + '.join(parts)} has {input_bytes} bytes, not {expected}")
        call, batch = message_compiled(operation, parts, new, cached)
    output_bytes = len(call())
    if batch(1) != output_bytes:  # the timed loop does what the checked call does
        raise HashCheckFailed(f"a batch of one call consumed {batch(1)} bytes, not {output_bytes}")
    return HashCase(batch, input_bytes, output_bytes)
