"""The openssl language: `openssl speed` output parsing (on captured output, tests/data/openssl/),
the cell mapping, and the real driver run natively on a tiny spec (workflow/scripts/openssl/)."""

import json
import os
import re
import shutil
import subprocess

import driver as openssl_driver
import pytest
import speed_cells
import speed_output
from conftest import REPO, SCRIPTS

from jwtbench import raw_samples

DATA = REPO / "tests" / "data" / "openssl"
RUN = SCRIPTS / "openssl" / "run"


def parsed(name):
    return speed_output.parse((DATA / name).read_text())


def assert_count(output, algorithm, operation, size, operations, seconds):
    count = output.count(algorithm, operation, size)
    assert count is not None, (algorithm, operation, size, output.counts)
    assert (count.operations, count.seconds) == (operations, seconds)


# ---------------------------------------------------------------- parser: seed 003 (LibreSSL 2.8.3)


def test_seed_listing_counts():
    seed = parsed("libressl-2.8.3-seed003.txt")
    assert seed.version == "LibreSSL 2.8.3"
    assert len(seed.counts) == 12
    assert_count(seed, "sha256", "block", 16, 16986930, 2.99)
    assert_count(seed, "sha256", "block", 256, 10630596, 3.00)
    assert_count(seed, "sha256", "block", 8192, 858300, 3.00)
    assert_count(seed, "aes-256 gcm", "block", 256, 1542553, 2.99)
    assert_count(seed, "aes-256 gcm", "block", 8192, 51914, 2.99)
    assert_count(seed, "rsa", "sign", 2048, 5771, 9.96)
    assert_count(seed, "rsa", "verify", 2048, 128433, 9.96)


def test_seed_listing_tables():
    seed = parsed("libressl-2.8.3-seed003.txt")
    assert seed.block_rates[("sha256", 16)] == pytest.approx(90814.37e3)
    assert seed.block_rates[("sha256", 256)] == pytest.approx(908076.48e3)
    assert seed.block_rates[("sha256", 8192)] == pytest.approx(2346912.05e3)
    assert seed.block_rates[("aes-256 gcm", 256)] == pytest.approx(131922.74e3)
    assert len(seed.block_rates) == 10
    rsa = seed.pkey_rates[("rsa", 2048)]
    assert (rsa.sign_per_second, rsa.verify_per_second) == (579.7, 12893.2)
    assert (rsa.sign_seconds, rsa.verify_seconds) == (0.001725, 0.000078)
    # the seed's own 256-byte comparison: ops/s = table rate / block size
    assert seed.block_rates[("sha256", 256)] / 256 == pytest.approx(3547174, rel=1e-6)


# ---------------------------------------------------------------- parser: OpenSSL 3.0.19 on this host

BLOCK_CAPTURES = [("sha256", "sha256"), ("aes-256-gcm", "AES-256-GCM"), ("hmac-sha256", "hmac(sha256)")]
SIZES_3_0 = [16, 64, 256, 1024, 8192, 16384]


@pytest.mark.parametrize("mode", ["human", "mr"])
@pytest.mark.parametrize(("capture", "name"), BLOCK_CAPTURES)
def test_block_captures_have_a_count_and_a_consistent_rate_per_size(capture, name, mode):
    output = parsed(f"{capture}.{mode}.txt")
    assert [(c.algorithm, c.operation, c.size) for c in output.counts] == [(name, "block", s) for s in SIZES_3_0]
    for count in output.counts:
        assert count.operations > 1000 and 0.9 <= count.seconds <= 1.1
        # the summary table is openssl's own division of the same counts
        rate = output.block_rates[(name, count.size)]
        assert rate == pytest.approx(count.operations * count.size / count.seconds, rel=0.01)
    assert output.version == ("3.0.19" if mode == "human" else None)  # -mr prints no version


def test_captured_figures_3_0():
    assert_count(parsed("sha256.human.txt"), "sha256", "block", 256, 2375338, 1.00)
    assert_count(parsed("sha256.mr.txt"), "sha256", "block", 256, 2311940, 1.0)
    assert_count(parsed("aes-256-gcm.human.txt"), "AES-256-GCM", "block", 8192, 248919, 1.01)
    assert_count(parsed("aes-256-gcm.mr.txt"), "AES-256-GCM", "block", 16, 1710126, 1.0)
    assert_count(parsed("hmac-sha256.mr.txt"), "hmac(sha256)", "block", 1024, 929733, 1.0)
    assert parsed("sha256.human.txt").block_rates[("sha256", 256)] == pytest.approx(608086.53e3)
    assert parsed("sha256.mr.txt").block_rates[("sha256", 256)] == 591856640.0


@pytest.mark.parametrize(
    ("mode", "figures"),
    [
        (
            "human",
            {
                ("rsa", 2048): (1162, 42063, 1.00, 1.00),
                ("ecdsa", 256): (31656, 10851, 1.00, 1.00),
                ("Ed25519", 253): (16363, 5223, 1.01, 1.00),
            },
        ),
        (
            "mr",
            {
                ("rsa", 2048): (1069, 39310, 1.00, 1.00),
                ("ecdsa", 256): (30711, 11638, 1.00, 1.00),
                ("Ed25519", 253): (15566, 6331, 1.00, 1.00),
            },
        ),
    ],
)
def test_public_key_captures(mode, figures):
    output = parsed(f"rsa2048-ecdsap256-ed25519.{mode}.txt")
    assert len(output.counts) == 6
    for (name, bits), (signs, verifies, sign_seconds, verify_seconds) in figures.items():
        assert_count(output, name, "sign", bits, signs, sign_seconds)
        assert_count(output, name, "verify", bits, verifies, verify_seconds)
        rates = output.pkey_rates[(name, bits)]
        assert rates.sign_per_second == pytest.approx(signs / sign_seconds, rel=0.001)
        assert rates.verify_per_second == pytest.approx(verifies / verify_seconds, rel=0.001)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("+R:12:sha256:1.000000\n", "without its +DT"),
        ("+DT:sha256:1:16\n+R:twelve:sha256:1.000000\n", "twelve"),
        ("+DT:sha256:1:16\n+R:12:sha512:1.000000\n", "without its +DT"),
        ("+DTP:2048:private:rsa:1\n+R1:1069:4096:1.00\n", "without its +DTP"),
        ("+DTP:2048:private:rsa:1\n+R1:1069:1.00\n", "expected 3 or 4"),
        ("Doing sha256 in some new way\n", "no known form"),
        ("type 16 bytes 64 bytes\nsha256 12.0k 13.0\n", "no known form"),
    ],
)
def test_malformed_output_is_refused_naming_the_line(text, problem):
    with pytest.raises(speed_output.SpeedOutputError, match="line [0-9]+: .*" + re.escape(problem)):
        speed_output.parse(text)


def test_unrelated_lines_are_ignored():
    assert speed_output.parse("speed: Unknown algorithm nosuchalg\n+H:16:64\n").counts == []


# ---------------------------------------------------------------- cells -> openssl speed


def cell(operation, algorithm, key_bits, message_bytes=None):
    return {
        "operation": operation,
        "algorithm": algorithm,
        "key_bits": key_bits,
        "input": "bytes-x",
        "message_bytes": message_bytes,
    }


@pytest.mark.parametrize(
    ("spec_cell", "command_tail", "found_as", "input_bytes", "output_bytes"),
    [
        (cell("digest", "SHA-256", 0, 256), ["-bytes", "256", "sha256"], ("sha256", "block", 256), 256, 32),
        (cell("digest", "SHA-512", 0, 16), ["-bytes", "16", "sha512"], ("sha512", "block", 16), 16, 64),
        (
            cell("mac", "HMAC-SHA256", 256, 64),
            ["-bytes", "64", "-hmac", "sha256"],
            ("hmac(sha256)", "block", 64),
            64,
            32,
        ),
        (
            cell("encrypt", "AES-256-GCM", 256, 1024),
            ["-bytes", "1024", "-evp", "aes-256-gcm"],
            ("AES-256-GCM", "block", 1024),
            1024,
            1040,
        ),
        (cell("sign", "RSA-SHA256", 2048, 36), ["rsa2048"], ("rsa", "sign", 2048), 36, 256),
        (cell("verify", "RSA-SHA256", 2048, 36), ["rsa2048"], ("rsa", "verify", 2048), 36, 256),
        (cell("sign", "ECDSA-SHA256", 256, 36), ["ecdsap256"], ("ecdsa", "sign", 256), 20, 72),
        (cell("verify", "Ed25519", 256, 36), ["ed25519"], ("Ed25519", "verify", 253), 20, 64),
    ],
)
def test_cells_map_to_openssl_speed(spec_cell, command_tail, found_as, input_bytes, output_bytes):
    target = speed_cells.target_for(spec_cell, spec_cell["message_bytes"])
    command = target.command("openssl", 3)
    assert command == ["openssl", "speed", "-elapsed", "-seconds", "3", "-mr", *command_tail]
    assert (target.name, target.operation, target.size) == found_as
    assert (target.input_bytes, target.output_bytes) == (input_bytes, output_bytes)


def test_sign_and_verify_share_one_run():
    sign = speed_cells.target_for(cell("sign", "RSA-SHA256", 2048), None)
    verify = speed_cells.target_for(cell("verify", "RSA-SHA256", 2048), None)
    assert sign.run_key == verify.run_key
    sha_16 = speed_cells.target_for(cell("digest", "SHA-256", 0, 16), 16)
    sha_64 = speed_cells.target_for(cell("digest", "SHA-256", 0, 64), 64)
    assert sha_16.run_key != sha_64.run_key


@pytest.mark.parametrize(
    "spec_cell",
    [
        cell("digest", "MD5", 0, 16),
        cell("sign", "RSA-SHA512", 2048),
        cell("sign", "ECDSA-SHA256", 384),
        cell("sign", "RSA-SHA256", 2047),
        cell("mac", "HMAC-SHA256", 512, 16),
        cell("digest", "SHA-256", 0, 0),
    ],
)
def test_cells_openssl_speed_cannot_time_are_unsupported(spec_cell):
    with pytest.raises(speed_cells.Unsupported):
        speed_cells.target_for(spec_cell, spec_cell["message_bytes"])


VERSION_A = """OpenSSL 3.0.19 27 Jan 2026 (Library: OpenSSL 3.0.19 27 Jan 2026)
built on: Fri Apr  3 12:29:32 2026 UTC
platform: debian-amd64
options:  bn(64,64)
compiler: gcc -fPIC -pthread -m64 -O2 -DNDEBUG
OPENSSLDIR: "/usr/lib/ssl"
CPUINFO: OPENSSL_ia32cap=0xfffa3203078bffff:0x400684219c07ab
"""


def test_version_facts():
    facts = openssl_driver.parse_version_all(VERSION_A)
    assert facts == {
        "binary": "OpenSSL 3.0.19 27 Jan 2026",
        "library": "OpenSSL 3.0.19 27 Jan 2026",
        "built_on": "Fri Apr  3 12:29:32 2026 UTC",
        "platform": "debian-amd64",
        "options": "bn(64,64)",
        "compiler": "gcc -fPIC -pthread -m64 -O2 -DNDEBUG",
        "cpuinfo": "OPENSSL_ia32cap=0xfffa3203078bffff:0x400684219c07ab",
    }
    assert openssl_driver.version_number(facts["library"]) == "3.0.19"


# ---------------------------------------------------------------- the real driver, natively


@pytest.fixture(scope="module")
def openssl_env(tmp_path_factory):
    """JWTBENCH_ENVS with the openssl env installed by envs/openssl/install."""
    assert shutil.which("openssl"), "openssl is not on PATH: these tests need it (Debian: apt-get install openssl)"
    envs = tmp_path_factory.mktemp("envs")
    result = subprocess.run([str(REPO / "envs/openssl/install"), str(envs / "openssl")], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert (envs / "openssl" / ".installed").is_file()
    assert "JWTBENCH_OPENSSL=" in (envs / "openssl" / "tools.env").read_text()
    return dict(os.environ, JWTBENCH_ENVS=str(envs))


def run(env, *args):
    return subprocess.run([str(RUN), *args], capture_output=True, text=True, env=env, timeout=300)


def spec(cells, seconds=1, samples=2):
    return {
        "format": "jwtbench-spec/1",
        "language": "openssl",
        "suite": "primitive",
        "timing": {"warmup_seconds": 0.1, "samples": 5, "target_sample_seconds": 0.01, "max_cell_seconds": 30},
        "openssl": {"seconds": seconds, "samples": samples},
        "cells": cells,
    }


def bench(env, tmp_path, the_spec):
    spec_file, out = tmp_path / "spec.json", tmp_path / "blocks.csv"
    spec_file.write_text(json.dumps(the_spec))
    result = run(env, "bench", "--spec", str(spec_file), "--out", str(out))
    assert result.returncode == 0, result.stderr
    return raw_samples.read(out), result.stderr  # raises on any contract violation


def test_versions(openssl_env):
    result = run(openssl_env, "versions")
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    version = subprocess.run(["openssl", "version"], capture_output=True, text=True).stdout
    assert (found["language"], found["runtime"], found["implementation"]) == ("openssl", "openssl", "openssl")
    assert found["implementation_version"] in version and found["crypto_backend"] in version
    assert found["libraries"] == {"openssl": found["implementation_version"]}
    assert found["build"]["platform"] and found["build"]["cpuinfo"].startswith("OPENSSL_ia32cap=")


def test_bench_natively(openssl_env, tmp_path):
    signing_input = tmp_path / "jwt-signing-input.bin"
    signing_input.write_bytes(b"e" * 100)
    cells = [
        cell("digest", "SHA-256", 0, 256) | {"input": "bytes-256"},
        cell("encrypt", "AES-256-GCM", 256, 64) | {"input": "bytes-64"},
        {
            "operation": "mac",
            "algorithm": "HMAC-SHA256",
            "key_bits": 256,
            "input": "jwt-signing-input",
            "input_kind": "bytes",
            "input_file": str(signing_input),
        },
        cell("sign", "RSA-SHA256", 2048, 36) | {"input": "bytes-36"},
        cell("verify", "RSA-SHA256", 2048, 36) | {"input": "bytes-36"},
        cell("digest", "MD5", 0, 16) | {"input": "bytes-16"},
    ]
    rows, stderr = bench(openssl_env, tmp_path, spec(cells))
    by_cell = {}
    for row in rows:
        by_cell.setdefault((row["operation"], row["algorithm"]), []).append(row)
    expected = {
        ("digest", "SHA-256"): ("bytes-256", 256, 32),
        ("encrypt", "AES-256-GCM"): ("bytes-64", 64, 80),
        ("mac", "HMAC-SHA256"): ("jwt-signing-input", 100, 32),
        ("sign", "RSA-SHA256"): ("bytes-36", 36, 256),
        ("verify", "RSA-SHA256"): ("bytes-36", 36, 256),
    }
    for key, (input_name, input_bytes, output_bytes) in expected.items():
        cell_rows = by_cell[key]
        assert [r["status"] for r in cell_rows] == ["ok", "ok"], key
        assert [r["sample"] for r in cell_rows] == [1, 2], key
        for row in cell_rows:
            assert (row["language"], row["implementation"], row["suite"]) == ("openssl", "openssl", "primitive")
            assert (row["input"], row["input_bytes"], row["output_bytes"]) == (input_name, input_bytes, output_bytes)
            assert 0.9e9 <= row["elapsed_ns"] <= 1.5e9, row  # -seconds 1, wall clock
            assert row["iterations"] > 100, row
    (md5,) = by_cell[("digest", "MD5")]
    assert (md5["status"], md5["sample"], md5["iterations"], md5["elapsed_ns"]) == ("unsupported", 0, 0, 0)
    # interleaved rounds: round 1 of every cell before round 2 of any
    samples = [row["sample"] for row in rows if row["status"] == "ok"]
    assert samples == sorted(samples)
    assert "round 1/2" in stderr and "round 2/2" in stderr
    sign, verify = by_cell[("sign", "RSA-SHA256")][0], by_cell[("verify", "RSA-SHA256")][0]
    assert sign["elapsed_ns"] / sign["iterations"] > 5 * verify["elapsed_ns"] / verify["iterations"]


def test_a_failing_openssl_speed_fails_only_its_cells(openssl_env, tmp_path):
    """An openssl that breaks on -evp: the AES cell gets one failed row, the others are timed."""
    envs = tmp_path / "envs"
    shutil.copytree(openssl_env["JWTBENCH_ENVS"], envs)
    broken = tmp_path / "openssl-without-evp"
    broken.write_text(
        '#!/bin/sh\nfor a in "$@"; do [ "$a" = -evp ] && { echo "evp broken" >&2; exit 1; }; done\n'
        f'exec {shutil.which("openssl")} "$@"\n'
    )
    broken.chmod(0o755)
    tools = envs / "openssl" / "tools.env"
    tools.write_text(tools.read_text() + f"JWTBENCH_OPENSSL={broken}\n")
    cells = [
        cell("encrypt", "AES-256-GCM", 256, 16) | {"input": "bytes-16"},
        cell("digest", "SHA-512", 0, 16) | {"input": "bytes-16"},
    ]
    rows, stderr = bench(dict(openssl_env, JWTBENCH_ENVS=str(envs)), tmp_path, spec(cells, samples=1))
    assert [(r["algorithm"], r["status"], r["sample"]) for r in rows] == [
        ("AES-256-GCM", "failed", 0),
        ("SHA-512", "ok", 1),
    ]
    assert "evp broken" in stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["sign", "--alg", "HS256"], "no JWS driver"),
        (["verify"], "no JWS driver"),
        (["coldstart"], "no JWS driver"),
        (["bench", "--spec", "/nonexistent/spec.json", "--out", "x.csv"], "--spec /nonexistent/spec.json"),
        (["bench", "--spec", "SPEC", "--out", "/nonexistent/dir/out.csv"], "--out /nonexistent/dir/out.csv"),
        (["bench", "--spec", "NO_OPENSSL_BLOCK", "--out", "OUT"], "openssl.seconds"),
        (["bench", "--spec", "SPEC"], "--out"),
        (["bench", "--spec", "SPEC", "--out", "OUT", "--fast"], "--fast"),
    ],
)
def test_usage_errors_exit_2_naming_the_flag_or_file(openssl_env, tmp_path, args, message):
    good = spec([cell("digest", "SHA-256", 0, 16)])
    files = {"SPEC": good, "NO_OPENSSL_BLOCK": {**good, "openssl": {"samples": 2}}}
    for name, content in files.items():
        (tmp_path / f"{name}.json").write_text(json.dumps(content))
    args = [str(tmp_path / f"{a}.json") if a in files else str(tmp_path / "out.csv") if a == "OUT" else a for a in args]
    result = run(openssl_env, *args)
    assert result.returncode == 2
    assert message in result.stderr
