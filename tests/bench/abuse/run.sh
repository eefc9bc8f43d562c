#!/usr/bin/env bash
# bench/abuse/run.sh - costly admission reviews (issue 16, item 2).
#   run.sh --measure   what real manifests spend of the webhook's work
#                      budget: every document of tests/rules and the
#                      upstream corpus (../shared/corpus/upstream, when
#                      present) checked on its own (measure.c), against
#                      its own inventory objects, the -i files its .args
#                      names, and a 2,000-node inventory (../webhook/gen.py);
#                      prints the largest CEL cost and allocator steps one
#                      document spent, and which, next to the defaults of
#                      --budget-cel-cost and --budget-alloc-steps
#   run.sh             the same (the benchmark of fair service is not in
#                      this branch)
# Figures, not pass/fail.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$top" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -f build/libcore.a ] || make -s build/libcore.a || exit 1
cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -I. \
  tests/bench/abuse/measure.c build/libcore.a \
  $(pkg-config --libs yaml-0.1 libpcre2-8) -lm -o "$tmp/measure" || exit 1
python3 tests/bench/webhook/gen.py inventory "$tmp/inv2000.json" 2000 >/dev/null
dirs=(tests/rules)
[ -d ../shared/corpus/upstream ] && dirs+=(../shared/corpus/upstream)
find "${dirs[@]}" -type f \( -name '*.yaml' -o -name '*.yml' -o -name '*.json' \) \
    | sort >"$tmp/files"
while read -r f; do
  d=$(dirname "$f"); a=${f%.*}.args; inv=()
  if [ -f "$a" ]; then
    for x in $(grep -oE -- '(-i|--inventory)[ =][^ ]+' "$a" | sed -E 's/^(-i|--inventory)[ =]//'); do
      [ -f "$d/$x" ] && inv+=("$d/$x")
      [ -f "$x" ] && inv+=("$x")
    done
  fi
  timeout 60 "$tmp/measure" "$f" ${inv[@]+"${inv[@]}"} 2>/dev/null
  timeout 60 "$tmp/measure" "$f" "$tmp/inv2000.json" 2>/dev/null
done <"$tmp/files" >"$tmp/out"
n=$(wc -l <"$tmp/files")
cel=$(sort -n -k1 "$tmp/out" | tail -n 1)
steps=$(sort -n -k2 "$tmp/out" | tail -n 1)
def_cel=$(sed -nE 's/^#define ADMISSION_BUDGET_CEL_COST ([0-9]+).*/\1/p' webhook/admission.h)
def_steps=$(sed -nE 's/^#define ADMISSION_BUDGET_ALLOC_STEPS ([0-9]+).*/\1/p' webhook/admission.h)
echo "   $n files measured (each alone and against 2,000 nodes)"
echo "   most CEL cost of one document: $(cut -d' ' -f1 <<<"$cel") units ($(cut -d' ' -f3 <<<"$cel")); --budget-cel-cost default $def_cel"
echo "   most allocator steps of one document: $(cut -d' ' -f2 <<<"$steps") ($(cut -d' ' -f4 <<<"$steps")); --budget-alloc-steps default $def_steps"
