#!/usr/bin/env bash
# tests/e2e/deploy.sh - claimcheck's own deployment and CI files:
#  1. everything in deploy/ (but deploy/examples, bad on purpose) and the
#     pre-commit/Action files are clean under `claimcheck lint`, so is the
#     Kustomize output when kubectl is there;
#  2. `deploy/render.sh` (make deploy-manifests) renders deploy/out/ with a
#     Secret and caBundle that match the generated certificate, and lints clean;
#  3. structural checks of RBAC, Deployment, webhook configuration, overlay,
#     hooks, Action and Dockerfile (deploy_check.py, PyYAML or js-yaml);
#  4. the webhook's matchConditions compile and decide as intended on
#     sample objects (deploy_cel.js, @bufbuild/cel from npm), and the
#     project's own `claimcheck cel` agrees (variables substituted);
#  5. the Action's lint step and the pre-commit hooks, run the way GitHub
#     and pre-commit run them (neither is installed here: emulated).
# npm packages go to tests/e2e/node_modules (git-ignored); without the
# registry, the parts needing them are skipped and say so.
# Last line: "N passed, N failed"; exit status non-zero on any failure.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
bin=$(realpath "${CLAIMCHECK:-build/claimcheck}")
hook=$(realpath "${CLAIMCHECK_WEBHOOK:-build/claimcheck-webhook}")
corpus=${CLAIMCHECK_CORPUS:-$top/../shared/corpus/upstream}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top/tests/e2e/lib.sh"
# $pyload defines load(path) -> documents: PyYAML, else js-yaml via node
pyload='
import json, sys
def load(p):
    try:
        import yaml
        return [d for d in yaml.safe_load_all(open(p)) if d]
    except ImportError:
        import subprocess
        return json.loads(subprocess.run(["node", "-e", "process.stdout.write(JSON.stringify(require(\"js-yaml\").loadAll(require(\"fs\").readFileSync(process.argv[1],\"utf8\")).filter(x=>x)))", __import__("os").path.abspath(p)], cwd="tests/e2e", capture_output=True, text=True).stdout)
'
# lint_clean NAME PATH...: exit 0, and no finding in the JSON output
lint_clean() {
  local name=$1; shift
  timeout 60 "$bin" lint -o json "$@" >"$tmp/lint.json" 2>"$tmp/lint.err"
  local rc=$?
  local n
  n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["findings"]))' \
      "$tmp/lint.json" 2>/dev/null || echo "?")
  if [ $rc -eq 0 ] && [ "$n" = 0 ]; then ok "lint clean: $name"
  else bad "lint clean: $name: exit $rc, $n findings"; head -c 2000 "$tmp/lint.json" "$tmp/lint.err"; fi
}

for b in "$bin" "$hook"; do
  [ -x "$b" ] || { echo "FAIL $b not built"; echo "0 passed, 1 failed"; exit 1; }
done

# ---- 1. lint clean ---------------------------------------------------------
mine=()
while IFS= read -r f; do mine+=("$f"); done < <(
  find deploy -path deploy/examples -prune -o -path deploy/out -prune -o \
       -path deploy/.certs -prune -o -type f \( -name '*.yaml' -o -name '*.yml' \) -print | sort)
[ ${#mine[@]} -ge 10 ] && ok "deploy/ has ${#mine[@]} YAML files" || bad "deploy/ YAML files: ${#mine[@]}"
lint_clean "deploy/ (without examples)" "${mine[@]}"
for f in "${mine[@]}"; do lint_clean "$f" "$f"; done
lint_clean .pre-commit-hooks.yaml .pre-commit-hooks.yaml
if [ -d deploy/out ]; then lint_clean "deploy/out (existing)" deploy/out; fi
if command -v kubectl >/dev/null 2>&1 && kubectl kustomize --help >/dev/null 2>&1; then
  for k in deploy/kubernetes/base deploy/kubernetes/overlays/cert-manager \
           deploy/kubernetes/audit deploy/kubernetes/overlays/policy-reports; do
    if kubectl kustomize "$k" >"$tmp/kust.yaml" 2>"$tmp/kust.err"; then
      ok "kustomize build $k"
      lint_clean "kustomize build $k" "$tmp/kust.yaml"
    else
      bad "kustomize build $k"; head -5 "$tmp/kust.err"
    fi
  done
  kubectl kustomize deploy/kubernetes/overlays/cert-manager 2>/dev/null | grep -q \
    'cert-manager.io/inject-ca-from: claimcheck/claimcheck-serving' \
    && ok "overlay: rendered webhook configuration has inject-ca-from" \
    || bad "overlay: rendered webhook configuration lacks inject-ca-from"
else
  echo "skipped: kustomize build (no kubectl)"
fi

# ---- 2. render.sh ----------------------------------------------------------
if CLAIMCHECK_WEBHOOK="$hook" bash deploy/render.sh >"$tmp/render.out" 2>&1; then
  ok "deploy/render.sh"
else
  bad "deploy/render.sh"; cat "$tmp/render.out"
fi
out=deploy/out/claimcheck.yaml
if [ -s "$out" ]; then
  lint_clean "deploy/out (rendered)" deploy/out
  "$hook" certs --check deploy/.certs --service claimcheck --namespace claimcheck \
    >"$tmp/check.out" 2>&1 && ok "rendered certificate passes certs --check" \
    || { bad "rendered certificate fails certs --check"; cat "$tmp/check.out"; }
  perm=$(stat -c %a "$out")
  [ "$perm" = 600 ] && ok "deploy/out/claimcheck.yaml mode 0600 (holds a key)" \
    || bad "deploy/out/claimcheck.yaml mode $perm"
  git check-ignore -q deploy/out/claimcheck.yaml && ok "deploy/out is git-ignored" \
    || bad "deploy/out is not git-ignored"
else
  bad "no $out"
fi

# ---- 3. structure (Python; YAML through PyYAML or js-yaml) -----------------
have_npm=1
npm_why=$(source tests/e2e/npm-deps.sh && npm_ensure) || have_npm=0
[ -n "$npm_why" ] && echo "$npm_why"
"$hook" serve --help >"$tmp/help.txt" 2>&1
if python3 -c 'import yaml' 2>/dev/null || [ $have_npm = 1 ]; then
  python3 tests/e2e/deploy_check.py "$top" "$tmp/help.txt" ${out:+"$out"} >"$tmp/struct.out" 2>&1
  rc=$?
  tally "$tmp/struct.out"
  grep -q '^[0-9]* passed, [0-9]* failed' "$tmp/struct.out" && [ $rc -le 1 ] \
    || { bad "deploy_check.py crashed (exit $rc)"; tail -5 "$tmp/struct.out"; }
  # the rendered Secret and caBundles are the generated files
  data=$(sed -n 's/^DATA //p' "$tmp/struct.out")
  if [ -n "$data" ]; then
    printf '%s' "$data" | python3 -c '
import base64, json, sys
d = json.load(sys.stdin); top = sys.argv[1]
rd = lambda f: open(top + "/deploy/.certs/" + f, "rb").read()
ok = lambda n, c: print(("ok " if c else "FAIL ") + n)
s = d["secret"]
ok("rendered Secret tls.crt is deploy/.certs/tls.crt", base64.b64decode(s.get("tls.crt", "")) == rd("tls.crt"))
ok("rendered Secret tls.key is deploy/.certs/tls.key", base64.b64decode(s.get("tls.key", "")) == rd("tls.key"))
ok("rendered caBundle on every webhook is deploy/.certs/ca.crt",
   d["caBundles"] and all(base64.b64decode(c or "") == rd("ca.crt") for c in d["caBundles"]))
' "$top" >"$tmp/data.out" 2>&1
    tally "$tmp/data.out"
  fi
  # the config in the ConfigMap is accepted by the linter
  python3 -c "$pyload"'
cm = [d for d in load("deploy/kubernetes/base/configmap.yaml") if d["kind"] == "ConfigMap"][0]
open(sys.argv[1] + "/config.yaml", "w").write(cm["data"]["config.yaml"])
' "$tmp"
  printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: i}]}\n' >"$tmp/pod.yaml"
  "$bin" lint -c "$tmp/config.yaml" "$tmp/pod.yaml" >"$tmp/cfg.out" 2>&1 \
    && ok "ConfigMap config.yaml accepted by claimcheck lint -c" \
    || { bad "ConfigMap config.yaml rejected by claimcheck lint -c"; head -5 "$tmp/cfg.out"; }
else
  echo "skipped: structural checks (no PyYAML and no npm for js-yaml)"
fi

# ---- 4. matchConditions (CEL) ----------------------------------------------
if [ $have_npm = 1 ]; then
  (cd tests/e2e && node deploy_cel.js "$top/deploy/kubernetes/base/webhook.yaml" "$bin") >"$tmp/cel.out" 2>&1
  grep "^skipped" "$tmp/cel.out"; tally "$tmp/cel.out"
  grep -q '^[0-9]* passed, [0-9]* failed' "$tmp/cel.out" || { bad "deploy_cel.js crashed"; tail -5 "$tmp/cel.out"; }
else
  echo "skipped: matchConditions CEL checks (npm unavailable; 'claimcheck cel' has no object binding)"
fi

# ---- 5a. the Action's lint step, as GitHub runs it -------------------------
mkdir -p "$tmp/ws/manifests" "$tmp/ws/other"
cp deploy/kubernetes/base/deployment.yaml "$tmp/ws/manifests/"
cat >"$tmp/ws/other/bad.yaml" <<'EOF'
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: ml}
spec:
  containers:
  - name: c
    image: i
    resources:
      claims: [{name: gpu}]
EOF
step_script() {  # the run: of the step with id "scan"
  python3 -c '
import sys
try:
    import yaml; a = yaml.safe_load(open(sys.argv[1]))
except ImportError:
    import json, subprocess
    a = json.loads(subprocess.run(["node", "-e", "process.stdout.write(JSON.stringify(require(\"js-yaml\").load(require(\"fs\").readFileSync(process.argv[1],\"utf8\"))))", sys.argv[1]], cwd="tests/e2e", capture_output=True, text=True).stdout)
print([s for s in a["runs"]["steps"] if s.get("id") == "scan"][0]["run"])
' "$top/deploy/github-action/action.yml"
}
if step_script >"$tmp/scan.sh" 2>/dev/null && [ -s "$tmp/scan.sh" ]; then
  run_step() {  # PATHS -> rc; GitHub runs `bash --noprofile --norc -eo pipefail`
    : >"$tmp/gh_output"
    (cd "$tmp/ws" && PATH="$(dirname "$bin"):$PATH" GITHUB_OUTPUT="$tmp/gh_output" \
      CC_PATHS="$1" CC_KUBE="" CC_GATES="" CC_INV="" CC_CONFIG="" CC_FAIL_ON=error \
      CC_SARIF=claimcheck.sarif bash --noprofile --norc -eo pipefail "$tmp/scan.sh") \
      >"$tmp/step.out" 2>&1
  }
  run_step "manifests/"; rc=$?
  [ $rc -eq 0 ] && grep -qx 'exit-code=0' "$tmp/gh_output" && [ -s "$tmp/ws/claimcheck.sarif" ] \
    && ok "action lint step: clean paths pass, SARIF written, exit-code=0" \
    || { bad "action lint step on clean paths: rc $rc"; cat "$tmp/step.out" "$tmp/gh_output"; }
  rm -f "$tmp/ws/claimcheck.sarif"
  run_step $'manifests/\nother/bad.yaml'; rc=$?
  [ $rc -eq 1 ] && grep -qx 'exit-code=1' "$tmp/gh_output" && [ -s "$tmp/ws/claimcheck.sarif" ] \
    && grep -q '^::error file=other/bad.yaml,line=' "$tmp/step.out" \
    && ok "action lint step: errors fail the step, SARIF still written, ::error annotation" \
    || { bad "action lint step on an error: rc $rc"; cat "$tmp/step.out" "$tmp/gh_output"; }
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["runs"][0]["results"]; sys.exit(not (r and r[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]=="other/bad.yaml"))' \
    "$tmp/ws/claimcheck.sarif" 2>/dev/null \
    && ok "action lint step: SARIF URIs are workspace-relative" \
    || bad "action lint step: SARIF URI not other/bad.yaml"
else
  bad "action.yml: no step with id scan"
fi

# ---- 5b. pre-commit hooks, emulated ----------------------------------------
# pre-commit: files tagged by identify (types: [yaml] = *.yaml, *.yml), the
# hook's `entry` split like a shell line, then `args`, then the file names
# (one batch here: require_serial), run from the repository root; any
# non-zero exit fails the hook.
hook_field() {  # ID FIELD -> value (lists joined by newlines)
  python3 -c '
import sys, json
try:
    import yaml; h = yaml.safe_load(open(".pre-commit-hooks.yaml"))
except ImportError:
    import subprocess
    h = json.loads(subprocess.run(["node", "-e", "process.stdout.write(JSON.stringify(require(\"js-yaml\").load(require(\"fs\").readFileSync(\"../../.pre-commit-hooks.yaml\",\"utf8\"))))"], cwd="tests/e2e", capture_output=True, text=True).stdout)
v = [x for x in h if x["id"] == sys.argv[1]][0].get(sys.argv[2], "")
print("\n".join(v) if isinstance(v, list) else v)
' "$1" "$2"
}
entry=$(hook_field claimcheck entry 2>/dev/null)
types=$(hook_field claimcheck types 2>/dev/null)
mapfile -t hargs < <(hook_field claimcheck args 2>/dev/null | sed '/^$/d')
if [ -z "$entry" ]; then
  bad "pre-commit: no hook claimcheck"
else
  [ "$types" = yaml ] && ok "pre-commit: claimcheck types [yaml]" || bad "pre-commit types: $types"
  read -r -a ecmd <<<"$entry"
  # run_hook DIR FILE... -> rc, output in $tmp/hook.out
  run_hook() {
    local d=$1; shift
    (cd "$d" && PATH="$(dirname "$bin"):$PATH" timeout 120 "${ecmd[@]}" "${hargs[@]}" "$@") \
      >"$tmp/hook.out" 2>&1
  }
  findings() { grep -cE '^[^ ].*:[0-9]+:[0-9]+: (error|warning|info)\[' "$tmp/hook.out"; }
  if [ -d "$corpus" ]; then
    mapfile -t cfiles < <(cd "$corpus" && find . -type f \( -name '*.yaml' -o -name '*.yml' \) \
                          | sed 's|^\./||' | sort)
    run_hook "$corpus" "${cfiles[@]}"; hrc=$?
    (cd "$corpus" && "$bin" lint -o json "${cfiles[@]}") >"$tmp/corpus.json" 2>/dev/null; drc=$?
    nerr=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["errors"])' "$tmp/corpus.json" 2>/dev/null || echo "?")
    echo "   pre-commit on ${#cfiles[@]} corpus YAML files: exit $hrc, $nerr errors, $(findings) finding lines"
    [ $hrc -eq $drc ] && ok "pre-commit on the corpus: exit $hrc = claimcheck lint's" \
      || bad "pre-commit on the corpus: exit $hrc, direct lint $drc"
    if [ "$nerr" != "?" ] && [ "$nerr" -gt 0 ]; then
      { [ $hrc -eq 1 ] || [ $hrc -eq 2 ]; } && ok "pre-commit on the corpus fails ($nerr errors)" \
        || bad "pre-commit on the corpus: exit $hrc with $nerr errors"
    else
      [ $hrc -eq 0 ] && ok "pre-commit on the corpus passes (no errors)" || bad "corpus: exit $hrc, $nerr errors"
    fi
    [ "$(findings)" -gt 0 ] && ok "pre-commit on the corpus prints compiler-style findings" \
      || bad "pre-commit on the corpus printed no findings"
    # file by file: a file without errors passes, one with errors fails
    mkdir -p "$tmp/pf"; : >"$tmp/pf/rcs"
    i=0
    for f in "${cfiles[@]}"; do
      i=$((i+1))
      run_hook "$corpus" "$f"; echo "$i $? $f" >>"$tmp/pf/rcs"
      (cd "$corpus" && "$bin" lint -o json "$f" >"$tmp/pf/$i.json" 2>/dev/null)
    done
    python3 -c '
import json, sys
d = sys.argv[1]; bad = 0; n = 0
for line in open(d + "/rcs"):
    i, rc, f = line.rstrip("\n").split(" ", 2)
    rc = int(rc); n += 1
    try:
        e = json.load(open("%s/%s.json" % (d, i)))["summary"]["errors"]
    except Exception:
        e = None
    if rc > 2 or (e == 0 and rc == 1) or (e and rc == 0) or (e is None and rc != 2):
        bad += 1
        print("   %s: exit %d with %s errors" % (f, rc, e))
print(("ok" if not bad else "FAIL") +
      " pre-commit per corpus file (%d files): exit status follows the errors (%d mismatched)" % (n, bad))
' "$tmp/pf" >"$tmp/pf.out" 2>&1
    grep -v '^ok ' "$tmp/pf.out"; tally "$tmp/pf.out" >/dev/null
    grep -q '^ok \|^FAIL ' "$tmp/pf.out" || bad "per-file check crashed"
  else
    echo "skipped: pre-commit on the corpus ($corpus not found)"
  fi
  mkdir -p "$tmp/repo/chart/templates" "$tmp/repo/.github/workflows"
  cat >"$tmp/repo/chart/templates/pod.yaml" <<'EOF'
apiVersion: v1
kind: Pod
metadata:
  name: {{ .Release.Name }}-trainer
  labels: {{- include "chart.labels" . | nindent 4 }}
spec:
  containers:
  - name: trainer
    image: "{{ .Values.image }}"
    {{- if .Values.gpu }}
    resources:
      limits:
        nvidia.com/gpu: {{ .Values.gpu }}
      claims:
      - name: gpu
    {{- end }}
EOF
  printf 'name: ci\non: [push]\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps: [{run: "true"}]\n' \
    >"$tmp/repo/.github/workflows/ci.yml"
  printf 'replicaCount: 1\ngpu: 2\n' >"$tmp/repo/chart/values.yaml"
  run_hook "$tmp/repo" chart/templates/pod.yaml; hrc=$?
  [ $hrc -eq 0 ] && [ "$(findings)" -eq 0 ] && ok "pre-commit on a Helm template: exit 0, no finding" \
    || { bad "pre-commit on a Helm template: exit $hrc"; cat "$tmp/hook.out"; }
  run_hook "$tmp/repo" chart/templates/pod.yaml .github/workflows/ci.yml chart/values.yaml; hrc=$?
  [ $hrc -eq 0 ] && [ "$(findings)" -eq 0 ] && ok "pre-commit on non-Kubernetes YAML (CI, values): exit 0, no finding" \
    || { bad "pre-commit on non-Kubernetes YAML: exit $hrc"; cat "$tmp/hook.out"; }
  run_hook "$top" "${mine[@]}"; hrc=$?
  [ $hrc -eq 0 ] && [ "$(findings)" -eq 0 ] && ok "pre-commit on deploy/: exit 0, no finding" \
    || { bad "pre-commit on deploy/: exit $hrc"; cat "$tmp/hook.out"; }
  cp "$tmp/ws/other/bad.yaml" "$tmp/repo/bad.yaml"
  run_hook "$tmp/repo" chart/templates/pod.yaml bad.yaml; hrc=$?
  [ $hrc -eq 1 ] && grep -q '^bad.yaml:' "$tmp/hook.out" && ok "pre-commit on a bad manifest: exit 1, finding names the file" \
    || { bad "pre-commit on a bad manifest: exit $hrc"; cat "$tmp/hook.out"; }
  dentry=$(hook_field claimcheck-docker entry 2>/dev/null)
  dlang=$(hook_field claimcheck-docker language 2>/dev/null)
  [ "$dlang" = docker_image ] && [[ "$dentry" =~ ^[a-z0-9.-]+(/[a-z0-9._-]+)+:[A-Za-z0-9._-]+\ lint$ ]] \
    && ok "pre-commit: docker_image hook runs '<image:tag> lint'" \
    || bad "pre-commit docker hook: language $dlang entry '$dentry'"
fi

# ---- 6. the webhook with the Deployment's own arguments, RBAC enforced ------
# Starts build/claimcheck-webhook with the container args of the Deployment
# (mount paths mapped to the rendered certificate and the ConfigMap's config,
# --listen on a free loopback port) against deploy_rbacapi.py, which answers
# only what the ClusterRole allows. It must become ready (so the ClusterRole
# is enough), serve /healthz and /validate with the rendered certificate
# (SAN claimcheck.claimcheck.svc, signed by the caBundle's CA), and have used
# every permission the ClusterRole grants (so it grants nothing unused).
pids=()
cleanup6() { local p; for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; }
if [ -s deploy/.certs/tls.crt ] && command -v curl >/dev/null 2>&1 \
   && python3 -c "$pyload"'
d = load("deploy/kubernetes/base/deployment.yaml")[0]
json.dump(d["spec"]["template"]["spec"]["containers"][0]["args"], open(sys.argv[1] + "/args.json", "w"))
r = [x for x in load("deploy/kubernetes/base/rbac.yaml") if x["kind"] == "ClusterRole"][0]
json.dump(r["rules"], open(sys.argv[1] + "/rules.json", "w"))
' "$tmp" 2>/dev/null && [ -s "$tmp/config.yaml" ]; then
  mkdir -p "$tmp/tls" "$tmp/sa" "$tmp/api"
  cp deploy/.certs/tls.crt deploy/.certs/tls.key "$tmp/tls/"
  "$hook" certs --service kubernetes --namespace default --ip 127.0.0.1 --out "$tmp/api" \
    >/dev/null 2>&1
  cp "$tmp/api/ca.crt" "$tmp/sa/ca.crt"; echo "deploy-test-token" >"$tmp/sa/token"
  mapfile -t dargs < <(python3 -c '
import json, sys
t = sys.argv[1]
m = {"/etc/claimcheck/tls/tls.crt": t + "/tls/tls.crt", "/etc/claimcheck/tls/tls.key": t + "/tls/tls.key",
     "/etc/claimcheck/config/config.yaml": t + "/config.yaml", "0.0.0.0:8443": "127.0.0.1:0"}
for a in json.load(open(t + "/args.json")):
    print(m.get(a, a))' "$tmp")
  : >"$tmp/api.log"
  python3 tests/e2e/deploy_rbacapi.py --rules "$tmp/rules.json" --cert "$tmp/api/tls.crt" \
    --key "$tmp/api/tls.key" --token deploy-test-token --port-file "$tmp/api.port" \
    --log "$tmp/api.log" 2>"$tmp/api.err" &
  pids+=($!)
  for i in $(seq 1 100); do [ -s "$tmp/api.port" ] && break; sleep 0.1; done
  apiport=$(cat "$tmp/api.port" 2>/dev/null)
  "$hook" "${dargs[@]}" --apiserver "https://127.0.0.1:${apiport:-1}" --sa-dir "$tmp/sa" \
    >"$tmp/hook.log" 2>&1 &
  pids+=($!)
  port=""
  for i in $(seq 1 100); do
    port=$(grep -oE 'listening on https://127\.0\.0\.1:[0-9]+' "$tmp/hook.log" | head -1 | sed 's/.*://')
    [ -n "$port" ] && break; sleep 0.1
  done
  svc=claimcheck.claimcheck.svc
  get() {  # PATH -> HTTP status, verifying the server against the rendered CA
    curl -s -o "$tmp/curl.out" -w '%{http_code}' --max-time 5 --cacert deploy/.certs/ca.crt \
      --resolve "$svc:${port:-1}:127.0.0.1" "https://$svc:${port:-1}$1" "${@:2}"
  }
  rs=000
  for i in $(seq 1 200); do rs=$(get /readyz); [ "$rs" = 200 ] && break; sleep 0.1; done
  [ "$rs" = 200 ] && ok "webhook with the Deployment's args: ready (RBAC suffices, cert verifies as $svc)" \
    || { bad "webhook with the Deployment's args: /readyz $rs (port ${port:-none})"; head -3 "$tmp/hook.log"; tail -3 "$tmp/hook.log"; tail -3 "$tmp/api.log"; }
  [ "$(get /healthz)" = 200 ] && ok "webhook: /healthz 200 over HTTPS" || bad "webhook: /healthz"
  printf '%s' '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"deploy-test-1","kind":{"group":"","version":"v1","kind":"Pod"},"resource":{"group":"","version":"v1","resource":"pods"},"namespace":"ml","operation":"CREATE","userInfo":{"username":"t"},"object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ml"},"spec":{"containers":[{"name":"c","image":"i","resources":{"claims":[{"name":"gpu"}]}}]}},"oldObject":null,"dryRun":false}}' >"$tmp/review.json"
  st=$(get "/validate?timeout=3s" -H 'Content-Type: application/json' --data-binary @"$tmp/review.json")
  [ "$st" = 200 ] && grep -q '"uid":"deploy-test-1"' "$tmp/curl.out" && grep -q '"allowed":false' "$tmp/curl.out" \
    && ok "webhook: POST /validate (Service path, ?timeout) denies a Pod with an undeclared claim" \
    || { bad "webhook: /validate $st"; head -c 400 "$tmp/curl.out"; }
  python3 - "$tmp" >"$tmp/rbac.out" 2>&1 <<'PY'
import json, sys
t = sys.argv[1]
rules = json.load(open(t + "/rules.json"))
granted = {(v, g or '""', r) for x in rules for g in x.get("apiGroups", []) for r in x.get("resources", []) for v in x["verbs"]}
urls = {(v, "-", u) for x in rules for u in x.get("nonResourceURLs", []) for v in x["verbs"]}
seen = set(); denied = []
for line in open(t + "/api.log"):
    p = line.split()
    if len(p) == 4 and p[0] in ("list", "watch") and p[3] == "allowed":
        seen.add(tuple(p[:3]))
    elif len(p) == 4 and p[0] == "get" and p[1] == "-" and p[3] == "allowed":
        seen.add(tuple(p[:3]))
    elif p and p[0] != "discovery":
        denied.append(" ".join(p))
def ok(n, c, why=""):
    print(("ok " if c else "FAIL ") + n + ("" if c else ": " + str(why)))
ok("webhook: no request outside the ClusterRole (no 403/401/404)", not denied, denied[:5])
used = {x for x in granted if x[0] in ("list", "watch")}
ok("webhook: lists and watches every resource the ClusterRole grants",
   {x for x in seen if x[0] in ("list", "watch")} == used,
   "unused %s" % sorted(used - seen))
ok("ClusterRole: get/list/watch only, all of them used or implied (get)",
   {x[0] for x in granted} == {"get", "list", "watch"})
ok("webhook: gets every nonResourceURL the ClusterRole grants (/metrics: the feature gates)",
   urls <= seen and urls, "unused %s" % sorted(urls - seen))
ok("ClusterRole: nonResourceURLs get only", {x[0] for x in urls} == {"get"})
PY
  tally "$tmp/rbac.out"
  grep -q '^ok \|^FAIL ' "$tmp/rbac.out" || { bad "RBAC usage check crashed"; cat "$tmp/rbac.out"; }
  cleanup6
else
  echo "skipped: webhook with the Deployment's args (no rendered certificate, curl or YAML reader)"
fi

# ---- 7. claimcheck audit with the audit ClusterRole, RBAC enforced --------
# `claimcheck audit --in-cluster` against deploy_rbacapi.py allowing only the
# rules of deploy/kubernetes/audit/rbac.yaml: it must read the (empty)
# cluster without a 403 and use every permission granted.
if [ -x "$hook" ] && python3 -c "$pyload"'
r = [x for x in load("deploy/kubernetes/audit/rbac.yaml") if x["kind"] == "ClusterRole"][0]
json.dump(r["rules"], open(sys.argv[1] + "/audit-rules.json", "w"))
' "$tmp" 2>/dev/null; then
  mkdir -p "$tmp/aapi" "$tmp/asa"
  "$hook" certs --service kubernetes --namespace default --ip 127.0.0.1 --out "$tmp/aapi" \
    >/dev/null 2>&1
  cp "$tmp/aapi/ca.crt" "$tmp/asa/ca.crt"; echo "audit-test-token" >"$tmp/asa/token"
  : >"$tmp/aapi.log"
  python3 tests/e2e/deploy_rbacapi.py --rules "$tmp/audit-rules.json" --cert "$tmp/aapi/tls.crt" \
    --key "$tmp/aapi/tls.key" --token audit-test-token --port-file "$tmp/aapi.port" \
    --log "$tmp/aapi.log" 2>"$tmp/aapi.err" &
  apid=$!
  for i in $(seq 1 100); do [ -s "$tmp/aapi.port" ] && break; sleep 0.1; done
  "$bin" audit --in-cluster --apiserver "https://127.0.0.1:$(cat "$tmp/aapi.port" 2>/dev/null)" \
    --sa-dir "$tmp/asa" >"$tmp/audit.out" 2>&1
  rc=$?
  kill "$apid" 2>/dev/null; wait "$apid" 2>/dev/null
  [ $rc -eq 0 ] && ok "audit with the audit ClusterRole: reads the cluster (exit 0)" \
    || { bad "audit with the audit ClusterRole: exit $rc"; head -5 "$tmp/audit.out"; }
  python3 - "$tmp" >"$tmp/arbac.out" 2>&1 <<'PY'
import json, sys
t = sys.argv[1]
rules = json.load(open(t + "/audit-rules.json"))
granted = {(v, g or '""', r) for x in rules for g in x["apiGroups"] for r in x["resources"] for v in x["verbs"]}
seen = set(); denied = []
for line in open(t + "/aapi.log"):
    p = line.split()
    if len(p) == 4 and p[0] == "list" and p[3] == "allowed":
        seen.add(tuple(p[:3]))
    elif p and p[0] != "discovery":
        denied.append(" ".join(p))
def ok(n, c, why=""):
    print(("ok " if c else "FAIL ") + n + ("" if c else ": " + str(why)))
ok("audit: no request outside the audit ClusterRole", not denied, denied[:5])
ok("audit: lists every resource the ClusterRole grants", seen == {x for x in granted if x[0] == "list"},
   "unused %s" % sorted({x for x in granted if x[0] == "list"} - seen))
ok("audit ClusterRole: get and list only", {x[0] for x in granted} == {"get", "list"})
PY
  tally "$tmp/arbac.out"
  grep -q '^ok \|^FAIL ' "$tmp/arbac.out" || { bad "audit RBAC check crashed"; cat "$tmp/arbac.out"; }
else
  echo "skipped: audit with the audit ClusterRole (no claimcheck-webhook or YAML reader)"
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
