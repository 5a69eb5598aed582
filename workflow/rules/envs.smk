# Native environments: each language's pinned dependencies, installed from envs/<language>/.
# Under a container engine a compiled driver's binary comes from its image instead
# (native_env.py).


rule install_native_env:
    input:
        manifests=env_manifests,
        image=native_env_image,
    output:
        ".envs/{language}/.installed",
    log:
        "logs/install_native_env/{language}.log",
    benchmark:
        "logs/wall_times/install_native_env/{language}.tsv"
    params:
        installer=get_env_installer,
        engine=ENGINE.as_dict(),
    run:
        native_env.run_job(job(input, output, params, log, wildcards))
