#!/usr/bin/env python3
"""snap.py - the two halves of snap.sh (in-cluster snapshots under slice
updates) that shell does badly.

snap.py reviews PORT CA PODS SECONDS RATE OUT
    Sends AdmissionReviews of the Pods in PODS (gen.py's pods.yaml, in
    turn) to https://127.0.0.1:PORT/validate at RATE a second for SECONDS
    (paced on the clock, one keep-alive connection) and writes each
    review's latency in seconds to OUT, one a line. Fails on a non-200.

snap.py report LOG STATS T0 T1 QUIET BUSY
    The figures, from claimcheck-webhook's log LOG (its debug lines
    "snapshot of N cluster objects, M parsed since the last" and
    "snapshot published in W s (C s CPU)"), fakeapi's /_stats JSON in
    STATS (the churn events' send times), the update window [T0, T1]
    (epoch seconds) and the latencies of reviews without (QUIET) and
    with (BUSY) updates:
      snapshots      published while the updates ran
      cpu_ms         CPU per rebuild (mean, the builder thread)
      behind_mean_s  how far the published snapshot is behind the newest
      behind_max_s   event sent: at each publish, the time since the
                     newest event it holds was sent, and just before the
                     next publish (its worst); mean and max
      applied        events the snapshots took in, of those sent
      p99_quiet_ms, p99_busy_ms, p99_ratio  reviews' p99 without and
                     with updates, and their ratio
"""
import datetime
import http.client
import json
import ssl
import sys
import time


def reviews(port, ca, pods, seconds, rate, out):
    import yaml
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with open(pods) as f:
        objs = [d for d in yaml.load_all(f, Loader=loader)
                if d and d.get("kind") == "Pod"]
    bodies = []
    for i, pod in enumerate(objs[:200]):
        req = {"uid": "bench-%d" % i,
               "kind": {"group": "", "version": "v1", "kind": "Pod"},
               "resource": {"group": "", "version": "v1",
                            "resource": "pods"},
               "namespace": pod["metadata"].get("namespace", "default"),
               "name": pod["metadata"]["name"], "operation": "CREATE",
               "userInfo": {"username": "bench"}, "object": pod}
        bodies.append(json.dumps({"apiVersion": "admission.k8s.io/v1",
                                  "kind": "AdmissionReview",
                                  "request": req}).encode())
    ctx = ssl.create_default_context(cafile=ca)
    conn = http.client.HTTPSConnection("127.0.0.1", int(port), context=ctx,
                                       timeout=30)
    lat = []
    start = time.monotonic()
    n = int(float(seconds) * float(rate))
    for k in range(n):
        delay = start + k / float(rate) - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        t = time.monotonic()
        conn.request("POST", "/validate?timeout=10s", bodies[k % len(bodies)],
                     {"Content-Type": "application/json"})
        r = conn.getresponse()
        r.read()
        lat.append(time.monotonic() - t)
        if r.status != 200:
            sys.exit("snap.py: review answered %d" % r.status)
    with open(out, "w") as f:
        f.write("".join("%.6f\n" % x for x in lat))


def p99(path):
    with open(path) as f:
        v = sorted(float(x) for x in f if x.strip())
    return v[min(len(v) - 1, int(len(v) * 0.99))] if v else float("nan")


def log_lines(path):
    """(epoch time, msg) of the log's snapshot lines"""
    for line in open(path):
        try:
            r = json.loads(line)
        except ValueError:
            continue
        msg = r.get("msg", "")
        if not msg.startswith("inventory: snapshot "):
            continue
        t = datetime.datetime.strptime(r["time"], "%Y-%m-%dT%H:%M:%S.%fZ")
        yield t.replace(tzinfo=datetime.timezone.utc).timestamp(), msg


def report(log, stats, t0, t1, quiet, busy):
    sent = json.load(open(stats)).get("churn", [])
    t0, t1 = float(t0), float(t1)
    # each snapshot: the events it holds (the parses since the list,
    # counted from the first update on) and when it was published
    snaps = []          # (published at, events held, CPU s)
    held = 0
    counting = False
    for t, msg in log_lines(log):
        w = msg.split()
        if w[2] == "of":            # "snapshot of N cluster objects, M parsed"
            if counting:
                held += int(w[6])
            elif t >= t0:
                counting = True
                held = int(w[6])
        elif w[2] == "published" and counting:
            snaps.append((t, held, float(w[6].lstrip("("))))
    behind = []
    for i, (t, n, _) in enumerate(snaps):
        if n == 0 or n > len(sent):
            continue
        newest = sent[n - 1]
        behind.append(t - newest)
        nxt = snaps[i + 1][0] if i + 1 < len(snaps) else None
        if nxt is not None and nxt <= t1:
            behind.append(nxt - newest)
    during = [s for s in snaps if s[0] <= t1 + 0.5]
    cpu = [s[2] for s in during]
    q, b = p99(quiet), p99(busy)
    fig = {
        "snapshots": len(during),
        "cpu_ms": round(1e3 * sum(cpu) / len(cpu), 1) if cpu else "-",
        "behind_mean_s": round(sum(behind) / len(behind), 2)
        if behind else "-",
        "behind_max_s": round(max(behind), 2) if behind else "-",
        "applied": "%d/%d" % (snaps[-1][1] if snaps else 0, len(sent)),
        "p99_quiet_ms": round(q * 1e3, 2),
        "p99_busy_ms": round(b * 1e3, 2),
        "p99_ratio": round(b / q, 2) if q > 0 else "-",
    }
    for k, v in fig.items():
        print(k, v)


if __name__ == "__main__":
    if len(sys.argv) == 8 and sys.argv[1] == "reviews":
        reviews(*sys.argv[2:])
    elif len(sys.argv) == 8 and sys.argv[1] == "report":
        report(*sys.argv[2:])
    else:
        sys.exit(__doc__)
