# Several JWT libraries per language (config `libraries`, results/drivers.csv): how the
# report names and orders drivers, what each lacks, and the "Which library?" section.

# Driver names in the report's order: each language's own driver (named by the language)
# in the languages' order, each followed by its further libraries ("node/jose"), sorted.
driver_order <- function(langs, names) {
  names <- unique(as.character(names))
  language <- sub("/.*$", "", names)
  rank <- match(language, langs)
  rank[is.na(rank)] <- length(langs) + 1L
  names[order(rank, language, grepl("/", names, fixed = TRUE), names)]
}

# "node" -> "node/jsonwebtoken": the label drivers.csv gives a driver (its name without it).
driver_label <- function(names) {
  names <- as.character(names)
  if (is.null(drivers) || !nrow(drivers)) return(names)
  labels <- drivers$label[match(names, drivers$driver)]
  ifelse(is.na(labels), names, labels)
}

# (driver, operation, variant) of the variants whose JWS algorithm a driver's library lacks
# (drivers.csv `unsupported`, which the verification gate holds each driver to); NULL
# without drivers.csv.
driver_unsupported <- function(variants) {
  if (is.null(drivers)) return(NULL)
  none <- data.table(driver = character(), operation = character(), variant = character())
  lacked <- drivers[!is.na(unsupported) & nzchar(unsupported)]
  # A run whose every driver supports every algorithm (one language, say) lacks none.
  if (!nrow(lacked)) return(none)
  lacked <- lacked[, .(algorithm = strsplit(unsupported, " ", fixed = TRUE)[[1]]), by = driver]
  by_algorithm <- data.table(variant = as.character(variants),
                             algorithm = sub("-[0-9]+$", "", as.character(variants)))
  pairs <- merge(lacked, by_algorithm, by = "algorithm", allow.cartesian = TRUE)
  if (!nrow(pairs)) return(none)
  pairs[, .(operation = c("sign", "verify")), by = .(driver, variant)][, .(driver, operation, variant)]
}

# Each cell's spread between its job's worker processes (summary.csv worker_spread, the
# largest over the smallest worker's median), or where its workers could not be compared
# (a job of one process) its language's median, else the run's, else 1.
with_cell_spread <- function(d) {
  d[, spread := as.numeric(worker_spread)]
  d[, spread := if (all(is.na(spread))) NA_real_ else fifelse(is.na(spread), median(spread, na.rm = TRUE), spread),
    by = language]
  run <- if (all(is.na(d$spread))) 1 else median(d$spread, na.rm = TRUE)
  d[is.na(spread), spread := run]
  d[]
}

# Per (variant, operation): every driver's median and its ratio to the fastest driver's,
# with a CI. Different drivers ran in different processes, so the ratio is not paired: its
# CI spans the quotients of the two cells' CI bounds, each widened by its own measured
# spread between worker processes (with_cell_spread), what one process's CI does not cover.
library_ratios <- function(cells) {
  d <- copy(cells)
  if (!"driver" %in% names(d)) d[, `:=`(driver = paste0(language, "/", implementation), library = implementation)]
  if (!"worker_spread" %in% names(d)) d[, worker_spread := NA_real_]
  d <- d[status == "ok" & !is.na(median_ns) & operation %in% c("sign", "verify", "decode"),
         .(label = driver, language, library, own = !is_further(language, library), variant = as.character(variant),
           operation = as.character(operation), median_ns, ci_low_ns, ci_high_ns, ci_halfwidth_pct, worker_spread)]
  if (!nrow(d)) return(d)
  with_cell_spread(d)
  d[, driver := label]
  d[, fastest := driver[which.min(median_ns)], by = .(variant, operation)]
  d[, `:=`(
    ratio = median_ns / min(median_ns),
    ratio_low = ci_low_ns / spread / (ci_high_ns[which.min(median_ns)] * spread[which.min(median_ns)]),
    ratio_high = ci_high_ns * spread / (ci_low_ns[which.min(median_ns)] / spread[which.min(median_ns)])
  ), by = .(variant, operation)]
  d[driver == fastest, `:=`(ratio_low = 1, ratio_high = 1)]
  d[]
}

# The (variant, operation) pairs every further library was timed for, in the config's
# variant order: one figure each.
library_panels <- function(d, variants) {
  if (!nrow(d)) return(data.table(variant = character(), operation = character()))
  timed <- unique(d[, .(variant = as.character(variant), operation = as.character(operation))])
  timed[, variant := factor(variant, levels = union(as.character(variants), unique(variant)))]
  timed[, operation := factor(operation, levels = c("sign", "verify", "decode"))]
  setorder(timed, variant, operation)
  timed[, `:=`(variant = as.character(variant), operation = as.character(operation))][]
}

# One figure: a (variant, operation)'s drivers, grouped by language, each a point at its
# ratio to the fastest with its CI, labelled with its time per operation.
plot_library <- function(d, chosen_variant, chosen_operation, langs) {
  panel <- d[variant == chosen_variant & operation == chosen_operation]
  if (!nrow(panel)) return(placeholder_plot(paste("No driver timed", chosen_operation, chosen_variant)))
  rank <- match(panel$language, langs)
  shown <- panel$label[order(fifelse(is.na(rank), length(langs) + 1L, rank), panel$language, !panel$own, panel$label)]
  panel[, label := factor(label, levels = rev(shown))]
  ggplot(panel, aes(ratio, label, colour = language)) +
    geom_vline(xintercept = 1, colour = "grey60", linewidth = 0.4) +
    geom_errorbar(aes(xmin = ratio_low, xmax = ratio_high), width = 0.3, orientation = "y") +
    geom_point(size = 2.2) +
    geom_text(aes(x = ratio_high, label = fmt_ns(median_ns)), hjust = -0.2, size = 3, colour = "grey25") +
    scale_x_log10(expand = expansion(mult = c(0.05, 0.25))) +
    scale_colour_manual(values = lang_colours, drop = TRUE, name = "language") +
    labs(x = paste0("time per ", chosen_operation, " / the fastest driver's (log scale; 1 = fastest)"),
         y = NULL, title = paste(chosen_variant, chosen_operation)) +
    theme(legend.position = "none")
}

library_fig_height <- function(d) {
  1.2 + 0.28 * max(1, uniqueN(d$driver))
}

# One row per driver: what a reader choosing a library needs beside its speed.
library_facts <- function(langs) {
  if (is.null(drivers) || !nrow(drivers)) return(NULL)
  d <- drivers[grepl("jwt", suites, fixed = TRUE)]  # the JWT libraries (not openssl's primitives)
  d[, order := match(driver, driver_order(langs, driver))]
  setorder(d, order)
  d[, .(
    driver = label,
    version,
    algorithms = vapply(strsplit(unsupported, " ", fixed = TRUE), function(absent) {
      absent <- absent[nzchar(absent)]
      if (!length(absent)) "all 13" else paste0(13 - length(absent), " of 13 (no ", paste(absent, collapse = ", "), ")")
    }, ""),
    `no API for` = fifelse(nzchar(missing_operations), missing_operations, "\u2013"),
    `verify does not check` = fifelse(nzchar(lacking), gsub(" ", ", ", lacking, fixed = TRUE), "\u2013"),
    `crypto backend` = crypto_backend,
    runtime = paste(runtime, runtime_version),
    role = fifelse(own, "the language's own (the seeds')", "further library")
  )]
}
