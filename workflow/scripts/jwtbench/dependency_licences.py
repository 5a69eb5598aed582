"""The licence of every pinned dependency, from each ecosystem's own metadata.

An environment is a folder a language's installer made (a native .envs/<language>/, or the same
folder copied out of the language's image) beside the pins in envs/<language>/; which readers
apply follows from the pin files there. Each reader answers one Dependency per pinned package:

| pins                          | licence read from (in the environment)                                 |
|-------------------------------|------------------------------------------------------------------------|
| envs/<name>/package-lock.json | the lockfile's `license`, else node_modules/<name>/package.json        |
| envs/<name>/requirements.txt  | each dist-info's METADATA (License-Expression, License, classifiers),  |
|                               | else the licence files in the dist-info, classified by their text      |
| envs/<name>/Cargo.lock        | cargo-metadata.json: each crate's Cargo.toml `license`                 |
| envs/<name>/go.mod            | licences/<module>@<version>/: the module's licence files, by text      |
| envs/<name>/pom.xml           | licences.json: each jar's POM <licenses>, or its parent POM's          |
| containers/<name>/Dockerfile  | the image's /usr/share/doc/<package>/copyright (DEP-5 License:)        |

The installers of Cargo.lock's, go.mod's and pom.xml's environments write cargo-metadata.json,
licences/ and licences.json at install time, with their own tools (cargo, the go command, the
JDK), because what those tools read (the registry, the module cache, the Maven repository) is
not kept after the build. A licence is an SPDX expression where the metadata gives one, else
the metadata's own name or text for it, else UNKNOWN: never guessed.
"""

import json
import re
import tomllib
import xml.etree.ElementTree as ElementTree
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path

UNKNOWN = "unknown"


@dataclass(frozen=True)
class Dependency:
    ecosystem: str
    name: str
    version: str
    licence: str
    source: str  # where the licence fact was read
    direct: bool  # named by the environment's own manifest, not brought in by another package

    def as_dict(self):
        return asdict(self)


# --- npm: package-lock.json ---------------------------------------------------------


def npm_licence(field):
    """A package.json / lockfile `license`: an SPDX expression by npm's rules; the older
    {"type": ...} object and `licenses` list are still met in old packages (npm's package.json
    documentation writes such a list as its licences joined with OR)."""
    if isinstance(field, str) and field.strip():
        return field.strip()
    if isinstance(field, dict) and field.get("type"):
        return str(field["type"])
    if isinstance(field, list):
        names = [npm_licence(item) for item in field]
        return " OR ".join(name for name in names if name) or None
    return None


def npm_dependencies(environment):
    """Every package of the environment's package-lock.json (npm ci installs exactly those)."""
    environment = Path(environment)
    lock = json.loads((environment / "package-lock.json").read_text())
    root = lock["packages"][""]
    direct = {
        name for field in ("dependencies", "devDependencies", "optionalDependencies") for name in root.get(field, {})
    }
    dependencies = []
    for path, entry in lock["packages"].items():
        if not path or entry.get("link"):
            continue
        name = entry.get("name") or path.rsplit("node_modules/", 1)[-1]
        licence, source = npm_licence(entry.get("license")), "package-lock.json license"
        manifest = environment / path / "package.json"
        if licence is None and manifest.is_file():
            package = json.loads(manifest.read_text())
            licence = npm_licence(package.get("license")) or npm_licence(package.get("licenses"))
            source = f"{path}/package.json license"
        dependencies.append(
            Dependency(
                "npm",
                name,
                entry.get("version", ""),
                licence or UNKNOWN,
                source if licence else "neither package-lock.json nor an installed package.json names one",
                path == f"node_modules/{name}" and name in direct,
            )
        )
    return dependencies


# --- licence files: classified by their text ------------------------------------------


def words_of(text):
    """The text's words, lowercase, letters and digits only: line breaks and punctuation differ
    between copies of one licence."""
    return " ".join(re.sub(r"[^a-z0-9]+", " ", text.lower()).split())


# Phrases of each licence's text (compared as lowercase words): a text is that licence when it
# has every phrase of one of its `any` sets and none of its `not` phrases, and is no other
# licence here. Apache-2.0 is its whole text or the notice its appendix says to put on a work.
BSD_CONDITIONS = [
    "redistribution and use in source and binary forms with or without modification are permitted",
    "redistributions in binary form must reproduce the above copyright notice",
]
LICENCE_TEXTS = {
    "Apache-2.0": {
        "any": [
            ["apache license version 2 0", "terms and conditions for use reproduction and distribution"],
            ["licensed under the apache license version 2 0 the license you may not use this file except in"],
        ],
    },
    "MPL-2.0": {"any": [["mozilla public license version 2 0"]]},
    "MIT": {
        "any": [
            [
                "permission is hereby granted free of charge to any person obtaining a copy",
                "the above copyright notice and this permission notice shall be included",
            ]
        ],
    },
    # MIT without its one condition (keep the notice): a licence of its own.
    "MIT-0": {
        "any": [
            [
                "permission is hereby granted free of charge to any person obtaining a copy",
                "to permit persons to whom the software is furnished to do so",
            ]
        ],
        "not": ["the above copyright notice and this permission notice shall be included"],
    },
    "ISC": {
        "any": [
            [
                "distribute this software for any purpose with or without fee is hereby granted provided that the"
                " above copyright notice and this permission notice appear in all copies",
            ]
        ],
    },
    "BSD-3-Clause": {
        "any": [[*BSD_CONDITIONS, "may be used to endorse or promote products derived from this software"]],
        "not": ["all advertising materials mentioning"],
    },
    "BSD-2-Clause": {
        "any": [BSD_CONDITIONS],
        "not": ["may be used to endorse or promote products", "all advertising materials mentioning"],
    },
}


def classify_licence_text(text):
    """The SPDX identifier of a licence file's text, or UNKNOWN when it is none of
    LICENCE_TEXTS' or more than one (a file holding two licences is not one of them)."""
    words = words_of(text)
    matches = [
        name
        for name, phrases in LICENCE_TEXTS.items()
        if any(all(phrase in words for phrase in phrase_set) for phrase_set in phrases["any"])
        and not any(phrase in words for phrase in phrases.get("not", []))
    ]
    return matches[0] if len(matches) == 1 else UNKNOWN


def licence_of_files(texts):
    """(licence, source) of a package's licence files, {file name: text}, each classified by
    its text."""
    found = {name: classify_licence_text(text) for name, text in texts.items()}
    known = {name: licence for name, licence in found.items() if licence != UNKNOWN}
    licences = list(dict.fromkeys(known.values()))
    if not texts:
        return UNKNOWN, "no licence file"
    if not licences:
        return UNKNOWN, f"{', '.join(found)}: not a licence text recognised here"
    if len(licences) == 1:
        return licences[0], f"{', '.join(known)}: classified by its text"
    # Several licences' files (LICENSE-MIT, LICENSE-APACHE): whether all apply or any one does,
    # the files do not say, so they are listed, not joined into an expression.
    return ", ".join(licences), f"{', '.join(known)}: classified by their texts; all or any of them, not said"


# --- Python: requirements.txt and dist-info METADATA -------------------------------------


def normalized(name):
    """A Python project name as PEP 503 compares them."""
    return re.sub(r"[-_.]+", "-", name).lower()


REQUIREMENT = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?\s*(?:==\s*([^\s;\\]+))?")


def requirements(path):
    """{normalized name: (name, pinned version or None)} of a requirements file."""
    found = {}
    for line in Path(path).read_text().splitlines():
        match = REQUIREMENT.match(line.strip())
        if match:
            found[normalized(match.group(1))] = (match.group(1), match.group(2))
    return found


def site_packages(venv):
    return sorted(Path(venv).glob("lib/python*/site-packages"))


LICENCE_FILE = re.compile(r"^(licen[cs]e|copying)", re.IGNORECASE)


def dist_info_licence_files(distribution):
    """{name: text} of the licence files a distribution ships in its dist-info: those its
    License-File fields name (PEP 639: under licenses/; older tools: beside METADATA), else
    those RECORD lists there."""
    texts = {}
    for name in distribution.metadata.get_all("License-File") or []:
        try:
            text = distribution.read_text(f"licenses/{name}") or distribution.read_text(name)
        except UnicodeDecodeError:  # not a text this module could classify anyway
            continue
        if text is not None:
            texts[name] = text
    if not texts:
        for path in distribution.files or []:
            if path.parts[0].endswith(".dist-info") and LICENCE_FILE.match(path.name):
                texts["/".join(path.parts[1:])] = Path(distribution.locate_file(path)).read_text(errors="replace")
    return texts


def python_licence(distribution):
    """(licence, source) of an installed distribution: its METADATA's License-Expression (PEP
    639), else a one-line License, else its License :: classifiers, else a License holding a
    licence's text (classified, else its first line), else the licence files in its dist-info."""
    message = distribution.metadata
    expression = (message.get("License-Expression") or "").strip()
    if expression:
        return expression, "METADATA License-Expression"
    text = (message.get("License") or "").strip()
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) == 1 and lines[0].upper() != "UNKNOWN":
        return lines[0], "METADATA License"
    classifiers = [
        classifier.split(" :: ")[-1]
        for classifier in message.get_all("Classifier") or []
        if classifier.startswith("License :: ") and classifier != "License :: OSI Approved"
    ]
    if classifiers:
        return "; ".join(dict.fromkeys(classifiers)), "METADATA License classifiers"
    if len(lines) > 1:
        classified = classify_licence_text(text)
        if classified != UNKNOWN:
            return classified, "METADATA License: a licence's text, classified by it"
        return lines[0], "METADATA License (its text's first line)"
    texts = dist_info_licence_files(distribution)
    if texts:
        licence, source = licence_of_files(texts)
        return licence, f"dist-info {source}"
    return UNKNOWN, "METADATA names no licence, and the dist-info holds no licence file"


def python_dependencies(venv, lock, manifest):
    """Every package pinned in `lock` (a pip-compile'd requirements.txt), read from the venv's
    dist-info; direct: named in `manifest` (its requirements.in)."""
    installed = {
        normalized(distribution.metadata["Name"]): distribution
        for distribution in metadata.distributions(path=[str(path) for path in site_packages(venv)])
    }
    direct = set(requirements(manifest))
    dependencies = []
    for key, (name, version) in requirements(lock).items():
        distribution = installed.get(key)
        if distribution is None:
            licence, source = UNKNOWN, "not installed in the environment"
        elif version and distribution.version != version:
            licence, source = UNKNOWN, f"the environment holds {distribution.version}, not the pinned version"
        else:
            licence, source = python_licence(distribution)
        dependencies.append(Dependency("pypi", name, version or "", licence, source, key in direct))
    return dependencies


# --- Rust: Cargo.lock and cargo metadata -------------------------------------------------


def cargo_direct(manifest):
    """{crate: its exact version or None} of the crates Cargo.toml names (a renamed one by its
    package name); a crate named twice (renamed, at two versions) keeps both exact versions."""
    toml = tomllib.loads(Path(manifest).read_text())
    named = {}
    for table in ("dependencies", "build-dependencies", "dev-dependencies"):
        for key, spec in toml.get(table, {}).items():
            spec = spec if isinstance(spec, dict) else {"version": spec}
            version = spec.get("version", "")
            exact = version[1:].strip() if version.startswith("=") else None
            named.setdefault(spec.get("package", key), set()).add(exact)
    return named


def cargo_dependencies(environment, lock, manifest):
    """Every crate Cargo.lock pins from a registry, its licence from cargo-metadata.json (which
    envs/rust/install writes with `cargo metadata`): each package's Cargo.toml `license`."""
    record = Path(environment) / "cargo-metadata.json"
    packages = (
        {(package["name"], package["version"]): package for package in json.loads(record.read_text())["packages"]}
        if record.is_file()
        else {}
    )
    named = cargo_direct(manifest)
    dependencies = []
    for locked in tomllib.loads(Path(lock).read_text()).get("package", []):
        if "source" not in locked:  # the driver itself
            continue
        name, version = locked["name"], locked["version"]
        package = packages.get((name, version))
        licence = (package or {}).get("license")
        if licence:
            source = "cargo-metadata.json: the crate's Cargo.toml license"
        elif package and package.get("license_file"):
            source = f"its Cargo.toml names only a licence file, {Path(package['license_file']).name}"
        elif package:
            source = "its Cargo.toml names no licence"
        elif record.is_file():
            source = "not among cargo metadata's packages"
        else:
            source = "the environment has no cargo-metadata.json"
        direct = name in named and (None in named[name] or version in named[name])
        dependencies.append(Dependency("crates.io", name, version, licence or UNKNOWN, source, direct))
    return dependencies


# --- Go: go.mod and the modules' licence files ---------------------------------------------


def go_requirements(path):
    """[(module, version, indirect)] of go.mod's require directives."""
    found, in_block = [], False
    for line in Path(path).read_text().splitlines():
        words = line.split("//", 1)[0].split()
        indirect = "// indirect" in line
        if words[:2] == ["require", "("]:
            in_block = True
        elif in_block and words[:1] == [")"]:
            in_block = False
        elif in_block and len(words) == 2:
            found.append((words[0], words[1], indirect))
        elif words[:1] == ["require"] and len(words) == 3:
            found.append((words[1], words[2], indirect))
    return found


def go_dependencies(environment, manifest):
    """Every module go.mod requires; the licence from the files envs/go/install kept of it."""
    dependencies = []
    for module, version, indirect in go_requirements(manifest):
        folder = Path(environment) / "licences" / f"{module}@{version}"
        texts = {path.name: path.read_text(errors="replace") for path in sorted(folder.glob("*")) if path.is_file()}
        licence, source = licence_of_files(texts) if texts else (UNKNOWN, "no licence file kept of the module")
        dependencies.append(Dependency("go", module, version, licence, source, not indirect))
    return dependencies


# --- Java: pom.xml and the POMs' <licenses> ----------------------------------------------

POM = {"pom": "http://maven.apache.org/POM/4.0.0"}
DRIVER_JAR = "jwtbench-java-driver.jar"


def maven_direct(manifest):
    """(groupId, artifactId) of every dependency pom.xml declares."""
    project = ElementTree.parse(manifest).getroot()
    return {
        (dependency.findtext("pom:groupId", "", POM), dependency.findtext("pom:artifactId", "", POM))
        for dependency in project.iterfind("pom:dependencies/pom:dependency", POM)
    }


def maven_dependencies(environment, manifest):
    """Every jar of the environment's lib/ but the driver's, from licences.json, which
    envs/java/install writes with DependencyLicences.java. A POM's several <license>s are
    alternatives (the POM reference: "the user can select any of them"): joined with OR."""
    record = Path(environment) / "licences.json"
    if not record.is_file():
        return [
            Dependency("maven", path.name, "", UNKNOWN, "the environment has no licences.json", False)
            for path in sorted((Path(environment) / "lib").glob("*.jar"))
            if path.name != DRIVER_JAR
        ]
    direct = maven_direct(manifest)
    dependencies = []
    for jar in json.loads(record.read_text())["jars"]:
        if jar["file"] == DRIVER_JAR:
            continue
        if not jar.get("artifact"):
            dependencies.append(
                Dependency("maven", jar["file"], "", UNKNOWN, "not found in the build's Maven repository", False)
            )
            continue
        names = [licence.get("name") or licence.get("url") for licence in jar.get("licences", [])]
        names = [name for name in names if name]
        source = f"<licenses> of the POM of {jar['declared_in']}" if names else "no POM of its chain has <licenses>"
        dependencies.append(
            Dependency(
                "maven",
                f"{jar['group']}:{jar['artifact']}",
                jar["version"],
                " OR ".join(names) if names else UNKNOWN,
                source,
                (jar["group"], jar["artifact"]) in direct,
            )
        )
    return dependencies


# --- Debian: the Dockerfile's pins and DEP-5 copyright files --------------------------------


def dockerfile_instructions(text):
    """The Dockerfile's instructions, continuation lines joined, comments dropped."""
    instructions, current = [], ""
    for line in text.splitlines():
        if line.lstrip().startswith("#"):
            continue
        current += " " + line.rstrip()
        if current.endswith("\\"):
            current = current[:-1]
        else:
            if current.strip():
                instructions.append(current.strip())
            current = ""
    if current.strip():
        instructions.append(current.strip())
    return instructions


PIN = re.compile(r"""(?:^|[\s"'])([a-z0-9][a-z0-9.+-]+)=("?)(\$\{\w+\}|\$\w+|[A-Za-z0-9.+~:-]+)\2(?=[\s"']|$)""")


def debian_pins(dockerfile):
    """{package: version} pinned (`package=version`) by `apt-get install` in the Dockerfile's
    last stage, the one the image is: a build stage's packages are not in the image. ARG
    defaults fill in ${NAME}."""
    stage, arguments = [], {}
    for instruction in dockerfile_instructions(Path(dockerfile).read_text()):
        keyword, _, rest = instruction.partition(" ")
        if keyword.upper() == "FROM":
            stage = []
        elif keyword.upper() == "ARG":
            for word in rest.split():
                name, equals, value = word.partition("=")
                if equals:
                    arguments[name] = value.strip("\"'")
        elif keyword.upper() == "RUN":
            stage.append(instruction)
    pins = {}
    for instruction in stage:
        if "apt-get install" not in instruction:
            continue
        for package, _, version in PIN.findall(instruction):
            name = version.strip("${}")
            pins[package] = arguments.get(name, version) if version.startswith("$") else version
    return pins


def dpkg_installed(status):
    """{package: version} of the installed packages in a dpkg status file."""
    installed = {}
    for paragraph in Path(status).read_text(errors="replace").split("\n\n"):
        fields = dict(re.findall(r"^([\w-]+): ?(.*)$", paragraph, re.MULTILINE))
        if fields.get("Status", "").endswith(" installed") and "Package" in fields:
            installed[fields["Package"]] = fields.get("Version", "")
    return installed


def dep5_licence(text):
    """The License of every Files paragraph of a machine-readable (DEP-5) copyright file,
    `Files: *` (every file another paragraph does not name) first, joined with AND: the
    package holds files under each. None when the file is not DEP-5."""
    paragraphs = [paragraph for paragraph in re.split(r"\n\s*\n", text) if paragraph.strip()]
    if not paragraphs or not paragraphs[0].startswith("Format:"):
        return None
    licences = []
    for paragraph in paragraphs:
        files = re.search(r"^Files:\s*(.*)$", paragraph, re.MULTILINE)
        licence = re.search(r"^License:[ \t]*(\S.*)$", paragraph, re.MULTILINE)
        if files and licence:
            name = licence.group(1).strip()
            licences.insert(0 if files.group(1).split() == ["*"] else len(licences), name)
    names = list(dict.fromkeys(licences))
    if len(names) > 1:
        names = [f"({name})" if re.search(r"\s(or|and|OR|AND)\s", name) else name for name in names]
    return " AND ".join(names) or None


def debian_dependencies(root, pins):
    """The pinned Debian packages as the filesystem at `root` has them (an image's, copied out,
    or the host's "/" for a native run: then the host's versions, and only the ones it has)."""
    root = Path(root)
    status = root / "var/lib/dpkg/status"
    installed = dpkg_installed(status) if status.is_file() else {}
    native = root == Path("/")
    dependencies = []
    for package, pinned in pins.items():
        if package not in installed and native:
            continue
        copyright_file = root / "usr/share/doc" / package / "copyright"
        if not copyright_file.is_file():
            licence, source = UNKNOWN, f"no /usr/share/doc/{package}/copyright"
        else:
            licence = dep5_licence(copyright_file.read_text(errors="replace"))
            source = f"/usr/share/doc/{package}/copyright License fields (DEP-5)"
            if licence is None:
                licence, source = UNKNOWN, f"/usr/share/doc/{package}/copyright is not machine-readable (DEP-5)"
        version = installed.get(package, pinned) if native else pinned
        dependencies.append(Dependency("debian", package, version, licence, source, True))
    return dependencies


# --- an environment: which readers apply -------------------------------------------------


def environment_dependencies(environment, pins):
    """Every pinned dependency of the environment at `environment` (a folder its installer
    made), by the pin files in `pins` (its envs/<name>/ folder)."""
    environment, pins = Path(environment), Path(pins)
    found = []
    if (pins / "package-lock.json").is_file():
        found += npm_dependencies(environment)
    if (pins / "requirements.txt").is_file():
        found += python_dependencies(environment, pins / "requirements.txt", pins / "requirements.in")
    if (pins / "Cargo.lock").is_file():
        found += cargo_dependencies(environment, pins / "Cargo.lock", pins / "Cargo.toml")
    if (pins / "go.mod").is_file():
        found += go_dependencies(environment, pins / "go.mod")
    if (pins / "pom.xml").is_file():
        found += maven_dependencies(environment, pins / "pom.xml")
    return found
