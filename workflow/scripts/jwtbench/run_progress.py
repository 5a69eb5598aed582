"""What `./jwtbench run` shows on the terminal (issue 43): one progress line while the run
goes, and a summary when it ends, whatever happened. Snakemake's own output goes to a log
file (run_supervisor.py), which this module follows.

The progress line says the run's stage (images, checks, benchmarks, report), the
benchmark cells done of those planned and an estimate of the time left, which the plan
(jwtbench/bench_budget.py) refines as jobs finish: the jobs still to run at the pace their
suite has shown, the cross-check after them. On a terminal the line is rewritten in place;
without one (a log, CI) a line is printed when the run reaches a further stage and
every minute.

The summary: exit status and wall time, where the report, the bundle and the log are, the
verdicts per seed, the machine line (quiet or noisy, from the drift reference), every
warning the run raised (results/warnings.csv) and every failed job with its log.
"""

import datetime
import json
import re
import sys
import time
from collections import Counter
from pathlib import Path

from jwtbench import bench_budget, cell_samples
from jwtbench.result_tables import read_rows

# The stages a newcomer can follow, in the order a run goes through them, and the rules of each.
STAGES = {
    "images": ("build_base_image", "build_image", "install_native_env"),
    "checks": (
        "generate_keys",
        "install_kaggle_client",
        "prepare_dataset",
        "write_jwt_signing_input",
        "write_bench_spec",
        "check_driver",
        "record_versions",
        "check_conformance",
        "check_deterministic_tokens",
        "check_interop",
        "describe_drivers",
        "measure_cycle_counter",
    ),
    "benchmarks": ("run_benchmark", "run_coldstart", "compare_native", "crosscheck_harness", "confirm_crosscheck"),
}
ORDER = ["starting", "images", "checks", "benchmarks", "report"]
# The report's line between a quiet and a noisy machine (report/R/noise.R, QUIET_DRIFT_PCT).
QUIET_DRIFT_PCT = 10


def stage_of(rule):
    for stage, rules in STAGES.items():
        if rule in rules:
            return stage
    return "report"


def per_stage(jobs):
    """{stage: jobs} of {rule: jobs}."""
    totals = Counter()
    for rule, count in jobs.items():
        totals[stage_of(rule)] += count
    return totals


class LogFollower:
    """Reads Snakemake's output as it grows: the jobs planned (its "Job stats" table),
    started and finished per rule, the step count, and the jobs that failed with their
    logs."""

    STARTED = re.compile(r"^(?:local)?rule (\w+):$")
    FINISHED = re.compile(r"^Finished jobid: \d+ \(Rule: (\w+)\)")
    STEPS = re.compile(r"^(\d+) of (\d+) steps \(")
    FAILED = re.compile(r"^Error in rule (\w+):$")
    STATS_ROW = re.compile(r"^(\w+)\s+(\d+)$")

    def __init__(self, path):
        self.path = Path(path)
        self.offset = 0
        self.partial = ""
        self.steps = (0, 0)
        self.failed = []  # [rule, log or None]
        self.in_error = False
        self.in_stats = False
        self.planned = Counter()  # {rule: jobs}, from the Job stats table
        self.started = Counter()  # {rule: jobs}
        self.finished = Counter()  # {rule: jobs}, failed ones too (with keep-going the run goes on)

    @property
    def furthest(self):
        """The furthest stage a job has started in."""
        return max(per_stage(self.started), key=ORDER.index, default="starting")

    @property
    def stage(self):
        """What the line names: the stages running now ("checks + benchmarks" where they
        overlap), else the first with jobs still to finish, else the furthest reached."""
        planned, started, finished = per_stage(self.planned), per_stage(self.started), per_stage(self.finished)
        running = [stage for stage in ORDER[1:] if started[stage] > finished[stage]]
        if running:
            return " + ".join(running)
        waiting = [stage for stage in ORDER[1:] if finished[stage] < planned[stage]]
        return waiting[0] if waiting else self.furthest

    def poll(self):
        try:
            with open(self.path, encoding="utf-8", errors="replace") as handle:
                handle.seek(self.offset)
                text = handle.read()
                self.offset = handle.tell()
        except OSError:
            return
        text = self.partial + text
        lines = text.split("\n")
        self.partial = lines.pop()
        for line in lines:
            self.read(line.rstrip("\r"))

    def read(self, line):
        if line.startswith("Job stats:"):
            self.in_stats, self.planned = True, Counter()
            return
        if self.in_stats:
            found = self.STATS_ROW.match(line.strip())
            if found and found.group(1) not in ("job", "total"):
                self.planned[found.group(1)] += int(found.group(2))
            elif not line.strip() or found and found.group(1) == "total":
                self.in_stats = False
            return
        found = self.FINISHED.match(line)
        if found:
            self.finished[found.group(1)] += 1
            return
        if self.in_error:
            stripped = line.strip()
            if stripped.startswith("log: "):
                self.failed[-1][1] = stripped[5:].split(" (check log")[0]
            if not line.startswith(" "):
                self.in_error = False
        found = self.STARTED.match(line)
        if found:
            self.started[found.group(1)] += 1
            return
        found = self.STEPS.match(line)
        if found:
            self.steps = (int(found.group(1)), int(found.group(2)))
            return
        found = self.FAILED.match(line)
        if found:
            self.failed.append([found.group(1), None])
            self.in_error = True
            self.finished[found.group(1)] += 1


def minutes(seconds):
    if seconds < 90:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min"


def after_left(after, finished):
    """Seconds the timed work after the benchmark jobs still has ({rule: [jobs, expected
    seconds]} of the plan, less the part of each rule's jobs that finished)."""
    return sum(seconds * max(0, jobs - finished.get(rule, 0)) / jobs for rule, (jobs, seconds) in after.items() if jobs)


def status_line(follower, plan, elapsed):
    """The progress line: elapsed, stage, steps, benchmark cells and the time left."""
    parts = [f"{minutes(elapsed)} in", follower.stage]
    done, total = follower.steps
    if total:
        parts.append(f"step {done} of {total}")
    if plan and plan["jobs"]:
        if plan["cells"]:
            parts.append(f"{plan['cells_done']:,} of {plan['cells']:,} benchmark cells")
        else:
            parts.append(f"{plan['jobs_done']} of {plan['jobs']} benchmark jobs")
        ahead = plan["seconds_left"] + after_left(plan["after"], follower.finished)
        if "benchmarks" in follower.stage.split(" + "):
            parts.append(f"about {minutes(ahead)} of benchmarks left")
        elif ORDER.index(follower.furthest) < ORDER.index("benchmarks"):
            parts.append(f"then about {minutes(ahead)} of benchmarks")
    return "jwtbench: " + " · ".join(parts)


class Progress:
    """The progress line, on a terminal rewritten in place, else printed now and then."""

    def __init__(self, log_path, workdir, stream=sys.stderr, every=60.0):
        self.follower = LogFollower(log_path)
        self.plan_path = Path(workdir) / bench_budget.PLAN
        self.stream = stream
        self.tty = stream.isatty()
        self.every = every
        self.started = time.monotonic()
        self.started_at = time.time()
        self.last_printed = None
        self.last_stage = None
        self.width = 0

    def plan(self):
        """The benchmark plan's progress, when this run wrote the plan: one that runs no
        benchmark job (`compare`) leaves the last run's in place."""
        try:
            ours = self.plan_path.stat().st_mtime >= self.started_at - 1
        except OSError:
            return None
        return bench_budget.progress(self.plan_path) if ours else None

    def tick(self):
        self.follower.poll()
        now = time.monotonic()
        line = status_line(self.follower, self.plan(), now - self.started)
        if self.tty:
            line = line[:200]
            self.stream.write("\r" + line + " " * max(0, self.width - len(line)))
            self.width = len(line)
            self.stream.flush()
            return
        # A line when the run reaches a new stage (the furthest started: stages overlap, and
        # the line's "checks + benchmarks" comes and goes), and every `every` seconds.
        reached = self.follower.furthest
        if self.last_printed is None or reached != self.last_stage or now - self.last_printed >= self.every:
            print(line, file=self.stream, flush=True)
            self.last_printed, self.last_stage = now, reached

    def end(self):
        self.follower.poll()
        if self.tty and self.width:
            self.stream.write("\n")
            self.stream.flush()


# -- the summary -------------------------------------------------------------------------


def fresh(path, since):
    """Whether `path` was written by this run (after `since`, epoch seconds)."""
    path = Path(path)
    return path.exists() and path.stat().st_mtime >= since


def verdict_lines(results):
    out = []
    for path in sorted(results.glob("seed*/verdicts.csv")):
        counts = {}
        for row in read_rows(path):
            counts[row.get("verdict", "")] = counts.get(row.get("verdict", ""), 0) + 1
        if counts:
            order = ["holds", "does not hold", "inconclusive"]
            named = [f"{counts.pop(name)} {name}" for name in order if name in counts]
            named += [f"{count} {name or 'no verdict'}" for name, count in sorted(counts.items())]
            out.append(f"    seed {path.parent.name[4:]}: " + ", ".join(named))
    return out


def machine_line(drift_path):
    """Quiet or noisy, as the report's first screen says it (report/R/noise.R,
    machine_line): the spread between the medians over languages of the drift reference's
    5th and 95th percentiles (cell_samples.drift_range)."""
    rows = [row for row in read_rows(drift_path) if row.get("relative")]
    spread = cell_samples.drift_range([{**row, "relative": float(row["relative"])} for row in rows])
    if spread is None:
        return None
    pct = 100 * (spread[1] - spread[0])
    kind = "quiet" if pct <= QUIET_DRIFT_PCT else "noisy"
    meaning = (
        "its speed held steady, the verdicts need no allowance for it"
        if kind == "quiet"
        else "ratios paired by round stand; read comparisons across languages with that margin"
    )
    return f"this run's machine: {kind} (median drift spread {pct:.1f}%): {meaning}"


def warning_lines(path, shown=None):
    """The warnings at `path` (results/warnings.csv; named `shown` on the terminal) as the
    terminal shows them, each with what to do; [] when none or no file."""
    warnings = read_rows(path)
    if not warnings:
        return []
    out = [
        f"jwtbench: {len(warnings)} warning(s) about this run's numbers ({shown or path}; the report's first screen):"
    ]
    for warning in warnings:
        out.append(f"  - {warning['message']}.")
        out.append(f"    What to do: {warning['action']}.")
    return out


def summary(workdir, returncode, elapsed, log_path, follower, started_epoch):
    """The run's closing lines (at most a screenful)."""
    workdir = Path(workdir)
    results = workdir / "results"
    word = "finished" if returncode == 0 else f"failed (exit {returncode})"
    out = [
        "",
        f"jwtbench: the run {word} after {elapsed / 60:.1f} min"
        f" ({datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC)",
    ]
    report = results / "report" / "report.html"
    if not report.exists():
        report = None
        out.append("  report:   not written")
    else:
        earlier = "" if fresh(report, started_epoch) else " (from an earlier run: this one did not change it)"
        out.append(f"  report:   {report.relative_to(workdir)}{earlier}")
    bundle = results / "bundles" / "latest.json"
    if report and bundle.exists():
        facts = json.loads(bundle.read_text())
        out.append(f"  bundle:   {facts.get('archive') or facts.get('path')}")
    out.append(f"  full log: {log_path}")
    verdicts = verdict_lines(results) if report else []
    if verdicts:
        out.append("  verdicts on the published claims (every language and setting; the report's first table):")
        out += verdicts
    machine = machine_line(results / "drift.csv") if report else None
    if machine:
        out.append(f"  {machine}")
    warnings = warning_lines(results / "warnings.csv", "results/warnings.csv") if report else []
    out += [f"  {line}" for line in warnings]
    if report and not warnings:
        out.append("  no warnings about the numbers")
    if follower.failed:
        out.append(f"  {len(follower.failed)} job(s) failed:")
        for rule, log in follower.failed[:8]:
            out.append(f"    - {rule}: {log or 'no log; see the full log'}")
    return out
