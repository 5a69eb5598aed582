"""Suite primitive: the raw primitives under the JWT algorithms, no JWT.

digest: hashlib's one-shot `new(message).digest()` (OpenSSL's digests through CPython's
_hashlib, as suite hash). Everything else is pyca/cryptography (its bundled OpenSSL):

- mac: an `HMAC(key, SHA256())` made once per cell; one call is `h = keyed.copy();
  h.update(message); h.finalize()` (the copy carries the keyed inner and outer states,
  so the key is not set up again per call);
- encrypt: an `AESGCM(key)` made once; one call is `aead.encrypt(nonce, message, None)`
  with the nonce a 12-byte big-endian counter, +1 per call (ciphertext then 16-byte tag);
- sign / verify: the PEM keys parsed once with load_pem_private_key / load_pem_public_key;
  RSA-SHA256 is `key.sign(message, PKCS1v15(), SHA256())`, ECDSA-SHA256
  `key.sign(message, ECDSA(SHA256()))` (DER signature), Ed25519 `key.sign(message)`; the
  padding and hash objects are made once. verify raises InvalidSignature when invalid,
  which fails the cell; a valid call consumes the signature's length.

Each cell's batch(n) makes n calls inline in one loop (no function call per call beyond
the library's own) and returns the sum of their outputs' lengths.
"""

import hashlib
from dataclasses import dataclass
from itertools import count, islice, repeat
from pathlib import Path

from correctness import CheckFailed
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, hmac, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from hashing import sweep_message

DIGESTS = {"SHA-256": hashlib.sha256, "SHA-512": hashlib.sha512}
# operation -> (its algorithms, the implementation that does its work)
OPERATIONS = {
    "digest": (tuple(DIGESTS), "hashlib"),
    "mac": (("HMAC-SHA256",), "cryptography"),
    "encrypt": (("AES-256-GCM",), "cryptography"),
    "sign": (("RSA-SHA256", "ECDSA-SHA256", "Ed25519"), "cryptography"),
    "verify": (("RSA-SHA256", "ECDSA-SHA256", "Ed25519"), "cryptography"),
}
NONCE_BYTES = 12


class PrimitiveCheckFailed(CheckFailed):
    pass


@dataclass
class PrimitiveCase:
    """A checked primitive cell: its batch function (timing.CellTiming) and row sizes."""

    batch: object
    input_bytes: int
    output_bytes: int


def message_of(cell):
    """The cell's message: the bytes of input_file (input_kind bytes), else message_bytes
    bytes with byte i = i mod 256."""
    if cell.get("input_kind") == "bytes":
        return Path(cell["input_file"]).read_bytes()
    return sweep_message(cell["message_bytes"])


def expected_bytes(cell):
    """The message's length without reading anything (for rows of an untimed cell)."""
    if cell.get("input_kind") == "bytes":
        try:
            return Path(cell["input_file"]).stat().st_size
        except OSError:
            return 0
    return cell["message_bytes"]


def compare(cell, got, want_hex):
    if got.hex() != want_hex.lower():
        raise PrimitiveCheckFailed(
            f"{cell['operation']} {cell['algorithm']} known answer gave {got.hex()}, not {want_hex}"
        )


def known(cell, field):
    return bytes.fromhex(cell["known_answer"][field])


def secret(cell):
    key = Path(cell["private_key"]).read_bytes()
    if len(key) * 8 != cell["key_bits"]:
        raise PrimitiveCheckFailed(f"secret {cell['private_key']} has {len(key) * 8} bits, not {cell['key_bits']}")
    return key


# ---- digest -------------------------------------------------------------------------


def digest_case(cell, message):
    new = DIGESTS[cell["algorithm"]]
    compare(cell, new(known(cell, "message_hex")).digest(), cell["known_answer"]["output_hex"])

    def batch(n):
        sink = 0
        for _ in repeat(None, n):
            sink += len(new(message).digest())
        return sink

    return batch, len(new(message).digest())


# ---- mac ----------------------------------------------------------------------------


def keyed_hmac(key):
    return hmac.HMAC(key, hashes.SHA256())


def mac_once(keyed, message):
    h = keyed.copy()
    h.update(message)
    return h.finalize()


def mac_case(cell, message):
    compare(
        cell,
        mac_once(keyed_hmac(known(cell, "key_hex")), known(cell, "message_hex")),
        cell["known_answer"]["output_hex"],
    )
    keyed = keyed_hmac(secret(cell))

    def batch(n):
        sink = 0
        for _ in repeat(None, n):
            h = keyed.copy()
            h.update(message)
            sink += len(h.finalize())
        return sink

    return batch, len(mac_once(keyed, message))


# ---- encrypt ------------------------------------------------------------------------


def encrypt_case(cell, message):
    got = AESGCM(known(cell, "key_hex")).encrypt(known(cell, "nonce_hex"), known(cell, "message_hex"), None)
    compare(cell, got, cell["known_answer"]["output_hex"])
    aead = AESGCM(secret(cell))
    encrypt = aead.encrypt
    nonces = count(1)  # the counter carries over from batch to batch

    # one output of the timed path decrypts back to the message
    number = next(nonces)
    output = encrypt(number.to_bytes(NONCE_BYTES, "big"), message, None)
    if aead.decrypt(number.to_bytes(NONCE_BYTES, "big"), output, None) != message:
        raise PrimitiveCheckFailed("AES-256-GCM output did not decrypt to the message")

    def batch(n):
        sink = 0
        for number in islice(nonces, n):
            sink += len(encrypt(number.to_bytes(NONCE_BYTES, "big"), message, None))
        return sink

    return batch, len(output)


# ---- sign / verify ------------------------------------------------------------------

# algorithm -> (key class, curve or None, the sign/verify arguments after the message)
SIGNATURES = {
    "RSA-SHA256": (rsa.RSAPrivateKey, None, lambda: (padding.PKCS1v15(), hashes.SHA256())),
    "ECDSA-SHA256": (ec.EllipticCurvePrivateKey, "secp256r1", lambda: (ec.ECDSA(hashes.SHA256()),)),
    "Ed25519": (ed25519.Ed25519PrivateKey, None, lambda: ()),
}


def load_keys(cell):
    """The cell's PEM key pair, parsed once, checked against its algorithm and key_bits."""
    kind, curve, _ = SIGNATURES[cell["algorithm"]]
    private = serialization.load_pem_private_key(Path(cell["private_key"]).read_bytes(), password=None)
    public = serialization.load_pem_public_key(Path(cell["public_key"]).read_bytes())
    if not isinstance(private, kind):
        raise PrimitiveCheckFailed(f"{cell['private_key']} is not a key for {cell['algorithm']}")
    bits = private.key_size if kind in (rsa.RSAPrivateKey, ec.EllipticCurvePrivateKey) else 256
    if bits != cell["key_bits"] or (curve and private.curve.name != curve):
        raise PrimitiveCheckFailed(f"{cell['private_key']} has {bits} bits, not {cell['key_bits']}")
    return private, public


def signature_case(cell, message):
    private, public = load_keys(cell)
    arguments = SIGNATURES[cell["algorithm"]][2]()
    sign, verify = private.sign, public.verify
    signature = sign(message, *arguments)
    verify(signature, message, *arguments)  # raises InvalidSignature
    flipped = bytes([signature[0] ^ 1]) + signature[1:]
    try:
        verify(flipped, message, *arguments)
    except InvalidSignature:
        pass
    else:
        raise PrimitiveCheckFailed("a signature with its first byte's lowest bit flipped verified")
    length = len(signature)

    if cell["operation"] == "sign":

        def batch(n):
            sink = 0
            for _ in repeat(None, n):
                sink += len(sign(message, *arguments))
            return sink

    else:

        def batch(n):
            sink = 0
            for _ in repeat(None, n):
                verify(signature, message, *arguments)  # raises when invalid: the cell fails
                sink += length
            return sink

    return batch, length


CASES = {
    "digest": digest_case,
    "mac": mac_case,
    "encrypt": encrypt_case,
    "sign": signature_case,
    "verify": signature_case,
}


def prepare(cell):
    """The cell's batch, checked before any timing; raises PrimitiveCheckFailed (or the
    library's error, which fails the cell)."""
    message = message_of(cell)
    batch, output_bytes = CASES[cell["operation"]](cell, message)
    # (an ECDSA signature is DER, 70-72 bytes for P-256: its length varies call to call)
    if batch(1) != output_bytes and not cell["algorithm"].startswith(
        "ECDSA"
    ):  # the timed loop does what the checked call does
        raise PrimitiveCheckFailed(f"a batch of one call consumed {batch(1)} bytes, not {output_bytes}")
    return PrimitiveCase(batch, len(message), output_bytes)
