"""Seed 000 end to end: the smoke run's datasets, token sizes, transfers, verdicts and
report section; credentials that never leak; a malformed dataset that stops with
file:line and loses nothing already measured."""

import csv
import json
import os
import re
import subprocess
from collections import Counter

import numpy as np
import pytest
import yaml
from conftest import JWS_LANGUAGES, PLANTED_KAGGLE, SMOKE_CONFIG, SNAKEFILE, SNAKEMAKE, link_test_envs

from jwtbench import raw_samples, transfer_processes, variants
from jwtbench.seeds import seed000

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


@pytest.mark.parametrize(
    "claim, low, high, verdict",
    [
        ("sign_speed", 2.0, 9.0, "holds"),
        ("sign_speed", 30.0, 80.0, "does not hold"),
        ("sign_speed", 0.2, 0.5, "does not hold"),
        ("sign_speed", 8.0, 12.0, "inconclusive"),
        ("verify_speed", 1.1, 1.5, "holds"),
        ("verify_speed", 0.2, 0.3, "does not hold"),
        ("verify_speed", 0.9, 1.1, "inconclusive"),
        ("decode_similar", 0.95, 1.05, "holds"),
        ("decode_similar", 1.3, 1.6, "does not hold"),
        ("decode_similar", 1.05, 1.2, "inconclusive"),
        ("transfer_rate", 1.01, 1.2, "holds"),
        ("transfer_rate", 0.97, 1.02, "inconclusive"),
    ],
)
def test_verdict_criteria(claim, low, high, verdict):
    assert seed000.judge_ratio(claim, low, high)[0] == verdict


def test_a_malformed_dataset_stops_with_file_and_line_and_loses_nothing(tmp_path, workdir):
    """A first run on synthetic data; then a dropped file with one bad row replaces one
    dataset. The rerun fails naming file:line, and every result of the first run is kept.
    (`workdir`: the session's native environments, linked in, are installed.)"""
    data_dir = tmp_path / "data"
    (tmp_path / "run").mkdir()
    link_test_envs(tmp_path / "run")
    config = [
        "execution={engine: native, compare_native: {activate: false}}",
        f"data_dir={data_dir}",
        "languages=[python]",
        "crosscheck={activate: false}",
        "suites={jwt: {algorithms: [HS512, RS512-2048], records_per_cell: 4}, coldstart: {activate: false},"
        " tokensize: {algorithms: [HS512, RS512-2048]}, transfer: {trials: 3, warmup_trials: 0}}",
    ]
    env = {key: value for key, value in os.environ.items() if not key.startswith("KAGGLE_")}
    # A lock of its own: its benchmarks' figures are not read, and the machine's lock is the
    # smoke run's to hold (waiting for it took minutes of the suite).
    env["JWTBENCH_BENCHMARK_LOCK"] = str(tmp_path / "benchmark.lock")

    def run(*targets):
        command = [
            SNAKEMAKE,
            "-s",
            str(SNAKEFILE),
            "-d",
            str(tmp_path / "run"),
            "--configfile",
            str(SMOKE_CONFIG),
            "--cores",
            "2",
            *targets,
            "--config",
            *config,
        ]
        return subprocess.run(command, capture_output=True, text=True, timeout=900, env=env)

    first = run("results/seed000/verdicts.csv")
    assert first.returncode == 0, first.stderr[-3000:]
    measured = {p: p.read_bytes() for p in (tmp_path / "run" / "results" / "raw").rglob("*.csv")}
    processes = yaml.safe_load(SMOKE_CONFIG.read_text())["suites"]["transfer"]["processes"]
    # jwt and tokensize on each dataset, transfer once per process
    assert len(measured) == (2 + processes) * len(DATASETS)
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


# --- suite transfer in several processes (issue 42 item 6) ---------------------------------

SETTINGS = {"seed": 7, "confidence": 0.95, "bootstrap_resamples": 400}
BODY = 23_000_000  # bytes of one transfer body; a trial's MB/s is BODY / 1e6 / seconds


def write_transfer(path, mb_per_s, trials=5, noise=0.02, seed=0):
    """A raw CSV of one transfer process: go on amazon-prime-users, {variant: median MB/s}."""
    rng = np.random.default_rng(seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(raw_samples.ONE_PROCESS_COLUMNS)
        for variant, rate in mb_per_s.items():
            parsed = variants.parse(variant)
            for trial in range(1, trials + 1):
                seconds = BODY / 1e6 / (rate * rng.normal(1, noise))
                for operation, share in (("request-response", 1.0), ("sign", 0.3), ("verify", 0.3)):
                    writer.writerow(
                        [
                            "go",
                            "golang-jwt",
                            "5",
                            "transfer",
                            operation,
                            parsed.algorithm,
                            parsed.key_bits,
                            "amazon-prime-users",
                            BODY,
                            trial,
                            1,
                            int(seconds * share * 1e9),
                            BODY,
                            "ok",
                        ]
                    )
    raw_samples.read(path)  # the fixture follows the contract
    return path


def transfer_verdict(tmp_path, processes):
    """seed000's transfer_rate verdict row for go on amazon-prime-users, from one raw file per
    process ({HS512 MB/s, RS512 MB/s} each), and the pooled trials' CI judged alone (what
    the verdict rested on before the processes were repeated)."""
    paths = [
        write_transfer(tmp_path / f"amazon-prime-users.p{number}.csv", {"HS512": hs, "RS512-2048": rs}, seed=number)
        for number, (hs, rs) in enumerate(processes, 1)
    ]
    rows = seed000.read_rows(paths)
    trials = seed000.transfer_trials(rows)
    ratio_rows = seed000.ratios(rows, trials, ["go"], ["amazon-prime-users"], SETTINGS, paths)
    row = next(r for r in seed000.verdicts(ratio_rows, []) if r["claim"] == "transfer_rate" and r["dataset"] != "all")
    cells = seed000.round_paired_cells(paths, seed000.jwt_key, seed000.measures(rows, trials), SETTINGS, "seed000")
    key = ("go", "amazon-prime-users")
    _, low, high, _ = cells.derived(((*key, "HS512", "MB/s"), (*key, "RS512-2048", "MB/s")), lambda a, b: a / b)
    return row, trials, (low, high)


def test_transfer_processes_that_disagree_leave_the_claim_open(tmp_path):
    """The two runs of 2026-11-28 as two processes of one run: HS512/RS512 1.21, then
    0.906. Each process alone is tight (2% noise), but together the claim is inconclusive."""
    row, trials, pooled = transfer_verdict(tmp_path, [(1.21, 1.0), (0.906, 1.0)])
    assert row["verdict"] == "inconclusive"
    assert row["ci_low"] < 0.906 < 1.21 < row["ci_high"]
    assert row["ci_low"] <= pooled[0] and pooled[1] <= row["ci_high"]  # never narrower than before
    shown = dict(part.split() for part in row["processes"].split("; "))
    assert float(shown["p1"]) == pytest.approx(1.21, rel=0.03) and float(shown["p2"]) == pytest.approx(0.906, rel=0.03)
    assert "2 processes" in row["pairing"]
    assert {t["process"] for t in trials} == {1, 2} and len(trials) == 2 * 2 * 5


def test_transfer_processes_that_agree_give_the_verdict_of_their_pooled_trials(tmp_path):
    row, _, (low, high) = transfer_verdict(tmp_path, [(1.21, 1.0), (1.2, 0.99), (1.22, 1.01)])
    assert row["verdict"] == seed000.judge_ratio("transfer_rate", low, high)[0] == "holds"
    assert row["ci_low"] == pytest.approx(low, rel=0.05) and row["ci_high"] == pytest.approx(high, rel=0.05)
    row, _, (low, high) = transfer_verdict(tmp_path, [(0.8, 1.0), (0.81, 1.0)])
    assert row["verdict"] == seed000.judge_ratio("transfer_rate", low, high)[0] == "does not hold"


def test_a_transfer_ratio_from_one_process_stays_inconclusive(tmp_path):
    row, _, (low, high) = transfer_verdict(tmp_path, [(1.21, 1.0)])
    assert seed000.judge_ratio("transfer_rate", low, high)[0] == "holds"  # what one process's CI says
    assert row["verdict"] == "inconclusive" and "one process" in row["reason"]


def test_transfer_job_inputs_name_their_process():
    assert transfer_processes.inputs(["a", "b-c"], 1) == ["a", "b-c"]
    assert transfer_processes.inputs(["a", "b-c"], 2) == ["a.p1", "a.p2", "b-c.p1", "b-c.p2"]
    for name in transfer_processes.inputs(["netflix-titles", "x.y"], 3):
        assert (
            transfer_processes.inputs([transfer_processes.dataset_of(name)], 3)[transfer_processes.split(name)[1] - 1]
            == name
        )
    assert transfer_processes.split("netflix-titles") == ("netflix-titles", 1)
    assert transfer_processes.per_process({"trials": 10, "processes": 3})["trials"] == 4
    assert transfer_processes.per_process({"trials": 10})["trials"] == 10


@pytest.mark.parametrize("df, quantile", [(1, 12.706), (2, 4.303), (3, 3.182), (10, 2.228), (60, 2.000)])
def test_t_quantile(df, quantile):
    assert transfer_processes.t_quantile(0.975, df) == pytest.approx(quantile, abs=2e-3)


def test_smoke_dry_run_has_one_transfer_job_per_process(tmp_path):
    """snakemake -n on the smoke config: each driver's transfer runs each dataset in
    suites.transfer.processes jobs, each with its own raw file."""
    processes = yaml.safe_load(SMOKE_CONFIG.read_text())["suites"]["transfer"]["processes"]
    env = {key: value for key, value in os.environ.items() if not key.startswith("KAGGLE_")}
    result = subprocess.run(
        [
            SNAKEMAKE,
            "-s",
            str(SNAKEFILE),
            "-d",
            str(tmp_path),
            "-n",
            "--cores",
            "2",
            "--configfile",
            str(SMOKE_CONFIG),
            "--config",
            "execution={engine: native}",
            "data_dir=/nonexistent",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    found = set(re.findall(r"results/raw/(\w+)/transfer/([\w.-]+)\.csv", result.stdout))
    assert found == {
        (language, f"{name}.p{number}")
        for language in JWS_LANGUAGES
        for name in DATASETS
        for number in range(1, processes + 1)
    }


def ratio_row(claim, dataset, ratio, low, high, pairing="paired by round"):
    """A ratio row as seed000.ratios() gives it, for one language (node)."""
    return {
        "claim": claim,
        "language": "node",
        "dataset": dataset,
        "ratio": ratio,
        "ci_low": low,
        "ci_high": high,
        "pairing": pairing,
        "what": "HS512 decode time / RS512 decode time",
    }


def overall(rows):
    return next(r for r in seed000.verdicts(rows, []) if r["dataset"] == "all")


def test_overall_verdict_pools_the_datasets_paired_ratios():
    """The noisy run of 2026-11-28 (19:44): node's decode ratios per dataset, one of them
    inconclusive on the band's edge. The three processes together hold, with a CI narrower
    than each one's, and that CI is what the row carries."""
    rows = [
        ratio_row("decode_similar", "amazon-prime-users", 0.9285, 0.8892, 0.9620),
        ratio_row("decode_similar", "credit-score-users", 0.9576, 0.9174, 0.9927),
        ratio_row("decode_similar", "netflix-titles", 0.9465, 0.9157, 0.9859),
    ]
    verdicts = {r["dataset"]: r for r in seed000.verdicts(rows, [])}
    assert verdicts["amazon-prime-users"]["verdict"] == "inconclusive"
    row = verdicts["all"]
    assert row["verdict"] == "holds" and "pooled" in row["reason"]
    assert row["ratio"] == pytest.approx((0.9285 * 0.9576 * 0.9465) ** (1 / 3))
    assert 1 / 1.1 < row["ci_low"] < row["ratio"] < row["ci_high"] < 1.1
    assert row["ci_high"] - row["ci_low"] < min(r["ci_high"] - r["ci_low"] for r in rows)


def test_overall_verdict_is_open_when_datasets_decide_differently():
    """One dataset holds and another does not: no pooled figure speaks for both."""
    rows = [
        ratio_row("decode_similar", "amazon-prime-users", 1.00, 0.98, 1.02),
        ratio_row("decode_similar", "credit-score-users", 0.80, 0.78, 0.82),
        ratio_row("decode_similar", "netflix-titles", 0.95, 0.92, 0.98),
    ]
    row = overall(rows)
    assert row["verdict"] == "inconclusive" and row["reason"].startswith("differs between datasets")


def test_overall_verdict_of_unpaired_ratios_needs_every_dataset():
    """Transfer ratios (medians of processes, not paired by round) are not pooled: the
    overall verdict is the datasets' when they agree, with their range as its interval."""
    pairing = "medians, no drift measured + medians of 3 processes, CI covering their spread"
    rows = [
        ratio_row("transfer_rate", "amazon-prime-users", 1.12, 1.05, 1.19, pairing),
        ratio_row("transfer_rate", "credit-score-users", 1.03, 0.90, 1.21, pairing),
    ]
    row = overall(rows)
    assert row["verdict"] == "inconclusive" and (row["ci_low"], row["ci_high"]) == (1.03, 1.12)
    rows[1].update(ratio=1.10, ci_low=1.04, ci_high=1.16)
    assert overall(rows)["verdict"] == "holds"
