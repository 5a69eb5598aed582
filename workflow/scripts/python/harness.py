"""Suite harness: a zero-argument `functools.partial` through suite jwt's batch, as a sign
cell's calls are."""

import functools
import hmac
import itertools

from correctness import CheckFailed
from timing import Prepared, batch_of


def empty(claims, key, alg):
    return ""


def equal(left, right):
    return "1" if hmac.compare_digest(left, right) else "0"


def expected_bytes(cell):
    return 0  # no input


def prepare(cell):
    """The cell's batch, checked first: compare_digest tells strings one bit apart, and a
    batch of one consumes what the call returns."""
    if cell["operation"] == "empty":
        call = functools.partial(empty, {}, b"", cell["algorithm"])
    else:
        left, right, differing = bytes(range(32)), bytes(range(32)), bytes(range(31)) + b"\x1e"
        call = functools.partial(equal, left, right)
        if call() != "1" or equal(left, differing) != "0":
            raise CheckFailed("hmac.compare_digest does not tell equal from unequal 32-byte strings")
    batch = batch_of(itertools.cycle([call]))
    if batch(1) != len(call()):
        raise CheckFailed(f"a batch of one call consumed {batch(1)} bytes, not {len(call())}")
    return Prepared(cell, 0, batch, len(call()))
