"""Everything about the run as a whole: host, software versions, git, config, timings, and
the licence of every pinned dependency (dependency_licences.py: `dependencies`).

Written to results/provenance.json; the report's colophon is made from it.
"""

import datetime
import hashlib
import json
import platform
import sys
import tempfile
from collections import Counter
from pathlib import Path

import snakemake

from jwtbench import config_validation, container_engine, dependency_licences, registry
from jwtbench.machine_facts import git_output, host, output_of
from jwtbench.rules.native_env import IMAGE_ENVS


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


def copy_out_of_image(engine, tag, name, pins, into):
    """Copies what the licence readers read out of image `tag` into `into`: the environment
    (into/environment, when envs/<name>/ pins one), dpkg's status and /usr/share/doc, laid out
    as in the image. Returns why it could not, or None."""
    created = engine.run("create", tag, timeout=120)
    if created.returncode != 0:
        return f"cannot create a container of {tag}: {created.stderr.strip()}"
    container = created.stdout.strip().splitlines()[-1]
    wanted = {"/var/lib/dpkg/status": into / "var/lib/dpkg/status", "/usr/share/doc": into / "usr/share/doc"}
    if pins.is_dir():
        wanted[f"{IMAGE_ENVS}/{name}"] = into / "environment"
    try:
        for inside, outside in wanted.items():
            outside.parent.mkdir(parents=True, exist_ok=True)
            copied = engine.run("cp", f"{container}:{inside}", str(outside), timeout=600)
            if copied.returncode != 0:
                return f"cannot copy {inside} out of {tag}: {copied.stderr.strip()}"
    finally:
        engine.run("rm", "--force", container, timeout=120)
    return None


def environment_licences(name, source, environment, root):
    """(every pinned dependency of environment `name`, why it could not be read or None): its
    envs/<name>/ pins read in the folder `environment`, the Debian packages its Dockerfile pins
    in the filesystem at `root`. An unreadable record is the provenance's to show, not a reason
    to fail the run."""
    pins = source / "envs" / name
    dockerfile = source / "containers" / name / "Dockerfile"
    try:
        found = dependency_licences.environment_dependencies(environment, pins) if pins.is_dir() else []
        if dockerfile.is_file():
            found += dependency_licences.debian_dependencies(root, dependency_licences.debian_pins(dockerfile))
    except (OSError, ValueError, KeyError) as error:
        return [], f"{type(error).__name__}: {error}"
    return found, None


def dependencies(names, image_tags, engine, source):
    """([every pinned dependency], {environment: where it was read, its counts}) of the run's
    languages and the report's image (copied out of their images under a container engine;
    natively .envs/<language> and the host's Debian packages), of the pipeline's own venv and,
    when this run installed it, of the Kaggle client's."""
    found, environments = [], {}

    def record(name, read_from, read):
        entries, error = read
        found.extend({"environment": name, **entry.as_dict()} for entry in entries)
        environments[name] = {
            "read_from": read_from,
            "packages": dict(Counter(entry.ecosystem for entry in entries)),
            "unknown": sum(entry.licence == dependency_licences.UNKNOWN for entry in entries),
            **({"error": error} if error else {}),
        }

    for name in names:
        tag = image_tags.get(name)
        if tag is None:
            read = environment_licences(name, source, Path(".envs") / name, Path("/"))
            record(name, f".envs/{name} and the host's Debian packages", read)
            continue
        with tempfile.TemporaryDirectory(prefix=f"jwtbench-licences-{name}-") as copy:
            error = copy_out_of_image(engine, tag, name, source / "envs" / name, Path(copy))
            read = ([], error) if error else environment_licences(name, source, Path(copy) / "environment", Path(copy))
            inside = f"{IMAGE_ENVS}/{name}, " if (source / "envs" / name).is_dir() else ""
            record(name, f"image {tag} ({inside}its dpkg status and /usr/share/doc)", read)
    venv = Path(sys.prefix)
    record("pipeline", f"the pipeline's venv {venv}", environment_licences("pipeline", source, venv, Path("/")))
    kaggle = Path(".envs") / "kaggle"
    if (kaggle / ".installed").is_file():
        record("kaggle", str(kaggle), environment_licences("kaggle", source, kaggle, Path("/")))
    else:
        environments["kaggle"] = {"read_from": None, "note": "not installed in this run"}
    return found, environments


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
    # The images' tags (the base's record has none); none natively.
    image_tags = {Path(p).stem: json.loads(Path(p).read_text()).get("tag") for p in snake.input.images}
    packages, environments = dependencies(
        [*config["languages"], "report"],
        image_tags,
        container_engine.Engine.from_dict(snake.params.engine),
        Path(snake.params.source),
    )
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
        "dependencies": packages,
        "dependency_environments": environments,
        # What the suites and seeds are (workflow/suites.yaml, seeds.yaml): the report reads
        # the seeds' tables and homes from here.
        "registry": registry.load().as_record(),
    }
    Path(snake.output[0]).write_text(json.dumps(provenance, indent=2) + "\n")
    with open(snake.log[0], "w") as log:
        print(f"provenance of {len(jobs)} benchmark jobs, {len(languages)} languages", file=log)
        for name, facts in environments.items():
            print(f"dependencies of {name}: {json.dumps(facts)}", file=log)
