#!/usr/bin/env python3
"""Does jwtbench's openssl driver report what a plain `openssl speed` reports?

The plain run is what seed 003 ran: human output, openssl's default block sizes, wall
clock (`openssl speed -elapsed -seconds 3 sha256 rsa2048` and `openssl speed -elapsed
-seconds 3 -evp aes-256-gcm`), parsed with the driver's own parser
(workflow/scripts/openssl/speed_output.py).

Default (paired rounds): each round runs the real driver (`bench` on a spec of SHA-256 and
AES-256-GCM at openssl's five block sizes and RSA-2048 sign/verify, one sample each, the way
the pipeline runs it) and the plain runs, one after the other, the order alternating from
round to round. Each cell's figure is its median over the rounds, as in the pipeline, and the
verdict is on the ratio of the two medians; the range of the per-round ratios (driver /
plain of one round) is printed beside it. Interleaving matters: this host's speed drifts
by tens of percent within minutes, and a drift then moves both medians alike.

With --csv FILE it compares a finished run's raw CSV (e.g. results/raw/openssl/primitive/
blocks.csv) with plain runs made now instead; on a drifting host the minutes between the
two can decide the verdict.

Natively it runs the driver through its shim (workflow/scripts/openssl/run, which needs the
openssl env in .envs) and `openssl` from PATH (or --openssl); with `--image TAG` both run in
that image, under the engine's pipeline settings (e.g. CONTAINERS_CONF for podman).

Each cell's ratio gets a 95% bootstrap CI (rounds resampled whole, seeded): the cell agrees
when the CI lies inside 1 ± the tolerance (±10% by default), disagrees when it lies wholly
outside, and is otherwise inconclusive: the rounds could not tell, and more rounds narrow it.
(--csv has no rounds to resample: it judges the ratio itself.)

Exit status: 0 every compared cell agrees; 1 some cell disagrees (--csv: is outside the
tolerance); 3 none disagrees but some is inconclusive; 2 nothing to compare, or a usage,
input or run error.

    python benchmarks/openssl_agreement.py --cpu 1
    python benchmarks/openssl_agreement.py --image localhost/jwtbench-openssl:TAG --cpu 1
"""

import argparse
import csv
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from jwtbench import container_engine, driver_runner, machine_lock, sample_statistics
from jwtbench.seeds import verdict_rules

# The openssl driver's parsing modules live beside the driver, outside the package (a
# driver runs in its own environment): this script is the one entry point that imports them.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "workflow" / "scripts" / "openssl"))
import speed_output
from speed_cells import Unsupported, target_for

REPO = Path(__file__).resolve().parents[1]

# What seed 003 ran: `openssl speed sha256 rsa2048 aes-256-gcm` (as two runs: -evp is its own switch).
PLAIN_SELECTIONS = [["sha256", "rsa2048"], ["-evp", "aes-256-gcm"]]
BLOCK_SIZES = (16, 64, 256, 1024, 8192)  # the five the seed's listing and suite primitive share
SHIM = REPO / "workflow" / "scripts" / "openssl" / "run"
RESAMPLES, SEED = 10_000, 3
AGREES, DISAGREES, INCONCLUSIVE = "agrees", "DISAGREES", "inconclusive"
VERDICTS = {verdict_rules.HOLDS: AGREES, verdict_rules.FAILS: DISAGREES, verdict_rules.OPEN: INCONCLUSIVE}


def spec_cells():
    """The driver's cells that the plain runs also time (suite primitive's names)."""
    cells = []
    for size in BLOCK_SIZES:
        cells.append(
            {
                "operation": "digest",
                "algorithm": "SHA-256",
                "key_bits": 0,
                "input": f"bytes-{size}",
                "message_bytes": size,
            }
        )
        cells.append(
            {
                "operation": "encrypt",
                "algorithm": "AES-256-GCM",
                "key_bits": 256,
                "input": f"bytes-{size}",
                "message_bytes": size,
            }
        )
    for operation in ("sign", "verify"):
        cells.append(
            {
                "operation": operation,
                "algorithm": "RSA-SHA256",
                "key_bits": 2048,
                "input": "bytes-36",
                "message_bytes": 36,
            }
        )
    return cells


def cell_key(operation, algorithm, key_bits, input_name, input_bytes):
    return (operation, algorithm, int(key_bits), input_name, int(input_bytes))


def driver_figures(rows):
    """{cell key: [ns/op of each ok row]} and the implementation versions the rows name."""
    cells, versions = {}, set()
    for row in rows:
        if row["status"] != "ok":
            continue
        key = cell_key(row["operation"], row["algorithm"], row["key_bits"], row["input"], row["input_bytes"])
        cells.setdefault(key, []).append(int(row["elapsed_ns"]) / int(row["iterations"]))
        versions.add(row["implementation_version"])
    return cells, versions


def plain_figure(key, output):
    """ns/op of the cell `key` in one parsed plain run, or None if that run has no such figure."""
    operation, algorithm, key_bits, _, input_bytes = key
    try:
        target = target_for({"operation": operation, "algorithm": algorithm, "key_bits": key_bits}, input_bytes)
    except Unsupported:
        return None
    count = output.count(target.name, target.operation, target.size)
    return count.ns_per_operation if count else None


class Tools:
    """How to run the driver and plain openssl: natively, or in an image through an engine."""

    def __init__(self, image, engine_name, cpu, openssl):
        self.image, self.cpu, self.openssl = image, cpu, openssl
        self.engine = container_engine.select(engine_name if image else "native", REPO)
        self.runner = driver_runner.DriverRunner("openssl", str(SHIM), self.engine, image, REPO / ".envs")
        self.cpus = driver_runner.checked_cpus(cpu) if cpu else set()

    def plain_command(self, selection, seconds):
        speed = ["speed", "-elapsed", "-seconds", str(seconds), *selection]
        if self.image:
            pin = ["--cpuset-cpus", self.cpu] if self.cpu else []
            return self.engine.command(
                "run", "--rm", "--network", "none", *pin, "--entrypoint", "openssl", self.image, *speed
            )
        return driver_runner.taskset([self.openssl, *speed], self.cpus)

    def run_plain(self, selection, seconds):
        command = self.plain_command(selection, seconds)
        print("$ " + " ".join(command), file=sys.stderr, flush=True)
        result = subprocess.run(command, capture_output=True, text=True, env=self.engine.environ())
        if result.returncode != 0:
            raise SystemExit(f"error: {' '.join(command)} exited {result.returncode}: {result.stderr.strip()[-500:]}")
        return speed_output.parse(result.stdout + "\n" + result.stderr)

    def run_driver(self, spec_path, scratch):
        print(f"$ openssl driver bench ({self.runner.describe()})", file=sys.stderr, flush=True)
        try:
            return driver_runner.bench_rows(self.runner, spec_path, None, self.cpus, scratch, sys.stderr)
        except (RuntimeError, ValueError) as error:
            raise SystemExit(f"error: {error}") from None


def paired_rounds(tools, rounds, seconds):
    """[(driver figures {key: ns/op}, [plain outputs])] of each round, and the driver's versions."""
    results, versions = [], set()
    with tempfile.TemporaryDirectory(prefix="jwtbench-agreement-") as scratch:
        spec_path = Path(scratch) / "spec.json"
        spec = {"suite": "primitive", "openssl": {"seconds": seconds, "samples": 1}, "cells": spec_cells()}
        spec_path.write_text(json.dumps(spec, indent=1))
        for number in range(1, rounds + 1):
            print(f"round {number}/{rounds}", file=sys.stderr, flush=True)
            plain_first = number % 2 == 0
            # A round is a benchmark: it holds the machine's benchmark lock, so no pipeline
            # benchmark or image build (of any run here) shares the machine with it.
            with machine_lock.machine_to_ourselves(sys.stderr):
                plain = [tools.run_plain(selection, seconds) for selection in PLAIN_SELECTIONS] if plain_first else None
                figures, round_versions = driver_figures(tools.run_driver(spec_path, scratch))
                if plain is None:
                    plain = [tools.run_plain(selection, seconds) for selection in PLAIN_SELECTIONS]
            versions |= round_versions
            results.append(({key: values[0] for key, values in figures.items()}, plain))
    return results, versions


def paired_ratio_ci(pairs, resamples=RESAMPLES, confidence=0.95):
    """Ratio of the two medians and its percentile-bootstrap CI, resampling whole rounds
    (a round's driver and plain figures stay together: they shared the host's state)."""
    ours, theirs = np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])
    ratio = float(np.median(ours) / np.median(theirs))
    picks = np.random.default_rng(SEED).integers(0, len(pairs), size=(resamples, len(pairs)))
    estimates = np.median(ours[picks], axis=1) / np.median(theirs[picks], axis=1)
    return (ratio, *sample_statistics.percentile_interval(estimates, confidence))


def paired_report(results, tolerance):
    """Lines of the report, and each compared cell's verdict: agrees when the ratio's CI lies
    inside 1 ± tolerance, disagrees when it lies wholly outside, else inconclusive."""
    lines = [
        f"{'cell':<36} {'jwtbench ns/op':>15} {'plain ns/op':>12} {'ratio':>7} {'95% CI':>13} "
        f"{'rounds (min-max)':>17}  verdict"
    ]
    verdicts = []
    keys = [
        cell_key(c["operation"], c["algorithm"], c["key_bits"], c["input"], c["message_bytes"]) for c in spec_cells()
    ]
    for key in keys:
        pairs = []
        for figures, plain in results:
            ours = figures.get(key)
            theirs = [value for output in plain if (value := plain_figure(key, output))]
            if ours and theirs:
                pairs.append((ours, theirs[0]))
        name = f"{key[0]} {key[1]}-{key[2]} {key[3]}"
        if not pairs:
            lines.append(f"{name:<36} not compared (no round has both figures)")
            continue
        ratios = [ours / theirs for ours, theirs in pairs]
        ours_ns, theirs_ns = statistics.median(p[0] for p in pairs), statistics.median(p[1] for p in pairs)
        ratio, low, high = paired_ratio_ci(pairs)
        verdict = VERDICTS[verdict_rules.within(low, high, 1 - tolerance, 1 + tolerance)]
        verdicts.append(verdict)
        spread = f"{min(ratios):.2f}-{max(ratios):.2f} ({len(ratios)})"
        lines.append(
            f"{name:<36} {ours_ns:>15.1f} {theirs_ns:>12.1f} {ratio:>7.3f} [{low:.3f}, {high:.3f}] "
            f"{spread:>17}  {verdict}"
        )
    return lines, verdicts


def csv_report(csv_path, plain_outputs, tolerance):
    """The --csv comparison: a finished run's median per cell against the median plain run."""
    with open(csv_path, newline="") as handle:
        cells, versions = driver_figures(csv.DictReader(handle))
    lines = [f"{'cell':<44} {'jwtbench ns/op':>15} {'plain ns/op':>13} {'ratio':>7}  verdict"]
    outside, compared = False, 0
    for key, samples in cells.items():
        name = f"{key[0]} {key[1]}-{key[2]} {key[3]}"
        plain = [value for output in plain_outputs if (value := plain_figure(key, output))]
        driver_ns = statistics.median(samples)
        if not plain:
            lines.append(
                f"{name:<44} {driver_ns:>15.1f} {'':>13} {'':>7}  not compared (the plain run has no such figure)"
            )
            continue
        plain_ns = statistics.median(plain)
        ratio = driver_ns / plain_ns
        verdict = "OK" if abs(ratio - 1) <= tolerance else f"OUTSIDE ±{tolerance:.0%}"
        outside |= verdict != "OK"
        compared += 1
        lines.append(f"{name:<44} {driver_ns:>15.1f} {plain_ns:>13.1f} {ratio:>7.3f}  {verdict}")
    return lines, outside, compared, versions


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--csv", help="compare this finished run's raw CSV instead of running the driver")
    parser.add_argument("--rounds", type=int, default=7, help="paired rounds (default 7); with --csv: plain runs")
    parser.add_argument("--seconds", type=int, default=3, help="seconds per figure, both sides (default 3)")
    parser.add_argument("--tolerance", type=float, default=0.10, help="relative tolerance (default 0.10)")
    parser.add_argument("--image", help="run the driver and openssl inside this image instead of natively")
    parser.add_argument("--engine", default="podman", help="container engine for --image (default podman)")
    parser.add_argument("--openssl", default="openssl", help="native plain openssl (default: openssl on PATH)")
    parser.add_argument("--cpu", help="pin both sides to these CPUs (taskset -c / --cpuset-cpus)")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.seconds < 1:
        parser.error("--rounds and --seconds must be at least 1")
    try:
        tools = Tools(args.image, args.engine, args.cpu, args.openssl)
    except (container_engine.EngineError, RuntimeError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.csv:
        plain = [tools.run_plain(selection, args.seconds) for _ in range(args.rounds) for selection in PLAIN_SELECTIONS]
        try:
            lines, outside, compared, versions = csv_report(args.csv, plain, args.tolerance)
        except (OSError, KeyError, ValueError) as error:
            print(f"error: --csv {args.csv}: {error}", file=sys.stderr)
            return 2
        source = f"driver CSV {args.csv}"
    else:
        results, versions = paired_rounds(tools, args.rounds, args.seconds)
        plain = [output for _, outputs in results for output in outputs]
        lines, verdicts = paired_report(results, args.tolerance)
        compared = len(verdicts)
        outside = DISAGREES in verdicts
        open_cells = verdicts.count(INCONCLUSIVE)
        lines.append(
            f"{verdicts.count(AGREES)} of {compared} cells agree within ±{args.tolerance:.0%} (95% CI of the "
            f"ratio inside), {verdicts.count(DISAGREES)} disagree, {open_cells} inconclusive"
            + (": more rounds narrow the CIs (--rounds)" if open_cells else "")
        )
        source = f"driver ({tools.runner.describe()}), {args.rounds} paired rounds of {args.seconds} s figures"
    plain_versions = {output.version for output in plain if output.version}
    print(
        f"{source}: openssl {', '.join(sorted(versions)) or 'unknown'}; "
        f"plain run: openssl {', '.join(sorted(plain_versions)) or 'unknown'}"
    )
    if plain_versions and versions and plain_versions != versions:
        print("warning: the plain run's openssl is not the version the driver names (another binary?)")
    print("\n".join(lines))
    if compared == 0:
        print("error: no cell was compared", file=sys.stderr)
        return 2
    if outside:
        return 1
    return 3 if not args.csv and open_cells else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
