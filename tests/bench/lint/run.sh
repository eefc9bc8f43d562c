#!/usr/bin/env bash
# lint/run.sh - the linter benchmark (issue 2): a 20,000-object
# multi-document file; full `claimcheck lint` against a bare libyaml event
# parse of the same file, measured in the same run (median of 5 runs
# each). Prints objects/s, MB/s, peak RSS and the ratios to the targets:
# full lint <= 2.5x the bare parse, peak RSS <= 4x the file size.
set -eu
top=$(cd "$(dirname "$0")/../../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=${N:-20000}
python3 "$top/tests/bench/lint/gen.py" "$n" "$work/objects.yaml"
cc -O2 -o "$work/yaml_events" "$top/tests/bench/lint/yaml_events.c" $(pkg-config --cflags --libs yaml-0.1)
bytes=$(stat -c %s "$work/objects.yaml")

median() {  # cmd...: median wall seconds of 5 runs
  local t=()
  for _ in 1 2 3 4 5; do
    local s e
    s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N)
    t+=($(( (e - s) / 1000 )))
  done
  printf '%s\n' "${t[@]}" | sort -n | sed -n 3p
}
rss_kb() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -n 1; }

base_us=$(median "$work/yaml_events" "$work/objects.yaml")
lint_us=$(median "$top/build/claimcheck" lint -o json "$work/objects.yaml")
base_rss=$(rss_kb "$work/yaml_events" "$work/objects.yaml")
lint_rss=$(rss_kb "$top/build/claimcheck" lint -o json "$work/objects.yaml")
findings=$("$top/build/claimcheck" lint -o json "$work/objects.yaml" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d["findings"]), d["summary"]["objects"])' || true)

python3 - "$n" "$bytes" "$base_us" "$lint_us" "$base_rss" "$lint_rss" "$findings" <<'PY'
import sys
n, size, base, lint, brss, lrss = (float(x) for x in sys.argv[1:7])
print("lint benchmark: %d objects, %.1f MB (findings, objects: %s)" % (n, size / 1e6, sys.argv[7]))
print("  bare libyaml event parse: %8.1f ms  %6.1f MB/s  peak RSS %6.1f MB" % (base / 1e3, size / base, brss / 1024))
print("  claimcheck lint -o json:  %8.1f ms  %6.1f MB/s  peak RSS %6.1f MB  %.0f objects/s" % (lint / 1e3, size / lint, lrss / 1024, n / (lint / 1e6)))
r = lint / base
m = lrss * 1024 / size
print("  time ratio lint/bare parse: %.2f (target <= 2.5)  %s" % (r, "ok" if r <= 2.5 else "OVER"))
print("  peak RSS / file size:       %.2f (target <= 4.0)  %s" % (m, "ok" if m <= 4.0 else "OVER"))
PY
