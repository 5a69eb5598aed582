# Helpers shared by the sections on seeds 001 and 002 (R/seed001.R, R/seed002.R): reading
# a seed's results, its verdict table and the colours of series that are a language and
# one of its implementations. Verdicts come from each seed's verdicts.csv; nothing here
# judges a claim.

# A seed's tables from results/<dir>/, or NULL when the run did not reproduce that seed
# (its verdicts.csv is absent); once verdicts.csv is there, every other table must be too.
read_seed_tables <- function(dir, columns) {
  if (!file.exists(file.path(results_dir, dir, "verdicts.csv"))) return(NULL)
  tables <- lapply(names(columns), function(name)
    read_result_csv(file.path(dir, paste0(name, ".csv")), columns[[name]]))
  setNames(tables, names(columns))
}

# The run's languages first (the same colours as every other figure), then any language
# only a seed's tables name.
seed_languages <- function(langs, ...) union(langs, sort(unique(na.omit(as.character(c(...))))))

# What a verdict rests on: "0.912× [0.846, 0.953]" for one comparison; over several, the
# range of the ratios and the span of their CIs.
fmt_deciding <- function(ratio_min, ratio_max, ci_low, ci_high, comparisons) {
  one <- paste0(fmt_ratio(ratio_min, 3), " [", fmt_num(ci_low, 3), ", ", fmt_num(ci_high, 3), "]")
  many <- paste0(fmt_num(ratio_min, 3), "\u2013", fmt_ratio(ratio_max, 3), " over ", comparisons,
                 " ratios (CIs ", fmt_num(ci_low, 3), "\u2013", fmt_num(ci_high, 3), ")")
  ifelse(is.na(ratio_min), "\u2013", ifelse(!is.na(comparisons) & comparisons == 1, one, many))
}

# One row per claim and group (language and method, or language and implementation), in
# the published claims' order: the claim, what decides it and the seed's figures on the
# claim's first row only, then the verdict, the ratios it rests on and why. `label` and
# `verdict_label` rename a claim's statement or verdict (seed 001's oddity is a question).
seed_verdict_table <- function(verdicts, claims, group_levels, label = function(claim, statement) statement,
                               verdict_label = function(claim, verdict) verdict) {
  d <- merge(verdicts, claims[, .(claim, statement, published)], by = "claim", all.x = TRUE, sort = FALSE)
  d[, claim_order := match(claim, claims$claim)]
  for (col in names(group_levels)) set(d, j = col, value = factor(d[[col]], levels = group_levels[[col]]))
  setorderv(d, c("claim_order", names(group_levels)))
  first <- !duplicated(d$claim)
  claim_text <- paste0(md_escape(label(d$claim, d$statement)), "<br><small>judged by: ", md_escape(d$what),
                       "</small>")
  out <- data.table(claim = ifelse(first, claim_text, ""),
                    "the seed" = ifelse(first, md_escape(d$published), ""))
  for (col in names(group_levels)) out[[col]] <- as.character(d[[col]])
  out[, verdict := paste0("**", verdict_label(d$claim, d$verdict), "**")]
  out[["ratio [CI]"]] <- fmt_deciding(d$ratio_min, d$ratio_max, d$ci_low, d$ci_high, d$comparisons)
  if ("pairing" %in% names(d)) {
    # How the ratios were taken: paired by round, or medians whose CI carries the drift.
    taken <- !is.na(d$pairing) & nzchar(d$pairing)
    out[["ratio [CI]"]] <- paste0(out[["ratio [CI]"]], ifelse(taken, paste0("<br><small>", d$pairing, "</small>"), ""))
  }
  out[, why := md_escape(d$reason)]
  out[]
}

# "java (jca)": one series per language and implementation.
series_label <- function(language, implementation) paste0(language, " (", implementation, ")")

# The series of some tables in the languages' order, each language's implementations sorted.
series_table <- function(langs, ...) {
  u <- unique(rbindlist(lapply(list(...), function(d) d[, .(language, implementation)])))
  u <- u[order(match(language, langs), implementation)]
  u[, `:=`(series = series_label(language, implementation), nth = seq_len(.N)), by = language]
  u[]
}

# A language's first implementation in the language's colour, further ones darker.
series_colours <- function(series, colours) {
  shade <- function(colour, nth) grDevices::colorRampPalette(c(colour, "black"))(100)[min(1 + 45 * (nth - 1), 80)]
  setNames(mapply(shade, colours[series$language], series$nth, USE.NAMES = FALSE), series$series)
}

# A cell's formatted value, or its status (unsupported, failed, ...) when it has none.
value_or_status <- function(text, value, status) ifelse(is.na(value), as.character(status), text)
