"""Generate one run's key set: HMAC secrets, RSA, EC and Ed25519 key pairs.

Each key is written as PEM (PKCS#8 private, SPKI public) and as JWK (RFC 7517); an HMAC
secret as its raw bytes and as a JWK of kty "oct". Private files are created with mode
0600 in a 0700 directory before a byte is written. A manifest lists every key and its
files (paths only). Nothing here prints or logs key material.

Usable as a Snakemake script or from the command line:
    python generate_keys.py --out-dir keys --manifest keys/manifest.json KEY [KEY ...]
where KEY is a key name such as hmac-256, rsa-2048, ec-p256, ed25519.
"""

import argparse
import base64
import json
import os
import sys
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

CURVES = {
    "ec-p256": (ec.SECP256R1, "P-256", 256),
    "ec-p384": (ec.SECP384R1, "P-384", 384),
    "ec-p521": (ec.SECP521R1, "P-521", 521),
}


def b64url_uint(value, length=None):
    length = length or (value.bit_length() + 7) // 8
    return b64url(value.to_bytes(length, "big"))


def b64url(raw):
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def write_private(path, data):
    """Create a file readable only by its owner, then fill it."""
    if isinstance(data, str):
        data = data.encode()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    os.chmod(path, 0o600)


def write_public(path, data):
    if isinstance(data, str):
        data = data.encode()
    path.write_bytes(data)
    os.chmod(path, 0o644)


def pem_pair(private_key):
    private_pem = private_key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    public_pem = private_key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return private_pem, public_pem


def rsa_jwks(key):
    pub = key.public_key().public_numbers()
    priv = key.private_numbers()
    public = {"kty": "RSA", "n": b64url_uint(pub.n), "e": b64url_uint(pub.e)}
    private = dict(
        public,
        d=b64url_uint(priv.d),
        p=b64url_uint(priv.p),
        q=b64url_uint(priv.q),
        dp=b64url_uint(priv.dmp1),
        dq=b64url_uint(priv.dmq1),
        qi=b64url_uint(priv.iqmp),
    )
    return private, public


def ec_jwks(key, crv, field_bits):
    size = (field_bits + 7) // 8
    pub = key.public_key().public_numbers()
    public = {
        "kty": "EC",
        "crv": crv,
        "x": b64url_uint(pub.x, size),
        "y": b64url_uint(pub.y, size),
    }
    private = dict(public, d=b64url_uint(key.private_numbers().private_value, size))
    return private, public


def ed25519_jwks(key):
    raw_public = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    raw_private = key.private_bytes(
        serialization.Encoding.Raw,
        serialization.PrivateFormat.Raw,
        serialization.NoEncryption(),
    )
    public = {"kty": "OKP", "crv": "Ed25519", "x": b64url(raw_public)}
    return dict(public, d=b64url(raw_private)), public


def generate(name, out_dir):
    """Write one key's files; return its manifest entry."""
    kind, _, size = name.partition("-")
    if kind == "hmac":
        bits = int(size)
        secret = os.urandom(bits // 8)
        files = {"secret": f"{name}.secret", "jwk": f"{name}.jwk"}
        write_private(out_dir / files["secret"], secret)
        jwk = {"kty": "oct", "k": b64url(secret)}
        write_private(out_dir / files["jwk"], json.dumps(jwk))
        return {"name": name, "type": "hmac", "bits": bits, "files": files}

    if kind == "rsa":
        bits = int(size)
        key = rsa.generate_private_key(public_exponent=65537, key_size=bits)
        private_jwk, public_jwk = rsa_jwks(key)
        entry = {"name": name, "type": "rsa", "bits": bits}
    elif name in CURVES:
        curve, crv, bits = CURVES[name]
        key = ec.generate_private_key(curve())
        private_jwk, public_jwk = ec_jwks(key, crv, bits)
        entry = {"name": name, "type": "ec", "curve": crv, "bits": bits}
    elif name == "ed25519":
        key = ed25519.Ed25519PrivateKey.generate()
        private_jwk, public_jwk = ed25519_jwks(key)
        entry = {"name": name, "type": "okp", "curve": "Ed25519", "bits": 256}
    else:
        raise ValueError(f"unknown key name {name!r}")

    private_pem, public_pem = pem_pair(key)
    files = {
        "private_pem": f"{name}.private.pem",
        "public_pem": f"{name}.public.pem",
        "private_jwk": f"{name}.private.jwk",
        "public_jwk": f"{name}.public.jwk",
    }
    write_private(out_dir / files["private_pem"], private_pem)
    write_public(out_dir / files["public_pem"], public_pem)
    write_private(out_dir / files["private_jwk"], json.dumps(private_jwk))
    write_public(out_dir / files["public_jwk"], json.dumps(public_jwk))
    return dict(entry, files=files)


def main(names, out_dir, manifest, log):
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    os.chmod(out_dir, 0o700)
    entries = []
    for name in names:
        entries.append(generate(name, out_dir))
        print(f"generated {name}", file=log, flush=True)
    Path(manifest).write_text(json.dumps({"keys": entries}, indent=2) + "\n")
    print(f"wrote {len(entries)} keys to {out_dir}/ (files mode 0600/0644)", file=log)


def run_job(job):
    manifest = Path(job.output.manifest)
    with open(job.log[0], "w") as log:
        main(job.params.key_names, manifest.parent, manifest, log)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", required=True)
    parser.add_argument("--manifest", required=True)
    parser.add_argument("keys", nargs="+")
    args = parser.parse_args()
    main(args.keys, args.out_dir, args.manifest, sys.stderr)
