"""Read and check a raw-sample CSV against its contract (workflow/schemas/raw_samples.schema.yaml).

Every problem names the file and line. Used by the benchmark wrapper (on each driver's
output), by aggregation, and by the tests.
"""

import csv
from pathlib import Path

from jwtbench import registry, result_tables

SCHEMA = result_tables.schema("raw_samples.schema.yaml")
COLUMNS = SCHEMA["x-columns"]
PROPERTIES = SCHEMA["properties"]
PROPERTIES["suite"]["enum"] = registry.load().bench_suites  # the registry's suites (workflow/suites.yaml)
# A file openssl's `bench` writes (or a run before several workers) has every column but the worker's.
WORKER = "worker"
ONE_PROCESS_COLUMNS = [name for name in COLUMNS if name != WORKER]
INTEGER_COLUMNS = [name for name in COLUMNS if PROPERTIES[name]["type"] == "integer"]
UNTIMED = ("unsupported", "failed")


class RawSamplesError(Exception):
    pass


def check_row(row):
    """Problems with one row (a dict of strings), converted in place to typed values."""
    problems = []
    for name in INTEGER_COLUMNS:
        try:
            row[name] = int(row[name])
        except (TypeError, ValueError):
            problems.append(f"{name}={row[name]!r} is not an integer")
            continue
        if row[name] < PROPERTIES[name].get("minimum", 0):
            problems.append(f"{name}={row[name]} is below {PROPERTIES[name]['minimum']}")
    for name in COLUMNS:
        prop = PROPERTIES[name]
        if "enum" in prop and row[name] not in prop["enum"]:
            problems.append(f"{name}={row[name]!r} is not one of {', '.join(prop['enum'])}")
        if prop.get("minLength") and not row[name]:
            problems.append(f"{name} is empty")
    if problems:
        return problems
    if row["status"] == "ok" and (row["sample"] < 1 or row["iterations"] < 1 or row["elapsed_ns"] < 1):
        problems.append("an ok row needs sample, iterations and elapsed_ns >= 1")
    if row["status"] in UNTIMED and (row["sample"], row["iterations"], row["elapsed_ns"]) != (0, 0, 0):
        problems.append(f"a {row['status']} row must have sample=0, iterations=0, elapsed_ns=0")
    return problems


def read(path):
    """The typed rows of a raw CSV; RawSamplesError naming file:line on any violation. A
    file without the worker column (openssl's bench: one process) reads as worker 1."""
    path = Path(path)
    with open(path, newline="") as handle:
        reader = csv.reader(handle)
        try:
            header = next(reader)
        except StopIteration:
            raise RawSamplesError(f"{path}: empty file (no header)") from None
        one_process = header == ONE_PROCESS_COLUMNS
        if header != COLUMNS and not one_process:
            raise RawSamplesError(f"{path}:1: header {','.join(header)!r} is not the contract's {','.join(COLUMNS)!r}")
        rows = []
        for line, values in enumerate(reader, start=2):
            if len(values) != len(header):
                raise RawSamplesError(f"{path}:{line}: {len(values)} fields, expected {len(header)}")
            row = dict(zip(header, values))
            if one_process:
                row[WORKER] = "1" if row["sample"] not in ("", "0") else "0"
            problems = check_row(row)
            if problems:
                raise RawSamplesError(f"{path}:{line}: " + "; ".join(problems))
            rows.append(row)
    return rows


# The drift reference's rows (one per round) carry this operation. They
# are not a cell: aggregation writes them to results/drift.csv, everything else skips them.
REFERENCE = "reference"


def cells_only(rows):
    """The rows of cells, without the drift reference's."""
    return [row for row in rows if row["operation"] != REFERENCE]


def cell_key(row):
    return (
        row["language"],
        row["implementation"],
        row["suite"],
        row["operation"],
        row["algorithm"],
        row["key_bits"],
        row["input"],
    )


# A transfer cell's one trial yields rows of three operations (workflow/scripts/README.md).
TRANSFER_OPERATIONS = ["request-response", "sign", "verify"]


def operations_written(suite, operation):
    """The operations whose rows a spec cell of `operation` produces."""
    return TRANSFER_OPERATIONS if suite == "transfer" else [operation]
