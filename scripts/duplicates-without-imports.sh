#!/usr/bin/env bash
# duplicates-without-imports.sh [DIR] — the `duplicates` tool's pairs for DIR (default pkg) with every Go
# file's parenthesised import block emptied first, in a temporary copy (the checkout is not touched).
# Why: the tool passes over import lines, but not the lines inside `import ( ... )`, so two files that
# import the same six standard packages count as a pair of duplicated code. Needs the `duplicates` tool.
set -euo pipefail
dir=${1:-pkg}
command -v duplicates >/dev/null || { echo "duplicates-without-imports: the duplicates tool is not on PATH" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/$dir"
cp -r "$dir/." "$tmp/$dir/"
find "$tmp/$dir" -name '*.go' -exec sed -i '/^import ($/,/^)$/{/^import ($/!{/^)$/!d}}' {} +
cd "$tmp"
duplicates --repo "$dir" --most 40
