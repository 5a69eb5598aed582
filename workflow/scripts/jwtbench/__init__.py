"""The shared library of the pipeline: statistics, raw samples, variants, config, container
engine, machine lock. Imported by the rule scripts and the seeds; never run by a rule."""
