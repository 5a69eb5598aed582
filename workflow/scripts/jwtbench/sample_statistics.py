"""Statistics of one cell's samples: median, MAD, seeded bootstrap CIs, ratios.

Pure functions on arrays of per-sample ns/op, so the tests can check them against known
answers.
"""

import hashlib

import numpy as np

from jwtbench import stopping_rule


def generator(seed, *labels):
    """A random generator that depends only on the seed and the labels (not on order)."""
    digest = hashlib.sha256("\x1f".join(map(str, labels)).encode()).digest()
    return np.random.default_rng([seed, int.from_bytes(digest[:8], "big")])


def mad(values):
    values = np.asarray(values, dtype=float)
    return float(np.median(np.abs(values - np.median(values))))


def cv(values):
    values = np.asarray(values, dtype=float)
    if len(values) < 2 or values.mean() == 0:
        return 0.0
    return float(values.std(ddof=1) / values.mean())


def bootstrap_medians(values, resamples, rng):
    values = np.asarray(values, dtype=float)
    picks = rng.integers(0, len(values), size=(resamples, len(values)))
    return np.median(values[picks], axis=1)


def percentile_interval(estimates, confidence):
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(estimates, [tail, 100 - tail])
    return float(low), float(high)


def median_ci(values, confidence, resamples, rng):
    """Percentile-bootstrap confidence interval of the median."""
    return percentile_interval(bootstrap_medians(values, resamples, rng), confidence)


def ratio_ci(numerator, denominator, confidence, resamples, rng):
    """Ratio of medians and its bootstrap CI, each cell resampled independently."""
    ratio = float(np.median(numerator) / np.median(denominator))
    estimates = bootstrap_medians(numerator, resamples, rng) / bootstrap_medians(denominator, resamples, rng)
    return (ratio, *percentile_interval(estimates, confidence))


def describe(values, confidence):
    """Summary statistics of per-sample ns/op values (at least one). The median's CI is the
    distribution-free one the drivers stop on (stopping_rule.median_ci, the stopping rule);
    None with fewer samples than give one (n < 6 at 95%)."""
    values = np.asarray(values, dtype=float)
    median = float(np.median(values))
    _, low, high = stopping_rule.median_ci(values.tolist(), confidence)
    summary = {
        "median_ns": median,
        "mad_ns": mad(values),
        "ci_low_ns": None,
        "ci_high_ns": None,
        "ci_halfwidth_pct": None,
        "cv": cv(values),
        "ops_per_s": 1e9 / median,
    }
    if np.isfinite(low):
        summary.update(ci_low_ns=low, ci_high_ns=high, ci_halfwidth_pct=(high - low) / 2 / median * 100)
    return summary


def paired_ci(series, function, confidence):
    """(median, CI low, CI high) of function(*values of one round) over the rounds every one
    of `series` ({round: ns/op}, cells sampled in the same rounds of one process) has, so
    that the machine's drift between rounds divides out (as in the stopping rule's pairs);
    the rounds' number as a fourth element. The CI is None with too few rounds, all None
    with none."""
    rounds = sorted(set.intersection(*(set(cell) for cell in series)))
    if not rounds:
        return None, None, None, 0
    middle, low, high = stopping_rule.median_ci([function(*(cell[r] for cell in series)) for r in rounds], confidence)
    return (middle, low, high, len(rounds)) if np.isfinite(low) else (middle, None, None, len(rounds))


def paired_ratio_ci(numerator, denominator, confidence):
    """paired_ci of numerator / denominator: (median of the per-round ratios, CI low, CI high)."""
    return paired_ci([numerator, denominator], lambda top, bottom: top / bottom, confidence)[:3]


# Between workers (the conductor's processes of one job, taking the rounds in turn): a figure
# measured per round has one median per worker, and the largest over the smallest is how far
# apart two processes put it: what one process's CI does not cover (code layout, a JIT's
# choices, the collector). A worker needs this many of the figure's rounds to count.
WORKER_LEAST_ROUNDS = 3


def worker_spread(values, workers):
    """The largest over the smallest of the workers' medians of `values` ({round: figure}),
    `workers` ({round: its worker}); None unless two workers have WORKER_LEAST_ROUNDS each."""
    by_worker = {}
    for number, value in values.items():
        by_worker.setdefault(workers.get(number, 1), []).append(value)
    medians = [float(np.median(v)) for v in by_worker.values() if len(v) >= WORKER_LEAST_ROUNDS]
    if len(medians) < 2 or min(medians) <= 0:
        return None
    return max(medians) / min(medians)


def paired_worker_spread(series, function, workers):
    """worker_spread of function(*values of one round) over the rounds every one of
    `series` has (as paired_ci takes them)."""
    rounds = set.intersection(*(set(cell) for cell in series))
    return worker_spread({r: function(*(cell[r] for cell in series)) for r in rounds}, workers)


def combined_spread(spreads):
    """The spread of a figure from several independent ones (a ratio of two processes'
    medians): their logs added in quadrature."""
    return float(np.exp(np.sqrt(sum(np.log(s) ** 2 for s in spreads))))


# The bimodality rule: a cell's samples fall in two groups when, split at the widest gap
# between neighbours (on a log scale), the smaller group still holds BIMODAL_SHARE of them,
# the groups' medians lie BIMODAL_APART or more apart, and the empty gap between the groups
# spans at least BIMODAL_GAP of that distance. The median then picks one of two speeds
# (node's young generation, a batch that holds a collection or not), and another run may
# pick the other: a doubt about the figure, not a measurement error. A unimodal spread (CV
# 2%) leaves no such gap; a burst of noise in a few samples is under the share.
BIMODAL_MIN_SAMPLES = 10
BIMODAL_SHARE = 0.3
BIMODAL_APART = 1.10
BIMODAL_GAP = 0.4


def modes(values):
    """(low group's median, high group's median, the high group's share) when `values`
    are bimodal by the rule above, else None."""
    logs = np.sort(np.log(np.asarray(values, dtype=float)))
    n = len(logs)
    least = int(np.ceil(BIMODAL_SHARE * n))
    if n < BIMODAL_MIN_SAMPLES or n - least < least:
        return None
    gaps = np.diff(logs)[least - 1 : n - least]
    split = least + int(np.argmax(gaps))
    low, high = float(np.median(logs[:split])), float(np.median(logs[split:]))
    apart = high - low
    if apart < np.log(BIMODAL_APART) or logs[split] - logs[split - 1] < BIMODAL_GAP * apart:
        return None
    return float(np.exp(low)), float(np.exp(high)), (n - split) / n
