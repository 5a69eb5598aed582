# Config validation, shared paths and the input functions every rule calls.
#
# Pipeline steps are Python modules under workflow/scripts/, called from `run:` blocks:
# they run in the workflow's own pinned venv (envs/pipeline). Each language's driver runs
# in that language's image (containers/<language>/, rules in images.smk) under a container
# engine, or natively in its pinned environment (envs/<language>/, rule
# install_native_env); driver_runner.py does both. A `conda:` or `container:` directive
# would name environments this workflow does not use.
import os
import re
import sys
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

SOURCE = Path(workflow.basedir).parent  # the repository
SCRIPTS = SOURCE / "workflow" / "scripts"
from jwtbench import (
    bench_budget,
    config_validation,
    conformance_cases,
    container_engine,
    driver_runner,
    run_jobs,
    run_progress,
    variants,
)
from jwtbench.rules import (
    aggregate_samples,
    bench_plan,
    build_image,
    bundles,
    check_conformance,
    coldstart,
    collect_provenance,
    compare_native,
    compare_runs,
    crosscheck_harness,
    cycle_counter,
    describe_drivers,
    deterministic_tokens,
    generate_keys,
    merge_hosts,
    native_env,
    prepare_dataset,
    render_report,
    run_benchmark,
    run_warnings,
    summarize_crosscheck,
    verify_tokens,
    wall_times,
    write_bench_spec,
)
from jwtbench.seeds import (
    seed000,
    seed001,
    seed002,
    seed003,
    seed004,
)

try:
    config = config_validation.validate(
        config,
        SOURCE / "config" / "schemas" / "config.schema.yaml",
        config_validation.driver_languages(SCRIPTS),
        config_validation.library_drivers(SCRIPTS),
    )
except config_validation.ConfigError as error:
    raise WorkflowError(str(error)) from None

try:
    ENGINE = container_engine.select(config["execution"]["engine"], SOURCE)
except container_engine.EngineError as error:
    raise WorkflowError(str(error)) from None
if ENGINE.warning:
    print(f"jwtbench: warning: {ENGINE.warning}", file=sys.stderr)
IN_CONTAINERS = ENGINE.in_containers

# What this run does (jwtbench/run_jobs.py): its drivers, suites, jobs, inputs and seeds,
# from the config, the drivers' manifests and the registry (workflow/suites.yaml, seeds.yaml).
try:
    RUN = run_jobs.RunJobs.from_checkout(config, SCRIPTS, SOURCE)
except config_validation.ConfigError as error:
    raise WorkflowError(str(error)) from None
for _note in RUN.notes():
    print(f"jwtbench: note: {_note}", file=sys.stderr)
language_of = config_validation.language_of
LANGUAGES, DRIVER_NAMES, DRIVERS = RUN.languages, RUN.driver_names, RUN.drivers
JWS_LANGUAGES, JWS_DRIVERS = RUN.jws_languages, RUN.jws_drivers
DATASETS, DRIVER_JOBS, JWT_VARIANTS = RUN.datasets, RUN.driver_jobs, RUN.jwt_variants
COLDSTART = RUN.coldstart
JWT = config["suites"]["jwt"]
DATA_DIR = SOURCE / config["data_dir"]
JWT_SIGNING_INPUT = run_jobs.JWT_SIGNING_INPUT
KEY_MANIFEST = "keys/manifest.json"
# The config a run's provenance and bundle record: without the keys that only name other
# runs' bundles for the on-demand compare and merge targets (rules/compare.smk), so
# setting those never re-runs (or changes the record of) this run.
RUN_CONFIG = {
    key: value for key, value in config.items() if key not in ("compare", "merge")
}
# The runtime image every driver image is FROM (containers/runtime/), built first.
IMAGES = ["runtime", *LANGUAGES, "report"]
COMPARE_NATIVE = IN_CONTAINERS and config["execution"]["compare_native"]["activate"]
# The drivers whose loop is cross-checked against their language's harness (rule
# crosscheck_harness): each JWS language's own, and with crosscheck.libraries the others.
CROSSCHECK = config["crosscheck"]
CROSSCHECK_DRIVERS = (
    [name for name in JWS_DRIVERS if CROSSCHECK["libraries"] or name in LANGUAGES]
    if CROSSCHECK["activate"]
    else []
)
try:
    DATASET_SOURCES = {
        name: prepare_dataset.choose_source(DATA_DIR, dataset)
        for name, dataset in DATASETS.items()
    }
except prepare_dataset.DatasetError as error:
    raise WorkflowError(str(error)) from None
# The seeds this run reproduces (workflow/seeds.yaml: a seed runs when it reads a suite
# and input the run measures).
SEEDS = RUN.active_seeds()


wildcard_constraints:
    language="|".join(LANGUAGES),
    driver="|".join(re.escape(name) for name in DRIVER_NAMES),
    suite="|".join(RUN.suites) or "(?!)",
    image="|".join(IMAGES),
    dataset="|".join(DATASETS) or "(?!)",
    input="|".join(re.escape(name) for name in RUN.all_inputs()),


def interop_variants():
    """The variants checked across languages: those of config interop.variants that suite
    jwt times (every one it times when the list is empty)."""
    timed = [variant.name for variant in JWT_VARIANTS]
    chosen = {variants.parse(name).name for name in config["interop"]["variants"]}
    return [name for name in timed if name in chosen] if chosen else timed


def job(input, output, params, log, wildcards=None, threads=1):
    """What a step's run_job() receives: the job's files and settings by name."""
    return SimpleNamespace(
        input=input,
        output=output,
        params=params,
        log=log,
        wildcards=wildcards,
        threads=threads,
    )


def repo_path(relative):
    """A path from the config, resolved against the repository (not the working dir)."""
    return str((SOURCE / relative).resolve())


def driver(name):
    """The driver's shim, which runs it natively."""
    return str(SCRIPTS / name / "run")


def image_record(name):
    return f"results/images/{name}.json"


def driver_params(name, engine=ENGINE):
    """How a step runs a driver (driver_runner.DriverRunner.from_params): in its language's
    image, a further library through its own shim there."""
    return {
        "language": name,
        "shim": driver(name),
        "engine": engine.as_dict(),
        "image_record": (
            image_record(language_of(name)) if engine.in_containers else None
        ),
        # The driver's own shim in the image (not the image's generic entrypoint,
        # containers/runtime/start-driver): nothing but the driver is timed.
        "entrypoint": (
            driver_runner.shim_in_image(name) if engine.in_containers else None
        ),
    }


def native_driver_params(language):
    return driver_params(
        language, container_engine.Engine("native", "native", "compared")
    )


def get_driver(wildcards):
    return driver_params(wildcards.driver)


def is_conducted(wildcards):
    """Whether the conductor times this benchmark job through the driver's serve (its
    driver.yaml `conducted`) rather than the driver's own bench."""
    return wildcards.suite in DRIVERS[wildcards.driver]["conducted"]


def get_own_driver(wildcards):
    """{driver: driver params} for the one driver a job checks."""
    return {wildcards.driver: driver_params(wildcards.driver)}


def all_drivers():
    return {name: driver_params(name) for name in JWS_DRIVERS}


def driver_sources(name):
    """A driver's files: its language's harness, and a further library's own folder."""
    folders = dict.fromkeys([SCRIPTS / language_of(name), SCRIPTS / name])
    return sorted(
        str(path) for folder in folders for path in folder.iterdir() if path.is_file()
    )


def env_stamp(language):
    return f".envs/{language}/.installed"


def env_manifests(wildcards):
    """The env's files, plus the driver's sources where the install compiles them (src/)."""
    folder = SOURCE / "envs" / wildcards.language
    sources = SOURCE / "workflow" / "scripts" / wildcards.language / "src"
    return sorted(str(path) for path in folder.iterdir() if path.is_file()) + sorted(
        str(path) for path in sources.rglob("*") if path.is_file()
    )


def native_env_image(wildcards):
    """Under a container engine, the image a compiled driver's native binary is copied
    from (native_env.FROM_IMAGE); natively, nothing: the installer builds it."""
    from_images = config["execution"]["native_envs"] == "from_images"
    if IN_CONTAINERS and from_images and wildcards.language in native_env.FROM_IMAGE:
        return [image_record(wildcards.language)]
    return []


def get_env_installer(wildcards):
    return str(SOURCE / "envs" / wildcards.language / "install")


def key_names():
    """Keys the run's cells use, plus those cold start and the checks sign with."""
    names = RUN.key_names()
    if config["conformance"]["activate"]:
        names |= set(conformance_cases.key_names())
    return sorted(names)


def get_suite_config(wildcards):
    return RUN.suite_config_of(wildcards.driver, wildcards.suite, wildcards.input)


# The timing section of every spec, with the statistics' confidence for the stopping rule's CIs.
SPEC_TIMING = {**config["timing"], "confidence": config["statistics"]["confidence"]}


def jwt_input_file():
    return RUN.claims_file


def get_spec_inputs(wildcards):
    """The keys, and the results file its cells read (a dataset's, the signing input)."""
    inputs = {"key_manifest": KEY_MANIFEST}
    data, _ = RUN.bench_input(wildcards.suite, wildcards.input)
    if data and data.startswith("results/"):
        inputs["data"] = data
    return inputs


def get_dataset_inputs(wildcards):
    """What preparing a dataset reads: its dropped file, the Kaggle client, or the generator."""
    dataset = DATASETS[wildcards.dataset]
    source = DATASET_SOURCES[wildcards.dataset]
    inputs = {"code": [str(SCRIPTS / "rules" / "prepare_dataset.py")]}
    if source == "kaggle":
        download = prepare_dataset.kaggle_download_path(DATA_DIR, dataset)
        if download.is_file():
            inputs["download"] = str(download)
        elif prepare_dataset.kaggle_credentials():
            inputs["client"] = ".envs/kaggle/.installed"
    dropped = prepare_dataset.dropped_path(DATA_DIR, dataset)
    if source in ("kaggle", "file") and dropped.is_file():
        inputs["dropped"] = str(dropped)
    if dataset["synthetic"]:
        inputs["code"].append(str(SCRIPTS / "jwtbench" / "synthetic_datasets.py"))
    return inputs


def runtime_of(language):
    """What running a language's driver needs installed: its image or its native env."""
    return image_record(language) if IN_CONTAINERS else env_stamp(language)


def get_driver_inputs(wildcards):
    """What running a driver needs: its language's image or environment, its sources, the keys."""
    return {
        "runtime": runtime_of(language_of(wildcards.driver)),
        "sources": driver_sources(wildcards.driver),
        "key_manifest": KEY_MANIFEST,
    }


def get_all_images(wildcards=None):
    """Every image (and the base), so none is still building when a benchmark starts."""
    return [image_record(name) for name in ["base", *IMAGES]] if IN_CONTAINERS else []


def get_image_sources(wildcards):
    return [
        str(SOURCE / path)
        for path in build_image.image_input_files(SOURCE, wildcards.image)
    ]


def get_runtime_image(wildcards):
    """The runtime image's record, for a driver image (whose final stage is FROM it)."""
    if wildcards.image in ("runtime", "report"):
        return []
    return [image_record("runtime")]


# Image builds share the machine's CPUs: at most `image_builds` at once (workflow/profiles/
# default: 4), in this order. rust's first: its cargo build ends with one crate compiled on one
# CPU, which then overlaps the other builds instead of running alone after them (figures:
# docs/measurements.md, 2026-11-26 21:15). The report's image is needed last.
BUILD_ORDER = {"runtime": 5, "rust": 4, "java": 3, "go": 3, "node": 2, "report": 0}


def get_build_priority(wildcards):
    return BUILD_ORDER.get(wildcards.image, 1)


def get_build_args(wildcards):
    if wildcards.image != "report":
        return {}
    return {
        "QUARTO_VERSION": config["report"]["quarto_version"],
        "QUARTO_SHA256": config["report"]["quarto_sha256"],
    }


def get_raw_samples(wildcards=None):
    return RUN.raw_files("csv")


def get_raw_metadata(wildcards=None):
    return RUN.raw_files("json")


def get_bench_specs(wildcards=None):
    """The spec of each raw file, in the same order (aggregation replays the stopping rule)."""
    return RUN.specs()


def get_dataset_facts(wildcards=None):
    return [f"results/data/{name}/dataset.json" for name in DATASETS]


def seed_inputs(seed):
    """Input function of a seed's rule: the raw files it reads (RunJobs.seed_inputs)."""
    return lambda wildcards: RUN.seed_inputs(seed)


def get_wall_time_inputs(wildcards):
    """The report's results: every job that made them has ended (and recorded its wall
    time) before rule collect_wall_times runs."""
    return {
        name: paths
        for name, paths in get_report_inputs(wildcards).items()
        if name not in ("wall_times", "images", "sources")
    }


def get_report_inputs(wildcards):
    inputs = {
        "summary": "results/summary.csv",
        "ratios": "results/ratios.csv",
        "drivers": "results/drivers.csv",
        "matrix": "results/verify/matrix.csv",
        "conformance": (
            ["results/verify/conformance.csv", "results/verify/verify-policy.csv"]
            if config["conformance"]["activate"]
            else []
        ),
        "deterministic": "results/verify/deterministic.csv",
        "provenance": "results/provenance.json",
        "wall_times": "results/wall_times.csv",
        "drift": "results/drift.csv",
        "noise": "results/noise.csv",
        "warnings": "results/warnings.csv",
        "images": [image_record("report")] if IN_CONTAINERS else [],
        "sources": sorted(
            str(path) for path in (SOURCE / "report").rglob("*") if path.is_file()
        ),
    }
    if CROSSCHECK_DRIVERS:
        inputs["crosscheck"] = "results/crosscheck.csv"
    if COMPARE_NATIVE:
        inputs["compare_native"] = "results/container_vs_native.csv"
    if COLDSTART:
        inputs["coldstart"] = "results/coldstart.csv"
    for seed in SEEDS:
        inputs[seed] = RUN.known.seeds[seed].tables()
    if RUN.seeds_reading_datasets():
        inputs["datasets"] = get_dataset_facts()
    return inputs


def get_bundle_inputs(wildcards):
    """Everything a bundle holds: summary, ratios, provenance, every raw file, the seed
    tables (and suite primitive's overhead), the published figures' CSVs."""
    reported = get_report_inputs(wildcards)
    return {
        "summary": "results/summary.csv",
        "ratios": "results/ratios.csv",
        "provenance": "results/provenance.json",
        "samples": get_raw_samples(),
        "metadata": get_raw_metadata(),
        "coldstart": (
            expand("results/raw/{driver}/coldstart.json", driver=JWS_LANGUAGES)
            if COLDSTART
            else []
        ),
        "seeds": [path for name in SEEDS for path in reported[name]],
        "published": sorted(
            str(path) for path in (SOURCE / "report" / "published").glob("*.csv")
        ),
    }


def verification_gate():
    """What every benchmark waits for: the interop matrix and, when active, the
    conformance suite (whose driver failures stop the run before anything is timed)."""
    gate = ["results/verify/matrix.csv"]
    if config["conformance"]["activate"]:
        gate.append("results/verify/conformance.csv")
    return gate


def get_final_outputs():
    return [
        "results/summary.csv",
        "results/provenance.json",
        "results/report/report.html",
        "results/bundles/latest.json",
        "results/run.checked",
    ]


# --strict (./jwtbench run --strict, JWTBENCH_STRICT=1, or config key strict): the run's
# warnings (rule collect_warnings) fail it instead of being shown only.
STRICT = config["strict"] or os.environ.get("JWTBENCH_STRICT", "0") != "0"


def get_warning_inputs(wildcards):
    """The inputs of rule collect_warnings (the confirmed cross-check, the drift, the summary
    and every benchmark's metadata, for its failure if any)."""
    inputs = {
        "summary": "results/summary.csv",
        "drift": "results/drift.csv",
        "metadata": get_raw_metadata(),
    }
    if CROSSCHECK_DRIVERS:
        inputs["crosscheck"] = "results/crosscheck.csv"
    return inputs


def config_bundles(key):
    """Input function: the bundles of config key `key` (compare or merge), each of which
    must exist (rules in compare.smk); the steps themselves check how many there are."""

    def existing_bundles(wildcards):
        paths = config[key]["bundles"]
        for index, path in enumerate(paths):
            if not Path(path).exists():
                raise WorkflowError(
                    f"config key '{key}.bundles[{index}]': no such bundle directory or archive: {path}"
                )
        return paths

    return existing_bundles


def print_run_warnings():
    """The run's last lines: its warnings (results/warnings.csv), each with what to do."""
    for line in run_progress.warning_lines(run_warnings.WARNINGS):
        print(line, file=sys.stderr)


def print_bench_plan():
    """Before the first job: the cells the benchmarks will time and an estimate of how long,
    and the benchmark budget's plan (bench_plan.announce). Nothing when this call runs no
    benchmark job (`compare`, `merge`, a report): the last run's plan, which its progress
    line and budget read, stays as it was."""
    jobs = list(workflow.dag.needrun_jobs())
    scheduled = [job.wildcards for job in jobs if job.rule.name == "run_benchmark"]
    if scheduled:
        needed = Counter(job.rule.name for job in jobs)
        bench_plan.announce(
            RUN,
            [(w.driver, w.suite, w.input) for w in scheduled],
            needed,
            CROSSCHECK_DRIVERS,
            COMPARE_NATIVE,
            IN_CONTAINERS,
        )


def get_job_plan(wildcards):
    """A benchmark job's seconds as the plan sees them (bench_plan.job_seconds)."""
    return bench_plan.run_job_seconds(
        RUN, wildcards.driver, wildcards.suite, wildcards.input
    )
