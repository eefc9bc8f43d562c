#!/usr/bin/env python3
"""gen_corpus.py - fills build/fuzz/corpus/<target>/ from the repository's
tests and the shared corpus, at run time (nothing generated is committed).

  tests/fuzz/gen_corpus.py OUTDIR [UPSTREAM_DIR]

Sources: tests/rules/**/*.yaml|json, deploy/examples/*, tests/admission/*,
the upstream corpus (../shared/corpus/upstream by default), CEL expressions
found in those manifests (every `expression:` value), the expression column
of tests/unit/test_cel.c and, when tests/cel/run.sh has dumped it,
build/cel/conformance.json. Without PyYAML only raw files are copied.
Targets whose first byte is a mode byte (fuzz_lint, fuzz_cel,
fuzz_admission) get that prefix. Files are named by content hash, so a rerun
adds nothing twice; inputs over 64 KiB are skipped.
"""
import hashlib
import json
import os
import re
import sys

MAX = 64 * 1024
top = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
out = sys.argv[1]
upstream = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
    top, "..", "shared", "corpus", "upstream")
try:
    import yaml
except ImportError:
    yaml = None

counts = {}


def put(target, data):
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    if len(data) > MAX:
        return
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    name = os.path.join(d, "g-" + hashlib.sha1(data).hexdigest()[:16])
    if not os.path.exists(name):
        with open(name, "wb") as f:
            f.write(data)
        counts[target] = counts.get(target, 0) + 1


def files():
    roots = [os.path.join(top, "tests", "rules"),
             os.path.join(top, "deploy", "examples"),
             os.path.join(top, "tests", "admission"), upstream]
    for r in roots:
        for dp, _, fs in os.walk(r):
            for f in sorted(fs):
                if f.endswith((".yaml", ".yml", ".json")):
                    yield os.path.join(dp, f)


def expressions(node, acc):
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "expression" and isinstance(v, str):
                acc.append(v)
            else:
                expressions(v, acc)
    elif isinstance(node, list):
        for v in node:
            expressions(v, acc)


cel = []
for path in files():
    with open(path, "rb") as f:
        raw = f.read()
    if len(raw) > MAX:
        continue
    is_review = b'"AdmissionReview"' in raw
    put("fuzz_yaml", raw)
    put("fuzz_lint", b"\x01" + raw)
    if path.endswith(".json"):
        put("fuzz_json", raw)
        if is_review:
            put("fuzz_admission", b"\x04" + raw)
    if yaml is None:
        continue
    try:
        docs = [d for d in yaml.safe_load_all(raw) if isinstance(d, dict)]
    except Exception:
        continue
    for d in docs:
        expressions(d, cel)
        try:
            js = json.dumps(d, default=str)
        except Exception:
            continue
        put("fuzz_json", js)
        if "kind" in d and not is_review:
            av = str(d.get("apiVersion", "v1"))
            group, _, version = av.rpartition("/")
            meta = d.get("metadata")
            ns = meta.get("namespace", "default") if isinstance(meta, dict) \
                else "default"
            review = {
                "apiVersion": "admission.k8s.io/v1",
                "kind": "AdmissionReview",
                "request": {
                    "uid": "00000000-0000-0000-0000-000000000001",
                    "kind": {"group": group, "version": version,
                             "kind": str(d.get("kind"))},
                    "namespace": str(ns),
                    "operation": "CREATE",
                    "object": d,
                },
            }
            put("fuzz_admission", b"\x04" + json.dumps(review,
                                                       default=str).encode())

# the expression column of the CEL unit tests: { "expr", "want" },
test_cel = os.path.join(top, "tests", "unit", "test_cel.c")
if os.path.exists(test_cel):
    src = open(test_cel, encoding="utf-8", errors="replace").read()
    for m in re.finditer(r'\{\s*"((?:[^"\\\n]|\\.)*)"\s*,\s*"', src):
        try:
            cel.append(bytes(m.group(1), "utf-8").decode("unicode_escape")
                       .encode("latin-1").decode("utf-8"))
        except Exception:
            pass

conf = os.path.join(top, "build", "cel", "conformance.json")
if os.path.exists(conf):
    def walk(n):
        if isinstance(n, dict):
            o = n.get("original")
            if isinstance(o, dict) and isinstance(o.get("expr"), str):
                cel.append(o["expr"])
            for v in n.values():
                walk(v)
        elif isinstance(n, list):
            for v in n:
                walk(v)
    try:
        walk(json.load(open(conf)))
    except Exception:
        pass

for e in dict.fromkeys(cel):
    put("fuzz_cel", b"\x00" + e.encode())       # selector, fixed device
    put("fuzz_cel", b"\x05" + e.encode())       # expression, list attrs

for t in sorted(counts):
    print("corpus: %s: %d new inputs" % (t, counts[t]))
