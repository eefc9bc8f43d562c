#!/usr/bin/env bash
# tests/e2e/formats.sh - the CI output formats of `claimcheck lint`, checked
# the way their consumers read them:
#  - SARIF: the SARIF 2.1.0 JSON schema (from npm, see npm-deps.sh) and
#    GitHub code scanning's extra rules (formats_sarif.js): results array
#    even when clean, repo-relative percent-encoded URIs, startLine >= 1,
#    every rule with help text, nothing but SARIF on stdout; results match
#    the JSON findings one to one;
#  - JUnit: parsed with xml.etree; one testcase per object, a testcase fails
#    when its object has a finding at or above --fail-on;
#  - github: workflow commands, one line per finding, properties and
#    message escaped (%, CR, LF; ':' and ',' in properties) so that GitHub's
#    unescaping gives back the file name and message;
#  - kube-linter-style pairs: -o F --output FILE repeated, one format to
#    stdout, the same findings and exit status in all of them.
# Last line: "N passed, N failed"; exit status non-zero on any failure.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(realpath "${CLAIMCHECK:-$top/build/claimcheck}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top/tests/e2e/lib.sh"
[ -x "$bin" ] || { echo "FAIL $bin not built"; echo "0 passed, 1 failed"; exit 1; }

# ---- fixtures (paths relative to $tmp, where claimcheck runs) --------------
cd "$tmp" || exit 1
mkdir -p m "we ird,dir:x%y" 'a&b<c>'
cp "$top/deploy/kubernetes/base/deployment.yaml" m/clean.yaml
cat >m/bad.yaml <<'EOF'
apiVersion: v1
kind: Pod
metadata: {name: undeclared, namespace: ml}
spec:
  containers:
  - name: c
    image: i
    resources:
      claims: [{name: gpu}]
---
apiVersion: v1
kind: Pod
metadata: {name: limits, namespace: ml}
spec:
  containers:
  - name: c
    image: i
    resources:
      requests: {nvidia.com/gpu: 2}
      limits: {nvidia.com/gpu: 1}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: shared, namespace: ml}
spec:
  replicas: 3
  selector: {matchLabels: {app: s}}
  template:
    metadata: {labels: {app: s}}
    spec:
      resourceClaims: [{name: gpu, resourceClaimName: one-gpu}]
      containers:
      - name: c
        image: i
        resources: {claims: [{name: gpu}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: suppressed
  namespace: ml
  annotations: {ignore.claimcheck.dev/pod-claim-undeclared: "declared by a mutating webhook"}
spec:
  containers:
  - name: c
    image: i
    resources: {claims: [{name: gpu}]}
---
apiVersion: v1
kind: Pod
metadata: {name: fine, namespace: ml}
spec:
  containers: [{name: c, image: i}]
EOF
printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [\n' >m/parse.yaml
cat >"we ird,dir:x%y/odd.yaml" <<'EOF'
apiVersion: v1
kind: Pod
metadata:
  name: "line\nbreak%25,colon:x"
  namespace: ml
spec:
  containers:
  - name: c
    image: i
    resources:
      claims: [{name: gpu}]
EOF
cp m/bad.yaml 'a&b<c>/x.yaml'

lint() {  # OUT RC_VAR args...: stdout to OUT, stderr to OUT.err
  local out=$1; shift
  timeout 60 "$bin" lint "$@" >"$out" 2>"$out.err"
}
json_count() {  # JSON FILE -> non-suppressed findings
  python3 -c 'import json,sys; print(sum(1 for f in json.load(open(sys.argv[1]))["findings"] if not f.get("suppressed")))' "$1"
}

# ---- SARIF -----------------------------------------------------------------
lint s_clean.sarif -o sarif m/clean.yaml; rc=$?
[ $rc -eq 0 ] && ok "sarif clean: exit 0" || bad "sarif clean: exit $rc"
lint s_bad.sarif -o sarif m/bad.yaml; rc_s=$?
lint j_bad.json -o json m/bad.yaml; rc_j=$?
lint t_bad.txt -o text m/bad.yaml; rc_t=$?
[ $rc_s -eq 1 ] && [ $rc_j -eq 1 ] && [ $rc_t -eq 1 ] && ok "exit 1 on errors in sarif, json and text" \
  || bad "exit status sarif $rc_s json $rc_j text $rc_t"
lint s_parse.sarif -o sarif m/parse.yaml m/clean.yaml; rc=$?
[ $rc -eq 2 ] && ok "sarif on unparseable input: exit 2" || bad "sarif parse: exit $rc"
lint s_missing.sarif -o sarif m/clean.yaml m/does-not-exist.yaml; rc=$?
[ $rc -eq 2 ] && [ -s s_missing.sarif.err ] && ok "sarif with an unreadable file: exit 2, message on stderr" \
  || bad "sarif unreadable: exit $rc, stderr $(wc -c <s_missing.sarif.err) bytes"
"$bin" lint -o sarif - <m/bad.yaml >s_stdin.sarif 2>/dev/null
lint s_odd.sarif -o sarif "we ird,dir:x%y/odd.yaml"
{ printf '# moved\n# down\n# three lines\n'; cat m/bad.yaml; } > m/shift.yaml
"$bin" lint -o sarif m/shift.yaml > s_shift.sarif 2>/dev/null
lint s_abs.sarif -o sarif "$tmp/m/bad.yaml" ./m/clean.yaml
"$bin" lint -o sarif m/bad.yaml --fail-on never >s_never.sarif 2>/dev/null; rc=$?
[ $rc -eq 0 ] && ok "sarif --fail-on never: exit 0" || bad "sarif --fail-on never: exit $rc"
[ ! -s s_clean.sarif.err ] && [ ! -s s_bad.sarif.err ] && ok "sarif: nothing on stderr for readable input" \
  || bad "sarif: stderr not empty"

if npm_why=$(source "$top/tests/e2e/npm-deps.sh" && npm_ensure); then
  [ -n "$npm_why" ] && echo "$npm_why"
  (cd "$top/tests/e2e" && node formats_sarif.js clean="$tmp/s_clean.sarif" bad="$tmp/s_bad.sarif" \
    parse="$tmp/s_parse.sarif" missing="$tmp/s_missing.sarif" stdin="$tmp/s_stdin.sarif" \
    odd-path="$tmp/s_odd.sarif" absolute="$tmp/s_abs.sarif" never="$tmp/s_never.sarif") \
    >sarif.out 2>&1
  tally sarif.out
  grep -q '^[0-9]* passed, [0-9]* failed' sarif.out || { bad "formats_sarif.js crashed"; tail -5 sarif.out; }
else
  echo "skipped: SARIF schema validation ($npm_why)"
fi
# PolicyReports: one per namespace and a ClusterPolicyReport, valid against
# the wgpolicyk8s.io v1alpha2 CRD schema; results match the JSON findings
dm="$top/tests/rules/node-double-managed"
lint pr_bad.yaml -o policyreport m/bad.yaml
lint pr_clean.yaml -o policyreport m/clean.yaml
lint pr_mixed.yaml -o policyreport m/bad.yaml "$dm/fail-node-name.yaml"
lint j_mixed.json -o json m/bad.yaml "$dm/fail-node-name.yaml"
if npm_why=$(source "$top/tests/e2e/npm-deps.sh" && npm_ensure); then
  (cd "$top/tests/e2e" && node formats_policyreport.js bad="$tmp/pr_bad.yaml:3" \
    clean="$tmp/pr_clean.yaml:1" mixed="$tmp/pr_mixed.yaml:5") >pr.out 2>&1
  tally pr.out
  grep -q '^[0-9]* passed, [0-9]* failed' pr.out || { bad "formats_policyreport.js crashed"; tail -5 pr.out; }
else
  echo "skipped: PolicyReport schema validation ($npm_why)"
fi
python3 - "$tmp/pr_mixed.yaml" "$tmp/j_mixed.json" >pr2.out 2>&1 <<'PY'
import json, sys
import yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
findings = [f for f in json.load(open(sys.argv[2]))["findings"]]
def ok(name, cond, why=""):
    print(("ok " if cond else "FAIL ") + name + ("" if cond else ": %s" % (why,)))
res = [(d, r) for d in docs for r in d.get("results", [])]
bad = [r for d, r in res if r["result"] in ("fail", "warn")]
ok("policyreport: the suppressed finding is a skip result",
   [r["rule"] for d, r in res if r["result"] == "skip"] == ["pod-claim-undeclared"]
   and all(r["properties"]["suppressReason"] for d, r in res if r["result"] == "skip"))
ok("policyreport: one result per finding", len(bad) == len(findings), (len(bad), len(findings)))
want = sorted((f["rule"], f["object"]["kind"], f["object"]["name"], f["message"]) for f in findings)
got = sorted((r["rule"], r["resources"][0]["kind"], r["resources"][0]["name"], r["message"]) for r in bad)
ok("policyreport: same rules, objects and messages as json", want == got)
sev = {"error": ("fail", "high"), "warning": ("warn", "medium"), "info": ("warn", "info")}
ok("policyreport: results and severities follow the findings'",
   sorted((f["rule"],) + sev[f["severity"]] for f in findings)
   == sorted((r["rule"], r["result"], r["severity"]) for r in bad))
cl = [d for d in docs if d["kind"] == "ClusterPolicyReport"][0]
ok("policyreport: the Node's finding is in the ClusterPolicyReport",
   any(r.get("rule") == "node-double-managed" for r in cl["results"]))
ok("policyreport: a finding keeps file and line",
   all(r["properties"]["file"] and int(r["properties"]["line"]) > 0 for r in bad))
PY
tally pr2.out
grep -q '^ok \|^FAIL ' pr2.out || { bad "policyreport checks crashed"; cat pr2.out; }

# GitHub's rules and the link to the JSON findings, without npm
"$bin" rules -o json >rules.json 2>/dev/null
TOP="$top" python3 - "$tmp" >sarif2.out 2>&1 <<'PY'
import json, os, sys, urllib.parse
t = sys.argv[1]
def ok(n, c, why=""):
    print(("ok " if c else "FAIL ") + n + ("" if c else ": " + why))
def load(f):
    return json.load(open(os.path.join(t, f)))
clean = load("s_clean.sarif")
ok("sarif clean: results present and empty", clean["runs"][0].get("results") == [])
bad = load("s_bad.sarif")["runs"][0]
js = [f for f in load("j_bad.json")["findings"] if not f.get("suppressed")]
lv = {"error": "error", "warning": "warning", "info": "note"}
want = sorted((f["rule"], lv[f["severity"]], f["line"], f["column"], f["file"]) for f in js)
got = sorted((r["ruleId"], r["level"], r["locations"][0]["physicalLocation"]["region"]["startLine"],
              r["locations"][0]["physicalLocation"]["region"].get("startColumn"),
              urllib.parse.unquote(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]))
             for r in bad["results"])
ok("sarif results = json findings (rule, level, line, column, file)", got == want and want,
   "%s vs %s" % (got, want))
ok("sarif: suppressed finding left out",
   not any("suppressed" in r["message"]["text"] for r in bad["results"])
   and len(bad["results"]) == len(js))
cat = json.load(open(os.path.join(t, "rules.json")))
srules = bad["tool"]["driver"]["rules"]
ok("sarif: rules = claimcheck rules -o json (ids, help = hint, level = severity)",
   [r["id"] for r in srules] == [r["id"] for r in cat]
   and all(s["help"]["text"] == c["hint"] and s["defaultConfiguration"]["level"] == lv[c["severity"]]
           for s, c in zip(srules, cat)))
odd = load("s_odd.sarif")["runs"][0]["results"]
u = odd[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] if odd else ""
ok("sarif: odd path percent-encoded, decodes to the file", odd and " " not in u
   and urllib.parse.unquote(u) == "we ird,dir:x%y/odd.yaml", u)
ab = load("s_abs.sarif")["runs"][0]["results"]
uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in ab}
ok("sarif: absolute path under the working directory -> relative URI", uris == {"m/bad.yaml"}, str(uris))
st = load("s_stdin.sarif")["runs"][0]["results"]
ok("sarif: stdin findings present", len(st) == len(js))
pa = load("s_parse.sarif")["runs"][0]["results"]
ok("sarif: parse error reported with a location",
   any(r["ruleId"] == "input-parse" and r["locations"][0]["physicalLocation"]["region"]["startLine"] >= 1
       for r in pa))
# helpUri: the rule's section of docs/rules.md, whose headings are the ids
doc = open(os.path.join(os.environ["TOP"], "docs/rules.md")).read().split("\n")
heads = [l[3:] for l in doc if l.startswith("## ")]
srules = clean["runs"][0]["tool"]["driver"]["rules"]
ok("sarif: helpUri = docs/rules.md#<id> for every rule",
   all(r.get("helpUri", "").endswith("/docs/rules.md#" + r["id"]) for r in srules),
   str([r["id"] for r in srules if not r.get("helpUri", "").endswith("#" + r["id"])]))
ok("docs/rules.md: one section per rule, no other", sorted(heads) == sorted(r["id"] for r in srules)
   and len(set(heads)) == len(heads), str(set(heads) ^ set(r["id"] for r in srules)))
# partialFingerprints survive lines moving: the same file with 3 lines more
# at the top gives the same fingerprints at other lines
a, b = load("s_bad.sarif")["runs"][0]["results"], load("s_shift.sarif")["runs"][0]["results"]
fa = [r["partialFingerprints"]["claimcheck/v1"] for r in a]
fb = [r["partialFingerprints"]["claimcheck/v1"] for r in b]
la = [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in a]
lb = [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in b]
ok("sarif: partialFingerprints stable when lines move", fa and fa == fb
   and all(y == x + 3 for x, y in zip(la, lb)), str((fa, fb, la, lb)))
ok("sarif: partialFingerprints unique", len(set(fa)) == len(fa), str(fa))
PY
tally sarif2.out
grep -q '^ok \|^FAIL ' sarif2.out || { bad "sarif python checks crashed"; cat sarif2.out; }

# ---- JUnit -----------------------------------------------------------------
for fo in error warning never; do
  lint "u_$fo.xml" -o junit --fail-on "$fo" m/bad.yaml m/clean.yaml m/parse.yaml 'a&b<c>/x.yaml'
  echo $? >"u_$fo.rc"
done
lint u_json.json -o json m/bad.yaml m/clean.yaml m/parse.yaml 'a&b<c>/x.yaml'
python3 - "$tmp" >junit.out 2>&1 <<'PY'
import json, os, sys
import xml.etree.ElementTree as ET
t = sys.argv[1]
def ok(n, c, why=""):
    print(("ok " if c else "FAIL ") + n + ("" if c else ": " + str(why)))
js = json.load(open(os.path.join(t, "u_json.json")))
finds = [f for f in js["findings"] if not f.get("suppressed")]
rank = {"info": 0, "warning": 1, "error": 2}
objfind = [f for f in finds if f["object"]["kind"]]
docfind = [f for f in finds if not f["object"]["kind"]]
for fo in ("error", "warning", "never"):
    p = os.path.join(t, "u_%s.xml" % fo)
    try:
        root = ET.parse(p).getroot()
    except ET.ParseError as e:
        ok("junit --fail-on %s: well-formed XML" % fo, False, e)
        continue
    ok("junit --fail-on %s: well-formed XML" % fo, True)
    cases = root.findall(".//testcase")
    suites = root.findall("testsuite") if root.tag == "testsuites" else [root]
    nfail = sum(1 for c in cases if c.find("failure") is not None)
    ok("junit %s: testsuites/testsuite counts" % fo,
       root.tag == "testsuites" and int(root.get("tests")) == len(cases)
       and int(root.get("failures")) == nfail and len(suites) == 1
       and int(suites[0].get("tests")) == len(cases) and int(suites[0].get("failures")) == nfail,
       (root.attrib, len(cases), nfail))
    obj_cases = [c for c in cases if not c.get("name", "").startswith("document at line")]
    ok("junit %s: one testcase per object" % fo, len(obj_cases) == js["summary"]["objects"],
       (len(obj_cases), js["summary"]["objects"]))
    names = {(c.get("classname"), c.get("name")) for c in obj_cases}
    ok("junit %s: testcases unique" % fo, len(names) == len(obj_cases))
    def key(f):
        o = f["object"]
        return (f["file"], "%s %s%s" % (o["kind"], o["namespace"] + "/" if o["namespace"] else "",
                                        o["name"] or "<unnamed>"))
    thr = {"error": 2, "warning": 1, "never": 99}[fo]
    want = {key(f) for f in objfind if rank[f["severity"]] >= thr}
    got = {(c.get("classname"), c.get("name")) for c in obj_cases if c.find("failure") is not None}
    ok("junit %s: failed testcases = objects with findings >= fail-on" % fo, got == want,
       (sorted(got ^ want)))
    bad_txt = [c for c in cases for fl in c.findall("failure")
               if not fl.get("type") or not fl.get("message")]
    ok("junit %s: failures carry rule and message" % fo, not bad_txt)
    docs = [c for c in cases if c.get("name", "").startswith("document at line")]
    ok("junit %s: unparseable document is a testcase, failed unless never" % fo,
       len(docs) == len(docfind) >= 1 and all((c.find("failure") is not None) == (fo != "never")
                                              for c in docs))
    ok("junit %s: file name with & < > kept" % fo,
       any(c.get("classname") == "a&b<c>/x.yaml" for c in cases)
       and all("a&b<c>/x.yaml" in (fl.text or "a&b<c>/x.yaml") for c in cases
               if c.get("classname") == "a&b<c>/x.yaml" for fl in c.findall("failure")))
PY
tally junit.out
grep -q '^ok \|^FAIL ' junit.out || { bad "junit checks crashed"; cat junit.out; }
[ "$(cat u_error.rc)" = 2 ] && [ "$(cat u_never.rc)" = 2 ] && ok "junit: exit 2 with an unparseable file, whatever --fail-on" \
  || bad "junit exit codes: error $(cat u_error.rc) never $(cat u_never.rc)"
lint u_w.xml -o junit --fail-on warning m/bad.yaml; rc_w=$?
lint u_n.xml -o junit --fail-on never m/bad.yaml; rc_n=$?
[ $rc_w -eq 1 ] && [ $rc_n -eq 0 ] && ok "junit: --fail-on warning exit 1, never exit 0" \
  || bad "junit fail-on exits: warning $rc_w never $rc_n"

# ---- github ----------------------------------------------------------------
lint g.txt -o github m/bad.yaml "we ird,dir:x%y/odd.yaml"; rc=$?
lint g.json -o json m/bad.yaml "we ird,dir:x%y/odd.yaml"
[ $rc -eq 1 ] && ok "github: exit 1 on errors" || bad "github: exit $rc"
python3 - "$tmp" >gh.out 2>&1 <<'PY'
import json, os, re, sys
t = sys.argv[1]
def ok(n, c, why=""):
    print(("ok " if c else "FAIL ") + n + ("" if c else ": " + str(why)))
# GitHub's runner (ActionCommand.cs): message %0D %0A %25; properties also %3A %2C
def unesc_data(s):
    return s.replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%")
def unesc_prop(s):
    return (s.replace("%0D", "\r").replace("%0A", "\n").replace("%3A", ":")
             .replace("%2C", ",").replace("%25", "%"))
lines = open(os.path.join(t, "g.txt"), encoding="utf-8").read().split("\n")
if lines and lines[-1] == "":
    lines.pop()
js = [f for f in json.load(open(os.path.join(t, "g.json")))["findings"] if not f.get("suppressed")]
ok("github: one line per finding", len(lines) == len(js), (len(lines), len(js)))
rx = re.compile(r"^::(error|warning|notice) ([^:]*)::(.*)$")
cmds = []
for l in lines:
    m = rx.match(l)
    if not m:
        ok("github: command syntax", False, l)
        continue
    props = {}
    for kv in m.group(2).split(","):
        k, _, v = kv.partition("=")
        props[k] = unesc_prop(v)
    cmds.append((m.group(1), props, unesc_data(m.group(3))))
ok("github: every line a workflow command with file,line,col,title",
   len(cmds) == len(lines) and all(set(p) == {"file", "line", "col", "title"} for _, p, _ in cmds))
sev = {"error": "error", "warning": "warning", "info": "notice"}
want = sorted((sev[f["severity"]], f["file"], str(f["line"]), str(f["column"]), f["rule"]) for f in js)
got = sorted((c, p.get("file"), p.get("line"), p.get("col"), p.get("title")) for c, p, _ in cmds)
ok("github: (level, file, line, col, rule) = json findings after unescaping", got == want, (got, want))
ok("github: line and col >= 1", all(int(p["line"]) >= 1 and int(p["col"]) >= 1 for _, p, _ in cmds))
ok("github: messages contain the finding's message", all(
    any(f["message"] in m for _, _, m in cmds) for f in js))
odd = [m for _, p, m in cmds if p.get("file") == "we ird,dir:x%y/odd.yaml"]
ok("github: name with newline, %, ',' and ':' round-trips",
   odd and "line\nbreak%25,colon:x" in odd[0], odd)
raw = open(os.path.join(t, "g.txt"), encoding="utf-8").read()
ok("github: properties escaped (%25 %2C %3A), no raw CR/LF inside a command",
   "file=we ird%2Cdir%3Ax%25y/odd.yaml," in raw and "\r" not in raw)
PY
tally gh.out
grep -q '^ok \|^FAIL ' gh.out || { bad "github checks crashed"; cat gh.out; }

# ---- kube-linter-style format/output pairs ---------------------------------
rm -f p.json p.sarif p.xml p.gh
lint p.stdout -o json --output p.json -o sarif --output p.sarif -o junit --output p.xml \
  -o github --output p.gh -o text m/bad.yaml; rc=$?
[ $rc -eq 1 ] && ok "pairs: exit 1 as for a single format" || bad "pairs: exit $rc"
[ -s p.json ] && [ -s p.sarif ] && [ -s p.xml ] && [ -s p.gh ] && ok "pairs: every --output file written" \
  || bad "pairs: missing output files"
grep -qE '^[0-9]+ objects? in [0-9]+ files?: ' p.stdout && ! grep -q '^{' p.stdout \
  && ok "pairs: text (the format without --output) on stdout" || bad "pairs: stdout is not text"
cmp -s p.json j_bad.json && ok "pairs: JSON file = a -o json run" || bad "pairs: JSON file differs"
python3 - "$tmp" >pairs.out 2>&1 <<'PY'
import json, os, sys
import xml.etree.ElementTree as ET
t = sys.argv[1]
def ok(n, c, why=""):
    print(("ok " if c else "FAIL ") + n + ("" if c else ": " + str(why)))
j = [f for f in json.load(open(os.path.join(t, "p.json")))["findings"] if not f.get("suppressed")]
s = json.load(open(os.path.join(t, "p.sarif")))["runs"][0]["results"]
g = [l for l in open(os.path.join(t, "p.gh")).read().split("\n") if l]
x = ET.parse(os.path.join(t, "p.xml")).getroot()
nf = sum(len(c.findall("failure")) + len(c.findall("system-out")) for c in x.iter("testcase"))
ok("pairs: same findings in json, sarif, github, junit", len(j) == len(s) == len(g) == nf,
   (len(j), len(s), len(g), nf))
PY
tally pairs.out
grep -q '^ok \|^FAIL ' pairs.out || { bad "pairs checks crashed"; cat pairs.out; }
lint p2.stdout -o sarif --output p2.sarif -o json m/bad.yaml
python3 -c 'import json,sys; json.load(open(sys.argv[1]))["findings"]; json.load(open(sys.argv[2]))["runs"]' \
  p2.stdout p2.sarif 2>/dev/null && ok "pairs: sarif to a file, json on stdout" || bad "pairs: sarif file + json stdout"
lint p3.stdout -o json -o sarif m/bad.yaml; rc=$?
[ $rc -eq 2 ] && grep -q 'stdout' p3.stdout.err \
  && ok "pairs: two formats on stdout is a usage error (exit 2, message)" \
  || bad "pairs: two stdout formats: exit $rc"
[ ! -s p3.stdout ] && ok "pairs: two formats on stdout: nothing printed" \
  || bad "pairs: two formats on stdout: something was printed"
lint p4.stdout --output x.json -o json m/bad.yaml; rc=$?
[ $rc -eq 2 ] && ok "pairs: --output before any --format: exit 2" || bad "pairs: --output first: exit $rc"
lint p5.stdout -o sarif --output /nonexistent-dir/x.sarif m/bad.yaml; rc=$?
[ $rc -eq 2 ] && [ -s p5.stdout.err ] && ok "pairs: unwritable --output: exit 2 with a message" \
  || bad "pairs: unwritable output: exit $rc"
echo "stale stale stale" >p6.sarif
lint p6.stdout -o sarif --output p6.sarif m/clean.yaml
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["runs"][0]["results"] == []' p6.sarif 2>/dev/null \
  && ok "pairs: --output replaces an existing file" || bad "pairs: --output did not replace the file"
lint p7.stdout -o sarif --output p7.sarif m/clean.yaml
[ ! -s p7.stdout ] && ok "pairs: only file outputs -> nothing on stdout" || bad "pairs: stdout not empty: $(head -c 200 p7.stdout)"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
