#!/usr/bin/env python3
"""Does jwtbench's openssl driver report what a plain `openssl speed` reports?

Reads the openssl language's raw-sample CSV (default results/raw/openssl/primitive/blocks.csv),
runs a separate plain `openssl speed` of the same binary the way seed 003 did (human output,
openssl's default block sizes, wall clock; by default `openssl speed -elapsed -seconds 3
sha256 rsa2048` and `openssl speed -elapsed -seconds 3 -evp aes-256-gcm`), parses it with the
driver's own parser (workflow/scripts/openssl/speed_output.py), and prints per cell the
driver's median ns/op, the plain run's ns/op, their ratio and OK or OUTSIDE the tolerance
(±10% by default). Cells the plain run does not time are listed as not compared.

Natively it runs `openssl` from PATH (or --openssl); with `--image TAG --engine podman` it
runs `podman run --rm --network none --entrypoint openssl TAG speed ...` instead, the binary
inside the openssl image, for a CSV the image produced.

Exit status: 0 all compared cells agree; 1 some cell is outside; 2 nothing to compare or a
usage/input error.

    python benchmarks/openssl_agreement.py --csv results/raw/openssl/primitive/blocks.csv
"""

import argparse
import csv
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "workflow" / "scripts" / "openssl"))

import speed_output  # noqa: E402
from speed_cells import Unsupported, target_for  # noqa: E402

DEFAULT_CSV = "results/raw/openssl/primitive/blocks.csv"
# What seed 003 ran: `openssl speed sha256 rsa2048 aes-256-gcm` (as two runs: -evp is its own switch).
DEFAULT_SELECTIONS = [["sha256", "rsa2048"], ["-evp", "aes-256-gcm"]]


def driver_cells(csv_path):
    """{(operation, algorithm, key_bits, input, input_bytes): [ns/op of each ok sample]} and the
    implementation versions the rows name."""
    cells, versions = {}, set()
    with open(csv_path, newline="") as handle:
        for row in csv.DictReader(handle):
            if row["status"] != "ok":
                continue
            key = (row["operation"], row["algorithm"], int(row["key_bits"]), row["input"], int(row["input_bytes"]))
            cells.setdefault(key, []).append(int(row["elapsed_ns"]) / int(row["iterations"]))
            versions.add(row["implementation_version"])
    return cells, versions


def plain_command(selection, seconds, image, engine, cpu, openssl):
    speed = ["speed", "-elapsed", "-seconds", str(seconds), *selection]
    if image:
        pin = ["--cpuset-cpus", cpu] if cpu else []
        return [engine, "run", "--rm", "--network", "none", *pin, "--entrypoint", "openssl", image, *speed]
    return (["taskset", "-c", cpu] if cpu else []) + [openssl, *speed]


def engine_environ(engine):
    """The environment the pipeline runs `engine` with (e.g. podman with this repository's
    CONTAINERS_CONF where the host needs it: workflow/scripts/container_engine.py)."""
    sys.path.insert(0, str(REPO / "workflow" / "scripts"))
    import container_engine

    return container_engine.select(engine, REPO).environ()


def run_plain(command, env=None):
    print("$ " + " ".join(command), file=sys.stderr, flush=True)
    result = subprocess.run(command, capture_output=True, text=True, env=env)
    if result.returncode != 0:
        raise SystemExit(f"error: {' '.join(command)} exited {result.returncode}: {result.stderr.strip()[-500:]}")
    return speed_output.parse(result.stdout + "\n" + result.stderr)


def compare(cells, plain_outputs, tolerance):
    """Lines of the report, and whether any compared cell is outside the tolerance."""
    lines, outside, compared = [], False, 0
    header = f"{'cell':<44} {'jwtbench ns/op':>15} {'plain ns/op':>13} {'ratio':>7}  verdict"
    lines.append(header)
    for (operation, algorithm, key_bits, input_name, input_bytes), samples in cells.items():
        name = f"{operation} {algorithm}-{key_bits} {input_name}"
        try:
            target = target_for({"operation": operation, "algorithm": algorithm, "key_bits": key_bits}, input_bytes)
        except Unsupported:
            lines.append(f"{name:<44} {'':>15} {'':>13} {'':>7}  not an openssl speed cell")
            continue
        counts = [found for output in plain_outputs
                  if (found := output.count(target.name, target.operation, target.size))]  # fmt: skip
        driver_ns = statistics.median(samples)
        if not counts:
            lines.append(f"{name:<44} {driver_ns:>15.1f} {'':>13} {'':>7}  not compared (the plain run has no such figure)")
            continue
        # The median over the repeated plain runs: one run of a few seconds varies by 20% here.
        plain_ns = statistics.median(count.ns_per_operation for count in counts)
        ratio = driver_ns / plain_ns
        verdict = "OK" if abs(ratio - 1) <= tolerance else f"OUTSIDE ±{tolerance:.0%}"
        outside |= verdict != "OK"
        compared += 1
        lines.append(f"{name:<44} {driver_ns:>15.1f} {plain_ns:>13.1f} {ratio:>7.3f}  {verdict}")
    return lines, outside, compared


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--csv", default=DEFAULT_CSV, help=f"the openssl driver's raw CSV (default {DEFAULT_CSV})")
    parser.add_argument("--seconds", type=int, default=3, help="seconds per figure of the plain run (default 3)")
    parser.add_argument("--tolerance", type=float, default=0.10, help="relative tolerance (default 0.10)")
    parser.add_argument("--image", help="run openssl inside this image instead of natively")
    parser.add_argument("--engine", default="podman", help="container engine for --image (default podman)")
    parser.add_argument("--openssl", default="openssl", help="native openssl binary (default: openssl on PATH)")
    parser.add_argument("--cpu", help="pin the plain run to this CPU (taskset -c / --cpuset-cpus)")
    parser.add_argument("--repeats", type=int, default=3,
                        help="plain runs of each selection; the median is compared (default 3)")  # fmt: skip
    args = parser.parse_args(argv)
    try:
        cells, versions = driver_cells(args.csv)
    except (OSError, KeyError, ValueError) as error:
        print(f"error: --csv {args.csv}: {error}", file=sys.stderr)
        return 2
    if not cells:
        print(f"error: --csv {args.csv}: no ok rows", file=sys.stderr)
        return 2
    env = engine_environ(args.engine) if args.image else None
    plain = [run_plain(plain_command(selection, args.seconds, args.image, args.engine, args.cpu, args.openssl), env)
             for _ in range(args.repeats) for selection in DEFAULT_SELECTIONS]  # fmt: skip
    plain_versions = {output.version for output in plain if output.version}
    print(f"driver CSV {args.csv}: openssl {', '.join(sorted(versions))}; "
          f"plain run: openssl {', '.join(sorted(plain_versions)) or 'unknown'}")  # fmt: skip
    if plain_versions and versions and plain_versions != versions:
        print("warning: the plain run's openssl is not the version the CSV names (another binary?)")
    lines, outside, compared = compare(cells, plain, args.tolerance)
    print("\n".join(lines))
    if compared == 0:
        print("error: no cell of the CSV was compared", file=sys.stderr)
        return 2
    return 1 if outside else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
