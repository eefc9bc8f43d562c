#!/usr/bin/env python3
"""gen.py - the costly dry-run ResourceClaim of issue 16 (item 2).
  gen.py claim OUT SEED [NREQ NSEL [NAME]]
                                     an AdmissionReview of one dry-run
                                     ResourceClaim: NREQ requests (32) x
                                     NSEL selectors (32) of nested
                                     comprehensions over 60-element lists,
                                     each within Kubernetes' per-expression
                                     cost limit (about 450 KB at 32 x 32);
                                     SEED makes every selector distinct
                                     from other seeds' (no cached result
                                     helps); NAME (costly-SEED) names the
                                     claim and the request's uid
Inventories come from ../webhook/gen.py inventory."""
import json
import sys


def claim(out, seed, nreq=32, nsel=32, name=None):
    lst = "[" + ",".join(str(i) for i in range(1, 61)) + "]"
    name = name or "costly-%d" % seed
    reqs = []
    for r in range(nreq):
        sels = [{"cel": {"expression":
                         "%s.all(x, %s.all(y, x * y > %d && "
                         "device.driver != ''))"
                         % (lst, lst, -(seed * 100000 + r * 100 + k))}}
                for k in range(nsel)]
        reqs.append({"name": "r%d" % r, "exactly": {
            "deviceClassName": "gpu.nvidia.com", "selectors": sels}})
    review = {
        "apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
        "request": {
            "uid": name, "operation": "CREATE",
            "namespace": "ml", "dryRun": True,
            "kind": {"group": "resource.k8s.io", "version": "v1",
                     "kind": "ResourceClaim"},
            "resource": {"group": "resource.k8s.io", "version": "v1",
                         "resource": "resourceclaims"},
            "object": {"apiVersion": "resource.k8s.io/v1",
                       "kind": "ResourceClaim",
                       "metadata": {"name": name,
                                    "namespace": "ml"},
                       "spec": {"devices": {"requests": reqs}}}}}
    with open(out, "w") as f:
        json.dump(review, f)


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "claim":
        claim(sys.argv[2], int(sys.argv[3]),
              *(int(a) for a in sys.argv[4:6]), *sys.argv[6:7])
    else:
        sys.exit(__doc__)
