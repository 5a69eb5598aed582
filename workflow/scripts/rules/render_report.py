"""Render the report with render_report.sh: natively, or under a container engine inside
the report image (R, ggplot2, knitr, pandoc as pinned there). The document is
report/report.qmd unless the rule's params name another (params.document: compare.qmd,
merge.qmd).

In the container, as for any driver (driver_runner.py), everything is read-only but a
fresh output directory: the report sources and the script are mounted from the
repository, the results beside them. No network.
"""

import json
import shutil
import subprocess
import tempfile
from pathlib import Path

from jwtbench import container_engine, driver_runner

SCRIPT = Path(__file__).resolve().parent / "render_report.sh"
REPORT_SOURCES = Path(__file__).resolve().parents[3] / "report"


def render(runner, results, output, renderer, log, document="report.qmd"):
    """Render into a fresh directory beside `output`, then move the HTML into place."""
    out_dir = Path(tempfile.mkdtemp(prefix=".render-", dir=output.parent)).resolve()
    try:
        driver_runner.writable_by_container(out_dir)
        session = runner.session(read_only=[REPORT_SOURCES, SCRIPT, results], writable=out_dir)
        with session as argv:
            command = argv(str(SCRIPT), results, str(out_dir / output.name), renderer, document)
            print(f"rendering with {runner.describe()}:\n  " + " ".join(command), file=log, flush=True)
            result = subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, env=runner.environ())
        if result.returncode == 0:
            shutil.move(out_dir / output.name, output)
            driver_runner.reclaim(output)
        return result.returncode
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)


def run_job(snake):
    engine = container_engine.Engine.from_dict(snake.params.engine)
    results = str(Path(snake.params.results).resolve())
    output = Path(snake.output[0]).resolve()
    output.parent.mkdir(parents=True, exist_ok=True)
    document = getattr(snake.params, "document", "report.qmd")
    with open(snake.log[0], "w") as log:
        if engine.in_containers:
            image = json.loads(Path(snake.input.images[0]).read_text())["tag"]
            # The image has no entrypoint: the command is the script itself.
            status = render(
                driver_runner.DriverRunner("report", None, engine, image),
                results,
                output,
                snake.params.renderer,
                log,
                document,
            )
        else:
            command = [str(SCRIPT), results, str(output), snake.params.renderer, document]
            print("rendering natively", file=log, flush=True)
            status = subprocess.run(command, stdout=log, stderr=subprocess.STDOUT).returncode
    if status != 0:
        raise RuntimeError(f"rendering {document} failed (exit {status}); see {snake.log[0]}")
