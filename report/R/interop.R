# The verification matrix, completed to every signer x verifier x variant x check so a
# missing row shows up instead of vanishing.

interop_checks <- c("valid", "tampered", "alg_none")
interop_outcomes <- c("ok", "other alg name", "failed", "unsupported", "no row")

# outcome: ok (observed == expected); other alg name (ok, but the valid token had to be
# rejected: signer and verifier name the algorithm differently); unsupported (not ok, or no row, where the signer's
# library lacks the variant for sign or the verifier's for verify, per summary.csv);
# failed (not ok otherwise); no row (no row and nothing explains it).
# `declared` (driver, operation, variant), when given, says what each driver lacks (from
# drivers.csv); else summary.csv's unsupported cells do (each language's own driver).
classify_interop <- function(rows, cells, langs, variants, cross_variants = variants, declared = NULL) {
  unsupported <- if (!is.null(declared)) declared[, .(language = driver, operation, variant)]
                 else unique(cells[status == "unsupported",
                                   .(language = as.character(language),
                                     operation = as.character(operation),
                                     variant = as.character(variant))])
  lacks <- function(language, operation, variant) {
    paste(language, operation, variant) %in%
      paste(unsupported$language, unsupported$operation, unsupported$variant)
  }
  grid <- CJ(signer = langs, verifier = langs, variant = variants, check = interop_checks,
             sorted = FALSE)
  # Across languages only the config's interop.variants are checked (all when it is empty).
  grid <- grid[signer == verifier | variant %in% cross_variants]
  extra <- unique(rows[!paste(signer, verifier, variant, check) %in%
                         paste(grid$signer, grid$verifier, grid$variant, grid$check),
                       .(signer, verifier, variant, check)])
  grid <- rbind(grid, extra)
  out <- merge(grid, rows, by = c("signer", "verifier", "variant", "check"), all.x = TRUE,
               sort = FALSE)
  out[, explained := lacks(signer, "sign", variant) | lacks(verifier, "verify", variant)]
  out[, outcome := fifelse(is.na(ok), fifelse(explained, "unsupported", "no row"),
                           fifelse(ok, "ok", fifelse(explained, "unsupported", "failed")))]
  # A valid token the verifier had to reject: its header names the algorithm otherwise than
  # the verifier's library (java's fusionauth-jwt writes RFC 9864's Ed25519 for EdDSA).
  out[outcome == "ok" & check == "valid" & expected %in% c("reject", "either"), outcome := "other alg name"]
  out[, `:=`(
    outcome = factor(outcome, levels = interop_outcomes),
    check = factor(check, levels = union(interop_checks, unique(check))),
    variant = factor(variant, levels = union(variants, unique(variant))),
    signer = factor(signer, levels = union(langs, unique(signer))),
    verifier = factor(verifier, levels = union(langs, unique(verifier))),
    self = signer == verifier
  )]
  out[, pair := factor(paste(signer, "\u2192", verifier),
                       levels = unique(paste(rep(levels(signer), each = nlevels(verifier)),
                                             "\u2192", levels(verifier))))]
  setorder(out, signer, verifier, variant, check)
  out[, explained := NULL][]
}

# "node → python, PS384-3072, tampered: expected reject, observed accept"
describe_interop_row <- function(r) {
  detail <- if (is.na(r$observed)) "no row in verify/matrix.csv"
            else paste0("expected ", r$expected, ", observed ", r$observed)
  paste0(r$signer, " \u2192 ", r$verifier, ", ", r$variant, ", ", r$check, ": ", detail)
}
