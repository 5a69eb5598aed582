"""Seed 000 reproduced: our measurements in the paper's terms, and a verdict per claim.

From the raw samples of suites jwt (on the datasets), tokensize and transfer, writes to
results/seed000/:
  rates.csv      mean time and requests per second per (language, dataset, variant,
                 operation): the paper's metrics, beside its figures in the report
  tokensize.csv  token bytes per (language, dataset, variant): records, mean, min, max
  transfer.csv   one row per transfer trial: its process, seconds, MB/s, sign and verify
                 seconds
  ratios.csv     HS512-vs-RS512 ratios per (language, dataset) with bootstrap CIs; the
                 transfer ratio's CI also covers its processes' ratios (transfer_processes)
  verdicts.csv   per claim (report/published/seed000_claims.csv), language and dataset,
                 and overall per claim and language: holds / does not hold / inconclusive

Every verdict is computed from the data, by the criteria in CLAIMS below. MB is 10^6
bytes. Ratios are taken within one language and one run, never across machines.
"""

import math
import statistics
from collections import defaultdict
from pathlib import Path

from jwtbench import cell_samples, raw_samples, result_tables, transfer_processes, variants
from jwtbench.seeds.verdict_rules import FAILS, HOLDS, OPEN, PAIRED, pairing, round_paired_cells

HMAC, RSA = "HS512", "RS512-2048"
SIGNS_AT_MOST = 10.0  # "HMAC signs up to 10x faster"
SIMILAR_WITHIN = 0.10  # "decode rates similar": HS512/RS512 within +-10%
SIZE_DIFFERENCE = 256  # "HMAC tokens 256 bytes smaller"


def read_rows(paths):
    cell_samples.check_origins(paths)  # one host's samples only
    rows = []
    for path in paths:
        process = transfer_processes.split(Path(path).stem)[1]  # suite transfer's; 1 elsewhere
        rows.extend({**row, "process": process} for row in raw_samples.cells_only(raw_samples.read(path)))
    return rows


def variant_of(row):
    return variants.name_of(row["algorithm"], row["key_bits"])


def group(rows, *fields):
    groups = defaultdict(list)
    for row in rows:
        groups[tuple(variant_of(row) if f == "variant" else row[f] for f in fields)].append(row)
    return groups


def timed(rows):
    return [row for row in rows if row["status"] in ("ok", "timeout") and row["iterations"] > 0]


# --- the paper's metrics -------------------------------------------------------------


def rates(rows, datasets):
    out = []
    cells = group(
        [r for r in rows if r["suite"] == "jwt" and r["input"] in datasets], "language", "input", "variant", "operation"
    )
    for (language, dataset, variant, operation), cell in cells.items():
        samples = timed(cell)
        entry = {
            "language": language,
            "dataset": dataset,
            "variant": variant,
            "operation": operation,
            "status": cell[0]["status"],
            "samples": len(samples),
        }
        if samples:
            mean_s = sum(r["elapsed_ns"] for r in samples) / sum(r["iterations"] for r in samples) / 1e9
            median_s = statistics.median(r["elapsed_ns"] / r["iterations"] for r in samples) / 1e9
            entry.update(
                mean_s=mean_s,
                rps=1 / mean_s,
                median_s=median_s,
                record_bytes=cell[0]["input_bytes"],
                token_bytes=cell[0]["output_bytes"],
            )
        out.append(entry)
    return out


def token_sizes(rows):
    out = []
    for (language, dataset, variant), cell in group(
        [r for r in rows if r["suite"] == "tokensize"], "language", "input", "variant"
    ).items():
        sizes = [r["output_bytes"] for r in timed(cell)]
        entry = {
            "language": language,
            "dataset": dataset,
            "variant": variant,
            "status": cell[0]["status"],
            "records": len(sizes),
        }
        if sizes:
            entry.update(
                mean_bytes=statistics.fmean(sizes),
                min_bytes=min(sizes),
                max_bytes=max(sizes),
                mean_record_bytes=statistics.fmean(r["input_bytes"] for r in timed(cell)),
            )
        out.append(entry)
    return out


def transfer_trials(rows):
    by_trial = defaultdict(dict)
    for row in timed([r for r in rows if r["suite"] == "transfer"]):
        key = (row["language"], row["input"], variant_of(row), row.get("process", 1), row["sample"])
        by_trial[key][row["operation"]] = row
    out = []
    for (language, dataset, variant, process, trial), ops in sorted(by_trial.items()):
        whole = ops.get("request-response")
        if whole is None:
            continue
        seconds = whole["elapsed_ns"] / 1e9
        out.append(
            {
                "language": language,
                "dataset": dataset,
                "variant": variant,
                "process": process,
                "trial": trial,
                "body_bytes": whole["input_bytes"],
                "token_bytes": whole["output_bytes"],
                "request_response_s": seconds,
                "mb_per_s": whole["output_bytes"] / 1e6 / seconds,
                "sign_s": ops["sign"]["elapsed_ns"] / 1e9 if "sign" in ops else "",
                "verify_s": ops["verify"]["elapsed_ns"] / 1e9 if "verify" in ops else "",
                "status": whole["status"],
            }
        )
    return out


# --- ratios and verdicts -------------------------------------------------------------


# Each ratio claim: (numerator, denominator) as (variant, measure), and what it measures.
# A measure is a jwt operation (per-sample ns/op) or "MB/s" (per transfer trial).
RATIOS = (
    (
        "sign_speed",
        (RSA, "sign"),
        (HMAC, "sign"),
        "RS512 sign time / HS512 sign time (how many times faster HMAC signs)",
    ),
    (
        "verify_speed",
        (HMAC, "verify"),
        (RSA, "verify"),
        "HS512 verify time / RS512 verify time (how many times faster RSA verifies)",
    ),
    ("decode_similar", (HMAC, "decode"), (RSA, "decode"), "HS512 decode time / RS512 decode time"),
    (
        "transfer_rate",
        (HMAC, "MB/s"),
        (RSA, "MB/s"),
        "HS512 MB/s / RS512 MB/s (median trial; the CI also covers the ratios of the processes)",
    ),
)


def measures(rows, trials):
    """{(language, dataset, variant, measure): samples} for the ratios."""
    found = {
        key: cell_samples.ns_per_op(timed(cell))
        for key, cell in group(
            [r for r in rows if r["suite"] == "jwt"], "language", "input", "variant", "operation"
        ).items()
    }
    for trial in trials:
        found.setdefault((trial["language"], trial["dataset"], trial["variant"], "MB/s"), []).append(trial["mb_per_s"])
    return found


def jwt_key(row):
    """A jwt row's measure key, as measures() keys its samples."""
    if row["suite"] != "jwt":
        return None
    return row["language"], row["input"], variant_of(row), row["operation"]


def process_measures(trials):
    """{((language, dataset, variant, "MB/s"), process): MB/s of its trials}."""
    found = defaultdict(list)
    for trial in trials:
        found[(trial["language"], trial["dataset"], trial["variant"], "MB/s"), trial["process"]].append(
            trial["mb_per_s"]
        )
    return found


def ratios(rows, trials, languages, datasets, settings, raw_paths):
    """Each claim's ratio per language and dataset: paired by round for the per-record
    operations (one process samples both algorithms in the same rounds); for the transfer
    trials, whose two algorithms no process pairs, the pooled trials' ratio of medians
    (its CI widened by the drift between processes, verdict_rules), the CI then widened to
    cover the ratios of the transfer's processes (transfer_processes.widen)."""
    cells = round_paired_cells(raw_paths, jwt_key, measures(rows, trials), settings, "seed000")
    by_process = process_measures(trials)
    out = []
    for language in languages:
        for dataset in datasets:
            for claim, top, bottom, what in RATIOS:
                numerator, denominator = (language, dataset, *top), (language, dataset, *bottom)
                if numerator not in cells or denominator not in cells:
                    continue
                ratio, low, high, method = cells.derived((numerator, denominator), lambda a, b: a / b)
                row = {
                    "claim": claim,
                    "language": language,
                    "dataset": dataset,
                    "ratio": ratio,
                    "ci_low": low,
                    "ci_high": high,
                    "pairing": method,
                    "what": what,
                }
                if top[1] == "MB/s":  # transfer: the CI covers its processes too
                    each = transfer_processes.process_ratios(by_process, numerator, denominator)
                    _, wide_low, wide_high, how, listed = transfer_processes.widen(
                        (ratio, low, high), each, settings["confidence"]
                    )
                    row.update(
                        ci_low=wide_low,
                        ci_high=wide_high,
                        pairing=f"{method} + {how}",
                        processes=listed,
                        pooled=(low, high),
                    )
                out.append(row)
    return out


def judge_ratio(claim, low, high):
    """(verdict, reason) of a ratio's CI against the claim's criterion."""
    if claim == "sign_speed":
        if low > 1 and high <= SIGNS_AT_MOST:
            return HOLDS, f"HMAC faster, by at most {SIGNS_AT_MOST:g}x"
        if high < 1:
            return FAILS, "RSA signs faster"
        if low > SIGNS_AT_MOST:
            return FAILS, f"HMAC faster by more than the claimed {SIGNS_AT_MOST:g}x"
        return OPEN, f"CI overlaps 1 or {SIGNS_AT_MOST:g}"
    if claim in ("verify_speed", "transfer_rate"):
        faster = "RSA verifies" if claim == "verify_speed" else "HMAC transfers"
        if low > 1:
            return HOLDS, f"{faster} faster"
        if high < 1:
            return FAILS, f"{'HMAC verifies' if claim == 'verify_speed' else 'RSA transfers'} faster"
        return OPEN, "CI overlaps 1"
    if claim == "decode_similar":
        band = (1 / (1 + SIMILAR_WITHIN), 1 + SIMILAR_WITHIN)
        if band[0] <= low and high <= band[1]:
            return HOLDS, f"within +-{SIMILAR_WITHIN:.0%}"
        if high < band[0] or low > band[1]:
            return FAILS, f"differ by more than {SIMILAR_WITHIN:.0%}"
        return OPEN, f"CI crosses the +-{SIMILAR_WITHIN:.0%} band"
    raise ValueError(claim)


def size_verdicts(rows, languages, datasets):
    """Token size: RS512-2048 minus HS512, record by record, from the measured sizes."""
    sizes = {
        (r["language"], r["input"], variant_of(r), r["sample"]): r["output_bytes"]
        for r in timed([r for r in rows if r["suite"] == "tokensize"])
    }
    out = []
    for language in languages:
        for dataset in datasets:
            records = sorted(s for (lang, ds, v, s) in sizes if (lang, ds, v) == (language, dataset, HMAC))
            differences = [
                sizes[language, dataset, RSA, s] - sizes[language, dataset, HMAC, s]
                for s in records
                if (language, dataset, RSA, s) in sizes
            ]
            if not differences:
                continue
            low, high = min(differences), max(differences)
            mean = statistics.fmean(differences)
            exact = low == high == SIZE_DIFFERENCE
            out.append(
                {
                    "claim": "token_size",
                    "language": language,
                    "dataset": dataset,
                    "records": len(differences),
                    "verdict": HOLDS if exact else FAILS,
                    "ratio": mean,
                    "ci_low": low,
                    "ci_high": high,
                    "reason": (
                        f"RS512-2048 tokens are {SIZE_DIFFERENCE} bytes longer on all {len(differences)} records signed"
                        if exact
                        else f"differences range {low}..{high} bytes over {len(differences)} records"
                    ),
                    "what": "RS512-2048 token bytes - HS512 token bytes per record (mean; min and max as the interval)",
                }
            )
    return out


def judge_row(row):
    """(verdict, reason) of a ratio row: judge_ratio, except that a transfer ratio from one
    process stays inconclusive (its CI cannot show what varies between processes, and two
    runs' single processes have disagreed beyond their CIs)."""
    verdict, reason = judge_ratio(row["claim"], row["ci_low"], row["ci_high"])
    if row["claim"] == "transfer_rate" and transfer_processes.NOT_MEASURED in row.get("pairing", ""):
        return OPEN, f"{transfer_processes.NOT_MEASURED} (would read: {verdict}; suites.transfer.processes)"
    if row.get("processes"):
        alone = judge_ratio(row["claim"], *row["pooled"])[0]
        if alone != verdict:
            reason += f": the processes' ratios disagree ({row['processes']}; their pooled trials alone: {alone})"
        else:
            reason += f" (processes: {row['processes']})"
    return verdict, reason


def pooled(rows):
    """(ratio, CI low, CI high) of the datasets' ratios taken together: their geometric
    mean, its CI combining theirs as independent estimates (each dataset is its own
    benchmark process), on the log scale: each side's half-width is the root of the sum
    of the datasets' squared half-widths over their number."""
    logs = [math.log(r["ratio"]) for r in rows]
    middle = statistics.fmean(logs)
    below = math.sqrt(sum((value - math.log(r["ci_low"])) ** 2 for value, r in zip(logs, rows))) / len(rows)
    above = math.sqrt(sum((math.log(r["ci_high"]) - value) ** 2 for value, r in zip(logs, rows))) / len(rows)
    return math.exp(middle), math.exp(middle - below), math.exp(middle + above)


def overall_ratio(claim, rows):
    """(verdict, ratio, CI low, CI high, reason) of a ratio claim over every dataset. A
    ratio paired by round in each dataset's process: the pooled ratio's CI judged
    (judge_ratio), unless the datasets' own verdicts conflict (holds on one, does not hold
    on another). Any other (transfer: medians of processes, whose ratios have moved between
    runs beyond their CIs): the datasets' verdict when they agree, else inconclusive, with
    the datasets' range as its interval."""
    spread = f"datasets {min(r['ratio'] for r in rows):.3g}-{max(r['ratio'] for r in rows):.3g}"
    decided = {r["verdict"] for r in rows} - {OPEN}
    if any(r["pairing"] != PAIRED for r in rows):
        found = {r["verdict"] for r in rows}
        verdict = found.pop() if len(found) == 1 else OPEN
        reason = rows[0]["reason"] if verdict != OPEN or len(rows) == 1 else "differs between datasets"
        low, high = min(r["ratio"] for r in rows), max(r["ratio"] for r in rows)
        return verdict, pooled(rows)[0], low, high, f"{reason}; each dataset judged alone ({spread})"
    ratio, low, high = pooled(rows)
    verdict, reason = judge_ratio(claim, low, high)
    if len(decided) > 1 or (verdict != OPEN and decided - {verdict}):
        return OPEN, ratio, low, high, f"differs between datasets ({spread})"
    return verdict, ratio, low, high, f"{reason}, the datasets pooled ({spread})"


def verdicts(ratio_rows, size_rows):
    detail = []
    for row in ratio_rows:
        verdict, reason = judge_row(row)
        detail.append({**row, "verdict": verdict, "reason": reason})
    detail += size_rows
    overall = []
    for (claim, language), rows in group(detail, "claim", "language").items():
        if claim == "token_size":
            found = {r["verdict"] for r in rows}
            verdict = found.pop() if len(found) == 1 else OPEN
            ratio, low, high = (
                statistics.fmean(r["ratio"] for r in rows),
                min(r["ci_low"] for r in rows),
                max(r["ci_high"] for r in rows),
            )
            reason = size_reason(rows) if len(rows) > 1 else rows[0]["reason"]
            what = rows[0]["what"] + "; overall: mean over the datasets, their smallest and largest difference"
        else:
            verdict, ratio, low, high, reason = overall_ratio(claim, rows)
            what = (
                rows[0]["what"]
                + "; overall: the datasets' geometric mean, with their pooled CI (paired by round) or range"
            )
        overall.append(
            {
                "claim": claim,
                "language": language,
                "dataset": "all",
                "verdict": verdict,
                "ratio": ratio,
                "ci_low": low,
                "ci_high": high,
                "pairing": pairing([(*[None] * 5, r["pairing"]) for r in rows if r.get("pairing")]),
                "reason": reason,
                "what": what,
            }
        )
    return detail + overall


def size_reason(rows):
    """The token-size verdict over several datasets, counting every record signed."""
    records = sum(r["records"] for r in rows)
    if all(r["verdict"] == HOLDS for r in rows):
        return (
            f"RS512-2048 tokens are {SIZE_DIFFERENCE} bytes longer"
            f" on all {records:,} records signed in {len(rows)} datasets"
        )
    return f"not {SIZE_DIFFERENCE} bytes on every record: " + "; ".join(
        r["reason"] for r in rows if r["verdict"] != HOLDS
    )


COLUMNS = result_tables.family_columns("seed000.schema.yaml")


def write(path, name, rows):
    # Rows carry working values beside their columns (a size verdict's records, a transfer
    # ratio's pooled CI): only the columns are written.
    result_tables.write_csv(path, COLUMNS[name], rows, extra="ignore")


def main(raw_paths, languages, datasets, settings, outputs, log):
    rows = read_rows(raw_paths)
    trials = transfer_trials(rows)
    ratio_rows = ratios(rows, trials, languages, datasets, settings, raw_paths)
    tables = {
        "rates": rates(rows, datasets),
        "tokensize": token_sizes(rows),
        "transfer": trials,
        "ratios": ratio_rows,
        "verdicts": verdicts(ratio_rows, size_verdicts(rows, languages, datasets)),
    }
    for name, table in tables.items():
        write(outputs[name], name, table)
        print(f"{outputs[name]}: {len(table)} rows", file=log)
    for row in tables["verdicts"]:
        if row["dataset"] == "all":
            print(f"{row['claim']} ({row['language']}): {row['verdict']}, {row['reason']}", file=log)


def run_job(job):
    outputs = {name: getattr(job.output, name) for name in COLUMNS}
    with open(job.log[0], "w") as log:
        main(job.input.samples, job.params.languages, job.params.datasets, job.params.statistics, outputs, log)
