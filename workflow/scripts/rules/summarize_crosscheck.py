"""The cross-check's ratios: every driver's blocks (results/crosscheck/<driver>.csv, written by
its `crosscheck` command) to one row per cell: the first pass's table
(results/crosscheck/first-pass.csv), which the confirmation pass (crosscheck_harness.confirm)
turns into results/crosscheck.csv.

A cell's ratio is the median over its alternations of (the driver's block / the native
harness's block of the same alternation): the two blocks of one alternation were timed
seconds apart in one process, so a slow minute of the machine divides out. Its CI is the
median's by the stopping rule's order statistics (jwtbench/stopping_rule.py). Against the band
1 +/- `band`: `agrees` when the ratio is inside; `outside` when it is not but the CI reaches
into the band (not shown to differ); `disagrees` when the whole CI lies outside. A gap the
driver's folder explains (driver.yaml `crosscheck_gaps`, keyed "operation variant") is
reported as `explained`, with its reason, instead of as a disagreement (which the
confirmation pass measures again and, if it holds, the run warns of: run_warnings.py).
"""

import csv
import math

from jwtbench import result_tables, stopping_rule, variants

BLOCK_COLUMNS = result_tables.columns("crosscheck_blocks.schema.yaml")
COLUMNS = result_tables.columns("crosscheck.schema.yaml")
TIMERS = ("driver", "native")
CONFIDENCE = 0.95


class BlocksError(ValueError):
    """A driver's crosscheck CSV breaks the contract (workflow/scripts/README.md)."""


def read_blocks(path):
    with open(path, newline="") as handle:
        reader = csv.DictReader(handle)
        if reader.fieldnames != BLOCK_COLUMNS:
            raise BlocksError(f"{path}: header {reader.fieldnames}, expected {BLOCK_COLUMNS}")
        rows = list(reader)
    for number, row in enumerate(rows, start=2):
        try:
            row["key_bits"], row["alternation"] = int(row["key_bits"]), int(row["alternation"])
            row["ns_per_op"] = float(row["ns_per_op"]) if row["ns_per_op"] else None
        except ValueError as error:
            raise BlocksError(f"{path}, line {number}: {error}") from None
        if row["timer"] not in TIMERS:
            raise BlocksError(f"{path}, line {number}: timer {row['timer']!r} is not driver or native")
        if row["status"] == "ok" and not (row["ns_per_op"] and row["ns_per_op"] > 0 and row["alternation"] >= 1):
            raise BlocksError(f"{path}, line {number}: an ok block needs alternation >= 1 and ns_per_op > 0")
    return rows


def check_blocks(rows, spec, path):
    """Every cell of the spec, and the reference, has both timers' blocks of every
    alternation, or one row with its status."""
    alternations = spec["crosscheck"]["alternations"]
    wanted = [(c["operation"], c["algorithm"], c["key_bits"]) for c in spec["cells"]]
    wanted.append(("reference", "SHA-256", 0))
    for cell in wanted:
        mine = [r for r in rows if (r["operation"], r["algorithm"], r["key_bits"]) == cell]
        if not mine:
            raise BlocksError(f"{path}: no rows for {' '.join(map(str, cell))}")
        if mine[0]["status"] != "ok":
            continue
        blocks = {(r["alternation"], r["timer"]) for r in mine if r["status"] == "ok"}
        missing = {(k, t) for k in range(1, alternations + 1) for t in TIMERS} - blocks
        if missing:
            raise BlocksError(f"{path}: {' '.join(map(str, cell))} lacks {len(missing)} blocks, e.g. {min(missing)}")


def agreement(ratio, low, high, band):
    if abs(ratio - 1) <= band:
        return "agrees"
    return "disagrees" if (high < 1 - band or low > 1 + band) else "outside"


def cell_row(driver, rows, band, gaps):
    first = rows[0]
    variant = (
        "SHA-256" if first["operation"] == "reference" else variants.name_of(first["algorithm"], first["key_bits"])
    )
    row = {
        "driver": driver,
        "language": first["language"],
        "library": first["implementation"],
        "library_version": first["implementation_version"],
        "operation": first["operation"],
        "variant": variant,
        "band": band,
        "status": first["status"],
    }
    if first["status"] != "ok":
        return row
    by_alternation = {}
    for block in rows:
        by_alternation.setdefault(block["alternation"], {})[block["timer"]] = block
    native = [blocks["native"] for _, blocks in sorted(by_alternation.items())]
    ratios = [b["driver"]["ns_per_op"] / b["native"]["ns_per_op"] for _, b in sorted(by_alternation.items())]
    ratio, low, high = stopping_rule.median_ci(ratios, CONFIDENCE)
    verdict = agreement(ratio, low, high, band)
    reason = gaps.get(f"{row['operation']} {variant}", "")
    row.update(
        harness=native[0]["harness"],
        harness_version=native[0]["harness_version"],
        alternations=len(ratios),
        driver_ns=stopping_rule.median([b["driver"]["ns_per_op"] for b in by_alternation.values()]),
        native_ns=stopping_rule.median([b["ns_per_op"] for b in native]),
        ratio=ratio,
        ratio_low=None if math.isinf(low) else low,
        ratio_high=None if math.isinf(high) else high,
        agreement="explained" if verdict != "agrees" and reason else verdict,
        explanation=reason,
    )
    return row


def summarize(blocks, band, gaps_of):
    """blocks: {driver: path of its blocks CSV}; gaps_of: {driver: {"operation variant": reason}}."""
    table = []
    for driver, path in blocks.items():
        cells = {}
        for row in read_blocks(path):
            cells.setdefault((row["operation"], row["algorithm"], row["key_bits"]), []).append(row)
        table += [cell_row(driver, rows, band, gaps_of.get(driver, {})) for rows in cells.values()]
    return table


def write(table, path):
    result_tables.write_csv(path, COLUMNS, table)


def describe(row):
    """One line per cell, for the log and the console."""
    head = f"{row['driver']} {row['operation']} {row['variant']}"
    if row["status"] != "ok":
        return f"{head}: {row['status']}"
    ci = "no CI" if row["ratio_low"] is None else f"CI {row['ratio_low']:.3f}-{row['ratio_high']:.3f}"
    return (
        f"{head}: jwtbench / {row['harness']} = {row['ratio']:.3f} ({ci}, {row['alternations']} alternations): "
        f"{row['agreement']}{': ' + row['explanation'] if row['explanation'] else ''}"
    )


def run_job(job):
    with open(job.log[0], "w") as log:
        table = summarize(dict(zip(job.params.drivers, job.input.blocks)), job.params.band, job.params.gaps)
        write(table, job.output[0])
        for row in table:
            print(describe(row), file=log)
