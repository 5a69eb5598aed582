"""Deterministic algorithms sign identical bytes identically, whichever language signs.

HMAC (HS*), RSA PKCS#1 v1.5 (RS*) and Ed25519 (EdDSA) have no randomness: two libraries
that sign the same JWS signing input (header and payload segments, byte for byte) with the
same key must produce the same signature. PS* and ES* are randomised and are left out.

From the tokens each driver signed in its self-check (results/verify/tokens/<driver>/signed/
<variant>.jwt), per variant: drivers are grouped by their signing input; a group of two
or more must hold one signature. Libraries serialise the header and the claims their own
way (member order, whitespace), so languages whose bytes differ land in separate groups;
the table says which, with the header each wrote, so a reader sees what was compared.

A language alone with its bytes is still checked: pyca/cryptography, an implementation
of its own, signs every token's exact signing input with the same key, and each
language's signature must equal that reference. So any two languages that sign the same
bytes sign them identically, whether or not this run had them do it.

Output (results/verify/deterministic.csv), one row per (variant, group of languages):
  variant, languages (space-separated), header (the decoded protected header),
  payload_sha256 (first 16 hex of the decoded payload's SHA-256), signatures (distinct
  signatures in the group), reference (same: every signature equals pyca/cryptography's
  over the same bytes; else DIFFERENT), outcome: identical | DIFFERENT | alone (one
  language only, and the same as the reference).
"""

import hashlib
import hmac
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding

from jwtbench import config_validation, result_tables, variants
from jwtbench.jwk_keys import b64url_decode as decode

COLUMNS = result_tables.columns("deterministic.schema.yaml")
IDENTICAL, DIFFERENT, ALONE = "identical", "DIFFERENT", "alone"
# An Ed25519 signature that is not RFC 8032's deterministic one yet verifies: the library
# adds randomness (a hedged signature; rust/jwt-simple's ed25519-compact does). Reported
# apart, never grouped, never a failure.
HEDGED = "hedged"


def deterministic(variant):
    return variant.algorithm.startswith(("HS", "RS")) or variant.algorithm == "EdDSA"


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


def reference_signature(variant, signing_key_file, signing_input):
    """pyca/cryptography's signature of the signing input (bytes) with the variant's key."""
    bits = int(variant.algorithm[2:]) if variant.algorithm[:2] in ("HS", "RS") else 0
    key_bytes = Path(signing_key_file).read_bytes()
    if variant.algorithm.startswith("HS"):
        return hmac.new(key_bytes, signing_input, f"sha{bits}").digest()
    key = serialization.load_pem_private_key(key_bytes, password=None)
    if variant.algorithm.startswith("RS"):
        return key.sign(signing_input, padding.PKCS1v15(), getattr(hashes, f"SHA{bits}")())
    return key.sign(signing_input)  # Ed25519


def hedged(signing_key_file, signing_input, signature):
    """Whether an Ed25519 signature verifies under the key (a hedged one does)."""
    key = serialization.load_pem_private_key(Path(signing_key_file).read_bytes(), password=None)
    try:
        key.public_key().verify(signature, signing_input)
    except InvalidSignature:
        return False
    return True


def rows_for(variant_name, tokens, signing_key_file):
    variant = variants.parse(variant_name)
    rows = []
    for (header, payload), signatures in groups(tokens).items():
        reference = reference_signature(variant, signing_key_file, f"{header}.{payload}".encode("ascii"))
        if variant.algorithm == "EdDSA":
            signing_input = f"{header}.{payload}".encode("ascii")
            for language in [
                name
                for name, signature in signatures.items()
                if decode(signature) != reference and hedged(signing_key_file, signing_input, decode(signature))
            ]:
                del signatures[language]
                rows.append(
                    {
                        "variant": variant_name,
                        "languages": language,
                        "header": decode(header).decode("utf-8", "replace"),
                        "payload_sha256": hashlib.sha256(decode(payload)).hexdigest()[:16],
                        "signatures": 1,
                        "reference": "verifies, not the same",
                        "outcome": HEDGED,
                    }
                )
            if not signatures:
                continue
        distinct = len(set(signatures.values()))
        same = all(decode(signature) == reference for signature in signatures.values())
        outcome = DIFFERENT if distinct > 1 or not same else ALONE if len(signatures) == 1 else IDENTICAL
        rows.append(
            {
                "variant": variant_name,
                "languages": " ".join(signatures),
                "header": decode(header).decode("utf-8", "replace"),
                "payload_sha256": hashlib.sha256(decode(payload)).hexdigest()[:16],
                "signatures": distinct,
                "reference": "same" if same else DIFFERENT,
                "outcome": outcome,
            }
        )
    return rows


def read_tokens(token_dirs, variant_name):
    """{driver: token} for the drivers ({driver: its tokens' folder}) that signed this
    variant (unsupported: no file)."""
    found = {}
    for name, directory in token_dirs.items():
        path = Path(directory) / f"{variant_name}.jwt"
        if path.is_file():
            found[name] = path.read_text()
    return found


def check(token_dirs, variant_names, key_dir):
    rows = []
    for name in variant_names:
        variant = variants.parse(name)
        if deterministic(variant):
            rows += rows_for(name, read_tokens(token_dirs, name), variants.key_files(variant, key_dir)[0])
    return rows


def run_job(snake):
    token_dirs = {config_validation.signed_tokens_driver(path): path for path in snake.input.tokens}
    rows = check(token_dirs, snake.params.variants, Path(snake.input.key_manifest).parent)
    result_tables.write_csv(snake.output[0], COLUMNS, rows)
    with open(snake.log[0], "w") as log:
        for outcome in (IDENTICAL, DIFFERENT, ALONE):
            print(f"{outcome}: {sum(row['outcome'] == outcome for row in rows)} groups", file=log)
        for row in rows:
            if row["outcome"] == DIFFERENT:
                print(f"DIFFERENT: {row['variant']} by {row['languages']} (reference: {row['reference']})", file=log)
