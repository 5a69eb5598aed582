# The report: Quarto document with ggplot2 figures, rendered by quarto when it is on
# PATH, else by knitr + pandoc (config report.renderer).


rule render_report:
    input:
        unpack(get_report_inputs),
    output:
        "results/report/report.html",
    log:
        "logs/render_report/render_report.log",
    params:
        renderer=config["report"]["renderer"],
        script=SCRIPTS / "render_report.sh",
    run:
        shell("{params.script} results {output} {params.renderer} > {log} 2>&1")
