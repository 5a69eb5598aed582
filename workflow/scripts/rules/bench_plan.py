"""The benchmark plan printed before the first job: how many cells each suite times and
a range for the time the benchmarks will take (timing rule 5a makes the real figure
depend on the machine's noise: the low end is every cell stopping at min_samples, the
high end every cell running to its cap)."""

from jwtbench import bench_budget, cell_samples
from jwtbench.rules import write_bench_spec

KEY_DIR = "/keys"  # cells only need key file names to be counted


def job_cells(language, suite, input_name, suite_config, jws):
    """The cells one benchmark job's spec will hold (as write_bench_spec makes them)."""
    if suite == "hash":
        return write_bench_spec.hash_cells(language, suite_config, input_name)
    if suite == "primitive":
        with_signing_input = jws and suite_config["jwt_signing_input"]
        return write_bench_spec.primitive_cells(language, suite_config, KEY_DIR, "input", with_signing_input)
    if suite == "keygen":
        return write_bench_spec.keygen_cells(language, suite_config, KEY_DIR)
    if suite == "harness":
        return write_bench_spec.harness_cells()
    return write_bench_spec.cells(suite, suite_config, KEY_DIR, input_name, "input")


def seconds(suite, cell, suite_config, timing, jws):
    """(least, most) seconds one cell is expected to take."""
    if suite == "keygen" and cell["operation"] not in ("sign", "verify"):
        # Cells go on to target_cell_seconds; only the largest keys run into their budget.
        target = suite_config["target_cell_seconds"]
        return target, suite_config["max_cell_seconds"] if cell["key_bits"] > 4096 else 2 * target + 1
    if suite == "primitive" and not jws:  # openssl speed: its own runs
        runs = suite_config["openssl"]["samples"] * suite_config["openssl"]["seconds"]
        return runs, runs
    if suite == "percall":  # calls one by one: cheap ones take milliseconds, RSA-4096 seconds
        calls = suite_config["warmup_calls"] + suite_config["calls"]
        return calls * 1e-5, calls * 1e-3
    if suite == "transfer":
        trials = suite_config["trials"] + suite_config["warmup_trials"]
        return trials * 0.01, trials * 1.0
    if suite == "tokensize":
        return 0.01, 5.0
    return bench_budget.round_cell_seconds(timing)


def job_seconds(driver, suite, input_name, suite_config, timing, jws):
    """One benchmark job's (expected seconds, worst-case seconds) for the benchmark budget
    (jwtbench/bench_budget.py): expected is halfway between every cell stopping at
    min_samples and every one running to its cap."""
    least_all = most_all = timing.get("process_warmup_seconds", 0) if suite in cell_samples.ROUND_SUITES and jws else 0
    for cell in job_cells(driver, suite, input_name, suite_config, jws):
        least, most = seconds(suite, cell, suite_config, timing, jws)
        least_all += least
        most_all += most
    return (least_all + most_all) / 2, most_all


def crosscheck_plan(drivers, settings, timing):
    """[cells, least seconds, most seconds] of the cross-check (rule crosscheck_harness): per
    driver, each variant and operation and the reference, warmed up by both timers, then
    `alternations` pairs of blocks; the high end allows a process (or JMH's forked JVM) start
    and a block twice as long as asked per cell."""
    per_driver = len(settings["variants"]) * len(settings["operations"]) + 1
    blocks = 2 * settings["alternations"] * settings["block_seconds"]
    least = per_driver * (2 * timing["warmup_seconds"] + blocks) + settings["process_warmup_seconds"]
    return [per_driver * len(drivers), least * len(drivers), (least + per_driver * (1 + blocks)) * len(drivers)]


# A runtime's start (process, or container and process) to its first line and back:
# 0.16-0.67 s here, node to java, from rule run_coldstart's jobs of 2026-11-28.
START_SECONDS = (0.1, 0.5)


def compare_native_plan(languages, settings, timing):
    """[cells, least seconds, most seconds] of rule compare_native: per language, `repeats`
    pairs of whole bench processes (native, container) timing its sign variants with
    samples_per_run samples each."""
    per_run = {**timing, "samples": settings["samples_per_run"]}
    least, most = bench_budget.round_cell_seconds(per_run)
    processes = 2 * settings["repeats"] * len(languages)
    cells = len(settings["variants"])
    fixed = timing.get("process_warmup_seconds", 0)
    return [
        cells * processes,
        processes * (fixed + START_SECONDS[0] + cells * least),
        processes * (fixed + START_SECONDS[1] + cells * most),
    ]


def coldstart_plan(drivers, settings, modes):
    """[cells, least seconds, most seconds] of rule run_coldstart: per driver, each of its
    `modes` (native; under a container engine also in a container and an empty container)
    started warmup_runs + runs times."""
    starts = len(drivers) * modes * (settings["runs"] + settings["warmup_runs"])
    return [len(drivers) * modes, starts * START_SECONDS[0], starts * START_SECONDS[1]]


def plan(jobs, suite_config_of, timing, jws_of):
    """{suite: [cells, least seconds, most seconds]} over the benchmark jobs (driver, suite,
    input); suite_config_of(driver, suite, input) is the suite's config for a job (the
    workflow's)."""
    totals = {}
    for driver, suite, input_name in jobs:
        jws = jws_of[driver]
        config = suite_config_of(driver, suite, input_name)
        made = job_cells(driver, suite, input_name, config, jws)
        entry = totals.setdefault(suite, [0, 0.0, 0.0])
        entry[0] += len(made)
        if suite in cell_samples.ROUND_SUITES and jws:  # the process's warm-up lands on its first cell
            entry[1] += timing.get("process_warmup_seconds", 0)
            entry[2] += timing.get("process_warmup_seconds", 0)
        for cell in made:
            least, most = seconds(suite, cell, config, timing, jws)
            entry[1] += least
            entry[2] += most
    return totals


def describe(totals, jobs):
    lines = [f"jwtbench: benchmark plan: {sum(t[0] for t in totals.values()):,} cells in {len(jobs)} jobs"]
    for suite, (count, least, most) in totals.items():
        lines.append(f"  {suite:<10} {count:>6,} cells  {least / 60:6.1f} to {most / 60:6.1f} min")
    least, most = sum(t[1] for t in totals.values()), sum(t[2] for t in totals.values())
    lines.append(
        f"  estimated benchmark time: {least / 60:.0f} to {most / 60:.0f} min (the low end if every"
        " cell stops at min_samples, the high end if every one runs to its cap; checks, builds and"
        " the report come on top)"
    )
    return "\n".join(lines)
