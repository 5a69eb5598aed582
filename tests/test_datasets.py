"""Datasets: where they come from, the synthetic stand-ins, validation, canonical payloads."""

import csv
import io
import json
import shutil
import subprocess

import pytest
import yaml
from conftest import REPO, SCRIPTS

from jwtbench import config_validation, synthetic_datasets
from jwtbench.rules import prepare_dataset

SCHEMA = REPO / "config" / "schemas" / "config.schema.yaml"
PAPER_MB = {"amazon-prime-users": 1.4, "credit-score-users": 8.2, "netflix-titles": 6.3}
FAKE_KEY = "c4n4ry0f4k3k4gg13k3y5ecret0123456789"


def default_datasets():
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    filled = config_validation.validate(
        config, SCHEMA, config_validation.driver_languages(SCRIPTS), config_validation.library_drivers(SCRIPTS)
    )
    return {d["name"]: d for d in filled["datasets"]}


@pytest.fixture(scope="module")
def generated():
    """Each default dataset's stand-in, generated twice."""
    return {
        name: [synthetic_datasets.generate(d["synthetic"], d["expected_bytes"], d["seed"]) for _ in range(2)]
        for name, d in default_datasets().items()
    }


@pytest.fixture
def no_kaggle(monkeypatch, tmp_path):
    for name in ("KAGGLE_USERNAME", "KAGGLE_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("KAGGLE_CONFIG_DIR", str(tmp_path / "no-kaggle"))


def test_default_config_has_the_papers_three_datasets():
    assert sorted(default_datasets()) == sorted(PAPER_MB)


@pytest.mark.parametrize("name", sorted(PAPER_MB))
def test_synthetic_size_is_the_papers_within_5_percent_either_way(name, generated):
    size = len(generated[name][0])
    for megabyte in (1_000_000, 1_048_576):
        assert abs(size / (PAPER_MB[name] * megabyte) - 1) <= 0.05, (name, size, megabyte)


@pytest.mark.parametrize("name", sorted(PAPER_MB))
def test_synthetic_is_byte_identical_across_runs(name, generated):
    first, second = generated[name]
    assert first == second


@pytest.mark.parametrize("name", sorted(PAPER_MB))
def test_synthetic_has_the_real_header_and_passes_validation(name, generated):
    dataset = default_datasets()[name]
    header, rows = prepare_dataset.read_table(generated[name][0], name, synthetic_datasets.columns(name))
    assert header == synthetic_datasets.columns(dataset["synthetic"])
    assert len(rows) > 1000


def test_seeds_give_different_data():
    assert synthetic_datasets.generate("netflix-titles", 20_000, 0) != synthetic_datasets.generate(
        "netflix-titles", 20_000, 1
    )


def write(tmp_path, text, name="bad.csv"):
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


@pytest.mark.parametrize(
    "content, expected",
    [
        ("a,b\n1,2\n3,4,5\n6,7\n", "bad.csv:3: 3 fields, the header has 2"),
        ("a,b\n1,2\n\n6,7\n", "bad.csv:3: a blank line"),
        ('a,b\n1,"multi\nline"\n2\n', "bad.csv:4: 1 fields, the header has 2"),
        (b"a,b\n1,2\n3,\xff\n", "bad.csv:3: not UTF-8 (byte 0xff at column 3)"),
        ("", "bad.csv: empty file"),
        ("a,b\n", "bad.csv: a header and no records"),
        ("a,a\n1,2\n", "bad.csv:1: header has repeated columns ['a']"),
        ('a,b\n1,"2\n', "bad.csv:2: unexpected end of data"),
    ],
)
def test_a_bad_file_is_refused_naming_file_and_line(tmp_path, content, expected):
    path = write(tmp_path, content)
    with pytest.raises(prepare_dataset.DatasetError) as error:
        prepare_dataset.read_table(path.read_bytes(), str(path), None)
    assert str(error.value) == str(tmp_path / expected)


def test_a_wrong_header_names_the_columns(tmp_path):
    columns = synthetic_datasets.columns("netflix-titles")
    path = write(tmp_path, ",".join(columns[:-1] + ["summary"]) + "\n" + ",".join("x" * len(columns)) + "\n")
    with pytest.raises(
        prepare_dataset.DatasetError, match=r"bad.csv:1: header .*missing \['description'\], unexpected \['summary'\]"
    ):
        prepare_dataset.read_table(path.read_bytes(), str(path), columns)


def test_payloads_are_canonical_json_in_column_order(tmp_path):
    data = 'name,note,n\nZoë,"say ""hi"", \\ then\ttab",7\n'.encode()
    header, rows = prepare_dataset.read_table(data, "x.csv", None)
    facts = prepare_dataset.write_payloads(tmp_path, "x", header, rows, 10)
    line = (tmp_path / "payloads.jsonl").read_bytes()
    assert line == '{"name":"Zoë","note":"say \\"hi\\", \\\\ then\\ttab","n":"7"}\n'.encode()
    body = json.loads((tmp_path / "body.json").read_bytes())
    assert body == {"dataset": "x", "records": [{"name": "Zoë", "note": 'say "hi", \\ then\ttab', "n": "7"}]}
    assert facts["records"] == 1 and facts["files"]["payloads.jsonl"]["bytes"] == len(line)


def test_records_for_jwt_cells_are_evenly_spaced(tmp_path):
    data = ("i\n" + "".join(f"{i}\n" for i in range(100))).encode()
    header, rows = prepare_dataset.read_table(data, "x.csv", None)
    prepare_dataset.write_payloads(tmp_path, "x", header, rows, 4)
    picked = [json.loads(line)["i"] for line in (tmp_path / "records.jsonl").read_text().splitlines()]
    assert picked == ["0", "25", "50", "75"]


def test_token_size_records_are_every_record_or_an_evenly_spaced_share(tmp_path):
    data = ("i\n" + "".join(f"{i}\n" for i in range(100))).encode()
    header, rows = prepare_dataset.read_table(data, "x.csv", None)
    facts = prepare_dataset.write_payloads(tmp_path, "x", header, rows, 4)
    assert (tmp_path / "tokensize.jsonl").read_bytes() == (tmp_path / "payloads.jsonl").read_bytes()
    assert facts["tokensize_records"] == 100
    facts = prepare_dataset.write_payloads(tmp_path, "x", header, rows, 4, tokensize_records=5)
    picked = [json.loads(line)["i"] for line in (tmp_path / "tokensize.jsonl").read_text().splitlines()]
    assert picked == ["0", "20", "40", "60", "80"] and facts["tokensize_records"] == 5
    facts = prepare_dataset.write_payloads(tmp_path, "x", header, rows, 4, tokensize_records=1000)
    assert facts["tokensize_records"] == 100


def test_canonical_payloads_survive_javascripts_parse_and_stringify(tmp_path):
    """Node's JSON.stringify(JSON.parse(line)) gives back each line byte for byte."""
    if not shutil.which("node"):
        pytest.fail("node is not on PATH (the node driver needs it too)")
    data = synthetic_datasets.generate("netflix-titles", 60_000, 3)
    header, rows = prepare_dataset.read_table(data, "x.csv", synthetic_datasets.columns("netflix-titles"))
    prepare_dataset.write_payloads(tmp_path, "x", header, rows, 1)
    script = (
        "const fs=require('fs');const lines=fs.readFileSync(process.argv[1],'utf8').split('\\n').slice(0,-1);"
        "process.stdout.write(lines.map(l=>JSON.stringify(JSON.parse(l))).join('\\n')+'\\n')"
    )
    result = subprocess.run(["node", "-e", script, str(tmp_path / "payloads.jsonl")], capture_output=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout == (tmp_path / "payloads.jsonl").read_bytes()
    assert any(ord(ch) > 127 for ch in result.stdout.decode()), "the stand-in should carry non-ASCII text"


# --- where a dataset comes from ------------------------------------------------------


def dataset(name="netflix-titles", **extra):
    return {
        "name": name,
        "title": "",
        "sha256": "",
        "expected_bytes": 30_000,
        "synthetic": name,
        "seed": 0,
        "kaggle": {"dataset": "shivamb/netflix-shows", "file": "netflix_titles.csv"},
        **extra,
    }


def test_source_order_kaggle_then_dropped_file_then_synthetic(tmp_path, monkeypatch, no_kaggle):
    repo = tmp_path / "repo"
    assert prepare_dataset.choose_source(repo / "data", dataset()) == "synthetic"
    (repo / "data" / "raw").mkdir(parents=True)
    write(repo / "data" / "raw", "x\n1\n", "netflix-titles.csv")
    assert prepare_dataset.choose_source(repo / "data", dataset()) == "file"
    monkeypatch.setenv("KAGGLE_USERNAME", "someone")
    monkeypatch.setenv("KAGGLE_KEY", FAKE_KEY)
    assert prepare_dataset.choose_source(repo / "data", dataset()) == "kaggle"
    assert prepare_dataset.choose_source(repo / "data", dataset(kaggle=None)) == "file"


def test_kaggle_json_counts_as_credentials(tmp_path, monkeypatch, no_kaggle):
    folder = tmp_path / "kaggle-config"
    folder.mkdir()
    (folder / "kaggle.json").write_text(json.dumps({"username": "someone", "key": FAKE_KEY}))
    monkeypatch.setenv("KAGGLE_CONFIG_DIR", str(folder))
    assert prepare_dataset.kaggle_credentials() == str(folder / "kaggle.json")
    assert FAKE_KEY not in prepare_dataset.scrub(f"token {FAKE_KEY} rejected")


def test_no_source_at_all_is_an_error_naming_the_dataset(tmp_path, no_kaggle):
    with pytest.raises(prepare_dataset.DatasetError, match="dataset custom: no Kaggle credentials, no file at"):
        prepare_dataset.choose_source(tmp_path, dataset("custom", synthetic="", kaggle=None))


def fake_kaggle_client(tmp_path, body):
    client = tmp_path / "kaggle"
    client.write_text("#!/bin/sh\n" + body)
    client.chmod(0o755)
    return str(client)


def test_a_failed_download_falls_back_and_never_logs_the_key(tmp_path, monkeypatch, no_kaggle):
    monkeypatch.setenv("KAGGLE_USERNAME", "canary-user")
    monkeypatch.setenv("KAGGLE_KEY", FAKE_KEY)
    client = fake_kaggle_client(tmp_path, 'echo "401 Unauthorized for $KAGGLE_USERNAME with $KAGGLE_KEY" >&2\nexit 1\n')
    out = tmp_path / "out"
    with open(tmp_path / "log", "w") as log:
        facts = prepare_dataset.prepare(tmp_path / "data", dataset(), "kaggle", 8, out, client, log)
    assert facts["source"] == "synthetic" and facts["synthetic"] and facts["planned_source"] == "kaggle"
    assert "falling back" in facts["warnings"][0] and "[redacted]" in facts["warnings"][0]
    for path in [tmp_path / "log", *out.iterdir()]:
        text = path.read_text(errors="replace")
        assert FAKE_KEY not in text and "canary-user" not in text, path


def test_a_kaggle_download_is_used_and_unzipped(tmp_path, monkeypatch, no_kaggle):
    monkeypatch.setenv("KAGGLE_USERNAME", "canary-user")
    monkeypatch.setenv("KAGGLE_KEY", FAKE_KEY)
    columns = ",".join(synthetic_datasets.columns("netflix-titles"))
    row = ",".join(["s1"] + ["x"] * 11)
    script = (
        f'cd "$8" && printf "%s\\n%s\\n" "{columns}" "{row}" > netflix_titles.csv'
        " && python3 -m zipfile -c netflix_titles.csv.zip netflix_titles.csv && rm netflix_titles.csv\n"
    )
    client = fake_kaggle_client(tmp_path, script)
    with open(tmp_path / "log", "w") as log:
        facts = prepare_dataset.prepare(tmp_path / "data", dataset(), "kaggle", 8, tmp_path / "out", client, log)
    assert facts["source"] == "kaggle" and not facts["synthetic"] and facts["records"] == 1
    assert facts["path"] == str(tmp_path / "data" / "kaggle" / "netflix-titles" / "netflix_titles.csv")
    assert facts["warnings"] and "expected" in facts["warnings"][0]  # 30 kB expected, a few bytes found


def test_a_dropped_file_with_the_wrong_checksum_is_refused(tmp_path, no_kaggle):
    repo = tmp_path / "repo"
    (repo / "data" / "raw").mkdir(parents=True)
    (repo / "data" / "raw" / "netflix-titles.csv").write_bytes(synthetic_datasets.generate("netflix-titles", 2000, 0))
    with (
        open(tmp_path / "log", "w") as log,
        pytest.raises(
            prepare_dataset.DatasetError,
            match=r"data/raw/netflix-titles.csv: SHA-256 is [0-9a-f]{64}, the config .* expects 0{64}",
        ),
    ):
        prepare_dataset.prepare(repo / "data", dataset(sha256="0" * 64), "file", 8, tmp_path / "out", "kaggle", log)


def test_a_dropped_file_is_used_as_is(tmp_path, no_kaggle):
    repo = tmp_path / "repo"
    (repo / "data" / "raw").mkdir(parents=True)
    data = synthetic_datasets.generate("netflix-titles", 30_000, 9)
    (repo / "data" / "raw" / "netflix-titles.csv").write_bytes(data)
    with open(tmp_path / "log", "w") as log:
        facts = prepare_dataset.prepare(repo / "data", dataset(), "file", 8, tmp_path / "out", "kaggle", log)
    assert facts["source"] == "file" and not facts["synthetic"] and not facts["warnings"]
    assert (tmp_path / "out" / "source.csv").read_bytes() == data
    assert facts["records"] == len(list(csv.reader(io.StringIO(data.decode())))) - 1


def test_drivers_never_see_kaggle_credentials(monkeypatch):
    from jwtbench import container_engine, driver_runner

    monkeypatch.setenv("KAGGLE_USERNAME", "canary-user")
    monkeypatch.setenv("KAGGLE_KEY", FAKE_KEY)
    runner = driver_runner.DriverRunner("python", "run", container_engine.Engine("native", "native", "test"))
    env = runner.environ()
    assert "KAGGLE_KEY" not in env and "KAGGLE_USERNAME" not in env and env["JWTBENCH_ENVS"]
