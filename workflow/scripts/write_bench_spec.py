"""Write the bench spec (the cells one driver times) for one language, suite and input.

The cells of each suite are in workflow/scripts/README.md: `jwt` times every operation
and algorithm on a claims file or on a dataset's records; `tokensize` signs every record
of a dataset with each algorithm; `transfer` sends a dataset's whole body per algorithm.
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


def main(language, suite, suite_config, timing, key_dir, input_file, out, input_name=None, input_kind="claims"):
    """Write the spec to `out`; input_name defaults to the input file's stem (claims-001)."""
    spec = {
        "format": "jwtbench-spec/1",
        "language": language,
        "suite": suite,
        "timing": timing,
        "cells": cells(suite, suite_config, key_dir, input_name or Path(input_file).stem, input_file, input_kind),
    }
    if suite == "transfer":
        spec["transfer"] = {
            name: suite_config[name] for name in ("trials", "warmup_trials", "request_timeout_seconds")
        }
    Path(out).write_text(json.dumps(spec, indent=2) + "\n")


def run_job(job):
    key_dir = str(Path(job.input.key_manifest).parent.resolve())
    with open(job.log[0], "w") as log:
        main(job.wildcards.language, job.wildcards.suite, job.params.suite_config, job.params.timing,
             key_dir, str(Path(job.params.input_file).resolve()), job.output.spec,
             job.wildcards.input, job.params.input_kind)  # fmt: skip
        print(f"wrote {job.output.spec}", file=log)
