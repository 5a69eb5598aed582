# merge.qmd: runs of several hosts side by side (results/merged/, written by
# merge_hosts.py). Every table and figure keeps host and run apart (column `label`, "host
# / run"); absolute times are faceted by run, never pooled. Functions only.

merge_read <- function(dir) {
  runs <- bundle_table(dir, "runs.csv", c("host_id", "run_id", "label"))
  summary <- bundle_table(dir, "summary.csv",
                          c("host_id", "run_id", "label", "language", "suite", "operation", "variant",
                            "input", "status"),
                          c("median_ns", "ci_low_ns", "ci_high_ns"))
  ratios <- bundle_table(dir, "ratios.csv",
                         c("host_id", "run_id", "label", "language", "implementation", "suite", "input",
                           "kind", "numerator", "denominator"),
                         c("ratio", "ci_low", "ci_high"))
  verdicts <- bundle_table(dir, "verdicts.csv", c("host_id", "run_id", "label", "seed", "claim", "verdict"),
                           c("ratio", "ratio_min", "ratio_max", "ci_low", "ci_high"))
  # Runs in the order the bundles were named; the label wrapped for facet strips.
  levels <- unique(runs$label)
  for (dt in list(runs, summary, ratios, verdicts)) dt[, label := factor(label, levels = levels)]
  list(runs = runs, summary = summary, ratios = ratios, verdicts = verdicts)
}

merge_runs_table <- function(runs) {
  pick <- function(name) if (name %in% names(runs)) md_escape(runs[[name]]) else rep("\u2013", nrow(runs))
  data.table(host = code(runs$host_id), run = code(runs$run_id), started = pick("started"),
             CPU = pick("CPU"), kernel = pick("kernel"), execution = pick("execution"),
             commit = pick("git commit"))
}

merge_run_colours <- function(levels) {
  okabe_ito <- c("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")
  cols <- if (length(levels) <= length(okabe_ito)) okabe_ito[seq_along(levels)]
          else grDevices::hcl.colors(length(levels), "Dark 3")
  setNames(cols, levels)
}

wrap_label <- function(x) gsub(" / ", "\n", as.character(x), fixed = TRUE)

# Median ns/op of every timed cell: one column of panels per host and run (never pooled),
# one row per suite, languages side by side in colour.
merge_median_figure <- function(summary) {
  timed <- summary[status == "ok" & !is.na(median_ns)]
  timed[, row := paste(operation, variant, input)]
  dodge <- position_dodge(width = 0.6)
  ggplot(timed, aes(x = median_ns, y = row, colour = language)) +
    geom_errorbarh(aes(xmin = ci_low_ns, xmax = ci_high_ns), height = 0.3, position = dodge) +
    geom_point(size = 1.5, position = dodge) +
    scale_x_log10(labels = function(x) bundle_fmt_ns(x, 2), breaks = scales::breaks_log(4)) +
    facet_grid(suite ~ label, scales = "free_y", space = "free_y",
               labeller = labeller(label = wrap_label)) +
    theme(strip.text.y = element_text(angle = 0, hjust = 0), axis.text.y = element_text(size = 7.5),
          strip.text.x = element_text(size = 8), panel.spacing.x = unit(1, "lines")) +
    labs(x = "median time per operation (log scale; each column of panels one host and run)", y = NULL)
}

# The within-run ratios (ratios.csv), each run in its own colour, side by side per ratio:
# one row of panels per language, suite and kind of ratio.
merge_ratio_figure <- function(ratios, colours) {
  shown <- ratios[!is.na(ratio)]
  shown[, `:=`(row = paste(ifelse(kind == "verify/sign", sub("^[^:]*:", "", numerator), numerator), input),
               panel = paste(language, suite, kind, sep = " \u00b7 "))]
  dodge <- position_dodge(width = 0.7)
  ggplot(shown, aes(x = ratio, y = row, colour = label)) +
    geom_vline(xintercept = 1, colour = "grey40") +
    geom_errorbarh(aes(xmin = ci_low, xmax = ci_high), height = 0.4, position = dodge) +
    geom_point(size = 1.5, position = dodge) +
    scale_x_log10() +
    scale_colour_manual(values = colours, name = "host / run", labels = wrap_label) +
    facet_grid(panel ~ ., scales = "free_y", space = "free_y") +
    theme(strip.text.y = element_text(angle = 0, hjust = 0), axis.text.y = element_text(size = 7.5)) +
    labs(x = "ratio within the run (log scale)", y = NULL) +
    guides(colour = guide_legend(ncol = 1))
}

# Median [CI] per cell, one column per run: side by side, never averaged.
merge_median_table <- function(summary) {
  cells <- summary[, .(language, suite, operation, variant, input, label,
                       value = ifelse(status == "ok" & !is.na(median_ns),
                                      paste0(bundle_fmt_ns(median_ns), " (", bundle_fmt_ns(ci_low_ns), "\u2013",
                                             bundle_fmt_ns(ci_high_ns), ")"),
                                      status))]
  wide <- dcast(cells, language + suite + operation + variant + input ~ label, value.var = "value",
                fill = "\u2013")
  wide[]
}

# One row per claim, one column per run: the verdict and the figure it rests on.
merge_verdict_table <- function(verdicts) {
  ids <- setdiff(names(verdicts), c("host_id", "run_id", "label", "seed", "claim", "what", "verdict", "ratio",
                                    "ratio_min", "ratio_max", "ci_low", "ci_high"))
  verdicts <- copy(verdicts)
  verdicts[, subject := apply(.SD, 1, function(row) paste(row[nzchar(row)], collapse = ", ")), .SDcols = ids]
  verdicts[, value := paste0(verdict, " (", verdict_figure(ratio, ratio_min, ratio_max, ci_low, ci_high), ")")]
  verdicts[, differs := uniqueN(verdict) > 1 | .N < uniqueN(verdicts$label), by = .(seed, claim, subject)]
  wide <- dcast(verdicts, differs + seed + claim + subject ~ label, value.var = "value", fill = "\u2013")
  setorder(wide, -differs, seed, claim, subject)
  wide[, differs := ifelse(differs, "\u2260", "")]
  setnames(wide, "differs", " ")
  wide[]
}
