#!/usr/bin/env bash
# tests/e2e/audit/run.sh - `claimcheck audit` against the stand-in
# apiserver (tests/e2e/webhook/fakeapi.py) serving the planted cluster of
# cluster.yaml (a node managed by a device plugin and a DRA driver, a
# device-plugin/DRA conflict in a Deployment whose ReplicaSet and Pods must
# not repeat it, a claim blocked only because its devices are held, an
# idle claim, clean workloads):
#  - every credential kind finds the planted problems and nothing else:
#    token, tokenFile, client certificate files and -data, certificate-
#    authority-data, exec plugins (token, and a client certificate; the
#    token cached: one run for the whole audit), two KUBECONFIG files
#    merged with --context, --in-cluster;
#  - paging (--page-size 1) gives the same report;
#  - the target version from GET /version unless -k; a newer one than the
#    gate table knows is judged as the newest; --namespace;
#    DeviceTaintRules listed only when served;
#  - the failures users meet say what to do: unreachable server, untrusted
#    certificate, 401, 403 (with the RBAC rule), resource.k8s.io/v1 not
#    served or DRA off, an exec plugin that fails, claimcheck-webhook
#    missing next to claimcheck and on PATH.
# Binds 127.0.0.1 only. Last line: "N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
bin="$top/build/claimcheck"
here="$top/tests/e2e/audit"
cluster="$here/cluster.yaml"
tmp=$(mktemp -d)
. "$top/tests/e2e/lib.sh"
. "$here/lib.sh"
trap 'fakeapi_stop_all; rm -rf "$tmp"' EXIT
for need in python3 openssl; do
  command -v $need >/dev/null || { echo "skipped: $need missing"; echo "0 passed, 0 failed, 1 skipped"; exit 0; }
done
[ -x "$top/build/claimcheck-webhook" ] || { bad "build/claimcheck-webhook not built"; echo "$pass passed, $fail failed"; exit 1; }

run() { # NAME WANT-EXIT ARGS...: claimcheck audit ARGS into $tmp/out
  local name=$1 want=$2 rc
  shift 2
  timeout 60 "$bin" audit --no-color --no-hints "$@" >"$tmp/out" 2>&1
  rc=$?
  if [ $rc -eq "$want" ]; then ok "$name: exit $rc"; else bad "$name: exit $rc, want $want"; sed 's/^/    /' "$tmp/out" | head -20; fi
}
has() { # NAME REGEX
  if grep -qE -- "$2" "$tmp/out"; then ok "$1"; else bad "$1: output lacks /$2/"; sed 's/^/    /' "$tmp/out" | head -20; fi
}
lacks() {
  if grep -qE -- "$2" "$tmp/out"; then bad "$1: output has /$2/"; grep -E -- "$2" "$tmp/out" | head -5 | sed 's/^/    /'; else ok "$1"; fi
}
# the planted problems, and nothing on the clean or derived objects
planted() { # NAME
  has "$1: blocked claim" 'error\[claim-blocked\] ResourceClaim ml/train: the claim cannot be allocated now'
  has "$1: who holds its devices" "gpu-node-1/gpu-0, gpu-node-1/gpu-1 by ResourceClaim ml/old-run; gpu-node-2/gpu-0 by ResourceClaim team/busy"
  has "$1: the Pending Pod" 'error\[claim-blocked\] Pod ml/train-pod: the pod is Pending'
  has "$1: idle claim" 'warning\[claim-idle\] ResourceClaim ml/old-run: the claim holds 2 devices'
  has "$1: double-managed node" "error\[node-double-managed\] Node legacy-node: node advertises 'nvidia.com/gpu: 4'"
  has "$1: plugin/DRA conflict" 'error\[device-plugin-dra-conflict\] Deployment ml/inference'
  lacks "$1: the ReplicaSet and Pods of the Deployment repeat nothing" 'ReplicaSet ml/inference|Pod ml/inference'
  lacks "$1: busy claim not idle" 'team/busy:'
  lacks "$1: clean workload" 'default/web'
  has "$1: summary names the server" "objects on https://127\.0\.0\.1:[0-9]+: 4 errors, 1 warning"
}

# ---- certificates and credentials ----------------------------------------
audit_certs "$tmp/srv" || { bad "certs"; echo "$pass passed, $fail failed"; exit 1; }
audit_certs "$tmp/other"          # a CA that did not sign the server
(cd "$tmp" && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout client-ca.key -out client-ca.crt -days 2 -subj /CN=client-ca &&
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout client.key -out client.csr -subj /CN=alice &&
  openssl x509 -req -in client.csr -CA client-ca.crt -CAkey client-ca.key \
    -CAcreateserial -out client.crt -days 2) >/dev/null 2>&1 \
  || { bad "client certificate"; echo "$pass passed, $fail failed"; exit 1; }
b64() { base64 -w0 <"$1"; }

fakeapi_start "$tmp/srv" "$cluster" --token good-token --client-ca "$tmp/client-ca.crt" \
  || { bad "fakeapi did not start"; cat "$tmp/srv/fakeapi.log"; echo "$pass passed, $fail failed"; exit 1; }
URL=$FAKEAPI_URL
CA="$tmp/srv/ca.crt"
stats() { curl -sS --max-time 5 --cacert "$CA" "$URL/_stats"; }
stat_of() { stats | python3 -c 'import json,sys; r=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }

# token
kubeconfig_write "$tmp/token.yaml" "$URL" "$CA" "    token: good-token"
run "token" 1 --kubeconfig "$tmp/token.yaml"
planted "token"
# tokenFile relative to the kubeconfig
mkdir -p "$tmp/kc"
echo "good-token" >"$tmp/kc/token.txt"
kubeconfig_write "$tmp/kc/tokenfile.yaml" "$URL" "$CA" "    tokenFile: token.txt"
run "tokenFile" 1 --kubeconfig "$tmp/kc/tokenfile.yaml"
planted "tokenFile"
# client certificate files, then -data with certificate-authority-data
C0=$(stat_of 'r["auth"]["cert"]')
kubeconfig_write "$tmp/cert.yaml" "$URL" "$CA" "    client-certificate: $tmp/client.crt
    client-key: $tmp/client.key"
run "client certificate" 1 --kubeconfig "$tmp/cert.yaml"
planted "client certificate"
C1=$(stat_of 'r["auth"]["cert"]')
if [ "$C1" -gt "$C0" ]; then ok "authenticated by the certificate"; else bad "no certificate authentication ($C0 -> $C1)"; fi
cat >"$tmp/data.yaml" <<EOF
apiVersion: v1
kind: Config
current-context: d
clusters:
- name: c
  cluster: {server: "$URL", certificate-authority-data: "$(b64 "$CA")"}
users:
- name: u
  user:
    client-certificate-data: "$(b64 "$tmp/client.crt")"
    client-key-data: "$(b64 "$tmp/client.key")"
contexts:
- name: d
  context: {cluster: c, user: u}
EOF
run "client certificate -data" 1 --kubeconfig "$tmp/data.yaml"
planted "client certificate -data"

# exec plugins: a token (run once for the whole audit: cached until its
# expiry) and a client certificate
cat >"$tmp/plugin.sh" <<EOF
#!/bin/sh
echo run >>"$tmp/plugin-runs"
case "\$1" in
token) printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"good-token","expirationTimestamp":"2999-01-01T00:00:00Z"}}' ;;
cert) printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"clientCertificateData":"%s","clientKeyData":"%s"}}' "\$(awk '{printf "%s\\\\n", \$0}' "$tmp/client.crt")" "\$(awk '{printf "%s\\\\n", \$0}' "$tmp/client.key")" ;;
*) echo "plugin: no credentials for '\$1'" >&2; exit 4 ;;
esac
EOF
chmod +x "$tmp/plugin.sh"
exec_user() { # ARG
  printf '    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: %s\n      args: [%s]\n      interactiveMode: Never\n      installHint: "install the plugin"\n' "$tmp/plugin.sh" "$1"
}
kubeconfig_write "$tmp/exec.yaml" "$URL" "$CA" "$(exec_user token)"
rm -f "$tmp/plugin-runs"
run "exec plugin (token)" 1 --kubeconfig "$tmp/exec.yaml"
planted "exec plugin (token)"
runs=$(wc -l <"$tmp/plugin-runs" 2>/dev/null || echo 0)
if [ "$runs" -eq 1 ]; then ok "exec plugin ran once for the whole audit"; else bad "exec plugin ran $runs times"; fi
kubeconfig_write "$tmp/exec-cert.yaml" "$URL" "$CA" "$(exec_user cert)"
run "exec plugin (client certificate)" 1 --kubeconfig "$tmp/exec-cert.yaml"
planted "exec plugin (client certificate)"
kubeconfig_write "$tmp/exec-bad.yaml" "$URL" "$CA" "$(exec_user nothing)"
run "exec plugin failing" 2 --kubeconfig "$tmp/exec-bad.yaml"
has "exec plugin failing: says so" "exec plugin '.*plugin.sh' failed \(exit status 4\)"

# KUBECONFIG: the cluster in one file, the user in another, --context
cat >"$tmp/kc1.yaml" <<EOF
apiVersion: v1
kind: Config
current-context: broken
clusters:
- name: planted
  cluster: {server: "$URL", certificate-authority: "$CA"}
contexts:
- name: planted
  context: {cluster: planted, user: me}
EOF
cat >"$tmp/kc2.yaml" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: planted
  cluster: {server: "https://127.0.0.1:1"}
users:
- name: me
  user: {token: good-token}
EOF
KUBECONFIG="$tmp/kc1.yaml:$tmp/nowhere.yaml:$tmp/kc2.yaml" run "KUBECONFIG merged, --context" 1 --context planted
planted "KUBECONFIG merged"
KUBECONFIG="$tmp/kc1.yaml:$tmp/kc2.yaml" run "KUBECONFIG current-context missing" 2
has "no such context: says so" "context 'broken' is not in"

# --in-cluster
mkdir -p "$tmp/sa"
cp "$CA" "$tmp/sa/ca.crt"
echo good-token >"$tmp/sa/token"
run "--in-cluster" 1 --in-cluster --apiserver "$URL" --sa-dir "$tmp/sa"
planted "--in-cluster"
KUBERNETES_SERVICE_HOST=127.0.0.1 KUBERNETES_SERVICE_PORT=${URL##*:} \
  run "--in-cluster from the service environment" 1 --in-cluster --sa-dir "$tmp/sa"

# ---- paging, version, namespace, formats ---------------------------------
run "json" 1 --kubeconfig "$tmp/token.yaml" -o json
cp "$tmp/out" "$tmp/all.json"
L0=$(stat_of 'sum(r["lists"].values())')
run "paged" 1 --kubeconfig "$tmp/token.yaml" -o json --page-size 1
L1=$(stat_of 'sum(r["lists"].values())')
if [ $((L1 - L0)) -gt 20 ]; then ok "one object per page ($((L1 - L0)) pages)"; else bad "paging: $((L1 - L0)) pages"; fi
if cmp -s "$tmp/out" "$tmp/all.json"; then ok "paged report = unpaged report"; else bad "paged report differs"; diff "$tmp/all.json" "$tmp/out" | head; fi
python3 - "$tmp/all.json" <<'EOF' && ok "json: cluster named, findings without file/line" || bad "json shape"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["cluster"].startswith("https://127.0.0.1:"), r
assert r["kubeVersion"] == "1.34", r["kubeVersion"]
assert r["findings"] and all("file" not in f and "line" not in f for f in r["findings"])
assert {f["rule"] for f in r["findings"]} == {"claim-blocked", "claim-idle", "node-double-managed", "device-plugin-dra-conflict"}
EOF
run "-k wins over /version" 1 --kubeconfig "$tmp/token.yaml" -o json -k 1.36
has "-k 1.36" '"kubeVersion":"1.36"'
# a -g gate the apiserver's 1.34 lacks is a usage error at 1.34; audit's
# engine_for once retried any failure at the newest version (where the
# gate exists) and blamed the gate table for not knowing 1.34
run "-g gate absent at the apiserver's version" 2 --kubeconfig "$tmp/token.yaml" -g DRAListTypeAttributes=true
has "... named with that version" "unknown feature gate 'DRAListTypeAttributes' in Kubernetes 1.34"
lacks "... not judged at the newest instead" "which the gate table does not know"
run "namespace team" 1 --kubeconfig "$tmp/token.yaml" --namespace team
has "namespace: cluster-scoped objects still audited" 'Node legacy-node'
lacks "namespace: other namespaces left out" 'ml/'
run "sarif" 1 --kubeconfig "$tmp/token.yaml" -o sarif
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); res=r["runs"][0]["results"]; assert res and all("logicalLocations" in x["locations"][0] for x in res)' "$tmp/out" \
  && ok "sarif: located by object" || bad "sarif shape"
fakeapi_stop

fakeapi_start "$tmp/srv" "$cluster" --token good-token --version 1.99 --taint-version v1 || bad "fakeapi 1.99"
kubeconfig_write "$tmp/t99.yaml" "$FAKEAPI_URL" "$CA" "    token: good-token"
run "a version newer than the table" 1 --kubeconfig "$tmp/t99.yaml"
has "newer version: a note" "note: the apiserver is Kubernetes 1.99, which the gate table does not know: judging as"
T=$(curl -sS --max-time 5 --cacert "$CA" "$FAKEAPI_URL/_stats" | python3 -c 'import json,sys; print(json.load(sys.stdin)["lists"]["devicetaintrules"])')
if [ "$T" -ge 1 ]; then ok "DeviceTaintRules listed when served"; else bad "DeviceTaintRules not listed"; fi
fakeapi_stop
T=$(grep -c devicetaintrules "$tmp/srv/fakeapi.log")
if [ "$T" -ge 1 ]; then ok "served DeviceTaintRules requested"; else bad "no DeviceTaintRules request"; fi

# ---- failures -------------------------------------------------------------
run "unreachable" 2 --kubeconfig "$tmp/kc2.yaml" --context x
kubeconfig_write "$tmp/down.yaml" "https://127.0.0.1:1" "$CA" "    token: good-token"
run "unreachable server" 2 --kubeconfig "$tmp/down.yaml"
has "unreachable: says so" "cannot reach the apiserver at 'https://127.0.0.1:1'"
fakeapi_start "$tmp/srv" "$cluster" --token good-token --deny resourceclaims || bad "fakeapi deny"
kubeconfig_write "$tmp/f.yaml" "$FAKEAPI_URL" "$CA" "    token: good-token"
kubeconfig_write "$tmp/wrongca.yaml" "$FAKEAPI_URL" "$tmp/other/ca.crt" "    token: good-token"
run "untrusted certificate" 2 --kubeconfig "$tmp/wrongca.yaml"
has "TLS: says what to check" "TLS: the certificate of '$FAKEAPI_URL' is not trusted \(check certificate-authority"
kubeconfig_write "$tmp/badtoken.yaml" "$FAKEAPI_URL" "$CA" "    token: wrong"
run "401" 2 --kubeconfig "$tmp/badtoken.yaml"
has "401: says so" "rejected context 'test' of '$tmp/badtoken.yaml' \(401 Unauthorized\)"
run "403" 2 --kubeconfig "$tmp/f.yaml"
has "403: who may not do what" "context 'test' of '.*' may not list resourceclaims.resource.k8s.io at '$FAKEAPI_URL' \(403 Forbidden\): resourceclaims.resource.k8s.io is forbidden: User \"token-user\""
has "403: the RBAC rule" '^- apiGroups: \["resource.k8s.io"\]$'
has "403: the resource" '^  resources: \["resourceclaims"\]$'
has "403: the verbs" '^  verbs: \["get", "list"\]$'
run "403 in a namespace" 2 --kubeconfig "$tmp/f.yaml" -n ml
has "403 in a namespace: names it" "may not list resourceclaims.resource.k8s.io in namespace ml"
fakeapi_stop
fakeapi_start "$tmp/srv" "$cluster" --token good-token --dra-versions v1beta2,v1beta1 || bad "fakeapi beta"
kubeconfig_write "$tmp/f.yaml" "$FAKEAPI_URL" "$CA" "    token: good-token"
run "v1 not served" 2 --kubeconfig "$tmp/f.yaml"
has "v1 not served: which versions are" "does not serve resource.k8s.io/v1 \(it serves v1beta2, v1beta1\): claimcheck audit needs Kubernetes 1.34 or later"
fakeapi_stop
fakeapi_start "$tmp/srv" "$cluster" --token good-token --dra-versions none || bad "fakeapi no DRA"
kubeconfig_write "$tmp/f.yaml" "$FAKEAPI_URL" "$CA" "    token: good-token"
run "DRA off" 2 --kubeconfig "$tmp/f.yaml"
has "DRA off: says so" "does not serve resource.k8s.io: Dynamic Resource Allocation is not enabled there"
fakeapi_stop

# ---- PolicyReports: -o policyreport, and serve --policy-reports ----------
fakeapi_start "$tmp/srv" "$cluster" --token good-token || bad "fakeapi (reports)"
kubeconfig_write "$tmp/f.yaml" "$FAKEAPI_URL" "$CA" "    token: good-token"
run "-o policyreport" 1 --kubeconfig "$tmp/f.yaml" -o policyreport
cp "$tmp/out" "$tmp/audit-reports.yaml"
fakeapi_stop
python3 - "$tmp/audit-reports.yaml" >"$tmp/pr.out" 2>&1 <<'PY'
import sys, yaml
docs = {(d["kind"], d["metadata"].get("namespace")): d for d in yaml.safe_load_all(open(sys.argv[1])) if d}
def ok(n, c, why=""):
    print(("ok " if c else "FAIL ") + n + ("" if c else ": %s" % (why,)))
ok("policyreport: a report per namespace and the cluster's",
   set(docs) == {("PolicyReport", "ml"), ("PolicyReport", "team"), ("PolicyReport", "default"), ("ClusterPolicyReport", None)}, sorted(docs, key=str))
ml = docs[("PolicyReport", "ml")]["results"]
ok("policyreport: the blocked claim fails, high", any(r.get("rule") == "claim-blocked" and r["result"] == "fail" and r["severity"] == "high" and r["resources"][0]["name"] == "train" for r in ml))
ok("policyreport: the idle claim warns, medium", any(r.get("rule") == "claim-idle" and r["result"] == "warn" and r["severity"] == "medium" for r in ml))
ok("policyreport: findings name the cluster", all(r["properties"]["cluster"].startswith("https://127.0.0.1:") for r in ml if r["result"] != "pass"))
ok("policyreport: the clean Deployment passes", any(r["result"] == "pass" and r["resources"][0]["name"] == "web" for r in docs[("PolicyReport", "default")]["results"]))
cl = docs[("ClusterPolicyReport", None)]["results"]
ok("policyreport: the double-managed node in the ClusterPolicyReport", any(r.get("rule") == "node-double-managed" and r["resources"][0]["name"] == "legacy-node" for r in cl))
PY
tally "$tmp/pr.out"
grep -q '^ok \|^FAIL ' "$tmp/pr.out" || { bad "policyreport checks crashed"; cat "$tmp/pr.out"; }

# the webhook writes them: server-side apply, stale reports deleted, other
# reports left alone
cat "$cluster" - >"$tmp/cluster-reports.yaml" <<'YAML'
---
apiVersion: wgpolicyk8s.io/v1alpha2
kind: PolicyReport
metadata:
  name: claimcheck
  namespace: gone
  labels: {app.kubernetes.io/managed-by: claimcheck}
summary: {fail: 1}
results: []
---
apiVersion: wgpolicyk8s.io/v1alpha2
kind: PolicyReport
metadata: {name: kyverno-report, namespace: ml, labels: {app.kubernetes.io/managed-by: kyverno}}
results: []
YAML
fakeapi_start "$tmp/srv" "$tmp/cluster-reports.yaml" --token good-token --policy-reports || bad "fakeapi (CRDs)"
hookbin="$top/build/claimcheck-webhook"
serve_reports() { # LOG ARGS...: serve until a round of reports is logged
  local log=$1 i p
  shift
  "$hookbin" serve --listen 127.0.0.1:0 --tls-cert "$tmp/srv/tls.crt" --tls-key "$tmp/srv/tls.key" \
    --in-cluster --apiserver "$FAKEAPI_URL" --sa-dir "$tmp/sa" "$@" 2>"$log" &
  p=$!
  for i in $(seq 1 200); do grep -q 'policy reports: [0-9]* written' "$log" && break; sleep 0.1; done
  kill "$p" 2>/dev/null; wait "$p" 2>/dev/null
}
serve_reports "$tmp/serve.log" --policy-reports 1s
if grep -q 'policy reports: 4 written, 1 stale deleted' "$tmp/serve.log"; then ok "serve --policy-reports: 4 reports written, the stale one deleted"
else bad "serve --policy-reports: $(grep 'policy reports' "$tmp/serve.log" | tail -2)"; fi
get_reports() {
  curl -sS --max-time 5 --cacert "$CA" -H "Authorization: Bearer good-token" "$FAKEAPI_URL$1"
}
{ get_reports /apis/wgpolicyk8s.io/v1alpha2/policyreports; echo; get_reports /apis/wgpolicyk8s.io/v1alpha2/clusterpolicyreports; echo; curl -sS --max-time 5 --cacert "$CA" "$FAKEAPI_URL/_stats"; } >"$tmp/written.json"
python3 - "$tmp/written.json" "$tmp/written.yaml" >"$tmp/pw.out" 2>&1 <<'PY'
import json, sys, yaml
lines = open(sys.argv[1]).read().splitlines()
prs, cprs, st = (json.loads(l) for l in lines[:3])
def ok(n, c, why=""):
    print(("ok " if c else "FAIL ") + n + ("" if c else ": %s" % (why,)))
names = sorted((i["metadata"].get("namespace"), i["metadata"]["name"]) for i in prs["items"])
ok("written: one report per namespace, the stale one gone, kyverno's kept",
   names == [("default", "claimcheck"), ("ml", "claimcheck"), ("ml", "kyverno-report"), ("team", "claimcheck")], names)
w = [x for x in st["writes"] if x["method"] == "PATCH"]
ok("written: server-side apply (apply-patch+yaml, fieldManager claimcheck, force)",
   len(w) >= 4 and all(x["contentType"] == "application/apply-patch+yaml" and x["fieldManager"] == "claimcheck" and x["force"] == "true" for x in w), w[:2])
ok("written: the stale report deleted by DELETE",
   [x["path"] for x in st["writes"] if x["method"] == "DELETE"] == ["/apis/wgpolicyk8s.io/v1alpha2/namespaces/gone/policyreports/claimcheck"])
docs = [i for i in prs["items"] if i["metadata"]["name"] == "claimcheck"] + cprs["items"]
with open(sys.argv[2], "w") as f:
    yaml.safe_dump_all(docs, f)
PY
tally "$tmp/pw.out"
grep -q '^ok \|^FAIL ' "$tmp/pw.out" || { bad "written report checks crashed"; cat "$tmp/pw.out"; }
fakeapi_stop
if npm_why=$(source "$top/tests/e2e/npm-deps.sh" && npm_ensure); then
  (cd "$top/tests/e2e" && node formats_policyreport.js audit="$tmp/audit-reports.yaml:20" \
    written="$tmp/written.yaml:20") >"$tmp/prv.out" 2>&1
  tally "$tmp/prv.out"
  grep -q '^[0-9]* passed, [0-9]* failed' "$tmp/prv.out" || { bad "formats_policyreport.js crashed"; tail -5 "$tmp/prv.out"; }
else
  echo "skipped: PolicyReport schema validation ($npm_why)"
fi
fakeapi_start "$tmp/srv" "$cluster" --token good-token || bad "fakeapi (no CRDs)"
serve_reports "$tmp/serve2.log" --policy-reports 1s
if grep -q 'are the wgpolicyk8s.io CRDs installed' "$tmp/serve2.log"; then ok "serve --policy-reports without the CRDs: says so"
else bad "without the CRDs: $(grep 'policy reports' "$tmp/serve2.log" | tail -2)"; fi
fakeapi_stop
"$hookbin" serve --listen 127.0.0.1:0 --tls-cert "$tmp/srv/tls.crt" --tls-key "$tmp/srv/tls.key" \
  --policy-reports 1m >"$tmp/out" 2>&1
rc=$?
if [ $rc -ne 0 ] && grep -q -- '--policy-reports needs --in-cluster' "$tmp/out"; then ok "--policy-reports without --in-cluster refused"; else bad "--policy-reports alone: exit $rc"; fi

# claimcheck alone: the audit needs claimcheck-webhook
mkdir -p "$tmp/alone"
cp "$bin" "$tmp/alone/claimcheck"
PATH=/usr/bin:/bin timeout 10 "$tmp/alone/claimcheck" audit --kubeconfig "$tmp/token.yaml" >"$tmp/out" 2>&1
rc=$?
if [ $rc -eq 2 ]; then ok "without claimcheck-webhook: exit 2"; else bad "without claimcheck-webhook: exit $rc"; fi
has "without claimcheck-webhook: what to install" "'claimcheck audit' needs claimcheck-webhook.*install it next to claimcheck or on PATH"
ln -s "$top/build/claimcheck-webhook" "$tmp/alone/claimcheck-webhook"
PATH=/usr/bin:/bin timeout 10 "$tmp/alone/claimcheck" audit --help >"$tmp/out" 2>&1
has "claimcheck-webhook next to claimcheck is used" '^usage: claimcheck audit'
run "usage error" 2 --no-such-option
has "usage error: names the option" "unknown option '--no-such-option'"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
