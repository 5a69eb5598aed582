# The conformance suite (results/verify/conformance.csv, rule check_conformance): each JWS
# library's answer to each hostile token against the RFCs' expectation, and what its verify
# checks (results/verify/verify-policy.csv, from each driver.yaml).

conformance_classes <- c(
  "rejected, as required" = "#1b9e77",
  "accepted, as required" = "#a6dba0",
  "accepted (allowed)" = "#fee08b",
  "rejected (allowed)" = "#d9ef8b",
  "error, not accepted" = "#80b1d3",
  "deviation: accepted" = "#d7301f",
  "deviation: rejected a valid token" = "#fc8d59",
  "unsupported" = "grey80",
  "no answer" = "white"
)
conformance_groups <- c("control", "alg", "signature", "base64url", "header", "claims", "size")

# One class per (library, case), from expected (must_reject, may_accept, must_accept) and
# observed (accept, reject, error, unsupported, not_run).
classify_conformance <- function(rows, langs) {
  d <- copy(rows)
  d[, class := fcase(
    observed == "unsupported", "unsupported",
    !observed %in% c("accept", "reject", "error"), "no answer",
    expected == "must_reject" & observed == "accept", "deviation: accepted",
    expected == "must_accept" & observed != "accept", "deviation: rejected a valid token",
    observed == "error", "error, not accepted",
    expected == "must_reject", "rejected, as required",
    expected == "must_accept", "accepted, as required",
    observed == "accept", "accepted (allowed)",
    default = "rejected (allowed)"
  )]
  d[, `:=`(
    class = factor(class, levels = names(conformance_classes)),
    group = factor(group, levels = union(conformance_groups, unique(group))),
    language = factor(language, levels = union(langs, unique(language))),
    library = paste0(language, "/", implementation)
  )]
  setorder(d, language)
  d[, library := factor(library, levels = unique(library))]
  d[, case := factor(case, levels = rev(unique(case)))]
  d[]
}

# "python/pyjwt 2.15.1 rejects 66 of 70 must-reject cases; accepts `b64_header_padding`, ..."
conformance_summary_lines <- function(d) {
  by_library <- split(d, by = "library", sorted = TRUE)
  vapply(by_library, function(x) {
    must <- x[expected == "must_reject" & observed %in% c("accept", "reject", "error")]
    accepted <- must[observed == "accept", as.character(case)]
    strict <- x[class == "deviation: rejected a valid token", as.character(case)]
    unsupported <- x[observed == "unsupported", .N]
    paste0("**", x$library[1], " ", x$implementation_version[1], "** rejects ",
           fmt_int(sum(must$observed != "accept")), " of ", fmt_int(nrow(must)), " must-reject cases",
           if (length(accepted)) paste0("; accepts ", fmt_list(paste0("`", accepted, "`"))) else "",
           if (length(strict)) paste0("; rejects the valid ", fmt_list(paste0("`", strict, "`"))) else "",
           if (unsupported) paste0(" (", unsupported, " cases of an algorithm it lacks)") else "",
           ".")
  }, "")
}

plot_conformance <- function(d) {
  if (is.null(d) || !nrow(d)) return(placeholder_plot("verify/conformance.csv has no rows."))
  ggplot(d, aes(library, case, fill = class)) +
    geom_tile(colour = "grey55", linewidth = 0.25) +
    facet_grid(group ~ ., scales = "free_y", space = "free_y") +
    scale_fill_manual(values = conformance_classes, drop = FALSE, name = NULL) +
    scale_x_discrete(position = "top") +
    labs(x = NULL, y = NULL) +
    guides(fill = guide_legend(ncol = 3)) +
    theme(panel.grid = element_blank(), axis.text.y = element_text(size = 7),
          axis.text.x.top = element_text(angle = 30, hjust = 0), strip.text.y = element_text(angle = 0),
          legend.position = "bottom")
}

conformance_fig_height <- function(d) {
  if (is.null(d) || !nrow(d)) return(2)
  2.2 + 0.14 * uniqueN(d$case)
}

# The cases' time and memory where a token is large (group size), per library.
conformance_size_table <- function(d) {
  x <- d[group == "size" & observed %in% c("accept", "reject", "error")]
  if (!nrow(x)) return(NULL)
  x[, .(library = library, case = as.character(case), observed,
        time = fmt_ns(as.numeric(elapsed_ns)),
        `peak RSS` = paste(fmt_int(round(as.numeric(peak_rss_kb) / 1024)), "MiB"))]
}

# What each library's verify does not check, in one sentence (beside the verify timings).
verify_policy_gaps <- function(policy) {
  if (is.null(policy) || !nrow(policy)) return(character())
  gaps <- policy[validated == FALSE]
  if (!nrow(gaps)) return(character())
  gaps[, paste0(language, "/", implementation, " does not check `", item, "`: ", reason)]
}
