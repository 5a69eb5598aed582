"""The machine's noise through the run: every benchmark's `noise` record (written into its
metadata, results/raw/<driver>/<suite>/<input>.json, by run_benchmark with
jwtbench/machine_noise.py) as one table, results/noise.csv, one row per sampling interval
(columns: workflow/schemas/noise.schema.yaml). The log has one line per benchmark: its
intervals, the median and highest share of its CPUs others took, and the sampler's cost.

A metadata file from before the sampler existed has no record and adds no rows.
"""

import json
import statistics
from pathlib import Path

from jwtbench import result_tables

COLUMNS = result_tables.columns("noise.schema.yaml")


def job_rows(metadata):
    """The rows of one benchmark's metadata (a dict); [] without a noise record."""
    noise = metadata.get("noise") or {}
    job = {
        "job": f"{metadata['driver']}/{metadata['suite']}/{metadata['input']}",
        "language": metadata["language"],
        "suite": metadata["suite"],
        "input": metadata["input"],
    }
    return [{**job, **dict(zip(noise["columns"], values))} for values in noise.get("rows", [])]


def describe(path, metadata, rows):
    noise = metadata.get("noise")
    if not noise:
        return f"{path}: no noise record (a benchmark from before the sampler)"
    if noise.get("failure"):
        return f"{path}: the sampler failed after {len(rows)} intervals: {noise['failure']}"
    if not rows:
        return f"{path}: no interval (the driver ended within the first)"
    others = [row["others_pct"] for row in rows if row["others_pct"] is not None]
    cost = [row["sampler_ms"] for row in rows if row["sampler_ms"] is not None]
    return (
        f"{path}: {len(rows)} intervals on CPUs {noise['cpus']}; others {statistics.median(others):.1f}% "
        f"(median), {max(others):.1f}% (highest); sampler {statistics.median(cost):.2f} ms CPU per sample "
        f"on CPUs {noise['sampler_cpus']}"
    )


def summarize(metadata_paths, log=None):
    table = []
    for path in metadata_paths:
        metadata = json.loads(Path(path).read_text())
        rows = job_rows(metadata)
        table.extend(rows)
        if log:
            print(describe(path, metadata, rows), file=log)
    return table


def run_job(job):
    with open(job.log[0], "w") as log:
        table = summarize(job.input.metadata, log)
        result_tables.write_csv(job.output.noise, COLUMNS, table)
        print(f"{job.output.noise}: {len(table)} rows", file=log)
