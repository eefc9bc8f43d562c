#!/usr/bin/env python3
# run.py - the differential runner: every scenario of Kubernetes'
# TestAllocator (the *.yaml files here, README.md) through `claimcheck lint`,
# its outcome compared with Kubernetes' (allocated / unsatisfiable / error).
#
# Per scenario: the ResourceSlices, DeviceClasses and the Node are the
# inventory (-i, and linted too: pool-invalid); the claims are the input,
# with a Pod on the scenario's
# node (spec.nodeName) that uses every claim, so that the claims are
# allocated together on that node as Allocate does. The scenario's
# `features` become -g gates at -k 1.36 (a feature not listed is off).
# claimcheck's verdict is read from its findings (RULES below); claimcheck
# answers satisfiability and does not pick devices, so the chosen devices
# are not compared.
#
# Two rewrites that Allocate does not see (the apiserver would refuse the
# Go input, README.md "Inputs the apiserver would not accept"): sub-request
# names are lowercased (subReq-0 -> subreq-0), `count` next to
# allocationMode All is dropped (Allocate ignores it), and a name used twice
# in one kind gets a suffix (Allocate gets lists; an inventory is indexed
# by name).
#
# Skipped, each with its reason: scenarios with devices held by other
# claims (they belong to the audit: claim-blocked), an inventory without classes or
# without devices (claimcheck judges nothing against those), a feature the target cannot turn
# off (a locked gate), inputs the apiserver rejects for a scenario that
# Kubernetes allocates, and the disagreements listed in known.txt (one line
# each: case, reason). A listed case that agrees fails, so the list stays
# exact. --all prints every disagreement and ignores known.txt.
#
# Prints per case `FAIL|skipped: ...`, the figures, then
# `N passed, N failed, N skipped`.
import glob
import json
import os
import subprocess
import sys
import tempfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
BIN = os.path.join(TOP, "build", "claimcheck")

# internal.Features name -> feature gates (README.md)
FEATURES = {
    "AdminAccess": ["DRAAdminAccess"],
    "ConsumableCapacity": ["DRAConsumableCapacity"],
    "DeviceTaints": ["DRADeviceTaints"],
    "ListTypeAttributes": ["DRAListTypeAttributes"],
    "PartitionableDevices": ["DRAPartitionableDevices"],
    "PrioritizedList": ["DRAPrioritizedList"],
    "DeviceBindingAndStatus": ["DRADeviceBindingConditions",
                               "DRAResourceClaimDeviceStatus"],
}
LOCKED_ON = {"DRAAdminAccess"}  # at 1.36

# what a finding says about Allocate's outcome
UNSAT_RULES = {"claim-unsatisfiable", "selector-no-device",
               "selector-never-matches"}
ERROR_RULES = {"device-class-not-found", "selector-invalid",
               "selector-runtime-error", "feature-gate-disabled"}
SCHEMA_RULES = {"claim-schema", "unknown-field", "input-object"}
# an invalid pool is skipped; Allocate errors only when the claims then
# cannot be allocated ("invalid resource pools were encountered")
POOL_RULES = {"pool-invalid"}
# selector-runtime-error of a class the claims use counts too (reported on
# the class, in the inventory file: class_aborts).
# claim-unsatisfiable saying that Kubernetes' allocator itself errors
# (allocationMode All over a pool being updated or against a constraint,
# more than 32 devices for one claim): Allocate's error
ERROR_MARK = "allocator stops with an error"


def scenarios():
    for path in sorted(glob.glob(os.path.join(HERE, "[0-9]*.yaml"))):
        with open(path) as f:
            docs = list(yaml.safe_load_all(f))
        i = 1
        while i < len(docs):
            head = docs[i]
            n = head["objects"]
            yield os.path.basename(path), head, docs[i + 1:i + 1 + n]
            i += 1 + n


def rewrite_claim(claim):
    text = json.dumps(claim).replace("subReq-", "subreq-")
    claim = json.loads(text)
    for r in (claim.get("spec", {}).get("devices", {}) or {}) \
            .get("requests", []) or []:
        for e in [r.get("exactly")] + list(r.get("firstAvailable") or []):
            if isinstance(e, dict) and e.get("allocationMode") == "All":
                e.pop("count", None)
    return claim


def unique_names(objs):
    # Allocate gets lists, names do not matter to it; an inventory indexes
    # objects by name, so a name used twice in one kind gets a suffix
    seen = {}
    out = []
    for o in objs:
        key = (o["kind"], o["metadata"]["name"])
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > 1:
            o = json.loads(json.dumps(o))
            o["metadata"]["name"] += "-dup%d" % seen[key]
        out.append(o)
    return out


def classes_used(claims):
    names = set()
    for c in claims:
        for r in (c.get("spec", {}).get("devices", {}) or {}) \
                .get("requests", []) or []:
            for e in [r.get("exactly")] + list(r.get("firstAvailable") or []):
                if isinstance(e, dict) and e.get("deviceClassName"):
                    names.add(e["deviceClassName"])
    return names


def class_aborts(x, used):
    # a class of the inventory whose selector errors on a device: reported
    # on the class, and Allocate errors for every claim of it
    o = x.get("object") or {}
    return x["rule"] == "selector-runtime-error" \
        and o.get("kind") == "DeviceClass" and o.get("name") in used


def uses_admin(claims):
    return '"adminAccess": true' in json.dumps(claims)


def pod_for(node, claims):
    refs = [{"name": "c%d" % i, "resourceClaimName": c["metadata"]["name"]}
            for i, c in enumerate(claims)]
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "scenario", "namespace": "default"},
            "spec": {"nodeName": node, "resourceClaims": refs,
                     "containers": [{
                         "name": "c", "image": "registry.k8s.io/pause",
                         "resources": {"claims": [{"name": r["name"]}
                                                  for r in refs]}}]}}


def judge(head, objs, tmp):
    """(outcome or None, skip reason or None, detail)"""
    if head.get("allocatedDevices") or head.get("allocatedCapacity"):
        return None, ("devices held by other claims (allocatedDevices, "
                      "allocated capacity): they belong to the audit "
                      "(claim-blocked judges a live cluster's claims), "
                      "not to lint"), ""
    feats = head.get("features") or {}
    objs = unique_names(objs)
    inv = [o for o in objs if o["kind"] != "ResourceClaim"]
    claims = [rewrite_claim(o) for o in objs if o["kind"] == "ResourceClaim"]
    silent = None       # why claimcheck says nothing about these
    if not any(o["kind"] == "DeviceClass" for o in inv):
        silent = ("no DeviceClass in the inventory: claimcheck does not "
                  "judge class references against an inventory without "
                  "classes")
    elif not any((o.get("spec") or {}).get("devices")
                 for o in inv if o["kind"] == "ResourceSlice"):
        silent = ("no device in the inventory: claimcheck's satisfiability "
                  "rules judge nothing without devices")
    for c in claims:
        c["metadata"].setdefault("namespace", "default")
    gates = []
    for feat, names in FEATURES.items():
        on = bool(feats.get(feat))
        for g in names:
            if g in LOCKED_ON and not on:
                if feat == "AdminAccess" and uses_admin(claims):
                    return None, ("feature %s off: %s is locked on at 1.36"
                                  % (feat, g)), ""
                continue
            gates.append("%s=%s" % (g, "true" if on else "false"))
    if not claims:
        return "allocated", None, "no claims"
    invf = os.path.join(tmp, "inventory.yaml")
    inf = os.path.join(tmp, "input.yaml")
    with open(invf, "w") as f:
        yaml.safe_dump_all(inv, f)
    with open(inf, "w") as f:
        yaml.safe_dump_all(claims + [pod_for(head["node"], claims)], f)
    # the inventory is linted too, for the pool rules (its other findings
    # are about objects Allocate takes as they are)
    p = subprocess.run([BIN, "lint", "-k", "1.36", "-g", ",".join(gates),
                        "-i", invf, "-o", "json", "--fail-on", "never", inf,
                        invf], capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        return "crash", None, "exit %d: %s" % (p.returncode,
                                               p.stderr.strip()[:300])
    used = classes_used(claims)
    found = [x for x in json.loads(p.stdout)["findings"]
             if x["file"] == inf or x["rule"] in POOL_RULES
             or class_aborts(x, used)]
    rules = {x["rule"] for x in found}
    msgs = ["%s: %s" % (x["rule"], x["message"]) for x in found
            if x["rule"] in UNSAT_RULES | ERROR_RULES | SCHEMA_RULES
            | POOL_RULES]
    detail = "; ".join(msgs)[:400]
    if rules & ERROR_RULES or any(ERROR_MARK in x["message"]
                                  for x in found
                                  if x["rule"] == "claim-unsatisfiable"):
        return "error", None, detail
    if rules & SCHEMA_RULES:
        if head["expect"]["result"] == "error":
            return "error", None, detail
        return None, "input the apiserver rejects: " + "; ".join(
            m for m in msgs if m.split(":")[0] in SCHEMA_RULES)[:300], ""
    if rules & UNSAT_RULES:
        return ("error" if rules & POOL_RULES else "unsatisfiable"), None, \
            detail
    if silent and head["expect"]["result"] != "allocated":
        return None, silent, ""
    return "allocated", None, detail


def load_known():
    known = {}
    path = os.path.join(HERE, "known.txt")
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line and not line.startswith("#"):
                    case, _, why = line.partition(" ")
                    known[case] = why.strip()
    return known


def main():
    strict = "--all" in sys.argv[1:]
    known = {} if strict else load_known()
    npass = nfail = nskip = agree = disagree = 0
    seen = set()
    with tempfile.TemporaryDirectory() as tmp:
        for fname, head, objs in scenarios():
            case = head["case"]
            seen.add(case)
            want = head["expect"]["result"]
            got, skip, detail = judge(head, objs, tmp)
            if skip:
                print("skipped: %s: %s" % (case, skip))
                nskip += 1
                continue
            ok = got == want
            agree += ok
            disagree += not ok
            if case in known:
                if ok:
                    print("FAIL %s: listed in known.txt but agrees (%s)"
                          % (case, want))
                    nfail += 1
                else:
                    print("skipped: %s: known disagreement: %s"
                          % (case, known[case]))
                    nskip += 1
                continue
            if ok:
                npass += 1
            else:
                print("FAIL %s (%s): kubernetes %s%s, claimcheck %s%s"
                      % (case, fname, want,
                         " (%s)" % head["expect"]["error"]
                         if want == "error" else "", got,
                         " [%s]" % detail if detail else ""))
                nfail += 1
    for case in sorted(set(known) - seen):
        print("FAIL %s: listed in known.txt but no such scenario" % case)
        nfail += 1
    print("agreement: %d of %d applicable scenarios agree, %d disagree"
          % (agree, agree + disagree, disagree))
    print("%d passed, %d failed, %d skipped" % (npass, nfail, nskip))
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main())
