"""The registry (workflow/suites.yaml, workflow/seeds.yaml; jwtbench/registry.py): what the
suites and seeds are, stated once. Its ratio pairs are what the seeds' analyses divide;
writing a spec needs nothing from seeds/; a suite added to the registry alone reaches the
config, the plan and the spec."""

import ast
import json
from pathlib import Path

import numpy as np
import pytest
import yaml
from conftest import REPO, SCRIPTS

from jwtbench import config_validation, registry, run_jobs, variants
from jwtbench.rules import bench_plan, write_bench_spec
from jwtbench.seeds import seed000, seed001, seed002

SCHEMA = REPO / "config" / "schemas" / "config.schema.yaml"
LANGUAGE = "spec"  # every cell of a spec is one language's: any label will do


class Recorder:
    """Stands in for verdict_rules.RoundPairedCells in a seed's claim_parts: every cell
    present has the same median, and each ratio a claim asks for is noted as a (top,
    bottom) pair of cell keys (a figure of more than two cells is not a pair)."""

    def __init__(self, keys):
        self.keys, self.pairs = set(keys), []

    def __contains__(self, key):
        return key in self.keys

    def median(self, key):
        return 1.0

    def medians(self, key):
        return np.ones(1)

    def interval(self, estimates):
        return 1.0, 1.0

    def ratio(self, top, bottom):
        if top in self and bottom in self:
            self.pairs.append((top, bottom))
        return 1.0, 1.0, 1.0

    def compare(self, pairs, judge):
        for top, bottom, _ in pairs:
            self.ratio(top, bottom)
        return []

    def derived(self, keys, function):
        if len(keys) == 2:
            self.ratio(*keys)
        return 1.0, 1.0, 1.0, ""


def divided_by_the_analyses(suite, cells):
    """The unordered pairs of cell indexes whose ratio a seed's analysis takes (its
    claim_parts run on a Recorder; seed 000's RATIOS on every jwt spec)."""
    method = seed001.METHODS["jwt"]
    if suite == "jwt":
        keys = [
            (LANGUAGE, method, cell["operation"], variants.name_of(cell["algorithm"], cell["key_bits"]))
            for cell in cells
        ]
        recorder = Recorder(keys)
        seed001.claim_parts(recorder, LANGUAGE, method)
        for _, (top, top_measure), (bottom, bottom_measure), _ in seed000.RATIOS:
            recorder.ratio((LANGUAGE, method, top_measure, top), (LANGUAGE, method, bottom_measure, bottom))
    elif suite == "hash":
        keys = [(LANGUAGE, cell.get("implementation"), cell["input"], cell["algorithm"]) for cell in cells]
        recorder = Recorder(keys)
        for implementation in dict.fromkeys(key[1] for key in keys):
            seed002.claim_parts(recorder, LANGUAGE, implementation)
        first = {
            key: {"operation": cell["operation"], "input_bytes": 1, "implementation_version": "", "status": "ok"}
            for key, cell in zip(keys, cells)
        }
        seed002.sweep_rows(recorder, first, {})
    else:
        return set()
    index = {key: position for position, key in enumerate(keys)}
    return {frozenset((index[top], index[bottom])) for top, bottom in recorder.pairs if index[top] != index[bottom]}


def run_of(config_file):
    config = yaml.safe_load((REPO / "config" / config_file).read_text()) if config_file != "schema" else {}
    config = config_validation.validate(
        config, SCHEMA, config_validation.driver_languages(SCRIPTS), config_validation.library_drivers(SCRIPTS)
    )
    return run_jobs.RunJobs.from_checkout(config, SCRIPTS, REPO)


@pytest.mark.parametrize("config_file", ["config.yaml", "smoke.yaml", "full.yaml", "schema"])
def test_the_pairs_are_what_the_seeds_divide(config_file):
    """For every jwt and hash spec of the default, smoke and full configs (and of the
    schema's defaults alone, which time decode on the grid too), the registry's
    pairs are exactly the ratios the seeds' analyses take among its cells (10 jobs at least)."""
    run = run_of(config_file)
    checked = 0
    for driver, suite, name in run.driver_jobs:
        if suite not in ("jwt", "hash"):
            continue
        settings = run.suite_config_of(driver, suite, name)
        cells = bench_plan.job_cells(driver, suite, name, settings, run.drivers[driver]["jws"])
        found = {frozenset(pair) for pair in run.known.pairs(suite, cells)}
        assert found == divided_by_the_analyses(suite, cells), (driver, suite, name)
        assert found or suite == "hash", (driver, suite, name)  # every jwt spec pairs some cells
        checked += 1
    assert checked >= 10


def test_writing_a_spec_imports_nothing_from_the_seeds():
    imported = set()
    for path in (SCRIPTS / "rules" / "write_bench_spec.py", SCRIPTS / "rules" / "bench_plan.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                imported.add(node.module)
            elif isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
    assert imported and not [name for name in imported if "seeds" in name], imported


TOY = """
  toy:
    bench: true
    inputs: [claims]
    cells: grid
    operations: [sign]
    rounds: true
    time_capped: true
    seconds: rounds
    config:
      description: A suite added for a test through the registry alone.
      type: object
      additionalProperties: false
      default: {}
      properties:
        activate: {description: Run this suite., type: boolean, default: true}
        algorithms:
          description: Variants it signs.
          type: array
          items: {$ref: "#/$defs/variant"}
          default: [HS256, ES256]
"""


def test_a_suite_added_to_the_registry_alone_reaches_the_config_the_plan_and_the_spec(tmp_path):
    suites = tmp_path / "suites.yaml"
    suites.write_text(registry.SUITES_FILE.read_text() + TOY)
    toy = registry.Registry.read(suites, registry.SEEDS_FILE)
    assert toy.bench_suites[-1] == "toy"
    config = config_validation.validate(
        {"languages": ["python"], "datasets": []}, SCHEMA, config_validation.driver_languages(SCRIPTS), known=toy
    )
    assert config["suites"]["toy"] == {"activate": True, "algorithms": ["HS256", "ES256"]}
    with pytest.raises(config_validation.ConfigError, match="suites.toy.colour"):
        config_validation.validate({"suites": {"toy": {"colour": 1}}}, SCHEMA, {"python"}, known=toy)
    # A driver that runs it (its driver.yaml would list it): one job on the claims file.
    manifest = dict(config_validation.driver_manifest(SCRIPTS, "python"))
    manifest["suites"] = [*manifest["suites"], "toy"]
    run = run_jobs.RunJobs(config, {"python": manifest}, known=toy, source=REPO)
    assert ("python", "toy", "claims-001") in run.driver_jobs
    assert run.bench_input("toy", "claims-001") == (str(REPO / "data" / "fixtures" / "claims-001.json"), "claims")
    jws_of = {"python": True}
    totals = bench_plan.plan(run.driver_jobs, run.suite_config_of, config["timing"], jws_of, toy)
    assert totals["toy"][0] == 2 and 0 < totals["toy"][1] < totals["toy"][2]
    out = tmp_path / "spec.json"
    write_bench_spec.main(
        "python", "toy", config["suites"]["toy"], config["timing"], "/keys", run.claims_file, out, known=toy
    )
    spec = json.loads(out.read_text())
    assert spec["suite"] == "toy" and spec["pairs"] == []
    assert [(cell["operation"], cell["algorithm"], cell["input"]) for cell in spec["cells"]] == [
        ("sign", "HS256", "claims-001"),
        ("sign", "ES256", "claims-001"),
    ]
    assert Path(spec["cells"][1]["private_key"]).name == "ec-p256.private.pem"


@pytest.mark.parametrize(
    ("entry", "named"),
    [
        ("  bad:\n    bench: true\n    config: {}\n", "a bench suite needs `inputs`"),
        ("  bad:\n    bench: true\n    inputs: [x]\n    colour: red\n    config: {}\n", "unknown keys ['colour']"),
        ("  bad:\n    inputs: [x]\n", "needs `bench` and a `config` block"),
    ],
)
def test_a_wrong_registry_entry_is_refused_with_its_file_and_key(tmp_path, entry, named):
    suites = tmp_path / "suites.yaml"
    suites.write_text(registry.SUITES_FILE.read_text() + entry)
    with pytest.raises(registry.RegistryError, match=f"suites.yaml: suites.bad.*{named}".replace("[", r"\[")):
        registry.Registry.read(suites, registry.SEEDS_FILE)
