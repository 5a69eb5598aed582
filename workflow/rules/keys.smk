# One key set per run, shared by every language. Private files are mode 0600 in a 0700
# directory outside results/, so no result, bundle or report can carry one.


rule generate_keys:
    output:
        manifest=KEY_MANIFEST,
    log:
        "logs/generate_keys/generate_keys.log",
    benchmark:
        "logs/wall_times/generate_keys/generate_keys.tsv"
    params:
        key_names=key_names(),
    run:
        generate_keys.run_job(job(input, output, params, log))
