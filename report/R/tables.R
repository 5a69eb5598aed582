# Tables and the derived numbers the prose quotes. Inputs are the loaded results; the
# outputs are data.tables ready for knitr::kable or for inline R.

status_reasons <- c(
  unsupported = "the library lacks the algorithm",
  failed = "a correctness check failed or the driver failed; nothing was timed",
  timeout = "the cell ran out of time (max_cell_seconds)",
  "no row" = "expected by the run's config, but summary.csv has no row for it"
)

# Cells the config asked for (languages x operations x variants) that summary.csv lacks.
absent_cells <- function(cells, config) {
  langs <- as.character(field(config, "languages"))
  ops <- as.character(field(config, "suites", "jwt", "operations"))
  vars <- as.character(field(config, "suites", "jwt", "algorithms"))
  if (!length(langs) || !length(ops) || !length(vars)) return(cells[0, .(language, operation, variant)])
  expected <- CJ(language = langs, operation = ops, variant = vars, sorted = FALSE)
  present <- paste(cells$language, cells$operation, cells$variant)
  expected[!paste(language, operation, variant) %in% present]
}

# Every cell without a full set of ok samples, with the reason, in report order. A failed
# cell of a failed benchmark job (failed_jobs_table) names its job as the reason.
untimed_cells <- function(cells, config, failed_jobs = NULL) {
  d <- cells[status != "ok" | is.na(median_ns),
             .(language = as.character(language), operation = as.character(operation),
               variant = as.character(variant), status = as.character(status), samples,
               suite = paste0(suite, "/", input))]
  missing <- absent_cells(cells, config)
  if (nrow(missing)) d <- rbind(d, missing[, .(language, operation, variant, status = "no row",
                                               samples = NA_real_, suite = NA_character_)])
  max_cell <- field(config, "timing", "max_cell_seconds")
  d[, reason := unname(status_reasons[status])]
  if (!is.null(failed_jobs) && nrow(failed_jobs)) {
    jobs <- unique(failed_jobs[, .(language, suite)])[, job_reason := paste0(
      "its benchmark job `", language, "/", suite, "` failed; nothing was timed (the job's ",
      "failure is given [at the top](#what-was-measured))")]
    d <- merge(d, jobs, by = c("language", "suite"), all.x = TRUE, sort = FALSE)
    d[status == "failed" & !is.na(job_reason), reason := job_reason]
    d[, job_reason := NULL]
  }
  d[, suite := NULL]
  d[status == "timeout", reason := paste0(
    "max_cell_seconds", if (!is.null(max_cell)) paste0(" (", max_cell, " s)"), " ran out after ",
    samples, " sample(s); shown in the table of every cell, left out of figures and precision")]
  d[status == "ok", reason := "status ok but no median"]
  d[is.na(reason), reason := "status not documented in the schema"]
  d[, `:=`(language = factor(language, levels = union(languages, language)),
           operation = factor(operation, levels = union(operation_levels, operation)),
           variant = factor(variant, levels = union(variant_levels, variant)))]
  setorder(d, language, operation, variant)[]
}

# One row per cell, as printed in the appendix table.
cell_table <- function(cells) {
  cells[, .(
    language, operation, variant,
    "median (\u00b5s)" = fmt_us(median_ns),
    "CI (\u00b5s)" = ifelse(is.na(ci_low_ns), "\u2013",
                           paste0(fmt_us(ci_low_ns), " \u2013 ", fmt_us(ci_high_ns))),
    "CI half-width" = fmt_pct(ci_halfwidth_pct, 2),
    "ops/s" = fmt_ops(ops_per_s),
    samples = as.integer(samples),
    status
  )]
}

# Share of timed cells whose CI half-width is within each target; the cells beyond the
# loosest target, and the widest few.
precision_summary <- function(timed, targets, widest_n = 3) {
  d <- timed[!is.na(ci_halfwidth_pct)][order(-ci_halfwidth_pct)]
  within <- vapply(targets, function(t) if (nrow(d)) 100 * mean(d$ci_halfwidth_pct <= t) else NA_real_,
                   numeric(1))
  list(n = nrow(d), targets = targets, within = within,
       beyond = d[ci_halfwidth_pct > max(targets)], widest = d[seq_len(min(widest_n, .N))],
       by_language = d[, .(cells = .N, median_halfwidth = median(ci_halfwidth_pct),
                           max_halfwidth = max(ci_halfwidth_pct)), keyby = language])
}

# The cells of a precision table: where each is, its half-width and why it stopped.
precision_cells_table <- function(cells) {
  cells[, .(language, suite, input, operation, variant, samples = as.integer(samples),
            "CI half-width" = fmt_pct(ci_halfwidth_pct, 2), "stopped at" = gsub("_", " ", stop_reason))]
}

# Fastest and slowest variant per language for one operation.
operation_extremes <- function(timed, op) {
  timed[operation == op][order(median_ns),
    .(fastest = as.character(variant[1]), fastest_ns = median_ns[1],
      slowest = as.character(variant[.N]), slowest_ns = median_ns[.N], cells = .N),
    keyby = language]
}

# How much a 4096-bit modulus costs over a 2048-bit one: per language and operation, the
# median over RS*/PS* algorithms of median(4096) / median(2048).
rsa_growth <- function(timed, from = 2048, to = 4096) {
  d <- timed[operation %in% c("sign", "verify") & grepl("^(RS|PS)", algorithm) &
               key_bits %in% c(from, to)]
  if (!nrow(d)) return(d[0, .(language, operation, factor = numeric())])
  w <- dcast(d, language + operation + algorithm ~ key_bits, value.var = "median_ns")
  a <- as.character(from); b <- as.character(to)
  if (!all(c(a, b) %in% names(w))) return(d[0, .(language, operation, factor = numeric())])
  w[!is.na(get(a)) & !is.na(get(b)), .(factor = median(get(b) / get(a)), algorithms = .N),
    keyby = .(language, operation)]
}

crosscheck_table <- function(cc) {
  cc[, .(
    driver, operation, variant, harness = paste(harness, harness_version),
    "driver's loop" = fmt_ns(driver_ns), "harness" = fmt_ns(native_ns),
    "ratio (CI)" = fmt_ratio_ci(ratio, ratio_low, ratio_high),
    agreement = ifelse(agreement %in% c("agrees", ""), agreement, paste0("**", agreement, "**")),
    status
  )]
}

# The loop's own cost per driver (suite harness): the empty and the trivial call's figures,
# the cheapest operation the driver times in rounds, and the empty call's share of it.
harness_cost_rows <- function(cells, limit = 0.01) {
  loop <- cells[suite == "harness"]
  if (!nrow(loop)) return(NULL)
  timed <- cells[suite != "harness" & operation != "reference" & !is.na(median_ns)]
  cheapest <- timed[order(median_ns), .SD[1], by = driver][, .(driver, cheapest_ns = median_ns,
    cheapest = paste(suite, operation, variant))]
  costs <- dcast(loop, driver ~ operation, value.var = "median_ns")
  out <- merge(costs, cheapest, by = "driver", all.x = TRUE)
  out[, share := empty / cheapest_ns]
  out[, flagged := !is.na(share) & share > limit]
  out[order(-share)]
}

harness_cost_table <- function(rows) {
  rows[, .(driver, "empty call" = fmt_ns(empty), "trivial call" = fmt_ns(trivial),
           "cheapest operation" = paste0(cheapest, " (", fmt_ns(cheapest_ns), ")"),
           "empty / cheapest" = ifelse(flagged, paste0("**", fmt_pct(100 * share, 2), "**"),
                                       fmt_pct(100 * share, 2)))]
}

# Container against native (container_vs_native.csv), one row per compared cell. The
# per-run medians show how far apart the alternating runs were.
run_range <- function(runs) {
  vapply(strsplit(trimws(as.character(runs)), "\\s+"), function(r) {
    x <- suppressWarnings(as.numeric(r))
    x <- x[!is.na(x)]
    if (!length(x)) "\u2013" else if (length(x) == 1) fmt_ns(x)
    else paste0(fmt_ns(min(x)), " \u2013 ", fmt_ns(max(x)))
  }, "")
}

container_native_table <- function(cvn) {
  same <- if ("same_stack" %in% names(cvn)) ifelse(cvn$same_stack %in% TRUE, "yes", "**no**") else "not recorded"
  cvn[, .(
    language, operation, variant, "same stack" = same,
    native = fmt_ns(native_ns), "native runs" = run_range(native_runs_ns),
    container = fmt_ns(container_ns), "container runs" = run_range(container_runs_ns),
    "ratio (container / native)" = fmt_num(ratio, 3),
    tolerance = paste0("\u00b1", fmt_num(tolerance, 3)),
    "within tolerance" = ifelse(within_tolerance, "yes", "**no**")
  )]
}

# What the cold-start figure shows, per language: one row per bar.
coldstart_measures <- c(
  "native process" = "native|process",
  "container process" = "container|process",
  "container start-up (empty container)" = "container|startup"
)

coldstart_bars <- function(cs) {
  if (is.null(cs) || !nrow(cs)) return(NULL)
  d <- copy(cs)[, key := paste(mode, measure, sep = "|")]
  known <- match(d$key, coldstart_measures)
  d[, what := ifelse(is.na(known), paste(mode, measure), names(coldstart_measures)[known])]
  d[, what := factor(what, levels = union(names(coldstart_measures), sort(unique(what))))]
  d[, key := NULL]
  setorder(d, language, what)[]
}

# Union of [start, end] intervals in seconds (jobs that ran side by side count once).
busy_seconds <- function(start, end) {
  s <- as.numeric(as.POSIXct(start, format = "%Y-%m-%dT%H:%M:%S", tz = "UTC"))
  e <- as.numeric(as.POSIXct(end, format = "%Y-%m-%dT%H:%M:%S", tz = "UTC"))
  if (!length(s)) return(0)
  o <- order(s); s <- s[o]; e <- e[o]
  total <- 0; cur_s <- s[1]; cur_e <- e[1]
  for (i in seq_along(s)[-1]) {
    if (s[i] > cur_e) {
      total <- total + (cur_e - cur_s); cur_s <- s[i]; cur_e <- e[i]
    } else {
      cur_e <- max(cur_e, e[i])
    }
  }
  total + (cur_e - cur_s)
}

# Per stage: jobs, the wall time during which one of them ran, and the sum of their own
# times (larger where jobs ran side by side).
wall_time_by_stage <- function(wt) {
  d <- wt[, .(jobs = .N, wall_min = busy_seconds(start, end) / 60, job_min = sum(seconds) / 60), by = stage]
  d[, stage := factor(stage, levels = wall_time_stages)][order(stage)]
}

# The benchmark stage by suite (rows) and language (columns), minutes; the rules that
# time no suite of their own (cross-check, container vs native, the cycle counter) are
# rows of their own.
benchmark_minutes_table <- function(wt) {
  b <- wt[stage == "benchmarks"]
  if (!nrow(b)) return(NULL)
  b[, language := ifelse(nzchar(language) & !is.na(language), language, "(all)")]
  wide <- dcast(b, suite ~ language, value.var = "seconds", fun.aggregate = function(x) sum(x) / 60, fill = 0)
  wide[, total := rowSums(.SD), .SDcols = setdiff(names(wide), "suite")]
  wide <- wide[order(-total)]
  num <- setdiff(names(wide), "suite")
  for (col in num) set(wide, j = col, value = ifelse(wide[[col]] > 0, sprintf("%.1f", wide[[col]]), "\u2013"))
  wide
}

# ---- the machine's drift (the drift reference) --------------------------------------

# How far the machine's speed moved during the run (aggregate_samples.drift_range): per
# language the 5th and 95th percentile of the drift reference's time per round over the
# language's median (drift.csv's `relative`, quantile type 7), then the median low and the
# median high over the languages, so one runtime whose reference its own JIT or collector
# moves does not pass for the machine; their spread in percent of the median. NULL without
# reference rounds.
drift_spread <- function(drift) {
  if (is.null(drift) || !nrow(drift)) return(NULL)
  q <- drift[, as.list(unname(quantile(relative, c(0.05, 0.95), type = 7))), by = language]
  low <- median(q$V1)
  high <- median(q$V2)
  list(low = low, high = high, pct = 100 * (high - low), rounds = nrow(drift),
       processes = uniqueN(drift[, .(language, suite, input)]), languages = nrow(q))
}

# The same per language: its processes, rounds and the spread of its rounds.
drift_by_language <- function(drift) {
  drift[, {
    q <- unname(quantile(relative, c(0.05, 0.95), type = 7))
    .(processes = uniqueN(paste(suite, input)), rounds = .N, "5%" = fmt_num(q[1], 3), "95%" = fmt_num(q[2], 3),
      "spread" = fmt_pct(100 * (q[2] - q[1]), 1))
  }, keyby = .(language, reference = paste(implementation, implementation_version))]
}

# The spread between worker processes per language, measured in this run: each job of a
# conducted suite runs as timing.workers processes taking the rounds in turn, and each
# ratio paired by round (ratios.csv worker_spread) and each cell (summary.csv) has the
# largest over the smallest of its workers' medians. Every verdict's CI is widened by it.
worker_spread_by_language <- function(ratios, cells) {
  paired <- ratios[method == "paired by round" & !is.na(worker_spread)]
  measured <- cells[!is.na(worker_spread)]
  languages <- sort(unique(c(paired$language, measured$language)))
  if (!length(languages)) return(data.table())
  pct <- function(x, q) if (length(x)) fmt_pct(100 * (quantile(x, q, type = 7) - 1), 1) else "\u2013"
  rbindlist(lapply(languages, function(lang) {
    r <- paired[language == lang, worker_spread]
    m <- measured[language == lang, worker_spread]
    data.table(language = lang, `ratios` = length(r), `ratios: median` = pct(r, 0.5), `ratios: 95%` = pct(r, 0.95),
               `cells` = length(m), `cells: median` = pct(m, 0.5), `cells: 95%` = pct(m, 0.95))
  }))
}
