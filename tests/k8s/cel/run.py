#!/usr/bin/env python3
"""run.py - the differential runner over Kubernetes' own CEL tables
(tests/k8s/cel/*.yaml, see README.md there).

Every case goes through `claimcheck cel` (--device built from the case's
device, the case's features as -g gates, --stored for StoredExpressions,
--selector for the DRA selector cases, --cost for the costs), and each
TestCEL selector also through selector validation as the linter
(`claimcheck lint`) and the admission handler (`claimcheck-webhook`, one
server per gate combination) see it: a ResourceClaim with the selector is
selector-invalid exactly when Kubernetes fails to compile it (for
StoredExpressions: a DeviceClass UPDATE whose selectors did not change).
Compile errors, match results, runtime errors, values and estimated costs
are compared; a check that does not apply is a skip, printed with its
reason. The last line is "N passed, N failed, N skipped".

Usage: run.py [-v] [FILE.yaml ...]
"""
import http.client
import json
import os
import re
import ssl
import subprocess
import sys
import tempfile
import time

import yaml

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "../../.."))
HERE = os.path.join(TOP, "tests/k8s/cel")
CC = os.environ.get("CLAIMCHECK", os.path.join(TOP, "build/claimcheck"))
HOOK = os.environ.get("CLAIMCHECK_WEBHOOK",
                      os.path.join(TOP, "build/claimcheck-webhook"))
VERBOSE = "-v" in sys.argv
FILES = [a for a in sys.argv[1:] if not a.startswith("-")] or [
    os.path.join(HERE, f) for f in
    ("compile.yaml", "quantity.yaml", "semver.yaml", "cost.yaml",
     "functions.yaml")]

passed = failed = skipped = 0
UNBOUNDED = 1 << 60         # an estimate that involved an unknown size
TMP = tempfile.mkdtemp(prefix="claimcheck-k8s-cel.")


def ok(case, path):
    global passed
    passed += 1
    if VERBOSE:
        print("ok   %s [%s]" % (case, path))


def bad(case, path, why):
    global failed
    failed += 1
    print("FAIL %s [%s]: %s" % (case, path, why))


def skip(case, path, why):
    global skipped
    skipped += 1
    print("skipped: %s [%s]: %s" % (case, path, why))


def docs(path):
    with open(path) as f:
        d = list(yaml.safe_load_all(f))
    return d[0], d[1:]


def gates(opts):
    return "DRAConsumableCapacity=%s,DRAListTypeAttributes=%s" % (
        str(bool(opts.get("EnableConsumableCapacity"))).lower(),
        str(bool(opts.get("EnableListTypeAttributes"))).lower())


def cel(expr, args=()):
    """claimcheck cel ARGS EXPR -> (rc, first line, cost line or None)"""
    p = subprocess.run([CC, "cel"] + list(args) + [expr],
                       capture_output=True, text=True, timeout=60)
    lines = p.stdout.splitlines()
    cost = next((l for l in lines if l.startswith("cost: ")), None)
    first = lines[0] if lines else p.stderr.strip()
    return p.returncode, first, cost


def parse_cost(line):
    m = re.match(r"cost: estimated (\d+)\.\.(\d+), runtime (\d+)", line or "")
    return tuple(int(x) for x in m.groups()) if m else None


def device_file(case, dev, short):
    """the case's cel.Device as a device YAML for --device"""
    driver = dev.get("driver", "")
    out = {"name": "dev", "driver": driver}
    attrs = {}
    for name, val in (dev.get("attributes") or {}).items():
        if short and name.startswith(driver + "/"):
            name = name[len(driver) + 1:]
        attrs[name] = val
    if attrs:
        out["attributes"] = attrs
    caps = {}
    for name, val in (dev.get("capacity") or {}).items():
        if short and name.startswith(driver + "/"):
            name = name[len(driver) + 1:]
        caps[name] = {"value": str(val)}
    if caps:
        out["capacity"] = caps
    if dev.get("allowMultipleAllocations") is not None:
        out["allowMultipleAllocations"] = dev["allowMultipleAllocations"]
    path = os.path.join(TMP, re.sub(r"[^A-Za-z0-9_.-]", "_", case) + ".yaml")
    with open(path, "w") as f:
        yaml.safe_dump(out, f)
    return path


def is_compile_error(line):
    return line.startswith("error: compilation failed: ")


# ---- the webhook: one server per gate combination ----

servers = {}


def webhook(gate_args):
    if gate_args in servers:
        return servers[gate_args]
    certs = os.path.join(TMP, "certs")
    if not os.path.exists(os.path.join(certs, "tls.crt")):
        subprocess.run([HOOK, "certs", "--service", "k8s-cel", "--namespace",
                        "default", "--out", certs, "--ip", "127.0.0.1"],
                       capture_output=True, timeout=60, check=True)
    log = open(os.path.join(TMP, "hook-%d.log" % len(servers)), "w+")
    proc = subprocess.Popen([HOOK, "serve", "--listen", "127.0.0.1:0",
                             "--tls-cert", os.path.join(certs, "tls.crt"),
                             "--tls-key", os.path.join(certs, "tls.key"),
                             "-g", gate_args], stderr=log)
    port = None
    for _ in range(200):
        log.seek(0)
        m = re.search(r'listening on https://127\.0\.0\.1:(\d+)', log.read())
        if m:
            port = int(m.group(1))
            break
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    servers[gate_args] = (proc, port)
    return servers[gate_args]


def admit(gate_args, review):
    proc, port = webhook(gate_args)
    if not port:
        return None
    ctx = ssl._create_unverified_context()
    conn = http.client.HTTPSConnection("127.0.0.1", port, context=ctx,
                                       timeout=30)
    conn.request("POST", "/validate", body=json.dumps(review),
                 headers={"Content-Type": "application/json"})
    resp = json.loads(conn.getresponse().read())
    conn.close()
    return resp.get("response", {})


def claim_object(expr):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": "c", "namespace": "default"},
            "spec": {"devices": {"requests": [{"name": "r", "exactly": {
                "deviceClassName": "gpu.example.com",
                "selectors": [{"cel": {"expression": expr}}]}}]}}}


def class_object(expr):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
            "metadata": {"name": "gpu.example.com"},
            "spec": {"selectors": [{"cel": {"expression": expr}}]}}


def review(obj, op, old=None):
    kind = obj["kind"]
    req = {"uid": "k8s-cel", "kind": {"group": "resource.k8s.io",
                                      "version": "v1", "kind": kind},
           "resource": {"group": "resource.k8s.io", "version": "v1",
                        "resource": kind.lower() + "s"},
           "operation": op, "object": obj,
           "userInfo": {"username": "k8s-cel"}}
    if obj["metadata"].get("namespace"):
        req["namespace"] = obj["metadata"]["namespace"]
    if old is not None:
        req["oldObject"] = old
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
            "request": req}


def lint_invalid(expr, gate_args):
    path = os.path.join(TMP, "claim.yaml")
    with open(path, "w") as f:
        yaml.safe_dump(claim_object(expr), f)
    p = subprocess.run([CC, "lint", "-o", "json", "-g", gate_args, path],
                       capture_output=True, text=True, timeout=60)
    try:
        d = json.loads(p.stdout)
    except ValueError:
        return None
    return [f["message"] for f in d["findings"]
            if f["rule"] == "selector-invalid"]


# ---- compile.yaml: TestCEL and the cache tests ----

def run_compile(c):
    name, opts, exp = c["case"], c.get("options") or {}, c["expect"]
    if c.get("skip"):
        skip(name, "cel", c["skip"])
        return
    expr = c["expression"]
    g = gates(opts)
    stored = opts.get("EnvType", "StoredExpressions") == "StoredExpressions"
    args = ["-g", g, "--selector", "--cost"] + (["--stored"] if stored else [])
    dev = c.get("device")
    if dev is not None and not c.get("compileOnly"):
        args += ["--device", device_file(name, dev, c.get("shortNames"))]
    rc, line, costline = cel(expr, args)
    want_err = exp.get("compileError")
    if want_err is not None:
        if not is_compile_error(line):
            bad(name, "cel", "want compile error %r, got %r" % (want_err, line))
        elif want_err.lower() not in line.lower():
            bad(name, "cel", "want compile error containing %r, got %r" %
                (want_err, line))
        else:
            ok(name, "cel")
    elif is_compile_error(line) or line.startswith("error: too complex"):
        bad(name, "cel", "want it to compile, got %r" % line)
    else:
        ok(name, "cel")
        # the estimated cost: MaxCost (cost estimation disabled: not made)
        if exp.get("cost") is not None and not opts.get(
                "DisableCostEstimation"):
            got = parse_cost(costline)
            if got and got[1] == exp["cost"]:
                ok(name, "cost")
            else:
                bad(name, "cost", "want estimated cost %d, got %s" %
                    (exp["cost"], costline))
        else:
            skip(name, "cost", "cost estimation disabled (the scheduler's "
                 "cache)" if opts.get("DisableCostEstimation")
                 else "no expected cost")
        if c.get("compileOnly"):
            skip(name, "match", "compile-only case")
        elif exp.get("matchError") is not None:
            if line.startswith("error: ") and exp["matchError"] in line:
                ok(name, "match")
            else:
                bad(name, "match", "want error containing %r, got %r" %
                    (exp["matchError"], line))
        elif exp.get("match") is not None:
            want = "true" if exp["match"] else "false"
            if line == want:
                ok(name, "match")
            else:
                bad(name, "match", "want %s, got %r" % (want, line))
    # validation as the linter and the admission handler see it: a
    # compile error, or an estimated cost over the limit (Forbidden)
    invalid = want_err is not None or (exp.get("cost") or 0) > 1000000
    if stored:
        skip(name, "lint", "StoredExpressions: the linter validates every "
             "selector as a new one")
        resp = admit(g, review(class_object(expr), "UPDATE",
                               class_object(expr)))
        path = "admission UPDATE"
    else:
        found = lint_invalid(expr, g)
        if found is None:
            bad(name, "lint", "claimcheck lint gave no JSON")
        elif bool(found) == invalid:
            ok(name, "lint")
        else:
            bad(name, "lint", "selector-invalid %s, want %s (%s)" % (
                bool(found), invalid, "; ".join(found)))
        resp = admit(g, review(claim_object(expr), "CREATE"))
        path = "admission CREATE"
    if resp is None:
        bad(name, path, "the webhook did not start")
        return
    msg = (resp.get("status") or {}).get("message", "")
    got_invalid = "selector-invalid" in msg
    if got_invalid == invalid:
        ok(name, path)
    else:
        bad(name, path, "selector-invalid %s, want %s (allowed %s: %s)" % (
            got_invalid, invalid, resp.get("allowed"), msg[:200]))


# ---- quantity.yaml, semver.yaml: library values and errors ----

def run_library(c, header):
    name, exp = c["case"], c["expect"]
    expr = c["expression"]
    opts = c.get("options") or {}
    if c.get("skip"):
        skip(name, "cel", c["skip"])
        return
    if opts.get("SemverVersion") == 0:
        skip(name, "cel", "semver library version 0: Kubernetes' environment "
             "has version 1 (normalize)")
        return
    rc, line, _ = cel(expr, ["-g", "DRAListTypeAttributes=true"])
    if "beyond what claimcheck represents" in line:
        skip(name, "cel", "a quantity past claimcheck's range (%s); "
             "Kubernetes' are unbounded" % line.split("(")[-1].rstrip(")"))
        return
    if exp.get("compileError") is not None:
        if is_compile_error(line) and re.search(exp["compileError"], line):
            ok(name, "cel")
        else:
            bad(name, "cel", "want compile error /%s/, got %r" %
                (exp["compileError"], line))
        return
    if exp.get("error") is not None:
        if line.startswith("error: ") and not is_compile_error(line) and \
                re.search(exp["error"], line):
            ok(name, "cel")
        else:
            bad(name, "cel", "want runtime error /%s/, got %r" %
                (exp["error"], line))
        return
    if line.startswith("error: "):
        bad(name, "cel", "want %s, got %r" % (exp.get("value"), line))
        return
    # CEL equality of the result and the expected value, as the Go test
    rc, eq, _ = cel("dyn(%s) == dyn(%s)" % (expr, exp["value"]))
    if eq == "true":
        ok(name, "cel")
    else:
        bad(name, "cel", "want %s, got %s (equality: %s)" %
            (exp["value"], line, eq))


# ---- cost.yaml: estimated ranges ----

def run_cost(c):
    name = c["case"]
    if c.get("skip"):
        skip(name, "cost", c["skip"])
        return
    if not c.get("inDRAEnv"):
        skip(name, "cost", "not in the DRA environment: " +
             (c.get("note") or "see the case"))
        return
    rc, line, costline = cel(c["expression"],
                             ["-g", "DRAListTypeAttributes=true", "--cost"])
    got = parse_cost(costline)
    want = (c["cost"]["min"], c["cost"]["max"])
    if line.startswith("error: "):
        bad(name, "cost", "want a value, got %r" % line)
    elif got and got[:2] == want:
        ok(name, "cost")
    elif got and got[1] >= UNBOUNDED and want[1] < UNBOUNDED:
        skip(name, "cost", "a string or bytes value of unknown size: the "
             "library test's size estimator says 0..12, the DRA estimator "
             "knows sizes under `device` only (unbounded, as in Kubernetes' "
             "DRA environment); tests/unit/test_cel_k8s.c compares it with "
             "the test's estimator")
    else:
        bad(name, "cost", "want estimated %d..%d, got %s" %
            (want[0], want[1], costline))
    skip(name, "runtime cost", "measured without OptOptimize in the "
         "library's test environment: tests/unit/test_cel_k8s.c compares it")


# ---- functions.yaml: which functions the environment declares ----

def run_function(c):
    """declared exactly when Kubernetes' DRA environment can call it: the
    probe NAME() is "no matching overload" when declared, "undeclared
    reference" when not"""
    name, fn = c["case"], c["function"]
    want = bool(c.get("usableInDRA"))
    rc, line, _ = cel(fn + "()", ["-g", "DRAListTypeAttributes=true"])
    declared = "undeclared reference" not in line and \
        "reserved identifier" not in line
    if declared == want:
        ok(name, "declared")
    else:
        bad(name, "declared", "'%s' declared: %s, want %s (%s)" % (
            fn, declared, want, line))


def main():
    if not os.access(CC, os.X_OK):
        print("FAIL: %s missing (run make)" % CC)
        print("0 passed, 1 failed")
        return 1
    for path in FILES:
        header, cases = docs(path)
        base = os.path.basename(path)
        for c in cases:
            if base == "compile.yaml":
                run_compile(c)
            elif base in ("quantity.yaml", "semver.yaml"):
                run_library(c, header)
            elif base == "cost.yaml":
                run_cost(c)
            elif base == "functions.yaml":
                run_function(c)
    for proc, _ in servers.values():
        proc.terminate()
    for proc, _ in servers.values():
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    subprocess.run(["rm", "-rf", TMP])
    print("k8s cel: %d passed, %d failed, %d skipped" %
          (passed, failed, skipped))
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
