"""Seed 004 reproduced: RSA against ECDSA with key generation, by NIST security level.

From the raw samples of suite keygen, writes to results/seed004/:
  runs.csv        per (language, implementation, key, operation, message): status, timed
                  iterations, median and mean ms per iteration (the seed printed the mean)
                  with the median's CI; a timeout cell's time spent
  decomposed.csv  per (language, implementation, key, message): the seed's combined
                  figure beside key generation, sign and verify timed apart, and the
                  share of key generation
  verdicts.csv    per (claim, language, implementation), as verdict_rules.py judges them

The claims are report/published/seed004_claims.csv:
  ecdsa_673x_faster            RSA-3072 / P-256, keygen+sign+verify, averaged over the
                               message sizes as the seed did: about its 672.7x (within a
                               factor 1.25)
  rsa_grows_steeply_ecdsa_barely  (RSA-3072 / RSA-2048) / (P-384 / P-256) at each message
                               size, the key-size steps the seed measured: above 1
  message_size_barely_matters  1000-byte / 10-byte time of each key: similar (within 10%)
"""

import statistics

from jwtbench import cell_samples, result_tables
from jwtbench.seeds.verdict_rules import RoundPairedCells, about, above, judge_claim, round_paired_cells, similar

COMBINED = "keygen+sign+verify"
SEED_ECDSA_SPEEDUP = 672.7
SHORT, LONG = "msg-10", "msg-1000"


def key_of(row):
    if row["suite"] != "keygen":
        return None
    family = "RSA" if row["algorithm"].startswith("RSA") else "ECDSA"
    return (row["language"], row["implementation"], family, row["key_bits"], row["operation"], row["input"])


class ComposedCells(RoundPairedCells):
    """Cells plus the seed's combined figure where it was not timed as one: key generation
    does not depend on the message, so keygen+sign+verify of a key and message is composed
    from the key's keygen cell and that message's sign and verify cells (medians added;
    its CI from their bootstrap medians added draw by draw)."""

    def parts(self, key):
        language, implementation, family, bits, operation, message = key
        if operation != COMBINED or key in self.samples:
            return None
        made = [(language, implementation, family, bits, "keygen", "keypair")]
        made += [(language, implementation, family, bits, part, message) for part in ("sign", "verify")]
        return made if all(super(ComposedCells, self).__contains__(part) for part in made) else None

    def __contains__(self, key):
        return super().__contains__(key) or self.parts(key) is not None

    def median(self, key):
        parts = self.parts(key)
        return sum(map(self.median, parts)) if parts else super().median(key)

    def medians(self, key):
        parts = self.parts(key)
        return sum(map(self.medians, parts)) if parts else super().medians(key)


def with_composed(first):
    """`first` plus a combined key per key and message whose sign cell was timed, with the
    sign cell's row standing for it (the report lists it as composed)."""
    made = dict(first)
    for key, row in first.items():
        if key[4] == "sign":
            combined = (*key[:4], COMBINED, key[5])
            made.setdefault(combined, {**row, "operation": COMBINED, "composed": True})
    return made


def run_rows(cells, first, rows_by_cell):
    out = []
    for key, row in first.items():
        language, implementation, family, bits, operation, message = key
        entry = {
            "language": language,
            "implementation": implementation,
            "implementation_version": row["implementation_version"],
            "family": family,
            "key_bits": bits,
            "algorithm": row["algorithm"],
            "operation": operation,
            "input": message,
            "message_bytes": row["input_bytes"],
            "status": row["status"],
            "source": "composed" if row.get("composed") else "timed",
        }
        if row.get("composed"):
            if key not in cells:
                # The key's generation ran out of budget (or failed): the composed figure
                # takes its status and time, never silently fewer iterations.
                keygen = (*key[:4], "keygen", "keypair")
                if keygen in first and first[keygen]["status"] != "ok":
                    timed = rows_by_cell.get(keygen, [])
                    entry.update(
                        status=first[keygen]["status"],
                        iterations=sum(r["iterations"] for r in timed),
                        seconds_spent=sum(r["elapsed_ns"] for r in timed) / 1e9,
                    )
                    out.append(entry)
                continue
            parts = cells.parts(key)
            entry["status"] = "ok"
            entry["iterations"] = min(len(cells.samples[part]) for part in parts)
            low, high = cells.interval(cells.medians(key))
            entry.update(median_ms=cells.median(key) / 1e6, ci_low_ms=low / 1e6, ci_high_ms=high / 1e6)
            out.append(entry)
            continue
        timed = rows_by_cell.get(key, [])
        if row["status"] == "timeout":
            entry["seconds_spent"] = sum(r["elapsed_ns"] for r in timed) / 1e9
            entry["iterations"] = sum(r["iterations"] for r in timed)
        if key in cells.samples:  # timed as one and ok (a timed-out one is composed in `cells`)
            values = cells.samples[key]
            low, high = cells.interval(cells.medians(key))
            entry.update(
                iterations=len(values),
                median_ms=cells.median(key) / 1e6,
                mean_ms=statistics.fmean(values) / 1e6,
                ci_low_ms=low / 1e6,
                ci_high_ms=high / 1e6,
            )
        out.append(entry)
    return out


def decomposed_rows(cells, first):
    out = []
    for key in first:
        language, implementation, family, bits, operation, message = key
        if operation != COMBINED:
            continue
        parts = {
            "combined": key,
            "keygen": (language, implementation, family, bits, "keygen", "keypair"),
            "sign": (language, implementation, family, bits, "sign", message),
            "verify": (language, implementation, family, bits, "verify", message),
        }
        entry = {
            "language": language,
            "implementation": implementation,
            "family": family,
            "key_bits": bits,
            "input": message,
        }
        for name, part in parts.items():
            if part in cells:
                entry[f"{name}_ms"] = cells.median(part) / 1e6
        entry["combined_source"] = "composed" if cells.parts(key) else "timed"
        if all(f"{name}_ms" in entry for name in parts):
            entry["parts_sum_ms"] = entry["keygen_ms"] + entry["sign_ms"] + entry["verify_ms"]
            entry["keygen_share"] = entry["keygen_ms"] / entry["parts_sum_ms"]
        out.append(entry)
    return out


def mean_ratio(cells, pairs, label):
    """[(verdict, ratio, low, high, label, method)]: the mean over `pairs` of top / bottom
    (the seed averaged its three message sizes' ratios), about the seed's 672.7x."""
    pairs = [(top, bottom) for top, bottom in pairs if top in cells and bottom in cells]
    if not pairs:
        return []

    def mean_of_ratios(*figures):
        return sum(top / bottom for top, bottom in zip(figures[::2], figures[1::2])) / len(pairs)

    ratio, low, high, method = cells.derived([key for pair in pairs for key in pair], mean_of_ratios)
    return [(about(low, high, SEED_ECDSA_SPEEDUP), float(ratio), low, high, label, method)]


def growth_over_growth(cells, steep, flat, label):
    """[(verdict, ratio, low, high, label, method)] of (steep[0] / steep[1]) / (flat[0] / flat[1])."""
    if not all(key in cells for key in (*steep, *flat)):
        return []
    ratio, low, high, method = cells.derived((*steep, *flat), lambda a, b, c, d: (a / b) / (c / d))
    return [(above(low, high), float(ratio), low, high, label, method)]


def claim_parts(cells, first, language, implementation, messages):
    def cell(family, bits, message, operation=COMBINED):
        return (language, implementation, family, bits, operation, message)

    speedup = mean_ratio(
        cells,
        [(cell("RSA", 3072, m), cell("ECDSA", 256, m)) for m in messages],
        "RSA-3072 / P-256, mean over " + ", ".join(messages),
    )
    growth = []
    for m in messages:
        growth += growth_over_growth(
            cells,
            (cell("RSA", 3072, m), cell("RSA", 2048, m)),
            (cell("ECDSA", 384, m), cell("ECDSA", 256, m)),
            f"{m}: (RSA-3072 / RSA-2048) / (P-384 / P-256)",
        )
    keys = sorted({(key[2], key[3]) for key in first if key[:2] == (language, implementation)})
    size = []
    if SHORT in messages and LONG in messages:
        size = cells.compare(
            [(cell(f, b, LONG), cell(f, b, SHORT), f"{f}-{b}: {LONG} / {SHORT}") for f, b in keys], similar
        )
    return {"ecdsa_673x_faster": speedup, "rsa_grows_steeply_ecdsa_barely": growth, "message_size_barely_matters": size}


WHAT = {
    "ecdsa_673x_faster": (
        f"RSA-3072 / P-256 keygen+sign+verify time, mean over the message sizes; about "
        f"{SEED_ECDSA_SPEEDUP}x (within a factor 1.25)"
    ),
    "rsa_grows_steeply_ecdsa_barely": "(RSA-3072 / RSA-2048) / (P-384 / P-256) keygen+sign+verify time; above 1",
    "message_size_barely_matters": "1000-byte / 10-byte keygen+sign+verify time per key; within 10%",
}


def verdicts(cells, first):
    implementations = sorted({key[:2] for key in first})
    messages = sorted(
        {key[5] for key in first if key[4] == COMBINED and key in cells}, key=lambda m: int(m.split("-")[1])
    )
    return [
        {
            "claim": claim,
            "language": language,
            "implementation": implementation,
            "what": WHAT[claim],
            **judge_claim(parts),
        }
        for language, implementation in implementations
        for claim, parts in claim_parts(cells, first, language, implementation, messages).items()
    ]


COLUMNS = result_tables.family_columns("seed004.schema.yaml")


def main(raw_paths, settings, outputs, log):
    rows_by_cell = cell_samples.rows_by(raw_paths, key_of)
    samples, first = cell_samples.samples_of(rows_by_cell)
    cells = round_paired_cells(raw_paths, key_of, samples, settings, "seed004", ComposedCells)
    first = with_composed(first)
    tables = {
        "runs": run_rows(cells, first, rows_by_cell),
        "decomposed": decomposed_rows(cells, first),
        "verdicts": verdicts(cells, first),
    }
    result_tables.write_tables(outputs, COLUMNS, tables, log)
    print(f"ratios taken: {dict(cells.methods)}", file=log)
    for row in tables["runs"]:
        if row["status"] != "ok":
            print(
                f"{row['language']} {row['implementation']} {row['family']}-{row['key_bits']} {row['operation']}"
                f" {row['input']}: {row['status']}",
                file=log,
            )
    for row in tables["verdicts"]:
        print(f"{row['claim']} ({row['language']} {row['implementation']}): {row['verdict']}", file=log)


def run_job(job):
    outputs = {name: getattr(job.output, name) for name in COLUMNS}
    with open(job.log[0], "w") as log:
        main(job.input.samples, job.params.statistics, outputs, log)
