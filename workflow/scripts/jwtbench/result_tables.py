"""Result tables: their columns from the schemas (workflow/schemas/), and CSV writing."""

import csv
from pathlib import Path

import yaml

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"


def columns(schema):
    return yaml.safe_load((SCHEMAS / schema).read_text())["x-columns"]


def read_rows(path):
    """The rows of a CSV file as dicts; [] when there is no such file."""
    if not path or not Path(path).is_file():
        return []
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def write_csv(path, names, rows):
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, names, lineterminator="\n", restval="")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in row.items()})


def write_tables(outputs, columns, tables, log):
    """Each table to outputs[name] with columns[name]; one line per file to `log`."""
    for name, table in tables.items():
        write_csv(outputs[name], columns[name], table)
        print(f"{outputs[name]}: {len(table)} rows", file=log)
