"""The conductor: every timing decision of a benchmark process, made once for every language.

A driver's worker (`<driver> serve --spec FILE`) prepares and checks the spec's cells
(untimed), then only runs the batches it is asked for and says how long each took. The
conductor decides the rest, as the driver contract's timing rules say
(workflow/scripts/README.md, "Timing rules"): the warm-up, calibration, the warm-up until
steady, the interleaved rounds, the stopping rule (jwtbench.stopping_rule), the drift
reference, the time cap, the raw-sample CSV and the progress lines. It runs on the CPU the
benchmark does not use and works between batches only: the clock is read inside the
worker, around each batch.

The protocol (`jwtbench-worker/1`, JSON lines; workflow/schemas/protocol/worker.schema.yaml):

- the worker's first line, once its cells are prepared and checked: `{"protocol":
  "jwtbench-worker/1", "cells": [...], "reference": {...}}`, one entry per spec cell,
  `{"status": "ok", "implementation", "implementation_version", "input_bytes",
  "output_bytes", "pass_length"}` or `{"status": "unsupported" | "failed", "reason", ...}`,
  and the drift reference's entry alike (or null when the suite has none);
- a request `{"batches": [[cell, n], ...]}` (cell: a spec index or "reference"): the
  worker runs the batches in order, writing one line per batch as it ends, `{"elapsed_ns":
  E}` (a batch of n calls, timed with the language's monotonic clock, results folded into
  its sink), or `{"error": "..."}` for a batch that threw, which ends the request;
- `{"end": true}`: the worker answers `{"sink": S}` and exits 0.

Usage: python -m jwtbench.conductor --spec FILE --out FILE [--deadline-seconds S] -- WORKER...
"""

import argparse
import json
import math
import os
import selectors
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field

from jwtbench import raw_samples, result_tables, stopping_rule
from jwtbench.spec_timing import Timing

PROTOCOL = "jwtbench-worker/1"
# The suites it times: those whose every cell is sampled in rounds (keygen's per-iteration
# cells and the suites timed call by call are still each driver's `bench`).
SUITES = ("jwt", "hash", "primitive", "harness")
REFERENCE = "reference"
# The drift reference's row fields (README, "The drift reference").
REFERENCE_CELL = {"operation": "reference", "algorithm": "SHA-256", "key_bits": 0, "input": "reference"}
# Each round's reference sample follows an untimed batch of this share of its own: what the
# last round's last cell left behind moved node's reference by up to 8% between processes
# (2026-11-28, docs/disturbances-node.md); with it, every sample follows the same work.
SETTLING_SHARE = 0.25
# A request the worker has not answered within this many times its expected time (and at
# least deadline_seconds) is a worker that hangs: it is killed and the run fails.
DEADLINE_FACTOR = 20
# What a worker may take to start and prepare and check its cells (a dataset's token pools).
PREPARE_SECONDS = 600
TIME_CAP = "time_cap"
STOPPED_BY = {stopping_rule.PRECISION: "precision", stopping_rule.SAMPLE_CAP: "sample cap", TIME_CAP: "time cap"}


class WorkerError(Exception):
    """The worker broke the protocol, died, hung, or a batch threw. `done`: the elapsed ns of
    the request's batches that ended before it, which are measured and are written."""

    def __init__(self, message, done=()):
        super().__init__(message)
        self.done = list(done)


class BatchFailed(WorkerError):
    """A batch threw; the worker goes on."""


class Worker:
    """A worker process on the other end of the protocol's pipes."""

    def __init__(self, argv, deadline_seconds=60.0, stderr=None):
        self.deadline_seconds = deadline_seconds
        self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, bufsize=0)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.process.stdout, selectors.EVENT_READ)
        self.pending = b""  # what the worker wrote past its last whole line

    def _line(self, seconds, waiting_for):
        """The worker's next line as JSON, within `seconds` (read from the pipe's descriptor:
        a buffered reader would hold lines the selector cannot see)."""
        deadline = time.monotonic() + seconds
        while b"\n" not in self.pending:
            left = deadline - time.monotonic()
            if left <= 0 or not self.selector.select(timeout=left):
                self.kill()
                raise WorkerError(f"the worker did not answer within {seconds:.0f} s ({waiting_for}); it was stopped")
            chunk = os.read(self.process.stdout.fileno(), 1 << 16)
            if not chunk:
                code = self.process.wait()
                raise WorkerError(f"the worker ended (exit status {code}) while the conductor waited for {waiting_for}")
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        try:
            return json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            self.kill()
            raise WorkerError(f"the worker wrote {line.strip()[:200]!r}, not a JSON line ({waiting_for})") from None

    def hello(self, seconds):
        message = self._line(seconds, "its cells, prepared and checked")
        if not isinstance(message, dict) or message.get("protocol") != PROTOCOL:
            self.kill()
            raise WorkerError(f"the worker's first line is not protocol {PROTOCOL}: {str(message)[:200]}")
        return message

    def batches(self, batches, expected_ns):
        """Elapsed ns of each of `batches` [(cell, n)], run in order; BatchFailed if one threw."""
        request = [[cell, int(n)] for cell, n in batches]
        self._send({"batches": request})
        seconds = max(self.deadline_seconds, DEADLINE_FACTOR * expected_ns / 1e9)
        done = []
        for cell, n in request:
            try:
                answer = self._line(seconds, f"a batch of {n} calls of cell {cell}")
            except WorkerError as error:
                raise WorkerError(str(error), done) from None
            if "error" in answer:
                raise BatchFailed(f"cell {cell} threw in a batch of {n}: {answer['error']}", done)
            elapsed = answer.get("elapsed_ns")
            if not isinstance(elapsed, int) or elapsed < 1:
                self.kill()
                raise WorkerError(f"the worker answered {answer!r} for a batch of cell {cell}, not elapsed_ns >= 1")
            done.append(elapsed)
        return done

    def end(self):
        """Ask the worker to finish; its folded sink."""
        self._send({"end": True})
        answer = self._line(self.deadline_seconds, "its sink at the end")
        code = self.process.wait(timeout=self.deadline_seconds)
        if code != 0:
            raise WorkerError(f"the worker exited with status {code} after the end")
        return answer.get("sink")

    def _send(self, message):
        try:
            self.process.stdin.write(json.dumps(message).encode() + b"\n")
        except BrokenPipeError:
            code = self.process.wait()
            raise WorkerError(f"the worker ended (exit status {code}) before a request") from None

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@dataclass
class Cell:
    """One timed cell (or the reference): its batch and the time it has used."""

    key: object  # spec index or REFERENCE
    fields: dict  # the row's cell fields (operation, algorithm, key_bits, input)
    facts: dict  # the worker's entry: implementation, versions, bytes, pass_length
    n: int = 1
    spent_ns: int = 0
    timed_out: bool = False
    per_call_ns: float = 0.0  # the last batch's ns per call: what the next request should take
    elapsed_ns: list = field(default_factory=list)


def whole_passes(n, count):
    """A batch holding at least one pass through `count` inputs is a whole number of passes."""
    return n if n < count else max(1, round(n / count)) * count


class Conductor:
    def __init__(self, spec, worker, out, progress=None):
        self.spec = spec
        self.worker = worker
        self.timing = Timing.from_spec(spec["timing"])
        self.out = out  # binary: each row is written and flushed as result_tables writes a line
        self.progress = progress or (lambda text: print(text, file=sys.stderr, flush=True))
        self.process_warmed_up = False
        self.out.write(result_tables.csv_line(raw_samples.COLUMNS))

    # --- rows ---------------------------------------------------------------------------

    def row(self, cell, status, sample=0, iterations=0, elapsed_ns=0, output_bytes=None):
        facts = cell.facts
        self.out.write(
            result_tables.csv_line(
                [
                    self.spec["language"],
                    facts["implementation"],
                    facts["implementation_version"],
                    self.spec["suite"],
                    cell.fields["operation"],
                    cell.fields["algorithm"],
                    cell.fields["key_bits"],
                    cell.fields["input"],
                    facts.get("input_bytes", 0),
                    sample,
                    iterations,
                    elapsed_ns,
                    facts.get("output_bytes", 0) if output_bytes is None else output_bytes,
                    status,
                ]
            )
        )
        self.out.flush()

    def label(self, cell):
        if cell.key == REFERENCE:
            return "drift reference"
        f = cell.fields
        what = f"-{f['key_bits']}" if f["key_bits"] else f" {f['input']}"
        if f["key_bits"] and ("message_bytes" in f or f.get("input_kind") == "bytes"):
            what += f" {f['input']}"  # a cell with a message of its own (primitive, keygen)
        if "implementation" in f:
            what += f" ({f['implementation']})"
        return f"[{cell.key + 1}/{len(self.spec['cells'])}] {f['operation']} {f['algorithm']}{what}"

    # --- warm-up and calibration ----------------------------------------------------------

    def run(self, cell, n, count=1):
        """`count` batches of n calls of `cell`: their elapsed ns, which count as the cell's
        own time (the worker's clock, as the samples' time counts)."""
        elapsed = self.worker.batches([(cell.key, n)] * count, cell.per_call_ns * n * count)
        cell.spent_ns += sum(elapsed)
        cell.per_call_ns = elapsed[-1] / n
        return elapsed

    def limit_ns(self, cell):
        return math.inf if cell.key == REFERENCE else self.timing.max_cell_seconds * 1e9

    def warm_up(self, cell):
        """README, "The warm-up": run the call for warmup_seconds (at least once; the process's
        first cell for process_warmup_seconds), in batches that double from 1, none past what
        is left of the warm-up."""
        seconds = self.timing.warmup_seconds
        if not self.process_warmed_up:
            self.process_warmed_up = True
            seconds = max(seconds, self.timing.process_warmup_seconds)
        until_ns, n = seconds * 1e9, 1
        while True:
            (elapsed,) = self.run(cell, n)
            if cell.spent_ns >= until_ns or cell.spent_ns > self.limit_ns(cell):
                return
            left_calls = (until_ns - cell.spent_ns) / (elapsed / n)
            n = max(1, min(2 * n, int(left_calls)))

    def calibrate(self, cell):
        """README, "Calibration": double the batch until it lasts a tenth of the target, then
        scale it to the target; whole passes through the cell's inputs."""
        target_ns = self.timing.target_sample_seconds * 1e9
        n = 1
        while cell.spent_ns <= self.limit_ns(cell):
            (elapsed,) = self.run(cell, n)
            if elapsed >= target_ns / 10:
                n = max(1, round(n * target_ns / elapsed))
                break
            n *= 2
        cell.n = whole_passes(n, cell.facts.get("pass_length", 1))
        return elapsed

    def until_steady(self, cell):
        """README, "Calibration", until steady: windows of steady_window batches until a
        window's median ns/op is within steady_tolerance of the last one's, or the warm-up has
        lasted warmup_max_seconds (or the cell's max_cell_seconds), both counted from the
        cell's first warm-up batch."""
        limit = min(self.timing.warmup_max_seconds * 1e9, self.limit_ns(cell))
        previous = change = None
        while cell.spent_ns < limit:
            window = self.run(cell, cell.n, self.timing.steady_window)
            median = statistics.median(e / cell.n for e in window)
            if previous is not None:
                change = abs(median - previous) / previous
                if change <= self.timing.steady_tolerance:
                    return f"steady after {cell.spent_ns / 1e9:.2f} s"
            previous = median
        last = "none: fewer than two windows" if change is None else f"{change:.1%}"
        return f"not steady after {cell.spent_ns / 1e9:.2f} s (last change {last})"

    def prepare_timing(self, cell):
        """Warm-up, calibration and (with warmup_max_seconds) the warm-up until steady and a
        second calibration; a cell whose planned samples cannot fit in max_cell_seconds is a
        timeout cell from here on."""
        self.warm_up(cell)
        elapsed = self.calibrate(cell)
        if self.timing.warmup_max_seconds > 0:
            steadiness = self.until_steady(cell)
            elapsed = self.calibrate(cell)
            self.progress(f"{self.label(cell)}: {steadiness}")
        per_batch = self.timing.target_sample_seconds * 1e9 if cell.n > 1 else elapsed
        cell.timed_out = cell.spent_ns + self.timing.planned_samples * per_batch > self.limit_ns(cell)
        note = " (timeout: its samples will not fit in max_cell_seconds)" if cell.timed_out else ""
        self.progress(f"{self.label(cell)}: batch of {cell.n}{note}")

    # --- the run ----------------------------------------------------------------------------

    def conduct(self):
        """Every cell's rows, then the worker's end; returns the folded sink."""
        hello = self.worker.hello(max(self.worker.deadline_seconds, PREPARE_SECONDS))
        entries = hello.get("cells", [])
        if len(entries) != len(self.spec["cells"]):
            raise WorkerError(f"the worker described {len(entries)} cells, the spec has {len(self.spec['cells'])}")
        timed = []
        for index, (fields, facts) in enumerate(zip(self.spec["cells"], entries)):
            cell = Cell(index, fields, facts)
            if facts["status"] != "ok":
                self.progress(f"{self.label(cell)}: {facts['status']}: {facts.get('reason', '')}")
                self.row(cell, facts["status"], output_bytes=0)
                continue
            try:
                self.prepare_timing(cell)
            except BatchFailed as failed:
                self.progress(f"{self.label(cell)}: failed while timing ({failed})")
                self.row(cell, "failed", output_bytes=0)
                continue
            timed.append(cell)
        reference = None
        if timed and hello.get("reference"):
            reference = Cell(REFERENCE, REFERENCE_CELL, hello["reference"])
            self.warm_up(reference)
            self.calibrate(reference)
            self.progress(f"drift reference: SHA-256 of 64 bytes, batch of {reference.n}")
        rounds = self.sample_in_rounds(timed, reference)
        self.report(timed, rounds, reference)
        return self.worker.end()

    def sample_in_rounds(self, timed, reference):
        """README, "Interleaved rounds" and "The stopping rule": round k first stops the cells
        whose time is up, then asks for the reference's sample (after its settling batch) and
        sample k of every cell still sampling, in spec order, as one request; the rule then
        stops cells on the round's end state."""
        rounds = stopping_rule.Rounds(len(self.spec["cells"]), self.spec.get("pairs", []), self.timing.target)
        by_index = {cell.key: cell for cell in timed}
        for index in range(len(self.spec["cells"])):
            if index not in by_index:
                rounds.stop(index, "not timed")
        for k in range(1, self.timing.samples + 1):
            for cell in timed:
                if rounds.sampling(cell.key) and cell.spent_ns >= self.limit_ns(cell):
                    rounds.stop(cell.key, TIME_CAP)
            sampling = [cell for cell in timed if rounds.sampling(cell.key)]
            if not sampling:
                break
            batches = [(cell.key, cell.n) for cell in sampling]
            if reference:
                settle = max(1, math.ceil(reference.n * SETTLING_SHARE))
                batches[:0] = [(REFERENCE, settle), (REFERENCE, reference.n)]
            expected = self.timing.target_sample_seconds * 1e9 * len(batches)
            try:
                elapsed = self.worker.batches(batches, expected)
            except WorkerError as error:
                self.write_round(k, sampling, reference, error.done, rounds)
                raise WorkerError(f"round {k}: {error}; the samples before it are written") from None
            self.write_round(k, sampling, reference, elapsed, rounds)
            rounds.end_round()
            self.progress(f"round {k}/{self.timing.samples} done: {len(sampling)} cells sampled")
        return rounds

    def write_round(self, k, sampling, reference, elapsed, rounds):
        """The round's rows, as far as `elapsed` goes: the reference's (its settling batch
        dropped), then each cell's."""
        if reference:
            elapsed = elapsed[1:]
            if elapsed:
                reference.elapsed_ns.append(elapsed[0])
                self.row(reference, "ok", k, reference.n, elapsed[0])
            elapsed = elapsed[1:]
        for cell, ns in zip(sampling, elapsed):
            cell.elapsed_ns.append(ns)
            cell.spent_ns += ns
            rounds.add(cell.key, k, ns / cell.n)
            self.row(cell, "timeout" if cell.timed_out else "ok", k, cell.n, ns)

    def report(self, timed, rounds, reference):
        """README, "Progress": one line per cell with its median, samples and why it stopped;
        a timeout cell with no sample writes one row with the time it spent."""
        for cell in timed:
            if not cell.elapsed_ns:
                self.row(cell, "timeout", elapsed_ns=cell.spent_ns)
                self.progress(f"{self.label(cell)}: timeout: no sample within {self.timing.max_cell_seconds} s")
                continue
            per_op = statistics.median(cell.elapsed_ns) / cell.n
            why = STOPPED_BY.get(rounds.stopped[cell.key], "time cap")
            status = "timeout" if cell.timed_out else "ok"
            self.progress(
                f"{self.label(cell)}: {status}: {per_op:,.0f} ns/op "
                f"({len(cell.elapsed_ns)} samples x {cell.n}, stopped at {why})"
            )
        if reference and reference.elapsed_ns:
            median = statistics.median(reference.elapsed_ns) / reference.n
            self.progress(f"drift reference: median {median:,.0f} ns per call over {len(reference.elapsed_ns)} rounds")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--deadline-seconds", type=float, default=60.0)
    parser.add_argument("worker", nargs="+", help="the worker's command line (after --)")
    args = parser.parse_args(argv)
    with open(args.spec) as handle:
        spec = json.load(handle)
    worker = Worker(args.worker, args.deadline_seconds)
    try:
        with open(args.out, "wb") as out:
            sink = Conductor(spec, worker, out).conduct()
    except WorkerError as error:
        print(f"error: {args.spec}: {error}", file=sys.stderr)
        worker.kill()
        return 4
    print(f"done: {len(spec['cells'])} cells (sink {sink})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
