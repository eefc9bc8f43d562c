#!/usr/bin/env python3
"""deploy_check.py - structural checks of claimcheck's own deployment files.

Usage: deploy_check.py TOP WEBHOOK_HELP_FILE [RENDERED.yaml]
Reads deploy/kubernetes/base (in kustomization.yaml order), the cert-manager
overlay, .pre-commit-hooks.yaml and the GitHub Action, and prints one line
per check: "ok NAME" or "FAIL NAME: why". YAML is read with PyYAML when it
is installed, else with js-yaml from tests/e2e/node_modules (deploy.sh
installs it). With RENDERED (deploy/out/claimcheck.yaml) the same checks run
on the rendered file too, plus the Secret and caBundle checks.
"""
import json
import os
import re
import subprocess
import sys

from tally import check, summary

TOP = sys.argv[1]
HELP = open(sys.argv[2]).read()
RENDERED = sys.argv[3] if len(sys.argv) > 3 else None

try:
    import yaml  # PyYAML

    def load_all(path):
        with open(path) as f:
            return [d for d in yaml.safe_load_all(f) if d is not None]
except ImportError:
    yaml = None
    JS = ("const y=require('js-yaml'),fs=require('fs');"
          "const d=y.loadAll(fs.readFileSync(process.argv[1],'utf8'))"
          ".filter(x=>x!=null);process.stdout.write(JSON.stringify(d));")

    def load_all(path):
        out = subprocess.run(["node", "-e", JS, os.path.abspath(path)],
                             cwd=os.path.join(TOP, "tests/e2e"),
                             capture_output=True, text=True, check=True)
        return json.loads(out.stdout)


# Debian runtime package of each shared library the binaries may link
SONAME_PACKAGE = {
    "libyaml-0.so.2": "libyaml-0-2", "libcjson.so.1": "libcjson1",
    "libpcre2-8.so.0": "libpcre2-8-0", "libmicrohttpd.so.12": "libmicrohttpd12",
    "libgnutls.so.30": "libgnutls30", "libssl.so.3": "libssl3",
    "libcrypto.so.3": "libssl3", "libcurl.so.4": "libcurl4",
}


def needed_packages(binary):
    """The packages a runtime image needs for binary: its NEEDED entries
    (readelf -d) mapped to Debian packages, plus ca-certificates (libcurl
    talks TLS to the apiserver). Without the binary: the known set."""
    want = {"ca-certificates"}
    try:
        out = subprocess.run(["readelf", "-d", binary], capture_output=True,
                             text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return want | {"libyaml-0-2", "libpcre2-8-0", "libmicrohttpd12",
                       "libgnutls30", "libssl3", "libcurl4"}
    for so in re.findall(r"\(NEEDED\).*\[(.+?)\]", out):
        if so in SONAME_PACKAGE:
            want.add(SONAME_PACKAGE[so])
    return want

def get(d, *path, default=None):
    for p in path:
        if isinstance(d, dict) and p in d:
            d = d[p]
        elif isinstance(d, list) and isinstance(p, int) and p < len(d):
            d = d[p]
        else:
            return default
    return d


def base_docs():
    base = os.path.join(TOP, "deploy/kubernetes/base")
    kust = load_all(os.path.join(base, "kustomization.yaml"))[0]
    docs = []
    for f in kust["resources"]:
        docs += load_all(os.path.join(base, f))
    return kust, docs


def by_kind(docs, kind):
    return [d for d in docs if d.get("kind") == kind]


EXPECTED_RBAC = {
    ("resource.k8s.io", "deviceclasses"), ("resource.k8s.io", "resourceslices"),
    ("resource.k8s.io", "resourceclaims"),
    ("resource.k8s.io", "resourceclaimtemplates"),
    ("", "nodes"), ("", "namespaces"),
}
EXPECTED_ARGS = ["serve", "--listen", "0.0.0.0:8443",
                 "--tls-cert", "/etc/claimcheck/tls/tls.crt",
                 "--tls-key", "/etc/claimcheck/tls/tls.key",
                 "--in-cluster", "--config", "/etc/claimcheck/config/config.yaml"]
POD_WEBHOOK_KINDS = {
    ("", "pods"), ("", "replicationcontrollers"), ("apps", "deployments"),
    ("apps", "replicasets"), ("apps", "statefulsets"), ("apps", "daemonsets"),
    ("batch", "jobs"), ("batch", "cronjobs"),
}


def check_docs(tag, docs):
    t = tag + ": "
    # -- Namespace, RBAC ---------------------------------------------------
    nss = [d["metadata"]["name"] for d in by_kind(docs, "Namespace")]
    check(t + "namespace claimcheck", nss == ["claimcheck"], str(nss))
    check(t + "no Role/RoleBinding", not by_kind(docs, "Role")
          and not by_kind(docs, "RoleBinding"))
    roles = by_kind(docs, "ClusterRole")
    check(t + "one ClusterRole", len(roles) == 1, str(len(roles)))
    got, verbs, extra, urls = set(), set(), [], []
    for r in get(roles, 0, "rules", default=[]) or []:
        if "nonResourceURLs" in r:      # the optional /metrics rule
            urls.append(r)
            continue
        for g in r.get("apiGroups", []):
            for res in r.get("resources", []):
                got.add((g, res))
        verbs |= set(r.get("verbs", []))
        extra += [k for k in r if k not in ("apiGroups", "resources", "verbs")]
    check(t + "rbac: exactly the inventory kinds", got == EXPECTED_RBAC,
          "extra %s missing %s" % (got - EXPECTED_RBAC, EXPECTED_RBAC - got))
    check(t + "rbac: read-only verbs get/list/watch",
          verbs == {"get", "list", "watch"}, str(verbs))
    check(t + "rbac: no resourceNames", not extra, str(extra))
    check(t + "rbac: nonResourceURLs: only get /metrics (the apiserver's "
          "feature gates)", urls == [{"nonResourceURLs": ["/metrics"],
                                      "verbs": ["get"]}], str(urls))
    crb = by_kind(docs, "ClusterRoleBinding")
    rname = get(roles, 0, "metadata", "name")
    check(t + "rbac: binding to the ServiceAccount",
          len(crb) == 1 and get(crb[0], "roleRef", "name") == rname
          and get(crb[0], "roleRef", "kind") == "ClusterRole"
          and get(crb[0], "subjects") == [{"kind": "ServiceAccount",
                                          "name": "claimcheck",
                                          "namespace": "claimcheck"}],
          json.dumps(crb))
    sas = by_kind(docs, "ServiceAccount")
    check(t + "service account", [get(s, "metadata", "name") for s in sas]
          == ["claimcheck"])

    # -- Deployment --------------------------------------------------------
    deps = by_kind(docs, "Deployment")
    check(t + "one Deployment", len(deps) == 1)
    if not deps:
        return
    dep = deps[0]
    spec = dep["spec"]
    pod = get(spec, "template", "spec", default={})
    labels = get(spec, "template", "metadata", "labels", default={})
    check(t + "replicas not set: the HorizontalPodAutoscaler owns the count",
          "replicas" not in spec, str(spec.get("replicas")))
    check(t + "selector matches pod labels",
          all(labels.get(k) == v for k, v in
              get(spec, "selector", "matchLabels", default={}).items())
          and get(spec, "selector", "matchLabels"))
    keys = {c.get("topologyKey") for c in pod.get("topologySpreadConstraints", [])}
    check(t + "topology spread over hostname and zone",
          {"kubernetes.io/hostname", "topology.kubernetes.io/zone"} <= keys,
          str(keys))
    for c in pod.get("topologySpreadConstraints", []):
        sel = get(c, "labelSelector", "matchLabels", default={})
        check(t + "spread selector matches pods (%s)" % c.get("topologyKey"),
              sel and all(labels.get(k) == v for k, v in sel.items()))
    pcname = pod.get("priorityClassName")
    pcs = [get(p, "metadata", "name") for p in by_kind(docs, "PriorityClass")]
    check(t + "priorityClassName exists",
          pcname == "system-cluster-critical" or pcname in pcs,
          "%s not in %s" % (pcname, pcs))
    check(t + "serviceAccountName", pod.get("serviceAccountName") == "claimcheck")
    check(t + "service account token mounted for --in-cluster",
          pod.get("automountServiceAccountToken") is not False)
    psc = pod.get("securityContext", {})
    cs = pod.get("containers", [])
    check(t + "one container", len(cs) == 1)
    c = cs[0] if cs else {}
    sc = c.get("securityContext", {})

    def eff(k):
        return sc.get(k, psc.get(k))
    check(t + "runAsNonRoot", eff("runAsNonRoot") is True)
    check(t + "runAsUser 65532", eff("runAsUser") == 65532, str(eff("runAsUser")))
    check(t + "readOnlyRootFilesystem", sc.get("readOnlyRootFilesystem") is True)
    check(t + "allowPrivilegeEscalation false",
          sc.get("allowPrivilegeEscalation") is False)
    check(t + "privileged not set true", sc.get("privileged") is not True)
    check(t + "capabilities drop ALL", get(sc, "capabilities", "drop") == ["ALL"]
          and not get(sc, "capabilities", "add"))
    check(t + "seccomp RuntimeDefault",
          get(eff("seccompProfile") or {}, "type") == "RuntimeDefault")
    check(t + "no hostNetwork/hostPID/hostIPC",
          not any(pod.get(k) for k in ("hostNetwork", "hostPID", "hostIPC")))
    ports = {p.get("name"): p.get("containerPort") for p in c.get("ports", [])}
    for probe, path in (("readinessProbe", "/readyz"), ("livenessProbe", "/healthz")):
        hg = get(c, probe, "httpGet", default={})
        port = hg.get("port")
        port = ports.get(port, port)
        check(t + "%s %s HTTPS 8443" % (probe, path),
              hg.get("path") == path and hg.get("scheme") == "HTTPS"
              and port == 8443, json.dumps(hg))
    res = c.get("resources", {})
    check(t + "requests and limits (cpu, memory)",
          all(get(res, a, b) for a in ("requests", "limits")
              for b in ("cpu", "memory")), json.dumps(res))
    check(t + "args", c.get("args") == EXPECTED_ARGS, json.dumps(c.get("args")))
    for a in c.get("args", []):
        if a.startswith("--"):
            check(t + "flag %s known to claimcheck-webhook" % a,
                  re.search(r"(^|\s)%s(\s|$)" % re.escape(a), HELP, re.M),
                  "not in --help")
    vols = {v["name"]: v for v in pod.get("volumes", [])}
    mounts = {m["mountPath"]: m for m in c.get("volumeMounts", [])}
    tls = mounts.get("/etc/claimcheck/tls", {})
    cfgm = mounts.get("/etc/claimcheck/config", {})
    check(t + "TLS Secret mounted read-only",
          tls.get("readOnly") is True and "subPath" not in tls
          and get(vols.get(tls.get("name"), {}), "secret", "secretName")
          == "claimcheck-tls")
    cmname = get(vols.get(cfgm.get("name"), {}), "configMap", "name")
    check(t + "config mounted read-only", cfgm.get("readOnly") is True and cmname)
    cms = {get(m, "metadata", "name"): m for m in by_kind(docs, "ConfigMap")}
    check(t + "ConfigMap has config.yaml",
          "config.yaml" in get(cms.get(cmname, {}), "data", default={}))
    # -- PDB, Service ------------------------------------------------------
    pdbs = by_kind(docs, "PodDisruptionBudget")
    check(t + "PodDisruptionBudget selects the pods", len(pdbs) == 1 and all(
        labels.get(k) == v for k, v in
        get(pdbs[0], "spec", "selector", "matchLabels", default={}).items())
        and (get(pdbs[0], "spec", "maxUnavailable") == 1
             or get(pdbs[0], "spec", "minAvailable") == 2))
    # -- HorizontalPodAutoscaler -------------------------------------------
    hpas = by_kind(docs, "HorizontalPodAutoscaler")
    check(t + "one HorizontalPodAutoscaler (autoscaling/v2)", len(hpas) == 1
          and get(hpas, 0, "apiVersion") == "autoscaling/v2")
    hs = get(hpas, 0, "spec", default={})
    ref = hs.get("scaleTargetRef", {})
    check(t + "HPA scales the Deployment",
          ref.get("kind") == "Deployment" and ref.get("apiVersion") == "apps/v1"
          and ref.get("name") == get(dep, "metadata", "name")
          and get(hpas, 0, "metadata", "namespace")
          == get(dep, "metadata", "namespace"), json.dumps(ref))
    lo, hi = hs.get("minReplicas", 1), hs.get("maxReplicas", 0)
    pdb = get(by_kind(docs, "PodDisruptionBudget"), 0, "spec", default={})
    check(t + "HPA minReplicas >= 3 (a zone each), above the PDB's budget",
          isinstance(lo, int) and lo >= 3
          and (pdb.get("maxUnavailable", 0) < lo - 1
               or pdb.get("minAvailable", lo) < lo), "min %s, pdb %s" % (lo, pdb))
    check(t + "HPA maxReplicas in minReplicas..10 (apiserver lists per replica)",
          isinstance(hi, int) and lo <= hi <= 10, "max %s" % hi)
    ms = hs.get("metrics", [])
    cpu = [get(m, "resource", "target", default={}) for m in ms
           if m.get("type") == "Resource" and get(m, "resource", "name") == "cpu"]
    check(t + "HPA on CPU only", len(cpu) == 1 and len(ms) == 1, json.dumps(ms))
    tgt = cpu[0] if cpu else {}
    lim = get(c, "resources", "limits", "cpu")

    def millicores(q):
        q = str(q)
        return float(q[:-1]) if q.endswith("m") else float(q) * 1000
    check(t + "HPA CPU target below the container's CPU limit",
          tgt.get("type") == "AverageValue" and lim is not None
          and 0 < millicores(tgt.get("averageValue", 0)) < millicores(lim)
          or tgt.get("type") == "Utilization" and get(c, "resources", "requests", "cpu"),
          "%s vs limit %s" % (json.dumps(tgt), lim))
    svcs = by_kind(docs, "Service")
    svc = svcs[0] if svcs else {}
    sp = get(svc, "spec", "ports", 0, default={})
    tp = ports.get(sp.get("targetPort"), sp.get("targetPort"))
    check(t + "Service claimcheck/claimcheck 443 -> 8443",
          get(svc, "metadata", "name") == "claimcheck"
          and get(svc, "metadata", "namespace") == "claimcheck"
          and sp.get("port") == 443 and tp == 8443, json.dumps(sp))
    check(t + "Service selects the pods", get(svc, "spec", "selector") and all(
        labels.get(k) == v for k, v in get(svc, "spec", "selector").items()))
    # -- the webhook configuration ----------------------------------------
    vwcs = by_kind(docs, "ValidatingWebhookConfiguration")
    check(t + "one ValidatingWebhookConfiguration", len(vwcs) == 1)
    hooks = get(vwcs, 0, "webhooks", default=[])
    check(t + "two webhooks", len(hooks) == 2, str(len(hooks)))
    for h in hooks:
        n = t + h.get("name", "?") + ": "
        check(n + "sideEffects None", h.get("sideEffects") == "None")
        check(n + "admissionReviewVersions [v1]",
              h.get("admissionReviewVersions") == ["v1"])
        check(n + "timeoutSeconds <= 5",
              isinstance(h.get("timeoutSeconds"), int)
              and 1 <= h["timeoutSeconds"] <= 5)
        check(n + "failurePolicy set", h.get("failurePolicy") in ("Ignore", "Fail"))
        svcref = get(h, "clientConfig", "service", default={})
        check(n + "clientConfig service claimcheck/claimcheck /validate",
              svcref.get("name") == "claimcheck"
              and svcref.get("namespace") == "claimcheck"
              and svcref.get("path") == "/validate"
              and svcref.get("port", 443) == 443
              and "url" not in get(h, "clientConfig", default={}))
        excl = set()
        for e in get(h, "namespaceSelector", "matchExpressions", default=[]):
            if e.get("key") == "kubernetes.io/metadata.name" and e.get("operator") == "NotIn":
                excl |= set(e.get("values", []))
        check(n + "namespaceSelector excludes kube-system and claimcheck",
              {"kube-system", "claimcheck"} <= excl, str(excl))
        ops = {o for r in h.get("rules", []) for o in r.get("operations", [])}
        check(n + "operations CREATE/UPDATE only", ops == {"CREATE", "UPDATE"},
              str(ops))
        mcs = h.get("matchConditions", [])
        check(n + "matchConditions named uniquely, <= 64",
              len(mcs) <= 64 and len({m.get("name") for m in mcs}) == len(mcs)
              and all(m.get("expression") for m in mcs))
    names = [h.get("name") for h in hooks]
    check(t + "webhook names unique and qualified",
          len(set(names)) == len(names) and all(n and n.count(".") >= 2 for n in names))
    podh = [h for h in hooks if any(
        "pods" in r.get("resources", []) for r in h.get("rules", []))]
    drah = [h for h in hooks if any(
        "resource.k8s.io" in r.get("apiGroups", []) for r in h.get("rules", []))]
    check(t + "Pod webhook and DRA webhook are separate",
          len(podh) == 1 and len(drah) == 1 and podh[0] is not drah[0])
    if podh:
        got = {(g, r) for rr in podh[0]["rules"] for g in rr.get("apiGroups", [])
               for r in rr.get("resources", [])}
        check(t + "Pod webhook: pods and the workload kinds", got == POD_WEBHOOK_KINDS,
              "extra %s missing %s" % (got - POD_WEBHOOK_KINDS, POD_WEBHOOK_KINDS - got))
        check(t + "Pod webhook: matchConditions skip pods without devices",
              len(podh[0].get("matchConditions", [])) >= 1)
    if drah:
        h = drah[0]
        check(t + "DRA webhook: matchPolicy Equivalent",
              h.get("matchPolicy") == "Equivalent")
        scoped = {(r, rr.get("scope")) for rr in h["rules"]
                  for r in rr.get("resources", [])
                  if rr.get("apiGroups") == ["resource.k8s.io"]
                  and rr.get("apiVersions") == ["v1"]}
        want = {("resourceclaims", "Namespaced"),
                ("resourceclaimtemplates", "Namespaced"),
                ("deviceclasses", "Cluster")}
        check(t + "DRA webhook: resource.k8s.io/v1 claims, templates (Namespaced), classes (Cluster)",
              scoped == want, str(scoped))


def main():
    kust, docs = base_docs()
    check("base: kustomization namespace claimcheck",
          kust.get("namespace") == "claimcheck")
    check_docs("base", docs)
    raw = open(os.path.join(TOP, "deploy/kubernetes/base/webhook.yaml")).read()
    check("base: failurePolicy explained in a comment",
          re.search(r"^#.*failurePolicy", raw, re.M)
          and re.search(r"^#.*Ignore", raw, re.M) and re.search(r"^#.*Fail", raw, re.M))
    check("base: no caBundle (re-apply keeps an injected one)", "caBundle:" not in
          re.sub(r"#.*", "", raw))
    # config in the ConfigMap: excluded namespaces
    cm = by_kind(docs, "ConfigMap")[0]["data"]["config.yaml"]
    cfg = (yaml.safe_load(cm) if yaml else None)
    if cfg is not None:
        check("config: webhook.excludedNamespaces has kube-system and claimcheck",
              {"kube-system", "claimcheck"} <= set(get(cfg, "webhook", "excludedNamespaces", default=[])))

    # -- cert-manager overlay -------------------------------------------
    ov = os.path.join(TOP, "deploy/kubernetes/overlays/cert-manager")
    okust = load_all(os.path.join(ov, "kustomization.yaml"))[0]
    odocs = []
    for f in okust.get("resources", []):
        if not f.startswith(".."):
            odocs += load_all(os.path.join(ov, f))
    check("overlay: uses the base", "../../base" in okust.get("resources", []))
    iss = {get(d, "metadata", "name"): d for d in by_kind(odocs, "Issuer")}
    certs = {get(d, "metadata", "name"): d for d in by_kind(odocs, "Certificate")}
    ss = [n for n, d in iss.items() if "selfSigned" in d.get("spec", {})]
    ca_issuers = [d for d in iss.values() if "ca" in d.get("spec", {})]
    check("overlay: self-signed Issuer", len(ss) == 1)
    ca_certs = [d for d in certs.values() if get(d, "spec", "isCA")]
    check("overlay: CA Certificate from the self-signed Issuer",
          len(ca_certs) == 1 and get(ca_certs[0], "spec", "issuerRef", "name") in ss)
    check("overlay: CA Issuer from the CA Certificate's Secret",
          len(ca_issuers) == 1 and get(ca_issuers[0], "spec", "ca", "secretName")
          == get(ca_certs[0] if ca_certs else {}, "spec", "secretName"))
    serving = [d for d in certs.values() if not get(d, "spec", "isCA")]
    sv = serving[0] if serving else {}
    want_dns = {"claimcheck", "claimcheck.claimcheck", "claimcheck.claimcheck.svc",
                "claimcheck.claimcheck.svc.cluster.local"}
    check("overlay: serving Certificate -> Secret claimcheck-tls with the service DNS names",
          len(serving) == 1 and get(sv, "spec", "secretName") == "claimcheck-tls"
          and want_dns <= set(get(sv, "spec", "dnsNames", default=[]))
          and get(sv, "spec", "issuerRef", "name") in
          [get(d, "metadata", "name") for d in ca_issuers])
    patches = json.dumps(okust.get("patches", []))
    want = "cert-manager.io/inject-ca-from: claimcheck/%s" % get(sv, "metadata", "name")
    check("overlay: inject-ca-from names the serving Certificate", want in patches,
          patches[:200])

    # -- pre-commit hooks ------------------------------------------------
    hooks = load_all(os.path.join(TOP, ".pre-commit-hooks.yaml"))[0]
    langs = {"conda", "coursier", "dart", "docker", "docker_image", "dotnet", "fail",
             "golang", "haskell", "julia", "lua", "node", "perl", "pygrep", "python",
             "r", "ruby", "rust", "script", "swift", "system"}
    check("pre-commit: a list of hooks", isinstance(hooks, list) and hooks)
    for h in hooks:
        n = "pre-commit %s: " % h.get("id")
        check(n + "id, name, entry, language", all(h.get(k) for k in
                                                   ("id", "name", "entry", "language")))
        check(n + "language valid", h.get("language") in langs)
        check(n + "types [yaml]", h.get("types") == ["yaml"])
        check(n + "entry runs `lint`", h.get("entry", "").split()[1:2] == ["lint"])
    byl = {h.get("language"): h for h in hooks}
    check("pre-commit: system hook claimcheck",
          get(byl, "system", "id") == "claimcheck"
          and get(byl, "system", "entry", default="").split()[0] == "claimcheck")
    check("pre-commit: docker_image hook", "docker_image" in byl)

    # -- GitHub Action ---------------------------------------------------
    act = load_all(os.path.join(TOP, "deploy/github-action/action.yml"))[0]
    steps = get(act, "runs", "steps", default=[])
    check("action: composite", get(act, "runs", "using") == "composite")
    check("action: paths input required", get(act, "inputs", "paths", "required") is True)
    scan = [s for s in steps if s.get("id") == "scan"]
    check("action: scan step continue-on-error",
          len(scan) == 1 and scan[0].get("continue-on-error") is True)
    check("action: scan writes SARIF", scan and "-o sarif --output" in scan[0].get("run", ""))
    up = [s for s in steps if str(s.get("uses", "")).startswith(
        "github/codeql-action/upload-sarif@")]
    check("action: upload-sarif step (always)", len(up) == 1
          and "always()" in str(up[0].get("if")))
    last = steps[-1] if steps else {}
    check("action: last step fails when the scan failed",
          "steps.scan.outcome == 'failure'" in str(last.get("if"))
          and "exit 1" in last.get("run", ""))
    check("action: every run step has a shell",
          all(s.get("shell") for s in steps if "run" in s))
    check("action: inputs reach scripts through env, not ${{ }} in run",
          all("${{" not in s.get("run", "") for s in steps))
    wf = load_all(os.path.join(TOP, "deploy/github-action/example-workflow.yml"))[0]
    on = wf.get("on", wf.get(True, {}))
    check("workflow: push and pull_request triggers",
          "push" in on and "pull_request" in on)
    check("workflow: security-events write",
          get(wf, "permissions", "security-events") == "write")

    # -- Dockerfile -----------------------------------------------------
    df = open(os.path.join(TOP, "deploy/Dockerfile")).read()
    stages = re.split(r"^FROM ", df, flags=re.M)[1:]
    check("Dockerfile: build stage debian:bookworm",
          stages and stages[0].startswith("debian:bookworm AS build"))
    rt = [s for s in stages[1:] if s.startswith("debian:bookworm-slim")]
    check("Dockerfile: bookworm-slim runtime stages", len(rt) == len(stages) - 1 >= 2)
    for s in rt:
        name = s.split()[2] if len(s.split()) > 2 else "?"
        check("Dockerfile %s: no -dev packages" % name, "-dev" not in s)
        check("Dockerfile %s: USER 65532" % name, re.search(r"^USER 65532", s, re.M))
        check("Dockerfile %s: copies from build" % name, "--from=build" in s)
    hookst = [s for s in rt if 'ENTRYPOINT ["claimcheck-webhook"]' in s]
    check("Dockerfile: webhook image with ENTRYPOINT claimcheck-webhook", len(hookst) == 1)
    if hookst:
        pk = set(re.findall(r"\b(lib[a-z0-9.-]+|ca-certificates)\b",
                            hookst[0].split("&& rm")[0]))
        want = needed_packages(os.path.join(TOP, "build", "claimcheck-webhook"))
        check("Dockerfile: webhook runtime libraries exactly the ones it links",
              pk == want, str(pk ^ want))
    check("Dockerfile: linter target", re.search(r"^FROM debian:bookworm-slim AS linter",
                                                 df, re.M))
    check("Dockerfile: build stage runs make", re.search(r"\bmake\b", stages[0] if stages else ""))

    # -- Makefile / .gitignore -------------------------------------------
    mk = open(os.path.join(TOP, "Makefile")).read()
    check("Makefile: deploy-manifests runs deploy/render.sh",
          re.search(r"^deploy-manifests:.*\n\t@?bash deploy/render.sh", mk, re.M))
    gi = open(os.path.join(TOP, ".gitignore")).read().split()
    check(".gitignore: deploy/out", "/deploy/out/" in gi or "deploy/out/" in gi)

    # -- the rendered manifests ------------------------------------------
    if RENDERED:
        rd = load_all(RENDERED)
        check_docs("rendered", rd)
        secs = [d for d in rd if d.get("kind") == "Secret"]
        check("rendered: Secret claimcheck-tls (kubernetes.io/tls)",
              len(secs) == 1 and get(secs[0], "metadata", "name") == "claimcheck-tls"
              and get(secs[0], "metadata", "namespace") == "claimcheck"
              and secs[0].get("type") == "kubernetes.io/tls"
              and {"tls.crt", "tls.key"} <= set(get(secs[0], "data", default={}))
              and "stringData" not in secs[0])
        kinds = [d.get("kind") for d in rd]
        check("rendered: Namespace first", kinds[:1] == ["Namespace"], str(kinds))
        check("rendered: Secret before the Deployment",
              "Secret" in kinds and kinds.index("Secret") < kinds.index("Deployment"))
        for h in get(by_kind(rd, "ValidatingWebhookConfiguration"), 0, "webhooks", default=[]):
            check("rendered %s: caBundle set" % h.get("name"),
                  bool(get(h, "clientConfig", "caBundle")))
        print("DATA " + json.dumps({
            "secret": get(secs, 0, "data", default={}),
            "caBundles": [get(h, "clientConfig", "caBundle") for h in
                          get(by_kind(rd, "ValidatingWebhookConfiguration"), 0,
                              "webhooks", default=[])]}))
    return summary()


if __name__ == "__main__":
    sys.exit(main())
