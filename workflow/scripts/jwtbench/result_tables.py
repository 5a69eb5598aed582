"""Result tables: their columns from the schemas (workflow/schemas/), and CSV writing.

Every CSV the pipeline's own code writes (rules, seeds, this library; not the drivers)
goes through write_csv, or csv_line for a file built line by line: "\\n" line ends,
quoting only where needed, and floats to 6 significant digits unless the caller keeps
every digit (floats=str). Each table's columns, in order, are its schema's `x-columns`
(columns()); a schema of a family of tables (one module's) holds one entry per table
under `$defs`.
"""

import csv
import io
from pathlib import Path

import yaml

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"


def schema(name, table=None):
    """The schema `name` (its file name in workflow/schemas/), or, for a family of tables,
    its entry for `table` (under `$defs`)."""
    loaded = yaml.safe_load((SCHEMAS / name).read_text())
    return loaded["$defs"][table] if table else loaded


def column_group(column):
    """The group's name when an x-columns entry is "{name}", a run of columns known only when
    the table is written (its description is under x-column-groups); else None."""
    return column[1:-1] if column.startswith("{") and column.endswith("}") else None


def columns(name, table=None, **groups):
    """The columns of a table in order (x-columns): of the schema `name`, or of its entry
    `table`; each "{group}" entry replaced by the columns `groups` gives for it."""
    found = []
    for column in schema(name, table)["x-columns"]:
        group = column_group(column)
        if group is None:
            found.append(column)
        elif group in groups:
            found.extend(groups[group])
        else:
            raise ValueError(f"{name}{f' ({table})' if table else ''}: the columns of group {group!r} are not given")
    return found


def family_columns(name):
    """{table: its columns} of every table of a family's schema `name`, in the file's order."""
    return {table: columns(name, table) for table in schema(name)["$defs"]}


def read_rows(path):
    """The rows of a CSV file as dicts; [] when there is no such file."""
    if not path or not Path(path).is_file():
        return []
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def short_float(value):
    """A float as the tables write it unless told otherwise: 6 significant digits."""
    return f"{value:.6g}"


def write_csv(path, names, rows, floats=short_float, extra="raise"):
    """The rows (dicts) to `path` under the header `names`: a missing value is empty, a
    float is written by `floats`; a key not in `names` raises ValueError, unless `extra` is
    "ignore" (rows that carry working values beside their columns)."""
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, names, lineterminator="\n", restval="", extrasaction=extra)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: (floats(v) if isinstance(v, float) else v) for k, v in row.items()})


def csv_line(values):
    """One record (a sequence of values) as the bytes of one line, as write_csv writes it."""
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow(
        [short_float(value) if isinstance(value, float) else value for value in values]
    )
    return buffer.getvalue().encode()


def write_tables(outputs, columns, tables, log):
    """Each table to outputs[name] with columns[name]; one line per file to `log`."""
    for name, table in tables.items():
        write_csv(outputs[name], columns[name], table)
        print(f"{outputs[name]}: {len(table)} rows", file=log)
