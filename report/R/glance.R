# "Verdicts at a glance": one row per published claim of each seed the run reproduced,
# read from its verdicts.csv (nothing here judges a claim): the claim; whether it held
# where the seed measured it, with the ratio and CI behind that; in how many of the run's
# languages (and datasets, methods, implementations) it held; a link to the seed's section.

# Where each seed measured: the rows of its verdicts.csv that are the seed's own setting.
# Facts about the seeds (their papers name language, library and method), not results: the
# seeds' registry (workflow/seeds.yaml, `home`), as provenance.json's `registry` carries it;
# a bundle of a run before the registry has them as they were then.
seed_homes <- function() {
  seeds <- field(prov, "registry", "seeds")
  if (!length(seeds)) {
    return(list(
      seed000 = list(anchor = "seed000", language = "node", dataset = "all"),
      seed001 = list(anchor = "seed001", language = "java", method = c("seed 001's method", "jwtbench")),
      seed002 = list(anchor = "seed002", language = "java", implementation = "commons-codec"),
      seed003 = list(anchor = "seed003", language = "openssl"),
      seed004 = list(anchor = "seed004", language = "python", implementation = "pycryptodome")
    ))
  }
  homes <- lapply(names(seeds), function(name) {
    home <- seeds[[name]]$home
    c(list(anchor = name, language = home$language), home$rows %||% list())
  })
  setNames(homes, names(seeds))
}

# The rows of verdicts `v` that are seed `home`'s own setting (its first method present).
home_rows <- function(v, home) {
  rows <- v[language == home$language]
  for (key in intersect(c("dataset", "implementation"), names(home))) {
    if (key %in% names(rows)) rows <- rows[get(key) %in% home[[key]]]
  }
  if (!is.null(home$method) && "method" %in% names(rows)) {
    present <- intersect(home$method, rows$method)
    rows <- rows[method == (if (length(present)) present[1] else home$method[1])]
  }
  rows
}

# "reproduced" where every home row holds, "not reproduced" where none holds and one does
# not, "partly" where some hold, else "inconclusive" (or "not measured").
glance_outcome <- function(verdicts) {
  decided <- verdicts[verdicts %in% c("holds", "does not hold")]
  if (!length(verdicts) || all(verdicts == "not measured")) return("not measured")
  if (!length(decided)) return("inconclusive")
  if (all(verdicts == "holds")) return("reproduced")
  if (!any(verdicts == "holds")) return(if (all(verdicts == "does not hold")) "not reproduced" else "not reproduced (some inconclusive)")
  "partly"
}

verdicts_at_a_glance <- function() {
  rows <- list()
  seed_home <- seed_homes()
  for (seed in names(seed_home)) {
    path <- file.path(results_dir, seed, "verdicts.csv")
    if (!file.exists(path)) next
    v <- fread(path, na.strings = c("", "NA"), colClasses = list(character = c("claim", "language", "verdict")))
    if (!nrow(v)) next
    if ("ratio" %in% names(v)) v[, `:=`(ratio_min = ratio, ratio_max = ratio, comparisons = 1)]
    claims <- read_published(paste0(seed, "_claims.csv"))
    home <- seed_home[[seed]]
    for (claim_id in intersect(claims$claim, unique(v$claim))) {
      all_rows <- v[claim == claim_id]
      mine <- home_rows(all_rows, home)
      where <- if (nrow(mine)) paste0(home$language, if (!is.null(home$implementation)) paste0(" (", home$implementation, ")"))
               else "\u2013"
      difference <- nrow(mine) && any(grepl(" - ", mine$what, fixed = TRUE))  # a difference (bytes), not a ratio
      number <- if (difference) paste0(fmt_num(mean(mine$ratio_min), 3), " [", fmt_num(min(mine$ci_low), 3), ", ",
                                       fmt_num(max(mine$ci_high), 3), "] (", sub(" per .*$", "", mine$what[1]), ")")
      else if (nrow(mine) && any(!is.na(mine$ratio_min))) fmt_deciding(
        min(mine$ratio_min, na.rm = TRUE), max(mine$ratio_max, na.rm = TRUE), min(mine$ci_low, na.rm = TRUE),
        max(mine$ci_high, na.rm = TRUE), if (nrow(mine) == 1) mine$comparisons else sum(mine$comparisons, na.rm = TRUE))
        else "\u2013"
      rows[[length(rows) + 1]] <- data.table(
        seed = paste0("[", sub("seed", "", seed), "](#", home$anchor, ")"),
        claim = md_escape(claims[claim == claim_id, statement][1]),
        `where the seed measured` = paste0("**", glance_outcome(mine$verdict), "** in ", where),
        `ratio [CI]` = number,
        `elsewhere` = paste0(sum(all_rows$verdict == "holds"), " of ", nrow(all_rows), " hold")
      )
    }
  }
  if (!length(rows)) return(NULL)
  rbindlist(rows)
}

# The run's facts under the verdicts (the colophon has all of them): the machine, what ran
# and how long the run took, so a reader of the first screen knows where the verdicts come
# from. `drivers_desc` names the languages' own drivers; `n_further` counts the further
# libraries; `wall_times` is wall_times.csv (NULL when absent).
run_facts_lines <- function(prov, drivers_desc, n_further, wall_times, crosscheck = NULL) {
  host <- field(prov, "host")
  engine <- engine_facts(prov)
  minutes <- if (is.null(wall_times) || !nrow(wall_times)) NULL else
    busy_seconds(wall_times$start, wall_times$end) / 60
  c(
    paste0("- **Machine**: ", recorded(field(host, "cpu_model")), ", ", recorded(field(host, "cores")),
           " cores, ", fmt_bytes(field(host, "memory_bytes")), "; ", recorded(field(host, "os")),
           ", kernel ", recorded(field(host, "kernel")), "; drivers in ",
           recorded(field(engine, "name")), if (!identical(field(engine, "name"), "native")) " containers", "."),
    paste0("- **Drivers**: ", drivers_desc,
           if (n_further > 0) paste0(", and ", n_further, " further JWT librar", if (n_further > 1) "ies" else "y",
                                     " ([Which library?](#libraries))"), "."),
    paste0("- **Wall time**: ", if (is.null(minutes)) "not recorded" else paste0(
      sprintf("%.1f", minutes), " minutes up to this report, started ",
      recorded(field(prov, "run", "started")), " ([Where the time went](#where-the-time-went))"), "."),
    crosscheck_line(crosscheck)
  )
}

# The cross-check in one line: how many cells' loops agree with their language's harness.
crosscheck_line <- function(cc) {
  if (is.null(cc)) return(NULL)
  timed <- cc[status == "ok"]
  if (!nrow(timed)) return("- **Harness cross-check**: no cell was timed ([Harness cross-check](#cross-check)).")
  paste0("- **Harness cross-check**: ", nrow(timed[agreement == "agrees"]), " of ", nrow(timed),
         " cells agree with their language's own harness within ", 100 * timed$band[1], "%",
         if (any(timed$agreement == "disagrees")) paste0(", ", sum(timed$agreement == "disagrees"), " disagree"),
         " ([Harness cross-check](#cross-check)).")
}
