"""Node's young generation stays at the size it starts with, in every node driver
(docs/disturbances-node.md): the shim `workflow/scripts/node/run`, which every library's
shim and the node image's entrypoint run, starts node with --max-semi-space-size=1. Left to
itself, V8 grows the new space under the same allocation, and each resize changes every
cell's speed (the drift reference by 10-25%)."""

import json
import subprocess

import pytest
from conftest import SCRIPTS

PROBE = "diagnostics/young_generation.js"
MIB = 1 << 20


def largest_new_space(command, env):
    result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout)


@pytest.mark.parametrize("driver", ["node", "node/jose", "node/fast-jwt"])
def test_the_shim_holds_the_young_generation(driver, driver_env):
    seen = largest_new_space([str(SCRIPTS / driver / "run")], dict(driver_env, JWTBENCH_ENTRY=PROBE))
    assert "--max-semi-space-size=1" in seen["execArgv"]
    assert seen["largest_new_space_bytes"] <= 2 * MIB  # two semi-spaces of 1 MiB


def test_left_to_itself_node_grows_it(driver_env):
    """The probe's allocation does make V8 grow the young generation without the flag."""
    seen = largest_new_space(["node", str(SCRIPTS / "node" / PROBE)], driver_env)
    assert seen["execArgv"] == []
    assert seen["largest_new_space_bytes"] > 4 * MIB
