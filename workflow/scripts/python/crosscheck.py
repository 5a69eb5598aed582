"""`crosscheck --spec FILE --out FILE` (workflow/scripts/README.md): the driver's own loop and
timeit time a cell's very call in alternating blocks, and its CSV.

driver.command_crosscheck prepares and checks each cell as suite jwt does, warms its batch
up and calibrates it as bench does (timing.CellTiming, until steady too), and hands
it here with its timeit harness on the call the batch makes (timeit_harness.py); then the
drift reference's. Alternation k is a driver block and a native block, the driver's first
when k is odd. A driver block is batches of the calibrated n (CellTiming.take_sample: the
driver's clock and sink) until it has lasted block_seconds and has at least 3; its figure is
their median ns/op. A native block is the harness's own (TimeitHarness.block). One row per
block, flushed as it is written.
"""

import csv
import statistics

from timing import clock

COLUMNS = [
    "language",
    "implementation",
    "implementation_version",
    "operation",
    "algorithm",
    "key_bits",
    "input",
    "input_bytes",
    "alternation",
    "timer",
    "harness",
    "harness_version",
    "samples",
    "ns_per_op",
    "status",
]
DRIVER = "jwtbench"  # the harness column of the driver's blocks
LEAST_BATCHES = 3  # a driver block's batches, however short block_seconds is


def driver_block(timing, block_ns):
    """Batches of the calibrated n until the block has lasted block_ns and has at least
    LEAST_BATCHES: (their median ns/op, the batches)."""
    per_op = []
    start = clock()
    while len(per_op) < LEAST_BATCHES or clock() - start < block_ns:
        per_op.append(timing.take_sample() / timing.batch)
    return statistics.median(per_op), len(per_op)


class Crosscheck:
    """The blocks' CSV, and the spec's alternations and block length."""

    def __init__(self, handle, settings, warmup_seconds, implementation, versions):
        self.handle = handle
        self.writer = csv.writer(handle, lineterminator="\n")
        self.writer.writerow(COLUMNS)
        self.alternations = settings["alternations"]
        self.block_seconds = float(settings["block_seconds"])
        self.warmup_seconds = warmup_seconds
        self.implementation = implementation  # the rows' default (a cell may name its own)
        self.versions = versions  # implementation -> () -> its version

    def row(self, cell, input_bytes, alternation, timer, harness, harness_version, samples, ns_per_op, status):
        implementation = cell.get("implementation", self.implementation)
        self.writer.writerow(
            [
                "python",
                implementation,
                self.versions[implementation](),
                cell["operation"],
                cell["algorithm"],
                cell["key_bits"],
                cell["input"],
                input_bytes,
                alternation,
                timer,
                harness,
                harness_version,
                samples,
                ns_per_op,
                status,
            ]
        )
        self.handle.flush()

    def untimed(self, cell, input_bytes, status):
        """The one row of a cell that cannot be timed (unsupported, failed)."""
        self.row(cell, input_bytes, 0, "driver", DRIVER, "", 0, "", status)

    def alternate(self, cell, input_bytes, timing, native):
        """Warm the native harness up, then the alternations of a cell whose driver batch
        (`timing`) is calibrated; returns the cell's progress line."""
        native.warm_up(self.warmup_seconds, self.block_seconds)
        ratios = []
        for alternation in range(1, self.alternations + 1):
            figures = {}
            for timer in ("driver", "native") if alternation % 2 else ("native", "driver"):
                if timer == "driver":
                    figure, samples = driver_block(timing, self.block_seconds * 1e9)
                    harness, version = DRIVER, ""
                else:
                    figure, samples = native.block()
                    harness, version = native.name, native.version
                figures[timer] = figure
                self.row(cell, input_bytes, alternation, timer, harness, version, samples, f"{figure:.3f}", "ok")
            ratios.append(figures["driver"] / figures["native"])
        return (
            f"batch of {timing.batch}, {native.name} {native.repeats} x {native.number}: driver / {native.name}"
            f" {statistics.median(ratios):.3f} (median of {len(ratios)} alternations)"
        )
