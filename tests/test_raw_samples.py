"""The raw-sample CSV contract and aggregation on hand-made samples with known answers."""

import csv
import json
import statistics

import pytest
import yaml
from conftest import REPO

from jwtbench import cell_samples, raw_samples
from jwtbench.rules import aggregate_samples

HEADER = ",".join(raw_samples.ONE_PROCESS_COLUMNS)
PREFIX = "node,jsonwebtoken,9.0.3,jwt"


def write(path, lines):
    path.write_text("\n".join([HEADER, *lines]) + "\n")
    return path


def test_schema_documents_every_column():
    schema = yaml.safe_load((REPO / "workflow/schemas/raw_samples.schema.yaml").read_text())
    assert schema["x-columns"] == schema["required"] == list(schema["properties"])
    assert all(prop.get("description") for prop in schema["properties"].values())
    summary = yaml.safe_load((REPO / "workflow/schemas/summary.schema.yaml").read_text())
    assert summary["x-columns"] == list(summary["properties"])


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        (f"{PREFIX},sign,HS256,256,claims-001,185,1,10,1000,328,fast", "status='fast'"),
        (f"{PREFIX},sign,HS256,256,claims-001,185,1,ten,1000,328,ok", "iterations='ten'"),
        (f"{PREFIX},sign,HS999,256,claims-001,185,1,10,1000,328,ok", "algorithm='HS999'"),
        (f"{PREFIX},sign,HS256,256,claims-001,185,1,10,1000,ok", "13 fields"),
        (f"{PREFIX},sign,HS256,256,claims-001,185,0,0,0,0,ok", "an ok row needs"),
        (f"{PREFIX},sign,EdDSA,256,claims-001,185,1,10,1000,0,unsupported", "must have sample=0"),
    ],
)
def test_bad_rows_are_refused_naming_file_and_line(tmp_path, line, problem):
    good = f"{PREFIX},sign,HS256,256,claims-001,185,1,10,1000,328,ok"
    path = write(tmp_path / "raw.csv", [good, line])
    with pytest.raises(raw_samples.RawSamplesError, match=rf"raw\.csv:3: .*{problem}"):
        raw_samples.read(path)


def test_bad_header_is_refused(tmp_path):
    path = tmp_path / "raw.csv"
    path.write_text("language,time\n")
    with pytest.raises(raw_samples.RawSamplesError, match=r"raw\.csv:1: header"):
        raw_samples.read(path)


SETTINGS = {"seed": 1, "confidence": 0.95, "bootstrap_resamples": 500}


def known_answer_raw(tmp_path):
    """sign HS512: ns/op 10, 20, 30 twice -> median 20; verify HS512: 40 in every round;
    EdDSA unsupported."""
    lines = []
    for sample, elapsed in enumerate((1000, 2000, 3000) * 2, 1):
        lines.append(f"{PREFIX},sign,HS512,512,claims-001,185,{sample},100,{elapsed},371,ok")
        lines.append(f"{PREFIX},verify,HS512,512,claims-001,185,{sample},50,2000,371,ok")
    lines.append(f"{PREFIX},sign,EdDSA,256,claims-001,185,0,0,0,0,unsupported")
    return write(tmp_path / "raw.csv", lines)


def aggregated(tmp_path, raw, specs=()):
    summary, ratios = tmp_path / "summary.csv", tmp_path / "ratios.csv"
    with open(tmp_path / "log", "w") as log:
        aggregate_samples.main([raw], SETTINGS, summary, ratios, log, specs)
    rows = {(r["operation"], r["variant"]): r for r in csv.DictReader(open(summary))}
    return rows, {r["kind"]: r for r in csv.DictReader(open(ratios))}


def test_aggregation_known_answers(tmp_path):
    rows, ratio_rows = aggregated(tmp_path, known_answer_raw(tmp_path))
    assert float(rows["sign", "HS512"]["median_ns"]) == 20
    assert float(rows["sign", "HS512"]["mad_ns"]) == 10
    assert rows["sign", "HS512"]["samples"] == "6"
    # Six samples: the order-statistic CI at 95% is [x(1), x(6)] (the stopping rule's CI), here [10, 30].
    assert (float(rows["sign", "HS512"]["ci_low_ns"]), float(rows["sign", "HS512"]["ci_high_ns"])) == (10, 30)
    assert float(rows["sign", "HS512"]["ci_halfwidth_pct"]) == 50
    assert float(rows["verify", "HS512"]["median_ns"]) == 40
    assert float(rows["verify", "HS512"]["ci_halfwidth_pct"]) == 0
    unsupported = rows["sign", "EdDSA"]
    assert unsupported["status"] == "unsupported" and unsupported["median_ns"] == "" and unsupported["samples"] == "0"
    # Without the spec no stop reason can be replayed and no ratio is paired.
    assert rows["sign", "HS512"]["stop_reason"] == ""
    assert float(ratio_rows["verify/sign"]["ratio"]) == 2.0
    assert ratio_rows["verify/sign"]["numerator"] == "verify:HS512"
    assert ratio_rows["verify/sign"]["method"] == "bootstrap"


def test_aggregation_with_its_spec_pairs_by_round_and_says_why_cells_stopped(tmp_path):
    spec = tmp_path / "spec.json"
    cell = {"algorithm": "HS512", "key_bits": 512, "input": "claims-001"}
    spec.write_text(
        json.dumps(
            {
                "suite": "jwt",
                "timing": {"samples": 6, "min_samples": 6, "target_ci_pct": 1.0},
                "pairs": [[1, 0]],
                "cells": [
                    {**cell, "operation": "sign"},
                    {**cell, "operation": "verify"},
                    {"operation": "sign", "algorithm": "EdDSA", "key_bits": 256, "input": "claims-001"},
                ],
            }
        )
    )
    rows, ratio_rows = aggregated(tmp_path, known_answer_raw(tmp_path), [spec])
    assert rows["sign", "HS512"]["stop_reason"] == rows["verify", "HS512"]["stop_reason"] == "sample_cap"
    assert rows["sign", "EdDSA"]["stop_reason"] == ""
    # verify / sign per round: 4, 2, 4/3, 4, 2, 4/3 -> median 2, CI [4/3, 4] (six pairs).
    paired = ratio_rows["verify/sign"]
    assert paired["method"] == "paired by round"
    assert float(paired["ratio"]) == 2.0
    assert float(paired["ci_low"]) == pytest.approx(4 / 3, rel=1e-5) and float(paired["ci_high"]) == 4


def test_cell_with_mixed_status_is_an_error(tmp_path):
    raw = write(
        tmp_path / "raw.csv",
        [
            f"{PREFIX},sign,HS512,512,claims-001,185,1,100,1000,371,ok",
            f"{PREFIX},sign,HS512,512,claims-001,185,2,100,1000,371,timeout",
        ],
    )
    with open(tmp_path / "log", "w") as log, pytest.raises(ValueError, match="mixes statuses"):
        aggregate_samples.main([raw], SETTINGS, tmp_path / "s.csv", tmp_path / "r.csv", log)


def test_the_drift_reference_is_not_a_cell_and_goes_to_drift_csv(tmp_path):
    """The drift reference's rows: out of the summary and the stop-reason replay, one
    drift.csv row per round with its time over the language's median and where the round lay
    in the sampling."""
    spec = tmp_path / "spec.json"
    cell = {"algorithm": "HS512", "key_bits": 512, "input": "claims-001"}
    timing = {"samples": 6, "min_samples": 6, "target_ci_pct": 1.0}
    cells = [{**cell, "operation": "sign"}, {**cell, "operation": "verify"}]
    spec.write_text(json.dumps({"suite": "jwt", "timing": timing, "cells": cells}))
    raw = known_answer_raw(tmp_path)
    lines = raw.read_text().splitlines()
    # Reference ns/op 100 in rounds 1-3, 200 in rounds 4-6 (the machine halves its speed).
    reference = [
        f"node,crypto,20.20.2,jwt,reference,SHA-256,0,reference,64,{k},10,{1000 if k <= 3 else 2000},32,ok"
        for k in range(1, 7)
    ]
    raw.write_text("\n".join(lines[:1] + reference + lines[1:]) + "\n")
    summary, ratios, drift = tmp_path / "summary.csv", tmp_path / "ratios.csv", tmp_path / "drift.csv"
    with open(tmp_path / "log", "w") as log:
        aggregate_samples.main([raw], SETTINGS, summary, ratios, log, [spec], drift)
    cells = list(csv.DictReader(open(summary)))
    assert {r["operation"] for r in cells} == {"sign", "verify"}
    assert {r["stop_reason"] for r in cells if r["status"] == "ok"} == {"sample_cap"}
    rows = list(csv.DictReader(open(drift)))
    assert list(rows[0]) == yaml.safe_load((REPO / "workflow/schemas/drift.schema.yaml").read_text())["x-columns"]
    assert [int(r["round"]) for r in rows] == [1, 2, 3, 4, 5, 6]
    assert {r["input"] for r in rows} == {"raw"} and {r["implementation"] for r in rows} == {"crypto"}
    # Median of 100, 100, 100, 200, 200, 200 is 150.
    assert [float(r["relative"]) for r in rows] == pytest.approx([2 / 3] * 3 + [4 / 3] * 3, rel=1e-5)
    # Round k's samples: sign 1000/2000/3000 ns, verify 2000 ns, reference 1000 or 2000 ns.
    per_round = [
        1000 + 1000 + 2000,
        1000 + 2000 + 2000,
        1000 + 3000 + 2000,
        2000 + 1000 + 2000,
        2000 + 2000 + 2000,
        2000 + 3000 + 2000,
    ]
    before = [sum(per_round[:k]) / 1e9 for k in range(6)]
    assert [float(r["seconds_before"]) for r in rows] == pytest.approx(before, rel=1e-5)
    assert [float(r["rounds_seconds"]) for r in rows] == pytest.approx([sum(per_round) / 1e9] * 6, rel=1e-5)
    assert cell_samples.drift_range(cell_samples.drift([raw])) == pytest.approx((2 / 3, 4 / 3))


def test_the_references_own_warm_up_is_not_the_machines_drift(tmp_path):
    """A process's first rounds whose reference still warms up (java's read 5-16 times its
    median on 2026-11-28) are left out of drift.csv; a slow round later is the machine's."""
    raw = known_answer_raw(tmp_path)
    lines = raw.read_text().splitlines()
    times = [1600, 1100, 250, 100, 100, 100, 100, 300]  # ns/op in rounds 1-8
    reference = [
        f"node,crypto,20.20.2,jwt,reference,SHA-256,0,reference,64,{k},10,{ns * 10},32,ok"
        for k, ns in enumerate(times, start=1)
    ]
    raw.write_text("\n".join(lines[:1] + reference + lines[1:]) + "\n")
    rows = cell_samples.drift([raw])
    assert [row["round"] for row in rows] == [3, 4, 5, 6, 7, 8]
    assert [row["ns_per_op"] for row in rows] == [250, 100, 100, 100, 100, 300]


def test_verdict_ratios_pair_cells_of_one_process_by_round_and_widen_the_others_by_the_drift(tmp_path):
    """Cells sign and verify of one process, sampled in the same rounds while the machine
    slows by 30% from round 11 (sign stopped after round 10): their ratio is paired by round
    and stays at 2. A cell of another process (slower machine then) is compared by medians
    with its CI widened by the drift between the two processes' reference times."""
    from jwtbench.seeds import verdict_rules

    def reference(k, ns):
        return f"node,crypto,20.20.2,jwt,reference,SHA-256,0,reference,64,{k},10,{ns * 10},32,ok"

    slow = {k: 1.0 if k <= 10 else 1.3 for k in range(1, 21)}
    first = [reference(k, round(100 * slow[k])) for k in range(1, 21)]
    first += [
        f"{PREFIX},sign,HS512,512,claims-001,185,{k},100,{round(1000 * 100 * slow[k])},371,ok" for k in range(1, 11)
    ]
    first += [
        f"{PREFIX},verify,HS512,512,claims-001,185,{k},100,{round(2000 * 100 * slow[k])},371,ok" for k in range(1, 21)
    ]
    second = [reference(k, 120) for k in range(1, 11)]
    second += [f"{PREFIX},sign,HS512,512,other,185,{k},100,{3000 * 100},371,ok" for k in range(1, 11)]
    paths = [write(tmp_path / "one.csv", first), write(tmp_path / "two.csv", second)]

    def key_of(row):
        return row["operation"], row["input"]

    samples, _ = cell_samples.samples_by(paths, key_of)
    cells = verdict_rules.round_paired_cells(paths, key_of, samples, SETTINGS, "test")
    ratio, low, high = cells.ratio(("verify", "claims-001"), ("sign", "claims-001"))
    assert (ratio, low, high) == (2, 2, 2)
    unpaired = statistics.median(samples["verify", "claims-001"]) / statistics.median(samples["sign", "claims-001"])
    assert unpaired == pytest.approx(2 * 1.15), "the medians alone carry the slowdown"
    # Process speeds: 1.0 (median of 10x1.0 and 10x1.3 over the language's median) and 1.2.
    speeds = cell_samples.process_speeds(cell_samples.drift(paths))
    assert cells.process_drift == pytest.approx(max(speeds.values()) / min(speeds.values()), rel=0.1)
    ratio, low, high = cells.ratio(("sign", "other"), ("sign", "claims-001"))
    assert ratio == pytest.approx(3) and low == pytest.approx(3 / cells.process_drift)
    assert high == pytest.approx(3 * cells.process_drift)
    assert cells.methods == {verdict_rules.PAIRED: 1, f"medians, CI widened x{cells.process_drift:.3f} for drift": 1}


def test_process_drift_needs_two_processes_of_a_language():
    """One process of a language is its own median: no drift between processes is seen."""

    def rows(language, input_name, relative):
        return [{"language": language, "suite": "jwt", "input": input_name, "relative": r} for r in relative]

    alone = rows("node", "a", [1.0, 1.2]) + rows("go", "a", [0.8, 0.9])
    assert cell_samples.process_drift(alone) == 1.0
    two = alone + rows("go", "b", [1.1, 1.2])
    speeds = cell_samples.process_speeds(two)
    assert cell_samples.process_drift(two) == pytest.approx(
        (speeds["go", "go", "jwt", "a"] + 0.95 * (speeds["go", "go", "jwt", "b"] - speeds["go", "go", "jwt", "a"]))
        / (speeds["go", "go", "jwt", "a"] + 0.05 * (speeds["go", "go", "jwt", "b"] - speeds["go", "go", "jwt", "a"]))
    )


def test_the_runs_drift_is_the_median_over_languages():
    """A runtime whose own reference swings (a JIT compiling it differently per process, a
    collector's pauses) does not make the machine's drift: the run's figure is the median
    over languages of each one's 5-95% range, and so is the drift between processes."""

    def rows(language, input_name, relative):
        return [{"language": language, "suite": "jwt", "input": input_name, "relative": r} for r in relative]

    steady = [1.0 + k / 1000 for k in range(-20, 21)]  # 0.98 to 1.02
    go, rust = rows("go", "a", steady) + rows("go", "b", steady), rows("rust", "a", steady) + rows("rust", "b", steady)
    node = rows("node", "a", [0.8 * r for r in steady]) + rows("node", "b", [1.25 * r for r in steady])
    low, high = cell_samples.drift_range(go + rust + node)
    assert (low, high) == pytest.approx((0.982, 1.018))
    assert cell_samples.process_drift(go + rust + node) == pytest.approx(1.0)
    slow = rows("go", "c", [1.3 * r for r in steady]) + rows("rust", "c", [1.3 * r for r in steady])
    assert cell_samples.process_drift(go + rust + node + slow) > 1.25, "a slow spell in every language shows"


def test_every_verdict_ci_is_widened_by_the_spread_its_workers_show(tmp_path):
    """A CI from one process's rounds covers that process only. A job of two workers taking
    the rounds in turn (the worker column) shows how far apart two processes put a figure:
    here worker 2 reads verify 5% slower against sign than worker 1, so that ratio's CI is
    widened by 1.05 each way. A job of one worker (a file without the column) takes its
    language's median cell spread (sign 1.0, verify 1.05: 1.025)."""
    from jwtbench.seeds import verdict_rules

    def row(operation, input_name, k, ns):
        worker = 1 if k % 2 else 2
        return f"{PREFIX},{operation},HS512,512,{input_name},185,{k},100,{ns * 100},371,ok,{worker}"

    two = [
        f"node,crypto,20.20.2,jwt,reference,SHA-256,0,reference,64,{k},10,1000,32,ok,{1 if k % 2 else 2}"
        for k in range(1, 21)
    ]
    two += [row("sign", "claims-001", k, 1000) for k in range(1, 21)]
    two += [row("verify", "claims-001", k, 2000 if k % 2 else 2100) for k in range(1, 21)]
    (tmp_path / "two.csv").write_text("\n".join([",".join(raw_samples.COLUMNS), *two]) + "\n")
    one = [f"node,crypto,20.20.2,jwt,reference,SHA-256,0,reference,64,{k},10,1000,32,ok" for k in range(1, 11)]
    one += [f"{PREFIX},sign,HS512,512,other,185,{k},100,{1000 * 100},371,ok" for k in range(1, 11)]
    one += [f"{PREFIX},verify,HS512,512,other,185,{k},100,{3000 * 100},371,ok" for k in range(1, 11)]
    paths = [tmp_path / "two.csv", write(tmp_path / "one.csv", one)]

    def key_of(row):
        return row["operation"], row["input"]

    samples, _ = cell_samples.samples_by(paths, key_of)
    cells = verdict_rules.round_paired_cells(paths, key_of, samples, SETTINGS, "test")
    assert cells.cell_spread == {("verify", "claims-001"): pytest.approx(1.05), ("sign", "claims-001"): 1.0}
    ratio, low, high = cells.ratio(("verify", "claims-001"), ("sign", "claims-001"))
    assert low == pytest.approx(2.0 / 1.05) and high == pytest.approx(2.1 * 1.05) and 2.0 <= ratio <= 2.1
    assert cells.ratio(("verify", "other"), ("sign", "other")) == pytest.approx((3, 3 / 1.025, 3 * 1.025))


def test_a_file_of_one_process_reads_as_worker_1_and_a_wrong_header_is_refused(tmp_path):
    """A driver's own bench writes no worker column: its samples are worker 1's, an untimed
    row no worker's; any other header is refused naming the file."""
    path = write(
        tmp_path / "raw.csv",
        [
            f"{PREFIX},sign,HS256,256,claims-001,185,1,10,1000,328,ok",
            f"{PREFIX},sign,ES256,256,claims-001,185,0,0,0,0,failed",
        ],
    )
    assert [row["worker"] for row in raw_samples.read(path)] == [1, 0]
    bad = tmp_path / "bad.csv"
    bad.write_text(",".join(raw_samples.COLUMNS[:-2] + ["worker"]) + "\n")
    with pytest.raises(raw_samples.RawSamplesError, match=r"bad\.csv:1: header"):
        raw_samples.read(bad)
