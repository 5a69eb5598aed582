"""Write the bench spec (the cells one driver times) for one language, suite and input.

The cells of each suite are in workflow/scripts/README.md: `jwt` times every operation
and algorithm on a claims file or on a dataset's records; `tokensize` signs every record
of a dataset with each algorithm; `transfer` sends a dataset's whole body per algorithm;
`hash` times hash functions on generated messages; `percall` is seed 001's own method.
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import variants  # noqa: E402

OPERATIONS = {"tokensize": ["sign"], "transfer": ["request-response"]}


def cells(suite, suite_config, key_dir, input_name, input_file, input_kind="claims"):
    operations = suite_config.get("operations") or OPERATIONS[suite]
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


HASH_KNOWN_ANSWERS = Path(__file__).resolve().parents[2] / "data" / "vectors" / "hash-known-answers.json"


def hash_cells(language, suite_config, input_name):
    """Suite hash: every implementation x algorithm on each case (plus `generate` for cases
    built per call), or on each length of the sweep (workflow/scripts/README.md)."""
    vectors = json.loads(HASH_KNOWN_ANSWERS.read_text())["vectors"]
    known = {vector["algorithm"]: {"message": vector["message"], "digest_hex": vector["digest_hex"]} for vector in vectors}
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
                    made.append({"operation": "hex-digest", "algorithm": algorithm, "key_bits": 0, **chosen,
                                 **message, "known_answer": known[algorithm]})  # fmt: skip
        else:
            for length in suite_config["lengths"]:
                for algorithm in suite_config["algorithms"]:
                    made.append({"operation": "digest", "algorithm": algorithm, "key_bits": 0, **chosen,
                                 "input": f"bytes-{length}", "message_bytes": length,
                                 "known_answer": known[algorithm]})  # fmt: skip
    return made


def main(language, suite, suite_config, timing, key_dir, input_file, out, input_name=None, input_kind="claims"):
    """Write the spec to `out`; input_name defaults to the input file's stem (claims-001)."""
    if suite == "hash":
        made = hash_cells(language, suite_config, input_name)
    else:
        input_name = input_name or Path(input_file).stem
        made = cells(suite, suite_config, key_dir, input_name, input_file, input_kind)
    spec = {
        "format": "jwtbench-spec/1",
        "language": language,
        "suite": suite,
        "timing": timing,
        "cells": made,
    }
    if suite == "percall":
        spec["percall"] = {name: suite_config[name] for name in ("warmup_calls", "calls")}
    if suite == "transfer":
        spec["transfer"] = {
            name: suite_config[name] for name in ("trials", "warmup_trials", "request_timeout_seconds")
        }
    Path(out).write_text(json.dumps(spec, indent=2) + "\n")


def run_job(job):
    key_dir = str(Path(job.input.key_manifest).parent.resolve())
    with open(job.log[0], "w") as log:
        main(job.wildcards.language, job.wildcards.suite, job.params.suite_config, job.params.timing,
             key_dir, job.params.input_file and str(Path(job.params.input_file).resolve()), job.output.spec,
             job.wildcards.input, job.params.input_kind)  # fmt: skip
        print(f"wrote {job.output.spec}", file=log)
