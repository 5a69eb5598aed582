"""The cross-check's arithmetic (workflow/scripts/rules/summarize_crosscheck.py) on blocks
with known ratios: pairing by alternation, the CI by the stopping rule's order statistics,
the band's three outcomes, an explained gap, and the contract checks on a driver's CSV."""

import csv
import json
import math

import pytest

from jwtbench.rules import summarize_crosscheck as sc

SPEC = {"crosscheck": {"alternations": 6}, "cells": [{"operation": "sign", "algorithm": "HS256", "key_bits": 256}]}


def write_blocks(path, ratios, native_ns=1000.0, drift=None, cell=("sign", "HS256", 256)):
    """Blocks of one cell (and the reference at ratio 1) whose alternation k has driver /
    native = ratios[k-1]; `drift` multiplies both blocks of alternation k (the machine)."""
    rows = []
    for (operation, algorithm, bits), cell_ratios in (
        (cell, ratios),
        (("reference", "SHA-256", 0), [1.0] * len(ratios)),
    ):
        for k, ratio in enumerate(cell_ratios, start=1):
            speed = drift[k - 1] if drift else 1.0
            for timer in ("driver", "native") if k % 2 else ("native", "driver"):
                ns = native_ns * speed * (ratio if timer == "driver" else 1.0)
                rows.append(
                    {
                        "language": "node",
                        "implementation": "jsonwebtoken",
                        "implementation_version": "9.0.3",
                        "operation": operation,
                        "algorithm": algorithm,
                        "key_bits": bits,
                        "input": "claims-001",
                        "input_bytes": 185,
                        "alternation": k,
                        "timer": timer,
                        "harness": "jwtbench" if timer == "driver" else "mitata",
                        "harness_version": "" if timer == "driver" else "1.0.34",
                        "samples": 5,
                        "ns_per_op": f"{ns:.3f}",
                        "status": "ok",
                    }
                )
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, sc.BLOCK_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return path


def only_cell(path, gaps=None):
    table = sc.summarize({"node": path}, 0.05, {"node": gaps or {}})
    return next(row for row in table if row["operation"] == "sign")


def test_pairing_by_alternation_divides_the_machines_drift_out(tmp_path):
    """Both timers 1.3x slower in some alternations: each ratio is still 1.02."""
    path = write_blocks(tmp_path / "b.csv", [1.02] * 10, drift=[1, 1.3, 1, 1.3, 0.8, 1, 1.3, 1, 1, 0.9])
    row = only_cell(path)
    assert row["ratio"] == pytest.approx(1.02) and row["ratio_low"] == pytest.approx(1.02)
    assert row["agreement"] == "agrees" and row["alternations"] == 10
    assert (row["harness"], row["harness_version"], row["variant"]) == ("mitata", "1.0.34", "HS256")


@pytest.mark.parametrize(
    ("ratios", "agreement"),
    [
        ([1.01, 0.99, 1.03, 1.0, 1.02, 0.98, 1.04, 1.0, 1.01, 0.97], "agrees"),
        ([1.07, 1.08, 1.06, 1.09, 1.07, 1.08, 1.10, 1.06, 1.07, 1.08], "disagrees"),  # whole CI above 1.05
        ([1.02, 1.10, 1.04, 1.12, 1.06, 1.08, 1.07, 1.03, 1.09, 1.11], "outside"),  # median 1.075, CI reaches 1.04
        ([0.90, 0.91, 0.92, 0.90, 0.89, 0.93, 0.91, 0.90, 0.92, 0.91], "disagrees"),  # whole CI below 0.95
    ],
)
def test_the_band_decides_by_the_ratio_and_its_ci(tmp_path, ratios, agreement):
    row = only_cell(write_blocks(tmp_path / "b.csv", ratios))
    assert row["agreement"] == agreement, row
    assert row["ratio_low"] <= row["ratio"] <= row["ratio_high"]


def test_an_explained_gap_is_reported_as_explained_with_its_reason(tmp_path):
    row = only_cell(write_blocks(tmp_path / "b.csv", [1.2] * 8), {"sign HS256": "mitata leaves GC pauses out"})
    assert (row["agreement"], row["explanation"]) == ("explained", "mitata leaves GC pauses out")


def test_fewer_than_six_alternations_give_a_ratio_without_ci(tmp_path):
    row = only_cell(write_blocks(tmp_path / "b.csv", [1.0, 1.2, 1.1]))
    assert row["ratio"] == pytest.approx(1.1) and row["ratio_low"] is None and row["agreement"] == "outside"
    assert "no CI" in sc.describe(row)


def test_the_reference_is_a_cell_of_its_own(tmp_path):
    table = sc.summarize({"node": write_blocks(tmp_path / "b.csv", [1.0] * 6)}, 0.05, {})
    assert [(r["operation"], r["variant"]) for r in table] == [("sign", "HS256"), ("reference", "SHA-256")]


def test_a_driver_csv_missing_blocks_breaks_the_contract(tmp_path):
    path = write_blocks(tmp_path / "b.csv", [1.0] * 6)
    sc.check_blocks(sc.read_blocks(path), SPEC, path)
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:-2]) + "\n")  # the reference lost its last alternation
    with pytest.raises(sc.BlocksError, match="lacks 2 blocks"):
        sc.check_blocks(sc.read_blocks(path), SPEC, path)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda text: text.replace("timer,", "clock,", 1), "header"),
        (lambda text: text.replace(",driver,jwtbench,", ",drive,jwtbench,", 1), "is not driver or native"),
        (lambda text: text.replace(",1000.000,ok", ",0,ok", 1), "ns_per_op > 0"),
    ],
)
def test_a_malformed_block_is_named_by_its_line(tmp_path, edit, message):
    path = write_blocks(tmp_path / "b.csv", [1.0] * 6)
    path.write_text(edit(path.read_text()))
    with pytest.raises(sc.BlocksError, match=message):
        sc.read_blocks(path)


def test_written_table_has_the_schema_columns(tmp_path):
    table = sc.summarize({"node": write_blocks(tmp_path / "b.csv", [1.0] * 6)}, 0.05, {})
    sc.write(table, tmp_path / "crosscheck.csv")
    with open(tmp_path / "crosscheck.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert list(rows[0]) == sc.COLUMNS and not math.isnan(float(rows[0]["ratio"]))


@pytest.mark.parametrize("driver,split", [("java/jjwt", True), ("node", False)])
def test_only_a_driver_that_keeps_its_parent_aside_gets_the_conductors_cpus(tmp_path, monkeypatch, driver, split):
    """crosscheck_harness.split_cpus: java (JMH's parent JVM) gets the benchmark's CPUs and the
    others this process has, and the spec says which are which; any other driver its pinned CPUs."""
    from types import SimpleNamespace

    from jwtbench.rules import crosscheck_harness

    monkeypatch.setattr(crosscheck_harness.os, "sched_getaffinity", lambda pid: {0, 1})
    spec_path = tmp_path / "spec.json"
    spec_path.write_text(json.dumps({"crosscheck": {"alternations": 6, "block_seconds": 0.1}}))
    given = crosscheck_harness.split_cpus(SimpleNamespace(language=driver), spec_path, {1})
    written = json.loads(spec_path.read_text())["crosscheck"]
    assert given == ({0, 1} if split else {1})
    assert written.get("cpus") == ({"benchmark": [1], "conductor": [0]} if split else None)
    assert crosscheck_harness.split_cpus(SimpleNamespace(language=driver), spec_path, set()) == set()
