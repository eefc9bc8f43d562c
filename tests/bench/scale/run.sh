#!/usr/bin/env bash
# run.sh - the scale benchmark (issue 17 item 3): inventories of N nodes,
# each with 8 GPUs and 4 RDMA NICs in two ResourceSlices (gen.py), at
# 5,000, 20,000 and 65,000 nodes (SIZES="5000 20000" to choose). For each
# size, one row of the table at the end:
#  - load: the inventory's YAML read into objects, kept compact as the
#    webhook keeps them (CPU s, bench_scale.c);
#  - model: the device model built from them (CPU s; target <= 3 s at
#    20,000 nodes), and its CPU time per device;
#  - model B/dev, objs B/dev: bytes per device of the model's arena and of
#    the objects' (the parsed trees the model points into);
#  - hook MB: claimcheck-webhook's RSS with the inventory loaded (VmRSS
#    once /readyz answers; target <= 1024 MB at 20,000 nodes);
#  - adm p99: admission of a Pod with a claim from a template, every Pod
#    its own run, p99 of the CPU time per Pod (target <= 5 ms);
#  - lint -i: `claimcheck lint -i inventory/ claims.yaml` over 1,000
#    ResourceClaims, wall seconds (target <= 5 s).
# Times are CPU where the harness can measure them (the machine may be
# shared); `uptime` is printed with the table.
# run.sh --check (make bench-check): 2,000 and 8,000 nodes, model build
# only; fails when the model's CPU time per device at 8,000 nodes passes
# 1.5x the one at 2,000 (the build must stay linear). Each size is built
# three times and its best run counts. The last line is "N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
here=$top/tests/bench/scale
check=0
if [ "${1:-}" = "--check" ]; then
  check=1
  SIZES="2000 8000"
fi
SIZES=${SIZES:-5000 20000 65000}
CLAIMS=${CLAIMS:-1000}
cd "$top" || exit 1
B=${BUILD:-build}    # another build directory: BUILD=dir (make BUILD=dir)
[ -f "$B/libcore.a" ] && [ -x "$B/claimcheck" ] || make -s BUILD="$B" all >/dev/null || exit 1
BIN=$top/$B/claimcheck-webhook
source "$top/tests/e2e/hook.sh"
hook_init scale || exit 1
# a private copy, as hook_init makes of the webhook: a `make` relinking
# build/ during the run must not change what is measured
cp "$B/claimcheck" "$T/claimcheck" || exit 1
cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -I. \
  "$here/bench_scale.c" "$B/libcore.a" \
  $(pkg-config --libs yaml-0.1 libcjson libpcre2-8) -lm -lpthread \
  -o "$T/bench_scale" || exit 1
taskset -c 0 true 2>/dev/null && pin="taskset -c 0" || pin=""

# fig FILE NAME: a figure bench_scale printed
fig() { awk -v k="$2" '$1 == k {print $2}' "$1"; }

if [ $check = 1 ]; then
  for n in $SIZES; do
    mkdir -p "$T/$n"
    python3 "$here/gen.py" "$T/$n" "$n" 1 || exit 1
    for run in 1 2 3; do
      $pin "$T/bench_scale" /dev/null "$T/$n"/inventory/*.yaml >"$T/$n/fig.$run" || exit 1
    done
    best=$(for run in 1 2 3; do fig "$T/$n/fig.$run" model_ns_per_device; done | sort -g | head -n 1)
    echo "   $n nodes: model build $best ns CPU per device (best of 3)"
    eval "ns_$n=$best"
    rm -rf "$T/$n/inventory"
  done
  set -- $SIZES
  small=$(eval echo "\$ns_$1"); large=$(eval echo "\$ns_$2")
  r=$(python3 -c "print(round($large / $small, 2))")
  if python3 -c "import sys; sys.exit(0 if $r <= 1.5 else 1)"; then
    echo "  ok   scale: model build per device at $2 nodes is ${r}x the one at $1 (guard <= 1.5x)"
    echo "1 passed, 0 failed"; exit 0
  fi
  echo "  FAIL scale: model build per device at $2 nodes is ${r}x the one at $1 (guard <= 1.5x)"
  echo "0 passed, 1 failed"; exit 1
fi

"$BIN" certs --service webhook --namespace default --out "$T/c" --ip 127.0.0.1 >/dev/null 2>&1 || exit 1
rows=()
for n in $SIZES; do
  d=$T/$n
  mkdir -p "$d"
  echo "-- $n nodes: generating"
  python3 "$here/gen.py" "$d" "$n" "$CLAIMS" || exit 1
  echo "   inventory $(du -cm "$d"/inventory/*.yaml | tail -n 1 | cut -f1) MB; model and admission"
  $pin "$T/bench_scale" "$d/pods.yaml" "$d"/inventory/*.yaml >"$d/fig" || exit 1
  sed 's/^/   /' "$d/fig"
  echo "   claimcheck-webhook --inventory"
  # it loads the inventory before it listens: hook_start's 5 s are too
  # short here, so wait (up to 10 minutes) for the "listening" line
  rss=-
  invargs=()
  for f in "$d"/inventory/*.yaml; do invargs+=(--inventory "$f"); done
  "$BIN" serve --listen 127.0.0.1:0 --tls-cert "$T/c/tls.crt" \
    --tls-key "$T/c/tls.key" "${invargs[@]}" 2>"$T/h$n.log" &
  pid=$!
  PIDS+=("$pid")
  for i in $(seq 1 6000); do
    grep -q '"listening on' "$T/h$n.log" 2>/dev/null && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if grep -q '"listening on' "$T/h$n.log"; then
    sleep 1
    rss=$(( $(rss_kb "$pid") / 1024 ))
  else
    echo "   claimcheck-webhook did not come up:"; tail -n 3 "$T/h$n.log"
  fi
  kill -TERM "$pid"; wait "$pid" 2>/dev/null
  echo "   claimcheck lint -i over $CLAIMS claims"
  s=$(date +%s.%N)
  $pin "$T/claimcheck" lint --no-hints -o json -i "$d/inventory" "$d/claims.yaml" >"$d/lint.json"
  lint=$(python3 -c "print(round($(date +%s.%N) - $s, 2))")
  rows+=("$(printf '%6s %8s %7.2f %7.2f %7s %9s %9s %8s %8s %8s' "$n" \
    "$(fig "$d/fig" devices)" \
    "$(python3 -c "print($(fig "$d/fig" load_cpu_ms) / 1e3)")" \
    "$(python3 -c "print($(fig "$d/fig" model_cpu_ms) / 1e3)")" \
    "$(fig "$d/fig" model_ns_per_device)" \
    "$(fig "$d/fig" model_bytes_per_device)" "$(fig "$d/fig" objects_bytes_per_device)" \
    "$rss" "$(fig "$d/fig" admission_p99_ms)" "$lint")")
  rm -rf "$d"
done
echo
echo "load: $(uptime | sed 's/.*load average/load average/')"
printf '%6s %8s %7s %7s %7s %9s %9s %8s %8s %8s\n' nodes devices "load s" \
  "model s" "ns/dev" "model B/d" "objs B/d" "hook MB" "adm p99" "lint -i"
printf '%s\n' "${rows[@]}"
echo "targets at 20000 nodes: model <= 3 s, hook <= 1024 MB, adm p99 <= 5 ms, lint -i <= 5 s"
