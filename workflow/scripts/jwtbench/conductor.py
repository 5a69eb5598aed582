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

Several workers (the spec's timing.workers, default 1): the conductor starts that many
processes of the same command; each prepares and checks the cells and warms each cell up
itself (the first also calibrates it), and round k is run by worker (k - 1) mod W, so that
every cell's rounds come from each process alike and the spread between the processes'
figures is measured in every run rather than assumed (README, "Several workers"). A row's
`worker` column names the process that took its sample.

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
from jwtbench.sample_statistics import worker_spread
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
# Calibration: the largest batch (a loop a JIT removed takes the same time for any n, and
# doubling would never end), the most a rescale multiplies it by, the rescales it may take,
# and the band around the target a batch's time must fall in to stop them.
MAX_BATCH = 10**9
MAX_RESCALE = 100
RESCALES = 5
CALIBRATED = (0.8, 1.25)
# Until steady: a window counts only if the worker's thread had this share of the CPU
# through it (its batch answers' cpu_ns over their elapsed_ns, where the worker says): a
# compilation still running on the benchmark's one CPU slows two windows alike.
CPU_SHARE_STEADY = 0.9
TIME_CAP = "time_cap"
STOPPED_BY = {stopping_rule.PRECISION: "precision", stopping_rule.SAMPLE_CAP: "sample cap", TIME_CAP: "time cap"}


def runtime_quiet(runtime, elapsed):
    """Whether a window's batches ran on a quiet runtime, as far as the worker says
    (README, "Calibration"): its JIT compiled nothing during them (jit_ms) and its thread had
    CPU_SHARE_STEADY of the CPU (cpu_ns over elapsed_ns); a worker that says nothing is
    taken at its word."""
    if any(facts.get("jit_ms", 0) > 0 for facts in runtime):
        return False
    cpu = [facts["cpu_ns"] for facts in runtime if "cpu_ns" in facts]
    return len(cpu) < len(runtime) or sum(cpu) >= CPU_SHARE_STEADY * sum(elapsed)


class WorkerError(Exception):
    """The worker broke the protocol, died, hung, or a batch threw. `done`: the elapsed ns of
    the request's batches that ended before it, which are measured and are written."""

    def __init__(self, message, done=()):
        super().__init__(message)
        self.done = list(done)


class BatchFailed(WorkerError):
    """A batch threw; the worker goes on."""


class Worker:
    """A worker process on the other end of the protocol's pipes; `number`: its place among
    the job's workers (1, 2, ...), the raw rows' `worker`."""

    def __init__(self, argv, deadline_seconds=60.0, stderr=None, number=1):
        self.number = number
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
        self.runtime = []  # per batch, what the worker said of its runtime (jit_ms, cpu_ns)
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
            self.runtime.append({key: answer[key] for key in ("jit_ms", "cpu_ns") if key in answer})
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
    def __init__(self, spec, workers, out, progress=None):
        self.spec = spec
        self.workers = list(workers)
        self.timing = Timing.from_spec(spec["timing"])
        self.out = out  # binary: each row is written and flushed as result_tables writes a line
        self.progress = progress or (lambda text: print(text, file=sys.stderr, flush=True))
        self.warmed_up = set()  # the workers whose process warm-up is done
        self.out.write(result_tables.csv_line(raw_samples.COLUMNS))

    # --- rows ---------------------------------------------------------------------------

    def row(self, cell, status, sample=0, iterations=0, elapsed_ns=0, output_bytes=None, worker=0):
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
                    worker,
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

    def run(self, cell, n, worker, count=1):
        """`count` batches of n calls of `cell` on `worker`: their elapsed ns, which count as
        the cell's own time (the worker's clock, as the samples' time counts)."""
        elapsed = worker.batches([(cell.key, n)] * count, cell.per_call_ns * n * count)
        cell.spent_ns += sum(elapsed)
        cell.per_call_ns = elapsed[-1] / n
        return elapsed

    def limit_ns(self, cell):
        return math.inf if cell.key == REFERENCE else self.timing.max_cell_seconds * 1e9

    def warm_up(self, cell, worker):
        """README, "The warm-up": run the call on `worker` for warmup_seconds (at least once;
        the process's first cell for process_warmup_seconds), in batches that double from 1,
        none past what is left of the warm-up."""
        seconds = self.timing.warmup_seconds
        if worker.number not in self.warmed_up:
            self.warmed_up.add(worker.number)
            seconds = max(seconds, self.timing.process_warmup_seconds)
        until_ns, n, since = seconds * 1e9, 1, cell.spent_ns
        while True:
            (elapsed,) = self.run(cell, n, worker)
            if cell.spent_ns - since >= until_ns or cell.spent_ns > self.limit_ns(cell):
                return
            left_calls = (until_ns - cell.spent_ns + since) / (elapsed / n)
            n = max(1, min(2 * n, MAX_BATCH, int(min(left_calls, MAX_BATCH))))

    def calibrate(self, cell, worker):
        """README, "Calibration": double the batch until it lasts a tenth of the target, then
        rescale it to the target until a batch lasts within CALIBRATED of it (at most
        RESCALES times, each by at most MAX_RESCALE, never past MAX_BATCH); whole passes
        through the cell's inputs."""
        target_ns = self.timing.target_sample_seconds * 1e9
        n = 1
        while True:
            (elapsed,) = self.run(cell, n, worker)
            if elapsed >= target_ns / 10 or n >= MAX_BATCH or cell.spent_ns > self.limit_ns(cell):
                break
            n = min(MAX_BATCH, 2 * n)
        last = elapsed
        for _ in range(RESCALES):
            ratio = target_ns / last
            n = max(1, min(MAX_BATCH, round(n * min(MAX_RESCALE, ratio))))
            if CALIBRATED[0] < ratio < CALIBRATED[1] or n == MAX_BATCH or cell.spent_ns > self.limit_ns(cell):
                break
            (last,) = self.run(cell, n, worker)
        cell.n = whole_passes(n, cell.facts.get("pass_length", 1))
        return last

    def until_steady(self, cell, worker, since_ns=0):
        """README, "Calibration", until steady: windows of steady_window batches on `worker`
        until a window's median ns/op is within steady_tolerance of the last one's, or the
        worker's warm-up of the cell (from since_ns of the cell's time: its first warm-up
        batch on this worker) has lasted warmup_max_seconds, or the cell max_cell_seconds."""
        limit = min(since_ns + self.timing.warmup_max_seconds * 1e9, self.limit_ns(cell))
        previous = change = None
        while cell.spent_ns < limit:
            window = self.run(cell, cell.n, worker, self.timing.steady_window)
            median = statistics.median(e / cell.n for e in window)
            if previous is not None:
                change = abs(median - previous) / previous
                if change <= self.timing.steady_tolerance and runtime_quiet(worker.runtime, window):
                    return f"steady after {(cell.spent_ns - since_ns) / 1e9:.2f} s"
            previous = median
        last = "none: fewer than two windows" if change is None else f"{change:.1%}"
        return f"not steady after {(cell.spent_ns - since_ns) / 1e9:.2f} s (last change {last})"

    def prepare_timing(self, cell):
        """On the first worker: warm-up, calibration and (with warmup_max_seconds) the warm-up
        until steady and a second calibration; on each other worker, its own warm-up and
        warm-up until steady at that batch. A cell whose planned samples cannot fit in
        max_cell_seconds is a timeout cell from here on."""
        first, *others = self.workers
        self.warm_up(cell, first)
        elapsed = self.calibrate(cell, first)
        if self.timing.warmup_max_seconds > 0:
            steadiness = self.until_steady(cell, first)
            elapsed = self.calibrate(cell, first)
            self.progress(f"{self.label(cell)}: {steadiness}{self.on(first)}")
        for worker in others:
            since = cell.spent_ns
            self.warm_up(cell, worker)
            if self.timing.warmup_max_seconds > 0:
                self.progress(f"{self.label(cell)}: {self.until_steady(cell, worker, since)}{self.on(worker)}")
        per_batch = self.timing.target_sample_seconds * 1e9 if cell.n > 1 else elapsed
        cell.timed_out = cell.spent_ns + self.timing.planned_samples * per_batch > self.limit_ns(cell)
        note = " (timeout: its samples will not fit in max_cell_seconds)" if cell.timed_out else ""
        self.progress(f"{self.label(cell)}: batch of {cell.n}{note}")

    def on(self, worker):
        return f" (worker {worker.number})" if len(self.workers) > 1 else ""

    def worker_of_round(self, k):
        """Round k's worker: the workers take the rounds in turn."""
        return self.workers[(k - 1) % len(self.workers)]

    # --- the run ----------------------------------------------------------------------------

    def hellos(self):
        """The workers' first lines, checked against the spec and each other: (the first
        worker's hello, with a cell whose checks the workers disagree on made `failed`)."""
        hellos = [worker.hello(max(worker.deadline_seconds, PREPARE_SECONDS)) for worker in self.workers]
        for worker, hello in zip(self.workers, hellos):
            described = len(hello.get("cells", []))
            if described != len(self.spec["cells"]):
                raise WorkerError(
                    f"worker {worker.number} described {described} cells, the spec has {len(self.spec['cells'])}"
                )
        first = hellos[0]
        for index, entry in enumerate(first["cells"]):
            said = [hello["cells"][index]["status"] for hello in hellos]
            if len(set(said)) > 1:
                first["cells"][index] = {
                    **entry,
                    "status": "failed",
                    "reason": "its workers' checks disagree: " + ", ".join(said),
                }
        if any(bool(hello.get("reference")) != bool(first.get("reference")) for hello in hellos):
            raise WorkerError("the workers disagree on whether the suite has a drift reference")
        return first

    def conduct(self):
        """Every cell's rows, then the workers' end; returns their folded sinks, one each."""
        hello = self.hellos()
        entries = hello["cells"]
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
            self.prepare_timing(reference)  # as a cell's, until steady too: java's read 5-16x at first
        rounds = self.sample_in_rounds(timed, reference)
        self.report(timed, rounds, reference)
        return [worker.end() for worker in self.workers]

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
            worker = self.worker_of_round(k)
            try:
                elapsed = worker.batches(batches, expected)
            except WorkerError as error:
                self.write_round(k, sampling, reference, error.done, rounds, worker)
                raise WorkerError(f"round {k}{self.on(worker)}: {error}; the samples before it are written") from None
            self.write_round(k, sampling, reference, elapsed, rounds, worker)
            rounds.end_round()
            self.progress(f"round {k}/{self.timing.samples} done: {len(sampling)} cells sampled")
        return rounds

    def write_round(self, k, sampling, reference, elapsed, rounds, worker):
        """The round's rows, as far as `elapsed` goes: the reference's (its settling batch
        dropped), then each cell's."""
        if reference:
            elapsed = elapsed[1:]
            if elapsed:
                reference.elapsed_ns.append(elapsed[0])
                self.row(reference, "ok", k, reference.n, elapsed[0], worker=worker.number)
            elapsed = elapsed[1:]
        for cell, ns in zip(sampling, elapsed):
            cell.elapsed_ns.append(ns)
            cell.spent_ns += ns
            rounds.add(cell.key, k, ns / cell.n)
            self.row(cell, "timeout" if cell.timed_out else "ok", k, cell.n, ns, worker=worker.number)

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
                f"({len(cell.elapsed_ns)} samples x {cell.n}, stopped at {why}{self.workers_apart(cell)})"
            )
        if reference and reference.elapsed_ns:
            median = statistics.median(reference.elapsed_ns) / reference.n
            self.progress(f"drift reference: median {median:,.0f} ns per call over {len(reference.elapsed_ns)} rounds")

    def workers_apart(self, cell):
        """The progress's note of how far apart the workers' median samples of the cell lie
        (the largest over the smallest, sample_statistics.worker_spread as aggregation has
        it), with several workers that took enough of its rounds."""
        count = len(self.workers)
        spread = worker_spread(dict(enumerate(cell.elapsed_ns)), {k: k % count for k in range(len(cell.elapsed_ns))})
        return "" if spread is None else f", workers' medians {spread - 1:.1%} apart"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--deadline-seconds", type=float, default=60.0)
    parser.add_argument("worker", nargs="+", help="the worker's command line (after --)")
    args = parser.parse_args(argv)
    with open(args.spec) as handle:
        spec = json.load(handle)
    count = Timing.from_spec(spec["timing"]).workers
    workers = [Worker(args.worker, args.deadline_seconds, number=number) for number in range(1, count + 1)]
    try:
        with open(args.out, "wb") as out:
            sinks = Conductor(spec, workers, out).conduct()
    except WorkerError as error:
        print(f"error: {args.spec}: {error}", file=sys.stderr)
        for worker in workers:
            worker.kill()
        return 4
    print(f"done: {len(spec['cells'])} cells (sinks {sinks})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
