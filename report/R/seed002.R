# Seed 002 (Latinov, Automation Rhapsody: Apache Commons Codec's MD5, SHA-1, SHA-256 and
# SHA-512 in Java, ms per 1,000,000 hashes of six message cases): the published table
# (report/published/seed002_*.csv) beside this run's (results/seed002/*.csv, written by
# workflow/scripts/seeds/seed002.py): the cases per language and implementation, the message
# generation apart from the hash, and the length sweep. Verdicts come from verdicts.csv.

seed002_columns <- list(
  cases = list(character = c("language", "implementation", "implementation_version", "case", "algorithm",
                             "operation", "status"),
               numeric = c("message_bytes", "samples", "median_ns", "ci_low_ns", "ci_high_ns", "hash_only_ns")),
  sweep = list(character = c("language", "implementation", "implementation_version", "algorithm", "status"),
               numeric = c("length", "median_ns", "ci_low_ns", "ci_high_ns", "ns_per_byte", "cycles_per_byte",
                           "sha512_over_sha256", "ratio_ci_low", "ratio_ci_high")),
  verdicts = list(character = c("claim", "language", "implementation", "verdict", "reason", "what"),
                  numeric = c("ratio_min", "ratio_max", "ci_low", "ci_high", "comparisons"))
)

hash_algorithms <- c("MD5", "SHA-1", "SHA-256", "SHA-512")
algorithm_colours <- c(MD5 = "#7F7F7F", "SHA-1" = "#A6761D", "SHA-256" = "#1B9E77", "SHA-512" = "#7570B3")
generation_label <- "generation alone"
# The cases the seed's text compares SHA-256 and SHA-512 on (seed002.py's SHORT and LONG):
# the ones whose message has no fresh UUID in it.
seed002_compared_cases <- c("case1-uuid", "case2-uuid-time", "case4-uuid-uuid", "case5-uuid-uuid-time")
# The seed's own estimates of what the message costs: one case's calls minus another's.
seed002_differences <- data.table(
  what = c("time stamp", "time stamp", "fresh UUID", "fresh UUID"),
  minuend = c("case2-uuid-time", "case5-uuid-uuid-time", "case3-newuuid-time", "case6-newuuid-newuuid-time"),
  subtrahend = c("case1-uuid", "case4-uuid-uuid", "case2-uuid-time", "case5-uuid-uuid-time"))

read_seed002 <- function() read_seed_tables("seed002", seed002_columns)

read_published_seed002 <- function() {
  list(cases = read_published("seed002_cases.csv", c("case", "algorithm", "source")),
       claims = read_published("seed002_claims.csv", c("claim", "statement", "published", "source")))
}

published_run_columns <- function(pub) grep("^run[0-9]+_ms$", names(pub), value = TRUE)

# "case 2: 49 chars (uuid-time)" per case name, the seed's cases in its order, then ours.
seed002_case_labels <- function(pub, cases) {
  u <- unique(pub[order(case_number), .(case, case_number, message_chars)])
  labels <- setNames(paste0("case ", u$case_number, ": ", u$message_chars, " chars (",
                            sub("^case[0-9]+-", "", u$case), ")"), u$case)
  extra <- setdiff(sort(unique(cases$case)), names(labels))
  c(labels, setNames(extra, extra))
}

# Every case and algorithm: the seed's mean of its runs (their range) and ours per series,
# median ns per call, which is ms per 1,000,000 calls.
seed002_cases_table <- function(cases, pub, series_tab, labels) {
  runs <- as.matrix(pub[, published_run_columns(pub), with = FALSE])
  seed <- pub[, .(case, algorithm, seed = paste0(fmt_num(average_ms, 6), " (", fmt_num(apply(runs, 1, min), 6),
                                                 "\u2013", fmt_num(apply(runs, 1, max), 6), ")"))]
  ours <- cases[algorithm != "none"]
  ours[, text := ifelse(is.na(median_ns), status, fmt_num(median_ns, 3))]
  ours[, series := series_label(language, implementation)]
  wide <- dcast(ours, case + algorithm ~ series, value.var = "text", fun.aggregate = function(x) x[1], fill = "no row")
  d <- merge(seed, wide, by = c("case", "algorithm"), all = TRUE)
  d <- d[order(match(case, names(labels)), match(algorithm, hash_algorithms))]
  out <- d[, .(case = ifelse(duplicated(case), "", labels[case]), algorithm,
               "seed: mean (range)" = ifelse(is.na(seed), "\u2013", seed))]
  for (s in intersect(series_tab$series, names(d))) out[[s]] <- ifelse(is.na(d[[s]]), "no row", d[[s]])
  out
}

# Per case built per call: the generation alone and each algorithm's hash alone (call
# minus generation); then what a time stamp and a fresh UUID cost by the seed's own
# subtraction of one case's calls from another's, averaged over the algorithms, for the
# seed and for each series alike.
seed002_generation_table <- function(cases, pub, series_tab, labels) {
  c2 <- copy(cases)[, series := series_label(language, implementation)]
  built <- c2[algorithm == "none", unique(case)]
  parts <- c2[case %in% built][, `:=`(
    what = ifelse(algorithm == "none", generation_label, paste(algorithm, "hash alone")),
    value = ifelse(algorithm == "none", median_ns, hash_only_ns))]
  calls <- c2[algorithm %in% hash_algorithms & !is.na(median_ns), .(series, case, algorithm, ns = median_ns)]
  seed_calls <- pub[, .(series = "seed", case, algorithm, ns = average_ms)]
  subtract <- function(d) rbindlist(lapply(seq_len(nrow(seed002_differences)), function(i) {
    x <- seed002_differences[i]
    m <- merge(d[case == x$minuend], d[case == x$subtrahend], by = c("series", "algorithm"))
    m[, .(value = if (.N) mean(ns.x - ns.y) else NA_real_, algorithms = .N), by = series][
      , `:=`(case = paste0(labels[x$minuend] %||% x$minuend, " \u2212 ", sub(":.*", "", labels[x$subtrahend])),
             what = paste0(x$what, " (calls subtracted, mean over ", algorithms, " algorithms)"))]
  }))
  diffs <- subtract(rbind(calls, seed_calls))
  both <- rbind(parts[, .(case = labels[case], what, series, value, case_order = match(case, names(labels)))],
                diffs[, .(case, what, series, value, case_order = Inf)], fill = TRUE)
  wide <- dcast(both, case_order + case + what ~ series, value.var = "value", fun.aggregate = function(x) x[1])
  wide[, what_order := match(sub(" .*", "", what), c("generation", hash_algorithms, "time", "fresh"))]
  setorder(wide, case_order, case, what_order)
  out <- wide[, .(case = ifelse(duplicated(case), "", case), what,
                  "seed: ms per 1M" = if ("seed" %in% names(wide)) fmt_num(get("seed"), 4) else "\u2013")]
  for (s in intersect(series_tab$series, names(wide))) out[[s]] <- fmt_num(wide[[s]], 3)
  out
}

seed002_verdict_table <- function(verdicts, claims, langs) {
  seed_verdict_table(verdicts, claims, list(language = langs, implementation = sort(unique(verdicts$implementation))))
}

plot_seed002_cases <- function(cases, pub, series_tab, colours, labels) {
  d <- cases[!is.na(median_ns)]
  if (!nrow(d)) return(placeholder_plot("No hash case was timed."))
  x_levels <- c(hash_algorithms, generation_label)
  d <- copy(d)[, `:=`(series = factor(series_label(language, implementation), levels = series_tab$series),
                      x = factor(ifelse(algorithm == "none", generation_label, algorithm), levels = x_levels),
                      panel = factor(labels[case], levels = labels))]
  runs <- melt(pub, id.vars = c("case", "algorithm"), measure.vars = published_run_columns(pub), value.name = "ms")
  runs[, `:=`(x = factor(algorithm, levels = x_levels), panel = factor(labels[case], levels = labels))]
  seed <- pub[, .(x = factor(algorithm, levels = x_levels), panel = factor(labels[case], levels = labels),
                  ms = average_ms, who = "seed 002 (mean of its runs)")]
  pos <- position_dodge(width = 0.6)
  ggplot(d, aes(x, median_ns, colour = series, group = series)) +
    geom_point(data = runs, aes(x, ms), inherit.aes = FALSE, colour = "grey60", size = 0.9) +
    geom_point(data = seed, aes(x, ms, shape = who), inherit.aes = FALSE, colour = "black", size = 2.6, stroke = 0.9) +
    geom_line(data = d[x != generation_label], linewidth = 0.4, alpha = 0.6, position = pos) +
    geom_errorbar(aes(ymin = ci_low_ns, ymax = ci_high_ns), width = 0, linewidth = 0.5, position = pos) +
    geom_point(size = 1.8, position = pos) +
    facet_wrap(~panel, ncol = 3) +
    scale_x_discrete(limits = intersect(x_levels, c(as.character(d$x), as.character(seed$x)))) +
    scale_y_log10(breaks = breaks_log(n = 7), labels = label_comma()) +
    scale_colour_manual(values = colours, breaks = series_tab$series, name = NULL) +
    scale_shape_manual(values = c("seed 002 (mean of its runs)" = 4), name = NULL) +
    labs(x = NULL, y = "ns per call = ms per 1,000,000 calls (log scale)") +
    theme(axis.text.x = element_text(angle = 30, hjust = 1))
}

# The TSC's ticks per ns behind sweep.csv's cycles/byte, or NA when it has none.
sweep_ticks_per_ns <- function(sweep) {
  ratio <- sweep$cycles_per_byte / sweep$ns_per_byte
  if (all(is.na(ratio))) NA_real_ else median(ratio, na.rm = TRUE)
}

fmt_bytes_axis <- function(b) {
  b <- round(b)
  ifelse(b >= 1024 & b %% 1024 == 0, paste0(fmt_int(b / 1024), " KiB"), fmt_int(b))
}

plot_seed002_sweep <- function(sweep, series_tab) {
  d <- sweep[!is.na(ns_per_byte)]
  if (!nrow(d)) return(placeholder_plot("No length of the sweep was timed."))
  d <- copy(d)[, `:=`(series = factor(series_label(language, implementation), levels = series_tab$series),
                      algorithm = factor(algorithm, levels = union(hash_algorithms, sort(unique(algorithm)))))]
  ticks <- sweep_ticks_per_ns(d)
  y_axis <- if (is.na(ticks)) waiver() else sec_axis(~ . * ticks, name = "TSC cycles per byte",
                                                       breaks = breaks_log(n = 7), labels = label_number(drop0trailing = TRUE))
  ggplot(d, aes(length, ns_per_byte, colour = algorithm)) +
    geom_line(linewidth = 0.5) +
    geom_errorbar(aes(ymin = ci_low_ns / length, ymax = ci_high_ns / length), width = 0, linewidth = 0.5) +
    geom_point(size = 1.6) +
    facet_wrap(~series, ncol = 2) +
    scale_x_log10(breaks = sort(unique(d$length)), labels = fmt_bytes_axis) +
    scale_y_log10(breaks = breaks_log(n = 7), labels = label_number(drop0trailing = TRUE), sec.axis = y_axis) +
    scale_colour_manual(values = algorithm_colours, name = NULL) +
    labs(x = "message length (bytes, log scale)", y = "ns per byte (log scale)")
}

sweep_fig_height <- function(sweep) {
  if (is.null(sweep)) return(2)
  1.8 + 2.5 * ceiling(max(1, uniqueN(sweep[, .(language, implementation)])) / 2)
}

# "1, 2, 4 and 5": the seed's numbers of the compared cases.
compared_case_numbers <- function(pub) fmt_list(pub[case %in% seed002_compared_cases, sort(unique(case_number))])

# The seed's SHA-512 / SHA-256 time per compared case, x its message length in characters.
published_sha_ratio <- function(pub) {
  d <- dcast(pub[case %in% seed002_compared_cases], case + message_chars ~ algorithm, value.var = "average_ms")
  d[, .(length = message_chars, ratio = `SHA-512` / `SHA-256`)]
}

plot_seed002_ratio <- function(sweep, pub, series_tab, colours) {
  d <- sweep[algorithm == "SHA-512" & !is.na(sha512_over_sha256)]
  if (!nrow(d)) return(placeholder_plot("No length has both SHA-256 and SHA-512 timed."))
  d <- copy(d)[, series := factor(series_label(language, implementation), levels = series_tab$series)]
  seed_label <- paste0("seed 002 (its cases ", compared_case_numbers(pub), ")")
  seed <- published_sha_ratio(pub)[, who := seed_label]
  ggplot(d, aes(length, sha512_over_sha256, colour = series)) +
    geom_hline(yintercept = 1, linetype = "dashed", colour = "grey40") +
    geom_line(data = seed, aes(length, ratio, shape = who), inherit.aes = FALSE, colour = "black",
              linetype = "dotted") +
    geom_point(data = seed, aes(length, ratio, shape = who), inherit.aes = FALSE, colour = "black", size = 2.6,
               stroke = 0.9) +
    geom_line(linewidth = 0.5) +
    geom_errorbar(aes(ymin = ratio_ci_low, ymax = ratio_ci_high), width = 0, linewidth = 0.5) +
    geom_point(size = 1.8) +
    scale_x_log10(breaks = sort(unique(d$length)), labels = fmt_bytes_axis) +
    scale_y_log10(breaks = breaks_log(n = 8), labels = function(b) fmt_ratio(b)) +
    scale_colour_manual(values = colours, breaks = series_tab$series, name = NULL) +
    scale_shape_manual(values = setNames(4, seed_label), name = NULL) +
    labs(x = "message length (bytes, log scale)", y = "SHA-512 time / SHA-256 time (log scale)") +
    theme(axis.text.x = element_text(angle = 30, hjust = 1), legend.box = "vertical")
}

# Where SHA-512 / SHA-256 crosses 1 over the lengths: the first pair of lengths between which
# it changes side, and the length at 1 interpolated on log-log axes; NULL when it never does.
ratio_crossing <- function(length, ratio) {
  o <- order(length)
  x <- log(length[o]); y <- log(ratio[o])
  i <- which(diff(sign(y)) != 0)[1]
  if (is.na(i)) return(NULL)
  list(from = length[o][i], to = length[o][i + 1], at = exp(x[i] - y[i] * (x[i + 1] - x[i]) / (y[i + 1] - y[i])),
       towards = if (y[i] > 0) "SHA-512" else "SHA-256", changes = sum(diff(sign(y)) != 0))
}

lengths_text <- function(l) if (length(l)) paste(fmt_list(fmt_int(sort(l))), "bytes") else "no length"

# One line per series: SHA-512 / SHA-256 from the shortest to the longest length, where its
# CI lies above 1 (SHA-256 faster) or below (SHA-512 faster), and where it crosses 1.
sha_ratio_lines <- function(sweep, series_tab) {
  d <- sweep[algorithm == "SHA-512" & !is.na(sha512_over_sha256)]
  d[, series := series_label(language, implementation)]
  vapply(intersect(series_tab$series, d$series), function(s) {
    r <- d[series == s][order(length)]
    cross <- ratio_crossing(r$length, r$sha512_over_sha256)
    faster256 <- r[ratio_ci_low > 1, length]
    faster512 <- r[ratio_ci_high < 1, length]
    unclear <- r[ratio_ci_low <= 1 & ratio_ci_high >= 1, length]
    ends <- paste0("SHA-512 takes ", fmt_ratio(r$sha512_over_sha256[1], 3), " SHA-256's time at ", fmt_int(r$length[1]),
                   " bytes and ", fmt_ratio(r$sha512_over_sha256[nrow(r)], 3), " at ", fmt_int(r$length[nrow(r)]))
    where <- paste0("SHA-256 is the faster (CI above 1) at ", lengths_text(faster256), ", SHA-512 at ",
                    lengths_text(faster512),
                    if (length(unclear)) paste0(", neither shown faster at ", lengths_text(unclear)))
    crossing <- if (is.null(cross)) "the ratio does not cross 1" else paste0(
      "the ratio crosses 1 towards ", cross$towards, " between ", fmt_int(cross$from), " and ", fmt_int(cross$to),
      " bytes (at about ", fmt_int(round(cross$at)), " bytes, interpolating log-log)",
      if (cross$changes > 1) paste0(" and changes side ", cross$changes - 1, " more time(s)"))
    paste0("- **", s, "**: ", ends, "; ", where, "; ", crossing, ".")
  }, character(1))
}

# The seed's picture (SHA-256 faster on short strings, SHA-512 on longer ones) against each
# series': where SHA-512 / SHA-256 crosses 1 towards SHA-512, and at the longest length
# which of the two costs less per byte.
sha_picture_sentence <- function(sweep, series_tab) {
  d <- sweep[algorithm == "SHA-512" & !is.na(sha512_over_sha256)]
  d[, series := series_label(language, implementation)]
  found <- intersect(series_tab$series, d$series)
  crosses <- Filter(function(s) {
    cross <- d[series == s, ratio_crossing(length, sha512_over_sha256)]
    !is.null(cross) && cross$towards == "SHA-512"
  }, found)
  longest <- d[, .SD[length == max(length)], by = series]
  cheaper256 <- longest[ratio_ci_low > 1, series]
  cheaper512 <- longest[ratio_ci_high < 1, series]
  paste0(
    "The seed's picture, SHA-256 faster on short strings and SHA-512 on longer ones, reappears in ",
    length(crosses), " of ", length(found), " series", if (length(crosses)) paste0(" (", fmt_list(crosses), ")"),
    ". At the longest length, ", fmt_int(max(d$length)), " bytes, SHA-256 costs less per byte than SHA-512 in ",
    fmt_list(cheaper256, none = "none"), " and more in ", fmt_list(cheaper512, none = "none"),
    ". On a 64-bit CPU SHA-256 in software costs more per byte than SHA-512; costing less points to hardware ",
    "SHA-256 (SHA-NI).")
}

# The seed's own crossing, from its published means (no CI: it gives five runs per case).
seed_crossing_sentence <- function(pub) {
  r <- published_sha_ratio(pub)
  cross <- ratio_crossing(r$length, r$ratio)
  ratios <- paste0(fmt_ratio(r$ratio, 3), " at ", r$length, " chars")
  paste0("The seed's SHA-512 / SHA-256 over its cases ", compared_case_numbers(pub), " is ", fmt_list(ratios),
         if (is.null(cross)) ": it does not cross 1." else paste0(
           ": it crosses 1 towards ", cross$towards, " between ", cross$from, " and ", cross$to, " characters."))
}

# What SHA-NI on this CPU means for the seed's SHA-256 against SHA-512.
sha_ni_sentence <- function(prov) {
  flag <- field(prov, "host", "cpu_flags", "sha_ni")
  model <- recorded(field(prov, "host", "cpu_model"), "not recorded")
  if (is.null(flag) || is.na(flag)) {
    return(paste0("provenance.json does not record whether this run's CPU (", model, ") has the SHA extensions ",
                  "(SHA-NI, `host.cpu_flags.sha_ni`), so the picture below cannot be tied to them."))
  }
  if (isTRUE(as.logical(flag))) {
    return(paste0(
      "This run's CPU (", model, ") **has the SHA extensions** (SHA-NI: `host.cpu_flags.sha_ni` is true in ",
      "provenance.json): instructions that compute SHA-1 and SHA-256 rounds in hardware, with no counterpart for ",
      "SHA-512. The seed's Intel Core i7 (the time stamps in its messages date its runs years before Intel's Core ",
      "processors gained SHA-NI) ran SHA-256 in software; there SHA-512, which takes blocks twice as long and works on 64-bit words, costs ",
      "less per byte once a message fills a few blocks, which is how the seed saw SHA-512 win on its longer ",
      "strings. An implementation that uses SHA-NI typically makes SHA-256 cheaper per byte than SHA-512 at every ",
      "length, and the seed's crossing disappears; whether one does shows in its SHA-256 ns/byte against SHA-1's and ",
      "SHA-512's in the sweep above."))
  }
  paste0("This run's CPU (", model, ") **lacks the SHA extensions** (SHA-NI: `host.cpu_flags.sha_ni` is false in ",
         "provenance.json), as the seed's Core i7 most likely did, so SHA-256 runs in software here as there; ",
         "SHA-512, which takes blocks twice as long and works on 64-bit words, is then expected to cost less per byte ",
         "than SHA-256 once a message fills a few blocks, as the seed saw on its longer strings.")
}

# Per series, ns per byte of each algorithm at the longest length of the sweep (and TSC
# cycles per byte where the counter was usable).
seed002_throughput_table <- function(sweep, series_tab) {
  d <- sweep[!is.na(ns_per_byte)]
  if (!nrow(d)) return(NULL)
  d <- d[, .SD[length == max(length)], by = .(language, implementation)]
  d[, `:=`(series = series_label(language, implementation),
           text = paste0(fmt_num(ns_per_byte, 3), ifelse(is.na(cycles_per_byte), "",
                                                         paste0(" (", fmt_num(cycles_per_byte, 3), ")"))))]
  wide <- dcast(d, series + length ~ algorithm, value.var = "text", fun.aggregate = function(x) x[1], fill = "\u2013")
  wide <- wide[order(match(series, series_tab$series))]
  out <- wide[, .(series, "length (bytes)" = fmt_int(length))]
  for (a in intersect(hash_algorithms, names(wide))) out[[a]] <- wide[[a]]
  out
}

# The cycle counter as provenance.json records it, in one sentence for the sweep's text.
cycle_counter_sentence <- function(prov, ticks) {
  counter <- field(prov, "host", "cycle_counter")
  if (!is.na(ticks)) {
    return(paste0("TSC cycles per byte (right axis) are ns per byte times the time-stamp counter's measured rate, ",
                  fmt_num(ticks, 4), " ticks per ns (`results/cycle_counter.json`)."))
  }
  if (is.null(counter)) return("Cycles per byte are not given: the run recorded no cycle counter.")
  paste0("Cycles per byte are not given: ", md_escape(recorded(field(counter, "reason"))), ".")
}
