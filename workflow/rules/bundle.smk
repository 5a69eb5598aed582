# The run's results as a portable, self-checking bundle (workflow/scripts/rules/bundles.py):
# results/bundles/<host-id>/<run-id>/ with a manifest of SHA-256s, the same tree as
# <run-id>.tar.gz, and results/bundles/latest.json naming both.


rule write_bundle:
    input:
        unpack(get_bundle_inputs),
    output:
        latest="results/bundles/latest.json",
    log:
        "logs/write_bundle/write_bundle.log",
    benchmark:
        "logs/wall_times/write_bundle/write_bundle.tsv"
    params:
        config=RUN_CONFIG,
    run:
        bundles.run_job(job(input, output, params, log))
