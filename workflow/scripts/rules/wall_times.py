"""Where a run's wall time went: every job's wall time (logs/wall_times/<rule>/<wildcards>.tsv,
one per job) in one table (results/wall_times.csv), each job in its stage, with its
start and end.

Snakemake's `benchmark:` directive writes the record of most rules. The rules that time
(resources bench=1) write theirs with timed() below instead: the directive samples the
Snakemake process tree with psutil while the job runs (every 0.5 s at first), which is
work beside a benchmark. Either way the record is written when the job ends and holds
its wall time in seconds (column `s`), so the file's modification time is the job's end
and that minus `s` its start. A job that ran in an earlier invocation of the run (resumed after a
failure, say) keeps its record, so the table covers every job that made the results:
a stage's wall time is the union of its jobs' intervals, which counts neither the
overlap of jobs running side by side nor a pause between invocations.

Command line, for a look at a finished run:
    python workflow/scripts/rules/wall_times.py RUN_DIR     (prints the stages and their times)
"""

import contextlib
import csv
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from jwtbench import machine_lock, result_tables

FOLDER = Path("logs/wall_times")
COLUMNS = result_tables.columns("wall_times.schema.yaml")

# Each rule's stage, in the order a run goes through them.
STAGES = {
    "images": ("build_base_image", "build_image", "forget_missing_images"),
    "environments": ("install_native_env", "install_kaggle_client"),
    "inputs": ("generate_keys", "prepare_dataset", "write_jwt_signing_input", "record_versions", "write_bench_spec"),
    "checks": ("check_driver", "check_interop", "check_deterministic_tokens", "check_conformance"),
    "benchmarks": (
        "measure_cycle_counter",
        "run_benchmark",
        "run_coldstart",
        "compare_native",
        "crosscheck_harness",
        "confirm_crosscheck",
    ),
    "results": (
        "aggregate_samples",
        "describe_drivers",
        "summarize_coldstart",
        "summarize_crosscheck",
        "summarize_noise",
        "collect_provenance",
        "reproduce_seed000",
        "reproduce_seed001",
        "reproduce_seed002",
        "reproduce_seed003",
        "reproduce_seed004",
        "collect_warnings",
    ),
    "report": ("render_report", "write_bundle", "check_run"),
}
STAGE_OF = {rule: stage for stage, rules in STAGES.items() for rule in rules}


class WallTimeError(ValueError):
    """A record that is not what Snakemake's benchmark directive writes."""


@contextlib.contextmanager
def record(path):
    """Write a job's wall time to `path` (column `s`, as the benchmark directive does)
    when the job it wraps ends without an error; nothing runs beside it meanwhile. Time
    spent waiting for the machine lock or a lane (machine_lock) is left out: with lanes
    (execution.lanes) Snakemake starts benchmarks that then wait for a free lane."""
    start, waited = time.monotonic(), machine_lock.waited_seconds()
    yield
    seconds = time.monotonic() - start - (machine_lock.waited_seconds() - waited)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(f"s\n{seconds:.4f}\n")


def timed(path, run_job, snake):
    """run_job(snake), its wall time recorded at `path` (record)."""
    with record(path):
        run_job(snake)


def read_record(path):
    """The wall time in seconds of one record (the mean over its lines: Snakemake writes
    one line per repeat)."""
    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    try:
        values = [float(row["s"]) for row in rows]
    except (KeyError, TypeError, ValueError):
        raise WallTimeError(f"{path}: no wall time in seconds (column 's') on every line") from None
    if not values:
        raise WallTimeError(f"{path}: no line under its header")
    return sum(values) / len(values)


def job_row(folder, path):
    """One table row for the record at `path` under `folder`."""
    relative = path.relative_to(folder).with_suffix("")
    rule, job = relative.parts[0], "/".join(relative.parts[1:])
    parts = relative.parts[1:]
    language, suite = "", ""
    if rule == "run_benchmark" and len(parts) >= 3:  # <driver>/<suite>/<input>: node or node/jose
        language, suite = parts[0], parts[-2]
    elif rule in ("run_coldstart", "install_native_env", "check_driver", "record_versions", "build_image"):
        language = parts[0] if parts else ""
        suite = "coldstart" if rule == "run_coldstart" else ""
    elif rule == "crosscheck_harness":  # <driver>: node or node/jose
        language, suite = parts[0], rule
    elif rule in ("compare_native", "measure_cycle_counter"):
        suite = rule
    seconds = read_record(path)
    end = path.stat().st_mtime
    return {
        "stage": STAGE_OF.get(rule, "other"),
        "rule": rule,
        "job": job,
        "language": language,
        "suite": suite,
        "seconds": round(seconds, 3),
        "start": iso(end - seconds),
        "end": iso(end),
    }


def iso(timestamp):
    return datetime.fromtimestamp(timestamp, timezone.utc).isoformat(timespec="seconds")


def collect(folder=FOLDER):
    """Every job's row, in the order the jobs started."""
    folder = Path(folder)
    rows = [job_row(folder, path) for path in sorted(folder.rglob("*.tsv"))]
    return sorted(rows, key=lambda row: (row["start"], row["rule"], row["job"]))


def busy_seconds(rows):
    """The length of the union of the rows' [start, end] intervals, in seconds."""
    intervals = sorted(
        (datetime.fromisoformat(row["start"]).timestamp(), datetime.fromisoformat(row["end"]).timestamp())
        for row in rows
    )
    total, current_start, current_end = 0.0, None, None
    for start, end in intervals:
        if current_end is None or start > current_end:
            if current_end is not None:
                total += current_end - current_start
            current_start, current_end = start, end
        else:
            current_end = max(current_end, end)
    if current_end is not None:
        total += current_end - current_start
    return total


def write(rows, path):
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    # Every digit of the seconds (rounded to milliseconds in job_row).
    result_tables.write_csv(path, COLUMNS, rows, floats=str)


def describe(rows):
    """Lines for the log and the console: the run's and each stage's wall time."""
    lines = [f"{len(rows)} jobs, {busy_seconds(rows) / 60:.1f} min of wall time with a job running"]
    for stage in [*STAGES, "other"]:
        chosen = [row for row in rows if row["stage"] == stage]
        if chosen:
            lines.append(f"  {stage:<13} {len(chosen):>4} jobs {busy_seconds(chosen) / 60:>6.1f} min")
    return lines


def run_job(snake):
    rows = collect(snake.params.folder)
    write(rows, snake.output[0])
    with open(snake.log[0], "w") as log:
        print("\n".join(describe(rows)), file=log)


def main(argv):
    if len(argv) != 1:
        print(__doc__.split("Command line, ")[1], file=sys.stderr)
        return 2
    try:
        rows = collect(Path(argv[0]) / FOLDER)
    except WallTimeError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print("\n".join(describe(rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
