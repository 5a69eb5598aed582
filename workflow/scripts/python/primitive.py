"""Suite primitive: digest is hashlib's (as suite hash), the rest pyca/cryptography's: mac a
copy of an HMAC made once (the copy carries the keyed states), AESGCM, sign/verify (ECDSA
DER). A batch(n) makes n calls inline in one loop and returns the sum of their outputs' lengths.
"""

import hashlib
from itertools import count, islice, repeat
from pathlib import Path

from correctness import CheckFailed
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, hmac, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from hashing import sweep_message
from timing import Prepared

DIGESTS = {"SHA-256": hashlib.sha256, "SHA-512": hashlib.sha512}
# operation -> the implementation that does its work
OPERATIONS = {"digest": "hashlib"} | {operation: "cryptography" for operation in ("mac", "encrypt", "sign", "verify")}
NONCE_BYTES = 12


def expected_bytes(cell):
    """The message's length: input_file's size (input_kind bytes), else message_bytes."""
    if cell.get("input_kind") == "bytes":
        return Path(cell["input_file"]).stat().st_size  # read already: prepare failed after it
    return cell["message_bytes"]


def check_known(cell, got):
    """The cell's call path on its known answer's inputs gave its output_hex."""
    want = cell["known_answer"]["output_hex"]
    if got.hex() != want.lower():
        raise CheckFailed(f"{cell['operation']} {cell['algorithm']} known answer gave {got.hex()}, not {want}")


def known(cell, field):
    return bytes.fromhex(cell["known_answer"][field])


def secret(cell):
    key = Path(cell["private_key"]).read_bytes()
    if len(key) * 8 != cell["key_bits"]:
        raise CheckFailed(f"secret {cell['private_key']} has {len(key) * 8} bits, not {cell['key_bits']}")
    return key


def digest_case(cell, message):
    new = DIGESTS[cell["algorithm"]]
    check_known(cell, new(known(cell, "message_hex")).digest())

    def batch(n):
        sink = 0
        for _ in repeat(None, n):
            sink += len(new(message).digest())
        return sink

    return batch, len(new(message).digest())


def mac_once(key, message):
    h = hmac.HMAC(key, hashes.SHA256())
    h.update(message)
    return h.finalize()


def mac_case(cell, message):
    check_known(cell, mac_once(known(cell, "key_hex"), known(cell, "message_hex")))
    keyed = hmac.HMAC(secret(cell), hashes.SHA256())

    def batch(n):
        sink = 0
        for _ in repeat(None, n):
            h = keyed.copy()
            h.update(message)
            sink += len(h.finalize())
        return sink

    return batch, len(mac_once(secret(cell), message))


def encrypt_case(cell, message):
    check_known(
        cell, AESGCM(known(cell, "key_hex")).encrypt(known(cell, "nonce_hex"), known(cell, "message_hex"), None)
    )
    aead = AESGCM(secret(cell))
    encrypt = aead.encrypt
    nonces = count(1)  # the counter carries over from batch to batch
    nonce = next(nonces).to_bytes(NONCE_BYTES, "big")
    output = encrypt(nonce, message, None)
    if aead.decrypt(nonce, output, None) != message:  # one output of the timed path decrypts back
        raise CheckFailed("AES-256-GCM output did not decrypt to the message")

    def batch(n):
        sink = 0
        for number in islice(nonces, n):
            sink += len(encrypt(number.to_bytes(NONCE_BYTES, "big"), message, None))
        return sink

    return batch, len(output)


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
        raise CheckFailed(f"{cell['private_key']} is not a key for {cell['algorithm']}")
    bits = private.key_size if kind in (rsa.RSAPrivateKey, ec.EllipticCurvePrivateKey) else 256
    if bits != cell["key_bits"] or (curve and private.curve.name != curve):
        raise CheckFailed(f"{cell['private_key']} has {bits} bits, not {cell['key_bits']}")
    return private, public


def signature_case(cell, message):
    private, public = load_keys(cell)
    arguments = SIGNATURES[cell["algorithm"]][2]()
    sign, verify = private.sign, public.verify
    signature = checked_signature(sign, verify, message, arguments)
    return signature_batch(cell["operation"], sign, verify, message, signature, arguments), len(signature)


def checked_signature(sign, verify, message, arguments=(), invalid=InvalidSignature):
    """A signature of `message` that verifies, and with its first byte's lowest bit flipped does not."""
    signature = sign(message, *arguments)
    verify(signature, message, *arguments)  # raises `invalid`: the cell fails
    try:
        verify(bytes([signature[0] ^ 1]) + signature[1:], message, *arguments)
    except invalid:
        return signature
    raise CheckFailed("a signature with its first byte's lowest bit flipped verified")


def signature_batch(operation, sign, verify, message, signature, arguments=()):
    """batch(n): n calls of sign(message, *arguments), or n of verify(signature, message,
    *arguments) (raising when invalid: the cell fails); the sum of the signatures' lengths."""
    length = len(signature)
    if operation == "sign":

        def batch(n):
            sink = 0
            for _ in repeat(None, n):
                sink += len(sign(message, *arguments))
            return sink

    else:

        def batch(n):
            sink = 0
            for _ in repeat(None, n):
                verify(signature, message, *arguments)
                sink += length
            return sink

    return batch


CASES = {"digest": digest_case, "mac": mac_case, "encrypt": encrypt_case, "sign": signature_case}


def prepare(cell):
    """The cell's batch, checked first: its known answer (digest, mac, encrypt), and a batch
    of one consumes what the checked call returned (an ECDSA signature's length varies)."""
    if cell.get("input_kind") == "bytes":
        message = Path(cell["input_file"]).read_bytes()
    else:
        message = sweep_message(cell["message_bytes"])
    batch, output_bytes = CASES.get(cell["operation"], signature_case)(cell, message)
    if batch(1) != output_bytes and not cell["algorithm"].startswith("ECDSA"):
        raise CheckFailed(f"a batch of one call consumed {batch(1)} bytes, not {output_bytes}")
    return Prepared(cell, len(message), batch, output_bytes)
