"""One script per rule or stage of the workflow (and the jwtbench commands' scripts), each
called from a rule's run: block through its run_job (or run from the command line)."""
