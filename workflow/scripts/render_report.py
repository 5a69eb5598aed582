"""Render the report with render_report.sh: natively, or under a container engine inside
the report image (R, ggplot2, knitr, pandoc as pinned there).

In the container, the report sources and the script are mounted read-only from the
repository, the results read-only, and only a fresh output directory is writable; /tmp
is a small in-memory filesystem for R's scratch files. No network.
"""

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import container_engine  # noqa: E402
import driver_runner  # noqa: E402

SCRIPT = Path(__file__).resolve().parent / "render_report.sh"
REPORT_SOURCES = Path(__file__).resolve().parents[2] / "report"


def container_command(engine, image, results, out_html, renderer):
    out_dir = str(Path(out_html).parent)
    return engine.command(
        "run", "--rm", *engine.lockdown(), *engine.user_options(),
        "--tmpfs", "/tmp:rw,size=512m", "--env", "TMPDIR=/tmp",
        "-v", f"{REPORT_SOURCES}:{REPORT_SOURCES}:ro",
        "-v", f"{SCRIPT}:{SCRIPT}:ro",
        "-v", f"{results}:{results}:ro",
        "-v", f"{out_dir}:{out_dir}:rw",
        image, str(SCRIPT), results, out_html, renderer,
    )  # fmt: skip


def run_job(snake):
    engine = container_engine.Engine.from_dict(snake.params.engine)
    results = str(Path(snake.params.results).resolve())
    output = Path(snake.output[0]).resolve()
    output.parent.mkdir(parents=True, exist_ok=True)
    with open(snake.log[0], "w") as log:
        if not engine.in_containers:
            command, env = [str(SCRIPT), results, str(output), snake.params.renderer], None
            print("rendering natively", file=log, flush=True)
            result = subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, env=env)
        else:
            image = json.loads(Path(snake.input.images[0]).read_text())["tag"]
            out_dir = Path(tempfile.mkdtemp(prefix=".render-", dir=output.parent)).resolve()
            try:
                driver_runner.writable_by_container(out_dir)
                command = container_command(engine, image, results, str(out_dir / output.name), snake.params.renderer)
                print(f"rendering in {image}:\n  " + " ".join(command), file=log, flush=True)
                result = subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, env=engine.environ())
                if result.returncode == 0:
                    shutil.move(out_dir / output.name, output)
                    driver_runner.reclaim(output)
            finally:
                shutil.rmtree(out_dir, ignore_errors=True)
    if result.returncode != 0:
        raise RuntimeError(f"rendering the report failed (exit {result.returncode}); see {snake.log[0]}")
