"""What one run does, from its validated config, its drivers' manifests and the registry:
the drivers and suites that run, one benchmark job per (driver, suite, input), each job's
input file and settings, the keys they need, and which seeds are reproduced from which raw
files. rules/common.smk builds one RunJobs and its input functions read it; nothing here
knows Snakemake.
"""

from pathlib import Path

from jwtbench import config_validation, registry, transfer_processes, variants
from jwtbench.config_validation import language_of
from jwtbench.rules import write_bench_spec

# What suite primitive reads besides its generated messages (rule write_jwt_signing_input).
JWT_SIGNING_INPUT = "results/primitive/jwt-signing-input.bin"


class RunJobs:
    def __init__(self, config, manifests, known=None, source=Path(".")):
        """`manifests`: {driver name: its driver.yaml, validated} for every driver of the
        run (each language's own and the further libraries whose language runs)."""
        self.config, self.drivers = config, manifests
        self.known = known or registry.load()
        self.languages = list(config["languages"])
        # Further JWT libraries (config libraries.drivers): each a driver "<language>/<library>"
        # sharing its language's environment and image; a language's own driver is named by
        # the language.
        chosen = config["libraries"]["drivers"]
        self.library_drivers = [name for name in chosen if language_of(name) in self.languages]
        self.left_out = [name for name in chosen if name not in self.library_drivers]
        self.driver_names = self.languages + self.library_drivers
        # Languages whose own driver has a JWS library: cold start, the cross-checks, the seeds.
        self.jws_languages = [name for name in self.languages if manifests[name]["jws"]]
        # Every JWS driver, the further libraries too: the gate, interop, conformance.
        self.jws_drivers = [name for name in self.driver_names if manifests[name]["jws"]]
        active = [name for name, suite in config["suites"].items() if suite["activate"]]
        # Suites timed from a spec; the others (coldstart) time whole processes.
        self.suites = [name for name in active if self.known.suites[name].bench]
        self.coldstart = "coldstart" in active
        jwt = config["suites"]["jwt"]
        self.claims_input = Path(jwt["input"]).stem
        self.claims_file = str((Path(source) / jwt["input"]).resolve())
        self.datasets = {dataset["name"]: dataset for dataset in config["datasets"]}
        # The variants suite jwt times: its grid, and on the datasets (when it runs there) theirs.
        on_datasets = jwt["on_datasets"] and bool(self.datasets)
        names = jwt["algorithms"] + (jwt["dataset_algorithms"] if on_datasets else [])
        self.jwt_variants = [variants.parse(name) for name in dict.fromkeys(names)]
        self.transfer_processes = transfer_processes.count(config["suites"]["transfer"])
        self.driver_jobs = [
            (driver, suite, name) for driver in self.driver_names for suite, name in self.jobs_of(driver)
        ]
        self.bench_jobs = list(dict.fromkeys((suite, name) for _, suite, name in self.driver_jobs))

    @classmethod
    def from_checkout(cls, config, scripts, source):
        """The run of `config` with the drivers of this checkout (their driver.yaml under
        `scripts`); config_validation.ConfigError names a manifest that is wrong."""
        chosen = config["libraries"]["drivers"]
        names = list(config["languages"]) + [name for name in chosen if language_of(name) in config["languages"]]
        manifests = {name: config_validation.driver_manifest(scripts, name) for name in names}
        return cls(config, manifests, source=source)

    def notes(self):
        """What the config asks for that does not run, in words for the terminal."""
        found = []
        if self.left_out:
            found.append(
                f"libraries.drivers {', '.join(self.left_out)}: their languages are not in `languages`,"
                " so they do not run"
            )
        for suite in self.suites_running_nowhere():
            found.append(
                f"suites.{suite}.languages ({', '.join(self.suite_languages(suite))}) names none of the"
                f" run's languages: suite {suite} runs nowhere"
            )
        return found

    # -- suites and their jobs ---------------------------------------------------------

    def suite_inputs(self, suite):
        """The inputs a bench suite runs on, as the registry lists them: the claims file,
        the datasets (once per transfer process), or inputs of its own; an input with a
        switch runs when the suite's config sets it."""
        entry, settings = self.known.suites[suite], self.config["suites"][suite]
        names = []
        for kind in entry.inputs:
            switch = entry.input_switches.get(kind)
            if switch and not settings[switch]:
                continue
            if kind == registry.CLAIMS:
                names.append(self.claims_input)
            elif kind == registry.DATASETS:
                names += list(self.datasets)
            elif kind == registry.DATASET_PROCESSES:
                names += transfer_processes.inputs(self.datasets, self.transfer_processes)
            else:
                names.append(kind)
        return names

    def all_inputs(self):
        """Every input name a job of this run could have (the wildcard's constraint)."""
        named = [kind for suite in self.known.suites.values() for kind in suite.inputs]
        fixed = [kind for kind in named if kind not in (registry.CLAIMS, registry.DATASETS, registry.DATASET_PROCESSES)]
        processes = transfer_processes.inputs(self.datasets, self.transfer_processes)
        return list(dict.fromkeys([self.claims_input, *self.datasets, *processes, *fixed]))

    def suite_languages(self, suite):
        """The suite's `languages` (percall's, where the config narrows it); empty for all."""
        return self.config["suites"][suite].get("languages") or []

    def suite_runs_in(self, suite, language):
        """Whether `suite` runs in `language`: its driver runs it (driver.yaml), and the
        suite's `languages` is empty or names it."""
        wanted = self.suite_languages(suite)
        return suite in self.drivers[language]["suites"] and (not wanted or language in wanted)

    def suites_running_nowhere(self):
        return [
            suite
            for suite in self.suites
            if self.suite_languages(suite) and not set(self.suite_languages(suite)) & set(self.languages)
        ]

    def jobs_of(self, driver):
        """(suite, input) of each benchmark job of a driver: the suites it runs, on each of
        their inputs; a further library runs suite jwt on the claims file only."""
        if driver in self.library_drivers:
            runs = "jwt" in self.suites and "jwt" in self.drivers[driver]["suites"]
            return [("jwt", self.claims_input)] if runs else []
        return [
            (suite, name)
            for suite in self.suites
            if self.suite_runs_in(suite, driver)
            for name in self.suite_inputs(suite)
        ]

    def suite_config_of(self, driver, suite, name):
        """A suite's config for one job: suite jwt on a dataset times the dataset's algorithms
        and operations (seed 000's), on the claims file its whole grid (seed 001's), and for a
        further library the variants and operations of config libraries; each of suite
        transfer's processes its share of the trials."""
        settings = self.config["suites"][suite]
        if suite == "jwt" and driver in self.library_drivers:
            chosen = self.config["libraries"]["algorithms"] or settings["algorithms"]
            return {
                **settings,
                "algorithms": [name for name in settings["algorithms"] if name in chosen],
                "operations": self.config["libraries"]["operations"],
            }
        if suite == "jwt" and name in self.datasets:
            return {
                **settings,
                "algorithms": settings["dataset_algorithms"],
                "operations": settings["dataset_operations"],
            }
        if suite == "transfer":
            return transfer_processes.per_process(settings)
        return settings

    def bench_input(self, suite, name):
        """(input file, input_kind) of a suite's cells on an input: the claims file, a
        dataset's file (the registry's dataset_file), the JWS signing input, or none (the
        suite's cells make their own messages)."""
        entry = self.known.suites[suite]
        if entry.input_file == "jwt_signing_input":
            return JWT_SIGNING_INPUT, "bytes"
        if name == self.claims_input and registry.CLAIMS in entry.inputs:
            return self.claims_file, "claims"
        dataset = transfer_processes.dataset_of(name)
        if entry.dataset_file and dataset in self.datasets:
            return f"results/data/{dataset}/{entry.dataset_file}", entry.dataset_kind
        return None, None

    def cell_input(self, suite, name):
        """The input a job's cells name: the dataset of one of suite transfer's processes,
        so that its processes' rows are one cell's."""
        if registry.DATASET_PROCESSES in self.known.suites[suite].inputs:
            return transfer_processes.dataset_of(name)
        return name

    def key_names(self):
        """The keys the run's cells use, plus those cold start and the checks sign with."""
        names = {variant.key_name for variant in self.jwt_variants}
        for suite in {suite for suite, _ in self.bench_jobs}:
            names |= set(write_bench_spec.spec_key_names(self.known.suites[suite], self.config["suites"][suite]))
        if self.coldstart:
            names |= {"hmac-256", "rsa-2048"}
        for check in (self.config["crosscheck"], self.config["execution"]["compare_native"]):
            names |= {variants.parse(name).key_name for name in check["variants"]}
        return names

    # -- raw files and seeds -----------------------------------------------------------

    def raw_files(self, extension, drivers=None):
        """The raw files of the run's benchmark jobs (of `drivers` only, when given)."""
        return [
            f"results/raw/{driver}/{suite}/{name}.{extension}"
            for driver, suite, name in self.driver_jobs
            if drivers is None or driver in drivers
        ]

    def specs(self):
        """The spec of each raw file, in the same order."""
        return [f"results/specs/{driver}/{suite}/{name}.json" for driver, suite, name in self.driver_jobs]

    def _reads(self, read, suite, name):
        if read.suite != suite:
            return False
        if read.inputs == registry.CLAIMS:
            return name == self.claims_input
        if read.inputs == registry.DATASETS:
            return transfer_processes.dataset_of(name) in self.datasets
        return read.inputs is None or read.inputs == name

    def active_seeds(self):
        """The seeds this run reproduces: those with a (not optional) read it measures."""
        return [
            name
            for name, seed in self.known.seeds.items()
            if any(not read.optional and self._reads(read, *job) for read in seed.reads for job in self.bench_jobs)
        ]

    def seed_inputs(self, seed):
        """{"samples": every raw file of each language's own driver the seed reads, and per
        suite it reads, that suite's}: each seed names its library, so a further library's
        figures are the report's, not a seed's."""
        reads = self.known.seeds[seed].reads
        inputs = {"samples": [], **{read.suite: [] for read in reads}}
        for driver, suite, name in self.driver_jobs:
            if driver not in self.languages:
                continue
            path = f"results/raw/{driver}/{suite}/{name}.csv"
            for read in reads:
                if self._reads(read, suite, name):
                    inputs.setdefault(suite, []).append(path)
                    if path not in inputs["samples"]:
                        inputs["samples"].append(path)
        return inputs

    def seeds_reading_datasets(self):
        return [
            name
            for name in self.active_seeds()
            if any(read.inputs == registry.DATASETS for read in self.known.seeds[name].reads)
        ]
