# Benchmarks: one job per (driver, suite, input), never two at once (resource bench=1, set in
# workflow/profiles/default; with execution.lanes, one per lane, cold starts and
# compare_native too; the cross-check always alone), and only after every language passed
# the gate.


# Writing a spec is bookkeeping (one small JSON file): under a cluster executor it runs in
# the submitting Snakemake instead of as one of ~50 cluster jobs (workflow/profiles/slurm).
localrules:
    write_bench_spec,


rule write_bench_spec:
    input:
        unpack(get_spec_inputs),
    output:
        spec="results/specs/{driver}/{suite}/{input}.json",
    log:
        "logs/write_bench_spec/{driver}/{suite}/{input}.log",
    benchmark:
        "logs/wall_times/write_bench_spec/{driver}/{suite}/{input}.tsv"
    params:
        suite_config=get_suite_config,
        timing=SPEC_TIMING,
        input_file=lambda wildcards: RUN.bench_input(wildcards.suite, wildcards.input)[
            0
        ],
        input_kind=lambda wildcards: RUN.bench_input(wildcards.suite, wildcards.input)[
            1
        ],
        jws=lambda wildcards: DRIVERS[wildcards.driver]["jws"],
    run:
        write_bench_spec.run_job(job(input, output, params, log, wildcards))


rule run_benchmark:
    input:
        unpack(get_driver_inputs),
        spec="results/specs/{driver}/{suite}/{input}.json",
        # The whole verification stage finishes first: its jobs must never share the
        # machine with a benchmark, and a language that failed its own checks stops here.
        gate=verification_gate(),
        versions="results/versions/{driver}.json",
        # Every image is built before the first benchmark, so no build overlaps one.
        images=get_all_images,
    output:
        samples="results/raw/{driver}/{suite}/{input}.csv",
        metadata="results/raw/{driver}/{suite}/{input}.json",
    log:
        "logs/run_benchmark/{driver}/{suite}/{input}.log",
    resources:
        # With lanes, the lanes' locks (machine_lock.py) decide how many run at once.
        bench=0 if config["execution"]["lanes"] else 1,
    params:
        wall_time="logs/wall_times/run_benchmark/{driver}/{suite}/{input}.tsv",
        driver=get_driver,
        # Its expected and worst-case seconds, for the benchmark budget.
        plan=get_job_plan,
        cpus=config["execution"]["cpus"],
        lanes=config["execution"]["lanes"],
        conducted=is_conducted,
    run:
        wall_times.timed(
            params.wall_time,
            run_benchmark.run_job,
            job(input, output, params, log, wildcards),
        )


rule crosscheck_harness:
    input:
        unpack(get_driver_inputs),
        claims=jwt_input_file(),
        # Like a benchmark: after the gate and every image build, alone on the machine.
        gate=verification_gate(),
        images=get_all_images,
    output:
        spec="results/crosscheck/{driver}.json",
        blocks="results/crosscheck/{driver}.csv",
    log:
        "logs/crosscheck_harness/{driver}.log",
    resources:
        # Alone even with lanes: beside another lane's benchmark the ratios fell to 0.4-0.9
        # (16 of 30 cells in the band, against 29-30 alone; smoke config, 2026-11-26).
        bench=1,
    params:
        wall_time="logs/wall_times/crosscheck_harness/{driver}.tsv",
        driver=get_driver,
        settings=config["crosscheck"],
        timing=SPEC_TIMING,
        cpus=config["execution"]["cpus"],
    run:
        wall_times.timed(
            params.wall_time,
            crosscheck_harness.run_job,
            job(input, output, params, log, wildcards),
        )


# The confirmation pass: a cross-checked cell that disagrees is measured again at the end
# of the run (after every benchmark), alone, on the same CPU and settings; a driver with no
# disagreement is not run again. Its table is the one the report and the warnings read.
rule confirm_crosscheck:
    input:
        first="results/crosscheck/first-pass.csv",
        specs=expand("results/crosscheck/{driver}.json", driver=CROSSCHECK_DRIVERS),
        key_manifest=KEY_MANIFEST,
        claims=jwt_input_file(),
        gate=verification_gate(),
        images=get_all_images,
        # At the end of the run: after every benchmark.
        samples=get_raw_samples,
    output:
        table="results/crosscheck.csv",
    log:
        "logs/confirm_crosscheck/confirm_crosscheck.log",
    resources:
        bench=1,
    params:
        wall_time="logs/wall_times/confirm_crosscheck/confirm_crosscheck.tsv",
        drivers={name: driver_params(name) for name in CROSSCHECK_DRIVERS},
        specs={name: f"results/crosscheck/{name}.json" for name in CROSSCHECK_DRIVERS},
        band=CROSSCHECK["band"],
        gaps={name: DRIVERS[name]["crosscheck_gaps"] for name in CROSSCHECK_DRIVERS},
        cpus=config["execution"]["cpus"],
    run:
        wall_times.timed(
            params.wall_time,
            crosscheck_harness.confirm_job,
            job(input, output, params, log),
        )


rule compare_native:
    input:
        # Like a benchmark: only drivers that passed every check are timed.
        gate=verification_gate(),
        images=get_all_images,
        envs=expand(".envs/{language}/.installed", language=JWS_LANGUAGES),
        key_manifest=KEY_MANIFEST,
    output:
        "results/container_vs_native.csv",
    log:
        "logs/compare_native/compare_native.log",
    resources:
        bench=0 if config["execution"]["lanes"] else 1,
    params:
        wall_time="logs/wall_times/compare_native/compare_native.tsv",
        drivers={
            language: {
                "native": native_driver_params(language),
                "container": driver_params(language),
                "conducted": "jwt" in DRIVERS[language]["conducted"],
            }
            for language in JWS_LANGUAGES
        },
        settings=config["execution"]["compare_native"],
        timing=config["timing"],
        payload=jwt_input_file(),
        cpus=config["execution"]["cpus"],
        lanes=config["execution"]["lanes"],
    run:
        wall_times.timed(
            params.wall_time,
            compare_native.run_job,
            job(input, output, params, log),
        )


rule run_coldstart:
    input:
        unpack(get_driver_inputs),
        native_env=lambda wildcards: env_stamp(language_of(wildcards.driver)),
        images=get_all_images,
        gate=verification_gate(),
    output:
        "results/raw/{driver}/coldstart.json",
    log:
        "logs/run_coldstart/{driver}.log",
    resources:
        bench=0 if config["execution"]["lanes"] else 1,
    params:
        wall_time="logs/wall_times/run_coldstart/{driver}.tsv",
        driver=get_driver,
        native_driver=lambda wildcards: native_driver_params(wildcards.driver),
        settings=config["suites"]["coldstart"],
        payload=jwt_input_file(),
        cpus=config["execution"]["cpus"],
        lanes=config["execution"]["lanes"],
    run:
        wall_times.timed(
            params.wall_time,
            coldstart.run_job,
            job(input, output, params, log, wildcards),
        )


rule summarize_coldstart:
    input:
        expand("results/raw/{driver}/coldstart.json", driver=JWS_LANGUAGES),
    output:
        "results/coldstart.csv",
    log:
        "logs/summarize_coldstart/summarize_coldstart.log",
    benchmark:
        "logs/wall_times/summarize_coldstart/summarize_coldstart.tsv"
    params:
        statistics=config["statistics"],
    run:
        coldstart.summarize(job(input, output, params, log))
