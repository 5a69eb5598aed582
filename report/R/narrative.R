# Sentences that quote the results. Each returns markdown; none types in a finding.

# "- **node** (72 of 75 cells timed): sign from 9.07 µs (HS256) to 9.13 ms (PS512-4096); ..."
language_headline <- function(lang, cells, timed) {
  mine <- cells[language == lang]
  ok <- timed[language == lang]
  if (!nrow(ok)) {
    statuses <- mine[, .N, by = status][, paste(N, status)]
    return(paste0("- **", lang, "**: no cell was timed (",
                  fmt_list(statuses, none = "no row in summary.csv"), ")."))
  }
  ops <- intersect(c("sign", "verify"), as.character(unique(ok$operation)))
  parts <- vapply(ops, function(op) {
    e <- operation_extremes(ok, op)
    paste0(op, " from ", fmt_ns(e$fastest_ns), " (", e$fastest, ") to ",
           fmt_ns(e$slowest_ns), " (", e$slowest, ")")
  }, character(1))
  dec <- ok[operation == "decode"]
  if (nrow(dec)) {
    parts <- c(parts, paste0("decode ", fmt_ns(median(dec$median_ns)), " (median over ",
                             nrow(dec), " variants)"))
  }
  paste0("- **", lang, "** (", nrow(ok), " of ", nrow(mine), " cells timed): ",
         paste(parts, collapse = "; "), ".")
}

rsa_growth_sentence <- function(growth) {
  if (!nrow(growth)) {
    return("No language has RSA cells timed at both 2048 and 4096 bits, so no growth factor is given.")
  }
  same_count <- uniqueN(growth$algorithms) == 1
  paste0(
    "Going from a 2048-bit to a 4096-bit modulus multiplies the time per operation by ",
    fmt_list(growth[, paste0(fmt_ratio(factor, 3), " for ", language, " ", operation,
                             if (!same_count) paste0(" (", algorithms, " algorithms)") else "")]),
    " (the median, over the ", if (same_count) paste0(growth$algorithms[1], " "),
    "RS/PS algorithms timed at both sizes, of time at 4096 bits over time at 2048).")
}

# Per language: variants whose verify/sign CI lies above 1, below 1, or includes 1.
verify_sign_lines <- function(vs, langs) {
  vapply(langs, function(lang) {
    r <- vs[language == lang][order(variant)]
    if (!nrow(r)) return(paste0("- **", lang, "**: no verify/sign ratio."))
    above <- r[ci_low > 1, as.character(variant)]
    below <- r[ci_high < 1, as.character(variant)]
    spans <- r[ci_low <= 1 & ci_high >= 1, as.character(variant)]
    paste0("- **", lang, "**: verify slower than sign (CI above 1) for ", fmt_list(above),
           "; faster (CI below 1) for ", fmt_list(below),
           if (length(spans)) paste0("; no difference shown (CI includes 1) for ", fmt_list(spans)),
           ".")
  }, character(1))
}

# `decoded`: suite jwt's decode cells on every input (the claims file, the datasets).
decode_sentence <- function(decoded) {
  dec <- decoded[, .(low = min(median_ns), high = max(median_ns), mid = median(median_ns), cells = .N),
                 keyby = language]
  if (!nrow(dec)) return("No decode cell was timed.")
  inputs <- sort(unique(as.character(decoded$input)))
  paste0("`decode` reads the claims without checking the signature. On ", fmt_list(inputs),
         ", across variants, it takes ",
         fmt_list(dec[, paste0(language, " ", fmt_ns(low), " to ", fmt_ns(high), " (median ",
                               fmt_ns(mid), ", ", cells, " cells)")]), ".")
}

# "All 4 ratios lie within 1 ± 0.05." or the count within and the ones outside, named.
container_native_sentence <- function(cvn) {
  paste0(container_native_verdict(cvn), container_stack_note(cvn))
}

# Which languages ran a different runtime or backend natively than in their image: their
# ratio compares two software stacks, not only container against no container.
container_stack_note <- function(cvn) {
  if (!"same_stack" %in% names(cvn)) return("")
  differ <- unique(cvn[!(same_stack %in% TRUE)], by = "language")
  if (!nrow(differ)) {
    return(" Each language ran the same runtime, library and crypto backend on both sides.")
  }
  paste0(" For ", fmt_list(differ$language), " the two sides ran different stacks (",
         paste0(differ[, paste0(language, ": native ", md_escape(native_stack), "; container ",
                               md_escape(container_stack))], collapse = " | "),
         "), so their ratio measures the stacks as well as the container.")
}

container_native_verdict <- function(cvn) {
  n <- nrow(cvn)
  tol <- unique(cvn$tolerance)
  band <- if (length(tol) == 1 && !is.na(tol)) paste0("1 \u00b1 ", fmt_num(tol, 3)) else "their tolerance"
  off <- cvn[within_tolerance == FALSE | is.na(within_tolerance)]
  spread <- paste0(" (from ", fmt_num(min(cvn$ratio, na.rm = TRUE), 3), " to ",
                   fmt_num(max(cvn$ratio, na.rm = TRUE), 3), ")")
  if (!nrow(off)) {
    return(paste0(if (n == 1) "The one ratio lies" else paste0("All ", n, " ratios lie"),
                  " within ", band, if (n > 1) spread, ": the container added no cost per ",
                  "operation that this comparison can see."))
  }
  paste0(n - nrow(off), " of ", n, " ratio", if (n > 1) "s", " lie within ", band, spread,
         "; **outside it: ", fmt_list(off[, paste0(language, " ", operation, " ", variant, " (",
         fmt_ratio(ratio, 3), ")")]), "**, where the figures above may not carry over between ",
         "a container and the host.")
}

# Per language: "- **node**: 41 ms natively, 230 ms in a container, of which an empty
# container's start-up is 190 ms."
coldstart_lines <- function(bars, langs) {
  langs <- intersect(langs, as.character(unique(bars$language)))
  vapply(langs, function(lang) {
    b <- bars[language == lang]
    at <- function(label) b$median_ns[as.character(b$what) == label][1]
    native <- at("native process")
    container <- at("container process")
    startup <- at("container start-up (empty container)")
    parts <- c(
      if (!is.na(native)) paste0(fmt_ns(native), " natively"),
      if (!is.na(container)) paste0(fmt_ns(container), " in a container"))
    text <- if (length(parts)) fmt_list(parts) else "no whole-process time"
    if (!is.na(startup)) {
      text <- paste0(text, if (!is.na(container)) ", of which an empty container's start-up is "
                     else "; an empty container's start-up takes ", fmt_ns(startup))
    }
    if (is.na(container) && is.na(startup)) text <- paste0(text, " (no container was timed)")
    paste0("- **", lang, "**: ", text, ".")
  }, character(1))
}
