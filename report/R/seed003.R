# Seed 003 ("How slow is Public-key cryptography?": openssl speed with LibreSSL 2.8.3) and
# the primitive floor: the published listing (report/published/seed003_*.csv) beside this
# run's openssl speed and every language's raw primitives (results/seed003/*.csv), and each
# library's cost over openssl's (results/primitive/overhead.csv), all written by
# workflow/scripts/seeds/seed003.py. Verdicts come from verdicts.csv.

seed003_columns <- list(
  speed = list(character = c("language", "implementation", "implementation_version", "operation", "algorithm",
                             "input", "status"),
               numeric = c("key_bits", "input_bytes", "samples", "median_ns", "ci_low_ns", "ci_high_ns",
                           "ops_per_s", "mb_per_s")),
  verdicts = list(character = c("claim", "language", "verdict", "reason", "what"),
                  numeric = c("ratio_min", "ratio_max", "ci_low", "ci_high", "comparisons"))
)
overhead_columns <- list(character = c("kind", "language", "implementation", "operation", "algorithm", "input"),
                         numeric = c("key_bits", "numerator_ns", "denominator_ns", "ratio", "ci_low", "ci_high"))

read_seed003 <- function() {
  tables <- read_seed_tables("seed003", seed003_columns)
  if (is.null(tables)) return(NULL)
  tables$overhead <- read_result_csv(file.path("primitive", "overhead.csv"), overhead_columns)
  tables
}

read_published_seed003 <- function() {
  list(speed = read_published("seed003_speed.csv", c("primitive", "operation", "source")),
       claims = read_published("seed003_claims.csv", c("claim", "statement", "published", "source")))
}

# The seed's primitive names for our cells.
seed003_primitive <- c("SHA-256" = "sha256", "SHA-512" = "sha512", "AES-256-GCM" = "aes-256-gcm",
                       "HMAC-SHA256" = "hmac(sha256)", "RSA-SHA256" = "rsa2048", "ECDSA-SHA256" = "ecdsap256",
                       "Ed25519" = "ed25519")

primitive_label <- function(algorithm, operation, input_bytes) {
  name <- ifelse(algorithm %in% names(seed003_primitive), seed003_primitive[algorithm], algorithm)
  ifelse(operation %in% c("sign", "verify"), paste(name, operation), paste0(name, " @ ", fmt_int(input_bytes), " B"))
}

# ops/s per primitive: the seed's (LibreSSL) beside openssl speed here and every language,
# for the seed's three primitives; block sizes as rows.
seed003_speed_table <- function(speed, pub, langs) {
  ours <- speed[algorithm %in% c("SHA-256", "AES-256-GCM", "RSA-SHA256") & input != "jwt-signing-input" &
                  (key_bits %in% c(0, 256, 2048))]
  ours[, label := primitive_label(algorithm, operation, input_bytes)]
  pub <- copy(pub)[, per_s := ifelse(is.na(per_s), count / seconds, per_s)]
  pub[, label := ifelse(operation %in% c("sign", "verify"), paste(primitive, operation),
                        paste0(primitive, " @ ", fmt_int(block_bytes), " B"))]
  rows <- unique(c(pub$label, ours$label))
  out <- data.table(primitive = rows, "seed (LibreSSL 2.8.3)" = fmt_ops(pub$per_s[match(rows, pub$label)]))
  for (lang in intersect(langs, unique(ours$language))) {
    d <- ours[language == lang]
    i <- match(rows, d$label)
    out[[lang]] <- ifelse(is.na(i), "\u2013", value_or_status(fmt_ops(d$ops_per_s[i]), d$ops_per_s[i], d$status[i]))
  }
  out[]
}

seed003_verdict_table <- function(verdicts, claims, langs) {
  seed_verdict_table(verdicts, claims, list(language = intersect(langs, unique(verdicts$language))))
}

# Throughput against block size for the block primitives, per language; the seed's LibreSSL
# figures as black crosses on the panels of its two primitives.
plot_seed003_throughput <- function(speed, pub) {
  d <- speed[!is.na(mb_per_s) & operation %in% c("digest", "mac", "encrypt") & grepl("^bytes-", input)]
  if (!nrow(d)) return(placeholder_plot("No block primitive was timed."))
  d <- copy(d)[, panel := seed003_primitive[algorithm]]
  p <- pub[operation %in% c("digest", "encrypt")][, `:=`(panel = primitive, mb_per_s = kbytes_per_s / 1000)]
  ggplot(d, aes(input_bytes, mb_per_s, colour = language)) +
    geom_line(linewidth = 0.5) +
    geom_point(size = 1.5) +
    geom_point(data = p, aes(block_bytes, mb_per_s), inherit.aes = FALSE, shape = 4, size = 2.4, stroke = 1) +
    facet_wrap(~panel, ncol = 2) +
    scale_x_log10(breaks = sort(unique(d$input_bytes))) +
    scale_y_log10(breaks = breaks_log(n = 7), labels = label_number(drop0trailing = TRUE)) +
    scale_colour_language() +
    labs(x = "block size (bytes, log scale)", y = "MB/s (log scale)")
}

# Each language's primitive over openssl speed's, per primitive and size, with its CI.
plot_primitive_overhead <- function(overhead, langs) {
  d <- overhead[kind == "over openssl"]
  if (!nrow(d)) return(placeholder_plot("No primitive has both a library's and openssl's figure."))
  d <- copy(d)[, `:=`(panel = seed003_primitive[algorithm],
                      what = ifelse(operation %in% c("sign", "verify"), operation, sub("^bytes-", "", input)))]
  d[, what := factor(what, levels = unique(c("sign", "verify", as.character(sort(as.integer(
    setdiff(unique(what), c("sign", "verify"))))))))]
  pos <- dodge(uniqueN(d$language))
  ggplot(d, aes(what, ratio, colour = language)) +
    geom_hline(yintercept = 1, linetype = "dashed", colour = "grey40") +
    geom_errorbar(aes(ymin = ci_low, ymax = ci_high), width = 0, linewidth = 0.6, position = pos) +
    geom_point(size = 1.8, position = pos) +
    facet_wrap(~panel, scales = "free_x", ncol = 4) +
    scale_y_log10(labels = function(b) fmt_ratio(b), breaks = breaks_log(n = 8)) +
    scale_colour_language() +
    labs(x = "block size (bytes), or operation", y = "library time / openssl speed time (log scale)")
}

# Evaluated by knitr even when the chunk is not (eval: false), so it copes with no table.
overhead_fig_height <- function(overhead) {
  if (is.null(overhead) || !nrow(overhead)) return(2)
  2.2 + 2.4 * ceiling(max(1, uniqueN(overhead[kind == "over openssl", algorithm])) / 4)
}

jwt_overhead_table <- function(overhead, langs) {
  d <- overhead[kind == "jwt over primitive"]
  d <- d[order(match(language, langs), algorithm)]
  d[, .(language, "JWT library" = implementation, algorithm,
        "JWT sign" = fmt_ns(numerator_ns), "primitive on the same bytes" = fmt_ns(denominator_ns),
        "JWT / primitive [CI]" = paste0(fmt_ratio(ratio), " [", fmt_num(ci_low), ", ", fmt_num(ci_high), "]"))]
}

# "python 1.02-3.4x" per language: the range of its ratios over openssl.
overhead_ranges <- function(overhead, langs) {
  d <- overhead[kind == "over openssl", .(low = min(ratio), high = max(ratio), n = .N), by = language]
  d <- d[order(match(language, langs))]
  fmt_list(d[, paste0(language, " ", fmt_num(low, 3), "\u2013", fmt_ratio(high, 3), " (", n, " cells)")])
}
