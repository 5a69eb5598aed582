"""Result bundles: one run's results as a portable, self-checking directory and archive.

results/bundles/<host-id>/<run-id>/ holds the raw samples, the summary and ratios, the
provenance, the effective config, the seed tables, the published figures used, host.json
and manifest.json (the SHA-256 of every other file); <run-id>.tar.gz beside it is the
same tree (top directory <run-id>/). The format is fixed in README.md ("Result bundles").

    python workflow/scripts/rules/bundles.py verify PATH   # a bundle directory or .tar.gz

prints "ok: N files" (exit 0), or the error naming the bundle and the offending file
(exit 1).
"""

import contextlib
import datetime
import gzip
import hashlib
import io
import json
import shutil
import sys
import tarfile
import tempfile
from pathlib import Path, PurePosixPath

# Checking a bundle needs the standard library only (a reviewer's plain python3); writing
# one imports yaml and host_identity (the workflow's venv) where it is done.

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
                    # safe_members already refused what the "data" filter would; the
                    # filter (Python >= 3.11.4) is a second guard where it exists.
                    extra = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
                    archive.extractall(scratch, members=members, **extra)
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


# ---- writing -------------------------------------------------------------------------

SECRET_MARKERS = (b"PRIVATE KEY-----",)


def utc_stamp(iso):
    """provenance run.started (ISO 8601 with an offset) as YYYYmmddTHHMMSSZ."""
    moment = datetime.datetime.fromisoformat(iso)
    if moment.tzinfo is None:
        raise BundleError(f"run start {iso!r} has no time zone")
    return moment.astimezone(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")


def run_id(started, hashes):
    """<run start, UTC>-<first 8 hex of the sha256 of the sorted "path sha256" lines of the
    raw/ files (paths relative to the bundle, one line each, newline-terminated)>."""
    lines = sorted(f"{path} {digest}\n" for path, digest in hashes.items() if path.startswith("raw/"))
    return f"{utc_stamp(started)}-{hashlib.sha256(''.join(lines).encode()).hexdigest()[:8]}"


def layout(results, raw_files, seed_tables, published):
    """{path in the bundle: source file} for a run's results directory `results` (its
    summary.csv, ratios.csv and provenance.json), raw files under results/raw/, seed tables
    (results/<seedNNN or primitive>/<file>.csv) and the published figures' CSVs."""
    results = Path(results)
    files = {name: results / name for name in ("summary.csv", "ratios.csv", "provenance.json")}
    for path in map(Path, raw_files):
        try:
            files["raw/" + path.relative_to(results / "raw").as_posix()] = path
        except ValueError:
            raise BundleError(f"{path}: a raw-sample file outside {results / 'raw'}") from None
    for path in map(Path, seed_tables):
        files[f"seeds/{path.parent.name}/{path.name}"] = path
    for path in map(Path, published):
        files[f"published/{path.name}"] = path
    return files


def host_of(metadata_paths):
    """The facts of the host every benchmark ran on (from run_benchmark's metadata, so a
    bundle written on another node still names the benchmarks' host); BundleError naming
    two files when they name different hosts."""
    first = None
    for path in metadata_paths:
        metadata = json.loads(Path(path).read_text())
        if not metadata.get("host") or not metadata.get("host_id"):
            raise BundleError(f"{path}: no host facts (an older benchmark's metadata); rerun its benchmark")
        if first is None:
            first = (path, metadata)
        elif metadata["host_id"] != first[1]["host_id"]:
            raise BundleError(
                f"{path} names host {metadata['host_id']} but {first[0]} host {first[1]['host_id']}:"
                " a bundle holds one host's run"
            )
    if first:
        return first[1]["host"]
    from jwtbench import host_identity

    return host_identity.host_facts()


def refuse_secrets(files):
    for relative, source in files.items():
        data = Path(source).read_bytes()
        if any(marker in data for marker in SECRET_MARKERS):
            raise BundleError(f"{source}: holds private key material; it is not bundled ({relative})")


def write_archive(directory, archive, top, mtime):
    """directory as a .tar.gz with the top directory `top`: members sorted, owners and
    times fixed, so the same tree gives the same bytes."""
    paths = sorted(directory.rglob("*"), key=lambda p: p.relative_to(directory).as_posix())
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path in [directory, *paths]:
            relative = path.relative_to(directory).as_posix()
            info = tarfile.TarInfo(top if relative == "." else f"{top}/{relative}")
            info.mtime, info.uid, info.gid, info.uname, info.gname = mtime, 0, 0, "", ""
            if path.is_dir():
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
            else:
                info.mode, info.size = 0o644, path.stat().st_size
                with open(path, "rb") as handle:
                    tar.addfile(info, handle)
    with open(archive, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as packed:
        packed.write(buffer.getvalue())


def write_bundle(bundles_root, files, config, host, created=None):
    """Write <bundles_root>/<host-id>/<run-id>/ and <run-id>.tar.gz from `files` ({path in
    the bundle: source}, see layout()), the effective `config` and the benchmarks' `host`
    facts; verify both; return latest.json's content (paths as bundles_root is given)."""
    import yaml

    from jwtbench import host_identity

    bundles_root = Path(bundles_root)
    refuse_secrets(files)
    hashes = {relative: sha256_of(source) for relative, source in files.items()}
    provenance = json.loads(Path(files["provenance.json"]).read_text())
    started = provenance["run"]["started"]
    identity = {**host, "host_id": host_identity.host_id(host)}
    run = run_id(started, hashes)
    host_dir = bundles_root / identity["host_id"]
    host_dir.mkdir(parents=True, exist_ok=True)
    final, archive = host_dir / run, host_dir / f"{run}.tar.gz"
    stage = Path(tempfile.mkdtemp(prefix=f".{run}-", dir=host_dir))
    try:
        for relative, source in sorted(files.items()):
            target = stage / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
        (stage / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=True, allow_unicode=True))
        (stage / "host.json").write_text(json.dumps(identity, indent=2) + "\n")
        manifest = {
            "format": FORMAT,
            "host_id": identity["host_id"],
            "run_id": run,
            "created": created or datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "files": {relative: sha256_of(stage / relative) for relative in bundle_files(stage)},
        }
        (stage / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
        verify_directory(stage, str(final))
        if final.exists():
            shutil.rmtree(final)
        stage.rename(final)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    mtime = int(datetime.datetime.fromisoformat(started).timestamp())
    partial = host_dir / f".{run}.tar.gz.part"
    write_archive(final, partial, run, mtime)
    partial.replace(archive)
    verify(archive)
    return {
        "host_id": identity["host_id"],
        "run_id": run,
        "path": final.as_posix(),
        "archive": archive.as_posix(),
        "archive_sha256": sha256_of(archive),
        "files": len(manifest["files"]),
    }


def run_job(snake):
    """Rule write_bundle: the run's results to a bundle; results/bundles/latest.json."""
    latest = Path(snake.output.latest)
    results = Path(snake.input.summary).parent
    seed_tables = list(snake.input.seeds)
    files = layout(
        results,
        [*snake.input.samples, *snake.input.metadata, *snake.input.coldstart],
        seed_tables,
        snake.input.published,
    )
    info = write_bundle(latest.parent, files, snake.params.config, host_of(snake.input.metadata))
    with open(snake.log[0], "w") as log:
        print(
            f"bundle {info['path']} ({info['files']} files) and {info['archive']} (sha256 {info['archive_sha256']})",
            file=log,
        )
    del info["files"]
    latest.write_text(json.dumps(info, indent=2) + "\n")


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
