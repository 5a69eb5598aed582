"""Suite keygen: seed 004's loop (generate a key pair, sign, verify) in two libraries.

pycryptodome, the seed's: RSA.generate(bits) (e = 65537) with pkcs1_15 (PKCS#1 v1.5) and a
SHA256/SHA512 hash object of the message; ECC.generate(curve="P-256") with
DSS.new(key, "fips-186-3") (random k, signature r || s). As the seed, a signer or verifier
is made per call (`pkcs1_15.new(key).sign(SHA256.new(message))`) in the per-iteration
cells; the sign and verify cells make theirs once per cell and only the hash object per
call. PEM keys: RSA.import_key / ECC.import_key.

cryptography: rsa.generate_private_key(65537, bits) with PKCS1v15() and SHA256()/SHA512();
ec.generate_private_key(SECP256R1()) with ECDSA(SHA256()) (DER signature). PEM keys:
load_pem_private_key / load_pem_public_key.

Per-iteration cells (keygen+sign+verify, keygen) run in a child process (multiprocessing,
fork): the child times every iteration, checks the first one's key pair (untimed), and sends
each iteration's ns through a pipe; the parent waits on the pipe until the cell's budget ends
and then kills the child (SIGKILL), so a key generation that would take minutes is
stopped where it is.
"""

import multiprocessing
import statistics
from dataclasses import dataclass
from pathlib import Path

from correctness import CheckFailed
from Crypto.Hash import SHA256 as PyCryptoSHA256
from Crypto.Hash import SHA512 as PyCryptoSHA512
from Crypto.PublicKey import ECC, RSA
from Crypto.Signature import DSS, pkcs1_15
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from timing import Timing, clock

PER_ITERATION = ("keygen+sign+verify", "keygen")
CHECK_MESSAGE = b"0123456789"
PUBLIC_EXPONENT = 65537
CURVES = {256: ec.SECP256R1, 384: ec.SECP384R1, 521: ec.SECP521R1}


class KeygenCheckFailed(CheckFailed):
    pass


def message_of(length):
    """`length` bytes of the ASCII digits 0123456789 repeated (the seed's b'0123456789' * k)."""
    return (b"0123456789" * (length // 10 + 1))[:length]


class Cryptography:
    """pyca/cryptography (its bundled OpenSSL)."""

    name = "cryptography"
    invalid = InvalidSignature

    def __init__(self, family, bits, algorithm):
        self.family, self.bits = family, bits
        digest = hashes.SHA512() if algorithm.endswith("SHA512") else hashes.SHA256()
        self.arguments = (padding.PKCS1v15(), digest) if family == "RSA" else (ec.ECDSA(digest),)
        self.curve = None if family == "RSA" else CURVES[bits]()

    def generate(self):
        if self.family == "RSA":
            return rsa.generate_private_key(PUBLIC_EXPONENT, self.bits)
        return ec.generate_private_key(self.curve)

    @staticmethod
    def public(key):
        return key.public_key()

    def signer(self, key):
        sign, arguments = key.sign, self.arguments
        return lambda message: sign(message, *arguments)

    def verifier(self, public):
        verify, arguments = public.verify, self.arguments
        return lambda signature, message: verify(signature, message, *arguments)

    @staticmethod
    def load(private_pem, public_pem):
        return (
            serialization.load_pem_private_key(private_pem, password=None),
            serialization.load_pem_public_key(public_pem),
        )

    def describe(self, key):
        """(family, bits) of a key: modulus bits, or the curve's field size."""
        if isinstance(key, rsa.RSAPrivateKey):
            return "RSA", key.key_size, key.public_key().public_numbers().e
        if isinstance(key, ec.EllipticCurvePrivateKey):
            return "ECDSA", key.curve.key_size, key.curve.name
        return type(key).__name__, 0, None

    def expected(self):
        return (self.family, self.bits, PUBLIC_EXPONENT if self.family == "RSA" else self.curve.name)

    @staticmethod
    def public_der_bytes(public):
        return len(public.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo))


class PyCryptodome:
    """pycryptodome (its own big integers: Crypto.Math.Numbers)."""

    name = "pycryptodome"
    invalid = ValueError

    def __init__(self, family, bits, algorithm):
        self.family, self.bits = family, bits
        self.hash = PyCryptoSHA512 if algorithm.endswith("SHA512") else PyCryptoSHA256

    def generate(self):
        if self.family == "RSA":
            return RSA.generate(self.bits)
        return ECC.generate(curve=f"P-{self.bits}")

    def public(self, key):
        return key.publickey() if self.family == "RSA" else key.public_key()

    def scheme(self, key):
        return pkcs1_15.new(key) if self.family == "RSA" else DSS.new(key, "fips-186-3")

    def signer(self, key):
        sign, new = self.scheme(key).sign, self.hash.new
        return lambda message: sign(new(message))

    def verifier(self, public):
        verify, new = self.scheme(public).verify, self.hash.new

        def check(signature, message):
            verify(new(message), signature)  # raises ValueError when invalid

        return check

    def load(self, private_pem, public_pem):
        module = RSA if self.family == "RSA" else ECC
        return module.import_key(private_pem), module.import_key(public_pem)

    def describe(self, key):
        if isinstance(key, RSA.RsaKey):
            return "RSA", key.size_in_bits(), int(key.e)
        if isinstance(key, ECC.EccKey):
            return "ECDSA", key.pointQ.size_in_bits(), key.curve
        return type(key).__name__, 0, None

    def expected(self):
        return (self.family, self.bits, PUBLIC_EXPONENT if self.family == "RSA" else f"NIST P-{self.bits}")

    @staticmethod
    def public_der_bytes(public):
        return len(public.export_key(format="DER"))


IMPLEMENTATIONS = {"cryptography": Cryptography, "pycryptodome": PyCryptodome}


def library(cell):
    return IMPLEMENTATIONS[cell["implementation"]](cell["family"], cell["key_bits"], cell["algorithm"])


def check_pair(lib, private, public, what):
    """A key pair signs CHECK_MESSAGE, verifies it, rejects the signature with the lowest
    bit of its first byte flipped; the private key has the cell's family, size and curve
    (RSA: public exponent). Returns the signature's length."""
    got, want = lib.describe(private), lib.expected()
    if got != want:
        raise KeygenCheckFailed(f"{what} is {got}, not {want}")
    signature = lib.signer(private)(CHECK_MESSAGE)
    verify = lib.verifier(public)
    try:
        verify(signature, CHECK_MESSAGE)
    except lib.invalid as exc:
        raise KeygenCheckFailed(f"{what}: its own signature did not verify ({exc})") from exc
    try:
        verify(bytes([signature[0] ^ 1]) + signature[1:], CHECK_MESSAGE)
    except lib.invalid:
        return len(signature)
    raise KeygenCheckFailed(f"{what}: a signature with its first byte's lowest bit flipped verified")


def iteration_of(lib, operation, message):
    """One iteration of the cell, returning its key pair and what it consumes: the
    signature's length (keygen+sign+verify) or 0 (keygen; its rows' output is the public
    key's DER length)."""
    generate, public, signer, verifier = lib.generate, lib.public, lib.signer, lib.verifier
    if operation == "keygen":

        def iteration():
            return generate(), 0

    else:

        def iteration():  # the seed's loop body
            key = generate()
            signature = signer(key)(message)
            verifier(public(key))(signature, message)  # raises when invalid
            return key, len(signature)

    return iteration


def child(connection, lib, operation, message, settings):
    """The per-iteration cell in the child: every iteration timed, at least `iterations`,
    more while the cell's time is under target_cell_seconds, up to max_iterations; the key
    pair of the first one is checked (check_pair) right after it, untimed. Sends
    ("iteration", ns, consumed) per iteration, ("checked", output bytes) after the first,
    then ("done", sink) or ("failed", why)."""
    try:
        start = clock()
        iteration = iteration_of(lib, operation, message)
        target_ns = settings["target_cell_seconds"] * 1e9
        sink = 0
        for number in range(1, settings["max_iterations"] + 1):
            begin = clock()
            key, consumed = iteration()
            elapsed = clock() - begin
            sink += consumed
            if number == 1:
                public = lib.public(key)
                signature_bytes = check_pair(lib, key, public, "a generated key")
                connection.send(("checked", lib.public_der_bytes(public) if operation == "keygen" else signature_bytes))
            connection.send(("iteration", elapsed, consumed))
            if number >= settings["iterations"] and clock() - start >= target_ns:
                break
        connection.send(("done", sink))
    except Exception as exc:  # noqa: BLE001 -- whatever the library raises fails the cell
        connection.send(("failed", f"{type(exc).__name__}: {exc}"))
    finally:
        connection.close()


@dataclass
class IterationResult:
    status: str  # ok, timeout or failed
    elapsed_ns: list  # each timed iteration
    outputs: list  # each timed iteration's output bytes
    spent_ns: int  # from starting the child
    reason: str = ""
    sink: int = 0


def run_iterations(lib, cell, settings):
    """The per-iteration cell in a forked child, killed when max_cell_seconds (counted
    from starting it, the check of its first key pair included) runs out."""
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    message = message_of(cell["message_bytes"])
    process = context.Process(target=child, args=(send, lib, cell["operation"], message, settings), daemon=True)
    start = clock()
    deadline = start + settings["max_cell_seconds"] * 1e9
    process.start()
    send.close()  # the parent keeps the reading end only: EOF when the child is gone
    result = IterationResult("timeout", [], [], 0)
    output_bytes = 0
    try:
        while True:
            remaining = (deadline - clock()) / 1e9
            if remaining <= 0 or not receive.poll(remaining):
                result.reason = f"budget of {settings['max_cell_seconds']} s ran out"
                break
            try:
                message_ = receive.recv()
            except EOFError:
                process.join(5)
                result.status, result.reason = "failed", f"the child process ended (exit {process.exitcode})"
                break
            kind = message_[0]
            if kind == "checked":
                output_bytes = message_[1]
            elif kind == "iteration":
                result.elapsed_ns.append(message_[1])
                result.outputs.append(message_[2] or output_bytes)
            elif kind == "done":
                result.status, result.sink = "ok", message_[1]
                break
            else:
                result.status, result.reason = "failed", message_[1]
                break
    finally:
        result.spent_ns = clock() - start
        if process.is_alive():
            process.kill()
        process.join()
        receive.close()
    if result.status == "timeout" and len(result.elapsed_ns) >= settings["iterations"]:
        result.status = "ok"  # it had done its iterations when the budget ended
    return result


def key_of(cell):
    return (cell["implementation"], cell["family"], cell["key_bits"], cell["private_key"], cell["public_key"])


@dataclass
class PemPair:
    private: object
    public: object


def checked_pem(cell, lib):
    """The cell's PEM pair, parsed once and checked (check_pair)."""
    private, public = lib.load(Path(cell["private_key"]).read_bytes(), Path(cell["public_key"]).read_bytes())
    check_pair(lib, private, public, f"the key pair {cell['private_key']}")
    return PemPair(private, public)


@dataclass
class SignatureCase:
    batch: object
    input_bytes: int
    output_bytes: int


def signature_case(cell, lib, pem):
    """A sign or verify cell's batch, as suite primitive's: the signer or verifier made once."""
    message = message_of(cell["message_bytes"])
    sign, verify = lib.signer(pem.private), lib.verifier(pem.public)
    signature = sign(message)
    verify(signature, message)
    length = len(signature)
    if cell["operation"] == "sign":

        def batch(n):
            sink = 0
            for _ in range(n):
                sink += len(sign(message))
            return sink

    else:

        def batch(n):
            sink = 0
            for _ in range(n):
                verify(signature, message)  # raises when invalid: the cell fails
                sink += length
            return sink

    return SignatureCase(batch, len(message), length)


def bench(spec, out, driver):
    """Per-iteration cells in spec order, one after another; then sign and verify cells,
    warmed up, calibrated and sampled in interleaved rounds."""
    settings = spec["keygen"]
    cells = spec["cells"]
    names = {id(cell): driver.label(index, len(cells), cell) for index, cell in enumerate(cells, 1)}
    pems, failed = {}, {}  # key -> its checked PEM pair, or the reason its cells fail

    def pem_of(cell, lib):
        if key_of(cell) not in pems:
            pems[key_of(cell)] = driver.checked(cell, lambda: checked_pem(cell, lib))
        return pems[key_of(cell)]

    sink = 0
    for cell in (cell for cell in cells if cell["operation"] in PER_ITERATION):
        name, lib = names[id(cell)], library(cell)
        pem = pem_of(cell, lib)
        reason = pem if isinstance(pem, tuple) else failed.get(key_of(cell))
        if reason:
            driver.untimed(out, name, cell, cell["message_bytes"], *reason)
            continue
        result = run_iterations(lib, cell, settings)
        sink ^= result.sink
        if result.status == "failed":
            failed[key_of(cell)] = ("failed", result.reason)
            driver.untimed(out, name, cell, cell["message_bytes"], "failed", result.reason)
            continue
        for number, (elapsed, output) in enumerate(zip(result.elapsed_ns, result.outputs), 1):
            out.row(cell, cell["message_bytes"], result.status, number, 1, elapsed, output)
        if result.elapsed_ns:
            summary = (
                f"{len(result.elapsed_ns)} iterations, median {statistics.median(result.elapsed_ns) / 1e6:,.2f} ms"
            )
        else:
            out.row(cell, cell["message_bytes"], result.status, elapsed=result.spent_ns)
            summary = "no timed iteration"
        why = f" ({result.reason})" if result.status == "timeout" or result.reason else ""
        driver.progress(f"{name}: {result.status}: {summary} in {result.spent_ns / 1e9:.2f} s{why}")

    budget = Timing.from_spec(spec["timing"])
    timed = []
    for cell in (cell for cell in cells if cell["operation"] not in PER_ITERATION):
        name, lib = names[id(cell)], library(cell)
        pem = pem_of(cell, lib)
        reason = pem if isinstance(pem, tuple) else failed.get(key_of(cell))
        if reason:
            driver.untimed(out, name, cell, cell["message_bytes"], *reason)
            continue
        case = driver.checked(cell, lambda: signature_case(cell, lib, pem))  # noqa: B023 -- called at once
        if isinstance(case, tuple):
            driver.untimed(out, name, cell, cell["message_bytes"], *case)
            continue
        timed.append(driver.start_timing(name, cell, case.batch, budget, case.input_bytes, case.output_bytes))
    if timed:
        driver.sample_in_rounds(timed, budget, out, spec)
    driver.progress(f"done: {len(cells)} cells (per-iteration sink {sink})")
