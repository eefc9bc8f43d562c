#!/bin/bash
# tests/e2e/webhook/run.sh - end-to-end tests of build/claimcheck-webhook:
# routes and methods, AdmissionReview for every checked kind and operation,
# deny/warn mapping, malformed and oversized bodies, the validation
# deadline, certificate rotation under an open keep-alive connection (and a
# bad pair kept out), client certificates, SIGTERM with a request in
# flight, and the in-cluster list/watch against fakeapi.py (list, chunked
# watch, 410 Gone, dropped connection), and the target version and feature
# gates learnt from the apiserver (GET /version and /metrics; -k and -g
# override, a 403 on /metrics falls back to the defaults, an upgrade is
# picked up). Binds 127.0.0.1 only; every loop is
# bounded; everything started here is killed on exit.
# Prints "N passed, N failed" last; exits 1 on any failure.
set -u
cd "$(dirname "$0")/../../.."
ROOT=$PWD
BIN=${CLAIMCHECK_WEBHOOK:-$ROOT/build/claimcheck-webhook}
HERE=$ROOT/tests/e2e/webhook
PASS=0
FAIL=0
source "$ROOT/tests/e2e/hook.sh"

ok() { PASS=$((PASS + 1)); echo "ok   $1"; }
bad() { FAIL=$((FAIL + 1)); echo "FAIL $1${2:+: $2}"; }
check() { # name, then a command that must succeed
    local name=$1
    shift
    if "$@" >/dev/null 2>&1; then ok "$name"; else bad "$name"; fi
}
has() { grep -q -- "$2" <<<"$1"; }

hook_init e2e || { echo "0 passed, 1 failed"; exit 1; }
# ---- certificates ------------------------------------------------------
gen_certs() { # dir
    mkdir -p "$1"
    if ! "$BIN" certs --service webhook --namespace default --out "$1" \
            --ip 127.0.0.1 --dns localhost >/dev/null 2>"$1/gen.log"; then
        # fallback: the openssl CLI (EC P-256, IP SAN)
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 \
            -nodes -keyout "$1/ca.key" -out "$1/ca.crt" -days 2 \
            -subj /CN=e2e-ca >/dev/null 2>&1
        openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
            -keyout "$1/tls.key" -out "$1/tls.csr" -subj /CN=webhook \
            >/dev/null 2>&1
        printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >"$1/ext"
        openssl x509 -req -in "$1/tls.csr" -CA "$1/ca.crt" -CAkey \
            "$1/ca.key" -CAcreateserial -out "$1/tls.crt" -days 2 \
            -extfile "$1/ext" >/dev/null 2>&1
    fi
}

# Secret-volume layout: tls.crt -> ..data/tls.crt, ..data -> ..v1
gen_certs "$T/v1"
gen_certs "$T/v2"
gen_certs "$T/v3"
mkdir -p "$T/secret"
cp -r "$T/v1" "$T/secret/..v1"
ln -s ..v1 "$T/secret/..data"
ln -s ..data/tls.crt "$T/secret/tls.crt"
ln -s ..data/tls.key "$T/secret/tls.key"
swap_secret() { # version dir name under secret/
    ln -s "$1" "$T/secret/..data_tmp" && mv -T "$T/secret/..data_tmp" "$T/secret/..data"
}

# ---- server helpers ----------------------------------------------------

# req PORT CA METHOD PATH [curl args...]: prints "BODY\nSTATUS"
req() {
    local port=$1 ca=$2 method=$3 path=$4
    shift 4
    curl -sS --max-time 10 --cacert "$ca" -X "$method" \
        -w '\n%{http_code}' "$@" "https://127.0.0.1:$port$path" 2>&1
}
status_of() { tail -n1 <<<"$1"; }
body_of() { sed '$d' <<<"$1"; }
post() { # port ca file -> body\nstatus
    req "$1" "$2" POST "/validate?timeout=10s" -H 'Content-Type: application/json' --data-binary "@$3"
}
json_get() { # json, python expression on r
    python3 -c 'import json,sys; r=json.loads(sys.stdin.read()); print(eval(sys.argv[1]))' "$2" <<<"$1" 2>/dev/null
}

CA1=$T/v1/ca.crt
mkdir -p "$T/inv"
cp "$HERE/inventory.yaml" "$T/inv/inventory.yaml"

if ! hook_start main --tls-cert "$T/secret/tls.crt" --tls-key "$T/secret/tls.key" \
        --inventory "$T/inv" --threads 2 --grace-seconds 10; then
    bad "server starts" "$(cat "$T/main.log")"
    echo "$PASS passed, $FAIL failed"
    exit 1
fi
ok "server starts (port $PORT_main)"
P=$PORT_main

# ---- flags (validate/opt.c through serve's option table) -----------------
flag_err() { # expected stderr text, then serve's arguments: exit 2 and the text
    local want=$1 out rc
    shift
    out=$("$BIN" serve "$@" 2>&1 >/dev/null); rc=$?
    [ $rc = 2 ] && grep -qF -- "$want" <<<"$out"
}
check "unknown flag: did you mean" flag_err "unknown option '--thread' (did you mean '--threads'?)" --thread 3
check "number out of range" flag_err "--threads needs 1..256" --threads 0 --tls-cert a --tls-key b
check "not a number" flag_err "--deadline-ms needs a number up to 600000, not 'x'" --deadline-ms x
check "value missing" flag_err "option '--listen' needs a value" --tls-cert a --tls-key b --listen
check "flag with a value" flag_err "option '--in-cluster' takes no value" --in-cluster=yes
check "--mode" flag_err "--mode must be 'enforce' or 'warn', not 'audit'" --mode=audit
check "required pair" flag_err "--tls-cert and --tls-key are required" --tls-cert a
check "operand" flag_err "unexpected argument 'extra'" extra
check "serve --help lists every option" bash -c "\"$BIN\" serve --help | grep -q -- '--grace-seconds S'"

# ---- routes --------------------------------------------------------------
r=$(req $P $CA1 GET /healthz); check "GET /healthz 200" test "$(status_of "$r")" = 200
r=$(req $P $CA1 GET /readyz); check "GET /readyz 200" test "$(status_of "$r")" = 200
r=$(req $P $CA1 GET /metrics)
check "GET /metrics 200" test "$(status_of "$r")" = 200
check "metrics has latency histogram" has "$r" 'claimcheck_admission_duration_seconds_bucket{le="0.0001"}'
check "metrics has cert not-after" has "$r" 'claimcheck_tls_cert_not_after_timestamp_seconds [1-9]'
check "metrics has inventory objects" has "$r" 'claimcheck_inventory_objects [1-9]'
r=$(req $P $CA1 GET /validate)
check "GET /validate 405" test "$(status_of "$r")" = 405
check "405 has JSON error" json_get "$(body_of "$r")" 'r["error"]["code"]'
r=$(req $P $CA1 GET /validate -D -); check "405 Allow: POST" has "$r" '^[Aa]llow: POST'
r=$(req $P $CA1 POST /healthz -d x); check "POST /healthz 405" test "$(status_of "$r")" = 405
r=$(req $P $CA1 POST /metrics -D - -d x); check "405 Allow: GET, HEAD" has "$r" '^[Aa]llow: GET, HEAD'
r=$(req $P $CA1 HEAD /readyz -I); check "HEAD /readyz 200" test "$(status_of "$r")" = 200
r=$(req $P $CA1 GET /nope); check "GET /nope 404" test "$(status_of "$r")" = 404
check "404 body is JSON" test "$(json_get "$(body_of "$r")" 'r["error"]["code"]')" = 404
check "404 names every route" test "$(json_get "$(body_of "$r")" 'r["error"]["message"]')" = \
    "not found; the webhook serves /validate, /healthz, /readyz and /metrics"
r=$(req $P $CA1 GET /validatex); check "GET /validatex 404 (exact paths)" test "$(status_of "$r")" = 404
r=$(req $P $CA1 GET "/healthz?x=1"); check "query string ignored" test "$(status_of "$r")" = 200
r=$(curl -sS --max-time 5 --cacert $CA1 --tlsv1.2 --tls-max 1.2 -o /dev/null -w '%{http_code}' https://127.0.0.1:$P/healthz 2>&1)
check "TLS 1.2 accepted" test "$r" = 200
r=$(curl -sS --max-time 5 --cacert $CA1 --tlsv1.3 -o /dev/null -w '%{http_code}' https://127.0.0.1:$P/healthz 2>&1)
check "TLS 1.3 accepted" test "$r" = 200
r=$(echo | timeout 5 openssl s_client -connect 127.0.0.1:$P -tls1_1 2>&1)
if has "$r" 'no peer certificate available'; then ok "TLS 1.1 refused"; else bad "TLS 1.1 refused"; fi

# ---- every checked kind x CREATE/UPDATE, plus DELETE/CONNECT/unchecked -----
i=0
for gk in /Pod /ReplicationController apps/Deployment apps/ReplicaSet \
          apps/StatefulSet apps/DaemonSet batch/Job batch/CronJob \
          resource.k8s.io/ResourceClaim resource.k8s.io/ResourceClaimTemplate \
          resource.k8s.io/DeviceClass /ConfigMap; do
    g=${gk%/*}; k=${gk#*/}
    for op in CREATE UPDATE DELETE CONNECT; do
        i=$((i + 1))
        python3 "$HERE/review.py" "$g" "$k" $op default "uid-$i" >"$T/rv.json"
        r=$(post $P $CA1 "$T/rv.json")
        b=$(body_of "$r")
        if [ "$(status_of "$r")" = 200 ] \
           && [ "$(json_get "$b" 'r["response"]["uid"]')" = "uid-$i" ] \
           && [ "$(json_get "$b" 'r["apiVersion"]+"|"+r["kind"]')" = "admission.k8s.io/v1|AdmissionReview" ] \
           && [ "$(json_get "$b" 'r["response"]["allowed"] in (True, False)')" = True ]; then
            ok "$k $op answered, uid echoed"
        else
            bad "$k $op answered, uid echoed" "$r"
        fi
    done
done
r=$(grep -c '"operation":"DELETE","decision":"skip"' "$T/main.log")
check "DELETE allowed without work (decision skip)" test "$r" -ge 12

# ---- deny / warn -----------------------------------------------------------
cat >"$T/deny.json" <<'JSON'
{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{
 "uid":"deny-1","kind":{"group":"","version":"v1","kind":"Pod"},
 "operation":"CREATE","namespace":"ml","object":{"apiVersion":"v1","kind":"Pod",
 "metadata":{"generateName":"trainer-"},"spec":{"containers":[{"name":"c",
 "image":"secret-image-name","resources":{"requests":{"nvidia.com/gpu":"1"}}}]}}}}
JSON
r=$(post $P $CA1 "$T/deny.json"); b=$(body_of "$r")
check "error finding denies" test "$(json_get "$b" 'r["response"]["allowed"]')" = False
check "deny status.code 403" test "$(json_get "$b" 'r["response"]["status"]["code"]')" = 403
check "deny reason Forbidden" test "$(json_get "$b" 'r["response"]["status"]["reason"]')" = Forbidden
check "deny message lists rule and path" has "$(json_get "$b" 'r["response"]["status"]["message"]')" 'extended-resource-limits\] spec.containers\[0\]'
check "deny message names generateName" has "$b" 'Pod ml/trainer-\*'
r=$(post $P $CA1 "$ROOT/deploy/examples/admission-warn.json"); b=$(body_of "$r")
check "warning example allowed" test "$(json_get "$b" 'r["response"]["allowed"]')" = True
check "warning example has shared-claim-replicas" has "$(json_get "$b" 'r["response"]["warnings"]')" 'shared-claim-replicas'
check "warnings <= 256 chars, no control chars" json_get "$b" 'all(len(w) <= 256 and all(ord(c) >= 32 for c in w) for w in r["response"]["warnings"]) or 1/0'
r=$(post $P $CA1 "$ROOT/deploy/examples/admission-deny.json"); b=$(body_of "$r")
if [ "$(json_get "$b" 'r["response"]["allowed"]')" = False ]; then
    ok "deny example (device plugin + DRA claim) denied"
else
    echo "note deny example not denied yet (needs the device-plugin-dra-conflict rule): $b"
fi

# ---- tests/admission fixtures: exact responses ------------------------------
for rv in "$ROOT"/tests/admission/*.review.json; do
    name=$(basename "$rv" .review.json)
    want=${rv%.review.json}.response.json
    r=$(post $P $CA1 "$rv")
    if [ ! -f "$want" ]; then
        bad "fixture $name" "missing $want"
    elif python3 -c 'import json,sys; sys.exit(0 if json.loads(sys.argv[1]) == json.load(open(sys.argv[2])) else 1)' "$(body_of "$r")" "$want" 2>/dev/null; then
        ok "fixture $name"
    else
        bad "fixture $name" "got $(body_of "$r")"
    fi
done

# ---- malformed requests ----------------------------------------------------
bad_body() { # name, body, expected status
    printf '%s' "$2" >"$T/bad.json"
    local r
    r=$(post $P $CA1 "$T/bad.json")
    if [ "$(status_of "$r")" = "$3" ] && json_get "$(body_of "$r")" 'r["error"]["message"]' >/dev/null; then
        ok "$1 -> $3"
    else
        bad "$1 -> $3" "$r"
    fi
}
AR='"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"'
bad_body "malformed JSON" '{"apiVersion":' 400
bad_body "empty body" '' 400
bad_body "trailing garbage" "{$AR,\"request\":{\"uid\":\"u\",\"operation\":\"DELETE\",\"kind\":{\"kind\":\"Pod\"}}} xyz" 400
bad_body "not an AdmissionReview" '{"apiVersion":"v1","kind":"Pod"}' 400
bad_body "v1beta1 AdmissionReview" '{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","request":{}}' 400
bad_body "missing request" "{$AR}" 400
bad_body "missing uid" "{$AR,\"request\":{\"operation\":\"CREATE\",\"kind\":{\"kind\":\"Pod\"}}}" 400
bad_body "uid not a string" "{$AR,\"request\":{\"uid\":7,\"operation\":\"CREATE\",\"kind\":{\"kind\":\"Pod\"}}}" 400
bad_body "object not an object" "{$AR,\"request\":{\"uid\":\"u\",\"operation\":\"CREATE\",\"kind\":{\"kind\":\"Pod\"},\"object\":[]}}" 400
bad_body "CREATE without object" "{$AR,\"request\":{\"uid\":\"u\",\"operation\":\"CREATE\",\"kind\":{\"kind\":\"Pod\"}}}" 400
bad_body "NUL in string" "{$AR,\"request\":{\"uid\":\"a\\u0000b\",\"operation\":\"DELETE\",\"kind\":{\"kind\":\"Pod\"}}}" 400
bad_body "Kind case differs" '{"apiVersion":"admission.k8s.io/v1","Kind":"AdmissionReview"}' 400
python3 -c 'print("[" * 5000 + "]" * 5000)' >"$T/deep.json"
r=$(post $P $CA1 "$T/deep.json"); check "5000-deep nesting -> 400" test "$(status_of "$r")" = 400
head -c $((4 * 1024 * 1024)) /dev/zero | tr '\0' ' ' >"$T/big.json"
r=$(post $P $CA1 "$T/big.json"); check "4 MiB body (Content-Length) -> 413" test "$(status_of "$r")" = 413
r=$(req $P $CA1 POST /validate -H 'Transfer-Encoding: chunked' --data-binary "@$T/big.json")
check "4 MiB chunked body -> 413" test "$(status_of "$r")" = 413
r=$(req $P $CA1 GET /healthz); check "still serving after bad requests" test "$(status_of "$r")" = 200

# ---- logs ------------------------------------------------------------------
check "log lines are JSON objects" python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1]) if l.strip()]' "$T/main.log"
check "log has uid/kind/decision/latency" grep -q '"uid":"deny-1","kind":"Pod","namespace":"ml","name":"trainer-\*","operation":"CREATE","decision":"deny","rules":"extended-resource-limits"' "$T/main.log"
check "request bodies never logged" bash -c "! grep -q secret-image-name '$T/main.log'"
r=$(req $P $CA1 GET /metrics)
check "metrics: requests by kind/operation/decision" has "$r" 'claimcheck_admission_requests_total{kind="Pod",operation="CREATE",decision="deny"} [1-9]'
check "metrics: findings by rule" has "$r" 'claimcheck_findings_total{rule="shared-claim-replicas"}'

# ---- certificate rotation with an open keep-alive connection ---------------
rm -f "$T/sig" "$T/go"
python3 "$HERE/client.py" keepalive $CA1 $P "$ROOT/deploy/examples/admission-warn.json" "$T/sig" "$T/go" >"$T/ka.out" 2>&1 &
KA=$!
PIDS+=("$KA")
for i in $(seq 1 100); do [ -e "$T/sig" ] && break; sleep 0.05; done
cp -r "$T/v2" "$T/secret/..v2"
swap_secret ..v2
for i in $(seq 1 60); do grep -q 'certificate reloaded' "$T/main.log" && break; sleep 0.1; done
check "rotation detected through ..data symlink swap" grep -q 'certificate reloaded' "$T/main.log"
touch "$T/go"
for i in $(seq 1 100); do kill -0 $KA 2>/dev/null || break; sleep 0.05; done
check "keep-alive connection survives rotation" grep -q '^ok 200 200 True' "$T/ka.out"
r=$(req $P "$T/v2/ca.crt" GET /healthz); check "new handshakes get the new cert" test "$(status_of "$r")" = 200
r=$(req $P $CA1 GET /healthz); check "old CA no longer verifies" test "$(status_of "$r")" != 200
# a pair that does not match keeps the old one serving
mkdir -p "$T/secret/..v3"
cp "$T/v3/tls.crt" "$T/secret/..v3/tls.crt"
cp "$T/v1/tls.key" "$T/secret/..v3/tls.key"
swap_secret ..v3
for i in $(seq 1 60); do grep -q 'reload failed' "$T/main.log" && break; sleep 0.1; done
check "mismatched pair rejected and logged" grep -q 'reload failed, keeping the old one' "$T/main.log"
r=$(req $P "$T/v2/ca.crt" GET /healthz); check "old pair keeps serving" test "$(status_of "$r")" = 200
r=$(req $P "$T/v2/ca.crt" GET /metrics); check "reload failure counted" has "$r" 'claimcheck_tls_cert_reloads_total{result="error"} [1-9]'

# ---- inventory reload on change --------------------------------------------
cat >>"$T/inv/inventory.yaml" <<'YAML'
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: extra.example.com
YAML
for i in $(seq 1 60); do [ "$(grep -c 'inventory loaded' "$T/main.log")" -ge 2 ] && break; sleep 0.1; done
check "inventory file change reloaded" test "$(grep -c 'inventory loaded' "$T/main.log")" -ge 2
printf 'kind: [\n' >"$T/inv/broken.yaml"
for i in $(seq 1 60); do grep -q 'inventory reload failed' "$T/main.log" && break; sleep 0.1; done
check "broken inventory keeps the previous snapshot" grep -q 'inventory reload failed, keeping' "$T/main.log"
rm -f "$T/inv/broken.yaml"

# ---- SIGTERM with a request in flight ----------------------------------------
CA2=$T/v2/ca.crt
rm -f "$T/sig" "$T/go" "$T/isig"
python3 "$HERE/client.py" idle $CA2 $P "$T/isig" >"$T/idle.out" 2>&1 &
IDLE=$!
PIDS+=("$IDLE")
python3 "$HERE/client.py" inflight $CA2 $P "$ROOT/deploy/examples/admission-warn.json" "$T/sig" "$T/go" >"$T/if.out" 2>&1 &
IF=$!
PIDS+=("$IF")
for i in $(seq 1 100); do [ -e "$T/sig" ] && [ -e "$T/isig" ] && break; sleep 0.05; done
T0=$(date +%s.%N)
kill -TERM $PID_main
sleep 0.3
r=$(req $P $CA2 GET /readyz); check "readyz 503 while draining" test "$(status_of "$r")" = 503
touch "$T/go"
for i in $(seq 1 100); do kill -0 $IF 2>/dev/null || break; sleep 0.05; done
check "in-flight request finishes with 200 + Connection: close" grep -q '^200 close' "$T/if.out"
for i in $(seq 1 240); do kill -0 $PID_main 2>/dev/null || break; sleep 0.05; done
T1=$(date +%s.%N)
check "server exits after SIGTERM" bash -c "! kill -0 $PID_main 2>/dev/null"
check "exit well within the grace period" python3 -c "import sys; sys.exit(0 if $T1 - $T0 < 8 else 1)"
wait $PID_main 2>/dev/null; rc=$?
check "exit status 0" test $rc = 0
for i in $(seq 1 100); do kill -0 $IDLE 2>/dev/null || break; sleep 0.05; done
check "idle keep-alive connection kept, then closed at shutdown" python3 -c "import sys; w=open('$T/idle.out').read().split(); sys.exit(0 if w[0] == 'closed' and float(w[1]) >= 1.0 else 1)"
check "shutdown logged" grep -q '"msg":"stopped"' "$T/main.log"

# ---- warn mode, deadline, client CA ---------------------------------------
hook_start warn --tls-cert "$T/v1/tls.crt" --tls-key "$T/v1/tls.key" --mode warn --deadline-ms 0
r=$(post $PORT_warn $CA1 "$T/deny.json"); b=$(body_of "$r")
check "warn mode allows errors" test "$(json_get "$b" 'r["response"]["allowed"]')" = True
check "warn mode turns errors into warnings" has "$b" 'extended-resource-limits (error, not enforced)'
kill -TERM $PID_warn

hook_start dl --tls-cert "$T/v1/tls.crt" --tls-key "$T/v1/tls.key" --deadline-ms 1 --exclude-namespace kube-system
python3 - "$T/huge.json" <<'PY'
import json, sys
c = [{"name": "c%d" % i, "image": "busybox",
      "resources": {"limits": {"cpu": "1"}}} for i in range(20000)]
r = {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
     "request": {"uid": "huge", "operation": "CREATE", "namespace": "big",
                 "kind": {"group": "", "version": "v1", "kind": "Pod"},
                 "object": {"apiVersion": "v1", "kind": "Pod",
                            "metadata": {"name": "huge"},
                            "spec": {"containers": c}}}}
open(sys.argv[1], "w").write(json.dumps(r))
PY
r=$(post $PORT_dl $CA1 "$T/huge.json"); b=$(body_of "$r")
check "past --deadline-ms: allowed" test "$(json_get "$b" 'r["response"]["allowed"]')" = True
check "past --deadline-ms: warning says so" has "$b" 'over its 1 ms budget'
r=$(req $PORT_dl $CA1 GET /metrics); check "deadline overrun counted" has "$r" 'claimcheck_deadline_overruns_total [1-9]'
sed 's/"namespace":"ml"/"namespace":"kube-system"/' "$T/deny.json" >"$T/deny-ks.json"
r=$(post $PORT_dl $CA1 "$T/deny-ks.json"); b=$(body_of "$r")
check "excluded namespace allowed untouched" test "$(json_get "$b" 'r["response"]["allowed"]')" = True
kill -TERM $PID_dl

# --config (excluded namespaces, disabled rules), -k/-g validated at start
cat >"$T/cfg.yaml" <<'YAML'
webhook:
  excludedNamespaces: [skip-me]
disable: [shared-claim-replicas]
YAML
hook_start cfg --tls-cert "$T/v1/tls.crt" --tls-key "$T/v1/tls.key" --config "$T/cfg.yaml" -k 1.34
sed 's/"namespace":"ml"/"namespace":"skip-me"/' "$T/deny.json" >"$T/deny-skip.json"
r=$(post $PORT_cfg $CA1 "$T/deny-skip.json"); b=$(body_of "$r")
check "config excludedNamespaces allowed untouched" test "$(json_get "$b" 'r["response"]["allowed"]')" = True
r=$(post $PORT_cfg $CA1 "$T/deny.json"); b=$(body_of "$r")
check "other namespaces still checked with --config" test "$(json_get "$b" 'r["response"]["allowed"]')" = False
r=$(post $PORT_cfg $CA1 "$ROOT/deploy/examples/admission-warn.json"); b=$(body_of "$r")
check "config disable: rule off" test "$(json_get "$b" '"warnings" in r["response"]')" = False
kill -TERM $PID_cfg
# rules.ID.action: warn = the rule's errors are warnings; off = left out;
# an exception suppresses (never denies) as an annotation does
cat >"$T/act.yaml" <<'YAML'
rules:
  extended-resource-limits: {severity: error, action: warn}
YAML
hook_start act --tls-cert "$T/v1/tls.crt" --tls-key "$T/v1/tls.key" --config "$T/act.yaml"
r=$(post $PORT_act $CA1 "$T/deny.json"); b=$(body_of "$r")
check "config action warn: allowed" test "$(json_get "$b" 'r["response"]["allowed"]')" = True
check "config action warn: a warning" has "$b" 'extended-resource-limits (error, not enforced)'
kill -TERM $PID_act
cat >"$T/off.yaml" <<'YAML'
rules:
  extended-resource-limits: {action: "off"}
exceptions:
- kinds: [Pod]
  rules: [pod-claim-unused]
  reason: tested elsewhere
YAML
hook_start off --tls-cert "$T/v1/tls.crt" --tls-key "$T/v1/tls.key" --config "$T/off.yaml"
r=$(post $PORT_off $CA1 "$T/deny.json"); b=$(body_of "$r")
check "config action off: allowed" test "$(json_get "$b" 'r["response"]["allowed"]')" = True
check "config action off: not in the answer" test "$(grep -c extended-resource-limits <<<"$b")" = 0
kill -TERM $PID_off
cat >"$T/exc.yaml" <<'YAML'
exceptions:
- kinds: [Pod]
  rules: [extended-resource-limits]
  reason: limits are set by a mutating webhook
YAML
hook_start exc --tls-cert "$T/v1/tls.crt" --tls-key "$T/v1/tls.key" --config "$T/exc.yaml"
r=$(post $PORT_exc $CA1 "$T/deny.json"); b=$(body_of "$r")
check "config exception: allowed" test "$(json_get "$b" 'r["response"]["allowed"]')" = True
check "config exception: not in the answer" test "$(grep -c extended-resource-limits <<<"$b")" = 0
kill -TERM $PID_exc
"$BIN" serve --listen 127.0.0.1:0 --tls-cert "$T/v1/tls.crt" --tls-key "$T/v1/tls.key" \
    -g NoSuchGate=true >"$T/badgate.out" 2>&1
rc=$?
check "unknown feature gate refused at start" test $rc -ne 0
check "unknown gate named in the error" grep -q NoSuchGate "$T/badgate.out"
"$BIN" serve --listen 127.0.0.1:0 --tls-cert "$T/v1/tls.crt" --tls-key "$T/v2/tls.key" >"$T/badpair.out" 2>&1
rc=$?
check "mismatched cert/key refused at start" test $rc -ne 0
"$BIN" serve --tls-cert "$T/v1/tls.crt" --tls-key "$T/v1/tls.key" --mode audit >"$T/badflag.out" 2>&1
check "bad --mode is a usage error (exit 2)" test $? = 2
"$BIN" version | grep -q 'claimcheck-webhook .*Kubernetes up to 1\.'
check "version names the newest Kubernetes" test $? = 0
"$BIN" --help | grep -q -- '--deadline-ms'
check "--help lists the flags" test $? = 0

# slowloris: stalled clients cannot hold the single worker, and are
# closed after --conn-timeout
hook_start slow --tls-cert "$T/v1/tls.crt" --tls-key "$T/v1/tls.key" --threads 1 \
    --conn-timeout 2 --max-connections 64
rm -f "$T/ssig"
python3 "$HERE/client.py" slow $CA1 $PORT_slow 30 "$T/ssig" >"$T/slow.out" 2>&1 &
SL=$!
PIDS+=("$SL")
for i in $(seq 1 200); do [ -e "$T/ssig" ] && break; sleep 0.05; done
r=$(post $PORT_slow $CA1 "$ROOT/deploy/examples/admission-warn.json")
check "served while 30 slow clients stall (1 worker)" test "$(status_of "$r")" = 200
for i in $(seq 1 200); do kill -0 $SL 2>/dev/null || break; sleep 0.1; done
check "stalled connections closed after --conn-timeout" python3 -c "import sys; w=open('$T/slow.out').read().split(); sys.exit(0 if w[:2] == ['closed', '30'] and float(w[2]) < 6 else 1)"
kill -TERM $PID_slow

# client certificates: a CA of our own signs a client cert
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$T/cca.key" \
    -out "$T/cca.crt" -days 2 -subj /CN=client-ca >/dev/null 2>&1
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$T/cl.key" \
    -out "$T/cl.csr" -subj /CN=kube-apiserver >/dev/null 2>&1
printf 'extendedKeyUsage=clientAuth\n' >"$T/clext"
openssl x509 -req -in "$T/cl.csr" -CA "$T/cca.crt" -CAkey "$T/cca.key" -CAcreateserial \
    -out "$T/cl.crt" -days 2 -extfile "$T/clext" >/dev/null 2>&1
hook_start mtls --tls-cert "$T/v1/tls.crt" --tls-key "$T/v1/tls.key" --client-ca "$T/cca.crt"
r=$(post $PORT_mtls $CA1 "$ROOT/deploy/examples/admission-warn.json")
check "client CA: no client cert refused" test "$(status_of "$r")" != 200
r=$(req $PORT_mtls $CA1 POST /validate --cert "$T/cl.crt" --key "$T/cl.key" --data-binary "@$ROOT/deploy/examples/admission-warn.json")
check "client CA: trusted client cert accepted" test "$(status_of "$r")" = 200
r=$(req $PORT_mtls $CA1 POST /validate --cert "$T/v1/tls.crt" --key "$T/v1/tls.key" --data-binary "@$ROOT/deploy/examples/admission-warn.json")
check "client CA: untrusted client cert refused" test "$(status_of "$r")" != 200
kill -TERM $PID_mtls

# ---- in-cluster sync against fakeapi.py ---------------------------------------
mkdir -p "$T/sa"
cp "$T/v1/ca.crt" "$T/sa/ca.crt"
echo "e2e-token-$$" >"$T/sa/token"
APIPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
hook_start kc --tls-cert "$T/v1/tls.crt" --tls-key "$T/v1/tls.key" --in-cluster \
    --apiserver "https://127.0.0.1:$APIPORT" --sa-dir "$T/sa" --list-page-size 1
r=$(req $PORT_kc $CA1 GET /readyz); check "readyz 503 before the first sync" test "$(status_of "$r")" = 503
sleep 1.2
python3 "$HERE/fakeapi.py" --port $APIPORT --cert "$T/v1/tls.crt" --key "$T/v1/tls.key" \
    --token "e2e-token-$$" 2>"$T/fakeapi.log" &
PIDS+=("$!")
for i in $(seq 1 200); do
    [ "$(status_of "$(req $PORT_kc $CA1 GET /readyz)")" = 200 ] && break
    sleep 0.1
done
r=$(req $PORT_kc $CA1 GET /readyz); check "readyz 200 after list errors + backoff + sync" test "$(status_of "$r")" = 200
check "list errors counted" has "$(req $PORT_kc $CA1 GET /metrics)" 'claimcheck_inventory_errors_total [1-9]'
inv_objects() { req $PORT_kc $CA1 GET /metrics | grep '^claimcheck_inventory_objects ' | awk '{print $2}'; }
stats() { curl -sS --max-time 5 --cacert $CA1 "https://127.0.0.1:$APIPORT/_stats"; }
control() { curl -sS --max-time 5 --cacert $CA1 -d "$1" "https://127.0.0.1:$APIPORT/_control" >/dev/null; }
wait_for() { # expression (bash), bounded 8 s
    local i
    for i in $(seq 1 80); do eval "$1" && return 0; sleep 0.1; done
    return 1
}
N0=$(inv_objects)
check "first sync loaded objects" test "${N0:-0}" -ge 1
check "token sent (401 never logged)" bash -c "! grep -q ' 401 ' '$T/fakeapi.log'"
check "not ready while the apiserver's version is unknown (logged)" grep -q "cannot read the apiserver's version .*not ready until it is known" "$T/kc.log"
check "the apiserver's version learnt at start" grep -q 'target: the apiserver is Kubernetes 1.34 (v1.34.0): judging as 1.34' "$T/kc.log"
control '{"op":"add","resource":"deviceclasses","object":{"metadata":{"name":"watched.example.com"}}}'
check "watch ADDED reaches the snapshot" wait_for '[ "$(inv_objects)" -gt "$N0" ]'
# objects are parsed once, when the event brings them: the snapshot after
# the one ADDED event parsed that object alone, and shares the others
check "a watch event parses its object alone (the others shared)" \
    wait_for 'grep -q "inventory: snapshot of $(inv_objects) cluster objects, 1 parsed since the last" "$T/kc.log"'
N1=$(inv_objects)
L0=$(json_get "$(stats)" 'r["lists"]["deviceclasses"]')
LOG0=$(wc -l <"$T/kc.log")
control '{"op":"gone","resource":"deviceclasses"}'
check "410 Gone -> relist" wait_for '[ "$(json_get "$(stats)" "r[\"lists\"][\"deviceclasses\"]")" -gt "$L0" ]'
# a relist that brings the objects unchanged keeps them: nothing parsed
snap_after() { tail -n +"$((LOG0 + 1))" "$T/kc.log" | grep -o 'inventory: snapshot of [0-9]* cluster objects, [0-9]* parsed' | head -n 1; }
check "a relist keeps the unchanged objects (none parsed again)" \
    wait_for '[ -n "$(snap_after)" ] && [[ "$(snap_after)" == *", 0 parsed" ]]'
check "410 logged" grep -q 'expired (410), relisting' "$T/kc.log"
L1=$(json_get "$(stats)" 'r["lists"]["deviceclasses"]')
control '{"op":"drop","resource":"deviceclasses"}'
check "dropped watch connection -> backoff + relist" wait_for '[ "$(json_get "$(stats)" "r[\"lists\"][\"deviceclasses\"]")" -gt "$L1" ]'
check "dropped connection logged" grep -q 'watch deviceclasses failed' "$T/kc.log"
check "objects kept across relists" test "$(inv_objects)" = "$N1"
# An empty list after a non-empty one (an apiserver hiccup) is not applied:
# the objects serve on and the next list, 5 s later, decides (issue 16).
wait_long() { local i; for i in $(seq 1 250); do eval "$1" && return 0; sleep 0.1; done; return 1; }
refused_empty() { req $PORT_kc $CA1 GET /metrics | awk '/^claimcheck_inventory_refused_total\{reason="empty-list"\}/ {print $2}'; }
control '{"op":"empty","resource":"deviceclasses","count":1}'
control '{"op":"gone","resource":"deviceclasses"}'
check "empty list after a non-empty one: held back and logged" \
    wait_for 'grep -q "an empty list of deviceclasses after a non-empty one: not applied" "$T/kc.log"'
check "empty list held back: objects kept" test "$(inv_objects)" = "$N1"
check "empty list held back: counted (reason empty-list)" test "$(refused_empty)" = 1
check "empty list held back: /readyz says so, still 200" \
    has "$(body_of "$(req $PORT_kc $CA1 GET /readyz)")" 'empty list of deviceclasses'
check "empty list held back: the next (full) list applies" \
    wait_long 'grep -q "listed [0-9]* deviceclasses .*(the list held back is confirmed or replaced)" "$T/kc.log"'
check "empty list not confirmed: objects kept, /readyz clean" \
    bash -c "test '$(inv_objects)' = '$N1' && ! grep -q inventory <<<'$(body_of "$(req $PORT_kc $CA1 GET /readyz)")'"
control '{"op":"delete","resource":"deviceclasses","object":{"metadata":{"name":"watched.example.com"}}}'
check "watch DELETED reaches the snapshot" wait_for '[ "$(inv_objects)" -lt "$N1" ]'
sleep 2.5
age=$(req $PORT_kc $CA1 GET /metrics | awk '/^claimcheck_inventory_age_seconds / {print $2}')
check "inventory age stays fresh while watches are healthy (age $age)" test "${age:-99}" -le 2
W=$(json_get "$(stats)" 'sum(r["watches"].values())')
check "watches opened with bookmarks" grep -q 'allowWatchBookmarks=true' "$T/fakeapi.log"
check "lists paginated (limit/continue)" grep -q 'nodes?limit=1&continue=' "$T/fakeapi.log"
check "every resource watched" test "${W:-0}" -ge 6
V=$("$BIN" version | awk '{print $2}')
check "User-Agent is claimcheck-webhook/<version> ($V)" \
    test "$(json_get "$(stats)" '",".join(r["agents"])')" = "claimcheck-webhook/$V"
check "the start is logged with the version" grep -q "claimcheck-webhook $V ready to serve" "$T/kc.log"
r=$(post $PORT_kc $CA1 "$ROOT/deploy/examples/admission-warn.json")
check "admission served while syncing" test "$(status_of "$r")" = 200
r=$(post $PORT_kc $CA1 "$ROOT/deploy/examples/admission-deny.json"); b=$(body_of "$r")
check "cluster objects reach the rules (template -> class -> deny)" has "$b" 'device-plugin-dra-conflict'
control '{"op":"delete","resource":"resourceclaimtemplates","object":{"metadata":{"name":"single-gpu","namespace":"ml"}}}'
check "deleted template no longer resolves" wait_for '! has "$(body_of "$(post $PORT_kc $CA1 "$ROOT/deploy/examples/admission-deny.json")")" device-plugin-dra-conflict' 
N2=$(inv_objects)
control '{"op":"empty","resource":"deviceclasses","count":2}'
control '{"op":"gone","resource":"deviceclasses"}'
check "two empty lists in a row: the second is believed" \
    wait_long '[ "$(inv_objects)" -lt "$N2" ]'
check "two empty lists in a row: the first held back (2 in all)" test "$(refused_empty)" = 2
kill -TERM $PID_kc
for i in $(seq 1 100); do kill -0 $PID_kc 2>/dev/null || break; sleep 0.05; done
check "in-cluster server stops promptly (watches aborted)" bash -c "! kill -0 $PID_kc 2>/dev/null"

# ---- the target version and gates from the apiserver ----------------------
# A DeviceClass selecting on device.allowMultipleAllocations needs the
# DRAConsumableCapacity gate: off by default up to 1.35, on in 1.36 (the
# newest release, what the webhook assumed before it asked the apiserver).
python3 - "$T/multi.json" <<'PY'
import json, sys
obj = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
       "metadata": {"name": "multi"},
       "spec": {"selectors": [{"cel": {
           "expression": "device.allowMultipleAllocations == true"}}]}}
req = {"uid": "u-multi", "kind": {"group": "resource.k8s.io", "version": "v1",
                                  "kind": "DeviceClass"},
       "operation": "CREATE", "name": "multi",
       "userInfo": {"username": "e2e"}, "object": obj}
json.dump({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
           "request": req}, open(sys.argv[1], "w"))
PY
fake_start() { # NAME ARGS...: fakeapi on a free port, APIPORT_NAME
    local port
    port=$(free_port)
    python3 "$HERE/fakeapi.py" --port "$port" --cert "$T/v1/tls.crt" --key "$T/v1/tls.key" \
        --token "e2e-token-$$" "${@:2}" 2>"$T/fake_$1.log" &
    PIDS+=("$!")
    eval "APIPORT_$1=$port"
}
multi() { # PORT -> allowed true|false and the message
    local b
    b=$(body_of "$(post "$1" $CA1 "$T/multi.json")")
    echo "$(json_get "$b" 'r["response"]["allowed"]') $(json_get "$b" 'r["response"].get("status",{}).get("message","")')"
}
target_of() { req "$1" $CA1 GET /metrics | grep '^claimcheck_target_info'; }
ctl() { curl -sS --max-time 5 --cacert $CA1 -d "$2" "https://127.0.0.1:$1/_control" >/dev/null; }
fake_start tv --version 1.34
hook_start tv --tls-cert "$T/v1/tls.crt" --tls-key "$T/v1/tls.key" --in-cluster \
    --apiserver "https://127.0.0.1:$APIPORT_tv" --sa-dir "$T/sa" --target-refresh 1s
check "in-cluster target: ready" hook_ready $PORT_tv $CA1 100
m=$(multi $PORT_tv)
check "judged at the apiserver's 1.34, not the newest: denied ($m)" has "$m" "^False .*DRAConsumableCapacity, which is off in Kubernetes 1.34"
check "target metric: version and gates source" has "$(target_of $PORT_tv)" 'version="1.34",version_source="apiserver",gates_source="defaults"'
check "no gate samples logged" grep -q "has no samples of 'kubernetes_feature_enabled'" "$T/tv.log"
ctl $APIPORT_tv '{"op":"gates","gates":"DRAConsumableCapacity=true,DRAPrioritizedList=true"}'
check "the apiserver's gates from /metrics are used" wait_for 'has "$(multi $PORT_tv)" "^True"'
check "target metric: gates from the apiserver" has "$(target_of $PORT_tv)" 'version="1.34",version_source="apiserver",gates_source="apiserver"'
check "gates logged (overrides of the defaults only)" grep -q 'judging as 1.34, feature gates from apiserver: DRAConsumableCapacity=true"' "$T/tv.log"
ctl $APIPORT_tv '{"op":"gates","gates":""}'
check "gates back to the defaults: denied again" wait_for 'has "$(multi $PORT_tv)" "^False"'
# -k and -g override what the apiserver says
hook_start tk --tls-cert "$T/v1/tls.crt" --tls-key "$T/v1/tls.key" --in-cluster \
    --apiserver "https://127.0.0.1:$APIPORT_tv" --sa-dir "$T/sa" -k 1.36
hook_start tg --tls-cert "$T/v1/tls.crt" --tls-key "$T/v1/tls.key" --in-cluster \
    --apiserver "https://127.0.0.1:$APIPORT_tv" --sa-dir "$T/sa" -g DRAConsumableCapacity=true
check "-k: ready" hook_ready $PORT_tk $CA1 100
check "-g: ready" hook_ready $PORT_tg $CA1 100
check "-k 1.36 wins over the apiserver's 1.34" has "$(multi $PORT_tk)" "^True"
check "-k: target metric" has "$(target_of $PORT_tk)" 'version="1.36",version_source="flags",gates_source="defaults"'
check "-k: the apiserver's version is not asked" bash -c "! grep -q 'target:' '$T/tk.log'"
check "-g wins over the apiserver's defaults" has "$(multi $PORT_tg)" "^True"
check "-g: target metric (the version still the apiserver's)" has "$(target_of $PORT_tg)" 'version="1.34",version_source="apiserver",gates_source="flags"'
check "-g: /metrics is not read" bash -c "grep -q 'judging as 1.34, feature gates from flags' '$T/tg.log' && ! grep -q '/metrics' '$T/tg.log'"
kill -TERM $PID_tk $PID_tg
# an upgrade is picked up by the periodic re-check
ctl $APIPORT_tv '{"op":"version","version":"1.36"}'
check "apiserver upgrade 1.34 -> 1.36 picked up" wait_for 'has "$(multi $PORT_tv)" "^True"'
check "upgrade logged" grep -q 'the apiserver changed from Kubernetes 1.34 to 1.36: judging as 1.36' "$T/tv.log"
check "target metric follows the upgrade" has "$(target_of $PORT_tv)" 'version="1.36",version_source="apiserver"'
ctl $APIPORT_tv '{"op":"version","version":"1.40"}'
check "a version the gate table lacks is judged as the newest" wait_for "grep -q 'the apiserver is Kubernetes 1.40, which the gate table does not know: judging as 1.36' '$T/tv.log'"
check "... and served as before" has "$(multi $PORT_tv)" "^True"
kill -TERM $PID_tv
# RBAC without the optional /metrics rule: 403, logged once, defaults used
fake_start td --version 1.34 --gates DRAConsumableCapacity=true --deny /metrics
hook_start td --tls-cert "$T/v1/tls.crt" --tls-key "$T/v1/tls.key" --in-cluster \
    --apiserver "https://127.0.0.1:$APIPORT_td" --sa-dir "$T/sa" --target-refresh 1s
check "403 on /metrics: ready" hook_ready $PORT_td $CA1 100
sleep 2.2
check "403 on /metrics: the version's default gates (denied)" has "$(multi $PORT_td)" "^False .*off in Kubernetes 1.34"
check "403 on /metrics: target metric says defaults" has "$(target_of $PORT_td)" 'version="1.34",version_source="apiserver",gates_source="defaults"'
D=$(curl -sS --max-time 5 --cacert $CA1 "https://127.0.0.1:$APIPORT_td/_stats")
check "403 on /metrics: re-checked ($(json_get "$D" 'r["denied"]') times)" test "$(json_get "$D" 'r["denied"]')" -ge 2
check "403 on /metrics: logged once, naming the optional RBAC rule" \
    test "$(grep -c "may not get '/metrics' (403 Forbidden).*nonResourceURLs" "$T/td.log")" = 1
kill -TERM $PID_td
for i in $(seq 1 100); do kill -0 $PID_td 2>/dev/null || break; sleep 0.05; done
check "server with the target thread stops promptly" bash -c "! kill -0 $PID_td 2>/dev/null"

echo "$PASS passed, $FAIL failed"
[ $FAIL = 0 ]
