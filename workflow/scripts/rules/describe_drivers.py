"""One row per driver of the run (results/drivers.csv, rule describe_drivers): what the
report's "Which library?" section tabulates and how every table names a driver.

A driver is a language's own (named by the language: `node`) or a further library of it
(`node/jose`, config libraries); both are labelled "<language>/<library>" in results and
figures. The facts come from the driver's `versions` (as run: natively or in its image)
and its driver.yaml: the algorithms it lacks, what its verify checks and lacks.
"""

import json
from pathlib import Path

from jwtbench import result_tables

COLUMNS = result_tables.columns("drivers.schema.yaml")


def rows(versions, manifests):
    """versions: {driver: its `versions` JSON}; manifests: {driver: its driver.yaml, as
    config_validation.driver_manifest reads it}."""
    found = []
    for name, manifest in manifests.items():
        version = versions[name]
        verify = manifest["verify"]
        found.append(
            {
                "driver": name,
                "label": f"{version['language']}/{manifest['library']}",
                "language": version["language"],
                "library": manifest["library"],
                "version": version["implementation_version"],
                "own": str("/" not in name).lower(),
                "runtime": version["runtime"],
                "runtime_version": version["runtime_version"],
                "crypto_backend": version["crypto_backend"],
                "suites": " ".join(manifest["suites"]),
                "unsupported": " ".join(manifest["unsupported"]),
                "missing_operations": " ".join(manifest["unsupported_operations"]),
                "validates": " ".join(verify["validates"]),
                "lacking": " ".join(verify["lacks"]),
                "lacks": "; ".join(f"{item}: {reason}" for item, reason in verify["lacks"].items()),
            }
        )
    return found


def run_job(job):
    versions = {
        name: json.loads(Path(path).read_text()) for name, path in zip(job.params.manifests, job.input.versions)
    }
    table = rows(versions, job.params.manifests)
    result_tables.write_csv(job.output[0], COLUMNS, table)
    with open(job.log[0], "w") as log:
        print(f"{job.output[0]}: {len(table)} drivers", file=log)
