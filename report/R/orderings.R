# Orders shared by every figure and table, derived from the run rather than typed in.

# Seed 001's variant order (config/schemas/config.schema.yaml, suites.jwt.algorithms):
# used when the run's config does not list its variants.
seed001_variants <- c(
  "HS256", "HS384", "HS512",
  "RS256-2048", "RS384-2048", "RS512-2048", "PS256-2048", "PS384-2048", "PS512-2048",
  "RS256-3072", "RS384-3072", "RS512-3072", "PS256-3072", "PS384-3072", "PS512-3072",
  "RS256-4096", "RS384-4096", "RS512-4096", "PS256-4096", "PS384-4096", "PS512-4096",
  "ES256", "ES384", "ES512", "EdDSA"
)

# Languages in the config's order, then any other language the results mention, sorted.
ordered_languages <- function(configured, ...) {
  seen <- unique(na.omit(as.character(c(...))))
  union(as.character(configured), sort(seen))
}

# The configured variants and those the results hold, in the config's order (seed 001's
# by default); variants neither names come last, sorted, so nothing is dropped.
ordered_variants <- function(configured, ...) {
  seen <- unique(na.omit(as.character(c(...))))
  configured <- as.character(configured)
  known <- union(as.character(configured %||% seed001_variants), seed001_variants)
  c(intersect(known, union(configured, seen)), sort(setdiff(seen, known)))
}

# "verify:RS256-2048" -> "RS256-2048".
cell_variant <- function(cell) sub("^[^:]*:", "", cell)
