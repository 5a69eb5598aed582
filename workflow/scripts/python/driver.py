"""jwtbench python driver: PyJWT on the cryptography backend; hashlib for suite hash;
cryptography and hashlib for suite primitive; cryptography and pycryptodome for keygen.
Another JWS library through its adapter when JWTBENCH_LIBRARY names one (libraries.py).

Subcommands (the contract every driver shares, workflow/scripts/README.md):
  versions | sign --alg --key --payload | verify --alg --key --token [--signature-only]
  | verify-batch --cases | sign-batch --cases
  | bench --spec --out | serve --spec | crosscheck --spec --out | stopping --series
  | coldstart --hmac --rsa --payload
Suites: jwt, tokensize, transfer, hash, percall, primitive, harness, keygen (README.md beside this file).
"""

import argparse
import base64
import csv
import dataclasses
import functools
import hashlib
import importlib
import importlib.metadata
import itertools
import json
import math
import os
import platform
import ssl
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

import hashing
import transfer
from correctness import CheckFailed, check
from crosscheck import Crosscheck
from jwt_algorithms import (
    INVALID_TOKEN,
    AlgorithmUnderTest,
    InputError,
    UnsupportedAlgorithm,
    UnsupportedOperation,
    ensure_supported,
    load_inputs,
    load_signing_key,
    load_verifying_key,
    rounded_mean,
    sign,
    verify,
    verify_signature,
)
from libraries import adapter
from spec import (
    IMPLEMENTATIONS,
    TIMING_FIELDS,
    UsageError,
    check_numbers,
    check_pairs,
    is_number,
    load_crosscheck_spec,
    load_spec,
    read_file,
)
from timeit_harness import TimeitHarness
from timing import CellTiming, Timing, batch_of, clock, each_timed, run_batch, time_each_call

from jwtbench import stopping_rule  # on the path that ./run sets

EXIT_INVALID, EXIT_USAGE, EXIT_UNSUPPORTED, EXIT_ERROR = 1, 2, 3, 4
IMPLEMENTATION = adapter.NAME  # the JWS library (pyjwt, or the one JWTBENCH_LIBRARY names)
# implementation -> how to read its version as loaded, for the rows' implementation_version
# (pycryptodome is imported only by the suite that uses it: cold start stays the library's)
VERSIONS = {
    IMPLEMENTATION: lambda: adapter.VERSION,
    "hashlib": platform.python_version,
    "cryptography": lambda: __import__("cryptography").__version__,
    "pycryptodome": lambda: __import__("Crypto").__version__,
}
COLUMNS = [
    "language",
    "implementation",
    "implementation_version",
    "suite",
    "operation",
    "algorithm",
    "key_bits",
    "input",
    "input_bytes",
    "sample",
    "iterations",
    "elapsed_ns",
    "output_bytes",
    "status",
]


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
    """Which big-integer class pycryptodome uses (Crypto.Math.Numbers.Integer), which
    decides its key generation speed: GMP (IntegerGMP, pycryptodome 3.x with libgmp),
    its own C library (IntegerNat, 4.x; IntegerCustom, 3.x) or pure Python (IntegerNative)."""
    from Crypto.Math import Numbers

    integer = Numbers.Integer
    details = getattr(Numbers, "_implementation", {})
    gmp = "GMP" if "GMP" in integer.__name__ else "not GMP"
    return f"{integer.__module__}.{integer.__name__} ({gmp}; {details})"


def command_sign(args):
    ensure_supported(args.alg)
    claims = json.loads(read_file(args.payload, "payload"))
    print(sign(claims, load_signing_key(args.alg, args.key), args.alg))
    return 0


def one_line(exc):
    """An error as the contract's one line: its type and message, at most 300 characters."""
    return " ".join(f"{type(exc).__name__}: {exc}".split())[:300]


def judged(call):
    """(exit status, result or reason) of one verify call: 0 and what it returned; 1 when
    the library says the token is invalid (its documented errors, INVALID_TOKEN); 4 for
    anything else it raised (RecursionError on deep JSON, MemoryError, a ValueError the
    library does not wrap), never a traceback."""
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


CASE_FIELDS = {"id", "alg", "key", "token"}
OUTCOMES = {0: "accept", EXIT_INVALID: "reject", EXIT_UNSUPPORTED: "unsupported", EXIT_ERROR: "error"}


def verify_case(case):
    """One conformance case (README.md, verify-batch): its line, from one timed call of
    the same verify as the `verify` command (`verify --signature-only` when the case says
    `signature_only`)."""
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
        line["payload_b64url"] = base64.urlsafe_b64encode(result).rstrip(b"=").decode("ascii")
    elif status == 0 and case.get("claims"):
        line["claims"] = result  # what `verify` prints, for the gate's checks
    return line


def case_line(case, status, elapsed_ns, reason):
    return {
        "id": case["id"],
        "exit": status,
        "outcome": OUTCOMES[status],
        "elapsed_ns": elapsed_ns,
        "peak_rss_kb": peak_rss_kb(),
        "reason": reason,
    }


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


def command_verify_batch(args):
    for case in read_cases(args.cases, CASE_FIELDS):
        print(json.dumps(verify_case(case)), flush=True)
    return 0


SIGN_CASE_FIELDS = {"id", "alg", "key", "payload"}


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


def command_sign_batch(args):
    for case in read_cases(args.cases, SIGN_CASE_FIELDS):
        print(json.dumps(sign_case(case)), flush=True)
    return 0


def command_coldstart(args):
    """A whole process's work for the coldstart suite: one HS256 and one RS256 token."""
    claims = json.loads(read_file(args.payload, "payload"))
    for algorithm, key_file in (("HS256", args.hmac), ("RS256", args.rsa)):
        print(sign(claims, load_signing_key(algorithm, key_file), algorithm))
    return 0


class CellWriter:
    """Raw-sample CSV; every row is flushed as soon as it is written."""

    def __init__(self, handle, suite):
        self.handle = handle
        self.writer = csv.writer(handle, lineterminator="\n")
        self.writer.writerow(COLUMNS)
        self.suite = suite
        # suites primitive and keygen: per cell (spec.py fills in each cell's)
        self.implementation = IMPLEMENTATIONS.get(suite)

    def row(self, cell, input_bytes, status, sample=0, batch=0, elapsed=0, output_bytes=0, operation=None):
        implementation = cell.get("implementation", self.implementation)
        self.writer.writerow(
            [
                "python",
                implementation,
                VERSIONS[implementation](),
                self.suite,
                operation or cell["operation"],
                cell["algorithm"],
                cell["key_bits"],
                cell["input"],
                input_bytes,
                sample,
                batch,
                elapsed,
                output_bytes,
                status,
            ]
        )
        self.handle.flush()


def label(index, count, cell):
    """A cell's name in progress lines: its algorithm and key size, or (hash) its input;
    both for a cell with a message of its own (primitive, keygen), and its implementation
    when it names one."""
    key_or_input = f"-{cell['key_bits']}" if cell["key_bits"] else f" {cell['input']}"
    if cell["key_bits"] and ("message_bytes" in cell or cell.get("input_kind") == "bytes"):
        key_or_input += f" {cell['input']}"
    implementation = f" ({cell['implementation']})" if "implementation" in cell else ""
    return f"[{index}/{count}] {cell['operation']} {cell['algorithm']}{key_or_input}{implementation}"


def progress(text):
    print(text, file=sys.stderr, flush=True)


def input_key(cell):
    return cell["input_file"], cell["input_kind"]


def load_all_inputs(spec):
    """Every cell's inputs, read and parsed before anything is timed, once per file."""
    loaded = {}
    for cell in spec["cells"]:
        if input_key(cell) not in loaded:
            loaded[input_key(cell)] = load_cell_inputs(*input_key(cell), spec["suite"])
    return loaded


def load_cell_inputs(path, kind, suite):
    try:
        inputs = load_inputs(path, kind)
        if suite == "transfer":
            transfer.check_body(inputs.claims[0], path)
    except OSError as exc:
        raise UsageError(f"cannot read input {path}: {exc.strerror}") from exc
    except InputError as exc:
        raise UsageError(f"input {exc}") from exc
    return inputs


def checked(cell, prepare):
    """prepare()'s checked case, or (status, reason) for a cell that cannot be timed."""
    try:
        return prepare()
    except UnsupportedAlgorithm as exc:
        return ("unsupported", str(exc))
    except CheckFailed as exc:
        return ("failed", str(exc))
    except OSError as exc:
        raise UsageError(f"cell {cell['algorithm']}: cannot read {exc.filename}: {exc.strerror}") from exc
    except Exception as exc:  # a library error before timing is a failed cell, not a crash
        return ("failed", f"{type(exc).__name__}: {exc}")


def prepare_and_check(cell, inputs, pool_size=None):
    def prepare():
        case = AlgorithmUnderTest.prepare(cell["algorithm"], cell["private_key"], cell["public_key"], inputs, pool_size)
        check(case, cell["public_key"])
        return case

    return checked(cell, prepare)


def prepare_cases(cells, inputs):
    """Each cell's checked case (or (status, reason)), in turn, prepared once per
    algorithm, key pair and input: that case's token pool serves all its cells."""
    prepared = {}
    for cell in cells:
        key = (cell["algorithm"], cell["private_key"], cell["public_key"], *input_key(cell))
        if key not in prepared:
            prepared[key] = prepare_and_check(cell, inputs[input_key(cell)])
        yield prepared[key]


def untimed(out, name, cell, input_bytes, status, reason):
    progress(f"{name}: {status}: {reason}")
    out.row(cell, input_bytes, status)


@dataclass
class TimedCell:
    cell: dict
    input_bytes: int
    output_bytes: int
    timing: CellTiming


def start_timing(name, cell, run, budget, input_bytes, output_bytes, pass_length=1):
    """Warm the cell up and calibrate it, saying how on stderr; `run` is its
    batch function (timing.CellTiming)."""
    timing = CellTiming(run, budget, pass_length)
    timing.warm_up_and_calibrate()
    if timing.steadiness:
        progress(f"{name}: {timing.steadiness}")
    progress(f"{name}: batch of {timing.batch}{' (will time out)' if timing.timed_out else ''}")
    return TimedCell(cell, input_bytes, output_bytes, timing)


STOPPED = {
    stopping_rule.PRECISION: "precision",
    stopping_rule.SAMPLE_CAP: "sample cap",
    stopping_rule.EXHAUSTED: "time cap",
}

# The drift reference, one sample of it at the start of every round.
REFERENCE_MESSAGE = hashing.sweep_message(64)
REFERENCE = {
    "operation": "reference",
    "algorithm": "SHA-256",
    "key_bits": 0,
    "input": "reference",
    "implementation": "hashlib",
}
# the reference's call as its batch's loop has it, new(message).digest(), for crosscheck's timeit
REFERENCE_STATEMENT = hashing.RESULTS["digest"].format("message")


def reference_timing(budget):
    """The reference (suite hash's digest batch) warmed up and calibrated as a cell is
    (never until steady)."""
    _, run = hashing.compiled("digest", "message", [], new=hashlib.sha256, message=REFERENCE_MESSAGE)
    timing = CellTiming(run, dataclasses.replace(budget, warmup_max_seconds=0.0))
    timing.warm_up_and_calibrate()
    return timing


def sample_in_rounds(timed, budget, out, spec):
    """Interleaved rounds: round k takes sample k of every timed cell still sampling, in spec
    order, so a slow spell of the machine lands on one sample of many cells rather than on
    many samples of one cell. After each round the stopping rule stops a cell once it and
    every ratio it takes part in (the spec's pairs, paired by round) are precise enough, or
    at the cap; the time cap stops it once its time is up. Each round opens with a sample of
    the drift reference. Then one line per cell with its median and why it stopped."""
    cells = spec["cells"]
    position = {id(cell): index for index, cell in enumerate(cells)}
    entries = {position[id(entry.cell)]: entry for entry in timed}
    rounds = stopping_rule.Rounds(len(cells), spec.get("pairs", []), budget.target)
    for index in set(range(len(cells))) - entries.keys():
        rounds.stop(index, "not timed")
    reference = reference_timing(budget) if entries else None
    if reference:
        progress(f"drift reference: SHA-256 of 64 bytes, batch of {reference.batch}")
    for round_number in range(1, budget.samples + 1):
        for index, entry in entries.items():
            if rounds.sampling(index) and not entry.timing.within_time():
                rounds.stop(index, stopping_rule.EXHAUSTED)
        sampled = [(index, entry) for index, entry in entries.items() if rounds.sampling(index)]
        if not sampled:
            break
        out.row(
            REFERENCE,
            len(REFERENCE_MESSAGE),
            "ok",
            round_number,
            reference.batch,
            reference.take_sample(),
            hashlib.sha256().digest_size,
        )
        for index, entry in sampled:
            elapsed = entry.timing.take_sample()
            rounds.add(index, round_number, elapsed / entry.timing.batch)
            status = "timeout" if entry.timing.timed_out else "ok"
            out.row(
                entry.cell, entry.input_bytes, status, round_number, entry.timing.batch, elapsed, entry.output_bytes
            )
        rounds.end_round()
        progress(f"round {round_number}/{budget.samples} done: {len(sampled)} cells sampled")

    sink = 0
    for number, (index, entry) in enumerate(entries.items(), 1):
        timing = entry.timing
        sink ^= timing.sink
        if not timing.elapsed_ns:
            out.row(entry.cell, entry.input_bytes, "timeout", elapsed=timing.spent_ns)
            summary = f"timeout: no sample within {budget.max_cell_seconds} s"
        else:
            per_op = sorted(timing.elapsed_ns)[len(timing.elapsed_ns) // 2] / timing.batch
            status = "timeout" if timing.timed_out else "ok"
            why = STOPPED.get(rounds.stopped[index], "time cap")
            summary = (
                f"{status}: {per_op:,.0f} ns/op ({len(timing.elapsed_ns)} samples x {timing.batch}, stopped at {why})"
            )
        progress(f"{label(number, len(entries), entry.cell)}: {summary}")
    if reference:
        sink ^= reference.sink
    progress(f"done: {len(cells)} cells, {len(timed)} timed (sink {sink})")


@dataclass
class Prepared:
    """One spec cell, prepared and checked (untimed): its batch function when it can be
    timed, else its status (unsupported, failed) and why."""

    cell: dict
    input_bytes: int
    run: object = None  # n -> folded result sizes of n calls
    output_bytes: int = 0
    pass_length: int = 1  # calls per pass through its inputs (a records cell's batches are whole passes)
    status: str = "ok"
    reason: str = ""


def prepare_jwt(spec):
    """Suite jwt's cells, each prepared and checked in turn (prepare_cases)."""
    cells = spec["cells"]
    inputs = load_all_inputs(spec)
    for cell, case in zip(cells, prepare_cases(cells, inputs)):
        if isinstance(case, tuple):
            yield Prepared(cell, inputs[input_key(cell)].mean_bytes, status=case[0], reason=case[1])
            continue
        try:
            calls = case.calls(cell["operation"])
        except UnsupportedOperation as exc:  # a library without decode
            yield Prepared(cell, case.inputs.mean_bytes, status="unsupported", reason=str(exc))
            continue
        mean_bytes = case.inputs.mean_bytes
        yield Prepared(cell, mean_bytes, batch_of(calls), case.output_bytes, len(case.inputs.claims))


def prepare_with(module, spec):
    """Suites hash (hashing.py), primitive (primitive.py) and harness (harness.py): each cell
    checked and given its batch by `module.prepare`."""
    for cell in spec["cells"]:
        case = checked(cell, functools.partial(module.prepare, cell))
        if isinstance(case, tuple):
            yield Prepared(cell, module.expected_bytes(cell), status=case[0], reason=case[1])
        else:
            yield Prepared(cell, case.input_bytes, case.batch, case.output_bytes)


def bench_jwt(spec, out):
    """Check every cell, warm up and calibrate each, then sample in interleaved rounds."""
    bench_in_rounds(prepare_jwt(spec), spec, out)


def bench_in_rounds(prepared, spec, out):
    """Warm up and calibrate each prepared cell as it comes, then sample in interleaved rounds."""
    budget = Timing.from_spec(spec["timing"])
    count = len(spec["cells"])
    timed = []
    for index, cell in enumerate(prepared, 1):
        name = label(index, count, cell.cell)
        if cell.status != "ok":
            untimed(out, name, cell.cell, cell.input_bytes, cell.status, cell.reason)
            continue
        timed.append(
            start_timing(name, cell.cell, cell.run, budget, cell.input_bytes, cell.output_bytes, cell.pass_length)
        )
    sample_in_rounds(timed, budget, out, spec)


def bench_prepared(module, spec, out):
    """Suites hash, primitive and harness: as suite jwt, each cell prepared by its module."""
    bench_in_rounds(prepare_with(module, spec), spec, out)


def bench_hash(spec, out):
    bench_prepared(hashing, spec, out)


def bench_primitive(spec, out):
    import primitive

    bench_prepared(primitive, spec, out)


def bench_harness(spec, out):
    """Suite harness (harness.py): the empty and the trivial call through suite jwt's
    batch, timed as suite jwt."""
    import harness

    bench_prepared(harness, spec, out)


def bench_keygen(spec, out):
    """Suite keygen (keygen.py): the per-iteration cells one after another, each in a
    child process killed when its budget ends; then sign and verify as suite jwt."""
    import keygen

    keygen.bench(spec, out, Helpers(label, progress, checked, untimed, start_timing, sample_in_rounds))


@dataclass
class Helpers:
    """The driver's cell loop pieces, for suites in their own modules."""

    label: object
    progress: object
    checked: object
    untimed: object
    start_timing: object
    sample_in_rounds: object


def bench_percall(spec, out):
    """Seed 001's method: every cell prepared and checked first, then cell by cell in spec
    order, `warmup_calls` untimed calls and `calls` calls each timed on its own. A cell's
    rows are written when it ends (ok, or timeout past max_cell_seconds)."""
    settings = spec["percall"]
    max_cell_seconds = float(spec["timing"]["max_cell_seconds"])
    cells = spec["cells"]
    inputs = load_all_inputs(spec)
    cases = list(prepare_cases(cells, inputs))
    sink = 0
    for index, (cell, case) in enumerate(zip(cells, cases), 1):
        name = label(index, len(cells), cell)
        if isinstance(case, tuple):
            untimed(out, name, cell, inputs[input_key(cell)].mean_bytes, *case)
            continue
        try:
            calls = case.calls(cell["operation"])
        except UnsupportedOperation as exc:  # a library without decode
            untimed(out, name, cell, case.inputs.mean_bytes, "unsupported", str(exc))
            continue
        result = time_each_call(calls, settings["warmup_calls"], settings["calls"], max_cell_seconds * 1e9)
        sink ^= result.sink
        status = "timeout" if result.timed_out else "ok"
        for number, elapsed in enumerate(result.elapsed_ns, 1):
            out.row(cell, case.inputs.mean_bytes, status, number, 1, elapsed, case.output_bytes)
        if result.elapsed_ns:
            median = statistics.median(result.elapsed_ns)
            summary = f"median {median:,.0f} ns of {len(result.elapsed_ns)} calls"
        else:
            out.row(cell, case.inputs.mean_bytes, status, elapsed=result.spent_ns)
            summary = f"no timed call within {max_cell_seconds} s"
        progress(f"{name}: {status}: {summary}")
    progress(f"done: {len(cells)} cells (sink {sink})")


def bench_tokensize(spec, out):
    """Per cell: sign every record once, in file order, each call timed on its own.

    The cell's rows are written when it ends: status ok, or timeout when
    max_cell_seconds ran out first (then only the records signed so far).
    """
    limit_ns = float(spec["timing"]["max_cell_seconds"]) * 1e9
    cells = spec["cells"]
    loaded = load_all_inputs(spec)
    for index, cell in enumerate(cells, 1):
        name = label(index, len(cells), cell)
        inputs = loaded[input_key(cell)]
        case = prepare_and_check(cell, inputs, pool_size=1)  # the checks sign the first record
        if isinstance(case, tuple):
            untimed(out, name, cell, inputs.mean_bytes, *case)
            continue
        signed = sign_each_record(case, limit_ns, lambda text: progress(f"{name}: {text}"))
        status = "ok" if len(signed) == len(inputs.claims) else "timeout"
        for number, (elapsed, token_bytes) in enumerate(signed, 1):
            out.row(cell, inputs.sizes[number - 1], status, number, 1, elapsed, token_bytes)
        progress(
            f"{name}: {status}: {len(signed)} of {len(inputs.claims)} records, mean token "
            f"{rounded_mean([token_bytes for _, token_bytes in signed]):,} bytes"
        )


def sign_each_record(case, limit_ns, report):
    """[(elapsed ns, token bytes)] for the records in file order, each call timed on its
    own; stops after the first call that ends past limit_ns (at least one record)."""
    total = len(case.inputs.claims)
    every = -(-total // 10)  # progress at least every 10%
    signed = []
    start = clock()
    for number, (elapsed, token) in enumerate(each_timed(case.sign_calls()), 1):
        signed.append((elapsed, len(token)))
        if number % every == 0 or number == total:
            report(f"{number}/{total} records signed")
        if clock() - start >= limit_ns:
            break
    return signed


def bench_transfer(spec, out):
    """Per cell: a server on 127.0.0.1, checked, then warm-up and timed trials; three rows
    per timed trial (request-response, sign, verify), written when the cell ends."""
    settings = transfer.TransferSettings.from_spec(spec["transfer"])
    max_cell_seconds = float(spec["timing"]["max_cell_seconds"])
    cells = spec["cells"]
    loaded = load_all_inputs(spec)
    for index, cell in enumerate(cells, 1):
        name = label(index, len(cells), cell)
        inputs = loaded[input_key(cell)]
        input_bytes = inputs.mean_bytes  # one object: the file's size
        case = prepare_and_check(cell, inputs)
        if isinstance(case, tuple):
            write_untimed_trials(out, cell, input_bytes, *case, name)
            continue
        try:
            trials, timed_out, spent_ns = transfer.run_cell(
                case, settings, max_cell_seconds, lambda text: progress(f"{name}: {text}")
            )
        except transfer.TransferFailed as exc:
            write_untimed_trials(out, cell, input_bytes, "failed", str(exc), name)
            continue
        status = "timeout" if timed_out else "ok"
        for number, result in enumerate(trials, 1):
            for operation, elapsed in result.rows():
                out.row(cell, input_bytes, status, number, 1, elapsed, result.token_bytes, operation)
        if not trials:
            for operation in transfer.OPERATIONS:
                out.row(cell, input_bytes, status, elapsed=spent_ns, operation=operation)
        progress(f"{name}: {status}: {len(trials)} of {settings.trials} trials")


def write_untimed_trials(out, cell, input_bytes, status, reason, name):
    progress(f"{name}: {status}: {reason}")
    for operation in transfer.OPERATIONS:
        out.row(cell, input_bytes, status, operation=operation)


SUITES = {
    "jwt": bench_jwt,
    "tokensize": bench_tokensize,
    "transfer": bench_transfer,
    "hash": bench_hash,
    "percall": bench_percall,
    "primitive": bench_primitive,
    "harness": bench_harness,
    "keygen": bench_keygen,
}


def open_out(out_path):
    try:
        return open(out_path, "w", newline="")
    except OSError as exc:
        raise UsageError(f"cannot write --out {out_path}: {exc.strerror}") from exc


def bench(spec, out_path):
    with open_out(out_path) as handle:
        SUITES[spec["suite"]](spec, CellWriter(handle, spec["suite"]))


def command_bench(args):
    bench(load_spec(args.spec), args.out)
    return 0


def served_cells(spec):
    """The prepared cells of a suite the conductor times (jwtbench/conductor.py)."""
    suite = spec["suite"]
    if suite == "jwt":
        return prepare_jwt(spec)
    if suite in ("hash", "primitive", "harness"):
        return prepare_with(hashing if suite == "hash" else importlib.import_module(suite), spec)
    raise UsageError(f"suite {suite} is not timed through the conductor: use bench")


def protocol_entry(prepared, implementation):
    """A cell's entry in the worker's first line (README, "serve")."""
    entry = {
        "status": prepared.status,
        "implementation": implementation,
        "implementation_version": VERSIONS[implementation](),
        "input_bytes": prepared.input_bytes,
    }
    if prepared.status == "ok":
        return {**entry, "output_bytes": prepared.output_bytes, "pass_length": prepared.pass_length}
    return {**entry, "reason": prepared.reason}


def command_serve(args):
    """The worker of the conductor's protocol (jwtbench-worker/1): prepare and check every
    cell, say so in one JSON line, then run the batches asked for, one line each."""
    spec = load_spec(args.spec)
    # The protocol owns the real stdout; anything else printing goes to stderr.
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "w", buffering=1)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    count, entries, runs = len(spec["cells"]), [], {}
    for index, prepared in enumerate(served_cells(spec)):
        implementation = prepared.cell.get("implementation") or IMPLEMENTATIONS[spec["suite"]]
        entries.append(protocol_entry(prepared, implementation))
        if prepared.status == "ok":
            runs[index] = prepared.run
        else:
            progress(f"{label(index + 1, count, prepared.cell)}: {prepared.status}: {prepared.reason}")
    _, runs["reference"] = hashing.compiled("digest", "message", [], new=hashlib.sha256, message=REFERENCE_MESSAGE)
    reference = Prepared(REFERENCE, len(REFERENCE_MESSAGE), output_bytes=hashlib.sha256().digest_size)
    hello = {"protocol": "jwtbench-worker/1", "cells": entries, "reference": protocol_entry(reference, "hashlib")}
    answers.write(json.dumps(hello) + "\n")
    return serve_requests(runs, sys.stdin, answers)


def serve_requests(runs, requests, answers):
    """Each request's batches in order, one answer line as each ends; 0 at the end request."""
    sink = 0
    for line in requests:
        request = json.loads(line)
        if request.get("end"):
            answers.write(json.dumps({"sink": sink}) + "\n")
            return 0
        for key, n in request["batches"]:
            try:
                elapsed, folded = run_batch(runs[key], n)
            except Exception as exc:  # noqa: BLE001 - the conductor records the cell as failed
                answers.write(json.dumps({"error": f"{type(exc).__name__}: {one_line(exc)}"}) + "\n")
                break
            sink ^= folded
            answers.write(json.dumps({"elapsed_ns": elapsed}) + "\n")
    progress("serve: the conductor closed the pipe without an end request")
    return EXIT_ERROR


def command_crosscheck(args):
    """The driver's loop and timeit in alternating blocks on each cell's very call, then on
    the drift reference's (crosscheck.py). A cell is prepared and checked as suite jwt's,
    its batch warmed up and calibrated as bench's, warm-up until steady too."""
    spec = load_crosscheck_spec(args.spec)
    budget = Timing.from_spec(spec["timing"])
    cells = spec["cells"]
    inputs = load_all_inputs(spec)
    count = len(cells) + 1  # and the drift reference
    sink = 0
    with open_out(args.out) as handle:
        blocks = Crosscheck(handle, spec["crosscheck"], budget.warmup_seconds, IMPLEMENTATION, VERSIONS)
        for index, (cell, case) in enumerate(zip(cells, prepare_cases(cells, inputs)), 1):
            name = label(index, count, cell)
            if isinstance(case, tuple):
                progress(f"{name}: {case[0]}: {case[1]}")
                blocks.untimed(cell, inputs[input_key(cell)].mean_bytes, case[0])
                continue
            calls = case.call_list(cell["operation"])
            timing = CellTiming(batch_of(itertools.cycle(calls)), budget, len(calls))
            timing.warm_up_and_calibrate()
            native = TimeitHarness.of_calls(calls)
            progress(f"{name}: {blocks.alternate(cell, case.inputs.mean_bytes, timing, native)}")
            sink ^= timing.sink
        reference = reference_timing(budget)
        native = TimeitHarness(REFERENCE_STATEMENT, {"new": hashlib.sha256, "message": REFERENCE_MESSAGE})
        summary = blocks.alternate(REFERENCE, len(REFERENCE_MESSAGE), reference, native)
        progress(f"{label(count, count, REFERENCE)}: {summary}")
    progress(f"done: {len(cells)} cells and the drift reference (sink {sink ^ reference.sink})")
    return 0


def command_stopping(args):
    """The stopping rule on given per-sample values (the contract test's hook, README "stopping")."""
    where = f"--series {args.series}"
    try:
        given = json.loads(read_file(args.series, "--series"))
        check_numbers(given["timing"], f"{where}: timing", TIMING_FIELDS, ("samples",))
        series = given["series"]
        if not isinstance(series, list) or not all(
            isinstance(values, list) and all(is_number(v) and 0 < v < math.inf for v in values) for values in series
        ):
            raise UsageError(f"{where}: series is not a list of lists of positive numbers")
        check_pairs(given.get("pairs", []), f"{where}: pairs", len(series))
        taken = stopping_rule.replay(series, given.get("pairs", []), stopping_rule.Target.from_timing(given["timing"]))
    except (ValueError, KeyError, TypeError) as exc:
        raise UsageError(f"{where}: not a stopping-rule series ({exc!r})") from exc
    print(json.dumps({"samples": [n for n, _ in taken], "reasons": [reason for _, reason in taken]}))
    return 0


def parser():
    top = argparse.ArgumentParser(prog="python-driver", description=__doc__.splitlines()[0])
    sub = top.add_subparsers(dest="command", required=True)
    sub.add_parser("versions")
    for name, extra in (("sign", "--payload"), ("verify", "--token")):
        p = sub.add_parser(name)
        p.add_argument("--alg", required=True)
        p.add_argument("--key", required=True)
        p.add_argument(extra, required=True)
    p.add_argument(
        "--signature-only",
        action="store_true",
        help="check only the JWS (alg pinned, signature); print the payload bytes as signed",
    )
    p = sub.add_parser("verify-batch", help="verify each case of a conformance cases file, one JSON line each")
    p.add_argument("--cases", required=True)
    p = sub.add_parser("sign-batch", help="sign each case of a cases file, one JSON line each")
    p.add_argument("--cases", required=True)
    p = sub.add_parser("bench")
    p.add_argument("--spec", required=True)
    p.add_argument("--out", required=True)
    p = sub.add_parser("serve", help="the worker of the conductor's protocol (jwtbench/conductor.py), on stdin/stdout")
    p.add_argument("--spec", required=True)
    p = sub.add_parser("crosscheck", help="the driver's loop and timeit on the same calls, in alternating blocks")
    p.add_argument("--spec", required=True)
    p.add_argument("--out", required=True)
    p = sub.add_parser("stopping", help="the stopping rule on given per-sample values (the contract test's hook)")
    p.add_argument("--series", required=True)
    p = sub.add_parser("coldstart")
    for flag in ("--hmac", "--rsa", "--payload"):
        p.add_argument(flag, required=True)
    return top


def main(argv):
    args = parser().parse_args(argv)  # exits 2 naming the flag on a usage error
    try:
        if args.command == "versions":
            print(json.dumps(versions()))
            return 0
        commands = {
            "sign": command_sign,
            "verify": command_verify,
            "verify-batch": command_verify_batch,
            "sign-batch": command_sign_batch,
            "bench": command_bench,
            "serve": command_serve,
            "crosscheck": command_crosscheck,
            "stopping": command_stopping,
            "coldstart": command_coldstart,
        }
        return commands[args.command](args)
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
