# The colophon: what ran, where, with which software. Every field may be absent from
# provenance.json; an absent one is shown as "not recorded", never dropped.

# "name version" pairs of a named list ({"snakemake": "9.27.1"} -> "snakemake 9.27.1").
# A version that already starts with its name ("hyperfine 1.15.0") is not named twice; a
# null one (the tool was not found) shows as "not found".
name_versions <- function(x) {
  if (!length(x)) return(character())
  vapply(names(x), function(n) {
    v <- x[[n]]
    if (is.null(v) || !length(v) || all(is.na(v))) return(paste(n, "not found"))
    v <- paste(as.character(v), collapse = " ")
    if (startsWith(tolower(v), tolower(n))) v else paste(n, v)
  }, "", USE.NAMES = FALSE)
}

# The container engine: name, version, what was asked for and why this one.
engine_line <- function(engine) {
  if (!engine$recorded) {
    return(paste0("- **Engine**: not recorded (execution mode ", recorded(engine$name), ")."))
  }
  paste0("- **Engine**: ", engine_label(engine), "; requested ", code(recorded(engine$requested)),
         ", chosen because ", md_escape(recorded(engine$reason)),
         if (!is.null(engine$settings)) paste0("; podman settings from ", code(engine$settings)),
         if (!is.null(engine$warning)) "; **with a warning** (shown at the top of this report)", ".")
}

# The base image every image is built from: which, how it was obtained, its ID.
base_image_line <- function(prov) {
  images <- field(prov, "images") %||% list()
  base <- field(images, "base")
  if (!length(images)) return(character())
  if (!length(base)) {
    # No base record: the images name the base they were built FROM, and its ID.
    from <- unique(rbindlist(lapply(images, function(img) data.table(
      image = field(img, "base") %||% NA_character_, id = field(img, "base_id") %||% NA_character_))))
    from <- from[!is.na(image)]
    if (!nrow(from)) return(character())
    return(paste0("- **Base image**: ", fmt_list(from[, paste0(code(image), ", ID ",
                  code(vapply(id, short_id, "")))]),
                  " (as the images record it; how it was obtained is not recorded)."))
  }
  how <- field(base, "how")
  how_text <- switch(how %||% "",
    present = "already present in the engine",
    pulled = "pulled",
    debootstrap = "built by debootstrap in this run",
    "debootstrap (built earlier)" = "built by debootstrap in an earlier run",
    recorded(how))
  mirror <- field(base, "mirror")
  paste0("- **Base image**: ", code(recorded(field(base, "image"))), ", ", md_escape(how_text),
         if (!is.null(mirror)) paste0(" from ", code(mirror)),
         if (!is.null(field(base, "instead_of"))) paste0(" instead of ", code(field(base, "instead_of")),
                                                          " (which could not be pulled)"),
         "; ID ", code(short_id(field(base, "id"))), ".")
}

# Each image (the languages' and the report's): tag, short ID, built this run or reused.
image_lines <- function(prov) {
  images <- field(prov, "images") %||% list()
  names <- c(setdiff(names(images), c("base", "report")), intersect("report", names(images)))
  if (!length(names)) return(character())
  items <- vapply(names, function(n) {
    img <- images[[n]]
    built <- field(img, "built")
    # `built` is the image rule's own record: built (new inputs) or reused (tag existed).
    when <- field(img, "recorded")
    how <- if (isTRUE(built)) paste0(
             "built", if (!is.null(field(img, "seconds"))) paste0(" in ", fmt_seconds(field(img, "seconds"))),
             if (!is.null(when)) paste0(", recorded ", when))
           else if (isFALSE(built)) "reused: its tag (a hash of its inputs) already existed, nothing was built"
           else "built or reused: not recorded"
    paste0("    - ", n, ": ", code(recorded(field(img, "tag"))), ", ID ",
           code(short_id(field(img, "id"))), ", ", how, ".")
  }, "")
  c("- **Images**:", items)
}

renderer_description <- function() {
  renderer <- Sys.getenv("JWTBENCH_RENDERER")
  tool <- switch(renderer,
    rmarkdown = paste0("rmarkdown ", packageVersion("rmarkdown"), " + knitr ", packageVersion("knitr")),
    "")
  if (!nzchar(renderer)) tool <- "a renderer that did not record itself"
  if (!nzchar(tool)) tool <- renderer
  paste0(tool, " (pandoc ", as.character(rmarkdown::pandoc_version()), ")")
}

# Overlapping benchmarks: suspect figures, unless the config ran them side by side in lanes
# (execution.lanes, the smoke config's: figures not for reading).
overlap_words <- function(run) {
  lanes <- unlist(field(run, "lanes"))
  overlapped <- length(field(run, "overlapping_benchmarks")) > 0
  if (length(lanes)) {
    paste0(if (overlapped) "some, by design" else "none", ": benchmarks ran side by side in ",
           length(lanes), " lanes (CPUs ", paste(lanes, collapse = "; "),
           ", execution.lanes), so these figures are not for reading")
  } else if (overlapped) "**some did, so their figures are suspect**" else "none"
}

colophon_lines <- function(prov, execution_sentence, results_dir, input_files,
                           engine = engine_facts(prov)) {
  run <- field(prov, "run")
  host <- field(prov, "host")
  flags <- field(host, "cpu_flags")
  dirty <- field(run, "git", "dirty")
  md5 <- unname(tools::md5sum(file.path(results_dir, input_files)))
  c(
    paste0("- **Run**: started ", recorded(field(run, "started")), ", ended ",
           recorded(field(run, "ended")), ", wall time ", fmt_seconds(field(run, "wall_seconds")),
           if (!is.null(field(run, "wall_time_covers"))) paste0(" (", field(run, "wall_time_covers"), ")"),
           "; benchmarks that overlapped: ", overlap_words(run), "."),
    paste0("- **Execution**: ", execution_sentence),
    engine_line(engine),
    base_image_line(prov),
    image_lines(prov),
    paste0("- **CPU**: ", recorded(field(host, "cpu_model")), ", ", recorded(field(host, "cores")),
           " cores; sha_ni ", yes_no(field(flags, "sha_ni")), ", avx2 ", yes_no(field(flags, "avx2")),
           ", aes ", yes_no(field(flags, "aes")), "."),
    paste0("- **Frequency**: governor ", recorded(field(host, "governor"), "not readable"),
           ", turbo ", recorded(field(host, "turbo"), "not readable"), "."),
    paste0("- **System**: ", recorded(field(host, "os")), ", kernel ", recorded(field(host, "kernel")),
           ", memory ", fmt_bytes(field(host, "memory_bytes")), "."),
    paste0("- **Source**: git commit ", code(recorded(field(run, "git", "commit"))),
           if (isTRUE(dirty)) " **with uncommitted changes (dirty)**"
           else if (isFALSE(dirty)) " (clean)" else " (dirty flag not recorded)", "."),
    paste0("- **Config**: SHA-256 ", code(recorded(field(run, "config_sha256"))), "."),
    paste0("- **Tools**: ", fmt_list(name_versions(field(prov, "tools")), none = "not recorded"),
           "; this report rendered with ", renderer_description(), "."),
    paste0("- **Inputs** (from `JWTBENCH_RESULTS`): ",
           fmt_list(paste0(code(input_files), " (MD5 ", code(md5), ")")), ".")
  )
}

language_versions_table <- function(prov) {
  info <- field(prov, "languages")
  if (!length(info)) return(NULL)
  rbindlist(lapply(names(info), function(lang) {
    x <- info[[lang]]
    data.table(
      language = lang,
      runtime = trimws(paste(recorded(field(x, "runtime")), recorded(field(x, "runtime_version"), ""))),
      implementation = trimws(paste(recorded(field(x, "implementation")),
                                    recorded(field(x, "implementation_version"), ""))),
      "crypto backend" = recorded(field(x, "crypto_backend")),
      libraries = fmt_list(name_versions(field(x, "libraries")), none = "not recorded"),
      "ran as" = md_escape(recorded(field(x, "runner"))))
  }))
}

# One row per benchmark job. cell_status ({"ok": 72, "unsupported": 3}) becomes one
# column ("72 ok, 3 unsupported"); a job's failure is escaped for markdown.
jobs_table <- function(prov) {
  raw <- field(prov, "jobs") %||% data.frame()
  if (!is.data.frame(raw) || !nrow(raw)) return(NULL)
  order <- names(raw)
  status <- if (is.data.frame(raw$cell_status)) raw$cell_status else NULL
  raw$cell_status <- NULL
  jobs <- as.data.table(raw)
  if (!is.null(status)) {
    jobs[, cell_status := vapply(seq_len(nrow(status)), function(i) {
      n <- unlist(status[i, , drop = TRUE])
      n <- n[!is.na(n)]
      paste(n, names(n), collapse = ", ")
    }, "")]
    setcolorder(jobs, intersect(order, names(jobs)))
  }
  if ("seconds" %in% names(jobs)) jobs[, seconds := vapply(seconds, fmt_seconds, "")]
  for (col in names(jobs)) {
    if (is.list(jobs[[col]])) set(jobs, j = col, value = vapply(jobs[[col]], function(v)
      paste(as.character(v), collapse = ","), ""))
  }
  if ("failure" %in% names(jobs)) {
    jobs[, failure := ifelse(is.na(failure) | !nzchar(failure), "\u2013", md_escape(failure))]
  }
  if ("runner" %in% names(jobs)) jobs[, runner := md_escape(runner)]
  jobs[]
}

# The licences of every pinned dependency (provenance.json's `dependencies`, one entry per
# package of every environment the run used): how many packages each licence covers, in which
# ecosystems. The list itself (version, licence, where it was read) stays in provenance.json.
dependency_licences_sentence <- function(prov) {
  deps <- field(prov, "dependencies")
  if (!is.data.frame(deps) || !nrow(deps)) {
    return("**provenance.json records no dependency licences.**")
  }
  unknown <- sum(deps$licence == "unknown")
  paste0("The licences of the ", fmt_int(nrow(deps)), " pinned packages of ", fmt_list(unique(deps$environment)),
         " (", fmt_int(unknown), " of them unknown: their metadata names none this pipeline can read). ",
         "Each package, its version and where its licence was read: ", code("dependencies"), " in ",
         code("provenance.json"), ".")
}

dependency_licences_table <- function(prov) {
  deps <- field(prov, "dependencies")
  if (!is.data.frame(deps) || !nrow(deps)) return(NULL)
  deps <- as.data.table(deps)[, .(licence, ecosystem)]
  per_ecosystem <- deps[, .N, by = .(licence, ecosystem)][order(-N, ecosystem)]
  by_licence <- per_ecosystem[, .(packages = sum(N), ecosystems = paste(ecosystem, N, collapse = ", ")), by = licence]
  setorder(by_licence, -packages, licence)
  by_licence[, licence := md_escape(licence)][]
}
