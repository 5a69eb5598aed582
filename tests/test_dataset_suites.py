"""Every driver runs suites jwt-on-records, tokensize and transfer as the contract says
(workflow/scripts/README.md), on a small synthetic dataset prepared by prepare_dataset."""

import json
from collections import Counter, defaultdict

import pytest
from conftest import JWS_LANGUAGES, run_conducted

from jwtbench import raw_samples, synthetic_datasets, variants
from jwtbench.rules import prepare_dataset, write_bench_spec

TIMING = {
    "warmup_seconds": 0.01,
    "samples": 3,
    "target_sample_seconds": 0.002,
    "max_cell_seconds": 30,
    "warmup_max_seconds": 0.05,
    "steady_window": 3,
    "steady_tolerance": 0.05,
}
NAME = "netflix-titles"


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """payloads.jsonl, records.jsonl (8 records) and body.json of a ~25 kB stand-in."""
    out = tmp_path_factory.mktemp("dataset")
    raw = synthetic_datasets.generate(NAME, 25_000, 5)
    header, rows = prepare_dataset.read_table(raw, NAME, synthetic_datasets.columns(NAME))
    prepare_dataset.write_payloads(out, NAME, header, rows, 8)
    return out


def bench(language, env, keys, tmp_path, suite, suite_config, input_file, input_kind):
    spec = tmp_path / "spec.json"
    write_bench_spec.main(language, suite, suite_config, TIMING, str(keys), str(input_file), spec, NAME, input_kind)
    out = tmp_path / "out.csv"
    result = run_conducted(language, env, spec, str(out))
    assert result.returncode == 0, result.stderr[-3000:]
    return raw_samples.cells_only(raw_samples.read(out)), result.stderr


def records(path):
    return [json.loads(line) for line in path.read_bytes().splitlines()]


@pytest.mark.parametrize("language", JWS_LANGUAGES)
def test_jwt_on_records(language, data, keys, driver_env, tmp_path):
    config = {"algorithms": ["HS512", "RS512-2048"], "operations": ["sign", "verify", "decode"]}
    rows, _ = bench(language, driver_env, keys, tmp_path, "jwt", config, data / "records.jsonl", "records")
    lines = (data / "records.jsonl").read_bytes().splitlines()
    mean_bytes = (2 * sum(map(len, lines)) + len(lines)) // (2 * len(lines))  # halves up
    cells = defaultdict(list)
    for row in rows:
        cells[row["operation"], variants.name_of(row["algorithm"], row["key_bits"])].append(row)
    assert sorted(cells) == sorted((op, v) for op in config["operations"] for v in config["algorithms"])
    for cell, cell_rows in cells.items():
        assert {r["status"] for r in cell_rows} == {"ok"}, cell
        assert {r["input"] for r in cell_rows} == {NAME}
        assert {r["input_bytes"] for r in cell_rows} == {mean_bytes}, cell
    token_bytes = {v: cells["sign", v][0]["output_bytes"] for v in config["algorithms"]}
    assert token_bytes["RS512-2048"] - token_bytes["HS512"] == 256
    # A batch of at least one pass through the records is a whole number of passes.
    for cell_rows in cells.values():
        batch = cell_rows[0]["iterations"]
        assert batch < len(lines) or batch % len(lines) == 0, (cell_rows[0]["operation"], batch)


@pytest.mark.parametrize("language", JWS_LANGUAGES)
def test_tokensize_signs_every_record_and_rsa_adds_exactly_256_bytes(language, data, keys, driver_env, tmp_path):
    config = {"algorithms": ["HS512", "RS512-2048", "ES256"]}
    rows, _ = bench(language, driver_env, keys, tmp_path, "tokensize", config, data / "payloads.jsonl", "records")
    lines = (data / "payloads.jsonl").read_bytes().splitlines()
    sizes = defaultdict(dict)
    for row in rows:
        assert (row["operation"], row["status"], row["iterations"]) == ("sign", "ok", 1)
        sizes[variants.name_of(row["algorithm"], row["key_bits"])][row["sample"]] = row
    for variant in config["algorithms"]:
        assert sorted(sizes[variant]) == list(range(1, len(lines) + 1)), variant
        assert [sizes[variant][i]["input_bytes"] for i in range(1, len(lines) + 1)] == [len(x) for x in lines]
    differences = {sizes["RS512-2048"][i]["output_bytes"] - sizes["HS512"][i]["output_bytes"] for i in sizes["HS512"]}
    assert differences == {256}


@pytest.mark.parametrize("language", JWS_LANGUAGES)
def test_transfer_round_trips_the_whole_dataset(language, data, keys, driver_env, tmp_path):
    config = {"algorithms": ["HS512", "RS512-2048"], "trials": 4, "warmup_trials": 1, "request_timeout_seconds": 30}
    rows, stderr = bench(language, driver_env, keys, tmp_path, "transfer", config, data / "body.json", "claims")
    body_bytes = (data / "body.json").stat().st_size
    per_cell = Counter((r["operation"], variants.name_of(r["algorithm"], r["key_bits"])) for r in rows)
    assert per_cell == {(op, v): 4 for op in raw_samples.TRANSFER_OPERATIONS for v in config["algorithms"]}
    for row in rows:
        assert row["status"] == "ok" and row["iterations"] == 1 and row["input_bytes"] == body_bytes, row
        assert row["output_bytes"] > body_bytes  # the token carries the whole body, base64url-encoded
    by_trial = defaultdict(dict)
    for row in rows:
        by_trial[row["algorithm"], row["sample"]][row["operation"]] = row["elapsed_ns"]
    for trial in by_trial.values():
        assert trial["request-response"] > trial["sign"] and trial["request-response"] > trial["verify"]


@pytest.mark.parametrize("language", JWS_LANGUAGES)
def test_transfer_spec_without_its_settings_is_a_usage_error(language, data, keys, driver_env, tmp_path):
    spec = tmp_path / "spec.json"
    config = {"algorithms": ["HS512"], "trials": 3, "warmup_trials": 0, "request_timeout_seconds": 5}
    write_bench_spec.main(language, "transfer", config, TIMING, str(keys), str(data / "body.json"), spec, NAME)
    document = json.loads(spec.read_text())
    del document["transfer"]
    spec.write_text(json.dumps(document))
    result = run_conducted(language, driver_env, spec, str(tmp_path / "o.csv"))
    assert result.returncode == 2 and "transfer" in result.stderr


@pytest.mark.parametrize("language", JWS_LANGUAGES)
def test_records_input_that_is_not_json_lines_is_a_usage_error(language, keys, driver_env, tmp_path):
    bad = tmp_path / "records.jsonl"
    bad.write_text('{"a":"1"}\nnot json\n')
    spec = tmp_path / "spec.json"
    write_bench_spec.main(
        language,
        "jwt",
        {"algorithms": ["HS256"], "operations": ["sign"]},
        TIMING,
        str(keys),
        str(bad),
        spec,
        NAME,
        "records",
    )
    result = run_conducted(language, driver_env, spec, str(tmp_path / "o.csv"))
    assert result.returncode == 2 and str(bad) in result.stderr
