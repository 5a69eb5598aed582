# Config validation, shared paths and the input functions every rule calls.
#
# Pipeline steps are Python modules under workflow/scripts/, called from `run:` blocks:
# they run in the workflow's own pinned venv (envs/pipeline), and each language's driver
# runs in that language's pinned environment (envs/<language>/, installed by rule
# install_native_env). A `conda:` or `container:` directive would name environments this
# workflow does not use.
import sys
from pathlib import Path
from types import SimpleNamespace

SOURCE = Path(workflow.basedir).parent  # the repository
SCRIPTS = SOURCE / "workflow" / "scripts"
sys.path.insert(0, str(SCRIPTS))

import aggregate_samples  # noqa: E402
import collect_provenance  # noqa: E402
import config_validation  # noqa: E402
import crosscheck_harness  # noqa: E402
import generate_keys  # noqa: E402
import run_benchmark  # noqa: E402
import variants  # noqa: E402
import verify_tokens  # noqa: E402
import write_bench_spec  # noqa: E402

try:
    config = config_validation.validate(
        config,
        SOURCE / "config" / "schemas" / "config.schema.yaml",
        config_validation.driver_languages(SCRIPTS),
    )
except config_validation.ConfigError as error:
    raise WorkflowError(str(error)) from None

LANGUAGES = config["languages"]
SUITES = [name for name, suite in config["suites"].items() if suite["activate"]]
JWT = config["suites"]["jwt"]
JWT_VARIANTS = [variants.parse(name) for name in JWT["algorithms"]]
KEY_MANIFEST = "keys/manifest.json"


wildcard_constraints:
    language="|".join(LANGUAGES),
    suite="|".join(SUITES),


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


def driver(language):
    return str(SCRIPTS / language / "run")


def get_driver(wildcards):
    return driver(wildcards.language)


def get_own_driver(wildcards):
    """{language: driver} for the one language a job checks."""
    return {wildcards.language: driver(wildcards.language)}


def driver_sources(language):
    return sorted(
        str(path) for path in (SCRIPTS / language).iterdir() if path.is_file()
    )


def env_stamp(language):
    return f".envs/{language}/.installed"


def env_manifests(wildcards):
    folder = SOURCE / "envs" / wildcards.language
    return sorted(str(path) for path in folder.iterdir() if path.is_file())


def get_env_installer(wildcards):
    return str(SOURCE / "envs" / wildcards.language / "install")


def key_names():
    return sorted({variant.key_name for variant in JWT_VARIANTS})


def get_suite_config(wildcards):
    return config["suites"][wildcards.suite]


def jwt_input_file():
    return repo_path(JWT["input"])


def get_driver_inputs(wildcards):
    """What running a language's driver needs: its environment, sources and the keys."""
    return {
        "env": env_stamp(wildcards.language),
        "sources": driver_sources(wildcards.language),
        "key_manifest": KEY_MANIFEST,
    }


def get_raw_samples(wildcards=None):
    return expand(
        "results/raw/{language}/{suite}.csv", language=LANGUAGES, suite=SUITES
    )


def get_raw_metadata(wildcards=None):
    return expand(
        "results/raw/{language}/{suite}.json", language=LANGUAGES, suite=SUITES
    )


def get_report_inputs(wildcards):
    inputs = {
        "summary": "results/summary.csv",
        "ratios": "results/ratios.csv",
        "matrix": "results/verify/matrix.csv",
        "provenance": "results/provenance.json",
        "sources": sorted(
            str(path) for path in (SOURCE / "report").rglob("*") if path.is_file()
        ),
    }
    if config["crosscheck"]["activate"]:
        inputs["crosscheck"] = "results/crosscheck.csv"
    return inputs


def get_final_outputs():
    return [
        "results/summary.csv",
        "results/provenance.json",
        "results/report/report.html",
    ]
