"""The machine's noise beside a benchmark (jwtbench/machine_noise.py) and its table
(rules/summarize_noise.py): a busy process on the benchmark CPU is another's when it is not
the benchmark's tree, the benchmark's own when it is, and the table matches its schema."""

import csv
import json
import os
import subprocess
import sys
import time

import jsonschema
import pytest
import yaml
from conftest import REPO

from jwtbench import machine_noise
from jwtbench.rules import summarize_noise

SCHEMA = yaml.safe_load((REPO / "workflow/schemas/noise.schema.yaml").read_text())
AVAILABLE = sorted(os.sched_getaffinity(0))
pytestmark = pytest.mark.skipif(len(AVAILABLE) < 2, reason="needs a benchmark CPU and another for the sampler")
BENCH_CPU = AVAILABLE[-1]
# Spins for argv[1] seconds, prints the CPU time it used, then idles: its last CPU time is
# not lost with its exit (a thread that ends takes its last interval's time with it).
SPIN = (
    "import sys, time\nend = time.monotonic() + float(sys.argv[1])\nwhile time.monotonic() < end: pass\n"
    "print(time.process_time(), flush=True)\ntime.sleep(0.8)"
)


def named_python(tmp_path, name):
    """The interpreter under another name, so its processes' comm is `name`."""
    link = tmp_path / name
    link.symlink_to(sys.executable)
    return str(link)


def spin(program, seconds, cpu=BENCH_CPU):
    return ["taskset", "--cpu-list", str(cpu), program, "-c", SPIN, str(seconds)]


def rows_of(record):
    return [dict(zip(record["columns"], values)) for values in record["rows"]]


def cpu_seconds(rows, column):
    return sum(row[column] / 100 * row["interval_seconds"] for row in rows)


def ticks_of(pid):
    return machine_noise.parse_stat(machine_noise.read_bytes(f"/proc/{pid}/stat"))[3] / machine_noise.TICKS


# Others share the test machine's CPUs, so these tests compare the sampler's figures with the
# busy process's own CPU time, never with a share of the wall time. Clock ticks are 10 ms.


def test_a_busy_process_outside_the_benchmarks_tree_is_another(tmp_path):
    neighbour = subprocess.Popen(spin(named_python(tmp_path, "noisybusy"), 2), stdout=subprocess.DEVNULL)
    time.sleep(0.2)
    try:
        before = ticks_of(neighbour.pid)
        result, record = machine_noise.run(["taskset", "--cpu-list", str(BENCH_CPU), "sleep", "1.5"], {BENCH_CPU})
        spent = ticks_of(neighbour.pid) - before
    finally:
        neighbour.wait()
    rows = rows_of(record)
    assert result.returncode == 0 and record["failure"] is None and len(rows) >= 3
    assert record["cpus"] == [BENCH_CPU] and BENCH_CPU not in record["sampler_cpus"]
    # The neighbour's CPU time while the benchmark slept is others' on the benchmark CPU.
    assert spent > 0.1 and cpu_seconds(rows, "others_pct") >= 0.8 * spent - 0.05
    # And not the benchmark's, which only slept. Not "about 0": in the test suite, another
    # test's container pinned to this CPU is the benchmark's by the shim rule (its conmon
    # starts after the benchmark; 0.17 s of it once, 2026-11-28), never the neighbour's time.
    assert cpu_seconds(rows, "bench_pct") < 0.1 + 0.2 * spent


def test_the_benchmarks_own_busy_process_is_not_another(tmp_path):
    result, record = machine_noise.run(
        spin(named_python(tmp_path, "benchbusy"), 1.2), {BENCH_CPU}, stdout=subprocess.PIPE, text=True
    )
    rows = rows_of(record)
    assert result.returncode == 0 and len(rows) >= 3
    own = float(result.stdout)
    assert cpu_seconds(rows, "bench_pct") >= 0.8 * own - 0.05
    assert "benchbusy" not in {row["others_top"] for row in rows}


def test_a_containers_processes_under_its_shim_are_the_benchmarks(tmp_path):
    """podman's conmon is not a descendant of the `podman run` client: a shim started after
    the job's child, whose processes are pinned within the benchmark's CPUs, is the job's."""
    root = subprocess.Popen(["sleep", "2.5"])
    time.sleep(0.05)
    shim = subprocess.Popen(
        [
            named_python(tmp_path, "conmon"),
            "-c",
            "import subprocess, sys; subprocess.run(sys.argv[1:])",
            *spin(named_python(tmp_path, "inthecontainer"), 1.2),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        with machine_noise.Sampler(root.pid, {BENCH_CPU}) as sampler:
            root.wait()
    finally:
        own = float(shim.communicate()[0])
    rows = rows_of(sampler.record())
    assert cpu_seconds(rows, "bench_pct") >= 0.8 * own - 0.05
    assert "inthecontainer" not in {row["others_top"] for row in rows}


def test_the_table_matches_its_schema_and_skips_older_metadata(tmp_path):
    _, record = machine_noise.run(["sleep", "1.1"], {BENCH_CPU})
    paths = []
    for name, noise in (("claims", record), ("older", None)):
        metadata = {"language": "python", "driver": "python/jwt-lib", "suite": "jwt", "input": name}
        if noise:
            metadata["noise"] = noise
        paths.append(tmp_path / f"{name}.json")
        paths[-1].write_text(json.dumps(metadata))
    out = tmp_path / "noise.csv"
    job = type(
        "Job",
        (),
        {
            "input": type("I", (), {"metadata": [str(p) for p in paths]}),
            "output": type("O", (), {"noise": str(out)}),
            "log": [str(tmp_path / "log")],
        },
    )
    summarize_noise.run_job(job)
    with open(out, newline="") as handle:
        reader = csv.DictReader(handle)
        assert reader.fieldnames == SCHEMA["x-columns"]
        rows = list(reader)
    assert len(rows) == len(record["rows"]) >= 2
    assert {row["job"] for row in rows} == {"python/jwt-lib/jwt/claims"}
    types = {name: spec["type"] for name, spec in SCHEMA["properties"].items()}
    for row in rows:
        typed = {name: typed_value(value, types[name]) for name, value in row.items()}
        jsonschema.validate(typed, SCHEMA)
    log = (tmp_path / "log").read_text()
    assert "older.json: no noise record" in log and f"{out}: {len(rows)} rows" in log


def typed_value(text, kind):
    kinds = kind if isinstance(kind, list) else [kind]
    if text == "" and "null" in kinds:
        return None
    if "integer" in kinds:
        return int(text)
    if "number" in kinds:
        return float(text)
    return text
