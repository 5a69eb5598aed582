"""Comparing two runs and merging hosts from bundles (workflow/rules/compare.smk).

Two small synthetic bundles of one host, written here with a correct manifest: B has one
cell made 2x slower and one seed verdict changed. The targets run through Snakemake
natively, rendering the reports with R (knitr + pandoc) for real.
"""

import csv
import hashlib
import json
import shutil
import subprocess
import tarfile
from pathlib import Path

import numpy as np
import pytest
import yaml
from conftest import SNAKEFILE, SNAKEMAKE

import aggregate_samples
import compare_runs
import merge_hosts
import raw_samples

HOST = "amd-epyc-2c-24g-0123456789"
OTHER_HOST = "intel-xeon-8c-64g-abcdef0123"
SETTINGS = {"confidence": 0.95, "bootstrap_resamples": 200, "seed": 20261121}

# (operation, algorithm, key_bits, median ns/op) of python's jwt cells on the claims file.
CELLS = [("sign", "HS256", 0, 9000.0), ("verify", "HS256", 0, 11000.0),
         ("sign", "RS256", 2048, 800000.0), ("verify", "RS256", 2048, 30000.0)]  # fmt: skip
SLOWER = ("sign", "HS256")  # made 2x slower in B

VERDICT_FILES = {
    "seed000": (["claim", "language", "dataset", "verdict", "ratio", "ci_low", "ci_high", "reason", "what"], [
        ["sign_speed", "python", "amazon-prime-users", "holds", "12.5", "11.9", "13.2", "HMAC faster", "RS512/HS512"],
        ["decode_similar", "python", "amazon-prime-users", "inconclusive", "1.01", "0.85", "1.04", "CI crosses",
         "HS512/RS512"],
    ]),
    "seed001": (["claim", "language", "method", "verdict", "ratio_min", "ratio_max", "ci_low", "ci_high",
                 "comparisons", "reason", "what"], [
        ["hmac_dominates", "python", "jwtbench", "holds", "6.9", "270", "4.2", "467", "21", "all hold", "x"],
        ["ecdsa_verify_costlier", "python", "jwtbench", "inconclusive", "0.78", "0.92", "0.58", "1.66", "3",
         "3 of 3 inconclusive", "y"],
    ]),
}  # fmt: skip
CHANGED_CLAIM = ("seed001", "ecdsa_verify_costlier")


def sha256_of(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write_manifest(directory, host_id, run_id):
    files = {
        path.relative_to(directory).as_posix(): sha256_of(path)
        for path in sorted(directory.rglob("*"))
        if path.is_file() and path.name != "manifest.json"
    }
    manifest = {"format": "jwtbench-bundle/1", "host_id": host_id, "run_id": run_id,
                "created": "2026-11-21T18:00:00Z", "files": files}  # fmt: skip
    (directory / "manifest.json").write_text(json.dumps(manifest, indent=2))


def write_raw(path, factor, seed):
    rng = np.random.default_rng(seed)
    path.parent.mkdir(parents=True)
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(raw_samples.COLUMNS)
        for operation, algorithm, bits, median in CELLS:
            scale = factor if (operation, algorithm) == SLOWER else 1.0
            for sample in range(1, 31):
                ns_per_op = median * scale * (1 + rng.normal(0, 0.01))
                writer.writerow(["python", "pyjwt", "2.9.0", "jwt", operation, algorithm, bits, "claims-001", 420,
                                 sample, 100, int(ns_per_op * 100), 300, "ok"])  # fmt: skip


def make_bundle(root, host_id, run_id, started, slower=1.0, changed_verdict=None):
    """A bundle directory results/bundles/<host>/<run> of the format in the brief."""
    directory = root / host_id / run_id
    raw = directory / "raw/python/jwt/claims-001.csv"
    write_raw(raw, slower, seed=len(run_id) + int(slower * 10))
    with open(directory / "aggregate.log", "w") as log:
        aggregate_samples.main([raw], SETTINGS, directory / "summary.csv", directory / "ratios.csv", log)
    (directory / "aggregate.log").unlink()
    for seed, (header, rows) in VERDICT_FILES.items():
        (directory / "seeds" / seed).mkdir(parents=True)
        with open(directory / "seeds" / seed / "verdicts.csv", "w", newline="") as handle:
            writer = csv.writer(handle, lineterminator="\n")
            writer.writerow(header)
            for row in rows:
                if changed_verdict and (seed, row[0]) == CHANGED_CLAIM:
                    row = [row[0], row[1], row[2], changed_verdict, "1.3", "1.4", "1.2", "1.5", *row[8:]]
                writer.writerow(row)
    provenance = {
        "format": "jwtbench-provenance/1",
        "run": {"started": started, "ended": started, "git": {"commit": "5f56e4f", "dirty": False},
                "execution_mode": "native", "cpus": "1", "config_sha256": "ab" * 32},
        "host": {"cpu_model": "AMD EPYC", "cores": 2, "kernel": "6.1.0", "os": "Debian GNU/Linux 12 (bookworm)"},
        "engine": {"name": "native", "version": None},
        "tools": {"snakemake": "9.27.1", "python": "3.11.7"},
        "languages": {"python": {"runtime": "cpython", "runtime_version": "3.11.2", "implementation": "pyjwt",
                                 "implementation_version": "2.9.0"}},
        "images": {},
    }  # fmt: skip
    (directory / "provenance.json").write_text(json.dumps(provenance, indent=1))
    (directory / "config.yaml").write_text(yaml.safe_dump({"languages": ["python"]}))
    (directory / "host.json").write_text(json.dumps({"host_id": host_id, "cpu_model": "AMD EPYC", "cores": 2}))
    (directory / "published").mkdir()
    (directory / "published/seed001_claims.csv").write_text("claim,text\nhmac_dominates,HMAC wins\n")
    write_manifest(directory, host_id, run_id)
    return directory


@pytest.fixture(scope="module")
def bundles(tmp_path_factory):
    root = tmp_path_factory.mktemp("bundles")
    a = make_bundle(root, HOST, "20261121T100000Z-aaaaaaaa", "2026-11-21T10:00:00+00:00")
    b = make_bundle(root, HOST, "20261121T120000Z-bbbbbbbb", "2026-11-21T12:00:00+00:00", slower=2.0,
                    changed_verdict="holds")  # fmt: skip
    return a, b


def run_target(workdir, target, key, paths):
    """The target through Snakemake, natively, with `key`.bundles = paths."""
    config = workdir / "compare-config.yaml"
    config.write_text(yaml.safe_dump({
        "languages": ["python"], "datasets": [], "execution": {"engine": "native"},
        "statistics": {"bootstrap_resamples": 200}, key: {"bundles": [str(p) for p in paths]},
    }))  # fmt: skip
    command = [SNAKEMAKE, "-s", str(SNAKEFILE), "-d", str(workdir), target, "--cores", "1",
               "--configfile", str(config)]  # fmt: skip
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


def read_csv(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def test_compare_flags_the_slower_cell_lists_the_verdict_and_renders(bundles, tmp_path):
    a, b = bundles
    result = run_target(tmp_path, "compare", "compare", [a, b])
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
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
    assert "20261121T100000Z-aaaaaaaa" in html and "20261121T120000Z-bbbbbbbb" in html
    assert "ecdsa_verify_costlier" in html and 'id="fig-cell-ratios"' in html
    assert html.count("<img") >= 1


def test_compare_refuses_bundles_of_different_hosts(bundles, tmp_path):
    a, _ = bundles
    other = make_bundle(tmp_path, OTHER_HOST, "20261121T130000Z-cccccccc", "2026-11-21T13:00:00+00:00")
    with pytest.raises(compare_runs.CompareError, match=r"compare\.bundles.*from host.*merge\.bundles"):
        compare_runs.main([a, other], SETTINGS, 0.05, tmp_path / "out", None)


def test_a_tampered_bundle_is_refused_naming_the_file(bundles, tmp_path):
    _, b = bundles
    tampered = tmp_path / "tampered"
    shutil.copytree(b, tampered)
    raw = tampered / "raw/python/jwt/claims-001.csv"
    lines = raw.read_text().splitlines(keepends=True)
    raw.write_text("".join(lines[:-1]))  # one sample dropped
    with pytest.raises(compare_runs.CompareError,
                       match=r"compare\.bundles\[1\].*raw/python/jwt/claims-001\.csv"):  # fmt: skip
        compare_runs.main([bundles[0], tampered], SETTINGS, 0.05, tmp_path / "out", None)
    # The same refusal from an archive of it.
    archive = tmp_path / "tampered.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(tampered, arcname=tampered.name)
    with pytest.raises(compare_runs.CompareError, match=r"merge\.bundles\[0\].*raw/python/jwt/claims-001\.csv"):
        merge_hosts.main([archive], tmp_path / "merged", None)


def test_merge_renders_both_runs_with_host_on_every_row(bundles, tmp_path):
    a, b = bundles
    other = make_bundle(tmp_path / "other", OTHER_HOST, "20261121T130000Z-cccccccc", "2026-11-21T13:00:00+00:00")
    archive = tmp_path / "other.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(other, arcname=other.name)
    result = run_target(tmp_path, "merge", "merge", [a, b, archive])
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    merged = tmp_path / "results/merged"
    summary = read_csv(merged / "summary.csv")
    assert len(summary) == 3 * len(CELLS)
    assert all(row["host_id"] and row["run_id"] and row["label"] for row in summary)
    assert {row["run_id"] for row in summary} == {a.name, b.name, other.name}
    assert {row["host_id"] for row in read_csv(merged / "ratios.csv")} == {HOST, OTHER_HOST}
    verdicts = read_csv(merged / "verdicts.csv")
    assert len(verdicts) == 3 * 4 and all(row["host_id"] for row in verdicts)
    html = (merged / "report.html").read_text()
    for run in (a.name, b.name, other.name):
        assert run in html
    assert 'id="fig-medians-by-run"' in html and 'id="fig-ratios-across-runs"' in html


def test_merge_refuses_an_empty_list_and_a_run_named_twice(bundles, tmp_path):
    a, _ = bundles
    with pytest.raises(compare_runs.CompareError, match=r"merge\.bundles' is empty"):
        merge_hosts.main([], tmp_path, None)
    with pytest.raises(compare_runs.CompareError, match=r"merge\.bundles\[1\].*same run"):
        merge_hosts.main([a, a], tmp_path, None)


def test_compare_needs_two_bundles(bundles, tmp_path):
    with pytest.raises(compare_runs.CompareError, match=r"compare\.bundles' needs exactly two"):
        compare_runs.main([bundles[0]], SETTINGS, 0.05, tmp_path, None)
