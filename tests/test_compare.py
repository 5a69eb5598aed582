"""Comparing two runs and merging hosts from bundles (workflow/rules/compare.smk).

Two small synthetic runs of one host, bundled by bundles.py's writer: B has one cell made
2x slower and one seed verdict changed. The targets run through Snakemake
natively, rendering the reports with R (knitr + pandoc) for real.
"""

import csv
import json
import shutil
import subprocess
import tarfile
from pathlib import Path

import numpy as np
import pytest
import yaml
from conftest import REPO, SNAKEFILE, SNAKEMAKE

from jwtbench import raw_samples
from jwtbench.rules import aggregate_samples, bundles, compare_runs, merge_hosts

CPU = "AMD EPYC 7B13"
OTHER_CPU = "Intel Xeon Platinum 8375C"
SETTINGS = {"confidence": 0.95, "bootstrap_resamples": 200, "seed": 20261121}

# (operation, algorithm, key_bits, median ns/op) of python's jwt cells on the claims file.
CELLS = [
    ("sign", "HS256", 0, 9000.0),
    ("verify", "HS256", 0, 11000.0),
    ("sign", "RS256", 2048, 800000.0),
    ("verify", "RS256", 2048, 30000.0),
]
SLOWER = ("sign", "HS256")  # made 2x slower in B

VERDICT_FILES = {
    "seed000": (
        ["claim", "language", "dataset", "verdict", "ratio", "ci_low", "ci_high", "reason", "what"],
        [
            [
                "sign_speed",
                "python",
                "amazon-prime-users",
                "holds",
                "12.5",
                "11.9",
                "13.2",
                "HMAC faster",
                "RS512/HS512",
            ],
            [
                "decode_similar",
                "python",
                "amazon-prime-users",
                "inconclusive",
                "1.01",
                "0.85",
                "1.04",
                "CI crosses",
                "HS512/RS512",
            ],
        ],
    ),
    "seed001": (
        [
            "claim",
            "language",
            "method",
            "verdict",
            "ratio_min",
            "ratio_max",
            "ci_low",
            "ci_high",
            "comparisons",
            "reason",
            "what",
        ],
        [
            ["hmac_dominates", "python", "jwtbench", "holds", "6.9", "270", "4.2", "467", "21", "all hold", "x"],
            [
                "ecdsa_verify_costlier",
                "python",
                "jwtbench",
                "inconclusive",
                "0.78",
                "0.92",
                "0.58",
                "1.66",
                "3",
                "3 of 3 inconclusive",
                "y",
            ],
        ],
    ),
}
CHANGED_CLAIM = ("seed001", "ecdsa_verify_costlier")


def write_raw(path, factor, seed):
    rng = np.random.default_rng(seed)
    path.parent.mkdir(parents=True)
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(raw_samples.ONE_PROCESS_COLUMNS)
        for operation, algorithm, bits, median in CELLS:
            scale = factor if (operation, algorithm) == SLOWER else 1.0
            for sample in range(1, 31):
                ns_per_op = median * scale * (1 + rng.normal(0, 0.01))
                writer.writerow(
                    [
                        "python",
                        "pyjwt",
                        "2.9.0",
                        "jwt",
                        operation,
                        algorithm,
                        bits,
                        "claims-001",
                        420,
                        sample,
                        100,
                        int(ns_per_op * 100),
                        300,
                        "ok",
                    ]
                )


def host_facts(cpu_model):
    return {
        "cpu_model": cpu_model,
        "cores": 2,
        "memory_gib": 24,
        "kernel_release": "6.1.0",
        "os": "Debian GNU/Linux 12 (bookworm)",
        "architecture": "x86_64",
    }


def make_bundle(root, cpu_model, started, slower=1.0, changed_verdict=None):
    """A bundle written by bundles.py's writer from a small synthetic run's results; its
    directory (root/<host-id>/<run-id>)."""
    results = root / f"results-{started[:19].replace(':', '')}-{slower}"
    raw = results / "raw/python/jwt/claims-001.csv"
    write_raw(raw, slower, seed=int(slower * 10) + len(started))
    with open(results / "aggregate.log", "w") as log:
        aggregate_samples.main([raw], SETTINGS, results / "summary.csv", results / "ratios.csv", log)
    seed_tables = []
    for seed, (header, rows) in VERDICT_FILES.items():
        path = results / seed / "verdicts.csv"
        path.parent.mkdir(parents=True)
        with open(path, "w", newline="") as handle:
            writer = csv.writer(handle, lineterminator="\n")
            writer.writerow(header)
            for row in rows:
                if changed_verdict and (seed, row[0]) == CHANGED_CLAIM:
                    row = [row[0], row[1], row[2], changed_verdict, "1.3", "1.4", "1.2", "1.5", *row[8:]]
                writer.writerow(row)
        seed_tables.append(path)
    provenance = {
        "format": "jwtbench-provenance/1",
        "run": {
            "started": started,
            "ended": started,
            "git": {"commit": "5f56e4f", "dirty": False},
            "execution_mode": "native",
            "cpus": "1",
            "config_sha256": "ab" * 32,
        },
        "host": {"cpu_model": cpu_model, "cores": 2, "kernel": "6.1.0", "os": "Debian GNU/Linux 12 (bookworm)"},
        "engine": {"name": "native", "version": None},
        "tools": {"snakemake": "9.27.1", "python": "3.11.7"},
        "languages": {
            "python": {
                "runtime": "cpython",
                "runtime_version": "3.11.2",
                "implementation": "pyjwt",
                "implementation_version": "2.9.0",
            }
        },
        "images": {},
    }
    (results / "provenance.json").write_text(json.dumps(provenance, indent=1))
    published = REPO / "report/published/seed001_claims.csv"
    files = bundles.layout(results, [raw], seed_tables, [published])
    info = bundles.write_bundle(root / "bundles", files, {"languages": ["python"]}, host_facts(cpu_model))
    return Path(info["path"])


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("bundles")
    a = make_bundle(root, CPU, "2026-11-21T10:00:00+00:00")
    b = make_bundle(root, CPU, "2026-11-21T12:00:00+00:00", slower=2.0, changed_verdict="holds")
    return a, b


def run_target(workdir, target, key, paths):
    """The target through Snakemake, natively, with `key`.bundles = paths."""
    config = workdir / "compare-config.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "languages": ["python"],
                "datasets": [],
                "execution": {"engine": "native"},
                "statistics": {"bootstrap_resamples": 200},
                key: {"bundles": [str(p) for p in paths]},
            }
        )
    )
    command = [SNAKEMAKE, "-s", str(SNAKEFILE), "-d", str(workdir), target, "--cores", "1", "--configfile", str(config)]
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


def read_csv(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def test_compare_flags_the_slower_cell_lists_the_verdict_and_renders(two_runs, tmp_path):
    a, b = two_runs
    result = run_target(tmp_path, "compare", "compare", [a, b])
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    # No benchmark job: no plan printed or written over the last run's.
    assert "benchmark plan" not in result.stderr
    assert not (tmp_path / ".snakemake/jwtbench/benchmark-budget.json").exists()
    cells = read_csv(tmp_path / "results/compare/cells.csv")
    assert len(cells) == len(CELLS) and all(row["presence"] == "both" for row in cells)
    flagged = [row for row in cells if row["flagged"] == "True"]
    assert [(row["operation"], row["algorithm"]) for row in flagged] == [SLOWER]
    slower = flagged[0]
    assert slower["change"] == "slower"
    assert 1.9 < float(slower["ci_low"]) <= float(slower["ratio"]) <= float(slower["ci_high"]) < 2.1
    for row in cells:
        if row is not slower:
            assert float(row["ci_low"]) < 1.05 and float(row["ci_high"]) > 1 / 1.05, row
    verdicts = read_csv(tmp_path / "results/compare/verdicts.csv")
    assert len(verdicts) == sum(len(rows) for _, rows in VERDICT_FILES.values())
    differing = [row for row in verdicts if row["differs"] == "True"]
    assert [(row["seed"], row["claim"]) for row in differing] == [CHANGED_CLAIM]
    assert verdicts[0] is not None and (verdicts[0]["seed"], verdicts[0]["claim"]) == CHANGED_CLAIM  # first
    assert (differing[0]["verdict_a"], differing[0]["verdict_b"]) == ("inconclusive", "holds")
    assert (differing[0]["ci_low_a"], differing[0]["ci_high_b"]) == ("0.58", "1.5")
    assert differing[0]["method"] == "jwtbench" and differing[0]["dataset"] == ""
    html = (tmp_path / "results/compare/report.html").read_text()
    assert a.name in html and b.name in html and a.parent.name in html
    assert "ecdsa_verify_costlier" in html and 'id="fig-cell-ratios"' in html
    assert html.count("<img") >= 1


def test_compare_refuses_bundles_of_different_hosts(two_runs, tmp_path):
    a, _ = two_runs
    other = make_bundle(tmp_path, OTHER_CPU, "2026-11-21T13:00:00+00:00")
    with pytest.raises(compare_runs.CompareError, match=r"compare\.bundles.*from host.*merge\.bundles"):
        compare_runs.main([a, other], SETTINGS, 0.05, tmp_path / "out", None)


def test_a_tampered_bundle_is_refused_naming_the_file(two_runs, tmp_path):
    _, b = two_runs
    tampered = tmp_path / "tampered"
    shutil.copytree(b, tampered)
    raw = tampered / "raw/python/jwt/claims-001.csv"
    lines = raw.read_text().splitlines(keepends=True)
    raw.write_text("".join(lines[:-1]))  # one sample dropped
    with pytest.raises(compare_runs.CompareError, match=r"compare\.bundles\[1\].*raw/python/jwt/claims-001\.csv"):
        compare_runs.main([two_runs[0], tampered], SETTINGS, 0.05, tmp_path / "out", None)
    # The same refusal from an archive of it.
    archive = tmp_path / "tampered.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(tampered, arcname=tampered.name)
    with pytest.raises(compare_runs.CompareError, match=r"merge\.bundles\[0\].*raw/python/jwt/claims-001\.csv"):
        merge_hosts.main([archive], tmp_path / "merged", None)


def test_merge_renders_both_runs_with_host_on_every_row(two_runs, tmp_path):
    a, b = two_runs
    other = make_bundle(tmp_path, OTHER_CPU, "2026-11-21T13:00:00+00:00")
    archive = other.parent / f"{other.name}.tar.gz"
    result = run_target(tmp_path, "merge", "merge", [a, b, archive])
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    merged = tmp_path / "results/merged"
    summary = read_csv(merged / "summary.csv")
    assert len(summary) == 3 * len(CELLS)
    assert all(row["host_id"] and row["run_id"] and row["label"] for row in summary)
    assert {row["run_id"] for row in summary} == {a.name, b.name, other.name}
    assert {row["host_id"] for row in read_csv(merged / "ratios.csv")} == {a.parent.name, other.parent.name}
    verdicts = read_csv(merged / "verdicts.csv")
    assert len(verdicts) == 3 * 4 and all(row["host_id"] for row in verdicts)
    html = (merged / "report.html").read_text()
    for run in (a.name, b.name, other.name):
        assert run in html
    assert 'id="fig-medians-by-run"' in html and 'id="fig-ratios-across-runs"' in html


def test_merge_refuses_an_empty_list_and_a_run_named_twice(two_runs, tmp_path):
    a, _ = two_runs
    with pytest.raises(compare_runs.CompareError, match=r"merge\.bundles' is empty"):
        merge_hosts.main([], tmp_path, None)
    with pytest.raises(compare_runs.CompareError, match=r"merge\.bundles\[1\].*same run"):
        merge_hosts.main([a, a], tmp_path, None)


def test_compare_needs_two_bundles(two_runs, tmp_path):
    with pytest.raises(compare_runs.CompareError, match=r"compare\.bundles' needs exactly two"):
        compare_runs.main([two_runs[0]], SETTINGS, 0.05, tmp_path, None)


def test_a_claim_is_matched_across_runs_by_what_names_it_not_by_what_was_measured(tmp_path):
    """Seed 000's transfer claims carry their processes' ratios: two runs of one claim differ
    there, and each run's row was once listed apart ('only in A', 'only in B')."""
    from jwtbench.rules import compare_runs

    header = "claim,language,dataset,verdict,ratio,ci_low,ci_high,pairing,processes,what\n"
    for run, processes, verdict in (("a", "p1 0.995; p2 1.04", "inconclusive"), ("b", "p1 0.96; p2 0.94", "holds")):
        (tmp_path / run / "seeds" / "seed000").mkdir(parents=True)
        (tmp_path / run / "seeds" / "seed000" / "verdicts.csv").write_text(
            header + f"transfer_rate,rust,credit-score-users,{verdict},1.1,1.0,1.2,,{processes},MB/s\n"
        )
    found_a, ids = compare_runs.read_verdicts(tmp_path / "a")
    found_b, _ = compare_runs.read_verdicts(tmp_path / "b")
    rows = compare_runs.compare_verdicts(found_a, found_b, ids)
    assert [(row["presence"], row["verdict_a"], row["verdict_b"], row["differs"]) for row in rows] == [
        ("both", "inconclusive", "holds", True)
    ]
