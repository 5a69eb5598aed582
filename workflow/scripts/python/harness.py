"""Suite harness: what the driver's timing loop costs around a call that does no
cryptography (workflow/scripts/README.md, "Suite `harness`").

A cell's call is a zero-argument `functools.partial`, as suite jwt's sign calls are
(jwt_algorithms.AlgorithmUnderTest.sign_calls), and its batch is suite jwt's,
timing.batch_of over those calls: `empty` is a function of the adapter's sign(claims, key,
alg) shape that returns "" and does nothing else; `trivial` is hmac.compare_digest on two
equal 32-byte strings made before timing, "1" when they are equal.
"""

import functools
import hmac
import itertools
from dataclasses import dataclass

from correctness import CheckFailed
from timing import batch_of


class HarnessCheckFailed(CheckFailed):
    pass


def empty(claims, key, alg):
    """The adapter's sign shape, doing nothing."""
    return ""


def equal(left, right):
    """hmac.compare_digest's verdict: "1" when left and right are equal, else "0"."""
    return "1" if hmac.compare_digest(left, right) else "0"


@dataclass
class HarnessCase:
    """A checked harness cell: its batch function (timing.CellTiming) and row sizes."""

    batch: object
    input_bytes: int  # 0: no input
    output_bytes: int  # the length of what one call returns


def expected_bytes(cell):
    """A harness cell has no input."""
    return 0


def trivial_call():
    """trivial's call on two equal 32-byte strings, after checking that compare_digest
    says equal on them and not equal when one byte differs."""
    left, right = bytes(range(32)), bytes(range(32))  # equal, two objects
    differing = bytearray(range(32))
    differing[-1] ^= 1
    if equal(left, right) != "1" or equal(left, bytes(differing)) != "0":
        raise HarnessCheckFailed("hmac.compare_digest does not tell equal from unequal 32-byte strings")
    return functools.partial(equal, left, right)


def prepare(cell):
    """The cell's batch, checked before any timing; raises HarnessCheckFailed."""
    if cell["operation"] == "empty":
        call = functools.partial(empty, {}, b"", cell["algorithm"])
    else:
        call = trivial_call()
        if call() != "1":
            raise HarnessCheckFailed(f"the timed call returned {call()!r}, not '1' (equal)")
    output_bytes = len(call())
    batch = batch_of(itertools.cycle([call]))
    if batch(1) != output_bytes:  # the timed loop does what the checked call does
        raise HarnessCheckFailed(f"a batch of one call consumed {batch(1)} bytes, not {output_bytes}")
    return HarnessCase(batch, 0, output_bytes)
