"""Result bundles: one run's results as a portable, self-checking directory and archive.

results/bundles/<host-id>/<run-id>/ holds the raw samples, the summary and ratios, the
provenance, the effective config, the seed tables, the published figures used, host.json
and manifest.json (the SHA-256 of every other file); <run-id>.tar.gz beside it is the
same tree (top directory <run-id>/). The format is fixed in README.md ("Result bundles").

    python workflow/scripts/bundles.py verify PATH   # a bundle directory or .tar.gz

prints "ok: N files" (exit 0), or the error naming the bundle and the offending file
(exit 1).
"""

import contextlib
import hashlib
import json
import sys
import tarfile
import tempfile
from pathlib import Path, PurePosixPath

FORMAT = "jwtbench-bundle/1"
MANIFEST = "manifest.json"


class BundleError(Exception):
    pass


def sha256_of(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def bundle_files(directory):
    """The bundle's files (not the manifest), as sorted POSIX paths relative to `directory`."""
    directory = Path(directory)
    return sorted(
        path.relative_to(directory).as_posix()
        for path in directory.rglob("*")
        if (path.is_file() or path.is_symlink()) and path.relative_to(directory).as_posix() != MANIFEST
    )


def read_manifest(directory, name):
    path = Path(directory) / MANIFEST
    try:
        manifest = json.loads(path.read_text())
    except FileNotFoundError:
        raise BundleError(f"{name}: no {MANIFEST}: not a jwtbench bundle") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise BundleError(f"{name}: {MANIFEST} is unreadable: {error}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        found = manifest.get("format") if isinstance(manifest, dict) else type(manifest).__name__
        raise BundleError(f"{name}: {MANIFEST} has format {found!r}, expected {FORMAT!r}")
    for key in ("host_id", "run_id", "created", "files"):
        if key not in manifest:
            raise BundleError(f"{name}: {MANIFEST} lacks the key {key!r}")
    if not isinstance(manifest["files"], dict):
        raise BundleError(f"{name}: {MANIFEST}: 'files' is not a mapping of path to sha256")
    return manifest


def verify_directory(directory, name=None):
    """The manifest of a bundle directory whose files match it exactly; BundleError naming
    the bundle and the first offending file otherwise."""
    directory = Path(directory)
    name = name or str(directory)
    if not directory.is_dir():
        raise BundleError(f"{name}: not a bundle directory or .tar.gz archive")
    manifest = read_manifest(directory, name)
    listed = manifest["files"]
    present = set(bundle_files(directory))
    for relative in sorted(set(listed) | present):
        path = directory / relative
        if relative not in listed:
            raise BundleError(f"{name}: file {relative} is not in the manifest")
        if relative not in present:
            raise BundleError(f"{name}: file {relative} is in the manifest but missing")
        if path.is_symlink():
            raise BundleError(f"{name}: file {relative} is a symbolic link (bundles hold files only)")
        actual = sha256_of(path)
        if actual != listed[relative]:
            raise BundleError(
                f"{name}: file {relative} does not match the manifest "
                f"(sha256 {actual}, manifest says {listed[relative]})"
            )
    return manifest


def is_archive(path):
    return str(path).endswith((".tar.gz", ".tgz"))


def safe_members(archive, name):
    """The archive's members, after refusing any that could land outside the extraction
    directory or that is not a plain file or directory; all under one top directory."""
    members = archive.getmembers()
    tops = set()
    for member in members:
        path = PurePosixPath(member.name)
        if path.is_absolute() or ".." in path.parts or member.name.startswith("/"):
            raise BundleError(f"{name}: archive member {member.name!r} has an absolute or '..' path: refused")
        if not (member.isfile() or member.isdir()):
            raise BundleError(f"{name}: archive member {member.name!r} is not a plain file or directory: refused")
        parts = [part for part in path.parts if part != "."]
        if parts:
            tops.add(parts[0])
    if len(tops) != 1:
        raise BundleError(f"{name}: the archive must hold one top directory (<run-id>/), found {sorted(tops)}")
    return members, tops.pop()


@contextlib.contextmanager
def open_bundle(path):
    """A verified bundle directory (a Path) for a bundle directory or a .tar.gz archive
    (extracted into a temporary directory removed on exit); BundleError if it does not verify."""
    path = Path(path)
    if path.is_file() and is_archive(path):
        with tempfile.TemporaryDirectory(prefix="jwtbench-bundle-") as scratch:
            try:
                with tarfile.open(path, "r:gz") as archive:
                    members, top = safe_members(archive, str(path))
                    archive.extractall(scratch, members=members, filter="data")
            except (tarfile.TarError, OSError, EOFError) as error:
                raise BundleError(f"{path}: unreadable archive: {error}") from None
            directory = Path(scratch) / top
            verify_directory(directory, f"{path} ({top}/)")
            yield directory
    else:
        if not path.exists():
            raise BundleError(f"{path}: no such bundle")
        verify_directory(path)
        yield path


def verify(path):
    """The manifest dict of a bundle directory or .tar.gz archive that verifies."""
    with open_bundle(path) as directory:
        return read_manifest(directory, str(path))


def main(argv):
    if len(argv) != 2 or argv[0] != "verify":
        print("usage: bundles.py verify PATH   (a bundle directory or its .tar.gz)", file=sys.stderr)
        return 2
    try:
        manifest = verify(argv[1])
    except BundleError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"ok: {len(manifest['files'])} files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
