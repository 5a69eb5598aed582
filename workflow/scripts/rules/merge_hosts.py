"""Put the runs of several hosts side by side from their bundles (config merge.bundles).

Writes, into one directory (results/merged/), every table with host_id, run_id and label
(host and run: two runs of one host stay apart):
  summary.csv   every bundle's summary rows
  ratios.csv    every bundle's within-run ratios (comparable across hosts)
  verdicts.csv  every bundle's seed verdicts, one row per claim and run
  runs.csv      one row per bundle: which run, which host, with what
report/merge.qmd renders them (rule render_merged): absolute times are faceted by host
and run, never pooled.
"""

import csv
from pathlib import Path

from jwtbench import result_tables
from jwtbench.rules import compare_runs

SCHEMA = "merged.schema.yaml"
# The columns that name the run, first in every table (runs.csv's, without its facts).
RUN_COLUMNS = result_tables.columns(SCHEMA, "runs", facts=[])


def read_table(path, columns):
    """The rows of a bundle's CSV, checked to have the contract's columns."""
    with open(path, newline="") as handle:
        reader = csv.DictReader(handle)
        absent = [name for name in columns if name not in (reader.fieldnames or [])]
        if absent:
            raise compare_runs.CompareError(f"{path}:1: lacks column(s) {', '.join(absent)}")
        return list(reader)


def label_of(manifest):
    return f"{manifest['host_id']} / {manifest['run_id']}"


def main(paths, out_dir, log):
    if not paths:
        raise compare_runs.CompareError(
            "config key 'merge.bundles' is empty: name one or more bundles, --config 'merge={bundles: [A, B]}'"
        )
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    summary_columns, ratio_columns = (
        result_tables.columns("summary.schema.yaml"),
        result_tables.columns("ratios.schema.yaml"),
    )
    summary, ratios, verdicts, runs, id_columns = [], [], [], [], []
    with compare_runs.open_bundles(paths, "merge.bundles") as opened:
        seen = {}
        for index, ((directory, manifest), path) in enumerate(zip(opened, paths)):
            run = (manifest["host_id"], manifest["run_id"])
            if run in seen:
                raise compare_runs.CompareError(
                    f"config key 'merge.bundles[{index}]' ({path}) is the same run as "
                    f"merge.bundles[{seen[run]}] (host {run[0]}, run {run[1]}): name each run once"
                )
            seen[run] = index
            tag = {"host_id": manifest["host_id"], "run_id": manifest["run_id"], "label": label_of(manifest)}
            # A bundle written before summary.csv had `bimodal` merges with it empty.
            summary_required = [name for name in summary_columns if name != "bimodal"]
            summary += [{**tag, **row} for row in read_table(directory / "summary.csv", summary_required)]
            ratios += [{**tag, **row} for row in read_table(directory / "ratios.csv", ratio_columns)]
            found, ids = compare_runs.read_verdicts(directory)
            id_columns.extend(name for name in ids if name not in id_columns)
            for (seed, _), row in found.items():
                verdicts.append({**tag, "seed": seed, **row})
            runs.append({**tag, **dict(compare_runs.run_facts(directory, manifest, path))})
    write, columns = result_tables.write_csv, result_tables.columns
    write(out_dir / "summary.csv", columns(SCHEMA, "summary", summary_columns=summary_columns), summary)
    write(out_dir / "ratios.csv", columns(SCHEMA, "ratios", ratio_columns=ratio_columns), ratios)
    # Of a verdict's measures only its figures (compare_runs.VERDICT_FIGURES) are merged: its
    # reason, comparisons, pairing and processes stay in the bundle's own table.
    write(out_dir / "verdicts.csv", columns(SCHEMA, "verdicts", claim_columns=id_columns), verdicts, extra="ignore")
    fact_names = list(dict.fromkeys(name for row in runs for name in row if name not in RUN_COLUMNS))
    write(out_dir / "runs.csv", columns(SCHEMA, "runs", facts=fact_names), runs)
    hosts = len({row["host_id"] for row in runs})
    print(
        f"{len(runs)} runs of {hosts} hosts: {len(summary)} summary rows, {len(ratios)} ratios, "
        f"{len(verdicts)} verdicts",
        file=log,
    )
    return runs


def run_job(job):
    with open(job.log[0], "w") as log:
        try:
            main(job.params.bundles, Path(job.output.summary).parent, log)
        except compare_runs.CompareError as error:
            print(f"error: {error}", file=log)
            raise
