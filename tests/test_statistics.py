"""Statistics on synthetic samples with known answers."""

import numpy as np
import pytest
from conftest import SCRIPTS  # noqa: F401  (puts workflow/scripts on sys.path)

from jwtbench import sample_statistics as stats


def test_median_mad_cv_known_values():
    values = [1.0, 2.0, 3.0, 4.0, 100.0]
    summary = stats.describe(values, 0.95)
    assert summary["median_ns"] == 3.0
    assert summary["mad_ns"] == 1.0  # |deviations| = 2,1,0,1,97 -> median 1
    assert summary["ops_per_s"] == pytest.approx(1e9 / 3)
    assert summary["cv"] == pytest.approx(np.std(values, ddof=1) / np.mean(values))


def test_constant_samples_have_zero_width_ci():
    summary = stats.describe([250.0] * 10, 0.95)
    assert summary["ci_low_ns"] == summary["ci_high_ns"] == 250.0
    assert summary["ci_halfwidth_pct"] == 0.0 and summary["mad_ns"] == 0.0


def test_bootstrap_is_seeded_and_order_free():
    values = list(np.random.default_rng(7).normal(1000, 50, 40))
    first = stats.median_ci(values, 0.95, 2000, stats.generator(42, "a", "b"))
    again = stats.median_ci(values, 0.95, 2000, stats.generator(42, "a", "b"))
    other = stats.median_ci(values, 0.95, 2000, stats.generator(43, "a", "b"))
    assert first == again and first != other


def test_median_ci_covers_true_median_at_about_the_nominal_rate():
    # Normal(1000, 50) has median 1000: a 95% interval should cover it most of the time.
    rng = np.random.default_rng(2026)
    covered = 0
    trials = 200
    for trial in range(trials):
        values = rng.normal(1000, 50, 30)
        low, high = stats.median_ci(values, 0.95, 1000, stats.generator(1, trial))
        covered += low <= 1000 <= high
    assert 0.88 <= covered / trials <= 0.995


def test_ci_narrows_with_more_samples():
    rng = np.random.default_rng(3)
    widths = []
    for n in (10, 100, 1000):
        low, high = stats.median_ci(rng.normal(1000, 50, n), 0.95, 2000, stats.generator(1, n))
        widths.append(high - low)
    assert widths[0] > widths[1] > widths[2]


def test_ratio_of_medians_and_ci():
    numerator = [200.0, 202.0, 198.0, 201.0, 199.0]
    denominator = [100.0, 101.0, 99.0, 100.5, 99.5]
    ratio, low, high = stats.ratio_ci(numerator, denominator, 0.95, 2000, stats.generator(1, "r"))
    assert ratio == pytest.approx(2.0)
    assert low <= 2.0 <= high and high - low < 0.1


def test_ratio_ci_of_identical_constant_cells_is_one():
    ratio, low, high = stats.ratio_ci([5.0] * 8, [5.0] * 8, 0.95, 500, stats.generator(1, "o"))
    assert ratio == low == high == 1.0


def test_a_ratio_paired_by_round_survives_a_machine_that_slows_by_30_percent_halfway():
    """Cells A (100 ns) and B (200 ns, true ratio 2) sampled in rounds by one process; from
    round 21 on the machine is 30% slower for both. A stopped at round 20 (precise enough),
    B went on to round 40. The ratio paired by round stays at 2 with a CI around it; the
    ratio of the two cells' own medians (unpaired) does not, nor does its CI hold 2."""
    rng = np.random.default_rng(7)
    speed = {k: 1.0 if k <= 20 else 1.3 for k in range(1, 41)}
    a = {k: 100 * speed[k] * rng.normal(1, 0.003) for k in range(1, 21)}
    b = {k: 200 * speed[k] * rng.normal(1, 0.003) for k in range(1, 41)}
    paired, low, high = stats.paired_ratio_ci(b, a, 0.95)
    assert paired == pytest.approx(2, rel=0.005) and low <= 2 <= high and high - low < 0.02
    unpaired, u_low, u_high = stats.ratio_ci(list(b.values()), list(a.values()), 0.95, 2000, stats.generator(1, "t"))
    assert unpaired > 2.2 and not u_low <= 2 <= u_high
