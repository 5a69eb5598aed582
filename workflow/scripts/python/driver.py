"""jwtbench python driver: PyJWT on the cryptography backend.

Subcommands (the contract every driver shares, workflow/scripts/README.md):
  versions | sign --alg --key --payload | verify --alg --key --token | bench --spec --out
  | coldstart --hmac --rsa --payload
"""

import argparse
import csv
import importlib.metadata
import json
import platform
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import jwt  # noqa: E402

from correctness import CheckFailed, check  # noqa: E402
from jwt_algorithms import (  # noqa: E402
    AlgorithmUnderTest,
    UnsupportedAlgorithm,
    ensure_supported,
    load_signing_key,
    load_verifying_key,
    sign,
    verify,
)
from timing import Budget, CellTiming  # noqa: E402

EXIT_INVALID, EXIT_USAGE, EXIT_UNSUPPORTED = 1, 2, 3
IMPLEMENTATION = "pyjwt"
COLUMNS = [
    "language", "implementation", "implementation_version", "suite", "operation",
    "algorithm", "key_bits", "input", "input_bytes", "sample", "iterations",
    "elapsed_ns", "output_bytes", "status",
]  # fmt: skip


class UsageError(Exception):
    pass


def read_file(path, what):
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {what} {path}: {exc.strerror}") from exc


def versions():
    from cryptography.hazmat.backends.openssl.backend import backend

    libraries = {
        name: importlib.metadata.version(name) for name in ("PyJWT", "cryptography", "cffi")
    }
    return {
        "language": "python",
        "runtime": platform.python_implementation().lower(),
        "runtime_version": platform.python_version(),
        "implementation": IMPLEMENTATION,
        "implementation_version": jwt.__version__,
        "crypto_backend": f"cryptography {libraries['cryptography']} on {backend.openssl_version_text()}",
        "libraries": libraries,
    }


def command_sign(args):
    ensure_supported(args.alg)
    claims = json.loads(read_file(args.payload, "payload"))
    print(sign(claims, load_signing_key(args.alg, args.key), args.alg))
    return 0


def command_verify(args):
    ensure_supported(args.alg)
    token = read_file(args.token, "token").decode().strip()
    try:
        claims = verify(token, load_verifying_key(args.alg, args.key), args.alg)
    except jwt.InvalidTokenError as exc:
        print(f"invalid token: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_INVALID
    print(json.dumps(claims, separators=(",", ":")))
    return 0


def command_coldstart(args):
    """A whole process's work for the coldstart suite: one HS256 and one RS256 token."""
    claims = json.loads(read_file(args.payload, "payload"))
    for algorithm, key_file in (("HS256", args.hmac), ("RS256", args.rsa)):
        print(sign(claims, load_signing_key(algorithm, key_file), algorithm))
    return 0


def load_spec(path):
    try:
        spec = json.loads(read_file(path, "spec"))
    except json.JSONDecodeError as exc:
        raise UsageError(f"spec {path} is not JSON: line {exc.lineno}: {exc.msg}") from exc
    for key in ("suite", "timing", "cells"):
        if key not in spec:
            raise UsageError(f"spec {path} lacks key {key!r}")
    if spec["suite"] != "jwt":
        raise UsageError(f"spec {path}: suite {spec['suite']!r} is not one this driver runs")
    return spec


class CellWriter:
    """Raw-sample CSV; every row is flushed as soon as it is measured."""

    def __init__(self, handle, suite):
        self.handle = handle
        self.writer = csv.writer(handle, lineterminator="\n")
        self.writer.writerow(COLUMNS)
        self.suite = suite

    def row(self, cell, input_bytes, status, sample=0, batch=0, elapsed=0, output_bytes=0):
        self.writer.writerow(
            ["python", IMPLEMENTATION, jwt.__version__, self.suite, cell["operation"],
             cell["algorithm"], cell["key_bits"], cell["input"], input_bytes,
             sample, batch, elapsed, output_bytes, status]
        )  # fmt: skip
        self.handle.flush()


def label(index, count, cell):
    return f"[{index}/{count}] {cell['operation']} {cell['algorithm']}-{cell['key_bits']}"


def bench(spec, out_path):
    """Check every cell, warm up and calibrate each, then sample in interleaved rounds.

    Each round takes one sample of every timed cell, so a slow spell of the machine
    lands on one sample of many cells rather than on many samples of one cell.
    """
    budget = Budget.from_spec(spec["timing"])
    cells = spec["cells"]
    prepared = {}  # (alg, key files, input) -> AlgorithmUnderTest, or (status, reason)
    timed = []  # (cell, case, CellTiming)
    with open(out_path, "w", newline="") as handle:
        out = CellWriter(handle, spec["suite"])
        for index, cell in enumerate(cells, 1):
            input_bytes = len(read_file(cell["input_file"], "input"))
            key = (cell["algorithm"], cell["private_key"], cell["public_key"], cell["input_file"])
            if key not in prepared:
                prepared[key] = prepare_and_check(cell)
            case = prepared[key]
            if isinstance(case, tuple):
                status, reason = case
                print(f"{label(index, len(cells), cell)}: {status}: {reason}", file=sys.stderr, flush=True)
                out.row(cell, input_bytes, status)
                continue
            timing = CellTiming(case.operation(cell["operation"]), budget)
            timing.warm_up_and_calibrate()
            print(f"{label(index, len(cells), cell)}: batch of {timing.batch}"
                  f"{' (will time out)' if timing.timed_out else ''}", file=sys.stderr, flush=True)  # fmt: skip
            timed.append((cell, case, input_bytes, timing))

        for round_number in range(1, budget.samples + 1):
            sampled = [entry for entry in timed if entry[3].wants_sample()]
            if not sampled:  # a cell that stops wanting samples never starts again
                break
            for cell, case, input_bytes, timing in sampled:
                elapsed = timing.take_sample()
                status = "timeout" if timing.timed_out else "ok"
                out.row(cell, input_bytes, status, round_number, timing.batch, elapsed, len(case.token))
            print(f"round {round_number}/{budget.samples} done", file=sys.stderr, flush=True)

        sink = 0
        for index, (cell, case, input_bytes, timing) in enumerate(timed, 1):
            sink ^= timing.sink
            if not timing.elapsed_ns:
                out.row(cell, input_bytes, "timeout", elapsed=timing.spent_ns)
                summary = f"timeout: no sample within {budget.max_cell_seconds} s"
            else:
                per_op = sorted(timing.elapsed_ns)[len(timing.elapsed_ns) // 2] / timing.batch
                status = "timeout" if timing.timed_out else "ok"
                summary = f"{status}: {per_op:,.0f} ns/op ({len(timing.elapsed_ns)} samples x {timing.batch})"
            print(f"{label(index, len(timed), cell)}: {summary}", file=sys.stderr)
    print(f"done: {len(cells)} cells, {len(timed)} timed (sink {sink})", file=sys.stderr)


def prepare_and_check(cell):
    try:
        case = AlgorithmUnderTest.prepare(
            cell["algorithm"], cell["private_key"], cell["public_key"], cell["input_file"]
        )
        check(case, cell["public_key"])
    except UnsupportedAlgorithm as exc:
        return ("unsupported", str(exc))
    except CheckFailed as exc:
        return ("failed", str(exc))
    except OSError as exc:
        raise UsageError(f"cell {cell['algorithm']}: cannot read {exc.filename}: {exc.strerror}") from exc
    except Exception as exc:  # a library error before timing is a failed cell, not a crash
        return ("failed", f"{type(exc).__name__}: {exc}")
    return case


def command_bench(args):
    bench(load_spec(args.spec), args.out)
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
    p = sub.add_parser("bench")
    p.add_argument("--spec", required=True)
    p.add_argument("--out", required=True)
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
        commands = {"sign": command_sign, "verify": command_verify, "bench": command_bench,
                    "coldstart": command_coldstart}  # fmt: skip
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
