#!/usr/bin/env bash
# tests/doctest/summary.sh - README says what the last line of `make test`
# looks like ("N passed, N failed, N skipped"); it used to name an older
# form. The claim, N read as a number, must match the last line the real
# tests/run.sh prints: run here in a copy of the tree that has only it, so
# every suite fails fast (no build) and the closing line still comes.
# Prints ok/FAIL lines and "N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/e2e/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

claim=$(sed -n 's/.*the last line is "\([^"]*\)".*/\1/p' "$top/README.md" | head -n 1)
if [ -z "$claim" ]; then
  bad "README.md: no 'the last line is \"...\"' sentence about make test"
else
  mkdir -p "$tmp/tree/tests"
  cp "$top/tests/run.sh" "$tmp/tree/tests/"
  last=$(bash "$tmp/tree/tests/run.sh" 2>&1 | tail -n 1)
  re="^$(sed 's/[][\.*^$+?(){}|/]/\\&/g; s/\bN\b/[0-9]+/g' <<<"$claim")\$"
  grep -qE -- "$re" <<<"$last" \
    && ok "README's make test summary \"$claim\" is the form tests/run.sh prints ('$last')" \
    || bad "README says the last line of make test is \"$claim\"; tests/run.sh prints '$last'"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
