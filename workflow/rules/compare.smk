# Comparing runs and hosts from their bundles (docs/results.md, "Comparing runs and hosts"). Targets
# run on demand, never part of `all`:
#   snakemake compare --config 'compare={bundles: [A, B]}'     -> results/compare/report.html
#   snakemake merge --config 'merge={bundles: [A, B, ...]}'    -> results/merged/report.html
# A bundle is a directory results/bundles/<host-id>/<run-id> or its .tar.gz archive; the
# steps check the count of bundles, so their errors name the config key. The render rules
# reuse render_report.py with another document of report/.


rule compare_runs:
    input:
        bundles=config_bundles("compare"),
    output:
        cells="results/compare/cells.csv",
        verdicts="results/compare/verdicts.csv",
        runs="results/compare/runs.csv",
        settings="results/compare/compare.json",
    log:
        "logs/compare_runs/compare_runs.log",
    params:
        bundles=config["compare"]["bundles"],
        threshold=config["compare"]["threshold"],
        statistics=config["statistics"],
    run:
        compare_runs.run_job(job(input, output, params, log))


rule render_compare:
    input:
        tables=rules.compare_runs.output,
        images=[image_record("report")] if IN_CONTAINERS else [],
        sources=[
            str(SOURCE / "report" / name)
            for name in ("compare.qmd", "R/text.R", "R/compare.R")
        ],
    output:
        "results/compare/report.html",
    log:
        "logs/render_compare/render_compare.log",
    params:
        renderer=config["report"]["renderer"],
        engine=ENGINE.as_dict(),
        results=lambda wildcards, output: str(Path(output[0]).parent),
        document="compare.qmd",
    run:
        render_report.run_job(job(input, output, params, log))


rule compare:
    input:
        rules.render_compare.output,


rule merge_hosts:
    input:
        bundles=config_bundles("merge"),
    output:
        summary="results/merged/summary.csv",
        ratios="results/merged/ratios.csv",
        verdicts="results/merged/verdicts.csv",
        runs="results/merged/runs.csv",
    log:
        "logs/merge_hosts/merge_hosts.log",
    params:
        bundles=config["merge"]["bundles"],
    run:
        merge_hosts.run_job(job(input, output, params, log))


rule render_merged:
    input:
        tables=rules.merge_hosts.output,
        images=[image_record("report")] if IN_CONTAINERS else [],
        sources=[
            str(SOURCE / "report" / name)
            for name in ("merge.qmd", "R/text.R", "R/compare.R", "R/merge.R")
        ],
    output:
        "results/merged/report.html",
    log:
        "logs/render_merged/render_merged.log",
    params:
        renderer=config["report"]["renderer"],
        engine=ENGINE.as_dict(),
        results=lambda wildcards, output: str(Path(output[0]).parent),
        document="merge.qmd",
    run:
        render_report.run_job(job(input, output, params, log))


rule merge:
    input:
        rules.render_merged.output,
