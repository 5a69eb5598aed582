"""One dataset, from wherever it is found, to the canonical payloads every driver uses.

Where from (`choose_source`, decided when the workflow is parsed; see the `datasets` key
in config/schemas/config.schema.yaml): Kaggle (downloads kept in <data_dir>/kaggle/), a
file dropped at <data_dir>/raw/<name>.csv (data_dir: config key, default data/), or the
synthetic stand-in. A Kaggle download that fails falls through to the next.

Outputs in results/data/<name>/:
  source.csv      the exact bytes used (validated first: UTF-8, header, fields per row)
  payloads.jsonl  one canonical JSON object per record (keys in column order, values as
                  the CSV's strings, UTF-8, no insignificant whitespace), in file order
  records.jsonl   up to records_per_cell of those lines, evenly spaced (suite jwt)
  tokensize.jsonl the lines suite tokensize signs: every one, or suites.tokensize.records
                  of them evenly spaced
  body.json       {"dataset": <name>, "records": [every payload]} (suite transfer)
  dataset.json    where the data came from, its checksums and sizes, and any warnings

Kaggle credentials are read by the Kaggle client itself, in a child process; nothing
here prints, logs or records them, and what the client prints is scrubbed of them.
"""

import csv
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from jwtbench import synthetic_datasets

KAGGLE_TIMEOUT_SECONDS = 300
SIZE_TOLERANCE = 0.05


class DatasetError(Exception):
    """A dataset that cannot be used; the message names the file (and line)."""


# --- where the data comes from -------------------------------------------------------


def kaggle_credentials():
    """Which kind of Kaggle credentials exist ('environment' or a kaggle.json path), else None."""
    if os.environ.get("KAGGLE_USERNAME") and os.environ.get("KAGGLE_KEY"):
        return "environment"
    folder = Path(os.environ.get("KAGGLE_CONFIG_DIR") or Path.home() / ".kaggle")
    return str(folder / "kaggle.json") if (folder / "kaggle.json").is_file() else None


def secrets():
    """Credential strings that must never reach a log: the key, the user name."""
    values = {os.environ.get("KAGGLE_KEY", ""), os.environ.get("KAGGLE_USERNAME", "")}
    found = kaggle_credentials()
    if found and found != "environment":
        try:
            stored = json.loads(Path(found).read_text())
            values |= {str(stored.get("key", "")), str(stored.get("username", ""))}
        except (OSError, ValueError):
            pass
    return sorted((v for v in values if len(v) >= 3), key=len, reverse=True)


def scrub(text):
    for secret in secrets():
        text = text.replace(secret, "[redacted]")
    return text


def kaggle_download_path(data_dir, dataset):
    return Path(data_dir) / "kaggle" / dataset["name"] / dataset["kaggle"]["file"]


def dropped_path(data_dir, dataset):
    return Path(data_dir) / "raw" / f"{dataset['name']}.csv"


def choose_source(data_dir, dataset):
    """'kaggle', 'file' or 'synthetic': the first that applies (see the module doc)."""
    if dataset.get("kaggle") and (kaggle_credentials() or kaggle_download_path(data_dir, dataset).is_file()):
        return "kaggle"
    if dropped_path(data_dir, dataset).is_file():
        return "file"
    if dataset.get("synthetic"):
        return "synthetic"
    raise DatasetError(
        f"dataset {dataset['name']}: no Kaggle credentials, no file at "
        f"{dropped_path(data_dir, dataset)}, and no synthetic stand-in (datasets[].synthetic)"
    )


def download_from_kaggle(kaggle_bin, dataset, target, log):
    """Fetch the dataset's file with the official client into target; raises DatasetError."""
    slug, name = dataset["kaggle"]["dataset"], dataset["kaggle"]["file"]
    target.parent.mkdir(parents=True, exist_ok=True)
    command = [kaggle_bin, "datasets", "download", "-d", slug, "-f", name, "-p", str(target.parent), "--force"]
    print(f"downloading {slug} {name} from Kaggle into {target.parent}", file=log, flush=True)
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=KAGGLE_TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired:
        raise DatasetError(f"Kaggle download of {slug} {name}: no answer in {KAGGLE_TIMEOUT_SECONDS} s") from None
    output = scrub((result.stdout + result.stderr).strip())
    print(output, file=log, flush=True)
    zipped = target.with_name(target.name + ".zip")
    if zipped.is_file():
        with zipfile.ZipFile(zipped) as archive:
            with archive.open(name) as member, open(target, "wb") as out:
                shutil.copyfileobj(member, out)
        zipped.unlink()
    if result.returncode != 0 or not target.is_file():
        last = output.splitlines()[-1] if output else f"exit status {result.returncode}"
        raise DatasetError(f"Kaggle download of {slug} {name} failed: {last}")


def sha256_of(data):
    return hashlib.sha256(data).hexdigest()


def shown(path):
    """A path as the user knows it: relative to the working directory when inside it."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def acquire(data_dir, dataset, planned, kaggle_bin, log):
    """(bytes, facts) of the dataset from the planned source or the ones after it."""
    facts = {"planned_source": planned, "warnings": []}
    order = ["kaggle", "file", "synthetic"]
    for source in order[order.index(planned) :]:
        if source == "kaggle":
            path = kaggle_download_path(data_dir, dataset)
            try:
                if not path.is_file():
                    download_from_kaggle(kaggle_bin, dataset, path, log)
            except DatasetError as error:
                facts["warnings"].append(f"{error}; falling back to the next source")
                print(f"warning: {error}", file=log, flush=True)
                continue
            facts.update(source="kaggle", path=shown(path))
            return path.read_bytes(), facts
        if source == "file" and dropped_path(data_dir, dataset).is_file():
            path = dropped_path(data_dir, dataset)
            facts.update(source="file", path=shown(path))
            return path.read_bytes(), facts
        if source == "synthetic" and dataset.get("synthetic"):
            data = synthetic_datasets.generate(dataset["synthetic"], dataset["expected_bytes"], dataset["seed"])
            facts.update(source="synthetic", path=None, generator=dataset["synthetic"], seed=dataset["seed"])
            return data, facts
    raise DatasetError(f"dataset {dataset['name']}: no source left after {planned} ({'; '.join(facts['warnings'])})")


# --- validation and canonical payloads -----------------------------------------------


def decode_utf8(data, where):
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        raise DatasetError(f"{where}:{line}: not UTF-8 (byte 0x{data[error.start]:02x} at column {column})") from None
    return text.removeprefix("\ufeff")


def read_table(data, where, expected_columns):
    """(header, rows) of a CSV after every check; DatasetError naming file:line otherwise."""
    if not data.strip():
        raise DatasetError(f"{where}: empty file")
    reader = csv.reader(io.StringIO(decode_utf8(data, where), newline=""), strict=True)
    rows, line = [], 1
    try:
        header = next(reader)
        if expected_columns and header != expected_columns:
            missing = [c for c in expected_columns if c not in header]
            extra = [c for c in header if c not in expected_columns]
            detail = f"missing {missing}, unexpected {extra}" if missing or extra else "columns in another order"
            raise DatasetError(f"{where}:1: header does not match the dataset's columns ({detail})")
        duplicates = sorted({c for c in header if header.count(c) > 1})
        if duplicates or not all(header):
            problem = f"repeated columns {duplicates}" if duplicates else "an empty column name"
            raise DatasetError(f"{where}:1: header has {problem}")
        line = reader.line_num + 1
        for row in reader:
            if len(row) != len(header):
                what = "a blank line" if not row else f"{len(row)} fields, the header has {len(header)}"
                raise DatasetError(f"{where}:{line}: {what}")
            rows.append(row)
            line = reader.line_num + 1
    except csv.Error as error:
        raise DatasetError(f"{where}:{line}: {error}") from None
    if not rows:
        raise DatasetError(f"{where}: a header and no records")
    return header, rows


def canonical(header, row):
    """The record as one canonical JSON object (JSON.stringify-compatible), as bytes."""
    return json.dumps(dict(zip(header, row)), ensure_ascii=False, separators=(",", ":")).encode()


def evenly_spaced(items, count):
    if count >= len(items):
        return list(items)
    return [items[i * len(items) // count] for i in range(count)]


def write_payloads(out_dir, name, header, rows, records_per_cell, tokensize_records=None):
    """The canonical files; tokensize_records: how many records, evenly spaced, suite
    tokensize signs (None: every record)."""
    payloads = [canonical(header, row) for row in rows]
    signed_for_size = payloads if tokensize_records is None else evenly_spaced(payloads, tokensize_records)
    files = {
        "payloads.jsonl": b"".join(p + b"\n" for p in payloads),
        "records.jsonl": b"".join(p + b"\n" for p in evenly_spaced(payloads, records_per_cell)),
        "tokensize.jsonl": b"".join(p + b"\n" for p in signed_for_size),
        "body.json": b'{"dataset":' + json.dumps(name).encode() + b',"records":[' + b",".join(payloads) + b"]}",
    }
    for file_name, data in files.items():
        (out_dir / file_name).write_bytes(data)
    sizes = [len(p) for p in payloads]
    return {
        "records": len(payloads),
        "columns": header,
        "record_bytes": {"mean": sum(sizes) / len(sizes), "min": min(sizes), "max": max(sizes)},
        "records_per_cell": min(records_per_cell, len(payloads)),
        "tokensize_records": len(signed_for_size),
        "files": {file_name: {"bytes": len(data), "sha256": sha256_of(data)} for file_name, data in files.items()},
    }


def check_real_file(data, dataset, facts, where):
    expected = dataset.get("sha256")
    if expected and sha256_of(data) != expected:
        raise DatasetError(f"{where}: SHA-256 is {sha256_of(data)}, the config (datasets[].sha256) expects {expected}")
    wanted = dataset.get("expected_bytes")
    if wanted and abs(len(data) / wanted - 1) > SIZE_TOLERANCE:
        facts["warnings"].append(
            f"{where} has {len(data):,} bytes, {len(data) / wanted - 1:+.0%} from the {wanted:,} expected"
        )


def prepare(data_dir, dataset, planned, records_per_cell, out_dir, kaggle_bin, log, tokensize_records=None):
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    data, facts = acquire(Path(data_dir), dataset, planned, kaggle_bin, log)
    where = facts["path"] or f"synthetic {dataset['synthetic']} (seed {dataset['seed']})"
    if facts["source"] != "synthetic":
        check_real_file(data, dataset, facts, where)
    expected_columns = synthetic_datasets.columns(dataset["synthetic"]) if dataset.get("synthetic") else None
    header, rows = read_table(data, where, expected_columns)
    (out_dir / "source.csv").write_bytes(data)
    facts.update(
        name=dataset["name"],
        title=dataset.get("title") or dataset["name"],
        synthetic=facts["source"] == "synthetic",
        kaggle=dataset.get("kaggle"),
        bytes=len(data),
        sha256=sha256_of(data),
        expected_bytes=dataset.get("expected_bytes"),
        expected_sha256=dataset.get("sha256") or None,
    )
    facts.update(write_payloads(out_dir, dataset["name"], header, rows, records_per_cell, tokensize_records))
    (out_dir / "dataset.json").write_text(json.dumps(facts, indent=2, ensure_ascii=False) + "\n")
    for warning in facts["warnings"]:
        print(f"jwtbench: warning: dataset {dataset['name']}: {warning}", file=sys.stderr)
    return facts


def run_job(job):
    with open(job.log[0], "w") as log:
        try:
            facts = prepare(
                job.params.data_dir,
                job.params.dataset,
                job.params.source,
                job.params.records_per_cell,
                Path(job.output.payloads).parent,
                job.params.kaggle_bin,
                log,
                job.params.tokensize_records,
            )
        except DatasetError as error:
            print(f"error: {error}", file=log)
            raise
        print(f"{facts['name']}: {facts['source']}, {facts['bytes']:,} bytes, {facts['records']:,} records", file=log)
