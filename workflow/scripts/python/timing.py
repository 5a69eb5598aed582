"""The worker's clock (read around each batch only), a cell's batch of calls, and a cell as
the worker prepared it."""

import time
from dataclasses import dataclass
from itertools import islice

clock = time.perf_counter_ns


def batch_of(calls):
    """A cell's batch function: n -> the folded result sizes of the next n of `calls`
    (an endless iterator of zero-argument calls)."""

    def batch(n):
        sink = 0
        for call in islice(calls, n):
            sink += len(call())
        return sink

    return batch


@dataclass
class Prepared:
    """One spec cell, prepared and checked: its batch, or its status (unsupported, failed) and why."""

    cell: dict
    input_bytes: int
    batch: object = None  # n -> folded result sizes of n calls
    output_bytes: int = 0
    pass_length: int = 1  # calls per pass through its inputs (a records cell's batches are whole passes)
    answer: object = None  # (n, sink) -> the batch answer's further fields (input/output_bytes, parts)
    calls: list = None  # a jwt cell's calls, in its batch's order (the native harness's)
    status: str = "ok"
    reason: str = ""
