#!/usr/bin/env python3
"""mix.py - the request mix of tests/bench/soak/run.sh.

  mix.py OUTDIR
      writes OUTDIR/NN-<kind>.json (one AdmissionReview each) and
      OUTDIR/expect.tsv ("file<TAB>decision": allow, deny or warn, what the
      webhook must answer with the inventory of
      tests/bench/webhook/gen.py)
      (the bodies carry @@N@@ placeholders, see UID below)
  mix.py check EXPECT FILE RESPONSE_JSON
      exits 0 if the response carries the expected decision, else prints
      why and exits 1

The kinds: a Pod that is allowed (claim template -> DeviceClass
gpu.nvidia.com, satisfiable on the inventory), a Pod that is denied (an
extended resource without a limit), a Pod allowed with warnings (a declared
claim no container uses), a Deployment, a ResourceClaim with a CEL selector
evaluated against every GPU of the inventory, a ResourceClaimTemplate, a
DeviceClass, a DELETE and an unchecked kind (ConfigMap).
"""
import json
import os
import sys

UID = "5a0c%04d-6393-11e8-b7cc-@@N@@"
# @@N@@ is replaced by wrk (run.sh's Lua) with a per-request counter: every
# review has its own uid and object name, as the Pods of a ReplicaSet do;
# pod-allowed also carries it in an annotation, so its spec is new every
# time (the verdict cache misses and replaces slots), the others repeat.


def review(n, group, kind, op, obj, ns="ml"):
    req = {"uid": UID % n,
           "kind": {"group": group, "version": "v1", "kind": kind},
           "resource": {"group": group, "version": "v1",
                        "resource": kind.lower() + "s"},
           "operation": op, "namespace": ns,
           "name": (obj or {}).get("metadata", {}).get("name", "gone"),
           "userInfo": {"username": "system:serviceaccount:kube-system:"
                        "replicaset-controller",
                        "groups": ["system:serviceaccounts",
                                   "system:authenticated"]},
           "object": obj, "oldObject": None, "dryRun": False}
    if op == "DELETE":
        req["oldObject"], req["object"] = obj, None
    if kind in ("DeviceClass",):
        del req["namespace"]
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
            "request": req}


def container(name, res=None, claims=None):
    c = {"name": name, "image": "registry.example.com/ml/%s:1.4.2" % name,
         "command": ["python", "-m", name],
         "env": [{"name": "NCCL_DEBUG", "value": "INFO"}],
         "resources": res or {"requests": {"cpu": "1", "memory": "2Gi"},
                              "limits": {"cpu": "2", "memory": "4Gi"}}}
    if claims:
        c["resources"]["claims"] = [{"name": n} for n in claims]
    return c


def pod(name, containers, claims=None):
    spec = {"containers": containers,
            "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists",
                             "effect": "NoSchedule"}]}
    if claims:
        spec["resourceClaims"] = claims
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name + "-@@N@@", "namespace": "ml",
                         "labels": {"app": name}},
            "spec": spec}


def mix():
    tmpl_claim = [{"name": "gpu", "resourceClaimTemplateName": "single-gpu"}]
    gpu_selector = {"cel": {"expression":
                            "device.attributes['gpu.nvidia.com'].model == "
                            "'A100' && device.capacity['gpu.nvidia.com']"
                            ".memory.compareTo(quantity('40Gi')) >= 0"}}
    out = []
    p = pod("trainer", [container("train", claims=["gpu"]),
                        container("sidecar")], tmpl_claim)
    p["metadata"]["annotations"] = {"soak.claimcheck.dev/revision": "@@N@@"}
    out.append(("pod-allowed", "allow", review(1, "", "Pod", "CREATE", p)))
    p = pod("plugin-user", [container("train", res={
        "requests": {"cpu": "1", "nvidia.com/gpu": "1"}})])
    out.append(("pod-denied", "deny", review(2, "", "Pod", "CREATE", p)))
    p = pod("unused-claim", [container("train")], tmpl_claim)
    out.append(("pod-warnings", "warn", review(3, "", "Pod", "CREATE", p)))
    d = {"apiVersion": "apps/v1", "kind": "Deployment",
         "metadata": {"name": "inference-@@N@@", "namespace": "ml"},
         "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "inf"}},
                  "template": {"metadata": {"labels": {"app": "inf"}},
                               "spec": pod("x", [container(
                                   "serve", claims=["gpu"])],
                                   tmpl_claim)["spec"]}}}
    out.append(("deployment", "allow",
                review(4, "apps", "Deployment", "CREATE", d)))
    c = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
         "metadata": {"name": "big-gpu-@@N@@", "namespace": "ml"},
         "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
             "deviceClassName": "gpu.nvidia.com",
             "selectors": [gpu_selector]}}]}}}
    out.append(("resourceclaim", "allow",
                review(5, "resource.k8s.io", "ResourceClaim", "CREATE", c)))
    t = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
         "metadata": {"name": "two-gpus-@@N@@", "namespace": "ml"},
         "spec": {"spec": {"devices": {"requests": [{"name": "gpus",
                  "exactly": {"deviceClassName": "gpu.nvidia.com",
                              "count": 2}}]}}}}
    out.append(("resourceclaimtemplate", "allow",
                review(6, "resource.k8s.io", "ResourceClaimTemplate",
                       "CREATE", t)))
    dc = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
          "metadata": {"name": "a100-@@N@@.nvidia.com"},
          "spec": {"selectors": [
              {"cel": {"expression": "device.driver == 'gpu.nvidia.com'"}},
              gpu_selector]}}
    out.append(("deviceclass", "allow",
                review(7, "resource.k8s.io", "DeviceClass", "CREATE", dc)))
    out.append(("delete", "allow", review(8, "", "Pod", "DELETE", p)))
    cm = {"apiVersion": "v1", "kind": "ConfigMap",
          "metadata": {"name": "settings-@@N@@", "namespace": "ml"},
          "data": {"a": "b" * 200}}
    out.append(("unchecked-configmap", "allow",
                review(9, "", "ConfigMap", "CREATE", cm)))
    return out


def decision(resp):
    r = resp["response"]
    if not r.get("allowed"):
        return "deny"
    return "warn" if r.get("warnings") else "allow"


def main():
    if sys.argv[1] == "check":
        want = sys.argv[2]
        try:
            got = decision(json.loads(open(sys.argv[4]).read()))
        except (ValueError, KeyError, TypeError) as e:
            print("%s: not an AdmissionReview answer (%s)" % (sys.argv[3], e))
            sys.exit(1)
        if got != want:
            print("%s: expected %s, got %s: %s" % (
                sys.argv[3], want, got, open(sys.argv[4]).read()[:300]))
            sys.exit(1)
        return
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "expect.tsv"), "w") as ex:
        for i, (name, want, body) in enumerate(mix(), 1):
            fn = "%02d-%s.json" % (i, name)
            with open(os.path.join(outdir, fn), "w") as f:
                f.write(json.dumps(body))
            ex.write("%s\t%s\n" % (fn, want))


if __name__ == "__main__":
    main()
