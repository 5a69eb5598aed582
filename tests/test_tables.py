"""The pipeline's tables: one writer (jwtbench/result_tables.py), and the schemas
(workflow/schemas/*.schema.yaml) as the single truth of each output's columns."""

import csv
import io
import re

import pytest
import yaml
from conftest import REPO

from jwtbench import result_tables
from jwtbench.rules import compare_runs

SCHEMAS = REPO / "workflow" / "schemas"
# The pipeline's own Python; the drivers under workflow/scripts/<language>/ are programs of their own.
PIPELINE_PYTHON = [REPO / "workflow" / "scripts" / folder for folder in ("jwtbench", "rules", "seeds")]
CSV_WRITERS = re.compile(r"\bcsv\.(writer|DictWriter)\b|\bfrom csv import\b|\.to_csv\(")
# CSV files under results/ that are not tables of the pipeline's own code.
NOT_TABLES = {
    "raw": "the drivers' raw samples (their contract: tests/test_raw_samples.py, tests/test_contract.py)",
    "failed": "what a failed benchmark's driver wrote, kept as it was",
    "data": "each dataset's own bytes (source.csv: a Kaggle file, a dropped file or a synthetic stand-in)",
    "bundles": "copies of the run's tables, byte for byte, and the published figures (report/published/)",
}


def tables():
    """(schema file name, table name or None, its entry) of every table of every schema: a
    schema of one table is its own entry; a family's tables are its entries under $defs."""
    for path in sorted(SCHEMAS.glob("*.schema.yaml")):
        loaded = yaml.safe_load(path.read_text())
        if "$defs" in loaded:
            for table, entry in loaded["$defs"].items():
                yield path.name, table, entry
        else:
            yield path.name, None, loaded


def pattern(path):
    """A regular expression of an x-files entry: each {wildcard} one or more path segments
    (a driver may be node/jose)."""
    parts = re.split(r"\{[^}]+\}", path)
    return re.compile("[^/]+(?:/[^/]+)*".join(re.escape(part) for part in parts) + "$")


def schema_of(relative):
    """(schema, table, x-columns) of the table at `relative` (a path from the working
    directory): the entry whose x-files names it exactly, else the one whose pattern matches."""
    exact, matched, columns = set(), set(), {}
    for name, table, entry in tables():
        columns[name, table] = entry["x-columns"]
        for path in entry["x-files"]:
            if path == relative:
                exact.add((name, table))
            elif pattern(path).match(relative):
                matched.add((name, table))
    found = sorted(exact or matched, key=str)
    assert len(found) == 1, f"{relative}: {len(found)} schemas name it ({found}); each table needs exactly one"
    return (*found[0], columns[found[0]])


def header_fits(header, template):
    """Whether a header is a schema's x-columns, a "{group}" entry standing for any run of
    columns (at most one group per table)."""
    groups = [index for index, column in enumerate(template) if result_tables.column_group(column)]
    if not groups:
        return header == template
    before, after = template[: groups[0]], template[groups[0] + 1 :]
    return (
        len(header) >= len(before) + len(after)
        and header[: len(before)] == before
        and header[len(header) - len(after) :] == after
    )


def test_no_csv_is_written_but_through_result_tables():
    """No module of the pipeline's own Python writes CSV itself (reading is fine)."""
    found = [
        f"{path.relative_to(REPO)}:{number}: {line.strip()}"
        for folder in PIPELINE_PYTHON
        for path in sorted(folder.rglob("*.py"))
        if path.name != "result_tables.py"
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if CSV_WRITERS.search(line)
    ]
    assert found == []


@pytest.mark.parametrize(
    ("name", "table", "entry"),
    [pytest.param(name, table, entry, id=f"{name}:{table}" if table else name) for name, table, entry in tables()],
)
def test_every_column_of_every_schema_is_described(name, table, entry):
    columns = entry["x-columns"]
    plain = [column for column in columns if not result_tables.column_group(column)]
    groups = [result_tables.column_group(column) for column in columns if result_tables.column_group(column)]
    assert len(set(columns)) == len(columns), f"{name} {table}: a column twice"
    assert list(entry["properties"]) == plain, f"{name} {table}: properties are not x-columns, in order"
    assert all(entry["properties"][column].get("description") for column in plain), f"{name} {table}"
    assert len(groups) <= 1, f"{name} {table}: at most one group of columns"
    for group in groups:
        assert entry["x-column-groups"][group].get("description"), f"{name} {table}: group {group}"
    if "required" in entry:
        assert entry["required"] == columns, f"{name} {table}: required is not x-columns"
    assert entry.get("description") and entry["x-files"], f"{name} {table}: say what it is and where it is written"


def test_every_csv_the_rules_write_has_a_schema():
    """Every results/...csv named in workflow/rules/*.smk is some schema's x-files entry
    (wildcards as the rules name them), but the datasets' own bytes."""
    named = set()
    for path in sorted((REPO / "workflow" / "rules").glob("*.smk")):
        named |= set(re.findall(r'"(results/[^"]+\.csv)"', path.read_text()))
    wildcard = re.compile(r"\{[^}]+\}")
    documented = {wildcard.sub("{}", path) for _, _, entry in tables() for path in entry["x-files"]}
    missing = sorted(
        path for path in named if wildcard.sub("{}", path) not in documented and not path.startswith("results/data/")
    )
    assert named and missing == []


def test_a_table_is_written_with_lf_line_ends_and_short_floats(tmp_path):
    path = tmp_path / "table.csv"
    rows = [{"name": "a", "value": 1 / 3, "note": 'says "hi", then\nleaves'}, {"name": "b", "value": 12}]
    result_tables.write_csv(path, ["name", "value", "note"], rows)
    assert path.read_bytes() == b'name,value,note\na,0.333333,"says ""hi"", then\nleaves"\nb,12,\n'
    assert result_tables.read_rows(path) == [
        {"name": "a", "value": "0.333333", "note": 'says "hi", then\nleaves'},
        {"name": "b", "value": "12", "note": ""},
    ]


def test_a_table_may_keep_every_digit_and_leave_working_values_out(tmp_path):
    path = tmp_path / "table.csv"
    with pytest.raises(ValueError, match="pooled"):
        result_tables.write_csv(path, ["ratio"], [{"ratio": 2 / 3, "pooled": (0.5, 0.7)}])
    result_tables.write_csv(path, ["ratio"], [{"ratio": 2 / 3, "pooled": (0.5, 0.7)}], floats=str, extra="ignore")
    assert path.read_bytes() == b"ratio\n0.6666666666666666\n"


def test_a_line_is_written_as_a_table_writes_it(tmp_path):
    assert result_tables.csv_line(["a", "b,c", 1.5, 7, 1 / 3]) == b'a,"b,c",1.5,7,0.333333\n'
    path = tmp_path / "table.csv"
    result_tables.write_csv(path, ["x", "y"], [{"x": "b,c", "y": 1 / 3}])
    assert path.read_bytes() == result_tables.csv_line(["x", "y"]) + result_tables.csv_line(["b,c", 1 / 3])


def test_a_group_of_columns_is_given_when_the_table_is_written():
    """compare.csv's verdicts: the claims' naming columns between seed and what, then each
    run's figures (compare_runs.VERDICT_FIGURES, A's then B's)."""
    figures = [f"{name}_{run}" for run in compare_runs.RUNS for name in compare_runs.VERDICT_FIGURES]
    expected = ["seed", "claim", "language", "what", "presence", "differs", *figures]
    assert compare_runs.verdict_columns(["claim", "language"]) == expected
    with pytest.raises(ValueError, match="claim_columns"):
        result_tables.columns("compare.schema.yaml", "verdicts")


def test_known_deviations_have_their_schemas_columns():
    """The one table the pipeline writes into the repository (check_conformance.record_known)."""
    data = (REPO / "data" / "conformance" / "known-deviations.csv").read_bytes()
    assert b"\r\n" not in data and data.endswith(b"\n")
    header = next(csv.reader(io.StringIO(data.decode("utf-8"))))
    assert header == result_tables.columns("known_deviations.schema.yaml")


@pytest.mark.end_to_end
def test_every_table_of_the_smoke_run_has_its_schemas_columns_and_lf_line_ends(smoke):
    """Every CSV under the smoke run's results/ but NOT_TABLES (the compare and merge tables
    only when some test made them) is named by one schema's x-files and has exactly its
    x-columns as header, and LF line ends."""
    checked, problems = [], []
    for path in sorted((smoke / "results").rglob("*.csv")):
        relative = path.relative_to(smoke).as_posix()
        if relative.split("/")[1] in NOT_TABLES:
            continue
        name, table, template = schema_of(relative)
        data = path.read_bytes()
        header = next(csv.reader(io.StringIO(data.decode("utf-8"))), [])
        if not header_fits(header, template):
            problems.append(f"{relative}: header {header}, {name} {table or ''} says {template}")
        if b"\r\n" in data or not data.endswith(b"\n"):
            problems.append(f"{relative}: not LF line ends")
        checked.append(relative)
    assert problems == []
    assert {"results/summary.csv", "results/verify/conformance.csv", "results/wall_times.csv"} <= set(checked)
