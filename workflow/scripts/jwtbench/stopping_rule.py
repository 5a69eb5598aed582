"""The precision-targeted stopping rule (workflow/scripts/README.md, "The stopping rule"): the
reference every driver's own implementation is held to (tests/test_contract.py), and what
aggregation replays to say why each cell stopped.

A cell's precision is the half-width of the distribution-free confidence interval of its
median (order statistics, ranks from the binomial distribution), in percent of the median.
After each round, a cell that still samples stops once it has `min_samples` samples, its own
half-width is at most `target_ci_pct`, and so is that of every round-paired ratio it takes
part in (the spec's `pairs`) whose other cell still samples.
"""

import math
from dataclasses import dataclass

PRECISION, SAMPLE_CAP, EXHAUSTED = "precision", "sample_cap", "exhausted"
MAX_SAMPLES = 1000  # 0.5 ** n stays a normal double up to n = 1022


def median_ci_ranks(n, confidence=0.95):
    """1-based ranks (l, u) of the order statistics bounding the median's CI, or None when
    n samples are too few for any interval at this confidence (n < 6 at 0.95).

    l is the largest rank with P(Binomial(n, 1/2) <= l - 1) <= (1 - confidence) / 2, and
    u = n + 1 - l. The sum runs upwards from P(B = 0) = 0.5 ** n, each next term the last
    one times (n - k), then divided by (k + 1): the same operations in the same order in
    every driver, so every language finds the same ranks.
    """
    tail = (1 - confidence) / 2
    term, cumulative, lower = 0.5**n, 0.0, 0
    for k in range(n):
        cumulative += term
        if cumulative > tail:
            break
        lower = k + 1
        term = term * (n - k) / (k + 1)
    return (lower, n + 1 - lower) if lower else None


def median(values):
    ordered = sorted(values)
    n, middle = len(ordered), len(ordered) // 2
    return ordered[middle] if n % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def median_ci(values, confidence=0.95):
    """(median, CI low, CI high); the CI is (-inf, inf) when there are too few values."""
    ordered = sorted(values)
    ranks = median_ci_ranks(len(ordered), confidence)
    if ranks is None:
        return median(ordered), -math.inf, math.inf
    return median(ordered), ordered[ranks[0] - 1], ordered[ranks[1] - 1]


def halfwidth_pct(values, confidence=0.95):
    """Half the CI's width in percent of the median; inf when there is no CI."""
    middle, low, high = median_ci(values, confidence)
    if math.isinf(low) or middle == 0:
        return math.inf
    return (high - low) / 2 / abs(middle) * 100


@dataclass(frozen=True)
class Target:
    """The spec's timing keys the rule reads."""

    samples: int
    min_samples: int = 20
    target_ci_pct: float = 1.0
    confidence: float = 0.95

    @classmethod
    def from_timing(cls, timing):
        return cls(
            int(timing["samples"]),
            int(timing.get("min_samples", cls.min_samples)),
            float(timing.get("target_ci_pct", cls.target_ci_pct)),
            float(timing.get("confidence", cls.confidence)),
        )

    def precise(self, values):
        """At least min_samples values whose median's CI half-width is within the target
        (never, with target_ci_pct 0: every cell then takes `samples`)."""
        return (
            self.target_ci_pct > 0
            and len(values) >= self.min_samples
            and halfwidth_pct(values, self.confidence) <= self.target_ci_pct
        )


class Rounds:
    """The rule's state over one process's cells: feed each round's samples, then ask
    which cells go on. `pairs` are (i, j) cell indexes whose ratio i / j a verdict rests on."""

    def __init__(self, cell_count, pairs, target):
        self.target = target
        self.values = [{} for _ in range(cell_count)]  # cell -> {round: ns/op}
        self.pairs = [tuple(pair) for pair in pairs]
        self.stopped = [None] * cell_count  # None while sampling, else the reason

    def sampling(self, cell):
        return self.stopped[cell] is None

    def add(self, cell, round_number, ns_per_op):
        self.values[cell][round_number] = ns_per_op

    def paired(self, i, j):
        """Per-round ratios of cell i over cell j, over the rounds both were sampled in."""
        a, b = self.values[i], self.values[j]
        return [a[r] / b[r] for r in sorted(a.keys() & b.keys())]

    def stop(self, cell, reason):
        if self.stopped[cell] is None:
            self.stopped[cell] = reason

    def end_round(self):
        """After a round: stop each sampling cell that reached the cap or the target (its
        own CI and every pair with a still-sampling partner). Decided on the state at the
        round's end, so the order of cells does not matter."""
        done = []
        for cell, values in enumerate(self.values):
            if not self.sampling(cell):
                continue
            if len(values) >= self.target.samples:
                done.append((cell, SAMPLE_CAP))
            elif self.target.precise(list(values.values())) and all(
                self.target.precise(self.paired(i, j))
                for i, j in self.pairs
                if cell in (i, j) and self.sampling(j if cell == i else i)
            ):
                done.append((cell, PRECISION))
        for cell, reason in done:
            self.stop(cell, reason)


def replay(series, pairs, target):
    """The rule on given per-sample values: series[c] is cell c's ns/op, sample by sample.
    Round r gives every sampling cell its r-th value; a cell whose values run out stops
    ('exhausted': in a driver, its time cap). Returns [(samples taken, reason)]."""
    rounds = Rounds(len(series), pairs, target)
    for round_number in range(1, target.samples + 1):
        active = [cell for cell in range(len(series)) if rounds.sampling(cell)]
        if not active:
            break
        for cell in active:
            if len(rounds.values[cell]) >= len(series[cell]):
                rounds.stop(cell, EXHAUSTED)
            else:
                rounds.add(cell, round_number, series[cell][len(rounds.values[cell])])
        rounds.end_round()
    return [(len(values), rounds.stopped[cell] or EXHAUSTED) for cell, values in enumerate(rounds.values)]
