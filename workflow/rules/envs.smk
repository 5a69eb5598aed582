# Native environments: each language's pinned dependencies, installed from envs/<language>/.


rule install_native_env:
    input:
        env_manifests,
    output:
        ".envs/{language}/.installed",
    log:
        "logs/install_native_env/{language}.log",
    benchmark:
        "logs/wall_times/install_native_env/{language}.tsv"
    params:
        installer=get_env_installer,
    run:
        shell("{params.installer} .envs/{wildcards.language} > {log} 2>&1")
