# Seed 004 (Susanto, ITB 2020: RSA against ECDSA in pycryptodome, key generation + sign +
# verify per iteration by NIST security level): the published experiments
# (report/published/seed004_*.csv) beside this run's per language and implementation
# (results/seed004/*.csv, written by workflow/scripts/seeds/seed004.py). Verdicts come from
# verdicts.csv.

seed004_columns <- list(
  runs = list(character = c("language", "implementation", "implementation_version", "family", "algorithm",
                            "operation", "input", "status"),
              numeric = c("key_bits", "message_bytes", "iterations", "median_ms", "mean_ms", "ci_low_ms",
                          "ci_high_ms", "seconds_spent")),
  decomposed = list(character = c("language", "implementation", "family", "input"),
                    numeric = c("key_bits", "combined_ms", "keygen_ms", "sign_ms", "verify_ms", "parts_sum_ms",
                                "keygen_share")),
  verdicts = list(character = c("claim", "language", "implementation", "verdict", "reason", "what"),
                  numeric = c("ratio_min", "ratio_max", "ci_low", "ci_high", "comparisons"))
)

read_seed004 <- function() read_seed_tables("seed004", seed004_columns)

read_published_seed004 <- function() {
  list(runs = read_published("seed004_runs.csv", c("experiment", "family", "hash", "status", "source")),
       claims = read_published("seed004_claims.csv", c("claim", "statement", "published", "source")))
}

# NIST SP 800-57's security strength of our key sizes (the seed's figure 3).
security_bits <- function(family, key_bits) {
  ifelse(family == "RSA", c("2048" = 112, "3072" = 128, "7680" = 192)[as.character(key_bits)],
         c("256" = 128, "384" = 192, "521" = 256)[as.character(key_bits)])
}

key_label <- function(family, key_bits) ifelse(family == "RSA", paste0("RSA-", key_bits), paste0("P-", key_bits))

seed004_verdict_table <- function(verdicts, claims, langs) {
  seed_verdict_table(verdicts, claims, list(language = intersect(langs, unique(verdicts$language)),
                                            implementation = sort(unique(verdicts$implementation))))
}

# ms per iteration of keygen+sign+verify: the seed's beside each series' median (its mean
# in brackets, the seed's statistic), per key and message; a cell that ran out of budget
# says so with the time it spent.
seed004_runs_table <- function(runs, pub, series_tab) {
  d <- runs[operation == "keygen+sign+verify"]
  d[, series := series_label(language, implementation)]
  d[, text := ifelse(!is.na(median_ms), paste0(fmt_num(median_ms, 4), " (", fmt_num(mean_ms, 4), ")"),
                     ifelse(status == "timeout", paste0("timeout after ", fmt_num(seconds_spent, 3), " s, ",
                                                        fmt_int(iterations), " done"), status))]
  keys <- unique(d[, .(family, key_bits, message_bytes)])[order(family != "RSA", key_bits, message_bytes)]
  out <- keys[, .(key = key_label(family, key_bits), "security (bits)" = security_bits(family, key_bits),
                  message = paste(message_bytes, "B"))]
  p <- pub[match(paste(keys$family, keys$key_bits, keys$message_bytes),
                 paste(pub$family, pub$key_bits, pub$message_bytes))]
  out[["seed (pycryptodome)"]] <- ifelse(is.na(p$ms_per_iteration), ifelse(is.na(p$status), "\u2013", p$status),
                                         fmt_num(p$ms_per_iteration, 4))
  for (s in series_tab$series) {
    x <- d[series == s]
    i <- match(paste(keys$family, keys$key_bits, keys$message_bytes), paste(x$family, x$key_bits, x$message_bytes))
    out[[s]] <- ifelse(is.na(i), "\u2013", x$text[i])
  }
  out[]
}

# keygen+sign+verify against security level, RSA and ECDSA, one panel per series; the
# seed's figures as black crosses.
plot_seed004_levels <- function(runs, pub, series_tab) {
  d <- runs[operation == "keygen+sign+verify" & !is.na(median_ms)]
  if (!nrow(d)) return(placeholder_plot("No keygen+sign+verify cell was timed."))
  d <- copy(d)[, `:=`(series = factor(series_label(language, implementation), levels = series_tab$series),
                      security = security_bits(family, key_bits), message = factor(paste(message_bytes, "B")))]
  p <- pub[!is.na(ms_per_iteration)][, `:=`(security = security_bits, message = factor(paste(message_bytes, "B")))]
  p <- p[rep(seq_len(nrow(p)), each = nrow(series_tab))][, series := factor(rep(series_tab$series, length.out = .N),
                                                                               levels = series_tab$series)]
  ggplot(d, aes(security, median_ms, colour = family, shape = message, group = interaction(family, message))) +
    geom_line(linewidth = 0.4) +
    geom_errorbar(aes(ymin = ci_low_ms, ymax = ci_high_ms), width = 0, linewidth = 0.5) +
    geom_point(size = 1.8) +
    geom_point(data = p, aes(security, ms_per_iteration), inherit.aes = FALSE, shape = 4, size = 2.2,
               colour = "black") +
    facet_wrap(~series, ncol = 2) +
    scale_x_continuous(breaks = c(112, 128, 192, 256)) +
    scale_y_log10(breaks = breaks_log(n = 8), labels = label_number(drop0trailing = TRUE)) +
    scale_colour_manual(values = c(RSA = "#D55E00", ECDSA = "#0072B2"), name = NULL) +
    labs(x = "NIST security strength (bits)", y = "ms per keygen + sign + verify (log scale)", shape = "message")
}

seed004_fig_height <- function(runs) {
  if (is.null(runs) || !nrow(runs)) return(2)  # knitr evaluates it even for a chunk it skips
  1.8 + 2.6 * ceiling(max(1, uniqueN(runs[, .(language, implementation)])) / 2)
}

# The seed's combined figure split: key generation, sign and verify medians, per series and
# key, on the shortest message.
seed004_decomposed_table <- function(decomposed, series_tab) {
  d <- decomposed[!is.na(keygen_ms)]
  if (!nrow(d)) return(data.table(note = "no key had its parts timed"))
  shortest <- d[, .SD[message_bytes_of(input) == min(message_bytes_of(input))], by = .(language, implementation)]
  shortest[, series := factor(series_label(language, implementation), levels = series_tab$series)]
  shortest <- shortest[order(series, family != "RSA", key_bits)]
  shortest[, .(series = as.character(series), key = key_label(family, key_bits), message = input,
               "keygen+sign+verify (ms)" = fmt_num(combined_ms, 4), "keygen (ms)" = fmt_num(keygen_ms, 4),
               "sign (ms)" = fmt_num(sign_ms, 3), "verify (ms)" = fmt_num(verify_ms, 3),
               "keygen share" = fmt_pct(100 * keygen_share))]
}

message_bytes_of <- function(input) as.integer(sub("^msg-", "", input))

seed004_timeouts <- function(runs) {
  d <- runs[status == "timeout"]
  if (!nrow(d)) return("No cell ran out of its budget.")
  paste0("Cells that ran out of their budget (`suites.keygen.max_cell_seconds`): ",
         fmt_list(d[, paste0(series_label(language, implementation), " ", key_label(family, key_bits), " ",
                             operation, " ", input, " after ", fmt_num(seconds_spent, 3), " s with ",
                             fmt_int(iterations), " iterations done")]), ".")
}
