#!/bin/bash
# tests/bench/soak/run.sh - soak of claimcheck-webhook (the hardening issue's
# "Soak"): measures capacity with a short full-speed wrk run of the request
# mix (same machine, same run), then runs wrk paced at half that rate for
# SOAK_SECONDS (default 600) as consecutive SAMPLE_SECONDS (60) runs, and
# prints one row per sample: requests, rate, p50/p99/p99.9, errors, server
# RSS. The mix (mix.py): Pod allowed, Pod denied, Pod with warnings,
# Deployment, ResourceClaim (CEL selector over the inventory's GPUs),
# ResourceClaimTemplate, DeviceClass, a DELETE, an unchecked kind; every
# review has its own uid and name, one kind a new spec each time. The
# webhook has an inventory of NODES (1000) nodes x 4 GPUs. Checks, over the
# paced samples:
#   zero errors   no socket error, no non-2xx, every body an AdmissionReview
#                 answer (wrk's response() callback), decisions as expected
#                 before the run and in the same shares after it (metrics)
#   RSS           growth < 5 % from the end of the first sample (warm-up)
#                 to the end of the last
#   p99 steady    every later sample's p99 <= 1.5 x the first sample's p99,
#                 or <= the first's + 1 ms (sub-millisecond jitter)
#   pacing        the achieved rate >= 90 % of the target in every sample
# 127.0.0.1 only; not part of make test. SOAK_SECONDS=120 for a short run.
# Prints the table, then "soak: PASS" or "soak: FAIL (...)"; exits 1 on
# failure.
set -u
cd "$(dirname "$0")/../../.." || exit 1
ROOT=$PWD
BIN=${CLAIMCHECK_WEBHOOK:-$ROOT/build/claimcheck-webhook}
HERE=$ROOT/tests/bench/soak
SOAK_SECONDS=${SOAK_SECONDS:-600}
SAMPLE=${SAMPLE_SECONDS:-60}
CAP_SECONDS=${CAP_SECONDS:-10}
NODES=${NODES:-1000}
THREADS=${THREADS:-2}           # server worker threads
CONNS=${CONNS:-32}              # paced wrk connections (-t2)
command -v wrk >/dev/null || { echo "wrk not installed (apt-get install wrk)"; exit 1; }
source "$ROOT/tests/e2e/hook.sh"
hook_init soak || exit 1
NSAMPLES=$(( (SOAK_SECONDS + SAMPLE - 1) / SAMPLE ))
[ "$NSAMPLES" -ge 2 ] || { echo "SOAK_SECONDS must cover at least 2 samples of $SAMPLE s"; exit 1; }

"$BIN" certs --service webhook --namespace default --out "$T/c" --ip 127.0.0.1 >/dev/null 2>&1 || exit 1
python3 "$HERE/mix.py" "$T/mix" || exit 1
python3 "$ROOT/tests/bench/webhook/gen.py" inventory "$T/inv.json" "$NODES" || exit 1

# ---- the wrk script ------------------------------------------------------------
# init(args): args[1] = requests per second for this thread, 0 = unpaced.
# delay() books the next slot of the thread's schedule (LuaJIT ffi clock);
# request() takes the mix in turn and fills @@N@@ with "<thread>-<n>".
{
    echo 'local files = {'
    cut -f1 "$T/mix/expect.tsv" | sed "s#^#  \"$T/mix/#; s#\$#\",#"
    echo '}'
    cat <<'LUA'
local ffi = require("ffi")
ffi.cdef[[
typedef struct { long tv_sec; long tv_nsec; } soak_timespec;
int clock_gettime(int, soak_timespec *);
]]
local ts = ffi.new("soak_timespec")
local function now_ms()
  ffi.C.clock_gettime(1, ts)
  return tonumber(ts.tv_sec) * 1000 + tonumber(ts.tv_nsec) / 1e6
end
local templates = {}
for i, f in ipairs(files) do
  local h = io.open(f, "r")
  templates[i] = h:read("*a")
  h:close()
end
local threads = {}
local tid = 0
function setup(thread)
  tid = tid + 1
  thread:set("tid", tid)
  table.insert(threads, thread)
end
function init(args)
  interval = 0
  local rate = tonumber(args[1] or "0") or 0
  if rate > 0 then interval = 1000 / rate end
  n, idx, bad, next_due = 0, 0, 0, nil
  headers = { ["Content-Type"] = "application/json" }
end
function request()
  n = n + 1
  idx = idx % #templates + 1
  local body = string.gsub(templates[idx], "@@N@@", tid .. "-" .. n)
  return wrk.format("POST", "/validate?timeout=10s", headers, body)
end
function delay()
  if interval == 0 then return 0 end
  local now = now_ms()
  if next_due == nil or next_due < now - 1000 then next_due = now end
  next_due = next_due + interval
  local d = next_due - now
  if d < 0 then d = 0 end
  return math.floor(d)
end
function response(status, hdrs, body)
  if status ~= 200 or not string.find(body, '"response":{"uid":', 1, true) then
    bad = bad + 1
  end
end
function done(summary, latency, requests)
  local nbad = 0
  for _, t in ipairs(threads) do nbad = nbad + (t:get("bad") or 0) end
  local e = summary.errors
  io.write(string.format(
    "SOAK requests=%d seconds=%.3f p50=%d p99=%d p999=%d max=%d " ..
    "connect=%d read=%d write=%d status=%d timeout=%d bad=%d\n",
    summary.requests, summary.duration / 1e6, latency:percentile(50),
    latency:percentile(99), latency:percentile(99.9), latency.max,
    e.connect, e.read, e.write, e.status, e.timeout, nbad))
end
LUA
} >"$T/mix.lua"

# ---- the server ---------------------------------------------------------------------
hook_start hook --tls-cert "$T/c/tls.crt" --tls-key "$T/c/tls.key" \
    --threads "$THREADS" --inventory "$T/inv.json" --drain-delay-ms 0 \
    || { echo "claimcheck-webhook did not come up"; tail -n 5 "$T/hook.log"; exit 1; }
PORT=$PORT_hook
HP=$PID_hook
URL="https://127.0.0.1:$PORT/validate?timeout=10s"
hook_ready "$PORT" "$T/c/ca.crt"
metrics() { curl -s --max-time 5 --cacert "$T/c/ca.crt" "https://127.0.0.1:$PORT/metrics"; }
FAILS=()
# every kind answers as expected before the run
while IFS=$'\t' read -r f want; do
    sed 's/@@N@@/0-0/g' "$T/mix/$f" >"$T/one.json"
    curl -s --max-time 10 --cacert "$T/c/ca.crt" --data-binary "@$T/one.json" \
        -H 'Content-Type: application/json' "$URL" >"$T/one.out"
    python3 "$HERE/mix.py" check "$want" "$f" "$T/one.out" || FAILS+=("$f not $want")
done <"$T/mix/expect.tsv"
echo "machine: $(nproc) cores; server threads $THREADS; inventory $(metrics | awk '$1 == "claimcheck_inventory_objects" {print $2}') objects ($NODES nodes x 4 GPUs); mix of $(wc -l <"$T/mix/expect.tsv") kinds"

# parse a SOAK line into R_* variables
parse() {
    local line
    line=$(grep '^SOAK ' <<<"$1" | tail -n 1)
    [ -n "$line" ] || { echo "wrk gave no result: $(tail -n 3 <<<"$1")"; return 1; }
    eval "$(sed 's/^SOAK //; s/\([a-z0-9]*\)=\([0-9.]*\)/R_\1=\2/g' <<<"$line")"
    R_errors=$((R_connect + R_read + R_write + R_status + R_timeout + R_bad))
    R_rate=$(python3 -c "print(round($R_requests / $R_seconds))")
}
ms() { python3 -c "print('%.2f' % ($1 / 1000))"; }

# ---- capacity -----------------------------------------------------------------------
wrk -t2 -c64 -d2s -s "$T/mix.lua" "$URL" -- 0 >/dev/null 2>&1
out=$(wrk -t2 -c64 -d"${CAP_SECONDS}s" -s "$T/mix.lua" "$URL" -- 0 2>&1)
parse "$out" || exit 1
CAP=$R_rate
TARGET=$((CAP / 2))
PER_THREAD=$(python3 -c "print($TARGET / 2)")
printf 'capacity: %s req/s (wrk -t2 -c64, %ss, unpaced, p99 %s ms, errors %s); soak at %s req/s (half), wrk -t2 -c%s, %s x %ss\n' \
    "$CAP" "$CAP_SECONDS" "$(ms "$R_p99")" "$R_errors" "$TARGET" "$CONNS" "$NSAMPLES" "$SAMPLE"

# ---- soak --------------------------------------------------------------------------------
printf '%-7s %10s %8s %8s %8s %8s %8s %7s %10s\n' sample requests 'req/s' 'p50 ms' 'p99 ms' 'p99.9 ms' 'max ms' errors 'RSS KiB'
ROWS=()
for s in $(seq 1 "$NSAMPLES"); do
    out=$(wrk -t2 -c"$CONNS" -d"${SAMPLE}s" -s "$T/mix.lua" "$URL" -- "$PER_THREAD" 2>&1)
    if ! kill -0 "$HP" 2>/dev/null; then
        echo "claimcheck-webhook exited during sample $s:"; tail -n 5 "$T/hook.log"
        FAILS+=("server exited"); break
    fi
    parse "$out" || { FAILS+=("sample $s: no wrk result"); break; }
    rss=$(rss_kb "$HP")
    printf '%-7s %10s %8s %8s %8s %8s %8s %7s %10s\n' "$s" "$R_requests" "$R_rate" \
        "$(ms "$R_p50")" "$(ms "$R_p99")" "$(ms "$R_p999")" "$(ms "$R_max")" "$R_errors" "$rss"
    ROWS+=("$s $R_requests $R_rate $R_p99 $R_errors $rss")
done

# ---- checks ------------------------------------------------------------------------------
python3 - "$TARGET" "${ROWS[@]}" >"$T/checks" <<'PY'
import sys
target = int(sys.argv[1])
rows = [list(map(float, r.split())) for r in sys.argv[2:]]
if len(rows) < 2:
    print("FAIL fewer than 2 samples")
    sys.exit()
errors = sum(r[4] for r in rows)
rss0, rss1 = rows[0][5], rows[-1][5]
growth = (rss1 - rss0) / rss0 * 100
p0 = rows[0][3]
worst = max(r[3] for r in rows[1:])
bound = max(1.5 * p0, p0 + 1000)
slowest = min(r[2] for r in rows)
def line(ok, text):
    print(("ok   " if ok else "FAIL ") + text)
line(errors == 0, "zero errors (%d)" % errors)
line(growth < 5, "RSS growth %.1f %% (%d -> %d KiB, end of sample 1 -> end)"
     % (growth, rss0, rss1))
line(worst <= bound, "p99 steady: worst later p99 %.2f ms <= %.2f ms "
     "(max(1.5 x %.2f, %.2f + 1))" % (worst / 1000, bound / 1000,
                                         p0 / 1000, p0 / 1000))
line(slowest >= 0.9 * target, "pacing: slowest sample %d req/s >= 90 %% of "
     "%d" % (slowest, target))
PY
# decision shares over everything the server answered (1 kind in 9 denied)
metrics >"$T/metrics.txt"
python3 - "$T/metrics.txt" >>"$T/checks" <<'PY'
import re, sys
tot = {}
for ln in open(sys.argv[1]):
    m = re.match(r'claimcheck_admission_requests_total\{.*decision="(\w+)"\} (\d+)', ln)
    if m:
        tot[m.group(1)] = tot.get(m.group(1), 0) + int(m.group(2))
n = sum(tot.values())
deny = tot.get("deny", 0) / n if n else 0
ok = abs(deny - 1 / 9) < 0.01 and tot.get("error", 0) == 0
print(("ok   " if ok else "FAIL ") + "decisions: %s (deny share %.3f, 1/9 expected)"
      % (", ".join("%s %d" % kv for kv in sorted(tot.items())), deny))
PY
sed 's/^/  /' "$T/checks"
while read -r st rest; do
    [ "$st" = FAIL ] && FAILS+=("$rest")
done <"$T/checks"
if [ ${#FAILS[@]} -eq 0 ]; then
    echo "soak: PASS"
else
    printf 'soak: FAIL (%s)\n' "$(IFS=';'; echo "${FAILS[*]}")"
    exit 1
fi
