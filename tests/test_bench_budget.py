"""The benchmark budget (jwtbench/bench_budget.py, issue 42): a noisy hour costs precision,
not time. Each job's share of what is left, and the time cap that fits its cells in it."""

import json

import pytest

from jwtbench import bench_budget
from jwtbench.rules import bench_plan


def test_a_share_is_the_worst_case_while_the_rest_fits_at_its_expected_time(tmp_path):
    plan = tmp_path / "budget.json"
    bench_budget.write_plan(100, {"a": (20, 40), "b": (20, 40), "c": (20, 40)}, plan)
    assert bench_budget.share("a", plan) == (40, 100, 100)
    # a overran (a noisy hour): what is left no longer fits b and c at their expected times,
    # and they are now expected at a's pace (3.5 times the plan).
    bench_budget.record("a", 70, plan)
    share, left, budget = bench_budget.share("b", plan)
    assert (left, budget) == (30, 100) and share == pytest.approx(40 * 30 / (40 * 3.5))
    bench_budget.record("b", 30, plan)
    assert bench_budget.share("c", plan)[0] == 0  # nothing left: its cells keep only their floor (cell_cap)
    assert bench_budget.share("d", plan) is None  # a job the plan does not know


def test_a_quiet_job_leaves_its_time_to_the_jobs_after_it(tmp_path):
    plan = tmp_path / "budget.json"
    bench_budget.write_plan(50, {"a": (30, 50), "b": (30, 50)}, plan)
    assert bench_budget.share("a", plan)[0] == pytest.approx(50 * 50 / 60)
    bench_budget.record("a", 15, plan)
    assert bench_budget.share("b", plan)[0] == 50


def test_no_budget_gives_no_share_but_keeps_the_plan_for_the_progress_line(tmp_path):
    plan = tmp_path / "budget.json"
    bench_budget.write_plan(0, {"a": (1, 2, 3)}, plan)
    assert bench_budget.share("a", plan) is None
    bench_budget.record("a", 1, plan)
    assert bench_budget.progress(plan)["cells_done"] == 3


def test_the_progress_line_counts_jobs_and_cells_and_the_time_left(tmp_path):
    plan = tmp_path / "budget.json"
    jobs = {"go/jwt/a": (10, 20, 4), "go/jwt/b": (10, 20, 6), "go/hash/c": (30, 40, 8)}
    bench_budget.write_plan(0, jobs, plan, after={"crosscheck_harness": [2, 50]})
    state = bench_budget.progress(plan, now=1000)
    assert state == {
        "jobs": 3,
        "jobs_done": 0,
        "cells": 18,
        "cells_done": 0,
        "seconds_left": 50,
        "after": {"crosscheck_harness": [2, 50]},
    }
    bench_budget.begin("go/jwt/a", plan, at=1000)
    bench_budget.record("go/jwt/a", 20, plan)  # jwt at twice its plan
    bench_budget.begin("go/jwt/b", plan, at=1020)
    state = bench_budget.progress(plan, now=1025)
    # b: 10 x 2 less its 5 s so far; c: at all finished jobs' pace, 30 x 2.
    assert (state["jobs_done"], state["cells_done"]) == (1, 4)
    assert state["seconds_left"] == pytest.approx(15 + 60)
    bench_budget.write_plan(0, jobs, plan, lanes=2)
    assert bench_budget.progress(plan, now=0)["seconds_left"] == 25
    bench_budget.write_plan(40, jobs, plan)  # a budget bounds the time left
    assert bench_budget.progress(plan, now=0)["seconds_left"] == 40


def test_a_share_scales_the_sample_cap_and_the_warm_up_keeping_their_floors():
    timing = {"samples": 100, "min_samples": 20, "warmup_seconds": 0.1, "warmup_max_seconds": 5}
    assert bench_budget.scaled_timing(timing, 50, 50) == {}  # the worst case fits
    assert bench_budget.scaled_timing(timing, 20, 50) == {"samples": 40, "warmup_max_seconds": 2}
    # Every cell still gets its CI, and its warm-up.
    assert bench_budget.scaled_timing(timing, 0, 50) == {"samples": 20, "warmup_max_seconds": 0.1}
    # Nothing to lower: samples already at min_samples, no warm-up until steady.
    assert bench_budget.scaled_timing({**timing, "samples": 20, "warmup_max_seconds": 0}, 1, 50) == {}


def test_a_cell_sampled_in_rounds_gets_a_time_cap_even_when_the_worst_case_fits():
    timing = {
        "samples": 100,
        "min_samples": 20,
        "warmup_seconds": 0.1,
        "process_warmup_seconds": 1.0,
        "warmup_max_seconds": 5,
        "steady_window": 5,
        "target_ci_pct": 1.0,
        "target_sample_seconds": 0.01,
        "max_cell_seconds": 60,
    }
    least, most = bench_budget.round_cell_seconds(timing)
    assert (least, most) == pytest.approx((0.22 + 0.2, 0.22 + 1.0))  # warm-up, two batches, two windows
    worst = most + 5  # a warm-up that never gets steady
    # The whole worst case: a backstop at TIME_CAP_SLACK times it (a noisy hour's slow
    # batches and unsteady warm-ups), with nothing else lowered.
    assert bench_budget.scaled_timing(timing, 50, 50, "hash") == {
        "max_cell_seconds": pytest.approx(bench_budget.TIME_CAP_SLACK * worst)
    }
    # Half the worst case: half the cap, never below the floor plus the process's warm-up.
    assert bench_budget.scaled_timing(timing, 25, 50, "jwt")["max_cell_seconds"] == pytest.approx(
        bench_budget.TIME_CAP_SLACK * worst / 2
    )
    floor = bench_budget.TIME_CAP_FLOOR_SECONDS + 1.0
    assert bench_budget.scaled_timing(timing, 0, 50, "primitive")["max_cell_seconds"] == pytest.approx(floor)
    # Suites whose max_cell_seconds bounds something else keep theirs.
    for suite in ("transfer", "tokensize", "keygen", "percall", None):
        assert "max_cell_seconds" not in bench_budget.scaled_timing(timing, 0, 50, suite)
    # A spec whose own cap is already lower keeps it.
    assert bench_budget.scaled_timing({**timing, "max_cell_seconds": 3}, 50, 50, "hash") == {}


def test_the_plan_gives_a_job_its_expected_and_worst_case_seconds():
    timing = {
        "warmup_seconds": 0.1,
        "process_warmup_seconds": 1.0,
        "samples": 100,
        "min_samples": 20,
        "target_ci_pct": 1.0,
        "target_sample_seconds": 0.01,
        "max_cell_seconds": 60,
    }
    config = {"algorithms": ["HS256", "ES256"], "operations": ["sign", "verify"], "records_per_cell": 0}
    expected, most = bench_plan.job_seconds("python", "jwt", "claims-001", config, timing, True)
    cells = bench_plan.job_cells("python", "jwt", "claims-001", config, True)
    least = 1.0 + sum(bench_plan.seconds("jwt", cell, config, timing, True)[0] for cell in cells)
    assert len(cells) == 4 and least < expected < most
    assert most == pytest.approx(1.0 + sum(bench_plan.seconds("jwt", cell, config, timing, True)[1] for cell in cells))
    json.dumps([expected, most])  # a rule's param: plain data


def test_the_jobs_still_to_run_are_expected_at_the_pace_their_suite_has_shown(tmp_path):
    plan = tmp_path / "budget.json"
    jobs = {"go/transfer/a.p1": (4, 8), "go/transfer/a.p2": (4, 8), "go/jwt/a": (10, 20), "go/hash/cases": (10, 20)}
    bench_budget.write_plan(60, jobs, plan)
    bench_budget.record("go/transfer/a.p1", 16, plan)  # transfer took four times the plan
    bench_budget.record("go/jwt/a", 5, plan)  # jwt half
    # Left: 39 s. Pending: transfer at its suite's pace (4 x 4 = 16), hash at all finished
    # jobs' pace (10 x 21/14 = 15): 31 s fits.
    assert bench_budget.share("go/hash/cases", plan)[0] == 20
    bench_budget.record("go/transfer/a.p2", 30, plan)
    # Left 9 s for hash expected at 10 x 51/18: its share is cut to that fraction.
    share, left, _ = bench_budget.share("go/hash/cases", plan)
    assert left == 9 and share == pytest.approx(20 * 9 / (10 * 51 / 18))
