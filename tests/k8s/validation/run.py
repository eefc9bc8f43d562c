#!/usr/bin/env python3
"""run.py - Kubernetes' own validation tables (tests/k8s/validation/*.yaml,
format: README*.md there) and the defaulting cases (tests/k8s/defaults/,
same format) through claimcheck, twice per case:

  lint   the object as written, `claimcheck lint -k 1.36 -g <case gates>`
  admit  the object as the apiserver hands it to a validating webhook:
         defaulted for its version (SetDefaults_*, below, an implementation
         of tests/k8s/types/defaults.yaml independent of validate/object.c),
         name generated, in an AdmissionReview, through the webhook's
         admission handler (`build/tests/hostile_driver admission`)

and compares each with the case's expectation. Only findings of the
schema-class rules count (SCHEMA_RULES: what the apiserver's validation
code does); an error finding of any other rule is listed but does not
decide the case.

Path matching is EXACT: an expected error on field path P is found when an
error finding of a schema-class rule carries the path string P (the
apiserver's field.Path, e.g. `spec.devices.requests[0].exactly.count`,
`metadata.labels` for a bad label); a schema-class error on a path no
expected error names is a disagreement (a false error), however many errors
the apiserver reports on one path. Cases whose table gives no error list
(the Pod tables check only that validation fails) need one schema-class
error.

The two runs must also agree with each other: linting as written and
admitting the defaulted object give the same verdict (deny iff an error
finding of any rule but those about what the apiserver does before
validation, BEFORE_ADMISSION) and the same schema-class paths.

One line per disagreement, `FAIL <file> <case>: ...`; every skipped case
with its reason, `skipped: <file> <case>: ...` (the case's own `skip:`, or
one of RUNNER_SKIPS); adjustments the runner makes to a table's
expectation (the tables were written from unit tests that skip defaulting
and the client) are listed as `adjusted: ...`. Last line:
`N passed, N failed, N skipped`. CLAIMCHECK_BUILD names another build
directory (a sanitizer build: make BUILD=/tmp/asan SANITIZE=...).
"""
import copy
import json
import os
import subprocess
import sys
import tempfile

import yaml

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
BUILD = os.environ.get("CLAIMCHECK_BUILD", os.path.join(TOP, "build"))
LINT = os.path.join(BUILD, "claimcheck")
ADMIT = os.path.join(BUILD, "tests", "hostile_driver")
KUBE = "1.36"

SCHEMA_RULES = {
    "claim-schema", "object-metadata", "slice-schema", "selector-invalid",
    "extended-resource-limits", "pod-claim-source", "pod-claim-undeclared",
    "unknown-field", "input-object", "input-parse",
}

# Rules about what the apiserver does BEFORE validating: it drops fields
# whose gate is off and refuses versions it does not serve. The linter
# reports those on the object as written; a webhook never sees them (the
# object arrives with the fields dropped, in a served version), so they are
# left out of the lint/admission verdict comparison.
BEFORE_ADMISSION = {
    "feature-gate-disabled", "feature-gate-prerelease",
    "api-version-unavailable", "api-version-deprecated",
}

# Cases a linter cannot judge as the table states them, with the reason.
RUNNER_SKIPS = {
    "TestValidateClaim/missing-namespace":
        "kubectl fills metadata.namespace from its context, and a webhook "
        "always gets one: no manifest reaches validation without it",
    "TestValidateClaimTemplate/missing-namespace":
        "kubectl fills metadata.namespace from its context, and a webhook "
        "always gets one: no manifest reaches validation without it",
}
# Fields of the tables that Kubernetes 1.36 does not have (the tables were
# read at a version newer than 1.36): a case whose object uses one is
# skipped, since the 1.36 apiserver knows no such field.
NOT_IN_TARGET = ("partitionTypeAttribute", "skipNodeOperations",
                 "nodeAllocatableResources")

# Expected errors the apiserver does not report because defaulting runs
# first (the Go unit tests call the validation function directly).
# (case, field) -> reason
DEFAULTED_AWAY = {
    ("TestValidateClaim/prioritized-list-invalid-nested-request",
     "spec.devices.requests[0].firstAvailable[0].allocationMode"):
        "allocationMode defaults to ExactCount before validation",
    ("TestValidateClaim/tolerations",
     "spec.devices.requests[0].firstAvailable[0].tolerations[0].operator"):
        "a toleration's operator defaults to Equal before validation",
    ("TestValidateClaim/tolerations",
     "spec.devices.requests[1].exactly.tolerations[3].operator"):
        "a toleration's operator defaults to Equal before validation",
}


# ==== the tables =========================================================

def split_docs(text):
    """The source text of each document of a stream split on `---` lines
    (the tables use no other separator), aligned with yaml.safe_load_all."""
    docs, cur = [], []
    for line in text.splitlines(keepends=True):
        if line.rstrip("\r\n") == "---" or line.startswith("--- "):
            docs.append("".join(cur))
            cur = []
        else:
            cur.append(line)
    docs.append("".join(cur))
    return docs


def load_cases(path):
    text = open(path, encoding="utf-8").read()
    raw = split_docs(text)
    parsed = list(yaml.safe_load_all(text))
    # the stream may begin with '---' (an empty first chunk)
    raw = [r for r in raw if r.strip() and not all(
        l.lstrip().startswith("#") or not l.strip()
        for l in r.splitlines())]
    parsed = [p for p in parsed if p is not None]
    if len(raw) != len(parsed):
        raise SystemExit("%s: %d documents split, %d parsed" %
                         (path, len(raw), len(parsed)))
    cases = []
    i = 1                                   # document 0 is the file header
    while i + 1 < len(parsed):
        head, obj, src = parsed[i], parsed[i + 1], raw[i + 1]
        if not isinstance(head, dict) or "case" not in head:
            raise SystemExit("%s: document %d is not a case header" %
                             (path, i))
        cases.append((head, obj, src))
        i += 2
    return cases


# ==== defaulting (what the apiserver stores, by version) =================

def _default_mode_count(f):
    if not f.get("allocationMode"):
        f["allocationMode"] = "ExactCount"
    if f["allocationMode"] == "ExactCount" and not f.get("count"):
        f["count"] = 1


def _default_tolerations(f):
    for t in f.get("tolerations") or []:
        if isinstance(t, dict) and not t.get("operator"):
            t["operator"] = "Equal"


def _default_claim_spec(spec, version):
    for r in ((spec or {}).get("devices") or {}).get("requests") or []:
        if not isinstance(r, dict):
            continue
        if version in ("v1", "v1beta2"):
            ex = r.get("exactly")
            if isinstance(ex, dict):
                _default_mode_count(ex)
                _default_tolerations(ex)
        else:
            if r.get("deviceClassName"):
                _default_mode_count(r)
            _default_tolerations(r)
        for s in r.get("firstAvailable") or []:
            if isinstance(s, dict):
                _default_mode_count(s)
                _default_tolerations(s)


def _default_pod_spec(spec, is_pod):
    if not isinstance(spec, dict):
        return
    spec.setdefault("dnsPolicy", "ClusterFirst")
    spec.setdefault("restartPolicy", "Always")
    spec.setdefault("terminationGracePeriodSeconds", 30)
    spec.setdefault("schedulerName", "default-scheduler")
    spec.setdefault("securityContext", {})
    if is_pod:
        spec.setdefault("enableServiceLinks", True)
    for key in ("initContainers", "containers", "ephemeralContainers"):
        for c in spec.get(key) or []:
            if not isinstance(c, dict):
                continue
            c.setdefault("terminationMessagePath", "/dev/termination-log")
            c.setdefault("terminationMessagePolicy", "File")
            image = c.get("image") or ""
            if not c.get("imagePullPolicy"):
                latest = image.endswith(":latest") or (
                    ":" not in image.rsplit("/", 1)[-1] and "@" not in image)
                c["imagePullPolicy"] = "Always" if latest else "IfNotPresent"
            res = c.get("resources")
            if is_pod and key != "ephemeralContainers" and \
                    isinstance(res, dict) and isinstance(res.get("limits"),
                                                         dict):
                req = res.setdefault("requests", {}) or {}
                res["requests"] = req
                for k, v in res["limits"].items():
                    req.setdefault(k, v)


def default_object(obj):
    """The object as the apiserver stores it before validating: a copy."""
    o = copy.deepcopy(obj)
    if not isinstance(o, dict):
        return o
    av, kind = o.get("apiVersion") or "", o.get("kind") or ""
    group, _, version = av.rpartition("/")
    md = o.get("metadata")
    if isinstance(md, dict):
        if not md.get("name") and md.get("generateName"):
            md["name"] = md["generateName"][:58] + "x7k2q"
        md.setdefault("uid", "ac051fac-2ead-46d9-b8b4-4e0fbeb7455d")
        md.setdefault("creationTimestamp", "2026-01-01T00:00:00Z")
    spec = o.get("spec")
    if group == "resource.k8s.io":
        if kind == "ResourceClaim":
            _default_claim_spec(spec, version)
        elif kind == "ResourceClaimTemplate" and isinstance(spec, dict):
            _default_claim_spec(spec.get("spec"), version)
        elif kind == "ResourceSlice" and isinstance(spec, dict):
            for d in spec.get("devices") or []:
                if not isinstance(d, dict):
                    continue
                body = d.get("basic") if version in ("v1beta1",
                                                     "v1alpha3") else d
                if not isinstance(body, dict):
                    continue
                for t in body.get("taints") or []:
                    if isinstance(t, dict):
                        t.setdefault("timeAdded", "2026-01-01T00:00:00Z")
                if version in ("v1", "v1beta2"):
                    m = body.get("nodeAllocatableResourceMappings")
                    for v in (m or {}).values() if isinstance(m, dict) \
                            else []:
                        if isinstance(v, dict):
                            v.setdefault("allocationMultiplier", "1")
        elif kind == "DeviceTaintRule" and isinstance(spec, dict):
            t = spec.get("taint")
            if isinstance(t, dict):
                t.setdefault("timeAdded", "2026-01-01T00:00:00Z")
        elif kind == "ResourcePoolStatusRequest" and isinstance(spec, dict):
            if spec.get("limit") is None:
                spec["limit"] = 100
    elif group == "" and kind == "Pod":
        _default_pod_spec(spec, True)
    elif group == "" and kind == "Namespace" and isinstance(md, dict) and \
            md.get("name"):
        md.setdefault("labels", {})["kubernetes.io/metadata.name"] = \
            md["name"]
    return o


def review(obj):
    av = obj.get("apiVersion") or "" if isinstance(obj, dict) else ""
    group, _, version = av.rpartition("/")
    md = obj.get("metadata") if isinstance(obj, dict) else None
    ns = md.get("namespace", "") if isinstance(md, dict) else ""
    return {
        "apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
        "request": {
            "uid": "00000000-0000-0000-0000-000000000001",
            "kind": {"group": group, "version": version,
                     "kind": obj.get("kind", "") if isinstance(obj, dict)
                     else ""},
            "namespace": ns or "", "operation": "CREATE",
            "object": obj,
        },
    }


# ==== the two runs =======================================================

_KNOWN_GATES = []


def known_gates():
    """The feature gates the target version has."""
    if not _KNOWN_GATES:
        p = subprocess.run([LINT, "gates", "-k", KUBE, "-o", "json"],
                           capture_output=True, text=True, check=True)
        _KNOWN_GATES.extend(g["name"] for g in json.loads(p.stdout)["gates"])
    return _KNOWN_GATES


def gate_args(head):
    """-g for the case's gates. A gate the target does not have yet is left
    out when the case turns it off (its absence is the same as off)."""
    gates = {k: v for k, v in (head.get("gates") or {}).items()
             if k in known_gates() or v}
    if not gates:
        return []
    return ["-g", ",".join("%s=%s" % (k, "true" if v else "false")
                           for k, v in sorted(gates.items()))]


def keys_used(node, out):
    if isinstance(node, dict):
        for k, v in node.items():
            out.add(k)
            keys_used(v, out)
    elif isinstance(node, list):
        for v in node:
            keys_used(v, out)
    return out


def target_skip(head, obj):
    """Why the target version cannot judge this case, or None."""
    for k, v in sorted((head.get("gates") or {}).items()):
        if v and k not in known_gates():
            return ("needs feature gate %s, which Kubernetes %s does not "
                    "have" % (k, KUBE))
    used = keys_used(obj, set())
    for f in NOT_IN_TARGET:
        if f in used:
            return ("uses field '%s', which Kubernetes %s does not have (the "
                    "table was read at a newer version)" % (f, KUBE))
    return None


def run_lint(src, head, work):
    path = os.path.join(work, "case.yaml")
    with open(path, "w", encoding="utf-8") as f:
        f.write(src)
    p = subprocess.run([LINT, "lint", "-k", KUBE] + gate_args(head) +
                       ["-o", "json", path], capture_output=True, text=True)
    if p.returncode not in (0, 1):
        return None, "claimcheck lint exited %d: %s" % (
            p.returncode, p.stderr.strip()[:300])
    out = json.loads(p.stdout)
    return [(f["rule"], f["severity"], f.get("path", ""), f["message"])
            for f in out["findings"] if not f.get("suppressed")], None


def parse_denial(message):
    """status.message: 'claimcheck denied K ns/name: [rule] path: msg;
    [rule] path: msg' -> [(rule, path, msg)]"""
    body = message.split(": ", 1)[1] if ": " in message else ""
    out = []
    for part in ("; " + body).split("; ["):
        if not part.strip() or "]" not in part:
            continue
        rule, rest = part.lstrip("; [").split("] ", 1)
        path, _, msg = rest.partition(": ")
        if not msg:
            path, msg = "", rest
        out.append((rule, path, msg))
    return out


def run_admit(obj, head, work):
    path = os.path.join(work, "review.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(review(default_object(obj)), f)
    p = subprocess.run([ADMIT, "admission", "-k", KUBE] + gate_args(head)
                       + [path], capture_output=True, text=True)
    parts = p.stdout.split(" ", 3)
    if p.returncode != 0 or len(parts) < 4 or parts[0] != "ok:":
        return None, "hostile_driver admission exited %d: %s" % (
            p.returncode, (p.stdout + p.stderr).strip()[:300])
    resp = json.loads(parts[3])
    if "response" not in resp:
        return None, "admission error: %s" % p.stdout.strip()[:300]
    r = resp["response"]
    found = []
    if not r.get("allowed"):
        found = [(rule, "error", path, msg) for rule, path, msg in
                 parse_denial(r.get("status", {}).get("message", ""))]
    return found, None


# ==== comparison =========================================================

def judge(case, head, found):
    """Problems of one run's findings against the case's expectation."""
    errs = [f for f in found if f[1] == "error"]
    schema = [f for f in errs if f[0] in SCHEMA_RULES]
    problems = []
    if head["expect"] == "valid":
        for r, _, p, m in schema:
            problems.append("false error [%s] %s: %s" % (r, p, m))
        return problems
    want = [e["field"] for e in head.get("errors") or []
            if (case, e["field"]) not in DEFAULTED_AWAY]
    if not head.get("errors"):
        if not schema:
            problems.append("missed: no schema-class error (the table "
                            "expects validation to fail)")
        return problems
    if not want:                            # all defaulted away: valid
        for r, _, p, m in schema:
            problems.append("false error [%s] %s: %s" % (r, p, m))
        return problems
    have = {p for _, _, p, _ in schema}
    for w in dict.fromkeys(want):
        if w not in have:
            problems.append("missed error on %s" % w)
    for r, _, p, m in schema:
        if p not in want:
            problems.append("error on a path the apiserver does not report "
                            "[%s] %s: %s" % (r, p, m))
    return problems


def main():
    files = sys.argv[1:] or [
        os.path.join(TOP, "tests", "k8s", d, f)
        for d in ("validation", "defaults")
        for f in sorted(os.listdir(os.path.join(TOP, "tests", "k8s", d)))
        if f.endswith(".yaml")]
    for tool in (LINT, ADMIT):
        if not os.access(tool, os.X_OK):
            print("FAIL %s is not built (make all)" % tool)
            print("0 passed, 1 failed")
            return 1
    npass = nfail = nskip = 0
    with tempfile.TemporaryDirectory() as work:
        for path in files:
            name = os.path.basename(path)
            for head, obj, src in load_cases(path):
                case = head["case"]
                why = head.get("skip") or RUNNER_SKIPS.get(case) or \
                    target_skip(head, obj)
                if why:
                    print("skipped: %s %s: %s" % (name, case, why))
                    nskip += 1
                    continue
                for e in head.get("errors") or []:
                    r = DEFAULTED_AWAY.get((case, e["field"]))
                    if r:
                        print("adjusted: %s %s: no error on %s (%s)" %
                              (name, case, e["field"], r))
                lint, lerr = run_lint(src, head, work)
                admit, aerr = run_admit(obj, head, work)
                problems = []
                if lerr or aerr:
                    problems = [x for x in (lerr, aerr) if x]
                else:
                    problems += ["lint: " + p for p in judge(case, head, lint)]
                    problems += ["admit: " + p
                                 for p in judge(case, head, admit)]
                    lv = any(f[1] == "error" and f[0] not in BEFORE_ADMISSION
                             for f in lint)
                    av = any(f[1] == "error" and f[0] not in BEFORE_ADMISSION
                             for f in admit)
                    if lv != av:
                        problems.append("verdicts differ: lint %s, admission "
                                        "%s" % ("deny" if lv else "allow",
                                                "deny" if av else "allow"))
                    lp = {f[2] for f in lint if f[1] == "error"
                          and f[0] in SCHEMA_RULES}
                    ap = {f[2] for f in admit if f[0] in SCHEMA_RULES}
                    if lp != ap:
                        problems.append("schema paths differ: lint %s, "
                                        "admission %s" % (sorted(lp),
                                                          sorted(ap)))
                if problems:
                    nfail += 1
                    for p in problems:
                        print("FAIL %s %s: %s" % (name, case, p))
                else:
                    npass += 1
    print("%d passed, %d failed, %d skipped" % (npass, nfail, nskip))
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main())
