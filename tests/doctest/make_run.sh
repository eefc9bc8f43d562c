#!/usr/bin/env bash
# tests/doctest/make_run.sh - README's `make run`, as a user runs it: it
# lints deploy/examples, starts the webhook (here on a free loopback port:
# LISTEN) and prints curl lines; every printed line must work, and still
# work after `make deploy-manifests`, which rewrites deploy/.certs for the
# cluster while the server reloads from there (it used to leave out
# 127.0.0.1: every printed curl line then failed). What make run says must
# be true: it used to pass on `the caBundle ... is on stdout` from a command
# whose stdout it dropped.
# Prints ok/FAIL lines and "N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
. "$top/tests/e2e/lib.sh"
tmp=$(mktemp -d)
pgid=""
cleanup() {
  [ -n "$pgid" ] && kill -TERM -- "-$pgid" 2>/dev/null
  wait 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT

for t in curl:curl setsid:util-linux openssl:openssl; do
  have_pkg "${t#*:}" command -v "${t%%:*}" \
    || { echo "skipped: make run (${t%%:*} not installed: apt-get install ${t#*:})"
         echo "0 passed, 0 failed, 1 skipped"; exit 0; }
done
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# its own process group, so the server make starts is stopped with it
LISTEN=127.0.0.1:$port setsid make --no-print-directory run >"$tmp/run.log" 2>&1 &
pgid=$!

# the printed curl lines, once the server is up
curls() { sed -n 's/^  \(curl .*\)$/\1/p' "$tmp/run.log"; }
up=0
end=$((SECONDS + 120))    # make run may have to build first
while [ $SECONDS -lt $end ]; do
  if grep -q "^  curl .*/metrics" "$tmp/run.log" \
     && curl -sk -o /dev/null --max-time 2 "https://127.0.0.1:$port/healthz"; then
    up=1; break
  fi
  kill -0 "$pgid" 2>/dev/null || break
  sleep 0.2
done
[ $up = 1 ] && ok "make run: the webhook serves on https://127.0.0.1:$port" \
  || { bad "make run did not start (see below)"; tail -20 "$tmp/run.log"; echo "$pass passed, $fail failed"; exit 1; }
grep -q '^== claimcheck lint deploy/examples' "$tmp/run.log" \
  && grep -q 'error\[selector-no-device\] ResourceClaimTemplate ml/huge-gpu' "$tmp/run.log" \
  && ok "make run: lints deploy/examples with the example inventory" \
  || { bad "make run: no lint of deploy/examples with the inventory"; head -20 "$tmp/run.log"; }
grep -q '^  SANs: .*DNS:localhost, IP:127.0.0.1$' "$tmp/run.log" \
  && ok "make run: its certificate's SANs (printed) have localhost and 127.0.0.1" \
  || { bad "make run: no SANs line with localhost and 127.0.0.1"; head -12 "$tmp/run.log"; }
grep -i 'stdout' "$tmp/run.log" >"$tmp/claims" \
  && bad "make run claims output on stdout it drops: $(head -n 1 "$tmp/claims")" \
  || ok "make run: no claim about a caBundle on stdout (run.sh drops certs' stdout)"
n=$(curls | wc -l)
[ "$n" -ge 3 ] && ok "make run prints $n curl lines" || bad "make run printed $n curl lines"

# try ROUND: run every printed line as printed
try() {
  local line out
  while IFS= read -r line; do
    out=$(bash -c "$line" 2>&1)
    local rc=$?
    case "$line" in
      *admission-deny*) want='"allowed":false' ;;
      *admission-warn*) want='"warnings":\[' ;;
      */metrics*) want='^claimcheck_' ;;
      *) want='.' ;;
    esac
    if [ $rc -eq 0 ] && grep -qE -- "$want" <<<"$out"; then
      ok "$1: ${line##*-d @}"
    else
      bad "$1: '$line' (exit $rc): $(head -n 1 <<<"$out")"
    fi
  done < <(curls)
}
try "printed curl line works"
make --no-print-directory deploy-manifests >"$tmp/render.log" 2>&1 || { bad "make deploy-manifests"; cat "$tmp/render.log"; }
build/claimcheck-webhook certs --check deploy/.certs --service claimcheck --namespace claimcheck \
  >"$tmp/check.out" 2>&1
grep -q '^  SANs: .*DNS:localhost, IP:127.0.0.1$' "$tmp/check.out" \
  && ok "make deploy-manifests: deploy/.certs/tls.crt keeps localhost and 127.0.0.1" \
  || { bad "make deploy-manifests: deploy/.certs/tls.crt without localhost, 127.0.0.1"; head -6 "$tmp/check.out"; }
# the server checks its certificate files every second: wait for the new one
new=$(openssl x509 -noout -fingerprint -sha256 -in deploy/.certs/tls.crt 2>/dev/null)
served=""
end=$((SECONDS + 10))
while [ $SECONDS -lt $end ]; do
  served=$(openssl s_client -connect "127.0.0.1:$port" </dev/null 2>/dev/null \
           | openssl x509 -noout -fingerprint -sha256 2>/dev/null)
  [ -n "$new" ] && [ "$served" = "$new" ] && break
  sleep 0.5
done
[ -n "$new" ] && [ "$served" = "$new" ] && ok "make run's server reloaded make deploy-manifests' certificate" \
  || bad "make run's server still serves the old certificate (or openssl is missing)"
try "after make deploy-manifests, printed curl line still works"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
