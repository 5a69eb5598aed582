"""The benchmark budget (jwtbench/bench_budget.py, issue 42): a noisy hour costs precision,
not time. Each job's share of what is left, and the time cap that fits its cells in it."""

import json

import pytest

from jwtbench import bench_budget
from rules import bench_plan


def test_a_share_is_the_worst_case_while_the_rest_fits_at_its_expected_time(tmp_path):
    plan = tmp_path / "budget.json"
    bench_budget.write_plan(100, {"a": (20, 40), "b": (20, 40), "c": (20, 40)}, plan)
    assert bench_budget.share("a", plan) == (40, 100, 100)
    # a overran (a noisy hour): what is left no longer fits b and c at their expected times.
    bench_budget.record("a", 70, plan)
    share, left, budget = bench_budget.share("b", plan)
    assert (left, budget) == (30, 100) and share == pytest.approx(40 * 30 / 40)
    bench_budget.record("b", 30, plan)
    assert bench_budget.share("c", plan)[0] == 0  # nothing left: its cells keep only their floor (cell_cap)
    assert bench_budget.share("d", plan) is None  # a job the plan does not know


def test_a_quiet_job_leaves_its_time_to_the_jobs_after_it(tmp_path):
    plan = tmp_path / "budget.json"
    bench_budget.write_plan(50, {"a": (30, 50), "b": (30, 50)}, plan)
    assert bench_budget.share("a", plan)[0] == pytest.approx(50 * 50 / 60)
    bench_budget.record("a", 15, plan)
    assert bench_budget.share("b", plan)[0] == 50


def test_no_budget_writes_no_plan(tmp_path):
    plan = tmp_path / "budget.json"
    bench_budget.write_plan(60, {"a": (1, 2)}, plan)
    bench_budget.write_plan(0, {"a": (1, 2)}, plan)
    assert not plan.exists() and bench_budget.share("a", plan) is None
    bench_budget.record("a", 1, plan)  # nothing to record into, and no error


def test_the_cap_keeps_cheap_cells_whole_and_trims_the_dear_ones():
    cells = [(0.3, 0.5), (0.3, 1.0), (0.3, 1.5)]
    assert bench_budget.cell_cap(cells, 3.0) is None
    cap = bench_budget.cell_cap(cells, 2.0)
    assert sum(min(most, cap) for _, most in cells) == pytest.approx(2.0) and cap == pytest.approx(0.75)
    assert bench_budget.cell_cap(cells, 2.5, fixed_seconds=0.5) == pytest.approx(0.75)
    # Never below what each cell needs for its min_samples.
    assert bench_budget.cell_cap(cells, 0.1) == 0.3


def test_the_plan_splits_a_job_into_its_round_cells_and_the_rest():
    timing = {"warmup_seconds": 0.1, "process_warmup_seconds": 1.0, "samples": 100, "min_samples": 20,
              "target_ci_pct": 1.0, "target_sample_seconds": 0.01, "max_cell_seconds": 60}  # fmt: skip
    config = {"algorithms": ["HS256", "ES256"], "operations": ["sign", "verify"], "records_per_cell": 0}
    expected, most, cells, fixed = bench_plan.job_seconds("python", "jwt", "claims-001", config, timing, True)
    assert len(cells) == 4 and fixed == 1.0
    assert all(least < cell_most for least, cell_most in cells)
    assert most == pytest.approx(fixed + sum(cell_most for _, cell_most in cells))
    assert fixed + sum(least for least, _ in cells) < expected < most
    json.dumps([expected, most, cells, fixed])  # a rule's param: plain data
