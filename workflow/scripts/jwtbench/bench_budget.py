"""The benchmark budget (config key execution.benchmark_budget_minutes): the run's benchmark
jobs together never take much longer than it, whatever the hour; a noisy hour costs
precision, not time.

Before the first job, the plan (rules/bench_plan.py) writes every scheduled benchmark job's
expected and worst-case seconds (`write_plan`). When a job starts, it takes its share of
what is left of the budget (`share`): its worst case, scaled down when the jobs still to
run would, at their expected times, not fit in what is left. Its cells sampled in rounds
then get a sample cap (timing.samples in the spec the driver reads) scaled by the same
factor, never below min_samples, and a shorter warm-up until steady (`scaled_timing`): a
cell that cannot reach its precision within it stops at the cap and says so (summary stop_reason `sample_cap`; the job's
metadata `budget`). A cap on samples rather than on seconds: the plan's seconds per cell
are an estimate (a slow call's batch outlasts the target, a JIT's warm-up until steady
varies), and a time cap from them cut cells to `timeout` in the test suite's smoke run. In
a quiet hour jobs end well under their worst case, so what they leave goes to the jobs
after them and nothing is capped.

The plan and the seconds spent live in one JSON file per working directory, updated under
an flock, so jobs in threads of one Snakemake, or in other processes, share it.
"""

import contextlib
import fcntl
import json
import time
from pathlib import Path

from jwtbench import registry

PLAN = Path(".snakemake") / "jwtbench" / "benchmark-budget.json"


@contextlib.contextmanager
def _state(path):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        state = json.loads(path.read_text()) if path.exists() else None
        holder = {"state": state}
        yield holder
        if holder["state"] is not None:
            path.write_text(json.dumps(holder["state"], indent=1) + "\n")


def write_plan(budget_seconds, jobs, path=PLAN, after=None, lanes=1):
    """jobs: {job name: (expected seconds, worst-case seconds[, cells])} of this run's
    benchmark jobs; after: what the plan expects of the timed work after them, {rule:
    [jobs, expected seconds]} (the cross-check, container vs native, cold start); lanes:
    how many benchmark jobs run at once (execution.lanes). Starts the run's count of
    seconds spent afresh. Without a budget (0) the plan is still written, for the run's
    progress line (jwtbench/run_progress.py), and no job gets a share."""
    with _state(path) as holder:
        holder["state"] = {
            "budget_seconds": budget_seconds,
            "after": {rule: list(plan) for rule, plan in (after or {}).items()},
            "lanes": max(1, lanes),
            "jobs": {
                name: {"expected": plan[0], "most": plan[1], "cells": plan[2] if len(plan) > 2 else 0}
                for name, plan in jobs.items()
            },
            "started": {},
            "spent": {},
        }


def share(job, path=PLAN):
    """(this job's share in seconds, seconds left of the budget, the budget) or None when the
    run has no budget or did not plan this job. The share is the job's worst case while the
    jobs still to run fit in what is left at their expected times, else its worst case
    scaled down by how far they do not. The expected times are the plan's, corrected by what
    the jobs that finished took (`calibrated`)."""
    with _state(path) as holder:
        state = holder["state"]
        if not state or not state["budget_seconds"] or job not in state["jobs"]:
            return None
        left = state["budget_seconds"] - sum(state["spent"].values())
        expected = calibrated(state, [name for name in state["jobs"] if name not in state["spent"]]) or 1e-9
        most = state["jobs"][job]["most"]
        return most * min(1.0, max(left, 0.0) / expected), left, state["budget_seconds"]


def suite_of(job):
    """A benchmark job's suite: its name is <driver>/<suite>/<input>."""
    return job.rsplit("/", 2)[-2] if job.count("/") >= 2 else job


def calibrated(state, pending):
    """The pending jobs' expected seconds, each scaled by what the finished jobs of its suite
    took over their expected seconds (else by all finished jobs), and never below the
    plan's: the plan knows each cell's samples and batch, not how long a transfer trial or
    a runtime's start takes on this machine (2026-11-28's quiet run: transfer jobs 1.0-3.8
    times the plan, hash and primitive 0.55-1.06), and a suite's first jobs are not its
    slowest language's (with the suites' pace alone, that run's time left read 17.8 min
    at a quarter of its benchmarks, 24.9 in fact; with the plan as a floor, 22.1)."""
    spent, planned = {}, {}
    for name, seconds in state["spent"].items():
        if name in state["jobs"]:
            group = suite_of(name)
            spent[group] = spent.get(group, 0.0) + seconds
            planned[group] = planned.get(group, 0.0) + state["jobs"][name]["expected"]
    overall = sum(spent.values()) / sum(planned.values()) if sum(planned.values()) > 0 else 1.0
    total = 0.0
    for name in pending:
        group = suite_of(name)
        factor = spent[group] / planned[group] if planned.get(group, 0) > 0 else overall
        total += state["jobs"][name]["expected"] * max(1.0, factor)
    return total


def begin(job, path=PLAN, at=None):
    """A job's timed work starts now (for the progress line's time left)."""
    with _state(path) as holder:
        if holder["state"] and job in holder["state"]["jobs"]:
            holder["state"].setdefault("started", {})[job] = time.time() if at is None else at


def record(job, seconds, path=PLAN):
    """What a finished job took, so the jobs after it share what is left."""
    with _state(path) as holder:
        if holder["state"] and job in holder["state"]["jobs"]:
            holder["state"]["spent"][job] = seconds


def progress(path=PLAN, now=None):
    """Where the benchmark jobs are, for the progress line: {"jobs", "jobs_done", "cells",
    "cells_done", "seconds_left", "after"}; None without a plan. seconds_left is the
    jobs still to run at their calibrated pace (`calibrated`), less what a running job has
    already spent of its own, shared among the lanes, never more than what is left of a
    budget."""
    try:
        state = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return None
    jobs, spent, started = state["jobs"], state["spent"], state.get("started", {})
    now = time.time() if now is None else now
    pending = [name for name in jobs if name not in spent]
    left = 0.0
    for name in pending:
        expected = calibrated(state, [name])
        if name in started:
            expected = max(0.0, expected - (now - started[name]))
        left += expected
    left /= state.get("lanes", 1)
    if state["budget_seconds"]:
        running = sum(now - started[name] for name in pending if name in started)
        left = min(left, max(0.0, state["budget_seconds"] - sum(spent.values()) - running))
    done = [name for name in jobs if name in spent]
    return {
        "jobs": len(jobs),
        "jobs_done": len(done),
        "cells": sum(job.get("cells", 0) for job in jobs.values()),
        "cells_done": sum(jobs[name].get("cells", 0) for name in done),
        "seconds_left": left,
        "after": state.get("after", {}),
    }


# Suites whose timing.max_cell_seconds bounds a cell sampled in rounds, and nothing else,
# are the registry's `time_capped` (workflow/suites.yaml): a transfer or tokensize cell's
# bounds its trials or records, keygen's per-iteration cells have their own in the spec's
# keygen block but its sign and verify cells share this one.
# A cell's time cap (scaled_timing) is never below this plus the process's warm-up, which
# lands on its first cell: enough for min_samples batches of any call our suites time.
TIME_CAP_FLOOR_SECONDS = 2.0
# Over a cell's share of the worst case: the cap is a backstop for what the sample cap
# cannot bound (a warm-up that never gets steady, batches slowed by the machine), not the
# usual way a cell stops.
TIME_CAP_SLACK = 1.5


def round_cell_seconds(timing):
    """(least, most) seconds the plan gives one cell sampled in rounds by its timing block:
    warm-up, calibration (two batches) and, with a warm-up until steady, two windows of
    batches; then min_samples (least) or samples (most) batches of target_sample_seconds.
    The most is what the samples cost, never beyond max_cell_seconds; a warm-up that never
    gets steady can add up to warmup_max_seconds to it. Each of the job's workers warms the
    cell up (timing.workers; the first also calibrates it)."""
    batch = timing["target_sample_seconds"]
    warmup = timing["warmup_seconds"] + (
        2 * timing.get("steady_window", 5) * batch if timing.get("warmup_max_seconds", 0) else 0
    )
    least = timing.get("workers", 1) * warmup + 2 * batch
    planned = min(timing.get("min_samples", timing["samples"]), timing["samples"])
    if not timing.get("target_ci_pct", 0):
        planned = timing["samples"]
    return least + planned * batch, min(least + timing["samples"] * batch, timing["max_cell_seconds"])


def scaled_timing(timing, share_seconds, most_seconds, suite=None):
    """What a job's share lowers in its spec's timing block, scaled by the share over its
    worst case: {"samples": the sample cap, never below min_samples (every cell still gets
    a CI), "warmup_max_seconds": the warm-up until steady's limit, never below
    warmup_seconds, "max_cell_seconds": in a time-capped suite, each cell's time cap, at
    TIME_CAP_SLACK times its share of the worst case and never below
    TIME_CAP_FLOOR_SECONDS (plus the process's warm-up)}, each only where lowered. The time
    cap holds even when the share is the whole worst case: in a noisy hour a cell that
    never gets steady and whose batches run slow outlasts the worst case the plan knows
    (a 28-cell hash job took 251 s of its worst case of 140, 2026-11-28 10:34)."""
    fraction = 1.0 if most_seconds <= 0 else min(1.0, share_seconds / most_seconds)
    lowered = {}
    if suite is not None and registry.load().suites[suite].time_capped:
        floor = TIME_CAP_FLOOR_SECONDS + timing.get("process_warmup_seconds", 0)
        worst = round_cell_seconds(timing)[1] + timing.get("warmup_max_seconds", 0)
        cap = round(max(floor, TIME_CAP_SLACK * fraction * worst), 3)
        if cap < timing["max_cell_seconds"]:
            lowered["max_cell_seconds"] = cap
    if fraction >= 1.0:
        return lowered
    samples = max(timing.get("min_samples", 20), int(timing["samples"] * fraction))
    if samples < timing["samples"]:
        lowered["samples"] = samples
    warmup_max = timing.get("warmup_max_seconds", 0)
    limit = round(max(timing.get("warmup_seconds", 0), warmup_max * fraction), 3)
    if warmup_max > 0 and limit < warmup_max:
        lowered["warmup_max_seconds"] = limit
    return lowered
