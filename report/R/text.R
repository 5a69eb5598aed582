# Formatting for numbers and lists that appear in prose and tables.

# "a", "a and b", "a, b and c"; `none` when empty.
fmt_list <- function(x, none = "none") {
  x <- as.character(x)
  n <- length(x)
  if (n == 0) return(none)
  if (n == 1) return(x)
  paste(paste(x[-n], collapse = ", "), "and", x[n])
}

fmt_int <- function(x) formatC(x, format = "d", big.mark = ",")

fmt_pct <- function(x, digits = 1) {
  ifelse(is.na(x), "\u2013", paste0(formatC(x, format = "f", digits = digits), "%"))
}

# Significant digits without scientific notation, thousands separated: 9.07, 1,099.
fmt_num <- function(x, digits = 3) {
  ifelse(is.na(x), "\u2013",
         trimws(formatC(signif(x, digits), digits = digits, format = "fg", big.mark = ",")))
}

fmt_us <- function(ns, digits = 4) fmt_num(ns / 1e3, digits)

fmt_ops <- function(x) ifelse(is.na(x), "\u2013", ifelse(x >= 100, fmt_int(round(x)), fmt_num(x)))

fmt_ratio <- function(x, digits = 3) paste0(fmt_num(x, digits), "\u00d7")

fmt_seconds <- function(s) {
  if (is.null(s) || is.na(s)) return("not recorded")
  s <- as.numeric(s)
  if (s < 60) return(paste(fmt_num(s, 3), "s"))
  h <- s %/% 3600; m <- (s %% 3600) %/% 60; r <- round(s %% 60)
  parts <- c(if (h > 0) paste(h, "h"), if (h > 0 || m > 0) paste(m, "min"), paste(r, "s"))
  paste(parts, collapse = " ")
}

fmt_bytes <- function(b) {
  if (is.null(b) || is.na(b)) return("not recorded")
  paste(fmt_num(as.numeric(b) / 2^30, 3), "GiB")
}

yes_no <- function(x) {
  if (is.null(x) || length(x) == 0 || is.na(x)) "not recorded" else if (isTRUE(as.logical(x))) "yes" else "no"
}

# A value from provenance, or a visible placeholder when the run did not record it.
recorded <- function(x, missing = "not recorded") {
  if (is.null(x) || length(x) == 0 || all(is.na(x)) || identical(x, "")) missing
  else paste(as.character(x), collapse = ", ")
}

# "python verify ES512"
cell_label <- function(language, operation, variant) {
  paste(language, operation, variant)
}

# Markdown-safe inline code.
code <- function(x) paste0("`", x, "`")

# "no container engine..." -> "No container engine...".
capitalise <- function(x) paste0(toupper(substring(x, 1, 1)), substring(x, 2))

# Text recorded by the pipeline (error messages, paths) made safe to drop into markdown:
# outside `code spans` the characters markdown would act on are escaped; text with an odd
# number of backticks has them escaped too, so it cannot open a stray code span. Brackets
# become HTML entities: escaped with a backslash, pandoc's tex_math_single_backslash
# (rmarkdown's default) would read "\[0.9, 1.1\]" as display math.
md_escape <- function(x) {
  escape <- function(s) {
    s <- gsub("([\\\\*_<>#|~^$])", "\\\\\\1", s, perl = TRUE)
    gsub("]", "&#93;", gsub("[", "&#91;", s, fixed = TRUE), fixed = TRUE)
  }
  vapply(as.character(x), function(s) {
    if (is.na(s)) return("")
    ticks <- lengths(regmatches(s, gregexpr("`", s, fixed = TRUE)))
    if (ticks %% 2 == 1) return(gsub("`", "\\\\`", escape(s), fixed = FALSE))
    parts <- strsplit(paste0(s, " "), "`", fixed = TRUE)[[1]]
    outside <- seq_along(parts) %% 2 == 1
    parts[outside] <- escape(parts[outside])
    sub(" $", "", paste(parts, collapse = "`"))
  }, "", USE.NAMES = FALSE)
}

# The first `n` characters of an image ID ("sha256:" prefix dropped).
short_id <- function(id, n = 12) {
  if (is.null(id) || !length(id) || is.na(id) || !nzchar(id)) return("not recorded")
  substr(sub("^sha256:", "", id), 1, n)
}
