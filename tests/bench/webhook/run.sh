#!/bin/bash
# tests/bench/webhook/run.sh - wrk benchmark of claimcheck-webhook against
# a bare libmicrohttpd TLS server (bare.c, built here) on the same machine,
# same run: keep-alive TLS, a realistic Pod AdmissionReview (~2.5 KB), wrk
# -t2 -c64. Both servers run side by side and are measured in turns,
# ROUNDS times (default 3, DUR seconds each, default 10): the machine's
# noise then hits both alike, and the medians are compared. Prints req/s,
# p50/p99 and RSS for every turn, then the medians, then the same with a
# 5,000-node inventory, then checks the targets of issue 6: throughput >=
# 70 % of bare, p99 <= 1.5x bare p99, no non-2xx, RSS stable within 10 %
# (end of the first turn, when warm, to the end of the last). 127.0.0.1 only. LONG=60 adds a 60 s RSS-stability
# run.
# run.sh --check (make bench-check): 3 turns of 3 s, no inventory; fails
# when claimcheck-webhook's median throughput is under 0.45x the bare
# server's in the same run (a run under the line is repeated once: both
# servers share 2 cores with wrk). The line has room for the machine: on
# one 2-core VM the same build measured 0.73x and, an hour later, 0.50-
# 0.55x (the bare server 108k then 127-140k requests a second, ours
# 79k then 65-70k; session 8's code the same 0.50-0.54x); a webhook half
# as fast crosses it either way. Without wrk it says "skipped: ...".
# The last line is then "N passed, N failed".
set -u
cd "$(dirname "$0")/../../.."
ROOT=$PWD
BIN=${CLAIMCHECK_WEBHOOK:-$ROOT/build/claimcheck-webhook}
HERE=$ROOT/tests/bench/webhook
CHECK=0
if [ "${1:-}" = "--check" ]; then
    CHECK=1
    DUR=${DUR:-3}
fi
DUR=${DUR:-10}
ROUNDS=${ROUNDS:-3}
THREADS=${THREADS:-2}
FAILS=0
if ! command -v wrk >/dev/null; then
    if [ $CHECK = 1 ]; then
        echo "skipped: wrk not installed (apt-get install wrk)"
        echo "0 passed, 0 failed, 1 skipped"; exit 0
    fi
    echo "wrk not installed (apt-get install wrk)"; exit 1
fi
source "$ROOT/tests/e2e/hook.sh"
hook_init bench || exit 1
cc -O2 -o "$T/bare" "$HERE/bare.c" $(pkg-config --cflags --libs libmicrohttpd) || exit 1
"$BIN" certs --service webhook --namespace default --out "$T/c" --ip 127.0.0.1 >/dev/null 2>&1 || exit 1
python3 "$HERE/gen.py" review "$T/review.json"
[ $CHECK = 1 ] || python3 "$HERE/gen.py" inventory "$T/inv5000.json" 5000
cat >"$T/post.lua" <<LUA
local f = io.open("$T/review.json", "r")
wrk.method = "POST"
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = "application/json"
LUA
wait_up() { # port
    local i
    for i in $(seq 1 200); do
        curl -s -o /dev/null --max-time 1 --cacert "$T/c/ca.crt" "https://127.0.0.1:$1/healthz" && return 0
        sleep 0.1
    done
    return 1
}
# bench NAME PORT PID DURATION: prints a row; sets R_RPS R_P50 R_P99
# R_NON2XX R_RSS0 R_RSS1
bench() {
    local name=$1 port=$2 pid=$3 dur=$4 out
    wrk -t2 -c64 -d2s -s "$T/post.lua" "https://127.0.0.1:$port/validate?timeout=10s" >/dev/null 2>&1
    R_RSS0=$(rss_kb "$pid")
    out=$(wrk -t2 -c64 -d"${dur}s" --latency -s "$T/post.lua" "https://127.0.0.1:$port/validate?timeout=10s" 2>&1)
    R_RSS1=$(rss_kb "$pid")
    R_RPS=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
    R_P50=$(awk '$1 == "50%" {print $2}' <<<"$out")
    R_P99=$(awk '$1 == "99%" {print $2}' <<<"$out")
    R_NON2XX=$(awk '/Non-2xx/ {print $NF}' <<<"$out")
    R_NON2XX=${R_NON2XX:-0}
    R_ERR=$(awk '/Socket errors/ {print}' <<<"$out")
    printf '%-44s %9s req/s  p50 %8s  p99 %8s  non-2xx %s  RSS %s -> %s KiB %s\n' \
        "$name" "$R_RPS" "$R_P50" "$R_P99" "$R_NON2XX" "$R_RSS0" "$R_RSS1" "$R_ERR"
}
ms() { # wrk latency (us/ms/s) -> ms
    python3 -c 'import sys,re; v=sys.argv[1]; m=re.match(r"([\d.]+)(us|ms|s)$",v); f={"us":1e-3,"ms":1,"s":1e3}[m.group(2)]; print(float(m.group(1))*f)' "$1"
}
target() { # description, python condition
    if python3 -c "import sys; sys.exit(0 if ($2) else 1)" 2>/dev/null; then
        echo "  ok   $1"
    else
        echo "  MISS $1"
        FAILS=$((FAILS + 1))
    fi
}

echo "machine: $(nproc) cores; wrk -t2 -c64, $ROUNDS turns of ${DUR}s each, keep-alive TLS," \
     "body $(wc -c <"$T/review.json") bytes; server threads $THREADS"
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
run_pair() { # label, extra webhook args...
    local label=$1 bp hp bpid hpid i r
    local b_rps=() b_p99=() h_rps=() h_p99=() non2xx=0 rss_first="" rss_last="" rss_cold=""
    shift
    bp=$(free_port)
    "$T/bare" "$T/c/tls.crt" "$T/c/tls.key" "$bp" "$THREADS" &
    bpid=$!
    PIDS+=("$bpid")
    wait_up "$bp"
    hp=$(free_port)
    "$BIN" serve --listen "127.0.0.1:$hp" --tls-cert "$T/c/tls.crt" \
        --tls-key "$T/c/tls.key" --threads "$THREADS" --drain-delay-ms 0 \
        "$@" 2>"$T/hook.log" &
    hpid=$!
    PIDS+=("$hpid")
    if ! wait_up "$hp"; then
        echo "claimcheck-webhook did not come up:"
        tail -n 5 "$T/hook.log"
    fi
    hook_ready "$hp" "$T/c/ca.crt"
    for r in $(seq 1 "$ROUNDS"); do
        bench "bare MHD TLS ($label) turn $r" "$bp" "$bpid" "$DUR"
        b_rps+=("$R_RPS")
        b_p99+=("$(ms "$R_P99")")
        bench "claimcheck-webhook ($label) turn $r" "$hp" "$hpid" "$DUR"
        h_rps+=("$R_RPS")
        h_p99+=("$(ms "$R_P99")")
        non2xx=$((non2xx + R_NON2XX))
        # RSS from the end of the first turn (warm: connection pools, the
        # request pool and log batch are full by then) to the last
        [ -n "$rss_cold" ] || { rss_cold=$R_RSS0; rss_first=$R_RSS1; }
        rss_last=$R_RSS1
    done
    B_RPS=$(median "${b_rps[@]}")
    B_P99=$(median "${b_p99[@]}")
    R_RPS=$(median "${h_rps[@]}")
    R_P99=$(median "${h_p99[@]}")
    printf '%-44s %9s req/s  p99 %8s ms\n' "median bare ($label)" "$B_RPS" "$B_P99"
    printf '%-44s %9s req/s  p99 %8s ms  (%s %% of bare)\n' \
        "median claimcheck-webhook ($label)" "$R_RPS" "$R_P99" \
        "$(python3 -c "print(round(100 * $R_RPS / $B_RPS, 1))")"
    kill -TERM "$bpid"
    wait "$bpid" 2>/dev/null
    if ! kill -0 "$hpid" 2>/dev/null; then
        wait "$hpid"
        echo "claimcheck-webhook exited (status $?):"
        grep -v '"msg":"admission"' "$T/hook.log" | tail -n 5
    fi
    curl -s --cacert "$T/c/ca.crt" "https://127.0.0.1:$hp/metrics" \
        | grep -E '^claimcheck_inventory_objects|^claimcheck_admission_duration_seconds_(sum|count)' \
        | sed 's/^/    /'
    target "throughput >= 70% of bare ($R_RPS vs $B_RPS)" "$R_RPS >= 0.7 * $B_RPS"
    target "p99 <= 1.5x bare p99 (${R_P99} ms vs ${B_P99} ms)" "$R_P99 <= 1.5 * $B_P99"
    target "no non-2xx ($non2xx)" "$non2xx == 0"
    target "RSS within 10% after the first turn ($rss_first -> $rss_last KiB; $rss_cold before it)" \
        "abs($rss_last - $rss_first) <= 0.1 * $rss_first"
    if [ -n "${LONG:-}" ]; then
        bench "claimcheck-webhook ($label, ${LONG}s)" "$hp" "$hpid" "$LONG"
        target "RSS within 10% over ${LONG}s ($R_RSS0 -> $R_RSS1 KiB)" \
            "abs($R_RSS1 - $R_RSS0) <= 0.1 * $R_RSS0"
    fi
    kill -TERM "$hpid"
    wait "$hpid" 2>/dev/null
}
if [ $CHECK = 1 ]; then
    for try in 1 2; do
        run_pair "no inventory" >"$T/pair.log"
        grep -E '^median' "$T/pair.log"
        r=$(python3 -c "print(round($R_RPS / $B_RPS, 2))")
        python3 -c "import sys; sys.exit(0 if $r >= 0.45 else 1)" && break
        echo "  (try $try: ${r}x)"
    done
    if python3 -c "import sys; sys.exit(0 if $r >= 0.45 else 1)"; then
        echo "  ok   webhook: ${r}x the bare server's throughput (guard >= 0.45x)"
        echo "1 passed, 0 failed"; exit 0
    fi
    echo "  FAIL webhook: ${r}x the bare server's throughput (guard >= 0.45x)"
    echo "0 passed, 1 failed"; exit 1
fi
run_pair "no inventory"
run_pair "5,000-node inventory" --inventory "$T/inv5000.json"
echo "targets missed: $FAILS"
[ "$FAILS" = 0 ]
