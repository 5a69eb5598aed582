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
    transfer_processes,
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

LANGUAGES = config["languages"]
language_of = config_validation.language_of
# Further JWT libraries (config libraries.drivers), each a driver "<language>/<library>"
# that shares its language's environment and image; a language's own driver is named by
# the language. Rules whose wildcard is {driver} run once per driver.
LIBRARY_DRIVERS = [
    name for name in config["libraries"]["drivers"] if language_of(name) in LANGUAGES
]
DRIVER_NAMES = LANGUAGES + LIBRARY_DRIVERS
_left_out = [
    name for name in config["libraries"]["drivers"] if name not in LIBRARY_DRIVERS
]
if _left_out:
    print(
        f"jwtbench: note: libraries.drivers {', '.join(_left_out)}: their languages are not"
        " in `languages`, so they do not run",
        file=sys.stderr,
    )
# The config a run's provenance and bundle record: without the keys that only name other
# runs' bundles for the on-demand compare and merge targets (rules/compare.smk), so
# setting those never re-runs (or changes the record of) this run.
RUN_CONFIG = {
    key: value for key, value in config.items() if key not in ("compare", "merge")
}
try:
    DRIVERS = {
        name: config_validation.driver_manifest(SCRIPTS, name) for name in DRIVER_NAMES
    }
except config_validation.ConfigError as error:
    raise WorkflowError(str(error)) from None
# Languages whose own driver has a JWS library: cold start, the cross-checks, the seeds.
JWS_LANGUAGES = [language for language in LANGUAGES if DRIVERS[language]["jws"]]
# Every JWS driver, the further libraries too: the verification gate, interop, conformance.
JWS_DRIVERS = [name for name in DRIVER_NAMES if DRIVERS[name]["jws"]]
ACTIVE = [name for name, suite in config["suites"].items() if suite["activate"]]
# Suites the drivers' `bench` times; coldstart times whole processes (rule run_coldstart).
SUITES = [name for name in ACTIVE if name != "coldstart"]
COLDSTART = "coldstart" in ACTIVE
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
JWT = config["suites"]["jwt"]
# The variants suite jwt times: its grid, and on the datasets (when it runs there) theirs.
ON_DATASETS = JWT["on_datasets"] and bool(config["datasets"])
JWT_VARIANTS = [
    variants.parse(name)
    for name in dict.fromkeys(
        JWT["algorithms"] + (JWT["dataset_algorithms"] if ON_DATASETS else [])
    )
]
KEY_MANIFEST = "keys/manifest.json"
CLAIMS_INPUT = Path(JWT["input"]).stem
DATASETS = {dataset["name"]: dataset for dataset in config["datasets"]}
DATA_DIR = SOURCE / config["data_dir"]
try:
    DATASET_SOURCES = {
        name: prepare_dataset.choose_source(DATA_DIR, dataset)
        for name, dataset in DATASETS.items()
    }
except prepare_dataset.DatasetError as error:
    raise WorkflowError(str(error)) from None


HASH = config["suites"]["hash"]
HASH_INPUTS = [name for name in ("cases", "lengths") if HASH[name]]
# The job inputs of suites primitive, keygen and harness (each one job per language).
PRIMITIVE_INPUT = "blocks"
KEYGEN_INPUT = "levels"
HARNESS_INPUT = "loop"


# Suite transfer runs each dataset in this many processes (jobs) of the run: its inputs
# are "<dataset>.p<N>" (transfer_processes; the dataset's own name with one process).
TRANSFER_PROCESSES = transfer_processes.count(config["suites"]["transfer"])
TRANSFER_INPUTS = transfer_processes.inputs(DATASETS, TRANSFER_PROCESSES)


def suite_inputs(suite):
    """The inputs a bench suite runs on: jwt on the claims file (and the datasets); hash on
    its message cases and its length sweep; percall on the claims file; transfer on each
    dataset once per process."""
    if suite == "jwt":
        return [CLAIMS_INPUT] + (list(DATASETS) if JWT["on_datasets"] else [])
    if suite == "hash":
        return HASH_INPUTS
    if suite == "percall":
        return [CLAIMS_INPUT]
    if suite == "primitive":
        return [PRIMITIVE_INPUT]
    if suite == "keygen":
        return [KEYGEN_INPUT]
    if suite == "harness":
        return [HARNESS_INPUT]
    if suite == "transfer":
        return TRANSFER_INPUTS
    return list(DATASETS)


def interop_variants():
    """The variants checked across languages: those of config interop.variants that suite
    jwt times (every one it times when the list is empty)."""
    timed = [variant.name for variant in JWT_VARIANTS]
    chosen = {variants.parse(name).name for name in config["interop"]["variants"]}
    return [name for name in timed if name in chosen] if chosen else timed


def suite_languages(suite):
    """The suite's `languages` (percall's, where the config narrows it); empty for all."""
    return config["suites"][suite].get("languages") or []


def suite_runs_in(suite, language):
    """Whether `suite` runs in `language`: its driver runs it (driver.yaml), and the
    suite's `languages` is empty or names it."""
    wanted = suite_languages(suite)
    return suite in DRIVERS[language]["suites"] and (not wanted or language in wanted)


for _suite in SUITES:
    if suite_languages(_suite) and not set(suite_languages(_suite)) & set(LANGUAGES):
        print(
            f"jwtbench: note: suites.{_suite}.languages ({', '.join(suite_languages(_suite))})"
            f" names none of the run's languages: suite {_suite} runs nowhere",
            file=sys.stderr,
        )


# One benchmark job per (driver, suite, input), for the suites the driver runs; a further
# library runs suite jwt on the claims file only (config libraries). Suite harness times the
# loop, which a language's further libraries share with its own driver: once per language.
def jobs_of(driver):
    if driver in LIBRARY_DRIVERS:
        runs = "jwt" in SUITES and "jwt" in DRIVERS[driver]["suites"]
        return [("jwt", CLAIMS_INPUT)] if runs else []
    return [
        (suite, name)
        for suite in SUITES
        if suite_runs_in(suite, driver)
        for name in suite_inputs(suite)
    ]


DRIVER_JOBS = [
    (driver, suite, name) for driver in DRIVER_NAMES for suite, name in jobs_of(driver)
]
BENCH_JOBS = list(dict.fromkeys((suite, name) for _, suite, name in DRIVER_JOBS))


wildcard_constraints:
    language="|".join(LANGUAGES),
    driver="|".join(re.escape(name) for name in DRIVER_NAMES),
    suite="|".join(SUITES),
    image="|".join(IMAGES),
    dataset="|".join(DATASETS) or "(?!)",
    input="|".join(
        [
            CLAIMS_INPUT,
            *DATASETS,
            *(re.escape(name) for name in TRANSFER_INPUTS),
            *HASH_INPUTS,
            PRIMITIVE_INPUT,
            KEYGEN_INPUT,
            HARNESS_INPUT,
        ]
    ),


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
    """Keys the run's variants use, plus those cold start and the comparisons sign with."""
    extra = {
        variants.parse(name).key_name
        for suite in {suite for suite, _ in BENCH_JOBS}
        & {"tokensize", "transfer", "percall"}
        for name in config["suites"][suite]["algorithms"]
    }
    if COLDSTART:
        extra |= {"hmac-256", "rsa-2048"}
    if "primitive" in SUITES:
        extra |= set(
            write_bench_spec.primitive_key_names(config["suites"]["primitive"])
        )
    if "keygen" in SUITES:
        extra |= set(write_bench_spec.keygen_key_names(config["suites"]["keygen"]))
    for check in (config["crosscheck"], config["execution"]["compare_native"]):
        extra |= {variants.parse(name).key_name for name in check["variants"]}
    if config["conformance"]["activate"]:
        extra |= set(conformance_cases.key_names())
    return sorted({variant.key_name for variant in JWT_VARIANTS} | extra)


def suite_config_of(driver, suite, name):
    """A suite's config for one job; suite jwt on a dataset times the dataset's algorithms
    and operations (seed 000's HMAC and RSA; sign, verify and decode), on the claims file
    its whole grid (seed 001's),
    and for a further library the variants and operations of config libraries.
    """
    settings = config["suites"][suite]
    if suite == "jwt" and driver in LIBRARY_DRIVERS:
        chosen = config["libraries"]["algorithms"] or settings["algorithms"]
        return {
            **settings,
            "algorithms": [name for name in settings["algorithms"] if name in chosen],
            "operations": config["libraries"]["operations"],
        }
    if suite == "jwt" and name in DATASETS:
        return {
            **settings,
            "algorithms": settings["dataset_algorithms"],
            "operations": settings["dataset_operations"],
        }
    if suite == "transfer":  # one of its processes: its share of the trials
        return transfer_processes.per_process(settings)
    return settings


def get_suite_config(wildcards):
    return suite_config_of(wildcards.driver, wildcards.suite, wildcards.input)


# The timing section of every spec, with the statistics' confidence for rule 5a's CIs.
SPEC_TIMING = {**config["timing"], "confidence": config["statistics"]["confidence"]}


def jwt_input_file():
    return repo_path(JWT["input"])


# What a suite's cells read from a dataset (results/data/<name>/, rule prepare_dataset).
DATASET_FILE = {
    "jwt": "records.jsonl",
    "tokensize": "tokensize.jsonl",
    "transfer": "body.json",
}


JWT_SIGNING_INPUT = "results/primitive/jwt-signing-input.bin"


def bench_input(suite, name):
    """(input file, input_kind) of a suite's cells on an input (hash's and keygen's
    messages and harness's calls have none; primitive's is the JWS signing input)."""
    if suite in ("hash", "keygen", "harness"):
        return None, None
    if suite == "primitive":
        return JWT_SIGNING_INPUT, "bytes"
    if name == CLAIMS_INPUT:
        return jwt_input_file(), "claims"
    kind = "claims" if suite == "transfer" else "records"
    dataset = transfer_processes.dataset_of(name) if suite == "transfer" else name
    return f"results/data/{dataset}/{DATASET_FILE[suite]}", kind


def get_spec_inputs(wildcards):
    inputs = {"key_manifest": KEY_MANIFEST}
    if wildcards.suite == "primitive":
        inputs["data"] = JWT_SIGNING_INPUT
    if wildcards.input in DATASETS or wildcards.input in TRANSFER_INPUTS:
        inputs["data"] = bench_input(wildcards.suite, wildcards.input)[0]
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


def raw_files(extension, drivers=None):
    """The raw files of the run's benchmark jobs (of `drivers` only, when given)."""
    return [
        f"results/raw/{driver}/{suite}/{name}.{extension}"
        for driver, suite, name in DRIVER_JOBS
        if drivers is None or driver in drivers
    ]


def own_raw_files():
    """The raw CSVs of each language's own driver: what the seeds are judged on (each seed
    named its library; a further library's figures are the report's, not a seed's)."""
    return raw_files("csv", LANGUAGES)


def get_raw_samples(wildcards=None):
    return raw_files("csv")


def get_raw_metadata(wildcards=None):
    return raw_files("json")


def get_bench_specs(wildcards=None):
    """The spec of each raw file, in the same order (aggregation replays rule 5a on them)."""
    return [
        f"results/specs/{driver}/{suite}/{name}.json"
        for driver, suite, name in DRIVER_JOBS
    ]


def get_dataset_facts(wildcards=None):
    return [f"results/data/{name}/dataset.json" for name in DATASETS]


# Seed 000 is reproduced when its datasets are measured by any dataset suite.
SEED000 = any(
    transfer_processes.dataset_of(name) in DATASETS for suite, name in BENCH_JOBS
)


def get_seed000_samples(wildcards=None):
    return [
        path
        for path in own_raw_files()
        if transfer_processes.dataset_of(Path(path).stem) in DATASETS
    ]


SEED001 = bool({("jwt", CLAIMS_INPUT), ("percall", CLAIMS_INPUT)} & set(BENCH_JOBS))
SEED002 = any(suite == "hash" for suite, _ in BENCH_JOBS)


def get_seed001_samples(wildcards=None):
    """Raw files of jwt on the claims file (jwtbench's method) and of percall (the seed's)."""
    return [
        path
        for path in own_raw_files()
        if Path(path).parent.name in ("jwt", "percall")
        and Path(path).stem == CLAIMS_INPUT
    ]


def get_seed002_samples(wildcards=None):
    return [path for path in own_raw_files() if Path(path).parent.name == "hash"]


SEED003 = "primitive" in {suite for suite, _ in BENCH_JOBS}
SEED004 = "keygen" in {suite for suite, _ in BENCH_JOBS}


def get_seed003_inputs(wildcards=None):
    """Suite primitive's raw files, and suite jwt's on the claims file (for JWT overhead)."""
    return {
        "primitive": [
            path for path in own_raw_files() if Path(path).parent.name == "primitive"
        ],
        "jwt": [
            path
            for path in own_raw_files()
            if Path(path).parent.name == "jwt" and Path(path).stem == CLAIMS_INPUT
        ],
    }


def get_seed004_samples(wildcards=None):
    return [path for path in own_raw_files() if Path(path).parent.name == "keygen"]


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
    if SEED000:
        inputs["seed000"] = [
            f"results/seed000/{name}.csv"
            for name in ("rates", "tokensize", "transfer", "ratios", "verdicts")
        ]
        inputs["datasets"] = get_dataset_facts()
    if SEED001:
        inputs["seed001"] = [
            f"results/seed001/{name}.csv" for name in ("rankings", "verdicts")
        ]
    if SEED002:
        inputs["seed002"] = [
            f"results/seed002/{name}.csv" for name in ("cases", "sweep", "verdicts")
        ]
    if SEED003:
        inputs["seed003"] = [
            f"results/seed003/{name}.csv" for name in ("speed", "verdicts")
        ] + ["results/primitive/overhead.csv"]
    if SEED004:
        inputs["seed004"] = [
            f"results/seed004/{name}.csv" for name in ("runs", "decomposed", "verdicts")
        ]
    return inputs


SEED_TABLES = ("seed000", "seed001", "seed002", "seed003", "seed004")


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
        "seeds": [path for name in SEED_TABLES for path in reported.get(name, [])],
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
    """Before the first job: the cells the benchmarks will time and an estimate of how long.
    Nothing when this call runs no benchmark job (`compare`, `merge`, a report): the last
    run's plan, which its progress line and budget read, stays as it was."""
    jobs = list(workflow.dag.needrun_jobs())
    needed = Counter(job.rule.name for job in jobs)
    if not needed["run_benchmark"]:
        return
    jws_of = {name: DRIVERS[name]["jws"] for name in DRIVER_NAMES}
    totals = bench_plan.plan(DRIVER_JOBS, suite_config_of, config["timing"], jws_of)
    if CROSSCHECK_DRIVERS:
        totals["crosscheck"] = bench_plan.crosscheck_plan(
            CROSSCHECK_DRIVERS, CROSSCHECK, config["timing"]
        )
    if COMPARE_NATIVE:
        totals["compare_native"] = bench_plan.compare_native_plan(
            JWS_LANGUAGES, config["execution"]["compare_native"], config["timing"]
        )
    if COLDSTART:
        totals["coldstart"] = bench_plan.coldstart_plan(
            JWS_LANGUAGES,
            config["suites"]["coldstart"],
            modes=3 if IN_CONTAINERS else 1,
        )
    print(bench_plan.describe(totals, DRIVER_JOBS), file=sys.stderr)
    # The timed work after the benchmark jobs, for the progress line's time left.
    # Each rule's part shrinks as its jobs finish (jwtbench/run_progress.py).
    rule_of = {
        "crosscheck": "crosscheck_harness",
        "compare_native": "compare_native",
        "coldstart": "run_coldstart",
    }
    write_bench_budget(
        [job.wildcards for job in jobs if job.rule.name == "run_benchmark"],
        {
            rule_name: [needed[rule_name], (totals[name][1] + totals[name][2]) / 2]
            for name, rule_name in rule_of.items()
            if name in totals and needed[rule_name]
        },
    )


def get_job_plan(wildcards):
    """A benchmark job's seconds as the plan sees them (bench_plan.job_seconds)."""
    return bench_plan.job_seconds(
        wildcards.driver,
        wildcards.suite,
        wildcards.input,
        suite_config_of(wildcards.driver, wildcards.suite, wildcards.input),
        config["timing"],
        DRIVERS[wildcards.driver]["jws"],
    )


def write_bench_budget(scheduled, after):
    """The benchmark budget's plan (jwtbench/bench_budget.py): this run's benchmark jobs
    (`scheduled`, their wildcards), each with its expected and worst-case seconds and its
    cells, and the timed work after them ({rule: [jobs, expected seconds]}); the run's
    progress line reads it too."""
    minutes = config["execution"]["benchmark_budget_minutes"]
    jobs = {
        f"{w.driver}/{w.suite}/{w.input}": (
            *get_job_plan(w),
            len(
                bench_plan.job_cells(
                    w.driver,
                    w.suite,
                    w.input,
                    suite_config_of(w.driver, w.suite, w.input),
                    DRIVERS[w.driver]["jws"],
                )
            ),
        )
        for w in scheduled
    }
    bench_budget.write_plan(
        minutes * 60,
        jobs,
        after=after,
        lanes=len(config["execution"]["lanes"]),
    )
    if minutes and jobs:
        expected = sum(plan[0] for plan in jobs.values()) / 60
        print(
            f"  benchmark budget: {minutes:g} min for these {len(jobs)} jobs (expected"
            f" {expected:.0f} min); past it, cells stop at a lowered sample cap and the report says which",
            file=sys.stderr,
        )
