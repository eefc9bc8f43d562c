#!/usr/bin/env bash
# bench/run.sh - `make bench`: every benchmark under tests/bench/*/run.sh.
# Benchmarks print figures and ratios against baselines measured in the
# same run; they are not pass/fail tests.
top=$(cd "$(dirname "$0")/../.." && pwd)
for b in "$top"/tests/bench/*/run.sh; do
  echo "== $(basename "$(dirname "$b")")"
  bash "$b" || echo "   (benchmark $(basename "$(dirname "$b")") failed)"
done
