#!/usr/bin/env bash
# match.sh - end-to-end tests of `claimcheck match`: matches, misses and
# runtime errors against small inventories (from tests/rules/), the class's
# selectors first, node placement, per-node counts, JSON (parsed with
# python3 when present), exit codes and usage errors.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
bin="$top/build/claimcheck"
inv="$top/tests/rules/claim-unsatisfiable/inventory-cluster.yaml"
net="$top/tests/rules/claim-unsatisfiable/inventory-network.yaml"
mixed="$top/tests/rules/selector-runtime-error/inventory-mixed.yaml"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0

ok() { pass=$((pass+1)); }
bad() { echo "FAIL $*"; fail=$((fail+1)); }
expect_rc() {   # NAME WANT CMD...: output in $tmp/out
  local name=$1 want=$2; shift 2
  timeout 60 "$@" >"$tmp/out" 2>&1
  local rc=$?
  if [ $rc -eq "$want" ]; then ok; else bad "$name: exit $rc, want $want"; sed 's/^/    /' "$tmp/out" | head -10; fi
}
contains() {
  if grep -qE -- "$2" "$tmp/out"; then ok; else bad "$1: output lacks /$2/"; sed 's/^/    /' "$tmp/out" | head -20; fi
}
lacks() {
  if grep -qE -- "$2" "$tmp/out"; then bad "$1: output has /$2/"; sed 's/^/    /' "$tmp/out" | head -20; else ok; fi
}

# matches with counts and placement
expect_rc "model" 0 "$bin" match -i "$inv" "device.attributes['gpu.example.com'].model == 'LATEST-GPU-MODEL'"
contains "model: summary" '^10 devices in 3 pools on 4 nodes: 8 match, 2 do not, 0 raise an error'
contains "model: placement" 'worker-1/gpu-0  \(gpu.example.com, node worker-1\)'
contains "model: taint shown" 'worker-3/gpu-0  \(gpu.example.com, node worker-3, tainted\)'
contains "model: miss" 'worker-2/gpu-0  rejected by expression'
contains "model: per node" '^  worker-1: 4 / 4$'
contains "model: per node miss" '^  worker-2: 0 / 2$'
lacks "model: node without devices" 'worker-4:'

# the class's selectors come first
expect_rc "class" 0 "$bin" match -i "$inv" --class gpu.example.com "device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0"
contains "class: listed" 'class selector #1: device.driver == .gpu.example.com.'
contains "class: all match" '10 match, 0 do not'
expect_rc "unknown class" 2 "$bin" match -i "$inv" --class nope.example.com "true"
contains "unknown class: message" "DeviceClass 'nope.example.com' is not in the inventory"

# nothing matches: exit 1
expect_rc "no match" 1 "$bin" match -i "$inv" "device.capacity['gpu.example.com'].memory.compareTo(quantity('160Gi')) >= 0"
contains "no match: summary" '0 match, 10 do not'

# runtime errors: named per device, exit 1 even though devices match
expect_rc "runtime error" 1 "$bin" match -i "$mixed" --class gpu.example.com "device.attributes['gpu.example.com'].memoryGB >= 40"
contains "runtime error: count" '2 match, 1 do not, 2 raise an error'
contains "runtime error: device" 'node-b/gpu-0  expression: no such key: memoryGB'
contains "runtime error: fix" 'has\(\) or .\?x.orValue\(\)'
contains "runtime error: class filtered the AMD gpu" 'node-c/gpu-0  rejected by class selector #1'
expect_rc "guarded" 0 "$bin" match -i "$mixed" --class gpu.example.com "device.attributes['gpu.example.com'].?memoryGB.orValue(0) >= 40"

# network-attached devices: selector and all-nodes placement, newest generation only
expect_rc "network" 0 "$bin" match -i "$net" "device.driver == 'fpga.example.com'"
contains "network: generation" '^3 devices in 2 pools on 2 nodes'
contains "network: selector placement" 'fabric-zone-a/fpga-0  \(fpga.example.com, nodeSelector \(1 node\)\)'
contains "network: all nodes" 'fabric-shared/fpga-9  \(fpga.example.com, all nodes\)'
contains "network: edge-2 sees the shared one" '^  edge-2: 1 / 1$'
contains "network: edge-1 sees all" '^  edge-1: 3 / 3$'

# directories (recursed, manifests only) and stdin
mkdir -p "$tmp/dir/sub"
cp "$inv" "$tmp/dir/a.yaml"; cp "$net" "$tmp/dir/sub/b.yml"; echo "not yaml: [" > "$tmp/dir/notes.txt"
expect_rc "directory" 0 "$bin" match -i "$tmp/dir" "true"
contains "directory: both files" '^13 devices in 5 pools on 6 nodes'
expect_rc "stdin" 0 sh -c "cat '$inv' | '$bin' match -i - true"
contains "stdin: read" '^10 devices in 3 pools on 4 nodes'

# JSON
expect_rc "json" 0 "$bin" match -i "$inv" -o json "device.attributes['gpu.example.com'].index == 0"
if command -v python3 >/dev/null; then
  if python3 - "$tmp/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = d["counts"]
assert c == {"devices": 10, "match": 3, "noMatch": 7, "error": 0, "nodes": 4,
             "nodesWithMatch": 3, "incompletePools": 0}, c
dev = [x for x in d["devices"] if x["device"] == "gpu-1" and x["pool"] == "worker-2"][0]
assert dev["result"] == "noMatch" and dev["selector"] == "expression", dev
assert dev["node"] == "worker-2" and dev["placement"] == "nodeName", dev
assert {"name": "worker-1", "devices": 4, "match": 1} in d["nodes"], d["nodes"]
assert d["class"] is None
PY
  then ok; else bad "json: content"; fi
else
  contains "json: counts" '"match":3'
fi
expect_rc "json error" 1 "$bin" match -i "$mixed" -o json "device.attributes['gpu.example.com'].memoryGB >= 40"
contains "json error: message" '"error":"no such key: memoryGB"'

# -k/-g select the CEL environment
expect_rc "gate off" 2 "$bin" match -i "$inv" -g DRAConsumableCapacity=false "device.allowMultipleAllocations"
expect_rc "gate on" 1 "$bin" match -i "$inv" -g DRAConsumableCapacity=true "device.allowMultipleAllocations"

# usage errors
expect_rc "no expression" 2 "$bin" match -i "$inv"
expect_rc "no inventory" 2 "$bin" match "true"
expect_rc "compile error" 2 "$bin" match -i "$inv" "device.attributes["
contains "compile error: message" 'expression: 1:'
expect_rc "bad format" 2 "$bin" match -i "$inv" -o yaml "true"
expect_rc "missing file" 2 "$bin" match -i "$tmp/nope.yaml" "true"
expect_rc "help" 0 "$bin" match --help
contains "help: usage" '^usage: claimcheck match'

# the list is bounded unless --all
python3 - "$tmp/big.yaml" <<'PY' 2>/dev/null || true
import sys
out = []
for n in range(30):
    devs = "".join(f"  - name: gpu-{i}\n    attributes:\n      index: {{int: {i}}}\n" for i in range(2))
    out.append(f"apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata:\n  name: n{n}\nspec:\n  driver: gpu.example.com\n  nodeName: node-{n}\n  pool: {{name: node-{n}, generation: 0, resourceSliceCount: 1}}\n  devices:\n{devs}")
open(sys.argv[1], "w").write("---\n".join(out))
PY
if [ -f "$tmp/big.yaml" ]; then
  expect_rc "bounded" 0 "$bin" match -i "$tmp/big.yaml" "true"
  contains "bounded: more" '\.\.\. and 40 more \(--all lists them\)'
  expect_rc "all" 0 "$bin" match -i "$tmp/big.yaml" --all "true"
  lacks "all: nothing elided" 'and [0-9]+ more'
fi

echo "match: $pass passed, $fail failed"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
