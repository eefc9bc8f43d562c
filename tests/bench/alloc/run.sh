#!/usr/bin/env bash
# run.sh - the allocator benchmark: a generated inventory of 5,000 nodes x
# 8 GPUs (two PCIe roots per node, four models, ~1% tainted) and 1,000
# claims/pods (half Pods with nodeSelector / node affinity, a few
# unsatisfiable on purpose). Prints load time, total, per-object p50/p99
# and peak RSS, twice:
#  - webhook path (bench_alloc.c): the inventory is loaded once and shared,
#    every object is its own admission run;
#  - linter path: `claimcheck lint -i inventory.yaml objects.yaml`, one run,
#    measured with /usr/bin/time -v (or bash's time when it is missing).
# Targets: per-object p99 <= 5 ms, whole run <= 3 s on one core, RSS <=
# 200 MB. Per-object figures are thread CPU time (the machine may be
# shared); wall time is printed next to them.
# Usage: run.sh [NODES] [OBJECTS]
# run.sh --check (make bench-check): the webhook path only, 5,000 nodes and
# 1,000 objects; fails when the per-object p99 passes 5 ms of CPU time (the
# issue's budget; CPU, not wall: the machine may be shared). Room for
# noise: three runs, each object's least CPU time counts (its work is the
# same every run, a busy machine only adds), then the p99 of those. The
# last line is then "N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
check=0
if [ "${1:-}" = "--check" ]; then
  check=1
  shift
fi
nodes=${1:-5000}
objects=${2:-1000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$top" || exit 1
[ -f build/libcore.a ] && [ -x build/claimcheck ] || make -s all >/dev/null || exit 1
python3 tests/bench/alloc/gen.py "$tmp" "$nodes" "$objects" || exit 1
cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -I. \
  tests/bench/alloc/bench_alloc.c build/libcore.a \
  $(pkg-config --libs yaml-0.1 libcjson libpcre2-8) -lm -o "$tmp/bench_alloc" || exit 1
echo "alloc: $nodes nodes x 8 devices, $objects objects ($(du -h "$tmp/inventory.yaml" | cut -f1) inventory)"
taskset -c 0 true 2>/dev/null && pin="taskset -c 0" || pin=""
if [ $check = 1 ]; then
  for run in 1 2 3; do
    $pin "$tmp/bench_alloc" "$tmp/inventory.yaml" "$tmp/objects.yaml" \
      "$tmp/times.$run" | grep -E '^(per object|total)' | sed "s/^/   run $run: /"
  done
  p99=$(python3 - "$tmp"/times.[123] <<'PY'
import sys
runs = [[float(x) for x in open(p)] for p in sys.argv[1:]]
best = sorted(min(t) for t in zip(*runs))
print("%.2f" % (best[len(best) * 99 // 100] * 1e3))
PY
)
  if python3 -c "import sys; sys.exit(0 if $p99 <= 5.0 else 1)"; then
    echo "  ok   allocator: per-object p99 ${p99} ms CPU, each object's best of 3 runs (guard <= 5 ms)"
    echo "1 passed, 0 failed"; exit 0
  fi
  echo "  FAIL allocator: per-object p99 ${p99} ms CPU, each object's best of 3 runs (guard <= 5 ms)"
  echo "0 passed, 1 failed"; exit 1
fi
echo "-- webhook path (inventory shared, one admission run per object)"
$pin "$tmp/bench_alloc" "$tmp/inventory.yaml" "$tmp/objects.yaml" | sed 's/^/   /'
echo "-- linter path (one run)"
if [ -x /usr/bin/time ]; then
  $pin /usr/bin/time -v build/claimcheck lint --no-hints -o json \
    -i "$tmp/inventory.yaml" "$tmp/objects.yaml" >"$tmp/out.json" 2>"$tmp/time"
  u=$(awk -F': ' '/User time/ {print $2}' "$tmp/time")
  sy=$(awk -F': ' '/System time/ {print $2}' "$tmp/time")
  w=$(awk -F': ' '/Elapsed/ {print $2}' "$tmp/time")
  r=$(awk -F': ' '/Maximum resident/ {print $2}' "$tmp/time")
  echo "   claimcheck lint: ${u}s user + ${sy}s sys (wall $w), peak RSS $((r / 1024)) MB"
else
  ( time $pin build/claimcheck lint --no-hints -o json -i "$tmp/inventory.yaml" \
      "$tmp/objects.yaml" >"$tmp/out.json" ) 2>&1 | sed 's/^/   /'
fi
python3 - "$tmp/out.json" <<'PY' 2>/dev/null | sed 's/^/   /'
import json, sys, collections
d = json.load(open(sys.argv[1]))
c = collections.Counter(f["rule"] for f in d["findings"])
print("findings:", ", ".join(f"{k} {v}" for k, v in sorted(c.items())))
PY
echo "   targets: per-object p99 <= 5 ms, whole run <= 3 s, RSS <= 200 MB"
