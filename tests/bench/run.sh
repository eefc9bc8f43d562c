#!/usr/bin/env bash
# bench/run.sh - `make bench`: every benchmark under tests/bench/*/run.sh.
# Benchmarks print figures and ratios against baselines measured in the
# same run; they are not pass/fail tests. The soak runs only with
# SOAK_SECONDS set.
#
# bench/run.sh --check - `make bench-check`: the short version of every
# benchmark that has one (`<bench>/run.sh --check`: lint against a bare
# libyaml parse, CEL against @bufbuild/cel, the webhook against a bare
# libmicrohttpd server, the allocator's p99 per object, the usual reviews'
# p99 under 16 connections of costly claims against one costly review's
# latency, the device model build per device and admission at 8,000
# nodes against 2,000), each judged by a
# ratio measured in the same run against a guard line with room for
# noise (the allocator's: a CPU-time budget per object). A few minutes in
# all. Exits 1 when a guard is crossed; the last line is
# "N passed, N failed, N skipped".
top=$(cd "$(dirname "$0")/../.." && pwd)
if [ "${1:-}" = "--check" ]; then
  pass=0; fail=0; skip=0; failed=()
  for b in lint cel alloc webhook abuse scale; do
    echo "== $b"
    log=$(mktemp)
    bash "$top/tests/bench/$b/run.sh" --check 2>&1 | tee "$log"
    last=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
    rm -f "$log"
    if [ -z "$last" ]; then
      fail=$((fail + 1)); failed+=("$b"); continue
    fi
    p=$(sed -E 's/^([0-9]+) passed.*/\1/' <<<"$last")
    f=$(sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/' <<<"$last")
    s=$(sed -nE 's/.*, ([0-9]+) skipped.*/\1/p' <<<"$last")
    pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + ${s:-0}))
    [ "$f" -eq 0 ] || failed+=("$b")
  done
  echo
  [ ${#failed[@]} -eq 0 ] || echo "guards crossed in: ${failed[*]}"
  echo "$pass passed, $fail failed, $skip skipped"
  [ "$fail" -eq 0 ]
  exit
fi
for b in "$top"/tests/bench/*/run.sh; do
  echo "== $(basename "$(dirname "$b")")"
  # the soak takes 10 minutes: only when asked for (SOAK_SECONDS=600)
  if [ "$(basename "$(dirname "$b")")" = soak ] && [ -z "${SOAK_SECONDS:-}" ]; then
    echo "   skipped: set SOAK_SECONDS (e.g. 600) to run the soak"
    continue
  fi
  bash "$b" || echo "   (benchmark $(basename "$(dirname "$b")") failed)"
done
