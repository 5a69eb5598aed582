# compare.qmd: two runs of one host (results/compare/, written by compare_runs.py), and
# the set-up compare.qmd and merge.qmd share (they do not source _common.R, which reads a
# run's results). Functions only: report.qmd sources every R/ helper too.

# Packages, knitr defaults and the theme of the bundle reports; the tables directory.
bundle_report_setup <- function() {
  suppressPackageStartupMessages({
    library(ggplot2)
    library(data.table)
    library(jsonlite)
    library(knitr)
  })
  set.seed(20261121)
  knitr::opts_chunk$set(
    echo = FALSE, message = FALSE, warning = FALSE, fig.width = 9, fig.height = 5, dpi = 96,
    fig.retina = 1, dev = "png", fig.align = "center", out.width = "100%"
  )
  # As in _common.R: under knitr + pandoc each fig- chunk's figure is wrapped in a div
  # carrying its label as id (Quarto gives it that id itself).
  if (is.null(knitr::opts_knit$get("quarto.version"))) {
    plot_hook <- knitr::knit_hooks$get("plot")
    knitr::knit_hooks$set(plot = function(x, options) {
      inner <- plot_hook(x, options)
      if (!startsWith(options$label, "fig-")) return(inner)
      paste0('\n<div id="', options$label, '" class="figure-anchor">\n', inner, "\n</div>\n")
    })
  }
  theme_set(theme_bw(base_size = 11) + theme(
    legend.position = "bottom", panel.grid.minor = element_blank(),
    strip.background = element_rect(fill = "grey92", colour = "grey70"),
    plot.title.position = "plot"
  ))
  dir <- Sys.getenv("JWTBENCH_RESULTS")
  if (!nzchar(dir) || !dir.exists(dir)) {
    stop("JWTBENCH_RESULTS must name the directory of the tables (results/compare or results/merged), got '",
         dir, "'", call. = FALSE)
  }
  normalizePath(dir)
}

# One CSV of the tables directory, every column as text unless listed as numeric; stops
# naming the file when it is missing or lacks a column.
bundle_table <- function(dir, name, columns, numeric = character()) {
  path <- file.path(dir, name)
  if (!file.exists(path)) stop("report input missing: ", path, call. = FALSE)
  dt <- fread(path, colClasses = "character", na.strings = NULL)
  absent <- setdiff(c(columns, numeric), names(dt))
  if (length(absent)) stop(path, " lacks column(s): ", paste(absent, collapse = ", "), call. = FALSE)
  for (col in numeric) set(dt, j = col, value = suppressWarnings(as.numeric(dt[[col]])))
  dt[]
}

# 850 ns, 9.07 µs, 1.1 ms; a dash when missing.
bundle_fmt_ns <- function(ns, digits = 3) {
  out <- rep("\u2013", length(ns))
  ok <- !is.na(ns)
  step <- pmax(1, findInterval(abs(ns[ok]), c(0, 1e3, 1e6, 1e9)))
  div <- c(1, 1e3, 1e6, 1e9)[step]
  unit <- c("ns", "\u00b5s", "ms", "s")[step]
  out[ok] <- paste(formatC(signif(ns[ok] / div, digits), digits = digits, format = "fg"), unit)
  trimws(out)
}

# "1.02× (0.981–1.06)": a ratio and its CI without brackets (pandoc may read [..] as math).
fmt_ratio_ci <- function(ratio, low, high) {
  ifelse(is.na(ratio), "\u2013",
         paste0(fmt_ratio(ratio), " (", fmt_num(low), "\u2013", fmt_num(high), ")"))
}

# A verdict's figure: its ratio, or its range of ratios, and the CI it rests on.
verdict_figure <- function(ratio, ratio_min, ratio_max, low, high) {
  point <- ifelse(!is.na(ratio), fmt_num(ratio),
           ifelse(is.na(ratio_min), NA_character_,
           ifelse(ratio_min == ratio_max, fmt_num(ratio_min),
                  paste0(fmt_num(ratio_min), " to ", fmt_num(ratio_max)))))
  ifelse(is.na(point), "\u2013",
         ifelse(is.na(low), point, paste0(point, ", CI ", fmt_num(low), "\u2013", fmt_num(high))))
}

compare_cell_columns <- c("language", "implementation", "suite", "operation", "algorithm", "variant",
                          "input", "presence", "status_a", "status_b", "change", "flagged")
compare_cell_numbers <- c("key_bits", "samples_a", "samples_b", "median_a_ns", "median_b_ns",
                          "ratio", "ci_low", "ci_high")

compare_read <- function(dir) {
  cells <- bundle_table(dir, "cells.csv", compare_cell_columns, compare_cell_numbers)
  cells[, flagged := toupper(flagged) == "TRUE"]
  cells[, cell := paste(operation, variant, input)]
  verdicts <- bundle_table(dir, "verdicts.csv", c("seed", "claim", "presence", "differs", "verdict_a",
                                                   "verdict_b"),
                           c(paste0(c("ratio", "ratio_min", "ratio_max", "ci_low", "ci_high"), "_a"),
                             paste0(c("ratio", "ratio_min", "ratio_max", "ci_low", "ci_high"), "_b")))
  verdicts[, differs := toupper(differs) == "TRUE"]
  runs <- bundle_table(dir, "runs.csv", c("fact", "a", "b", "same"))
  settings <- jsonlite::fromJSON(file.path(dir, "compare.json"))
  list(cells = cells, verdicts = verdicts, runs = runs, settings = settings)
}

compare_flagged_table <- function(cells) {
  flagged <- cells[flagged == TRUE][order(-abs(log(ratio)))]
  flagged[, .(language, suite, operation, variant, input,
              `median A` = bundle_fmt_ns(median_a_ns), `median B` = bundle_fmt_ns(median_b_ns),
              `B/A (CI)` = fmt_ratio_ci(ratio, ci_low, ci_high), change)]
}

compare_one_sided_table <- function(cells) {
  cells[presence != "both" | change == "not timed in both",
        .(language, suite, operation, variant, input, presence,
          `status A` = status_a, `status B` = status_b)]
}

# Every compared cell's B/A with its CI, log x: one row of panels per suite, one column per
# language, each panel as tall as its cells.
compare_ratio_figure <- function(cells, threshold) {
  timed <- cells[!is.na(ratio)]
  timed[, outcome := factor(ifelse(flagged, change, "within threshold"),
                            levels = c("slower", "faster", "within threshold"))]
  timed[, row := paste(operation, variant, input)]
  ggplot(timed, aes(x = ratio, y = row, colour = outcome)) +
    annotate("rect", xmin = 1 / (1 + threshold), xmax = 1 + threshold, ymin = -Inf, ymax = Inf,
             fill = "grey85", alpha = 0.5) +
    geom_vline(xintercept = 1, colour = "grey40") +
    geom_errorbarh(aes(xmin = ci_low, xmax = ci_high), height = 0.3) +
    geom_point(size = 1.6) +
    scale_x_log10() +
    scale_colour_manual(values = c(slower = "#D55E00", faster = "#0072B2", `within threshold` = "grey30"),
                        drop = FALSE, name = NULL) +
    facet_grid(suite ~ language, scales = "free_y", space = "free_y") +
    theme(strip.text.y = element_text(angle = 0, hjust = 0), axis.text.y = element_text(size = 7.5)) +
    labs(x = "time in B / time in A (log scale)", y = NULL)
}

# Inches for a figure with `rows` rows of points in `panels` rows of panels.
figure_height <- function(rows, panels, per_row = 0.14, cap = 120) {
  min(cap, max(3, 1.5 + per_row * rows + 0.3 * panels))
}

compare_verdict_table <- function(verdicts) {
  ids <- setdiff(names(verdicts), c("seed", "what", "presence", "differs",
                                    grep("_(a|b)$", names(verdicts), value = TRUE)))
  subject <- apply(verdicts[, ..ids], 1, function(row) {
    row <- row[nzchar(row) & names(row) != "claim"]
    paste(row, collapse = ", ")
  })
  verdicts[, .(` ` = ifelse(differs, "\u2260", ""), seed, claim, subject = subject,
               `verdict A` = verdict_a,
               `figure A` = verdict_figure(ratio_a, ratio_min_a, ratio_max_a, ci_low_a, ci_high_a),
               `verdict B` = verdict_b,
               `figure B` = verdict_figure(ratio_b, ratio_min_b, ratio_max_b, ci_low_b, ci_high_b))]
}

compare_runs_table <- function(runs) {
  runs[, .(fact, A = md_escape(a), B = md_escape(b), ` ` = ifelse(toupper(same) == "TRUE", "", "\u2260"))]
}
