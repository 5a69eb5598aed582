"""Seed 001 reproduced: the 25-variant sign / verify ranking, and a verdict per key insight.

From the raw samples of suite jwt on the claims file (jwtbench's method: warm-up until
steady, calibrated batches, interleaved rounds) and suite percall (the seed's own method:
100 warm-up calls, then 1000 calls timed one by one, cell after cell), writes to
results/seed001/:
  rankings.csv  per (language, method, operation, variant): median and mean us, the
                median's CI, rank (1 + the cells whose CI lies wholly below this one's, so
                cells whose CIs overlap tie), and the ratio to HS512 with its CI
  verdicts.csv  per (claim, language, method): holds / does not hold / inconclusive, the
                deciding ratio and its CI, and what was compared

The claims are report/published/seed001_claims.csv; the criteria are CLAIMS below, judged
as verdict_rules.py says. Ratios are taken within one language, method and run.
"""

import statistics

from jwtbench import cell_samples, result_tables, variants
from jwtbench.seeds.verdict_rules import ABOUT, about, above, judge_claim, round_paired_cells, similar, within

METHODS = {"jwt": "jwtbench", "percall": "seed 001's method"}
BASELINE = "HS512"
HMACS = ["HS256", "HS384", "HS512"]
RSA_FAMILIES = [f"{family}{n}" for family in ("RS", "PS") for n in (256, 384, 512)]
CURVES = ["ES256", "ES384", "ES512"]
# Insight 3: doubling the RSA modulus 2048 -> 4096 costs ~8x to sign and ~3x to verify.
DOUBLING = {"sign": 8.0, "verify": 3.0}
# Insight 6: Ed25519 "comparable to ES256 for signing": within a factor of 1.25 either way.
COMPARABLE = 1.25


def key_of(row):
    """(language, method, operation, variant) of a row of suites jwt and percall."""
    if row["suite"] not in METHODS:
        return None
    return row["language"], METHODS[row["suite"]], row["operation"], variants.name_of(row["algorithm"], row["key_bits"])


def read_cells(paths):
    """{(language, method, operation, variant): per-sample ns/op} of the ok cells, and the
    statuses of every cell."""
    samples, first = cell_samples.samples_by(paths, key_of)
    return samples, {key: row["status"] for key, row in first.items()}


def rankings(cells, statuses):
    rows = []
    groups = {}
    for key in statuses:
        groups.setdefault(key[:3], []).append(key)
    for (language, method, operation), keys in groups.items():
        intervals = {key: cells.interval(cells.medians(key)) for key in keys if key in cells}
        for key in keys:
            row = {
                "language": language,
                "method": method,
                "operation": operation,
                "variant": key[3],
                "status": statuses[key],
            }
            if key in intervals:
                low, high = intervals[key]
                values = cells.samples[key]
                row.update(
                    samples=len(values),
                    median_us=cells.median(key) / 1e3,
                    mean_us=statistics.fmean(values) / 1e3,
                    ci_low_us=low / 1e3,
                    ci_high_us=high / 1e3,
                    rank=1 + sum(other[1] < low for k, other in intervals.items() if k != key),
                )
                baseline = (language, method, operation, BASELINE)
                if baseline in cells:
                    ratio, ratio_low, ratio_high = cells.ratio(key, baseline)
                    row.update(ratio_to_hs512=ratio, ratio_ci_low=ratio_low, ratio_ci_high=ratio_high)
            rows.append(row)
    return rows


def slowest_hmac(cells, language, method):
    measured = [v for v in HMACS if (language, method, "sign", v) in cells]
    return max(measured, key=lambda v: cells.median((language, method, "sign", v)), default=None)


def rsa_variants():
    return [f"{family}-{bits}" for bits in variants.RSA_SIZES for family in RSA_FAMILIES]


def asymmetric():
    return rsa_variants() + CURVES + ["EdDSA"]


def claim_parts(cells, language, method):
    """{claim: [comparisons]} for one language and method."""
    hmac = slowest_hmac(cells, language, method)

    def cmp(pairs, judge):
        return cells.compare(
            [
                ((language, method, *top), (language, method, *bottom), f"{top[0]} {top[1]} / {bottom[0]} {bottom[1]}")
                for top, bottom in pairs
            ],
            judge,
        )

    return {
        "hmac_dominates": cmp([(("sign", v), ("sign", hmac)) for v in asymmetric()], above) if hmac else [],
        "verify_cheaper_for_rsa": cmp([(("sign", v), ("verify", v)) for v in rsa_variants()], above),
        "ecdsa_verify_costlier": cmp([(("verify", v), ("sign", v)) for v in CURVES], above),
        "rsa_doubling_sign_8x": cmp(
            [(("sign", f"{f}-4096"), ("sign", f"{f}-2048")) for f in RSA_FAMILIES],
            lambda low, high: about(low, high, DOUBLING["sign"]),
        ),
        "rsa_doubling_verify_3x": cmp(
            [(("verify", f"{f}-4096"), ("verify", f"{f}-2048")) for f in RSA_FAMILIES],
            lambda low, high: about(low, high, DOUBLING["verify"]),
        ),
        "pss_like_pkcs1": cmp(
            [
                ((op, f"PS{n}-{bits}"), (op, f"RS{n}-{bits}"))
                for op in ("sign", "verify")
                for bits in variants.RSA_SIZES
                for n in (256, 384, 512)
            ],
            similar,
        ),
        "larger_curves_slower": cmp([((op, v), (op, "ES256")) for op in ("sign", "verify") for v in CURVES[1:]], above),
        "ed25519_sign_like_es256": cmp(
            [(("sign", "EdDSA"), ("sign", "ES256"))], lambda low, high: within(low, high, 1 / COMPARABLE, COMPARABLE)
        ),
        "ed25519_verify_faster_than_ecdsa": cmp([(("verify", v), ("verify", "EdDSA")) for v in CURVES], above),
        "hs512_faster_than_hs256": cmp([(("sign", "HS256"), ("sign", "HS512"))], above),
    }


WHAT = {
    "hmac_dominates": "each asymmetric variant's sign time / the slowest HMAC's sign time; all above 1",
    "verify_cheaper_for_rsa": "sign time / verify time of each RS*/PS* variant; all above 1",
    "ecdsa_verify_costlier": "verify time / sign time of ES256/384/512; all above 1",
    "rsa_doubling_sign_8x": f"sign time at 4096 / at 2048 bits per RS*/PS* algorithm;"
    f" all within 8/{ABOUT} .. 8x{ABOUT}",
    "rsa_doubling_verify_3x": f"verify time at 4096 / at 2048 bits per RS*/PS* algorithm;"
    f" all within 3/{ABOUT} .. 3x{ABOUT}",
    "pss_like_pkcs1": "PS* time / RS* time at the same hash and key size, sign and verify; all within +-10%",
    "larger_curves_slower": "ES384 and ES512 time / ES256 time, sign and verify; all above 1",
    "ed25519_sign_like_es256": f"EdDSA sign time / ES256 sign time; within 1/{COMPARABLE} .. {COMPARABLE}",
    "ed25519_verify_faster_than_ecdsa": "ES256/384/512 verify time / EdDSA verify time; all above 1",
    "hs512_faster_than_hs256": "HS256 sign time / HS512 sign time; above 1 (the seed's oddity)",
}


def verdicts(cells, languages):
    rows = []
    measured = {key[:2] for key in cells.samples}
    for language in languages:
        for method in METHODS.values():
            if (language, method) not in measured:
                continue
            for claim, parts in claim_parts(cells, language, method).items():
                rows.append(
                    {"claim": claim, "language": language, "method": method, "what": WHAT[claim], **judge_claim(parts)}
                )
    return rows


COLUMNS = result_tables.family_columns("seed001.schema.yaml")


def main(raw_paths, languages, settings, outputs, log):
    samples, statuses = read_cells(raw_paths)
    cells = round_paired_cells(raw_paths, key_of, samples, settings, "seed001")
    tables = {"rankings": rankings(cells, statuses), "verdicts": verdicts(cells, languages)}
    for name, table in tables.items():
        result_tables.write_csv(outputs[name], COLUMNS[name], table)
        print(f"{outputs[name]}: {len(table)} rows", file=log)
    for row in tables["verdicts"]:
        print(f"{row['claim']} ({row['language']}, {row['method']}): {row['verdict']}", file=log)
    print(f"ratios taken: {dict(cells.methods)}", file=log)


def run_job(job):
    outputs = {name: getattr(job.output, name) for name in COLUMNS}
    with open(job.log[0], "w") as log:
        main(job.input.samples, job.params.languages, job.params.statistics, outputs, log)
