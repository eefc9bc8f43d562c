#!/usr/bin/env bash
# bench/run.sh - `make bench`: every benchmark under tests/bench/*/run.sh.
# Benchmarks print figures and ratios against baselines measured in the
# same run; they are not pass/fail tests. The soak runs only with
# SOAK_SECONDS set.
top=$(cd "$(dirname "$0")/../.." && pwd)
for b in "$top"/tests/bench/*/run.sh; do
  echo "== $(basename "$(dirname "$b")")"
  # the soak takes 10 minutes: only when asked for (SOAK_SECONDS=600)
  if [ "$(basename "$(dirname "$b")")" = soak ] && [ -z "${SOAK_SECONDS:-}" ]; then
    echo "   skipped: set SOAK_SECONDS (e.g. 600) to run the soak"
    continue
  fi
  bash "$b" || echo "   (benchmark $(basename "$(dirname "$b")") failed)"
done
