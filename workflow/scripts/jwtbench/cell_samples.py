"""Raw samples grouped into cells, and the drift reference's rounds.

A cell is one (language, implementation, suite, operation, algorithm, key size, input) of a
run; its rows come from one host and one image, never pooled across them. Used by
aggregation, the seeds' analyses and the comparison of runs.
"""

import collections
import json
import statistics
from pathlib import Path

import numpy as np

from jwtbench import config_validation, raw_samples, registry
from jwtbench import sample_statistics as stats

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


def in_rounds_suite(suite):
    """Whether the drivers sample `suite`'s cells in interleaved rounds (the registry's
    `rounds`, workflow/suites.yaml)."""
    return registry.load().suites[suite].rounds


def in_rounds(spec, cell):
    """Whether a cell was sampled in rounds: keygen only for its sign and verify cells,
    primitive not for openssl speed's own runs."""
    if spec["suite"] == "keygen":
        return cell["operation"] in ("sign", "verify")
    return in_rounds_suite(spec["suite"]) and "openssl" not in spec


def drift(raw_paths, libraries=None):
    """The drift reference, one row per round of each benchmark process (raw file):
    its ns/op, that over the median of every round of the language in the run (`relative`:
    above 1, the machine was slower then), and where the round began in the process's
    sampling (seconds of samples before it, and in all: the rounds' place in time). Each
    row names its process's driver (driver_of_raw; its language where that is unknown). A
    process's first rounds in which the reference was still warming up (reference_warmup)
    are not the machine's drift and are left out."""
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
        for row in reference_warmup(reference):
            reference.remove(row)
        for row in sorted(reference, key=lambda r: r["sample"]):
            found.append(
                {
                    "language": row["language"],
                    "driver": named[0] if named else row["language"],
                    "suite": row["suite"],
                    "input": path.stem,
                    "round": row["sample"],
                    "implementation": row["implementation"],
                    "implementation_version": row["implementation_version"],
                    "iterations": row["iterations"],
                    "ns_per_op": row["elapsed_ns"] / row["iterations"],
                    "seconds_before": before[row["sample"]] / 1e9,
                    "rounds_seconds": total / 1e9,
                }
            )
    medians = {}
    for row in found:
        medians.setdefault(row["language"], []).append(row["ns_per_op"])
    medians = {language: statistics.median(values) for language, values in medians.items()}
    for row in found:
        row["relative"] = row["ns_per_op"] / medians[row["language"]]
    return found


# A process's first rounds whose reference took this many times its own median or more are
# the reference still warming up (a JIT compiling the hash: java's read 5-16 times its median
# in its first rounds on 2026-11-28), not the machine: the drift leaves them out.
WARMUP_FACTOR = 1.5


def reference_warmup(reference):
    """The leading rounds of one process's reference rows (in round order) that are its own
    warm-up: each at WARMUP_FACTOR times the process's median or more, up to the first that
    is not."""
    ordered = sorted(reference, key=lambda r: r["sample"])
    middle = statistics.median(r["elapsed_ns"] / r["iterations"] for r in ordered)
    warming = []
    for row in ordered:
        if row["elapsed_ns"] / row["iterations"] < WARMUP_FACTOR * middle:
            break
        warming.append(row)
    return warming


# Cells sampled in rounds: {key: {round: ns/op}}, {key: its raw file}, {key: {round: its
# worker}} and {key: its language}.
RoundSeries = collections.namedtuple("RoundSeries", "rounds process workers language")


def rounds_by(paths, key_of):
    """RoundSeries of the ok cells, keyed as samples_by, of every process that sampled in
    rounds: one whose file has the drift reference, so that cells of one file sampled in
    the same round can be paired (and a round's worker is the same for every cell of it)."""
    found = RoundSeries({}, {}, {}, {})
    for path in map(str, paths):
        rows = raw_samples.read(path)
        if not any(row["operation"] == raw_samples.REFERENCE for row in rows):
            continue
        for row in raw_samples.cells_only(rows):
            if row["status"] != "ok" or not row["iterations"] or not in_rounds({"suite": row["suite"]}, row):
                continue
            key = key_of(row)
            if key is not None and found.process.setdefault(key, path) == path:
                found.rounds.setdefault(key, {})[row["sample"]] = row["elapsed_ns"] / row["iterations"]
                found.workers.setdefault(key, {})[row["sample"]] = row["worker"]
                found.language[key] = row["language"]
    return found


def cell_spreads(series):
    """{key: its worker spread} (sample_statistics.worker_spread) of the cells of a
    RoundSeries whose rounds two workers took."""
    found = {}
    for key, values in series.rounds.items():
        spread = stats.worker_spread(values, series.workers[key])
        if spread is not None:
            found[key] = spread
    return found


def language_spreads(spreads, language):
    """{language: the median of its cells' worker spreads}, from cell_spreads and {key: its
    language}; a language none of whose jobs had two workers is absent."""
    found = by_language((language[key], spread) for key, spread in spreads.items())
    return {name: float(statistics.median(values)) for name, values in found.items()}


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
    factors = [
        high / low for low, high in (np.percentile(values, [5, 95]) for values in speeds.values() if len(values) > 1)
    ]
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
