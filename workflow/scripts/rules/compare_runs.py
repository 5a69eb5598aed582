"""Compare two runs of one host from their bundles (config compare.bundles: [A, B]).

Writes, into one directory (results/compare/):
  cells.csv     every cell of either run's raw samples: ratio of medians B/A with a
                bootstrap CI (each run's samples resampled independently, seeded), and
                whether the CI excludes 1 by more than compare.threshold (flagged)
  verdicts.csv  every seed verdict of A and B joined on the claim's identifying columns,
                with both verdicts and both CIs, differing ones marked
  runs.csv      the two runs' provenance facts side by side (fact, a, b)
  compare.json  the bundles, host, threshold and statistics settings used
report/compare.qmd renders them (rule render_compare).

Both bundles are verified first (bundles.py); a bundle that does not match its manifest,
or two bundles of different hosts, is refused with an error naming the config key.
"""

import contextlib
import csv
import json
from pathlib import Path

import numpy as np

from jwtbench import cell_samples, raw_samples, result_tables, variants
from jwtbench import sample_statistics as stats
from jwtbench.rules import bundles

RUNS = ("a", "b")

# Verdict columns that are measured or explained rather than identifying the claim: two
# runs' rows of one claim differ in them (`processes`: seed 000's per-process transfer ratios).
VERDICT_MEASURES = (
    "verdict",
    "ratio",
    "ratio_min",
    "ratio_max",
    "ci_low",
    "ci_high",
    "comparisons",
    "pairing",
    "reason",
    "what",
    "processes",
)
VERDICT_FIGURES = ("verdict", "ratio", "ratio_min", "ratio_max", "ci_low", "ci_high")

CELL_COLUMNS = result_tables.columns("compare.schema.yaml", "cells")


class CompareError(Exception):
    pass


@contextlib.contextmanager
def open_bundles(paths, key):
    """Verified bundle directories and manifests of `paths` (config key `key`), in order;
    CompareError naming the key's item and the offending file otherwise."""
    with contextlib.ExitStack() as stack:
        opened = []
        for index, path in enumerate(paths):
            try:
                directory = stack.enter_context(bundles.open_bundle(path))
                manifest = bundles.read_manifest(directory, str(path))
            except bundles.BundleError as error:
                raise CompareError(f"config key '{key}[{index}]' ({path}): bundle refused: {error}") from None
            opened.append((directory, manifest))
        yield opened


# ---- cells ----------------------------------------------------------------------------


def raw_files(directory):
    return sorted((Path(directory) / "raw").rglob("*.csv"))


def run_cells(directory):
    """{cell key: rows} of a bundle's raw samples (timed suites)."""
    return cell_samples.group_cells(raw_files(directory))


def cell_status(rows):
    return rows[0]["status"] if rows else ""


def compare_cells(cells_a, cells_b, settings, threshold):
    """One row per cell of A or B, in A's order then B's new cells."""
    rows = []
    for key in list(dict.fromkeys([*cells_a, *cells_b])):
        rows_a, rows_b = cells_a.get(key, []), cells_b.get(key, [])
        first = (rows_a or rows_b)[0]
        values_a = cell_samples.ns_per_op(rows_a) if cell_status(rows_a) == "ok" else []
        values_b = cell_samples.ns_per_op(rows_b) if cell_status(rows_b) == "ok" else []
        row = {
            name: first[name]
            for name in ("language", "implementation", "suite", "operation", "algorithm", "key_bits", "input")
        }
        row.update(
            variant=variants.name_of(first["algorithm"], first["key_bits"]),
            presence="both" if rows_a and rows_b else "only in A" if rows_a else "only in B",
            status_a=cell_status(rows_a),
            status_b=cell_status(rows_b),
            samples_a=len(values_a),
            samples_b=len(values_b),
            median_a_ns=float(np.median(values_a)) if values_a else "",
            median_b_ns=float(np.median(values_b)) if values_b else "",
            ratio="",
            ci_low="",
            ci_high="",
            change="",
            flagged=False,
        )
        if values_a and values_b:
            rng = stats.generator(settings["seed"], "compare", *key)
            ratio, low, high = stats.ratio_ci(
                values_b, values_a, settings["confidence"], settings["bootstrap_resamples"], rng
            )
            row.update(ratio=ratio, ci_low=low, ci_high=high)
            if low > 1 + threshold:
                row.update(change="slower", flagged=True)
            elif high < 1 / (1 + threshold):
                row.update(change="faster", flagged=True)
            else:
                row.update(change="within threshold")
        elif row["presence"] == "both":
            row.update(change="not timed in both")
        rows.append(row)
    return rows


# ---- verdicts ---------------------------------------------------------------------------


def read_verdicts(directory):
    """{(seed, identifying (column, value) pairs): row} of every seeds/*/verdicts.csv, and
    the identifying columns in the order they appear."""
    found, id_columns = {}, []
    for path in sorted((Path(directory) / "seeds").glob("*/verdicts.csv")):
        seed = path.parent.name
        with open(path, newline="") as handle:
            reader = csv.DictReader(handle)
            if "verdict" not in (reader.fieldnames or []) or "claim" not in reader.fieldnames:
                raise CompareError(f"{path}:1: a verdicts file needs the columns claim and verdict")
            ids = [name for name in reader.fieldnames if name not in VERDICT_MEASURES]
            id_columns.extend(name for name in ids if name not in id_columns)
            for line, row in enumerate(reader, start=2):
                key = (seed, tuple((name, row[name]) for name in ids))
                if key in found:
                    raise CompareError(f"{path}:{line}: claim {dict(key[1])} appears twice")
                found[key] = row
    return found, id_columns


def compare_verdicts(verdicts_a, verdicts_b, id_columns):
    rows = []
    for key in list(dict.fromkeys([*verdicts_a, *verdicts_b])):
        seed, ids = key
        row_a, row_b = verdicts_a.get(key), verdicts_b.get(key)
        row = {"seed": seed, **{name: "" for name in id_columns}, **dict(ids)}
        row["what"] = (row_a or row_b).get("what", "")
        for run, found in zip(RUNS, (row_a, row_b)):
            for name in VERDICT_FIGURES:
                row[f"{name}_{run}"] = (found or {}).get(name, "")
        row["presence"] = "both" if row_a and row_b else "only in A" if row_a else "only in B"
        row["differs"] = row["presence"] != "both" or row_a["verdict"] != row_b["verdict"]
        rows.append(row)
    # Differences first, each group in the files' order.
    return sorted(rows, key=lambda row: not row["differs"])


def verdict_columns(id_columns):
    return result_tables.columns("compare.schema.yaml", "verdicts", claim_columns=id_columns)


# ---- provenance -------------------------------------------------------------------------


def dig(record, *keys):
    for key in keys:
        if not isinstance(record, dict) or key not in record:
            return ""
        record = record[key]
    return record


def run_facts(directory, manifest, path):
    """[(fact, value)] of one bundle: which run, where, with what."""
    provenance = json.loads((Path(directory) / "provenance.json").read_text())
    run, host, engine = provenance.get("run", {}), provenance.get("host", {}), provenance.get("engine", {})
    git = run.get("git", {})
    facts = [
        ("bundle", str(path)),
        ("host_id", manifest["host_id"]),
        ("run_id", manifest["run_id"]),
        ("started", run.get("started", "")),
        ("ended", run.get("ended", "")),
        ("git commit", f"{git.get('commit', '')}{' (dirty)' if git.get('dirty') else ''}"),
        ("config sha256", run.get("config_sha256", "")),
        ("execution", f"{run.get('execution_mode', '')}, CPUs {run.get('cpus', '')}"),
        ("engine", " ".join(str(v) for v in (engine.get("name", ""), engine.get("version", "")) if v)),
        ("CPU", f"{host.get('cpu_model', '')} ({host.get('cores', '')} cores)"),
        ("kernel", host.get("kernel", "")),
        ("OS", host.get("os", "")),
        ("drift", drift_fact(raw_files(directory))),
    ]
    for name, tool in sorted(provenance.get("tools", {}).items()):
        facts.append((f"tool {name}", tool))
    for name, language in sorted(provenance.get("languages", {}).items()):
        facts.append((f"{name} runtime", f"{language.get('runtime', '')} {language.get('runtime_version', '')}"))
        facts.append(
            (f"{name} library", f"{language.get('implementation', '')} {language.get('implementation_version', '')}")
        )
    for name, image in sorted(provenance.get("images", {}).items()):
        if isinstance(image, dict):
            facts.append(
                (f"image {name}", f"{image.get('tag') or image.get('image', '')} id {str(image.get('id', ''))[:12]}")
            )
    return facts


def drift_fact(paths):
    """The run's drift (the drift reference's rounds) from its raw files, as
    cell_samples.drift_range (per language the middle 90% of the reference's rounds against
    its median, the median over languages), and that spread in percent."""
    rows = cell_samples.drift(paths)
    spread = cell_samples.drift_range(rows)
    if spread is None:
        return "not measured (no drift reference in the raw files)"
    low, high = spread
    return f"{100 * (high - low):.1f}% (5-95% of {len(rows)} rounds at {low:.3f}-{high:.3f} of the median, by language)"


def flips(verdicts):
    """The claims one run says hold and the other says do not hold."""
    decided = {"holds", "does not hold"}
    return [row for row in verdicts if {row["verdict_a"], row["verdict_b"]} == decided]


def side_by_side(facts_a, facts_b):
    names = list(dict.fromkeys([name for name, _ in facts_a] + [name for name, _ in facts_b]))
    a, b = dict(facts_a), dict(facts_b)
    return [
        {"fact": name, "a": a.get(name, ""), "b": b.get(name, ""), "same": a.get(name, "") == b.get(name, "")}
        for name in names
    ]


# ---- the job ------------------------------------------------------------------------------


def main(paths, settings, threshold, out_dir, log):
    if len(paths) != 2:
        raise CompareError(
            f"config key 'compare.bundles' needs exactly two bundles (A, B), got {len(paths)}: "
            f"--config 'compare={{bundles: [A, B]}}'"
        )
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    with open_bundles(paths, "compare.bundles") as opened:
        (dir_a, manifest_a), (dir_b, manifest_b) = opened
        if manifest_a["host_id"] != manifest_b["host_id"]:
            raise CompareError(
                f"config key 'compare.bundles': A ({paths[0]}) is from host {manifest_a['host_id']}, "
                f"B ({paths[1]}) from host {manifest_b['host_id']}: absolute times of different hosts are "
                f"not comparable; put them side by side with the merge target (config key 'merge.bundles')"
            )
        try:
            cells = compare_cells(run_cells(dir_a), run_cells(dir_b), settings, threshold)
        except raw_samples.RawSamplesError as error:
            raise CompareError(f"config key 'compare.bundles': {error}") from None
        verdicts_a, ids_a = read_verdicts(dir_a)
        verdicts_b, ids_b = read_verdicts(dir_b)
        id_columns = list(dict.fromkeys(ids_a + ids_b))
        verdicts = compare_verdicts(verdicts_a, verdicts_b, id_columns)
        runs = side_by_side(run_facts(dir_a, manifest_a, paths[0]), run_facts(dir_b, manifest_b, paths[1]))
    result_tables.write_csv(out_dir / "cells.csv", CELL_COLUMNS, cells)
    result_tables.write_csv(out_dir / "verdicts.csv", verdict_columns(id_columns), verdicts)
    result_tables.write_csv(out_dir / "runs.csv", result_tables.columns("compare.schema.yaml", "runs"), runs)
    flipped = len(flips(verdicts))
    settings_used = {
        "bundles": {"a": str(paths[0]), "b": str(paths[1])},
        "host_id": manifest_a["host_id"],
        "run_ids": {"a": manifest_a["run_id"], "b": manifest_b["run_id"]},
        "flips": flipped,
        "threshold": threshold,
        "confidence": settings["confidence"],
        "bootstrap_resamples": settings["bootstrap_resamples"],
        "seed": settings["seed"],
    }
    (out_dir / "compare.json").write_text(json.dumps(settings_used, indent=2) + "\n")
    flagged = sum(1 for row in cells if row["flagged"])
    differing = sum(1 for row in verdicts if row["differs"])
    print(
        f"A {manifest_a['run_id']}, B {manifest_b['run_id']} (host {manifest_a['host_id']}): "
        f"{len(cells)} cells, {flagged} flagged (threshold {threshold}); "
        f"{len(verdicts)} verdicts, {differing} differ, {flipped} flip between holds and"
        f" does not hold",
        file=log,
    )
    return cells, verdicts


def run_job(job):
    with open(job.log[0], "w") as log:
        try:
            main(job.params.bundles, job.params.statistics, job.params.threshold, Path(job.output.cells).parent, log)
        except CompareError as error:
            print(f"error: {error}", file=log)
            raise
