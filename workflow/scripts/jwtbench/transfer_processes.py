"""Suite transfer measured in several processes of one run, and the CI that spans them.

A transfer cell (one dataset and algorithm) runs a server and a client in one driver
process, all its trials one after another, HS512's cell before RS512's: nothing pairs
the two algorithms' trials, and how fast a process runs its trials (where its code, its
collector and its sockets land) stays with it. On 2026-11-28 go's HS512/RS512 MB/s on
amazon-prime-users read 1.21 [1.08, 1.45] in one run and 0.906 [0.836, 0.976] in the run
right after: each CI, from one process's trials, showed only that process.

So each (driver, dataset) runs suite transfer in `processes` separate jobs of the run
(config suites.transfer.processes), each its own benchmark process with ceil(trials /
processes) trials per algorithm, and the claim's CI covers both what varies within a
process and what varies between them (process_interval; seed000.ratios).

A job's input names its process: "<dataset>.p<N>" (N from 1) when there are several,
the dataset's own name when there is one; its raw file is results/raw/<driver>/transfer/
<input>.csv, and the cells inside it name the dataset (so summary.csv pools a dataset's
trials over its processes, as it did when they came from one).
"""

import math
import re

import numpy as np

SEPARATOR = ".p"
_NAMED = re.compile(r"^(?P<dataset>.+)\.p(?P<process>[1-9][0-9]*)$")


def count(settings):
    """How many processes suite transfer's `settings` ask for (1 when unset)."""
    return int(settings.get("processes", 1))


def inputs(datasets, processes):
    """The transfer job inputs of `datasets`: each dataset once per process."""
    if processes <= 1:
        return list(datasets)
    return [f"{dataset}{SEPARATOR}{number}" for dataset in datasets for number in range(1, processes + 1)]


def split(name):
    """(dataset, process number) of a transfer job input (or a raw file's stem); a plain
    dataset name is process 1."""
    found = _NAMED.match(name)
    if found is None:
        return name, 1
    return found["dataset"], int(found["process"])


def dataset_of(name):
    return split(name)[0]


def per_process(settings):
    """Suite transfer's settings for one of its processes: `trials` split between them
    (ceil(trials / processes) each, so the run times at least `trials` per algorithm)."""
    processes = count(settings)
    if processes <= 1:
        return settings
    return {**settings, "trials": math.ceil(settings["trials"] / processes)}


def t_quantile(probability, df):
    """Student's t quantile (numpy only: the CDF integrated by Simpson's rule, then
    bisection); df >= 1, 0.5 <= probability < 1."""
    log_norm = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)

    def cdf(x):
        grid = np.linspace(0.0, x, 2001)
        density = np.exp(log_norm - (df + 1) / 2 * np.log1p(grid**2 / df))
        step = x / 2000
        return 0.5 + step / 3 * (density[0] + density[-1] + 4 * density[1:-1:2].sum() + 2 * density[2:-1:2].sum())

    low, high = 0.0, 1.0
    while cdf(high) < probability:
        low, high = high, high * 2
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (middle, high) if cdf(middle) < probability else (low, middle)
    return (low + high) / 2


def process_interval(ratios, confidence):
    """(geometric mean, low, high) of per-process ratios: a t interval of their logs' mean
    (ratios multiply), as wide as k processes' spread leaves the ratio a process would
    show; None with fewer than two. With k = 2 or 3 it is wide (t 12.7, 4.3 at 95%): two
    processes that disagree leave the claim open, which is the point."""
    logs = np.log(np.asarray(ratios, dtype=float))
    if len(logs) < 2:
        return None
    mean, spread = float(logs.mean()), float(logs.std(ddof=1))
    half = t_quantile((1 + confidence) / 2, len(logs) - 1) * spread / math.sqrt(len(logs))
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half)


def process_ratios(samples, top, bottom):
    """{process: median(top's samples) / median(bottom's)} over the processes that measured
    both; `samples` is {(cell key, process): values}."""
    found = {}
    for (key, process), values in sorted(samples.items(), key=lambda item: item[0][1]):
        if key != top or not values:
            continue
        other = samples.get((bottom, process))
        if other:
            found[process] = float(np.median(values)) / float(np.median(other))
    return found


def widen(pooled, ratios, confidence):
    """(ratio, low, high, how, processes text) of a transfer ratio: the pooled trials' ratio
    and CI (pooled: (ratio, low, high), within processes) widened to cover the per-process
    ratios' interval (process_interval): the hull of the two. One process measured: the CI
    as it was, `how` saying the spread between processes was not measured."""
    ratio, low, high = pooled
    listed = "; ".join(f"p{number} {value:.3g}" for number, value in ratios.items())
    between = process_interval(list(ratios.values()), confidence)
    if between is None:
        return ratio, low, high, NOT_MEASURED, listed
    _, between_low, between_high = between
    how = f"medians of {len(ratios)} processes, CI covering their spread"
    return ratio, min(low, between_low), max(high, between_high), how, listed


NOT_MEASURED = "one process: spread between processes not measured"
