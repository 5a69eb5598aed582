# The gate before timing: each driver signs every variant through its CLI and must accept
# its own tokens and reject tampered and unsigned twins, and must pass the JWS known
# answers (RFC 7515 A.1-A.4, RFC 8037 A.4); then every driver (each language's own and the
# further libraries) verifies every other's tokens, and the conformance suite sends every JWS driver the hostile tokens of
# data/conformance/cases.yaml. Drivers run as they will be timed (in their images, or
# natively).


rule record_versions:
    input:
        unpack(get_driver_inputs),
    output:
        "results/versions/{driver}.json",
    log:
        "logs/record_versions/{driver}.log",
    benchmark:
        "logs/wall_times/record_versions/{driver}.tsv"
    params:
        driver=get_driver,
    run:
        verify_tokens.record_versions(job(input, output, params, log))


rule check_driver:
    input:
        unpack(get_driver_inputs),
        known_answers=repo_path("data/vectors/jws-known-answers.json"),
    output:
        table="results/verify/self/{driver}.csv",
        # One folder below the driver's name, so that node's is not a parent of node/jose's.
        tokens=directory("results/verify/tokens/{driver}/signed"),
    log:
        "logs/check_driver/{driver}.log",
    benchmark:
        "logs/wall_times/check_driver/{driver}.tsv"
    params:
        variants=[variant.name for variant in JWT_VARIANTS],
        payload=jwt_input_file(),
        drivers=get_own_driver,
        unsupported=lambda wildcards: DRIVERS[wildcards.driver]["unsupported"],
    run:
        verify_tokens.run_job(job(input, output, params, log, wildcards))


rule check_interop:
    input:
        tables=expand("results/verify/self/{driver}.csv", driver=JWS_DRIVERS),
        tokens=expand("results/verify/tokens/{driver}/signed", driver=JWS_DRIVERS),
        key_manifest=KEY_MANIFEST,
    output:
        matrix="results/verify/matrix.csv",
    log:
        "logs/check_interop/check_interop.log",
    benchmark:
        "logs/wall_times/check_interop/check_interop.tsv"
    threads: 2
    params:
        variants=interop_variants(),
        payload=jwt_input_file(),
        drivers=all_drivers(),
    run:
        verify_tokens.run_job(job(input, output, params, log, wildcards, threads))


rule check_deterministic_tokens:
    input:
        tokens=expand("results/verify/tokens/{driver}/signed", driver=JWS_DRIVERS),
        key_manifest=KEY_MANIFEST,
    output:
        "results/verify/deterministic.csv",
    log:
        "logs/check_deterministic_tokens/check_deterministic_tokens.log",
    benchmark:
        "logs/wall_times/check_deterministic_tokens/check_deterministic_tokens.tsv"
    params:
        variants=[variant.name for variant in JWT_VARIANTS],
    run:
        deterministic_tokens.run_job(job(input, output, params, log))


rule check_conformance:
    input:
        cases=repo_path("data/conformance/cases.yaml"),
        known=repo_path("data/conformance/known-deviations.csv"),
        # After each driver's own checks: a driver that fails those is not asked more.
        tables=expand("results/verify/self/{driver}.csv", driver=JWS_DRIVERS),
        versions=expand("results/versions/{driver}.json", driver=JWS_DRIVERS),
        key_manifest=KEY_MANIFEST,
    output:
        table="results/verify/conformance.csv",
        policy="results/verify/verify-policy.csv",
    log:
        "logs/check_conformance/check_conformance.log",
    benchmark:
        "logs/wall_times/check_conformance/check_conformance.tsv"
    threads: 2
    params:
        drivers=all_drivers(),
        policy={name: DRIVERS[name]["verify"] for name in JWS_DRIVERS},
        case_timeout=config["conformance"]["case_timeout_seconds"],
    run:
        check_conformance.run_job(job(input, output, params, log, wildcards, threads))
