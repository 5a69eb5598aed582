"""Seed 001's algorithm variants: JWS algorithm, key size, and the key each one uses.

A variant is the JWS algorithm plus, for RSA (RS*/PS*), the modulus size: "RS256-2048".
Shared by the Snakemake rules (through common.smk) and the pipeline scripts.
"""

from dataclasses import dataclass

EC_CURVES = {"ES256": ("ec-p256", 256), "ES384": ("ec-p384", 384), "ES512": ("ec-p521", 521)}
RSA_SIZES = (2048, 3072, 4096)
SHA_SIZES = (256, 384, 512)

# Seed 001's order (HMAC, then RSA and PSS by key size, then ECDSA), plus EdDSA.
ALL_VARIANTS = (
    [f"HS{n}" for n in SHA_SIZES]
    + [f"{family}{n}-{bits}" for bits in RSA_SIZES for family in ("RS", "PS") for n in SHA_SIZES]
    + list(EC_CURVES)
    + ["EdDSA"]
)


@dataclass(frozen=True)
class Variant:
    name: str
    algorithm: str
    key_bits: int
    key_name: str

    @property
    def symmetric(self):
        return self.algorithm.startswith("HS")


def parse(name):
    """The Variant called `name`; ValueError naming it when it is not one of ours."""
    if name not in ALL_VARIANTS:
        raise ValueError(f"unknown algorithm variant {name!r}")
    if name.startswith("HS"):
        bits = int(name[2:])
        return Variant(name, name, bits, f"hmac-{bits}")
    if name in EC_CURVES:
        key_name, bits = EC_CURVES[name]
        return Variant(name, name, bits, key_name)
    if name == "EdDSA":
        return Variant(name, name, 256, "ed25519")
    algorithm, bits = name.split("-")
    return Variant(name, algorithm, int(bits), f"rsa-{bits}")


def name_of(algorithm, key_bits):
    """The variant name of a (algorithm, key_bits) pair as drivers report it: JWS RSA
    variants and the RSA/ECDSA primitives (suites primitive, keygen) carry the key size."""
    if algorithm[:2] in ("RS", "PS") and algorithm[2:].isdigit():
        return f"{algorithm}-{key_bits}"
    if algorithm.startswith(("RSA-", "ECDSA-")):
        return f"{algorithm}-{key_bits}"
    return algorithm


def key_pair(key_name, key_dir):
    """(signing key, verifying key) paths of a run key: the secret twice for an HMAC
    secret (hmac-*), else the PEM pair."""
    base = f"{key_dir}/{key_name}"
    if key_name.startswith("hmac-"):
        return f"{base}.secret", f"{base}.secret"
    return f"{base}.private.pem", f"{base}.public.pem"


def key_files(variant, key_dir):
    """(signing key, verifying key) paths of a variant's key."""
    return key_pair(variant.key_name, key_dir)
