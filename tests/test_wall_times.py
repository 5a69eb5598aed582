"""Where a run's wall time went (workflow/scripts/rules/wall_times.py): Snakemake's benchmark
records of every job, collected into results/wall_times.csv for the report."""

import os
import subprocess
import sys

import pytest
from conftest import SCRIPTS

from jwtbench.rules import wall_times


def write_record(folder, relative, seconds, end):
    path = folder / "logs/wall_times" / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    # The header Snakemake's benchmark directive writes (the columns wall_times reads: s).
    path.write_text(
        "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"
        f"{seconds}\t0:00:{seconds:02.0f}\t1\t1\t1\t1\t0\t0\t0\t{seconds}\n"
    )
    os.utime(path, (end, end))
    return path


def test_each_job_gets_its_stage_language_suite_and_interval(tmp_path):
    write_record(tmp_path, "build_image/python.tsv", 20, 1_000_020)
    write_record(tmp_path, "run_benchmark/node/jwt/claims-001.tsv", 30, 1_000_100)
    write_record(tmp_path, "run_coldstart/go.tsv", 10, 1_000_110)
    # A further library's benchmark counts towards its language.
    write_record(tmp_path, "run_benchmark/node/jose/jwt/claims-001.tsv", 8, 1_000_150)
    write_record(tmp_path, "render_report/render_report.tsv", 5, 1_000_200)
    rows = wall_times.collect(tmp_path / "logs/wall_times")
    assert [(row["stage"], row["rule"], row["job"], row["language"], row["suite"]) for row in rows] == [
        ("images", "build_image", "python", "python", ""),
        ("benchmarks", "run_benchmark", "node/jwt/claims-001", "node", "jwt"),
        ("benchmarks", "run_coldstart", "go", "go", "coldstart"),
        ("benchmarks", "run_benchmark", "node/jose/jwt/claims-001", "node", "jwt"),
        ("report", "render_report", "render_report", "", ""),
    ]
    assert rows[1]["start"] == wall_times.iso(1_000_070) and rows[1]["end"] == wall_times.iso(1_000_100)


def test_a_record_written_around_a_job_is_read_back(tmp_path):
    path = tmp_path / "logs/wall_times/run_benchmark/node/jwt/claims-001.tsv"
    with wall_times.record(path):
        pass
    (row,) = wall_times.collect(tmp_path / "logs/wall_times")
    assert (row["stage"], row["language"], row["suite"]) == ("benchmarks", "node", "jwt")
    assert 0 <= row["seconds"] < 1
    with pytest.raises(RuntimeError), wall_times.record(tmp_path / "failed.tsv"):
        raise RuntimeError("the job failed")
    assert not (tmp_path / "failed.tsv").exists()


def test_busy_time_counts_overlapping_jobs_once_and_skips_pauses(tmp_path):
    # Two jobs side by side (0-20 s and 10-30 s), then a pause, then one of 5 s.
    write_record(tmp_path, "build_image/python.tsv", 20, 1_000_020)
    write_record(tmp_path, "build_image/node.tsv", 20, 1_000_030)
    write_record(tmp_path, "render_report/render_report.tsv", 5, 1_005_000)
    rows = wall_times.collect(tmp_path / "logs/wall_times")
    assert wall_times.busy_seconds(rows) == pytest.approx(35)
    assert wall_times.busy_seconds([]) == 0


def test_a_record_without_wall_time_is_named(tmp_path):
    path = tmp_path / "logs/wall_times/build_image/python.tsv"
    path.parent.mkdir(parents=True)
    path.write_text("max_rss\n12\n")
    with pytest.raises(wall_times.WallTimeError, match=r"python\.tsv: no wall time in seconds"):
        wall_times.collect(tmp_path / "logs/wall_times")
    result = subprocess.run(
        [sys.executable, str(SCRIPTS / "rules" / "wall_times.py"), str(tmp_path)], capture_output=True, text=True
    )
    assert result.returncode == 1 and "python.tsv" in result.stderr and "Traceback" not in result.stderr


def test_every_rule_of_the_pipeline_has_a_stage():
    rules = set()
    for smk in (SCRIPTS.parent / "rules").glob("*.smk"):
        if smk.name != "compare.smk":
            rules |= {line.split()[1].rstrip(":") for line in smk.read_text().splitlines() if line.startswith("rule ")}
    rules -= {"all", "collect_wall_times"}
    assert rules - set(wall_times.STAGE_OF) == set()


def test_columns_are_the_documented_ones():
    import yaml
    from conftest import REPO

    schema = yaml.safe_load((REPO / "workflow/schemas/wall_times.schema.yaml").read_text())
    assert schema["x-columns"] == wall_times.COLUMNS == schema["required"]


def test_a_jobs_record_leaves_out_its_wait_for_the_machine_lock(tmp_path):
    """With lanes, Snakemake starts benchmarks that then wait for a lane: the record is
    the time the job worked, not the time it waited (machine_lock.waited_seconds)."""
    import io
    import threading
    import time

    from jwtbench import machine_lock

    lock, held, release = tmp_path / "bench.lock", threading.Event(), threading.Event()

    def holder():
        with machine_lock.machine_to_ourselves(io.StringIO(), lock):
            held.set()
            release.wait(5)

    thread = threading.Thread(target=holder)
    thread.start()
    assert held.wait(5)
    threading.Timer(0.6, release.set).start()
    record = tmp_path / "job.tsv"
    with wall_times.record(record):
        with machine_lock.benchmark_slot([], io.StringIO(), lock):
            time.sleep(0.2)  # the job's own work
    thread.join(5)
    seconds = wall_times.read_record(record)
    assert 0.15 <= seconds < 0.5, seconds
