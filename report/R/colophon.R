# The colophon: what ran, where, with which software. Every field may be absent from
# provenance.json; an absent one is shown as "not recorded", never dropped.

# "name version" pairs of a named list ({"snakemake": "9.27.1"} -> "snakemake 9.27.1").
name_versions <- function(x) {
  if (!length(x)) return(character())
  paste(names(x), vapply(x, function(v) paste(as.character(v), collapse = " "), ""))
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

colophon_lines <- function(prov, execution_sentence, results_dir, input_files) {
  run <- field(prov, "run")
  host <- field(prov, "host")
  flags <- field(host, "cpu_flags")
  dirty <- field(run, "git", "dirty")
  md5 <- unname(tools::md5sum(file.path(results_dir, input_files)))
  c(
    paste0("- **Run**: started ", recorded(field(run, "started")), ", ended ",
           recorded(field(run, "ended")), ", wall time ", fmt_seconds(field(run, "wall_seconds")),
           if (!is.null(field(run, "wall_time_covers"))) paste0(" (", field(run, "wall_time_covers"), ")"),
           "; benchmarks that overlapped: ",
           if (length(field(run, "overlapping_benchmarks"))) "**some did, so their figures are suspect**"
           else "none", "."),
    paste0("- **Execution**: ", execution_sentence),
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
      libraries = fmt_list(name_versions(field(x, "libraries")), none = "not recorded"))
  }))
}

jobs_table <- function(prov) {
  jobs <- as.data.table(field(prov, "jobs") %||% data.frame())
  if (!nrow(jobs)) return(NULL)
  if ("seconds" %in% names(jobs)) jobs[, seconds := vapply(seconds, fmt_seconds, "")]
  jobs[]
}
