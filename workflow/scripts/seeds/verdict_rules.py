"""How a published claim is judged against a ratio's confidence interval.

Shared by the seed reproductions (seed000.py ... seed004.py). A claim is a set of
comparisons, each a ratio with its CI, and a criterion. The ratio of two cells sampled in
the same rounds of one process is paired by round (the median of the per-round ratios,
its distribution-free CI), so the machine's drift divides out; any other ratio is a ratio
of medians with a bootstrap CI, widened by the drift between processes the run measured
(RoundPairedCells). The criteria:

  above(1)        "A is slower / costs more than B": the CI lies above 1
  within(lo, hi)  "about N times", "similar": the CI lies inside [lo, hi]
  orders(n, m)    "n-m orders of magnitude": the CI inside [10^(n-0.5), 10^(m+0.5)]

A comparison holds when its CI meets the criterion, does not hold when the CI lies wholly
on the wrong side, and is inconclusive when it straddles a bound. A claim made of several
comparisons ("for every RSA key size ...") holds when all of them hold, does not hold when
one of them does not, and is otherwise inconclusive.
"""

import collections
import statistics

import numpy as np

from jwtbench import cell_samples
from jwtbench import sample_statistics as stats

HOLDS, FAILS, OPEN = "holds", "does not hold", "inconclusive"

# "about N times": the CI within N / ABOUT .. N * ABOUT.
ABOUT = 1.25
# "similar", "nearly identical": within +-10%, as seed 000's decode claim is judged.
SIMILAR = 0.10


class Open(str):
    """ "inconclusive", with the criterion's bounds the CI straddles: how near the threshold
    the claim is (the reason names them)."""

    def __new__(cls, *bounds):
        made = super().__new__(cls, OPEN)
        made.bounds = bounds
        return made

    def __str__(self):
        return OPEN

    def near(self, ratio=None):
        """Which bounds the CI straddles and, given the ratio, how far it lies from each."""
        straddled = " and ".join(f"{bound:.3g}" for bound in self.bounds)
        if ratio is None:
            return f"the CI straddles {straddled}"
        distances = ", ".join(f"{100 * (ratio / bound - 1):+.1f}%" for bound in self.bounds)
        return f"the CI straddles {straddled}; the ratio lies {distances} from it"


def above(low, high, bound=1.0):
    if low > bound:
        return HOLDS
    if high < bound:
        return FAILS
    return Open(bound)


def within(low, high, lo, hi):
    if lo <= low and high <= hi:
        return HOLDS
    if high < lo or low > hi:
        return FAILS
    return Open(*[bound for bound in (lo, hi) if low < bound < high or bound in (low, high)] or [lo, hi])


def about(low, high, factor):
    return within(low, high, factor / ABOUT, factor * ABOUT)


def orders(low, high, fewest, most):
    """ "fewest-most orders of magnitude": the CI within the ratios whose log10 rounds to
    fewest..most, i.e. [10^(fewest - 0.5), 10^(most + 0.5)]."""
    return within(low, high, 10 ** (fewest - 0.5), 10 ** (most + 0.5))


def similar(low, high):
    return within(low, high, 1 / (1 + SIMILAR), 1 + SIMILAR)


def combine(verdicts):
    verdicts = list(verdicts)
    if verdicts and all(v == HOLDS for v in verdicts):
        return HOLDS
    if FAILS in verdicts:
        return FAILS
    return OPEN


def judge_claim(parts):
    """A claim's verdict columns from its comparisons; "not measured" when it has none."""
    if not parts:
        return {"verdict": "not measured", "reason": "a cell it needs was not measured (unsupported or failed)"}
    verdict = combine(part[0] for part in parts)
    return {"verdict": verdict, **deciding(parts, verdict), "comparisons": len(parts), "pairing": pairing(parts)}


def pairing(parts):
    """How a claim's ratios were taken (RoundPairedCells.compare's sixth element): all paired
    by round, all from medians (their CIs widened by the drift), or how many of each."""
    methods = collections.Counter(part[5] for part in parts if len(part) > 5)
    if len(methods) < 2:
        return next(iter(methods), "")
    return "; ".join(f"{count} {method}" for method, count in methods.items())


def deciding(parts, verdict):
    """The figure a verdict rests on: the range of the ratios, the widest CI, and a reason
    naming the comparisons that broke or left the claim open."""
    low, high = min(p[2] for p in parts), max(p[3] for p in parts)
    ratios = [p[1] for p in parts]
    figure = {"ratio_min": min(ratios), "ratio_max": max(ratios), "ci_low": low, "ci_high": high}
    if verdict == HOLDS:
        reason = f"all {len(parts)} comparisons hold"
    else:
        wanted = FAILS if verdict == FAILS else OPEN
        named = [
            f"{p[4]} = {p[1]:.3g} [{p[2]:.3g}, {p[3]:.3g}]"
            + (f" ({p[0].near(p[1])})" if isinstance(p[0], Open) else "")
            for p in parts
            if p[0] == wanted
        ]
        plural = {FAILS: "do not hold", OPEN: "are inconclusive"}[wanted]
        reason = f"{len(named)} of {len(parts)} comparisons {plural}: " + "; ".join(named[:4])
        reason += " ..." if len(named) > 4 else ""
    return {**figure, "reason": reason}


class BootstrapCells:
    """Each cell's bootstrap medians drawn once (seeded by the cell's labels), so any number
    of ratios between cells costs a division each."""

    def __init__(self, samples, settings, label):
        self.samples = samples
        self.settings = settings
        self.label = label
        self.drawn = {}

    def __contains__(self, key):
        return bool(self.samples.get(key))

    def median(self, key):
        return float(np.median(self.samples[key]))

    def medians(self, key):
        if key not in self.drawn:
            rng = stats.generator(self.settings["seed"], self.label, *key)
            self.drawn[key] = stats.bootstrap_medians(self.samples[key], self.settings["bootstrap_resamples"], rng)
        return self.drawn[key]

    def interval(self, estimates):
        return stats.percentile_interval(estimates, self.settings["confidence"])

    def compare(self, pairs, judge):
        """[(verdict, ratio, CI low, CI high, label)] of the (top, bottom, label) pairs whose
        cells were both measured, each ratio judged by judge(low, high)."""
        found = []
        for top, bottom, label in pairs:
            if top in self and bottom in self:
                ratio, low, high = self.ratio(top, bottom)
                found.append((judge(low, high), ratio, low, high, label))
        return found

    def ratio(self, top, bottom):
        """(ratio of medians, CI low, CI high) of cell `top` over cell `bottom`."""
        return (self.median(top) / self.median(bottom), *self.interval(self.medians(top) / self.medians(bottom)))


PAIRED = "paired by round"


class RoundPairedCells(BootstrapCells):
    """Figures derived from several cells (a ratio, a difference over a third cell, a mean
    of ratios), each with its CI and how it was taken: per round where every cell was
    sampled in the same rounds of one job (the stopping rule's pairs), so the machine's
    drift divides out; otherwise from the cells' medians with a bootstrap CI widened by
    `process_drift`, the factor by which the machine's speed differed between processes
    (1: not measured, not widened). Either CI is then widened each way by the spread
    between the job's worker processes, measured in this run: a ratio paired by round by
    the largest over the smallest of its workers' medians of it, one from medians by its
    cells' spreads in quadrature (sample_statistics.worker_spread). A figure whose workers
    could not be compared (a job of one process) takes its language's median spread, or
    the run's. `methods` counts the figures taken each way, by the name each way has in the
    verdict tables' `pairing` column."""

    # The fewest shared rounds a per-round CI needs (its order-statistic CI needs six values).
    FEWEST_ROUNDS = 6

    def __init__(self, samples, settings, label, series, process_drift=1.0):
        super().__init__(samples, settings, label)
        self.series, self.process_drift = series, process_drift
        self.rounds, self.process = series.rounds, series.process
        self.cell_spread = cell_samples.cell_spreads(series)
        self.language_spread = cell_samples.language_spreads(self.cell_spread, series.language)
        measured = list(self.language_spread.values())
        self.run_spread = statistics.median(measured) if measured else 1.0
        self.unpaired = (
            f"medians, CI widened x{process_drift:.3f} for drift" if process_drift > 1 else "medians, no drift measured"
        )
        self.methods = collections.Counter()

    def spread_of(self, key):
        """A cell's measured worker spread, else its language's, else the run's."""
        if key in self.cell_spread:
            return self.cell_spread[key]
        return self.language_spread.get(self.series.language.get(key), self.run_spread)

    def one_process(self, keys):
        """Whether every one of `keys` was sampled in rounds, all by one job."""
        return all(key in self.rounds for key in keys) and len({self.process[key] for key in keys}) == 1

    def derived(self, keys, function):
        """(value, CI low, CI high, method) of function(*figures of `keys`)."""
        if self.one_process(keys):
            series = [self.rounds[key] for key in keys]
            middle, low, high, rounds = stats.paired_ci(series, function, self.settings["confidence"])
            if rounds >= self.FEWEST_ROUNDS and low is not None:
                self.methods[PAIRED] += 1
                spread = stats.paired_worker_spread(series, function, self.series.workers[keys[0]])
                spread = spread or max(self.spread_of(key) for key in keys)
                return middle, low / spread, high * spread, PAIRED
        self.methods[self.unpaired] += 1
        value = function(*(self.median(key) for key in keys))
        low, high = self.interval(function(*(self.medians(key) for key in keys)))
        spread = stats.combined_spread([self.spread_of(key) for key in keys])
        widen = self.process_drift * spread
        return value, low / widen, high * widen, self.unpaired

    def ratio(self, top, bottom):
        return self.derived((top, bottom), lambda a, b: a / b)[:3]

    def compare(self, pairs, judge):
        """As BootstrapCells.compare, each comparison with how its ratio was taken."""
        found = []
        for top, bottom, label in pairs:
            if top in self and bottom in self:
                ratio, low, high, method = self.derived((top, bottom), lambda a, b: a / b)
                found.append((judge(low, high), ratio, low, high, label, method))
        return found


def round_paired_cells(paths, key_of, samples, settings, label, cells_class=RoundPairedCells):
    """A cells_class over `samples` (keyed by key_of over the raw files `paths`), with the
    rounds of those files, their workers, and the drift between their processes
    (aggregate_samples)."""
    series = cell_samples.rounds_by(paths, key_of)
    drift = cell_samples.process_drift(cell_samples.drift(paths))
    return cells_class(samples, settings, label, series, drift)
