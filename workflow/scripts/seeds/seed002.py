"""Seed 002 reproduced: hash speed per message case, the length sweep, a verdict per claim.

From the raw samples of suite hash, writes to results/seed002/:
  cases.csv     per (language, implementation, case, algorithm): median ns per call, which
                is the seed's "ms per 1,000,000 hashes", with its CI; for cases built per
                call also the generation alone (algorithm none) and the hash alone
                (median call minus median generation)
  sweep.csv     per (language, implementation, algorithm, length): ns/op, ns/byte, TSC
                cycles/byte where results/cycle_counter.json says the TSC is usable, and
                SHA-512 time / SHA-256 time at that length with its CI
  verdicts.csv  per (claim, language, implementation): holds / does not hold /
                inconclusive (criteria in CLAIMS below, judged as verdict_rules.py says)

The claims are report/published/seed002_claims.csv. Short strings are seed 002's cases 1
and 2 (36 and 49 characters), longer ones its cases 4 and 5 (72 and 85), as its text
compares them; cases 3 and 6 add a fresh UUID to the timed call.
"""

import json
from pathlib import Path

from jwtbench import cell_samples, result_tables
from jwtbench.seeds.verdict_rules import above, judge_claim, round_paired_cells, within

SHORT = ["case1-uuid", "case2-uuid-time"]
LONG = ["case4-uuid-uuid", "case5-uuid-uuid-time"]
ALL_CASES = SHORT + ["case3-newuuid-time"] + LONG + ["case6-newuuid-newuuid-time"]
ALGORITHMS = ["MD5", "SHA-1", "SHA-256", "SHA-512"]
# The UUID's cost: generation of case 3 (fresh UUID + time) minus that of case 2 (cached
# UUID + time), over SHA-256 of case 1; the seed's 670.4 / 737.8 = 0.91. "About as much"
# is judged generously across machines and languages: within a factor of 2.
UUID_CASE, UUID_BASE, UUID_UNIT = "case3-newuuid-time", "case2-uuid-time", ("case1-uuid", "SHA-256")
SEED_UUID_RATIO = 670.4 / 737.8
UUID_FACTOR = 2.0


def key_of(row):
    return (row["language"], row["implementation"], row["input"], row["algorithm"]) if row["suite"] == "hash" else None


def read_cells(paths):
    return cell_samples.samples_by(paths, key_of)


def case_rows(cells, first):
    rows = []
    for key, row in first.items():
        language, implementation, case, algorithm = key
        if row["operation"] not in ("hex-digest", "generate"):
            continue
        out = {
            "language": language,
            "implementation": implementation,
            "implementation_version": row["implementation_version"],
            "case": case,
            "algorithm": algorithm,
            "operation": row["operation"],
            "message_bytes": row["input_bytes"],
            "status": row["status"],
        }
        if key in cells:
            low, high = cells.interval(cells.medians(key))
            out.update(median_ns=cells.median(key), ci_low_ns=low, ci_high_ns=high, samples=len(cells.samples[key]))
            generation = (language, implementation, case, "none")
            if algorithm != "none" and generation in cells:
                out["hash_only_ns"] = cells.median(key) - cells.median(generation)
        rows.append(out)
    return rows


def sweep_rows(cells, first, counter):
    rows = []
    for key, row in first.items():
        language, implementation, length_name, algorithm = key
        if row["operation"] != "digest":
            continue
        length = row["input_bytes"]
        out = {
            "language": language,
            "implementation": implementation,
            "implementation_version": row["implementation_version"],
            "algorithm": algorithm,
            "length": length,
            "status": row["status"],
        }
        if key in cells:
            median = cells.median(key)
            low, high = cells.interval(cells.medians(key))
            out.update(median_ns=median, ci_low_ns=low, ci_high_ns=high, ns_per_byte=median / length)
            if counter.get("usable"):
                out["cycles_per_byte"] = median / length * counter["ticks_per_ns"]
            if algorithm == "SHA-512" and (language, implementation, length_name, "SHA-256") in cells:
                ratio, ratio_low, ratio_high = cells.ratio(key, (language, implementation, length_name, "SHA-256"))
                out.update(sha512_over_sha256=ratio, ratio_ci_low=ratio_low, ratio_ci_high=ratio_high)
        rows.append(out)
    return rows


def uuid_cost(cells, language, implementation):
    """[(verdict, ratio, low, high, label, method)]: (generation of case 3 - of case 2) / SHA-256 of case 1."""
    fresh, cached = ((language, implementation, case, "none") for case in (UUID_CASE, UUID_BASE))
    unit = (language, implementation, *UUID_UNIT)
    if not all(key in cells for key in (fresh, cached, unit)):
        return []
    ratio, low, high, method = cells.derived((fresh, cached, unit), lambda a, b, c: (a - b) / c)
    verdict = within(low, high, SEED_UUID_RATIO / UUID_FACTOR, SEED_UUID_RATIO * UUID_FACTOR)
    return [(verdict, float(ratio), low, high, f"UUID generation / SHA-256 of {UUID_UNIT[0]}", method)]


def claim_parts(cells, language, implementation):
    pairs = lambda cases, top, bottom: [(case, top, bottom) for case in cases]  # noqa: E731

    def cmp(triples):
        return cells.compare(
            [
                (
                    (language, implementation, case, top),
                    (language, implementation, case, bottom),
                    f"{case}: {top} / {bottom}",
                )
                for case, top, bottom in triples
            ],
            above,
        )

    return {
        "sha256_faster_short": cmp(pairs(SHORT, "SHA-512", "SHA-256")),
        "sha512_faster_long": cmp(pairs(LONG, "SHA-256", "SHA-512")),
        "sha1_fastest": cmp([(case, other, "SHA-1") for case in ALL_CASES for other in ALGORITHMS if other != "SHA-1"]),
        "md5_slower_than_sha1": cmp(pairs(SHORT + LONG, "MD5", "SHA-1")),
        "uuid_generation_cost": uuid_cost(cells, language, implementation),
    }


WHAT = {
    "sha256_faster_short": "SHA-512 time / SHA-256 time on cases 1 and 2; both above 1",
    "sha512_faster_long": "SHA-256 time / SHA-512 time on cases 4 and 5; both above 1",
    "sha1_fastest": "each other algorithm's time / SHA-1's, on all six cases; all above 1",
    "md5_slower_than_sha1": "MD5 time / SHA-1 time on cases 1, 2, 4 and 5; all above 1",
    "uuid_generation_cost": (
        f"(generation of case 3 - generation of case 2) / SHA-256 time of case 1; within a "
        f"factor {UUID_FACTOR:g} of the seed's {SEED_UUID_RATIO:.2f}"
    ),
}


def verdicts(cells, implementations):
    return [
        {
            "claim": claim,
            "language": language,
            "implementation": implementation,
            "what": WHAT[claim],
            **judge_claim(parts),
        }
        for language, implementation in implementations
        for claim, parts in claim_parts(cells, language, implementation).items()
    ]


COLUMNS = result_tables.family_columns("seed002.schema.yaml")


def main(raw_paths, counter_path, settings, outputs, log):
    samples, first = read_cells(raw_paths)
    cells = round_paired_cells(raw_paths, key_of, samples, settings, "seed002")
    counter = json.loads(Path(counter_path).read_text())
    implementations = sorted({key[:2] for key in first})
    tables = {
        "cases": case_rows(cells, first),
        "sweep": sweep_rows(cells, first, counter),
        "verdicts": verdicts(cells, implementations),
    }
    result_tables.write_tables(outputs, COLUMNS, tables, log)
    print(f"cycle counter: {counter['reason']}", file=log)
    print(f"ratios taken: {dict(cells.methods)}", file=log)
    for row in tables["verdicts"]:
        print(f"{row['claim']} ({row['language']} {row['implementation']}): {row['verdict']}", file=log)


def run_job(job):
    outputs = {name: getattr(job.output, name) for name in COLUMNS}
    with open(job.log[0], "w") as log:
        main(job.input.samples, job.input.cycle_counter, job.params.statistics, outputs, log)
