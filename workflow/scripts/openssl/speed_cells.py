"""Which `openssl speed` run measures a suite-primitive cell, and what the cell's row says.

Shared by the driver (driver.py) and benchmarks/openssl_agreement.py, so both ask openssl
for the same thing and look up the same line of its output. README.md beside this file
explains each mapping.
"""

from dataclasses import dataclass

# What OpenSSL 3.0's speed signs: a fixed buffer, not hashed first (apps/speed.c:
# RSA signs 36 bytes, ECDSA and EdDSA 20).
RSA_SIGNED_BYTES = 36
ECDSA_SIGNED_BYTES = 20
EDDSA_SIGNED_BYTES = 20
GCM_TAG_BYTES = 16
RSA_KEY_SIZES = (512, 1024, 2048, 3072, 4096, 7680, 15360)  # openssl speed's rsa<bits> names
ECDSA_P256_DER_MAX_BYTES = 72  # ECDSA_size() for P-256: the DER signature's upper bound
ED25519_SIGNATURE_BYTES = 64

# (operation, algorithm) -> (selection arguments, openssl's name in its output, output bytes
# for a message of n bytes, the speed option it needs besides -bytes); block operations only.
BLOCK_TARGETS = {
    ("digest", "SHA-256"): (("sha256",), "sha256", lambda n: 32, None),
    ("digest", "SHA-512"): (("sha512",), "sha512", lambda n: 64, None),
    ("mac", "HMAC-SHA256"): (("-hmac", "sha256"), "hmac(sha256)", lambda n: 32, "-hmac"),
    ("encrypt", "AES-256-GCM"): (("-evp", "aes-256-gcm"), "AES-256-GCM", lambda n: n + GCM_TAG_BYTES, "-evp"),
}
BLOCK_KEY_BITS = {"digest": None, "mac": 256, "encrypt": 256}  # None: any (the contract's 0)


class Unsupported(Exception):
    """openssl speed cannot time this cell."""


@dataclass(frozen=True)
class SpeedTarget:
    """One cell's measurement: the arguments that select it on `openssl speed`'s command
    line and where its figure is in the output (speed_output.SpeedOutput.count)."""

    arguments: tuple  # e.g. ("-evp", "aes-256-gcm"), ("rsa2048",)
    name: str  # the algorithm as openssl names it in its output
    operation: str  # block, sign or verify
    size: int  # block bytes, or the key's bits as openssl prints them (253 for Ed25519)
    input_bytes: int
    output_bytes: int
    needs_options: tuple = ()  # options of `openssl speed -help` this needs

    @property
    def is_block(self):
        return self.operation == "block"

    @property
    def run_key(self):
        """Cells with the same run_key are measured by one openssl speed run (a public-key
        run always times both sign and verify)."""
        return (self.arguments, self.size if self.is_block else None)

    def command(self, openssl, seconds, machine_readable=True):
        """The argv of one sample: wall clock (-elapsed), `seconds` per figure, one block size."""
        command = [openssl, "speed", "-elapsed", "-seconds", str(seconds)]
        if machine_readable:
            command.append("-mr")
        if self.is_block:
            command += ["-bytes", str(self.size)]
        return command + list(self.arguments)


def target_for(cell, message_bytes):
    """The SpeedTarget timing `cell` (a spec cell) on a message of `message_bytes`; raises
    Unsupported with the reason when openssl speed has no such measurement."""
    operation, algorithm, key_bits = cell["operation"], cell["algorithm"], cell["key_bits"]
    if (operation, algorithm) in BLOCK_TARGETS:
        arguments, name, output_bytes, option = BLOCK_TARGETS[(operation, algorithm)]
        wanted_bits = BLOCK_KEY_BITS[operation]
        if wanted_bits is not None and key_bits != wanted_bits:
            raise Unsupported(f"{algorithm} with a {key_bits}-bit key (openssl speed keys it with {wanted_bits} bits)")
        if message_bytes is None or message_bytes < 1:
            raise Unsupported(f"{operation} {algorithm} needs a message of at least 1 byte (message_bytes)")
        needs = ("-bytes",) if option is None else ("-bytes", option)
        return SpeedTarget(arguments, name, "block", message_bytes, message_bytes, output_bytes(message_bytes), needs)
    if operation in ("sign", "verify"):
        if algorithm == "RSA-SHA256" and key_bits in RSA_KEY_SIZES:
            return SpeedTarget((f"rsa{key_bits}",), "rsa", operation, key_bits, RSA_SIGNED_BYTES, key_bits // 8)
        if algorithm == "ECDSA-SHA256" and key_bits == 256:
            return SpeedTarget(("ecdsap256",), "ecdsa", operation, 256, ECDSA_SIGNED_BYTES, ECDSA_P256_DER_MAX_BYTES)
        if algorithm == "Ed25519" and key_bits == 256:
            return SpeedTarget(("ed25519",), "Ed25519", operation, 253, EDDSA_SIGNED_BYTES, ED25519_SIGNATURE_BYTES)
    raise Unsupported(f"openssl speed has no measurement for {operation} {algorithm} with key_bits {key_bits}")
