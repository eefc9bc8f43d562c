# lib.sh - the counters the shell suites share: ok/bad record a check,
# tally adds the ok/FAIL lines of a helper's output. Source it after
# `set -u`; print "$pass passed, $fail failed" last.
pass=0; fail=0
ok() { pass=$((pass+1)); echo "ok $*"; }
bad() { fail=$((fail+1)); echo "FAIL $*"; }
tally() {
  local p f
  p=$(grep -c '^ok ' "$1"); f=$(grep -c '^FAIL ' "$1")
  grep '^FAIL ' "$1"
  pass=$((pass+p)); fail=$((fail+f))
}
