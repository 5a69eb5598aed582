"""Suite hash with hashlib (the ssl module's libcrypto): seed 002's short strings, and a
length sweep of raw bytes.

A cell's call and batch are generated as source from its parts (as dataclasses generates
__init__), e.g. `sink += len(new(f"{fresh}{ms}".encode()).hexdigest())` in the loop, because
on CPython 3.11 the generic ways (a str.format template, a join, a call per iteration) cost
as much as the ~500 ns they frame. The source is made only from the fixed texts below.
"""

import hashlib
from itertools import repeat
from time import time_ns
from uuid import uuid4

from correctness import CheckFailed
from jwt_algorithms import UnsupportedAlgorithm
from timing import Prepared

CONSTRUCTORS = {"MD5": hashlib.md5, "SHA-1": hashlib.sha1, "SHA-256": hashlib.sha256, "SHA-512": hashlib.sha512}
# part -> its name in a call's f-string, its length in characters (time-ms: until 2286)
PART_NAMES = {"cached-uuid": "cached", "fresh-uuid": "fresh", "time-ms": "ms"}
PART_CHARS = {"cached-uuid": 36, "fresh-uuid": 36, "time-ms": 13}
# part -> the statement that makes its value once per call (a part may appear twice)
PER_CALL = {"fresh-uuid": "fresh = str(uuid4())", "time-ms": "ms = time_ns() // 1_000_000"}
# operation -> what one call returns, given its message's expression
RESULTS = {"hex-digest": "new({}.encode()).hexdigest()", "generate": "{}.encode()", "digest": "new({}).digest()"}


def expected_bytes(cell):
    """The length of the cell's message: message_bytes, or what its parts add up to."""
    if cell["operation"] == "digest":
        return cell["message_bytes"]
    return sum(PART_CHARS[part] for part in cell["message"])


def constructor(algorithm):
    """hashlib's constructor; UnsupportedAlgorithm if OpenSSL refuses it (MD5 in FIPS mode)."""
    new = CONSTRUCTORS[algorithm]
    try:
        new(b"")
    except ValueError as exc:
        raise UnsupportedAlgorithm(f"hashlib lacks {algorithm}: {exc}") from exc
    return new


def compiled(operation, expression, per_call, **values):
    """(call, batch) for `operation` on the message `expression`, each call first running
    the `per_call` statements: call() returns one result, batch(n) the sum of n results'
    lengths. `values` are the names the code uses (new, cached, message)."""
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
        raise CheckFailed(f"{cell['algorithm']} of {known['message']!r} gave {got}, not {known['digest_hex']}")


def prepare(cell):
    """The cell's calls, checked first (the known answer; a built message's length)."""
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
            raise CheckFailed(f"message {' + '.join(parts)} has {input_bytes} bytes, not {expected}")
        call, batch = message_compiled(operation, parts, new, cached)
    output_bytes = len(call())
    if batch(1) != output_bytes:  # the timed loop does what the checked call does
        raise CheckFailed(f"a batch of one call consumed {batch(1)} bytes, not {output_bytes}")
    return Prepared(cell, input_bytes, batch, output_bytes)
