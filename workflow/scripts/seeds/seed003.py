"""Seed 003 reproduced, and every library measured against `openssl speed`.

From the raw samples of suite primitive (every language, openssl included) and of suite
jwt on the claims file, writes:
  results/seed003/speed.csv     per (language, implementation, operation, algorithm,
                                key_bits, input): median ns/op with its CI, ops/s, MB/s
  results/seed003/verdicts.csv  per (claim, language): holds / does not hold /
                                inconclusive (criteria in WHAT, judged as verdict_rules.py)
  results/primitive/overhead.csv
      kind "over openssl": a language's primitive / openssl speed's, same operation,
          algorithm and input (the library's cost over the ceiling), with its CI;
      kind "jwt over primitive": a language's JWT sign (suite jwt, claims file) / its own
          primitive on that claims file's JWS signing input (HS256 over HMAC-SHA256,
          RS256-2048 over RSA-SHA256 2048): what the JWT library adds.

The claims are report/published/seed003_claims.csv; they compare cells of one language on
256-byte blocks (the seed's table) and RSA-2048 sign/verify.
"""

from jwtbench import cell_samples, result_tables
from jwtbench.seeds.verdict_rules import about, judge_claim, orders, round_paired_cells

OPENSSL = "openssl"
SHA256 = ("digest", "SHA-256", 0, "bytes-256")
AES_GCM = ("encrypt", "AES-256-GCM", 256, "bytes-256")
RSA_SIGN = ("sign", "RSA-SHA256", 2048)
RSA_VERIFY = ("verify", "RSA-SHA256", 2048)
SEED_SHA_OVER_AES = 3543532 / 514184
SIGNING_INPUT = "jwt-signing-input"
# JWT sign over its primitive on the same bytes: (jwt algorithm, key_bits) -> primitive cell.
JWT_PRIMITIVE = {
    ("HS256", 256): ("mac", "HMAC-SHA256", 256, SIGNING_INPUT),
    ("RS256", 2048): ("sign", "RSA-SHA256", 2048, SIGNING_INPUT),
}


def cell_of(row):
    """(language, operation, algorithm, key_bits, input) of a primitive row; of a jwt sign
    row on the claims file, ("jwt", language, algorithm, key_bits)."""
    if row["suite"] == "primitive":
        return (row["language"], row["operation"], row["algorithm"], row["key_bits"], row["input"])
    if row["suite"] == "jwt" and row["operation"] == "sign" and (row["algorithm"], row["key_bits"]) in JWT_PRIMITIVE:
        return ("jwt", row["language"], row["algorithm"], row["key_bits"])
    return None


def read_cells(primitive_paths, jwt_paths):
    return cell_samples.samples_by([*primitive_paths, *jwt_paths], cell_of)


def signature_cell(first, language, operation, algorithm, key_bits):
    """The fixed-size-message sign/verify cell of a language (its input label varies: the
    workflow's signature_message_bytes, or what openssl speed signs)."""
    for key in first:
        if key[0] == language and key[1:4] == (operation, algorithm, key_bits) and key[4] != SIGNING_INPUT:
            return key
    return None


def speed_rows(cells, first):
    rows = []
    for key, row in first.items():
        if key[0] == "jwt":
            continue
        language, operation, algorithm, key_bits, input_name = key
        out = {
            "language": language,
            "implementation": row["implementation"],
            "implementation_version": row["implementation_version"],
            "operation": operation,
            "algorithm": algorithm,
            "key_bits": key_bits,
            "input": input_name,
            "input_bytes": row["input_bytes"],
            "status": row["status"],
        }
        if key in cells:
            median = cells.median(key)
            low, high = cells.interval(cells.medians(key))
            out.update(
                samples=len(cells.samples[key]),
                median_ns=median,
                ci_low_ns=low,
                ci_high_ns=high,
                ops_per_s=1e9 / median,
                mb_per_s=row["input_bytes"] / median * 1e3 if row["input_bytes"] else "",
            )
        rows.append(out)
    return rows


def overhead_rows(cells, first):
    rows = []
    for key in first:
        if key[0] in ("jwt", OPENSSL) or key not in cells:
            continue
        language, *cell = key
        floor = (OPENSSL, *cell)
        if cell[0] in ("sign", "verify") and cell[3] != SIGNING_INPUT:
            floor = signature_cell(first, OPENSSL, *cell[:3])
        if floor is None or floor not in cells:
            continue
        ratio, low, high = cells.ratio(key, floor)
        rows.append(
            {
                "kind": "over openssl",
                "language": language,
                "implementation": first[key]["implementation"],
                "operation": cell[0],
                "algorithm": cell[1],
                "key_bits": cell[2],
                "input": cell[3],
                "numerator_ns": cells.median(key),
                "denominator_ns": cells.median(floor),
                "ratio": ratio,
                "ci_low": low,
                "ci_high": high,
            }
        )
    for key in first:
        if key[0] != "jwt" or key not in cells:
            continue
        _, language, algorithm, key_bits = key
        primitive = (language, *JWT_PRIMITIVE[(algorithm, key_bits)])
        if primitive not in cells:
            continue
        ratio, low, high = cells.ratio(key, primitive)
        rows.append(
            {
                "kind": "jwt over primitive",
                "language": language,
                "implementation": first[key]["implementation"],
                "operation": "sign",
                "algorithm": algorithm,
                "key_bits": key_bits,
                "input": SIGNING_INPUT,
                "numerator_ns": cells.median(key),
                "denominator_ns": cells.median(primitive),
                "ratio": ratio,
                "ci_low": low,
                "ci_high": high,
            }
        )
    return rows


WHAT = {
    "sha256_7x_aes_gcm": (
        f"aes-256-gcm time / sha256 time at 256 bytes; about {SEED_SHA_OVER_AES:.1f}x (within a factor 1.25)"
    ),
    "hash_order_faster_than_symmetric": "aes-256-gcm time / sha256 time at 256 bytes; one order of magnitude (3.2-32x)",
    "rsa_verify_orders_faster_than_sign": "rsa2048 sign time / verify time; 2-3 orders of magnitude (32-3162x)",
    "rsa_verify_orders_slower_than_aes": "rsa2048 verify time / aes-256-gcm time at 256 bytes; 2-3 orders (32-3162x)",
    "rsa_sign_orders_slower_than_aes": "rsa2048 sign time / aes-256-gcm time at 256 bytes; 4-5 orders (3162-316228x)",
}


def claim_parts(cells, first, language):
    sha, aes = (language, *SHA256), (language, *AES_GCM)
    sign, verify = (signature_cell(first, language, *cell) for cell in (RSA_SIGN, RSA_VERIFY))

    def cmp(top, bottom, label, judge):
        if top is None or bottom is None:
            return []
        return cells.compare([(top, bottom, label)], judge)

    return {
        "sha256_7x_aes_gcm": cmp(aes, sha, "aes-256-gcm / sha256", lambda lo, hi: about(lo, hi, SEED_SHA_OVER_AES)),
        "hash_order_faster_than_symmetric": cmp(aes, sha, "aes-256-gcm / sha256", lambda lo, hi: orders(lo, hi, 1, 1)),
        "rsa_verify_orders_faster_than_sign": cmp(
            sign, verify, "rsa2048 sign / verify", lambda lo, hi: orders(lo, hi, 2, 3)
        ),
        "rsa_verify_orders_slower_than_aes": cmp(
            verify, aes, "rsa2048 verify / aes-256-gcm", lambda lo, hi: orders(lo, hi, 2, 3)
        ),
        "rsa_sign_orders_slower_than_aes": cmp(
            sign, aes, "rsa2048 sign / aes-256-gcm", lambda lo, hi: orders(lo, hi, 4, 5)
        ),
    }


def verdicts(cells, first, languages):
    return [
        {"claim": claim, "language": language, "what": WHAT[claim], **judge_claim(parts)}
        for language in languages
        for claim, parts in claim_parts(cells, first, language).items()
    ]


COLUMNS = result_tables.family_columns("seed003.schema.yaml")


def main(primitive_paths, jwt_paths, languages, settings, outputs, log):
    samples, first = read_cells(primitive_paths, jwt_paths)
    cells = round_paired_cells([*primitive_paths, *jwt_paths], cell_of, samples, settings, "seed003")
    measured = [language for language in languages if any(key[0] == language for key in first)]
    tables = {
        "speed": speed_rows(cells, first),
        "verdicts": verdicts(cells, first, measured),
        "overhead": overhead_rows(cells, first),
    }
    result_tables.write_tables(outputs, COLUMNS, tables, log)
    print(f"ratios taken: {dict(cells.methods)}", file=log)
    for row in tables["verdicts"]:
        print(f"{row['claim']} ({row['language']}): {row['verdict']}", file=log)


def run_job(job):
    outputs = {name: getattr(job.output, name) for name in COLUMNS}
    with open(job.log[0], "w") as log:
        main(job.input.primitive, job.input.jwt, job.params.languages, job.params.statistics, outputs, log)
