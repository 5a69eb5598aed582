# Benchmarks: one job per (language, suite), never two at once (resource bench=1, set in
# workflow/profiles/default), and only after every language passed the gate.


rule write_bench_spec:
    input:
        key_manifest=KEY_MANIFEST,
    output:
        spec="results/specs/{language}/{suite}.json",
    log:
        "logs/write_bench_spec/{language}/{suite}.log",
    params:
        suite_config=get_suite_config,
        timing=config["timing"],
        input_file=jwt_input_file(),
    run:
        write_bench_spec.run_job(job(input, output, params, log, wildcards))


rule run_benchmark:
    input:
        unpack(get_driver_inputs),
        spec="results/specs/{language}/{suite}.json",
        # The whole verification stage finishes first: its jobs must never share the
        # machine with a benchmark, and a language that failed its own checks stops here.
        gate="results/verify/matrix.csv",
        versions="results/versions/{language}.json",
    output:
        samples="results/raw/{language}/{suite}.csv",
        metadata="results/raw/{language}/{suite}.json",
    log:
        "logs/run_benchmark/{language}/{suite}.log",
    resources:
        bench=1,
    params:
        driver=get_driver,
        cpus=config["execution"]["cpus"],
    run:
        run_benchmark.run_job(job(input, output, params, log, wildcards))


rule crosscheck_harness:
    input:
        summary="results/summary.csv",
        envs=expand(".envs/{language}/.installed", language=LANGUAGES),
        drivers=[
            source for language in LANGUAGES for source in driver_sources(language)
        ],
        key_manifest=KEY_MANIFEST,
    output:
        "results/crosscheck.csv",
    log:
        "logs/crosscheck_harness/crosscheck_harness.log",
    resources:
        bench=1,
    params:
        languages=LANGUAGES,
        variants=config["crosscheck"]["variants"],
        tolerance=config["crosscheck"]["tolerance"],
        repeats=config["crosscheck"]["repeats"],
        timing=config["timing"],
        payload=jwt_input_file(),
        cpus=config["execution"]["cpus"],
    run:
        crosscheck_harness.run_job(job(input, output, params, log))
