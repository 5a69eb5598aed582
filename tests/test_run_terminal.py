"""The terminal a newcomer watches (issue 43; workflow/scripts/jwtbench/run_progress.py):
`./jwtbench run` shows one progress line with an estimate, Snakemake's output goes to a
log file, and the run ends with a summary of at most a screenful."""

import io
import os
import time

from jwtbench import bench_budget, run_progress

# Snakemake 9's output, as a run writes it (abridged from a default run of 2026-11-28).
LOG = """Building DAG of jobs...
[Sat Nov 28 08:26:44 2026]
localrule build_image:
    output: results/images/runtime.json
    log: logs/build_image/runtime.log
    jobid: 5
Finished jobid: 5 (Rule: build_image)
1 of 40 steps (2%) done
[Sat Nov 28 08:26:47 2026]
localrule check_driver:
    jobid: 7
Finished jobid: 7 (Rule: check_driver)
2 of 40 steps (5%) done
localrule run_benchmark:
    log: logs/run_benchmark/go/jwt/claims-001.log
    jobid: 9
[Sat Nov 28 08:30:47 2026]
Error in rule run_benchmark:
    message: None
    jobid: 9
    log: logs/run_benchmark/go/jwt/claims-001.log (check log file(s) for error details)

localrule build_image:
    jobid: 11
"""


def test_the_log_follower_reads_stage_steps_and_failed_jobs(tmp_path):
    log = tmp_path / "run.log"
    log.write_text(LOG[:200])  # a line cut in half waits for its end
    follower = run_progress.LogFollower(log)
    follower.poll()
    assert follower.stage == "images"
    log.write_text(LOG)
    follower.poll()
    # The stage is what runs now (a late image build); the run has reached the benchmarks.
    assert (follower.stage, follower.furthest) == ("images", "benchmarks")
    assert follower.steps == (2, 40)
    assert follower.failed == [["run_benchmark", "logs/run_benchmark/go/jwt/claims-001.log"]]


STATS = """Job stats:
job              count
-------------  -------
build_image          2
check_driver         1
run_benchmark        2
render_report        1
total                6

"""


def test_with_snakemakes_job_stats_the_stage_is_the_first_with_jobs_to_finish(tmp_path):
    log = tmp_path / "run.log"
    log.write_text(STATS + LOG)
    follower = run_progress.LogFollower(log)
    follower.poll()
    assert follower.planned == {"build_image": 2, "check_driver": 1, "run_benchmark": 2, "render_report": 1}
    assert run_progress.per_stage(follower.planned) == {"images": 2, "checks": 1, "benchmarks": 2, "report": 1}
    assert follower.stage == "images"  # one of its two image builds is still running
    log.write_text(
        STATS + LOG + "Finished jobid: 11 (Rule: build_image)\nlocalrule run_benchmark:\nlocalrule render_report:\n"
    )
    follower.poll()
    # One benchmark failed (done too), the other runs beside the report's first job.
    assert follower.stage == "benchmarks + report"
    plan = tmp_path / "plan.json"
    bench_budget.write_plan(0, {"go/jwt/a": (60, 90, 10)}, plan)
    assert "of benchmarks left" in run_progress.status_line(follower, bench_budget.progress(plan), 60)
    log.write_text(log.read_text() + "Finished jobid: 10 (Rule: run_benchmark)\n")
    follower.poll()
    assert follower.stage == "report"
    assert "benchmarks" not in run_progress.status_line(follower, bench_budget.progress(plan), 60).split(" · ")[-1]


def test_the_progress_line_carries_the_cells_and_the_time_left(tmp_path):
    plan = tmp_path / "plan.json"
    after = {"crosscheck_harness": [2, 40], "run_coldstart": [1, 20]}  # the timed work after the jobs
    bench_budget.write_plan(0, {"go/jwt/a": (60, 90, 10), "go/jwt/b": (120, 180, 30)}, plan, after=after)
    follower = run_progress.LogFollower(tmp_path / "none.log")
    for line in ("localrule check_driver:", "3 of 40 steps (8%) done"):
        follower.read(line)
    line = run_progress.status_line(follower, bench_budget.progress(plan), 75)
    assert (
        line == "jwtbench: 75 s in · checks · step 3 of 40 · 0 of 40 benchmark cells · then about 4 min of benchmarks"
    )
    bench_budget.record("go/jwt/a", 60, plan)
    for line in ("Finished jobid: 3 (Rule: check_driver)", "localrule run_benchmark:"):
        follower.read(line)
    line = run_progress.status_line(follower, bench_budget.progress(plan), 600)
    assert line.endswith("10 of 40 benchmark cells · about 3 min of benchmarks left")
    # Each part of the work after the jobs leaves the estimate as its jobs finish: 120 s of
    # jobs, half the cross-check's 40 s, none of the cold start's 20.
    for line in ("Finished jobid: 7 (Rule: crosscheck_harness)", "Finished jobid: 8 (Rule: run_coldstart)"):
        follower.read(line)
    line = run_progress.status_line(follower, bench_budget.progress(plan), 600)
    assert line.endswith("about 2 min of benchmarks left")
    assert run_progress.after_left({"a": [2, 40], "b": [1, 20]}, {"a": 1, "b": 1}) == 20


def test_a_plan_left_by_an_earlier_run_is_not_this_runs(tmp_path):
    """A call that runs no benchmark job (`compare`) writes no plan: its line must not show
    the last run's cells as its own."""
    plan = tmp_path / bench_budget.PLAN
    bench_budget.write_plan(0, {"go/jwt/a": (60, 90, 10)}, plan)
    os.utime(plan, (time.time() - 3600, time.time() - 3600))
    progress = run_progress.Progress(tmp_path / "run.log", tmp_path, stream=io.StringIO())
    assert progress.plan() is None
    bench_budget.write_plan(0, {"go/jwt/a": (60, 90, 10)}, plan)  # this run's onstart
    assert progress.plan()["cells"] == 10


def test_without_a_terminal_a_line_comes_when_the_stage_changes_or_a_minute_passes(tmp_path):
    log = tmp_path / "run.log"
    log.write_text("")
    stream = io.StringIO()
    progress = run_progress.Progress(log, tmp_path, stream=stream, every=3600)
    progress.tick()
    progress.tick()
    log.write_text(LOG)
    progress.tick()
    lines = stream.getvalue().splitlines()
    # One line at the start, one when the run reached a further stage (a late image build runs).
    assert len(lines) == 2 and "starting" in lines[0] and " · images" in lines[1]


def test_the_summary_names_the_report_verdicts_machine_warnings_and_failed_jobs(tmp_path):
    results = tmp_path / "results"
    (results / "report").mkdir(parents=True)
    (results / "seed001").mkdir()
    (results / "report" / "report.html").write_text("<html></html>")
    (results / "seed001" / "verdicts.csv").write_text(
        "claim,language,verdict\na,java,holds\nb,java,holds\nc,go,does not hold\nd,go,inconclusive\n"
    )
    (results / "drift.csv").write_text("language,relative\n" + "".join(f"go,{1 + (i % 5) / 100}\n" for i in range(40)))
    (results / "warnings.csv").write_text('kind,subject,message,action\ndrift,java,"java moved","rerun"\n')
    follower = run_progress.LogFollower(tmp_path / "run.log")
    follower.failed = [["run_benchmark", "logs/run_benchmark/go/jwt/a.log"]]
    lines = run_progress.summary(tmp_path, 1, 1260, "logs/run-x.log", follower, started_epoch=0)
    text = "\n".join(lines)
    assert "the run failed (exit 1) after 21.0 min" in text
    assert "report:   results/report/report.html" in text and "full log: logs/run-x.log" in text
    assert "seed 001: 2 holds, 1 does not hold, 1 inconclusive" in text
    assert "this run's machine: quiet (median drift spread 4.0%)" in text
    assert "1 warning(s) about this run's numbers (results/warnings.csv" in text
    assert "  - java moved." in text and "What to do: rerun." in text
    assert "- run_benchmark: logs/run_benchmark/go/jwt/a.log" in text
    assert len(lines) <= 40
    # A run with nothing to do still says where the report is, and that it is an earlier one.
    again = "\n".join(
        run_progress.summary(
            tmp_path, 0, 3, "logs/run-y.log", run_progress.LogFollower(tmp_path / "x"), started_epoch=4e9
        )
    )
    assert "report:   results/report/report.html (from an earlier run" in again and "seed 001" in again


def test_the_smoke_runs_terminal_output_is_short_carries_the_estimate_and_ends_with_the_summary(smoke):
    """The smoke run, supervised as ./jwtbench run runs it, its output captured without a
    terminal (tests/conftest.py, run_smoke)."""
    output = (smoke / "smoke-output.txt").read_text()
    lines = output.splitlines()
    assert len(lines) <= 200, output[-3000:]
    assert "Snakemake's full log: " in lines[0]
    assert any("benchmark cells" in line and "of benchmarks left" in line for line in lines), output
    tail = "\n".join(lines[-30:])
    assert "jwtbench: the run finished after" in tail
    assert "report:   results/report/report.html" in tail
    assert "verdicts" in tail and "this run's machine:" in tail
    assert "localrule" not in output  # Snakemake's job records are in the log file
    log = sorted((smoke / "logs").glob("run-*.log"))[-1]
    assert "localrule run_benchmark:" in log.read_text()
