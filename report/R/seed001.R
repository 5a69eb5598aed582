# Seed 001 (FusionAuth JWT 6.0.0 on OpenJDK 17: the sign and verify ranking of 25
# variants, and six key insights): the published tables (report/published/seed001_*.csv)
# beside this run's (results/seed001/*.csv, written by workflow/scripts/seeds/seed001.py) under
# both methods, jwtbench's and the seed's own. Verdicts come from verdicts.csv.

seed001_columns <- list(
  rankings = list(character = c("language", "method", "operation", "variant", "status"),
                  numeric = c("samples", "median_us", "mean_us", "ci_low_us", "ci_high_us", "rank",
                              "ratio_to_hs512", "ratio_ci_low", "ratio_ci_high")),
  verdicts = list(character = c("claim", "language", "method", "verdict", "reason", "what"),
                  numeric = c("ratio_min", "ratio_max", "ci_low", "ci_high", "comparisons"))
)

# The methods as seed001.py names them: the seed's own first (like for like with its
# table), then jwtbench's; short names for column headers and legends.
seed001_methods <- c("seed 001's method" = "seed's method", "jwtbench" = "jwtbench")
method_phrase <- c("seed 001's method" = "seed 001's method", "jwtbench" = "jwtbench's method")
seed001_oddity <- "hs512_faster_than_hs256"

read_seed001 <- function() read_seed_tables("seed001", seed001_columns)

read_published_seed001 <- function() {
  list(rankings = read_published("seed001_rankings.csv",
                                 c("operation", "published_name", "variant", "relative_printed", "source")),
       claims = read_published("seed001_claims.csv", c("claim", "statement", "published", "source")))
}

# "node (jsonwebtoken 9.0.3) and java (fusionauth-jwt 6.0.0, the seed's library)", from provenance.
seed001_language_desc <- function(langs, prov) {
  fmt_list(vapply(langs, function(lang) {
    info <- field(prov, "languages", lang)
    library <- trimws(paste(recorded(field(info, "implementation"), ""), recorded(field(info, "implementation_version"), "")))
    seed_lib <- identical(field(info, "implementation"), "fusionauth-jwt")
    notes <- c(if (nzchar(library)) library, if (seed_lib) "the seed's library")
    if (length(notes)) paste0(lang, " (", paste(notes, collapse = ", "), ")") else lang
  }, character(1)))
}

# The methods this run measured, in seed001_methods' order.
seed001_method_levels <- function(rankings) {
  union(intersect(names(seed001_methods), rankings$method), sort(unique(rankings$method)))
}

method_short <- function(method) ifelse(method %in% names(seed001_methods), seed001_methods[method], method)
method_name <- function(method) ifelse(method %in% names(method_phrase), method_phrase[method], method)

# The oddity is not a claim of the seed: it is asked as a question, answered reproduces or not.
seed001_claim_label <- function(claim, statement) {
  ifelse(claim == seed001_oddity,
         paste0("Does the seed's oddity reproduce? ", sub("^\\([^)]*\\) *", "", statement)), statement)
}

seed001_verdict_label <- function(claim, verdict) {
  oddity <- c(holds = "reproduces", "does not hold" = "does not reproduce")
  ifelse(claim == seed001_oddity & verdict %in% names(oddity), oddity[verdict], verdict)
}

seed001_verdict_table <- function(verdicts, claims, langs, methods) {
  seed_verdict_table(verdicts, claims, list(language = langs, method = methods),
                     label = seed001_claim_label, verdict_label = seed001_verdict_label)
}

# "1.7×" from the seed's "1.7x slower" / "1.0x (baseline)": its figure as printed.
published_relative <- function(printed) sub("x.*$", "\u00d7", printed)

# The variant as seed 001 prints it where its name differs ("EdDSA (Ed25519)").
seed001_variant_label <- function(variant, published_name) {
  ifelse(is.na(published_name) | variant == published_name, variant,
         paste0(variant, " (", published_name, ")"))
}

# One language and operation: the seed's rank, mean and ratio to HS512 beside ours per
# method (rank with ties marked "=", median with its CI, ratio to HS512 with its CI), in
# the seed's order.
seed001_ranking_table <- function(rankings, published, lang, op, methods) {
  pub <- published[operation == op][order(rank)]
  out <- pub[, .(variant = seed001_variant_label(variant, published_name), "seed: rank" = rank,
                 "seed: mean \u00b5s" = formatC(mean_us, format = "f", digits = 2, big.mark = ","),
                 "seed: \u00d7 HS512" = published_relative(relative_printed))]
  for (m in methods) {
    group <- rankings[language == lang & method == m & operation == op]
    tied <- group[!is.na(rank), rank[duplicated(rank)]]
    r <- group[match(pub$variant, variant)]
    status <- ifelse(is.na(r$status), "no row", r$status)
    head <- method_short(m)
    out[[paste0(head, ": rank")]] <- value_or_status(paste0(r$rank, ifelse(r$rank %in% tied, "=", "")),
                                                     r$rank, status)
    out[[paste0(head, ": median \u00b5s [CI]")]] <- ifelse(is.na(r$median_us), "\u2013", paste0(
      fmt_num(r$median_us, 4), " [", fmt_num(r$ci_low_us, 4), ", ", fmt_num(r$ci_high_us, 4), "]"))
    out[[paste0(head, ": \u00d7 HS512 [CI]")]] <- ifelse(
      is.na(r$ratio_to_hs512), "\u2013", ifelse(r$variant == "HS512", "baseline", paste0(
        fmt_ratio(r$ratio_to_hs512, 3), " [", fmt_num(r$ratio_ci_low, 3), ", ", fmt_num(r$ratio_ci_high, 3), "]")))
  }
  out
}

# Variants a language did not time, by status: "node: EdDSA (unsupported)".
seed001_untimed <- function(rankings, langs) {
  d <- rankings[status != "ok" & operation %in% c("sign", "verify"),
                .(variants = paste(unique(variant), collapse = ", ")), by = .(language, status)]
  d <- d[order(match(language, langs))]
  if (!nrow(d)) return(character())
  d[, paste0(language, ": ", variants, " (", status, ")")]
}

plot_seed001_ratios <- function(rankings, published, langs, methods) {
  d <- rankings[operation %in% c("sign", "verify") & !is.na(ratio_to_hs512)]
  if (!nrow(d)) return(placeholder_plot("No ratio to HS512 was measured."))
  d <- copy(d)[, `:=`(variant = factor(variant, levels = seed001_variants),
                      language = factor(language, levels = langs),
                      marker = factor(method_short(method), levels = c(method_short(methods), "seed 001 (published)")))]
  pub <- published[, .(operation, variant = factor(variant, levels = seed001_variants),
                       ratio = as.numeric(sub("x.*$", "", relative_printed)),
                       marker = factor("seed 001 (published)", levels = levels(d$marker)))]
  shapes <- setNames(c(16, 2, 0, 5)[seq_along(methods)], method_short(methods))
  ggplot(d, aes(variant, ratio_to_hs512, colour = language, shape = marker,
                group = interaction(language, marker))) +
    geom_hline(yintercept = 1, linetype = "dashed", colour = "grey40") +
    geom_point(data = pub, aes(variant, ratio, shape = marker), inherit.aes = FALSE, colour = "black",
               size = 2.8, stroke = 0.9) +
    geom_errorbar(aes(ymin = ratio_ci_low, ymax = ratio_ci_high), width = 0, linewidth = 0.5,
                  position = position_dodge(width = 0.75)) +
    geom_point(size = 1.7, position = position_dodge(width = 0.75)) +
    facet_wrap(~operation, ncol = 1, scales = "free_y") +
    scale_y_log10(labels = function(b) fmt_ratio(b), breaks = breaks_log(n = 8)) +
    scale_colour_manual(values = language_colours(langs), breaks = intersect(langs, d$language),
                        name = "language") +
    scale_shape_manual(values = c(shapes, "seed 001 (published)" = 4), drop = FALSE, name = NULL) +
    labs(x = NULL, y = "time / HS512's time (log scale)") +
    rotate_x_labels
}

# Per language and method, HS256's time over HS512's for sign and verify (rankings'
# ratio_to_hs512 of HS256) and what it says about the seed's HS512 < HS256.
hmac_order <- function(rankings) {
  d <- rankings[variant == "HS256" & operation %in% c("sign", "verify") & !is.na(ratio_to_hs512)]
  d[, shows := fifelse(ratio_ci_low > 1, "HS512 faster", fifelse(ratio_ci_high < 1, "HS256 faster", "no difference shown"))]
  d[]
}

hmac_order_phrase <- function(h) {
  parts <- h[order(match(operation, c("sign", "verify"))),
             paste0(fmt_ratio(ratio_to_hs512, 3), " [", fmt_num(ratio_ci_low, 3), ", ", fmt_num(ratio_ci_high, 3),
                    "] for ", operation)]
  shows <- unique(h$shows)
  verdict <- if (identical(shows, "HS512 faster")) "HS512 is the faster, **as in the seed**"
             else if (identical(shows, "HS256 faster")) "HS256 is the faster, **unlike the seed**"
             else paste0("no single answer (", paste0(h$operation, ": ", h$shows, collapse = "; "), ")")
  paste0("HS256 / HS512 is ", fmt_list(parts), ": ", verdict)
}

# One line per language: HS256 against HS512 under each method, and under the seed's
# method how much slower its first cells ran than under jwtbench's, against its median.
seed001_method_lines <- function(rankings, langs, methods, first_variant) {
  h <- hmac_order(rankings)
  langs <- intersect(langs, unique(rankings$language))
  vapply(langs, function(lang) {
    per_method <- vapply(methods, function(m) {
      hm <- h[language == lang & method == m]
      if (!nrow(hm)) return(paste0("under ", method_name(m), " HS256 or HS512 was not timed"))
      paste0("under ", method_name(m), ", ", hmac_order_phrase(hm))
    }, character(1))
    paste0("- **", lang, "**: ", paste(per_method, collapse = "; "), ".",
           method_slowdown(rankings[language == lang], first_variant))
  }, character(1))
}

# " Per call, seed 001's method took 2.9× jwtbench's median for HS256, its first cell, and
# 1.02× over all variants (median)." when both methods timed the language.
method_slowdown <- function(r, first_variant) {
  wide <- dcast(r[!is.na(median_us) & operation %in% c("sign", "verify")], operation + variant ~ method,
                value.var = "median_us")
  if (!all(names(seed001_methods) %in% names(wide))) return("")
  wide[, slowdown := get(names(seed001_methods)[1]) / get(names(seed001_methods)[2])]
  first <- wide[variant == first_variant][order(match(operation, c("sign", "verify")))]
  if (!nrow(first)) return("")
  paste0(" Per call, seed 001's method took ", fmt_list(first[, paste0(fmt_ratio(slowdown, 3), " to ", operation)]),
         " jwtbench's median time for ", first_variant, ", the first cell it times, against ",
         fmt_ratio(median(wide$slowdown), 3), " over all ", nrow(wide), " sign and verify cells (median).")
}

# Where the seed's HS512 < HS256 appears: under which methods, for which languages.
seed001_method_conclusion <- function(rankings, methods) {
  h <- hmac_order(rankings)[operation == "sign"]
  if (!nrow(h)) return("No language timed HS256 and HS512, so the question stays open.")
  by_method <- vapply(methods, function(m) {
    yes <- h[method == m & shows == "HS512 faster", language]
    paste0("under ", method_name(m), " HS512 signs faster than HS256 in ", length(yes), " of ",
           uniqueN(h[method == m, language]), " languages", if (length(yes)) paste0(" (", fmt_list(yes), ")"))
  }, character(1))
  wide <- dcast(h, language ~ method, value.var = "shows")
  methods_in <- intersect(names(seed001_methods), names(wide))
  reading <- if (length(methods_in) < 2) "" else {
    seed_only <- wide[get(methods_in[1]) == "HS512 faster" & get(methods_in[2]) != "HS512 faster", language]
    both <- wide[get(methods_in[1]) == "HS512 faster" & get(methods_in[2]) == "HS512 faster", language]
    paste0(
      if (length(seed_only)) paste0(" For ", fmt_list(seed_only), " it appears only under seed 001's method, ",
                                    "which fits the seed's HS512 < HS256 coming from how its cells were timed ",
                                    "(cold, in order) rather than from HMAC-SHA512 costing less than HMAC-SHA256."),
      if (length(both)) paste0(" For ", fmt_list(both), " it appears under both methods, so it is not only ",
                               "a matter of warm-up."))
  }
  paste0("In this run ", fmt_list(by_method), ".", reading)
}
