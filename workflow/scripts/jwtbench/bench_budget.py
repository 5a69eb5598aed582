"""The benchmark budget (config key execution.benchmark_budget_minutes): the run's benchmark
jobs together never take much longer than it, whatever the hour; a noisy hour costs
precision, not time.

Before the first job, the plan (rules/bench_plan.py) writes every scheduled benchmark job's
expected and worst-case seconds (`write_plan`). When a job starts, it takes its share of
what is left of the budget (`share`): its worst case, scaled down when the jobs still to
run would, at their expected times, not fit in what is left. Its cells sampled in rounds
then get a time cap (timing.max_cell_seconds in the spec the driver reads) such that their
worst case fits in the share (`cell_cap`, water-filling: cheap cells keep all they may
need, the dear ones are capped), never below what a cell needs to take its min_samples.
A cell that cannot reach its precision in that time stops at the time cap and says so
(summary stop_reason `time_cap`). In a quiet hour jobs end well under their worst case,
so what they leave goes to the jobs after them and nothing is capped.

The plan and the seconds spent live in one JSON file per working directory, updated under
an flock, so jobs in threads of one Snakemake, or in other processes, share it.
"""

import contextlib
import fcntl
import json
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


def write_plan(budget_seconds, jobs, path=PLAN):
    """jobs: {job name: (expected seconds, worst-case seconds)} of this run's benchmark jobs.
    Starts the run's count of seconds spent afresh; no budget (0) removes the plan."""
    with _state(path) as holder:
        if not budget_seconds:
            Path(path).unlink(missing_ok=True)
            holder["state"] = None
            return
        holder["state"] = {
            "budget_seconds": budget_seconds,
            "jobs": {name: {"expected": expected, "most": most} for name, (expected, most) in jobs.items()},
            "spent": {},
        }


def share(job, path=PLAN):
    """(this job's share in seconds, seconds left of the budget, the budget) or None when the
    run has no budget or did not plan this job. The share is the job's worst case while the
    jobs still to run fit in what is left at their expected times, else its worst case
    scaled down by how far they do not."""
    with _state(path) as holder:
        state = holder["state"]
        if not state or job not in state["jobs"]:
            return None
        left = state["budget_seconds"] - sum(state["spent"].values())
        pending = [name for name in state["jobs"] if name not in state["spent"]]
        expected = sum(state["jobs"][name]["expected"] for name in pending) or 1e-9
        most = state["jobs"][job]["most"]
        return most * min(1.0, max(left, 0.0) / expected), left, state["budget_seconds"]


def record(job, seconds, path=PLAN):
    """What a finished job took, so the jobs after it share what is left."""
    with _state(path) as holder:
        if holder["state"] and job in holder["state"]["jobs"]:
            holder["state"]["spent"][job] = seconds


def cell_cap(cells, share_seconds, fixed_seconds=0.0):
    """The time cap per cell that makes sum(min(most, cap)) + fixed_seconds fit in the
    share; cells: [(least, most)] seconds. None when every cell fits uncapped; never below
    the largest `least` (every cell may still take its min_samples)."""
    if fixed_seconds + sum(most for _, most in cells) <= share_seconds:
        return None
    floor = max((least for least, _ in cells), default=0.0)
    room = share_seconds - fixed_seconds
    ordered = sorted(most for _, most in cells)
    below = 0.0
    for index, most in enumerate(ordered):
        others = len(ordered) - index
        if below + most * others >= room:
            return max(floor, (room - below) / others)
        below += most
    return None
