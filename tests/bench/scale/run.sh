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
#    ResourceClaims, wall seconds (target <= 5 s), not pinned to one core
#    as the rest is: it parses the inventory's files on two threads, as a
#    user's run does; "lint CPU" is its user + system time.
# Times are CPU where the harness can measure them (the machine may be
# shared); `uptime` is printed with the table.
# run.sh --check (make bench-check): 2,000 and 8,000 nodes, the model
# build and the admission of CLAIMS Pods (each its own run, after
# inventory_prepare as the webhook does); fails when, at 8,000 nodes
# against 2,000: the model's CPU time per device passes 1.5x (the build
# must stay linear), the p99 of the Pods that fit passes 3.2x (they stop at
# 100 nodes that fit, whatever the size), or the p99 per node of the Pods
# that fit nowhere passes 1.5x (judged on every node, at a constant cost
# a node). Each size is run three times and its best figure counts. The
# last line is "N passed, N failed".
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
  # best VAR FIG N: the least of a figure over the three runs at N nodes
  best() { for run in 1 2 3; do fig "$T/$2/fig.$run" "$1"; done | sort -g | head -n 1; }
  for n in $SIZES; do
    mkdir -p "$T/$n"
    python3 "$here/gen.py" "$T/$n" "$n" "$CLAIMS" || exit 1
    for run in 1 2 3; do
      $pin "$T/bench_scale" "$T/$n/pods.yaml" "$T/$n"/inventory/*.yaml \
        >"$T/$n/fig.$run" || exit 1
    done
    eval "ns_$n=$(best model_ns_per_device "$n")"
    eval "ok_$n=$(best admission_ok_p99_ms "$n")"
    eval "err_$n=$(best admission_error_p99_ms "$n")"
    echo "   $n nodes: model build $(eval echo "\$ns_$n") ns CPU per device;" \
      "admission p99 (CPU) $(eval echo "\$ok_$n") ms for Pods that fit," \
      "$(eval echo "\$err_$n") ms for Pods that fit nowhere (best of 3)"
    rm -rf "$T/$n/inventory"
  done
  set -- $SIZES
  pass=0; failn=0
  # guard LABEL RATIO LIMIT: one line, counted
  guard() {
    if python3 -c "import sys; sys.exit(0 if $2 <= $3 else 1)"; then
      echo "  ok   scale: $1 is ${2}x (guard <= ${3}x)"; pass=$((pass + 1))
    else
      echo "  FAIL scale: $1 is ${2}x (guard <= ${3}x)"; failn=$((failn + 1))
    fi
  }
  r=$(python3 -c "print(round($(eval echo "\$ns_$2") / $(eval echo "\$ns_$1"), 2))")
  guard "model build per device at $2 nodes against $1" "$r" 1.5
  # Pods that fit stop at ALLOC_FEASIBLE_MIN nodes that fit: their cost
  # does not grow with the cluster. Their p99 still does some (1.6-2.5x
  # measured): the slowest are the first Pods of a shape, whose first
  # passes over the devices grow with the cluster, and most Pods are
  # answered from the verdict cache (so no lower percentile would tell).
  # A build that does not stop at 100 nodes gave 3.8-6.0x.
  r=$(python3 -c "print(round($(eval echo "\$ok_$2") / $(eval echo "\$ok_$1"), 2))")
  guard "admission p99 of Pods that fit at $2 nodes against $1" "$r" 3.2
  # Pods that fit nowhere are judged on every node: their cost per node
  # stays the same
  r=$(python3 -c "print(round(($(eval echo "\$err_$2") / $2) / ($(eval echo "\$err_$1") / $1), 2))")
  guard "admission p99 per node of Pods that fit nowhere at $2 nodes against $1" "$r" 1.5
  echo "$pass passed, $failn failed"
  [ "$failn" -eq 0 ]; exit
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
  /usr/bin/time -f '%e %U %S' -o "$d/lint.time" "$T/claimcheck" lint \
    --no-hints -o json -i "$d/inventory" "$d/claims.yaml" >"$d/lint.json"
  # (time writes "Command exited with non-zero status 1" first: findings)
  read -r lw lu ls < <(tail -n 1 "$d/lint.time")
  lint=$(python3 -c "print(round($lw, 2))")
  lintcpu=$(python3 -c "print(round($lu + $ls, 2))")
  rows+=("$(printf '%6s %8s %7.2f %7.2f %7s %9s %9s %8s %8s %8s %8s' "$n" \
    "$(fig "$d/fig" devices)" \
    "$(python3 -c "print($(fig "$d/fig" load_cpu_ms) / 1e3)")" \
    "$(python3 -c "print($(fig "$d/fig" model_cpu_ms) / 1e3)")" \
    "$(fig "$d/fig" model_ns_per_device)" \
    "$(fig "$d/fig" model_bytes_per_device)" "$(fig "$d/fig" objects_bytes_per_device)" \
    "$rss" "$(fig "$d/fig" admission_p99_ms)" "$lint" "$lintcpu")")
  rm -rf "$d"
done
echo
echo "load: $(uptime | sed 's/.*load average/load average/')"
printf '%6s %8s %7s %7s %7s %9s %9s %8s %8s %8s %8s\n' nodes devices "load s" \
  "model s" "ns/dev" "model B/d" "objs B/d" "hook MB" "adm p99" "lint -i" "lint CPU"
printf '%s\n' "${rows[@]}"
echo "targets at 20000 nodes: model <= 3 s, hook <= 1024 MB, adm p99 <= 5 ms, lint -i <= 5 s"
