#!/usr/bin/env python3
"""fakeapi.py - a small HTTPS stand-in for kube-apiserver, for the webhook's
in-cluster sync tests. Serves list (with limit/continue), chunked watch
streams (ADDED/MODIFIED/DELETED), a 410 Gone ERROR event and a dropped
connection on demand, and checks the bearer token. Binds 127.0.0.1 only.

Control (no auth, test only):
  POST /_control {"op": "add"|"delete", "resource": R, "object": {...}}
  POST /_control {"op": "gone"|"drop", "resource": R}
  GET  /_stats   -> {"lists": {R: n}, "watches": {R: n},
                     "agents": [User-Agent of authenticated requests]}
"""
import argparse
import json
import os
import ssl
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

RESOURCES = {
    "/api/v1/nodes": ("nodes", "NodeList", "v1"),
    "/api/v1/namespaces": ("namespaces", "NamespaceList", "v1"),
    "/apis/resource.k8s.io/v1/deviceclasses":
        ("deviceclasses", "DeviceClassList", "resource.k8s.io/v1"),
    "/apis/resource.k8s.io/v1/resourceslices":
        ("resourceslices", "ResourceSliceList", "resource.k8s.io/v1"),
    "/apis/resource.k8s.io/v1/resourceclaims":
        ("resourceclaims", "ResourceClaimList", "resource.k8s.io/v1"),
    "/apis/resource.k8s.io/v1/resourceclaimtemplates":
        ("resourceclaimtemplates", "ResourceClaimTemplateList",
         "resource.k8s.io/v1"),
}
KINDS = {"nodes": "Node", "namespaces": "Namespace",
         "deviceclasses": "DeviceClass", "resourceslices": "ResourceSlice",
         "resourceclaims": "ResourceClaim",
         "resourceclaimtemplates": "ResourceClaimTemplate"}


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
    return {
        "nodes": {"/node-a": node("node-a"), "/node-b": node("node-b")},
        "namespaces": {"/default": {"metadata": {"name": "default"}},
                       "/ml": {"metadata": {"name": "ml"}}},
        "deviceclasses": {"/gpu.nvidia.com": gpu_class},
        "resourceslices": {},
        "resourceclaims": {},
        "resourceclaimtemplates": {"ml/single-gpu": tmpl},
    }


class State:
    def __init__(self):
        self.lock = threading.Condition()
        self.rv = 100
        self.objs = initial_objects()
        for r, m in self.objs.items():
            for o in m.values():
                o["metadata"]["resourceVersion"] = str(self.rv)
        self.events = {r: [] for r in KINDS}     # (seq, event or command)
        self.seq = 0
        self.lists = {r: 0 for r in KINDS}
        self.watches = {r: 0 for r in KINDS}
        self.agents = set()

    def push(self, res, item):
        with self.lock:
            self.seq += 1
            self.events[res].append((self.seq, item))
            self.lock.notify_all()


STATE = State()
TOKEN = ""


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

    def do_POST(self):
        if self.path != "/_control":
            return self.send_json(404, {"kind": "Status", "code": 404})
        n = int(self.headers.get("Content-Length", "0"))
        cmd = json.loads(self.rfile.read(n))
        res, op = cmd["resource"], cmd["op"]
        if op in ("add", "delete"):
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

    def do_GET(self):
        path, _, query = self.path.partition("?")
        if path == "/_stats":
            with STATE.lock:
                agents = sorted(STATE.agents)
            return self.send_json(200, {"lists": STATE.lists,
                                        "watches": STATE.watches,
                                        "agents": agents})
        if self.headers.get("Authorization") != "Bearer " + TOKEN:
            return self.send_json(401, {"kind": "Status", "code": 401})
        with STATE.lock:
            STATE.agents.add(self.headers.get("User-Agent", ""))
        if path not in RESOURCES:
            return self.send_json(404, {"kind": "Status", "code": 404})
        res, list_kind, api = RESOURCES[path]
        q = dict(p.split("=", 1) for p in query.split("&") if "=" in p)
        if q.get("watch") in ("1", "true"):
            return self.watch(res, q)
        with STATE.lock:
            STATE.lists[res] += 1
            items = [STATE.objs[res][k] for k in sorted(STATE.objs[res])]
            rv = str(STATE.rv)
        start = int(q.get("continue", "0") or "0")
        limit = int(q.get("limit", "0") or "0") or len(items) or 1
        page = items[start:start + limit]
        md = {"resourceVersion": rv}
        if start + limit < len(items):
            md["continue"] = str(start + limit)
        self.send_json(200, {"kind": list_kind, "apiVersion": api,
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


def main():
    global TOKEN
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file")
    ap.add_argument("--cert", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--token", required=True)
    a = ap.parse_args()
    TOKEN = a.token
    srv = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    srv.daemon_threads = True
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(a.cert, a.key)
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    if a.port_file:
        with open(a.port_file + ".tmp", "w") as f:
            f.write(str(srv.server_address[1]))
        os.rename(a.port_file + ".tmp", a.port_file)
    srv.serve_forever()


if __name__ == "__main__":
    main()
