"""The registry: what each suite and each seed is (workflow/suites.yaml, workflow/seeds.yaml;
their headers say what every key means).

One module reads it for everyone: the workflow's jobs and inputs (rules/common.smk), the
spec writer, the benchmark plan and budget, the config's schema, the raw samples' checks.
`load()` reads the two files of this checkout once; a test hands `Registry.read` other
files (a toy suite).
"""

import fnmatch
import functools
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from jwtbench import variants

WORKFLOW = Path(__file__).resolve().parents[2]
SUITES_FILE = WORKFLOW / "suites.yaml"
SEEDS_FILE = WORKFLOW / "seeds.yaml"

# Inputs whose jobs are made from the config rather than named in the registry.
CLAIMS, DATASETS, DATASET_PROCESSES = "claims", "datasets", "dataset_processes"
CELL_FIELDS = ("operation", "algorithm", "variant", "key_bits", "implementation", "input")


class RegistryError(ValueError):
    pass


@dataclass(frozen=True)
class Suite:
    name: str
    bench: bool
    config: dict
    inputs: tuple = ()
    input_switches: dict = field(default_factory=dict)
    dataset_file: str | None = None
    dataset_kind: str = "records"
    input_file: str | None = None
    cells: str = "grid"
    operations: tuple = ()
    rounds: bool = False
    time_capped: bool = False
    spec_settings: tuple = ()
    seconds: object = "rounds"


@dataclass(frozen=True)
class PairRule:
    """Cells `a` and `b` of one spec of `suite` whose ratio a verdict rests on."""

    suite: str
    a: dict
    b: dict
    same: tuple = ()


@dataclass(frozen=True)
class Read:
    suite: str
    inputs: str | None = None
    optional: bool = False


@dataclass(frozen=True)
class Seed:
    name: str
    title: str
    home: dict
    reads: tuple
    outputs: tuple
    also: tuple = ()
    pairs: tuple = ()

    def tables(self):
        """Every file its rule writes, the seed's tables first."""
        return [f"results/{self.name}/{table}.csv" for table in self.outputs] + list(self.also)


@dataclass(frozen=True)
class Registry:
    suites: dict
    seeds: dict

    @classmethod
    def read(cls, suites_file=SUITES_FILE, seeds_file=SEEDS_FILE):
        suites = {name: _suite(name, entry, suites_file) for name, entry in _entries(suites_file, "suites").items()}
        seeds = {name: _seed(name, entry, seeds_file, suites) for name, entry in _entries(seeds_file, "seeds").items()}
        return cls(suites, seeds)

    @property
    def bench_suites(self):
        """The suites timed from a spec (through the conductor, or openssl's `bench`), in the registry's order."""
        return [name for name, suite in self.suites.items() if suite.bench]

    def as_record(self):
        """What the provenance keeps of the registry, for the report and a bundle's reader:
        each suite's kind, each seed's title, home and tables."""
        return {
            "suites": {
                name: {"bench": suite.bench, "rounds": suite.rounds, "inputs": list(suite.inputs)}
                for name, suite in self.suites.items()
            },
            "seeds": {
                name: {"title": seed.title, "home": seed.home, "tables": seed.tables()}
                for name, seed in self.seeds.items()
            },
        }

    def schema_of_suites(self):
        """{suite: its config block}: the properties of config key `suites`."""
        return {name: suite.config for name, suite in self.suites.items()}

    def pairs(self, suite, cells):
        """[[i, j], ...]: indexes into `cells` (one spec's) of the ratios i / j that a seed's
        verdict rests on, each unordered pair once, in the seeds' order."""
        found, seen = [], set()
        described = [_fields(cell) for cell in cells]
        for seed in self.seeds.values():
            for rule in seed.pairs:
                if rule.suite != suite:
                    continue
                for i, top in enumerate(described):
                    if not _matches(top, rule.a):
                        continue
                    for j, bottom in enumerate(described):
                        key = frozenset((i, j))
                        if i == j or key in seen or not _matches(bottom, rule.b):
                            continue
                        if all(top.get(name) == bottom.get(name) for name in rule.same):
                            seen.add(key)
                            found.append([i, j])
        return found


@functools.cache
def load():
    """The registry of this checkout."""
    return Registry.read()


def _entries(path, key):
    try:
        data = yaml.safe_load(Path(path).read_text())
    except (OSError, yaml.YAMLError) as error:
        raise RegistryError(f"{path}: cannot read the registry: {error}") from None
    if not isinstance(data, dict) or not isinstance(data.get(key), dict):
        raise RegistryError(f"{path}: expected a mapping under key '{key}'")
    return data[key]


def _suite(name, entry, path):
    where = f"{path}: suites.{name}"
    if not isinstance(entry, dict) or "bench" not in entry or not isinstance(entry.get("config"), dict):
        raise RegistryError(f"{where}: needs `bench` and a `config` block")
    known = set(Suite.__dataclass_fields__) - {"name"}
    unknown = set(entry) - known
    if unknown:
        raise RegistryError(f"{where}: unknown keys {sorted(unknown)} (known: {', '.join(sorted(known))})")
    values = dict(entry)
    for key in ("inputs", "operations", "spec_settings"):
        values[key] = tuple(values.get(key) or ())
    if values["bench"] and not values["inputs"]:
        raise RegistryError(f"{where}: a bench suite needs `inputs`")
    stray = set(values.get("input_switches") or {}) - set(values["inputs"])
    if stray:
        raise RegistryError(f"{where}.input_switches: {sorted(stray)} are not among its inputs")
    return Suite(name=name, **values)


def _seed(name, entry, path, suites):
    where = f"{path}: seeds.{name}"
    try:
        reads = tuple(Read(**read) for read in entry["reads"])
        pairs = tuple(
            PairRule(suite=rule["suite"], a=rule["a"], b=rule["b"], same=tuple(rule.get("same", ())))
            for rule in entry.get("pairs") or ()
        )
        seed = Seed(
            name=name,
            title=entry["title"],
            home=dict(entry["home"]),
            reads=reads,
            outputs=tuple(entry["outputs"]),
            also=tuple(entry.get("also") or ()),
            pairs=pairs,
        )
    except (KeyError, TypeError) as error:
        raise RegistryError(f"{where}: {error!r} (keys: title, home, reads, outputs, also, pairs)") from None
    for suite in [read.suite for read in reads] + [rule.suite for rule in pairs]:
        if suite not in suites:
            raise RegistryError(f"{where}: unknown suite {suite!r} (the suites of {SUITES_FILE.name})")
    for rule in pairs:
        for name_ in [*rule.a, *rule.b, *rule.same]:
            if name_ not in CELL_FIELDS:
                raise RegistryError(f"{where}.pairs: unknown cell field {name_!r} (known: {', '.join(CELL_FIELDS)})")
    return seed


def _fields(cell):
    """A spec cell's fields as pair rules name them (its variant name included)."""
    described = {name: cell.get(name) for name in CELL_FIELDS if name in cell}
    described["variant"] = variants.name_of(cell["algorithm"], cell.get("key_bits", 0))
    return described


def _matches(cell, wanted):
    for name, values in wanted.items():
        value = cell.get(name)
        options = values if isinstance(values, list) else [values]
        if not any(
            fnmatch.fnmatchcase(str(value), option) if isinstance(option, str) else value == option
            for option in options
        ):
            return False
    return True
