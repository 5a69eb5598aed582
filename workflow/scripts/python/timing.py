"""Warm-up, batch calibration and sampling with the monotonic nanosecond clock."""

import time
from dataclasses import dataclass, field

clock = time.perf_counter_ns


@dataclass
class Budget:
    warmup_seconds: float
    samples: int
    target_sample_seconds: float
    max_cell_seconds: float

    @classmethod
    def from_spec(cls, timing):
        return cls(
            float(timing["warmup_seconds"]),
            int(timing["samples"]),
            float(timing["target_sample_seconds"]),
            float(timing["max_cell_seconds"]),
        )


@dataclass
class Measurement:
    batch: int = 0
    elapsed_ns: list = field(default_factory=list)
    timed_out: bool = False
    spent_ns: int = 0
    sink: int = 0  # folded results, so no call's work is dead


def run_batch(operation, n):
    """Time n calls; return (elapsed ns, folded result sizes)."""
    sink = 0
    start = clock()
    for _ in range(n):
        sink += len(operation())
    return clock() - start, sink


def measure(operation, budget):
    m = Measurement()
    cell_start = clock()
    deadline = cell_start + int(budget.max_cell_seconds * 1e9)

    def out_of_time():
        return clock() > deadline

    # Warm up: at least one call, then until warmup_seconds have passed.
    warm_until = cell_start + int(budget.warmup_seconds * 1e9)
    while True:
        _, sink = run_batch(operation, 1)
        m.sink ^= sink
        if clock() >= warm_until or out_of_time():
            break

    # Calibrate: double the batch until it lasts a tenth of the target, then scale.
    target_ns = budget.target_sample_seconds * 1e9
    n = 1
    while not out_of_time():
        elapsed, sink = run_batch(operation, n)
        m.sink ^= sink
        if elapsed >= target_ns / 10:
            n = max(1, round(n * target_ns / elapsed))
            break
        n *= 2
    m.batch = n

    for _ in range(budget.samples):
        if out_of_time():
            m.timed_out = True
            break
        elapsed, sink = run_batch(operation, n)
        m.sink ^= sink
        m.elapsed_ns.append(elapsed)
    m.timed_out = m.timed_out or len(m.elapsed_ns) < budget.samples
    m.spent_ns = clock() - cell_start
    return m
