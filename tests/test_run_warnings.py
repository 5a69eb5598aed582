"""The run's warnings and --strict (issue 42): what may make a number wrong is measured
again where it can be (the cross-check's confirmation pass), then shown on the terminal's
last lines and the report's first screen; the run exits 0 with it, and fails under strict."""

import csv
import os
import shutil
import subprocess
from types import SimpleNamespace

import numpy as np
import pytest
from conftest import REPO, SMOKE_CONFIG, SMOKE_IN_TESTS, SNAKEMAKE, link_test_envs

from jwtbench import result_tables, sample_statistics
from jwtbench.rules import crosscheck_harness, run_warnings, summarize_crosscheck

# --- the bimodality rule ------------------------------------------------------------------


def test_two_speeds_are_bimodal_and_one_speed_is_not():
    rng = np.random.default_rng(3)
    two = np.concatenate([rng.normal(710, 5, 12), rng.normal(1030, 5, 12)])
    low, high, share = sample_statistics.modes(two)
    assert 700 < low < 720 and 1020 < high < 1040 and share == 0.5
    assert sample_statistics.modes(rng.normal(1000, 20, 60)) is None
    # A burst of noise in a few samples is under the share: not two speeds.
    assert sample_statistics.modes(np.concatenate([rng.normal(1000, 5, 17), [1400, 1420, 1450]])) is None
    # Too few samples to judge.
    assert sample_statistics.modes(two[::3]) is None


# --- the confirmation pass ---------------------------------------------------------------

BLOCK = dict(
    language="python",
    implementation="pyjwt",
    implementation_version="2",
    algorithm="SHA-256",
    key_bits=0,
    input="claims-001",
    input_bytes=64,
    harness="timeit",
    harness_version="3.11",
    samples=10,
    status="ok",
)


def write_blocks(path, ratio, alternations=6):
    rows = []
    for alternation in range(1, alternations + 1):
        for timer, ns in (("driver", 100 * ratio * (1 + alternation / 1000)), ("native", 100.0)):
            rows.append(
                {**BLOCK, "operation": "reference", "alternation": alternation, "timer": timer, "ns_per_op": ns}
            )
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, summarize_crosscheck.BLOCK_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return path


@pytest.mark.parametrize(
    "second, confirmation, agreement", [(2.0, "confirmed", "disagrees"), (1.01, "cleared", "agrees")]
)
def test_a_disagreeing_cell_is_measured_again_and_judged_on_the_second_pass(tmp_path, second, confirmation, agreement):
    first = summarize_crosscheck.summarize({"python": write_blocks(tmp_path / "first.csv", 2.0)}, 0.05, {})
    assert first[0]["agreement"] == "disagrees"
    reran = []

    def rerun(driver):
        reran.append(driver)
        return write_blocks(tmp_path / "second.csv", second)

    table = crosscheck_harness.confirm(first, rerun, 0.05, {})
    assert reran == ["python"]
    row = table[0]
    assert (row["confirmation"], row["agreement"]) == (confirmation, agreement)
    assert row["first_ratio"] == first[0]["ratio"] and abs(row["ratio"] - second) < 0.01
    summarize_crosscheck.write(table, tmp_path / "crosscheck.csv")
    warnings = run_warnings.crosscheck_warnings(list(csv.DictReader(open(tmp_path / "crosscheck.csv"))))
    assert len(warnings) == (confirmation == "confirmed")


def test_a_cell_that_agrees_is_not_measured_again(tmp_path):
    first = summarize_crosscheck.summarize({"python": write_blocks(tmp_path / "first.csv", 1.0)}, 0.05, {})
    table = crosscheck_harness.confirm(first, lambda driver: pytest.fail("measured again"), 0.05, {})
    assert table[0]["confirmation"] == "" and table[0]["agreement"] == "agrees"


# --- the warnings and the strict check -----------------------------------------------------


def write_table(path, schema, rows):
    result_tables.write_csv(path, result_tables.columns(schema), rows)
    return path


def drift_rows(spread, rounds=40):
    return [
        {
            "language": "node",
            "driver": "node",
            "suite": "jwt",
            "input": "claims-001",
            "round": r,
            "implementation": "node:crypto",
            "implementation_version": "20",
            "iterations": 100,
            "ns_per_op": 300.0 * (1 + spread * (r % 2)),
            "seconds_before": r,
            "rounds_seconds": 40,
            "relative": 1 + spread * (r % 2),
        }
        for r in range(1, rounds + 1)
    ]


def test_drift_beyond_the_limit_is_a_warning_naming_the_language(tmp_path):
    calm = write_table(tmp_path / "calm.csv", "drift.schema.yaml", drift_rows(0.02))
    moved = write_table(tmp_path / "moved.csv", "drift.schema.yaml", drift_rows(0.4))
    assert run_warnings.drift_warnings(result_tables.read_rows(calm), 10) == []
    found = run_warnings.drift_warnings(result_tables.read_rows(moved), 10)
    assert {w["subject"] for w in found} == {"the run", "node"}
    assert all(w["kind"] == "drift" and w["action"] for w in found)
    # Processes of a few rounds (the smoke config's 8) are too short to judge.
    short = write_table(tmp_path / "short.csv", "drift.schema.yaml", drift_rows(0.4, rounds=8))
    assert run_warnings.drift_warnings(result_tables.read_rows(short), 10) == []


def test_strict_fails_on_a_warning_and_says_what_it_is(tmp_path):
    path = write_table(
        tmp_path / "warnings.csv",
        "warnings.schema.yaml",
        [{"kind": "bimodal", "subject": "1 cells", "message": "1 cell(s) sampled at two speeds", "action": "rerun"}],
    )
    log, out = tmp_path / "check.log", tmp_path / "run.checked"

    def job(strict):
        return SimpleNamespace(
            input=SimpleNamespace(warnings=str(path)),
            log=[str(log)],
            output=[str(out)],
            params=SimpleNamespace(strict=strict),
        )

    run_warnings.check_job(job(False))
    assert out.read_text() == "1 warning(s); strict: False\n"
    assert "two speeds" in log.read_text() and "What to do: rerun." in log.read_text()
    out.unlink()
    with pytest.raises(RuntimeError, match="--strict: 1 warning"):
        run_warnings.check_job(job(True))
    assert not out.exists()


# --- end to end, with a fake driver whose cross-check disagrees ----------------------------

# A driver that is python's in everything but its cross-check, whose timing reads HS256
# signing ten times as slow as timeit does (three was not enough beside the test suite: a
# confirmation read 2.06 with a CI down to 0.997): a harness that times the wrong thing, which
# the confirmation pass measures again and still finds. (Not the reference: python's gap
# there is explained in its driver.yaml.)
FAKE_SHIM = r"""#!/usr/bin/env python3
# A fake driver (tests/test_run_warnings.py): python's, but in a cross-check its harness's
# answers for HS256 signing read ten times as fast as the call is, so the conductor's timing
# reads it ten times as slow as the harness.
import json, os, subprocess, sys, threading
real = os.path.join(os.path.dirname(os.path.abspath(__file__)), "run.real")
if sys.argv[1:2] != ["serve"]:
    os.execv(real, [real, *sys.argv[1:]])
spec = json.load(open(sys.argv[sys.argv.index("--spec") + 1]))
cells = spec["cells"] if "crosscheck" in spec else []
faked = {i for i, c in enumerate(cells) if (c["operation"], c["algorithm"]) == ("sign", "HS256")}
worker = subprocess.Popen([real, *sys.argv[1:]], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
asked = []
def forward():
    for line in sys.stdin:
        asked.extend([json.loads(line)["native"][0]] if '"native"' in line else [])
        worker.stdin.write(line)
        worker.stdin.flush()
    worker.stdin.close()
threading.Thread(target=forward, daemon=True).start()
for line in worker.stdout:
    answer = json.loads(line)
    if "ns_per_op" in answer and asked.pop(0) in faked:
        line = json.dumps({**answer, "ns_per_op": answer["ns_per_op"] / 10}) + "\n"
    sys.stdout.write(line)
    sys.stdout.flush()
sys.exit(worker.wait())
"""

TINY = """
languages: [python]
libraries: {drivers: []}
datasets: []
suites:
  jwt: {algorithms: [HS256]}
  tokensize: {activate: false}
  transfer: {activate: false}
  hash: {activate: false}
  percall: {activate: false}
  primitive: {activate: false}
  keygen: {activate: false}
  harness: {activate: false}
  coldstart: {activate: false}
interop: {variants: [HS256]}
execution: {engine: native, lanes: []}
"""


def copy_of_the_repository(target):
    """The repository's files (tracked, and new ones not ignored) under `target`."""
    listed = (
        subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
            cwd=REPO,
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, listed):
        source = REPO / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


@pytest.mark.end_to_end
def test_a_disagreeing_cross_check_warns_and_fails_only_under_strict(tmp_path):
    repo = copy_of_the_repository(tmp_path / "repo")
    shim = repo / "workflow/scripts/python/run"
    shim.rename(shim.with_name("run.real"))
    shim.write_text(FAKE_SHIM)
    shim.chmod(0o755)
    (tmp_path / "tiny.yaml").write_text(TINY)
    run = tmp_path / "run"
    run.mkdir()
    link_test_envs(run)
    env = {
        key: value for key, value in os.environ.items() if key != "JWTBENCH_STRICT" and not key.startswith("KAGGLE_")
    }
    command = [
        SNAKEMAKE,
        "-s",
        str(repo / "workflow/Snakefile"),
        "-d",
        str(run),
        "--cores",
        "2",
        "--configfile",
        str(SMOKE_CONFIG),
        str(SMOKE_IN_TESTS),
        str(tmp_path / "tiny.yaml"),
    ]

    result = subprocess.run(command, capture_output=True, text=True, timeout=900, env=env)
    (tmp_path / "output.txt").write_text(result.stdout + result.stderr)
    assert result.returncode == 0, result.stderr[-4000:]
    # The run's last lines, but for Snakemake's own two (its log's path, the elapsed time).
    last = result.stderr.rstrip().splitlines()[-5:]
    assert last[0].startswith("jwtbench: 1 warning(s) about this run's numbers"), last
    assert "the cross-check of python sign HS256 disagrees" in last[1] and "first " in last[1], last
    assert last[2].strip().startswith("What to do:"), last
    (row,) = [r for r in csv.DictReader(open(run / "results/crosscheck.csv")) if r["operation"] == "sign"]
    assert row["confirmation"] == "confirmed" and float(row["first_ratio"]) > 1.5 and float(row["ratio"]) > 1.5, row
    report = (run / "results/report/report.html").read_text()
    first_screen = report[: report.index('id="verdicts"')]
    assert "This run raised 1 warning about its numbers" in first_screen
    assert "python sign HS256 disagrees" in first_screen

    strict = subprocess.run(command, capture_output=True, text=True, timeout=600, env={**env, "JWTBENCH_STRICT": "1"})
    (tmp_path / "strict-output.txt").write_text(strict.stdout + strict.stderr)
    assert strict.returncode != 0
    assert "--strict: 1 warning(s)" in strict.stderr
    assert "jwtbench: 1 warning(s) about this run's numbers" in strict.stderr
    # Nothing measured was lost: the benchmark was not run again.
    assert (run / "results/raw/python/jwt/claims-001.csv").is_file()
    assert "rule run_benchmark" not in strict.stdout + strict.stderr
