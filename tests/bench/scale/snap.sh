#!/usr/bin/env bash
# snap.sh - in-cluster snapshots under slice updates (issue 17 item 3):
# claimcheck-webhook --in-cluster against fakeapi.py serving gen.py's
# inventory of N nodes (Nodes, ResourceSlices, classes, templates), then
#  1. DURATION seconds (default 20) of reviews alone: Pods with a claim from a
#     template (gen.py's pods.yaml), REVIEWS a second (default 20), one
#     keep-alive connection (snap.py reviews);
#  2. the same while fakeapi sends RATE (default 100) ResourceSlice
#     MODIFIED events a second (its "churn" control), the slices in turn.
# It prints, per size (SIZES, default "2000"; the issue's size is 20000):
#   rss_cluster_mb, rss_files_mb: the webhook's RSS synced from the
#     cluster, and with the same objects from --inventory files;
#   snapshots: published while the updates ran; cpu_ms: CPU per rebuild
#     (the builder thread); behind_mean_s, behind_max_s: how far the
#     published snapshot is behind the newest event sent (at each publish
#     and just before the next); applied: events the snapshots took in;
#   p99_quiet_ms, p99_busy_ms, p99_ratio: the reviews' p99 without and
#     with the updates, and their ratio.
# Figures come from the webhook's debug log lines ("snapshot of ...",
# "snapshot published in ...") and fakeapi's /_stats. Times are of this
# machine: `uptime` is printed with each size; no figure is checked.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
here=$top/tests/bench/scale
SIZES=${SIZES:-2000}
SECONDS_RUN=${DURATION:-20}
RATE=${RATE:-100}
REVIEWS=${REVIEWS:-20}
cd "$top" || exit 1
B=${BUILD:-build}    # another build directory: BUILD=dir (make BUILD=dir)
BIN=${CLAIMCHECK_WEBHOOK:-$top/$B/claimcheck-webhook}   # or another binary
[ -x "$BIN" ] || make -s BUILD="$B" all >/dev/null || exit 1
source "$top/tests/e2e/hook.sh"
hook_init snap || exit 1
"$BIN" certs --service webhook --namespace default --out "$T/c" --ip 127.0.0.1 >/dev/null 2>&1 || exit 1
mkdir -p "$T/sa"
cp "$T/c/ca.crt" "$T/sa/ca.crt"
echo "bench-token" >"$T/sa/token"

# up NAME LOG: waits (up to 10 minutes) for /readyz on the port LOG names
up() {
  local i port=""
  for i in $(seq 1 6000); do
    port=$(grep -ao '"listening on https://127.0.0.1:[0-9]*' "$2" 2>/dev/null | grep -o '[0-9]*$')
    [ -n "$port" ] && hook_ready "$port" "$T/c/ca.crt" 1 && { echo "$port"; return 0; }
    kill -0 "$1" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

for n in $SIZES; do
  d=$T/$n
  mkdir -p "$d"
  echo "-- $n nodes"
  python3 "$here/gen.py" "$d" "$n" 200 || exit 1
  cat "$d"/inventory/*.yaml >"$d/objects.yaml"
  # the same objects from files: the memory to compare with
  invargs=()
  for f in "$d"/inventory/*.yaml; do invargs+=(--inventory "$f"); done
  "$BIN" serve --listen 127.0.0.1:0 --tls-cert "$T/c/tls.crt" \
    --tls-key "$T/c/tls.key" "${invargs[@]}" 2>"$d/files.log" &
  pid=$!; PIDS+=("$pid")
  up "$pid" "$d/files.log" >/dev/null || { echo "file mode did not come up"; tail -n 3 "$d/files.log"; exit 1; }
  sleep 1
  rss_files=$(( $(rss_kb "$pid") / 1024 ))
  kill -TERM "$pid"; wait "$pid" 2>/dev/null

  rm -f "$d/api.port"
  python3 "$top/tests/e2e/webhook/fakeapi.py" --port 0 --port-file "$d/api.port" \
    --cert "$T/c/tls.crt" --key "$T/c/tls.key" --token bench-token \
    --objects "$d/objects.yaml" 2>"$d/fakeapi.log" &
  PIDS+=("$!")
  for i in $(seq 1 6000); do [ -s "$d/api.port" ] && break; sleep 0.1; done
  api=$(cat "$d/api.port")
  "$BIN" serve --listen 127.0.0.1:0 --tls-cert "$T/c/tls.crt" \
    --tls-key "$T/c/tls.key" --in-cluster --apiserver "https://127.0.0.1:$api" \
    --sa-dir "$T/sa" 2>"$d/hook.log" &
  pid=$!; PIDS+=("$pid")
  port=$(up "$pid" "$d/hook.log") || { echo "in-cluster mode did not come up"; tail -n 3 "$d/hook.log"; exit 1; }
  sleep 2
  rss_cluster=$(( $(rss_kb "$pid") / 1024 ))
  python3 "$here/snap.py" reviews "$port" "$T/c/ca.crt" "$d/pods.yaml" \
    "$SECONDS_RUN" "$REVIEWS" "$d/quiet" || exit 1
  t0=$(date +%s.%N)
  curl -sS --max-time 5 --cacert "$T/c/ca.crt" -d "{\"op\":\"churn\",\"resource\":\"resourceslices\",\"rate\":$RATE,\"seconds\":$SECONDS_RUN}" \
    "https://127.0.0.1:$api/_control" >/dev/null || exit 1
  python3 "$here/snap.py" reviews "$port" "$T/c/ca.crt" "$d/pods.yaml" \
    "$SECONDS_RUN" "$REVIEWS" "$d/busy" || exit 1
  t1=$(date +%s.%N)
  sleep 5     # the last events reach a snapshot (or show they did not)
  curl -sS --max-time 5 --cacert "$T/c/ca.crt" "https://127.0.0.1:$api/_stats" >"$d/stats.json"
  echo "rss_cluster_mb $rss_cluster"
  echo "rss_files_mb $rss_files"
  python3 "$here/snap.py" report "$d/hook.log" "$d/stats.json" "$t0" "$t1" "$d/quiet" "$d/busy"
  echo "load: $(uptime | sed 's/.*load average/load average/')"
  kill -TERM "$pid"; wait "$pid" 2>/dev/null
  [ -n "${KEEP_TMP:-}" ] || rm -rf "$d"
done
