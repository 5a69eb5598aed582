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
    params:
        renderer=config["report"]["renderer"],
        engine=ENGINE.as_dict(),
        results=lambda wildcards, input: str(Path(input.summary).parent),
    run:
        render_report.run_job(job(input, output, params, log))
