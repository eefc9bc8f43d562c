# tests/e2e/audit/lib.sh - the stand-in apiserver (tests/e2e/webhook/
# fakeapi.py) for the suites that audit a planted cluster: golden.sh's
# audit rule folders and tests/e2e/audit/run.sh. Source it after `set -u`
# with $top set to the repository; every server started is stopped by
# fakeapi_stop_all (call it from the caller's EXIT trap).
#   audit_certs DIR          CA + serving cert for 127.0.0.1 into DIR
#   fakeapi_start DIR OBJECTS [fakeapi args]  starts one, sets FAKEAPI_URL
#                            (https://127.0.0.1:PORT) and FAKEAPI_PID;
#                            non-zero when it did not come up in 10 s
#   fakeapi_stop             stops the last one started
#   kubeconfig_write FILE URL CA USER-YAML   a one-context kubeconfig
FAKEAPI_PIDS=()
audit_certs() {
  mkdir -p "$1"
  "$top/build/claimcheck-webhook" certs --service fakeapi --namespace test \
      --ip 127.0.0.1 --dns localhost --out "$1" --force >/dev/null 2>&1
}
fakeapi_start() {
  local dir=$1 objects=$2 i
  shift 2
  rm -f "$dir/port"
  python3 "$top/tests/e2e/webhook/fakeapi.py" --cert "$dir/tls.crt" \
      --key "$dir/tls.key" --objects "$objects" --port-file "$dir/port" \
      "$@" 2>>"$dir/fakeapi.log" &
  FAKEAPI_PID=$!
  FAKEAPI_PIDS+=("$FAKEAPI_PID")
  for i in $(seq 1 100); do
    [ -s "$dir/port" ] && break
    kill -0 "$FAKEAPI_PID" 2>/dev/null || return 1
    sleep 0.1
  done
  [ -s "$dir/port" ] || return 1
  FAKEAPI_URL="https://127.0.0.1:$(cat "$dir/port")"
}
fakeapi_stop() {
  kill "$FAKEAPI_PID" 2>/dev/null
  wait "$FAKEAPI_PID" 2>/dev/null
}
fakeapi_stop_all() {
  local p
  for p in "${FAKEAPI_PIDS[@]}"; do kill "$p" 2>/dev/null; done
  wait 2>/dev/null
}
kubeconfig_write() {
  cat >"$1" <<KC
apiVersion: v1
kind: Config
current-context: test
clusters:
- name: test
  cluster:
    server: "$2"
    certificate-authority: "$3"
users:
- name: test
  user:
$4
contexts:
- name: test
  context: {cluster: test, user: test}
KC
}
