#!/usr/bin/env bash
# tests/doctest.sh - the documentation is tested: every code block of
# README.md and docs/*.md (tests/doctest/run.py: shell blocks run, "$ command"
# transcripts compared with the real output, YAML parsed and configs
# accepted; skips and their reasons in tests/doctest/skip.txt, the files
# blocks work on in tests/doctest/fixtures.txt), and README's `make run`
# with the curl lines it prints (tests/doctest/make_run.sh), and its
# claim about make test's last line (tests/doctest/summary.sh).
# Runs with build/claimcheck and build/claimcheck-webhook first on PATH.
# Last line: "N passed, N failed"; exit status non-zero on any failure.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top/tests/e2e/lib.sh"
# the YAML blocks are parsed with PyYAML: installed as root when missing,
# else run.py prints skipped: lines for them
have_pkg python3-yaml python3 -c 'import yaml'

for b in claimcheck claimcheck-webhook; do
  [ -x "build/$b" ] || { echo "FAIL build/$b not built"; echo "0 passed, 1 failed"; exit 1; }
  ln -s "$top/build/$b" "$tmp/$b"      # only these two: nothing else of build/
done

# part OUTPUT-FILE: print it, add its result line to the totals
part() {
  grep -vE '^[0-9]+ passed, [0-9]+ failed' "$1"
  local last; last=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1)
  if [ -z "$last" ]; then
    echo "FAIL $2 printed no result line"; fail=$((fail + 1)); return
  fi
  pass=$((pass + $(sed -E 's/^([0-9]+) passed.*/\1/' <<<"$last")))
  fail=$((fail + $(sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/' <<<"$last")))
}

python3 tests/doctest/run.py "$tmp" README.md docs/*.md >"$tmp/blocks.out" 2>&1
part "$tmp/blocks.out" tests/doctest/run.py
bash tests/doctest/make_run.sh >"$tmp/make_run.out" 2>&1
part "$tmp/make_run.out" tests/doctest/make_run.sh
bash tests/doctest/summary.sh >"$tmp/summary.out" 2>&1
part "$tmp/summary.out" tests/doctest/summary.sh

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
