"""Suite keygen in two libraries. pycryptodome, the seed's: pkcs1_15 or DSS "fips-186-3"
(r || s) over a hash object made per call; as the seed, a per-iteration cell makes its
signer and verifier per call, sign and verify cells once. cryptography: ECDSA signatures DER.
"""

from pathlib import Path

from correctness import CheckFailed
from Crypto.Hash import SHA256 as PyCryptoSHA256
from Crypto.Hash import SHA512 as PyCryptoSHA512
from Crypto.PublicKey import ECC, RSA
from Crypto.Signature import DSS, pkcs1_15
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from primitive import checked_signature, signature_batch
from timing import Prepared

PER_ITERATION = ("keygen+sign+verify", "keygen")
PUBLIC_EXPONENT = 65537
CURVES = {256: ec.SECP256R1, 384: ec.SECP384R1, 521: ec.SECP521R1}


def message_of(length):
    """`length` bytes of the ASCII digits 0123456789 repeated (the seed's b'0123456789' * k)."""
    return (b"0123456789" * (length // 10 + 1))[:length]


CHECK_MESSAGE = message_of(10)


class Cryptography:
    """pyca/cryptography (its bundled OpenSSL)."""

    invalid = InvalidSignature

    def __init__(self, family, bits, algorithm):
        self.family, self.bits = family, bits
        digest = hashes.SHA512() if algorithm.endswith("SHA512") else hashes.SHA256()
        self.arguments = (padding.PKCS1v15(), digest) if family == "RSA" else (ec.ECDSA(digest),)
        self.curve = None if family == "RSA" else CURVES[bits]()
        self.expected = (family, bits, PUBLIC_EXPONENT if family == "RSA" else self.curve.name)

    def generate(self):
        if self.family == "RSA":
            return rsa.generate_private_key(PUBLIC_EXPONENT, self.bits)
        return ec.generate_private_key(self.curve)

    def signer(self, key):
        sign, arguments = key.sign, self.arguments
        return lambda message: sign(message, *arguments)

    def verifier(self, public):
        verify, arguments = public.verify, self.arguments
        return lambda signature, message: verify(signature, message, *arguments)

    @staticmethod
    def load(private_pem, public_pem):
        private = serialization.load_pem_private_key(private_pem, password=None)
        return private, serialization.load_pem_public_key(public_pem)

    def describe(self, key):
        """(family, bits, public exponent or curve) of a private key."""
        if isinstance(key, rsa.RSAPrivateKey):
            return "RSA", key.key_size, key.public_key().public_numbers().e
        if isinstance(key, ec.EllipticCurvePrivateKey):
            return "ECDSA", key.curve.key_size, key.curve.name
        return type(key).__name__, 0, None

    @staticmethod
    def public_der_bytes(public):
        return len(public.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo))


class PyCryptodome:
    """pycryptodome (its own big integers: Crypto.Math.Numbers)."""

    invalid = ValueError

    def __init__(self, family, bits, algorithm):
        self.family, self.bits = family, bits
        self.hash = PyCryptoSHA512 if algorithm.endswith("SHA512") else PyCryptoSHA256
        self.expected = (family, bits, PUBLIC_EXPONENT if family == "RSA" else f"NIST P-{bits}")

    def generate(self):
        if self.family == "RSA":
            return RSA.generate(self.bits)
        return ECC.generate(curve=f"P-{self.bits}")

    def scheme(self, key):
        return pkcs1_15.new(key) if self.family == "RSA" else DSS.new(key, "fips-186-3")

    def signer(self, key):
        sign, new = self.scheme(key).sign, self.hash.new
        return lambda message: sign(new(message))

    def verifier(self, public):
        verify, new = self.scheme(public).verify, self.hash.new
        return lambda signature, message: verify(new(message), signature)  # ValueError when invalid

    def load(self, private_pem, public_pem):
        module = RSA if self.family == "RSA" else ECC
        return module.import_key(private_pem), module.import_key(public_pem)

    def describe(self, key):
        if isinstance(key, RSA.RsaKey):
            return "RSA", key.size_in_bits(), int(key.e)
        if isinstance(key, ECC.EccKey):
            return "ECDSA", key.pointQ.size_in_bits(), key.curve
        return type(key).__name__, 0, None

    @staticmethod
    def public_der_bytes(public):
        return len(public.export_key(format="DER"))


IMPLEMENTATIONS = {"cryptography": Cryptography, "pycryptodome": PyCryptodome}


def check_pair(lib, private, public, what):
    """A key pair of the cell's family, size and curve (RSA: exponent) passes checked_signature;
    the signature's length."""
    if lib.describe(private) != lib.expected:
        raise CheckFailed(f"{what} is {lib.describe(private)}, not {lib.expected}")
    try:
        return len(checked_signature(lib.signer(private), lib.verifier(public), CHECK_MESSAGE, invalid=lib.invalid))
    except lib.invalid as exc:
        raise CheckFailed(f"{what}: its own signature did not verify ({exc})") from exc
    except CheckFailed as exc:
        raise CheckFailed(f"{what}: {exc}") from exc


class Iterations:
    """A per-iteration cell: each call generates a NEW key pair in this process (keygen+sign+verify
    then signs and verifies the message); the first pair is checked after its call (untimed)."""

    def __init__(self, lib, operation, message):
        self.lib, self.operation, self.message = lib, operation, message
        self.key, self.checked = None, False

    def batch(self, n):
        lib, message, sink = self.lib, self.message, 0
        for _ in range(n):
            self.key = key = lib.generate()
            if self.operation != "keygen":
                signature = lib.signer(key)(message)
                lib.verifier(key.public_key())(signature, message)  # raises when invalid
                sink += len(signature)
        return sink

    def answer(self, n, sink):
        """The batch answer's output_bytes: the signature's length (keygen: the public key's
        DER length); the first generated pair checked first."""
        public = self.key.public_key()
        if not self.checked:
            check_pair(self.lib, self.key, public, "a generated key")
            self.checked = True
        if self.operation == "keygen":
            return {"output_bytes": self.lib.public_der_bytes(public)}
        return {"output_bytes": round(sink / n)}


def signature_case(cell, lib, pem):
    """A sign or verify cell's batch, as suite primitive's: the signer or verifier made once."""
    message = message_of(cell["message_bytes"])
    sign, verify = lib.signer(pem[0]), lib.verifier(pem[1])
    signature = checked_signature(sign, verify, message, invalid=lib.invalid)
    batch = signature_batch(cell["operation"], sign, verify, message, signature)
    return Prepared(cell, len(message), batch, len(signature))


PEMS = {}  # each key's checked PEM pair


def expected_bytes(cell):
    return cell["message_bytes"]


def prepare(cell):
    """The cell's batch (per-iteration cells: their answer too), its PEM pair checked once
    per key; no key pair is generated here."""
    lib = IMPLEMENTATIONS[cell["implementation"]](cell["family"], cell["key_bits"], cell["algorithm"])
    key = (cell["implementation"], cell["family"], cell["key_bits"], cell["private_key"], cell["public_key"])
    if key not in PEMS:
        private, public = lib.load(Path(cell["private_key"]).read_bytes(), Path(cell["public_key"]).read_bytes())
        PEMS[key] = private, public, check_pair(lib, private, public, f"the key pair {cell['private_key']}")
    pem = PEMS[key]  # (private, public, the signature's length)
    if cell["operation"] not in PER_ITERATION:
        return signature_case(cell, lib, pem)
    iterations = Iterations(lib, cell["operation"], message_of(cell["message_bytes"]))
    output_bytes = lib.public_der_bytes(pem[1]) if cell["operation"] == "keygen" else pem[2]
    return Prepared(cell, cell["message_bytes"], iterations.batch, output_bytes, answer=iterations.answer)
