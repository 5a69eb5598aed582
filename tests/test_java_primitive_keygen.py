"""The java driver runs suites primitive and keygen as the contract says
(workflow/scripts/README.md, "Suite primitive" and "Suite keygen"), natively, on tiny specs.
Every CSV is read through raw_samples (the contract's schema)."""

import json
import os
import time
import uuid

import pytest
from conftest import REPO, Background, run_conducted

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
KNOWN_ANSWERS = REPO / "data" / "vectors" / "primitive-known-answers.json"


def known_answer(operation, algorithm):
    for vector in json.loads(KNOWN_ANSWERS.read_text())["vectors"]:
        if (vector["operation"], vector["algorithm"]) == (operation, algorithm):
            return {k: v for k, v in vector.items() if k.endswith("_hex")}
    raise KeyError((operation, algorithm))


def read_rows(path):
    return raw_samples.cells_only(raw_samples.read(path))


def bench(env, spec, tmp_path):
    spec_file, out = tmp_path / "spec.json", tmp_path / "raw.csv"
    spec_file.write_text(json.dumps(spec))
    result = run_conducted("java", env, spec_file, str(out))
    assert result.returncode == 0, result.stderr
    return read_rows(out), result.stderr


def cells_of(rows):
    found = {}
    for row in rows:
        key = (row["operation"], row["algorithm"], row["key_bits"], row["input"])
        found.setdefault(key, []).append(row)
    return found


def primitive_spec(keys, tmp_path):
    secret = str(keys / "hmac-256.secret")
    signing_input = tmp_path / "signing-input.bin"
    signing_input.write_bytes(b"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0")  # 36 bytes
    cells = []
    for algorithm in ("SHA-256", "SHA-512"):
        cells.append(
            {
                "operation": "digest",
                "algorithm": algorithm,
                "key_bits": 0,
                "input": "bytes-16",
                "message_bytes": 16,
                "known_answer": known_answer("digest", algorithm),
            }
        )
    cells.append(
        {
            "operation": "mac",
            "algorithm": "HMAC-SHA256",
            "key_bits": 256,
            "private_key": secret,
            "public_key": secret,
            "input": "bytes-16",
            "message_bytes": 16,
            "known_answer": known_answer("mac", "HMAC-SHA256"),
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
    cells.append(
        {
            "operation": "encrypt",
            "algorithm": "AES-256-GCM",
            "key_bits": 256,
            "private_key": secret,
            "public_key": secret,
            "input": "bytes-16",
            "message_bytes": 16,
            "known_answer": known_answer("encrypt", "AES-256-GCM"),
        }
    )
    for algorithm, bits, name in (
        ("RSA-SHA256", 2048, "rsa-2048"),
        ("ECDSA-SHA256", 256, "ec-p256"),
        ("Ed25519", 256, "ed25519"),
    ):
        for operation in ("sign", "verify"):
            cells.append(
                {
                    "operation": operation,
                    "algorithm": algorithm,
                    "key_bits": bits,
                    "private_key": str(keys / f"{name}.private.pem"),
                    "public_key": str(keys / f"{name}.public.pem"),
                    "input": "bytes-36",
                    "message_bytes": 36,
                }
            )
    return {"format": "jwtbench-spec/1", "language": "java", "suite": "primitive", "timing": TIMING, "cells": cells}


OUTPUT_BYTES = {
    "SHA-256": {32},
    "SHA-512": {64},
    "HMAC-SHA256": {32},
    "AES-256-GCM": {16 + 16},
    "RSA-SHA256": {256},
    "ECDSA-SHA256": set(range(68, 73)),
    "Ed25519": {64},
}


def test_primitive_cells_follow_the_contract(keys, driver_env, tmp_path):
    spec = primitive_spec(keys, tmp_path)
    rows, _ = bench(driver_env, spec, tmp_path)
    cells = cells_of(rows)
    assert len(cells) == len(spec["cells"])
    for (operation, algorithm, key_bits, input_), cell_rows in cells.items():
        assert [r["status"] for r in cell_rows] == ["ok"] * 3, (operation, algorithm, input_)
        assert [r["sample"] for r in cell_rows] == [1, 2, 3]
        assert {(r["language"], r["implementation"], r["suite"]) for r in cell_rows} == {("java", "jca", "primitive")}
        assert all(r["implementation_version"].startswith(("1", "2")) for r in cell_rows)  # the JDK's, e.g. 17.0.15
        assert {r["input_bytes"] for r in cell_rows} == {36 if input_ in ("bytes-36", "jwt-signing-input") else 16}
        assert len({r["output_bytes"] for r in cell_rows}) == 1
        assert cell_rows[0]["output_bytes"] in OUTPUT_BYTES[algorithm], (algorithm, cell_rows[0]["output_bytes"])
        assert all(r["iterations"] >= 1 and r["elapsed_ns"] / r["iterations"] > 1 for r in cell_rows)


@pytest.mark.parametrize("operation", ["mac", "encrypt", "digest"])
def test_a_wrong_known_answer_fails_only_its_cell(operation, keys, driver_env, tmp_path):
    spec = primitive_spec(keys, tmp_path)
    wrong = next(c for c in spec["cells"] if c["operation"] == operation)
    wrong["known_answer"] = {
        **wrong["known_answer"],
        "output_hex": "00" * (len(wrong["known_answer"]["output_hex"]) // 2),
    }
    rows, stderr = bench(driver_env, spec, tmp_path)
    cells = cells_of(rows)
    failed = (wrong["operation"], wrong["algorithm"], wrong["key_bits"], wrong["input"])
    assert "known answer" in stderr
    for key, cell_rows in cells.items():
        if key == failed:
            assert [(r["status"], r["sample"], r["iterations"], r["elapsed_ns"]) for r in cell_rows] == [
                ("failed", 0, 0, 0)
            ]
        else:
            assert {r["status"] for r in cell_rows} == {"ok"}, key


def test_an_unknown_implementation_is_an_input_error(keys, driver_env, tmp_path):
    spec = primitive_spec(keys, tmp_path)
    spec["cells"][0]["implementation"] = "bouncycastle"
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps(spec))
    result = run_conducted("java", driver_env, spec_file, str(tmp_path / "raw.csv"))
    assert result.returncode == 2 and "implementation" in result.stderr


def keygen_cell(operation, family, algorithm, bits, private, public, message_bytes):
    return {
        "operation": operation,
        "algorithm": algorithm,
        "family": family,
        "key_bits": bits,
        "private_key": str(private),
        "public_key": str(public),
        "input": "keypair" if operation == "keygen" else f"msg-{message_bytes}",
        "message_bytes": 0 if operation == "keygen" else message_bytes,
    }


def keygen_spec(cells, iterations=3, target=0.2, max_cell_seconds=60):
    return {
        "format": "jwtbench-spec/1",
        "language": "java",
        "suite": "keygen",
        "timing": TIMING,
        "keygen": {
            "iterations": iterations,
            "target_cell_seconds": target,
            "max_iterations": 50,
            "max_cell_seconds": max_cell_seconds,
        },
        "cells": cells,
    }


def test_keygen_cells_follow_the_contract(keys, driver_env, tmp_path):
    def pair(name):
        return keys / f"{name}.private.pem", keys / f"{name}.public.pem"

    cells = [
        keygen_cell("keygen", "RSA", "RSA-SHA256", 2048, *pair("rsa-2048"), 0),
        keygen_cell("keygen+sign+verify", "ECDSA", "ECDSA-SHA256", 256, *pair("ec-p256"), 10),
        keygen_cell("sign", "ECDSA", "ECDSA-SHA256", 256, *pair("ec-p256"), 10),
        keygen_cell("verify", "ECDSA", "ECDSA-SHA256", 256, *pair("ec-p256"), 10),
        keygen_cell("keygen+sign+verify", "ECDSA", "ECDSA-SHA512", 521, *pair("ec-p521"), 100),
        keygen_cell("sign", "RSA", "RSA-SHA512", 2048, *pair("rsa-2048"), 100),
    ]
    rows, _ = bench(driver_env, keygen_spec(cells), tmp_path)
    found = cells_of(rows)
    assert len(found) == len(cells)
    # The per-iteration cells come first (spec order), then the interleaved sign/verify rounds.
    first = [r["operation"] for r in rows]
    assert first.index("sign") > max(i for i, op in enumerate(first) if op.startswith("keygen"))
    for (operation, algorithm, key_bits, input_), cell_rows in found.items():
        assert {(r["implementation"], r["suite"], r["status"]) for r in cell_rows} == {("jca", "keygen", "ok")}
        message = 0 if operation == "keygen" else int(input_.removeprefix("msg-"))
        assert {r["input_bytes"] for r in cell_rows} == {message}
        if operation.startswith("keygen"):
            assert len(cell_rows) >= 3, (operation, algorithm)
            assert [r["sample"] for r in cell_rows] == list(range(1, len(cell_rows) + 1))
            assert {r["iterations"] for r in cell_rows} == {1}
            assert all(r["elapsed_ns"] > 1000 for r in cell_rows)
        else:
            assert [r["sample"] for r in cell_rows] == [1, 2, 3]
        outputs = {r["output_bytes"] for r in cell_rows}
        if operation == "keygen":
            assert outputs == {294}  # an RSA-2048 public key's DER (SPKI)
        elif algorithm.startswith("RSA"):
            assert outputs == {256}
        else:
            assert outputs <= set(range(8, 140)), outputs  # DER ECDSA signatures


@pytest.fixture(scope="module")
def rsa_7680(keys):
    """The run's RSA-7680 pair (the smoke config's keygen keys include it)."""
    private, public = keys / "rsa-7680.private.pem", keys / "rsa-7680.public.pem"
    assert private.is_file(), "keys/rsa-7680.private.pem missing: the smoke config's suites.keygen.keys lost RSA-7680"
    return str(private), str(public)


def workers(mark):
    """Pids of live `serve` JVMs whose environment carries `mark` (a worker inherits the
    conductor's environment; other tests running beside this one start their own)."""
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as handle:
                    command = handle.read().split(b"\0")
                if b"java" not in command[0] or b"serve" not in command:
                    continue
                with open(f"/proc/{entry}/environ", "rb") as handle:
                    if mark in handle.read().split(b"\0"):
                        pids.append(int(entry))
            except OSError:
                pass
    return pids


def test_rsa_7680_keygen_is_stopped_at_its_budget(keys, rsa_7680, driver_env, tmp_path):
    budget = 1.5  # far below a 7680-bit key's generation; room for the ECDSA cell's cold JVM
    mark = f"JWTBENCH_TEST_MARK={uuid.uuid4().hex}"
    driver_env = dict(driver_env, JWTBENCH_TEST_MARK=mark.partition("=")[2])
    cells = [
        keygen_cell("keygen+sign+verify", "RSA", "RSA-SHA512", 7680, *rsa_7680, 10),
        keygen_cell(
            "keygen", "ECDSA", "ECDSA-SHA256", 256, keys / "ec-p256.private.pem", keys / "ec-p256.public.pem", 0
        ),
    ]
    start = time.monotonic()
    running = Background(
        bench, driver_env, keygen_spec(cells, iterations=2, target=0, max_cell_seconds=budget), tmp_path
    )
    seen = set()
    while running.is_alive():  # the mark finds this test's workers while they run
        seen.update(workers(mark.encode()))
        time.sleep(0.05)
    rows, stderr = running.result()
    took = time.monotonic() - start
    assert len(seen) >= 2, f"the worker generating the 7680-bit key was not replaced: {seen}"
    # Two cells of at most `budget` each, plus two workers' starts and the PEM checks, on a shared machine.
    assert took < 2 * budget + 20, took
    found = cells_of(rows)
    timed_out = found[("keygen+sign+verify", "RSA-SHA512", 7680, "msg-10")]
    assert [(r["status"], r["sample"], r["iterations"], r["output_bytes"]) for r in timed_out] == [("timeout", 0, 0, 0)]
    assert budget * 1e9 <= timed_out[0]["elapsed_ns"] < (budget + 2) * 1e9
    assert "its worker is restarted" in stderr
    # The run went on with the next cell, and no worker is left burning the CPU.
    after = found[("keygen", "ECDSA-SHA256", 256, "keypair")]
    assert {r["status"] for r in after} == {"ok"} and len(after) >= 2
    assert workers(mark.encode()) == []
