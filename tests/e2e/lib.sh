# lib.sh - the counters the shell suites share: ok/bad record a check,
# tally adds the ok/FAIL lines of a helper's output; have_pkg, need_pyyaml.
# Source it after `set -u`; print "$pass passed, $fail failed" last.
pass=0; fail=0
ok() { pass=$((pass+1)); echo "ok $*"; }
bad() { fail=$((fail+1)); echo "FAIL $*"; }
tally() {
  local p f
  p=$(grep -c '^ok ' "$1"); f=$(grep -c '^FAIL ' "$1")
  grep '^FAIL ' "$1"
  pass=$((pass+p)); fail=$((fail+f))
}
# have_pkg PACKAGE TEST...: TEST succeeds, after installing the Debian
# PACKAGE with apt-get when it does not and we are root
have_pkg() {
  local pkg=$1; shift
  "$@" >/dev/null 2>&1 && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$pkg" >/dev/null 2>&1
  fi
  "$@" >/dev/null 2>&1
}
# need_pyyaml WHAT: python3 with PyYAML (have_pkg); without it, say why WHAT
# is skipped and end the suite
need_pyyaml() {
  have_pkg python3-yaml python3 -c 'import yaml' && return 0
  echo "skipped: $1 (python3 with PyYAML not installed: apt-get install python3-yaml)"
  echo "0 passed, 0 failed, 1 skipped"
  exit 0
}
