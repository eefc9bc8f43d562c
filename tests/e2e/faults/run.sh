#!/bin/bash
# tests/e2e/faults/run.sh - server faults of build/claimcheck-webhook (the
# hardening issue's "Server faults"): slowloris, a connection flood past
# --max-connections, TLS garbage and abrupt disconnects, a client that never
# reads, 64 concurrent 3 MiB reviews under the shipped memory limit and the
# memory budget's 429s, the deadline counted from arrival with the worker
# busy, the work budget per request (CEL cost) and the selector cache, SIGTERM under load (no written request lost),
# certificate rotation under load (no failed handshake), and the apiserver
# stand-in slow, down, answering garbage or 410 in a loop (answers from the
# last snapshot, readiness). The clients are load.py, the apiserver is faultapi.py (fakeapi.py
# of the webhook suite plus fault modes). 127.0.0.1 only, free ports, a
# private copy of the binary, every loop bounded, everything started here
# killed on exit. About 90 s on 2 cores; ONLY="sigterm rotation ..." runs a
# subset. CLAIMCHECK_WEBHOOK=path tests another binary. Prints
# "N passed, N failed" last; exits 1 on any failure.
set -u
cd "$(dirname "$0")/../../.." || exit 1
ROOT=$PWD
BIN=${CLAIMCHECK_WEBHOOK:-$ROOT/build/claimcheck-webhook}
HERE=$ROOT/tests/e2e/faults
LOAD=$HERE/load.py
BODY=$ROOT/deploy/examples/admission-warn.json
source "$ROOT/tests/e2e/lib.sh"
source "$ROOT/tests/e2e/hook.sh"
T_START=$(date +%s.%N)
hook_init faults || { echo "0 passed, 1 failed"; exit 1; }
# sanitizer builds are slower (time bounds x3) and keep freed memory in
# quarantine (no RSS bound)
SLOW=1
grep -qa __asan_init "$BIN" && SLOW=3

# ---- helpers -----------------------------------------------------------------
py() { python3 -c "$@"; }
# jq-less JSON field: jget JSON EXPR (python on r)
jget() { python3 -c 'import json,sys; r=json.loads(sys.argv[1]); print(eval(sys.argv[2]))' "$1" "$2" 2>/dev/null; }
# cond NAME PYTHON-EXPR [detail]: ok when the expression is true
cond() {
    if python3 -c "import sys; sys.exit(0 if ($2) else 1)" 2>/dev/null; then
        ok "$1"
    else
        bad "$1${3:+: $3}"
    fi
}
fds() { ls "/proc/$1/fd" 2>/dev/null | wc -l; }
certs() { # dir
    "$BIN" certs --service webhook --namespace default --out "$1" \
        --ip 127.0.0.1 --dns localhost >/dev/null 2>&1
}
# start NAME ARGS...: hook_start, and a failed check when it does not come up
start() {
    hook_start "$@" || { bad "$1 server starts" "$(tail -n 3 "$T/$1.log")"; return 1; }
}
stop() { # pid: SIGTERM, wait (bounded 8 s)
    local i
    kill -TERM "$1" 2>/dev/null
    for i in $(seq 1 160); do kill -0 "$1" 2>/dev/null || break; sleep 0.05; done
    kill -KILL "$1" 2>/dev/null
    wait "$1" 2>/dev/null
}
# code PORT PATH [CA]: the HTTP status of a GET, or 000
code() {
    curl -s -o /dev/null -w '%{http_code}' --max-time 5 --cacert "${3:-$CA}" "https://127.0.0.1:$1$2" 2>/dev/null
}
# review PORT FILE: "allowed|rules of the message" of a POST /validate
review() {
    curl -s --max-time 5 --cacert "$CA" --data-binary "@$2" \
        -H 'Content-Type: application/json' "https://127.0.0.1:$1/validate" 2>/dev/null \
    | python3 -c 'import json,sys; r=json.load(sys.stdin)["response"]; print(str(r["allowed"]) + "|" + r.get("status", {}).get("message", ""))' 2>/dev/null
}
# allowed PORT FILE: True when the review is allowed
allowed() { [[ $(review "$@") == "True|"* ]] && echo True || echo False; }
metric() { # port name -> value
    curl -s --max-time 5 --cacert "$CA" "https://127.0.0.1:$1/metrics" 2>/dev/null | awk -v n="$2" '$1 == n {print $2}'
}
# want SECTION: ONLY="slowloris flood garbage http inventory memory deadline
# budget sigterm rotation apiserver"
# (any subset) runs only those sections
want() { [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $1 "* ]]; }
elapsed() { py "import time; print(round(time.time() - $T_START, 1))"; }
lap() { want "$1" && echo "   ($1 done at $(elapsed) s)"; }

certs "$T/v1" || { bad "certificates generated"; echo "$pass passed, $fail failed"; exit 1; }
CA=$T/v1/ca.crt
CRT=$T/v1/tls.crt
KEY=$T/v1/tls.key

# ---- slowloris -------------------------------------------------------------------
# 300 connections each send a request header one byte a second (never a
# complete header: libmicrohttpd's inactivity timeout never fires); a new
# client every 0.2 s must still be answered: every probe within its 5 s
# timeout, the median under 100 ms (a worker held by a slow client, or the
# slots used up, fails it).
if want slowloris && start slow --tls-cert "$CRT" --tls-key "$KEY" --threads 2 --conn-timeout 10 --drain-delay-ms 0; then
    r=$(python3 "$LOAD" slowloris "$CA" "$PORT_slow" 300 5 "$BODY")
    cond "slowloris: 300 connections held open, one header byte a second ($(jget "$r" 'r["slow_open"]') open at the end)" \
        "$(jget "$r" 'r["slow_open"] >= 290')" "$r"
    cond "slowloris: other clients served meanwhile ($(jget "$r" '"%d/%d probes answered, median %s ms, max %s ms" % (r["probe_ok"], r["probes"], r["probe_median_ms"], r["probe_max_ms"])'))" \
        "$(jget "$r" 'r["probes"] >= 10 and r["probe_ok"] == r["probes"] and r["probe_median_ms"] < 100 * '$SLOW)" "$r"
    stop "$PID_slow"
fi
lap slowloris

# ---- connection flood past --max-connections ----------------------------------------
# 200 connections at once against --max-connections 32: no more than 32
# TLS sessions are set up (the rest wait in the listen backlog, so a new
# client waits too); the idle flood is shed after --conn-timeout and a new
# client is served while the flooder still holds its sockets; served at once
# when the flood closes.
if want flood && start flood --tls-cert "$CRT" --tls-key "$KEY" --threads 2 --max-connections 32 \
        --conn-timeout 3 --drain-delay-ms 0; then
    r=$(python3 "$LOAD" flood "$CA" "$PORT_flood" 200 1 8 "$BODY" "$PID_flood")
    cond "flood: 200 connections, at most 32 sessions ($(jget "$r" '"%d handshakes, fds %d -> %d" % (r["handshakes"], r["fds_base"], r["fds_max"])'))" \
        "$(jget "$r" '24 <= r["handshakes"] <= 32 and r["fds_max"] - r["fds_base"] <= 34')" "$r"
    cond "flood: a new client waits while the limit is reached" \
        "$(jget "$r" 'r["first_probe"] != 200')" "$r"
    cond "flood: idle flood shed after --conn-timeout 3, new client served ($(jget "$r" 'r["recover_s"]') s)" \
        "$(jget "$r" 'r["recover_s"] is not None and r["recover_s"] <= 3 + 2 * '$SLOW)" "$r"
    cond "flood: served at once when the flood closes ($(jget "$r" 'r["probe_after_close_ms"]') ms)" \
        "$(jget "$r" 'r["probe_after_close"] == 200 and r["probe_after_close_ms"] < 1000 * '$SLOW)" "$r"
    cond "flood: server still running" "$(kill -0 "$PID_flood" 2>/dev/null && echo True || echo False)"
    stop "$PID_flood"
fi
lap flood

# ---- TLS garbage, abrupt disconnects, a client that never reads ----------------------
if want garbage && start junk --tls-cert "$CRT" --tls-key "$KEY" --threads 2 --conn-timeout 3 --drain-delay-ms 0; then
    P=$PORT_junk
    code "$P" /healthz >/dev/null
    F0=$(fds "$PID_junk"); R0=$(rss_kb "$PID_junk")
    r=$(python3 "$LOAD" garbage "$CA" "$P" 40 "$BODY")
    n=$(jget "$r" 'sum(r["cases"].values())')
    cond "garbage: $n hostile connections of $(jget "$r" 'len(r["cases"])') kinds (random bytes, plain HTTP, oversized record, cut ClientHello, RST mid-handshake/mid-body/before the answer), server alive" \
        "${n:-0} >= 280 and $(kill -0 "$PID_junk" 2>/dev/null && echo True || echo False)" "$r"
    for i in $(seq 1 $((40 * SLOW))); do [ "$(fds "$PID_junk")" -le "$F0" ] && break; sleep 0.1; done
    cond "garbage: no connection left open (fds $F0 -> $(fds "$PID_junk"))" "$(fds "$PID_junk") <= $F0"
    cond "garbage: no request left in flight (in_flight = 1, the metrics request)" \
        "'$(metric "$P" claimcheck_in_flight_requests)' == '1'"
    R1=$(rss_kb "$PID_junk")
    if [ "$SLOW" = 1 ]; then
        cond "garbage: RSS $R0 -> $R1 KiB (< 4 MiB growth)" "$R1 - $R0 < 4096"
    else
        echo "skip garbage: RSS $R0 -> $R1 KiB not bounded under ASan (freed memory stays in quarantine)"
    fi
    cond "garbage: a valid review answered afterwards" "$(allowed "$P" "$BODY")"

    # a client pipelines 2000 reviews with a 4 KiB receive buffer and never
    # reads: the worker does not block on it, and it is dropped after
    # --conn-timeout (the server's fd count shows it)
    r=$(python3 "$LOAD" noread "$CA" "$P" "$BODY" 2000 $((8 * SLOW)) "$PID_junk")
    cond "never-reading client: stuck connection seen ($(jget "$r" '"%s requests sent, server Send-Q %d bytes, fds %d -> %d" % (r["sent_requests"], r["server_sendq"], r["fds_base"], r["fds_stuck"])'))" \
        "$(jget "$r" 'r["fds_stuck"] > r["fds_base"] and r["server_sendq"] > 0')" "$r"
    cond "never-reading client: others served meanwhile ($(jget "$r" '"%d/%d probes, max %s ms" % (r["probe_ok"], r["probes"], r["probe_max_ms"])'))" \
        "$(jget "$r" 'r["probes"] >= 3 and r["probe_ok"] == r["probes"] and r["probe_max_ms"] < 1000 * '$SLOW)" "$r"
    cond "never-reading client: dropped after --conn-timeout 3 ($(jget "$r" 'r["dropped_s"]') s)" \
        "$(jget "$r" 'r["dropped_s"] is not None and r["dropped_s"] <= 3 + 3 * '$SLOW)" "$r"
    stop "$PID_junk"
fi
lap garbage

# ---- HTTP framing and the request log (issue 16) -----------------------------------
# two different Content-Length values: 400 (RFC 9112 6.3; libmicrohttpd took
# the first); an unknown Transfer-Encoding: 501 at once (it waited for the
# idle timeout); one Content-Length twice and chunked are served. A review
# with a 100,000-character uid and control characters in its name: every
# line of the log stays one JSON object, the uid cut.
if want http && start strict --tls-cert "$CRT" --tls-key "$KEY" --threads 2 --conn-timeout 30 --drain-delay-ms 0; then
    P=$PORT_strict
    r=$(python3 "$LOAD" strict "$CA" "$P" "$BODY")
    for c in two-content-lengths:400 content-length-list:400 unknown-transfer-encoding:501 \
             gzip-chunked:501 same-content-length-twice:200 chunked:200; do
        cond "http: ${c%%:*} answered ${c##*:} ($(jget "$r" 'r["'"${c%%:*}"'"]'))" \
            "$(jget "$r" 'r["'"${c%%:*}"'"]["status"]') == ${c##*:}" "$r"
    done
    python3 - "$BODY" "$T/longuid.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["request"]["uid"] = "u" * 100000
r["request"]["name"] = "x\n{\"forged\":1}\u001b]0;t\u0007"
json.dump(r, open(sys.argv[2], "w"))
PY
    a=$(review "$P" "$T/longuid.json")
    cond "http: a review with a 100,000-character uid answered ($a)" "'$a' != ''"
    stop "$PID_strict"
    cond "http: every log line one JSON object, the uid cut ($(wc -l <"$T/strict.log") lines)" \
        "$(python3 - "$T/strict.log" <<'PY'
import json, sys
ok, uids = True, []
for line in open(sys.argv[1], "rb").read().split(b"\n")[:-1]:
    try:
        o = json.loads(line)
    except ValueError:
        ok = False
        continue
    if "uid" in o:
        uids.append(len(o["uid"]))
print(ok and uids != [] and max(uids) < 2000)
PY
)" "$(cut -c1-300 "$T/strict.log" | grep -v '^{' | head -n 3)"
fi
lap http

# ---- inventory swaps that would lose data (issue 16) ---------------------------------
# a truncated file (a truncating copy, an editor's save) and a rewrite with
# far fewer objects (below --inventory-min-percent, default 50) are refused
# like a broken one: the previous snapshot stays, a warning, the metric
# claimcheck_inventory_refused_total{reason}, and /readyz stays 200 (the
# last good snapshot serves) but names the refusal; a good file clears it.
if want inventory; then
    mkdir -p "$T/inv"
    cp "$ROOT/tests/e2e/webhook/inventory.yaml" "$T/inv/inventory.yaml"
    for i in 1 2 3 4; do
        printf -- '---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: c%s.example.com}\n' \
            "$i" >>"$T/inv/inventory.yaml"
    done
fi
if want inventory && start invswap --tls-cert "$CRT" --tls-key "$KEY" --threads 2 --inventory "$T/inv" --drain-delay-ms 0; then
    P=$PORT_invswap
    readyz() { curl -s --max-time 5 --cacert "$CA" "https://127.0.0.1:$P/readyz"; }
    loads() { grep -c 'inventory loaded' "$T/invswap.log"; }
    refusals() { grep -c 'inventory refused' "$T/invswap.log"; }
    yes_no() { "$@" && echo True || echo False; }
    n0=$(metric "$P" claimcheck_inventory_objects)
    cp "$T/inv/inventory.yaml" "$T/inventory.good"
    sleep 1.1       # a new mtime second for the poll's signature
    : >"$T/inv/inventory.yaml"
    for i in $(seq 1 $((300 * SLOW))); do [ "$(refusals)" -ge 1 ] && break; sleep 0.1; done
    cond "inventory: an empty file refused with a warning" \
        "$(yes_no grep -q '"level":"warn".*inventory refused.*empty' "$T/invswap.log")" \
        "$(tail -n 2 "$T/invswap.log")"
    cond "inventory: empty file, the snapshot kept (${n0:-?} objects)" \
        "'$(metric "$P" claimcheck_inventory_objects)' == '$n0' and ${n0:-0} >= 4"
    cond "inventory: empty file counted" \
        "'$(metric "$P" 'claimcheck_inventory_refused_total{reason="empty"}')' == '1'"
    r=$(readyz)
    cond "inventory: readyz 200 naming the refusal ($r)" \
        "'$(code "$P" /readyz)' == '200' and $(yes_no grep -q refused <<<"$r")"
    sleep 1.1
    head -n 11 "$T/inventory.good" >"$T/inv/inventory.yaml"    # one object
    for i in $(seq 1 $((300 * SLOW))); do [ "$(refusals)" -ge 2 ] && break; sleep 0.1; done
    cond "inventory: far fewer objects (${n0:-?} -> 1) refused" \
        "'$(metric "$P" 'claimcheck_inventory_refused_total{reason="shrunk"}')' == '1'" \
        "$(tail -n 2 "$T/invswap.log")"
    cond "inventory: far fewer objects, the snapshot kept" \
        "'$(metric "$P" claimcheck_inventory_objects)' == '$n0'"
    sleep 1.1
    cp "$T/inventory.good" "$T/inv/inventory.yaml"
    for i in $(seq 1 $((300 * SLOW))); do [ "$(loads)" -ge 2 ] && break; sleep 0.1; done
    r=$(readyz)
    cond "inventory: a good file loads and readyz says plain ok again ($r)" \
        "$(loads) >= 2 and $(yes_no test "$r" = '{"status":"ok"}')"
    stop "$PID_invswap"
fi
lap inventory

# ---- memory under concurrent large reviews (issue 16) -----------------------------
# 64 connections send a 3 MiB Pod review (about 9,000 containers) at the
# same moment, against the defaults (--threads 2, --memory-budget): every
# one is answered (a 429 is retried after its Retry-After) and the peak RSS
# (VmHWM) stays under the memory limit shipped in deploy/ (it was 817-999
# MiB against 512Mi); afterwards the memory goes back to the system. Then a
# budget of 16 MiB against 8 of them: the ones that do not fit get 429 with
# Retry-After and a JSON message, counted in claimcheck_memory_refused_total,
# and all are answered in the end.
LIMIT_KB=$(python3 - "$ROOT/deploy/kubernetes/base/deployment.yaml" <<'PY'
import re, sys
m = re.search(r"limits:\s*\n(?:\s+cpu:.*\n)?\s+memory:\s*(\d+)Mi", open(sys.argv[1]).read())
print(int(m.group(1)) * 1024 if m else 0)
PY
)
if want memory && start mem --tls-cert "$CRT" --tls-key "$KEY" --drain-delay-ms 0; then
    P=$PORT_mem
    code "$P" /healthz >/dev/null
    R0=$(rss_kb "$PID_mem")
    r=$(python3 "$LOAD" bigpods "$CA" "$P" 64 3 "$PID_mem")
    cond "memory: 64 concurrent 3 MiB Pod reviews all answered ($(jget "$r" '"%d answered, %d refused and retried, %.1f s" % (r["answered"], r["refused"], r["seconds"])'))" \
        "$(jget "$r" 'r["answered"] == 64 and r["other"] == 0 and r["no_retry_after"] == 0 and r["body_bytes"] > 3e6')" "$r"
    if [ "$SLOW" = 1 ]; then
        cond "memory: peak RSS $(jget "$r" 'r["hwm_kb"] // 1024') MiB under the shipped limit of $((LIMIT_KB / 1024)) MiB" \
            "$LIMIT_KB > 0 and $(jget "$r" 'r["hwm_kb"]') < $LIMIT_KB" "$r"
        # (trimmed at the server's tick for 3 s after the last connection
        # closes: membudget_idle())
        for i in $(seq 1 50); do [ "$(rss_kb "$PID_mem")" -lt $((R0 + 32768)) ] && break; sleep 0.1; done
        cond "memory: returned to the system afterwards (RSS $R0 -> $(rss_kb "$PID_mem") KiB)" \
            "$(rss_kb "$PID_mem") < $R0 + 32768"
    else
        echo "skip memory: peak RSS $(jget "$r" 'r["hwm_kb"]') KiB not bounded under ASan"
    fi
    u=$(metric "$P" claimcheck_memory_used_bytes)
    cond "memory: the budget's count back to idle (${u:-?} bytes held)" \
        "${u:-1e12} < 4 * 2**20"
    stop "$PID_mem"
fi
if want memory && start memsmall --tls-cert "$CRT" --tls-key "$KEY" --memory-budget $((16 * 1024 * 1024)) \
        --drain-delay-ms 0; then
    P=$PORT_memsmall
    r=$(python3 "$LOAD" bigpods "$CA" "$P" 8 3 "$PID_memsmall")
    cond "memory: --memory-budget 16 MiB, 8 concurrent 3 MiB reviews: some refused with 429, Retry-After and a JSON message, all answered in the end ($(jget "$r" '"%d answered, %d refused" % (r["answered"], r["refused"])'))" \
        "$(jget "$r" 'r["answered"] == 8 and r["refused"] >= 1 and r["no_retry_after"] == 0 and r["other"] == 0')" "$r"
    cond "memory: refusals counted in claimcheck_memory_refused_total ($(metric "$P" claimcheck_memory_refused_total))" \
        "'$(metric "$P" claimcheck_memory_refused_total)' == '$(jget "$r" 'r["refused"]')'"
    cond "memory: a refusal logged at warn" \
        "$(grep -q '"level":"warn".*memory budget is in use' "$T/memsmall.log" && echo True || echo False)"
    stop "$PID_memsmall"
fi
lap memory

# ---- the deadline counts from arrival (issue 16) ------------------------------------
# One worker (--threads 1), --deadline-ms 400, and 6 costly dry-run claims
# (32 requests x 16 selectors of nested comprehensions over 75 numbers,
# distinct so that no cached result helps; about 1 s each unbounded on a
# machine where 8 selectors over 60 numbers took 345 ms, under the
# deadline: each one passes it several times over; Kubernetes allows 32
# requests of 32 selectors; --budget-cel-cost 0, so that only the deadline
# cuts them: they cost some 16 million units) sent at the same moment
# on 6 connections: the first is cut past its 400 ms (one selector's pass
# cannot stop halfway: some time after); the others waited in the queue at
# least that long, so they are answered at once, allowed with the warning,
# without running the rules. Before, each got a fresh 400 ms once the
# worker reached it: the last answer came after 2.4 s and more.
if want deadline; then
    python3 "$ROOT/tests/bench/webhook/gen.py" inventory "$T/inv2000.json" 2000 >/dev/null
    python3 - "$T" <<'PY'
import json, sys
l = "[" + ",".join(str(i) for i in range(1, 76)) + "]"
for n in range(6):
    reqs = [{"name": "r%d" % r, "exactly": {
        "deviceClassName": "gpu.nvidia.com",
        "selectors": [{"cel": {"expression": "%s.all(x, %s.all(y, x * y > %d && device.driver != ''))"
                               % (l, l, -(n * 10000 + r * 100 + k))}} for k in range(16)]}}
            for r in range(32)]
    json.dump({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {
        "uid": "costly-%d" % n, "operation": "CREATE", "namespace": "ml", "dryRun": True,
        "kind": {"group": "resource.k8s.io", "version": "v1", "kind": "ResourceClaim"},
        "object": {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                   "metadata": {"name": "costly-%d" % n, "namespace": "ml"},
                   "spec": {"devices": {"requests": reqs}}}}},
              open("%s/costly-%d.json" % (sys.argv[1], n), "w"))
PY
fi
if want deadline && start queue --tls-cert "$CRT" --tls-key "$KEY" --threads 1 --deadline-ms 400 \
        --budget-cel-cost 0 --inventory "$T/inv2000.json" --drain-delay-ms 0 && hook_ready "$PORT_queue" "$CA" 300; then
    P=$PORT_queue
    r=$(python3 "$LOAD" queued "$CA" "$P" "$T"/costly-[0-5].json)
    cond "deadline: 6 costly claims, one worker, all allowed with the deadline warning ($(jget "$r" '[a["ms"] for a in r["answers"]]') ms)" \
        "$(jget "$r" 'all(a.get("allowed") is True and any("over its 400 ms budget" in w for w in a["warnings"]) for a in r["answers"])')" "$r"
    cond "deadline: the warnings count from arrival" \
        "$(jget "$r" 'all(any("since the request arrived" in w for w in a["warnings"]) for a in r["answers"])')" "$r"
    if [ "$SLOW" = 1 ]; then
        cond "deadline: the queued ones answered at once, the last within 4 x 400 ms ($(jget "$r" 'r["max_ms"]') ms; fresh budgets each: 2,400 ms and more)" \
            "$(jget "$r" 'r["max_ms"] < 1600')" "$r"
    else
        echo "skip deadline: the last answer after $(jget "$r" 'r["max_ms"]') ms not bounded under ASan"
    fi
    cond "deadline: overruns counted ($(metric "$P" claimcheck_deadline_overruns_total))" \
        "'$(metric "$P" claimcheck_deadline_overruns_total)' == '6'"
    stop "$PID_queue"
fi
lap deadline

# ---- the work budget per request (issue 16) ------------------------------------------
# The issue's attack: a dry-run ResourceClaim of 32 requests x 32 selectors
# of nested comprehensions (tests/bench/abuse/gen.py, about 450 KB; some
# 33 million CEL cost units against 2,000 nodes), with the default
# --budget-cel-cost (10 million) and no deadline, so that only the budget
# can cut it: allowed at once with the budget's warning, counted in
# claimcheck_budget_overruns_total (not as a deadline overrun), the log
# line says what it spent. Before, it was judged in full (2 s and more)
# and allowed without a word. First, the selector cache per inventory
# snapshot: the same 128 costly selectors in a claim of another name (no
# verdict cache helps) cost nothing the second time (the log's cel_cost).
# costly_log UID FIELD: a field of the server log line of the request UID;
# request lines are written in batches every 100 ms: waited for (5 s)
costly_log() {
    python3 - "$T/budget.log" "$1" "$2" <<'PY' 2>/dev/null
import json, sys, time
for _ in range(50):
    for line in open(sys.argv[1]):
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if r.get("uid") == sys.argv[2]:
            print(r.get(sys.argv[3]))
            sys.exit(0)
    time.sleep(0.1)
PY
}
if want budget; then
    [ -f "$T/inv2000.json" ] || python3 "$ROOT/tests/bench/webhook/gen.py" inventory "$T/inv2000.json" 2000 >/dev/null
    python3 "$ROOT/tests/bench/abuse/gen.py" claim "$T/attack.json" 1
    python3 "$ROOT/tests/bench/abuse/gen.py" claim "$T/cheap-a.json" 2 32 4 cache-first
    python3 "$ROOT/tests/bench/abuse/gen.py" claim "$T/cheap-b.json" 2 32 4 cache-again
fi
if want budget && start budget --tls-cert "$CRT" --tls-key "$KEY" --threads 2 --deadline-ms 0 \
        --inventory "$T/inv2000.json" --drain-delay-ms 0 && hook_ready "$PORT_budget" "$CA" 300; then
    P=$PORT_budget
    r1=$(python3 "$LOAD" queued "$CA" "$P" "$T/cheap-a.json")
    r2=$(python3 "$LOAD" queued "$CA" "$P" "$T/cheap-b.json")
    c1=$(costly_log cache-first cel_cost); c2=$(costly_log cache-again cel_cost)
    cond "budget: 128 costly selectors judged in full under the budget, no warning about it ($(jget "$r1" 'r["max_ms"]') ms, cel_cost ${c1:-none})" \
        "$(jget "$r1" 'all(not any("budget" in w for w in a["warnings"]) for a in r["answers"])') and ${c1:-0} > 1000000" "$r1"
    cond "budget: the same selectors again cost nothing (selector cache per snapshot: cel_cost ${c2:-none}, $(jget "$r2" 'r["max_ms"]') ms)" \
        "'${c2:-none}' == '0' and $(jget "$r2" '[a.get("allowed") for a in r["answers"]]') == $(jget "$r1" '[a.get("allowed") for a in r["answers"]]')" "$r2"
    r=$(python3 "$LOAD" queued "$CA" "$P" "$T/attack.json")
    cond "budget: the 32 x 32 attack allowed with the budget's warning ($(jget "$r" 'r["max_ms"]') ms)" \
        "$(jget "$r" 'all(a.get("allowed") is True and any("over the request'"'"'s budget of 10000000 CEL cost units" in w and "not fully checked" in w for w in a["warnings"]) for a in r["answers"])')" "$r"
    ca=$(costly_log costly-1 cel_cost)
    cond "budget: its log line says what it spent (cel_cost ${ca:-none}, just past 10000000)" \
        "${ca:-0} > 10000000 and ${ca:-0} < 10000000 + 15000000"
    cond "budget: counted in claimcheck_budget_overruns_total ($(metric "$P" claimcheck_budget_overruns_total)), not as a deadline overrun ($(metric "$P" claimcheck_deadline_overruns_total))" \
        "'$(metric "$P" claimcheck_budget_overruns_total)' == '1' and '$(metric "$P" claimcheck_deadline_overruns_total)' == '0'"
    stop "$PID_budget"
fi
# Fair service: 8 connections send costly claims back to back (distinct
# selectors, 32 x 32 each) while one connection sends the usual review
# for 4 s, on 2 workers: the costly ones go to the pool of their own
# (--costly-threads 1, the default), so the usual reviews keep their
# workers: every one answered, p99 under 300 ms (generous: a few ms here;
# with the attackers on the workers it was 1.7 s and more, the issue's
# 2.3 s).
if want budget; then
    for i in 1 2 3 4 5 6 7 8; do
        python3 "$ROOT/tests/bench/abuse/gen.py" claim "$T/att-$i.json" $((i + 10))
    done
fi
if want budget && start fair --tls-cert "$CRT" --tls-key "$KEY" --threads 2 \
        --inventory "$T/inv2000.json" --drain-delay-ms 0 && hook_ready "$PORT_fair" "$CA" 300; then
    r=$(python3 "$ROOT/tests/bench/abuse/fair.py" "$CA" "$PORT_fair" "$BODY" 4 8 "$T"/att-[1-8].json)
    cond "fair: usual reviews answered while 8 connections send costly claims ($(jget "$r" '"%d answered, %d failed, p50 %s ms, p99 %s ms; %d costly answered" % (r["normal"], r["failed"], r["p50_ms"], r["p99_ms"], r["attack"]["answered"])'))" \
        "$(jget "$r" 'r["normal"] >= 20 and r["failed"] == 0 and r["p99_ms"] < 300 * '$SLOW' and r["attack"]["answered"] >= 1')" "$r"
    stop "$PID_fair"
fi
lap budget

# ---- SIGTERM under load ------------------------------------------------------------
# 16 clients send reviews back to back; SIGTERM after 1.5 s. Each request
# is recorded (load.py sigterm): every request whose bytes were all written
# must get a complete response; connections refused or closed before the
# request was written are counted apart and are fine.
if want sigterm && start term --tls-cert "$CRT" --tls-key "$KEY" --threads 2 --drain-delay-ms 1000 \
        --grace-seconds 5; then
    python3 "$LOAD" sigterm "$CA" "$PORT_term" "$BODY" 16 10 >"$T/term.out" 2>&1 &
    LP=$!
    PIDS+=("$LP")
    sleep 1.5
    T0=$(date +%s.%N)
    kill -TERM "$PID_term"
    for i in $(seq 1 200); do kill -0 "$PID_term" 2>/dev/null || break; sleep 0.05; done
    T1=$(date +%s.%N)
    wait "$PID_term" 2>/dev/null
    rc=$?
    for i in $(seq 1 200); do kill -0 "$LP" 2>/dev/null || break; sleep 0.05; done
    r=$(tail -n 1 "$T/term.out")
    echo "   SIGTERM load: $r"
    cond "SIGTERM under load: clients ran and saw the drain ($(jget "$r" '"%d answered, %d with Connection: close, %d refused after, %d closed before written" % (r["answered"], r["answered_close"], r["refused"], r["closed_before_write"])'))" \
        "$(jget "$r" 'r["answered"] >= 200 and r["answered_close"] >= 16 and r["refused"] >= 1 and r["non200"] == 0')" "$r"
    # KNOWN SERVER BUG (open): drain() in webhook/main.c stops the daemon as
    # soon as no request is in flight; a connection accepted just before
    # (handshake done, request on its way) is closed with its request
    # unread. The report has the diagnosis and the patch.
    cond "SIGTERM under load: no written request lost ($(jget "$r" 'r["lost"]') lost)" \
        "$(jget "$r" 'r["lost"] == 0')" "SERVER BUG (drain closes fresh connections with their request unread): $(jget "$r" 'r["lost_detail"][:3]')"
    cond "SIGTERM under load: exit 0 within the grace period ($(py "print(round($T1 - $T0, 2))") s)" \
        "$rc == 0 and $T1 - $T0 < 5"
fi
lap sigterm

# ---- certificate rotation under load ----------------------------------------------
# Secret-volume layout (tls.crt -> ..data/tls.crt, ..data -> ..vN); 8
# client threads (half TLS 1.2, half 1.3) open new connections back to back
# while ..data moves v1 -> v2 -> a mismatched pair (v4 cert, v1 key) -> v3.
for v in v2 v3 v4; do certs "$T/$v"; done
mkdir -p "$T/secret"
cp -r "$T/v1" "$T/secret/..v1"
cp -r "$T/v2" "$T/secret/..v2"
cp -r "$T/v3" "$T/secret/..v3"
mkdir -p "$T/secret/..bad"
cp "$T/v4/tls.crt" "$T/secret/..bad/tls.crt"
cp "$T/v1/tls.key" "$T/secret/..bad/tls.key"
ln -s ..v1 "$T/secret/..data"
ln -s ..data/tls.crt "$T/secret/tls.crt"
ln -s ..data/tls.key "$T/secret/tls.key"
cat "$T"/v[1-4]/ca.crt >"$T/bundle.crt"
swap_secret() { # ..vN; prints the time just before the swap (a time
    # taken after it could follow the reload on a loaded machine, and put a
    # handshake of the new certificate in the old one's phase)
    date +%s.%N
    ln -s "$1" "$T/secret/..data_tmp" && mv -T "$T/secret/..data_tmp" "$T/secret/..data"
}
fp() { openssl x509 -in "$1" -outform DER 2>/dev/null | sha256sum | cut -d' ' -f1; }
if want rotation && start rot --tls-cert "$T/secret/tls.crt" --tls-key "$T/secret/tls.key" --threads 2 \
        --drain-delay-ms 0; then
    # 10 s: the v3 phase needs handshakes 1.5 s after the third swap (at
    # about 5.2 s) even when the sleeps below overrun on a loaded machine
    python3 "$LOAD" rotate "$T/bundle.crt" "$PORT_rot" 8 10 "$T/rot.lines" >"$T/rot.out" 2>&1 &
    LP=$!
    PIDS+=("$LP")
    sleep 1.5       # the generator's first handshakes (v1) before the swap
    S2=$(swap_secret ..v2); sleep 2
    SB=$(swap_secret ..bad); sleep 1.7
    S3=$(swap_secret ..v3)
    for i in $(seq 1 200); do kill -0 "$LP" 2>/dev/null || break; sleep 0.05; done
    r=$(tail -n 1 "$T/rot.out")
    # settle: the reload thread looks once a second
    RES=$(python3 - "$T/rot.lines" "$S2" "$SB" "$S3" "$(fp "$T/v1/tls.crt")" \
            "$(fp "$T/v2/tls.crt")" "$(fp "$T/v3/tls.crt")" "$(fp "$T/v4/tls.crt")" <<'PY'
import json, sys
lines = [l.split() for l in open(sys.argv[1]) if l.strip()]
s2, sb, s3 = map(float, sys.argv[2:5])
v1, v2, v3, bad = sys.argv[5:9]
name = {v1: "v1", v2: "v2", v3: "v3", bad: "mismatched"}
ok = [(float(a), name.get(fp, "?")) for a, b, res, fp in lines if res == "ok"]
settle = 1.5
def seen(lo, hi):
    return sorted({n for t, n in ok if lo <= t < hi})
print(json.dumps({
    "v1_phase": seen(0, s2), "v2_phase": seen(s2 + settle, sb),
    "bad_phase": seen(sb, s3), "v3_phase": seen(s3 + settle, 1e12),
    "all": sorted({n for _, n in ok}), "last": ok[-1][1] if ok else None,
    "rate": round(len(lines) / max(1e-9, float(lines[-1][1]) - float(lines[0][0])))
            if lines else 0}))
PY
)
    echo "   rotation: $r $RES"
    cond "rotation under load: $(jget "$r" 'r["connections"]') new connections ($(jget "$RES" 'r["rate"]')/s), zero failed handshakes" \
        "$(jget "$r" 'r["connections"] >= 200 and r["failures"] == 0')" "$r $(grep -m3 ' fail ' "$T/rot.lines")"
    cond "rotation under load: new connections get v2 after its swap, keep v2 through the mismatched pair, then v3" \
        "$(jget "$RES" 'r["v1_phase"] == ["v1"] and r["v2_phase"] == ["v2"] and r["bad_phase"] in (["v2"], ["v2", "v3"]) and r["v3_phase"] == ["v3"] and r["last"] == "v3"')" "$RES"
    cond "rotation under load: the mismatched pair never served, rejected and logged" \
        "'mismatched' not in $(jget "$RES" 'r["all"]') and $(grep -ac 'reload failed, keeping the old one' "$T/rot.log") >= 1"
    cond "rotation under load: two reloads logged" "$(grep -ac 'serving certificate reloaded' "$T/rot.log") == 2"
    stop "$PID_rot"
fi
lap rotation

# ---- apiserver faults ----------------------------------------------------------
# The webhook syncs from faultapi.py (page size 1: every list with two
# objects is paginated). Three reviews show which snapshot answers:
#   A  a claim of DeviceClass apionly.example.com (only the apiserver has it)
#      -> allowed
#   B  a claim of an unknown class -> denied, device-class-not-found
#   C  deploy/examples/admission-deny.json (template single-gpu -> class
#      gpu.nvidia.com, both from the apiserver) -> device-plugin-dra-conflict
# Readiness today: 503 until the first complete sync, then 200 for good
# (a stale snapshot keeps serving; its age is claimcheck_inventory_age_seconds).
mkdir -p "$T/sa"
cp "$CA" "$T/sa/ca.crt"
echo "faults-token-$$" >"$T/sa/token"
python3 "$ROOT/tests/e2e/webhook/review.py" resource.k8s.io ResourceClaim CREATE default rv-a \
    | sed 's/gpu\.example\.com/apionly.example.com/' >"$T/rv-a.json"
python3 "$ROOT/tests/e2e/webhook/review.py" resource.k8s.io ResourceClaim CREATE default rv-b \
    | sed 's/gpu\.example\.com/nosuch.example.com/' >"$T/rv-b.json"
python3 "$ROOT/tests/e2e/webhook/review.py" resource.k8s.io ResourceClaim CREATE default rv-l \
    | sed 's/gpu\.example\.com/late.example.com/' >"$T/rv-late.json"
APIPORT=$(free_port)
api_start() { # mode
    python3 "$HERE/faultapi.py" --port "$APIPORT" --cert "$CRT" --key "$KEY" \
        --token "faults-token-$$" --mode "$1" 2>>"$T/api.log" &
    API=$!
    PIDS+=("$API")
    local i
    for i in $(seq 1 100); do
        curl -s -o /dev/null --max-time 1 --cacert "$CA" "https://127.0.0.1:$APIPORT/_stats" && return 0
        sleep 0.05
    done
    bad "apiserver stand-in starts ($1)" "$(tail -n 3 "$T/api.log")"
    return 1
}
fault() { curl -s -o /dev/null --max-time 5 --cacert "$CA" -d "{\"mode\":\"$1\",\"delay\":3}" "https://127.0.0.1:$APIPORT/_fault"; }
api_stats() { curl -s --max-time 5 --cacert "$CA" "https://127.0.0.1:$APIPORT/_stats"; }
# snapshot NAME: the three reviews answer from the synced snapshot
snapshot() {
    local a b c
    a=$(review "$PK" "$T/rv-a.json")
    b=$(review "$PK" "$T/rv-b.json")
    c=$(review "$PK" "$ROOT/deploy/examples/admission-deny.json")
    if [[ $a == "True|"* && $b == "False|"*device-class-not-found* && $c == "False|"*device-plugin-dra-conflict* ]]; then
        ok "$1: answered from the snapshot (apiserver-only class clean, unknown class denied, template -> class conflict denied)"
    else
        bad "$1: answered from the snapshot: A=${a:0:80} B=${b:0:80} C=${c:0:80}"
    fi
}
# fast NAME: 10 reviews, each under 0.5 s
fast() {
    local i t worst=0
    for i in $(seq 1 10); do
        t=$(curl -s -o /dev/null -w '%{time_total}' --max-time 5 --cacert "$CA" --data-binary "@$BODY" "https://127.0.0.1:$PK/validate")
        worst=$(py "print(max($worst, ${t:-9}))")
    done
    cond "$1: reviews not slowed (worst of 10: ${worst} s)" "$worst < 0.5 * $SLOW"
}
ready() { code "$PK" /readyz; }
wait_ready() { # bounded: N tenths of a second
    local i
    for i in $(seq 1 "$1"); do [ "$(ready)" = 200 ] && return 0; sleep 0.1; done
    return 1
}

if want apiserver && api_start garbage && start kc --tls-cert "$CRT" --tls-key "$KEY" --in-cluster --apiserver "https://127.0.0.1:$APIPORT" \
        --sa-dir "$T/sa" --list-page-size 1 --drain-delay-ms 0 --threads 2; then
    PK=$PORT_kc
    sleep 1.5
    cond "apiserver garbage from the start: /readyz 503 (no complete sync)" "'$(ready)' == '503'"
    cond "apiserver garbage from the start: /validate still answers" "$(allowed "$PK" "$T/rv-a.json")"
    fault ok
    wait_ready 80
    cond "apiserver healthy: /readyz 200 after the first complete sync" "'$(ready)' == '200'"
    snapshot "apiserver healthy"

    fault slow
    sleep 1.5
    fast "apiserver slow (3 s per list and watch)"
    snapshot "apiserver slow"
    cond "apiserver slow: /readyz stays 200" "'$(ready)' == '200'"

    E0=$(metric "$PK" claimcheck_inventory_errors_total)
    fault garbage
    sleep 2.5
    snapshot "apiserver garbage"
    cond "apiserver garbage: /readyz stays 200" "'$(ready)' == '200'"
    E1=$(metric "$PK" claimcheck_inventory_errors_total)
    cond "apiserver garbage: errors counted ($E0 -> $E1)" "${E1:-0} > ${E0:-0}"

    fault gone
    sleep 0.5
    L0=$(api_stats)
    sleep 3
    L1=$(api_stats)
    snapshot "apiserver 410 loop"
    cond "apiserver 410 loop: /readyz stays 200" "'$(ready)' == '200'"
    # KNOWN SERVER BUG (open): webhook/cluster.c resource_main() relists at
    # once after a 410 (W_RELIST, do_list() == 1), without backoff: an
    # apiserver answering 410 is hammered with full lists. Bound: 2 lists a
    # second per resource (client-go's reflector backs off from 0.8 s).
    RL=$(py "import json; a=json.loads('''$L0''')['lists']; b=json.loads('''$L1''')['lists']; print(max(b[k] - a[k] for k in a))")
    cond "apiserver 410 loop: relists backed off (most lists of one resource in 3 s: $RL)" "${RL:-99} <= 6" \
        "SERVER BUG (no backoff on 410: relists as fast as the apiserver answers)"

    kill -KILL "$API"
    wait "$API" 2>/dev/null
    sleep 3
    snapshot "apiserver down"
    cond "apiserver down: /readyz stays 200" "'$(ready)' == '200'"
    AGE=$(metric "$PK" claimcheck_inventory_age_seconds)
    cond "apiserver down: snapshot age grows (${AGE} s)" "${AGE:-0} >= 2"
    api_start ok
    curl -s -o /dev/null --max-time 5 --cacert "$CA" -d '{"op":"add","resource":"deviceclasses","object":{"metadata":{"name":"late.example.com"}}}' \
        "https://127.0.0.1:$APIPORT/_control"
    for i in $(seq 1 $((150 * SLOW))); do
        [ "$(allowed "$PK" "$T/rv-late.json")" = True ] && break
        sleep 0.1
    done
    cond "apiserver back: resynced, a class added after the restart resolves ($(elapsed) s)" \
        "$(allowed "$PK" "$T/rv-late.json")"
    snapshot "apiserver back"
    AGE=$(metric "$PK" claimcheck_inventory_age_seconds)
    cond "apiserver back: /readyz 200, snapshot age fresh again (${AGE} s)" "'$(ready)' == '200' and ${AGE:-99} <= 2"
    stop "$PID_kc"
fi
lap apiserver

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
