#!/usr/bin/env python3
"""deploy_rbacapi.py - a tiny HTTPS stand-in for kube-apiserver that enforces
a ClusterRole, for deploy.sh: the webhook started with the Deployment's own
arguments must become ready when it may do only what the ClusterRole of
deploy/kubernetes/base/rbac.yaml allows, and must use all of it; so must
`claimcheck audit` with deploy/kubernetes/audit/rbac.yaml.

Usage: deploy_rbacapi.py --rules RULES.json --cert C --key K --token T
                         --port-file F --log LOG
RULES.json: the ClusterRole's rules as JSON. Every list (GET without
watch) and watch (GET ?watch=1|true) of /api/v1/R or /apis/G/V/R is checked
against them: allowed -> an empty list / an open watch stream; denied -> 403
as the apiserver's authorizer answers. Each request is logged to LOG as
"VERB GROUP RESOURCE ALLOWED". Binds 127.0.0.1 only; a wrong bearer token
gets 401. Discovery (/version, /apis/resource.k8s.io and its v1), which
every authenticated user may read (system:discovery), is answered and
logged as "discovery - PATH allowed". GET /metrics is checked against the
rules' nonResourceURLs (allowed -> a Prometheus text with one
kubernetes_feature_enabled sample; denied -> 403) and logged as
"get - /metrics ALLOWED". Any other request is 404 (and logged).
"""
import argparse
import json
import re
import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

A = None
RULES = []
LOCK = threading.Lock()
STOP = threading.Event()


def allowed(verb, group, resource):
    for r in RULES:
        if (group in r.get("apiGroups", []) or "*" in r.get("apiGroups", [])) and \
           (resource in r.get("resources", []) or "*" in r.get("resources", [])) and \
           (verb in r.get("verbs", []) or "*" in r.get("verbs", [])) and \
           not r.get("resourceNames"):
            return True
    return False


def allowed_url(verb, path):
    return any(path in r.get("nonResourceURLs", []) and
               (verb in r.get("verbs", []) or "*" in r.get("verbs", []))
               for r in RULES)


def log(line):
    with LOCK, open(A.log, "a") as f:
        f.write(line + "\n")


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def send_json(self, code, obj):
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        u = urlsplit(self.path)
        q = parse_qs(u.query)
        if self.headers.get("Authorization") != "Bearer " + A.token:
            log("AUTH - %s 401" % u.path)
            return self.send_json(401, {"kind": "Status", "code": 401})
        disc = {"/version": {"major": "1", "minor": "34", "gitVersion": "v1.34.0"},
                "/apis/resource.k8s.io": {"kind": "APIGroup", "name": "resource.k8s.io",
                                          "versions": [{"groupVersion": "resource.k8s.io/v1", "version": "v1"}]},
                "/apis/resource.k8s.io/v1": {"kind": "APIResourceList", "groupVersion": "resource.k8s.io/v1",
                                             "resources": [{"name": n} for n in (
                                                 "deviceclasses", "resourceslices", "resourceclaims",
                                                 "resourceclaimtemplates", "devicetaintrules")]}}
        if u.path == "/metrics":
            ok = allowed_url("get", u.path)
            log("get - /metrics %s" % ("allowed" if ok else "denied"))
            if not ok:
                return self.send_json(403, {
                    "kind": "Status", "apiVersion": "v1", "status": "Failure",
                    "reason": "Forbidden", "code": 403,
                    "message": 'forbidden: cannot get path "/metrics"'})
            body = (b'# TYPE kubernetes_feature_enabled gauge\n'
                    b'kubernetes_feature_enabled{name="DRAAdminAccess",'
                    b'stage=""} 1\n')
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; version=0.0.4")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            return self.wfile.write(body)
        if u.path in disc:
            log("discovery - %s allowed" % u.path)
            return self.send_json(200, disc[u.path])
        m = re.fullmatch(r"/api/(v1)/([a-z]+)|/apis/([a-z0-9.-]+)/([a-z0-9]+)/([a-z]+)", u.path)
        if not m:
            log("GET - %s 404" % u.path)
            return self.send_json(404, {"kind": "Status", "code": 404})
        if m.group(1):
            group, version, res = "", "v1", m.group(2)
        else:
            group, version, res = m.group(3), m.group(4), m.group(5)
        watch = q.get("watch", ["0"])[0] in ("1", "true")
        verb = "watch" if watch else "list"
        ok = allowed(verb, group, res)
        log("%s %s %s %s" % (verb, group or '""', res, "allowed" if ok else "denied"))
        if not ok:
            return self.send_json(403, {
                "kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Forbidden",
                "code": 403, "message": '%s is forbidden: cannot %s resource "%s" in API group "%s"'
                % (res, verb, res, group)})
        gv = version if not group else group + "/" + version
        if not watch:
            kind = "".join(p.capitalize() for p in re.findall(r"[a-z]+", res))
            return self.send_json(200, {"kind": kind + "List", "apiVersion": gv,
                                        "metadata": {"resourceVersion": "1"}, "items": []})
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            while not STOP.is_set():
                time.sleep(0.2)
                self.wfile.write(b"0\r\n\r\n" if STOP.is_set() else b"")
                self.wfile.flush()
        except OSError:
            pass


def main():
    global A, RULES
    ap = argparse.ArgumentParser()
    for k in ("--rules", "--cert", "--key", "--token", "--port-file", "--log"):
        ap.add_argument(k, required=True)
    A = ap.parse_args()
    RULES = json.load(open(A.rules))
    srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
    srv.daemon_threads = True
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(A.cert, A.key)
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    with open(A.port_file + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    import os
    os.rename(A.port_file + ".tmp", A.port_file)
    try:
        srv.serve_forever()
    finally:
        STOP.set()


if __name__ == "__main__":
    main()
