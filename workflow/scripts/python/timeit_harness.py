"""The native harness of `crosscheck` (crosscheck.py): the standard library's timeit, on the
very call a cell's batch makes.

It shares no timing code with the driver (timing.py): timeit's own loop (the function its
Timer compiles around the statement), its clock (time.perf_counter, the Timer's default),
its loop counts (autorange's 1, 2, 5, 10, 20, 50, ...) and Timer.repeat; a block's figure
is the median of its repeats' per-call times. timeit turns the garbage collector off while
it times; the setup "gc.enable()", timeit's documented idiom, turns it back on, as the
driver leaves it (an application's calls run with it on).
"""

import gc
import itertools
import platform
import statistics
import timeit

LEAST_REPEATS = 3  # a block's repeats, however short block_seconds is


def loop_counts():
    """autorange's loop counts, in its order: 1, 2, 5, 10, 20, 50, ..."""
    for power in itertools.count():
        for step in (1, 2, 5):
            yield step * 10**power


class TimeitHarness:
    """One cell's timeit.Timer, and its blocks' loop count and repeats (set by warm_up)."""

    name = "timeit"
    version = platform.python_version()  # timeit ships with the interpreter

    def __init__(self, statement, names):
        """A Timer on `statement`, which reads `names` (the Timer's globals)."""
        self.timer = timeit.Timer(statement, setup="gc.enable()", globals={"gc": gc, **names})
        self.number = 1
        self.repeats = LEAST_REPEATS

    @classmethod
    def of_calls(cls, calls):
        """The harness on zero-argument calls taken in turn, in the order the cell's batch
        takes them (a claims cell has one)."""
        if len(calls) == 1:
            return cls("call()", {"call": calls[0]})
        return cls("next(calls)()", {"calls": itertools.cycle(calls)})

    def warm_up(self, warmup_seconds, block_seconds):
        """timeit's own calibration, Timer.autorange (its loop counts until a run lasts
        0.2 s), then runs of autorange's count until the warm-up's runs have lasted
        warmup_seconds. Then the blocks' size, from the last run's time per call: the
        largest of autorange's counts (up to its own choice) whose run lasts at most a
        third of block_seconds (at least 1), repeated to fill block_seconds (at least 3
        times). autorange's own count, with its 0.2 s or more per run, would make a block
        of at least three repeats several times block_seconds."""
        runs = []
        number, seconds = self.timer.autorange(lambda _, taken: runs.append(taken))
        while sum(runs) < warmup_seconds:
            seconds = self.timer.timeit(number)
            runs.append(seconds)
        per_call = seconds / number
        counts = itertools.takewhile(lambda count: count <= number, loop_counts())
        self.number = max((n for n in counts if n * per_call <= block_seconds / LEAST_REPEATS), default=1)
        self.repeats = max(LEAST_REPEATS, round(block_seconds / (self.number * per_call)))

    def block(self):
        """One block, Timer.repeat(repeats, number): (the median repeat's ns per call,
        the repeats)."""
        totals = self.timer.repeat(repeat=self.repeats, number=self.number)
        return statistics.median(totals) / self.number * 1e9, len(totals)
