"""The node driver runs suites primitive and keygen as the contract says
(workflow/scripts/README.md, "Suite `primitive`" and "Suite `keygen`"), natively, on tiny
specs: every cell ok, a wrong known answer fails only its cell, a per-iteration cell
whose key generation outlasts max_cell_seconds is stopped (status timeout) and the bench
returns soon after, keygen rows are one iteration each."""

import json
import time

import pytest
from conftest import REPO, run_conducted, run_driver

from jwtbench import raw_samples
from jwtbench.rules import generate_keys

LANGUAGE = "node"
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
    (v["operation"], v["algorithm"]): {k: v[k] for k in ("key_hex", "nonce_hex", "message_hex", "output_hex") if k in v}
    for v in json.loads((REPO / "data" / "vectors" / "primitive-known-answers.json").read_text())["vectors"]
}


@pytest.fixture(scope="module")
def node_keys(tmp_path_factory):
    """This module's own keys (RSA-7680 included)."""
    out = tmp_path_factory.mktemp("node-keys")
    for name in ("hmac-256", "rsa-2048", "ec-p256", "ed25519", "rsa-7680"):
        generate_keys.generate(name, out)
    return out


def read_rows(path):
    return raw_samples.cells_only(raw_samples.read(path))


def bench(env, spec, tmp_path):
    spec_file, out = tmp_path / "spec.json", tmp_path / "raw.csv"
    spec_file.write_text(json.dumps(spec))
    started = time.monotonic()
    result = run_conducted(LANGUAGE, env, spec_file, str(out))
    seconds = time.monotonic() - started
    assert result.returncode == 0, result.stderr
    return read_rows(out), seconds, result.stderr


def cells_of(rows):
    found = {}
    for row in rows:
        found.setdefault((row["operation"], row["algorithm"], row["key_bits"], row["input"]), []).append(row)
    return found


def openssl_version(env):
    result = run_driver(LANGUAGE, env, "versions")
    assert result.returncode == 0, result.stderr
    backend = json.loads(result.stdout)["crypto_backend"]  # "OpenSSL 3.0.19 (bundled with node)"
    return backend.split()[1]


# ---------------------------------------------------------------------------------------
# Suite primitive


def pem(keys, name):
    return {"private_key": str(keys / f"{name}.private.pem"), "public_key": str(keys / f"{name}.public.pem")}


def primitive_spec(keys, tmp_path):
    secret = str(keys / "hmac-256.secret")
    signing_input = tmp_path / "jwt-signing-input.bin"
    signing_input.write_bytes(b"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0")
    cells = []
    for algorithm in ("SHA-256", "SHA-512"):
        cells.append(
            {
                "operation": "digest",
                "algorithm": algorithm,
                "key_bits": 0,
                "input": "bytes-64",
                "message_bytes": 64,
                "known_answer": VECTORS[("digest", algorithm)],
            }
        )
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
                "known_answer": VECTORS[(operation, algorithm)],
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
            "known_answer": VECTORS[("mac", "HMAC-SHA256")],
        }
    )
    for algorithm, key, bits in (
        ("RSA-SHA256", "rsa-2048", 2048),
        ("ECDSA-SHA256", "ec-p256", 256),
        ("Ed25519", "ed25519", 256),
    ):
        for operation in ("sign", "verify"):
            cells.append(
                {
                    "operation": operation,
                    "algorithm": algorithm,
                    "key_bits": bits,
                    **pem(keys, key),
                    "input": "bytes-36",
                    "message_bytes": 36,
                }
            )
    return {"format": "jwtbench-spec/1", "language": LANGUAGE, "suite": "primitive", "timing": TIMING, "cells": cells}


def primitive_output_bytes(operation, algorithm, input_bytes):
    if operation == "digest":
        return {"SHA-256": {32}, "SHA-512": {64}}[algorithm]
    if operation == "mac":
        return {32}
    if operation == "encrypt":
        return {input_bytes + 16}
    return {"RSA-SHA256": {256}, "Ed25519": {64}, "ECDSA-SHA256": set(range(68, 73))}[algorithm]


def test_primitive_cells_follow_the_contract(driver_env, node_keys, tmp_path):
    spec = primitive_spec(node_keys, tmp_path)
    rows, _, _ = bench(driver_env, spec, tmp_path)
    cells = cells_of(rows)
    assert len(cells) == len(spec["cells"])
    version = openssl_version(driver_env)
    for (operation, algorithm, key_bits, input_), cell_rows in cells.items():
        assert [r["status"] for r in cell_rows] == ["ok"] * 3, (operation, algorithm, input_)
        assert [r["sample"] for r in cell_rows] == [1, 2, 3]
        assert {(r["language"], r["implementation"], r["implementation_version"], r["suite"]) for r in cell_rows} == {
            (LANGUAGE, "crypto", version, "primitive")
        }
        input_bytes = {"bytes-64": 64, "bytes-36": 36, "jwt-signing-input": 48}[input_]
        assert {r["input_bytes"] for r in cell_rows} == {input_bytes}
        assert {r["output_bytes"] for r in cell_rows} <= primitive_output_bytes(operation, algorithm, input_bytes)
        assert all(r["iterations"] >= 1 and r["elapsed_ns"] / r["iterations"] > 10 for r in cell_rows)


def test_a_wrong_known_answer_fails_only_its_cell(driver_env, node_keys, tmp_path):
    spec = primitive_spec(node_keys, tmp_path)
    wrong = [
        c
        for c in spec["cells"]
        if (c["operation"], c["algorithm"]) in {("digest", "SHA-256"), ("encrypt", "AES-256-GCM")}
    ]
    for cell in wrong:
        expected = cell["known_answer"]["output_hex"]
        cell["known_answer"] = {
            **cell["known_answer"],
            "output_hex": ("1" if expected[0] == "0" else "0") + expected[1:],
        }
    rows, _, stderr = bench(driver_env, spec, tmp_path)
    cells = cells_of(rows)
    assert len(cells) == len(spec["cells"])
    failed = {(c["operation"], c["algorithm"], c["key_bits"], c["input"]) for c in wrong}
    for key, cell_rows in cells.items():
        if key in failed:
            assert [(r["status"], r["sample"], r["iterations"], r["elapsed_ns"]) for r in cell_rows] == [
                ("failed", 0, 0, 0)
            ]
        else:
            assert {r["status"] for r in cell_rows} == {"ok"}, key
    assert "known answer" in stderr


# ---------------------------------------------------------------------------------------
# Suite keygen


def keygen_spec(keys, cells, **block):
    return {
        "format": "jwtbench-spec/1",
        "language": LANGUAGE,
        "suite": "keygen",
        "timing": TIMING,
        "cells": cells,
        "keygen": {"iterations": 3, "target_cell_seconds": 0.05, "max_iterations": 20, "max_cell_seconds": 20, **block},
    }


def keygen_cell(keys, operation, family, algorithm, bits, key, message_bytes):
    return {
        "operation": operation,
        "algorithm": algorithm,
        "family": family,
        "key_bits": bits,
        **pem(keys, key),
        "input": "keypair" if operation == "keygen" else f"msg-{message_bytes}",
        "message_bytes": message_bytes,
    }


def test_keygen_cells_follow_the_contract(driver_env, node_keys, tmp_path):
    cells = [
        keygen_cell(node_keys, "keygen", "ECDSA", "ECDSA-SHA256", 256, "ec-p256", 0),
        keygen_cell(node_keys, "keygen+sign+verify", "ECDSA", "ECDSA-SHA256", 256, "ec-p256", 10),
        keygen_cell(node_keys, "sign", "ECDSA", "ECDSA-SHA256", 256, "ec-p256", 10),
        keygen_cell(node_keys, "verify", "ECDSA", "ECDSA-SHA256", 256, "ec-p256", 10),
        keygen_cell(node_keys, "keygen+sign+verify", "RSA", "RSA-SHA256", 2048, "rsa-2048", 100),
    ]
    spec = keygen_spec(node_keys, cells)
    rows, _, stderr = bench(driver_env, spec, tmp_path)
    found = cells_of(rows)
    assert len(found) == len(cells)
    version = openssl_version(driver_env)
    for (operation, algorithm, key_bits, input_), cell_rows in found.items():
        assert {r["status"] for r in cell_rows} == {"ok"}, (operation, algorithm, input_)
        assert {(r["implementation"], r["implementation_version"], r["suite"]) for r in cell_rows} == {
            ("crypto", version, "keygen")
        }
        assert [r["sample"] for r in cell_rows] == list(range(1, len(cell_rows) + 1))
        assert {r["input_bytes"] for r in cell_rows} == {0 if operation == "keygen" else int(input_[4:])}
        if operation in ("keygen", "keygen+sign+verify"):
            assert 3 <= len(cell_rows) <= 20, (operation, algorithm)
            assert {r["iterations"] for r in cell_rows} == {1}
        else:
            assert len(cell_rows) == 3
        outputs = {r["output_bytes"] for r in cell_rows}
        if operation == "keygen":
            assert outputs == {91}  # a P-256 public key's SPKI DER
        elif algorithm == "RSA-SHA256":
            assert outputs == {256}
        else:
            assert outputs <= set(range(68, 73))  # a P-256 ECDSA signature's DER
        assert all(r["elapsed_ns"] > 0 for r in cell_rows)
    assert "iterations, median" in stderr


def test_a_7680_bit_key_generation_is_stopped_at_max_cell_seconds(driver_env, node_keys, tmp_path):
    budget = 0.5
    cells = [
        keygen_cell(node_keys, "keygen+sign+verify", "RSA", "RSA-SHA512", 7680, "rsa-7680", 10),
        keygen_cell(node_keys, "keygen", "RSA", "RSA-SHA512", 7680, "rsa-7680", 0),
    ]
    rows, seconds, _ = bench(driver_env, keygen_spec(node_keys, cells, max_cell_seconds=budget), tmp_path)
    found = cells_of(rows)
    assert len(found) == 2
    for key, cell_rows in found.items():
        # Ten 7680-bit keys never fit in half a second: whatever it got is `timeout`.
        assert {r["status"] for r in cell_rows} == {"timeout"}, key
        if cell_rows[0]["sample"] == 0:
            [row] = cell_rows
            assert (row["iterations"], row["output_bytes"]) == (0, 0)
            assert budget * 1e9 <= row["elapsed_ns"] < (budget + 1.5) * 1e9
        else:
            assert {r["iterations"] for r in cell_rows} == {1}
    # Two cells of half a second each, plus a worker's start for each (the conductor stops the one that overran).
    assert seconds < 2 * budget + 8, seconds


def test_a_keygen_spec_needs_its_keygen_block(driver_env, node_keys, tmp_path):
    spec = keygen_spec(node_keys, [keygen_cell(node_keys, "keygen", "ECDSA", "ECDSA-SHA256", 256, "ec-p256", 0)])
    del spec["keygen"]
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps(spec))
    result = run_conducted(LANGUAGE, driver_env, spec_file, str(tmp_path / "raw.csv"))
    assert result.returncode == 2
    assert "key 'keygen' missing" in result.stderr and str(spec_file) in result.stderr
