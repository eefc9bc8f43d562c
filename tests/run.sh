#!/usr/bin/env bash
# run.sh - `make test`: every suite, then one closing line
# `N passed, N failed, N skipped`.
# A suite is a command whose last line is `N passed, N failed` (optionally
# `, N skipped`); its counts are added up. A suite skips a part it cannot
# run (a tool or ../shared missing) by printing `skipped: <reason>`: each
# such line counts as one skip unless the result line gives the number, and
# every reason is repeated here. A suite that crashes or prints no result
# line counts as one failure, with the end of its output as the reason.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
total_pass=0; total_fail=0; total_skip=0
failed_suites=()

run_suite() {   # name, command...
  local name=$1; shift
  local log; log=$(mktemp)
  echo "== $name"
  local t0=$SECONDS
  "$@" >"$log" 2>&1
  local rc=$?
  local took=$((SECONDS - t0))
  local last; last=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
  local s; s=$(grep -cE '^skipped: ' "$log")
  if [[ "$last" =~ ,\ ([0-9]+)\ skipped ]]; then s=${BASH_REMATCH[1]}; fi
  grep -E '^skipped: ' "$log" | sed 's/^/   /'
  total_skip=$((total_skip + s))
  if [ -z "$last" ]; then
    tail -n 30 "$log"
    echo "   $name: no result line (exit $rc, ${took} s)"
    total_fail=$((total_fail + 1)); failed_suites+=("$name")
  else
    local p f
    p=$(echo "$last" | sed -E 's/^([0-9]+) passed.*/\1/')
    f=$(echo "$last" | sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/')
    if [ "$f" -ne 0 ] || [ $rc -ne 0 ]; then
      grep -E '^(FAIL|not ok|ERROR)' "$log" | head -n 40
      [ "$f" -eq 0 ] && f=1
      failed_suites+=("$name")
    fi
    if [ "$s" -gt 0 ]; then echo "   $p passed, $f failed, $s skipped (${took} s)"
    else echo "   $p passed, $f failed (${took} s)"; fi
    total_pass=$((total_pass + p)); total_fail=$((total_fail + f))
  fi
  rm -f "$log"
}

# CLAIMCHECK_TEST_SCOPE=code (the sanitizer pass of .ci/run): only the
# suites that run claimcheck's C code. The ones that check generated
# tables, source rules, deploy files, installation, packages, the release
# files and the documents, and the HTML report's browser check (cli.sh
# renders -o html under the sanitizer), are skipped with that reason; they
# gain nothing from a sanitizer build, and the plain `make test` runs them.
scope=${CLAIMCHECK_TEST_SCOPE:-all}
run_files_suite() {   # name, command...: a suite that checks files (or a
                      # browser), not code
  if [ "$scope" = code ]; then
    echo "== $1"
    echo "   skipped: $1: CLAIMCHECK_TEST_SCOPE=code (checks files or a browser, not the C code; the plain make test runs it)"
    total_skip=$((total_skip + 1))
    return
  fi
  run_suite "$@"
}

for t in build/tests/test_* build/tests/hook_test_*; do
  [ -x "$t" ] || continue
  case "$t" in *.d|*.o) continue;; esac
  # the conformance driver needs the suite's data: tests/cel/run.sh runs it
  case "$t" in */test_cel_conformance) continue;; esac
  run_suite "unit $(basename "$t")" "$t"
done
run_files_suite "generated tables" bash tests/generated.sh
run_files_suite "house rules (checksrc)" bash tests/checksrc.sh
run_suite "golden rules" bash tests/golden.sh
run_suite "corpus" bash tests/corpus/run.sh
[ -f tests/k8s/validation/run.py ] && run_suite "kubernetes validation tables (lint and admission)" python3 tests/k8s/validation/run.py
[ -f tests/k8s/apimachinery/run_objectmeta.py ] && run_suite "apimachinery ObjectMeta table (object-metadata)" python3 tests/k8s/apimachinery/run_objectmeta.py
run_suite "cli end-to-end" bash tests/e2e/cli.sh
run_suite "match end-to-end" bash tests/e2e/match.sh
run_suite "k8s allocator scenarios" bash tests/k8s/allocator/run.sh
[ -f tests/e2e/gates.sh ] && run_suite "gates end-to-end" bash tests/e2e/gates.sh
[ -f tests/cel/run.sh ] && run_suite "cel conformance" bash tests/cel/run.sh
[ -f tests/k8s/cel/run.sh ] && run_suite "kubernetes CEL tables" bash tests/k8s/cel/run.sh
[ -f tests/certs/run.sh ] && run_suite "certs end-to-end" bash tests/certs/run.sh
[ -f tests/e2e/webhook/run.sh ] && run_suite "webhook end-to-end" bash tests/e2e/webhook/run.sh
[ -f tests/e2e/audit/run.sh ] && run_suite "audit end-to-end (stand-in apiserver)" bash tests/e2e/audit/run.sh
[ -f tests/e2e/faults/run.sh ] && run_suite "webhook server faults" bash tests/e2e/faults/run.sh
[ -f tests/e2e/monitoring.sh ] && run_suite "monitoring (alerts, dashboard, /metrics)" bash tests/e2e/monitoring.sh
[ -f tests/e2e/deploy.sh ] && run_files_suite "deploy manifests and CI files" bash tests/e2e/deploy.sh
[ -f tests/e2e/formats.sh ] && run_suite "output formats (sarif, junit, github)" bash tests/e2e/formats.sh
[ -f tests/e2e/html/run.sh ] && run_files_suite "html report in headless chromium" bash tests/e2e/html/run.sh
[ -f tests/e2e/hostile.sh ] && run_suite "hostile inputs (bounded time and memory)" bash tests/e2e/hostile.sh
run_files_suite "install (make install/uninstall, man pages)" bash tests/e2e/install.sh
run_files_suite "packages (make dist, make deb, dpkg)" bash tests/e2e/package.sh
run_files_suite "release workflow, Dockerfile and references (static)" bash tests/e2e/release.sh
run_files_suite "documentation (README.md, docs/: commands and sample outputs)" bash tests/doctest.sh

echo
if [ ${#failed_suites[@]} -gt 0 ]; then
  echo "failed suites: ${failed_suites[*]}"
fi
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" -eq 0 ]
