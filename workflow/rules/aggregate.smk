# Raw samples and run facts to the summary, the ratios and the provenance record.


rule aggregate_samples:
    input:
        samples=get_raw_samples,
        specs=get_bench_specs,
    output:
        summary="results/summary.csv",
        ratios="results/ratios.csv",
        drift="results/drift.csv",
    log:
        "logs/aggregate_samples/aggregate_samples.log",
    benchmark:
        "logs/wall_times/aggregate_samples/aggregate_samples.tsv"
    params:
        statistics=config["statistics"],
        libraries={name: DRIVERS[name]["library"] for name in DRIVER_NAMES},
    run:
        aggregate_samples.run_job(job(input, output, params, log))


rule summarize_crosscheck:
    input:
        # In the order of params.drivers.
        blocks=expand("results/crosscheck/{driver}.csv", driver=CROSSCHECK_DRIVERS),
    output:
        # The first pass; rule confirm_crosscheck measures its disagreements again.
        "results/crosscheck/first-pass.csv",
    log:
        "logs/summarize_crosscheck/summarize_crosscheck.log",
    benchmark:
        "logs/wall_times/summarize_crosscheck/summarize_crosscheck.tsv"
    params:
        drivers=CROSSCHECK_DRIVERS,
        band=CROSSCHECK["band"],
        gaps={name: DRIVERS[name]["crosscheck_gaps"] for name in CROSSCHECK_DRIVERS},
    run:
        summarize_crosscheck.run_job(job(input, output, params, log))


# Everything that may make a number wrong, for the report's first screen and the terminal.
rule collect_warnings:
    input:
        unpack(get_warning_inputs),
    output:
        "results/warnings.csv",
    log:
        "logs/collect_warnings/collect_warnings.log",
    benchmark:
        "logs/wall_times/collect_warnings/collect_warnings.tsv"
    params:
        max_drift_pct=config["statistics"]["max_drift_pct"],
    run:
        run_warnings.run_job(job(input, output, params, log))


# After the report and the bundle, so that under --strict a warning fails the run with
# nothing lost; without it the run exits 0 and its last lines say what to doubt.
rule check_run:
    input:
        warnings="results/warnings.csv",
        report="results/report/report.html",
        bundle="results/bundles/latest.json",
    output:
        "results/run.checked",
    log:
        "logs/check_run/check_run.log",
    benchmark:
        "logs/wall_times/check_run/check_run.tsv"
    params:
        strict=STRICT,
    run:
        run_warnings.check_job(job(input, output, params, log))


rule describe_drivers:
    input:
        # In the order of params.manifests.
        versions=expand("results/versions/{driver}.json", driver=DRIVER_NAMES),
    output:
        "results/drivers.csv",
    log:
        "logs/describe_drivers/describe_drivers.log",
    benchmark:
        "logs/wall_times/describe_drivers/describe_drivers.tsv"
    params:
        manifests={name: DRIVERS[name] for name in DRIVER_NAMES},
    run:
        describe_drivers.run_job(job(input, output, params, log))


rule collect_provenance:
    input:
        metadata=get_raw_metadata,
        versions=expand("results/versions/{driver}.json", driver=DRIVER_NAMES),
        images=get_all_images,
        # Where each language's dependencies are read: its image, or its native environment.
        environments=[runtime_of(language) for language in LANGUAGES],
        datasets=get_dataset_facts,
        cycle_counter="results/cycle_counter.json",
    output:
        "results/provenance.json",
    log:
        "logs/collect_provenance/collect_provenance.log",
    benchmark:
        "logs/wall_times/collect_provenance/collect_provenance.tsv"
    params:
        config=RUN_CONFIG,
        source=str(SOURCE),
        engine=ENGINE.as_dict(),
    run:
        collect_provenance.run_job(job(input, output, params, log))


rule reproduce_seed000:
    input:
        unpack(seed_inputs("seed000")),
    output:
        rates="results/seed000/rates.csv",
        tokensize="results/seed000/tokensize.csv",
        transfer="results/seed000/transfer.csv",
        ratios="results/seed000/ratios.csv",
        verdicts="results/seed000/verdicts.csv",
    log:
        "logs/reproduce_seed000/reproduce_seed000.log",
    benchmark:
        "logs/wall_times/reproduce_seed000/reproduce_seed000.tsv"
    params:
        languages=JWS_LANGUAGES,
        datasets=list(DATASETS),
        statistics=config["statistics"],
    run:
        seed000.run_job(job(input, output, params, log))


rule reproduce_seed001:
    input:
        unpack(seed_inputs("seed001")),
    output:
        rankings="results/seed001/rankings.csv",
        verdicts="results/seed001/verdicts.csv",
    log:
        "logs/reproduce_seed001/reproduce_seed001.log",
    benchmark:
        "logs/wall_times/reproduce_seed001/reproduce_seed001.tsv"
    params:
        languages=JWS_LANGUAGES,
        statistics=config["statistics"],
    run:
        seed001.run_job(job(input, output, params, log))


rule measure_cycle_counter:
    output:
        "results/cycle_counter.json",
    log:
        "logs/measure_cycle_counter/measure_cycle_counter.log",
    resources:
        # It spins one CPU for about a second: never beside a benchmark.
        bench=1,
    params:
        wall_time="logs/wall_times/measure_cycle_counter/measure_cycle_counter.tsv",
    run:
        wall_times.timed(
            params.wall_time, cycle_counter.run_job, job(input, output, params, log)
        )


rule reproduce_seed002:
    input:
        unpack(seed_inputs("seed002")),
        cycle_counter="results/cycle_counter.json",
    output:
        cases="results/seed002/cases.csv",
        sweep="results/seed002/sweep.csv",
        verdicts="results/seed002/verdicts.csv",
    log:
        "logs/reproduce_seed002/reproduce_seed002.log",
    benchmark:
        "logs/wall_times/reproduce_seed002/reproduce_seed002.tsv"
    params:
        statistics=config["statistics"],
    run:
        seed002.run_job(job(input, output, params, log))


rule reproduce_seed003:
    input:
        unpack(seed_inputs("seed003")),
    output:
        speed="results/seed003/speed.csv",
        verdicts="results/seed003/verdicts.csv",
        overhead="results/primitive/overhead.csv",
    log:
        "logs/reproduce_seed003/reproduce_seed003.log",
    benchmark:
        "logs/wall_times/reproduce_seed003/reproduce_seed003.tsv"
    params:
        languages=LANGUAGES,
        statistics=config["statistics"],
    run:
        seed003.run_job(job(input, output, params, log))


rule reproduce_seed004:
    input:
        unpack(seed_inputs("seed004")),
    output:
        runs="results/seed004/runs.csv",
        decomposed="results/seed004/decomposed.csv",
        verdicts="results/seed004/verdicts.csv",
    log:
        "logs/reproduce_seed004/reproduce_seed004.log",
    benchmark:
        "logs/wall_times/reproduce_seed004/reproduce_seed004.tsv"
    params:
        statistics=config["statistics"],
    run:
        seed004.run_job(job(input, output, params, log))


# The machine's noise beside each benchmark (run_benchmark's metadata, `noise`) as one table.
rule summarize_noise:
    input:
        metadata=get_raw_metadata,
    output:
        noise="results/noise.csv",
    log:
        "logs/summarize_noise/summarize_noise.log",
    benchmark:
        "logs/wall_times/summarize_noise/summarize_noise.tsv"
    run:
        from jwtbench.rules import summarize_noise

        summarize_noise.run_job(job(input, output, params, log))
