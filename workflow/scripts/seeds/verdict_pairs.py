"""The ratios a verdict rests on among the cells of one spec (one driver process): timing
rule 5a's `pairs`, which keep both cells of each ratio sampling, round by round, until the
ratio itself is precise.

They are read off the seed analyses rather than listed again here: each seed's
claim_parts runs on a recorder that stands in for its cells and notes which two cells it
divides; seed 000's per-record ratios (HS512 against RS512) come from its RATIOS. Added to
those, seed 002's SHA-512 / SHA-256 per length. Ratios that no verdict rests on (verify /
sign of every variant, every variant / HS512 in seed 001's ranking) are reported from the
same rounds, but do not hold their cells back (replayed on the samples of a noisy hour,
2026-11-27, they had kept suite jwt's cells sampling about 3% longer; in a quiet one, not
at all). Ratios across processes (a language against another, against openssl) cannot be
paired by round; issue 22 deals with them.
"""

import numpy as np

from jwtbench import variants
from jwtbench.seeds import seed000, seed001, seed002

LANGUAGE = "spec"  # every cell of a spec is one language's: any label will do


class Recorder:
    """Stands in for verdict_rules.RoundPairedCells: every cell present has the same median,
    and each ratio a claim asks for is recorded as a (top, bottom) pair of cell keys (a
    figure of more than two cells, e.g. seed 002's UUID cost, is not a pair)."""

    def __init__(self, keys):
        self.keys = set(keys)
        self.pairs = []

    def __contains__(self, key):
        return key in self.keys

    def median(self, key):
        return 1.0

    def medians(self, key):
        return np.ones(1)

    def interval(self, estimates):
        return 1.0, 1.0

    def ratio(self, top, bottom):
        if top in self and bottom in self:
            self.pairs.append((top, bottom))
        return 1.0, 1.0, 1.0

    def compare(self, pairs, judge):
        for top, bottom, _ in pairs:
            self.ratio(top, bottom)
        return []

    def derived(self, keys, function):
        if len(keys) == 2:
            self.ratio(*keys)
        return 1.0, 1.0, 1.0, ""


def jwt_key(cell):
    return (LANGUAGE, seed001.METHODS["jwt"], cell["operation"], variants.name_of(cell["algorithm"], cell["key_bits"]))


def jwt_pairs(cells):
    keys = [jwt_key(cell) for cell in cells]
    recorder = Recorder(keys)
    method = seed001.METHODS["jwt"]
    seed001.claim_parts(recorder, LANGUAGE, method)
    for _, (top, top_measure), (bottom, bottom_measure), _ in seed000.RATIOS:
        recorder.ratio((LANGUAGE, method, top_measure, top), (LANGUAGE, method, bottom_measure, bottom))
    return keys, recorder.pairs


def hash_key(cell):
    return (LANGUAGE, cell.get("implementation"), cell["input"], cell["algorithm"])


def hash_pairs(cells):
    keys = [hash_key(cell) for cell in cells]
    recorder = Recorder(keys)
    for implementation in dict.fromkeys(key[1] for key in keys):
        seed002.claim_parts(recorder, LANGUAGE, implementation)
    for language, implementation, message, algorithm in keys:
        if algorithm == "SHA-512":
            recorder.ratio(
                (language, implementation, message, algorithm), (language, implementation, message, "SHA-256")
            )
    return keys, recorder.pairs


PAIRED_SUITES = {"jwt": jwt_pairs, "hash": hash_pairs}


def pairs(suite, cells):
    """[[i, j], ...]: cell indexes of `cells` (a spec's) whose ratio i / j a verdict rests
    on, each unordered pair once, in the order first asked for."""
    if suite not in PAIRED_SUITES:
        return []
    keys, asked = PAIRED_SUITES[suite](cells)
    index = {key: position for position, key in enumerate(keys)}
    found, seen = [], set()
    for top, bottom in asked:
        i, j = index[top], index[bottom]
        if i != j and frozenset((i, j)) not in seen:
            seen.add(frozenset((i, j)))
            found.append([i, j])
    return found
