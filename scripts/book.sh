#!/usr/bin/env bash
# Builds the guide (docs/guide/) as an mdBook into target/book/ and fails
# on anything mdBook warns about or cannot include.
#
#   bash scripts/book.sh        then open target/book/index.html
#
# mdBook 0.5 runs through scripts/rust197: in its Debian unstable chroot
# (which has mdbook 0.5.4; the script installs it there if the chroot was
# made without it), or on the host where the host's Rust is new enough,
# with the host's own mdbook (`cargo install mdbook --version ^0.5`).
# The chroot shares the repository at the same path, so the book is
# written straight into target/book/.
#
# mdBook itself only logs a missing file it was asked to include and goes
# on, includes an anchor that is not there as nothing at all, and does not
# check links. So this script checks every {{#include}} of the guide first
# (the file, and the anchor's ANCHOR / ANCHOR_END markers) and every link
# from chapter to chapter, fails if mdBook logged a warning or an error,
# and fails if an include was left unexpanded in the HTML. (tests/doc_figures.rs checks the includes too, under cargo test.)
set -euo pipefail
cd "$(dirname "$0")/.."
book=docs/guide
out="$PWD/target/book"

# 1. Every include names a file that exists and, if it names an anchor,
#    an anchor that is marked in that file.
bad=0
while IFS= read -r hit; do
  chapter=${hit%%:*}
  target=$(sed -E 's/.*\{\{#include[[:space:]]+([^}[:space:]]+)[[:space:]]*\}\}.*/\1/' <<<"${hit#*:}")
  file=${target%%:*}
  anchor=
  [ "$file" = "$target" ] || anchor=${target#*:}
  if [ ! -f "$book/$file" ]; then
    echo "book.sh: $chapter includes $file, which does not exist" >&2
    bad=1
    continue
  fi
  case "$anchor" in
    '' | [0-9]*) ;; # the whole file, or a range of lines
    *)
      for marker in "ANCHOR: $anchor" "ANCHOR_END: $anchor"; do
        if ! grep -Eq "^[[:space:]]*<!-- $marker -->[[:space:]]*$" "$book/$file"; then
          echo "book.sh: $chapter includes $file:$anchor, but $file has no line <!-- $marker -->" >&2
          bad=1
        fi
      done
      ;;
  esac
done < <(grep -o '{{#include[^}]*}}' "$book"/*.md | sed 's|^'"$book"'/||')
# And every link from one chapter to another names a chapter that exists
# (mdBook does not check links).
while IFS= read -r hit; do
  chapter=${hit%%:*}
  link=$(sed -E 's/^\]\(([^)#]*).*/\1/' <<<"${hit#*:}")
  if [ ! -f "$book/$link" ]; then
    echo "book.sh: $chapter links to $link, which is not in $book/" >&2
    bad=1
  fi
done < <(grep -oE '\]\([^):/]+\.md(#[^)]*)?\)' "$book"/*.md | sed 's|^'"$book"'/||')
[ "$bad" = 0 ] || exit 1

# 2. The build, with every line mdBook logs kept.
log=$(scripts/rust197 mdbook build "$book" --dest-dir "$out" 2>&1) || {
  echo "$log" >&2
  echo "book.sh: mdbook build failed" >&2
  exit 1
}
echo "$log"
if grep -Eq '(^|[[:space:]])(WARN|ERROR)([[:space:]]|$)' <<<"$log"; then
  echo "book.sh: mdbook warned (above); the book must build clean" >&2
  exit 1
fi

# 3. Nothing left unexpanded (an include mdBook could not read stays as text).
if grep -l '{{#' "$out"/*.html >/dev/null 2>&1; then
  echo "book.sh: unexpanded {{#...}} left in: $(grep -l '{{#' "$out"/*.html | tr '\n' ' ')" >&2
  exit 1
fi
echo "book.sh: the guide is in $out/index.html"
