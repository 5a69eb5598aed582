"""The conformance suite's hostile tokens, built anew per run from the run's keys.

data/conformance/cases.yaml lists the cases (data: id, expected outcome, the clause it
comes from, and a recipe); this module turns each recipe into a compact token file and
writes the `verify-batch` cases file every JWS driver answers (workflow/scripts/README.md).
Every signature is made here with pyca/cryptography, independently of every driver.

    python conformance_cases.py --keys keys --out DIR [--eddsa-name Ed25519]

writes DIR/<id>.jwt for each case and DIR/cases.json. Nothing written contains a
private key or a secret: tokens carry public keys at most (the attacker's, the header_jwk
cases), and the attacker's key is made here and thrown away.
"""

import argparse
import base64
import datetime
import hashlib
import hmac
import json
import re
import sys
import time
from pathlib import Path

import yaml
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa, utils
from cryptography.x509.oid import NameOID

from jwtbench import variants

CASES = Path(__file__).resolve().parents[3] / "data" / "conformance" / "cases.yaml"
EXPECTED = ("must_reject", "may_accept", "must_accept")
GROUPS = ("control", "alg", "signature", "base64url", "header", "claims", "size")
FIELDS = {"id", "group", "expected", "alg", "requirement", "clause"}
RECIPE_FIELDS = {"header", "header_raw", "claims", "claims_raw", "sign", "segment", "signature", "token", "pad_to"}
# The run key each pinned algorithm uses (a variant name, see variants.py).
PINNED = {
    "HS256": "HS256",
    "HS512": "HS512",
    "RS256": "RS256-2048",
    "PS256": "PS256-2048",
    "ES256": "ES256",
    "EdDSA": "EdDSA",
}
P256_ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
ED25519_ORDER = 2**252 + 27742317777372353535851937790883648493
DEFAULT_CLAIMS = {"sub": "jwtbench-conformance"}
TIME_VALUE = re.compile(r"^(str:)?now([+-])(\d+(?:\.\d+)?)$")
TIME_IN_RAW = re.compile(r"now([+-])(\d+(?:\.\d+)?)")


class CaseError(ValueError):
    """A case in cases.yaml that cannot be built: names the case and the field."""


def b64url(raw):
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def key_names():
    """The run keys the cases sign and verify with (generate_keys makes them whatever the
    run's suites time): one per algorithm a case pins or signs with."""
    return sorted({variants.parse(variant).key_name for variant in PINNED.values()})


def load_cases(path=CASES):
    """The cases of cases.yaml, each checked: required fields, known values, unique ids."""
    cases = yaml.safe_load(Path(path).read_text())["cases"]
    seen = set()
    for index, case in enumerate(cases):
        where = f"{path}: case {index} ({case.get('id', 'no id')})"
        missing = FIELDS - set(case)
        if missing:
            raise CaseError(f"{where}: missing {', '.join(sorted(missing))}")
        unknown = set(case) - FIELDS - RECIPE_FIELDS
        if unknown:
            raise CaseError(f"{where}: unknown field {', '.join(sorted(unknown))}")
        if case["expected"] not in EXPECTED:
            raise CaseError(f"{where}: expected must be one of {', '.join(EXPECTED)}")
        if case["group"] not in GROUPS:
            raise CaseError(f"{where}: group must be one of {', '.join(GROUPS)}")
        if case["alg"] not in PINNED:
            raise CaseError(f"{where}: alg must be one of {', '.join(PINNED)}")
        if case["id"] in seen:
            raise CaseError(f"{where}: duplicate id")
        seen.add(case["id"])
    return cases


class Keys:
    """The run's keys as pyca/cryptography objects, and an attacker's, made here."""

    def __init__(self, key_dir):
        self.key_dir = Path(key_dir)
        self._attacker = None

    def files(self, alg):
        """(signing key file, verifying key file) of the run key an algorithm pins."""
        return variants.key_files(variants.parse(PINNED[alg]), self.key_dir)

    def signing(self, alg):
        path = Path(self.files(alg)[0])
        if alg.startswith("HS"):
            return path.read_bytes()
        return serialization.load_pem_private_key(path.read_bytes(), password=None)

    def public_pem(self, alg):
        return Path(self.files(alg)[1]).read_bytes()

    @property
    def attacker(self):
        """An RSA-2048 key pair that is not the run's (made once per build)."""
        if self._attacker is None:
            self._attacker = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        return self._attacker


def sign(alg, key, message):
    """The JWS signature of `message` (RFC 7518) under alg with a cryptography key object
    (or HMAC secret bytes)."""
    if alg == "none":
        return b""
    if alg.startswith("HS"):
        return hmac.new(key, message, getattr(hashlib, f"sha{alg[2:]}")).digest()
    digest = getattr(hashes, f"SHA{alg[2:]}")() if alg != "EdDSA" else None
    if alg.startswith("RS"):
        return key.sign(message, padding.PKCS1v15(), digest)
    if alg.startswith("PS"):
        return key.sign(message, padding.PSS(padding.MGF1(digest), digest.digest_size), digest)
    if alg.startswith("ES"):
        r, s = utils.decode_dss_signature(key.sign(message, ec.ECDSA(digest)))
        size = (key.curve.key_size + 7) // 8
        return r.to_bytes(size, "big") + s.to_bytes(size, "big")
    if alg == "EdDSA":
        return key.sign(message)
    raise CaseError(f"no signer for {alg}")


def attacker_jwk(key):
    numbers = key.public_key().public_numbers()
    as_b64 = lambda value: b64url(value.to_bytes((value.bit_length() + 7) // 8, "big"))  # noqa: E731
    return {"kty": "RSA", "n": as_b64(numbers.n), "e": as_b64(numbers.e)}


def attacker_certificate(key):
    """A self-signed certificate of the attacker's key, base64 DER (an x5c entry)."""
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "jwtbench attacker")])
    now = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(1)
        .not_valid_before(now)
        .not_valid_after(now + datetime.timedelta(days=3650))
        .sign(key, hashes.SHA256())
    )
    return base64.b64encode(certificate.public_bytes(serialization.Encoding.DER)).decode("ascii")


def time_value(value, now):
    """A claim value of cases.yaml with "now+N" / "now-N" / "str:now+N" resolved."""
    if isinstance(value, str):
        match = TIME_VALUE.match(value)
        if match:
            as_string, sign_, offset = match.groups()
            number = float(offset) if "." in offset else int(offset)
            result = now + number if sign_ == "+" else now - number
            return str(result) if as_string else result
    return value


def claims_bytes(case, now):
    """The payload octets of a case."""
    if "claims_raw" in case:
        raw = case["claims_raw"]
        if raw.startswith("hex:"):
            return bytes.fromhex(raw[4:])
        if raw.startswith("digits:"):
            return b'{"exp":' + b"9" * int(raw[7:]) + b"}"
        if raw.startswith("nested:"):
            depth = int(raw[7:])
            return b'{"sub":"jwtbench-conformance","deep":' + b"[" * depth + b"]" * depth + b"}"
        resolved = TIME_IN_RAW.sub(lambda m: str(now + int(m[2]) if m[1] == "+" else now - int(m[2])), raw)
        return resolved.encode()
    claims = case.get("claims", DEFAULT_CLAIMS)
    claims = {name: time_value(value, now) for name, value in claims.items()}
    if "pad_to" in case:
        # pad_to is the token's size: base64url makes 4 characters of every 3 octets
        filler = case["pad_to"] * 3 // 4 - len(json.dumps(claims)) - 128
        claims = {**claims, "filler": "A" * max(filler, 0)}
    return json.dumps(claims, separators=(",", ":")).encode()


def header_bytes(case, alg_name, keys):
    if "header_raw" in case:
        return case["header_raw"].encode()
    header = dict(case.get("header", {"alg": alg_name, "typ": "JWT"}))
    for name, value in header.items():
        if value == "attacker" and name == "jwk":
            header[name] = attacker_jwk(keys.attacker)
        elif value == "attacker" and name == "x5c":
            header[name] = [attacker_certificate(keys.attacker)]
        elif isinstance(value, str) and value.startswith("fill:"):
            header[name] = "A" * int(value[5:])
        elif name == "alg" and value == "EdDSA":
            header[name] = alg_name
    return json.dumps(header, separators=(",", ":")).encode()


def encoded_segment(raw, change, case_id):
    """A header or payload segment as the case encodes it (before signing)."""
    encoded = b64url(raw)
    if change is None:
        return encoded
    if change == "pad":
        if len(raw) % 3 == 0:
            raise CaseError(f"case {case_id}: segment needs no padding; change its content")
        return base64.urlsafe_b64encode(raw).decode("ascii")
    if change == "standard_alphabet":
        if not set(encoded) & {"-", "_"}:
            raise CaseError(f"case {case_id}: segment has no - or _ to turn into + or /")
        return encoded.replace("-", "+").replace("_", "/")
    if change == "space":
        return f"{encoded[: len(encoded) // 2]} {encoded[len(encoded) // 2 :]}"
    if change == "line_break":
        return f"{encoded[: len(encoded) // 2]}\n{encoded[len(encoded) // 2 :]}"
    if change == "unencoded":
        return raw.decode()
    raise CaseError(f"case {case_id}: unknown segment change {change!r}")


def changed_signature(signature, change, case_id):
    """The signature's segment (base64url text) after the case's change."""
    if change is None:
        return b64url(signature)
    half = len(signature) // 2
    r, s = int.from_bytes(signature[:half], "big"), int.from_bytes(signature[half:], "big")
    as_rs = lambda r_, s_: r_.to_bytes(half, "big") + s_.to_bytes(half, "big")  # noqa: E731
    byte_changes = {
        "zero": lambda: bytes(len(signature)),
        "r_zero": lambda: as_rs(0, s),
        "s_zero": lambda: as_rs(r, 0),
        "r_order": lambda: as_rs(P256_ORDER, s),
        "s_order": lambda: as_rs(r, P256_ORDER),
        "high_s": lambda: as_rs(r, max(s, P256_ORDER - s)),  # s or n - s, whichever is the upper half
        "der": lambda: utils.encode_dss_signature(r, s),
        "drop_last_byte": lambda: signature[:-1],
        "append_zero": lambda: signature + b"\x00",
        "prepend_zero": lambda: b"\x00" + signature,
        "strip_leading_zero": lambda: signature[1:],
        "truncate_16": lambda: signature[:16],
        "empty": lambda: b"",
        "flip_bit": lambda: bytes([signature[0] ^ 1]) + signature[1:],
        "ed25519_s_plus_order": lambda: (
            signature[:32] + (int.from_bytes(signature[32:], "little") + ED25519_ORDER).to_bytes(32, "little")
        ),
    }
    if change in byte_changes:
        return b64url(byte_changes[change]())
    encoded = b64url(signature)
    if change == "pad":
        return base64.urlsafe_b64encode(signature).decode("ascii")
    if change == "standard_alphabet":
        return encoded.replace("-", "+").replace("_", "/")
    if change == "unused_bits":
        alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
        if 6 * len(encoded) == 8 * len(signature):
            raise CaseError(f"case {case_id}: the signature's last character has no unused bits")
        return encoded[:-1] + alphabet[alphabet.index(encoded[-1]) ^ 1]
    raise CaseError(f"case {case_id}: unknown signature change {change!r}")


def assembled(header, payload, signature, change, case_id):
    if change is None:
        return f"{header}.{payload}.{signature}"
    if change == "two_segments":
        return f"{header}.{payload}"
    if change == "four_segments":
        return f"{header}.{payload}.{signature}.{b64url(b'jwtbench')}"
    if change == "five_segments":
        return f"{header}.{payload}.{signature}.{b64url(b'jwtbench')}.{b64url(b'jwtbench')}"
    if change == "empty_header":
        return f".{payload}.{signature}"
    raise CaseError(f"case {case_id}: unknown token change {change!r}")


def needs_retry(case, signature, encoded_signature):
    """Cases whose change needs a signature of some shape (a leading zero octet, a - or _)."""
    change = case.get("signature")
    if change == "strip_leading_zero":
        return signature[:1] != b"\x00"
    if change == "standard_alphabet":
        return not set(encoded_signature) & {"-", "_"}
    return False


def build(case, keys, now, eddsa_name="EdDSA"):
    """The compact token of one case (text)."""
    alg = case["alg"]
    header_alg = eddsa_name if alg == "EdDSA" else alg
    recipe = case.get("sign", {})
    sign_alg = recipe.get("alg", alg)
    key_kind = recipe.get("key", "run")
    if key_kind == "run":
        key = keys.signing(sign_alg if sign_alg != "none" else alg)
    elif key_kind == "attacker":
        key = keys.attacker
    elif key_kind == "rsa_public_pem":
        key = keys.public_pem("RS256")
    elif key_kind == "ec_public_pem":
        key = keys.public_pem("ES256")
    elif key_kind == "empty":
        key = b""
    else:
        raise CaseError(f"case {case['id']}: unknown sign key {key_kind!r}")
    segment = case.get("segment", {})
    header = encoded_segment(header_bytes(case, header_alg, keys), segment.get("header"), case["id"])
    base_claims = claims_bytes(case, now)
    for attempt in range(20000):
        payload_raw = base_claims
        if attempt:  # a different payload for a signature of another shape
            payload_raw = base_claims[:-1] + f',"jti":"{attempt}"}}'.encode()
        payload = encoded_segment(payload_raw, segment.get("payload"), case["id"])
        signature = sign(sign_alg, key, f"{header}.{payload}".encode())
        if not needs_retry(case, signature, b64url(signature)):
            break
    else:
        raise CaseError(f"case {case['id']}: no signature of the shape it needs in 20000 tries")
    encoded_signature = changed_signature(signature, case.get("signature"), case["id"])
    return assembled(header, payload, encoded_signature, case.get("token"), case["id"])


def write_cases(cases, key_dir, out_dir, now=None, eddsa_name="EdDSA"):
    """Write every case's token to out_dir/<id>.jwt and out_dir/cases.json (the
    verify-batch input); return that file's path."""
    now = int(time.time()) if now is None else now
    keys = Keys(key_dir)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    entries = []
    for case in cases:
        path = out_dir / f"{case['id']}.jwt"
        path.write_text(build(case, keys, now, eddsa_name) + "\n")
        entries.append(
            {
                "id": case["id"],
                "alg": case["alg"],
                "key": str(Path(keys.files(case["alg"])[1]).resolve()),
                "token": str(path.resolve()),
            }
        )
    cases_file = out_dir / "cases.json"
    cases_file.write_text(json.dumps({"cases": entries}, indent=1) + "\n")
    return cases_file


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", required=True, help="the run's key directory (keys/)")
    parser.add_argument("--out", required=True, help="directory for the tokens and cases.json")
    parser.add_argument("--cases", default=str(CASES), help="the case list (default: %(default)s)")
    parser.add_argument("--eddsa-name", default="EdDSA", help="header alg of EdDSA tokens (Ed25519 for fusionauth-jwt)")
    args = parser.parse_args(argv)
    try:
        cases_file = write_cases(load_cases(args.cases), args.keys, args.out, eddsa_name=args.eddsa_name)
    except CaseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(cases_file)
    return 0


if __name__ == "__main__":
    sys.exit(main())
