"""jwtbench openssl driver: times suite primitive's cells with `openssl speed`, the ceiling
every library is compared against.

Subcommands (the contract every driver shares, workflow/scripts/README.md):
  versions | bench --spec FILE --out FILE
  sign, verify, coldstart: exit 2 (no JWS here; driver.yaml says jws: false)
Python 3 standard library only. The openssl binary is $JWTBENCH_OPENSSL (set by the `run`
shim from what envs/openssl/install found), else `openssl` on PATH.
"""

import argparse
import csv
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

import speed_output
from speed_cells import SpeedTarget, Unsupported, target_for

EXIT_USAGE = 2
LANGUAGE = IMPLEMENTATION = "openssl"
SUITE = "primitive"
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
# Options every sample's command line uses (SpeedTarget.command).
REQUIRED_OPTIONS = ("-elapsed", "-seconds", "-mr")
NO_JWS = "the openssl language has no JWS driver (driver.yaml: jws: false); it runs suite primitive only"


class UsageError(Exception):
    pass


def openssl_binary():
    return os.environ.get("JWTBENCH_OPENSSL") or "openssl"


def progress(text):
    print(text, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- versions


def openssl_text(*arguments):
    """stdout of `openssl ARGUMENTS` (UsageError when openssl cannot be run)."""
    try:
        result = subprocess.run([openssl_binary(), *arguments], capture_output=True, text=True, timeout=60)
    except OSError as error:
        raise UsageError(f"cannot run {openssl_binary()} (JWTBENCH_OPENSSL): {error.strerror}") from None
    if result.returncode != 0:
        raise UsageError(
            f"{openssl_binary()} {' '.join(arguments)} exited {result.returncode}: {result.stderr.strip()}"
        )
    return result.stdout


def parse_version_all(text):
    """The facts of `openssl version -a`: the binary's and the library's version strings
    and the build lines (built on, platform, options, compiler flags, CPUINFO)."""
    first = text.splitlines()[0].strip() if text.strip() else ""
    library = re.search(r"\(Library: (.+)\)\s*$", first)
    binary_text = re.sub(r"\s*\(Library: .+\)\s*$", "", first)
    facts = {"binary": binary_text, "library": library[1] if library else binary_text}
    keys = {
        "built on": "built_on",
        "platform": "platform",
        "options": "options",
        "compiler": "compiler",
        "CPUINFO": "cpuinfo",
    }
    for line in text.splitlines()[1:]:
        name, _, value = line.partition(":")
        if name.strip() in keys:
            facts[keys[name.strip()]] = value.strip()
    return facts


def version_number(version_text):
    """`3.0.19` from `OpenSSL 3.0.19 27 Jan 2026` (or `2.8.3` from `LibreSSL 2.8.3`)."""
    match = re.match(r"^\S+ (\S+)", version_text)
    return match[1] if match else version_text


def versions():
    facts = parse_version_all(openssl_text("version", "-a"))
    library_version = version_number(facts["library"])
    return {
        "language": LANGUAGE,
        "runtime": "openssl",
        "runtime_version": version_number(facts["binary"]),
        "implementation": IMPLEMENTATION,
        "implementation_version": library_version,
        "crypto_backend": facts["library"],
        "libraries": {"openssl": library_version},
        "build": {key: facts.get(key, "") for key in ("built_on", "platform", "options", "compiler", "cpuinfo")},
    }


# ---------------------------------------------------------------- the spec


def load_spec(path):
    """The spec's cells and its `openssl` block (seconds, samples); UsageError naming the
    file and key on anything wrong."""
    try:
        spec = json.loads(Path(path).read_text())
    except OSError as error:
        raise UsageError(f"--spec {path}: cannot read: {error.strerror}") from None
    except ValueError as error:
        raise UsageError(f"--spec {path}: not JSON: {error}") from None
    if not isinstance(spec, dict) or spec.get("suite") != SUITE:
        suite = spec.get("suite") if isinstance(spec, dict) else None
        raise UsageError(f"--spec {path}: suite {suite!r}: the openssl driver runs suite {SUITE} only")
    settings = spec.get("openssl")
    if not isinstance(settings, dict):
        raise UsageError(f'--spec {path}: no "openssl" object ({{"seconds": S, "samples": K}})')
    for key in ("seconds", "samples"):
        value = settings.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise UsageError(f"--spec {path}: openssl.{key} must be a positive integer, not {value!r}")
    cells = spec.get("cells")
    if not isinstance(cells, list) or not cells:
        raise UsageError(f"--spec {path}: cells must be a non-empty list")
    for index, cell in enumerate(cells):
        for key in ("operation", "algorithm", "key_bits", "input"):
            if not isinstance(cell, dict) or key not in cell:
                raise UsageError(f"--spec {path}: cells[{index}] has no {key!r}")
    return cells, settings["seconds"], settings["samples"]


def message_bytes(cell, index):
    """The cell's message length: message_bytes, or the size of input_file for input_kind
    bytes (openssl speed hashes its own buffer of that length, not the file's bytes)."""
    if cell.get("input_kind") == "bytes":
        try:
            return os.path.getsize(cell["input_file"])
        except KeyError:
            raise UsageError(f"cells[{index}]: input_kind bytes without input_file") from None
        except OSError as error:
            raise UsageError(f"cells[{index}].input_file {cell['input_file']}: {error.strerror}") from None
    return cell.get("message_bytes")


def speed_options():
    """The options `openssl speed -help` lists (it prints the help on stderr or stdout)."""
    try:
        result = subprocess.run([openssl_binary(), "speed", "-help"], capture_output=True, text=True, timeout=60)
    except OSError as error:
        raise RuntimeError(f"cannot run {openssl_binary()}: {error.strerror}") from None
    return set(re.findall(r"^\s*(-[a-z_]+)", result.stdout + result.stderr, flags=re.M))


# ---------------------------------------------------------------- bench


class RawSamples:
    """Raw-sample CSV; every row is flushed as soon as it is written."""

    def __init__(self, handle, implementation_version):
        self.handle = handle
        self.writer = csv.writer(handle, lineterminator="\n")
        self.writer.writerow(COLUMNS)
        self.version = implementation_version

    def row(self, cell, input_bytes, status, sample=0, iterations=0, elapsed_ns=0, output_bytes=0):
        self.writer.writerow(
            [
                LANGUAGE,
                IMPLEMENTATION,
                self.version,
                SUITE,
                cell["operation"],
                cell["algorithm"],
                cell["key_bits"],
                cell["input"],
                input_bytes,
                sample,
                iterations,
                elapsed_ns,
                output_bytes,
                status,
            ]
        )
        self.handle.flush()


class TimedCell:
    def __init__(self, index, cell, target: SpeedTarget):
        self.index, self.cell, self.target = index, cell, target
        self.failed = False
        self.ns_per_operation = []

    @property
    def label(self):
        return f"[{self.index + 1}] {self.cell['operation']} {self.cell['algorithm']} {self.cell['input']}"


def run_speed(target, seconds):
    """One `openssl speed` run; its parsed output, or RuntimeError with the reason."""
    command = target.command(openssl_binary(), seconds)
    figures = 1 if target.is_block else 2  # a public-key run times sign and verify
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=4 * figures * seconds + 60)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"{' '.join(command)}: no answer after {4 * figures * seconds + 60} s") from None
    except OSError as error:
        raise RuntimeError(f"{' '.join(command)}: cannot run: {error.strerror}") from None
    if result.returncode != 0:
        last = (result.stderr.strip().splitlines() or ["(no message)"])[-1]
        raise RuntimeError(f"{' '.join(command)} exited {result.returncode}: {last}")
    try:
        return speed_output.parse(result.stdout + "\n" + result.stderr)
    except speed_output.SpeedOutputError as error:
        raise RuntimeError(f"{' '.join(command)}: output not understood: {error}") from None


def fail(cell, writer, reason):
    progress(f"{cell.label}: failed: {reason}")
    writer.row(cell.cell, cell.target.input_bytes, "failed")
    cell.failed = True


def command_bench(args):
    cells, seconds, samples = load_spec(args.spec)
    lengths = [message_bytes(cell, index) for index, cell in enumerate(cells)]
    try:
        implementation_version = versions()["implementation_version"]
    except UsageError as error:
        implementation_version = "unknown"  # the cells fail below with the reason
        progress(f"warning: {error}")
    try:
        handle = open(args.out, "w", newline="")
    except OSError as error:
        raise UsageError(f"--out {args.out}: cannot write: {error.strerror}") from None
    with handle:
        writer = RawSamples(handle, implementation_version)
        try:
            options, probe_error = speed_options(), None
        except RuntimeError as error:
            options, probe_error = set(), str(error)
        runs = {}  # run_key -> the cells that one openssl speed run measures, in spec order
        for index, (cell, length) in enumerate(zip(cells, lengths)):
            try:
                target = target_for(cell, length)
            except Unsupported as reason:
                progress(
                    f"[{index + 1}] {cell['operation']} {cell['algorithm']} {cell['input']}: unsupported: {reason}"
                )
                writer.row(cell, length or 0, "unsupported")
                continue
            timed = TimedCell(index, cell, target)
            missing = [option for option in (*REQUIRED_OPTIONS, *target.needs_options) if option not in options]
            if probe_error or missing:
                if probe_error or set(missing) & set(REQUIRED_OPTIONS):
                    fail(timed, writer, probe_error or f"openssl speed lacks {', '.join(missing)}")
                else:
                    progress(f"{timed.label}: unsupported: openssl speed lacks {', '.join(missing)}")
                    writer.row(cell, target.input_bytes, "unsupported")
                continue
            runs.setdefault(target.run_key, []).append(timed)
        sample_rounds(runs, seconds, samples, writer)
    return 0


def sample_rounds(runs, seconds, samples, writer):
    """The interleaved rounds: round k runs every openssl speed run once, in spec
    order, and writes sample k of each of its cells."""
    for sample in range(1, samples + 1):
        started, done = time.monotonic(), 0
        for timed_cells in runs.values():
            live = [cell for cell in timed_cells if not cell.failed]
            if not live:
                continue
            try:
                output = run_speed(live[0].target, seconds)
            except RuntimeError as error:
                for cell in live:
                    fail(cell, writer, error)
                continue
            done += 1
            for cell in live:
                target = cell.target
                count = output.count(target.name, target.operation, target.size)
                if count is None or count.operations < 1 or count.seconds <= 0:
                    fail(
                        cell,
                        writer,
                        f"openssl speed reported no {target.operation} {target.name} {target.size} (got {count})",
                    )
                    continue
                elapsed_ns = round(count.seconds * 1e9)
                writer.row(
                    cell.cell, target.input_bytes, "ok", sample, count.operations, elapsed_ns, target.output_bytes
                )
                cell.ns_per_operation.append(elapsed_ns / count.operations)
        progress(f"round {sample}/{samples}: {done} openssl speed runs in {time.monotonic() - started:.1f} s")
    for timed_cells in runs.values():
        for cell in timed_cells:
            if cell.ns_per_operation and not cell.failed:
                progress(
                    f"{cell.label}: median {statistics.median(cell.ns_per_operation):.1f} ns/op "
                    f"over {len(cell.ns_per_operation)} samples"
                )


# ---------------------------------------------------------------- command line


def command_no_jws(args):
    raise UsageError(f"{args.command}: {NO_JWS}")


def parser():
    top = argparse.ArgumentParser(prog="run", description=__doc__.splitlines()[0])
    sub = top.add_subparsers(dest="command", required=True)
    sub.add_parser("versions")
    bench = sub.add_parser("bench")
    bench.add_argument("--spec", required=True)
    bench.add_argument("--out", required=True)
    # Accepted so that their message is the one below, not argparse's.
    for name, flags in (
        ("sign", ("--alg", "--key", "--payload")),
        ("verify", ("--alg", "--key", "--token")),
        ("coldstart", ("--hmac", "--rsa", "--payload")),
    ):
        command = sub.add_parser(name)
        for flag in flags:
            command.add_argument(flag)
    return top


def main(argv):
    args = parser().parse_args(argv)  # exits 2 naming the flag on a usage error
    try:
        if args.command == "versions":
            print(json.dumps(versions()))
            return 0
        if args.command == "bench":
            return command_bench(args)
        return command_no_jws(args)
    except UsageError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
