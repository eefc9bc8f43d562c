#!/usr/bin/env bash
# golden.sh - golden tests for the rules: every tests/rules/<rule-id>/ holds
#   fail-<what>.yaml  + fail-<what>.expected   exact `claimcheck lint` text
#                                               output (--no-hints), which
#                                               must contain [<rule-id>]
#   pass-<what>.yaml                           must give no finding, exit 0
#   <case>.args (optional)                     extra flags, one line
# Cases run from inside their folder, so file names in the output are bare.
# A folder with a file named `audit` holds rules that judge a live cluster:
# each case is a cluster, served by tests/e2e/webhook/fakeapi.py, and the
# output is `claimcheck audit`'s, its server URL written https://apiserver.
# Usage: tests/golden.sh [--update] [tests/rules/<id> ...]
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
bin="$top/build/claimcheck"
update=0
if [ "${1:-}" = "--update" ]; then update=1; shift; fi
dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=("$top"/tests/rules/*/)
pass=0; fail=0
tmp=$(mktemp -d)
. "$top/tests/e2e/audit/lib.sh"
trap 'fakeapi_stop_all; rm -rf "$tmp"' EXIT
audit_ready=""
# audit_run CASE ARGS...: the audit of cluster CASE.yaml (in the folder)
audit_run() {
  local c=$1 out rc
  shift
  if [ -z "$audit_ready" ]; then
    audit_certs "$tmp" && audit_ready=1 || audit_ready=0
  fi
  if [ "$audit_ready" != 1 ] || ! fakeapi_start "$tmp" "$c.yaml" --token golden; then
    echo "cannot start the stand-in apiserver (see $tmp/fakeapi.log)"
    return 2
  fi
  kubeconfig_write "$tmp/kubeconfig" "$FAKEAPI_URL" "$tmp/ca.crt" "    token: golden"
  out=$(timeout 20 "$bin" audit --kubeconfig "$tmp/kubeconfig" --no-hints --no-color "$@" 2>&1)
  rc=$?
  fakeapi_stop
  printf '%s\n' "${out//$FAKEAPI_URL/https://apiserver}"
  return $rc
}
for d in "${dirs[@]}"; do
  d=${d%/}
  id=$(basename "$d")
  for f in "$d"/fail-*.yaml "$d"/pass-*.yaml; do
    [ -e "$f" ] || continue
    case=$(basename "$f" .yaml)
    args=()
    [ -f "$d/$case.args" ] && read -r -a args < "$d/$case.args"
    if [ -f "$d/audit" ]; then
      out=$(cd "$d" && audit_run "$case" "${args[@]}")
    else
      out=$(cd "$d" && timeout 20 "$bin" lint --no-hints --no-color "${args[@]}" "$case.yaml" 2>&1)
    fi
    rc=$?
    if [[ $case == fail-* ]]; then
      exp="$d/$case.expected"
      if [ $update = 1 ]; then printf '%s\n' "$out" > "$exp"; fi
      if [ ! -f "$exp" ]; then
        echo "FAIL $d/$case: no $case.expected (run make golden-update T=$d)"; fail=$((fail+1)); continue
      fi
      if ! grep -q "\[$id\]" "$exp"; then
        echo "FAIL $d/$case: expected output has no [$id] finding"; fail=$((fail+1)); continue
      fi
      if [ "$out" != "$(cat "$exp")" ]; then
        echo "FAIL $d/$case (exit $rc):"; diff -u "$exp" <(printf '%s\n' "$out") | head -40
        fail=$((fail+1)); continue
      fi
      if [ $rc -ne 1 ] && [ $rc -ne 0 ] && ! grep -q 'input-parse' "$exp"; then
        echo "FAIL $d/$case: exit $rc"; fail=$((fail+1)); continue
      fi
    else
      if [ $rc -ne 0 ] || printf '%s\n' "$out" | grep -qE '(error|warning|info)\[[a-z0-9-]+\]'; then
        echo "FAIL $d/$case: a pass case must give no finding (exit $rc):"; printf '%s\n' "$out" | head -20
        fail=$((fail+1)); continue
      fi
    fi
    pass=$((pass+1))
  done
done
echo "golden: $pass passed, $fail failed"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
