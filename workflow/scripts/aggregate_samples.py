"""Raw samples of every (language, suite, input) to results/summary.csv and results/ratios.csv.

One summary row per timed cell (workflow/schemas/summary.schema.yaml); ratios of cells
measured in the same run by the same language, with bootstrap CIs (ratios.schema.yaml).
Suite tokensize measures sizes, not time: its cells are summarised by seed000.py instead.
"""

import csv
import json
import statistics
import sys
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

import raw_samples  # noqa: E402
import sample_statistics as stats  # noqa: E402
import variants  # noqa: E402

SCHEMAS = Path(__file__).resolve().parents[1] / "schemas"


def columns(schema):
    return yaml.safe_load((SCHEMAS / schema).read_text())["x-columns"]


UNTIMED_SUITES = ("tokensize",)


class MixedOriginError(ValueError):
    """Samples from different hosts or different images would be pooled."""


def origin_of(path):
    """(host_id, image_id) from the metadata sidecar run_benchmark writes beside a raw CSV
    (<name>.json); None for a CSV without one (hand-made files, unit tests)."""
    sidecar = Path(path).with_suffix(".json")
    if not sidecar.is_file():
        return None
    metadata = json.loads(sidecar.read_text())
    missing = [key for key in ("host_id", "image_id") if not metadata.get(key)]
    if missing:
        raise MixedOriginError(
            f"{sidecar}: no {' or '.join(missing)} (written before jwtbench recorded where samples"
            f" come from); rerun its benchmark (snakemake --forcerun run_benchmark) before aggregating"
        )
    return metadata["host_id"], metadata["image_id"]


def check_origins(paths):
    """{path: (host_id, image_id)}; MixedOriginError naming both files when the raw files
    of one run name different hosts: one run's results come from one machine."""
    origins, first = {}, None
    for path in dict.fromkeys(map(str, paths)):
        origin = origin_of(path)
        if origin is None:
            continue
        origins[path] = origin
        if first is None:
            first = path
        elif origin[0] != origins[first][0]:
            raise MixedOriginError(
                f"{path} comes from host {origin[0]} but {first} from host {origins[first][0]}:"
                " one run's samples must come from one host (compare runs of different hosts"
                " through their bundles instead)"
            )
    return origins


def group_cells(paths):
    """{cell key: rows}, in the order cells first appear. A cell whose rows come from
    files of different hosts or image IDs is refused (MixedOriginError)."""
    origins = check_origins(paths)
    cells, source = {}, {}
    for path in paths:
        for row in raw_samples.read(path):
            if row["suite"] in UNTIMED_SUITES:
                continue
            key = raw_samples.cell_key(row)
            cells.setdefault(key, []).append(row)
            earlier = source.setdefault(key, str(path))
            mine, theirs = origins.get(str(path)), origins.get(earlier)
            if mine and theirs and mine[1] != theirs[1]:  # hosts already agree
                raise MixedOriginError(
                    f"cell {key}: {path} has samples from image {mine[1]} and {earlier}"
                    f" from image {theirs[1]}: refusing to pool them into one cell"
                )
    return cells


def rows_by(paths, key_of):
    """{key: rows} over the cells of `paths`, keyed by key_of(row) (cells whose key_of is
    None are left out), in the order keys first appear."""
    found = {}
    for rows in group_cells(paths).values():
        key = key_of(rows[0])
        if key is not None:
            found.setdefault(key, []).extend(rows)
    return found


def samples_of(cells):
    """({key: per-sample ns/op of the ok rows}, {key: its first row}) of rows_by's cells."""
    samples = {key: ns_per_op(rows) for key, rows in cells.items() if rows[0]["status"] == "ok"}
    return samples, {key: rows[0] for key, rows in cells.items()}


def samples_by(paths, key_of):
    """samples_of(rows_by(paths, key_of))."""
    return samples_of(rows_by(paths, key_of))


def ns_per_op(rows):
    return [row["elapsed_ns"] / row["iterations"] for row in rows if row["iterations"] > 0]


def summarise(key, rows, settings):
    first = rows[0]
    statuses = {row["status"] for row in rows}
    if len(statuses) != 1:
        raise ValueError(f"cell {key} mixes statuses {sorted(statuses)}")
    timed = [row for row in rows if row["iterations"] > 0]
    values = ns_per_op(timed)
    summary = {
        name: first[name]
        for name in ("language", "implementation", "implementation_version", "suite",
                     "operation", "algorithm", "key_bits", "input", "input_bytes")
    }  # fmt: skip
    summary.update(
        variant=variants.name_of(first["algorithm"], first["key_bits"]),
        output_bytes=int(statistics.median(r["output_bytes"] for r in timed)) if timed else 0,
        status=first["status"],
        samples=len(values),
        iterations=int(statistics.median(r["iterations"] for r in timed)) if timed else 0,
    )
    if values:
        rng = stats.generator(settings["seed"], *key)
        summary.update(
            stats.describe(values, settings["confidence"], settings["bootstrap_resamples"], rng)
        )
    return summary, values


def ratios(summaries, samples, settings):
    """verify/sign per variant, and each operation's variants over HS512 (seed 001's baseline)."""
    index = {
        (s["language"], s["implementation"], s["suite"], s["input"], s["operation"], s["variant"]): key
        for key, s in summaries.items()
        if s["status"] == "ok"
    }
    pairs = []
    for language, implementation, suite, input_name, operation, variant in index:
        cell = (language, implementation, suite, input_name)
        if operation == "verify" and (*cell, "sign", variant) in index:
            pairs.append(("verify/sign", cell, ("verify", variant), ("sign", variant)))
        if operation in ("sign", "verify") and (*cell, operation, "HS512") in index:
            pairs.append((f"{operation}/HS512", cell, (operation, variant), (operation, "HS512")))
    rows = []
    for kind, cell, top, bottom in pairs:
        language, implementation, suite, input_name = cell
        top_key = index[(*cell, *top)]
        bottom_key = index[(*cell, *bottom)]
        rng = stats.generator(settings["seed"], kind, *top_key, *bottom_key)
        ratio, low, high = stats.ratio_ci(
            samples[top_key], samples[bottom_key], settings["confidence"],
            settings["bootstrap_resamples"], rng,
        )  # fmt: skip
        rows.append({
            "language": language, "implementation": implementation, "suite": suite,
            "input": input_name, "kind": kind,
            "numerator": ":".join(top), "denominator": ":".join(bottom),
            "ratio": ratio, "ci_low": low, "ci_high": high,
        })  # fmt: skip
    return rows


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


def main(raw_paths, settings, summary_path, ratios_path, log):
    cells = group_cells(raw_paths)
    summaries, samples = {}, {}
    for key, rows in cells.items():
        summaries[key], samples[key] = summarise(key, rows, settings)
    write_csv(summary_path, columns("summary.schema.yaml"), summaries.values())
    ratio_rows = ratios(summaries, samples, settings)
    write_csv(ratios_path, columns("ratios.schema.yaml"), ratio_rows)
    print(f"{len(summaries)} cells from {len(raw_paths)} files; {len(ratio_rows)} ratios", file=log)


def run_job(job):
    with open(job.log[0], "w") as log:
        main(job.input.samples, job.params.statistics, job.output.summary, job.output.ratios, log)
