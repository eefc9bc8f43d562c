#!/usr/bin/env python3
"""fair.py - normal reviews while costly ones run (issue 16, item 2).
  fair.py CA PORT NORMAL SECONDS NATTACK ATTACK...
      NATTACK connections each send the ATTACK reviews in turn, back to
      back (distinct selectors: no cached result helps); one connection
      sends the NORMAL review back to back for SECONDS and times each
      answer. Attackers start first (0.3 s before the timing starts).
      -> {attackers, normal: n, p50_ms, p99_ms, max_ms, failed,
          attack: {answered, mean_ms, budget_warned}}
Uses the TLS client helpers of tests/e2e/faults/load.py. 127.0.0.1 only."""
import json
import os
import ssl
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "e2e", "faults"))
import load  # noqa: E402


def pct(v, p):
    return v[min(len(v) - 1, int(len(v) * p / 100))] if v else None


def main():
    ca, port, normal, seconds, nattack = sys.argv[1:6]
    port, seconds, nattack = int(port), float(seconds), int(nattack)
    attacks = [load.post_bytes(open(f, "rb").read()) for f in sys.argv[6:]]
    sslctx = load.ctx(ca)
    stop = threading.Event()
    att = {"answered": 0, "ms": 0.0, "budget_warned": 0}
    lock = threading.Lock()

    def attacker(i):
        try:
            s = sslctx.wrap_socket(load.connect(port, 60))
        except (OSError, ssl.SSLError):
            return
        k = i
        while not stop.is_set():
            t0 = time.monotonic()
            try:
                s.sendall(attacks[k % len(attacks)])
                r = load.read_answer(s)
            except (OSError, ssl.SSLError):
                break
            if r is None:
                break
            k += nattack
            ms = (time.monotonic() - t0) * 1e3
            warned = b"over the request's budget" in r[2]
            with lock:
                att["answered"] += 1
                att["ms"] += ms
                att["budget_warned"] += warned
        s.close()

    ts = [threading.Thread(target=attacker, args=(i,), daemon=True)
          for i in range(nattack)]
    for t in ts:
        t.start()
    if nattack:
        time.sleep(0.3)
    body = load.post_bytes(open(normal, "rb").read())
    s = sslctx.wrap_socket(load.connect(port, 60))
    lat, failed = [], 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        t0 = time.monotonic()
        try:
            s.sendall(body)
            r = load.read_answer(s)
        except (OSError, ssl.SSLError):
            r = None
        if r is None or r[0] != 200:
            failed += 1
            s = sslctx.wrap_socket(load.connect(port, 60))
            continue
        lat.append((time.monotonic() - t0) * 1e3)
    stop.set()
    s.close()
    lat.sort()
    print(json.dumps({
        "attackers": nattack, "normal": len(lat), "failed": failed,
        "p50_ms": round(pct(lat, 50), 2) if lat else None,
        "p99_ms": round(pct(lat, 99), 2) if lat else None,
        "max_ms": round(lat[-1], 2) if lat else None,
        "attack": {"answered": att["answered"],
                   "budget_warned": att["budget_warned"],
                   "mean_ms": round(att["ms"] / att["answered"], 1)
                   if att["answered"] else None}}))
    os._exit(0)     # attackers may still wait on an answer


if __name__ == "__main__":
    main()
