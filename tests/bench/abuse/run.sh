#!/usr/bin/env bash
# bench/abuse/run.sh - costly admission reviews (issue 16, item 2).
#   run.sh             fair service: build/claimcheck-webhook on 2 workers
#                      and a 2,000-node inventory; one connection sends the
#                      usual Pod review (../webhook/gen.py review) back to
#                      back for DUR seconds (default 8) while 0, 8 and 16
#                      connections send the issue's costly claim (gen.py:
#                      32 requests x 32 selectors of nested comprehensions,
#                      distinct per request so no cached result helps);
#                      prints the usual reviews' p50/p99 and the costly
#                      ones' mean latency for each, with --costly-threads 1
#                      (the default) and 0 (costly reviews on the workers,
#                      as before). Driver: fair.py.
#   run.sh --check     (make bench-check) 16 attackers, 3 s: fails when the
#                      usual reviews' p99 is over a quarter of one costly
#                      review's mean latency in the same run (a ratio: the
#                      machine's load hits both alike; before the pool it
#                      was about 1:1). Last line "N passed, N failed".
#   run.sh --measure   what real manifests spend of the webhook's work
#                      budget: every document of tests/rules and the
#                      upstream corpus (../shared/corpus/upstream, when
#                      present) checked on its own (measure.c), against
#                      its own inventory objects, the -i files its .args
#                      names, and a 2,000-node inventory (../webhook/gen.py);
#                      prints the largest CEL cost and allocator steps one
#                      document spent, and which, next to the defaults of
#                      --budget-cel-cost and --budget-alloc-steps
# Figures and ratios, never absolute times. 127.0.0.1 only.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$top" || exit 1
MODE=${1:-}
if [ "$MODE" != --measure ]; then
  ROOT=$top
  BIN=${CLAIMCHECK_WEBHOOK:-$ROOT/build/claimcheck-webhook}
  source "$ROOT/tests/e2e/hook.sh"
  hook_init abuse || exit 1
  "$BIN" certs --service webhook --namespace default --out "$T/c" --ip 127.0.0.1 >/dev/null 2>&1 || exit 1
  python3 tests/bench/webhook/gen.py review "$T/review.json"
  python3 tests/bench/webhook/gen.py inventory "$T/inv2000.json" 2000 >/dev/null
  for i in $(seq 1 16); do
    python3 tests/bench/abuse/gen.py claim "$T/att-$i.json" $((i + 100))
  done
  # fair NAME COSTLY_THREADS ATTACKERS DUR: one JSON line (fair.py)
  fair() {
    hook_start "$1" --tls-cert "$T/c/tls.crt" --tls-key "$T/c/tls.key" --threads 2 \
        --costly-threads "$2" --inventory "$T/inv2000.json" --drain-delay-ms 0 >/dev/null \
      && hook_ready "$(eval echo "\$PORT_$1")" "$T/c/ca.crt" 300 \
      || { echo '{}'; return; }
    python3 tests/bench/abuse/fair.py "$T/c/ca.crt" "$(eval echo "\$PORT_$1")" \
        "$T/review.json" "$4" "$3" "$T"/att-*.json
    # (a command substitution's subshell: the server is stopped here, not
    # by hook.sh's exit trap)
    kill "$(eval echo "\$PID_$1")" 2>/dev/null
    wait "$(eval echo "\$PID_$1")" 2>/dev/null
  }
  row() { # costly-threads JSON
    python3 -c 'import json,sys; r=json.loads(sys.argv[2]); a=r.get("attack",{})
print("   --costly-threads %s, %2s attackers: usual p50 %s ms, p99 %s ms (%s answered, %s failed); costly mean %s ms (%s answered)" % (sys.argv[1], r.get("attackers"), r.get("p50_ms"), r.get("p99_ms"), r.get("normal"), r.get("failed"), a.get("mean_ms"), a.get("answered")))' "$1" "$2"
  }
  echo "   load: $(uptime | sed 's/.*load average/load average/')"
  if [ "$MODE" = --check ]; then
    pass=0; failn=0
    for try in 1 2; do
      r=$(fair chk$try 1 16 3)
      row 1 "$r"
      if python3 -c 'import json,sys; r=json.loads(sys.argv[1]); a=r["attack"]
sys.exit(0 if r["failed"] == 0 and a["answered"] and r["p99_ms"] <= a["mean_ms"] / 4 else 1)' "$r" 2>/dev/null; then
        ok=1; break
      fi
      ok=0; echo "   (over the line: once more)"
    done
    if [ "$ok" = 1 ]; then
      echo "ok usual reviews' p99 under 16 attackers <= 1/4 of a costly review's mean latency"; pass=1
    else
      echo "FAIL usual reviews' p99 under 16 attackers > 1/4 of a costly review's mean latency"; failn=1
    fi
    echo "$pass passed, $failn failed"
    [ "$failn" = 0 ]
    exit
  fi
  DUR=${DUR:-8}
  for ct in 1 0; do
    for n in 0 8 16; do
      row "$ct" "$(fair "f${ct}x$n" "$ct" "$n" "$DUR")"
    done
  done
  echo "   load: $(uptime | sed 's/.*load average/load average/')"
  exit 0
fi
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
