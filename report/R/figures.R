# ggplot2 figures of the report. Each takes already-loaded tables and returns a plot;
# none reads files or computes statistics beyond choosing rows.

# A blank panel carrying a message, so a figure with no data still says why.
placeholder_plot <- function(message) {
  ggplot() +
    annotate("text", x = 0, y = 0, label = message, size = 4.5, colour = "grey30") +
    theme_void()
}

scale_y_ns <- function(...) {
  scale_y_log10(labels = function(b) fmt_ns(b), breaks = breaks_log(n = 7), ...)
}

rotate_x_labels <- theme(axis.text.x = element_text(angle = 60, hjust = 1, vjust = 1))

dodge <- function(n_languages) position_dodge(width = if (n_languages > 1) 0.7 else 0)

# (a) Median ns/op per variant and language, sign and verify, CI as error bars.
plot_sign_verify <- function(cells) {
  d <- cells[operation %in% c("sign", "verify")]
  if (!nrow(d)) return(placeholder_plot("No sign or verify cell was timed."))
  pos <- dodge(uniqueN(d$language))
  ggplot(d, aes(variant, median_ns, colour = language)) +
    geom_errorbar(aes(ymin = ci_low_ns, ymax = ci_high_ns), width = 0, linewidth = 0.6,
                  position = pos) +
    geom_point(size = 1.8, position = pos) +
    facet_wrap(~operation, ncol = 1, scales = "free_y") +
    scale_y_ns() +
    scale_colour_language() +
    labs(x = NULL, y = "median time per operation (log scale)") +
    rotate_x_labels
}

# (b) RSA (RS*) and RSA-PSS (PS*) time against modulus size, sign vs verify.
plot_rsa_scaling <- function(cells) {
  d <- cells[operation %in% c("sign", "verify") & grepl("^(RS|PS)", algorithm)]
  if (!nrow(d)) return(placeholder_plot("No RSA or RSA-PSS cell was timed."))
  rsa <- c("RS256", "RS384", "RS512", "PS256", "PS384", "PS512")
  d <- copy(d)[, algorithm := factor(algorithm, levels = c(
    intersect(rsa, unique(algorithm)), setdiff(sort(unique(algorithm)), rsa)))]
  ggplot(d, aes(key_bits, median_ns, colour = language, linetype = operation, shape = operation,
                group = interaction(language, operation))) +
    geom_line(linewidth = 0.6) +
    geom_errorbar(aes(ymin = ci_low_ns, ymax = ci_high_ns), width = 0, linewidth = 0.5) +
    geom_point(size = 2) +
    facet_wrap(~algorithm, nrow = 2) +
    scale_x_continuous(breaks = sort(unique(d$key_bits)), expand = expansion(mult = 0.12)) +
    scale_y_ns() +
    scale_colour_language() +
    scale_linetype_manual(values = c(sign = "solid", verify = "22"), name = "operation") +
    scale_shape_manual(values = c(sign = 16, verify = 1), name = "operation") +
    labs(x = "RSA modulus (bits)", y = "median time per operation (log scale)") +
    theme(panel.spacing.x = unit(1.2, "lines"))
}

# (c) verify/sign ratio per variant and language with its bootstrap CI; 1 = equal cost.
plot_verify_sign_ratio <- function(ratio_rows) {
  d <- ratio_rows[kind == "verify/sign"]
  if (!nrow(d)) return(placeholder_plot("ratios.csv has no verify/sign ratio."))
  pos <- dodge(uniqueN(d$language))
  ggplot(d, aes(variant, ratio, colour = language)) +
    geom_hline(yintercept = 1, linetype = "dashed", colour = "grey40") +
    geom_errorbar(aes(ymin = ci_low, ymax = ci_high), width = 0, linewidth = 0.6, position = pos) +
    geom_point(size = 1.8, position = pos) +
    scale_y_log10(labels = function(b) fmt_ratio(b), breaks = breaks_log(n = 8)) +
    scale_colour_language() +
    labs(x = NULL, y = "verify time / sign time (log scale)") +
    rotate_x_labels
}

# (d) decode time per language: one point per variant and input (the shape), a bar at their
# median. `cells`: suite jwt's decode cells.
plot_decode <- function(cells) {
  d <- cells[operation == "decode"]
  if (!nrow(d)) return(placeholder_plot("No decode cell was timed."))
  centre <- d[, .(median_ns = median(median_ns)), by = language]
  ggplot(d, aes(median_ns, language, colour = language)) +
    geom_point(aes(shape = input), position = position_jitter(height = 0.15, width = 0, seed = 1),
               alpha = 0.6, size = 1.6) +
    geom_point(data = centre, shape = 124, size = 9, colour = "black") +
    scale_x_log10(labels = function(b) fmt_ns(b), breaks = breaks_log(n = 6)) +
    scale_y_discrete(limits = rev) +
    scale_colour_language(guide = "none") +
    labs(x = "median time per decode (log scale)", y = NULL, shape = "input") +
    theme(legend.position = "bottom")
}

decode_fig_height <- function(cells) {
  if (is.null(cells) || !nrow(cells)) return(2)  # knitr evaluates it even for a chunk it skips
  1.8 + 0.5 * max(1, uniqueN(cells[operation == "decode"]$language))  # + the legend of inputs
}

# (e) The interop matrix: signer x verifier, one panel per algorithm family; a tile holds
# every variant and check of that family for the pair (self-checks on the diagonal).
interop_colours <- c(ok = "#A6D96A", "partly unsupported" = "#D9F0A3", "other alg name" = "#ABD9E9",
                     failed = "#D7191C", unsupported = "#BDBDBD", "no row" = "#FFFFFF")
interop_families <- c("HS", "RS", "PS", "ES", "EdDSA")

variant_family <- function(variant) {
  v <- as.character(variant)
  fifelse(startsWith(v, "Ed"), "EdDSA", substr(v, 1, 2))
}

# One row per (family, signer, verifier): failed if any check failed, no row if any is
# missing, unsupported if all are, other alg name if the pair names one of the family's
# algorithms differently, partly unsupported if some are unsupported, else ok; the label
# counts failures, or passed checks of all.
interop_by_family <- function(outcomes) {
  d <- copy(outcomes)[, family := factor(variant_family(variant),
                                         levels = union(interop_families, variant_family(variant)))]
  d[, .(outcome = {
          o <- as.character(outcome)
          if (any(o == "failed")) "failed" else if (any(o == "no row")) "no row"
          else if (all(o == "unsupported")) "unsupported"
          else if (any(o == "other alg name")) "other alg name"
          else if (any(o == "unsupported")) "partly unsupported" else "ok"
        },
        label = if (any(outcome == "failed")) paste(sum(outcome == "failed"), "failed")
                else paste0(sum(outcome %in% c("ok", "other alg name")), "/", .N)),
    by = .(family, signer, verifier)][
    , outcome := factor(outcome, levels = names(interop_colours))][]
}

plot_interop <- function(outcomes) {
  if (!nrow(outcomes)) return(placeholder_plot("verify/matrix.csv has no rows and no language to expect."))
  # Smaller counts in smaller tiles: with a dozen drivers and more, 2.4 overlaps its neighbours.
  label_size <- min(2.4, 26 / max(1, uniqueN(outcomes$signer)))
  ggplot(interop_by_family(outcomes), aes(verifier, signer, fill = outcome)) +
    geom_tile(colour = "grey55", linewidth = 0.3) +
    geom_text(aes(label = label), size = label_size) +
    facet_wrap(~family, ncol = 3) +
    scale_fill_manual(values = interop_colours, drop = FALSE, name = "outcome") +
    scale_y_discrete(limits = rev) +
    labs(x = "verifier", y = "signer") +
    theme(panel.grid = element_blank()) +
    rotate_x_labels
}

interop_fig_height <- function(outcomes) {
  if (is.null(outcomes) || !nrow(outcomes)) return(2)
  n_langs <- max(1, uniqueN(outcomes$signer))
  n_rows <- ceiling(max(1, uniqueN(variant_family(outcomes$variant))) / 3)
  1.4 + n_rows * (0.9 + 0.32 * n_langs)
}

# (f) Whole-process cold start per language: native process, container process and an
# empty container's start-up, median with CI, linear scale in ms.
coldstart_colours <- c("native process" = "#0072B2", "container process" = "#D55E00",
                       "container start-up (empty container)" = "#E69F00")

plot_coldstart <- function(bars) {
  if (is.null(bars) || !nrow(bars)) return(placeholder_plot("coldstart.csv has no rows."))
  others <- setdiff(levels(bars$what), names(coldstart_colours))
  colours <- c(coldstart_colours, setNames(grDevices::grey.colors(max(1, length(others))),
                                           others)[seq_along(others)])
  d <- copy(bars)[, `:=`(median_ms = median_ns / 1e6, low_ms = ci_low_ns / 1e6,
                         high_ms = ci_high_ns / 1e6)]
  ggplot(d, aes(median_ms, what, fill = what)) +
    geom_col(width = 0.7) +
    geom_errorbar(aes(xmin = low_ms, xmax = high_ms), width = 0.25, linewidth = 0.5,
                  orientation = "y") +
    geom_text(aes(x = pmax(high_ms, median_ms), label = fmt_ns(median_ns)), hjust = -0.15,
              size = 3.2, colour = "grey20") +
    facet_grid(language ~ ., scales = "free_y", space = "free_y") +
    scale_x_continuous(expand = expansion(mult = c(0, 0.15)), limits = c(0, NA)) +
    scale_y_discrete(limits = rev) +
    scale_fill_manual(values = colours, name = NULL, guide = "none") +
    labs(x = "median wall time per process (ms)", y = NULL) +
    theme(panel.grid.major.y = element_blank(), strip.text.y = element_text(angle = 0))
}

coldstart_fig_height <- function(bars) {
  if (is.null(bars) || !nrow(bars)) return(2)
  per_language <- bars[, .N, by = language]$N
  1 + sum(0.45 + 0.38 * per_language)
}

# Precision: every round-timed cell's CI half-width (log scale), one row per language and
# one panel per suite, with the precision targets as dashed lines.
plot_precision <- function(cells, targets) {
  d <- cells[!is.na(ci_halfwidth_pct)]
  if (!nrow(d)) return(placeholder_plot("No cell has a CI (each needs six samples)."))
  d <- copy(d)[, halfwidth := pmax(ci_halfwidth_pct, 0.01)]
  ggplot(d, aes(halfwidth, language, colour = stop_reason)) +
    geom_vline(xintercept = targets, linetype = "dashed", colour = "grey40") +
    geom_point(position = position_jitter(width = 0, height = 0.25, seed = 1), size = 1.2, alpha = 0.7) +
    facet_wrap(~suite, ncol = 2) +
    scale_x_log10(labels = function(b) paste0(b, "%")) +
    scale_colour_manual(values = c(precision = "#1b9e77", sample_cap = "#d95f02", time_cap = "#7570b3"),
                        labels = function(l) gsub("_", " ", l), name = "stopped at") +
    labs(x = "CI half-width of the median (% of the median, log scale; 0 shown at 0.01%)", y = NULL) +
    theme(legend.position = "bottom")
}

precision_fig_height <- function(cells) {
  if (is.null(cells) || !nrow(cells)) return(2)
  1.5 + 0.35 * uniqueN(cells$language) * ceiling(uniqueN(cells$suite) / 2)
}

# ---- the harness cross-check --------------------------------------------------------

crosscheck_agreement_colours <- c(agrees = "grey30", outside = "#E69F00", disagrees = "#D55E00",
                                  explained = "#0072B2")

# Each cross-checked cell's driver / native-harness ratio with its CI, the band shaded: one
# panel per driver (its harness in the title), one row per operation and variant.
plot_crosscheck <- function(cc) {
  d <- copy(cc[status == "ok" & !is.na(ratio)])
  if (!nrow(d)) return(placeholder_plot("No cell was cross-checked."))
  band <- d$band[1]
  d[, panel := paste0(driver, " (", harness, ")")]
  d[, row := factor(paste(operation, variant), levels = rev(unique(paste(operation, variant))))]
  d[, agreement := factor(agreement, levels = names(crosscheck_agreement_colours))]
  ggplot(d, aes(x = ratio, y = row, colour = agreement)) +
    annotate("rect", xmin = 1 - band, xmax = 1 + band, ymin = -Inf, ymax = Inf, fill = "grey85", alpha = 0.6) +
    geom_vline(xintercept = 1, colour = "grey40") +
    geom_errorbarh(aes(xmin = ratio_low, xmax = ratio_high), height = 0.3, na.rm = TRUE) +
    geom_point(size = 1.8) +
    scale_colour_manual(values = crosscheck_agreement_colours, drop = FALSE, name = NULL) +
    facet_wrap(~panel, ncol = 3) +
    # Wide CIs (a JIT switching speeds during the blocks) run off the panel rather than
    # squeezing every other cell into the band.
    coord_cartesian(xlim = c(min(1 - 2 * band, d$ratio), max(1 + 2 * band, d$ratio))) +
    labs(x = paste0("driver's loop / language's harness, same calls, alternating blocks (median and 95% CI; ",
                    "band 1 \u00b1 ", 100 * band, "%)"), y = NULL) +
    theme(legend.position = "bottom")
}

crosscheck_fig_height <- function(cc) {
  if (is.null(cc) || !nrow(cc)) return(2)
  rows <- uniqueN(cc[, paste(operation, variant)])
  1.6 + ceiling(uniqueN(cc$driver) / 3) * (0.5 + 0.16 * rows)
}

# ---- where the time went ----------------------------------------------------------

wall_time_stages <- c("images", "environments", "inputs", "checks", "benchmarks", "results", "report", "other")

# Every job of the run on one time line: a bar per job from its start to its end, one
# row per stage (jobs of one stage that overlapped draw over each other).
plot_wall_times <- function(wt) {
  if (is.null(wt) || !nrow(wt)) return(placeholder_plot("No job recorded its wall time."))
  d <- copy(wt)
  d[, `:=`(start_t = as.POSIXct(start, format = "%Y-%m-%dT%H:%M:%S", tz = "UTC"),
           end_t = as.POSIXct(end, format = "%Y-%m-%dT%H:%M:%S", tz = "UTC"))]
  origin <- min(d$start_t)
  d[, `:=`(from = as.numeric(difftime(start_t, origin, units = "mins")),
           to = as.numeric(difftime(end_t, origin, units = "mins")))]
  stages <- intersect(wall_time_stages, d$stage)
  d[, stage := factor(stage, levels = rev(stages))]
  ggplot(d, aes(y = stage, yend = stage, x = from, xend = pmax(to, from + 0.05), colour = stage)) +
    geom_segment(linewidth = 6, alpha = 0.45) +
    scale_colour_brewer(palette = "Dark2", guide = "none") +
    labs(x = "minutes since the first job started", y = NULL)
}

# ---- the machine's drift (the drift reference) --------------------------------------

# The drift reference of every round on the run's time line, one line per benchmark
# process: each round is placed back from its process's end (wall_times.csv) by the
# sampling time after it. Without wall times, the processes follow each other.
plot_drift <- function(drift, wt, spread, colours) {
  if (is.null(drift) || !nrow(drift)) return(placeholder_plot("No benchmark process timed the drift reference."))
  d <- copy(drift)
  d[, job := paste(language, suite, input, sep = "/")]
  as_time <- function(x) as.POSIXct(x, format = "%Y-%m-%dT%H:%M:%S", tz = "UTC")
  ends <- if (is.null(wt)) NULL else wt[rule == "run_benchmark", .(job, end_t = as_time(end))]
  if (!is.null(ends) && all(d$job %in% ends$job)) {
    origin <- min(as_time(wt$start))
    d <- merge(d, ends, by = "job")
    d[, minute := as.numeric(difftime(end_t, origin, units = "mins")) - (rounds_seconds - seconds_before) / 60]
    x_label <- "minutes since the run's first job started"
  } else {
    offsets <- unique(d[, .(job, rounds_seconds)])[, .(job, offset = cumsum(rounds_seconds) - rounds_seconds)]
    d <- merge(d, offsets, by = "job")
    d[, minute := (offset + seconds_before) / 60]
    x_label <- "minutes of sampling, processes one after another"
  }
  ggplot(d, aes(minute, relative, group = job, colour = language)) +
    geom_hline(yintercept = 1, colour = "grey40") +
    geom_hline(yintercept = c(spread$low, spread$high), linetype = "dashed", colour = "grey55") +
    geom_line(alpha = 0.7) +
    geom_point(size = 0.6, alpha = 0.7) +
    scale_colour_manual(values = colours, name = NULL) +
    labs(x = x_label, y = "reference time / its language's median")
}
