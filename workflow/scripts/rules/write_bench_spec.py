"""Write the bench spec (the cells one driver times) for one language, suite and input.

What each suite is comes from the registry (workflow/suites.yaml, jwtbench/registry.py):
how its cells are made (`cells`), which of its settings the spec carries, and from the
seeds' registry the ratios its cells are paired by. The cells of each suite are in
workflow/scripts/README.md: `jwt` times every operation and algorithm on a claims file or
on a dataset's records; `tokensize` signs every record of a dataset with each algorithm;
`transfer` sends a dataset's whole body per algorithm; `hash` times hash functions on
generated messages; `percall` is seed 001's own method; `primitive` times raw primitives
at openssl speed's block sizes (and, for language openssl, openssl speed itself); `keygen`
is seed 004's keygen+sign+verify.
"""

import base64
import json
from pathlib import Path

from jwtbench import config_validation, registry, transfer_processes, variants


def cells(suite, suite_config, key_dir, input_name, input_file, input_kind="claims", operations=()):
    """A `grid` suite's cells: every algorithm of its config times every operation (its
    config's `operations`, else the registry's fixed list)."""
    operations = suite_config.get("operations") or list(operations)
    made = []
    for name in suite_config["algorithms"]:
        variant = variants.parse(name)
        private_key, public_key = variants.key_files(variant, key_dir)
        for operation in operations:
            made.append(
                {
                    "operation": operation,
                    "algorithm": variant.algorithm,
                    "key_bits": variant.key_bits,
                    "private_key": private_key,
                    "public_key": public_key,
                    "input": input_name,
                    "input_file": input_file,
                    "input_kind": input_kind,
                }
            )
    return made


HASH_KNOWN_ANSWERS = Path(__file__).resolve().parents[3] / "data" / "vectors" / "hash-known-answers.json"


def hash_cells(language, suite_config, input_name):
    """Suite hash: every implementation x algorithm on each case (plus `generate` for cases
    built per call), or on each length of the sweep (workflow/scripts/README.md)."""
    vectors = json.loads(HASH_KNOWN_ANSWERS.read_text())["vectors"]
    known = {
        vector["algorithm"]: {"message": vector["message"], "digest_hex": vector["digest_hex"]} for vector in vectors
    }
    implementations = suite_config["implementations"].get(language, [None])
    made = []
    for implementation in implementations:
        chosen = {} if implementation is None else {"implementation": implementation}
        if input_name == "cases":
            for case in suite_config["cases"]:
                message = {"input": case["name"], "message": case["message"]}
                if {"fresh-uuid", "time-ms"} & set(case["message"]):
                    made.append({"operation": "generate", "algorithm": "none", "key_bits": 0, **chosen, **message})
                for algorithm in suite_config["algorithms"]:
                    made.append(
                        {
                            "operation": "hex-digest",
                            "algorithm": algorithm,
                            "key_bits": 0,
                            **chosen,
                            **message,
                            "known_answer": known[algorithm],
                        }
                    )
        else:
            for length in suite_config["lengths"]:
                for algorithm in suite_config["algorithms"]:
                    made.append(
                        {
                            "operation": "digest",
                            "algorithm": algorithm,
                            "key_bits": 0,
                            **chosen,
                            "input": f"bytes-{length}",
                            "message_bytes": length,
                            "known_answer": known[algorithm],
                        }
                    )
    return made


PRIMITIVE_KNOWN_ANSWERS = HASH_KNOWN_ANSWERS.parent / "primitive-known-answers.json"

# Suite primitive: config name -> (operations, cell algorithm, key_bits, key name or None).
PRIMITIVES = {
    "SHA-256": (["digest"], "SHA-256", 0, None),
    "SHA-512": (["digest"], "SHA-512", 0, None),
    "HMAC-SHA256": (["mac"], "HMAC-SHA256", 256, "hmac-256"),
    "AES-256-GCM": (["encrypt"], "AES-256-GCM", 256, "hmac-256"),
    "RSA-2048": (["sign", "verify"], "RSA-SHA256", 2048, "rsa-2048"),
    "ECDSA-P256": (["sign", "verify"], "ECDSA-SHA256", 256, "ec-p256"),
    "Ed25519": (["sign", "verify"], "Ed25519", 256, "ed25519"),
}
# The primitives also timed on the JWS signing input (the report's JWT overhead).
ON_SIGNING_INPUT = ("HMAC-SHA256", "RSA-2048")
JWT_SIGNING_INPUT = "jwt-signing-input"

# Suite keygen: config name -> (family, key_bits, cell algorithm, run key name). SHA-256 up
# to 128-bit security, SHA-512 above, as seed 004.
KEYGEN_KEYS = {
    "RSA-2048": ("RSA", 2048, "RSA-SHA256", "rsa-2048"),
    "RSA-3072": ("RSA", 3072, "RSA-SHA256", "rsa-3072"),
    "RSA-7680": ("RSA", 7680, "RSA-SHA512", "rsa-7680"),
    "ECDSA-P256": ("ECDSA", 256, "ECDSA-SHA256", "ec-p256"),
    "ECDSA-P384": ("ECDSA", 384, "ECDSA-SHA512", "ec-p384"),
    "ECDSA-P521": ("ECDSA", 521, "ECDSA-SHA512", "ec-p521"),
}


def spec_key_names(entry, suite_config):
    """The key names a suite's cells use (`entry`: its registry entry): a grid suite's
    algorithms' (suite jwt's on the datasets come with its variants, RunJobs.jwt_variants),
    or its own maker's."""
    if entry.cells == "grid":
        return sorted({variants.parse(name).key_name for name in suite_config["algorithms"]})
    if entry.cells == "primitive":
        return primitive_key_names(suite_config)
    if entry.cells == "keygen":
        return keygen_key_names(suite_config)
    return []


def primitive_key_names(suite_config):
    return sorted({PRIMITIVES[name][3] for name in suite_config["algorithms"]} - {None})


def keygen_key_names(suite_config):
    return sorted(KEYGEN_KEYS[name][3] for name in suite_config["keys"])


def primitive_cells(language, suite_config, key_dir, signing_input, with_signing_input):
    """Suite primitive: each primitive at every block size (signatures on a fixed-size
    message), then HMAC and RSA sign/verify on the JWS signing input when asked."""
    vectors = json.loads(PRIMITIVE_KNOWN_ANSWERS.read_text())["vectors"]
    known = {(v["operation"], v["algorithm"]): {k: v[k] for k in v if k.endswith("_hex")} for v in vectors}
    implementations = suite_config["implementations"].get(language, [None])
    made = []
    for implementation in implementations:
        chosen = {} if implementation is None else {"implementation": implementation}
        for name in suite_config["algorithms"]:
            operations, algorithm, bits, key_name = PRIMITIVES[name]
            keys = dict(zip(("private_key", "public_key"), variants.key_pair(key_name, key_dir))) if key_name else {}
            sizes = (
                suite_config["block_sizes"]
                if bits == 0 or name in ("HMAC-SHA256", "AES-256-GCM")
                else [suite_config["signature_message_bytes"]]
            )
            messages = [{"input": f"bytes-{size}", "message_bytes": size} for size in sizes]
            if with_signing_input and name in ON_SIGNING_INPUT:
                messages.append({"input": JWT_SIGNING_INPUT, "input_file": signing_input, "input_kind": "bytes"})
            for message in messages:
                for operation in operations:
                    cell = {
                        "operation": operation,
                        "algorithm": algorithm,
                        "key_bits": bits,
                        **chosen,
                        **keys,
                        **message,
                    }
                    if (operation, algorithm) in known:
                        cell["known_answer"] = known[(operation, algorithm)]
                    made.append(cell)
    return made


def keygen_cells(language, suite_config, key_dir):
    """Suite keygen: per implementation and key, key generation alone, then (when
    `composite`) the seed's keygen+sign+verify per message size, then sign and verify with
    the run's key per message size."""
    implementations = suite_config["implementations"].get(language, [None])
    made = []
    for implementation in implementations:
        chosen = {} if implementation is None else {"implementation": implementation}
        for name in suite_config["keys"]:
            family, bits, algorithm, key_name = KEYGEN_KEYS[name]
            private_key, public_key = variants.key_pair(key_name, key_dir)
            common = {
                "algorithm": algorithm,
                "family": family,
                "key_bits": bits,
                **chosen,
                "private_key": private_key,
                "public_key": public_key,
            }
            made.append({"operation": "keygen", **common, "input": "keypair", "message_bytes": 0})
            messages = [{"input": f"msg-{size}", "message_bytes": size} for size in suite_config["message_sizes"]]
            if suite_config["composite"]:
                made += [{"operation": "keygen+sign+verify", **common, **message} for message in messages]
            made += [
                {"operation": operation, **common, **message}
                for message in messages
                for operation in ("sign", "verify")
            ]
    return made


def jws_signing_input(claims_file):
    """The JWS signing input of a claims file under an HS256 header, as a JWT library
    builds it: BASE64URL(header) "." BASE64URL(claims as compact JSON, keys in file order)."""
    claims = json.loads(Path(claims_file).read_text())

    def encoded(value):
        text = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()
        return base64.urlsafe_b64encode(text).rstrip(b"=")

    return encoded({"alg": "HS256", "typ": "JWT"}) + b"." + encoded(claims)


def write_signing_input(job):
    data = jws_signing_input(job.input.claims)
    Path(job.output[0]).write_bytes(data)
    with open(job.log[0], "w") as log:
        print(f"wrote {job.output[0]}: {len(data)} bytes", file=log)


def harness_cells():
    """Suite harness: the driver's loop around a constant-time comparison of two equal
    32-byte buffers, and around a call that does nothing (workflow/scripts/README.md).
    The trivial call comes first: a JIT that has seen only the empty call in the loop
    removes the loop altogether (java did: 10^9 calls in a microsecond on 2026-11-26)."""
    return [
        {"operation": operation, "algorithm": "none", "key_bits": 0, "input": "none"}
        for operation in ("trivial", "empty")
    ]


def make_cells(language, suite, suite_config, key_dir, input_name, input_file, input_kind, jws, suites=None):
    """The cells of one spec, by the maker the registry names for the suite."""
    entry = (suites or registry.load().suites)[suite]
    if entry.cells == "hash":
        return hash_cells(language, suite_config, input_name)
    if entry.cells == "primitive":
        with_signing_input = jws and suite_config["jwt_signing_input"]
        return primitive_cells(language, suite_config, key_dir, input_file, with_signing_input)
    if entry.cells == "keygen":
        return keygen_cells(language, suite_config, key_dir)
    if entry.cells == "harness":
        return harness_cells()
    if entry.cells == "grid":
        return cells(suite, suite_config, key_dir, input_name, input_file, input_kind, entry.operations)
    raise registry.RegistryError(f"suites.{suite}.cells: no maker {entry.cells!r} in write_bench_spec.py")


def main(
    language,
    suite,
    suite_config,
    timing,
    key_dir,
    input_file,
    out,
    input_name=None,
    input_kind="claims",
    jws=True,
    known=None,
):
    """Write the spec to `out`; input_name defaults to the input file's stem (claims-001).
    For suite primitive, input_file is the JWS signing input (timed only when `jws`).
    `known`: the registry (default: this checkout's)."""
    known = known or registry.load()
    input_name = input_name or (input_file and Path(input_file).stem)
    made = make_cells(language, suite, suite_config, key_dir, input_name, input_file, input_kind, jws, known.suites)
    spec = {
        "format": "jwtbench-spec/1",
        "language": language,
        "suite": suite,
        "timing": timing,
        "pairs": known.pairs(suite, made),
        "cells": made,
    }
    if suite == "primitive" and not jws:
        # openssl speed's own sampling: one run of S seconds per sample (its driver's README).
        spec["openssl"] = dict(suite_config["openssl"])
    settings = known.suites[suite].spec_settings
    if settings:
        spec[suite] = {name: suite_config[name] for name in settings}
    Path(out).write_text(json.dumps(spec, indent=2) + "\n")


def cell_input(suite, job_input):
    """The input a job's cells name: the dataset of one of suite transfer's processes
    ("<dataset>.p<N>", transfer_processes), so that its processes' rows are one cell's."""
    if registry.DATASET_PROCESSES in registry.load().suites[suite].inputs:
        return transfer_processes.dataset_of(job_input)
    return job_input


def run_job(job):
    key_dir = str(Path(job.input.key_manifest).parent.resolve())
    with open(job.log[0], "w") as log:
        main(
            config_validation.language_of(job.wildcards.driver),
            job.wildcards.suite,
            job.params.suite_config,
            job.params.timing,
            key_dir,
            job.params.input_file and str(Path(job.params.input_file).resolve()),
            job.output.spec,
            cell_input(job.wildcards.suite, job.wildcards.input),
            job.params.input_kind,
            job.params.jws,
        )
        print(f"wrote {job.output.spec}", file=log)
