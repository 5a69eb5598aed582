"""The raw-sample CSV contract and aggregation on hand-made samples with known answers."""

import csv

import pytest
import yaml
from conftest import REPO

import aggregate_samples
import raw_samples

HEADER = ",".join(raw_samples.COLUMNS)
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


def test_aggregation_known_answers(tmp_path):
    lines = []
    # sign HS512: ns/op 10, 20, 30 -> median 20; verify HS512: 40, 40, 40 -> 40
    for sample, elapsed in enumerate((1000, 2000, 3000), 1):
        lines.append(f"{PREFIX},sign,HS512,512,claims-001,185,{sample},100,{elapsed},371,ok")
        lines.append(f"{PREFIX},verify,HS512,512,claims-001,185,{sample},50,2000,371,ok")
    lines.append(f"{PREFIX},sign,EdDSA,256,claims-001,185,0,0,0,0,unsupported")
    raw = write(tmp_path / "raw.csv", lines)
    summary, ratios = tmp_path / "summary.csv", tmp_path / "ratios.csv"
    with open(tmp_path / "log", "w") as log:
        aggregate_samples.main([raw], SETTINGS, summary, ratios, log)
    rows = {(r["operation"], r["variant"]): r for r in csv.DictReader(open(summary))}
    assert float(rows["sign", "HS512"]["median_ns"]) == 20
    assert float(rows["sign", "HS512"]["mad_ns"]) == 10
    assert rows["sign", "HS512"]["samples"] == "3"
    assert float(rows["verify", "HS512"]["median_ns"]) == 40
    assert float(rows["verify", "HS512"]["ci_halfwidth_pct"]) == 0
    unsupported = rows["sign", "EdDSA"]
    assert unsupported["status"] == "unsupported" and unsupported["median_ns"] == "" and unsupported["samples"] == "0"
    ratio_rows = {r["kind"]: r for r in csv.DictReader(open(ratios))}
    assert float(ratio_rows["verify/sign"]["ratio"]) == 2.0
    assert ratio_rows["verify/sign"]["numerator"] == "verify:HS512"


def test_cell_with_mixed_status_is_an_error(tmp_path):
    raw = write(tmp_path / "raw.csv", [
        f"{PREFIX},sign,HS512,512,claims-001,185,1,100,1000,371,ok",
        f"{PREFIX},sign,HS512,512,claims-001,185,2,100,1000,371,timeout",
    ])  # fmt: skip
    with open(tmp_path / "log", "w") as log, pytest.raises(ValueError, match="mixes statuses"):
        aggregate_samples.main([raw], SETTINGS, tmp_path / "s.csv", tmp_path / "r.csv", log)
