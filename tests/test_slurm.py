"""A small config end to end under a real SLURM (workflow/profiles/slurm).

A one-node cluster (tests/slurm_cluster.py: munged, slurmctld and slurmd from Debian's
slurm-wlm 22.05, on loopback) runs `snakemake --profile workflow/profiles/slurm` with
config/smoke.yaml narrowed by tests/data/slurm-tiny.yaml (two languages, suite jwt on
the claims file, every benchmark rule) in a fresh working directory: image builds,
checks, benchmarks, aggregation, the report and the bundle, every job inside a SLURM
job. What it tests is the executor path; the local smoke run covers every language and
suite, and its bundle, narrowed the same way, has this run's shape. The profile groups
the jobs (setup, checks, benchmarks, results, publish): one SLURM job per
rule cost about 9 s of start plus a status-check delay each (43 minutes for the whole
smoke config on our 2-core VM, against about 17 locally). The cluster keeps every
finished job for an hour (MinJobAge), so after the run `squeue` still lists each job with
its start and end; each job's SLURM log names the rules it ran. The tests check that
every job of the run ran under SLURM and that the benchmarks had the node to themselves.

It runs in the background, beside the local smoke run (conftest's background_runs): the
machine-wide benchmark lock keeps the two runs' benchmarks apart.

`./jwtbench test` installs slurm-wlm and munge; the daemons need root (slurmd launches
jobs as their user, munged runs as user munge).
"""

import csv
import json
import os
import re
import subprocess
from collections import Counter
from datetime import datetime
from pathlib import Path

import pytest
import yaml
from conftest import JWS_LANGUAGES, REPO, SMOKE_CONFIG, SMOKE_IN_TESTS, SNAKEFILE, SNAKEMAKE, snakemake
from slurm_cluster import SlurmClusterError, missing_daemons, slurm_cluster, wait_for

from jwtbench.rules import bundles

PROFILE = REPO / "workflow" / "profiles" / "slurm"
SLURM_CONFIG = REPO / "tests" / "data" / "slurm-tiny.yaml"
SLURM_LANGUAGES = yaml.safe_load(SLURM_CONFIG.read_text())["languages"]
# What the SLURM run times and reproduces (its config's suites and coldstart; seed 001
# is the seed of suite jwt on the claims file).
SLURM_SUITES = ("jwt", "coldstart")
SLURM_SEEDS = ("seed001",)
# The rules with resources bench=1: the SLURM jobs running them ask for a whole node
# (--exclusive) and run nothing else.
BENCHMARK_RULES = (
    "run_benchmark",
    "run_coldstart",
    "compare_native",
    "crosscheck_harness",
    "measure_cycle_counter",
    "confirm_crosscheck",
)
# Rules the submitting Snakemake runs itself (`localrules:`), and the target rule.
LOCAL_RULES = ("write_bench_spec", "all")
SLURM_RUN_TIMEOUT = 20 * 60
FINISHED_JOBS_KEPT_SECONDS = 3600


def parse_time(text):
    """squeue's ISO time, or None for a job that has not started (N/A)."""
    return None if text in ("N/A", "Unknown") else datetime.fromisoformat(text)


def slurm_jobs(env):
    """Every job the cluster knows (running or finished within MinJobAge): a dict per job
    with its id, the comment the executor sets (rule_<rule or group>...), state,
    exclusivity, start and end."""
    result = subprocess.run(
        ["squeue", "--states=all", "--noheader", "--format=%i|%k|%T|%h|%S|%e"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    jobs = []
    for line in result.stdout.splitlines():
        job_id, comment, state, oversubscribe, start, end = line.split("|")
        jobs.append(
            {
                "id": job_id,
                "comment": comment,
                "state": state,
                "exclusive": oversubscribe == "NO",
                "start": parse_time(start),
                "end": parse_time(end),
            }
        )
    return jobs


def rules_run(slurm_log):
    """{rule: how many of its jobs ran} in one SLURM job, from its log: each job runs in
    the job's step as a `localrule` of the Snakemake there."""
    return Counter(re.findall(r"^\s*localrule (\w+):$", Path(slurm_log).read_text(), re.MULTILINE))


def run_under_slurm(workdir, cluster_dir, native_envs=None):
    """The SLURM config through the SLURM profile in `workdir`, on a cluster started in
    `cluster_dir` and stopped afterwards; the run's output and the cluster's record of
    every job, each with the rules it ran. Raises (AssertionError, SlurmClusterError) on
    anything that went wrong. `native_envs`: a directory of native environments already
    installed (the local smoke run's .envs), linked in as `.envs` so the run uses them as
    it uses the images already in the engine's store, instead of building them again
    (rust's alone takes minutes)."""
    missing = missing_daemons()
    assert not missing, f"SLURM test needs {missing} (./jwtbench test installs slurm-wlm and munge)"
    assert os.geteuid() == 0, "the SLURM test starts slurmd and munged: run it as root"
    if native_envs is not None:
        (Path(workdir) / ".envs").symlink_to(Path(native_envs).resolve(), target_is_directory=True)
    with slurm_cluster(cluster_dir, min_job_age=FINISHED_JOBS_KEPT_SECONDS) as cluster:
        # Under --strict, as every run of the test suite (conftest.snakemake).
        env = {key: value for key, value in cluster.env.items() if not key.startswith("KAGGLE_")}
        env["JWTBENCH_STRICT"] = "1"
        # A status check every 2 s rather than the profile's cluster-friendly 10 s: this
        # cluster is ours, and its jobs are short.
        command = [
            SNAKEMAKE,
            "--profile",
            str(PROFILE),
            "-s",
            str(SNAKEFILE),
            "-d",
            str(workdir),
            "--configfile",
            str(SMOKE_CONFIG),
            str(SMOKE_IN_TESTS),
            str(SLURM_CONFIG),
            "--seconds-between-status-checks",
            "2",
        ]
        result = subprocess.run(command, capture_output=True, text=True, timeout=SLURM_RUN_TIMEOUT, env=env)
        output = result.stdout + result.stderr
        (Path(workdir) / "slurm-smoke-output.txt").write_text(output)
        assert result.returncode == 0, output[-5000:]
        jobs = {job["id"]: job for job in slurm_jobs(cluster.env)}
    for job_id, log in re.findall(
        r"has been submitted with SLURM jobid (\d+) \(log: (.+?)\)\.?$", output, re.MULTILINE
    ):
        assert job_id in jobs, f"SLURM job {job_id} was submitted but squeue does not know it"
        assert Path(log).is_file(), f"SLURM job {job_id}: no log at {log}"
        jobs[job_id].update(log=Path(log), rules=rules_run(log))
    return {"workdir": Path(workdir), "output": output, "jobs": list(jobs.values())}


@pytest.fixture(scope="module")
def slurm_smoke(background_runs):
    """The SLURM run, started in the background beside the local smoke run (conftest's
    background_runs), waited for here."""
    return background_runs["slurm"].result()


def job_stats(output):
    """{rule: job count} from the `Job stats` table the submitting Snakemake prints."""
    table = output[output.index("Job stats:") :].split("\ntotal", 1)[0]
    return {rule: int(count) for rule, count in re.findall(r"^(\w+)\s+(\d+)$", table, re.MULTILINE)}


def test_every_job_of_the_run_ran_in_a_slurm_job(slurm_smoke):
    """Each submitted SLURM job completed, and every job of the run (but the submitter's
    own local rules) ran inside one: the rules their logs name add up to the run's job
    stats. Grouped, the whole run needs only a handful of SLURM jobs."""
    submitted = [job for job in slurm_smoke["jobs"] if "rules" in job]
    assert submitted and all(job["state"] == "COMPLETED" for job in submitted), submitted
    ran = sum((job["rules"] for job in submitted), Counter())
    expected = {rule: n for rule, n in job_stats(slurm_smoke["output"]).items() if rule not in LOCAL_RULES}
    assert dict(ran) == expected
    assert {"build_image", "check_driver", "run_benchmark", "render_report", "write_bundle"} <= set(ran)
    assert len(submitted) <= 10, [job["comment"] for job in submitted]
    assert re.search(r"Using profiles? \S*workflow/profiles/slurm", slurm_smoke["output"])


def test_each_benchmark_had_the_node_to_itself(slurm_smoke):
    """The SLURM jobs that ran benchmarks ran nothing else, were submitted --exclusive,
    and no other job of the run overlapped one in time (SLURM reports whole seconds, so a
    job may start the second another ends)."""
    jobs = slurm_smoke["jobs"]
    benchmarks = [job for job in jobs if set(job.get("rules", ())) & set(BENCHMARK_RULES)]
    assert set().union(*(job["rules"] for job in benchmarks)) == set(BENCHMARK_RULES)
    for benchmark in benchmarks:
        assert set(benchmark["rules"]) <= set(BENCHMARK_RULES), benchmark["rules"]
        assert benchmark["exclusive"], benchmark
        overlapping = [
            other["comment"]
            for other in jobs
            if other is not benchmark
            and other["start"]
            and other["end"]
            and other["start"] < benchmark["end"]
            and benchmark["start"] < other["end"]
        ]
        assert not overlapping, f"{benchmark['comment']} overlapped {overlapping}"
    # Inside the benchmarks' group job too, one benchmark at a time (no execution.lanes).
    provenance = json.loads((slurm_smoke["workdir"] / "results/provenance.json").read_text())
    assert provenance["run"]["lanes"] == [] and provenance["run"]["overlapping_benchmarks"] == []


def test_slurm_run_has_the_results_and_the_report(slurm_smoke):
    """Every language of its config was timed (no benchmark failed under SLURM) and the
    report rendered with its embedded figures."""
    workdir = slurm_smoke["workdir"]
    with open(workdir / "results/summary.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert {row["language"] for row in rows} == set(SLURM_LANGUAGES)
    assert "failed" not in {row["status"] for row in rows}, [r for r in rows if r["status"] == "failed"][:3]
    signed = {
        row["language"] for row in rows if (row["suite"], row["operation"], row["status"]) == ("jwt", "sign", "ok")
    }
    assert signed == set(JWS_LANGUAGES) & set(SLURM_LANGUAGES)
    assert not list((workdir / "results/failed").glob("**/*.csv"))
    html = (workdir / "results/report/report.html").read_text()
    assert len(re.findall(r'<img[^>]+src="data:image/png;base64,', html)) >= 3
    assert "Colophon" in html


def bundle_shape(bundle_dir):
    """A bundle's layout without what varies between runs: the sorted relative paths of
    its files, each raw/ file reduced to its raw/<language>/<suite> folder (a language's
    own files, raw/<language>/coldstart.json, stay as they are). Two runs of one config
    (locally and under SLURM, say) give the same shape."""
    bundle_dir = Path(bundle_dir)
    shape = set()
    for path in bundle_dir.rglob("*"):
        if not path.is_file():
            continue
        parts = path.relative_to(bundle_dir).parts
        shape.add("/".join(parts[:3] if parts[0] == "raw" and len(parts) > 3 else parts))
    return sorted(shape)


def narrowed_shape(shape, languages, suites, seeds):
    """A bundle shape (bundle_shape) narrowed to what a run of fewer languages, suites and
    seeds writes: its raw/ entries of those languages and suites, its seeds/ entries of
    those seeds, and everything else."""
    kept = []
    for entry in shape:
        parts = entry.split("/")
        if parts[0] == "raw" and (parts[1] not in languages or parts[2].removesuffix(".json") not in suites):
            continue
        if parts[0] == "seeds" and parts[1] not in seeds:
            continue
        kept.append(entry)
    return kept


def test_narrowed_shape_keeps_the_languages_suites_and_seeds_named():
    shape = [
        "config.yaml",
        "raw/java/jwt",
        "raw/node/coldstart.json",
        "raw/node/hash",
        "raw/node/jwt",
        "seeds/seed000/verdicts.csv",
        "seeds/seed001/verdicts.csv",
        "summary.csv",
    ]
    assert narrowed_shape(shape, ["node"], ["jwt", "coldstart"], ["seed001"]) == [
        "config.yaml",
        "raw/node/coldstart.json",
        "raw/node/jwt",
        "seeds/seed001/verdicts.csv",
        "summary.csv",
    ]


def latest_bundle(workdir):
    """The bundle directory a run in `workdir` wrote (results/bundles/latest.json)."""
    latest = json.loads((Path(workdir) / "results/bundles/latest.json").read_text())
    path = Path(latest["path"])
    return path if path.is_absolute() else Path(workdir) / path


def test_bundle_shape_reduces_raw_files_to_language_and_suite(tmp_path):
    files = [
        "manifest.json",
        "summary.csv",
        "raw/python/jwt/claims-001.csv",
        "raw/python/jwt/claims-001.json",
        "raw/python/jwt/netflix-titles.csv",
        "raw/node/hash/cases.csv",
        "raw/node/coldstart.json",
        "seeds/seed000/verdicts.csv",
    ]
    for name in files:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x")
    assert bundle_shape(tmp_path) == [
        "manifest.json",
        "raw/node/coldstart.json",
        "raw/node/hash",
        "raw/python/jwt",
        "seeds/seed000/verdicts.csv",
        "summary.csv",
    ]
    (tmp_path / "raw/java/jwt").mkdir(parents=True)
    assert "raw/java/jwt" not in bundle_shape(tmp_path)


def test_a_daemon_that_dies_is_named_with_its_log_tail(tmp_path):
    log = tmp_path / "slurmd.log"
    log.write_text("starting\nerror: Unable to bind listen port (6818): Address already in use\n")
    process = subprocess.Popen(["false"])
    with pytest.raises(SlurmClusterError, match=r"(?s)slurmd exited with status 1.*Address already in use"):
        wait_for("slurmd", lambda: False, process, log, timeout=10)


def test_a_daemon_that_never_gets_ready_is_named_with_its_log_tail(tmp_path):
    log = tmp_path / "slurmctld.log"
    log.write_text("error: Configured MailProg is invalid\n")
    with pytest.raises(SlurmClusterError, match=r"(?s)slurmctld not ready after 1 s.*MailProg"):
        wait_for("slurmctld", lambda: False, None, log, timeout=1)


# ---------------------------------------------------------------- against the local smoke run


def test_the_slurm_bundle_has_the_local_bundles_shape(smoke, slurm_smoke):
    """Same files in both bundles (raw/ by language and suite), the local one narrowed to
    the SLURM config's languages, suites and seeds."""
    local, remote = latest_bundle(smoke), latest_bundle(slurm_smoke["workdir"])
    bundles.verify(remote)
    assert bundle_shape(remote) == narrowed_shape(bundle_shape(local), SLURM_LANGUAGES, SLURM_SUITES, SLURM_SEEDS)


def test_compare_of_the_local_and_the_slurm_run(smoke, slurm_smoke, tmp_path):
    """Issue 7's check: two smoke runs of this machine (the local one and the one under
    SLURM), then `snakemake compare`: the report renders, every cell of both runs has a
    ratio with its CI, and every seed verdict of both is listed, differences marked."""
    local, remote = latest_bundle(smoke), latest_bundle(slurm_smoke["workdir"])
    result = snakemake(
        tmp_path, "compare", "--config", f"compare={{bundles: [{local}, {remote}]}}", "execution={engine: native}"
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    cells = read_csv(tmp_path / "results/compare/cells.csv")
    both = [row for row in cells if row["presence"] == "both" and row["ratio"]]
    assert {row["language"] for row in both} == set(SLURM_LANGUAGES)
    for row in both:
        assert float(row["ratio"]) > 0 and 0 < float(row["ci_low"]) <= float(row["ci_high"]), row
    verdicts = read_csv(tmp_path / "results/compare/verdicts.csv")
    slurm_verdicts = sum(len(read_csv(path)) for path in Path(remote, "seeds").glob("*/verdicts.csv"))
    assert len([row for row in verdicts if row["verdict_b"]]) == slurm_verdicts
    html = (tmp_path / "results/compare/report.html").read_text()
    assert re.search(r'<img[^>]+src="data:image/png;base64,', html)


def read_csv(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))
