"""Result bundles (workflow/scripts/rules/bundles.py), the host-id, and the guard that keeps
aggregation from pooling samples of different hosts or images. Synthetic results trees
only: no pipeline run."""

import hashlib
import io
import json
import os
import re
import subprocess
import sys
import tarfile

import pytest
from conftest import REPO, SCRIPTS

from jwtbench import cell_samples, host_identity, raw_samples
from jwtbench.rules import aggregate_samples, bundles

HEADER = ",".join(raw_samples.ONE_PROCESS_COLUMNS)
FACTS = {
    "cpu_model": "Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz",
    "cores": 8,
    "memory_gib": 31,
    "kernel_release": "6.1.0-18-amd64",
    "os": "Debian GNU/Linux 12 (bookworm)",
    "architecture": "x86_64",
}
OTHER_HOST = {**FACTS, "cores": 4}
STARTED = "2026-11-21T17:05:09.123+00:00"
RAW = "raw/python/jwt/claims-001.csv"


def raw_csv(operation="sign", elapsed=(1000, 1100, 1200)):
    lines = [
        f"python,pyjwt,2.15.0,jwt,{operation},HS256,256,claims-001,185,{i},10,{ns},100,ok"
        for i, ns in enumerate(elapsed, 1)
    ]
    return "\n".join([HEADER, *lines]) + "\n"


def metadata(host=FACTS, image="native"):
    return {
        "language": "python",
        "suite": "jwt",
        "input": "claims-001",
        "host_id": host_identity.host_id(host),
        "host": host,
        "image_id": image,
    }


def results_tree(root):
    """A small results directory as a run leaves it, and the files a bundle takes from it."""
    results = root / "results"
    for name, text in {
        "summary.csv": "language,median_ns\npython,110\n",
        "ratios.csv": "language,ratio\npython,1.5\n",
        "provenance.json": json.dumps({"run": {"started": STARTED}, "host": {"cores": 8}}),
        "raw/python/jwt/claims-001.csv": raw_csv(),
        "raw/python/jwt/claims-001.json": json.dumps(metadata()),
        "raw/python/hash/cases.csv": raw_csv("verify"),
        "seed001/verdicts.csv": "claim,verdict\n1,holds\n",
        "primitive/overhead.csv": "language,ratio\npython,2\n",
    }.items():
        (results / name).parent.mkdir(parents=True, exist_ok=True)
        (results / name).write_text(text)
    (root / "published").mkdir()
    (root / "published" / "seed001_rankings.csv").write_text("variant,us\nHS256,3\n")
    raw = [
        results / "raw/python/jwt/claims-001.csv",
        results / "raw/python/jwt/claims-001.json",
        results / "raw/python/hash/cases.csv",
    ]
    seeds = [results / "seed001/verdicts.csv", results / "primitive/overhead.csv"]
    return bundles.layout(results, raw, seeds, [root / "published" / "seed001_rankings.csv"])


@pytest.fixture
def written(tmp_path):
    files = results_tree(tmp_path)
    config = {"languages": ["python"], "timing": {"samples": 3}}
    latest = bundles.write_bundle(
        tmp_path / "results" / "bundles", files, config, FACTS, created="2026-11-21T18:00:00+00:00"
    )
    return tmp_path, latest


def rerun_main(*args):
    """The CLI without site-packages (-S): checking a bundle needs only the standard library."""
    return subprocess.run(
        [sys.executable, "-S", str(SCRIPTS / "rules" / "bundles.py"), *args], capture_output=True, text=True
    )


# ---- host-id ----------------------------------------------------------------------------


def test_host_id_is_shaped_as_specified_and_stable():
    canonical = json.dumps(FACTS, sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha256(canonical.encode()).hexdigest()[:10]
    assert host_identity.host_id(FACTS) == f"intel-r-xeon-r-platinum-8c-31g-{digest}"  # slug cut at 24 chars
    assert host_identity.host_id(dict(reversed(list(FACTS.items())))) == host_identity.host_id(FACTS)
    for changed in ({"kernel_release": "6.1.0-19-amd64"}, {"os": "Ubuntu 24.04"}, {"memory_gib": 32}):
        assert host_identity.host_id({**FACTS, **changed}) != host_identity.host_id(FACTS)


def test_this_hosts_facts_come_from_the_hardware_not_the_hostname():
    facts = host_identity.host_facts()
    assert list(facts) == list(host_identity.FACTS)
    assert facts["cores"] == os.cpu_count()
    mem_kib = next(int(line.split()[1]) for line in open("/proc/meminfo") if line.startswith("MemTotal:"))
    assert facts["memory_gib"] == round(mem_kib / 1024**2)
    assert facts["kernel_release"] == os.uname().release
    identity = host_identity.host_id(facts)
    assert re.fullmatch(r"[a-z0-9][a-z0-9-]{0,23}-\d+c-\d+g-[0-9a-f]{10}", identity)
    assert os.uname().nodename.lower() not in identity
    assert host_identity.host_id(host_identity.host_facts()) == identity


# ---- writing and verifying -------------------------------------------------------------


def test_written_bundle_has_the_fixed_layout_and_verifies(written):
    root, latest = written
    bundle = root / "results" / "bundles" / latest["host_id"] / latest["run_id"]
    assert latest["host_id"] == host_identity.host_id(FACTS)
    assert latest["path"] == bundle.as_posix() and latest["archive"] == f"{bundle}.tar.gz"
    assert re.fullmatch(r"20261121T170509Z-[0-9a-f]{8}", latest["run_id"])
    manifest = bundles.verify(bundle)
    assert set(manifest["files"]) == {
        "summary.csv",
        "ratios.csv",
        "provenance.json",
        "config.yaml",
        "host.json",
        RAW,
        "raw/python/jwt/claims-001.json",
        "raw/python/hash/cases.csv",
        "seeds/seed001/verdicts.csv",
        "seeds/primitive/overhead.csv",
        "published/seed001_rankings.csv",
    }
    assert manifest["format"] == "jwtbench-bundle/1" and manifest["run_id"] == latest["run_id"]
    for path, digest in manifest["files"].items():
        assert hashlib.sha256((bundle / path).read_bytes()).hexdigest() == digest
    assert json.loads((bundle / "host.json").read_text()) == {**FACTS, "host_id": latest["host_id"]}
    assert "samples: 3" in (bundle / "config.yaml").read_text()
    assert latest["archive_sha256"] == hashlib.sha256(open(latest["archive"], "rb").read()).hexdigest()
    result = rerun_main("verify", str(bundle))
    assert result.returncode == 0 and result.stdout == "ok: 11 files\n"


def test_run_id_follows_the_raw_files(tmp_path):
    files = results_tree(tmp_path)
    hashes = {path: bundles.sha256_of(source) for path, source in files.items()}
    lines = sorted(f"{path} {digest}\n" for path, digest in hashes.items() if path.startswith("raw/"))
    expected = hashlib.sha256("".join(lines).encode()).hexdigest()[:8]
    assert bundles.run_id(STARTED, hashes) == f"20261121T170509Z-{expected}"
    assert bundles.run_id("2026-11-21T18:05:09+01:00", hashes) == f"20261121T170509Z-{expected}"
    changed = {**hashes, RAW: "0" * 64}
    assert bundles.run_id(STARTED, changed) != bundles.run_id(STARTED, hashes)
    assert bundles.run_id(STARTED, {**hashes, "summary.csv": "0" * 64}) == bundles.run_id(STARTED, hashes)


def test_tampered_byte_is_refused_naming_the_file(written):
    root, latest = written
    raw = root / latest["path"] / RAW
    data = bytearray(raw.read_bytes())
    data[-3] ^= 1
    raw.write_bytes(bytes(data))
    with pytest.raises(bundles.BundleError, match=f"file {RAW} does not match the manifest"):
        bundles.verify(latest["path"])
    result = rerun_main("verify", latest["path"])
    assert result.returncode == 1 and RAW in result.stderr and "ok:" not in result.stdout


def test_missing_and_extra_files_are_named(written):
    root, latest = written
    bundle = root / latest["path"]
    (bundle / "seeds/seed001/verdicts.csv").unlink()
    with pytest.raises(bundles.BundleError, match="file seeds/seed001/verdicts.csv is in the manifest but missing"):
        bundles.verify(bundle)
    (bundle / "raw/python/extra.csv").write_text("x\n")
    with pytest.raises(bundles.BundleError, match="file raw/python/extra.csv is not in the manifest"):
        bundles.verify(bundle)


def test_what_is_not_a_bundle_is_refused(tmp_path):
    (tmp_path / "manifest.json").write_text(json.dumps({"format": "other/1", "files": {}}))
    with pytest.raises(bundles.BundleError, match="format 'other/1'"):
        bundles.verify(tmp_path)
    with pytest.raises(bundles.BundleError, match="results: no such bundle"):
        bundles.verify(tmp_path / "results")
    (tmp_path / "empty").mkdir()
    with pytest.raises(bundles.BundleError, match="no manifest.json"):
        bundles.verify(tmp_path / "empty")


def test_archive_round_trip_and_determinism(written, tmp_path_factory):
    root, latest = written
    manifest = bundles.verify(latest["archive"])
    assert manifest == bundles.verify(latest["path"])
    with bundles.open_bundle(latest["archive"]) as directory:
        assert directory.name == latest["run_id"]
        assert (directory / RAW).read_bytes() == (root / latest["path"] / RAW).read_bytes()
        extracted = directory
    assert not extracted.exists()
    with tarfile.open(latest["archive"]) as archive:
        names = archive.getnames()
    assert names == sorted(names) and names[0] == latest["run_id"]
    # The same results and creation time give the same archive, byte for byte.
    again = tmp_path_factory.mktemp("again")
    second = bundles.write_bundle(
        again / "bundles",
        results_tree(again),
        {"languages": ["python"], "timing": {"samples": 3}},
        FACTS,
        created="2026-11-21T18:00:00+00:00",
    )
    assert second["archive_sha256"] == latest["archive_sha256"]
    assert rerun_main("verify", latest["archive"]).stdout == "ok: 11 files\n"


def test_tampered_archive_is_refused_naming_the_file(written, tmp_path):
    root, latest = written
    with bundles.open_bundle(latest["path"]) as directory:
        (directory / RAW).write_text(raw_csv(elapsed=(900, 1100, 1200)))
        forged = tmp_path / "forged.tar.gz"
        bundles.write_archive(directory, forged, latest["run_id"], 0)
    with pytest.raises(bundles.BundleError, match=f"forged.tar.gz .*file {RAW} does not match"):
        bundles.verify(forged)


def member_archive(path, name, data=b"x"):
    with tarfile.open(path, "w:gz") as archive:
        info = tarfile.TarInfo(name)
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    return path


@pytest.mark.parametrize("member", ["run/../x", "../x", "/etc/x"])
def test_malicious_archive_members_are_refused(tmp_path, member):
    archive = member_archive(tmp_path / "evil.tar.gz", member)
    with pytest.raises(bundles.BundleError, match="absolute or '..' path: refused"):
        bundles.verify(archive)
    assert not (tmp_path / "x").exists()


def test_links_in_archives_are_refused(tmp_path):
    path = tmp_path / "link.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        info = tarfile.TarInfo("run/manifest.json")
        info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
        archive.addfile(info)
    with pytest.raises(bundles.BundleError, match="not a plain file or directory"):
        bundles.verify(path)


def test_private_key_material_is_never_bundled(tmp_path):
    files = results_tree(tmp_path)
    files[RAW].write_text(raw_csv() + "-----BEGIN PRIVATE KEY-----\n")
    with pytest.raises(bundles.BundleError, match="private key material"):
        bundles.write_bundle(tmp_path / "bundles", files, {}, FACTS)
    assert not any((tmp_path / "bundles").rglob("*.csv"))


def test_bundle_host_comes_from_the_benchmarks_metadata(tmp_path):
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_text(json.dumps(metadata()))
    second.write_text(json.dumps(metadata(OTHER_HOST)))
    assert bundles.host_of([first]) == FACTS
    with pytest.raises(bundles.BundleError, match=r"b\.json names host .*-4c-.* but .*a\.json host .*-8c-"):
        bundles.host_of([first, second])


# ---- the guard against pooling hosts or images ------------------------------------------


def raw_with_metadata(directory, name, host=FACTS, image="native", operation="sign"):
    directory.mkdir(parents=True, exist_ok=True)
    (directory / f"{name}.csv").write_text(raw_csv(operation))
    (directory / f"{name}.json").write_text(json.dumps(metadata(host, image)))
    return directory / f"{name}.csv"


def test_aggregation_refuses_samples_of_two_hosts(tmp_path):
    ours = raw_with_metadata(tmp_path / "a", "claims-001")
    theirs = raw_with_metadata(tmp_path / "b", "claims-001", host=OTHER_HOST, operation="verify")
    with pytest.raises(
        cell_samples.MixedOriginError, match=rf"{theirs} comes from host .*-4c-.* but {ours} from host .*-8c-"
    ):
        cell_samples.group_cells([ours, theirs])
    with open(tmp_path / "log", "w") as log, pytest.raises(cell_samples.MixedOriginError):
        aggregate_samples.main(
            [ours, theirs],
            {"seed": 1, "confidence": 0.95, "bootstrap_resamples": 50},
            tmp_path / "s.csv",
            tmp_path / "r.csv",
            log,
        )
    assert not (tmp_path / "s.csv").exists()


def test_aggregation_refuses_one_cell_from_two_images(tmp_path):
    first = raw_with_metadata(tmp_path / "a", "claims-001", image="sha256:aaaa")
    second = raw_with_metadata(tmp_path / "b", "claims-001", image="sha256:bbbb")
    with pytest.raises(
        cell_samples.MixedOriginError,
        match=rf"{second} has samples from image sha256:bbbb and {first} from image sha256:aaaa",
    ):
        cell_samples.group_cells([first, second])
    # Different images for different cells (each language its own image) are fine.
    other = raw_with_metadata(tmp_path / "c", "claims-001", image="sha256:bbbb", operation="verify")
    assert len(cell_samples.group_cells([first, other])) == 2
    # The same file twice (seed003 reads suite jwt's files in both roles) is one origin.
    assert len(cell_samples.group_cells([first, first])) == 1


def test_metadata_without_origin_is_refused(tmp_path):
    raw = raw_with_metadata(tmp_path, "claims-001")
    (tmp_path / "claims-001.json").write_text(json.dumps({"language": "python"}))
    with pytest.raises(cell_samples.MixedOriginError, match=r"claims-001\.json: no host_id or image_id"):
        cell_samples.group_cells([raw])


def test_the_docs_document_the_cli():
    text = (REPO / "docs" / "results.md").read_text()
    assert "## Result bundles" in text and "bundles.py verify" in text
    assert "docs/results.md" in (REPO / "README.md").read_text()


# ---------------------------------------------------------------- the smoke run's bundle


def test_the_smoke_run_writes_a_bundle_that_verifies(smoke):
    latest = json.loads((smoke / "results/bundles/latest.json").read_text())
    directory, archive = smoke / latest["path"], smoke / latest["archive"]
    assert latest["host_id"] == host_identity.host_id(host_identity.host_facts())
    assert directory.parent.name == latest["host_id"] and directory.name == latest["run_id"]
    for path in (directory, archive):
        manifest = bundles.verify(path)
        assert (manifest["host_id"], manifest["run_id"]) == (latest["host_id"], latest["run_id"])
    files = set(manifest["files"])
    raw = {str(p.relative_to(smoke / "results")) for p in (smoke / "results/raw").rglob("*.csv")}
    assert raw and raw <= files
    for name in (
        "provenance.json",
        "config.yaml",
        "summary.csv",
        "ratios.csv",
        "host.json",
        "seeds/seed000/verdicts.csv",
        "seeds/seed003/verdicts.csv",
        "seeds/primitive/overhead.csv",
        "published/seed001_rankings.csv",
    ):
        assert name in files, name
    assert hashlib.sha256(archive.read_bytes()).hexdigest() == latest["archive_sha256"]
