"""Suite coldstart: what one whole process costs, timed by hyperfine.

Per language, each command is timed with `hyperfine -N` (no shell in between), after
warm-up runs, and exported as JSON:
- process, native: the driver's `coldstart` (start the runtime, load the JWT library,
  sign one HS256 and one RS256-2048 token, exit), through its shim;
- process, container (container engines only): the same in a fresh locked-down container;
- startup, container: a fresh container of the same image that runs `true` and exits,
  so the container's own start-up cost is its own bar.
All of them run pinned to execution.cpus and alone on the machine (machine_lock), or with
execution.lanes in a lane of their own.

summarize() turns the exports into results/coldstart.csv (median with a bootstrap CI).
"""

import contextlib
import json
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from jwtbench import driver_runner, result_tables, sample_statistics
from jwtbench.machine_facts import output_of

COLUMNS = result_tables.columns("coldstart.schema.yaml")


def hyperfine(command, runs, warmup, export, log, env):
    """Time `command` (a list; hyperfine -N splits it on spaces again) and return the
    export's one result."""
    if any(" " in part for part in command):
        raise RuntimeError(f"coldstart: a path with a space cannot go through hyperfine -N: {command}")
    line = " ".join(command)
    argv = [
        "hyperfine",
        "-N",
        "--warmup",
        str(warmup),
        "--runs",
        str(runs),
        "--export-json",
        str(export),
        "--command-name",
        line,
        line,
    ]
    print("$ " + " ".join(argv), file=log, flush=True)
    result = subprocess.run(argv, stdout=log, stderr=subprocess.STDOUT, env=env)
    if result.returncode != 0:
        raise RuntimeError(f"hyperfine exited {result.returncode} timing: {line}")
    return json.loads(Path(export).read_text())["results"][0]


def run_job(snake):
    language = snake.wildcards.driver
    settings = snake.params.settings
    key_dir = str(Path(snake.input.key_manifest).parent.resolve())
    payload = snake.params.payload
    if shutil.which("hyperfine") is None:
        raise RuntimeError(
            "suite coldstart needs hyperfine (apt-get install hyperfine); or set suites.coldstart.activate to false"
        )
    runners = {"native": driver_runner.DriverRunner.from_params(snake.params.native_driver)}
    configured = driver_runner.DriverRunner.from_params(snake.params.driver)
    if configured.in_container:
        runners["container"] = configured
    work = [
        "coldstart",
        "--hmac",
        f"{key_dir}/hmac-256.secret",
        "--rsa",
        f"{key_dir}/rsa-2048.private.pem",
        "--payload",
        payload,
    ]
    record = {
        "language": language,
        "hyperfine": output_of(["hyperfine", "--version"]),
        "runs": settings["runs"],
        "warmup_runs": settings["warmup_runs"],
        "results": [],
    }
    with (
        open(snake.log[0], "w") as log,
        driver_runner.timed_cpus(snake.params.cpus, snake.params.lanes, log) as cpus,
        tempfile.TemporaryDirectory() as scratch,
    ):
        record["cpus"] = sorted(cpus)
        for mode, runner in runners.items():
            with contextlib.ExitStack() as sessions:
                argv = sessions.enter_context(runner.session(key_dir, read_only=[payload], cpus=cpus))
                timed = [("process", argv(*work))]
                if runner.in_container:
                    # A fresh container of the same image doing nothing: start-up and teardown alone.
                    argv = sessions.enter_context(runner.session(cpus=cpus, entrypoint="true"))
                    timed.append(("startup", argv()))
                for measure, command in timed:
                    check = subprocess.run(command, capture_output=True, text=True, env=runner.environ())
                    if measure == "process" and (check.returncode != 0 or len(check.stdout.split()) != 2):
                        raise RuntimeError(
                            f"{language} {mode} coldstart did not sign two tokens "
                            f"(exit {check.returncode}): {check.stderr.strip()[-300:]}"
                        )
                    export = Path(scratch) / f"{mode}-{measure}.json"
                    started = time.monotonic()
                    result = hyperfine(
                        command, settings["runs"], settings["warmup_runs"], export, log, runner.environ()
                    )
                    record["results"].append(
                        {
                            "mode": mode,
                            "measure": measure,
                            "runner": runner.describe(),
                            "command": result["command"],
                            "times_s": result["times"],
                            "exit_codes": result.get("exit_codes"),
                            "seconds": round(time.monotonic() - started, 2),
                        }
                    )
    Path(snake.output[0]).write_text(json.dumps(record, indent=1) + "\n")


def summarize(snake):
    statistics = snake.params.statistics
    rows = []
    for path in snake.input:
        record = json.loads(Path(path).read_text())
        for result in record["results"]:
            if any(result.get("exit_codes") or []):
                raise RuntimeError(f"{path}: {result['mode']} {result['measure']}: a timed run exited non-zero")
            times = np.array(result["times_s"]) * 1e9
            rng = sample_statistics.generator(statistics["seed"], record["language"], result["mode"], result["measure"])
            low, high = sample_statistics.median_ci(
                times, statistics["confidence"], statistics["bootstrap_resamples"], rng
            )
            rows.append(
                {
                    "language": record["language"],
                    "mode": result["mode"],
                    "measure": result["measure"],
                    "runs": len(times),
                    "median_ns": f"{np.median(times):.0f}",
                    "ci_low_ns": f"{low:.0f}",
                    "ci_high_ns": f"{high:.0f}",
                    "mean_ns": f"{times.mean():.0f}",
                    "sd_ns": f"{times.std(ddof=1):.0f}",
                    "min_ns": f"{times.min():.0f}",
                    "max_ns": f"{times.max():.0f}",
                    "command": result["command"],
                }
            )
    result_tables.write_csv(snake.output[0], COLUMNS, rows)
