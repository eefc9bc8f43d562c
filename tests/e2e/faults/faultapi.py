#!/usr/bin/env python3
"""faultapi.py - tests/e2e/webhook/fakeapi.py (the stand-in apiserver,
imported, not changed) with apiserver faults switched at runtime, for
tests/e2e/faults/run.sh. Binds 127.0.0.1 only. Its initial objects are
fakeapi's plus DeviceClass apionly.example.com, which exists nowhere else:
a claim naming it is only clean while the webhook's snapshot came from here
(the state survives a restart, which is how the test takes it "down").

  POST /_fault {"mode": M, "delay": S}
      ok       fakeapi.py's behaviour
      slow     every list and watch answers after S seconds (default 3)
      garbage  lists answer 200 with a body that is not JSON; watches
               answer 200 with a line that is not JSON and end
      gone     watches answer with a 410 Expired ERROR event at once, list
               pages after the first (continue=...) with HTTP 410: the
               relist loop of an apiserver whose watch cache is behind
      Switching ends the open watches (a dropped connection), so the next
      ones see the new mode.
  GET /_stats  fakeapi's counters plus "gets" (authenticated GETs so far)
               and "mode"
"""
import argparse
import json
import os
import ssl
import sys
import threading
import time
from http.server import ThreadingHTTPServer

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "webhook"))
import fakeapi  # noqa: E402

MODE = {"mode": "ok", "delay": 3.0, "gets": 0}
MODE_LOCK = threading.Lock()
EXTRA_CLASS = "apionly.example.com"


class FaultHandler(fakeapi.Handler):
    def do_POST(self):
        if self.path != "/_fault":
            return super().do_POST()
        n = int(self.headers.get("Content-Length", "0"))
        cmd = json.loads(self.rfile.read(n))
        with MODE_LOCK:
            MODE["mode"] = cmd["mode"]
            MODE["delay"] = float(cmd.get("delay", 3.0))
        for res in fakeapi.KINDS:
            fakeapi.STATE.push(res, "drop")
        self.send_json(200, {"ok": True})

    def do_GET(self):
        path, _, query = self.path.partition("?")
        if path == "/_stats":
            with MODE_LOCK:
                extra = {"gets": MODE["gets"], "mode": MODE["mode"]}
            return self.send_json(200, dict(
                lists=fakeapi.STATE.lists, watches=fakeapi.STATE.watches,
                **extra))
        if self.headers.get("Authorization") != "Bearer " + fakeapi.TOKEN:
            return super().do_GET()     # the 401
        with MODE_LOCK:
            MODE["gets"] += 1
            mode, delay = MODE["mode"], MODE["delay"]
        watch = "watch=1" in query or "watch=true" in query
        if watch and mode in ("garbage", "gone") \
                and path in fakeapi.RESOURCES:
            with fakeapi.STATE.lock:
                fakeapi.STATE.watches[fakeapi.RESOURCES[path][0]] += 1
        if mode == "slow":
            time.sleep(delay)
        elif mode == "garbage":
            return self.garbage(watch)
        elif mode == "gone":
            if watch:
                return self.gone_watch()
            if "continue=" in query:
                return self.send_json(410, {
                    "kind": "Status", "apiVersion": "v1",
                    "status": "Failure", "reason": "Expired", "code": 410,
                    "message": "The provided continue parameter is too "
                               "old"})
        return super().do_GET()

    def garbage(self, watch):
        if not watch:
            # three kinds in turn: a NUL byte, truncated JSON, HTML
            with MODE_LOCK:
                n = MODE["gets"]
            body = [b'{"kind":"List","items":[{"metadata":{"name": \x00 %%',
                    b'{"kind":"List","metadata":{},"items":[{"metadata":',
                    b'<html><body>502 Bad Gateway</body></html>'][n % 3]
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.chunk(b"<html>this is not a watch event</html>\n")
        self.wfile.write(b"0\r\n\r\n")

    def gone_watch(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.chunk(json.dumps({"type": "ERROR", "object": {
            "kind": "Status", "apiVersion": "v1", "status": "Failure",
            "reason": "Expired", "code": 410}}).encode() + b"\n")
        self.wfile.write(b"0\r\n\r\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--cert", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--token", required=True)
    ap.add_argument("--mode", default="ok")
    a = ap.parse_args()
    fakeapi.TOKEN = a.token
    MODE["mode"] = a.mode
    cls = {"metadata": {"name": EXTRA_CLASS, "resourceVersion": "100"},
           "spec": {"selectors": [{"cel": {"expression":
                    "device.driver == '%s'" % EXTRA_CLASS}}]}}
    fakeapi.STATE.objs["deviceclasses"]["/" + EXTRA_CLASS] = cls
    ThreadingHTTPServer.allow_reuse_address = True
    srv = ThreadingHTTPServer(("127.0.0.1", a.port), FaultHandler)
    srv.daemon_threads = True
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(a.cert, a.key)
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    srv.serve_forever()


if __name__ == "__main__":
    main()
