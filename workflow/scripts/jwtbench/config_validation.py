"""Validate a jwtbench config against its JSON Schema and fill in the defaults.

Every problem is reported with the dotted path of the key it concerns
(`timing.warmup_seconds`, `languages[2]`), all at once, before any job runs.
"""

import copy
import os
from pathlib import Path

import jsonschema
import yaml

from jwtbench import conductor, driver_runner, raw_samples, registry


class ConfigError(Exception):
    """The config is invalid; the message names each offending key."""


def key_path(parts):
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else f".{part}" if text else str(part)
    return text or "(top level)"


def describe(error):
    where = list(error.absolute_path)
    if error.validator == "additionalProperties":
        known = sorted(error.schema.get("properties", {}))
        unknown = sorted(set(error.instance) - set(known))
        return "; ".join(
            f"config key '{key_path(where + [name])}' is not a known key (known here: {', '.join(known)})"
            for name in unknown
        )
    if error.validator == "enum":
        allowed = ", ".join(str(value) for value in error.validator_value)
        return f"config key '{key_path(where)}': {error.instance!r} is not one of: {allowed}"
    return f"config key '{key_path(where)}': {error.message}"


SCALAR_TYPES = {"integer": int, "number": (int, float), "boolean": bool}


def coerce_command_line_scalars(instance, schema):
    """Typed copies of strings that Snakemake's --config left untyped.

    `--config 'timing={samples: 10}'` arrives as {"timing": {"samples": "10"}}: Snakemake
    reads nested values with YAML's BaseLoader. A string that YAML reads as the type the
    schema expects is converted; anything else is left for validation to report.
    """
    if isinstance(instance, dict):
        properties = schema.get("properties", {})
        return {k: coerce_command_line_scalars(v, properties.get(k, {})) for k, v in instance.items()}
    if isinstance(instance, list):
        return [coerce_command_line_scalars(v, schema.get("items", {})) for v in instance]
    expected = schema.get("type")
    if isinstance(instance, str) and expected in SCALAR_TYPES:
        try:
            value = yaml.safe_load(instance)
        except yaml.YAMLError:
            return instance
        if isinstance(value, SCALAR_TYPES[expected]) and not (expected != "boolean" and isinstance(value, bool)):
            return value
    return instance


def fill_defaults(instance, schema):
    """Insert the schema's defaults for absent keys, recursively (copies, never shares)."""
    if isinstance(instance, list):
        for item in instance:
            fill_defaults(item, schema.get("items", {}))
        return
    if not isinstance(instance, dict):
        return
    for name, subschema in schema.get("properties", {}).items():
        if name not in instance and "default" in subschema:
            instance[name] = copy.deepcopy(subschema["default"])
        if name in instance:
            fill_defaults(instance[name], subschema)


def load_schema(schema_file, known=None):
    """The config's JSON Schema, with each suite's keys (config key `suites.<name>`) from
    the registry (workflow/suites.yaml; `known` for another registry than this checkout's)."""
    schema = yaml.safe_load(Path(schema_file).read_text())
    schema["properties"]["suites"]["properties"] = (known or registry.load()).schema_of_suites()
    return schema


def validate(config, schema_file, known_languages, known_libraries=(), known=None):
    """Return a validated copy of `config` with every default filled in (the suites' keys
    from the registry `known`, default this checkout's).

    `known_languages` are the languages with a driver in this checkout, `known_libraries`
    the further libraries' drivers ("<language>/<library>"); a name outside them is an
    error naming the key, so adding a language or a library needs no schema edit.
    """
    schema = load_schema(schema_file, known)
    config = coerce_command_line_scalars(config, schema)
    validator = jsonschema.Draft202012Validator(schema)
    problems = [describe(error) for error in sorted(validator.iter_errors(config), key=lambda e: list(e.path))]
    for index, language in enumerate(config.get("languages") or []):
        if isinstance(language, str) and language not in known_languages:
            problems.append(
                f"config key 'languages[{index}]': unknown language {language!r}:"
                f" no driver workflow/scripts/{language}/run"
                f" (known: {', '.join(sorted(known_languages))})"
            )
    problems += library_problems(config, known_libraries)
    problems += dataset_problems(config)
    problems += cpu_problems(config)
    if problems:
        raise ConfigError("invalid configuration:\n  " + "\n  ".join(problems))
    filled = copy.deepcopy(config)
    fill_defaults(filled, schema)
    return filled


def library_problems(config, known_libraries):
    """What the schema cannot say about `libraries.drivers`: each names a further library's
    driver folder (workflow/scripts/<language>/<library>/run)."""
    problems = []
    drivers = (config.get("libraries") or {}).get("drivers") or []
    for index, driver in enumerate(drivers if isinstance(drivers, list) else []):
        if isinstance(driver, str) and driver not in known_libraries:
            problems.append(
                f"config key 'libraries.drivers[{index}]': unknown driver {driver!r}: no"
                f" workflow/scripts/{driver}/run (known: {', '.join(sorted(known_libraries)) or 'none'})"
            )
    return problems


def cpu_problems(config, available=None):
    """What the schema cannot say about `execution.cpus` and `execution.lanes`: the CPUs
    they name are CPUs this process may run on (os.sched_getaffinity), so a setting the
    machine cannot honour is refused when the workflow is read, not at the first benchmark
    (driver_runner.checked_cpus checks again there, for a job on another host)."""
    execution = config.get("execution")
    if not isinstance(execution, dict):
        return []
    if available is None:
        available = os.sched_getaffinity(0)
    settings = [("execution.cpus", execution.get("cpus"))]
    lanes = execution.get("lanes")
    if isinstance(lanes, list):
        settings += [(f"execution.lanes[{index}]", lane) for index, lane in enumerate(lanes)]
    problems = []
    for key, text in settings:
        if not isinstance(text, str):
            continue  # the schema says what it must be
        try:
            driver_runner.checked_cpus(text, key, available)
        except ValueError:
            continue  # malformed: the schema's pattern says so
        except RuntimeError as error:
            problems.append(str(error))
    return problems


def dataset_problems(config):
    """What the schema cannot say about `datasets`: unique names, sizes for stand-ins."""
    problems, seen = [], {}
    datasets = config.get("datasets")
    claims = (config.get("suites") or {}).get("jwt", {}).get("input", "data/fixtures/claims-001.json")
    for index, dataset in enumerate(datasets if isinstance(datasets, list) else []):
        if not isinstance(dataset, dict) or not isinstance(dataset.get("name"), str):
            continue
        name = dataset["name"]
        if name in seen:
            problems.append(f"config key 'datasets[{index}].name': {name!r} is also datasets[{seen[name]}]")
        seen.setdefault(name, index)
        if isinstance(claims, str) and name == Path(claims).stem:
            problems.append(f"config key 'datasets[{index}].name': {name!r} is the name of suites.jwt.input")
        if dataset.get("synthetic") and "expected_bytes" not in dataset:
            problems.append(f"config key 'datasets[{index}].expected_bytes': needed to size the synthetic stand-in")
    return problems


def driver_languages(scripts_dir):
    """Languages with an executable driver shim under workflow/scripts/<language>/run."""
    return {path.parent.name for path in Path(scripts_dir).glob("*/run") if path.is_file()}


def library_drivers(scripts_dir):
    """The further libraries' drivers, "<language>/<library>": a folder with a shim
    workflow/scripts/<language>/<library>/run inside a language's driver folder, sharing
    that language's harness, environment and image (workflow/scripts/README.md)."""
    languages = driver_languages(scripts_dir)
    return {
        f"{path.parent.parent.name}/{path.parent.name}"
        for path in Path(scripts_dir).glob("*/*/run")
        if path.is_file() and path.parent.parent.name in languages
    }


def language_of(driver):
    """The language of a driver name: "node" of "node" and of "node/jose"."""
    return driver.split("/", 1)[0]


# Per-driver outputs of the workflow (rules record_versions and check_driver), named by the
# driver ("node", "node/jose"): its `versions` JSON, and the folder of the tokens it signed.
VERSIONS_DIR = "results/versions"
TOKENS_DIR = "results/verify/tokens"


def signed_tokens_driver(folder):
    """The driver whose self-check signed the tokens in `folder`
    (results/verify/tokens/<driver>/signed)."""
    return driver_of(Path(folder).parent, TOKENS_DIR)


def driver_of(path, root):
    """The driver a per-driver file or folder under `root` belongs to: "node/jose" of
    results/versions/node/jose.json (root results/versions), "go" of results/raw/go (root
    results/raw)."""
    relative = Path(path).relative_to(root)
    return str(relative.with_suffix("")) if relative.suffix else str(relative)


# The JWS algorithms of seed 001's variants (workflow/scripts/jwtbench/variants.py); a driver.yaml's
# `unsupported` names those its library cannot do.
JWS_ALGORITHMS = tuple(f"{family}{bits}" for family in ("HS", "RS", "PS", "ES") for bits in (256, 384, 512)) + (
    "EdDSA",
)
# Operations of suite jwt a library may lack (its driver.yaml `unsupported_operations`, its
# cells then `unsupported`): reading claims without verifying them.
OPTIONAL_OPERATIONS = ("decode",)
# The verify policy (workflow/scripts/README.md): what every JWS driver's verify checks.
VERIFY_POLICY = ("signature", "alg", "exp", "nbf", "iat", "leeway", "required_claims")


def reasons_given(mapping):
    """True when a driver.yaml key maps names to a non-empty reason each (unsupported, ...)."""
    return isinstance(mapping, dict) and all(isinstance(reason, str) and reason.strip() for reason in mapping.values())


def driver_manifest(scripts_dir, language):
    """What a driver does, from workflow/scripts/<language>/driver.yaml (or, for a further
    library of a language, <language>/<library>/driver.yaml): {"library": name, "jws": bool,
    "suites": [...], "conducted": [...], "unsupported": {JWS algorithm: why}, "verify": {...},
    "crosscheck_gaps": {cell: why}, "crosscheck_parent": why or None}; ConfigError
    naming the file and key when malformed."""
    path = Path(scripts_dir) / language / "driver.yaml"
    if not path.is_file():
        raise ConfigError(
            f"{path}: missing (every driver says what it does: jws and suites; see workflow/scripts/README.md)"
        )
    try:
        manifest = yaml.safe_load(path.read_text())
    except yaml.YAMLError as error:
        raise ConfigError(f"{path}: not YAML: {error}") from None
    problems = []
    if not isinstance(manifest, dict):
        raise ConfigError(f"{path}: expected a mapping with keys jws and suites")
    known = (
        "library",
        "jws",
        "suites",
        "conducted",
        "unsupported",
        "unsupported_operations",
        "verify",
        "crosscheck_gaps",
        "crosscheck_parent",
    )
    unknown = sorted(set(manifest) - set(known))
    if unknown:
        problems.append(f"unknown keys {unknown} (known: {', '.join(known)})")
    library = manifest.get("library")
    if "/" in language and library != language.split("/", 1)[1]:
        problems.append(f"key 'library' must be {language.split('/', 1)[1]!r}, the name of the driver's folder")
    elif not (isinstance(library, str) and library.strip()):
        problems.append("key 'library' must name the library the driver times (a string)")
    if not isinstance(manifest.get("jws"), bool):
        problems.append("key 'jws' must be true or false")
    suites = manifest.get("suites")
    if not isinstance(suites, list) or not suites:
        problems.append("key 'suites' must be a non-empty list")
    else:
        bench_suites = registry.load().bench_suites
        wrong = [suite for suite in suites if suite not in bench_suites]
        if wrong:
            problems.append(f"key 'suites': unknown {wrong} (known: {', '.join(bench_suites)})")
    conducted = manifest.get("conducted", [])
    if not isinstance(conducted, list) or not all(s in (suites or []) and s in conductor.SUITES for s in conducted):
        problems.append(
            "key 'conducted' must list suites of key 'suites' that the conductor times"
            f" ({', '.join(conductor.SUITES)}), through the driver's serve"
        )
    unsupported = manifest.get("unsupported", {})
    if not reasons_given(unsupported):
        problems.append("key 'unsupported' must map JWS algorithms to the reason each is missing")
    else:
        wrong = sorted(set(unsupported) - set(JWS_ALGORITHMS))
        if wrong:
            problems.append(f"key 'unsupported': unknown algorithms {wrong} (known: {', '.join(JWS_ALGORITHMS)})")
    operations = manifest.get("unsupported_operations", {})
    if not reasons_given(operations):
        problems.append("key 'unsupported_operations' must map operations to the reason each is missing")
    elif set(operations) - set(OPTIONAL_OPERATIONS):
        problems.append(
            f"key 'unsupported_operations': only {', '.join(OPTIONAL_OPERATIONS)} may be missing"
            f" (a JWS driver signs and verifies), not {sorted(set(operations) - set(OPTIONAL_OPERATIONS))}"
        )
    gaps = manifest.get("crosscheck_gaps", {})
    if not reasons_given(gaps):
        problems.append(
            'key \'crosscheck_gaps\' must map cells ("operation variant", e.g. "sign HS256") to why'
            " the driver's loop and its language's harness differ there"
        )
    parent = manifest.get("crosscheck_parent")
    if parent is not None and not (isinstance(parent, str) and parent.strip()):
        problems.append(
            "key 'crosscheck_parent' must say why the language's harness runs a parent process beside"
            " the one it measures (the cross-check then gives the parent the conductor's CPUs)"
        )
    verify = manifest.get("verify", {})
    if manifest.get("jws") is True:
        problems += verify_policy_problems(verify)
    if problems:
        raise ConfigError(f"{path}: " + "; ".join(problems))
    if "/" in language:
        # The drift reference is the language's harness timing its own hash, the same in
        # every library's process: a gap explained there holds for each library.
        harness = driver_manifest(scripts_dir, language.split("/", 1)[0])["crosscheck_gaps"]
        own = driver_manifest(scripts_dir, language.split("/", 1)[0])
        harness = own["crosscheck_gaps"]
        gaps = {**{cell: why for cell, why in harness.items() if cell.split()[0] == raw_samples.REFERENCE}, **gaps}
        # The harness is the language's, and so is a parent process of its.
        parent = parent or own["crosscheck_parent"]
    return {
        "library": library,
        "jws": manifest["jws"],
        "suites": list(suites),
        "conducted": list(conducted),
        "unsupported": dict(unsupported),
        "unsupported_operations": dict(operations),
        "crosscheck_gaps": dict(gaps),
        "crosscheck_parent": parent,
        "verify": {"validates": list(verify.get("validates", [])), "lacks": dict(verify.get("lacks") or {})},
    }


def verify_policy_problems(verify):
    """What is wrong with a JWS driver's `verify` key (workflow/scripts/README.md, "The
    verify policy"): every policy item is either validated or lacking, with a reason."""
    if not isinstance(verify, dict) or set(verify) - {"validates", "lacks"}:
        return ["key 'verify' must be a mapping with 'validates' (and 'lacks' where the library cannot check an item)"]
    validates, lacks = verify.get("validates"), verify.get("lacks") or {}
    if not isinstance(validates, list) or not isinstance(lacks, dict):
        return [
            "key 'verify.validates' must list the policy items verify checks; 'verify.lacks' maps the others to why"
        ]
    problems = []
    unknown = sorted((set(validates) | set(lacks)) - set(VERIFY_POLICY))
    if unknown:
        problems.append(f"key 'verify': unknown items {unknown} (known: {', '.join(VERIFY_POLICY)})")
    both = sorted(set(validates) & set(lacks))
    if both:
        problems.append(f"key 'verify': items both validated and lacking: {both}")
    missing = [item for item in VERIFY_POLICY if item not in validates and item not in lacks]
    if missing:
        problems.append(f"key 'verify': items neither validated nor lacking: {missing}")
    if not reasons_given(lacks):
        problems.append("key 'verify.lacks' must give the reason each item cannot be checked")
    return problems
