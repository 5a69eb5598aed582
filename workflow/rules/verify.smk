# The gate before timing: each driver signs every variant through its CLI and must accept
# its own tokens and reject tampered and unsigned twins, and must pass the JWS known
# answers (RFC 7515 A.1-A.4, RFC 8037 A.4); then every language verifies every other's
# tokens, and the conformance suite sends every JWS driver the hostile tokens of
# data/conformance/cases.yaml. Drivers run as they will be timed (in their images, or
# natively).


rule record_versions:
    input:
        unpack(get_driver_inputs),
    output:
        "results/versions/{language}.json",
    log:
        "logs/record_versions/{language}.log",
    benchmark:
        "logs/wall_times/record_versions/{language}.tsv"
    params:
        driver=get_driver,
    run:
        verify_tokens.record_versions(job(input, output, params, log))


rule check_driver:
    input:
        unpack(get_driver_inputs),
        known_answers=repo_path("data/vectors/jws-known-answers.json"),
    output:
        table="results/verify/self/{language}.csv",
        tokens=directory("results/verify/tokens/{language}"),
    log:
        "logs/check_driver/{language}.log",
    benchmark:
        "logs/wall_times/check_driver/{language}.tsv"
    threads: 2
    params:
        variants=[variant.name for variant in JWT_VARIANTS],
        payload=jwt_input_file(),
        drivers=get_own_driver,
        unsupported=lambda wildcards: DRIVERS[wildcards.language]["unsupported"],
    run:
        verify_tokens.run_job(job(input, output, params, log, wildcards, threads))


rule check_interop:
    input:
        tables=expand("results/verify/self/{language}.csv", language=JWS_LANGUAGES),
        tokens=expand("results/verify/tokens/{language}", language=JWS_LANGUAGES),
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
        tokens=expand("results/verify/tokens/{language}", language=JWS_LANGUAGES),
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
        tables=expand("results/verify/self/{language}.csv", language=JWS_LANGUAGES),
        versions=expand("results/versions/{language}.json", language=JWS_LANGUAGES),
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
        policy={language: DRIVERS[language]["verify"] for language in JWS_LANGUAGES},
        case_timeout=config["conformance"]["case_timeout_seconds"],
    run:
        check_conformance.run_job(job(input, output, params, log, wildcards, threads))
