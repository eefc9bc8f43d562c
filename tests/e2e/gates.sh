#!/usr/bin/env bash
# gates.sh - end-to-end tests of the feature-gate side of the command line:
# `claimcheck gates` (text and JSON, checked by parsing), -k ranges,
# unknown and locked gates as usage errors (exit 2) in gates, lint and the
# config file, --runtime-config, and `version` naming the table's newest
# release. Prints `N passed, N failed` last.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
bin="$top/build/claimcheck"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0

ok() { pass=$((pass+1)); }
bad() { echo "FAIL $*"; fail=$((fail+1)); }
expect_rc() {   # NAME WANT CMD...: stdout+stderr to $tmp/out
  local name=$1 want=$2; shift 2
  timeout 30 "$@" >"$tmp/out" 2>&1
  local rc=$?
  if [ $rc -eq "$want" ]; then ok; else bad "$name: exit $rc, want $want"; sed 's/^/    /' "$tmp/out" | head -10; fi
}
contains() { if grep -qE -- "$2" "$tmp/out"; then ok; else bad "$1: output lacks /$2/"; sed 's/^/    /' "$tmp/out" | head -10; fi; }
lacks() { if grep -qE -- "$2" "$tmp/out"; then bad "$1: output has /$2/"; else ok; fi; }

# ---- claimcheck gates, text
expect_rc "gates default" 0 "$bin" gates
contains "gates default version" "^DRA feature gates in Kubernetes 1\.36 \(newest release"
contains "gates DRA locked GA" "^DynamicResourceAllocation +GA +on +on +locked; GA 1\.34"
contains "gates list types alpha off" "^DRAListTypeAttributes +alpha +off +off"
contains "gates consumable beta on" "^DRAConsumableCapacity +beta +on +on"
contains "gates fields listed" "ResourceSlice spec\.devices\[\]\.basic\.taints \(v1alpha3, v1beta1\)"
contains "gates api v1beta1 off" "v1beta1 +served, disabled by default \(needs --runtime-config\); deprecated since 1\.35"
contains "gates api v1alpha3 removed" "v1alpha3 +removed in 1\.34"
lacks "gates no trailing blanks" " $"

expect_rc "gates 1.33" 0 "$bin" gates -k 1.33
contains "gates 1.33 DRA beta off" "^DynamicResourceAllocation +beta +off +off"
contains "gates 1.33 prioritized alpha" "^DRAPrioritizedList +alpha +off +off"
contains "gates 1.33 not yet" "not yet in this version: .*DRAListTypeAttributes \(from 1\.36\)"
contains "gates 1.33 v1 not yet" "v1 +not yet \(added in 1\.34\)"

expect_rc "gates override" 0 "$bin" gates -k 1.33 -g DRAPrioritizedList=true --feature-gates=DRAAdminAccess=true
contains "gates override effective" "^DRAPrioritizedList +alpha +off +on +set by -g"
contains "gates override 2" "^DRAAdminAccess +alpha +off +on +set by -g"

expect_rc "gates 1.37" 0 "$bin" gates -k 1.37
contains "gates 1.37 pre-release" "1\.37 \(pre-release"
contains "gates 1.37 taints GA" "^DRADeviceTaints +GA +on +on"

expect_rc "gates runtime-config" 0 "$bin" gates --runtime-config resource.k8s.io/v1beta2=true
contains "gates runtime-config on" "v1beta2 +served, enabled by --runtime-config"

# ---- claimcheck gates -o json
expect_rc "gates json" 0 "$bin" gates -k 1.35 -g DRAPrioritizedList=false -o json
if python3 - "$tmp/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["version"] == 1 and d["kubeVersion"] == "1.35" and d["prerelease"] is False
g = {x["name"]: x for x in d["gates"]}
p = g["DRAPrioritizedList"]
assert p["stage"] == "beta" and p["default"] is True and p["enabled"] is False and p["overridden"] is True
assert p["gaVersion"] == "1.36" and p["removalPlanned"] == "1.40"
assert any(f["path"] == "spec.devices.requests[].firstAvailable" for f in p["fields"])
dra = g["DynamicResourceAllocation"]
assert dra["locked"] is True and dra["onByDefaultFrom"] == "1.34"
assert "DRAListTypeAttributes" not in g          # absent in 1.35
b = g["DRADeviceBindingConditions"]["fields"][0]
assert b["alsoNeeds"] == "DRAResourceClaimDeviceStatus"
a = {x["version"]: x for x in d["apiVersions"]}
assert a["v1"]["enabled"] and not a["v1beta1"]["enabled"] and a["v1beta1"]["served"]
assert a["v1beta1"]["deprecated"] == "1.35" and a["v1alpha3"]["removed"] == "1.34"
PY
then ok; else bad "gates json content"; fi

# ---- usage errors: exit 2 with kube-apiserver-like messages
expect_rc "unknown gate (gates)" 2 "$bin" gates -g NoSuchGate=true
contains "unknown gate message" "unknown feature gate 'NoSuchGate'"
expect_rc "locked gate (gates)" 2 "$bin" gates -g DynamicResourceAllocation=false
contains "locked gate message" "cannot set feature gate DynamicResourceAllocation to false, feature is locked to true"
expect_rc "gate not in version" 2 "$bin" gates -k 1.33 -g DRAListTypeAttributes=true
contains "gate not in version message" "unknown feature gate 'DRAListTypeAttributes' in Kubernetes 1\.33 \(it exists from 1\.36\)"
expect_rc "removed gate" 2 "$bin" gates -k 1.34 -g DRAControlPlaneController=true
expect_rc "bad gate value" 2 "$bin" gates -g DRAAdminAccess=yes
expect_rc "version too old" 2 "$bin" gates -k 1.25
contains "version range message" "outside the gate table \(1\.26 to 1\.37\)"
expect_rc "version too new" 2 "$bin" gates -k 1.38
expect_rc "unknown api version" 2 "$bin" gates --runtime-config resource.k8s.io/v3=true
expect_rc "bad format" 2 "$bin" gates -o yaml
expect_rc "gates help" 0 "$bin" gates --help
contains "gates help text" "usage: claimcheck gates"

cat > "$tmp/pod.yaml" <<'Y'
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
  - name: c
    image: busybox
    resources:
      claims:
      - name: gpu
  resourceClaims:
  - name: gpu
    resourceClaimTemplateName: single-gpu
Y
expect_rc "lint unknown gate" 2 "$bin" lint -g NoSuchGate=true "$tmp/pod.yaml"
contains "lint unknown gate message" "unknown feature gate 'NoSuchGate'"
expect_rc "lint locked gate" 2 "$bin" lint -k 1.36 -g DRAAdminAccess=false "$tmp/pod.yaml"
contains "lint locked gate message" "cannot set feature gate DRAAdminAccess to false, feature is locked to true"
printf 'featureGates:\n  Bogus: true\n' > "$tmp/cfg.yaml"
expect_rc "config unknown gate" 2 "$bin" lint -c "$tmp/cfg.yaml" "$tmp/pod.yaml"
contains "config unknown gate message" "unknown feature gate 'Bogus'"

# ---- lint semantics of -k / -g / --runtime-config / config file
expect_rc "lint 1.33 drops claims" 1 "$bin" lint --no-hints -k 1.33 "$tmp/pod.yaml"
contains "lint 1.33 message" "error\[feature-gate-disabled\].*DynamicResourceAllocation, which is off in Kubernetes 1\.33"
expect_rc "lint 1.33 gate on" 0 "$bin" lint --no-hints -k 1.33 -g DynamicResourceAllocation=true "$tmp/pod.yaml"
contains "lint 1.33 gate on warns" "warning\[feature-gate-prerelease\].*beta in Kubernetes 1\.33"
expect_rc "lint 1.34 clean" 0 "$bin" lint --no-hints -k 1.34 "$tmp/pod.yaml"
lacks "lint 1.34 no gate finding" "feature-gate"
printf 'kubeVersion: "1.33"\nfeatureGates:\n  DynamicResourceAllocation: true\n' > "$tmp/cfg133.yaml"
expect_rc "config kube version and gates" 0 "$bin" lint --no-hints -c "$tmp/cfg133.yaml" "$tmp/pod.yaml"
contains "config gates applied" "beta in Kubernetes 1\.33"
expect_rc "flag beats config" 0 "$bin" lint --no-hints -c "$tmp/cfg133.yaml" -k 1.36 "$tmp/pod.yaml"
lacks "flag beats config output" "feature-gate"

# the two gate rules share one walk per object (gates.c, "gates.found"):
# each object gets its own findings, with either rule on alone too
{ printf -- '---\n'; cat "$tmp/pod.yaml"; printf -- '---\n'
  sed 's/^  name: p$/  name: q/; /resourceClaims:/,$d; /resources:/,/- name: gpu/d' "$tmp/pod.yaml"
  printf -- '---\n'; sed 's/^  name: p$/  name: r/' "$tmp/pod.yaml"; } > "$tmp/pods.yaml"
count() { n=$(grep -cE -- "$2" "$tmp/out"); if [ "$n" = "$3" ]; then ok; else bad "$1: $n lines match /$2/, want $3"; sed 's/^/    /' "$tmp/out" | head -10; fi; }
expect_rc "pods 1.33 gate on" 0 "$bin" lint --no-hints -k 1.33 -g DynamicResourceAllocation=true "$tmp/pods.yaml"
count "pods prerelease per field" "warning\[feature-gate-prerelease\]" 4
count "pods clean pod has none" "pods.yaml:(1[6-9]|2[0-4]):.*feature-gate" 0
expect_rc "pods prerelease alone" 0 "$bin" lint --no-hints --disable feature-gate-disabled -k 1.33 -g DynamicResourceAllocation=true "$tmp/pods.yaml"
count "pods prerelease alone per field" "warning\[feature-gate-prerelease\]" 4
expect_rc "pods disabled alone" 1 "$bin" lint --no-hints --disable feature-gate-prerelease -k 1.33 "$tmp/pods.yaml"
count "pods disabled alone per field" "error\[feature-gate-disabled\]" 4
expect_rc "pods both, gate off" 1 "$bin" lint --no-hints -k 1.33 "$tmp/pods.yaml"
count "pods both, gate off per field" "error\[feature-gate-disabled\]" 4
lacks "pods both, gate off no prerelease" "feature-gate-prerelease"

cat > "$tmp/claim.yaml" <<'Y'
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata:
  name: c
spec:
  devices:
    requests:
    - name: gpu
      deviceClassName: gpu.example.com
Y
expect_rc "v1beta1 off by default" 1 "$bin" lint --no-hints "$tmp/claim.yaml"
contains "v1beta1 unavailable" "error\[api-version-unavailable\].*not served by default in Kubernetes 1\.36"
expect_rc "v1beta1 enabled" 0 "$bin" lint --no-hints --runtime-config resource.k8s.io/v1beta1=true "$tmp/claim.yaml"
contains "v1beta1 deprecated" "warning\[api-version-deprecated\].*deprecated since Kubernetes 1\.35"
expect_rc "json kubeVersion" 1 "$bin" lint -k 1.35 -o json "$tmp/claim.yaml"
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["kubeVersion"]=="1.35"; assert {f["rule"] for f in d["findings"]}=={"api-version-unavailable"}; assert d["findings"][0]["category"]=="api-version"' "$tmp/out"; then ok; else bad "json kubeVersion and category"; fi

# ---- version names the table's newest release
expect_rc "version" 0 "$bin" version
contains "version newest" "1\.36"

echo "gates: $pass passed, $fail failed"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
