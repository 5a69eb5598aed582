# The report: Quarto document with ggplot2 figures, rendered by quarto when it is on
# PATH, else by knitr + pandoc (config report.renderer); inside the report image under a
# container engine, natively otherwise.


rule render_report:
    input:
        unpack(get_report_inputs),
    output:
        "results/report/report.html",
    log:
        "logs/render_report/render_report.log",
    benchmark:
        "logs/wall_times/render_report/render_report.tsv"
    params:
        renderer=config["report"]["renderer"],
        engine=ENGINE.as_dict(),
        results=lambda wildcards, input: str(Path(input.summary).parent),
    run:
        render_report.run_job(job(input, output, params, log))


rule collect_wall_times:
    input:
        unpack(get_wall_time_inputs),
    output:
        "results/wall_times.csv",
    log:
        "logs/collect_wall_times/collect_wall_times.log",
    params:
        folder=str(wall_times.FOLDER),
    run:
        wall_times.run_job(job(input, output, params, log))
