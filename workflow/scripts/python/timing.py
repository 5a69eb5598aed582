"""Warm-up, batch calibration and interleaved sampling with the monotonic ns clock."""

import time
from dataclasses import dataclass, field
from itertools import islice

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


def run_batch(calls, n):
    """Time the next n of `calls` (an endless iterator of zero-argument calls); return
    (elapsed ns, folded result sizes)."""
    sink = 0
    start = clock()
    for call in islice(calls, n):
        sink += len(call())
    return clock() - start, sink


def each_timed(calls):
    """Make each call in turn, timed on its own; yield (elapsed ns, its result)."""
    for call in calls:
        start = clock()
        result = call()
        yield clock() - start, result


@dataclass
class CellTiming:
    """One cell's calibrated batch and the time it has used so far."""

    calls: object  # an endless iterator of zero-argument calls
    budget: Budget
    batch: int = 1
    spent_ns: int = 0
    timed_out: bool = False
    elapsed_ns: list = field(default_factory=list)
    sink: int = 0  # folded results, so no call's work is dead

    @property
    def limit_ns(self):
        return self.budget.max_cell_seconds * 1e9

    def warm_up_and_calibrate(self):
        """Warm up for warmup_seconds, then size the batch to target_sample_seconds.

        A cell whose samples cannot fit in max_cell_seconds is a timeout from here on.
        """
        start = clock()
        warm_until = start + self.budget.warmup_seconds * 1e9
        while True:  # at least one call
            elapsed = self._fold(run_batch(self.calls, 1))
            if clock() >= warm_until or clock() - start > self.limit_ns:
                break
        # Double the batch until it lasts a tenth of the target, then scale it up.
        target_ns = self.budget.target_sample_seconds * 1e9
        n = 1
        while clock() - start <= self.limit_ns:
            elapsed = self._fold(run_batch(self.calls, n))
            if elapsed >= target_ns / 10:
                n = max(1, round(n * target_ns / elapsed))
                break
            n *= 2
        self.batch = n
        self.spent_ns = clock() - start
        per_batch = target_ns if n > 1 else elapsed
        projected = self.spent_ns + self.budget.samples * per_batch
        self.timed_out = projected > self.limit_ns

    def wants_sample(self):
        if len(self.elapsed_ns) >= self.budget.samples:
            return False
        return not self.timed_out or self.spent_ns < self.limit_ns

    def take_sample(self):
        elapsed = self._fold(run_batch(self.calls, self.batch))
        self.elapsed_ns.append(elapsed)
        self.spent_ns += elapsed
        return elapsed

    def _fold(self, result):
        elapsed, sink = result
        self.sink ^= sink
        return elapsed
