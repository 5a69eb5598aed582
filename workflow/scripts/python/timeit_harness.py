"""The native harness of a cross-check spec's `native` requests: timeit on the very call a
cell's batch makes, with its own loop, clock, calibration (autorange) and Timer.repeat. The
setup "gc.enable()", timeit's documented idiom, leaves the collector on, as the batches do.
"""

import gc
import itertools
import platform
import statistics
import timeit

HARNESS = {"name": "timeit", "version": platform.python_version()}  # timeit ships with the interpreter
LEAST_REPEATS = 3  # a request's repeats, however short its seconds


def loop_counts():
    """autorange's loop counts, in its order: 1, 2, 5, 10, 20, 50, ..."""
    for power in itertools.count():
        for step in (1, 2, 5):
            yield step * 10**power


class TimeitHarness:
    """One cell's timeit.Timer on `statement` (reading `names`), calibrated on its first request."""

    def __init__(self, statement, names):
        self.timer = timeit.Timer(statement, setup="gc.enable()", globals={"gc": gc, **names})
        self.most = self.per_call = None

    @classmethod
    def of_calls(cls, calls):
        """The harness on zero-argument calls taken in turn, as the cell's batch takes them."""
        if len(calls) == 1:
            return cls("call()", {"call": calls[0]})
        return cls("next(calls)()", {"calls": itertools.cycle(calls)})

    def measure(self, seconds):
        """About `seconds` of Timer.repeat: number the largest of autorange's counts whose run
        lasts at most a third of `seconds` (autorange's own, 0.2 s a run, would overrun a short
        request), repeats enough to fill them (at least 3)."""
        if self.most is None:
            self.most, taken = self.timer.autorange()
            self.per_call = taken / self.most
        counts = itertools.takewhile(lambda count: count <= self.most, loop_counts())
        number = max((n for n in counts if n * self.per_call <= seconds / LEAST_REPEATS), default=1)
        repeats = max(LEAST_REPEATS, round(seconds / (number * self.per_call)))
        totals = self.timer.repeat(repeat=repeats, number=number)
        self.per_call = max(statistics.median(totals) / number, 1e-12)
        return {"ns_per_op": self.per_call * 1e9, "samples": len(totals)}
