"""The config is validated before any job runs, and every error names its key."""

import subprocess

import pytest
import yaml
from conftest import REPO, SCRIPTS, SNAKEFILE, SNAKEMAKE, config_validation

SCHEMA = REPO / "config" / "schemas" / "config.schema.yaml"
KNOWN = config_validation.driver_languages(SCRIPTS)


def validate(config):
    return config_validation.validate(config, SCHEMA, KNOWN, config_validation.library_drivers(SCRIPTS))


def load(name):
    return yaml.safe_load((REPO / "config" / name).read_text())


def test_default_config_is_valid_and_filled():
    config = validate(load("config.yaml"))
    # Every driver folder is in the default config (adding a language: docs/adding-a-language.md).
    assert sorted(config["languages"]) == sorted(config_validation.driver_languages(REPO / "workflow" / "scripts"))
    assert len(config["suites"]["jwt"]["algorithms"]) == 25
    assert config["statistics"]["confidence"] == 0.95
    assert config["crosscheck"]["activate"] is True


def test_the_smoke_config_cross_checks_what_issue_25_names():
    """The smoke run's cross-check is issue 25's must-show: at the default's settings, sign
    and verify of HS256, RS256 and ES256 in at least 10 alternations (the test suite's own
    smoke runs cross-check less: tests/data/smoke-in-tests.yaml)."""
    assert set(load("smoke.yaml")["crosscheck"]) <= {"activate"}
    crosscheck = validate(load("config.yaml"))["crosscheck"]
    assert {"HS256", "RS256-2048", "ES256"} <= set(crosscheck["variants"])
    assert {"sign", "verify"} <= set(crosscheck["operations"]) and crosscheck["alternations"] >= 10


def test_empty_config_gets_every_default():
    config = validate({})
    assert config["timing"]["samples"] == 100
    assert config["suites"]["jwt"]["operations"] == ["sign", "verify", "decode"]


def test_defaults_are_copies_not_shared():
    first = validate({})
    first["suites"]["jwt"]["algorithms"].append("mutated")
    assert "mutated" not in validate({})["suites"]["jwt"]["algorithms"]


def test_every_schema_key_is_described_with_a_default():
    def walk(node, path):
        for name, sub in node.get("properties", {}).items():
            assert sub.get("description"), f"{path}{name} has no description"
            assert "default" in sub, f"{path}{name} has no default"
            walk(sub, f"{path}{name}.")

    walk(config_validation.load_schema(SCHEMA), "")


@pytest.mark.parametrize(
    ("config", "named"),
    [
        ({"colour": "blue"}, "'colour' is not a known key"),
        ({"timing": {"warmup": 1}}, "'timing.warmup' is not a known key"),
        ({"timing": {"samples": "many"}}, "'timing.samples'"),
        ({"timing": {"samples": 1}}, "'timing.samples'"),
        (
            {"suites": {"jwt": {"algorithms": ["HS256", "HS1024"]}}},
            "'suites.jwt.algorithms[1]': 'HS1024' is not one of",
        ),
        ({"suites": {"jwt": {"operations": ["encrypt"]}}}, "'suites.jwt.operations[0]'"),
        ({"languages": ["node", "cobol"]}, "'languages[1]': unknown language 'cobol'"),
        ({"languages": "node"}, "'languages'"),
        ({"execution": {"cpus": "one"}}, "'execution.cpus'"),
        ({"statistics": {"confidence": 1.5}}, "'statistics.confidence'"),
    ],
)
def test_invalid_config_names_the_key(config, named):
    with pytest.raises(
        config_validation.ConfigError, match=r"(?s)" + named.replace("[", r"\[").replace("]", r"\]").replace("(", r"\(")
    ):
        validate(config)


def test_command_line_strings_are_typed_as_the_schema_says():
    # What `--config 'timing={samples: 10, warmup_seconds: 0.2}'` hands over.
    config = validate({"timing": {"samples": "10", "warmup_seconds": "0.2"}, "crosscheck": {"activate": "false"}})
    assert config["timing"]["samples"] == 10 and config["timing"]["warmup_seconds"] == 0.2
    assert config["crosscheck"]["activate"] is False
    with pytest.raises(config_validation.ConfigError, match="'timing.samples'"):
        validate({"timing": {"samples": "ten"}})
    with pytest.raises(config_validation.ConfigError, match="'timing.samples'"):
        validate({"timing": {"samples": "2.5"}})


def test_all_problems_reported_at_once():
    with pytest.raises(config_validation.ConfigError) as error:
        validate({"colour": 1, "timing": {"samples": "x"}})
    assert "colour" in str(error.value) and "timing.samples" in str(error.value)


def test_snakemake_rejects_unknown_key_before_any_job(tmp_path):
    """Refused while the workflow is read: before the DAG is built, so before any job (no
    timing: this machine is shared)."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("timing:\n  warmpu_seconds: 1\n")
    result = subprocess.run(
        [SNAKEMAKE, "-s", str(SNAKEFILE), "-d", str(tmp_path), "--configfile", str(bad), "-n"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert "timing.warmpu_seconds" in result.stdout + result.stderr
    assert "Building DAG of jobs" not in result.stdout + result.stderr
    assert not (tmp_path / "results").exists()


def test_driver_manifest_errors_name_the_file(tmp_path):
    """A driver.yaml that is missing or malformed is refused, naming its path and key."""
    (tmp_path / "lang").mkdir()
    with pytest.raises(config_validation.ConfigError, match=r"lang/driver.yaml: missing"):
        config_validation.driver_manifest(tmp_path, "lang")
    (tmp_path / "lang" / "driver.yaml").write_text("library: lib\njws: yes-please\nsuites: [jwt, speed]\n")
    with pytest.raises(config_validation.ConfigError) as error:
        config_validation.driver_manifest(tmp_path, "lang")
    assert "key 'jws' must be true or false" in str(error.value)
    assert "unknown ['speed']" in str(error.value)
    (tmp_path / "lang" / "driver.yaml").write_text(
        "library: lib\njws: true\nsuites: [jwt]\nunsupported: {ES521: no, EdDSA: ''}\n"
    )
    with pytest.raises(config_validation.ConfigError, match=r"lang/driver.yaml: key 'unsupported' must map"):
        config_validation.driver_manifest(tmp_path, "lang")
    (tmp_path / "lang" / "driver.yaml").write_text(
        "library: lib\njws: true\nsuites: [jwt]\nunsupported: {ES521: no such curve}\n"
    )
    with pytest.raises(config_validation.ConfigError, match=r"unknown algorithms \['ES521'\]"):
        config_validation.driver_manifest(tmp_path, "lang")
    (tmp_path / "lang" / "driver.yaml").write_text(
        "library: lib\njws: false\nsuites: [jwt]\ncrosscheck_gaps: {sign HS256: ''}\n"
    )
    with pytest.raises(config_validation.ConfigError, match=r"key 'crosscheck_gaps' must map cells"):
        config_validation.driver_manifest(tmp_path, "lang")
    # A further library's process runs its language's harness and drift reference: the
    # reference's gap, explained in the language's driver.yaml, is the library's too.
    python = config_validation.driver_manifest(REPO / "workflow" / "scripts", "python")
    jwcrypto = config_validation.driver_manifest(REPO / "workflow" / "scripts", "python/jwcrypto")
    assert jwcrypto["crosscheck_gaps"]["reference SHA-256"] == python["crosscheck_gaps"]["reference SHA-256"]
    assert set(jwcrypto["crosscheck_gaps"]) == {"reference SHA-256"}
    manifest = config_validation.driver_manifest(REPO / "workflow" / "scripts", "openssl")
    assert manifest == {
        "library": "openssl",
        "jws": False,
        "suites": ["primitive"],
        "conducted": [],
        "unsupported": {},
        "unsupported_operations": {},
        "verify": {"validates": [], "lacks": {}},
        "crosscheck_gaps": {},
        "crosscheck_parent": None,
    }
    # JMH's parent JVM is java's harness's, so every java library's.
    java = config_validation.driver_manifest(REPO / "workflow" / "scripts", "java")["crosscheck_parent"]
    assert (
        java
        and config_validation.driver_manifest(REPO / "workflow" / "scripts", "java/jjwt")["crosscheck_parent"] == java
    )
    # The conductor times only suites the driver runs and that are sampled in rounds.
    for conducted in ("[hash]", "[jwt, primitive]", "jwt"):
        (tmp_path / "lang" / "driver.yaml").write_text(
            f"library: lib\njws: false\nsuites: [jwt, tokensize, keygen]\nconducted: {conducted}\n"
        )
        with pytest.raises(config_validation.ConfigError, match=r"key 'conducted' must list suites of key 'suites'"):
            config_validation.driver_manifest(tmp_path, "lang")
    (tmp_path / "lang" / "driver.yaml").write_text("library: lib\njws: false\nsuites: [jwt]\ncrosscheck_parent: ''\n")
    with pytest.raises(config_validation.ConfigError, match=r"key 'crosscheck_parent' must say why"):
        config_validation.driver_manifest(tmp_path, "lang")
    (tmp_path / "lang" / "driver.yaml").write_text(
        "library: lib\njws: false\nsuites: [jwt]\nunsupported_operations: {sign: it cannot}\n"
    )
    with pytest.raises(config_validation.ConfigError, match=r"only decode may be missing"):
        config_validation.driver_manifest(tmp_path, "lang")
    # A JWS driver says what its verify checks: every item of the verify policy, validated or lacking.
    (tmp_path / "lang" / "driver.yaml").write_text(
        "library: lib\njws: true\nsuites: [jwt]\nverify: {validates: [signature, alg]}\n"
    )
    with pytest.raises(config_validation.ConfigError, match=r"lang/driver.yaml: key 'verify': items neither validated"):
        config_validation.driver_manifest(tmp_path, "lang")


def test_a_further_library_is_a_driver_of_its_language(tmp_path):
    """workflow/scripts/<language>/<library>/run is the driver "<language>/<library>"; its
    driver.yaml names the library as its folder does."""
    for folder in ("lang", "lang/other", "orphan/lib"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "run").write_text("#!/bin/sh\n")
    assert config_validation.driver_languages(tmp_path) == {"lang"}  # orphan has no driver of its own
    assert config_validation.library_drivers(tmp_path) == {"lang/other"}
    assert config_validation.language_of("lang/other") == "lang"
    # Per-driver outputs name their driver by their path (results/versions/<driver>.json, ...).
    assert config_validation.driver_of("results/versions/node/jose.json", config_validation.VERSIONS_DIR) == "node/jose"
    assert config_validation.driver_of("results/versions/go.json", config_validation.VERSIONS_DIR) == "go"
    assert config_validation.signed_tokens_driver("results/verify/tokens/node/jose/signed") == "node/jose"
    assert config_validation.signed_tokens_driver("results/verify/tokens/python/signed") == "python"
    policy = "verify: {validates: [signature, alg, exp, nbf, iat, leeway, required_claims]}\n"
    (tmp_path / "lang" / "driver.yaml").write_text("library: lib\njws: true\nsuites: [jwt]\n" + policy)
    (tmp_path / "lang" / "other" / "driver.yaml").write_text("library: another\njws: true\nsuites: [jwt]\n" + policy)
    with pytest.raises(config_validation.ConfigError, match=r"lang/other/driver.yaml: key 'library' must be 'other'"):
        config_validation.driver_manifest(tmp_path, "lang/other")
    (tmp_path / "lang" / "other" / "driver.yaml").write_text("library: other\njws: true\nsuites: [jwt]\n" + policy)
    assert config_validation.driver_manifest(tmp_path, "lang/other")["library"] == "other"
