# ---- the machine's noise beside the drift (noise.csv; jwtbench/machine_noise.py) -----

# A run is "quiet" when the drift reference's spread (drift_spread: the median over languages
# of its 5th-95th percentile range, in percent of the median) stays within +/-5%: the
# quiet runs of docs/measurements.md spread 4-7%, the noisy hours 19-22%. Within it a
# cross-process comparison moves by a few percent at most, about the spread between worker
# processes every verdict's CI is already widened by; beyond it by up to the spread itself.
QUIET_DRIFT_PCT <- 10

noise_time <- function(x) as.POSIXct(x, format = "%Y-%m-%dT%H:%M:%OS", tz = "UTC")

# The noise rows on the drift figure's time axis (plot_drift): minutes since the run's first
# job started (wall_times.csv), or since the first benchmark started without wall times.
noise_on_time_line <- function(noise, wt) {
  d <- copy(noise)
  d[, at := noise_time(utc)]
  starts <- if (is.null(wt) || !nrow(wt)) NULL else noise_time(wt$start)
  origin <- if (length(starts)) min(starts) else min(d$at - d$seconds)
  d[, minute := as.numeric(difftime(at, origin, units = "mins"))]
  attr(d, "x_label") <- if (length(starts)) "minutes since the run's first job started" else
    "minutes since the first benchmark started"
  d[]
}

# What each panel of plot_noise shows; a measure the kernel did not expose (all empty) is left out.
NOISE_MEASURES <- c(
  steal_pct = "steal (% of the benchmark CPU)",
  others_pct = "other tasks' CPU time on it (%)",
  wait_pct = "benchmark waiting for its CPU (%)",
  others_runnable = "other tasks runnable on it",
  freq_mhz = "its frequency (MHz)"
)

# Five-second means per benchmark process (half-second values move in 10 ms clock ticks).
noise_bins <- function(noise, wt, width = 5) {
  d <- noise_on_time_line(noise, wt)
  measures <- names(NOISE_MEASURES)[vapply(names(NOISE_MEASURES), function(m) any(!is.na(d[[m]])), logical(1))]
  bins <- d[, lapply(.SD, mean, na.rm = TRUE), by = .(job, language, bin = floor(seconds / width)),
            .SDcols = c("minute", measures)]
  long <- melt(bins, id.vars = c("job", "language", "bin", "minute"), measure.vars = measures,
               variable.name = "measure", value.name = "value")
  long[, measure := factor(NOISE_MEASURES[as.character(measure)], levels = NOISE_MEASURES)]
  attr(long, "x_label") <- attr(d, "x_label")
  long[!is.na(value)]
}

plot_noise <- function(noise, wt, colours) {
  if (is.null(noise) || !nrow(noise)) {
    return(placeholder_plot("No noise record: results of a run before the sampler (noise.csv absent or empty)."))
  }
  long <- noise_bins(noise, wt)
  long[, bins := .N, by = .(job, measure)]  # a process shorter than a bin is a point, not a line
  ggplot(long, aes(minute, value, group = job, colour = language)) +
    geom_line(data = long[bins > 1], alpha = 0.7) +
    geom_point(size = 0.6, alpha = 0.7) +
    facet_wrap(~measure, ncol = 1, scales = "free_y") +
    expand_limits(y = 0) +
    scale_colour_manual(values = colours, name = NULL) +
    labs(x = attr(long, "x_label"), y = NULL)
}

# The run's noise in a few numbers (NULL without rows).
noise_summary <- function(noise) {
  if (is.null(noise) || !nrow(noise)) return(NULL)
  q <- function(x, p) if (all(is.na(x))) NA_real_ else unname(quantile(x, p, na.rm = TRUE, type = 7))
  tops <- noise[others_top != "", .(cpu = sum(others_top_pct * interval_seconds, na.rm = TRUE)), by = others_top]
  list(
    intervals = nrow(noise), processes = uniqueN(noise$job),
    steal = q(noise$steal_pct, 0.5), steal_max = max(noise$steal_pct, na.rm = TRUE),
    others = q(noise$others_pct, 0.5), others_p95 = q(noise$others_pct, 0.95),
    busy_share = mean(noise$others_pct >= 10, na.rm = TRUE),
    wait = q(noise$wait_pct, 0.5), wait_p95 = q(noise$wait_pct, 0.95),
    runnable = mean(noise$others_runnable > 0, na.rm = TRUE),
    freq = !all(is.na(noise$freq_mhz)), throttle = sum(noise$throttle_events, na.rm = TRUE),
    throttle_seen = !all(is.na(noise$throttle_events)),
    top = if (nrow(tops)) tops[order(-cpu)][seq_len(min(3, .N)), others_top] else character(),
    sampler_ms = q(noise$sampler_ms, 0.5),
    sampler_pct = 100 * sum(noise$sampler_ms, na.rm = TRUE) / 1000 / sum(noise$interval_seconds, na.rm = TRUE)
  )
}

# The drift reference's rounds beside the noise: both in five-second stretches of the run
# (a round placed back from its process's end as plot_drift does), matched by language, so
# two lanes' processes at once stay apart. Spearman's rho of the reference's relative time
# against the benchmark's wait for its CPU and against the others' share of it; NULL
# without wall times or with fewer than ten stretches.
drift_beside_noise <- function(drift, noise, wt, width = 5) {
  if (is.null(drift) || !nrow(drift) || is.null(noise) || !nrow(noise) || is.null(wt)) return(NULL)
  ends <- wt[rule == "run_benchmark", .(job = job, end_t = noise_time(end))]
  d <- copy(drift)[, job := paste(language, suite, input, sep = "/")]
  if (!all(d$job %in% ends$job)) return(NULL)
  d <- merge(d, ends, by = "job")
  d[, bin := floor((as.numeric(end_t) - (rounds_seconds - seconds_before)) / width)]
  rounds <- d[, .(relative = mean(relative)), by = .(language, bin)]
  n <- copy(noise)[, bin := floor(as.numeric(noise_time(utc)) / width)]
  n <- n[, .(wait = mean(wait_pct, na.rm = TRUE), others = mean(others_pct, na.rm = TRUE)), by = .(language, bin)]
  both <- merge(rounds, n, by = c("language", "bin"))
  if (nrow(both) < 10) return(NULL)
  rho <- function(x) if (all(is.na(x)) || length(unique(x)) < 2) NA_real_ else
    suppressWarnings(cor(both$relative, x, method = "spearman", use = "complete.obs"))
  list(stretches = nrow(both), wait = rho(both$wait), others = rho(both$others))
}

# What the noise figure shows, as a paragraph of markdown (`drift` and `wt` for how the
# drift followed the noise).
noise_text <- function(noise, drift = NULL, wt = NULL) {
  s <- noise_summary(noise)
  if (is.null(s)) {
    return(paste("This run has no record of the machine's noise (`noise.csv` is absent or empty: results of a",
                 "run before the sampler)."))
  }
  paste0(
    "Beside each of the ", fmt_int(s$processes), " benchmark processes a sampler on another CPU read, every half ",
    "second (", fmt_int(s$intervals), " intervals), what else the benchmark's CPU did. Steal time (the ",
    "hypervisor running another guest) was ", fmt_pct(s$steal, 1), " at the median and ", fmt_pct(s$steal_max, 1),
    " at most. Other tasks took a median ", fmt_pct(s$others, 1), " of the benchmark CPU (95th percentile ",
    fmt_pct(s$others_p95, 1), "; at least 10% in ", fmt_pct(100 * s$busy_share, 0), " of the intervals)",
    if (length(s$top)) paste0(", mostly ", paste(code(s$top), collapse = ", ")) else "",
    "; another task was runnable on it at ", fmt_pct(100 * s$runnable, 0), " of the samples, and the benchmark's ",
    "own threads waited for their CPU ", fmt_pct(s$wait, 1), " of the time at the median (95th percentile ",
    fmt_pct(s$wait_p95, 1), "). ",
    if (s$freq) "" else "This machine exposes no CPU frequency (no cpufreq, as in most virtual machines), ",
    if (s$throttle_seen) paste0(fmt_int(s$throttle), " thermal throttle events. ") else
      paste0(if (s$freq) "It exposes " else "nor ", "thermal throttle counts. "),
    "Where the drift line rises with the others' share or the wait, the machine's slow stretch was a ",
    "competitor on the benchmark CPU; where it rises with neither, the slowdown came from outside what this ",
    "guest can see (the host's other guests sharing caches and memory bandwidth, which steal time does not ",
    "count). ", drift_follows(drift_beside_noise(drift, noise, wt)),
    "The sampler cost ", fmt_num(s$sampler_ms, 2), " ms of CPU per sample (",
    fmt_pct(s$sampler_pct, 2), " of one CPU), on a CPU the benchmark did not use."
  )
}

# How the drift followed the noise in this run, one sentence ("" when it cannot be told).
drift_follows <- function(b) {
  if (is.null(b) || is.na(b$wait) && is.na(b$others)) return("")
  strongest <- max(abs(c(b$wait, b$others)), na.rm = TRUE)
  paste0(
    "In this run, over the ", fmt_int(b$stretches), " five-second stretches that have both, the drift ",
    "reference's time ", if (strongest >= 0.3) "rose with" else "hardly followed", " the benchmark's wait for ",
    "its CPU (Spearman \u03c1 = ", fmt_num(b$wait, 2), ") and the others' share of it (\u03c1 = ",
    fmt_num(b$others, 2), "): ",
    if (strongest >= 0.3) "its slow stretches were, at least in part, competitors on the benchmark CPU. " else
      "its slow stretches were mostly not competitors on the benchmark CPU. "
  )
}

# One sentence for the report's first screen: quiet or noisy, and what that means for the verdicts.
machine_line <- function(drift, noise = NULL, quiet_pct = QUIET_DRIFT_PCT) {
  spread <- drift_spread(drift)
  s <- noise_summary(noise)
  if (is.null(spread)) {
    return(paste("This run's machine: **not measured** (no benchmark process timed the drift reference),",
                 "so nothing here says how steady it was while the verdicts were measured."))
  }
  quiet <- spread$pct <= quiet_pct
  seen <- if (is.null(s)) "" else
    paste0("; other tasks took a median ", fmt_pct(s$others, 1), " of the benchmark CPU, steal ", fmt_pct(s$steal, 1))
  paste0(
    "This run's machine: **", if (quiet) "quiet" else "noisy", "** (median drift spread ", fmt_pct(spread$pct, 1),
    seen, "; see [the machine's drift](#drift)): ",
    if (quiet) {
      paste0("its speed stayed within \u00b1", fmt_num(quiet_pct / 2, 2), "% through the run, so the verdicts ",
             "need no allowance for it beyond the one their CIs already carry (the spread between worker processes).")
    } else {
      paste0("its speed moved by more than \u00b1", fmt_num(quiet_pct / 2, 2), "%. Ratios of cells timed in the same ",
             "rounds divide that out and their verdicts stand; a comparison across processes (one language ",
             "against another) can be off by up to ", fmt_pct(spread$pct, 0), ", so read a verdict whose margin ",
             "is smaller as a tie, or rerun in a quieter hour.")
    }
  )
}
