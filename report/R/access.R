# Safe reads from provenance.json and the run's config, which may lack any field.

`%||%` <- function(a, b) if (is.null(a) || length(a) == 0 || all(is.na(a))) b else a

# x[[k1]][[k2]]..., or NULL as soon as a key is absent. Never `$`: on a list it matches
# partially, so a missing `config` would silently return `config_sha256`.
field <- function(x, ...) {
  for (key in c(...)) {
    if (!is.list(x) || !key %in% names(x)) return(NULL)
    x <- x[[key]]
  }
  x
}
