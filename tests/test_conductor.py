"""The conductor's decisions (jwtbench/conductor.py), proven once against a scripted worker
(tests/fake_worker.py) whose batches take known, virtual times: known noise, a pair, a
drifting machine, a JIT warming up, the time cap, cells that are not timed, and workers that
throw, die, hang or break the protocol."""

import json
import os
import statistics
import sys
import time
from pathlib import Path

import pytest
import stopping_series

from jwtbench import conductor, raw_samples, stopping_rule
from jwtbench.rules import summarize_crosscheck

FAKE_WORKER = Path(__file__).with_name("fake_worker.py")
TIMING = {
    "warmup_seconds": 0.01,
    "samples": 60,
    "min_samples": 10,
    "target_ci_pct": 1.0,
    "confidence": 0.95,
    "target_sample_seconds": 0.01,
    "max_cell_seconds": 10,
}


def cell(algorithm, **fake):
    return {"operation": "sign", "algorithm": algorithm, "key_bits": 0, "input": "claims-001", "fake": fake}


def conduct(tmp_path, cells, timing=None, pairs=(), deadline=30, **extra):
    """Run the conductor on a spec of `cells` with the fake worker: (exit status, rows, stderr lines)."""
    spec = {
        "format": "jwtbench-spec/1",
        "language": "python",
        "suite": "jwt",
        "timing": {**TIMING, **(timing or {})},
        "pairs": [list(pair) for pair in pairs],
        "cells": cells,
        **extra,
    }
    spec_path, out = tmp_path / "spec.json", tmp_path / "raw.csv"
    spec_path.write_text(json.dumps(spec))
    lines = []
    count = conductor.worker_count(spec)
    argv = [sys.executable, str(FAKE_WORKER), str(spec_path)]
    workers = [conductor.Worker(argv, deadline, number=number) for number in range(1, count + 1)]
    try:
        with open(out, "wb") as handle:
            conductor.Conductor(spec, workers, handle, lines.append).conduct()
        status = 0
    except conductor.WorkerError as error:
        for worker in workers:
            worker.kill()  # a worker restarted in a dead one's place ended with the run
        lines.append(f"error: {error}")
        status = 4
    return status, raw_samples.read(out), lines


def samples_of(rows, algorithm):
    return [r for r in rows if r["algorithm"] == algorithm and r["operation"] != "reference"]


def test_quiet_cells_stop_at_precision_and_the_csv_replays_to_the_same_decisions(tmp_path):
    status, rows, lines = conduct(tmp_path, [cell("HS256", noise=0.005), cell("HS384", ns=3000, noise=0.005)])
    assert status == 0
    for algorithm, ns in (("HS256", 1000), ("HS384", 3000)):
        taken = samples_of(rows, algorithm)
        assert len(taken) == TIMING["min_samples"]  # precise as soon as the rule may stop it
        assert [r["sample"] for r in taken] == list(range(1, len(taken) + 1))
        per_op = [r["elapsed_ns"] / r["iterations"] for r in taken]
        assert all(abs(v / ns - 1) <= 0.006 for v in per_op)
        assert all(abs(r["elapsed_ns"] / 1e9 - TIMING["target_sample_seconds"]) < 0.001 for r in taken)
    series = [[r["elapsed_ns"] / r["iterations"] for r in samples_of(rows, a)] for a in ("HS256", "HS384")]
    target = stopping_rule.Target.from_timing(TIMING)
    assert stopping_rule.replay(series, [], target) == [(10, stopping_rule.PRECISION)] * 2
    reference = [r for r in rows if r["operation"] == "reference"]
    assert [r["sample"] for r in reference] == list(range(1, 11))  # one per round, before its cells
    assert any("stopped at precision" in line for line in lines)


def test_a_pair_keeps_its_precise_cell_sampling_while_the_ratio_is_not(tmp_path):
    status, rows, _ = conduct(tmp_path, [cell("HS256", noise=0.001), cell("HS384", noise=0.08)], pairs=[(0, 1)])
    assert status == 0
    a, b = samples_of(rows, "HS256"), samples_of(rows, "HS384")
    assert len(b) > TIMING["min_samples"]
    assert len(a) == len(b)  # A was precise at once, the ratio A/B was not


def test_a_drifting_machine_shows_in_the_reference_rows(tmp_path):
    status, rows, _ = conduct(
        tmp_path, [cell("HS256", noise=0.05)], timing={"target_ci_pct": 0, "samples": 30}, fake_drift=0.5
    )
    assert status == 0
    reference = [r["elapsed_ns"] / r["iterations"] for r in rows if r["operation"] == "reference"]
    assert len(reference) == 30
    assert reference[-1] / reference[0] > 1.1  # the machine slowed by half per virtual second


def test_a_warming_cell_is_warmed_up_until_steady_before_its_samples(tmp_path):
    timing = {"warmup_max_seconds": 2, "steady_window": 5, "steady_tolerance": 0.03}
    status, rows, lines = conduct(tmp_path, [cell("HS256", slow_calls=300_000, slow_factor=3)], timing=timing)
    assert status == 0
    assert any("[1/1] sign HS256 claims-001: steady after" in line for line in lines)
    assert all(r["elapsed_ns"] / r["iterations"] == pytest.approx(1000, rel=0.01) for r in samples_of(rows, "HS256"))


def test_the_time_cap_stops_a_cell_and_a_cell_that_cannot_fit_is_a_timeout(tmp_path):
    timing = {"samples": 60, "max_cell_seconds": 0.3}
    slow = cell("RS256", ns=50_000_000)  # one call: 50 ms, five times the target sample
    status, rows, lines = conduct(tmp_path, [cell("HS256", noise=0.3), slow], timing=timing)
    assert status == 0
    a = samples_of(rows, "HS256")
    assert 20 <= len(a) < 60 and {r["status"] for r in a} == {"ok"}  # 10 ms samples in 0.3 s
    assert sum(r["elapsed_ns"] for r in a) <= 0.3e9 + 0.011e9
    s = samples_of(rows, "RS256")
    assert s and {r["status"] for r in s} == {"timeout"}
    assert any("[1/2] sign HS256 claims-001: ok:" in line and "stopped at time cap" in line for line in lines)


def test_cells_that_are_not_timed_get_one_row_and_no_samples(tmp_path):
    status, rows, _ = conduct(
        tmp_path, [cell("HS256", status="unsupported"), cell("HS384", status="failed"), cell("HS512")]
    )
    assert status == 0
    for algorithm, wanted in (("HS256", "unsupported"), ("HS384", "failed")):
        (row,) = samples_of(rows, algorithm)
        assert (row["status"], row["sample"], row["iterations"], row["elapsed_ns"]) == (wanted, 0, 0, 0)
    assert len(samples_of(rows, "HS512")) == TIMING["min_samples"]


def test_no_reference_rows_without_a_reference_or_without_a_timed_cell(tmp_path):
    _, rows, _ = conduct(tmp_path, [cell("HS256")], fake_no_reference=True)
    assert not [r for r in rows if r["operation"] == "reference"]
    _, rows, _ = conduct(tmp_path, [cell("HS256", status="unsupported")])
    assert len(rows) == 1


@pytest.mark.parametrize(
    "script, says",
    [
        ({"throws_in_round": 5}, "round 5: cell 1 threw in a batch"),
        ({"dies_in_round": 5}, "the worker ended (exit status 3)"),
    ],
)
def test_a_worker_that_fails_mid_round_fails_the_run_and_keeps_what_was_measured(tmp_path, script, says):
    timing = {"target_ci_pct": 0, "samples": 30}
    status, rows, lines = conduct(tmp_path, [cell("HS256"), cell("HS384", **script)], timing=timing)
    assert status == 4
    assert says in lines[-1]
    a, b = samples_of(rows, "HS256"), samples_of(rows, "HS384")
    assert (len(a), len(b)) == (5, 4)  # the round's earlier samples are written, the failing one is not


def test_a_cell_that_throws_while_warming_up_is_failed_and_the_others_go_on(tmp_path):
    status, rows, lines = conduct(tmp_path, [cell("HS256", throws_at=2), cell("HS384")])
    assert status == 0
    assert [r["status"] for r in samples_of(rows, "HS256")] == ["failed"]
    assert len(samples_of(rows, "HS384")) == TIMING["min_samples"]
    assert any("failed while timing" in line for line in lines)


def test_a_worker_that_hangs_is_stopped_at_the_deadline(tmp_path):
    started = time.monotonic()
    status, rows, lines = conduct(tmp_path, [cell("HS256", hangs_at=20)], deadline=1)
    assert status == 4
    assert "did not answer within 1 s" in lines[-1]
    assert time.monotonic() - started < 20


def test_a_worker_that_does_not_speak_the_protocol_is_refused(tmp_path):
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"language": "python", "suite": "jwt", "timing": TIMING, "cells": [cell("HS256")]}))
    out = tmp_path / "raw.csv"
    worker = [sys.executable, "-c", "print('hello')"]
    assert conductor.main(["--spec", str(spec), "--out", str(out), "--deadline-seconds", "5", "--", *worker]) == 4


def test_two_workers_take_the_rounds_in_turn_and_their_spread_shows(tmp_path):
    """timing.workers 2: both workers warm every cell up (the progress says steady on each),
    round k is worker (k - 1) mod 2's in every row of it, the reference's too, and a worker
    whose calls run 10% slower shows as the workers' medians 10% apart; the stopping rule
    sees every round, and with the two speeds the CI never narrows to 1%: the cap."""
    status, rows, lines = conduct(
        tmp_path,
        [cell("HS256", ns=1000), cell("HS384", ns=2000)],
        timing={"workers": 2, "warmup_max_seconds": 1},
        fake_worker_speeds=[1.0, 1.1],
    )
    assert status == 0
    for row in rows:
        assert row["worker"] == (1 if row["sample"] % 2 else 2), row
    for algorithm in ("HS256", "HS384"):
        steady = [line for line in lines if algorithm in line and "steady after" in line]
        assert [line[-10:] for line in steady] == ["(worker 1)", "(worker 2)"], steady
        samples = samples_of(rows, algorithm)
        assert len(samples) == TIMING["samples"]
        by_worker = [statistics.median(r["elapsed_ns"] for r in samples if r["worker"] == n) for n in (1, 2)]
        assert max(by_worker) / min(by_worker) == pytest.approx(1.1, rel=1e-3)
    assert sum("workers' medians 10.0% apart" in line for line in lines) == 2


def test_a_cell_its_workers_check_differently_is_failed(tmp_path):
    """A cell one worker checks ok and another refuses is not timed on either: `failed`,
    the reason naming both statuses; the other cells go on."""
    flaky = cell("HS384")
    flaky["fake"] = {"worker_status": {"2": "failed"}}
    status, rows, lines = conduct(tmp_path, [cell("HS256"), flaky], timing={"workers": 2})
    assert status == 0
    (row,) = samples_of(rows, "HS384")
    assert (row["status"], row["sample"], row["worker"]) == ("failed", 0, 0)
    said = [line for line in lines if "its workers' checks disagree: " in line]
    assert len(said) == 1 and said[0].endswith(("ok, failed", "failed, ok")), lines
    assert {r["worker"] for r in samples_of(rows, "HS256")} == {1, 2}


def test_a_batch_that_takes_the_same_time_for_any_n_stops_growing_at_the_cap(tmp_path):
    """A loop the JIT removed takes the same time however many calls it holds: calibration
    stops doubling (and rescaling) at MAX_BATCH calls instead of hanging."""
    status, rows, _ = conduct(tmp_path, [cell("HS256", constant_ns=1000)])
    assert status == 0
    assert {r["iterations"] for r in samples_of(rows, "HS256")} == {conductor.MAX_BATCH}


def test_a_window_in_which_the_runtime_compiled_is_not_steady(tmp_path):
    """The warm-up until steady asks for a quiet runtime too: windows whose batches say the
    JIT compiled (jit_ms) and took half the CPU (cpu_ns) do not count, however alike."""
    timing = {"warmup_max_seconds": 5, "steady_window": 3}
    _, _, quiet = conduct(tmp_path, [cell("HS256", compiling=0)], timing=timing)
    (tmp_path / "busy").mkdir()
    _, _, busy = conduct(tmp_path / "busy", [cell("HS256", compiling=40)], timing=timing)

    def steady_seconds(lines):
        (line,) = [line for line in lines if "steady after" in line and "HS256" in line]
        return float(line.split("steady after ")[1].split(" s")[0])

    assert steady_seconds(busy) > steady_seconds(quiet)
    assert conductor.runtime_quiet([{"jit_ms": 0, "cpu_ns": 95}], [100])
    assert not conductor.runtime_quiet([{"jit_ms": 1, "cpu_ns": 100}], [100])
    assert not conductor.runtime_quiet([{"cpu_ns": 80}], [100])
    assert conductor.runtime_quiet([{}], [100]), "a worker that says nothing is taken at its word"


def test_main_writes_the_raw_csv(tmp_path, capsys):
    spec = tmp_path / "spec.json"
    spec.write_text(
        json.dumps({"language": "python", "suite": "jwt", "timing": TIMING, "pairs": [], "cells": [cell("HS256")]})
    )
    out = tmp_path / "raw.csv"
    argv = ["--spec", str(spec), "--out", str(out), "--", sys.executable, str(FAKE_WORKER), str(spec)]
    assert conductor.main(argv) == 0
    assert len(samples_of(raw_samples.read(out), "HS256")) == TIMING["min_samples"]
    assert "done: 1 cells" in capsys.readouterr().err


# ------------------------------------------------ the suites timed a call at a time


def test_percall_times_each_call_on_its_own_after_its_warm_up_calls(tmp_path):
    """Suite percall: per cell, warmup_calls untimed, then `calls` rows of one call each, in
    spec order; no reference, no rounds, one worker even with timing.workers 2."""
    cells = [cell("HS256", ns=1000), cell("RS256", ns=5000)]
    status, rows, _ = conduct(
        tmp_path, cells, timing={"workers": 2}, suite="percall", percall={"warmup_calls": 5, "calls": 30}
    )
    assert status == 0
    assert not [r for r in rows if r["operation"] == "reference"]
    for algorithm, ns in (("HS256", 1000), ("RS256", 5000)):
        samples = samples_of(rows, algorithm)
        assert [r["sample"] for r in samples] == list(range(1, 31))
        assert {(r["iterations"], r["elapsed_ns"], r["status"], r["worker"]) for r in samples} == {(1, ns, "ok", 1)}
    assert not (tmp_path / "spec.json.worker2").exists(), "a second worker was started"


def test_tokensize_rows_carry_each_record_s_own_sizes(tmp_path):
    """Suite tokensize: each record (pass_length of them) signed once, the row's sample its
    line and its bytes the call's own."""
    status, rows, _ = conduct(tmp_path, [cell("HS512", pass_length=12, sizes=True)], suite="tokensize")
    assert status == 0
    samples = samples_of(rows, "HS512")
    assert [(r["sample"], r["input_bytes"], r["output_bytes"]) for r in samples] == [
        (k, 10 + k, 100 + k) for k in range(1, 13)
    ]


def test_transfer_writes_a_trial_s_whole_time_and_its_parts(tmp_path):
    """Suite transfer: warm-up trials untimed, then three rows per timed trial: the trial
    (request-response) and the client's sign and the server's verify it reported."""
    trial = {**cell("RS512", ns=9000, parts=True), "operation": "request-response"}
    status, rows, _ = conduct(tmp_path, [trial], suite="transfer", transfer={"trials": 4, "warmup_trials": 2})
    assert status == 0
    by_operation = {op: [r for r in rows if r["operation"] == op] for op in ("request-response", "sign", "verify")}
    assert [r["sample"] for r in by_operation["request-response"]] == [1, 2, 3, 4]
    assert {r["elapsed_ns"] for r in by_operation["request-response"]} == {9000}
    assert {r["elapsed_ns"] for r in by_operation["sign"]} == {3000}
    assert {r["elapsed_ns"] for r in by_operation["verify"]} == {2250}
    assert {r["worker"] for r in rows} == {1}


def test_a_transfer_cell_that_is_not_timed_has_a_row_per_operation(tmp_path):
    trial = {**cell("RS512", status="failed"), "operation": "request-response"}
    status, rows, _ = conduct(tmp_path, [trial], suite="transfer", transfer={"trials": 4, "warmup_trials": 2})
    assert status == 0
    assert sorted((r["operation"], r["status"]) for r in rows) == [
        ("request-response", "failed"),
        ("sign", "failed"),
        ("verify", "failed"),
    ]


def keygen_cell(operation, **fake):
    return {**cell("RSA-SHA256", **fake), "operation": operation, "family": "RSA", "key_bits": 2048}


KEYGEN = {"iterations": 3, "target_cell_seconds": 0.00001, "max_iterations": 50, "max_cell_seconds": 2}


def test_keygen_iterates_then_samples_sign_and_verify_in_rounds(tmp_path):
    """Suite keygen: the per-iteration cells first, each iteration a call of its own (at least
    `iterations`, more while under target_cell_seconds), then sign and verify in rounds
    with the drift reference."""
    cells = [keygen_cell("keygen+sign+verify", ns=2000), keygen_cell("sign", ns=700)]
    status, rows, _ = conduct(tmp_path, cells, suite="keygen", keygen=KEYGEN)
    assert status == 0
    iterations = [r for r in rows if r["operation"] == "keygen+sign+verify"]
    # 3 iterations of 2 us are under the 10 us target: two more
    assert [(r["sample"], r["iterations"], r["elapsed_ns"]) for r in iterations] == [(k, 1, 2000) for k in range(1, 6)]
    assert len([r for r in rows if r["operation"] == "sign"]) == TIMING["min_samples"]
    assert len([r for r in rows if r["operation"] == "reference"]) == TIMING["min_samples"]


def test_a_key_generation_past_its_budget_is_stopped_and_the_worker_restarted(tmp_path):
    """max_cell_seconds holds while an iteration runs: the conductor stops the worker that
    has not answered, writes the iterations before it as `timeout`, starts a new worker and
    goes on with the next cell."""
    started = time.monotonic()
    cells = [keygen_cell("keygen", ns=1000, hangs_at=3), keygen_cell("sign", ns=700)]
    status, rows, lines = conduct(
        tmp_path, cells, suite="keygen", keygen={**KEYGEN, "iterations": 10, "max_cell_seconds": 1.5}
    )
    assert status == 0, lines
    assert time.monotonic() - started < 30
    assert [(r["sample"], r["status"]) for r in rows if r["operation"] == "keygen"] == [(1, "timeout"), (2, "timeout")]
    assert any("its worker is restarted" in line for line in lines)
    assert (tmp_path / "spec.json.worker2").exists()
    assert {r["status"] for r in rows if r["operation"] == "sign"} == {"ok"}


def test_a_key_generation_that_never_ends_is_one_timeout_row_with_its_time(tmp_path):
    status, rows, _ = conduct(
        tmp_path, [keygen_cell("keygen", hangs_at=1)], suite="keygen", keygen={**KEYGEN, "max_cell_seconds": 1}
    )
    assert status == 0
    ((row),) = rows
    assert (row["sample"], row["iterations"], row["status"]) == (0, 0, "timeout")
    assert row["elapsed_ns"] >= 1e9


# ------------------------------------------------------------------------ the cross-check


def test_the_cross_check_alternates_driver_and_native_blocks(tmp_path):
    """A cross-check spec: per cell and then the reference, `alternations` driver blocks
    (batches of the calibrated n, at least 3, their median ns/op) and native blocks (the
    worker's harness's figure), the driver's first in odd alternations; an untimed cell is one
    row with its status."""
    spec = {
        "language": "python",
        "suite": "jwt",
        "timing": TIMING,
        "pairs": [],
        "cells": [cell("HS256", ns=1000, native_factor=1.02), cell("EdDSA", status="unsupported")],
        "crosscheck": {"alternations": 4, "block_seconds": 0.05},
    }
    spec_path, out = tmp_path / "spec.json", tmp_path / "blocks.csv"
    spec_path.write_text(json.dumps(spec))
    argv = ["--spec", str(spec_path), "--out", str(out), "--", sys.executable, str(FAKE_WORKER), str(spec_path)]
    assert conductor.main(argv) == 0
    rows = summarize_crosscheck.read_blocks(out)
    summarize_crosscheck.check_blocks(rows, spec, out)
    hs256 = [r for r in rows if r["algorithm"] == "HS256"]
    order = [("driver", "native"), ("native", "driver")]
    assert [(r["alternation"], r["timer"]) for r in hs256] == [(k, t) for k in (1, 2, 3, 4) for t in order[(k - 1) % 2]]
    for row in hs256:
        expected = (1000.0, "jwtbench", "") if row["timer"] == "driver" else (1020.0, "fakebench", "0.1")
        assert (row["ns_per_op"], row["harness"], row["harness_version"]) == expected
        assert int(row["samples"]) >= 3 if row["timer"] == "driver" else int(row["samples"]) == 7
    (eddsa,) = [r for r in rows if r["algorithm"] == "EdDSA"]
    assert (eddsa["alternation"], eddsa["status"], eddsa["ns_per_op"]) == (0, "unsupported", None)
    assert len([r for r in rows if r["operation"] == "reference"]) == 8


@pytest.mark.parametrize(
    "text, says",
    [
        ("{not json", "Expecting property name"),
        (json.dumps({"suite": "jwt", "timing": TIMING, "cells": []}), "key 'language' missing"),
        (json.dumps({"language": "go", "suite": "keygen", "timing": TIMING, "cells": []}), "key 'keygen' missing"),
    ],
)
def test_a_bad_spec_exits_2_naming_the_file_and_what_is_wrong(tmp_path, capsys, text, says):
    spec = tmp_path / "spec.json"
    spec.write_text(text)
    argv = ["--spec", str(spec), "--out", str(tmp_path / "raw.csv"), "--", sys.executable, str(FAKE_WORKER), str(spec)]
    assert conductor.main(argv) == 2
    err = capsys.readouterr().err
    assert str(spec) in err and says in err, err


@pytest.mark.parametrize("name,case", stopping_series.cases(), ids=[name for name, _ in stopping_series.cases()])
def test_stopping_rule_reference_known_answers(name, case):
    """The reference itself on cases whose answer is known without it: constant values stop
    at min_samples; with the rule off every cell runs to the cap; a series shorter than
    the cap that never gets precise runs out."""
    target = stopping_rule.Target.from_timing(case["timing"])
    taken = stopping_rule.replay(case["series"], case["pairs"], target)
    got = {"samples": [n for n, _ in taken], "reasons": [reason for _, reason in taken]}
    if name == "constant":
        assert got == {"samples": [20], "reasons": ["precision"]}
    if name == "rule-off":
        assert got == {"samples": [100], "reasons": ["sample_cap"]}
    if name == "short-series":
        assert got["reasons"] == ["exhausted", "exhausted"] and got["samples"][1] == 4
    assert all(n <= case["timing"]["samples"] for n in got["samples"])


def test_a_worker_is_stopped_through_its_stop_command_with_its_own_name(tmp_path):
    """--stop (a container's `kill`, which the client's signals do not reach) runs before the
    process is killed, with WORKER_NAME as the stopped start's own name; the restarted worker
    gets another."""
    spec = {
        "language": "python",
        "suite": "keygen",
        "timing": TIMING,
        "keygen": {**KEYGEN, "max_cell_seconds": 1},
        "cells": [keygen_cell("keygen", hangs_at=2), keygen_cell("keygen", ns=10)],
    }
    spec_path, out = tmp_path / "spec.json", tmp_path / "raw.csv"
    spec_path.write_text(json.dumps(spec))
    stop = f"touch {tmp_path}/stopped-{conductor.WORKER_NAME}"
    worker = [sys.executable, str(FAKE_WORKER), str(spec_path), "--name", conductor.WORKER_NAME]
    assert conductor.main(["--spec", str(spec_path), "--out", str(out), "--stop", stop, "--", *worker]) == 0
    (stopped,) = tmp_path.glob("stopped-*")
    assert stopped.name == f"stopped-{os.getpid()}-1-0"
    assert [r["status"] for r in raw_samples.read(out) if r["sample"] <= 1] == ["timeout", "ok"]


def test_a_worker_that_refuses_the_spec_is_an_input_error(tmp_path, capfd):
    """A worker that exits 2 before its first line (a spec it cannot read, named on its
    stderr) makes the conductor exit 2 too, its message left standing."""
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"language": "python", "suite": "jwt", "timing": TIMING, "cells": [cell("HS256")]}))
    refuse = "import sys; print('error: records.jsonl line 3 is not JSON', file=sys.stderr); sys.exit(2)"
    argv = ["--spec", str(spec), "--out", str(tmp_path / "raw.csv"), "--", sys.executable, "-c", refuse]
    assert conductor.main(argv) == 2
    assert "records.jsonl line 3 is not JSON" in capfd.readouterr().err


def test_a_cell_naming_an_implementation_the_worker_lacks_is_an_input_error(tmp_path, capsys):
    """A cell that names its implementation (suite hash's, primitive's, keygen's) is timed by
    that implementation or not at all: the worker's hello naming another is exit 2."""
    named = {**cell("HS256"), "implementation": "bouncycastle"}
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"language": "python", "suite": "hash", "timing": TIMING, "cells": [named]}))
    argv = ["--spec", str(spec), "--out", str(tmp_path / "raw.csv"), "--", sys.executable, str(FAKE_WORKER), str(spec)]
    assert conductor.main(argv) == 2
    assert "cells[0] names implementation 'bouncycastle'" in capsys.readouterr().err
