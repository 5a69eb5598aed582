"""What a container costs per operation: the same JWT sign cells timed natively and in
the language's container, in alternating runs (native, container, native, ...), each run a
whole `bench` process with the run's timing budget but fewer samples
(execution.compare_native.samples_per_run): many short processes, since speed varies more
from process to process than within one. The ratio of the medians of the runs' medians
(container / native) goes to results/container_vs_native.csv and the report.
"""

import json
import statistics
import subprocess
import tempfile
from pathlib import Path

from jwtbench import driver_runner, result_tables, variants
from jwtbench.rules import write_bench_spec

COLUMNS = result_tables.columns("container_vs_native.schema.yaml")


def medians_by_cell(rows):
    """{(algorithm, key_bits): median ns/op} of one bench run's ok samples."""
    per_cell = {}
    for row in rows:
        if row["status"] == "ok":
            per_cell.setdefault((row["algorithm"], row["key_bits"]), []).append(row["elapsed_ns"] / row["iterations"])
    return {cell: statistics.median(values) for cell, values in per_cell.items()}


def stack(runner):
    """Runtime, library and crypto backend as the driver reports them: the ratio measures
    the container alone only when both sides run the same stack."""
    with runner.session() as argv:
        result = subprocess.run(argv("versions"), capture_output=True, text=True, env=runner.environ(), check=True)
    facts = json.loads(result.stdout)
    return (
        f"{facts['runtime']} {facts['runtime_version']}; {facts['implementation']}"
        f" {facts['implementation_version']}; {facts['crypto_backend']}"
    )


def run_job(snake):
    settings = snake.params.settings
    key_dir = str(Path(snake.input.key_manifest).parent.resolve())
    names = settings["variants"]
    rows = []
    with (
        open(snake.log[0], "w") as log,
        driver_runner.timed_cpus(snake.params.cpus, snake.params.lanes, log) as cpus,
        tempfile.TemporaryDirectory() as scratch,
    ):
        Path(scratch).chmod(0o755)
        for language, params in snake.params.drivers.items():
            native = driver_runner.DriverRunner.from_params(params["native"])
            container = driver_runner.DriverRunner.from_params(params["container"])
            spec = Path(scratch) / f"{language}-spec.json"
            timing = {**snake.params.timing, "samples": settings["samples_per_run"]}
            write_bench_spec.main(
                language,
                "jwt",
                {"algorithms": names, "operations": ["sign"]},
                timing,
                key_dir,
                snake.params.payload,
                spec,
            )
            stacks = {"native": stack(native), "container": stack(container)}
            runs = {"native": [], "container": []}
            for repeat in range(1, settings["repeats"] + 1):
                for mode, runner in (("native", native), ("container", container)):
                    print(f"{language} {mode} run {repeat}/{settings['repeats']}", file=log, flush=True)
                    samples = driver_runner.bench_rows(runner, spec, key_dir, cpus, scratch, log, params["conducted"])
                    runs[mode].append(medians_by_cell(samples))
            for name in names:
                variant = variants.parse(name)
                cell = (variant.algorithm, variant.key_bits)
                native_runs = [run[cell] for run in runs["native"]]
                container_runs = [run[cell] for run in runs["container"]]
                native_ns, container_ns = statistics.median(native_runs), statistics.median(container_runs)
                ratio = container_ns / native_ns
                rows.append(
                    {
                        "language": language,
                        "operation": "sign",
                        "variant": name,
                        "native_ns": f"{native_ns:.6g}",
                        "container_ns": f"{container_ns:.6g}",
                        "ratio": f"{ratio:.4f}",
                        "tolerance": settings["tolerance"],
                        "within_tolerance": str(abs(ratio - 1) <= settings["tolerance"]).lower(),
                        "repeats": settings["repeats"],
                        "native_runs_ns": " ".join(f"{x:.0f}" for x in native_runs),
                        "container_runs_ns": " ".join(f"{x:.0f}" for x in container_runs),
                        "native_stack": stacks["native"],
                        "container_stack": stacks["container"],
                        "same_stack": str(stacks["native"] == stacks["container"]).lower(),
                    }
                )
                print(
                    f"{language} sign {name}: native {native_ns:.0f} ns, container {container_ns:.0f} ns,"
                    f" ratio {ratio:.3f}",
                    file=log,
                    flush=True,
                )
    # Every digit: the measured figures are formatted above, the tolerance is as configured.
    result_tables.write_csv(snake.output[0], COLUMNS, rows, floats=str)
