"""The licence of every pinned dependency (workflow/scripts/jwtbench/dependency_licences.py),
each ecosystem's reader on small fixtures in tests/data/licences/, the readers together on the
test suite's own native environments (.test-envs) and on the pipeline's venv, and how
collect_provenance reads them out of an image or natively."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

from jwtbench import dependency_licences
from jwtbench.dependency_licences import UNKNOWN
from jwtbench.rules import collect_provenance

DATA = REPO / "tests" / "data" / "licences"
TEST_ENVS = REPO / ".test-envs"


def by_name(dependencies):
    return {(d.name, d.version): d for d in dependencies}


# --- npm -----------------------------------------------------------------------------------


def test_npm_reads_the_lockfile_and_falls_back_on_the_installed_package_json(tmp_path):
    shutil.copy(DATA / "node" / "package-lock.json", tmp_path)
    # jws's entry has no `license` in this fixture (a real lockfile fragment, that field taken out).
    (tmp_path / "node_modules" / "jws").mkdir(parents=True)
    shutil.copy(DATA / "node" / "jws.package.json", tmp_path / "node_modules" / "jws" / "package.json")
    found = by_name(dependency_licences.npm_dependencies(tmp_path))
    assert set(found) == {("@lukeed/ms", "2.0.2"), ("jsonwebtoken", "9.0.3"), ("jws", "4.0.1"), ("mitata", "1.0.34")}
    assert found[("jsonwebtoken", "9.0.3")].licence == "MIT"
    assert found[("jsonwebtoken", "9.0.3")].source == "package-lock.json license"
    assert found[("jws", "4.0.1")].source == "node_modules/jws/package.json license"
    assert found[("jws", "4.0.1")].licence == "MIT"
    # Direct: the root's dependencies and devDependencies; the rest came along.
    assert {name for (name, _), d in found.items() if d.direct} == {"jsonwebtoken", "mitata"}
    assert {d.ecosystem for d in found.values()} == {"npm"}


def test_npm_without_a_licence_anywhere_is_unknown(tmp_path):
    shutil.copy(DATA / "node" / "package-lock.json", tmp_path)
    found = by_name(dependency_licences.npm_dependencies(tmp_path))
    assert found[("jws", "4.0.1")].licence == UNKNOWN


@pytest.mark.parametrize(
    "field, licence",
    [
        ("MIT", "MIT"),
        ({"type": "BSD-3-Clause"}, "BSD-3-Clause"),
        ([{"type": "MIT"}, "Apache-2.0"], "MIT OR Apache-2.0"),
    ],
)
def test_npm_licence_fields_old_and_new(field, licence):
    assert dependency_licences.npm_licence(field) == licence
    assert dependency_licences.npm_licence(None) is None and dependency_licences.npm_licence("") is None


# --- Python ----------------------------------------------------------------------------------


def test_python_reads_each_pin_from_its_dist_info():
    folder = DATA / "python"
    found = {
        d.name: d
        for d in dependency_licences.python_dependencies(
            folder, folder / "requirements.txt", folder / "requirements.in"
        )
    }
    assert set(found) == {
        "conda-inject",
        "joserfc",
        "nolicence",
        "pyjwt",
        "pyperf",
        "setuptools",
        "six",
        "snakemake-interface-common",
        "throttler",
    }
    assert (found["pyjwt"].licence, found["pyjwt"].source) == ("MIT", "METADATA License-Expression")
    assert (found["joserfc"].licence, found["joserfc"].source) == ("BSD-3-Clause", "METADATA License")
    # Only classifiers: the bare "License :: OSI Approved" names nothing.
    assert (found["setuptools"].licence, found["setuptools"].source) == ("MIT License", "METADATA License classifiers")
    # A License field holding the licence's whole text: its first line, said so.
    assert found["throttler"].licence == "MIT License"
    assert found["throttler"].source == "METADATA License (its text's first line)"
    assert found["throttler"].version == "1.2.2"  # an extra in the pin does not hide it
    # No licence in METADATA: the licence file in the dist-info, classified by its text, whether
    # a License-File field names it (under licenses/) or only RECORD lists it.
    common = found["snakemake-interface-common"]
    assert (common.licence, common.source) == ("MIT", "dist-info LICENSE: classified by its text")
    assert (found["conda-inject"].licence, found["conda-inject"].source) == (
        "BSD-3-Clause",
        "dist-info LICENSE: classified by its text",
    )
    assert found["nolicence"].licence == UNKNOWN
    assert found["nolicence"].source == "METADATA names no licence, and the dist-info holds no licence file"
    assert (found["six"].licence, found["six"].source) == (UNKNOWN, "not installed in the environment")
    # The environment holds another version than the pin: its licence is not the pin's.
    assert found["pyperf"].licence == UNKNOWN and "2.10.0" in found["pyperf"].source
    assert {name for name, d in found.items() if d.direct} == {"pyjwt", "joserfc", "pyperf"}
    assert {d.ecosystem for d in found.values()} == {"pypi"}


# --- Rust ------------------------------------------------------------------------------------


def test_cargo_reads_cargo_metadata_for_every_crate_of_the_lock(tmp_path):
    folder = DATA / "rust"
    shutil.copy(folder / "cargo-metadata.json", tmp_path)
    found = by_name(dependency_licences.cargo_dependencies(tmp_path, folder / "Cargo.lock", folder / "Cargo.toml"))
    # The driver itself (no source in Cargo.lock) is not a dependency.
    assert set(found) == {
        ("base64", "0.22.1"),
        ("licence-file-only", "0.1.0"),
        ("p256", "0.13.2"),
        ("p256", "0.14.0"),
        ("serde_derive", "1.0.229"),
        ("windows-link", "0.2.1"),
    }
    base64 = found[("base64", "0.22.1")]
    assert (base64.licence, base64.source) == (
        "MIT OR Apache-2.0",
        "cargo-metadata.json: the crate's Cargo.toml license",
    )
    assert found[("p256", "0.14.0")].licence == "Apache-2.0 OR MIT"
    only_file = found[("licence-file-only", "0.1.0")]
    assert (only_file.licence, only_file.source) == (UNKNOWN, "its Cargo.toml names only a licence file, LICENSE.txt")
    assert found[("windows-link", "0.2.1")].licence == UNKNOWN
    assert found[("windows-link", "0.2.1")].source == "not among cargo metadata's packages"
    # Direct: named in Cargo.toml, a renamed crate (p256-jwt-simple = { package = "p256" }) too.
    assert {key for key, d in found.items() if d.direct} == {
        ("base64", "0.22.1"),
        ("p256", "0.13.2"),
        ("p256", "0.14.0"),
    }


def test_a_crate_named_at_an_exact_version_is_direct_at_that_version_only(tmp_path):
    (tmp_path / "Cargo.toml").write_text('[dependencies]\nhmac = "=0.12.1"\nsubtle = "2.6"\n')
    assert dependency_licences.cargo_direct(tmp_path / "Cargo.toml") == {"hmac": {"0.12.1"}, "subtle": {None}}


def test_cargo_without_its_record_is_unknown_and_says_why(tmp_path):
    folder = DATA / "rust"
    found = dependency_licences.cargo_dependencies(tmp_path, folder / "Cargo.lock", folder / "Cargo.toml")
    assert {(d.licence, d.source) for d in found} == {(UNKNOWN, "the environment has no cargo-metadata.json")}


# --- Go --------------------------------------------------------------------------------------


def test_go_classifies_each_required_modules_licence_file():
    folder = DATA / "go"
    found = {d.name: d for d in dependency_licences.go_dependencies(folder, folder / "go.mod")}
    assert found["github.com/golang-jwt/jwt/v5"].licence == "MIT"
    assert found["github.com/golang-jwt/jwt/v5"].source == "LICENSE: classified by its text"
    assert found["golang.org/x/sys"].licence == "BSD-3-Clause"
    # Two licence files: both named, not joined into an expression the files do not state.
    assert found["github.com/example/dual"].licence == "Apache-2.0, MIT"
    assert found["github.com/goccy/go-json"].licence == UNKNOWN
    assert found["github.com/goccy/go-json"].source == "no licence file kept of the module"
    assert found["github.com/example/unrecognised"].licence == UNKNOWN
    assert {name for name, d in found.items() if d.direct} == {
        "github.com/golang-jwt/jwt/v5",
        "github.com/example/dual",
    }
    assert found["golang.org/x/sys"].version == "v0.47.0"


def test_the_licence_texts_each_classify_as_themselves():
    assert dependency_licences.classify_licence_text((REPO / "LICENSE").read_text()) == "Apache-2.0"
    go = DATA / "go" / "licences"
    mit = (go / "github.com/golang-jwt/jwt/v5@v5.3.1/LICENSE").read_text()
    bsd3 = (go / "golang.org/x/sys@v0.47.0/LICENSE").read_text()
    assert dependency_licences.classify_licence_text(mit) == "MIT"
    # MIT-0: MIT's grant without its condition of keeping the notice.
    notice = "The above copyright notice and this permission notice shall be included"
    assert notice in mit
    mit_zero = mit[: mit.index(notice)]
    assert dependency_licences.classify_licence_text(mit_zero) == "MIT-0"
    assert dependency_licences.classify_licence_text(bsd3) == "BSD-3-Clause"
    bsd2 = bsd3.replace("   * Neither the name of Google LLC nor the names of its\ncontributors", "")
    bsd2 = bsd2.replace("may be used to endorse or promote products derived from\nthis software", "")
    assert dependency_licences.classify_licence_text(bsd2) == "BSD-2-Clause"
    isc = (
        "Copyright (c) 2026 The Authors\n\nPermission to use, copy, modify, and/or distribute this software for"
        " any\npurpose with or without fee is hereby granted, provided that the above\ncopyright notice and this"
        ' permission notice appear in all copies.\n\nTHE SOFTWARE IS PROVIDED "AS IS"'
    )
    assert dependency_licences.classify_licence_text(isc) == "ISC"
    # 0BSD: the ISC wording without its one condition, a licence of its own.
    zero_bsd = isc.replace(
        ", provided that the above\ncopyright notice and this permission notice appear in all copies", ""
    )
    assert dependency_licences.classify_licence_text(zero_bsd) == UNKNOWN
    mpl = "Mozilla Public License Version 2.0\n==================================\n\n1. Definitions\n"
    assert dependency_licences.classify_licence_text(mpl) == "MPL-2.0"
    # Two licences in one file are neither; BSD with the advertising clause is not one here.
    assert dependency_licences.classify_licence_text(mit + "\n" + bsd3) == UNKNOWN
    advertising = bsd3.replace("   * Neither", "   * All advertising materials mentioning features.\n   * Neither")
    assert dependency_licences.classify_licence_text(advertising) == UNKNOWN
    assert dependency_licences.classify_licence_text("GNU GENERAL PUBLIC LICENSE Version 3") == UNKNOWN


# --- Java ------------------------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("java") is None, reason="no java on PATH")
def test_maven_licences_come_from_each_jars_pom_or_its_parents(tmp_path):
    """envs/java/DependencyLicences.java (which the java install runs) on a fixture repository,
    then the reader on what it wrote."""
    repository = DATA / "maven" / "repository"
    lib = tmp_path / "lib"
    lib.mkdir()
    shutil.copy(repository / "com/example/child/1.0/child-1.0.jar", lib)
    shutil.copy(repository / "org/example/direct/3.1/direct-3.1.jar", lib)
    (lib / "jwtbench-java-driver.jar").write_text("the driver, built from the sources\n")
    (lib / "stray-1.0.jar").write_text("a jar the repository does not hold\n")
    written = subprocess.run(
        [
            "java",
            str(REPO / "envs/java/DependencyLicences.java"),
            str(lib),
            str(repository),
            str(tmp_path / "licences.json"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert written.returncode == 0, written.stderr
    record = json.loads((tmp_path / "licences.json").read_text())
    assert [jar["file"] for jar in record["jars"]] == [
        "child-1.0.jar",
        "direct-3.1.jar",
        "jwtbench-java-driver.jar",
        "stray-1.0.jar",
    ]
    found = {d.name: d for d in dependency_licences.maven_dependencies(tmp_path, DATA / "maven" / "pom.xml")}
    assert set(found) == {"com.example:child", "org.example:direct", "stray-1.0.jar"}  # not the driver's own jar
    child = found["com.example:child"]
    # Several <license>s of one POM are alternatives; a license without a name is its URL.
    assert child.licence == "The Apache Software License, Version 2.0 OR https://opensource.org/licenses/MIT"
    assert (child.version, child.source) == ("1.0", "<licenses> of the POM of com.example:parent:2")
    assert not child.direct
    direct = found["org.example:direct"]
    assert (direct.licence, direct.version, direct.direct) == ('MIT "Expat" License', "3.1", True)
    assert direct.source == "<licenses> of the POM of org.example:direct:3.1"
    assert found["stray-1.0.jar"].licence == UNKNOWN


def test_maven_without_its_record_lists_the_jars_as_unknown(tmp_path):
    (tmp_path / "lib").mkdir()
    for name in ("jwtbench-java-driver.jar", "tink-1.21.0.jar"):
        (tmp_path / "lib" / name).write_text("")
    found = dependency_licences.maven_dependencies(tmp_path, DATA / "maven" / "pom.xml")
    assert [(d.name, d.licence) for d in found] == [("tink-1.21.0.jar", UNKNOWN)]


# --- Debian ----------------------------------------------------------------------------------


def test_debian_reads_the_dep5_licence_of_each_pinned_package():
    root = DATA / "debian" / "root"
    pins = {"openssl": "3.0.22-1~deb12u2", "python3.11-minimal": "3.11.2-6+deb12u9", "libssl3": "3.0.22-1~deb12u2"}
    found = {d.name: d for d in dependency_licences.debian_dependencies(root, pins)}
    # Files: * first, each Files paragraph's licence once, an expression of its own in brackets.
    assert found["openssl"].licence == "Apache-2.0 AND (Artistic or GPL-1+)"
    assert found["openssl"].source == "/usr/share/doc/openssl/copyright License fields (DEP-5)"
    assert found["python3.11-minimal"].licence == UNKNOWN
    assert "not machine-readable" in found["python3.11-minimal"].source
    assert found["libssl3"].licence == UNKNOWN and found["libssl3"].source == "no /usr/share/doc/libssl3/copyright"
    assert found["openssl"].version == "3.0.22-1~deb12u2"
    assert {d.ecosystem for d in found.values()} == {"debian"}


def test_dpkg_status_lists_only_installed_packages():
    installed = dependency_licences.dpkg_installed(DATA / "debian" / "root" / "var/lib/dpkg/status")
    assert installed == {"openssl": "3.0.22-1~deb12u2", "python3.11-minimal": "3.11.2-6+deb12u9"}


def test_a_single_licence_is_not_bracketed():
    text = (
        "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n\n"
        "Files: *\nLicense: GPL-2+ or Artistic\n"
    )
    assert dependency_licences.dep5_licence(text) == "GPL-2+ or Artistic"
    assert dependency_licences.dep5_licence("This package was debianized by someone.\n") is None


def test_dockerfile_pins_are_the_last_stages_with_their_arg_defaults():
    containers = REPO / "containers"
    openssl = dependency_licences.debian_pins(containers / "openssl" / "Dockerfile")
    assert set(openssl) == {
        "openssl",
        "libssl3",
        "python3-minimal",
        "python3.11-minimal",
        "libpython3.11-minimal",
        "libpython3.11-stdlib",
    }
    assert openssl["openssl"] == openssl["libssl3"] and not openssl["openssl"].startswith("$")
    # java's JDK and Maven are the build stage's: the image holds the JRE only.
    assert set(dependency_licences.debian_pins(containers / "java" / "Dockerfile")) == {"openjdk-17-jre-headless"}
    report = dependency_licences.debian_pins(containers / "report" / "Dockerfile")
    assert report["r-cran-ggplot2"] == "3.4.1+dfsg-1" and "$" not in report["pandoc"]
    assert dependency_licences.debian_pins(containers / "node" / "Dockerfile") == {}


# --- the environments the test suite installed ------------------------------------------------


def test_the_pipelines_venv_has_every_pin_with_a_licence():
    """The venv this test runs in is the pipeline's (envs/pipeline)."""
    found = dependency_licences.environment_dependencies(Path(sys.prefix), REPO / "envs" / "pipeline")
    pinned = dependency_licences.requirements(REPO / "envs" / "pipeline" / "requirements.txt")
    assert len(found) == len(pinned)
    assert not [d for d in found if d.direct and d.licence == UNKNOWN]


@pytest.mark.parametrize("language", ["node", "python", "go", "rust", "java"])
def test_the_test_suites_native_environments(language):
    """Every pin of each language's native environment the test suite installed has an entry,
    and every library it names itself has a licence (an environment installed before its
    installer recorded licences is skipped)."""
    environment = TEST_ENVS / language
    needs = {"go": "licences", "rust": "cargo-metadata.json", "java": "licences.json"}.get(language, ".installed")
    if not (environment / needs).exists():
        pytest.skip(f"{environment} is not installed, or not with its licences")
    found = dependency_licences.environment_dependencies(environment, REPO / "envs" / language)
    assert found
    assert all(d.licence for d in found)
    assert not [d for d in found if d.direct and d.licence == UNKNOWN]


# --- the provenance's record of them -----------------------------------------------------------


class ImageStandIn:
    """A container engine whose images are one folder: `create` names a container of it,
    `cp` copies out of the folder as out of the container's filesystem."""

    def __init__(self, root):
        self.root = root
        self.calls = []

    def run(self, *args, timeout=None):
        self.calls.append(args[0])
        if args[0] == "create":
            return subprocess.CompletedProcess(args, 0, "a-container\n", "")
        if args[0] == "cp":
            inside = self.root / args[1].split(":", 1)[1].lstrip("/")
            if not inside.exists():
                return subprocess.CompletedProcess(args, 125, "", f"no such path {inside}")
            (shutil.copytree if inside.is_dir() else shutil.copy)(inside, args[2])
        return subprocess.CompletedProcess(args, 0, "", "")


def test_provenance_reads_an_image_copied_out_and_a_native_environment(tmp_path, monkeypatch):
    image = tmp_path / "image"
    shutil.copytree(DATA / "debian" / "root", image)
    (image / "opt/jwtbench/.envs/openssl").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".envs" / "node").mkdir(parents=True)
    shutil.copy(DATA / "node" / "package-lock.json", tmp_path / ".envs" / "node")
    engine = ImageStandIn(image)
    found, environments = collect_provenance.dependencies(["openssl", "node"], {"openssl": "tag"}, engine, REPO)
    assert engine.calls.count("create") == 1 and engine.calls[-1] == "rm"  # the container goes again
    openssl = {entry["name"]: entry for entry in found if entry["environment"] == "openssl"}
    assert set(openssl) == set(dependency_licences.debian_pins(REPO / "containers/openssl/Dockerfile"))
    assert openssl["openssl"]["licence"] == "Apache-2.0 AND (Artistic or GPL-1+)"
    assert environments["openssl"]["read_from"].startswith("image tag")
    assert {entry["name"] for entry in found if entry["environment"] == "node"} >= {"jsonwebtoken", "mitata"}
    assert environments["node"]["packages"]["npm"] == 4 and environments["node"]["unknown"] == 1  # jws
    assert environments["pipeline"]["packages"]["pypi"] == len(
        dependency_licences.requirements(REPO / "envs/pipeline/requirements.txt")
    )
    assert environments["kaggle"] == {"read_from": None, "note": "not installed in this run"}
    assert set(found[0]) == {"environment", "ecosystem", "name", "version", "licence", "source", "direct"}


def test_an_image_that_cannot_be_read_is_recorded_not_fatal(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    found, environments = collect_provenance.dependencies(["go"], {"go": "tag"}, ImageStandIn(tmp_path / "none"), REPO)
    assert "cannot copy" in environments["go"]["error"] and not [e for e in found if e["environment"] == "go"]
