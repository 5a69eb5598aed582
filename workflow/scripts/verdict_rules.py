"""How a published claim is judged against a ratio's confidence interval.

Shared by the seed reproductions (seed000.py ... seed004.py). A claim is a set of
comparisons, each a ratio of medians with its bootstrap CI, and a criterion:

  above(1)        "A is slower / costs more than B": the CI lies above 1
  within(lo, hi)  "about N times", "similar": the CI lies inside [lo, hi]
  orders(n, m)    "n-m orders of magnitude": the CI inside [10^(n-0.5), 10^(m+0.5)]

A comparison holds when its CI meets the criterion, does not hold when the CI lies wholly
on the wrong side, and is inconclusive when it straddles a bound. A claim made of several
comparisons ("for every RSA key size ...") holds when all of them hold, does not hold when
one of them does not, and is otherwise inconclusive.
"""

import numpy as np

import sample_statistics as stats

HOLDS, FAILS, OPEN = "holds", "does not hold", "inconclusive"

# "about N times": the CI within N / ABOUT .. N * ABOUT.
ABOUT = 1.25
# "similar", "nearly identical": within +-10%, as seed 000's decode claim is judged.
SIMILAR = 0.10


def above(low, high, bound=1.0):
    if low > bound:
        return HOLDS
    if high < bound:
        return FAILS
    return OPEN


def within(low, high, lo, hi):
    if lo <= low and high <= hi:
        return HOLDS
    if high < lo or low > hi:
        return FAILS
    return OPEN


def about(low, high, factor):
    return within(low, high, factor / ABOUT, factor * ABOUT)


def orders(low, high, fewest, most):
    """"fewest-most orders of magnitude": the CI within the ratios whose log10 rounds to
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
    return {"verdict": verdict, **deciding(parts, verdict), "comparisons": len(parts)}


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
        named = [f"{p[4]} = {p[1]:.3g} [{p[2]:.3g}, {p[3]:.3g}]" for p in parts if p[0] == wanted]
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
        return (self.median(top) / self.median(bottom),
                *self.interval(self.medians(top) / self.medians(bottom)))  # fmt: skip
