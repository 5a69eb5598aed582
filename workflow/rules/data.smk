# Datasets: each one found (Kaggle, data/raw/<name>.csv, or a synthetic stand-in),
# validated, and written once as the canonical payloads every language reads.


rule install_kaggle_client:
    input:
        SOURCE / "envs" / "kaggle" / "requirements.txt",
    output:
        ".envs/kaggle/.installed",
    log:
        "logs/install_kaggle_client/install_kaggle_client.log",
    benchmark:
        "logs/wall_times/install_kaggle_client/install_kaggle_client.tsv"
    params:
        installer=SOURCE / "envs" / "kaggle" / "install",
    run:
        shell("{params.installer} .envs/kaggle > {log} 2>&1")


rule prepare_dataset:
    input:
        unpack(get_dataset_inputs),
    output:
        source="results/data/{dataset}/source.csv",
        payloads="results/data/{dataset}/payloads.jsonl",
        records="results/data/{dataset}/records.jsonl",
        tokensize="results/data/{dataset}/tokensize.jsonl",
        body="results/data/{dataset}/body.json",
        facts="results/data/{dataset}/dataset.json",
    log:
        "logs/prepare_dataset/{dataset}.log",
    benchmark:
        "logs/wall_times/prepare_dataset/{dataset}.tsv"
    params:
        data_dir=str(DATA_DIR),
        dataset=lambda wildcards: DATASETS[wildcards.dataset],
        source=lambda wildcards: DATASET_SOURCES[wildcards.dataset],
        records_per_cell=JWT["records_per_cell"],
        tokensize_records=config["suites"]["tokensize"]["records"],
        kaggle_bin=".envs/kaggle/bin/kaggle",
    run:
        prepare_dataset.run_job(job(input, output, params, log, wildcards))


rule write_jwt_signing_input:
    input:
        claims=jwt_input_file(),
    output:
        JWT_SIGNING_INPUT,
    log:
        "logs/write_jwt_signing_input/write_jwt_signing_input.log",
    benchmark:
        "logs/wall_times/write_jwt_signing_input/write_jwt_signing_input.tsv"
    run:
        write_bench_spec.write_signing_input(job(input, output, params, log))
