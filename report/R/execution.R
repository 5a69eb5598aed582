# Where the drivers ran (container engine or natively) and what went wrong on the way:
# the engine's fallback warning and benchmark jobs whose driver failed. Inputs are
# provenance.json (engine, images, failed_jobs) and summary.csv.

# provenance.json's engine, completed from run.execution_mode for older runs.
engine_facts <- function(prov) {
  e <- field(prov, "engine") %||% list()
  name <- field(e, "name") %||% field(prov, "run", "execution_mode")
  list(name = name, recorded = length(e) > 0,
       requested = field(e, "requested"), reason = field(e, "reason"),
       version = field(e, "version"), warning = field(e, "warning"),
       settings = field(e, "settings"))
}

in_containers <- function(engine) !is.null(engine$name) && engine$name %in% c("docker", "podman")

# "podman 4.3.1", "docker (version not recorded)".
engine_label <- function(engine) {
  paste0(engine$name %||% "not recorded",
         if (!is.null(engine$version)) paste0(" ", engine$version)
         else if (in_containers(engine)) " (version not recorded)")
}

# The language images (every image record but the base and the report's).
language_images <- function(prov) {
  images <- field(prov, "images") %||% list()
  images[setdiff(names(images), c("base", "report"))]
}

# One sentence (markdown) on where the drivers ran, for the top of the report and the
# colophon. `cpus` is execution.cpus ("1", "0-1,3"; empty or NULL: not pinned);
# `images`: name the language images and point to the colophon for their IDs.
execution_sentence <- function(engine, cpus, prov, images = TRUE) {
  pinned <- !is.null(cpus) && length(cpus) && nzchar(cpus)
  cpu_text <- if (!pinned) "not pinned to any CPU"
              else paste0("pinned to CPU", if (grepl("[-,]", cpus)) "s" else "", " ", code(cpus))
  if (is.null(engine$name)) {
    return(paste0("Where the drivers ran is not recorded in provenance.json",
                  if (pinned) paste0("; they were ", cpu_text), "."))
  }
  if (identical(engine$name, "native")) {
    why <- engine$reason %||% ""
    return(paste0(
      "The benchmarks ran **natively**",
      if (nzchar(why)) paste0(" (", md_escape(why), ")"),
      ": each driver ran on the host's own toolchain, not in a container, ", cpu_text, "."))
  }
  if (in_containers(engine)) {
    images <- if (images) language_images(prov) else list()
    base <- field(prov, "images", "base", "image") %||%
      unique(unlist(lapply(images, function(img) field(img, "base"))))
    if (length(base) != 1) base <- NULL
    return(paste0(
      "The drivers ran in **", engine_label(engine), "** containers, one image per language",
      if (!is.null(base) && length(images)) paste0(" built on ", code(base)),
      if (length(images)) paste0(" (", fmt_list(vapply(names(images), function(n)
        code(field(images[[n]], "tag") %||% n), "")), "; IDs in the [Colophon](#colophon))"),
      ": each benchmark in a fresh container with no network, a read-only root, no ",
      "capabilities, no new privileges and a non-root user, ", cpu_text, "."))
  }
  paste0("Execution: **", md_escape(engine$name), "**, ", cpu_text, ".")
}

# provenance.json's failed_jobs ("lang/suite/input: reason") as a table; `suite` is
# "suite/input", as the job is named.
failed_jobs_table <- function(prov) {
  listed <- as.character(unlist(field(prov, "failed_jobs")))
  job <- sub(":.*$", "", listed)
  data.table(language = sub("/.*$", "", job), suite = sub("^[^/]*/?", "", job),
             reason = ifelse(grepl(":", listed), trimws(sub("^[^:]*:", "", listed)), ""))
}

# A ::: {.callout-warning} div: Quarto styles it as a warning box; under rmarkdown, pandoc
# keeps the div and warning_block_css() gives it its look.
callout_warning <- function(...) {
  paste0("\n::: {.callout-warning}\n", paste0(..., collapse = ""), "\n:::\n")
}

# Under rmarkdown (no Quarto), a visible style for the warning divs; Quarto has its own.
warning_block_css <- function() {
  if (!is.null(knitr::opts_knit$get("quarto.version"))) return("")
  paste0("\n<style>\n.callout-warning { border: 2px solid #b45309; border-left-width: 8px; ",
         "background: #fff7e6; padding: 0.6em 1em; margin: 1em 0; border-radius: 4px; }\n",
         ".callout-warning > :last-child { margin-bottom: 0; }\n</style>\n")
}

# The page fits the window (issue 43): no sideways scrolling at 1280 px and above. A wide
# table scrolls inside its own box, figures scale down, long words (paths, commands) wrap.
# On the quiet run of 2026-11-28 a table 4,568 px wide had the whole page scroll sideways.
page_fit_css <- function() {
  paste0("\n<style>\n",
         "table { display: block; max-width: 100%; overflow-x: auto; }\n",
         "img, svg, video { max-width: 100%; height: auto; }\n",
         "pre { white-space: pre-wrap; overflow-wrap: anywhere; }\n",
         "p, li, dd, dt { overflow-wrap: anywhere; }\n",
         "td, th, caption { overflow-wrap: break-word; }\n",
         "</style>\n")
}

# Warning blocks (markdown) for "What was measured": the engine's warning (a native
# fallback) and failed benchmark jobs or failed cells. "" when there is nothing to say. The
# machine's drift, like every doubt about a figure, is in results/warnings.csv, shown on
# the first screen (warnings.R).
run_warning_blocks <- function(engine, failed_jobs, cells) {
  blocks <- character()
  if (!is.null(engine$warning) && nzchar(engine$warning)) {
    lead <- if (identical(engine$name, "native")) {
      paste0("**Warning: the drivers ran natively, not in containers**",
             if (!is.null(engine$requested)) paste0(" (`execution.engine` was `",
                                                     engine$requested, "`)"), ".")
    } else {
      paste0("**Warning from the container engine (", engine_label(engine), ").**")
    }
    blocks <- c(blocks, callout_warning(lead, " ", capitalise(md_escape(engine$warning)), "."))
  }
  failed_cells <- cells[status == "failed", .N, keyby = .(language, suite)]
  if (nrow(failed_jobs) || nrow(failed_cells)) {
    text <- character()
    if (nrow(failed_jobs)) {
      text <- c(text, paste0(
        "**Warning: ", nrow(failed_jobs), " benchmark job", if (nrow(failed_jobs) > 1) "s" else "",
        " failed.** The driver exited non-zero or wrote unusable samples, so every cell of ",
        if (nrow(failed_jobs) > 1) "these jobs" else "the job", " is recorded as `failed`, ",
        "left out of the figures and listed under [Cells not timed](#cells-not-timed):\n\n",
        paste0("- `", failed_jobs$language, "/", failed_jobs$suite, "`: ",
               md_escape(failed_jobs$reason), collapse = "\n"), "\n"))
    }
    if (nrow(failed_cells)) {
      text <- c(text, paste0(
        if (!nrow(failed_jobs)) "**Warning: some cells failed.** ",
        "`summary.csv` has ", fmt_int(sum(failed_cells$N)), " cell",
        if (sum(failed_cells$N) > 1) "s" else "", " with status `failed` (",
        fmt_list(failed_cells[, paste0(language, " ", suite, ": ", fmt_int(N))]), "); ",
        "nothing was timed for ", if (sum(failed_cells$N) > 1) "them" else "it",
        if (!nrow(failed_jobs)) ". They are listed under [Cells not timed](#cells-not-timed)", "."))
    }
    blocks <- c(blocks, callout_warning(paste(text, collapse = "\n\n")))
  }
  paste(blocks, collapse = "\n")
}
