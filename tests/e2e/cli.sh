#!/usr/bin/env bash
# cli.sh - end-to-end tests of the `claimcheck` command line: commands,
# flags, exit codes, stdin, directories, output formats (checked by
# parsing them), config files, suppressions and hostile input.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
bin="$top/build/claimcheck"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0

ok() { pass=$((pass+1)); }
bad() { echo "FAIL $*"; fail=$((fail+1)); }
# expect_rc NAME WANT CMD...: runs CMD (stdout+stderr to $tmp/out)
expect_rc() {
  local name=$1 want=$2; shift 2
  timeout "${EXPECT_TIMEOUT:-60}" "$@" >"$tmp/out" 2>&1
  local rc=$?
  if [ $rc -eq "$want" ]; then ok; else bad "$name: exit $rc, want $want"; sed 's/^/    /' "$tmp/out" | head -10; fi
}
contains() {  # NAME PATTERN: $tmp/out must match
  if grep -qE -- "$2" "$tmp/out"; then ok; else bad "$1: output lacks /$2/"; sed 's/^/    /' "$tmp/out" | head -10; fi
}
lacks() {
  if grep -qE -- "$2" "$tmp/out"; then bad "$1: output has /$2/"; sed 's/^/    /' "$tmp/out" | head -10; else ok; fi
}

cat > "$tmp/clean.yaml" <<'EOF'
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: single-gpu
  namespace: ml
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.example.com
---
apiVersion: v1
kind: Pod
metadata:
  name: trainer
  namespace: ml
spec:
  containers:
  - name: train
    image: busybox
    resources:
      claims:
      - name: gpu
  resourceClaims:
  - name: gpu
    resourceClaimTemplateName: single-gpu
EOF
cat > "$tmp/warn.yaml" <<'EOF'
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: ml
spec:
  replicas: 3
  template:
    spec:
      containers:
      - name: web
        image: busybox
        resources:
          claims:
          - name: gpu
      resourceClaims:
      - name: gpu
        resourceClaimName: shared
EOF
cat > "$tmp/error.yaml" <<'EOF'
apiVersion: v1
kind: Pod
metadata:
  name: cuda
  namespace: ml
spec:
  containers:
  - name: cuda
    image: busybox
    resources:
      requests:
        nvidia.com/gpu: 1
EOF
printf 'a: [unclosed\n' > "$tmp/broken.yaml"

# ---- commands
expect_rc "--help" 0 "$bin" --help; contains "--help" "usage: claimcheck"
expect_rc "no args" 2 "$bin"
expect_rc "version" 0 "$bin" version; contains "version" "claimcheck [0-9]+\.[0-9]+\.[0-9]+ .*1\.[0-9]+"
# one version source: git describe in a tree with tags, else VERSION
want=$(cd "$top" && [ -e .git ] && git describe --tags --dirty 2>/dev/null | sed 's/^v//')
[ -n "$want" ] || want=$(cat "$top/VERSION")
contains "version is '$want'" "^claimcheck ${want//./\\.} "
expect_rc "--version" 0 "$bin" --version; contains "--version" "^claimcheck ${want//./\\.} "
expect_rc "unknown command" 2 "$bin" frobnicate
expect_rc "rules" 0 "$bin" rules; contains "rules" "^claim-schema +schema +error"
expect_rc "rules -o json" 0 "$bin" rules -o json
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert all({"id","category","severity","summary","hint"} <= set(r) for r in d) and len(d) > 10' "$tmp/out"; then ok; else bad "rules -o json is not the expected JSON"; fi
expect_rc "explain" 0 "$bin" explain shared-claim-replicas; contains "explain" "Why it matters"; contains "explain" "Fixed:"
expect_rc "explain unknown" 2 "$bin" explain no-such-rule

# ---- claimcheck cel
cat > "$tmp/dev.yaml" <<'EOF'
driver: gpu.example.com
name: gpu-0
attributes:
  model: {string: LATEST-GPU-MODEL}
  driverVersion: {version: 1.2.3}
capacity:
  memory: {value: 80Gi}
EOF
expect_rc "cel literal" 0 "$bin" cel '[1, 2].map(x, x * 2)'; contains "cel literal" '^\[2, 4\]$'
expect_rc "cel device" 0 "$bin" cel --device "$tmp/dev.yaml" "device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0 && device.attributes['gpu.example.com'].driverVersion.isGreaterThan(semver('1.0.0'))"
contains "cel device" '^true$'
expect_rc "cel no such key" 1 "$bin" cel --device "$tmp/dev.yaml" "device.attributes['gpu.example.com'].memoryGB > 1"
contains "cel no such key" '^error: no such key: memoryGB'
expect_rc "cel unknown domain" 0 "$bin" cel --device "$tmp/dev.yaml" "device.attributes['other.example.com'].size() == 0"
expect_rc "cel syntax" 1 "$bin" cel '1 +'; contains "cel syntax" '^error: .*column'
expect_rc "cel gate off" 1 "$bin" cel -k 1.34 'device.allowMultipleAllocations'
expect_rc "cel usage" 2 "$bin" cel
# an expression prints any value; --selector wants bool (compile.go)
expect_rc "cel int value" 0 "$bin" cel 'sign(quantity("-1"))'; contains "cel int value" '^-1$'
expect_rc "cel selector not bool" 1 "$bin" cel --selector 'sign(quantity("-1"))'
contains "cel selector not bool" '^error: compilation failed: must evaluate to bool or the unknown type, not int'
expect_rc "cel selector on device" 0 "$bin" cel --selector --device "$tmp/dev.yaml" "'gpu.example.com' in device.attributes && !('other.example.com' in device.attributes)"
contains "cel selector on device" '^true$'
# --cost: Kubernetes' estimate (compile.go's sizes) and the runtime cost
expect_rc "cel cost" 0 "$bin" cel --cost --device "$tmp/dev.yaml" "device.attributes.exists_one(x, x == 'gpu.example.com')"
contains "cel cost" '^cost: estimated 4\.\.164, runtime 9$'
# StoredExpressions declares includes() whatever DRAListTypeAttributes says
expect_rc "cel new: includes gated" 1 "$bin" cel --selector "device.attributes['gpu.example.com'].model.includes('x')"
contains "cel new: includes gated" "undeclared reference to 'includes'"
expect_rc "cel stored: includes" 0 "$bin" cel --selector --stored --device "$tmp/dev.yaml" "device.attributes['gpu.example.com'].model.includes('LATEST-GPU-MODEL')"
contains "cel stored: includes" '^true$'
expect_rc "cel bad device" 2 "$bin" cel --device "$tmp/none.yaml" 'true'

# ---- claimcheck match: an inventory slice is stored, and one stored while
# DRAListTypeAttributes was on keeps its list values; with the gate off the
# scheduler fails every selector on such a device (compile.go,
# getAttributeValue: "unsupported attribute value"), and on a device with
# an attribute of no known type ({}) whatever the gate
cat > "$tmp/lists.yaml" <<'EOF'
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s1}
spec:
  driver: dra.example.com
  nodeName: n1
  pool: {name: p, generation: 1, resourceSliceCount: 1}
  devices:
  - name: d0
    attributes:
      ids: {ints: [1, 2]}
      model: {string: a100}
EOF
expect_rc "match list attribute, gate off" 1 "$bin" match -i "$tmp/lists.yaml" "device.attributes['dra.example.com'].model == 'a100'"
contains "match list attribute, gate off" '0 match, 0 do not, 1 raise an error'
contains "match list attribute, gate off" 'attribute ids: unsupported attribute value'
expect_rc "match list attribute, gate on" 0 "$bin" match -g DRAListTypeAttributes=true -i "$tmp/lists.yaml" "device.attributes['dra.example.com'].model == 'a100'"
contains "match list attribute, gate on" '1 match, 0 do not, 0 raise an error'
sed 's/ids: {ints: \[1, 2\]}/ids: {}/' "$tmp/lists.yaml" > "$tmp/unknown.yaml"
expect_rc "match attribute of no known type" 1 "$bin" match -g DRAListTypeAttributes=true -i "$tmp/unknown.yaml" "device.attributes['dra.example.com'].model == 'a100'"
contains "match attribute of no known type" 'attribute ids: unsupported attribute value'
expect_rc "match list attribute gate on" 0 "$bin" match -g DRAListTypeAttributes=true -i "$tmp/lists.yaml" "'ids' in device.attributes['dra.example.com']"

# ---- claimcheck completion: scripts generated from the command tables
expect_rc "completion bash" 0 "$bin" completion bash; cp "$tmp/out" "$tmp/completion.bash"
if bash -n "$tmp/completion.bash"; then ok; else bad "completion bash: not bash"; fi
# complete WORD...: what the script offers for the last word, in a bash that
# sourced it (COMP_WORDS simulation; the function from `complete -p`)
complete_words() {
  bash -c '
    source "$1" || exit 1; shift
    fn=$(complete -p claimcheck | sed -E "s/.*-F ([^ ]+).*/\1/")
    COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
    "$fn" claimcheck "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
    printf "%s\n" "${COMPREPLY[@]}"
  ' _ "$tmp/completion.bash" "$@" 2>&1 | paste -sd ' ' -
}
completes() {  # WANT WORD...: the offers, space-separated, must be WANT
  local want=$1; shift
  local got; got=$(complete_words "$@")
  if [ "$got" = "$want" ]; then ok; else bad "completion of '$*': '$got', want '$want'"; fi
}
completes "lint" claimcheck l
completes "--format" claimcheck lint --fo
completes "shared-claim-replicas" claimcheck explain shared-
completes "json junit" claimcheck lint -o j
completes "sarif" claimcheck lint --format = s          # --format=s, '=' a word break
completes "--format=junit" claimcheck lint --format=ju  # '=' no word break
completes "warning" claimcheck lint --fail-on w
# --disable takes a comma list of rules and categories: the last item
# completes, from `claimcheck rules -o json`
ids_s=$("$bin" rules -o json | python3 -c '
import json, sys
r = json.load(sys.stdin)
print(" ".join(sorted({"pod-claim-unused," + w for x in r for w in (x["id"], x["category"]) if w.startswith("s")})))')
got=$(complete_words claimcheck lint --disable pod-claim-unused,s | tr ' ' '\n' | sort | paste -sd ' ' -)
if [ -n "$ids_s" ] && [ "$got" = "$ids_s" ]; then ok; else bad "completion of --disable pod-claim-unused,s: '$got', want '$ids_s'"; fi
completes "$tmp/clean.yaml" claimcheck lint "$tmp/cle"
completes "match" claimcheck help ma
completes "zsh" claimcheck completion z
completes "" claimcheck lint -k 1.3                     # a version: nothing to offer
# every command and every visible option of lint, from the tables
for c in lint rules explain gates cel match version completion; do
  if complete_words claimcheck "" | grep -qw -- "$c"; then ok; else bad "completion lacks command '$c'"; fi
done
lint_opts=$("$bin" lint --help | grep -oE '^ +(-[a-z], )?--[a-z-]+' | grep -oE -- '--[a-z-]+')
if [ "$(echo "$lint_opts" | wc -l)" -ge 14 ]; then ok; else bad "lint --help lists $(echo "$lint_opts" | wc -l) options"; fi
lint_offers=$(complete_words claimcheck lint --)
for o in $lint_opts; do
  case " $lint_offers " in *" $o "*) ok;; *) bad "completion lacks lint option '$o'";; esac
done
expect_rc "completion zsh" 0 "$bin" completion zsh; cp "$tmp/out" "$tmp/completion.zsh"
if command -v zsh >/dev/null 2>&1; then
  if zsh -n "$tmp/completion.zsh"; then ok; else bad "completion zsh: zsh -n fails"; fi
  # it registers itself with compinit when sourced
  if [ "$(zsh -f -c "autoload -U compinit; compinit -u -D; source '$tmp/completion.zsh'; print -r -- \${_comps[claimcheck]}")" = _claimcheck ]; then ok; else bad "completion zsh: not registered for claimcheck"; fi
else
  echo "skipped: completion zsh: zsh is not installed (apt-get install -y zsh)"
fi
expect_rc "completion fish" 2 "$bin" completion fish; contains "completion fish" "no completion for 'fish'"
expect_rc "completion, no shell" 2 "$bin" completion

# ---- README lists every rule (keeps the rule table true)
for id in $("$bin" rules | awk '{print $1}'); do
  if grep -q "^| \`$id\` |" "$top/README.md"; then ok; else bad "README.md rule table lacks '$id'"; fi
done

# ---- exit codes
expect_rc "clean" 0 "$bin" lint "$tmp/clean.yaml"; contains "clean" "^2 objects in 1 file: 0 errors, 0 warnings$"
expect_rc "warning only" 0 "$bin" lint "$tmp/warn.yaml"; contains "warning" "warning\[shared-claim-replicas\]"
expect_rc "--fail-on warning" 1 "$bin" lint --fail-on warning "$tmp/warn.yaml"
expect_rc "error" 1 "$bin" lint "$tmp/error.yaml"
expect_rc "--fail-on never" 0 "$bin" lint --fail-on never "$tmp/error.yaml"
expect_rc "parse error" 2 "$bin" lint "$tmp/broken.yaml"; contains "parse error" "broken.yaml:2:1: error\[input-parse\]"
expect_rc "parse error + findings" 2 "$bin" lint "$tmp/broken.yaml" "$tmp/error.yaml"; contains "both" "extended-resource-limits"
expect_rc "unknown flag" 2 "$bin" lint --bogus "$tmp/clean.yaml"
expect_rc "missing file" 2 "$bin" lint "$tmp/nope.yaml"; contains "missing file" "cannot read"
expect_rc "unknown format" 2 "$bin" lint -o xml "$tmp/clean.yaml"
expect_rc "bad --fail-on" 2 "$bin" lint --fail-on sometimes "$tmp/clean.yaml"
# --fail-on RULE=LEVEL: that rule's own threshold, beside the global one
expect_rc "--fail-on RULE=warning" 1 "$bin" lint --fail-on shared-claim-replicas=warning "$tmp/warn.yaml"
expect_rc "--fail-on RULE=never" 0 "$bin" lint --fail-on extended-resource-limits=never "$tmp/error.yaml"
contains "--fail-on RULE=never still reports" "error\[extended-resource-limits\]"
expect_rc "--fail-on other RULE=never" 1 "$bin" lint --fail-on shared-claim-replicas=never "$tmp/error.yaml"
expect_rc "--fail-on never + RULE=error" 1 "$bin" lint --fail-on never --fail-on extended-resource-limits=error "$tmp/error.yaml"
expect_rc "--fail-on RULE= last wins" 0 "$bin" lint --fail-on extended-resource-limits=error --fail-on extended-resource-limits=never "$tmp/error.yaml"
expect_rc "--fail-on RULE= junit" 1 "$bin" lint -o junit --fail-on never --fail-on extended-resource-limits=error "$tmp/error.yaml"
contains "--fail-on RULE= junit failure" '<failure type="extended-resource-limits"'
expect_rc "--fail-on RULE= junit never" 0 "$bin" lint -o junit --fail-on extended-resource-limits=never "$tmp/error.yaml"
lacks "--fail-on RULE= junit no failure" '<failure type="extended-resource-limits"'
expect_rc "--fail-on RULE typo" 2 "$bin" lint --fail-on extended-resource-limit=never "$tmp/error.yaml"
contains "--fail-on RULE did you mean" "unknown rule 'extended-resource-limit' \(did you mean 'extended-resource-limits'\?\)"
expect_rc "--fail-on RULE bad level" 2 "$bin" lint --fail-on extended-resource-limits=sometimes "$tmp/error.yaml"
expect_rc "bad -k" 2 "$bin" lint -k banana "$tmp/clean.yaml"
expect_rc "bad -g" 2 "$bin" lint -g DRAAdminAccess=maybe "$tmp/clean.yaml"
expect_rc "--disable" 0 "$bin" lint --disable extended-resource-limits "$tmp/error.yaml"
expect_rc "--disable category" 0 "$bin" lint --disable schema "$tmp/error.yaml"
expect_rc "--disable unknown" 2 "$bin" lint --disable no-such-rule "$tmp/error.yaml"; contains "--disable unknown" "unknown rule or category 'no-such-rule'"

# ---- stdin, directories, JSON input, lists
expect_rc "stdin" 1 sh -c "\"$bin\" lint --no-hints < \"$tmp/error.yaml\""; contains "stdin" "^-:12:9: error\[extended-resource-limits\] Pod ml/cuda"
expect_rc "stdin dash" 1 sh -c "\"$bin\" lint - < \"$tmp/error.yaml\""
expect_rc "stdin not a terminal, no PATH" 1 sh -c "cat \"$tmp/error.yaml\" | \"$bin\" lint"
# a big file (mapped; its pages let go as they are read, the pods' read
# again in run_check) says what the same stream on stdin (read) says
for f in "$top"/tests/rules/*/fail-*.yaml; do printf -- '---\n'; cat "$f"; printf '\n'; done >"$tmp/one.yaml"
for _ in 1 2 3 4 5 6 7 8 9 10; do cat "$tmp/one.yaml"; done >"$tmp/big.yaml"
"$bin" lint --no-hints "$tmp/big.yaml" 2>&1 | sed "s|^$tmp/big.yaml:|-:|" >"$tmp/big.file"
"$bin" lint --no-hints - <"$tmp/big.yaml" >"$tmp/big.stdin" 2>&1
if [ "$(wc -c <"$tmp/big.yaml")" -gt 1000000 ] && [ "$(wc -l <"$tmp/big.stdin")" -gt 10000 ] \
   && cmp -s "$tmp/big.file" "$tmp/big.stdin"; then ok; else
  bad "a big file and the same on stdin: different findings"; diff "$tmp/big.file" "$tmp/big.stdin" | head -5; fi
# no PATH on a terminal: usage on stderr and exit 2 instead of waiting;
# script(1) gives the command a pty (its stdin is a terminal)
if command -v script >/dev/null 2>&1; then
  expect_rc "no PATH, stdin a terminal" 2 script -qec "\"$bin\" lint 2>\"$tmp/tty.err\" </dev/tty" /dev/null
  if grep -q "stdin is a terminal" "$tmp/tty.err" && grep -q "^usage: claimcheck lint" "$tmp/tty.err"; then ok; else bad "no PATH on a terminal: no message and usage on stderr"; sed 's/^/    /' "$tmp/tty.err" | head -5; fi
  # - reads the terminal (script forwards its stdin; ^D ends the input)
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n\004' >"$tmp/tty.in"
  expect_rc "- on a terminal reads it" 0 sh -c "script -qec '\"$bin\" lint -' /dev/null <\"$tmp/tty.in\""
  contains "- read the terminal" "^1 object in 1 file"
else
  echo "skipped: no PATH on a terminal: script(1) is not installed"
fi
mkdir -p "$tmp/dir/sub" "$tmp/dir/.hidden"
cp "$tmp/error.yaml" "$tmp/dir/sub/a.yml"
cp "$tmp/error.yaml" "$tmp/dir/.hidden/b.yaml"
cp "$tmp/error.yaml" "$tmp/dir/notes.txt"
cat > "$tmp/dir/c.json" <<'EOF'
{"apiVersion": "v1", "kind": "List", "items": [
  {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "j", "namespace": "ml"},
   "spec": {"containers": [{"name": "c", "image": "busybox",
     "resources": {"requests": {"nvidia.com/gpu": 2}}}]}}]}
EOF
expect_rc "directory" 1 "$bin" lint --no-hints "$tmp/dir"
contains "directory" "sub/a.yml:12:9"
contains "json file" "c.json:4:[0-9]+: error\[extended-resource-limits\] Pod ml/j"
contains "json list path" "path: spec.containers\[0\].resources.requests\[nvidia.com/gpu\]"
lacks "hidden skipped" "\.hidden"
lacks "txt skipped" "notes.txt"
contains "directory summary" "in 2 files"

# ---- JSON output: the contract's shape
expect_rc "json" 1 "$bin" lint -o json "$tmp/error.yaml" "$tmp/warn.yaml"
if python3 - "$tmp/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["version"] == 1 and isinstance(d["kubeVersion"], str)
keys = {"rule","category","severity","object","path","file","line","column","message","hint"}
for f in d["findings"]:
    assert keys <= set(f), f
    assert set(f["object"]) == {"apiVersion","kind","namespace","name"}
    assert f["severity"] in ("error","warning","info")
    assert f["line"] >= 1 and f["column"] >= 1
s = d["summary"]
assert s["notRun"] and "selector-no-device" in s["notRun"], s
assert s.pop("notRun") and s == {"files": 2, "objects": 2, "errors": 1, "warnings": 1, "infos": 0, "inventory": False, "inputInventory": False}, s
e = [f for f in d["findings"] if f["rule"] == "extended-resource-limits"][0]
assert e["object"] == {"apiVersion":"v1","kind":"Pod","namespace":"ml","name":"cuda"}
assert e["path"] == "spec.containers[0].resources.requests[nvidia.com/gpu]"
assert (e["line"], e["column"]) == (12, 9)
assert e["category"] == "schema"
PY
then ok; else bad "json output shape"; fi
# without -i the summary says so and names the rules that could not run;
# --no-hints drops the note, an inventory with slices lets them run
"$bin" lint --no-color "$tmp/clean.yaml" > "$tmp/out" 2>&1
if grep -q "^note: judged without an inventory (-i FILE); could not run: .*'selector-no-device'" "$tmp/out"; then ok; else bad "no-inventory note"; cat "$tmp/out"; fi
"$bin" lint --no-color --no-hints "$tmp/clean.yaml" > "$tmp/out" 2>&1
if ! grep -q "judged without" "$tmp/out"; then ok; else bad "--no-hints keeps the inventory note"; fi
expect_rc "json clean" 0 "$bin" lint -o json "$tmp/clean.yaml"
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["findings"]==[]' "$tmp/out"; then ok; else bad "json clean"; fi

# ---- SARIF, JUnit, GitHub, several outputs at once
expect_rc "sarif" 1 "$bin" lint -o sarif "$tmp/error.yaml"
if python3 - "$tmp/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["version"] == "2.1.0" and len(d["runs"]) == 1
run = d["runs"][0]
ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
assert "extended-resource-limits" in ids and all(r["help"]["text"] for r in run["tool"]["driver"]["rules"])
res = run["results"]
assert len(res) == 1 and res[0]["ruleId"] == "extended-resource-limits" and res[0]["level"] == "error"
reg = res[0]["locations"][0]["physicalLocation"]["region"]
assert reg["startLine"] == 12 and reg["startColumn"] == 9
PY
then ok; else bad "sarif shape"; fi
expect_rc "sarif clean" 0 "$bin" lint -o sarif "$tmp/clean.yaml"
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["runs"][0]["results"]==[]' "$tmp/out"; then ok; else bad "sarif clean has results array"; fi
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); v=d["runs"][0]["tool"]["driver"]; assert v["version"]==v["semanticVersion"]==sys.argv[2], v' "$tmp/out" "$want"; then ok; else bad "sarif tool version is not '$want'"; fi
expect_rc "junit" 1 "$bin" lint -o junit "$tmp/error.yaml" "$tmp/clean.yaml"
if python3 - "$tmp/out" <<'PY'
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
cases = r.findall(".//testcase")
assert len(cases) == 3, len(cases)
assert len(r.findall(".//failure")) == 1
assert r.get("failures") == "1"
PY
then ok; else bad "junit shape"; fi
expect_rc "github" 1 "$bin" lint -o github "$tmp/error.yaml"
contains "github" "^::error file=.*error.yaml,line=12,col=9,title=extended-resource-limits::Pod ml/cuda: "
expect_rc "two outputs" 1 "$bin" lint -o json --output "$tmp/o.json" -o text --no-hints "$tmp/error.yaml"
contains "two outputs text" "error\[extended-resource-limits\]"
if python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/o.json"; then ok; else bad "json written to --output"; fi
expect_rc "two to stdout" 2 "$bin" lint -o json -o text "$tmp/error.yaml"

# ---- config file, auto-discovery, suppression
cat > "$tmp/cfg.yaml" <<'EOF'
kubeVersion: "1.34"
rules:
  extended-resource-limits: warning
EOF
expect_rc "config severity" 0 "$bin" lint -c "$tmp/cfg.yaml" "$tmp/error.yaml"; contains "config severity" "warning\[extended-resource-limits\]"
expect_rc "config + flag" 0 "$bin" lint -c "$tmp/cfg.yaml" --disable extended-resource-limits "$tmp/error.yaml"; lacks "flag wins" "extended-resource-limits\]"
expect_rc "config kubeVersion" 0 "$bin" lint -o json -c "$tmp/cfg.yaml" "$tmp/clean.yaml"; contains "kubeVersion" '"kubeVersion":"1.34"'
printf 'kubeVersion: "1.34"\nrulez: {}\n' > "$tmp/badcfg.yaml"
expect_rc "config unknown key" 2 "$bin" lint -c "$tmp/badcfg.yaml" "$tmp/clean.yaml"; contains "config unknown key" "badcfg.yaml:2:1: unknown key 'rulez'"
expect_rc "config missing" 2 "$bin" lint -c "$tmp/none.yaml" "$tmp/clean.yaml"
mkdir -p "$tmp/proj"; printf 'disable: [extended-resource-limits]\n' > "$tmp/proj/.claimcheck.yaml"
expect_rc "auto-discovered config" 0 sh -c "cd \"$tmp/proj\" && \"$bin\" lint \"$tmp/error.yaml\""
cat > "$tmp/sup.yaml" <<'EOF'
apiVersion: v1
kind: Pod
metadata:
  name: cuda
  annotations:
    ignore.claimcheck.dev/extended-resource-limits: "scheduled by a custom scheduler that fixes limits"
spec:
  containers:
  - name: cuda
    image: busybox
    resources:
      requests:
        nvidia.com/gpu: 1
EOF
expect_rc "suppressed" 0 "$bin" lint "$tmp/sup.yaml"; lacks "suppressed" "extended-resource-limits\]"
expect_rc "--show-suppressed" 0 "$bin" lint --show-suppressed "$tmp/sup.yaml"; contains "--show-suppressed" "suppressed: scheduled by"
contains "summary counts the suppressed" "^1 object in 1 file: 0 errors, 0 warnings, 1 suppressed$"
expect_rc "suppressed json" 0 "$bin" lint -o json "$tmp/sup.yaml"; contains "json summary counts the suppressed" '"suppressed":1,"notRun"'
# a config exception is the same suppression: same line, same count
printf 'exceptions:\n- kinds: [Pod]\n  names: ["cu*"]\n  rules: [extended-resource-limits]\n  reason: limits fixed by the scheduler\n' > "$tmp/exc-pod.yaml"
sed '/annotations:/,+1d' "$tmp/sup.yaml" > "$tmp/sup-plain.yaml"
expect_rc "config exception" 0 "$bin" lint -c "$tmp/exc-pod.yaml" "$tmp/sup-plain.yaml"; lacks "config exception" "extended-resource-limits\]"
expect_rc "config exception shown" 0 "$bin" lint --show-suppressed -c "$tmp/exc-pod.yaml" "$tmp/sup-plain.yaml"
contains "config exception shown" "suppressed: limits fixed by the scheduler"
contains "config exception counted" "0 errors, 0 warnings, 1 suppressed$"
expect_rc "annotation reason wins" 0 "$bin" lint --show-suppressed -c "$tmp/exc-pod.yaml" "$tmp/sup.yaml"; contains "annotation reason wins" "suppressed: scheduled by"
expect_rc "without the exception" 1 "$bin" lint "$tmp/sup-plain.yaml"

# ---- hostile input: a clear finding or error in bounded time, never a crash
: > "$tmp/empty.yaml"
expect_rc "empty file" 0 "$bin" lint "$tmp/empty.yaml"; contains "empty" "^0 objects in 1 file"
# no "{{": a document with one outside quotes is an unrendered Helm template,
# skipped quietly (1 run in ~16 drew one and passed)
head -c 4096 /dev/urandom | tr -d '{' > "$tmp/garbage.yaml"
expect_rc "binary garbage" 2 "$bin" lint "$tmp/garbage.yaml"; contains "garbage" "input-parse"
printf 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: "\xff\xfe"\n' > "$tmp/utf8.yaml"
expect_rc "invalid utf-8" 2 "$bin" lint "$tmp/utf8.yaml"; contains "utf8" "utf8.yaml:4:10: error\[input-parse\] invalid UTF-8"
python3 -c 'print("a: " + "[" * 10000 + "]" * 10000)' > "$tmp/deep.yaml"
expect_rc "10,000-level nesting" 2 "$bin" lint "$tmp/deep.yaml"; contains "deep" "nesting deeper than"
python3 -c 'print("a: " + "{b: " * 10000 + "1" + "}" * 10000)' > "$tmp/deepmap.yaml"
expect_rc "10,000-level flow maps" 2 "$bin" lint "$tmp/deepmap.yaml"
python3 - "$tmp/bomb.yaml" <<'PY'
import sys
lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
for i in range(1, 12):
    lines.append("a%d: &a%d [%s]" % (i, i, ",".join(["*a%d" % (i-1)] * 10)))
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
expect_rc "alias bomb" 2 "$bin" lint "$tmp/bomb.yaml"; contains "bomb" "billion laughs"
printf 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\nspec: "a string"\n' > "$tmp/scalar.yaml"
expect_rc "scalar for mapping" 1 "$bin" lint "$tmp/scalar.yaml"; contains "scalar" "input-object\] Pod x: 'spec' must be a mapping, not a string"
cat > "$tmp/range.yaml" <<'EOF'
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: big}
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        count: 99999999999999999999999
EOF
expect_rc "number out of range" 1 "$bin" lint "$tmp/range.yaml"; contains "range" "cannot unmarshal number 1e\\+23 into Go struct field ExactDeviceRequest"
python3 - "$tmp/big.yaml" <<'PY'
import sys
pod = """apiVersion: v1
kind: Pod
metadata:
  name: p%d
  namespace: ml
spec:
  containers:
  - name: c
    image: busybox
    resources:
      limits:
        nvidia.com/gpu: 1
---
"""
with open(sys.argv[1], "w") as f:
    i = 0
    size = 0
    while size < 50 * 1024 * 1024:
        s = pod % i
        f.write(s)
        size += len(s)
        i += 1
PY
start=$(date +%s)
# a bound against a hang, not a speed test (tests/bench times it): a
# sanitizer build on a loaded 2-core CI machine needs minutes
EXPECT_TIMEOUT=900 expect_rc "50 MB file" 0 "$bin" lint "$tmp/big.yaml"
contains "50 MB" "objects in 1 file: 0 errors"
echo "    (50 MB file linted in $(( $(date +%s) - start )) s)"

# ---- severity and hints that follow the case; did you mean --------------
rd="$top/tests/rules"
cat > "$tmp/nar.yaml" <<'EOF'
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: node-1-gpus
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    nodeAllocatableResourceMappings:
      cpu: {capacityKey: cores}
EOF
expect_rc "renamed field" 1 "$bin" lint --no-color -k 1.37 "$tmp/nar.yaml"
contains "renamed field hint" "hint: the field was renamed in 1.37: write 'nodeAllocatableResources' instead"
expect_rc "gate turned off" 1 "$bin" lint --no-color $(cat "$rd/feature-gate-disabled/fail-gate-turned-off-1.35.args") "$rd/feature-gate-disabled/fail-gate-turned-off-1.35.yaml"
contains "gate turned off hint" "hint: remove DRAPrioritizedList=false from the cluster's --feature-gates"
expect_rc "gate off by default" 1 "$bin" lint --no-color $(cat "$rd/feature-gate-disabled/fail-firstavailable-1.33.args") "$rd/feature-gate-disabled/fail-firstavailable-1.33.yaml"
contains "gate off hint" "hint: enable DRAPrioritizedList on the cluster \(and pass -g DRAPrioritizedList=true\)"
expect_rc "beta on by default" 0 "$bin" lint --no-color -k 1.35 "$rd/feature-gate-prerelease/fail-beta-1.35.yaml"
contains "beta on by default is info" "info\[feature-gate-prerelease\]"
contains "beta hint" "hint: nothing to do while the gate stays on by default"
expect_rc "alpha stays warning" 0 "$bin" lint --no-color $(cat "$rd/feature-gate-prerelease/fail-alpha-enabled-1.34.args") "$rd/feature-gate-prerelease/fail-alpha-enabled-1.34.yaml"
contains "alpha stays warning" "warning\[feature-gate-prerelease\]"
expect_rc "--disable typo" 2 "$bin" lint --disable selector-no-devise "$tmp/clean.yaml"
contains "--disable did you mean" "unknown rule or category 'selector-no-devise' \(did you mean 'selector-no-device'\?\)"
printf 'rules:\n  shared-claim-replica: off\n' > "$tmp/typo-rule.yaml"
expect_rc "config rule typo" 2 "$bin" lint -c "$tmp/typo-rule.yaml" "$tmp/clean.yaml"
contains "config rule did you mean" "did you mean 'shared-claim-replicas'"
printf 'kubeVersoin: "1.34"\n' > "$tmp/typo-key.yaml"
expect_rc "config key typo" 2 "$bin" lint -c "$tmp/typo-key.yaml" "$tmp/clean.yaml"
contains "config key did you mean" "typo-key.yaml:1:1: unknown key 'kubeVersoin' \(did you mean 'kubeVersion'\?\)"
# exceptions: a reason is required; rule ids and keys are checked with file:line
printf 'exceptions:\n- kinds: [Deployment]\n  rules: [shared-claim-replicas]\n' > "$tmp/exc-noreason.yaml"
expect_rc "exception without reason" 2 "$bin" lint -c "$tmp/exc-noreason.yaml" "$tmp/clean.yaml"
contains "exception without reason" "exc-noreason.yaml:2:3: an exception needs a reason"
printf 'exceptions:\n- rules: [pod-claim-unused, shared-claim-replica]\n  reason: on purpose\n' > "$tmp/exc-rule.yaml"
expect_rc "exception rule typo" 2 "$bin" lint -c "$tmp/exc-rule.yaml" "$tmp/clean.yaml"
contains "exception rule typo" "exc-rule.yaml:2:29: unknown rule 'shared-claim-replica' \(did you mean 'shared-claim-replicas'\?\)"
printf 'exceptions:\n- kind: [Deployment]\n  rules: [shared-claim-replicas]\n  reason: on purpose\n' > "$tmp/exc-key.yaml"
expect_rc "exception key typo" 2 "$bin" lint -c "$tmp/exc-key.yaml" "$tmp/clean.yaml"
contains "exception key typo" "exc-key.yaml:2:3: unknown key 'exceptions.kind' \(did you mean 'kinds'\?\)"
printf 'exceptions:\n- rules: [shared-claim-replicas]\n  reason: ""\n' > "$tmp/exc-empty.yaml"
expect_rc "exception empty reason" 2 "$bin" lint -c "$tmp/exc-empty.yaml" "$tmp/clean.yaml"
contains "exception empty reason" "exc-empty.yaml:3:3: an exception's reason must be a string"
printf 'rules:\n  shared-claim-replicas: {severity: warning, actoin: warn}\n' > "$tmp/rule-key.yaml"
expect_rc "rules entry key typo" 2 "$bin" lint -c "$tmp/rule-key.yaml" "$tmp/clean.yaml"
contains "rules entry key typo" "unknown key 'rules.shared-claim-replicas.actoin' \(did you mean 'action'\?\)"
printf 'rules:\n  shared-claim-replicas: {action: block}\n' > "$tmp/rule-action.yaml"
expect_rc "rules action value" 2 "$bin" lint -c "$tmp/rule-action.yaml" "$tmp/clean.yaml"
contains "rules action value" "rule-action.yaml:2:27: expected deny, warn or off"
printf 'rules:\n  shared-claim-replica: {action: warn}\n' > "$tmp/rule-act-typo.yaml"
expect_rc "rules action rule typo" 2 "$bin" lint -c "$tmp/rule-act-typo.yaml" "$tmp/clean.yaml"
contains "rules action rule typo" "rule-act-typo.yaml:2:3: unknown rule or category 'shared-claim-replica' \(did you mean 'shared-claim-replicas'\?\)"
# ignorePaths: globs relative to the config's directory; walked files are
# left out silently, a path given by name is said once
ip="$tmp/ignore"; mkdir -p "$ip/app" "$ip/vendor/x" "$ip/charts/a/test" "$ip/sub"
for f in app/a vendor/x/v charts/a/test/t charts/a/kept sub/b; do cp "$tmp/warn.yaml" "$ip/$f.yaml"; done
printf 'ignorePaths:\n- vendor\n- "**/test/*.yaml"\n- "sub/[ab].yaml"\n' > "$ip/.claimcheck.yaml"
expect_rc "ignorePaths walk" 0 sh -c "cd \"$ip\" && \"$bin\" lint --no-hints ."
contains "ignorePaths walk" "^2 objects in 2 files"
contains "ignorePaths walk keeps" "charts/a/kept.yaml:"
lacks "ignorePaths walk leaves out" "vendor|test/t.yaml|sub/b.yaml|not linted"
expect_rc "ignorePaths named" 0 sh -c "cd \"$ip/app\" && \"$bin\" lint -c ../.claimcheck.yaml --no-hints ../vendor/x/v.yaml a.yaml"
contains "ignorePaths named said" "^claimcheck: '../vendor/x/v.yaml' is not linted: ignorePaths 'vendor' in '../.claimcheck.yaml' names it$"
contains "ignorePaths named keeps the rest" "^1 object in 1 file"
[ "$(grep -c 'is not linted' "$tmp/out")" = 1 ] && ok || bad "ignorePaths named: said once"
expect_rc "ignorePaths from elsewhere" 0 "$bin" lint -c "$ip/.claimcheck.yaml" --no-hints "$ip/charts/./a/../a/test" "$ip/app/../vendor/x/v.yaml"
contains "ignorePaths resolves . and .." "^0 objects in 0 files"
contains "ignorePaths resolves . and .. said" "v.yaml' is not linted: ignorePaths 'vendor'"
expect_rc "ignorePaths outside the config's directory" 0 "$bin" lint -c "$ip/.claimcheck.yaml" --no-hints "$tmp/warn.yaml"
lacks "ignorePaths outside" "not linted"
# the linter ignores action: severity and --fail-on decide its exit code
printf 'rules:\n  extended-resource-limits: {severity: error, action: warn}\n' > "$tmp/rule-act.yaml"
expect_rc "linter ignores action" 1 "$bin" lint -c "$tmp/rule-act.yaml" "$tmp/error.yaml"
contains "linter ignores action" "error\[extended-resource-limits\]"

# ---- --inventory-from-input: the linted files' slices and nodes as inventory
cu="$rd/claim-unsatisfiable"
inv_note="note: judged with ResourceSlices or Nodes of the linted files as the inventory"
sum_note="^note: ResourceSlices and Nodes of the linted files served as the inventory"
# auto without -i: the input's slices judge the claim, the finding and the
# summary say so
expect_rc "input inventory auto" 1 "$bin" lint --no-color --no-hints $(cat "$cu/fail-input-slices.args") "$cu/fail-input-slices.yaml"
contains "auto: claim judged with the input's slices" "error\[claim-unsatisfiable\] ResourceClaim ml/three"
contains "auto: note on the finding" "^    $inv_note"
contains "auto: summary says so" "$sum_note"
# never: linted, no inventory: the claim is not judged, no note
expect_rc "input inventory never" 0 "$bin" lint --no-color --no-hints --inventory-from-input never $(cat "$cu/fail-input-slices.args") "$cu/fail-input-slices.yaml"
lacks "never: no claim finding" "claim-unsatisfiable"
lacks "never: no summary note" "^note:"
# never still lints the slices as objects (pool-invalid is theirs)
expect_rc "never lints slices" 1 "$bin" lint --no-color --no-hints --inventory-from-input never "$rd/pool-invalid/fail-duplicate-device.yaml"
contains "never lints slices" "error\[pool-invalid\]"
# auto with an -i inventory that has slices: the input's sample slice is
# not mixed in (the claim fits the cluster); always mixes it in
expect_rc "input inventory auto with -i" 0 "$bin" lint --no-color --no-hints -i "$cu/inventory-cluster.yaml" --disable claim-scarce "$cu/pass-input-slices-auto.yaml"
lacks "auto with -i: no note" "^note:"
expect_rc "input inventory always" 1 "$bin" lint --no-color --no-hints --inventory-from-input always -i "$cu/inventory-cluster.yaml" --disable claim-scarce "$cu/pass-input-slices-auto.yaml"
contains "always: judged with both" "error\[claim-unsatisfiable\] ResourceClaim ml/four"
contains "always: note on the finding" "^    $inv_note"
contains "always: summary says so" "$sum_note"
# JSON: the summary's inputInventory, the note among the details
expect_rc "input inventory json" 1 "$bin" lint -o json $(cat "$cu/fail-input-slices.args") "$cu/fail-input-slices.yaml"
if python3 - "$tmp/out" "$inv_note" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["summary"]["inputInventory"] is True, d["summary"]
f = [f for f in d["findings"] if f["rule"] == "claim-unsatisfiable"][0]
assert f["details"][-1].startswith(sys.argv[2]), f
PY
then ok; else bad "json inputInventory"; fi
expect_rc "input inventory json never" 0 "$bin" lint -o json --inventory-from-input never $(cat "$cu/fail-input-slices.args") "$cu/fail-input-slices.yaml"
if python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["summary"]; assert s["inputInventory"] is False, s' "$tmp/out"; then ok; else bad "json inputInventory never"; fi
# the html device map shows the devices the findings were judged with
"$bin" lint -o html "$cu/fail-input-slices.yaml" > "$tmp/out" 2>&1
contains "html auto: the input's nodes" '"nodes":\["worker-a","worker-b"\]'
"$bin" lint -o html --inventory-from-input never "$cu/fail-input-slices.yaml" > "$tmp/out" 2>&1
lacks "html never: no input nodes" '"nodes":\["worker-a"'
expect_rc "input inventory bad word" 2 "$bin" lint --inventory-from-input sometimes "$tmp/clean.yaml"
contains "input inventory bad word" "--inventory-from-input takes 'auto', 'always' or 'never', not 'sometimes'"

# ---- --kustomize DIR: fake kubectl / kustomize on PATH (no shell between)
kz="$tmp/kz"; mkdir -p "$kz/kubectl" "$kz/kustomize" "$kz/none" "$kz/fail" "$kz/huge" "$kz/app"
# each fake writes its argv (one per line) and prints the Pod of error.yaml
for t in kubectl kustomize; do
  printf '#!/bin/sh\nfor a in "$@"; do printf "%%s\\n" "$a"; done > "%s/args"\n/bin/cat "%s"\n' "$kz" "$tmp/error.yaml" > "$kz/$t/$t"
  chmod +x "$kz/$t/$t"
done
expect_rc "kustomize with kubectl" 1 env PATH="$kz/kubectl" "$bin" lint --no-color --no-hints --kustomize "$kz/app"
contains "kustomize: findings name the directory" "^$kz/app:12:9: error\[extended-resource-limits\] Pod ml/cuda"
contains "kustomize: one stream" "in 1 file"
if [ "$(cat "$kz/args")" = "kustomize
$kz/app" ]; then ok; else bad "kustomize: kubectl argv"; cat "$kz/args"; fi
# a directory name with shell syntax reaches the tool as one argument
mkdir -p "$kz/a b;\$(x)"
expect_rc "kustomize no shell" 1 env PATH="$kz/kubectl" "$bin" lint --no-color --no-hints --kustomize "$kz/a b;\$(x)"
if [ "$(tail -n 1 "$kz/args")" = "$kz/a b;\$(x)" ]; then ok; else bad "kustomize: dir not one argument"; cat "$kz/args"; fi
expect_rc "kustomize with kustomize only" 1 env PATH="$kz/kustomize" "$bin" lint --no-color --no-hints --kustomize "$kz/app"
contains "kustomize build: findings" "^$kz/app:12:9: error\[extended-resource-limits\]"
if [ "$(cat "$kz/args")" = "build
$kz/app" ]; then ok; else bad "kustomize build argv"; cat "$kz/args"; fi
# with files too: both linted
expect_rc "kustomize and a file" 1 env PATH="$kz/kubectl" "$bin" lint --no-color --no-hints --kustomize "$kz/app" "$tmp/warn.yaml"
contains "kustomize and a file" "in 2 files"
# neither installed: what to install, exit 2
expect_rc "kustomize absent" 2 env PATH="$kz/none" "$bin" lint --no-color --kustomize "$kz/app"
contains "kustomize absent" "claimcheck: --kustomize '$kz/app' needs kubectl or kustomize on PATH: install kubectl"
# kubectl failing: its stderr, escaped and bounded, exit 2
printf '#!/bin/sh\nprintf "error: accumulating resources: \\033[31mboom\\033[0m\\\\n"  >&2\n/usr/bin/head -c 100000 /dev/zero | /usr/bin/tr "\\\\0" x >&2\nexit 3\n' > "$kz/fail/kubectl"
chmod +x "$kz/fail/kubectl"
expect_rc "kustomize failing" 2 env PATH="$kz/fail" "$bin" lint --no-color --kustomize "$kz/app"
contains "kustomize failing: status and stderr" "claimcheck: 'kubectl kustomize $kz/app' failed \(exit status 3\): error: accumulating resources: \\\\e\[31mboom\\\\e\[0m"
lacks "kustomize failing: no raw escape" $'\033'
if [ "$(wc -c < "$tmp/out")" -lt 4000 ]; then ok; else bad "kustomize failing: stderr not bounded ($(wc -c < "$tmp/out") bytes)"; fi
contains "kustomize failing: cut said" "\[\.\.\.\]"
# more than the input limit: killed, exit 2, quickly
printf '#!/bin/sh\nexec /usr/bin/head -c 300000000 /dev/zero\n' > "$kz/huge/kubectl"
chmod +x "$kz/huge/kubectl"
expect_rc "kustomize huge output" 2 env PATH="$kz/huge" "$bin" lint --no-color --kustomize "$kz/app"
contains "kustomize huge output" "'kubectl kustomize $kz/app' printed more than the 256 MiB input limit"

echo "cli: $pass passed, $fail failed"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
