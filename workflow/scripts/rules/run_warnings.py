"""The run's warnings: what it detected that may make a number wrong, in one table
(results/warnings.csv, workflow/schemas/warnings.schema.yaml), read by the report's first
screen, by the terminal's last lines (the Snakefile's onsuccess and onerror) and by the
strict check.

A warning is a doubt about a figure, not a failure: the run exits 0 with it, and `--strict`
(./jwtbench run --strict, JWTBENCH_STRICT=1 or config key strict; the test suite's runs
use it) turns each into a failure. Kinds:

- crosscheck: a cross-checked cell whose driver's loop and its language's own harness
  still disagree after the confirmation pass (its whole CI outside the band, unexplained);
- drift: the machine's speed moved, over the run, by more than statistics.max_drift_pct
  (the drift reference's middle 90% of rounds, the median over languages), or one
  language's reference never settled within that spread in its processes (judged on
  processes of DRIFT_MIN_ROUNDS rounds or more);
- bimodal: a cell whose samples fall in two groups (sample_statistics.modes): its median
  picks one of two speeds;
- failed_job: a benchmark job whose driver failed (every cell of it `failed`).

What protects correctness (a library that accepts a forged token, a driver that signs
wrongly, a known answer that does not match) is not here: those stop the run at the gate.
"""

import json
from pathlib import Path

import numpy as np

from jwtbench import cell_samples, result_tables, run_progress

COLUMNS = result_tables.columns("warnings.schema.yaml")
WARNINGS = "results/warnings.csv"


def crosscheck_warnings(rows):
    out = []
    for row in rows:
        if row["agreement"] != "disagrees":
            continue
        cell = f"{row['driver']} {row['operation']} {row['variant']}"
        first = f"first {float(row['first_ratio']):.3f}, confirmation " if row.get("first_ratio") else ""
        out.append(
            {
                "kind": "crosscheck",
                "subject": cell,
                "message": (
                    f"the cross-check of {cell} disagrees: jwtbench / {row['harness']} = {first}"
                    f"{float(row['ratio']):.3f} (CI {float(row['ratio_low']):.3f}-{float(row['ratio_high']):.3f}),"
                    f" outside 1 +/- {float(row['band']):g}"
                ),
                "action": (
                    "the driver's loop and its language's harness time this call differently: its figures may be"
                    " off by that much. Rerun in a quieter hour (python workflow/scripts/rules/crosscheck_harness.py"
                    f" --driver {row['driver']}), and if the gap is real, explain it in the driver's driver.yaml"
                    " crosscheck_gaps"
                ),
            }
        )
    return out


# A process judged for drift has at least this many rounds: fewer (the smoke config's 8)
# tell a reference's own warm-up and one slow round from a machine that moved.
DRIFT_MIN_ROUNDS = 20


def judged_processes(rows):
    """{(language, driver, suite, input): its rows' ns/op} of the processes with at least
    DRIFT_MIN_ROUNDS rounds of the drift reference."""
    found = {}
    for row in rows:
        found.setdefault((row["language"], row["driver"], row["suite"], row["input"]), []).append(row)
    return {process: mine for process, mine in found.items() if len(mine) >= DRIFT_MIN_ROUNDS}


def drift_warnings(rows, max_drift_pct):
    """Over the processes with DRIFT_MIN_ROUNDS rounds or more: the run's drift beyond
    max_drift_pct (the drift reference's rounds over their language's median, the median
    over languages of its 5th-95th percentile spread), and each language whose reference
    never settled (its rounds over their own process's median spread that far)."""
    processes = judged_processes(rows)
    if not processes:
        return []
    kept = [{**row, "relative": float(row["relative"])} for mine in processes.values() for row in mine]
    spread = cell_samples.drift_range(kept)
    out = []
    if spread and (spread[1] - spread[0]) * 100 > max_drift_pct:
        out.append(
            {
                "kind": "drift",
                "subject": "the run",
                "message": (
                    f"the machine's speed moved by {(spread[1] - spread[0]) * 100:.1f}% during the run (the drift"
                    f" reference's middle 90% of rounds: {spread[0]:.3f}-{spread[1]:.3f} of its median, the median"
                    f" over languages), more than statistics.max_drift_pct ({max_drift_pct:g}%)"
                ),
                "action": (
                    "figures from different processes (languages, suites) carry that difference; ratios paired by"
                    " round do not. Rerun with nothing else on the machine to compare absolute times"
                ),
            }
        )
    own = {}
    for (language, *_), mine in processes.items():
        middle = np.median([float(row["ns_per_op"]) for row in mine])
        own.setdefault(language, []).extend(float(row["ns_per_op"]) / middle for row in mine)
    for language, values in sorted(own.items()):
        low, high = np.percentile(values, [5, 95])
        if (high - low) * 100 > max_drift_pct:
            out.append(
                {
                    "kind": "drift",
                    "subject": language,
                    "message": (
                        f"{language}'s drift reference never settled: within its processes, the middle 90% of"
                        f" rounds took {low:.3f}-{high:.3f} of their process's median ({(high - low) * 100:.1f}%"
                        f" apart, more than statistics.max_drift_pct, {max_drift_pct:g}%)"
                    ),
                    "action": (
                        f"{language}'s cells moved that much while they were sampled; their round-paired ratios"
                        " (the verdicts') divide it out, their medians carry it. The report's drift section shows"
                        " when"
                    ),
                }
            )
    return out


def bimodal_warnings(summary):
    cells = [row for row in summary if row.get("bimodal") == "True"]
    if not cells:
        return []
    names = [f"{r['driver']} {r['suite']} {r['operation']} {r['variant']} ({r['input']})" for r in cells]
    shown = "; ".join(names[:10]) + (f"; and {len(names) - 10} more" if len(names) > 10 else "")
    return [
        {
            "kind": "bimodal",
            "subject": f"{len(cells)} cells",
            "message": f"{len(cells)} cell(s) sampled at two speeds (bimodal samples): {shown}",
            "action": (
                "each such median picks one of two speeds and another run may pick the other; the summary's"
                " `bimodal` column marks them"
            ),
        }
    ]


def failed_job_warnings(metadata_paths):
    out = []
    for path in metadata_paths:
        facts = json.loads(Path(path).read_text())
        if facts.get("failure"):
            job = f"{facts['driver']}/{facts['suite']}/{facts['input']}"
            out.append(
                {
                    "kind": "failed_job",
                    "subject": job,
                    "message": f"benchmark {job} failed: {facts['failure']}",
                    "action": f"every cell of it is recorded as failed; its log: logs/run_benchmark/{job}.log",
                }
            )
    return out


def collect(crosscheck, drift, summary, metadata, max_drift_pct):
    return (
        crosscheck_warnings(result_tables.read_rows(crosscheck))
        + drift_warnings(result_tables.read_rows(drift), max_drift_pct)
        + bimodal_warnings(result_tables.read_rows(summary))
        + failed_job_warnings(metadata)
    )


def run_job(job):
    warnings = collect(
        job.input.get("crosscheck"), job.input.drift, job.input.summary, job.input.metadata, job.params.max_drift_pct
    )
    result_tables.write_csv(job.output[0], COLUMNS, warnings)
    with open(job.log[0], "w") as log:
        print(f"{len(warnings)} warning(s)", file=log)
        for warning in warnings:
            print(f"- {warning['message']}", file=log)


def check_job(job):
    """The run's last step: the warnings as its log; under strict, a failure if any."""
    warnings = result_tables.read_rows(job.input.warnings)
    with open(job.log[0], "w") as log:
        print("\n".join(run_progress.warning_lines(job.input.warnings)) or "no warnings", file=log)
    if warnings and job.params.strict:
        raise RuntimeError(
            f"--strict: {len(warnings)} warning(s) about this run's numbers ({job.input.warnings}; the report and the"
            " bundle are written): " + "; ".join(w["message"] for w in warnings)
        )
    Path(job.output[0]).write_text(f"{len(warnings)} warning(s); strict: {bool(job.params.strict)}\n")
