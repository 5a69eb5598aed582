"""The python driver runs suites primitive and keygen as the contract says
(workflow/scripts/README.md, "Suite primitive" and "Suite keygen"), natively, on tiny specs
made here from the session's keys."""

import json
import time

import pytest
from conftest import REPO, run_conducted, run_driver

from jwtbench import raw_samples

TIMING = {
    "warmup_seconds": 0.01,
    "samples": 3,
    "target_sample_seconds": 0.002,
    "max_cell_seconds": 20,
    "warmup_max_seconds": 0.05,
    "steady_window": 3,
    "steady_tolerance": 0.05,
}
VECTORS = {
    (v["operation"], v["algorithm"]): v
    for v in json.loads((REPO / "data" / "vectors" / "primitive-known-answers.json").read_text())["vectors"]
}
SIGNATURES = {"RSA-SHA256": ("rsa-2048", 2048), "ECDSA-SHA256": ("ec-p256", 256), "Ed25519": ("ed25519", 256)}
# (family, key_bits) -> the key files' stem; a generated public key's DER (SPKI) length
KEYGEN_KEYS = {("RSA", 2048): "rsa-2048", ("RSA", 4096): "rsa-4096", ("ECDSA", 256): "ec-p256"}
SPKI_BYTES = {("RSA", 2048): 294, ("ECDSA", 256): 91}


def known_answer(operation, algorithm):
    return {k: v for k, v in VECTORS[(operation, algorithm)].items() if k.endswith("_hex")}


def read_rows(path):
    """The cells' rows of a raw-sample CSV (checked against the contract, integers
    converted), without the drift reference's."""
    return raw_samples.cells_only(raw_samples.read(path))


def bench(env, spec, tmp_path, name="spec"):
    spec_file, out = tmp_path / f"{name}.json", tmp_path / f"{name}.csv"
    spec_file.write_text(json.dumps(spec))
    result = run_conducted("python", env, spec_file, str(out))
    assert result.returncode == 0, result.stderr
    return out, result


def cells_of(rows):
    found = {}
    for row in rows:
        key = (row["implementation"], row["operation"], row["algorithm"], row["key_bits"], row["input"])
        found.setdefault(key, []).append(row)
    return found


def primitive_spec(keys, signing_input):
    secret = str(keys / "hmac-256.secret")
    cells = [
        {
            "operation": "digest",
            "algorithm": algorithm,
            "key_bits": 0,
            "input": "bytes-16",
            "message_bytes": 16,
            "known_answer": known_answer("digest", algorithm),
        }
        for algorithm in ("SHA-256", "SHA-512")
    ]
    for operation, algorithm in (("mac", "HMAC-SHA256"), ("encrypt", "AES-256-GCM")):
        cells.append(
            {
                "operation": operation,
                "algorithm": algorithm,
                "key_bits": 256,
                "private_key": secret,
                "public_key": secret,
                "input": "bytes-64",
                "message_bytes": 64,
                "known_answer": known_answer(operation, algorithm),
            }
        )
    cells.append(
        {
            "operation": "mac",
            "algorithm": "HMAC-SHA256",
            "key_bits": 256,
            "private_key": secret,
            "public_key": secret,
            "input": "jwt-signing-input",
            "input_file": str(signing_input),
            "input_kind": "bytes",
            "known_answer": known_answer("mac", "HMAC-SHA256"),
        }
    )
    for algorithm, (stem, bits) in SIGNATURES.items():
        for operation in ("sign", "verify"):
            cells.append(
                {
                    "operation": operation,
                    "algorithm": algorithm,
                    "key_bits": bits,
                    "private_key": str(keys / f"{stem}.private.pem"),
                    "public_key": str(keys / f"{stem}.public.pem"),
                    "input": "bytes-36",
                    "message_bytes": 36,
                }
            )
    return {"format": "jwtbench-spec/1", "language": "python", "suite": "primitive", "timing": TIMING, "cells": cells}


@pytest.fixture
def signing_input(tmp_path):
    path = tmp_path / "jwt-signing-input.bin"
    path.write_bytes(b"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0")
    return path


def test_primitive_cells_are_checked_and_timed(keys, driver_env, tmp_path, signing_input):
    spec = primitive_spec(keys, signing_input)
    out, _ = bench(driver_env, spec, tmp_path)
    cells = cells_of(read_rows(out))
    assert len(cells) == len(spec["cells"])
    output_bytes = {
        "SHA-256": 32,
        "SHA-512": 64,
        "HMAC-SHA256": 32,
        "AES-256-GCM": 64 + 16,
        "RSA-SHA256": 256,
        "Ed25519": 64,
    }
    for (implementation, operation, algorithm, key_bits, input_), rows in cells.items():
        assert [r["status"] for r in rows] == ["ok"] * 3, (operation, algorithm, input_)
        assert [r["sample"] for r in rows] == [1, 2, 3]
        assert implementation == ("hashlib" if operation == "digest" else "cryptography")
        assert all(r["iterations"] >= 1 and r["elapsed_ns"] > 0 for r in rows)
        message = {"bytes-16": 16, "bytes-64": 64, "bytes-36": 36, "jwt-signing-input": signing_input.stat().st_size}[
            input_
        ]
        assert {r["input_bytes"] for r in rows} == {message}
        if algorithm == "ECDSA-SHA256":
            assert all(68 <= r["output_bytes"] <= 72 for r in rows)  # DER
        else:
            assert {r["output_bytes"] for r in rows} == {output_bytes[algorithm]}, (operation, algorithm)


def test_a_wrong_known_answer_fails_only_its_cell(keys, driver_env, tmp_path, signing_input):
    spec = primitive_spec(keys, signing_input)
    spec["cells"] = [cell for cell in spec["cells"] if cell["operation"] in ("digest", "mac", "encrypt")]
    wrong = [spec["cells"][1], spec["cells"][3]]  # SHA-512 and AES-256-GCM
    for cell in wrong:
        answer = cell["known_answer"]["output_hex"]
        cell["known_answer"]["output_hex"] = ("0" if answer[0] != "0" else "1") + answer[1:]
    out, result = bench(driver_env, spec, tmp_path)
    cells = cells_of(read_rows(out))
    assert len(cells) == len(spec["cells"])
    for (_, operation, algorithm, _, input_), rows in cells.items():
        if algorithm in ("SHA-512", "AES-256-GCM"):
            assert [(r["status"], r["sample"], r["iterations"], r["elapsed_ns"]) for r in rows] == [
                ("failed", 0, 0, 0)
            ], algorithm
        else:
            assert [r["status"] for r in rows] == ["ok"] * 3, (operation, algorithm, input_)
    assert "known answer" in result.stderr


def test_a_malformed_primitive_cell_fails_naming_what_it_lacks(keys, driver_env, tmp_path, signing_input):
    """A cell the worker cannot prepare (the workflow writes every field; this one lost its
    known answer's key) is `failed`, the reason naming the field; the other cells are timed."""
    spec = primitive_spec(keys, signing_input)
    del spec["cells"][2]["known_answer"]["key_hex"]
    spec_file = tmp_path / "bad.json"
    spec_file.write_text(json.dumps(spec))
    result = run_conducted("python", driver_env, spec_file, str(tmp_path / "x.csv"))
    assert result.returncode == 0 and "key_hex" in result.stderr, result.stderr[-2000:]
    rows = raw_samples.cells_only(raw_samples.read(tmp_path / "x.csv"))
    assert {r["status"] for r in rows if r["sample"] == 0} == {"failed"}
    assert {r["status"] for r in rows if r["sample"] > 0} == {"ok"}


def keygen_cell(keys, operation, family, bits, implementation, message_bytes):
    stem = KEYGEN_KEYS[(family, bits)]
    algorithm = f"{family}-SHA256"
    return {
        "operation": operation,
        "algorithm": algorithm,
        "family": family,
        "key_bits": bits,
        "private_key": str(keys / f"{stem}.private.pem"),
        "public_key": str(keys / f"{stem}.public.pem"),
        "implementation": implementation,
        "input": f"msg-{message_bytes}" if message_bytes else "keypair",
        "message_bytes": message_bytes,
    }


def keygen_spec(cells, **settings):
    return {
        "format": "jwtbench-spec/1",
        "language": "python",
        "suite": "keygen",
        "timing": TIMING,
        "keygen": {"iterations": 2, "target_cell_seconds": 0, "max_iterations": 4, "max_cell_seconds": 60, **settings},
        "cells": cells,
    }


def test_keygen_cells_follow_the_contract(keys, driver_env, tmp_path):
    cells = []
    for implementation in ("pycryptodome", "cryptography"):
        for family, bits in (("RSA", 2048), ("ECDSA", 256)):
            cells += [
                keygen_cell(keys, "keygen", family, bits, implementation, 0),
                keygen_cell(keys, "keygen+sign+verify", family, bits, implementation, 10),
                keygen_cell(keys, "sign", family, bits, implementation, 100),
                keygen_cell(keys, "verify", family, bits, implementation, 100),
            ]
    del cells[-1]["implementation"]  # the default: cryptography
    out, result = bench(driver_env, keygen_spec(cells), tmp_path)
    found = cells_of(read_rows(out))
    assert len(found) == len(cells)
    assert {key[0] for key in found} == {"pycryptodome", "cryptography"}
    for (implementation, operation, algorithm, bits, input_), rows in found.items():
        family = algorithm.split("-")[0]
        assert all(r["status"] == "ok" for r in rows), (implementation, operation, algorithm)
        assert {r["input_bytes"] for r in rows} == {int(input_.split("-")[1]) if input_ != "keypair" else 0}
        if operation in ("keygen", "keygen+sign+verify"):
            assert 2 <= len(rows) <= 4, (implementation, operation, algorithm)
            assert [r["sample"] for r in rows] == list(range(1, len(rows) + 1))
            assert {r["iterations"] for r in rows} == {1}
            assert all(r["elapsed_ns"] > 0 for r in rows)
        else:
            assert [r["sample"] for r in rows] == [1, 2, 3]
        if operation == "keygen":
            assert {r["output_bytes"] for r in rows} == {SPKI_BYTES[(family, bits)]}
        elif family == "RSA":
            assert {r["output_bytes"] for r in rows} == {256}
        elif implementation == "pycryptodome":
            assert {r["output_bytes"] for r in rows} == {64}  # r || s
        else:
            assert all(68 <= r["output_bytes"] <= 72 for r in rows)  # DER
    assert "iterations, median" in result.stderr


def test_a_keygen_cell_past_its_budget_is_killed(keys, driver_env, tmp_path):
    """RSA-4096 (the session's largest key) on a budget far below its key generation: both
    implementations' per-iteration cells come out timeout, each stopped while its key
    generation ran (the conductor restarts the worker), never waiting for it to end."""
    budget = 0.3
    cells = [
        keygen_cell(keys, operation, "RSA", 4096, implementation, message_bytes)
        for implementation in ("pycryptodome", "cryptography")
        for operation, message_bytes in (("keygen", 0), ("keygen+sign+verify", 10))
    ]
    cells.append(keygen_cell(keys, "keygen+sign+verify", "ECDSA", 256, "cryptography", 10))
    start = time.monotonic()
    out, result = bench(
        driver_env, keygen_spec(cells, iterations=5, max_iterations=5, max_cell_seconds=budget), tmp_path
    )
    took = time.monotonic() - start
    assert took < 4 * budget + 30, f"the run took {took:.1f} s"  # four workers' starts, on a shared machine
    found = cells_of(read_rows(out))
    assert len(found) == len(cells)
    for (implementation, operation, algorithm, bits, _), rows in found.items():
        if bits == 256:  # a P-256 cell does its 5 iterations well within the budget
            assert [r["status"] for r in rows] == ["ok"] * 5
            continue
        assert {r["status"] for r in rows} == {"timeout"}, (implementation, operation)
        assert len(rows) < 5
        if rows[0]["sample"] == 0:
            assert len(rows) == 1 and rows[0]["iterations"] == 0
            assert budget * 1e9 <= rows[0]["elapsed_ns"] < (budget + 1) * 1e9
    assert "timeout" in result.stderr
    assert "its worker is restarted" in result.stderr, result.stderr[-2000:]  # a generation stopped mid-way


def test_pycryptodome_integer_is_reported(driver_env):
    result = run_driver("python", driver_env, "versions")
    versions = json.loads(result.stdout)
    assert versions["libraries"]["pycryptodome"]
    assert "Integer" in versions["pycryptodome_integer"]


def test_primitive_rows_pass_the_raw_sample_schema(keys, driver_env, tmp_path, signing_input):
    out, _ = bench(driver_env, primitive_spec(keys, signing_input), tmp_path)
    assert raw_samples.read(out)


def test_keygen_rows_pass_the_raw_sample_schema(keys, driver_env, tmp_path):
    cells = [
        keygen_cell(keys, operation, "ECDSA", 256, "cryptography", 10)
        for operation in ("keygen+sign+verify", "sign", "verify")
    ]
    out, _ = bench(driver_env, keygen_spec(cells), tmp_path)
    assert raw_samples.read(out)
