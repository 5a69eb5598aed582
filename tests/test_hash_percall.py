"""Every driver runs suites hash and percall as the contract says (workflow/scripts/README.md)."""

import json

import pytest
from conftest import FIXTURE, JWS_LANGUAGES, REPO, run_conducted

from jwtbench import config_validation, raw_samples, variants
from jwtbench.rules import write_bench_spec

TIMING = {
    "warmup_seconds": 0.01,
    "samples": 3,
    "target_sample_seconds": 0.002,
    "max_cell_seconds": 20,
    "warmup_max_seconds": 0.05,
    "steady_window": 3,
    "steady_tolerance": 0.05,
}
HASH_CONFIG = {
    "algorithms": ["MD5", "SHA-1", "SHA-256", "SHA-512"],
    "cases": [
        {"name": "case1-uuid", "message": ["cached-uuid"]},
        {"name": "case3-newuuid-time", "message": ["fresh-uuid", "time-ms"]},
        {"name": "case5-uuid-uuid-time", "message": ["cached-uuid", "cached-uuid", "time-ms"]},
        {"name": "case6-newuuid-newuuid-time", "message": ["fresh-uuid", "fresh-uuid", "time-ms"]},
    ],
    "lengths": [16, 1000],
    "implementations": {"java": ["commons-codec", "jca"]},
}
MESSAGE_BYTES = {
    "case1-uuid": 36,
    "case3-newuuid-time": 49,
    "case5-uuid-uuid-time": 85,
    "case6-newuuid-newuuid-time": 85,
    "bytes-16": 16,
    "bytes-1000": 1000,
}
DIGEST_BYTES = {"MD5": 16, "SHA-1": 20, "SHA-256": 32, "SHA-512": 64}


def hash_spec(language, input_name, config=HASH_CONFIG):
    return {
        "format": "jwtbench-spec/1",
        "language": language,
        "suite": "hash",
        "timing": TIMING,
        "cells": write_bench_spec.hash_cells(language, config, input_name),
    }


def bench(language, env, spec, tmp_path):
    spec_file, out = tmp_path / "spec.json", tmp_path / "raw.csv"
    spec_file.write_text(json.dumps(spec))
    result = run_conducted(language, env, spec_file, str(out))
    assert result.returncode == 0, result.stderr
    return raw_samples.cells_only(raw_samples.read(out))  # raises on any contract violation


def cells_of(rows):
    found = {}
    for row in rows:
        found.setdefault(raw_samples.cell_key(row), []).append(row)
    return found


@pytest.mark.parametrize("input_name", ["cases", "lengths"])
@pytest.mark.parametrize("language", JWS_LANGUAGES)
def test_hash_cells_follow_the_contract(language, input_name, driver_env, tmp_path):
    spec = hash_spec(language, input_name)
    cells = cells_of(bench(language, driver_env, spec, tmp_path))
    assert len(cells) == len(spec["cells"])
    implementations = set(HASH_CONFIG["implementations"].get(language, []))
    assert {key[1] for key in cells} >= implementations
    for key, rows in cells.items():
        language_, implementation, suite, operation, algorithm, key_bits, input_ = key
        assert (suite, key_bits) == ("hash", 0)
        assert [r["status"] for r in rows] == ["ok"] * 3, key
        assert [r["sample"] for r in rows] == [1, 2, 3]
        assert {r["input_bytes"] for r in rows} == {MESSAGE_BYTES[input_]}, key
        expected_output = {
            "hex-digest": 2 * DIGEST_BYTES.get(algorithm, 0),
            "digest": DIGEST_BYTES.get(algorithm, 0),
            "generate": MESSAGE_BYTES[input_],
        }[operation]
        assert {r["output_bytes"] for r in rows} == {expected_output}, key
        assert all(r["elapsed_ns"] / r["iterations"] > 1 for r in rows), key
    generated = {key[6] for key in cells if key[3] == "generate"}
    assert generated == (
        {"case3-newuuid-time", "case5-uuid-uuid-time", "case6-newuuid-newuuid-time"} if input_name == "cases" else set()
    )


@pytest.mark.parametrize("language", JWS_LANGUAGES)
def test_a_wrong_known_answer_fails_only_its_cell(language, driver_env, tmp_path):
    spec = hash_spec(language, "lengths", {**HASH_CONFIG, "lengths": [16], "algorithms": ["SHA-1", "SHA-256"]})
    for wrong in (cell for cell in spec["cells"] if cell["algorithm"] == "SHA-256"):
        wrong["known_answer"] = {**wrong["known_answer"], "digest_hex": "00" * 32}
    cells = cells_of(bench(language, driver_env, spec, tmp_path))
    for key, rows in cells.items():
        statuses = {r["status"] for r in rows}
        assert statuses == ({"failed"} if key[4] == "SHA-256" else {"ok"}), key
        if key[4] == "SHA-256":
            assert [(r["sample"], r["iterations"], r["elapsed_ns"]) for r in rows] == [(0, 0, 0)]


def test_every_known_answer_is_right():
    import hashlib

    vectors = json.loads(write_bench_spec.HASH_KNOWN_ANSWERS.read_text())["vectors"]
    assert {v["algorithm"] for v in vectors} == set(DIGEST_BYTES)
    for vector in vectors:
        assert vector["source"]
        computed = hashlib.new(vector["algorithm"].replace("-", "").lower(), vector["message"].encode()).hexdigest()
        assert computed == vector["digest_hex"], vector["algorithm"]


@pytest.mark.parametrize("language", JWS_LANGUAGES)
def test_percall_times_each_call_cell_after_cell(language, keys, driver_env, tmp_path):
    names = ["HS256", "HS512", "RS256-2048", "ES256"]
    spec = {
        "format": "jwtbench-spec/1",
        "language": language,
        "suite": "percall",
        "timing": TIMING,
        "percall": {"warmup_calls": 3, "calls": 7},
        "cells": write_bench_spec.cells(
            "percall", {"algorithms": names, "operations": ["sign", "verify"]}, keys, "claims-001", str(FIXTURE)
        ),
    }
    rows = bench(language, driver_env, spec, tmp_path)
    order = []
    for row in rows:
        name = variants.name_of(row["algorithm"], row["key_bits"])
        if not order or order[-1] != (name, row["operation"]):
            order.append((name, row["operation"]))
    # One cell after another, in spec order: each cell's rows are contiguous.
    assert order == [(name, op) for name in names for op in ("sign", "verify")]
    for key, cell_rows in cells_of(rows).items():
        assert [r["status"] for r in cell_rows] == ["ok"] * 7, key
        assert [r["sample"] for r in cell_rows] == list(range(1, 8))
        assert {r["iterations"] for r in cell_rows} == {1}
        assert all(r["output_bytes"] > 100 for r in cell_rows)


def test_default_hash_spec_has_the_seeds_cases():
    config = config_validation.validate({}, REPO / "config" / "schemas" / "config.schema.yaml", {"java"})
    spec_cells = write_bench_spec.hash_cells("java", config["suites"]["hash"], "cases")
    keys = {(c.get("implementation"), c["operation"], c["algorithm"], c["input"]) for c in spec_cells}
    # 2 implementations x (4 algorithms x 6 cases + the generation of the 4 cases built per call)
    assert len(keys) == len(spec_cells) == 2 * (4 * 6 + 4)
    lengths = write_bench_spec.hash_cells("node", config["suites"]["hash"], "lengths")
    assert sorted({c["message_bytes"] for c in lengths}) == [16, 64, 256, 1024, 8192, 65536]
    assert all("implementation" not in c for c in lengths)
