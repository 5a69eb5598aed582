"""The benchmark plan printed before the first job: how many cells each suite times and
a range for the time the benchmarks will take (the stopping rule makes the real figure
depend on the machine's noise: the low end is every cell stopping at min_samples, the
high end every cell running to its cap)."""

import sys

from jwtbench import bench_budget, registry
from jwtbench.rules import write_bench_spec

KEY_DIR = "/keys"  # cells only need key file names to be counted


def job_cells(language, suite, input_name, suite_config, jws, known=None):
    """The cells one benchmark job's spec will hold (as write_bench_spec makes them)."""
    suites = (known or registry.load()).suites
    return write_bench_spec.make_cells(language, suite, suite_config, KEY_DIR, input_name, "input", None, jws, suites)


def seconds(suite, cell, suite_config, timing, jws, known=None):
    """(least, most) seconds one cell is expected to take, by the registry's `seconds`."""
    model = (known or registry.load()).suites[suite].seconds
    if suite == "primitive" and not jws:  # openssl speed: its own runs
        runs = suite_config["openssl"]["samples"] * suite_config["openssl"]["seconds"]
        return runs, runs
    if model == "keygen" and cell["operation"] not in ("sign", "verify"):
        # RSA cells go on to target_cell_seconds; only the largest keys run into their
        # budget. A curve's keys take milliseconds: max_iterations ends those cells first.
        target = suite_config["target_cell_seconds"]
        if cell["family"] != "RSA":
            return 0, target
        return target, suite_config["max_cell_seconds"] if cell["key_bits"] > 4096 else 2 * target + 1
    if isinstance(model, dict):  # per trial, record or call, times how many the config asks
        times = sum(suite_config[key] for key in model.get("times", ())) or 1
        least, most = model["each"]
        return times * least, times * most
    return bench_budget.round_cell_seconds(timing)


def process_warmup(suite, timing, jws, known=None):
    """The warm-up a job's bench processes (timing.workers of them) spend before their first
    cell (suites sampled in rounds)."""
    rounds = (known or registry.load()).suites[suite].rounds
    return timing.get("workers", 1) * timing.get("process_warmup_seconds", 0) if rounds and jws else 0


def job_seconds(driver, suite, input_name, suite_config, timing, jws, known=None):
    """One benchmark job's (expected seconds, worst-case seconds) for the benchmark budget
    (jwtbench/bench_budget.py): expected is halfway between every cell stopping at
    min_samples and every one running to its cap."""
    least_all = most_all = process_warmup(suite, timing, jws, known)
    for cell in job_cells(driver, suite, input_name, suite_config, jws, known):
        least, most = seconds(suite, cell, suite_config, timing, jws, known)
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


def plan(jobs, suite_config_of, timing, jws_of, known=None):
    """{suite: [cells, least seconds, most seconds]} over the benchmark jobs (driver, suite,
    input); suite_config_of(driver, suite, input) is the suite's config for a job (the
    workflow's)."""
    totals = {}
    for driver, suite, input_name in jobs:
        jws = jws_of[driver]
        config = suite_config_of(driver, suite, input_name)
        made = job_cells(driver, suite, input_name, config, jws, known)
        entry = totals.setdefault(suite, [0, 0.0, 0.0])
        entry[0] += len(made)
        warmup = process_warmup(suite, timing, jws, known)  # lands on the process's first cell
        entry[1] += warmup
        entry[2] += warmup
        for cell in made:
            least, most = seconds(suite, cell, config, timing, jws, known)
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


def run_job_seconds(run, driver, suite, input_name):
    """job_seconds of one of `run`'s jobs (a jwtbench.run_jobs.RunJobs)."""
    config = run.suite_config_of(driver, suite, input_name)
    return job_seconds(driver, suite, input_name, config, run.config["timing"], run.drivers[driver]["jws"], run.known)


# The timed work after the benchmark jobs, by the rule that does it.
AFTER_RULES = {"crosscheck": "crosscheck_harness", "compare_native": "compare_native", "coldstart": "run_coldstart"}


def announce(run, scheduled, needed, crosscheck_drivers, compare_native, in_containers, out=sys.stderr):
    """Print the plan of `run`'s benchmarks and write the benchmark budget's plan for the
    jobs this call runs (`scheduled`: (driver, suite, input)), with the timed work after
    them that it runs too (`needed`: {rule: jobs}); the run's progress line reads it."""
    config, timing = run.config, run.config["timing"]
    jws_of = {name: run.drivers[name]["jws"] for name in run.driver_names}
    totals = plan(run.driver_jobs, run.suite_config_of, timing, jws_of, run.known)
    if crosscheck_drivers:
        totals["crosscheck"] = crosscheck_plan(crosscheck_drivers, config["crosscheck"], timing)
    if compare_native:
        totals["compare_native"] = compare_native_plan(run.jws_languages, config["execution"]["compare_native"], timing)
    if run.coldstart:
        modes = 3 if in_containers else 1
        totals["coldstart"] = coldstart_plan(run.jws_languages, config["suites"]["coldstart"], modes)
    print(describe(totals, run.driver_jobs), file=out)
    # Each rule's part shrinks as its jobs finish (jwtbench/run_progress.py).
    after = {
        rule: [needed[rule], (totals[name][1] + totals[name][2]) / 2]
        for name, rule in AFTER_RULES.items()
        if name in totals and needed[rule]
    }
    minutes = config["execution"]["benchmark_budget_minutes"]
    jobs = {}
    for driver, suite, input_name in scheduled:
        settings = run.suite_config_of(driver, suite, input_name)
        cells = job_cells(driver, suite, input_name, settings, jws_of[driver], run.known)
        jobs[f"{driver}/{suite}/{input_name}"] = (*run_job_seconds(run, driver, suite, input_name), len(cells))
    bench_budget.write_plan(minutes * 60, jobs, after=after, lanes=len(config["execution"]["lanes"]))
    if minutes and jobs:
        expected = sum(plan[0] for plan in jobs.values()) / 60
        print(
            f"  benchmark budget: {minutes:g} min for these {len(jobs)} jobs (expected {expected:.0f} min);"
            " past it, cells stop at a lowered sample cap and the report says which",
            file=out,
        )
