# The run's warnings (results/warnings.csv, rule collect_warnings): what the run detected
# that may make a number wrong, as one callout on the report's first screen, each with what
# it means and what the reader can do. "" when the run raised none (or an older run's
# results have no warnings.csv).
run_warnings_callout <- function(dir = results_dir) {
  path <- file.path(dir, "warnings.csv")
  if (!file.exists(path)) return("")
  found <- fread(path, colClasses = "character", na.strings = NULL)
  if (!nrow(found)) return("")
  items <- paste0("- ", capitalise(md_escape(found$message)), ". *What to do:* ", md_escape(found$action), ".")
  callout_warning(
    "**This run raised ", nrow(found), " warning", if (nrow(found) > 1) "s", " about its numbers** ",
    "(`warnings.csv`; `./jwtbench run --strict` fails on ", if (nrow(found) > 1) "them" else "it", "). ",
    "The run measured honestly; these say which figures to doubt.\n\n",
    paste(items, collapse = "\n"), "\n")
}
