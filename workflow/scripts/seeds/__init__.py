"""One module per seed study's analysis and verdicts (seed000 ... seed004), and how a claim
is judged (verdict_rules). What each seed reads and writes, and which ratios its verdicts
rest on, is the seeds' registry (workflow/seeds.yaml)."""
