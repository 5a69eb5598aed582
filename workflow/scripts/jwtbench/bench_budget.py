"""The benchmark budget (config key execution.benchmark_budget_minutes): the run's benchmark
jobs together never take much longer than it, whatever the hour; a noisy hour costs
precision, not time.

Before the first job, the plan (rules/bench_plan.py) writes every scheduled benchmark job's
expected and worst-case seconds (`write_plan`). When a job starts, it takes its share of
what is left of the budget (`share`): its worst case, scaled down when the jobs still to
run would, at their expected times, not fit in what is left. Its cells sampled in rounds
then get a sample cap (timing.samples in the spec the driver reads) scaled by the same
factor, never below min_samples, and a shorter warm-up until steady (`scaled_timing`): a cell that cannot reach its precision
within it stops at the cap and says so (summary stop_reason `sample_cap`; the job's
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


def write_plan(budget_seconds, jobs, path=PLAN, after_seconds=0.0, lanes=1):
    """jobs: {job name: (expected seconds, worst-case seconds[, cells])} of this run's
    benchmark jobs; after_seconds: what the plan expects of the timed work after them (the
    cross-check); lanes: how many benchmark jobs run at once (execution.lanes). Starts the
    run's count of seconds spent afresh. Without a budget (0) the plan is still written,
    for the run's progress line (jwtbench/run_progress.py), and no job gets a share."""
    with _state(path) as holder:
        holder["state"] = {
            "budget_seconds": budget_seconds,
            "after_seconds": after_seconds,
            "lanes": max(1, lanes),
            "jobs": {name: {"expected": plan[0], "most": plan[1], "cells": plan[2] if len(plan) > 2 else 0}
                     for name, plan in jobs.items()},  # fmt: skip
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
    "cells_done", "seconds_left", "after_seconds"}; None without a plan. seconds_left is the
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
        "after_seconds": state.get("after_seconds", 0.0),
    }


def scaled_timing(timing, share_seconds, most_seconds):
    """What a job's share lowers in its spec's timing block, scaled by the share over its
    worst case: {"samples": the sample cap, never below min_samples (every cell still gets
    a CI), "warmup_max_seconds": the warm-up until steady's limit, never below
    warmup_seconds}, each only where lowered; {} when the share holds the worst case."""
    if most_seconds <= 0 or share_seconds >= most_seconds:
        return {}
    fraction = share_seconds / most_seconds
    lowered = {}
    samples = max(timing.get("min_samples", 20), int(timing["samples"] * fraction))
    if samples < timing["samples"]:
        lowered["samples"] = samples
    warmup_max = timing.get("warmup_max_seconds", 0)
    limit = round(max(timing.get("warmup_seconds", 0), warmup_max * fraction), 3)
    if warmup_max > 0 and limit < warmup_max:
        lowered["warmup_max_seconds"] = limit
    return lowered
