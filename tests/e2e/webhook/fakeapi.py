#!/usr/bin/env python3
"""fakeapi.py - a small HTTPS stand-in for kube-apiserver, for the webhook's
in-cluster sync tests and `claimcheck audit`. Binds 127.0.0.1 only.

Serves list (with limit/continue) of every kind the webhook watches and the
audit reads (cluster-wide and per namespace), GET of one Namespace, chunked
watch streams (ADDED/MODIFIED/DELETED), a 410 Gone ERROR event and a dropped
connection on demand, GET /version and the discovery documents of
resource.k8s.io (only the versions --dra-versions names are served: others,
and the group itself with --dra-versions none, are 404), and GET /metrics
in the Prometheus text format: a few apiserver metrics and, with --gates
A=true,B=false, one kubernetes_feature_enabled sample per gate.

Authentication: a bearer token (--token, repeatable) or a client
certificate signed by --client-ca (its CN is the user); anything else is
401. Authorization: --deny RESOURCE answers 403 with the apiserver's
Status message for that resource (e.g. resourceclaims); --deny /metrics
answers 403 to GET /metrics as an RBAC without that nonResourceURL does.

With --policy-reports the wgpolicyk8s.io/v1alpha2 CRDs are installed:
PolicyReports and ClusterPolicyReports can be applied (PATCH, stored as
sent), deleted and listed (labelSelector k=v).

Objects: the built-in set (the webhook tests'), or --objects FILE (YAML
documents or Lists, grouped by kind). A string "{{ago 48h}}" in them becomes
the RFC 3339 time that long before the server started ("{{ago 0s}}": now).

Control (no auth, test only):
  POST /_control {"op": "add"|"delete", "resource": R, "object": {...}}
  POST /_control {"op": "gone"|"drop", "resource": R}
  POST /_control {"op": "empty", "resource": R, "count": N}: the next N
                 lists of R come back with no items (an apiserver hiccup)
  POST /_control {"op": "churn", "resource": R, "rate": 100, "seconds": 20}:
                 MODIFIED events at that rate for that long, the objects of
                 R in turn, each with spec.pool.generation one up (as a
                 driver republishing its ResourceSlices); their send times
                 (epoch seconds) are in /_stats as "churn": [t, ...]
  POST /_control {"op": "version", "version": "1.35"}  (an upgrade)
  POST /_control {"op": "gates", "gates": "A=true,B=false"}
  GET  /_stats   -> {"lists": {R: list pages served}, "watches": {R: n},
                     "auth": {"token": n, "cert": n}, "denied": n,
                     "agents": [User-Agent of authenticated requests],
                     "writes": [{method, path, contentType, fieldManager,
                                 force}], "churn": [t, ...]}
"""
import argparse
import datetime
import json
import os
import re
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# plural -> (group, kind, namespaced); the version of resource.k8s.io is
# DRA_VERSION, the others v1
TYPES = {
    "nodes": ("", "Node", False),
    "namespaces": ("", "Namespace", False),
    "pods": ("", "Pod", True),
    "replicationcontrollers": ("", "ReplicationController", True),
    "deployments": ("apps", "Deployment", True),
    "replicasets": ("apps", "ReplicaSet", True),
    "statefulsets": ("apps", "StatefulSet", True),
    "daemonsets": ("apps", "DaemonSet", True),
    "jobs": ("batch", "Job", True),
    "cronjobs": ("batch", "CronJob", True),
    "deviceclasses": ("resource.k8s.io", "DeviceClass", False),
    "resourceslices": ("resource.k8s.io", "ResourceSlice", False),
    "resourceclaims": ("resource.k8s.io", "ResourceClaim", True),
    "resourceclaimtemplates": ("resource.k8s.io", "ResourceClaimTemplate",
                               True),
    "devicetaintrules": ("resource.k8s.io", "DeviceTaintRule", False),
    # the wgpolicyk8s.io CRDs, served with --policy-reports
    "policyreports": ("wgpolicyk8s.io", "PolicyReport", True),
    "clusterpolicyreports": ("wgpolicyk8s.io", "ClusterPolicyReport", False),
}
KINDS = {p: t[1] for p, t in TYPES.items()}
PLURAL = {t[1]: p for p, t in TYPES.items()}
DRA_VERSIONS = ["v1"]           # served versions, preferred first
POLICY_REPORTS = False          # the wgpolicyk8s.io CRDs installed
TAINT_VERSION = None            # where DeviceTaintRules are served
RESOURCES = {}                  # cluster-wide list path -> (plural,
                                # list kind, apiVersion)


def api_version(plural):
    group = TYPES[plural][0]
    if plural == "devicetaintrules":
        return "resource.k8s.io/" + (TAINT_VERSION or "")
    if group == "resource.k8s.io":
        return "resource.k8s.io/" + DRA_VERSIONS[0]
    if group == "wgpolicyk8s.io":
        return "wgpolicyk8s.io/v1alpha2"
    return (group + "/v1") if group else "v1"


def build_resources():
    RESOURCES.clear()
    for plural in TYPES:
        if TYPES[plural][0] == "resource.k8s.io":
            if not DRA_VERSIONS:
                continue
            if plural == "devicetaintrules" and not TAINT_VERSION:
                continue
        if TYPES[plural][0] == "wgpolicyk8s.io" and not POLICY_REPORTS:
            continue
        av = api_version(plural)
        prefix = "/apis/" + av if "/" in av else "/api/v1"
        RESOURCES[prefix + "/" + plural] = (plural, KINDS[plural] + "List",
                                            av)


def initial_objects():
    gpu_class = {"metadata": {"name": "gpu.nvidia.com"},
                 "spec": {"selectors": [{"cel": {"expression":
                          "device.driver == 'gpu.nvidia.com'"}}]}}
    tmpl = {"metadata": {"name": "single-gpu", "namespace": "ml"},
            "spec": {"spec": {"devices": {"requests": [
                {"name": "gpu", "exactly": {
                    "deviceClassName": "gpu.nvidia.com"}}]}}}}
    node = lambda n: {"metadata": {"name": n, "labels": {
        "kubernetes.io/hostname": n}}, "status": {
        "capacity": {"cpu": "8"}, "allocatable": {"cpu": "8"},
        "images": [{"names": ["x" * 100]}] * 20}}
    objs = {p: {} for p in TYPES}
    objs["nodes"] = {"/node-a": node("node-a"), "/node-b": node("node-b")}
    objs["namespaces"] = {"/default": {"metadata": {"name": "default"}},
                          "/ml": {"metadata": {"name": "ml"}}}
    objs["deviceclasses"] = {"/gpu.nvidia.com": gpu_class}
    objs["resourceclaimtemplates"] = {"ml/single-gpu": tmpl}
    return objs


AGO = re.compile(r"\{\{ago ([0-9]+)([smhd])\}\}")


def fill_times(o, start):
    """{{ago 48h}} -> RFC 3339 time 48 hours before start"""
    if isinstance(o, dict):
        return {k: fill_times(v, start) for k, v in o.items()}
    if isinstance(o, list):
        return [fill_times(v, start) for v in o]
    if isinstance(o, str):
        def one(m):
            n = int(m.group(1)) * {"s": 1, "m": 60, "h": 3600,
                                   "d": 86400}[m.group(2)]
            t = start - datetime.timedelta(seconds=n)
            return t.strftime("%Y-%m-%dT%H:%M:%SZ")
        return AGO.sub(one, o)
    return o


def load_objects(path):
    import yaml     # PyYAML: the tests' other Python checks use it too
    objs = {p: {} for p in TYPES}
    start = datetime.datetime.now(datetime.timezone.utc)
    with open(path) as f:
        # libyaml's loader where PyYAML has it (the scale benchmark's
        # inventories are large); the same documents
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        docs = [d for d in yaml.load_all(f, Loader=loader) if d]
    items = []
    for d in docs:
        if d.get("kind", "").endswith("List") and "items" in d:
            items.extend(d["items"])
        else:
            items.append(d)
    for o in items:
        o = fill_times(o, start)
        plural = PLURAL.get(o.get("kind"))
        if not plural:
            sys.exit("fakeapi: %s: unknown kind %r" % (path, o.get("kind")))
        md = o.setdefault("metadata", {})
        md.setdefault("uid", "uid-%s-%s-%s" % (plural, md.get("namespace",
                                                             ""),
                                               md["name"]))
        # list items carry no apiVersion/kind: the client must add them
        o.pop("apiVersion", None)
        o.pop("kind", None)
        objs[plural][md.get("namespace", "") + "/" + md["name"]] = o
    return objs


class State:
    def __init__(self):
        self.lock = threading.Condition()
        self.rv = 100
        self.objs = initial_objects()
        self.stamp()
        self.events = {r: [] for r in KINDS}     # (seq, event or command)
        self.seq = 0
        self.lists = {r: 0 for r in KINDS}
        self.watches = {r: 0 for r in KINDS}
        self.agents = set()
        self.auth = {"token": 0, "cert": 0}
        self.denied = 0
        self.metrics = 0                        # GET /metrics answered
        self.gates = {}                         # name -> 0|1 (--gates)
        self.writes = []
        self.empty = {r: 0 for r in KINDS}      # lists still to answer empty
        self.churned = []                       # send times of churn events

    def stamp(self):
        for m in self.objs.values():
            for o in m.values():
                o["metadata"]["resourceVersion"] = str(self.rv)

    def push(self, res, item):
        with self.lock:
            self.seq += 1
            self.events[res].append((self.seq, item))
            self.lock.notify_all()

    def churn(self, res, rate, seconds):
        """MODIFIED events on the objects of res in turn, rate a second
        for seconds (a thread of its own; paced on the clock, not on the
        previous event)"""
        with self.lock:
            keys = sorted(self.objs[res])
        if not keys:
            return
        start = time.monotonic()
        for k in range(int(rate * seconds)):
            delay = start + k / rate - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            key = keys[k % len(keys)]
            with self.lock:
                old = self.objs[res].get(key)
                if old is None:
                    continue
                spec = dict(old.get("spec", {}))
                pool = dict(spec.get("pool", {}))
                pool["generation"] = pool.get("generation", 0) + 1
                spec["pool"] = pool
                self.rv += 1
                obj = dict(old, spec=spec,
                           metadata=dict(old["metadata"],
                                         resourceVersion=str(self.rv)))
                self.objs[res][key] = obj
                self.churned.append(time.time())
            self.push(res, {"type": "MODIFIED",
                            "object": dict(obj, kind=KINDS[res])})


STATE = State()
TOKEN = ""          # the first --token (faultapi.py compares with it)
TOKENS = set()
DENY = set()
VERSION = ("1", "34")


def status(code, reason, message):
    return {"kind": "Status", "apiVersion": "v1", "metadata": {},
            "status": "Failure", "message": message, "reason": reason,
            "code": code}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        sys.stderr.write("fakeapi: " + (fmt % args) + "\n")

    def send_json(self, code, obj):
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def write(self, method):
        """PATCH (server-side apply) and DELETE of policy reports"""
        path, _, query = self.path.partition("?")
        q = dict(p.split("=", 1) for p in query.split("&") if "=" in p)
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n) if n else b""
        user = self.user()
        if user is None:
            return self.send_json(401, status(401, "Unauthorized",
                                              "Unauthorized"))
        r = self.route(path)
        if not r or r[2] is None or TYPES[r[0]][0] != "wgpolicyk8s.io":
            return self.send_json(404, status(404, "NotFound", "the server "
                                              "could not find the "
                                              "requested resource"))
        res, ns, name = r
        if res in DENY:
            with STATE.lock:
                STATE.denied += 1
            return self.send_json(403, status(403, "Forbidden", "%s is "
                                              "forbidden" % res))
        key = ns + "/" + name
        with STATE.lock:
            STATE.writes.append({"method": method, "path": path,
                                 "contentType": self.headers.get(
                                     "Content-Type", ""),
                                 "fieldManager": q.get("fieldManager"),
                                 "force": q.get("force")})
            if method == "DELETE":
                if STATE.objs[res].pop(key, None) is None:
                    return self.send_json(404, status(404, "NotFound",
                                                      "not found"))
                return self.send_json(200, status(200, "", ""))
        import yaml
        obj = yaml.safe_load(body)
        md = obj.get("metadata", {})
        if obj.get("kind") != KINDS[res] or md.get("name") != name \
                or (ns and md.get("namespace") != ns):
            return self.send_json(400, status(400, "BadRequest",
                                              "the object does not match "
                                              "the path"))
        with STATE.lock:
            created = key not in STATE.objs[res]
            STATE.rv += 1
            md["resourceVersion"] = str(STATE.rv)
            STATE.objs[res][key] = obj
        self.send_json(201 if created else 200, obj)

    def do_PATCH(self):
        self.write("PATCH")

    def do_DELETE(self):
        self.write("DELETE")

    def do_POST(self):
        if self.path != "/_control":
            return self.send_json(404, {"kind": "Status", "code": 404})
        n = int(self.headers.get("Content-Length", "0"))
        cmd = json.loads(self.rfile.read(n))
        global VERSION
        if cmd["op"] == "version":
            VERSION = tuple(cmd["version"].split(".", 1))
            return self.send_json(200, {})
        if cmd["op"] == "gates":
            with STATE.lock:
                STATE.gates = parse_gates(cmd["gates"])
            return self.send_json(200, {})
        res, op = cmd["resource"], cmd["op"]
        if op == "empty":
            with STATE.lock:
                STATE.empty[res] = int(cmd.get("count", 1))
        elif op == "churn":
            threading.Thread(target=STATE.churn, daemon=True,
                             args=(res, float(cmd.get("rate", 100)),
                                   float(cmd.get("seconds", 20)))).start()
        elif op in ("add", "delete"):
            obj = cmd["object"]
            md = obj["metadata"]
            key = md.get("namespace", "") + "/" + md["name"]
            with STATE.lock:
                STATE.rv += 1
                md["resourceVersion"] = str(STATE.rv)
                if op == "add":
                    STATE.objs[res][key] = obj
                else:
                    STATE.objs[res].pop(key, None)
            ev = {"type": "ADDED" if op == "add" else "DELETED",
                  "object": dict(obj, kind=KINDS[res])}
            STATE.push(res, ev)
        else:
            STATE.push(res, op)
        self.send_json(200, {"ok": True})

    def user(self):
        """The authenticated user, or None"""
        h = self.headers.get("Authorization", "")
        if h.startswith("Bearer ") and (h[7:] in TOKENS
                                        or (TOKEN and h[7:] == TOKEN)):
            with STATE.lock:
                STATE.auth["token"] += 1
            return "token-user"
        try:
            cert = self.connection.getpeercert()
        except (AttributeError, ValueError):
            cert = None
        if cert:
            for rdn in cert.get("subject", ()):
                for k, v in rdn:
                    if k == "commonName":
                        with STATE.lock:
                            STATE.auth["cert"] += 1
                        return v
        return None

    def metrics(self, user):
        """GET /metrics: text format, the gates as kube-apiserver has them"""
        if "/metrics" in DENY:
            with STATE.lock:
                STATE.denied += 1
            return self.send_json(403, status(
                403, "Forbidden", 'forbidden: User "%s" cannot get path '
                '"/metrics"' % user))
        with STATE.lock:
            STATE.metrics += 1
            gates = dict(STATE.gates)
        lines = ["# HELP apiserver_request_total [STABLE] Counter of "
                 "apiserver requests",
                 "# TYPE apiserver_request_total counter",
                 'apiserver_request_total{code="200",verb="LIST"} 42',
                 "# HELP kubernetes_feature_enabled [BETA] This metric "
                 "records the data about the stage and enablement of a k8s "
                 "feature.",
                 "# TYPE kubernetes_feature_enabled gauge"]
        lines += ['kubernetes_feature_enabled{name="%s",stage="BETA"} %d'
                  % (n, v) for n, v in sorted(gates.items())]
        body = ("\n".join(lines) + "\n").encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def discovery(self, path):
        """/version and resource.k8s.io discovery; None if not one"""
        if path == "/version":
            return 200, {"major": VERSION[0], "minor": VERSION[1],
                         "gitVersion": "v%s.%s.0" % VERSION}
        if path == "/apis/resource.k8s.io":
            if not DRA_VERSIONS:
                return 404, status(404, "NotFound", "the server could not "
                                   "find the requested resource")
            vs = [{"groupVersion": "resource.k8s.io/" + v, "version": v}
                  for v in DRA_VERSIONS]
            return 200, {"kind": "APIGroup", "apiVersion": "v1",
                         "name": "resource.k8s.io", "versions": vs,
                         "preferredVersion": vs[0]}
        m = re.fullmatch(r"/apis/resource\.k8s\.io/([a-z0-9]+)", path)
        if m:
            v = m.group(1)
            if v not in DRA_VERSIONS:
                return 404, status(404, "NotFound", "the server could not "
                                   "find the requested resource")
            names = [p for p, t in TYPES.items()
                     if t[0] == "resource.k8s.io"
                     and (p != "devicetaintrules" or v == TAINT_VERSION)]
            return 200, {"kind": "APIResourceList", "apiVersion": "v1",
                         "groupVersion": "resource.k8s.io/" + v,
                         "resources": [{"name": p, "kind": KINDS[p],
                                        "namespaced": TYPES[p][2]}
                                       for p in names]}
        return None

    def route(self, path):
        """(plural, namespace or None, name or None) or None"""
        m = re.fullmatch(r"/api/v1/namespaces/([^/]+)", path)
        if m:
            return "namespaces", None, m.group(1)
        for prefix in ["/api/v1"] + ["/apis/%s/%s" % (g, v)
                                     for g, v in (("apps", "v1"),
                                                  ("batch", "v1"))] + \
                ["/apis/resource.k8s.io/" + v for v in DRA_VERSIONS] + \
                (["/apis/wgpolicyk8s.io/v1alpha2"] if POLICY_REPORTS else []):
            if not path.startswith(prefix + "/"):
                continue
            rest = path[len(prefix) + 1:].split("/")
            ns = None
            if len(rest) in (3, 4) and rest[0] == "namespaces":
                ns, rest = rest[1], rest[2:]
            name = None
            if len(rest) == 2 and TYPES.get(rest[0], ("",))[0] \
                    == "wgpolicyk8s.io":
                name = rest[1]      # one report: apply, delete
                rest = rest[:1]
            if len(rest) != 1 or rest[0] not in TYPES:
                return None
            plural = rest[0]
            av = api_version(plural)
            if prefix != ("/apis/" + av if "/" in av else "/api/v1"):
                return None
            if ns is not None and not TYPES[plural][2]:
                return None
            if name is not None:
                return plural, ns or "", name
            return plural, ns, None
        return None

    def do_GET(self):
        path, _, query = self.path.partition("?")
        if path == "/_stats":
            with STATE.lock:
                return self.send_json(200, {
                    "lists": STATE.lists, "watches": STATE.watches,
                    "auth": STATE.auth, "writes": STATE.writes,
                    "denied": STATE.denied, "metrics": STATE.metrics,
                    "agents": sorted(STATE.agents),
                    "churn": STATE.churned})
        user = self.user()
        if user is None:
            return self.send_json(401, status(401, "Unauthorized",
                                              "Unauthorized"))
        with STATE.lock:
            STATE.agents.add(self.headers.get("User-Agent", ""))
        if path == "/metrics":
            return self.metrics(user)
        d = self.discovery(path)
        if d:
            return self.send_json(*d)
        r = self.route(path)
        if not r:
            return self.send_json(404, status(404, "NotFound", "the server "
                                              "could not find the "
                                              "requested resource"))
        res, ns, name = r
        group = TYPES[res][0]
        if res in DENY:
            with STATE.lock:
                STATE.denied += 1
            where = ('in the namespace "%s"' % ns) if ns else \
                "at the cluster scope"
            return self.send_json(403, status(
                403, "Forbidden", '%s%s is forbidden: User "%s" cannot %s '
                'resource "%s" in API group "%s" %s' % (
                    res, "." + group if group else "", user,
                    "get" if name else "list", res, group, where)))
        if name is not None:
            with STATE.lock:
                o = STATE.objs[res].get((ns or "") + "/" + name)
            if not o:
                return self.send_json(404, status(404, "NotFound",
                                                  '%s "%s" not found' %
                                                  (res, name)))
            return self.send_json(200, dict(o, apiVersion=api_version(res),
                                            kind=KINDS[res]))
        list_kind, av = KINDS[res] + "List", api_version(res)
        q = dict(p.split("=", 1) for p in query.split("&") if "=" in p)
        if q.get("watch") in ("1", "true"):
            return self.watch(res, q)
        with STATE.lock:
            STATE.lists[res] += 1       # every page
            items = [STATE.objs[res][k] for k in sorted(STATE.objs[res])
                     if ns is None or k.split("/", 1)[0] == ns]
            rv = str(STATE.rv)
            if STATE.empty[res] and not q.get("continue"):
                STATE.empty[res] -= 1
                items = []
        sel = q.get("labelSelector", "").replace("%2F", "/") \
            .replace("%3D", "=")
        if sel:
            want = dict(p.split("=", 1) for p in sel.split(","))
            items = [o for o in items if all(
                o["metadata"].get("labels", {}).get(k) == v
                for k, v in want.items())]
        start = int(q.get("continue", "0") or "0")
        limit = int(q.get("limit", "0") or "0") or len(items) or 1
        page = items[start:start + limit]
        md = {"resourceVersion": rv}
        if start + limit < len(items):
            md["continue"] = str(start + limit)
        self.send_json(200, {"kind": list_kind, "apiVersion": av,
                             "metadata": md, "items": page})

    def chunk(self, data):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def watch(self, res, q):
        with STATE.lock:
            STATE.watches[res] += 1
            seen = STATE.seq
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.flush()
        timeout = min(int(q.get("timeoutSeconds", "30")), 30)
        while True:
            with STATE.lock:
                pending = [(s, e) for s, e in STATE.events[res] if s > seen]
                if not pending:
                    if not STATE.lock.wait(timeout):
                        break
                    continue
            for s, e in pending:
                seen = s
                if e == "gone":
                    self.chunk(json.dumps({"type": "ERROR", "object": {
                        "kind": "Status", "apiVersion": "v1",
                        "status": "Failure", "reason": "Expired",
                        "code": 410}}).encode() + b"\n")
                    self.wfile.write(b"0\r\n\r\n")
                    return
                if e == "drop":
                    # half an event, then a hard close: no final chunk
                    self.wfile.write(b"40\r\n{\"type\":\"ADDED\",")
                    self.wfile.flush()
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                self.chunk(json.dumps(e).encode() + b"\n")
        self.wfile.write(b"0\r\n\r\n")


build_resources()


def parse_gates(text):
    """ "A=true,B=false" -> {"A": 1, "B": 0}"""
    return {k: int(v == "true") for k, v in
            (p.split("=", 1) for p in text.split(",") if p)}


def main():
    global TOKEN, TAINT_VERSION, VERSION, POLICY_REPORTS
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file")
    ap.add_argument("--cert", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--token", action="append", default=[])
    ap.add_argument("--client-ca")
    ap.add_argument("--objects")
    ap.add_argument("--version", default="1.34")
    ap.add_argument("--dra-versions", default="v1")
    ap.add_argument("--taint-version")
    ap.add_argument("--deny", action="append", default=[])
    ap.add_argument("--policy-reports", action="store_true")
    ap.add_argument("--gates", default="")
    a = ap.parse_args()
    POLICY_REPORTS = a.policy_reports
    STATE.gates = parse_gates(a.gates)
    TOKENS.update(a.token)
    TOKEN = a.token[0] if a.token else ""
    DENY.update(a.deny)
    VERSION = tuple(a.version.split(".", 1))
    DRA_VERSIONS[:] = [] if a.dra_versions == "none" else \
        a.dra_versions.split(",")
    TAINT_VERSION = a.taint_version
    build_resources()
    if a.objects:
        STATE.objs = load_objects(a.objects)
        STATE.stamp()
    srv = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    srv.daemon_threads = True
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(a.cert, a.key)
    if a.client_ca:
        ctx.verify_mode = ssl.CERT_OPTIONAL
        ctx.load_verify_locations(a.client_ca)
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    if a.port_file:
        with open(a.port_file + ".tmp", "w") as f:
            f.write(str(srv.server_address[1]))
        os.rename(a.port_file + ".tmp", a.port_file)
    srv.serve_forever()


if __name__ == "__main__":
    main()
