# Images (container engines only): the Debian base, the runtime image every driver image
# is FROM (containers/runtime/), then one image per language and one for the report, each
# tagged by a hash of its inputs so an unchanged image is never rebuilt. Builds share the
# machine with each other, never with a benchmark (machine_lock.py).


rule build_base_image:
    output:
        image_record("base"),
    log:
        "logs/build_image/base.log",
    benchmark:
        "logs/wall_times/build_base_image/base.tsv"
    params:
        engine=ENGINE.as_dict(),
        base_image=config["execution"]["base_image"],
        mirror=config["execution"]["debian_mirror"],
    run:
        build_image.run_base_job(job(input, output, params, log))


rule build_image:
    input:
        base=image_record("base"),
        runtime=get_runtime_image,
        sources=get_image_sources,
    output:
        "results/images/{image}.json",
    log:
        "logs/build_image/{image}.log",
    benchmark:
        "logs/wall_times/build_image/{image}.tsv"
    priority: get_build_priority
    resources:
        image_builds=1,
    params:
        engine=ENGINE.as_dict(),
        repo=str(SOURCE),
        ca_bundle=config["execution"]["build_ca_bundle"],
        build_args=get_build_args,
    run:
        build_image.run_image_job(job(input, output, params, log, wildcards))


# Image records whose image the engine no longer has, or has under another ID (pruned and
# rebuilt, another machine's results): removed, so that the next call rebuilds them and
# everything that ran in them. Parsing the workflow changes nothing (snakemake -n, --lint),
# so this is a target of its own; ./jwtbench run asks for it before the run.
localrules:
    forget_missing_images,


rule forget_missing_images:
    log:
        "logs/forget_missing_images.log",
    run:
        build_image.run_forget_job(ENGINE if IN_CONTAINERS else None, log[0])
