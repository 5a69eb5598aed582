"""Seeds 003 and 004: the published data as transcribed, the specs of suites primitive and
keygen, and verdicts computed from samples of the seeds' own figures."""

import csv
import json

import pytest
from conftest import REPO
from test_seeds_001_002 import SETTINGS, read_csv, write_raw

from jwtbench import config_validation, raw_samples
from jwtbench.rules import write_bench_spec
from jwtbench.seeds import seed003, seed004
from jwtbench.seeds.verdict_rules import FAILS, HOLDS, OPEN, orders

PUBLISHED = REPO / "report" / "published"


def test_seed003_listing_matches_its_table():
    """Counts over seconds give the table's kbytes/s (the listing's own arithmetic)."""
    for row in read_csv(PUBLISHED / "seed003_speed.csv"):
        if row["block_bytes"]:
            rate = int(row["count"]) * int(row["block_bytes"]) / float(row["seconds"]) / 1000
            assert rate == pytest.approx(float(row["kbytes_per_s"]), rel=0.002), row
        else:
            assert int(row["count"]) / float(row["seconds"]) == pytest.approx(float(row["per_s"]), rel=0.001), row


def test_orders_of_magnitude():
    assert orders(40, 45, 2, 3) == HOLDS  # 1.6 orders rounds to 2
    assert orders(20, 25, 2, 3) == FAILS
    assert orders(25, 40, 2, 3) == OPEN
    assert orders(800, 900, 4, 5) == FAILS


def primitive_cells(language, sha_ns, aes_ns, sign_ns, verify_ns, signature_input="bytes-36"):
    return {
        (language, "lib", "primitive", "digest", "SHA-256", 0, "bytes-256", 256, 32): sha_ns,
        (language, "lib", "primitive", "encrypt", "AES-256-GCM", 256, "bytes-256", 256, 272): aes_ns,
        (language, "lib", "primitive", "sign", "RSA-SHA256", 2048, signature_input, 36, 256): sign_ns,
        (language, "lib", "primitive", "verify", "RSA-SHA256", 2048, signature_input, 36, 256): verify_ns,
    }


def test_seed003_verdicts_on_the_seeds_own_figures(tmp_path):
    """The seed's ops/s as samples: sha256 ~7x aes-256-gcm and an order of magnitude holds;
    the prose's orders of magnitude for RSA do not match its own table."""
    per_s = {"sha": 10630596 / 3.00, "aes": 1542553 / 3.00, "sign": 579.7, "verify": 12893.2}
    cells = primitive_cells("openssl", *(1e9 / per_s[name] for name in ("sha", "aes", "sign", "verify")))
    # A library 1.5x slower than openssl on every primitive, on the same inputs.
    cells.update(primitive_cells("node", *(1.5e9 / per_s[name] for name in ("sha", "aes", "sign", "verify"))))
    raw = write_raw(tmp_path / "primitive.csv", cells)
    outputs = {name: tmp_path / f"{name}.csv" for name in seed003.COLUMNS}
    with open(tmp_path / "log", "w") as log:
        seed003.main([raw], [], ["node", "openssl"], SETTINGS, outputs, log)
    verdicts = {(r["claim"], r["language"]): r["verdict"] for r in read_csv(outputs["verdicts"])}
    expected = {
        "sha256_7x_aes_gcm": HOLDS,
        "hash_order_faster_than_symmetric": HOLDS,
        "rsa_verify_orders_faster_than_sign": FAILS,  # 22x: 1.3 orders
        "rsa_verify_orders_slower_than_aes": HOLDS,  # 40x: 1.6 orders, rounds to 2
        "rsa_sign_orders_slower_than_aes": FAILS,
    }  # 887x: 2.9 orders, not 4-5
    for language in ("openssl", "node"):
        assert {claim: verdicts[claim, language] for claim in expected} == expected
    overhead = read_csv(outputs["overhead"])
    assert {r["language"] for r in overhead} == {"node"}
    assert len(overhead) == 4
    for row in overhead:
        assert float(row["ratio"]) == pytest.approx(1.5, rel=0.02)
        assert float(row["ci_low"]) < 1.5 < float(row["ci_high"]) or float(row["ci_low"]) == pytest.approx(
            1.5, rel=0.02
        )


def test_jwt_overhead_divides_jwt_sign_by_the_primitive_on_the_signing_input(tmp_path):
    cells = {
        ("python", "pyjwt", "jwt", "sign", "HS256", 256, "claims-001", 500, 300): 9000.0,
        ("python", "pyjwt", "jwt", "sign", "RS256", 2048, "claims-001", 500, 600): 1_200_000.0,
        ("python", "pyjwt", "jwt", "sign", "HS512", 512, "claims-001", 500, 300): 9500.0,
        ("python", "hashlib", "primitive", "mac", "HMAC-SHA256", 256, "jwt-signing-input", 400, 32): 1000.0,
        ("python", "cryptography", "primitive", "sign", "RSA-SHA256", 2048, "jwt-signing-input", 400, 256): 1_000_000.0,
    }
    raw = write_raw(tmp_path / "raw.csv", cells)
    outputs = {name: tmp_path / f"{name}.csv" for name in seed003.COLUMNS}
    with open(tmp_path / "log", "w") as log:
        seed003.main([raw], [raw], ["python"], SETTINGS, outputs, log)
    rows = {r["algorithm"]: r for r in read_csv(outputs["overhead"]) if r["kind"] == "jwt over primitive"}
    assert set(rows) == {"HS256", "RS256"}
    assert float(rows["HS256"]["ratio"]) == pytest.approx(9.0, rel=0.02)
    assert float(rows["RS256"]["ratio"]) == pytest.approx(1.2, rel=0.02)


def keygen_cells(language, implementation, figures):
    """{(family, bits, message): ms} as keygen+sign+verify cells."""
    cells = {}
    for (family, bits, message), ms in figures.items():
        algorithm = f"{family}-SHA{'256' if bits in (2048, 3072, 256) else '512'}"
        cells[
            (language, implementation, "keygen", "keygen+sign+verify", algorithm, bits, f"msg-{message}", message, 256)
        ] = ms * 1e6
    return cells


def test_seed004_verdicts_on_the_seeds_own_figures(tmp_path):
    figures = {
        (r["family"], int(r["key_bits"]), int(r["message_bytes"])): float(r["ms_per_iteration"])
        for r in read_csv(PUBLISHED / "seed004_runs.csv")
        if r["ms_per_iteration"]
    }
    # The seed has no P-256 time for the 112-bit level and no RSA-7680; fill P-384 from D-F.
    raw = write_raw(tmp_path / "raw.csv", keygen_cells("python", "pycryptodome", figures))
    outputs = {name: tmp_path / f"{name}.csv" for name in seed004.COLUMNS}
    with open(tmp_path / "log", "w") as log:
        seed004.main([raw], SETTINGS, outputs, log)
    verdicts = {r["claim"]: r for r in read_csv(outputs["verdicts"])}
    # Mean of 756, 723 and 521: 667x, about the seed's 672.7x.
    assert verdicts["ecdsa_673x_faster"]["verdict"] == HOLDS
    assert float(verdicts["ecdsa_673x_faster"]["ratio_min"]) == pytest.approx(666.6, rel=0.02)
    # RSA 2048 -> 3072 grows 4.7x, P-256 -> P-384 1.5-2.2x.
    assert verdicts["rsa_grows_steeply_ecdsa_barely"]["verdict"] == HOLDS
    # By the seed's own figures, 1000 bytes cost P-256 49% and RSA-2048 46% more than 10 bytes.
    assert verdicts["message_size_barely_matters"]["verdict"] == FAILS
    runs = read_csv(outputs["runs"])
    assert len(runs) == len(figures)


def test_seed004_keeps_a_timeout_cell_with_its_time(tmp_path):
    path = tmp_path / "raw.csv"
    rows = [
        [
            "python",
            "pycryptodome",
            "1",
            "keygen",
            "keygen+sign+verify",
            "RSA-SHA512",
            7680,
            "msg-10",
            10,
            0,
            0,
            120_000_000_000,
            0,
            "timeout",
        ]
    ]
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(raw_samples.ONE_PROCESS_COLUMNS)
        writer.writerows(rows)
    outputs = {name: tmp_path / f"{name}.csv" for name in seed004.COLUMNS}
    with open(tmp_path / "log", "w") as log:
        seed004.main([path], SETTINGS, outputs, log)
    (run,) = read_csv(outputs["runs"])
    assert run["status"] == "timeout" and float(run["seconds_spent"]) == 120.0 and run["median_ms"] == ""


def test_seed004_composes_the_combined_figure_from_its_parts(tmp_path):
    """Without timed keygen+sign+verify cells, the seed's figure is keygen + sign + verify
    of the same key and message (medians added), listed as composed; a key whose generation
    timed out gives a composed row with that status and its time."""
    cells = {}
    parts_ms = {("RSA", 3072): (300.0, 3.0, 0.1), ("ECDSA", 256): (0.2, 0.05, 0.15), ("RSA", 7680): (None, 20.0, 0.4)}
    for (family, bits), (keygen, sign, verify) in parts_ms.items():
        algorithm = f"{family}-SHA{'512' if bits == 7680 else '256'}"
        if keygen is not None:
            cells[("python", "pycryptodome", "keygen", "keygen", algorithm, bits, "keypair", 0, 256)] = keygen * 1e6
        cells[("python", "pycryptodome", "keygen", "sign", algorithm, bits, "msg-10", 10, 256)] = sign * 1e6
        cells[("python", "pycryptodome", "keygen", "verify", algorithm, bits, "msg-10", 10, 0)] = verify * 1e6
    raw = write_raw(tmp_path / "raw.csv", cells)
    with open(raw, "a") as handle:
        handle.write("python,pycryptodome,1,keygen,keygen,RSA-SHA512,7680,keypair,0,0,0,60000000000,0,timeout\n")
    outputs = {name: tmp_path / f"{name}.csv" for name in seed004.COLUMNS}
    with open(tmp_path / "log", "w") as log:
        seed004.main([raw], SETTINGS, outputs, log)
    combined = {
        (r["family"], int(r["key_bits"])): r
        for r in read_csv(outputs["runs"])
        if r["operation"] == "keygen+sign+verify"
    }
    assert set(combined) == set(parts_ms)
    assert all(r["source"] == "composed" for r in combined.values())
    assert float(combined["RSA", 3072]["median_ms"]) == pytest.approx(303.1, rel=0.01)
    assert float(combined["ECDSA", 256]["median_ms"]) == pytest.approx(0.4, rel=0.01)
    low, high = float(combined["RSA", 3072]["ci_low_ms"]), float(combined["RSA", 3072]["ci_high_ms"])
    assert low <= float(combined["RSA", 3072]["median_ms"]) <= high
    assert combined["RSA", 7680]["status"] == "timeout" and float(combined["RSA", 7680]["seconds_spent"]) == 60
    decomposed = {(r["family"], int(r["key_bits"])): r for r in read_csv(outputs["decomposed"])}
    assert decomposed["RSA", 3072]["combined_source"] == "composed"
    assert float(decomposed["RSA", 3072]["keygen_share"]) == pytest.approx(300 / 303.1, rel=0.01)


def test_seed004_a_timed_combined_cell_out_of_budget_says_what_it_got(tmp_path):
    """config/full.yaml times keygen+sign+verify as one cell beside its parts. When that
    cell runs to its budget after a few samples (RSA-7680 on 2026-11-27), its row says so
    with its samples and time, and the seed's figure is composed from the parts."""
    cells = {}
    for operation, input_name, in_bytes, ms in (
        ("keygen", "keypair", 0, 10_000.0),
        ("sign", "msg-1000", 1000, 35.0),
        ("verify", "msg-1000", 1000, 0.2),
    ):
        cells[("node", "crypto", "keygen", operation, "RSA-SHA512", 7680, input_name, in_bytes, 960)] = ms * 1e6
    raw = write_raw(tmp_path / "raw.csv", cells)
    seconds = [27.0, 18.9, 15.1, 11.8, 7.4, 16.4, 15.3]
    with open(raw, "a") as handle:
        for sample, spent in enumerate(seconds, 1):
            handle.write(
                f"node,crypto,1,keygen,keygen+sign+verify,RSA-SHA512,7680,msg-1000,1000,{sample},1,"
                f"{int(spent * 1e9)},960,timeout\n"
            )
    outputs = {name: tmp_path / f"{name}.csv" for name in seed004.COLUMNS}
    with open(tmp_path / "log", "w") as log:
        seed004.main([raw], SETTINGS, outputs, log)
    (run,) = [r for r in read_csv(outputs["runs"]) if r["operation"] == "keygen+sign+verify"]
    assert (run["status"], run["source"], run["iterations"], run["median_ms"]) == ("timeout", "timed", "7", "")
    assert float(run["seconds_spent"]) == pytest.approx(sum(seconds))
    (decomposed,) = read_csv(outputs["decomposed"])
    assert decomposed["combined_source"] == "composed"
    assert float(decomposed["combined_ms"]) == pytest.approx(10_035.2, rel=0.01)
    assert "RSA-7680 keygen+sign+verify msg-1000: timeout" in (tmp_path / "log").read_text()


def test_default_specs_of_primitive_and_keygen(tmp_path):
    """The default config's cells: openssl speed's primitives at its five sizes, plus the
    signing-input cells for a JWS language; seed 004's grid for every implementation."""
    schema = config_validation.load_schema(REPO / "config" / "schemas" / "config.schema.yaml")
    suites = schema["properties"]["suites"]["properties"]
    defaults = {
        name: {key: value.get("default") for key, value in suites[name]["properties"].items()}
        for name in ("primitive", "keygen")
    }
    signing = tmp_path / "signing.bin"
    signing.write_bytes(write_bench_spec.jws_signing_input(REPO / "data" / "fixtures" / "claims-001.json"))
    for language, jws in (("node", True), ("openssl", False)):
        out = tmp_path / f"{language}.json"
        write_bench_spec.main(
            language, "primitive", defaults["primitive"], {}, "/keys", str(signing), out, "blocks", "bytes", jws
        )
        spec = json.loads(out.read_text())
        inputs = {(c["operation"], c["algorithm"]): set() for c in spec["cells"]}
        for cell in spec["cells"]:
            inputs[cell["operation"], cell["algorithm"]].add(cell["input"])
        blocks = {f"bytes-{n}" for n in (16, 64, 256, 1024, 8192)}
        assert inputs["digest", "SHA-256"] == blocks and inputs["encrypt", "AES-256-GCM"] == blocks
        assert inputs["sign", "RSA-SHA256"] == ({"bytes-36", "jwt-signing-input"} if jws else {"bytes-36"})
        assert ("openssl" in spec) == (not jws)
        assert all("known_answer" in c for c in spec["cells"] if c["operation"] in ("digest", "mac", "encrypt"))
    out = tmp_path / "python-keygen.json"
    write_bench_spec.main("python", "keygen", defaults["keygen"], {}, "/keys", None, out, "levels", None, True)
    spec = json.loads(out.read_text())
    operations = {c["operation"] for c in spec["cells"]}
    assert operations == {"keygen", "sign", "verify"}  # the seed's figure is composed from these
    assert spec["keygen"] == {"iterations": 3, "target_cell_seconds": 3, "max_iterations": 200, "max_cell_seconds": 120}
    write_bench_spec.main(
        "python", "keygen", {**defaults["keygen"], "composite": True}, {}, "/keys", None, out, "levels", None, True
    )
    spec = json.loads(out.read_text())
    combined = {
        (c["implementation"], c["family"], c["key_bits"], c["message_bytes"])
        for c in spec["cells"]
        if c["operation"] == "keygen+sign+verify"
    }
    assert len(combined) == 2 * 6 * 3
    hashes = {(c["family"], c["key_bits"]): c["algorithm"] for c in spec["cells"]}
    assert hashes[("RSA", 7680)] == "RSA-SHA512" and hashes[("ECDSA", 256)] == "ECDSA-SHA256"
