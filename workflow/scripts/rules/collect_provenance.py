"""Everything about the run as a whole: host, software versions, git, config, timings.

Written to results/provenance.json; the report's colophon is made from it.
"""

import datetime
import hashlib
import json
import platform
from pathlib import Path

import snakemake

from jwtbench import config_validation
from jwtbench.machine_facts import git_output, host, output_of


def git(source):
    commit = git_output(source, "rev-parse", "HEAD")
    if commit is None:
        return {"commit": None, "dirty": None}
    return {"commit": commit, "dirty": bool(git_output(source, "status", "--porcelain", "--untracked-files=no"))}


def overlapping(jobs):
    """Pairs of benchmark jobs whose run times overlapped (none, unless execution.lanes)."""
    spans = sorted((job["started"], job["ended"], f"{job['language']}/{job['suite']}") for job in jobs)
    return [[first[2], second[2]] for i, first in enumerate(spans) for second in spans[i + 1 :] if second[0] < first[1]]


def engine_facts(engine):
    """The engine that ran the drivers and why; a native fallback's warning is kept."""
    facts = {key: engine[key] for key in ("name", "requested", "reason", "version", "warning")}
    facts["settings"] = (
        str(Path(engine["settings"]).relative_to(Path(__file__).resolve().parents[3]))
        if engine.get("settings")
        else None
    )
    return facts


DATASET_FACTS = (
    "title",
    "source",
    "synthetic",
    "path",
    "generator",
    "seed",
    "kaggle",
    "bytes",
    "sha256",
    "expected_bytes",
    "expected_sha256",
    "records",
    "record_bytes",
    "records_per_cell",
    "tokensize_records",
    "warnings",
)


def dataset_facts(path):
    """Where a dataset came from (real or synthetic), its checksum and size: results/data/<name>/dataset.json."""
    facts = json.loads(Path(path).read_text())
    return {key: facts.get(key) for key in DATASET_FACTS}


def run_job(snake):
    config = snake.params.config
    datasets = {Path(p).parent.name: p for p in snake.input.datasets}
    config_text = json.dumps(config, sort_keys=True, separators=(",", ":"))
    # A job's noise record (one row per half second) is results/noise.csv's, not provenance's.
    jobs = [
        {key: value for key, value in json.loads(Path(p).read_text()).items() if key != "noise"}
        for p in snake.input.metadata
    ]
    started = min(job["started"] for job in jobs)
    ended = max(job["ended"] for job in jobs)
    wall = datetime.datetime.fromisoformat(ended) - datetime.datetime.fromisoformat(started)
    # Each driver's versions, by driver name (a language, or "<language>/<library>").
    languages = {
        config_validation.driver_of(p, config_validation.VERSIONS_DIR): json.loads(Path(p).read_text())
        for p in snake.input.versions
    }
    provenance = {
        "format": "jwtbench-provenance/1",
        "run": {
            "started": started,
            "ended": ended,
            "wall_seconds": wall.total_seconds(),
            "wall_time_covers": "first benchmark start to last benchmark end",
            "overlapping_benchmarks": overlapping(jobs),
            "collected": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "config_sha256": hashlib.sha256(config_text.encode()).hexdigest(),
            "execution_mode": snake.params.engine["name"],
            "cpus": config["execution"]["cpus"],
            "lanes": config["execution"]["lanes"],
            "git": git(snake.params.source),
            "config": config,
        },
        "host": {**host(), "cycle_counter": json.loads(Path(snake.input.cycle_counter).read_text())},
        "engine": engine_facts(snake.params.engine),
        "images": {Path(p).stem: json.loads(Path(p).read_text()) for p in snake.input.images},
        "languages": languages,
        "jobs": jobs,
        "failed_jobs": [
            f"{job['language']}/{job['suite']}/{job.get('input', '')}: {job['failure']}"
            for job in jobs
            if job.get("failure")
        ],
        "datasets": {name: dataset_facts(path) for name, path in datasets.items()},
        "tools": {
            "snakemake": snakemake.__version__,
            "python": platform.python_version(),
            "hyperfine": output_of(["hyperfine", "--version"]),
            "taskset": output_of(["taskset", "--version"]),
        },
    }
    Path(snake.output[0]).write_text(json.dumps(provenance, indent=2) + "\n")
    with open(snake.log[0], "w") as log:
        print(f"provenance of {len(jobs)} benchmark jobs, {len(languages)} languages", file=log)
