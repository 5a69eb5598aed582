"""Seeds 001 and 002: the published data as transcribed, and verdicts computed from samples."""

import csv
import json

import numpy as np
import pytest
from conftest import REPO

from jwtbench import raw_samples, variants
from jwtbench.rules import cycle_counter
from jwtbench.seeds import seed001, seed002, verdict_rules
from jwtbench.seeds.verdict_rules import FAILS, HOLDS, OPEN, about, above, combine, similar

PUBLISHED = REPO / "report" / "published"
SETTINGS = {"seed": 7, "confidence": 0.95, "bootstrap_resamples": 400}


def read_csv(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def test_seed001_table_has_every_variant_once_per_operation():
    rows = read_csv(PUBLISHED / "seed001_rankings.csv")
    for operation in ("sign", "verify"):
        listed = [r["variant"] for r in rows if r["operation"] == operation]
        assert sorted(listed) == sorted(variants.ALL_VARIANTS)
        assert [int(r["rank"]) for r in rows if r["operation"] == operation] == list(range(1, 26))
    assert all(r["source"] for r in rows)


def test_seed001_claims_name_the_verdicts_claims():
    claims = {r["claim"] for r in read_csv(PUBLISHED / "seed001_claims.csv")}
    assert claims == set(seed001.WHAT)


def test_seed002_runs_average_to_the_published_averages():
    rows = read_csv(PUBLISHED / "seed002_cases.csv")
    assert len(rows) == 24
    for row in rows:
        runs = [float(row[f"run{i}_ms"]) for i in range(1, 6)]
        assert sum(runs) / 5 == pytest.approx(float(row["average_ms"]), abs=1e-9), (row["case"], row["algorithm"])
    assert {r["case"] for r in rows} == set(seed002.ALL_CASES)
    claims = {r["claim"] for r in read_csv(PUBLISHED / "seed002_claims.csv")}
    assert claims == set(seed002.WHAT)


def test_verdict_rules():
    assert above(1.1, 1.3) == HOLDS and above(0.7, 0.9) == FAILS and above(0.9, 1.1) == OPEN
    assert about(7.0, 9.0, 8) == HOLDS and about(3.0, 4.0, 8) == FAILS and about(6.0, 7.0, 8) == OPEN
    assert similar(0.95, 1.05) == HOLDS and similar(1.2, 1.3) == FAILS
    assert combine([HOLDS, HOLDS]) == HOLDS
    assert combine([HOLDS, OPEN]) == OPEN
    assert combine([OPEN, FAILS, HOLDS]) == FAILS
    assert combine([]) == OPEN


def write_raw(path, cells, samples=30, seed=1, noise=0.005):
    """A raw CSV of `cells` {(language, implementation, suite, operation, algorithm, key_bits,
    input, input_bytes, output_bytes): median ns/op}, with `noise` (relative) around each."""
    rng = np.random.default_rng(seed)
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(raw_samples.ONE_PROCESS_COLUMNS)
        for (
            language,
            implementation,
            suite,
            operation,
            algorithm,
            bits,
            input_name,
            in_bytes,
            out_bytes,
        ), ns in cells.items():
            for sample in range(1, samples + 1):
                iterations = 100
                elapsed = int(ns * iterations * rng.normal(1, noise))
                writer.writerow(
                    [
                        language,
                        implementation,
                        "1",
                        suite,
                        operation,
                        algorithm,
                        bits,
                        input_name,
                        in_bytes,
                        sample,
                        iterations,
                        elapsed,
                        out_bytes,
                        "ok",
                    ]
                )
    raw_samples.read(path)  # the fixture itself follows the contract
    return path


def jwt_cells(language, suite, sign_us, verify_us):
    cells = {}
    for name in variants.ALL_VARIANTS:
        variant = variants.parse(name)
        for operation, table in (("sign", sign_us), ("verify", verify_us)):
            cells[(language, "lib", suite, operation, variant.algorithm, variant.key_bits, "claims-001", 200, 300)] = (
                table[name] * 1000
            )
    return cells


def published_us(operation):
    return {
        r["variant"]: float(r["mean_us"])
        for r in read_csv(PUBLISHED / "seed001_rankings.csv")
        if r["operation"] == operation
    }


def test_seed001_verdicts_on_the_seeds_own_figures(tmp_path):
    """Fed the seed's published means as samples, each insight gets the verdict its own
    numbers support."""
    raw = write_raw(tmp_path / "raw.csv", jwt_cells("java", "percall", published_us("sign"), published_us("verify")))
    outputs = {"rankings": tmp_path / "rankings.csv", "verdicts": tmp_path / "verdicts.csv"}
    with open(tmp_path / "log", "w") as log:
        seed001.main([raw], ["java"], SETTINGS, outputs, log)
    verdicts = {r["claim"]: r for r in read_csv(outputs["verdicts"])}
    assert {r["method"] for r in verdicts.values()} == {"seed 001's method"}
    expected = {
        "hmac_dominates": HOLDS,
        "verify_cheaper_for_rsa": HOLDS,
        "ecdsa_verify_costlier": HOLDS,
        "larger_curves_slower": HOLDS,
        "ed25519_sign_like_es256": HOLDS,
        "ed25519_verify_faster_than_ecdsa": HOLDS,
        "hs512_faster_than_hs256": HOLDS,
        # RS/PS at 4096 bits: 7.4-8.5x to sign; 2.9-3.2x to verify.
        "rsa_doubling_sign_8x": HOLDS,
        "rsa_doubling_verify_3x": HOLDS,
        # "Nearly identical" is judged as seed 000's "similar" (+-10%): the seed's own
        # PS384-3072 signs 10.8% slower than RS384-3072, so by its own table it does not hold.
        "pss_like_pkcs1": FAILS,
    }
    assert {claim: row["verdict"] for claim, row in verdicts.items()} == expected
    ranks = {(r["operation"], r["variant"]): int(r["rank"]) for r in read_csv(outputs["rankings"])}
    assert ranks["sign", "HS512"] == 1 and ranks["verify", "HS512"] == 1
    # RS384-2048 and RS512-2048 sign differ by 0.15%: their CIs overlap, so they tie.
    assert ranks["sign", "RS384-2048"] == ranks["sign", "RS512-2048"]


def test_seed001_names_the_comparisons_that_break_a_claim(tmp_path):
    sign, verify = published_us("sign"), published_us("verify")
    sign["PS256-2048"] = sign["RS256-2048"] * 1.5  # PSS no longer like PKCS#1 v1.5
    raw = write_raw(tmp_path / "raw.csv", jwt_cells("node", "jwt", sign, verify))
    outputs = {"rankings": tmp_path / "rankings.csv", "verdicts": tmp_path / "verdicts.csv"}
    with open(tmp_path / "log", "w") as log:
        seed001.main([raw], ["node"], SETTINGS, outputs, log)
    pss = next(r for r in read_csv(outputs["verdicts"]) if r["claim"] == "pss_like_pkcs1")
    assert pss["verdict"] == FAILS
    assert "sign PS256-2048 / sign RS256-2048" in pss["reason"]


def hash_cells(language, implementation, published):
    cells = {}
    for (case, algorithm), ns in published.items():
        operation = "generate" if algorithm == "none" else "hex-digest"
        cells[(language, implementation, "hash", operation, algorithm, 0, case, 49, 64)] = ns
    return cells


def test_seed002_verdicts_on_the_seeds_own_figures(tmp_path):
    published = {(r["case"], r["algorithm"]): float(r["average_ms"]) for r in read_csv(PUBLISHED / "seed002_cases.csv")}
    # Generation alone as the seed's text puts it: 121.6 ns for the time stamp, 670.4 for a UUID.
    published[("case2-uuid-time", "none")] = 121.6
    published[("case3-newuuid-time", "none")] = 121.6 + 670.4
    raw = write_raw(tmp_path / "raw.csv", hash_cells("java", "commons-codec", published))
    counter = tmp_path / "counter.json"
    counter.write_text(json.dumps({"usable": False, "ticks_per_ns": None, "reason": "test"}))
    outputs = {name: tmp_path / f"{name}.csv" for name in seed002.COLUMNS}
    with open(tmp_path / "log", "w") as log:
        seed002.main([raw], counter, SETTINGS, outputs, log)
    verdicts = {r["claim"]: r["verdict"] for r in read_csv(outputs["verdicts"])}
    # The seed's own table: SHA-256 wins short, SHA-512 long; MD5 beats SHA-1 in case 4, so
    # neither "SHA-1 fastest" nor "MD5 slower than SHA-1" holds on all cases.
    assert verdicts == {
        "sha256_faster_short": HOLDS,
        "sha512_faster_long": HOLDS,
        "sha1_fastest": FAILS,
        "md5_slower_than_sha1": FAILS,
        "uuid_generation_cost": HOLDS,
    }
    cases = {(r["case"], r["algorithm"]): r for r in read_csv(outputs["cases"])}
    assert float(cases["case3-newuuid-time", "SHA-256"]["hash_only_ns"]) == pytest.approx(1504.4 - 792.0, rel=0.03)


def test_seed002_sweep_converts_to_cycles_only_with_a_usable_counter(tmp_path):
    cells = {}
    for length in (64, 8192):
        for algorithm, per_byte in (("SHA-256", 0.5), ("SHA-512", 1.5)):
            cells[("node", "crypto", "hash", "digest", algorithm, 0, f"bytes-{length}", length, 32)] = per_byte * length
    raw = write_raw(tmp_path / "raw.csv", cells)
    outputs = {name: tmp_path / f"{name}.csv" for name in seed002.COLUMNS}
    for usable in (True, False):
        counter = tmp_path / "counter.json"
        counter.write_text(json.dumps({"usable": usable, "ticks_per_ns": 2.0, "reason": "test"}))
        with open(tmp_path / "log", "w") as log:
            seed002.main([raw], counter, SETTINGS, outputs, log)
        rows = {(r["algorithm"], r["length"]): r for r in read_csv(outputs["sweep"])}
        assert float(rows["SHA-256", "8192"]["ns_per_byte"]) == pytest.approx(0.5, rel=0.02)
        cycles = rows["SHA-256", "8192"]["cycles_per_byte"]
        assert (float(cycles) == pytest.approx(1.0, rel=0.02)) if usable else cycles == ""
        assert float(rows["SHA-512", "64"]["sha512_over_sha256"]) == pytest.approx(3.0, rel=0.03)


def test_cycle_counter_gives_a_rate_or_a_reason():
    found = cycle_counter.measure()
    assert found["reason"]
    if found["usable"]:
        assert 0.1 < found["ticks_per_ns"] < 10
    flags = cycle_counter.cpu_flags()
    if not set(cycle_counter.INVARIANT_FLAGS) <= flags:
        assert not found["usable"]


def test_an_inconclusive_comparison_names_the_threshold_its_ci_straddles():
    near = verdict_rules.judge_claim(
        [
            (verdict_rules.above(0.97, 1.04), 1.01, 0.97, 1.04, "HS256 / HS512"),
            (verdict_rules.above(1.2, 1.3), 1.25, 1.2, 1.3, "HS384 / HS512"),
        ]
    )
    assert near["verdict"] == "inconclusive"
    assert near["reason"] == (
        "1 of 2 comparisons are inconclusive: HS256 / HS512 = 1.01 [0.97, 1.04]"
        " (the CI straddles 1; the ratio lies +1.0% from it)"
    )
    about = verdict_rules.about(7.5, 10.5, 8.0)
    assert about == "inconclusive" and about.near() == "the CI straddles 10"
    assert about.near(9.0) == "the CI straddles 10; the ratio lies -10.0% from it"
