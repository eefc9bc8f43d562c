#!/usr/bin/env python3
"""load.py - the fault-injecting TLS clients of tests/e2e/faults/run.sh (what
curl and wrk cannot do). 127.0.0.1 only; every loop is bounded by a count or
a deadline. Each command prints one JSON object on stdout.

  load.py slowloris CA PORT N SECONDS BODY
      N connections send a request header one byte per second from the
      moment each is open; once all are open (at most 15 s), a probe (new
      connection, POST BODY, 5 s timeout) every 0.2 s for SECONDS.
      -> {slow (opened), slow_open (still open at the end), probes,
      probe_ok, probe_median_ms, probe_max_ms}
  load.py flood CA PORT N SETTLE RECOVER BODY SERVER_PID
      N connections at once, each tries a TLS handshake (SETTLE s) and then
      stays open, idle; server fds sampled; then probes until one is served
      (at most RECOVER s, 1 s per probe) with the flood still open; then
      the flood closes and one more probe. -> {handshakes, fds_base,
      fds_max, first_probe, recover_s, probe_after_close}
  load.py garbage CA PORT ROUNDS BODY
      ROUNDS of: random bytes; plain HTTP; a TLS record header announcing
      65535 bytes (over TLS's 16 KiB) and 64 of them; half a ClientHello
      then RST; a ClientHello then RST before
      the server's answer is read; a request with half its body then RST;
      a whole request then RST without reading the answer.
      -> {cases: {name: n}}
  load.py noread CA PORT BODY N SECONDS SERVER_PID
      one connection with a 4 KiB receive buffer pipelines N requests and
      never reads; probes run meanwhile; server fds are watched for the
      stuck connection going away (at most SECONDS), ss for the answers
      the server could not send. -> {sent_requests, server_sendq, probes,
      probe_ok, probe_max_ms, fds_base, fds_stuck, dropped_s}
  load.py sigterm CA PORT BODY CONNS SECONDS
      CONNS threads send POST BODY back to back over keep-alive
      connections (a new one after Connection: close or an error) until
      the server has refused connections for 0.5 s, or SECONDS. Each
      request is recorded: refused (connect refused), closed_before_write
      (TLS handshake cut, or the server had closed the connection before
      the request was written), answered (complete response; with
      Connection: close counted in answered_close), lost (the whole request
      was written and no complete response came back).
      -> {refused, closed_before_write, answered, answered_close, lost,
          lost_detail}
  load.py rotate CA_BUNDLE PORT THREADS SECONDS OUT
      THREADS threads (half TLS 1.2, half 1.3) open new TLS connections
      (verified against the bundle), GET /healthz, close; one line per
      connection in OUT:
      "<t_start> <t_end> <ok|fail> <sha256 of the served cert|error>".
      -> {connections, failures}
  load.py queued CA PORT FILE...
      one connection per FILE (TLS set up first), each POSTs its review at
      the same moment; the time to each answer and what it says.
      -> {answers: [{ms, allowed, warnings}], max_ms}
  load.py bigpods CA PORT N MIB SERVER_PID
      N connections (TLS set up first) each send a Pod AdmissionReview of
      about MIB MiB (3 MiB: about 9,000 containers) at the same moment; a
      429/503 answer is retried after its Retry-After (at most 60 s in
      all); the server's peak RSS (VmHWM) is read at the end.
      -> {n, body_bytes, answered (200s), refused (429/503 answers, each
          with Retry-After and a JSON error), no_retry_after, other,
          seconds, hwm_kb, rss_kb}
"""
import asyncio
import json
import os
import random
import select
import socket
import ssl
import struct
import sys
import threading
import time

HOST = "127.0.0.1"


def ctx(ca):
    c = ssl.create_default_context(cafile=ca)
    c.check_hostname = False
    return c


def post_bytes(body):
    return (b"POST /validate?timeout=10s HTTP/1.1\r\nHost: webhook\r\n"
            b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n"
            % len(body)) + body


def connect(port, timeout):
    """A blocking TCP connection with TCP_NODELAY, as Go's net/http (the
    apiserver) and asyncio set it: without it Nagle holds a request written
    right after a TLS 1.3 handshake until the server's delayed ACK."""
    s = socket.create_connection((HOST, port), timeout=timeout)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def fds(pid):
    try:
        return len(os.listdir("/proc/%s/fd" % pid))
    except OSError:
        return -1


def server_sendq(port):
    """The largest Send-Q of the server's established connections (ss):
    answers written but not taken by the client."""
    import subprocess
    try:
        lines = subprocess.run(["ss", "-tnH", "state", "established",
                                "( sport = :%d )" % port],
                               capture_output=True, text=True,
                               timeout=5).stdout.splitlines()
    except (OSError, subprocess.SubprocessError):
        return -1
    return max([int(ln.split()[1]) for ln in lines if ln.split()] or [0])


def rst(sock):
    """Close with a TCP RST (SO_LINGER 0): an abrupt disconnect."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                        struct.pack("ii", 1, 0))
    except OSError:
        pass
    sock.close()


def out(obj):
    print(json.dumps(obj, sort_keys=True))


# ---- asyncio helpers ---------------------------------------------------

async def read_response(reader, timeout):
    """Reads one HTTP/1.1 response with Content-Length; returns (status,
    headers dict) or raises."""
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout)
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    hdrs = {}
    for ln in lines[1:]:
        if ":" in ln:
            k, v = ln.split(":", 1)
            hdrs[k.strip().lower()] = v.strip()
    n = int(hdrs.get("content-length", "0"))
    if n:
        await asyncio.wait_for(reader.readexactly(n), timeout)
    return status, hdrs


async def probe(sslctx, port, req, timeout=5.0):
    """New connection, one request; returns (status or error, ms)."""
    t0 = time.monotonic()
    w = None
    try:
        r, w = await asyncio.wait_for(
            asyncio.open_connection(HOST, port, ssl=sslctx), timeout)
        w.write(req)
        await w.drain()
        status, _ = await read_response(r, timeout)
    except Exception as e:  # noqa: BLE001 - any failure is a failed probe
        status = type(e).__name__
    finally:
        if w is not None:
            w.close()
    return status, (time.monotonic() - t0) * 1e3


# ---- slowloris -----------------------------------------------------------

async def slowloris(ca, port, n, seconds, body):
    sslctx = ctx(ca)
    port, n, seconds = int(port), int(n), float(seconds)
    req = post_bytes(open(body, "rb").read())
    sem = asyncio.Semaphore(32)
    stop = asyncio.Event()
    tried, opened, open_at_end = [0], [0], [0]

    async def slow_client():
        # open, then one header byte a second from the moment it is open
        # until the end: "X-Slow: aaaa..." never ends its line
        try:
            async with sem:
                r, w = await asyncio.wait_for(
                    asyncio.open_connection(HOST, port, ssl=sslctx), 10)
        except Exception:  # noqa: BLE001
            tried[0] += 1
            return
        tried[0] += 1
        opened[0] += 1
        alive = True
        w.write(b"POST /validate HTTP/1.1\r\nHost: webhook\r\nX-Slow: ")
        while not stop.is_set():
            try:
                got = await asyncio.wait_for(r.read(1), 1.0)
                if not got:     # the server closed it
                    alive = False
                    break
            except asyncio.TimeoutError:
                pass
            except Exception:  # noqa: BLE001
                alive = False
                break
            try:
                w.write(b"a")
            except Exception:  # noqa: BLE001
                alive = False
                break
        open_at_end[0] += alive
        w.close()

    tasks = [asyncio.ensure_future(slow_client()) for _ in range(n)]
    t_end = time.monotonic() + 15
    while tried[0] < n and time.monotonic() < t_end:
        await asyncio.sleep(0.05)
    res = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        res.append(await probe(sslctx, port, req))
        await asyncio.sleep(0.2)
    stop.set()
    await asyncio.gather(*tasks)
    ok = [ms for st, ms in res if st == 200]
    lat = sorted(ms for _, ms in res) or [0]
    out({"slow": opened[0], "slow_open": open_at_end[0], "probes": len(res),
         "probe_ok": len(ok), "probe_median_ms": round(lat[len(lat) // 2], 1),
         "probe_max_ms": round(lat[-1], 1),
         "probe_fail": [st for st, _ in res if st != 200][:5]})


# ---- connection flood -------------------------------------------------

async def flood(ca, port, n, settle, recover, body, pid):
    sslctx = ctx(ca)
    port, n = int(port), int(n)
    settle, recover = float(settle), float(recover)
    req = post_bytes(open(body, "rb").read())
    base = fds(pid)
    raws = []
    done = [0]

    async def one():
        # a raw TCP connection first, so it stays open even when the
        # handshake does not finish (it then waits in the listen backlog)
        s = socket.socket()
        s.setblocking(False)
        try:
            await asyncio.wait_for(asyncio.get_running_loop().sock_connect(
                s, (HOST, port)), 2)
        except (OSError, asyncio.TimeoutError):
            s.close()
            return
        raws.append(s)
        try:
            _, w = await asyncio.wait_for(asyncio.open_connection(
                sock=s, ssl=sslctx, server_hostname="localhost"), settle)
            raws.append(w)      # keep the TLS stream (and socket) alive
            done[0] += 1
        except Exception:  # noqa: BLE001
            pass

    peak = base
    task = asyncio.ensure_future(asyncio.gather(*(one() for _ in range(n))))
    end = time.monotonic() + settle + 0.5
    while time.monotonic() < end and not task.done():
        peak = max(peak, fds(pid))
        await asyncio.sleep(0.05)
    await task
    peak = max(peak, fds(pid))
    # with the flood still open: when is a new client served again?
    t0 = time.monotonic()
    rec, first = None, None
    while time.monotonic() - t0 < recover:
        st, _ = await probe(sslctx, port, req, timeout=1.0)
        peak = max(peak, fds(pid))
        first = st if first is None else first
        if st == 200:
            rec = round(time.monotonic() - t0, 2)
            break
        await asyncio.sleep(0.2)
    for x in raws:
        try:
            x.close()
        except Exception:  # noqa: BLE001
            pass
    await asyncio.sleep(0.3)
    st, ms = await probe(sslctx, port, req, timeout=3.0)
    out({"handshakes": done[0], "fds_base": base, "fds_max": peak,
         "first_probe": first, "recover_s": rec, "probe_after_close": st,
         "probe_after_close_ms": round(ms, 1)})


# ---- garbage and abrupt disconnects ----------------------------------------

def client_hello(sslctx):
    """The bytes of a real ClientHello, without a socket."""
    inc, outg = ssl.MemoryBIO(), ssl.MemoryBIO()
    obj = sslctx.wrap_bio(inc, outg)
    try:
        obj.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return outg.read()


def garbage(ca, port, rounds, body):
    sslctx = ctx(ca)
    port, rounds = int(port), int(rounds)
    data = open(body, "rb").read()
    req = post_bytes(data)
    cases = {}

    def count(name):
        cases[name] = cases.get(name, 0) + 1

    def raw():
        s = connect(port, 3)
        s.settimeout(3)
        return s

    def drain(s, limit=0.5):
        s.settimeout(limit)
        try:
            while s.recv(65536):
                pass
        except OSError:
            pass

    rnd = random.Random(7)
    for i in range(rounds):
        s = raw()
        # no waiting for the close: a first byte with the high bit set
        # reads as an SSLv2 record header, and the server then waits for
        # the announced length (bounded by --conn-timeout)
        s.sendall(bytes(rnd.getrandbits(8) for _ in range(512 + i)))
        s.close()
        count("random-bytes")

        s = raw()
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        drain(s)
        s.close()
        count("plain-http")

        s = raw()
        # handshake record, TLS 1.2, length 0xffff, then nothing more
        s.sendall(b"\x16\x03\x03\xff\xff" + b"\x01" * 64)
        rst(s)
        count("oversized-record-then-rst")

        hello = client_hello(sslctx)
        s = raw()
        s.sendall(hello[:len(hello) // 2])
        rst(s)
        count("half-clienthello-then-rst")

        s = raw()
        s.sendall(hello)
        rst(s)
        count("clienthello-then-rst")

        s = sslctx.wrap_socket(raw())
        s.sendall(req[:len(req) - len(data) // 2])
        rst(s)
        count("half-body-then-rst")

        s = sslctx.wrap_socket(raw())
        s.sendall(req)
        rst(s)
        count("request-then-rst")
    out({"cases": cases})


# ---- a client that never reads ----------------------------------------

async def noread(ca, port, body, n, seconds, pid):
    sslctx = ctx(ca)
    port, n, seconds = int(port), int(n), float(seconds)
    req = post_bytes(open(body, "rb").read())
    base = fds(pid)
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect((HOST, port))
    s = sslctx.wrap_socket(s)
    s.setblocking(False)
    blob = req * n
    sent = 0
    t_end = time.monotonic() + 2.0
    while sent < len(blob) and time.monotonic() < t_end:
        try:
            sent += s.send(blob[sent:sent + 16384])
        except (ssl.SSLWantWriteError, BlockingIOError):
            await asyncio.sleep(0.01)
        except OSError:
            break
    stuck = fds(pid)
    t0 = time.monotonic()
    res, dropped, sendq = [], None, 0
    while time.monotonic() - t0 < seconds:
        res.append(await probe(sslctx, port, req, timeout=3.0))
        sendq = max(sendq, server_sendq(port))
        if fds(pid) <= base:
            dropped = round(time.monotonic() - t0, 2)
            break
        await asyncio.sleep(0.2)
    s.close()
    ok = [ms for st, ms in res if st == 200]
    out({"sent_requests": sent // len(req), "server_sendq": sendq,
         "probes": len(res),
         "probe_ok": len(ok),
         "probe_max_ms": round(max([ms for _, ms in res] or [0]), 1),
         "fds_base": base, "fds_stuck": stuck, "dropped_s": dropped})


# ---- SIGTERM under load --------------------------------------------------

def read_http(s):
    """One response from a blocking TLS socket: (status, close?) or None
    when the connection ends first."""
    def more():
        try:
            return s.recv(65536) or None
        except (OSError, ssl.SSLError):
            return None

    buf = b""
    while b"\r\n\r\n" not in buf:
        got = more()
        if got is None:
            return None
        buf += got
    head, _, rest = buf.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    n, close = 0, False
    for ln in lines[1:]:
        k, _, v = ln.partition(":")
        if k.strip().lower() == "content-length":
            n = int(v.strip())
        if k.strip().lower() == "connection" and \
                v.strip().lower() == "close":
            close = True
    while len(rest) < n:
        got = more()
        if got is None:
            return None
        rest += got
    return int(lines[0].split()[1]), close


def server_closed(s):
    """True if the server already closed (or sent anything unasked):
    checked before reusing a keep-alive connection."""
    r, _, _ = select.select([s], [], [], 0)
    return bool(r) or s.pending() > 0


def sigterm(ca, port, body, conns, seconds):
    sslctx = ctx(ca)
    port, conns, seconds = int(port), int(conns), float(seconds)
    req = post_bytes(open(body, "rb").read())
    lock = threading.Lock()
    st = {"refused": 0, "closed_before_write": 0, "answered": 0,
          "answered_close": 0, "lost": 0, "non200": 0}
    lost_detail = []
    end = time.monotonic() + seconds
    last_ok = [time.monotonic()]

    def rec(k, detail=None):
        with lock:
            st[k] += 1
            if detail and len(lost_detail) < 10:
                lost_detail.append(detail)

    def worker():
        refused_since = None
        while time.monotonic() < end:
            try:
                raw = connect(port, 5)
            except OSError:
                rec("refused")
                now = time.monotonic()
                refused_since = refused_since or now
                if now - refused_since > 0.5:
                    return
                time.sleep(0.01)
                continue
            refused_since = None
            try:
                s = sslctx.wrap_socket(raw)
                s.settimeout(10)
            except (OSError, ssl.SSLError):
                raw.close()
                rec("closed_before_write")
                continue
            first, t_conn = True, time.monotonic()
            nreq = 0
            while time.monotonic() < end:
                if not first and server_closed(s):
                    rec("closed_before_write")
                    break
                first = False
                try:
                    s.sendall(req)
                except (OSError, ssl.SSLError):
                    rec("closed_before_write")
                    break
                t_w = time.monotonic()
                r = read_http(s)
                if r is None:
                    rec("lost", "request %d of its connection, written "
                        "%.0f ms after the handshake, no response"
                        % (nreq + 1, (t_w - t_conn) * 1e3))
                    break
                nreq += 1
                rec("answered")
                if r[0] != 200:
                    rec("non200")
                if r[1]:
                    rec("answered_close")
                    break
            try:
                s.close()
            except OSError:
                pass

    ts = [threading.Thread(target=worker) for _ in range(conns)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    st["lost_detail"] = lost_detail
    out(st)


# ---- certificate rotation under load -----------------------------------------

def rotate(bundle, port, threads, seconds, outfile):
    import hashlib
    # half the threads TLS 1.2, half TLS 1.3: both handshakes see the swap
    ctx12, ctx13 = ctx(bundle), ctx(bundle)
    ctx12.maximum_version = ssl.TLSVersion.TLSv1_2
    ctx13.minimum_version = ssl.TLSVersion.TLSv1_3
    port, threads, seconds = int(port), int(threads), float(seconds)
    lock = threading.Lock()
    lines = []
    end = time.monotonic() + seconds
    t_base = time.time() - time.monotonic()

    def worker(sslctx):
        while time.monotonic() < end:
            t0 = time.monotonic()
            try:
                with connect(port, 5) as r:
                    with sslctx.wrap_socket(r) as s:
                        der = s.getpeercert(binary_form=True)
                        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n"
                                  b"Connection: close\r\n\r\n")
                        resp = read_http(s)
                        if resp is None or resp[0] != 200:
                            raise OSError("no 200 answer: %r" % (resp,))
                line = "%.3f %.3f ok %s" % (
                    t_base + t0, t_base + time.monotonic(),
                    hashlib.sha256(der).hexdigest())
            except Exception as e:  # noqa: BLE001
                line = "%.3f %.3f fail %s" % (
                    t_base + t0, t_base + time.monotonic(),
                    repr(e).replace(" ", "_")[:200])
            with lock:
                lines.append(line)

    ts = [threading.Thread(target=worker, args=(ctx12 if i % 2 else ctx13,))
          for i in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    with open(outfile, "w") as f:
        f.write("\n".join(sorted(lines)) + "\n")
    out({"connections": len(lines),
         "failures": sum(1 for ln in lines if " fail " in ln)})


# ---- HTTP framing -----------------------------------------------------------

def strict(ca, port, body_file):
    """Requests whose framing is ambiguous or unknown, each on its own
    connection: the status of each answer (None when the connection ends
    or stays silent for 5 s first)."""
    with open(body_file, "rb") as f:
        body = f.read()
    head = b"POST /validate HTTP/1.1\r\nHost: webhook\r\n" \
        b"Content-Type: application/json\r\n"
    cases = {
        "two-content-lengths": head + b"Content-Length: %d\r\n"
        b"Content-Length: %d\r\n\r\n" % (len(body), len(body) + 7) + body,
        "content-length-list": head + b"Content-Length: %d, %d\r\n\r\n"
        % (len(body), len(body) + 7) + body,
        "unknown-transfer-encoding": head
        + b"Transfer-Encoding: xchunked\r\n\r\n" + body,
        "gzip-chunked": head
        + b"Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
        "same-content-length-twice": head + b"Content-Length: %d\r\n"
        b"Content-Length: %d\r\n\r\n" % (len(body), len(body)) + body,
        "chunked": head + b"Transfer-Encoding: chunked\r\n\r\n"
        + b"%x\r\n" % len(body) + body + b"\r\n0\r\n\r\n",
    }
    res = {}
    sslctx = ctx(ca)
    for name, req in cases.items():
        s = sslctx.wrap_socket(connect(port, 5))
        t0 = time.time()
        try:
            s.sendall(req)
            r = read_http(s)
        except (OSError, ssl.SSLError):
            r = None
        res[name] = {"status": r[0] if r else None,
                     "seconds": round(time.time() - t0, 2)}
        s.close()
    out(res)


# ---- concurrent large reviews (the memory budget) ----------------------------

def big_pod_review(mib):
    """A Pod AdmissionReview of about mib MiB (never over it): containers
    of about 345 bytes."""
    def container(i):
        return {"name": "c%05d" % i,
                "image": "registry.example.com/app:1.%05d" % i,
                "env": [{"name": "INDEX", "value": "%05d" % i},
                        {"name": "ROLE", "value": "worker-of-a-large-pod"}],
                "resources": {"requests": {"cpu": "10m", "memory": "16Mi"},
                              "limits": {"cpu": "20m", "memory": "32Mi"}},
                "imagePullPolicy": "IfNotPresent",
                "terminationMessagePath": "/dev/termination-log"}
    per = len(json.dumps(container(10000))) + 2
    cs = [container(i) for i in range(int((mib * 1024 * 1024 - 512) / per))]
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": "big", "namespace": "default"},
           "spec": {"containers": cs}}
    return json.dumps({
        "apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
        "request": {"uid": "big-pod", "operation": "CREATE",
                    "kind": {"group": "", "version": "v1", "kind": "Pod"},
                    "namespace": "default", "name": "big",
                    "object": pod}}).encode()


def vm_kb(pid, key):
    try:
        for ln in open("/proc/%s/status" % pid):
            if ln.startswith(key + ":"):
                return int(ln.split()[1])
    except OSError:
        pass
    return -1


def read_answer(s):
    """(status, headers dict, body) of one response, or None."""
    buf = b""
    while b"\r\n\r\n" not in buf:
        got = s.recv(65536)
        if not got:
            return None
        buf += got
    head, _, rest = buf.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    hdrs = {}
    for ln in lines[1:]:
        k, _, v = ln.partition(":")
        hdrs[k.strip().lower()] = v.strip()
    n = int(hdrs.get("content-length", "0"))
    while len(rest) < n:
        got = s.recv(65536)
        if not got:
            return None
        rest += got
    return int(lines[0].split()[1]), hdrs, rest[:n]


def bigpods(ca, port, n, mib, pid):
    sslctx = ctx(ca)
    port, n = int(port), int(n)
    req = post_bytes(big_pod_review(float(mib)))
    lock = threading.Lock()
    st = {"n": n, "body_bytes": len(req), "answered": 0, "refused": 0,
          "no_retry_after": 0, "other": 0}
    socks = []
    for _ in range(n):
        s = sslctx.wrap_socket(connect(port, 60))
        s.settimeout(60)
        socks.append(s)
    go = threading.Barrier(n)
    end = time.monotonic() + 60

    def rec(k):
        with lock:
            st[k] += 1

    def worker(s):
        go.wait()
        while time.monotonic() < end:
            try:
                s.sendall(req)
                r = read_answer(s)
            except (OSError, ssl.SSLError):
                r = None
            if r is None:
                rec("other")
                return
            code, hdrs, body = r
            if code == 200:
                rec("answered")
                return
            if code not in (429, 503):
                rec("other")
                return
            rec("refused")
            try:
                json.loads(body)["error"]["message"]
                wait = float(hdrs["retry-after"])
            except (ValueError, KeyError, TypeError):
                rec("no_retry_after")
                return
            # refused before its body was read: the server closes
            s.close()
            time.sleep(min(wait, 2) * random.random() + 0.05)
            s = sslctx.wrap_socket(connect(port, 60))
            s.settimeout(60)

    t0 = time.monotonic()
    ts = [threading.Thread(target=worker, args=(s,)) for s in socks]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    st["seconds"] = round(time.monotonic() - t0, 2)
    st["hwm_kb"] = vm_kb(pid, "VmHWM")
    st["rss_kb"] = vm_kb(pid, "VmRSS")
    for s in socks:
        try:
            s.close()
        except OSError:
            pass
    out(st)


# ---- requests that wait in the queue (the deadline from arrival) --------------

def queued(ca, port, *files):
    sslctx = ctx(ca)
    port = int(port)
    socks = []
    for _ in files:
        s = sslctx.wrap_socket(connect(port, 30))
        s.settimeout(30)
        socks.append(s)
    reqs = [post_bytes(open(f, "rb").read()) for f in files]
    go = threading.Barrier(len(files))
    answers = [None] * len(files)

    def worker(i):
        go.wait()
        t0 = time.monotonic()
        try:
            socks[i].sendall(reqs[i])
            r = read_answer(socks[i])
        except (OSError, ssl.SSLError):
            r = None
        a = {"ms": round((time.monotonic() - t0) * 1e3)}
        try:
            resp = json.loads(r[2])["response"]
            a["allowed"] = resp["allowed"]
            a["warnings"] = resp.get("warnings", [])
        except (TypeError, ValueError, KeyError):
            a["error"] = repr(r)[:200]
        answers[i] = a

    ts = [threading.Thread(target=worker, args=(i,))
          for i in range(len(files))]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for s in socks:
        s.close()
    out({"answers": answers, "max_ms": max(a["ms"] for a in answers)})


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "slowloris":
        asyncio.run(slowloris(*args))
    elif cmd == "flood":
        asyncio.run(flood(*args))
    elif cmd == "garbage":
        garbage(*args)
    elif cmd == "noread":
        asyncio.run(noread(*args))
    elif cmd == "sigterm":
        sigterm(*args)
    elif cmd == "rotate":
        rotate(*args)
    elif cmd == "strict":
        strict(*args)
    elif cmd == "bigpods":
        bigpods(*args)
    elif cmd == "queued":
        queued(*args)
    else:
        raise SystemExit("unknown command " + cmd)


if __name__ == "__main__":
    main()
