#!/usr/bin/env python3
"""client.py - TLS client helpers for the webhook e2e tests (what curl
cannot do): a keep-alive connection that survives a certificate rotation,
and a request held in flight across SIGTERM.

  client.py keepalive CA PORT BODY SIGNAL_FILE GO_FILE
      request 1, touch SIGNAL_FILE, wait for GO_FILE, request 2 on the
      same connection; prints "ok <status1> <status2> <same-socket>"
  client.py inflight CA PORT BODY SIGNAL_FILE GO_FILE
      sends headers + half the body, touches SIGNAL_FILE, waits for GO_FILE,
      sends the rest; prints "<status> <connection header>"
  client.py slow CA PORT N SIGNAL_FILE
      opens N TLS connections that send half a request header and stall
      (slowloris), touches SIGNAL_FILE, waits until the server has closed
      all of them (bounded: 30 s); prints "closed <n> <max seconds>"
  client.py idle CA PORT SIGNAL_FILE
      one request, then keeps the connection idle until the server closes
      it (bounded: 30 s); prints "closed <seconds>" or "open"
"""
import http.client
import os
import socket
import ssl
import sys
import time


def ctx(ca):
    c = ssl.create_default_context(cafile=ca)
    c.check_hostname = False
    return c


def wait_file(path, limit=30.0):
    end = time.time() + limit
    while not os.path.exists(path):
        if time.time() > end:
            raise SystemExit("timeout waiting for " + path)
        time.sleep(0.05)


def touch(path):
    open(path, "w").close()


def keepalive(ca, port, body, sig, go):
    data = open(body, "rb").read()
    conn = http.client.HTTPSConnection("127.0.0.1", int(port),
                                       context=ctx(ca), timeout=10)
    conn.request("POST", "/validate", data,
                 {"Content-Type": "application/json"})
    r1 = conn.getresponse()
    r1.read()
    sock1 = conn.sock
    touch(sig)
    wait_file(go)
    conn.request("POST", "/validate", data,
                 {"Content-Type": "application/json"})
    r2 = conn.getresponse()
    r2.read()
    print("ok", r1.status, r2.status, conn.sock is sock1 and sock1 is not None)


def inflight(ca, port, body, sig, go):
    data = open(body, "rb").read()
    raw = socket.create_connection(("127.0.0.1", int(port)), timeout=20)
    s = ctx(ca).wrap_socket(raw)
    head = ("POST /validate HTTP/1.1\r\nHost: webhook\r\n"
            "Content-Type: application/json\r\nContent-Length: %d\r\n\r\n"
            % len(data)).encode()
    half = len(data) // 2
    s.sendall(head + data[:half])
    touch(sig)
    wait_file(go)
    s.sendall(data[half:])
    resp = b""
    while b"\r\n\r\n" not in resp:
        chunk = s.recv(65536)
        if not chunk:
            break
        resp += chunk
    lines = resp.split(b"\r\n")
    status = lines[0].split()[1].decode() if lines and lines[0] else "none"
    conn_hdr = "-"
    for ln in lines[1:]:
        if ln.lower().startswith(b"connection:"):
            conn_hdr = ln.split(b":", 1)[1].strip().decode()
    print(status, conn_hdr)


def idle(ca, port, sig):
    conn = http.client.HTTPSConnection("127.0.0.1", int(port),
                                       context=ctx(ca), timeout=30)
    conn.request("GET", "/healthz")
    conn.getresponse().read()
    touch(sig)
    t0 = time.time()
    conn.sock.settimeout(30)
    try:
        got = conn.sock.recv(1)
        print("closed %.1f" % (time.time() - t0) if not got else "data")
    except socket.timeout:
        print("open")
    except (ConnectionError, ssl.SSLError, OSError):
        print("closed %.1f" % (time.time() - t0))


def slow(ca, port, n, sig):
    socks = []
    for _ in range(int(n)):
        raw = socket.create_connection(("127.0.0.1", int(port)), timeout=30)
        s = ctx(ca).wrap_socket(raw)
        s.sendall(b"POST /validate HTTP/1.1\r\nHost: webhook\r\nX-Slow: ")
        socks.append(s)
    t0 = time.time()
    touch(sig)
    closed, worst = 0, 0.0
    for s in socks:
        s.settimeout(max(0.1, 30 - (time.time() - t0)))
        try:
            got = s.recv(65536)
            while got:
                got = s.recv(65536)
        except socket.timeout:
            continue
        except (ConnectionError, ssl.SSLError, OSError):
            pass
        closed += 1
        worst = max(worst, time.time() - t0)
    print("closed %d %.1f" % (closed, worst))


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "keepalive":
        keepalive(*sys.argv[2:7])
    elif cmd == "inflight":
        inflight(*sys.argv[2:7])
    elif cmd == "slow":
        slow(*sys.argv[2:6])
    elif cmd == "idle":
        idle(*sys.argv[2:5])
    else:
        raise SystemExit("unknown command " + cmd)
