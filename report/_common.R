# Shared set-up for report.qmd: packages, seed, knitr defaults, one theme, the run's
# results and the helpers in R/. Sourced by the report's first chunk; the document's own
# directory is the working directory (Quarto and rmarkdown both render from there).

suppressPackageStartupMessages({
  library(ggplot2)
  library(data.table)
  library(scales)
  library(jsonlite)
  library(knitr)
})

set.seed(20261121)

knitr::opts_chunk$set(
  echo = FALSE, message = FALSE, warning = FALSE,
  fig.width = 9, fig.height = 5, dpi = 96, fig.retina = 1, dev = "png",
  fig.align = "center", out.width = "100%"
)

# Quarto gives each figure the id of its chunk label (fig-...); knitr + pandoc do not,
# so there each figure is wrapped in a div carrying that id: links and checks that look
# for #fig-sign-verify work whichever renderer ran.
if (is.null(knitr::opts_knit$get("quarto.version"))) {
  local({
    plot_hook <- knitr::knit_hooks$get("plot")
    knitr::knit_hooks$set(plot = function(x, options) {
      inner <- plot_hook(x, options)
      if (!startsWith(options$label, "fig-")) return(inner)
      paste0('\n<div id="', options$label, '" class="figure-anchor">\n', inner, "\n</div>\n")
    })
  })
}

theme_set(
  theme_bw(base_size = 11) +
    theme(
      legend.position = "bottom",
      panel.grid.minor = element_blank(),
      strip.background = element_rect(fill = "grey92", colour = "grey70"),
      plot.title.position = "plot"
    )
)

report_dir <- if (!is.null(knitr::current_input())) {
  dirname(knitr::current_input(dir = TRUE))
} else {
  getwd()
}
for (helper in sort(list.files(file.path(report_dir, "R"), pattern = "\\.R$", full.names = TRUE))) {
  source(helper, local = FALSE)
}

# ---- formatting -------------------------------------------------------------------

# Time per operation with a unit that keeps 1-3 digits before the point: 850 ns, 9.07 µs, 1.1 ms.
fmt_ns <- function(ns, digits = 3) {
  out <- rep("\u2013", length(ns))
  ok <- !is.na(ns)
  x <- ns[ok]
  unit <- cut(abs(x), c(-Inf, 1e3, 1e6, 1e9, Inf), right = FALSE,
              labels = c("ns", "\u00b5s", "ms", "s"))
  div <- c(ns = 1, "\u00b5s" = 1e3, ms = 1e6, s = 1e9)[as.character(unit)]
  out[ok] <- paste(formatC(signif(x / div, digits), digits = digits, format = "fg"), unit)
  out
}

# ---- inputs -----------------------------------------------------------------------

results_dir <- Sys.getenv("JWTBENCH_RESULTS")
if (!nzchar(results_dir)) {
  stop("JWTBENCH_RESULTS is not set: export it as the results directory ",
       "(the one holding summary.csv, ratios.csv, verify/matrix.csv and provenance.json).",
       call. = FALSE)
}
if (!dir.exists(results_dir)) {
  stop("JWTBENCH_RESULTS names a directory that does not exist: ", results_dir, call. = FALSE)
}
results_dir <- normalizePath(results_dir)

# Columns each input must have (workflow/schemas/*.schema.yaml, x-columns), by type.
input_columns <- list(
  summary = list(
    character = c("language", "driver", "implementation", "implementation_version", "suite", "operation",
                  "algorithm", "variant", "input", "status", "stop_reason"),
    numeric = c("key_bits", "input_bytes", "output_bytes", "samples", "iterations", "median_ns",
                "mad_ns", "ci_low_ns", "ci_high_ns", "ci_halfwidth_pct", "cv", "ops_per_s", "workers",
                "worker_spread")),
  ratios = list(
    character = c("language", "implementation", "suite", "input", "kind", "numerator", "denominator", "method"),
    numeric = c("ratio", "ci_low", "ci_high", "worker_spread")),
  matrix = list(
    character = c("signer", "verifier", "variant", "check", "expected", "observed"),
    logical = "ok"),
  deterministic = list(
    character = c("variant", "languages", "header", "payload_sha256", "reference", "outcome"),
    numeric = "signatures"),
  crosscheck = list(
    character = c("driver", "language", "library", "library_version", "operation", "variant", "harness",
                  "harness_version", "agreement", "explanation", "status"),
    numeric = c("alternations", "driver_ns", "native_ns", "ratio", "ratio_low", "ratio_high", "band")),
  coldstart = list(
    character = c("language", "mode", "measure", "command"),
    numeric = c("runs", "median_ns", "ci_low_ns", "ci_high_ns", "mean_ns", "sd_ns", "min_ns", "max_ns")),
  container_vs_native = list(
    character = c("language", "operation", "variant", "native_runs_ns", "container_runs_ns",
                  "native_stack", "container_stack"),
    numeric = c("native_ns", "container_ns", "ratio", "tolerance", "repeats"),
    logical = c("within_tolerance", "same_stack")),
  wall_times = list(
    character = c("stage", "rule", "job", "language", "suite", "start", "end"),
    numeric = "seconds"),
  conformance = list(
    character = c("language", "implementation", "implementation_version", "case", "group", "alg",
                  "expected", "observed", "exit", "verdict", "reason", "clause", "requirement"),
    numeric = c("elapsed_ns", "peak_rss_kb")),
  verify_policy = list(
    character = c("language", "implementation", "implementation_version", "item", "reason"),
    logical = "validated"),
  drivers = list(
    character = c("driver", "label", "language", "library", "version", "runtime", "runtime_version",
                  "crypto_backend", "suites", "unsupported", "missing_operations", "validates", "lacking",
                  "lacks"),
    logical = "own"),
  drift = list(
    character = c("language", "suite", "input", "implementation", "implementation_version"),
    numeric = c("round", "iterations", "ns_per_op", "seconds_before", "rounds_seconds", "relative")),
  noise = list(
    character = c("job", "language", "suite", "input", "utc", "others_top"),
    numeric = c("interval", "seconds", "interval_seconds", "steal_pct", "steal_all_pct", "busy_pct", "irq_pct",
                "bench_pct", "others_pct", "others_runnable", "others_top_pct", "wait_pct", "pressure_pct",
                "freq_mhz", "throttle_events", "sampler_ms"))
)

as_flag <- function(x) {
  if (is.logical(x)) return(x)
  toupper(trimws(as.character(x))) %in% c("TRUE", "T", "1", "YES")
}

# Reads one CSV of the run; stops naming the file when it is missing (unless optional)
# or lacks a column, and gives every column its documented type even when it has no rows.
read_result_csv <- function(relative_path, columns, optional = FALSE) {
  path <- file.path(results_dir, relative_path)
  if (!file.exists(path)) {
    if (optional) return(NULL)
    stop("report input missing: ", path, " (", relative_path, " in JWTBENCH_RESULTS)", call. = FALSE)
  }
  # Numeric columns as doubles: nanoseconds past 2^31 would otherwise come back as integer64.
  dt <- fread(path, na.strings = c("", "NA"),
              colClasses = list(character = columns$character, numeric = columns$numeric))
  absent <- setdiff(unlist(columns, use.names = FALSE), names(dt))
  if (length(absent)) {
    stop(path, " lacks column(s): ", paste(absent, collapse = ", "), call. = FALSE)
  }
  for (col in columns$character) set(dt, j = col, value = as.character(dt[[col]]))
  for (col in columns$numeric) set(dt, j = col, value = as.numeric(dt[[col]]))
  for (col in columns$logical) set(dt, j = col, value = as_flag(dt[[col]]))
  dt[]
}

provenance_path <- file.path(results_dir, "provenance.json")
if (!file.exists(provenance_path)) {
  stop("report input missing: ", provenance_path, " (provenance.json in JWTBENCH_RESULTS)", call. = FALSE)
}
prov <- jsonlite::fromJSON(provenance_path, simplifyVector = TRUE, simplifyDataFrame = TRUE)
run_config <- field(prov, "run", "config") %||% list()

# Seed 001's sections are about suite jwt on the claims file; the datasets' cells (suites
# jwt and transfer, seed 000) are reported in their own section (R/seed000.R).
all_summary_cells <- read_result_csv("summary.csv", input_columns$summary)
all_ratios <- read_result_csv("ratios.csv", input_columns$ratios)
claims_input <- tools::file_path_sans_ext(basename(
  field(run_config, "suites", "jwt", "input") %||% "claims-001.json"))
# The run's drivers (drivers.csv): each language's own, named by the language, and the
# further libraries of config `libraries`, "<language>/<library>"; labelled
# "<language>/<library>" in tables and figures. Optional: a run (or bundle) from before
# further libraries existed has each language's own driver only.
drivers <- read_result_csv("drivers.csv", input_columns$drivers, optional = TRUE)
if (!is.null(drivers)) {  # an empty list (nothing unsupported, nothing lacking) is read as NA
  for (col in c("suites", "unsupported", "missing_operations", "validates", "lacking", "lacks")) {
    set(drivers, i = which(is.na(drivers[[col]])), j = col, value = "")
  }
}
further_libraries <- if (is.null(drivers)) character() else drivers[own == FALSE, paste(language, library)]
is_further <- function(language, implementation) paste(language, implementation) %in% further_libraries
# "Which library?" compares every driver's jwt cells on the claims file; every other section
# is about each language's own driver, the library each seed named.
library_cells <- all_summary_cells[suite == "jwt" & input == claims_input]
# The cells every driver timed in interleaved rounds, suite harness's loop too: the
# loop's own cost against the cheapest operation it times (Harness cross-check).
round_cells_of_every_driver <- all_summary_cells[stop_reason %in% c("precision", "sample_cap", "time_cap")]
all_summary_cells <- all_summary_cells[!is_further(language, implementation)]
all_ratios <- all_ratios[!is_further(language, implementation)]
summary_cells <- all_summary_cells[suite == "jwt" & input == claims_input]
ratios <- all_ratios[suite == "jwt" & input == claims_input]
interop_rows <- read_result_csv(file.path("verify", "matrix.csv"), input_columns$matrix)
deterministic <- read_result_csv(file.path("verify", "deterministic.csv"), input_columns$deterministic)
crosscheck <- read_result_csv("crosscheck.csv", input_columns$crosscheck, optional = TRUE)
# Optional: the cold-start suite, and (under a container engine) container against native.
coldstart <- read_result_csv("coldstart.csv", input_columns$coldstart, optional = TRUE)
container_native <- read_result_csv("container_vs_native.csv", input_columns$container_vs_native,
                                    optional = TRUE)
# Optional so the report still renders from a bundle or results of an older run.
wall_times <- read_result_csv("wall_times.csv", input_columns$wall_times, optional = TRUE)
drift <- read_result_csv("drift.csv", input_columns$drift, optional = TRUE)
# The machine's noise beside each benchmark (R/noise.R); absent in results of runs before it.
noise <- read_result_csv("noise.csv", input_columns$noise, optional = TRUE)
# Optional: config conformance.activate (and results of runs before the suite existed).
conformance_rows <- read_result_csv(file.path("verify", "conformance.csv"), input_columns$conformance,
                                    optional = TRUE)
verify_policy <- read_result_csv(file.path("verify", "verify-policy.csv"), input_columns$verify_policy,
                                 optional = TRUE)

# The seeds' tables: the registry's (provenance.json `registry`, from workflow/seeds.yaml);
# a bundle of a run before the registry lists them as they were then.
seed_tables <- sub("^results/", "", unname(unlist(lapply(field(prov, "registry", "seeds"), function(seed) seed$tables))))
if (!length(seed_tables)) {
  seed_tables <- c(file.path("seed000", paste0(c("rates", "tokensize", "transfer", "ratios", "verdicts"), ".csv")),
                   file.path("seed001", paste0(c("rankings", "verdicts"), ".csv")),
                   file.path("seed002", paste0(c("cases", "sweep", "verdicts"), ".csv")),
                   file.path("seed003", paste0(c("speed", "verdicts"), ".csv")), file.path("primitive", "overhead.csv"),
                   file.path("seed004", paste0(c("runs", "decomposed", "verdicts"), ".csv")))
}
input_files <- c("summary.csv", "ratios.csv", "drivers.csv", file.path("verify", "matrix.csv"),
                 file.path("verify", "deterministic.csv"), file.path("verify", "conformance.csv"),
                 file.path("verify", "verify-policy.csv"), seed_tables,
                 "crosscheck.csv", "coldstart.csv", "container_vs_native.csv", "wall_times.csv", "drift.csv",
                 "noise.csv", "provenance.json")
input_files <- input_files[file.exists(file.path(results_dir, input_files))]

# ---- orderings and colours --------------------------------------------------------

own_driver <- function(names) names[!grepl("/", names, fixed = TRUE)]
languages <- ordered_languages(field(run_config, "languages"), summary_cells$language,
                               own_driver(names(field(prov, "languages"))), own_driver(interop_rows$signer),
                               own_driver(interop_rows$verifier), ratios$language, crosscheck$language,
                               coldstart$language, container_native$language)
variant_levels <- ordered_variants(field(run_config, "suites", "jwt", "algorithms"),
                                   summary_cells$variant, interop_rows$variant,
                                   cell_variant(ratios$numerator))
operation_levels <- union(c("sign", "verify", "decode"), sort(unique(summary_cells$operation)))

# One colour per language, the same in every figure, for any number of languages.
language_colours <- function(langs) {
  okabe_ito <- c("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9",
                 "#000000", "#F0E442")
  cols <- if (length(langs) <= length(okabe_ito)) okabe_ito[seq_along(langs)]
          else grDevices::hcl.colors(length(langs), "Dark 3")
  setNames(cols, langs)
}
lang_colours <- language_colours(languages)
scale_colour_language <- function(...) {
  scale_colour_manual(values = lang_colours, breaks = languages, name = "language", ...)
}

summary_cells[, `:=`(
  language = factor(language, levels = languages),
  operation = factor(operation, levels = operation_levels),
  variant = factor(variant, levels = variant_levels),
  status = factor(status, levels = union(c("ok", "timeout", "failed", "unsupported"), unique(status)))
)]
setorder(summary_cells, language, operation, variant)

# A ratio's variant is its numerator's ("verify:RS256-2048" -> RS256-2048).
ratios[, `:=`(
  language = factor(language, levels = languages),
  variant = factor(cell_variant(numerator), levels = variant_levels)
)]

if (!is.null(coldstart)) coldstart[, language := factor(language, levels = languages)]
if (!is.null(container_native)) {
  container_native[, language := factor(language, levels = languages)]
  setorder(container_native, language)
}

# Cells with a full set of samples: the ones figures and precision are about.
timed_cells <- summary_cells[status == "ok" & !is.na(median_ns)]
# Decode on every input of suite jwt: the claims file's grid when the run times it there
# (config/full.yaml), seed 000's datasets (the default times decode only there).
decode_cells <- all_summary_cells[suite == "jwt" & operation == "decode" & status == "ok" & !is.na(median_ns)]
decode_cells[, language := factor(language, levels = languages)]
