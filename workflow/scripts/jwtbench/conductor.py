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

Several workers (the spec's timing.workers, default 1; worker_count): the conductor starts
that many processes of the same command; each prepares and checks the cells and warms each cell up
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
import shlex
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field

from jwtbench import raw_samples, result_tables, stopping_rule
from jwtbench.sample_statistics import worker_spread
from jwtbench.spec_timing import Timing

PROTOCOL = "jwtbench-worker/1"
# A worker command's placeholder for a name unique to each start of a worker (a container's).
WORKER_NAME = "{worker}"
# What a batch answer may say beside elapsed_ns: its runtime (jit_ms, cpu_ns), the sizes of a
# batch of one call (input_bytes, output_bytes) and the times of its parts (transfer's sign
# and the server's verify).
ANSWER_FACTS = ("jit_ms", "cpu_ns", "input_bytes", "output_bytes", "parts")
# Suites whose cells are sampled in rounds by one or more workers; keygen's per-iteration
# cells and the suites timed call by call (percall, tokensize, transfer) are timed one call
# at a time by one worker (single_calls).
ROUNDS = ("jwt", "hash", "primitive", "harness")
PER_ITERATION = ("keygen+sign+verify", "keygen")
# Every suite it times (a driver's `conducted`).
SUITES = (*ROUNDS, "keygen", "percall", "tokensize", "transfer")
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
# The contract's exit status of a usage or input error.
USAGE = 2
# A transfer trial's rows: the whole trial (the cell's operation) and its parts.
TRANSFER_OPERATIONS = ("request-response", "sign", "verify")
# Cells timed a call at a time are asked for about this long a request (a batch per call).
REQUEST_SECONDS = 0.1
# The cross-check's CSV of blocks (README, "The cross-check").
BLOCK_COLUMNS = result_tables.columns("crosscheck_blocks.schema.yaml")
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
    the request's batches that ended before it, which are measured and are written;
    `status`: the worker's exit status, when it ended."""

    def __init__(self, message, done=(), status=None):
        super().__init__(message)
        self.done = list(done)
        self.status = status


class BatchFailed(WorkerError):
    """A batch threw; the worker goes on."""


class WorkerHung(WorkerError):
    """The worker did not answer within its deadline; it was stopped."""


class Worker:
    """A worker process on the other end of the protocol's pipes; `number`: its place among
    the job's workers (1, 2, ...), the raw rows' `worker`."""

    def __init__(self, argv, deadline_seconds=60.0, stderr=None, number=1, stop=None, start=0):
        """`argv` and `stop` (the command that stops a worker its own signals cannot reach,
        as a container's) may hold WORKER_NAME, replaced by a name unique to this start;
        `start` counts the job's earlier starts of this worker."""
        self.argv, self.stop, self.stderr, self.start = argv, stop, stderr, start
        self.number = number
        self.deadline_seconds = deadline_seconds
        name = f"{os.getpid()}-{number}-{start}"
        self.process = subprocess.Popen(
            [arg.replace(WORKER_NAME, name) for arg in argv],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            bufsize=0,
        )
        self.stop_argv = [arg.replace(WORKER_NAME, name) for arg in stop] if stop else None
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.process.stdout, selectors.EVENT_READ)
        self.pending = b""  # what the worker wrote past its last whole line
        self.runtime = []  # per batch of the last request, what the worker said (ANSWER_FACTS)

    def restarted(self):
        """A new process of the same worker, in its place (after kill)."""
        return Worker(self.argv, self.deadline_seconds, self.stderr, self.number, self.stop, self.start + 1)

    def _line(self, seconds, waiting_for):
        """The worker's next line as JSON, within `seconds` (read from the pipe's descriptor:
        a buffered reader would hold lines the selector cannot see)."""
        deadline = time.monotonic() + seconds
        while b"\n" not in self.pending:
            left = deadline - time.monotonic()
            if left <= 0 or not self.selector.select(timeout=left):
                self.kill()
                raise WorkerHung(f"the worker did not answer within {seconds:.0f} s ({waiting_for}); it was stopped")
            chunk = os.read(self.process.stdout.fileno(), 1 << 16)
            if not chunk:
                code = self.process.wait()
                raise WorkerError(
                    f"the worker ended (exit status {code}) while the conductor waited for {waiting_for}", status=code
                )
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

    def batches(self, batches, expected_ns, seconds=None):
        """Elapsed ns of each of `batches` [(cell, n)], run in order; BatchFailed if one threw.
        Each answer's other facts (ANSWER_FACTS) are in self.runtime, batch by batch. The
        worker hangs past `seconds` (default: DEADLINE_FACTOR times expected_ns, at least
        deadline_seconds)."""
        request = [[cell, int(n)] for cell, n in batches]
        self._send({"batches": request})
        if seconds is None:
            seconds = max(self.deadline_seconds, DEADLINE_FACTOR * expected_ns / 1e9)
        done = []
        self.runtime = []
        for cell, n in request:
            try:
                answer = self._line(seconds, f"a batch of {n} calls of cell {cell}")
            except WorkerError as error:
                raise type(error)(str(error), done, error.status) from None
            if "error" in answer:
                raise BatchFailed(f"cell {cell} threw in a batch of {n}: {answer['error']}", done)
            elapsed = answer.get("elapsed_ns")
            if not isinstance(elapsed, int) or elapsed < 1:
                self.kill()
                raise WorkerError(f"the worker answered {answer!r} for a batch of cell {cell}, not elapsed_ns >= 1")
            done.append(elapsed)
            self.runtime.append({key: answer[key] for key in ANSWER_FACTS if key in answer})
        return done

    def native(self, cell, seconds):
        """The native harness's figure for `cell` over about `seconds`: (samples, ns_per_op)."""
        self._send({"native": [cell, seconds]})
        answer = self._line(max(self.deadline_seconds, DEADLINE_FACTOR * seconds), f"a native block of cell {cell}")
        if "error" in answer:
            raise BatchFailed(f"cell {cell}'s native block threw: {answer['error']}")
        figure, samples = answer.get("ns_per_op"), answer.get("samples")
        if not isinstance(figure, (int, float)) or figure <= 0 or not isinstance(samples, int) or samples < 1:
            self.kill()
            raise WorkerError(f"the worker answered {answer!r} for a native block of cell {cell}")
        return samples, float(figure)

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
            raise WorkerError(f"the worker ended (exit status {code}) before a request", status=code) from None

    def kill(self):
        """Stop the worker: its stop command first (a container, which its client's signals
        do not reach), then the process itself."""
        if self.process.poll() is None:
            if self.stop_argv:
                subprocess.run(self.stop_argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
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
        self.crosscheck = self.spec.get("crosscheck")
        self.out.write(result_tables.csv_line(BLOCK_COLUMNS if self.crosscheck else raw_samples.COLUMNS))

    # --- rows ---------------------------------------------------------------------------

    def row(self, cell, status, sample=0, iterations=0, elapsed_ns=0, worker=0, **given):
        """One raw row of `cell`; `given` overrides the cell's operation, input_bytes and
        output_bytes (a call's own sizes, a part of a transfer trial)."""
        facts = {**cell.fields, **cell.facts, **given}
        self.out.write(
            result_tables.csv_line(
                [
                    self.spec["language"],
                    facts["implementation"],
                    facts["implementation_version"],
                    self.spec["suite"],
                    facts["operation"],
                    facts["algorithm"],
                    facts["key_bits"],
                    facts["input"],
                    facts.get("input_bytes", 0),
                    sample,
                    iterations,
                    elapsed_ns,
                    facts.get("output_bytes", 0) if status in ("ok", "timeout") else 0,
                    status,
                    worker,
                ]
            )
        )
        self.out.flush()

    def untimed(self, cell, status, elapsed_ns=0):
        """A cell with no sample: one row (transfer: one per operation of a trial)."""
        for operation in self.operations(cell):
            self.row(cell, status, elapsed_ns=elapsed_ns, operation=operation, output_bytes=0)

    def operations(self, cell):
        return TRANSFER_OPERATIONS if self.spec["suite"] == "transfer" else (cell.fields["operation"],)

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
        for index, (fields, entry) in enumerate(zip(self.spec["cells"], first["cells"])):
            asked = fields.get("implementation")
            if asked and entry.get("implementation") != asked:
                raise WorkerError(
                    f"cells[{index}] names implementation {asked!r}, which the worker does not have"
                    f" (it answered {entry.get('implementation')!r})",
                    status=USAGE,
                )
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
        """Every cell's rows, then the workers' end; returns their folded sinks, one each.
        The cells timed a call at a time come first (keygen's per-iteration cells before its
        sign and verify, README "Suite keygen"), then the cells sampled in rounds."""
        hello = self.hellos()
        if self.crosscheck:
            self.cross_check(hello)
            return [worker.end() for worker in self.workers]
        in_rounds = []
        for index, (fields, facts) in enumerate(zip(self.spec["cells"], hello["cells"])):
            cell = Cell(index, fields, facts)
            if facts["status"] != "ok":
                self.progress(f"{self.label(cell)}: {facts['status']}: {facts.get('reason', '')}")
                self.untimed(cell, facts["status"])
            elif self.sampled_in_rounds(cell):
                in_rounds.append(cell)
            else:
                try:
                    SINGLE_CALLS[self.spec["suite"]](self, cell)
                except BatchFailed as failed:
                    self.progress(f"{self.label(cell)}: failed while timing ({failed})")
                    self.untimed(cell, "failed")
        timed = []
        for cell in in_rounds:
            try:
                self.prepare_timing(cell)
            except BatchFailed as failed:
                self.progress(f"{self.label(cell)}: failed while timing ({failed})")
                self.untimed(cell, "failed")
                continue
            timed.append(cell)
        reference = None
        if timed and hello.get("reference"):
            reference = Cell(REFERENCE, REFERENCE_CELL, hello["reference"])
            self.prepare_timing(reference)  # as a cell's, until steady too: java's read 5-16x at first
        rounds = self.sample_in_rounds(timed, reference)
        self.report(timed, rounds, reference)
        return [worker.end() for worker in self.workers]

    def sampled_in_rounds(self, cell):
        suite = self.spec["suite"]
        return suite in ROUNDS or (suite == "keygen" and cell.fields["operation"] not in PER_ITERATION)

    # --- cells timed a call at a time (README, suites percall, tokensize, transfer, keygen) --

    def one_call_each(self, cell, count, until):
        """Up to `count` calls of `cell` on the first worker, each a batch of one call, in
        requests of about REQUEST_SECONDS; no request starts once time.monotonic() passes
        `until`. Returns [(elapsed_ns, facts)] and whether the time ran out first."""
        done, per_call_ns = [], None
        while len(done) < count:
            left = until - time.monotonic()
            if left <= 0:
                return done, True
            worker = self.workers[0]
            size = 1 if per_call_ns is None else int(REQUEST_SECONDS * 1e9 / per_call_ns)
            size = max(1, min(count - len(done), size))
            seconds = max(worker.deadline_seconds, left + worker.deadline_seconds)
            elapsed = worker.batches([(cell.key, 1)] * size, 0, seconds)
            done += zip(elapsed, worker.runtime)
            per_call_ns = statistics.median(elapsed)
        return done, False

    def percall(self, cell):
        """README, "Suite percall": warmup_calls untimed, then each call timed on its own."""
        settings, start = self.spec["percall"], time.monotonic()
        until = start + self.timing.max_cell_seconds
        _, out_of_time = self.one_call_each(cell, settings["warmup_calls"], until)
        calls, out_of_time = ([], True) if out_of_time else self.one_call_each(cell, settings["calls"], until)
        self.call_rows(cell, calls, out_of_time, time.monotonic() - start)

    def tokensize(self, cell):
        """README, "Suite tokensize": every record signed once, in file order, each call timed
        on its own; the row's sample is the record's line."""
        start = time.monotonic()
        calls, out_of_time = self.one_call_each(cell, cell.facts["pass_length"], start + self.timing.max_cell_seconds)
        self.call_rows(cell, calls, out_of_time, time.monotonic() - start)

    def call_rows(self, cell, calls, out_of_time, spent_seconds, ok_when_out_of_time=False):
        """The rows of a cell timed call by call, written when it ends: status timeout when
        its time ran out (unless ok_when_out_of_time), one untimed row if it has no call."""
        status = "timeout" if out_of_time and not ok_when_out_of_time else "ok"
        if not calls:
            self.untimed(cell, status, elapsed_ns=int(spent_seconds * 1e9))
        for sample, (elapsed, facts) in enumerate(calls, start=1):
            sizes = {key: facts[key] for key in ("input_bytes", "output_bytes") if key in facts}
            self.row(cell, status, sample, 1, elapsed, self.workers[0].number, **sizes)
        median = f"median {statistics.median(e for e, _ in calls):,.0f} ns" if calls else "none timed"
        unit = "iterations" if self.spec["suite"] == "keygen" else "calls"
        self.progress(f"{self.label(cell)}: {status}: {len(calls)} {unit}, {median}")

    def transfer(self, cell):
        """README, "Suite transfer": warmup_trials untimed, then `trials` timed, each trial's
        rows its whole time and its parts (the client's sign, the server's verify)."""
        settings, start = self.spec["transfer"], time.monotonic()
        until = start + self.timing.max_cell_seconds
        _, out_of_time = self.one_call_each(cell, settings["warmup_trials"], until)
        trials, out_of_time = ([], True) if out_of_time else self.one_call_each(cell, settings["trials"], until)
        status = "timeout" if out_of_time else "ok"
        if not trials:
            self.untimed(cell, status, elapsed_ns=int((time.monotonic() - start) * 1e9))
        for sample, (elapsed, facts) in enumerate(trials, start=1):
            parts = {cell.fields["operation"]: elapsed, **facts.get("parts", {})}
            if set(parts) != set(TRANSFER_OPERATIONS):
                raise WorkerError(f"a transfer trial's answer has parts {sorted(parts)}, not sign and verify")
            for operation in TRANSFER_OPERATIONS:
                size = {"output_bytes": facts["output_bytes"]} if "output_bytes" in facts else {}
                self.row(cell, status, sample, 1, parts[operation], self.workers[0].number, operation=operation, **size)
        self.progress(f"{self.label(cell)}: {status}: {len(trials)} trials")

    def keygen(self, cell):
        """README, "Suite keygen", a per-iteration cell: one iteration per request, at least
        `iterations` and more while their time is under target_cell_seconds, up to
        max_iterations; max_cell_seconds holds while an iteration runs (the worker is then
        stopped and a new one started for what follows)."""
        settings = self.spec["keygen"]
        start = time.monotonic()
        until = start + settings["max_cell_seconds"]
        done, out_of_time, stopped = [], False, None
        while len(done) < settings["max_iterations"]:
            if len(done) >= settings["iterations"] and sum(e for e, _ in done) >= settings["target_cell_seconds"] * 1e9:
                break
            worker, left = self.workers[0], until - time.monotonic()
            if left <= 0:
                out_of_time = True
                break
            try:
                (elapsed,) = worker.batches([(cell.key, 1)], 0, left)
            except WorkerHung:
                out_of_time, stopped = True, worker
                break
            done.append((elapsed, worker.runtime[0]))
        enough = len(done) >= settings["iterations"]
        self.call_rows(cell, done, out_of_time, time.monotonic() - start, ok_when_out_of_time=enough)
        if stopped:  # after the rows: the cell's time is its own, not the next worker's start
            self.progress(f"{self.label(cell)}: an iteration ran past max_cell_seconds; its worker is restarted")
            self.restart(stopped)

    def restart(self, worker):
        """A new process in the place of a stopped worker, its cells prepared and checked again."""
        worker.kill()
        new = worker.restarted()
        self.workers[self.workers.index(worker)] = new
        self.warmed_up.discard(new.number)
        hello = new.hello(max(new.deadline_seconds, PREPARE_SECONDS))
        if len(hello.get("cells", [])) != len(self.spec["cells"]):
            raise WorkerError(f"worker {new.number}, restarted, described other cells than the spec's")

    # --- the cross-check (README, "The cross-check") ------------------------------------------

    def cross_check(self, hello):
        """Each cell, then the drift reference: warmed up and calibrated as for rounds, the
        native harness warmed up, then `alternations` pairs of a driver block (batches of the
        calibrated n for block_seconds, at least 3; its figure the median ns/op) and a native
        block (the harness's own figure), the driver's first in odd alternations."""
        harness = hello.get("harness") or {}
        worker = self.workers[0]
        cells = [Cell(index, *entry) for index, entry in enumerate(zip(self.spec["cells"], hello["cells"]))]
        if hello.get("reference"):
            cells.append(Cell(REFERENCE, REFERENCE_CELL, {**hello["reference"], "input_bytes": 64}))
        for cell in cells:
            if cell.facts["status"] != "ok":
                self.progress(f"{self.label(cell)}: {cell.facts['status']}: {cell.facts.get('reason', '')}")
                self.block_row(cell, 0, "driver", {}, "", "", cell.facts["status"])
                continue
            try:
                self.prepare_timing(cell)
                worker.native(cell.key, self.timing.warmup_seconds)  # the harness's own warm-up
                ratios = []
                for k in range(1, self.crosscheck["alternations"] + 1):
                    figures = {}
                    for timer in ("driver", "native") if k % 2 else ("native", "driver"):
                        if timer == "driver":
                            figures[timer] = self.driver_block(cell, worker)
                            self.block_row(cell, k, timer, {"name": "jwtbench", "version": ""}, *figures[timer], "ok")
                        else:
                            figures[timer] = worker.native(cell.key, self.crosscheck["block_seconds"])
                            self.block_row(cell, k, timer, harness, *figures[timer], "ok")
                    ratios.append(figures["driver"][1] / figures["native"][1])
                self.progress(f"{self.label(cell)}: driver over native, median {statistics.median(ratios):.3f}")
            except BatchFailed as failed:
                self.progress(f"{self.label(cell)}: failed while timing ({failed})")
                self.block_row(cell, 0, "driver", {}, "", "", "failed")

    def driver_block(self, cell, worker):
        """Batches of the cell's n until the block has lasted block_seconds and has at least
        3: (their number, their median ns per call)."""
        target_ns, elapsed = self.crosscheck["block_seconds"] * 1e9, []
        while len(elapsed) < 3 or sum(elapsed) < target_ns:
            left = math.ceil((target_ns - sum(elapsed)) / max(1.0, cell.per_call_ns * cell.n))
            elapsed += self.run(cell, cell.n, worker, max(3 - len(elapsed), left, 1))
        return len(elapsed), statistics.median(e / cell.n for e in elapsed)

    def block_row(self, cell, alternation, timer, harness, samples, ns_per_op, status):
        facts, fields = cell.facts, cell.fields
        line = [
            self.spec["language"],
            facts["implementation"],
            facts["implementation_version"],
            fields["operation"],
            fields["algorithm"],
            fields["key_bits"],
            fields["input"],
            facts.get("input_bytes", 0),
            alternation,
            timer,
            harness.get("name", "jwtbench"),
            harness.get("version", ""),
            samples,
            ns_per_op if ns_per_op == "" else f"{ns_per_op:.3f}",
            status,
        ]
        self.out.write(result_tables.csv_line(line))
        self.out.flush()

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


SINGLE_CALLS = {
    "percall": Conductor.percall,
    "tokensize": Conductor.tokensize,
    "transfer": Conductor.transfer,
    "keygen": Conductor.keygen,
}


def missing_keys(spec):
    """What the conductor needs of a spec and it lacks (the workflow writes specs whole;
    this names what a spec written by hand left out)."""
    wanted = {"": ["language", "suite", "timing", "cells"]}
    if spec.get("suite") in SINGLE_CALLS and spec.get("suite") != "tokensize":
        wanted[""].append(spec["suite"])
    if "crosscheck" in spec:
        wanted["crosscheck"] = ["alternations", "block_seconds"]
    missing = [key for key in wanted[""] if key not in spec]
    missing += [f"crosscheck.{key}" for key in wanted.get("crosscheck", []) if key not in spec["crosscheck"]]
    return missing


def worker_count(spec):
    """timing.workers for a suite sampled in rounds; the cross-check, the suites timed a call
    at a time and keygen need one. Keygen's sign and verify cells are rounds too, but a second
    worker's warm-up of its 24 cells cost 30-60 s a language (2026-11-29: the default run 50.8
    minutes); their ratios' CIs are widened by the language's measured spread instead
    (docs/methods.md, "Several workers")."""
    rounds = spec["suite"] in ROUNDS and "crosscheck" not in spec
    return Timing.from_spec(spec["timing"]).workers if rounds else 1


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--deadline-seconds", type=float, default=60.0)
    parser.add_argument(
        "--stop", help=f"the command that stops a worker (a container: its name's {WORKER_NAME} as the worker's)"
    )
    parser.add_argument("worker", nargs="+", help=f"the worker's command line (after --; {WORKER_NAME}: see --stop)")
    args = parser.parse_args(argv)
    try:
        with open(args.spec) as handle:
            spec = json.load(handle)
        missing = missing_keys(spec)
        if missing:
            raise ValueError(f"key {missing[0]!r} missing")
        count = worker_count(spec)
    except (OSError, ValueError, KeyError, TypeError) as error:
        print(f"error: the spec {args.spec}: {error}", file=sys.stderr)
        return USAGE
    stop = shlex.split(args.stop) if args.stop else None
    workers = [Worker(args.worker, args.deadline_seconds, number=n, stop=stop) for n in range(1, count + 1)]
    conductor = None
    try:
        with open(args.out, "wb") as out:
            conductor = Conductor(spec, workers, out)
            sinks = conductor.conduct()
    except WorkerError as error:
        print(f"error: {args.spec}: {error}", file=sys.stderr)
        for worker in conductor.workers if conductor else workers:
            worker.kill()
        # A worker that refused the spec (exit 2, its message naming the file) is the spec's
        # input error, as the conductor's own are.
        return 2 if error.status == USAGE and not error.done else 4
    print(f"done: {len(spec['cells'])} cells (sinks {sinks})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
