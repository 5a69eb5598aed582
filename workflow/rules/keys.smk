# One key set per run, shared by every language. Private files are mode 0600 in a 0700
# directory outside results/, so no result, bundle or report can carry one.


rule generate_keys:
    output:
        manifest=f"{KEY_DIR}/manifest.json",
    log:
        "logs/generate_keys/generate_keys.log",
    params:
        key_names=key_names(),
        out_dir=KEY_DIR,
    script:
        "../scripts/generate_keys.py"
