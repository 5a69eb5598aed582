"""Deterministic algorithms sign identical bytes identically, whichever language signs.

HMAC (HS*), RSA PKCS#1 v1.5 (RS*) and Ed25519 (EdDSA) have no randomness: two libraries
that sign the same JWS signing input (header and payload segments, byte for byte) with the
same key must produce the same signature. PS* and ES* are randomised and are left out.

From the tokens each language signed in its self-check (results/verify/tokens/<language>/
<variant>.jwt), per variant: languages are grouped by their signing input; a group of two
or more must hold one signature. Libraries serialise the header and the claims their own
way (member order, whitespace), so languages whose bytes differ land in separate groups;
the table says which, with the header each wrote, so a reader sees what was compared.

Output (results/verify/deterministic.csv), one row per (variant, group of languages):
  variant, languages (space-separated), header (the decoded protected header),
  payload_sha256 (first 16 hex of the decoded payload's SHA-256), signatures (distinct
  signatures in the group), outcome: identical | DIFFERENT | alone (one language only).
"""

import base64
import csv
import hashlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import variants  # noqa: E402

COLUMNS = ["variant", "languages", "header", "payload_sha256", "signatures", "outcome"]
IDENTICAL, DIFFERENT, ALONE = "identical", "DIFFERENT", "alone"


def deterministic(variant):
    return variant.algorithm.startswith(("HS", "RS")) or variant.algorithm == "EdDSA"


def decode(segment):
    return base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))


def groups(tokens):
    """{(header segment, payload segment): {language: signature segment}} of one variant's
    tokens ({language: compact JWS})."""
    grouped = {}
    for language, token in sorted(tokens.items()):
        parts = token.strip().split(".")
        if len(parts) != 3:
            raise ValueError(f"{language}: not a compact JWS ({len(parts)} segments)")
        header, payload, signature = parts
        grouped.setdefault((header, payload), {})[language] = signature
    return grouped


def rows_for(variant_name, tokens):
    rows = []
    for (header, payload), signatures in groups(tokens).items():
        distinct = len(set(signatures.values()))
        outcome = ALONE if len(signatures) == 1 else IDENTICAL if distinct == 1 else DIFFERENT
        rows.append({
            "variant": variant_name, "languages": " ".join(signatures),
            "header": decode(header).decode("utf-8", "replace"),
            "payload_sha256": hashlib.sha256(decode(payload)).hexdigest()[:16],
            "signatures": distinct, "outcome": outcome,
        })  # fmt: skip
    return rows


def read_tokens(token_dirs, variant_name):
    """{language: token} for the languages that signed this variant (unsupported: no file)."""
    found = {}
    for directory in token_dirs:
        path = Path(directory) / f"{variant_name}.jwt"
        if path.is_file():
            found[Path(directory).name] = path.read_text()
    return found


def check(token_dirs, variant_names):
    rows = []
    for name in variant_names:
        if deterministic(variants.parse(name)):
            rows += rows_for(name, read_tokens(token_dirs, name))
    return rows


def run_job(snake):
    rows = check(snake.input.tokens, snake.params.variants)
    with open(snake.output[0], "w", newline="") as handle:
        writer = csv.DictWriter(handle, COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    with open(snake.log[0], "w") as log:
        for outcome in (IDENTICAL, DIFFERENT, ALONE):
            print(f"{outcome}: {sum(row['outcome'] == outcome for row in rows)} groups", file=log)
        for row in rows:
            if row["outcome"] == DIFFERENT:
                print(f"DIFFERENT signatures of identical bytes: {row['variant']} by {row['languages']}", file=log)
