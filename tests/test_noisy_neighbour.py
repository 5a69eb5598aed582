"""benchmarks/noisy-neighbour, the documented load of issue 42's noisy runs: its stressors
run at the lowest priority of their own sessions while the command runs, end with it, and
the command's exit status is the script's."""

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_neighbour_runs_beside_a_command_at_the_lowest_priority_and_ends_with_it():
    probe = "for p in $(pgrep -x stress-ng); do cat /proc/$p/autogroup; done; exit 3"
    done = subprocess.run(
        [ROOT / "benchmarks/noisy-neighbour", "--", "sh", "-c", probe], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 3, done.stderr
    said = re.findall(r"stress-ng \((.+?)\) on CPU (\d), pid (\d+), (.+)", done.stderr)
    assert [(what, cpu) for what, cpu, _, _ in said] == [("cache, stream", "0"), ("cpu", "1")], done.stderr
    for _, _, pid, group in said:
        assert group.endswith("nice 19"), done.stderr  # its session's autogroup, not just the task's nice
        assert f"{group}\n" in done.stdout or group in done.stdout
        assert not Path(f"/proc/{pid}").exists(), f"stress-ng {pid} outlived the command"
