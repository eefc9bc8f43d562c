#!/usr/bin/env python3
"""run_objectmeta.py - apimachinery's ObjectMeta test table
(tests/k8s/apimachinery/objectmeta.yaml) through the object-metadata rule,
as tests/k8s/validation/run.py runs the resource.k8s.io tables: each case's
metadata is put on a valid object (a ResourceClaim when the Go test
validates a namespaced object or does not say, a DeviceClass when it
validates a cluster-scoped one), linted as written and admitted as the
defaulted JSON, and the schema-class errors are compared with the Go
test's, paths exact (the Go root `field` is `metadata`).

Cases of validators that are not ObjectMeta create validation (updates,
conditions, label selectors), custom test-only name functions and the
table's own skips are listed as skipped with the reason. Last line:
`N passed, N failed, N skipped`.
"""
import copy
import os
import sys
import tempfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "validation"))
import run  # noqa: E402  (tests/k8s/validation/run.py)

APPLIES = ("ValidateLabels", "ValidateAnnotations", "ValidateManagedFields",
           "validateObjectMetaAccessorWithOptsCommon",
           "ValidateObjectMeta(requiresNamespace=false, nameFn=NameIsDNS")

CLAIM_SPEC = {"devices": {"requests": [
    {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}}


def wrap(case):
    """The object a user would write around the case's metadata."""
    md = copy.deepcopy(case["object"].get("metadata") or {})
    md.setdefault("name", "test")
    if case.get("namespaced") is False:
        return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
                "metadata": md, "spec": {}}
    if "namespace" not in md and "Namespaces" not in case["case"]:
        md["namespace"] = "test"
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": md, "spec": CLAIM_SPEC}


def metadata_path(validator, p):
    """The Go test's path in a real object: its root `field` is the map
    itself for ValidateLabels/ValidateAnnotations, metadata otherwise."""
    root = "metadata"
    if validator.startswith("ValidateLabels"):
        root = "metadata.labels"
    elif validator.startswith("ValidateAnnotations"):
        root = "metadata.annotations"
    if p == "field":
        return root
    if p.startswith("field."):
        return root + "." + p[len("field."):]
    return root + "." + p


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        HERE, "objectmeta.yaml")
    docs = list(yaml.safe_load_all(open(path, encoding="utf-8")))
    npass = nfail = nskip = 0
    with tempfile.TemporaryDirectory() as work:
        for case in docs[1:]:
            name = case["case"]
            why = case.get("skip")
            if not why and not case["validator"].startswith(APPLIES):
                why = "validator %s is not ObjectMeta create validation" % \
                    case["validator"]
            if why:
                print("skipped: %s: %s" % (name, why))
                nskip += 1
                continue
            obj = wrap(case)
            head = {"case": name, "expect": case["expect"],
                    "errors": [{"field": metadata_path(case["validator"],
                                                       e["field"])}
                               for e in case.get("errors") or []]}
            src = yaml.safe_dump(obj, default_flow_style=False)
            lint, lerr = run.run_lint(src, head, work)
            admit, aerr = run.run_admit(obj, head, work)
            problems = [x for x in (lerr, aerr) if x]
            if not problems:
                problems = ["lint: " + p for p in run.judge(name, head, lint)]
                problems += ["admit: " + p
                             for p in run.judge(name, head, admit)]
            if problems:
                nfail += 1
                for p in problems:
                    print("FAIL %s: %s" % (name, p))
            else:
                npass += 1
    print("%d passed, %d failed, %d skipped" % (npass, nfail, nskip))
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main())
