# jwtbench: a reproducible cross-language benchmark of JWT signing.
# Stages and contracts: README.md and workflow/scripts/README.md.
from snakemake.utils import min_version

min_version("9.0")


configfile: f"{workflow.basedir}/config/config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/envs.smk"
include: "workflow/rules/keys.smk"
include: "workflow/rules/verify.smk"
include: "workflow/rules/bench.smk"
include: "workflow/rules/aggregate.smk"
include: "workflow/rules/report.smk"


rule all:
    default_target: True
    input:
        get_final_outputs(),
