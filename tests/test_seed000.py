"""Seed 000 end to end: the smoke run's datasets, token sizes, transfers, verdicts and
report section; credentials that never leak; a malformed dataset that stops with
file:line and loses nothing already measured."""

import csv
import json
import os
import subprocess
from collections import Counter

import pytest
import yaml
from conftest import JWS_LANGUAGES, PLANTED_KAGGLE, SMOKE_CONFIG, SNAKEFILE, SNAKEMAKE, link_test_envs

from seeds import seed000

DATASETS = tuple(dataset["name"] for dataset in yaml.safe_load(SMOKE_CONFIG.read_text())["datasets"])
CLAIMS = ("sign_speed", "verify_speed", "decode_similar", "token_size", "transfer_rate")


def read_csv(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def test_datasets_are_the_marked_synthetic_stand_ins_after_the_kaggle_path_failed(smoke):
    provenance = json.loads((smoke / "results/provenance.json").read_text())
    for name in DATASETS:
        facts = json.loads((smoke / f"results/data/{name}/dataset.json").read_text())
        assert facts["planned_source"] == "kaggle", "planted credentials should send it to Kaggle first"
        assert facts["source"] == "synthetic" and facts["synthetic"] is True
        assert any("falling back" in warning for warning in facts["warnings"])
        assert provenance["datasets"][name]["synthetic"] is True
        lines = (smoke / f"results/data/{name}/payloads.jsonl").read_bytes().splitlines()
        assert len(lines) == facts["records"] > 50


def test_token_size_difference_is_exactly_256_bytes_on_every_record(smoke):
    for language in JWS_LANGUAGES:
        for name in DATASETS:
            rows = read_csv(smoke / f"results/raw/{language}/tokensize/{name}.csv")
            sizes = {(r["algorithm"], r["sample"]): int(r["output_bytes"]) for r in rows if r["status"] == "ok"}
            records = {sample for (alg, sample) in sizes if alg == "HS512"}
            assert records and records == {sample for (alg, sample) in sizes if alg == "RS512"}
            assert {sizes["RS512", s] - sizes["HS512", s] for s in records} == {256}, (language, name)
    verdicts = read_csv(smoke / "results/seed000/verdicts.csv")
    sizes = [v for v in verdicts if v["claim"] == "token_size"]
    assert len(sizes) == len(JWS_LANGUAGES) * (len(DATASETS) + 1)
    assert {v["verdict"] for v in sizes} == {"holds"}


def test_transfer_has_at_least_10_trials_per_dataset_and_algorithm(smoke):
    trials = read_csv(smoke / "results/seed000/transfer.csv")
    counts = Counter((t["language"], t["dataset"], t["variant"]) for t in trials if t["status"] == "ok")
    for language in JWS_LANGUAGES:
        for name in DATASETS:
            for variant in ("HS512", "RS512-2048"):
                assert counts[language, name, variant] >= 10, (language, name, variant)
    for trial in trials:
        assert float(trial["mb_per_s"]) > 0 and float(trial["request_response_s"]) > float(trial["sign_s"])


def test_every_claim_has_a_verdict_per_language(smoke):
    verdicts = read_csv(smoke / "results/seed000/verdicts.csv")
    overall = {(v["claim"], v["language"]): v for v in verdicts if v["dataset"] == "all"}
    assert sorted(overall) == sorted((c, lang) for c in CLAIMS for lang in JWS_LANGUAGES)
    for verdict in overall.values():
        assert verdict["verdict"] in ("holds", "does not hold", "inconclusive") and verdict["reason"]


def test_paper_metrics_are_reported_per_record_operation(smoke):
    rates = read_csv(smoke / "results/seed000/rates.csv")
    cells = {(r["language"], r["dataset"], r["variant"], r["operation"]): r for r in rates}
    for language in JWS_LANGUAGES:
        for name in DATASETS:
            for op in ("sign", "verify", "decode"):
                for variant in ("HS512", "RS512-2048"):
                    row = cells[language, name, variant, op]
                    assert abs(float(row["rps"]) * float(row["mean_s"]) - 1) < 1e-3


def test_report_has_the_seed_000_section(smoke):
    html = (smoke / "results/report/report.html").read_text()
    assert "Paper 000 reproduced" in html
    assert "synthetic" in html
    for statement in ("up to 10x faster", "256 bytes smaller"):
        assert statement in html


def test_planted_kaggle_credentials_appear_nowhere(smoke):
    written = [smoke / "smoke-output.txt", *(smoke / ".snakemake" / "log").glob("*")]
    for folder in ("results", "logs"):
        written += [p for p in (smoke / folder).rglob("*") if p.is_file()]
    assert len(written) > 50
    for path in written:
        data = path.read_bytes()
        for value in PLANTED_KAGGLE.values():
            assert value.encode() not in data, f"{value} found in {path}"


@pytest.mark.parametrize("claim, low, high, verdict", [
    ("sign_speed", 2.0, 9.0, "holds"), ("sign_speed", 30.0, 80.0, "does not hold"),
    ("sign_speed", 0.2, 0.5, "does not hold"), ("sign_speed", 8.0, 12.0, "inconclusive"),
    ("verify_speed", 1.1, 1.5, "holds"), ("verify_speed", 0.2, 0.3, "does not hold"),
    ("verify_speed", 0.9, 1.1, "inconclusive"), ("decode_similar", 0.95, 1.05, "holds"),
    ("decode_similar", 1.3, 1.6, "does not hold"), ("decode_similar", 1.05, 1.2, "inconclusive"),
    ("transfer_rate", 1.01, 1.2, "holds"), ("transfer_rate", 0.97, 1.02, "inconclusive"),
])  # fmt: skip
def test_verdict_criteria(claim, low, high, verdict):
    assert seed000.judge_ratio(claim, low, high)[0] == verdict


def test_a_malformed_dataset_stops_with_file_and_line_and_loses_nothing(tmp_path, workdir):
    """A first run on synthetic data; then a dropped file with one bad row replaces one
    dataset. The rerun fails naming file:line, and every result of the first run is kept.
    (`workdir`: the session's native environments, linked in, are installed.)"""
    data_dir = tmp_path / "data"
    (tmp_path / "run").mkdir()
    link_test_envs(tmp_path / "run")
    config = ["execution={engine: native, compare_native: {activate: false}}", f"data_dir={data_dir}",
              "languages=[python]", "crosscheck={activate: false}",
              "suites={jwt: {algorithms: [HS512, RS512-2048], records_per_cell: 4}, coldstart: {activate: false},"
              " tokensize: {algorithms: [HS512, RS512-2048]}, transfer: {trials: 3, warmup_trials: 0}}"]  # fmt: skip
    env = {key: value for key, value in os.environ.items() if not key.startswith("KAGGLE_")}
    # A lock of its own: its benchmarks' figures are not read, and the machine's lock is the
    # smoke run's to hold (waiting for it took minutes of the suite).
    env["JWTBENCH_BENCHMARK_LOCK"] = str(tmp_path / "benchmark.lock")

    def run(*targets):
        command = [SNAKEMAKE, "-s", str(SNAKEFILE), "-d", str(tmp_path / "run"), "--configfile", str(SMOKE_CONFIG),
                   "--cores", "2", *targets, "--config", *config]  # fmt: skip
        return subprocess.run(command, capture_output=True, text=True, timeout=900, env=env)

    first = run("results/seed000/verdicts.csv")
    assert first.returncode == 0, first.stderr[-3000:]
    measured = {p: p.read_bytes() for p in (tmp_path / "run" / "results" / "raw").rglob("*.csv")}
    assert len(measured) == 3 * len(DATASETS)  # jwt, tokensize and transfer on each dataset
    assert "netflix-titles" in DATASETS

    source = (tmp_path / "run/results/data/netflix-titles/source.csv").read_bytes().splitlines(keepends=True)
    source[6] = source[6].rstrip(b"\n") + b",one field too many\n"
    (data_dir / "raw").mkdir(parents=True)
    (data_dir / "raw" / "netflix-titles.csv").write_bytes(b"".join(source))

    second = run("results/seed000/verdicts.csv")
    assert second.returncode != 0
    assert f"{data_dir}/raw/netflix-titles.csv:7: 13 fields, the header has 12" in second.stderr
    for path, data in measured.items():
        assert path.read_bytes() == data, f"{path} changed or vanished"
    assert (tmp_path / "run/results/seed000/verdicts.csv").is_file()
