"""Warm-up, batch calibration and interleaved sampling with the monotonic ns clock, and
seed 001's single timed calls (suite percall).

The rule that stops a cell once it is precise enough (the stopping rule) is the pipeline's
own reference, workflow/scripts/jwtbench/stopping_rule.py, which the python image carries beside
this folder: the python driver runs the very code every other driver is checked against.
"""

import statistics
import time
from dataclasses import dataclass, field
from itertools import islice

from jwtbench.spec_timing import Timing

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


def run_batch(run, n):
    """Time run(n), a batch of n calls; return (elapsed ns, its folded result sizes)."""
    start = clock()
    sink = run(n)
    return clock() - start, sink


def each_timed(calls):
    """Make each call in turn, timed on its own; yield (elapsed ns, its result)."""
    for call in calls:
        start = clock()
        result = call()
        yield clock() - start, result


def whole_passes(n, count):
    """A batch of n calls through `count` inputs in turn, once it holds at least one pass
    through them, rounded to the nearest whole number of passes: every sample then times
    the same inputs."""
    return n if n < count else max(1, round(n / count)) * count


@dataclass
class Steadiness:
    """How the warm-up until steady ended: `change` is the last relative change between
    two windows' median ns/op (None when no two windows were compared)."""

    steady: bool
    seconds: float
    change: float = None

    def __str__(self):
        if self.steady:
            return f"steady after {self.seconds:.2f} s"
        last = "none: fewer than two windows" if self.change is None else f"{self.change:.1%}"
        return f"not steady after {self.seconds:.2f} s (last change {last})"


_process_warmed_up = False  # the warm-up: has a cell of this process warmed up yet?


def warmup_seconds_of(budget):
    """The warm-up: the first cell a process warms up takes the process's warm-up as well."""
    global _process_warmed_up
    seconds = budget.warmup_seconds
    if not _process_warmed_up:
        _process_warmed_up = True
        seconds = max(seconds, budget.process_warmup_seconds)
    return seconds


@dataclass
class CellTiming:
    """One cell's calibrated batch and the time it has used so far."""

    run: object  # the cell's batch function: n -> folded result sizes of n calls
    budget: Timing
    pass_length: int = 1  # calls per pass through the cell's inputs (whole_passes)
    batch: int = 1
    spent_ns: int = 0
    timed_out: bool = False
    steadiness: Steadiness = None  # set when the budget asks for warm-up until steady
    elapsed_ns: list = field(default_factory=list)
    sink: int = 0  # folded results, so no call's work is dead

    @property
    def limit_ns(self):
        return self.budget.max_cell_seconds * 1e9

    def warm_up_and_calibrate(self):
        """Warm up for warmup_seconds (the process's first cell: at least
        process_warmup_seconds), size the batch to target_sample_seconds, and with
        warmup_max_seconds > 0 go on until steady, then size the batch again.

        A cell whose planned samples cannot fit in max_cell_seconds is a timeout from here on.
        """
        start = clock()
        warm_until = start + warmup_seconds_of(self.budget) * 1e9
        while True:  # at least one call
            elapsed = self._fold(run_batch(self.run, 1))
            if clock() >= warm_until or clock() - start > self.limit_ns:
                break
        elapsed = self._calibrate(start, elapsed)
        if self.budget.warmup_max_seconds > 0:
            self.steadiness = self._until_steady(start)
            elapsed = self._calibrate(start, elapsed)
        self.spent_ns = clock() - start
        per_batch = self.budget.target_sample_seconds * 1e9 if self.batch > 1 else elapsed
        projected = self.spent_ns + self.budget.planned_samples * per_batch
        self.timed_out = projected > self.limit_ns

    def _calibrate(self, start, elapsed):
        """Double the batch until it lasts a tenth of the target, then scale it up; set
        self.batch and return the last batch's elapsed ns (`elapsed` if none ran)."""
        target_ns = self.budget.target_sample_seconds * 1e9
        n = 1
        while clock() - start <= self.limit_ns:
            elapsed = self._fold(run_batch(self.run, n))
            if elapsed >= target_ns / 10:
                n = max(1, round(n * target_ns / elapsed))
                break
            n *= 2
        self.batch = whole_passes(n, self.pass_length)
        return elapsed

    def _until_steady(self, start):
        """Untimed windows of steady_window batches of self.batch calls, each batch timed,
        until a window's median ns/op is within steady_tolerance of the previous window's,
        or the warm-up (from `start`) has lasted warmup_max_seconds (or max_cell_seconds)."""
        until_ns = start + min(self.budget.warmup_max_seconds * 1e9, self.limit_ns)
        window, previous, change = [], None, None
        while clock() < until_ns:
            window.append(self._fold(run_batch(self.run, self.batch)) / self.batch)
            if len(window) < self.budget.steady_window:
                continue
            median, window = statistics.median(window), []
            if previous is not None:
                change = abs(median - previous) / previous if previous else float("inf")
                if change <= self.budget.steady_tolerance:
                    return Steadiness(True, (clock() - start) / 1e9, change)
            previous = median
        return Steadiness(False, (clock() - start) / 1e9, change)

    def within_time(self):
        """The time cap: no cell is sampled once its own time has passed max_cell_seconds."""
        return self.spent_ns < self.limit_ns

    def take_sample(self):
        elapsed = self._fold(run_batch(self.run, self.batch))
        self.elapsed_ns.append(elapsed)
        self.spent_ns += elapsed
        return elapsed

    def _fold(self, result):
        elapsed, sink = result
        self.sink ^= sink
        return elapsed


@dataclass
class SingleCalls:
    """Seed 001's method for one cell: each timed call's ns, and the cell's whole time."""

    elapsed_ns: list
    spent_ns: int
    timed_out: bool
    sink: int  # folded result sizes, so no call's work is dead


def time_each_call(calls, warmup_calls, count, limit_ns):
    """`warmup_calls` untimed calls of `calls`, then `count` calls each timed on its own.

    The warm-up goes through the same loop as the timed calls (its times are dropped).
    The cell stops once it has run past limit_ns, counted from its first warm-up call,
    with calls still to make: it is then timed out.
    """
    total = warmup_calls + count
    elapsed_ns, sink, timed_out = [], 0, False
    start = clock()
    for number, (elapsed, result) in enumerate(each_timed(islice(calls, total)), 1):
        sink += len(result)
        if number > warmup_calls:
            elapsed_ns.append(elapsed)
        if number < total and clock() - start > limit_ns:
            timed_out = True
            break
    return SingleCalls(elapsed_ns, clock() - start, timed_out, sink)
