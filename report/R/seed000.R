# Seed 000 (Leonardo & Rojali 2025: Node.js jsonwebtoken, HS512 vs RS512 on three Kaggle
# datasets): the published figures (report/published/seed000_*.csv) beside this run's
# (results/seed000/*.csv, written by workflow/scripts/seeds/seed000.py). Verdicts come from
# verdicts.csv; nothing here judges a claim.

seed000_columns <- list(
  rates = list(character = c("language", "dataset", "variant", "operation", "status"),
               numeric = c("samples", "mean_s", "rps", "median_s", "record_bytes", "token_bytes")),
  tokensize = list(character = c("language", "dataset", "variant", "status"),
                   numeric = c("records", "mean_bytes", "min_bytes", "max_bytes", "mean_record_bytes")),
  transfer = list(character = c("language", "dataset", "variant", "status"),
                  numeric = c("process", "trial", "body_bytes", "token_bytes", "request_response_s", "mb_per_s",
                              "sign_s", "verify_s")),
  ratios = list(character = c("claim", "language", "dataset", "what"),
                numeric = c("ratio", "ci_low", "ci_high")),
  verdicts = list(character = c("claim", "language", "dataset", "verdict", "processes", "reason", "what"),
                  numeric = c("ratio", "ci_low", "ci_high"))
)

# This run's seed-000 tables, or NULL when the run measured no dataset.
read_seed000 <- function() read_seed_tables("seed000", seed000_columns)

# A published table; the columns named in `character` that it has are read as text.
read_published <- function(file, character = c("dataset", "source")) {
  path <- file.path(report_dir, "published", file)
  if (!file.exists(path)) stop("published figures missing: ", path, call. = FALSE)
  present <- names(fread(path, nrows = 0))
  fread(path, colClasses = list(character = intersect(character, present)))
}

read_published_seed000 <- function() {
  list(token_size = read_published("seed000_token_size.csv"),
       rates = read_published("seed000_rates.csv"),
       transfer = read_published("seed000_transfer.csv"),
       claims = read_published("seed000_claims.csv"))
}

# The datasets as provenance records them (results/data/<name>/dataset.json).
dataset_facts_table <- function(prov) {
  d <- field(prov, "datasets")
  if (is.null(d) || !length(d)) return(NULL)
  rbindlist(lapply(names(d), function(name) {
    f <- d[[name]]
    data.table(dataset = name, title = f$title %||% name, source = f$source %||% NA_character_,
               synthetic = isTRUE(f$synthetic), bytes = f$bytes %||% NA_real_,
               expected_bytes = f$expected_bytes %||% NA_real_, records = f$records %||% NA_real_,
               tokensize_records = f$tokensize_records %||% f$records %||% NA_real_,
               mean_record = field(f, "record_bytes", "mean") %||% NA_real_,
               warnings = paste(unlist(f$warnings), collapse = "; "))
  }))
}

dataset_title <- function(facts, datasets) {
  titles <- if (is.null(facts)) character() else setNames(facts$title, facts$dataset)
  ifelse(datasets %in% names(titles), titles[datasets], datasets)
}

seed000_dataset_table <- function(facts, transfer) {
  body <- if (nrow(transfer)) unique(transfer[, .(dataset, body_bytes)]) else data.table(dataset = character(), body_bytes = numeric())
  d <- merge(facts, body[, .(body_bytes = max(body_bytes)), by = dataset], by = "dataset", all.x = TRUE)
  d[, .(dataset = title,
        source = ifelse(synthetic, "**synthetic** stand-in", source),
        "CSV size" = paste0(fmt_num(bytes / 1e6, 3), " MB"),
        "size asked for" = paste0(fmt_num(expected_bytes / 1.024e6, 2), " MB"),
        records = fmt_int(records),
        "signed for token size" = fmt_int(tokensize_records),
        "mean record (bytes)" = fmt_num(mean_record, 3),
        "transfer body" = ifelse(is.na(body_bytes), "\u2013", paste0(fmt_num(body_bytes / 1e6, 3), " MB")))]
}

synthetic_warning <- function(facts) {
  if (is.null(facts) || !any(facts$synthetic)) return("")
  synthetic <- facts[synthetic == TRUE]
  reasons <- unique(synthetic$warnings[nzchar(synthetic$warnings)])
  callout_warning(
    "**Synthetic data.** ", fmt_list(synthetic$title), if (nrow(synthetic) > 1) " are" else " is",
    " jwtbench's deterministic stand-in", if (nrow(synthetic) > 1) "s", " for the paper's Kaggle ",
    "data (no Kaggle credentials worked and no file was dropped in `data/raw/`): the real ",
    "dataset's columns and kinds of values, sized like the paper's, every value invented. ",
    "Token and body sizes therefore differ from the paper's; the verdicts rest on ratios ",
    "measured within this run, which the data's content barely moves.",
    if (length(reasons)) paste0(" Why (from `dataset.json`, first of ", length(reasons), "): `",
                                gsub("`", "'", substr(reasons[1], 1, 240)),
                                if (nchar(reasons[1]) > 240) "…", "`."))
}

claim_labels <- c(sign_speed = "HMAC signs up to 10x faster than RSA",
                  verify_speed = "RSA verifies faster than HMAC",
                  decode_similar = "Decode rates are similar",
                  token_size = "HMAC tokens are 256 bytes smaller",
                  transfer_rate = "HMAC's transfer rate is higher")

# An overall row's interval: the pooled CI [low, high] of a ratio paired by round (the
# datasets taken together), else the datasets' range (low-high).
fmt_measured <- function(claim, ratio, low, high, pairing) {
  ifelse(claim == "token_size",
         paste0(fmt_num(ratio, 4), " bytes (", fmt_num(low, 4), "\u2013", fmt_num(high, 4), ")"),
         ifelse(pairing == "paired by round",
                paste0(fmt_ratio(ratio, 3), " [", fmt_num(low, 3), ", ", fmt_num(high, 3), "]"),
                paste0(fmt_ratio(ratio, 3), " (", fmt_num(low, 3), "\u2013", fmt_num(high, 3), ")")))
}

# One row per claim and language: the overall verdict, measured values over the datasets.
seed000_verdict_table <- function(verdicts, claims, langs) {
  d <- verdicts[dataset == "all"]
  d <- merge(d, claims[, .(claim, published)], by = "claim", all.x = TRUE, sort = FALSE)
  d[, claim_order := match(claim, names(claim_labels))]
  d[, language := factor(language, levels = langs)]
  setorder(d, claim_order, language)
  d[, .(claim = unname(claim_labels[claim]) %||% claim, "the paper" = published, language = as.character(language),
        verdict = paste0("**", verdict, "**"),
        "over the datasets" = fmt_measured(claim, ratio, ci_low, ci_high, pairing),
        why = reason)]
}

seed000_verdict_detail <- function(verdicts, facts, langs) {
  d <- verdicts[dataset != "all"]
  d[, claim_order := match(claim, names(claim_labels))]
  d[, language := factor(language, levels = langs)]
  setorder(d, claim_order, language, dataset)
  d[, .(claim, language = as.character(language), dataset = dataset_title(facts, dataset), verdict,
        "ratio [CI]" = ifelse(claim == "token_size",
                              paste0(fmt_num(ratio, 4), " bytes [", ci_low, "\u2013", ci_high, "]"),
                              paste0(fmt_ratio(ratio, 3), " [", fmt_num(ci_low, 3), ", ", fmt_num(ci_high, 3), "]",
                                     # a transfer ratio's processes, each its own ratio (the CI covers them)
                                     ifelse(is.na(processes) | processes == "", "", paste0("; ", processes)))),
        measures = what)]
}

# Paper's mean time and req/s (ranges) beside ours, per dataset, operation and algorithm.
seed000_rates_table <- function(rates, published, facts, langs) {
  ours <- rates[variant %in% c("HS512", "RS512-2048") & !is.na(mean_s)]
  ours[, algorithm := sub("-2048$", "", variant)]
  wide <- dcast(ours, dataset + operation + algorithm ~ language,
                value.var = c("mean_s", "rps"), fun.aggregate = function(x) x[1], fill = NA)
  pub <- published[, .(dataset, operation, algorithm,
                       paper_ms = paste0(fmt_num(mean_s_low * 1e3, 3), "\u2013", fmt_num(mean_s_high * 1e3, 3)),
                       paper_rps = paste0(fmt_ops(rps_low), "\u2013", fmt_ops(rps_high)))]
  d <- merge(wide, pub, by = c("dataset", "operation", "algorithm"), all.x = TRUE)
  d[, op_order := match(operation, c("sign", "verify", "decode"))]
  setorder(d, dataset, op_order, algorithm)
  out <- d[, .(dataset = dataset_title(facts, dataset), operation, algorithm,
               "paper: ms" = ifelse(is.na(paper_ms), "not stated", paper_ms),
               "paper: req/s" = ifelse(is.na(paper_rps), "not stated", paper_rps))]
  for (lang in intersect(langs, unique(ours$language))) {
    out[[paste0(lang, ": ms")]] <- fmt_num(d[[paste0("mean_s_", lang)]] * 1e3, 3)
    out[[paste0(lang, ": req/s")]] <- fmt_ops(d[[paste0("rps_", lang)]])
  }
  out
}

seed000_token_table <- function(tokens, verdicts, published, facts, langs) {
  t <- tokens[variant %in% c("HS512", "RS512-2048") & records > 0]
  t[, text := paste0(fmt_num(mean_bytes, 4), " (", fmt_int(min_bytes), "\u2013", fmt_int(max_bytes), ")")]
  out <- published[, .(dataset, "paper: HS512" = fmt_int(hs512_bytes), "paper: RS512" = fmt_int(rs512_bytes),
                       "paper: difference" = fmt_int(rs512_bytes - hs512_bytes))]
  for (lang in intersect(langs, unique(t$language))) {
    hs <- t[language == lang & variant == "HS512", .(dataset, hs = text)]
    rs <- t[language == lang & variant == "RS512-2048", .(dataset, rs = text)]
    diff <- verdicts[claim == "token_size" & language == lang & dataset != "all",
                     .(dataset, diff = ifelse(ci_low == ci_high, fmt_int(ci_low),
                                              paste0(fmt_int(ci_low), "\u2013", fmt_int(ci_high))))]
    out <- merge(out, hs, by = "dataset", all.x = TRUE)
    out <- merge(out, rs, by = "dataset", all.x = TRUE)
    out <- merge(out, diff, by = "dataset", all.x = TRUE)
    setnames(out, c("hs", "rs", "diff"), paste0(lang, c(": HS512", ": RS512-2048", ": difference")))
  }
  out[, dataset := dataset_title(facts, dataset)]
  out[]
}

seed000_transfer_table <- function(transfer, published, facts, langs) {
  ours <- transfer[status == "ok", .(trials = .N, processes = uniqueN(process), body_mb = max(body_bytes) / 1e6,
                                     median = median(mb_per_s), best = max(mb_per_s),
                                     rr = median(request_response_s)),
                   by = .(language, dataset, algorithm = sub("-2048$", "", variant))]
  pub <- published[, .(paper_median = median(mb_per_s), paper_best = max(mb_per_s),
                       paper_rr = median(request_response_s), paper_mb = size_mb[1]),
                   by = .(dataset, algorithm)]
  d <- merge(pub, ours, by = c("dataset", "algorithm"), all = TRUE)
  d[, language := factor(language, levels = langs)]
  setorder(d, dataset, language, algorithm)
  d[, .(dataset = dataset_title(facts, dataset), language = as.character(language), algorithm,
        "paper: size, median / best MB/s" = paste0(fmt_num(paper_mb, 2), " MB, ", fmt_num(paper_median, 3),
                                                  " / ", fmt_num(paper_best, 3)),
        "ours: body, trials" = paste0(fmt_num(body_mb, 3), " MB, ", fmt_int(trials),
                                      ifelse(!is.na(processes) & processes > 1, paste0(" in ", processes, " processes"), "")),
        "ours: median request-response" = paste0(fmt_num(rr * 1e3, 3), " ms"),
        "ours: median / best MB/s" = paste0(fmt_num(median, 3), " / ", fmt_num(best, 3)))]
}

# The paper's ratio for each claim and dataset, from its published ranges: the band
# [lowest, highest] that its own ranges allow.
published_ratio_bands <- function(pub) {
  r <- pub$rates
  pick <- function(alg, op) r[algorithm == alg & operation == op, .(dataset, lo = mean_s_low, hi = mean_s_high)]
  band <- function(num, den, claim) {
    d <- merge(num, den, by = "dataset", suffixes = c(".n", ".d"))
    d[, .(claim = claim, dataset, low = lo.n / hi.d, high = hi.n / lo.d)]
  }
  t <- pub$transfer[, .(m = median(mb_per_s)), by = .(dataset, algorithm)]
  transfer <- merge(t[algorithm == "HS512", .(dataset, hs = m)], t[algorithm == "RS512", .(dataset, rs = m)],
                    by = "dataset")
  rbind(band(pick("RS512", "sign"), pick("HS512", "sign"), "sign_speed"),
        band(pick("HS512", "verify"), pick("RS512", "verify"), "verify_speed"),
        band(pick("HS512", "decode"), pick("RS512", "decode"), "decode_similar"),
        transfer[, .(claim = "transfer_rate", dataset, low = hs / rs, high = hs / rs)])
}

# Each panel's ratio as the claim states it, and which side of 1 favours whom.
ratio_panel_labels <- c(sign_speed = "sign: RS512 / HS512 time (above 1: HMAC faster)",
                        verify_speed = "verify: HS512 / RS512 time (above 1: RSA faster)",
                        decode_similar = "decode: HS512 / RS512 time (above 1: RSA faster)",
                        transfer_rate = "transfer: HS512 / RS512 MB/s (above 1: HMAC faster)")

plot_seed000_ratios <- function(ratio_rows, bands, facts, langs) {
  if (!nrow(ratio_rows)) return(placeholder_plot("No seed-000 ratio was measured."))
  d <- copy(ratio_rows)[, `:=`(panel = factor(ratio_panel_labels[claim], levels = ratio_panel_labels),
                                dataset = factor(dataset_title(facts, dataset)),
                                language = factor(language, levels = langs))]
  b <- copy(bands)[, `:=`(panel = factor(ratio_panel_labels[claim], levels = ratio_panel_labels),
                          dataset = factor(dataset_title(facts, dataset), levels = levels(d$dataset)))]
  b <- b[!is.na(dataset)]
  pos <- dodge(uniqueN(d$language))
  ggplot(d, aes(dataset, ratio, colour = language)) +
    geom_hline(yintercept = 1, linetype = "dashed", colour = "grey40") +
    geom_linerange(data = b, aes(x = dataset, ymin = low, ymax = high), inherit.aes = FALSE,
                   colour = "grey70", linewidth = 5, alpha = 0.7) +
    geom_point(data = b, aes(x = dataset, y = sqrt(low * high)), inherit.aes = FALSE,
               shape = 4, colour = "grey35", size = 2) +
    geom_errorbar(aes(ymin = ci_low, ymax = ci_high), width = 0, linewidth = 0.6, position = pos) +
    geom_point(size = 2, position = pos) +
    facet_wrap(~panel, ncol = 2, scales = "free_y") +
    scale_y_log10() +
    scale_colour_language() +
    labs(x = NULL, y = "ratio (log scale)") +
    theme(axis.text.x = element_text(angle = 20, hjust = 1))
}

plot_seed000_transfer <- function(transfer, published, facts, langs) {
  ours <- transfer[status == "ok", .(who = language, dataset, algorithm = sub("-2048$", "", variant), mb_per_s)]
  paper <- published[, .(who = "paper", dataset, algorithm, mb_per_s)]
  d <- rbind(paper, ours)
  if (!nrow(ours)) return(placeholder_plot("No transfer trial was measured."))
  d[, `:=`(who = factor(who, levels = c("paper", langs)), dataset = dataset_title(facts, dataset))]
  ggplot(d, aes(algorithm, mb_per_s, colour = who)) +
    geom_point(position = position_jitterdodge(jitter.width = 0.15, dodge.width = 0.75, seed = 1),
               size = 1.3, alpha = 0.8) +
    facet_wrap(~dataset, nrow = 1) +
    scale_y_log10() +
    scale_colour_manual(values = c(paper = "grey45", lang_colours), breaks = c("paper", langs), name = NULL) +
    labs(x = NULL, y = "MB/s per trial (log scale)")
}

# Every algorithm's req/s per dataset and operation, one column per language.
seed000_all_rates_table <- function(rates, facts, langs) {
  d <- rates[!is.na(rps)]
  if (!nrow(d)) return(NULL)
  d[, variant := factor(variant, levels = variant_levels)]
  wide <- dcast(d, dataset + operation + variant ~ language, value.var = "rps", fun.aggregate = function(x) x[1])
  wide[, op_order := match(operation, c("sign", "verify", "decode"))]
  setorder(wide, dataset, op_order, variant)
  out <- wide[, .(dataset = dataset_title(facts, dataset), operation, variant = as.character(variant))]
  for (lang in intersect(langs, names(wide))) out[[paste0(lang, ": req/s")]] <- fmt_ops(wide[[lang]])
  out
}

# Token bytes of every algorithm signed in suite tokensize, mean (min-max) per language.
seed000_all_tokens_table <- function(tokens, facts, langs) {
  d <- tokens[records > 0]
  if (!nrow(d)) return(NULL)
  d[, text := paste0(fmt_num(mean_bytes, 4), " (", fmt_int(min_bytes), "\u2013", fmt_int(max_bytes), ")")]
  d[, variant := factor(variant, levels = variant_levels)]
  wide <- dcast(d, dataset + variant ~ language, value.var = "text", fun.aggregate = function(x) x[1])
  setorder(wide, dataset, variant)
  out <- wide[, .(dataset = dataset_title(facts, dataset), variant = as.character(variant))]
  for (lang in intersect(langs, names(wide))) out[[paste0(lang, ": bytes")]] <- wide[[lang]]
  out
}

# How precise the per-record cells are (summary.csv rows of jwt on the datasets).
seed000_precision_sentence <- function(cells, targets, confidence_pct) {
  d <- cells[status == "ok" & !is.na(ci_halfwidth_pct)]
  if (!nrow(d)) return("No per-record cell was timed.")
  within <- vapply(targets, function(x) mean(d$ci_halfwidth_pct <= x) * 100, numeric(1))
  by_lang <- d[, .(median = median(ci_halfwidth_pct)), keyby = language]
  paste0("Precision of these per-record cells (", confidence_pct, "% CI half-width as a share of the ",
         "median, from `summary.csv`): ", fmt_list(paste0(fmt_pct(within, 0), " within ", fmt_num(targets), "%")),
         " of ", fmt_int(nrow(d)), " cells; median per language ",
         fmt_list(by_lang[, paste0(language, " ", fmt_pct(median, 1))]), ".")
}
