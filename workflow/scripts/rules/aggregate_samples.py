"""Raw samples of every (language, suite, input) to results/summary.csv, results/ratios.csv
and results/drift.csv.

One summary row per timed cell (workflow/schemas/summary.schema.yaml); ratios of cells
measured in the same run by the same language, with bootstrap CIs (ratios.schema.yaml);
the drift reference of every round (drift.schema.yaml), which is not a cell.
Suite tokensize measures sizes, not time: its cells are summarised by seed000.py instead.
"""

import collections
import json
import statistics
from pathlib import Path

from jwtbench import cell_samples, raw_samples, result_tables, stopping_rule, variants
from jwtbench import sample_statistics as stats

# What names a cell in the raw samples (the contract's columns up to input_bytes); a
# summary row starts with them.
CELL_COLUMNS = raw_samples.COLUMNS[: raw_samples.COLUMNS.index("input_bytes") + 1]


def summarise(key, rows, settings):
    first = rows[0]
    statuses = {row["status"] for row in rows}
    if len(statuses) != 1:
        raise ValueError(f"cell {key} mixes statuses {sorted(statuses)}")
    timed = [row for row in rows if row["iterations"] > 0]
    values = cell_samples.ns_per_op(timed)
    summary = {name: first[name] for name in CELL_COLUMNS}
    summary.update(
        variant=variants.name_of(first["algorithm"], first["key_bits"]),
        output_bytes=int(statistics.median(r["output_bytes"] for r in timed)) if timed else 0,
        status=first["status"],
        samples=len(values),
        iterations=int(statistics.median(r["iterations"] for r in timed)) if timed else 0,
        workers=len({r["worker"] for r in timed}),
        worker_spread=None,
    )
    if values:
        summary.update(stats.describe(values, settings["confidence"]))
    return summary, values


def spec_match(cell):
    """What ties a spec's cell to its rows: operation, algorithm, key size, input, and the
    implementation when the spec names one."""
    return (cell["operation"], cell["algorithm"], int(cell["key_bits"]), cell["input"], cell.get("implementation"))


def row_match(row, named):
    return (row["operation"], row["algorithm"], row["key_bits"], row["input"], row["implementation"] if named else None)


def stop_reasons(raw_path, spec_path):
    """({cell key: why it stopped}, [disagreements]) for the cells of one driver process:
    the stopping rule replayed on their samples in round order ("precision", "sample_cap",
    "time_cap"); cells not sampled in rounds stop after a fixed count ("fixed") or at their
    budget ("time_cap"). A cell the replay stops elsewhere than its driver did is listed."""
    spec = json.loads(Path(spec_path).read_text())
    rows_of = {}
    for row in raw_samples.cells_only(raw_samples.read(raw_path)):
        rows_of.setdefault(raw_samples.cell_key(row), []).append(row)
    named = any("implementation" in cell for cell in spec["cells"])
    by_match = {row_match(rows[0], named): key for key, rows in rows_of.items()}
    keys = [by_match.get(spec_match(cell)) for cell in spec["cells"]]
    series = [
        [r["elapsed_ns"] / r["iterations"] for r in sorted(rows_of[key], key=lambda r: r["sample"]) if r["iterations"]]
        if key is not None and cell_samples.in_rounds(spec, cell)
        else []
        for key, cell in zip(keys, spec["cells"])
    ]
    # The sample cap the driver had: the spec's, or the one the benchmark budget lowered it
    # to for this job (its metadata's budget.samples_cap, run_benchmark.budget_spec).
    metadata = Path(raw_path).with_suffix(".json")
    budget = json.loads(metadata.read_text()).get("budget") if metadata.is_file() else None
    timing = {**spec["timing"], **({"samples": budget["samples_cap"]} if budget and budget.get("samples_cap") else {})}
    target = stopping_rule.Target.from_timing(timing)
    replayed = stopping_rule.replay(series, spec.get("pairs", []), target)
    reasons, disagree = {}, []
    for key, cell, values, (taken, reason) in zip(keys, spec["cells"], series, replayed):
        if key is None:
            continue
        status = rows_of[key][0]["status"]
        if status in raw_samples.UNTIMED:
            continue
        if not cell_samples.in_rounds(spec, cell):
            reasons[key] = "time_cap" if status == "timeout" else "fixed"
            continue
        reasons[key] = STOP_REASONS[reason]
        if taken != len(values):
            disagree.append(f"{key}: {len(values)} samples, the rule stops at {taken}")
    for key, rows in rows_of.items():  # rows of no spec cell of their own (transfer's sign and verify)
        timed = rows[0]["status"] not in raw_samples.UNTIMED
        if key not in reasons and timed and not cell_samples.in_rounds(spec, {"operation": ""}):
            reasons[key] = "time_cap" if rows[0]["status"] == "timeout" else "fixed"
    return reasons, disagree


STOP_REASONS = {
    stopping_rule.PRECISION: "precision",
    stopping_rule.SAMPLE_CAP: "sample_cap",
    stopping_rule.EXHAUSTED: "time_cap",
}


def ratios(summaries, samples, rounds, workers, settings):
    """verify/sign per variant, and each operation's variant over HS512 (seed 001's baseline).
    Cells sampled in the same rounds of one process are paired by round (the median of the
    per-round ratios, its distribution-free CI); others (suite percall's cell-after-cell
    calls) get the ratio of medians with a bootstrap CI, each cell resampled apart. A ratio
    paired by round has the spread of its workers' medians (`workers`: {key: {round: its
    worker}})."""
    index = {
        (s["language"], s["implementation"], s["suite"], s["input"], s["operation"], s["variant"]): key
        for key, s in summaries.items()
        if s["status"] == "ok"
    }
    pairs = []
    for language, implementation, suite, input_name, operation, variant in index:
        cell = (language, implementation, suite, input_name)
        if operation == "verify" and (*cell, "sign", variant) in index:
            pairs.append(("verify/sign", cell, ("verify", variant), ("sign", variant)))
        if operation in ("sign", "verify") and (*cell, operation, "HS512") in index:
            pairs.append((f"{operation}/HS512", cell, (operation, variant), (operation, "HS512")))
    rows = []
    for kind, cell, top, bottom in pairs:
        language, implementation, suite, input_name = cell
        top_key = index[(*cell, *top)]
        bottom_key = index[(*cell, *bottom)]
        spread = None
        if top_key in rounds and bottom_key in rounds:
            method = "paired by round"
            series = [rounds[top_key], rounds[bottom_key]]
            ratio, low, high = stats.paired_ratio_ci(*series, settings["confidence"])
            spread = stats.paired_worker_spread(series, lambda top, bottom: top / bottom, workers[top_key])
        else:
            method = "bootstrap"
            rng = stats.generator(settings["seed"], kind, *top_key, *bottom_key)
            ratio, low, high = stats.ratio_ci(
                samples[top_key],
                samples[bottom_key],
                settings["confidence"],
                settings["bootstrap_resamples"],
                rng,
            )
        rows.append(
            {
                "language": language,
                "implementation": implementation,
                "suite": suite,
                "input": input_name,
                "kind": kind,
                "numerator": ":".join(top),
                "denominator": ":".join(bottom),
                "ratio": ratio,
                "ci_low": low,
                "ci_high": high,
                "method": method,
                "worker_spread": spread,
            }
        )
    return rows


def main(raw_paths, settings, summary_path, ratios_path, log, spec_paths=(), drift_path=None, libraries=None):
    """spec_paths[i] is the spec raw_paths[i] was measured from (its pairs and timing);
    without them (hand-made raw files) cells have no stop_reason and no ratio is paired.
    `libraries` ({driver name: its library}) names each cell's driver; without it (or for a
    file outside results/raw/), a cell's driver is its language/implementation."""
    source = {}
    cells = cell_samples.group_cells(raw_paths, source)
    reasons = {}
    for raw_path, spec_path in zip(raw_paths, spec_paths):
        found, disagree = stop_reasons(raw_path, spec_path)
        reasons.update(found)
        for line in disagree:
            print(f"warning: {raw_path}: {line} (the driver and the stopping rule disagree)", file=log)
    summaries, samples, rounds, workers = {}, {}, {}, {}
    for key, rows in cells.items():
        summaries[key], samples[key] = summarise(key, rows, settings)
        row = rows[0]
        named = cell_samples.driver_of_raw(source[key], libraries or {})
        driver, library = named or (f"{row['language']}/{row['implementation']}", row["implementation"])
        summaries[key].update(driver=driver, library=library)
        summaries[key]["stop_reason"] = reasons.get(key, "")
        if reasons.get(key) in ("precision", "sample_cap", "time_cap"):
            # The bimodality rule for cells sampled in rounds, whose median picks a speed;
            # not for one-call samples (percall), nor a fixed count of trials.
            summaries[key]["bimodal"] = stats.modes(samples[key]) is not None
            if cell_samples.in_rounds_suite(key[2]):
                rounds[key] = {
                    row["sample"]: row["elapsed_ns"] / row["iterations"] for row in rows if row["iterations"]
                }
                workers[key] = {row["sample"]: row["worker"] for row in rows if row["iterations"]}
                summaries[key]["worker_spread"] = stats.worker_spread(rounds[key], workers[key])
    result_tables.write_csv(summary_path, result_tables.columns("summary.schema.yaml"), summaries.values())
    ratio_rows = ratios(summaries, samples, rounds, workers, settings)
    result_tables.write_csv(ratios_path, result_tables.columns("ratios.schema.yaml"), ratio_rows)
    stopped = collections.Counter(summary["stop_reason"] for summary in summaries.values() if summary["samples"])
    print(
        f"{len(summaries)} cells from {len(raw_paths)} files; {len(ratio_rows)} ratios;"
        f" timed cells stopped at: {dict(stopped)}",
        file=log,
    )
    if drift_path:
        rounds_of_reference = cell_samples.drift(raw_paths, libraries)
        result_tables.write_csv(drift_path, result_tables.columns("drift.schema.yaml"), rounds_of_reference)
        spread = cell_samples.drift_range(rounds_of_reference)
        print(
            f"drift reference: {len(rounds_of_reference)} rounds"
            + (
                f"; the run's drift (median over languages of their 5-95% range): {spread[0]:.3f}-{spread[1]:.3f}"
                if spread
                else ""
            ),
            file=log,
        )


def run_job(job):
    with open(job.log[0], "w") as log:
        main(
            job.input.samples,
            job.params.statistics,
            job.output.summary,
            job.output.ratios,
            log,
            job.input.specs,
            job.output.drift,
            job.params.libraries,
        )
