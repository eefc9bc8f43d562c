# hook.sh - what every script that runs claimcheck-webhook shares (the
# webhook and server-fault suites, the webhook and soak benchmarks): a temp
# dir with a private copy of the binary, the processes started and their
# cleanup on exit, a webhook on a free port, readiness, free ports, RSS.
# Source it after `set -u` with BIN set to the binary; then call
# `hook_init NAME || exit 1`.

# hook_init NAME: T=/tmp/claimcheck-NAME.XXXXXX (kept with KEEP_TMP=1),
# PIDS=() killed on exit, BIN copied into T (a concurrent `make` relinking
# build/ must not pull the binary out from under a running test). Returns
# 1, saying why, when BIN is missing.
hook_init() {
    T=$(mktemp -d "/tmp/claimcheck-$1.XXXXXX")
    [ -n "${KEEP_TMP:-}" ] && echo "temp dir $T"
    PIDS=()
    trap hook_cleanup EXIT
    [ -x "$BIN" ] || { echo "missing $BIN (run make)"; return 1; }
    cp "$BIN" "$T/claimcheck-webhook" && BIN=$T/claimcheck-webhook
}

hook_cleanup() {
    local p
    for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
    sleep 0.3
    for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
    [ -n "${KEEP_TMP:-}" ] || rm -rf "$T"
}

# hook_start NAME ARGS...: `serve --listen 127.0.0.1:0 ARGS...` with its log
# in $T/NAME.log; sets PID_NAME, and PORT_NAME from the "listening on" line.
# Returns 1 when it does not come up within 5 s.
hook_start() {
    local name=$1 i port="" pid
    shift
    "$BIN" serve --listen 127.0.0.1:0 "$@" 2>"$T/$name.log" &
    pid=$!
    PIDS+=("$pid")
    eval "PID_$name=$pid"
    for i in $(seq 1 100); do
        port=$(grep -ao '"listening on https://127.0.0.1:[0-9]*' "$T/$name.log" 2>/dev/null | grep -o '[0-9]*$')
        [ -n "$port" ] && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
    eval "PORT_$name=$port"
    [ -n "$port" ]
}

# hook_ready PORT CA [TRIES]: waits (0.1 s a try, default 600) for /readyz
hook_ready() {
    local i
    for i in $(seq 1 "${3:-600}"); do
        curl -s --max-time 1 --cacert "$2" "https://127.0.0.1:$1/readyz" | grep -q ok && return 0
        sleep 0.1
    done
    return 1
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
rss_kb() { awk '/VmRSS/ {print $2}' "/proc/$1/status" 2>/dev/null; }
