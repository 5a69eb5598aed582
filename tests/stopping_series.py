"""Synthetic cells with known noise for the stopping rule (workflow/scripts/README.md): series that
stop at precision, at the sample cap, by running out, and pairs that hold cells back.
Each driver's `stopping` command must give what stopping_rule.replay gives."""

import json
import math
import random

TIMING = {"samples": 100, "min_samples": 20, "target_ci_pct": 1.0, "confidence": 0.95}


def noisy(rng, centre, spread, count, drift=0.0):
    """`count` values around `centre`, each times exp(N(0, spread)), the machine slowing by
    `drift` (e.g. 0.3) linearly over the series."""
    return [centre * (1 + drift * k / count) * math.exp(rng.gauss(0, spread)) for k in range(count)]


def cases():
    """[(name, {timing, pairs, series})]: the fixtures every driver is checked on."""
    rng = random.Random(20261125)
    made = [
        ("constant", {"timing": TIMING, "pairs": [], "series": [[1000.0] * 100]}),
        (
            "quiet-and-noisy",
            {
                "timing": TIMING,
                "pairs": [],
                "series": [noisy(rng, 1e3, 0.005, 100), noisy(rng, 5e4, 0.04, 100), noisy(rng, 2e5, 0.2, 100)],
            },
        ),
        ("short-series", {"timing": TIMING, "pairs": [], "series": [noisy(rng, 1e3, 0.05, 30), [5.0] * 4]}),
        ("rule-off", {"timing": {**TIMING, "target_ci_pct": 0}, "pairs": [], "series": [[7.0] * 100]}),
    ]
    # A pair drifting together: each cell precise alone late, the pair's ratio early; and a
    # pair whose ratio is noisier than its cells, holding both back.
    shared = [math.exp(rng.gauss(0, 0.03)) for _ in range(100)]
    a = [2e3 * s * math.exp(rng.gauss(0, 0.002)) for s in shared]
    b = [9e3 * s * math.exp(rng.gauss(0, 0.002)) for s in shared]
    made.append(("paired-drift", {"timing": TIMING, "pairs": [[1, 0]], "series": [a, b]}))
    c, d = noisy(rng, 1e3, 0.004, 100), noisy(rng, 1e3, 0.004, 100)
    e = noisy(rng, 3e3, 0.02, 100)
    made.append(("pair-holds-back", {"timing": TIMING, "pairs": [[0, 2], [1, 0]], "series": [c, d, e]}))
    for seed in range(6):
        local = random.Random(seed)
        count = local.randint(2, 6)
        series = [
            noisy(
                local,
                10 ** local.uniform(2, 6),
                local.uniform(0.001, 0.05),
                local.randint(10, 120),
                drift=local.uniform(0, 0.3),
            )
            for _ in range(count)
        ]
        pairs = [[i, j] for i in range(count) for j in range(count) if i != j and local.random() < 0.3]
        made.append(
            (
                f"random-{seed}",
                {"timing": {**TIMING, "samples": local.choice([50, 100, 200])}, "pairs": pairs, "series": series},
            )
        )
    return made


if __name__ == "__main__":  # write the fixtures to a folder, one JSON file each
    import sys
    from pathlib import Path

    folder = Path(sys.argv[1])
    folder.mkdir(parents=True, exist_ok=True)
    for name, case in cases():
        (folder / f"{name}.json").write_text(json.dumps(case))
