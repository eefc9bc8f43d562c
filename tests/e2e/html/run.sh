#!/usr/bin/env bash
# tests/e2e/html/run.sh - `-o html` in a real browser: Debian's chromium
# (installed here when missing and possible) driven headless by
# puppeteer-core (npm, tests/e2e/npm-deps.sh) through check.js. Pages:
#  - lint with an inventory (devices by node, driver and pool, counters,
#    the claim that cannot be satisfied highlighted, what a claim could
#    take);
#  - an audit of the planted cluster (tests/e2e/audit): allocated devices
#    and who holds them, the blocked claim; its screenshot is kept in
#    build/artifacts/device-map.png (docs/img/device-map.png is one);
#  - lint without devices (findings only);
#  - a 5,000-node, 40,000-device inventory with 1,000 objects
#    (tests/bench/alloc/gen.py): page size and time to the first drawn page
#    within generous bounds (HTML_MAX_MB, HTML_MAX_LOAD_MS), and printed.
# Expected counts come from the inputs (Python over the YAML) and the
# JSON report of the same run, not from the page. Last line:
# "N passed, N failed[, N skipped]".
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
here="$top/tests/e2e/html"
bin="$top/build/claimcheck"
tmp=$(mktemp -d)
. "$top/tests/e2e/lib.sh"
. "$top/tests/e2e/audit/lib.sh"
trap 'fakeapi_stop_all; rm -rf "$tmp"' EXIT
skip() { echo "skipped: $1"; echo "$pass passed, $fail failed, 1 skipped"; exit 0; }

chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "installing chromium (apt-get)"
  DEBIAN_FRONTEND=noninteractive timeout 900 apt-get install -y -qq chromium >"$tmp/apt.log" 2>&1 \
    || { apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive timeout 900 apt-get install -y -qq chromium >"$tmp/apt.log" 2>&1; }
  chromium=$(command -v chromium || true)
fi
[ -n "$chromium" ] || skip "HTML in a browser (no chromium, and it cannot be installed here: apt-get install chromium as root)"
npm_why=$(source "$top/tests/e2e/npm-deps.sh" && npm_ensure) || skip "HTML in a browser (puppeteer-core from npm: $npm_why)"
command -v python3 >/dev/null && python3 -c 'import yaml' 2>/dev/null || skip "HTML in a browser (python3 with PyYAML)"

# expected counts from the inputs: nodes (Node objects and slice nodeNames),
# devices, nodes with devices, claims and templates
counts() { # JSON-REPORT FILE... -> a JSON object
  python3 - "$@" <<'PY'
import json, sys, yaml
nodes, devs, withdev, claims = set(), 0, set(), 0
for p in sys.argv[2:]:
    for d in yaml.safe_load_all(open(p)):
        if not d:
            continue
        for o in (d.get("items") or [d]):
            k = o.get("kind")
            if k == "Node":
                nodes.add(o["metadata"]["name"])
            elif k == "ResourceSlice":
                n = o["spec"].get("nodeName")
                ds = o["spec"].get("devices") or []
                devs += len(ds)
                if n:
                    nodes.add(n)
                    if ds:
                        withdev.add(n)
            elif k in ("ResourceClaim", "ResourceClaimTemplate"):
                claims += 1
f = json.load(open(sys.argv[1]))["findings"]
print(json.dumps({"nodes": len(nodes), "devices": devs, "nodesWithDevices": len(withdev),
                  "claims": claims, "findings": len(f)}))
PY
}

# ---- pages ----------------------------------------------------------------
cu="$top/tests/rules/claim-unsatisfiable"
"$bin" lint -i "$cu/inventory-cluster.yaml" -i "$cu/inventory-partitions.yaml" "$here/workload.yaml" \
  -o html --output "$tmp/lint.html" -o json --output "$tmp/lint.json" >/dev/null 2>&1
[ -s "$tmp/lint.html" ] && ok "lint -o html written" || bad "lint -o html"
lint_counts=$(counts "$tmp/lint.json" "$cu/inventory-cluster.yaml" "$cu/inventory-partitions.yaml" "$here/workload.yaml")

audit_counts='{}'
if audit_certs "$tmp/srv" && fakeapi_start "$tmp/srv" "$top/tests/e2e/audit/cluster.yaml" --token t; then
  kubeconfig_write "$tmp/kc.yaml" "$FAKEAPI_URL" "$tmp/srv/ca.crt" "    token: t"
  "$bin" audit --kubeconfig "$tmp/kc.yaml" -o html --output "$tmp/audit.html" -o json --output "$tmp/audit.json" >/dev/null 2>&1
  fakeapi_stop
  [ -s "$tmp/audit.html" ] && ok "audit -o html written" || bad "audit -o html"
  audit_counts=$(counts "$tmp/audit.json" "$top/tests/e2e/audit/cluster.yaml")
else
  bad "stand-in apiserver for the audit page"
fi

mkdir -p "$tmp/m"
cat >"$tmp/m/bad.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: undeclared, namespace: ml}
spec:
  containers:
  - name: c
    image: i
    resources:
      claims: [{name: gpu}]
YAML
(cd "$tmp" && "$bin" lint m/bad.yaml -o html --output plain.html -o json --output plain.json >/dev/null 2>&1)
plain_findings=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["findings"]))' "$tmp/plain.json")

mkdir -p "$tmp/big"
python3 "$top/tests/bench/alloc/gen.py" "$tmp/big" 5000 1000 >/dev/null 2>&1 || bad "5000-node inventory"
t0=$(date +%s%N)
"$bin" lint -i "$tmp/big/inventory.yaml" "$tmp/big/objects.yaml" -o html --output "$tmp/big.html" \
  -o json --output "$tmp/big.json" >/dev/null 2>&1
t1=$(date +%s%N)
echo "    (5000-node report written in $(( (t1 - t0) / 1000000 )) ms, $(wc -c <"$tmp/big.html") bytes)"
big_counts=$(counts "$tmp/big.json" "$tmp/big/inventory.yaml" "$tmp/big/objects.yaml")
big_search=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["findings"][0]["object"]["name"])' "$tmp/big.json")
max_bytes=$(( ${HTML_MAX_MB:-40} * 1024 * 1024 ))
max_load=${HTML_MAX_LOAD_MS:-30000}

mkdir -p "$top/build/artifacts"
python3 - "$tmp/spec.json" "$tmp" "$top/build/artifacts/device-map.png" \
  "$lint_counts" "$audit_counts" "$plain_findings" "$big_counts" "$max_bytes" "$max_load" "$big_search" <<'PY'
import json, sys
out, tmp, shot = sys.argv[1:4]
lint, audit, plain, big = json.loads(sys.argv[4]), json.loads(sys.argv[5]), int(sys.argv[6]), json.loads(sys.argv[7])
max_bytes, max_load, big_search = int(sys.argv[8]), int(sys.argv[9]), sys.argv[10]
pages = [
    {"label": "lint", "file": tmp + "/lint.html",
     "expect": dict(lint, driver="gpu.example.com", counters=True, nodeSearch="worker-2",
                    problem="ml/five", problemRule="claim-unsatisfiable",
                    select="ml/one-gpu", selectDevices=1, namespace="team",
                    where="workload.yaml:", rule="claim-unsatisfiable")},
    {"label": "no devices", "file": tmp + "/plain.html",
     "expect": {"nodes": 0, "devices": 0, "noDevices": True, "findings": plain,
                "where": "m/bad.yaml:9:"}},
    {"label": "5000 nodes", "file": tmp + "/big.html",
     "expect": dict(big, driver="gpu.nvidia.com", maxBytes=max_bytes, maxLoadMs=max_load,
                    nodeSearch="gpu-node-04321", search=big_search)},
]
if audit:
    pages.insert(1, {"label": "audit", "file": tmp + "/audit.html", "screenshot": shot,
                     "expect": dict(audit, driver="gpu.example.com", held=3,
                                    problem="ml/train", problemRule="claim-blocked",
                                    select="ml/old-run", selectDevices=2, selectHeld=2,
                                    namespace="ml", rule="claim-idle")})
json.dump({"pages": pages}, open(out, "w"))
PY
(cd "$here" && timeout 600 node check.js "$chromium" "$tmp/spec.json") >"$tmp/check.out" 2>&1
grep '^METRIC' "$tmp/check.out" | sed 's/^/    /'
tally "$tmp/check.out"
grep -q '^[0-9]* passed, [0-9]* failed' "$tmp/check.out" || { bad "check.js crashed"; tail -20 "$tmp/check.out"; }
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
