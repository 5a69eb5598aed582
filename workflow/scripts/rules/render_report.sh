#!/usr/bin/env bash
# Render report/report.qmd (or another document of report/) against one results directory
# into one self-contained HTML.
#
#   render_report.sh RESULTS_DIR OUTPUT_HTML [auto|quarto|rmarkdown] [DOCUMENT]
#
# DOCUMENT (default report.qmd): compare.qmd and merge.qmd render results/compare/ and
# results/merged/ (workflow/rules/compare.smk).
# auto (the default) uses Quarto when `quarto` is on PATH, else R's rmarkdown (knitr +
# pandoc), which renders the same .qmd. The report is copied into a fresh build directory
# beside OUTPUT_HTML, so rendering never writes into the source tree. Prints the renderer
# used on stdout; renderer chatter goes to stderr.
set -euo pipefail

die() { echo "render_report: $*" >&2; exit 1; }

[ $# -ge 2 ] && [ $# -le 4 ] || {
  echo "usage: render_report.sh RESULTS_DIR OUTPUT_HTML [auto|quarto|rmarkdown] [DOCUMENT]" >&2
  exit 2
}
results_dir=$1
output_html=$2
renderer=${3:-auto}
document=${4:-report.qmd}
[[ "$document" =~ ^[A-Za-z0-9_-]+\.qmd$ ]] || die "DOCUMENT must be a .qmd file name in report/, got '$document'"
html=${document%.qmd}.html

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
report_src=$(cd "$script_dir/../../.." && pwd)/report
[ -f "$report_src/$document" ] || die "no $document in $report_src"
[ -d "$results_dir" ] || die "results directory not found: $results_dir"
results_abs=$(cd "$results_dir" && pwd)

case "$renderer" in
  auto) if command -v quarto >/dev/null 2>&1; then renderer=quarto; else renderer=rmarkdown; fi ;;
  quarto) command -v quarto >/dev/null 2>&1 || die "renderer quarto asked for, but quarto is not on PATH" ;;
  rmarkdown) ;;
  *) echo "render_report: unknown renderer '$renderer' (auto, quarto or rmarkdown)" >&2; exit 2 ;;
esac
if [ "$renderer" = rmarkdown ]; then
  command -v Rscript >/dev/null 2>&1 || die "renderer rmarkdown needs Rscript on PATH"
  command -v pandoc >/dev/null 2>&1 || die "renderer rmarkdown needs pandoc on PATH"
fi

output_dir=$(dirname "$output_html")
mkdir -p "$output_dir"
output_abs=$(cd "$output_dir" && pwd)/$(basename "$output_html")

# A fresh directory per render: nothing stale from an earlier run can leak in. Kept on
# failure (its path is printed) so the intermediate files can be read.
build=$(mktemp -d "$output_abs.build.XXXXXX")
cp -R "$report_src/." "$build/"

# R's and pandoc's scratch files stay in the build directory too (a container's root is
# read-only; only the output directory is writable).
mkdir "$build/tmp"
export TMPDIR="$build/tmp"
export JWTBENCH_RESULTS="$results_abs"
export JWTBENCH_RENDERER="$renderer"
# R treats text as UTF-8 only under a UTF-8 locale (the report prints µ, →, ±).
export LC_ALL=C.UTF-8

status=0
case "$renderer" in
  quarto)
    (cd "$build" && quarto render "$document" --to html) >&2 || status=$?
    ;;
  rmarkdown)
    (cd "$build" && JWTBENCH_DOCUMENT="$document" Rscript -e '
      rmarkdown::render(
        Sys.getenv("JWTBENCH_DOCUMENT"),
        output_format = rmarkdown::html_document(
          mathjax = NULL, self_contained = TRUE, highlight = NULL, toc = TRUE, toc_depth = 2),
        output_file = sub("[.]qmd$", ".html", Sys.getenv("JWTBENCH_DOCUMENT")),
        output_dir = getwd(), intermediates_dir = getwd(),
        envir = new.env(), quiet = TRUE)') >&2 || status=$?
    ;;
esac
[ "$status" -eq 0 ] || die "$renderer failed (exit $status); build directory kept: $build"
[ -s "$build/$html" ] || die "$renderer produced no $html; build directory kept: $build"

# Self-contained means no resource is fetched: no src= or href= (on link/script/img and
# friends) pointing at http(s):// or protocol-relative //. Plain <a href> links are fine.
external=$(grep -Eio '<(script|link|img|iframe|source|video|audio|embed)[^>]*(src|href)="(https?:)?//[^"]*"' \
  "$build/$html" || true)
if [ -n "$external" ]; then
  printf '%s\n' "$external" | cut -c1-200 >&2
  die "$html loads external resources (listed above); build directory kept: $build"
fi

mv "$build/$html" "$output_abs"
rm -rf "$build"
echo "render_report: rendered $output_abs with $renderer"
