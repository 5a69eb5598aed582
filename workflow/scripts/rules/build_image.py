"""Images: the Debian base every image builds FROM, and one image per language (+ report).

Base (rule build_base_image): the configured BASE_IMAGE if the engine has it or can pull
it; otherwise a Debian bookworm root filesystem made by debootstrap from the host's Debian
mirror, imported as localhost/jwtbench-base:<hash>. Logged and recorded either way.

Images (rule build_image): tagged localhost/jwtbench-<name>:<hash>, where the hash covers
every input of the image (its containers/<name>/ folder, the language's envs/<name>/ and
workflow/scripts/<name>/ files, the base image's ID, the runtime image's ID for a driver
image, its build arguments). An image whose tag exists is not built again, so a rerun with
nothing changed builds nothing and a change to one driver rebuilds only its image. The
runtime image (containers/runtime/: the user, the environment, the entrypoint) is built
first; every driver image's final stage is FROM it (build argument RUNTIME_IMAGE). The OCI
labels (title, source, revision, version, base) are set here, the same for every image.

Each rule writes a record (results/images/<name>.json) that later steps and provenance read.
"""

import datetime
import hashlib
import json
import os
import re
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from jwtbench import container_engine
from jwtbench.machine_facts import git_output
from jwtbench.machine_lock import beside_other_work

DEFAULT_MIRROR = "http://deb.debian.org/debian"
SUITE = "bookworm"
SKIPPED_PARTS = {"node_modules", "__pycache__", ".pytest_cache"}
# Registries the image builds fetch from over TLS (pip, npm); apt uses plain http mirrors.
TLS_REGISTRIES = ["pypi.org", "files.pythonhosted.org", "registry.npmjs.org", "repo.maven.apache.org"]
MOZILLA_ROOTS = Path("/usr/share/ca-certificates/mozilla")
HOST_BUNDLES = ["/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt"]


class BuildError(Exception):
    pass


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def say(log, message):
    print(f"[{utc_now()}] {message}", file=log, flush=True)


def run_logged(command, log, engine=None, stdin=None, timeout=None):
    """Run a command with its output in the log; CompletedProcess."""
    env = engine.environ() if engine else None
    say(log, "$ " + " ".join(str(part) for part in command))
    return subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, stdin=stdin, env=env, timeout=timeout)


# --- the base image ------------------------------------------------------------------


def apt_source_uris(paths=None):
    """Debian archive URIs from the host's apt sources (one-line and deb822 formats)."""
    if paths is None:
        paths = [Path("/etc/apt/sources.list"), *sorted(Path("/etc/apt/sources.list.d").glob("*"))]
    uris = []
    for path in paths:
        try:
            text = Path(path).read_text()
        except OSError:
            continue
        for line in text.splitlines():
            line = line.split("#", 1)[0].strip()
            match = re.match(r"^deb\s+(?:\[[^\]]*\]\s+)?(\S+)", line) or re.match(r"^URIs:\s*(.+)$", line)
            if match:
                uris += match.group(1).split()
    return uris


def debian_mirrors(configured=""):
    """(archive mirror, security mirror): configured, else the host's, else Debian's CDN."""
    uris = [uri.rstrip("/") for uri in apt_source_uris()]
    archive = configured.rstrip("/") or next((uri for uri in uris if uri.endswith("/debian")), DEFAULT_MIRROR)
    security = next(
        (uri for uri in uris if uri.endswith("/debian-security")),
        archive.rsplit("/", 1)[0] + "/debian-security",
    )
    return archive, security


def sources_file(archive, security):
    """apt sources for the base, as the official Debian image has them (deb822)."""
    return (
        f"Types: deb\nURIs: {archive}\nSuites: {SUITE} {SUITE}-updates\nComponents: main\n"
        "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n\n"
        f"Types: deb\nURIs: {security}\nSuites: {SUITE}-security\nComponents: main\n"
        "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n"
    )


def debootstrap_base(engine, tag, archive, security, log):
    if os.geteuid() != 0:
        raise BuildError(
            f"the base image cannot be pulled and building one with debootstrap needs root;"
            f" load a Debian bookworm image into {engine.name} and set execution.base_image"
            f" to it, or run as root (see {log.name})"
        )
    debootstrap = shutil.which("debootstrap")
    if debootstrap is None:
        raise BuildError(
            "the base image cannot be pulled and debootstrap is not installed"
            " (apt-get install debootstrap), so no base can be built"
        )
    with tempfile.TemporaryDirectory(prefix="jwtbench-rootfs-") as rootfs:
        say(log, f"building a Debian {SUITE} base with debootstrap from {archive}")
        result = run_logged([debootstrap, "--variant=minbase", SUITE, rootfs, archive], log)
        if result.returncode != 0:
            raise BuildError(f"debootstrap failed (exit {result.returncode}); see {log.name}")
        root = Path(rootfs)
        (root / "etc/apt/sources.list").unlink(missing_ok=True)
        (root / "etc/apt/sources.list.d").mkdir(parents=True, exist_ok=True)
        (root / "etc/apt/sources.list.d/debian.sources").write_text(sources_file(archive, security))
        for cache in ("var/cache/apt/archives", "var/lib/apt/lists"):
            for entry in (root / cache).glob("*"):
                if entry.is_file():
                    entry.unlink()
        tar = subprocess.Popen(["tar", "-C", rootfs, "--numeric-owner", "-c", "."], stdout=subprocess.PIPE)
        imported = run_logged(
            engine.command("import", "--change", 'CMD ["/bin/bash"]', "-", tag), log, engine, stdin=tar.stdout
        )
        tar.stdout.close()
        if tar.wait() != 0 or imported.returncode != 0:
            raise BuildError(f"importing the debootstrap root filesystem as {tag} failed; see {log.name}")


def ensure_base(engine, configured, mirror, log):
    """The base image record; pulls or builds the base only when needed."""
    if engine.image_exists(configured):
        say(log, f"base image {configured} is already present")
        return {"image": configured, "how": "present", "id": engine.image_id(configured)}
    say(log, f"pulling base image {configured}")
    pulled = run_logged(engine.command("pull", configured), log, engine, timeout=600)
    if pulled.returncode == 0:
        return {"image": configured, "how": "pulled", "id": engine.image_id(configured)}
    archive, security = debian_mirrors(mirror)
    recipe = f"debootstrap --variant=minbase {SUITE} {archive}\n{sources_file(archive, security)}"
    tag = f"localhost/jwtbench-base:{SUITE}-{hashlib.sha256(recipe.encode()).hexdigest()[:12]}"
    say(log, f"cannot pull {configured}; using a locally built Debian base ({tag})")
    print(f"jwtbench: cannot pull {configured}; building the base locally as {tag}", file=sys.stderr)
    how = "debootstrap (built earlier)"
    if not engine.image_exists(tag):
        debootstrap_base(engine, tag, archive, security, log)
        how = "debootstrap"
    return {
        "image": tag,
        "how": how,
        "id": engine.image_id(tag),
        "mirror": archive,
        "security_mirror": security,
        "instead_of": configured,
    }


def run_base_job(snake):
    engine = container_engine.Engine.from_dict(snake.params.engine)
    started = time.monotonic()
    with open(snake.log[0], "w") as log, beside_other_work(log):
        record = ensure_base(engine, snake.params.base_image, snake.params.mirror, log)
        record.update(engine=engine.name, seconds=round(time.monotonic() - started, 1), recorded=utc_now())
        say(log, f"base: {record['image']} ({record['how']}), id {record['id']}")
    Path(snake.output[0]).write_text(json.dumps(record, indent=2) + "\n")


def forget_missing_images(engine, records_dir="results/images"):
    """Remove image records whose image the engine no longer has, or has under another
    ID (pruned and rebuilt, another machine's results), so Snakemake rebuilds them and
    everything that ran in them instead of trusting a record that no longer holds.
    Returns the removed records."""
    removed = []
    for record in sorted(Path(records_dir).glob("*.json")):
        try:
            data = json.loads(record.read_text())
            tag, recorded_id = data.get("tag") or data["image"], data["id"]
        except (OSError, ValueError, KeyError):
            tag = recorded_id = None
        found = engine.run("image", "inspect", "--format", "{{.Id}}", tag, timeout=60) if tag else None
        if found is None or found.returncode != 0 or found.stdout.strip() != recorded_id:
            record.unlink()
            removed.append(str(record))
    return removed


def run_forget_job(engine, log_path):
    """Rule forget_missing_images: forget_missing_images under `engine` (None natively:
    nothing to forget), each record removed said on stderr and listed in the log."""
    forgotten = forget_missing_images(engine) if engine is not None else []
    for record in forgotten:
        print(f"jwtbench: {record}: image gone from {engine.name} or changed; rebuilding", file=sys.stderr)
    Path(log_path).write_text("".join(f"{record}\n" for record in forgotten))


# --- language and report images ------------------------------------------------------


def image_input_files(repo, name):
    """Every file an image is built from, relative to the repository."""
    repo = Path(repo)
    folders = [repo / "containers" / name, repo / "envs" / name, repo / "workflow" / "scripts" / name]
    files = []
    for folder in folders:
        if folder.is_dir():
            files += [
                path
                for path in folder.rglob("*")
                if path.is_file() and not SKIPPED_PARTS & set(path.relative_to(repo).parts)
            ]
    files += [repo / source for source in copied_files(repo / "containers" / name / "Dockerfile")]
    return sorted({str(path.relative_to(repo)) for path in files})


def copied_files(dockerfile):
    """Single files a Dockerfile COPYs from the context (e.g. a shared module beside the
    language's folder), so that a change to one rebuilds the image too."""
    if not dockerfile.is_file():
        return []
    found = []
    for line in dockerfile.read_text().splitlines():
        words = line.split()
        if words[:1] != ["COPY"] or any(word.startswith("--from") for word in words):
            continue
        sources = [word for word in words[1:-1] if not word.startswith("--")]
        found += [source for source in sources if (dockerfile.parents[2] / source).is_file()]
    return found


def inputs_hash(repo, files, base_id, build_args):
    digest = hashlib.sha256()
    for relative in files:
        digest.update(relative.encode() + b"\0")
        digest.update(hashlib.sha256((Path(repo) / relative).read_bytes()).digest())
    digest.update(base_id.encode() + b"\0")
    digest.update(json.dumps(build_args, sort_keys=True).encode())
    return digest.hexdigest()


def verifies_with_public_roots(host):
    """True if `host`'s TLS certificate verifies against Mozilla's roots alone; None if
    that cannot be told (no Mozilla roots on this host, or the host is unreachable)."""
    roots = "".join(path.read_text() for path in sorted(MOZILLA_ROOTS.glob("*.crt")))
    if not roots:
        return None
    context = ssl.create_default_context(cadata=roots)
    try:
        with socket.create_connection((host, 443), timeout=10) as sock:
            with context.wrap_socket(sock, server_hostname=host):
                return True
    except ssl.SSLCertVerificationError:
        return False
    except OSError:
        return None


def ca_bundle_for_builds(setting, log):
    """(path of the CA bundle to pass as the build secret or None, why)."""
    if setting == "none":
        return None, "execution.build_ca_bundle is none"
    if setting != "auto":
        if not Path(setting).is_file():
            raise BuildError(f"config key 'execution.build_ca_bundle': no such file {setting}")
        return setting, "execution.build_ca_bundle names it"
    host_bundle = next(
        (path for path in [os.environ.get("SSL_CERT_FILE"), *HOST_BUNDLES] if path and Path(path).is_file()),
        None,
    )
    verdicts = {host: verifies_with_public_roots(host) for host in TLS_REGISTRIES}
    say(log, f"TLS with public roots only: {verdicts}")
    if all(verdicts.values()):
        return None, "the registries verify with the public roots"
    if host_bundle is None:
        return None, "no host CA bundle found"
    if False in verdicts.values():
        return host_bundle, "a registry does not verify with the public roots alone"
    return host_bundle, "could not check the registries against the public roots"


def oci_labels(repo, name, base):
    """The image's OCI labels: its name, where the source lives, its commit, a version name
    and the base it was built on (each Dockerfile adds only its description)."""
    oci = "org.opencontainers.image."
    return {
        f"{oci}title": f"jwtbench-{name}",
        f"{oci}source": git_output(repo, "remote", "get-url", "origin") or "jwtbench",
        f"{oci}revision": git_output(repo, "rev-parse", "HEAD") or "unknown",
        f"{oci}version": git_output(repo, "describe", "--always", "--dirty") or "unknown",
        f"{oci}base.name": base,
    }


def build(engine, name, tag, build_args, repo, ca_bundle, labels, log):
    command = ["build", "--file", f"containers/{name}/Dockerfile", "--tag", tag]
    for key, value in build_args.items():
        command += ["--build-arg", f"{key}={value}"]
    for key, value in labels.items():
        command += ["--label", f"{key}={value}"]
    if engine.name == "podman":
        command += ["--network", "host", "--pull=never"]
    with tempfile.TemporaryDirectory(prefix="jwtbench-secret-") as empty:
        # The secret is always mounted, empty when the host needs no CA bundle.
        secret = ca_bundle or str(Path(empty) / "none")
        Path(secret).touch()
        command += ["--secret", f"id=ca,src={secret}", "."]
        env = engine.environ()
        if engine.name == "docker":
            env["DOCKER_BUILDKIT"] = "1"
        say(log, "$ " + " ".join(engine.command(*command)))
        result = subprocess.run(engine.command(*command), cwd=repo, stdout=log, stderr=subprocess.STDOUT, env=env)
    if result.returncode != 0:
        raise BuildError(f"building image '{name}' failed (exit {result.returncode}); see {log.name}")


def run_image_job(snake):
    engine = container_engine.Engine.from_dict(snake.params.engine)
    name, repo = snake.wildcards.image, Path(snake.params.repo)
    base = json.loads(Path(snake.input.base).read_text())
    build_args = {"BASE_IMAGE": base["image"], **snake.params.build_args}
    runtime_record = list(getattr(snake.input, "runtime", None) or [])  # driver images only
    runtime = json.loads(Path(runtime_record[0]).read_text()) if runtime_record else None
    if runtime:
        build_args["RUNTIME_IMAGE"] = runtime["tag"]
    files = image_input_files(repo, name)
    digest = inputs_hash(repo, files, base["id"], {**build_args, "RUNTIME_IMAGE": runtime and runtime["id"]})
    tag = f"localhost/jwtbench-{name}:{digest[:16]}"
    started = time.monotonic()
    with open(snake.log[0], "w") as log, beside_other_work(log):
        say(log, f"image {name}: {len(files)} input files, inputs hash {digest}")
        built = not engine.image_exists(tag)
        if built:
            ca_bundle, why = ca_bundle_for_builds(snake.params.ca_bundle, log)
            say(log, f"CA bundle as build secret: {'yes' if ca_bundle else 'no'} ({why})")
            print(f"jwtbench: building image {tag} (log: {log.name})", file=sys.stderr)
            build(engine, name, tag, build_args, repo, ca_bundle, oci_labels(repo, name, base["image"]), log)
        else:
            say(log, f"{tag} exists: nothing to build")
        record = {
            "image": name,
            "tag": tag,
            "id": engine.image_id(tag),
            "base": base["image"],
            "base_id": base["id"],
            "runtime": runtime and runtime["tag"],
            "inputs_sha256": digest,
            "input_files": files,
            "built": built,
            "seconds": round(time.monotonic() - started, 1),
            "engine": engine.name,
            "recorded": utc_now(),
        }
    Path(snake.output[0]).write_text(json.dumps(record, indent=2) + "\n")
