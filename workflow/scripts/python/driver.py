"""jwtbench python driver: PyJWT (or the library JWTBENCH_LIBRARY names, libraries.py);
the commands are the contract's (workflow/scripts/README.md), `serve` its worker."""

import argparse
import hashlib
import importlib.metadata
import json
import os
import platform
import ssl
import sys
from itertools import cycle
from pathlib import Path

import hashing
from correctness import CheckFailed, b64url_encode, check
from jwt_algorithms import (
    INVALID_TOKEN,
    AlgorithmUnderTest,
    InputError,
    UnsupportedAlgorithm,
    ensure_supported,
    load_inputs,
    load_signing_key,
    load_verifying_key,
    sign,
    verify,
    verify_signature,
)
from libraries import adapter
from timeit_harness import HARNESS, TimeitHarness
from timing import Prepared, batch_of, clock

EXIT_INVALID, EXIT_USAGE, EXIT_UNSUPPORTED, EXIT_ERROR = 1, 2, 3, 4
IMPLEMENTATION = adapter.NAME  # the JWS library (pyjwt, or the one JWTBENCH_LIBRARY names)
# implementation -> its version as loaded (pycryptodome imported only by the suite using it)
VERSIONS = {
    IMPLEMENTATION: lambda: adapter.VERSION,
    "hashlib": platform.python_version,
    "cryptography": lambda: __import__("cryptography").__version__,
    "pycryptodome": lambda: __import__("Crypto").__version__,
}


class UsageError(Exception):
    pass


def read_file(path, what):
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {what} {path}: {exc.strerror}") from exc


def versions():
    from cryptography.hazmat.backends.openssl.backend import backend

    libraries = {name: importlib.metadata.version(name) for name in adapter.DISTRIBUTIONS}
    libraries["hashlib"] = VERSIONS["hashlib"]()  # the standard library's, at the Python version
    libraries["pycryptodome"] = VERSIONS["pycryptodome"]()
    return {
        "language": "python",
        "runtime": platform.python_implementation().lower(),
        "runtime_version": platform.python_version(),
        "implementation": IMPLEMENTATION,
        "implementation_version": adapter.VERSION,
        "crypto_backend": f"cryptography {libraries['cryptography']} on {backend.openssl_version_text()}",
        "hash_backend": f"hashlib on {ssl.OPENSSL_VERSION} (the ssl module's libcrypto)",
        "pycryptodome_integer": pycryptodome_integer(),
        "libraries": libraries,
    }


def pycryptodome_integer():
    """pycryptodome's big-integer class (GMP, its own C IntegerNat/IntegerCustom, or pure Python)."""
    from Crypto.Math import Numbers

    integer = Numbers.Integer
    details = getattr(Numbers, "_implementation", {})
    gmp = "GMP" if "GMP" in integer.__name__ else "not GMP"
    return f"{integer.__module__}.{integer.__name__} ({gmp}; {details})"


def command_sign(args):
    ensure_supported(args.alg)
    claims = json.loads(read_file(args.payload, "payload"))
    print(sign(claims, load_signing_key(args.alg, args.key), args.alg))


def one_line(exc):
    """An error as the contract's one line: its type and message, at most 300 characters."""
    return " ".join(f"{type(exc).__name__}: {exc}".split())[:300]


def judged(call):
    """(exit status, result or reason) of one verify call: 0, 1 for the library's documented
    INVALID_TOKEN, 4 for anything else it raised (RecursionError on deep JSON, ...)."""
    try:
        return 0, call()
    except INVALID_TOKEN as exc:
        return EXIT_INVALID, one_line(exc)
    except Exception as exc:  # noqa: BLE001 - a hostile token must get a verdict, not a traceback
        return EXIT_ERROR, one_line(exc)


def command_verify(args):
    ensure_supported(args.alg)
    token = read_file(args.token, "token").strip()  # bytes: a token need not be UTF-8
    key = load_verifying_key(args.alg, args.key)
    check = verify_signature if args.signature_only else verify
    status, verified = judged(lambda: check(token, key, args.alg))
    if status == EXIT_INVALID:
        print(f"invalid token: {verified}", file=sys.stderr)
    elif status == EXIT_ERROR:
        print(f"error: {verified}", file=sys.stderr)
    elif args.signature_only:
        sys.stdout.buffer.write(verified)  # the payload exactly as signed, no newline
    else:
        print(json.dumps(verified, separators=(",", ":")))
    return status


def reset_peak_rss():
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass


def peak_rss_kb():
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


OUTCOMES = {0: "accept", EXIT_INVALID: "reject", EXIT_UNSUPPORTED: "unsupported", EXIT_ERROR: "error"}


def verify_case(case):
    """One conformance case's line, from one timed call of `verify` (or --signature-only)."""
    alg = case["alg"]
    signature_only = bool(case.get("signature_only"))
    try:
        ensure_supported(alg)
    except UnsupportedAlgorithm as exc:
        return case_line(case, EXIT_UNSUPPORTED, 0, one_line(exc))
    try:
        key = load_verifying_key(alg, case["key"])
        token = Path(case["token"]).read_bytes().strip()
    except Exception as exc:  # noqa: BLE001 - the case's line says what could not be loaded
        return case_line(case, EXIT_ERROR, 0, f"cannot load the case's key or token: {type(exc).__name__}")
    reset_peak_rss()
    start = clock()
    status, result = judged(lambda: (verify_signature if signature_only else verify)(token, key, alg))
    elapsed = clock() - start
    line = case_line(case, status, elapsed, "" if status == 0 else result)
    if status == 0 and signature_only:
        line["payload_b64url"] = b64url_encode(result)
    elif status == 0 and case.get("claims"):
        line["claims"] = result  # what `verify` prints, for the gate's checks
    return line


def case_line(case, status, elapsed_ns, reason):
    line = {"id": case["id"], "exit": status, "outcome": OUTCOMES[status], "elapsed_ns": elapsed_ns}
    return {**line, "peak_rss_kb": peak_rss_kb(), "reason": reason}


def read_cases(path, fields):
    """The cases of a batch command's FILE, each with every one of `fields`."""
    try:
        cases = json.loads(read_file(path, "cases"))["cases"]
        incomplete = [index for index, case in enumerate(cases) if not fields.issubset(case)]
    except (ValueError, KeyError, TypeError) as exc:
        raise UsageError(f"{path}: not a cases file ({one_line(exc)})") from None
    if incomplete:
        raise UsageError(f"{path}: case {incomplete[0]} lacks one of {sorted(fields)}")
    return cases


def batch_command(fields, one_case):
    """verify-batch, sign-batch: each case's line as it ends."""

    def command(args):
        for case in read_cases(args.cases, fields):
            print(json.dumps(one_case(case)), flush=True)

    return command


def sign_case(case):
    """One case of sign-batch: what `sign` does, as a line with its exit status."""
    alg = case["alg"]
    try:
        ensure_supported(alg)
    except UnsupportedAlgorithm as exc:
        return {"id": case["id"], "exit": EXIT_UNSUPPORTED, "token": "", "reason": one_line(exc)}
    try:
        claims = json.loads(Path(case["payload"]).read_bytes())
        token = sign(claims, load_signing_key(alg, case["key"]), alg)
    except Exception as exc:  # noqa: BLE001 - the case's line says what went wrong
        return {"id": case["id"], "exit": EXIT_ERROR, "token": "", "reason": one_line(exc)}
    return {"id": case["id"], "exit": 0, "token": token, "reason": ""}


def command_coldstart(args):
    """A whole process's work for the coldstart suite: one HS256 and one RS256 token."""
    claims = json.loads(read_file(args.payload, "payload"))
    for algorithm, key_file in (("HS256", args.hmac), ("RS256", args.rsa)):
        print(sign(claims, load_signing_key(algorithm, key_file), algorithm))


def entry(prepared):
    """A cell's entry in the hello (README, "serve")."""
    implementation = prepared.cell["implementation"]
    entry = {
        "status": prepared.status,
        "implementation": implementation,
        "implementation_version": VERSIONS[implementation](),
        "input_bytes": prepared.input_bytes,
    }
    if prepared.status == "ok":
        return {**entry, "output_bytes": prepared.output_bytes, "pass_length": prepared.pass_length}
    return {**entry, "reason": prepared.reason}


def checked(cell, prepare, input_bytes):
    """prepare(cell), or the cell unsupported or failed (with why, on stderr too)."""
    try:
        return prepare(cell)
    except UnsupportedAlgorithm as exc:  # a library without decode too
        status, reason = "unsupported", str(exc)
    except CheckFailed as exc:
        status, reason = "failed", str(exc)
    except OSError as exc:
        raise UsageError(f"cell {cell['algorithm']}: cannot read {exc.filename}: {exc.strerror}") from exc
    except Exception as exc:  # noqa: BLE001 - a library error before timing is a failed cell, not a crash
        status, reason = "failed", one_line(exc)
    print(f"{cell['operation']} {cell['algorithm']} {cell['input']}: {status}: {reason}", file=sys.stderr)
    return Prepared(cell, input_bytes(cell), status=status, reason=reason)


def load_spec(path):
    """The spec at `path`, each cell's implementation (and a JWT cell's input_kind) filled in
    where it names none; the conductor has checked the rest."""
    try:
        spec = json.loads(read_file(path, "spec"))
        suite = spec["suite"]
        for cell in spec["cells"]:
            if suite == "primitive":
                cell.setdefault("implementation", importlib.import_module("primitive").OPERATIONS[cell["operation"]])
            cell.setdefault("implementation", {"keygen": "cryptography", "hash": "hashlib"}.get(suite, IMPLEMENTATION))
            if "input_file" in cell:
                cell.setdefault("input_kind", "claims")
    except (ValueError, KeyError, TypeError) as exc:
        raise UsageError(f"spec {path}: not a spec this driver serves ({one_line(exc)})") from None
    if suite not in SUITES:
        raise UsageError(f"spec {path}: suite {suite!r} is not one this driver runs ({', '.join(SUITES)})")
    return spec


def jwt_cells(spec):
    """Suites jwt, percall, tokensize and transfer (and a cross-check spec): every input file
    parsed first; a case (keys, token pool, checks) once per algorithm, key pair and input."""
    suite, inputs, cases = spec["suite"], {}, {}
    for cell in spec["cells"]:
        path, kind = cell["input_file"], cell["input_kind"]
        try:
            inputs[path, kind] = inputs.get((path, kind)) or load_inputs(path, kind)
            if suite == "transfer":
                importlib.import_module("transfer").check_body(inputs[path, kind].claims[0], path)
        except OSError as exc:
            raise UsageError(f"cannot read input {path}: {exc.strerror}") from exc
        except InputError as exc:
            raise UsageError(f"input {exc}") from exc

    def prepare(cell):
        given = inputs[cell["input_file"], cell["input_kind"]]
        key = (cell["algorithm"], cell["private_key"], cell["public_key"], id(given))
        if key not in cases:
            case = AlgorithmUnderTest.prepare(*key[:3], given, 1 if suite == "tokensize" else None)
            check(case, cell["public_key"])
            cases[key] = case
        case = cases[key]
        if suite == "transfer":
            trials = importlib.import_module("transfer").TransferCell(case, spec["transfer"]["request_timeout_seconds"])
            CLOSE.append(trials.close)
            return Prepared(cell, given.mean_bytes, trials.batch, case.output_bytes, answer=trials.answer)
        calls = case.call_list(cell["operation"])
        prepared = Prepared(cell, given.mean_bytes, batch_of(cycle(calls)), case.output_bytes, len(calls), calls=calls)
        if suite == "tokensize":  # a batch of one answers its record's and token's size
            sizes, position = given.sizes, [0]

            def answer(n, sink):
                position[0] = (position[0] + n) % len(sizes)
                return {"input_bytes": sizes[position[0] - 1], "output_bytes": sink} if n == 1 else {}

            prepared.answer = answer
        return prepared

    return prepare, lambda cell: inputs[cell["input_file"], cell["input_kind"]].mean_bytes


CLOSE = []  # what stops at the end request (transfer's servers)


def module_cells(name):
    """Suites hash, primitive, harness and keygen: each cell prepared by its module."""
    return lambda spec: (importlib.import_module(name).prepare, importlib.import_module(name).expected_bytes)


# suite -> spec -> (cell -> its Prepared, raising when it cannot be timed; cell -> its input bytes)
MODULES = {"hash": "hashing", "primitive": "primitive", "harness": "harness", "keygen": "keygen"}
SUITES = dict.fromkeys(("jwt", "percall", "tokensize", "transfer"), jwt_cells)
SUITES |= {suite: module_cells(module) for suite, module in MODULES.items()}
REFERENCED = ("jwt", "hash", "primitive", "harness", "keygen")  # the suites with a drift reference
# The drift reference: SHA-256 of the 64 bytes 00..3f, as suite hash's digest batch.
REFERENCE_MESSAGE = hashing.sweep_message(64)
REFERENCE_STATEMENT = hashing.RESULTS["digest"].format("message")  # new(message).digest(), for timeit


def command_serve(args):
    """The conductor's worker (jwtbench-worker/1): prepare and check every cell, the hello, the requests."""
    spec = load_spec(args.spec)
    # The protocol owns the real stdout; anything else printing goes to stderr.
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "w", buffering=1)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    prepare, input_bytes = SUITES[spec["suite"]](spec)
    cells = {index: checked(cell, prepare, input_bytes) for index, cell in enumerate(spec["cells"])}
    _, batch = hashing.compiled("digest", "message", [], new=hashlib.sha256, message=REFERENCE_MESSAGE)
    reference = {"implementation": "hashlib", "operation": "reference", "algorithm": "SHA-256", "input": "reference"}
    cells["reference"] = Prepared(reference, len(REFERENCE_MESSAGE), batch, hashlib.sha256().digest_size)
    hello = {"protocol": "jwtbench-worker/1", "cells": [entry(cells[i]) for i in range(len(spec["cells"]))]}
    hello["reference"] = entry(cells["reference"]) if spec["suite"] in REFERENCED else None
    native = {}
    if "crosscheck" in spec:  # a cross-check spec: timeit on each cell's very call
        hello["harness"] = HARNESS
        native = {i: TimeitHarness.of_calls(cell.calls) for i, cell in cells.items() if cell.calls}
        native["reference"] = TimeitHarness(REFERENCE_STATEMENT, {"new": hashlib.sha256, "message": REFERENCE_MESSAGE})
    answers.write(json.dumps(hello) + "\n")
    try:
        return serve_requests(cells, native, answers)
    finally:
        for close in CLOSE:
            close()


def serve_requests(cells, native, answers):
    """Each request in order: its batches, one answer line as each ends, or a native measurement."""
    sink = 0
    for line in sys.stdin:
        request = json.loads(line)
        if request.get("end"):
            answers.write(json.dumps({"sink": sink}) + "\n")
            return 0
        if "native" in request:
            key, seconds = request["native"]
            try:
                answers.write(json.dumps(native[key].measure(float(seconds))) + "\n")
            except Exception as exc:  # noqa: BLE001 - the conductor records the cell as failed
                answers.write(json.dumps({"error": one_line(exc)}) + "\n")
            continue
        for key, n in request["batches"]:
            cell = cells[key]
            try:
                start = clock()
                folded = cell.batch(n)
                elapsed = clock() - start
                answer = {"elapsed_ns": elapsed, **(cell.answer(n, folded) if cell.answer else {})}
            except Exception as exc:  # noqa: BLE001 - the conductor records the cell as failed
                answers.write(json.dumps({"error": one_line(exc)}) + "\n")
                break
            sink ^= folded
            answers.write(json.dumps(answer) + "\n")
    print("serve: the conductor closed the pipe without an end request", file=sys.stderr)
    return EXIT_ERROR


# command -> its function and its flags (all required)
COMMANDS = {
    "versions": (lambda args: print(json.dumps(versions())), ()),
    "sign": (command_sign, ("--alg", "--key", "--payload")),
    "verify": (command_verify, ("--alg", "--key", "--token")),
    "verify-batch": (batch_command({"id", "alg", "key", "token"}, verify_case), ("--cases",)),
    "sign-batch": (batch_command({"id", "alg", "key", "payload"}, sign_case), ("--cases",)),
    "serve": (command_serve, ("--spec",)),
    "coldstart": (command_coldstart, ("--hmac", "--rsa", "--payload")),
}


def parser():
    top = argparse.ArgumentParser(prog="python-driver", description=__doc__.splitlines()[0])
    sub = top.add_subparsers(dest="command", required=True)
    for name, (_, flags) in COMMANDS.items():
        p = sub.add_parser(name)
        for flag in flags:
            p.add_argument(flag, required=True)
        if name == "verify":
            p.add_argument("--signature-only", action="store_true", help="the JWS alone; print the payload as signed")
    return top


def main(argv):
    args = parser().parse_args(argv)  # exits 2 naming the flag on a usage error
    try:
        return COMMANDS[args.command][0](args) or 0
    except UnsupportedAlgorithm as exc:
        print(f"unsupported: {exc}", file=sys.stderr)
        return EXIT_UNSUPPORTED
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:  # a key file that cannot be read
        print(f"error: cannot read {exc.filename}: {exc.strerror}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
