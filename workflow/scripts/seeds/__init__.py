"""One module per seed study's analysis and verdicts (seed000 ... seed004), and what they
share: how a claim is judged (verdict_rules) and which ratios the verdicts rest on
(verdict_pairs)."""
