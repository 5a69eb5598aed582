"""Rule install_native_env: a language's native environment, .envs/<language>/.

Natively (engine native) the language's installer, envs/<language>/install, builds it from
the pinned manifests with the host's toolchain. Under a container engine the native
environments serve only the native side of cold start and of the container-vs-native
comparison; there a language whose driver is one compiled binary (FROM_IMAGE: go, rust)
takes that binary from its image instead of compiling it a second time beside the image
builds (rust's took 6.8 of a fresh run's first 12 minutes on 2 cores). The native runs then
run the very binary the container runs, so what they compare is the container alone. A
binary that does not run on this host (its `versions` fails) is built by the installer
after all, and the log says why.

Either way the step shares the machine with image builds, never with a benchmark
(machine_lock).
"""

import json
import os
import subprocess
from pathlib import Path

from jwtbench import container_engine
from jwtbench.machine_lock import beside_other_work

# Languages whose native environment is one binary the image holds at the same path.
FROM_IMAGE = {"go": "bin/jwtbench-go", "rust": "bin/jwtbench-rust-driver"}
IMAGE_ENVS = "/opt/jwtbench/.envs"


def say(log, message):
    print(message, file=log, flush=True)


def copy_from_image(engine, tag, language, target, log):
    """Copies the language's binary out of image `tag` into `target`; True when it runs here."""
    relative = FROM_IMAGE[language]
    created = engine.run("create", tag, timeout=120)
    if created.returncode != 0:
        say(log, f"cannot create a container of {tag}: {created.stderr.strip()}")
        return False
    container = created.stdout.strip().splitlines()[-1]
    binary = target / relative
    try:
        binary.parent.mkdir(parents=True, exist_ok=True)
        binary.unlink(missing_ok=True)
        copied = engine.run("cp", f"{container}:{IMAGE_ENVS}/{language}/{relative}", str(binary), timeout=120)
    finally:
        engine.run("rm", "--force", container, timeout=120)
    if copied.returncode != 0:
        say(log, f"cannot copy {relative} out of {tag}: {copied.stderr.strip()}")
        return False
    works = subprocess.run([str(binary), "versions"], capture_output=True, text=True, timeout=120)
    if works.returncode != 0:
        say(log, f"{binary} (from {tag}) does not run on this host: {works.stderr.strip()[-500:]}")
        binary.unlink(missing_ok=True)
        return False
    say(log, f"{binary} copied from {tag}; versions: {works.stdout.strip()}")
    return True


def run_job(snake):
    language = snake.wildcards.language
    target = Path(snake.output[0]).parent.resolve()
    target.mkdir(parents=True, exist_ok=True)
    with open(snake.log[0], "w") as log, beside_other_work(log):
        images = list(snake.input.image)
        if images:
            record = json.loads(Path(images[0]).read_text())
            engine = container_engine.Engine.from_dict(snake.params.engine)
            if copy_from_image(engine, record["tag"], language, target, log):
                Path(snake.output[0]).write_text(f"from image {record['tag']} ({record['id']})\n")
                return
            say(log, "building it natively instead")
        say(log, f"$ {snake.params.installer} {target}")
        built = subprocess.run(
            [snake.params.installer, str(target)], stdout=log, stderr=subprocess.STDOUT, env=os.environ
        )
    if built.returncode != 0:
        raise RuntimeError(
            f"installing the {language} environment failed (exit {built.returncode}); see {snake.log[0]}"
        )
