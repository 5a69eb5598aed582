# Raw samples and run facts to the summary, the ratios and the provenance record.


rule aggregate_samples:
    input:
        samples=get_raw_samples,
    output:
        summary="results/summary.csv",
        ratios="results/ratios.csv",
    log:
        "logs/aggregate_samples/aggregate_samples.log",
    params:
        statistics=config["statistics"],
    script:
        "../scripts/aggregate_samples.py"


rule collect_provenance:
    input:
        metadata=get_raw_metadata,
        versions=expand("results/versions/{language}.json", language=LANGUAGES),
    output:
        "results/provenance.json",
    log:
        "logs/collect_provenance/collect_provenance.log",
    params:
        config=config,
        source=str(SOURCE),
    script:
        "../scripts/collect_provenance.py"
