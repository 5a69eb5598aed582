"""Raw samples of every (language, suite, input) to results/summary.csv, results/ratios.csv
and results/drift.csv.

One summary row per timed cell (workflow/schemas/summary.schema.yaml); ratios of cells
measured in the same run by the same language, with bootstrap CIs (ratios.schema.yaml);
the drift reference of every round (timing rule 5b; drift.schema.yaml), which is not a cell.
Suite tokensize measures sizes, not time: its cells are summarised by seed000.py instead.
"""

import collections
import csv
import json
import statistics
import sys
from pathlib import Path

import numpy as np
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

import config_validation  # noqa: E402
import raw_samples  # noqa: E402
import sample_statistics as stats  # noqa: E402
import stopping_rule  # noqa: E402
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


def group_cells(paths, source=None):
    """{cell key: rows}, in the order cells first appear. A cell whose rows come from
    files of different hosts or image IDs is refused (MixedOriginError). `source`, when
    given, is filled with {cell key: the first file with its rows}."""
    origins = check_origins(paths)
    cells, source = {}, {} if source is None else source
    for path in paths:
        for row in raw_samples.cells_only(raw_samples.read(path)):
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
        summary.update(stats.describe(values, settings["confidence"]))
    return summary, values


# Suites whose drivers sample cells in interleaved rounds (timing rules 5-5a); keygen only
# for its sign and verify cells, primitive not for openssl speed's own runs.
ROUND_SUITES = ("jwt", "hash", "primitive", "keygen")


def in_rounds(spec, cell):
    if spec["suite"] == "keygen":
        return cell["operation"] in ("sign", "verify")
    return spec["suite"] in ROUND_SUITES and "openssl" not in spec


def spec_match(cell):
    """What ties a spec's cell to its rows: operation, algorithm, key size, input, and the
    implementation when the spec names one."""
    return (cell["operation"], cell["algorithm"], int(cell["key_bits"]), cell["input"], cell.get("implementation"))


def row_match(row, named):
    return (row["operation"], row["algorithm"], row["key_bits"], row["input"], row["implementation"] if named else None)


def stop_reasons(raw_path, spec_path):
    """({cell key: why it stopped}, [disagreements]) for the cells of one driver process:
    timing rule 5a replayed on their samples in round order ("precision", "sample_cap",
    "time_cap"); cells not sampled in rounds stop after a fixed count ("fixed") or at their
    budget ("time_cap"). A cell the replay stops elsewhere than its driver did is listed."""
    spec = json.loads(Path(spec_path).read_text())
    rows_of = {}
    for row in raw_samples.cells_only(raw_samples.read(raw_path)):
        rows_of.setdefault(raw_samples.cell_key(row), []).append(row)
    named = any("implementation" in cell for cell in spec["cells"])
    by_match = {row_match(rows[0], named): key for key, rows in rows_of.items()}
    keys = [by_match.get(spec_match(cell)) for cell in spec["cells"]]
    series = [
        [r["elapsed_ns"] / r["iterations"] for r in sorted(rows_of[key], key=lambda r: r["sample"]) if r["iterations"]]
        if key is not None and in_rounds(spec, cell) else []
        for key, cell in zip(keys, spec["cells"])
    ]  # fmt: skip
    target = stopping_rule.Target.from_timing(spec["timing"])
    replayed = stopping_rule.replay(series, spec.get("pairs", []), target)
    reasons, disagree = {}, []
    for key, cell, values, (taken, reason) in zip(keys, spec["cells"], series, replayed):
        if key is None:
            continue
        status = rows_of[key][0]["status"]
        if status in raw_samples.UNTIMED:
            continue
        if not in_rounds(spec, cell):
            reasons[key] = "time_cap" if status == "timeout" else "fixed"
            continue
        reasons[key] = STOP_REASONS[reason]
        if taken != len(values):
            disagree.append(f"{key}: {len(values)} samples, the rule stops at {taken}")
    for key, rows in rows_of.items():  # rows of no spec cell of their own (transfer's sign and verify)
        if key not in reasons and rows[0]["status"] not in raw_samples.UNTIMED and not in_rounds(spec, {"operation": ""}):
            reasons[key] = "time_cap" if rows[0]["status"] == "timeout" else "fixed"
    return reasons, disagree


STOP_REASONS = {stopping_rule.PRECISION: "precision", stopping_rule.SAMPLE_CAP: "sample_cap",
                stopping_rule.EXHAUSTED: "time_cap"}  # fmt: skip


def ratios(summaries, samples, rounds, settings):
    """verify/sign per variant, and each operation's variant over HS512 (seed 001's baseline).
    Cells sampled in the same rounds of one process are paired by round (the median of the
    per-round ratios, its distribution-free CI); others (suite percall's cell-after-cell
    calls) get the ratio of medians with a bootstrap CI, each cell resampled apart."""
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
        if top_key in rounds and bottom_key in rounds:
            method = "paired by round"
            ratio, low, high = stats.paired_ratio_ci(rounds[top_key], rounds[bottom_key], settings["confidence"])
        else:
            method = "bootstrap"
            rng = stats.generator(settings["seed"], kind, *top_key, *bottom_key)
            ratio, low, high = stats.ratio_ci(
                samples[top_key], samples[bottom_key], settings["confidence"],
                settings["bootstrap_resamples"], rng,
            )  # fmt: skip
        rows.append({
            "language": language, "implementation": implementation, "suite": suite,
            "input": input_name, "kind": kind,
            "numerator": ":".join(top), "denominator": ":".join(bottom),
            "ratio": ratio, "ci_low": low, "ci_high": high, "method": method,
        })  # fmt: skip
    return rows


def drift(raw_paths, libraries=None):
    """Timing rule 5b's reference, one row per round of each benchmark process (raw file):
    its ns/op, that over the median of every round of the language in the run (`relative`:
    above 1, the machine was slower then), and where the round began in the process's
    sampling (seconds of samples before it, and in all: the rounds' place in time). Each
    row names its process's driver (driver_of_raw; its language where that is unknown)."""
    found = []
    for path in map(Path, raw_paths):
        rows = raw_samples.read(path)
        named = driver_of_raw(path, libraries or {})
        reference = [row for row in rows if row["operation"] == raw_samples.REFERENCE and row["iterations"]]
        if not reference:
            continue
        per_round = collections.Counter()
        for row in rows:  # keygen: its per-iteration cells number their iterations, not rounds
            if row["sample"] and (row["operation"] == raw_samples.REFERENCE or in_rounds({"suite": row["suite"]}, row)):
                per_round[row["sample"]] += row["elapsed_ns"]
        before, total = {}, 0
        for number in sorted(per_round):
            before[number] = total
            total += per_round[number]
        for row in sorted(reference, key=lambda r: r["sample"]):
            found.append({
                "language": row["language"], "driver": named[0] if named else row["language"],
                "suite": row["suite"], "input": path.stem, "round": row["sample"],
                "implementation": row["implementation"], "implementation_version": row["implementation_version"],
                "iterations": row["iterations"], "ns_per_op": row["elapsed_ns"] / row["iterations"],
                "seconds_before": before[row["sample"]] / 1e9, "rounds_seconds": total / 1e9,
            })  # fmt: skip
    medians = {}
    for row in found:
        medians.setdefault(row["language"], []).append(row["ns_per_op"])
    medians = {language: statistics.median(values) for language, values in medians.items()}
    for row in found:
        row["relative"] = row["ns_per_op"] / medians[row["language"]]
    return found


def rounds_by(paths, key_of):
    """({key: {round: ns/op}}, {key: its raw file}) of the ok cells, keyed as samples_by,
    of every process that sampled in rounds: one whose file has the drift reference
    (timing rule 5b), so that cells of one file sampled in the same round can be paired."""
    rounds, process = {}, {}
    for path in map(str, paths):
        rows = raw_samples.read(path)
        if not any(row["operation"] == raw_samples.REFERENCE for row in rows):
            continue
        for row in raw_samples.cells_only(rows):
            if row["status"] != "ok" or not row["iterations"] or not in_rounds({"suite": row["suite"]}, row):
                continue
            key = key_of(row)
            if key is not None and process.setdefault(key, path) == path:
                rounds.setdefault(key, {})[row["sample"]] = row["elapsed_ns"] / row["iterations"]
    return rounds, process


def process_speeds(rows):
    """{(language, driver, suite, input): the median of its rounds' relative reference
    time}: how fast the machine was while each process ran, against its language's run
    median."""
    found = {}
    for row in rows:
        process = (row["language"], row.get("driver", row["language"]), row["suite"], row["input"])
        found.setdefault(process, []).append(row["relative"])
    return {process: statistics.median(values) for process, values in found.items()}


def by_language(pairs):
    """{language: its values} from (language, value) pairs."""
    found = collections.defaultdict(list)
    for language, value in pairs:
        found[language].append(value)
    return found


def process_drift(rows):
    """The factor by which the machine's speed differed between processes: per language
    with at least two processes (one process is its own median: no drift between processes
    to see), the 95th over the 5th percentile of its process_speeds; the median of that over
    the languages, so that one runtime whose reference its JIT or collector moves (a JIT
    compiles the reference differently in each process) does not pass for the machine; 1.0
    when no language has two processes."""
    speeds = by_language((process[0], speed) for process, speed in process_speeds(rows).items())
    factors = [high / low for low, high in (np.percentile(values, [5, 95]) for values in speeds.values()
                                            if len(values) > 1)]  # fmt: skip
    return float(statistics.median(factors)) if factors else 1.0


def drift_range(rows):
    """The run's drift: per language the (5th, 95th percentile) of its rounds' relative
    reference time, and of those the median low and the median high over the languages (a
    machine that slows slows every language's reference; one runtime's own pauses do not
    make the machine's drift); None without rows."""
    found = by_language((row["language"], row["relative"]) for row in rows)
    if not found:
        return None
    ranges = [np.percentile(values, [5, 95]) for values in found.values()]
    return tuple(float(statistics.median(bound)) for bound in zip(*ranges))


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


def driver_of_raw(path, libraries):
    """(driver, library) of a raw file results/raw/<driver>/<suite>/<input>.csv, the driver
    named "<language>/<library>" from `libraries` ({driver name: its library}); None for a
    file outside results/raw/ or of a driver not in `libraries` (hand-made raw files)."""
    parts = Path(path).parts
    if len(parts) < 5 or parts[:2] != ("results", "raw"):
        return None
    name = "/".join(parts[2:-2])
    if name not in libraries:
        return None
    return f"{config_validation.language_of(name)}/{libraries[name]}", libraries[name]


def main(raw_paths, settings, summary_path, ratios_path, log, spec_paths=(), drift_path=None, libraries=None):
    """spec_paths[i] is the spec raw_paths[i] was measured from (its pairs and timing);
    without them (hand-made raw files) cells have no stop_reason and no ratio is paired.
    `libraries` ({driver name: its library}) names each cell's driver; without it (or for a
    file outside results/raw/), a cell's driver is its language/implementation."""
    source = {}
    cells = group_cells(raw_paths, source)
    reasons = {}
    for raw_path, spec_path in zip(raw_paths, spec_paths):
        found, disagree = stop_reasons(raw_path, spec_path)
        reasons.update(found)
        for line in disagree:
            print(f"warning: {raw_path}: {line} (the driver and timing rule 5a disagree)", file=log)
    summaries, samples, rounds = {}, {}, {}
    for key, rows in cells.items():
        summaries[key], samples[key] = summarise(key, rows, settings)
        row = rows[0]
        named = driver_of_raw(source[key], libraries or {})
        driver, library = named or (f"{row['language']}/{row['implementation']}", row["implementation"])
        summaries[key].update(driver=driver, library=library)
        summaries[key]["stop_reason"] = reasons.get(key, "")
        if reasons.get(key) in ("precision", "sample_cap", "time_cap") and key[2] in ROUND_SUITES:
            rounds[key] = {row["sample"]: row["elapsed_ns"] / row["iterations"] for row in rows if row["iterations"]}
    write_csv(summary_path, columns("summary.schema.yaml"), summaries.values())
    ratio_rows = ratios(summaries, samples, rounds, settings)
    write_csv(ratios_path, columns("ratios.schema.yaml"), ratio_rows)
    stopped = collections.Counter(summary["stop_reason"] for summary in summaries.values() if summary["samples"])
    print(f"{len(summaries)} cells from {len(raw_paths)} files; {len(ratio_rows)} ratios;"
          f" timed cells stopped at: {dict(stopped)}", file=log)  # fmt: skip
    if drift_path:
        rounds_of_reference = drift(raw_paths, libraries)
        write_csv(drift_path, columns("drift.schema.yaml"), rounds_of_reference)
        spread = drift_range(rounds_of_reference)
        print(f"drift reference: {len(rounds_of_reference)} rounds" + (
            f"; the run's drift (median over languages of their 5-95% range): {spread[0]:.3f}-{spread[1]:.3f}"
            if spread else ""
        ), file=log)  # fmt: skip


def run_job(job):
    with open(job.log[0], "w") as log:
        main(job.input.samples, job.params.statistics, job.output.summary, job.output.ratios, log, job.input.specs,
             job.output.drift, job.params.libraries)  # fmt: skip
