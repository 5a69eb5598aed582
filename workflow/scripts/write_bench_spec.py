"""Write the bench spec (the cells one driver times) for one language and suite."""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import variants  # noqa: E402


def jwt_cells(suite_config, key_dir, input_file):
    cells = []
    input_label = Path(input_file).stem
    for name in suite_config["algorithms"]:
        variant = variants.parse(name)
        private_key, public_key = variants.key_files(variant, key_dir)
        for operation in suite_config["operations"]:
            cells.append(
                {
                    "operation": operation,
                    "algorithm": variant.algorithm,
                    "key_bits": variant.key_bits,
                    "private_key": private_key,
                    "public_key": public_key,
                    "input": input_label,
                    "input_file": input_file,
                }
            )
    return cells


def main(language, suite, suite_config, timing, key_dir, input_file, out):
    spec = {
        "format": "jwtbench-spec/1",
        "language": language,
        "suite": suite,
        "timing": timing,
        "cells": jwt_cells(suite_config, key_dir, input_file),
    }
    Path(out).write_text(json.dumps(spec, indent=2) + "\n")


def run_job(job):
    key_dir = str(Path(job.input.key_manifest).parent.resolve())
    with open(job.log[0], "w") as log:
        main(job.wildcards.language, job.wildcards.suite, job.params.suite_config,
             job.params.timing, key_dir, job.params.input_file, job.output.spec)  # fmt: skip
        print(f"wrote {job.output.spec}", file=log)
