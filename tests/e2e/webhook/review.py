#!/usr/bin/env python3
"""review.py GROUP KIND OP [NS] [UID] - prints an AdmissionReview v1 for a
minimal valid object of that kind (OP CREATE/UPDATE/DELETE/CONNECT)."""
import json
import sys

group, kind, op = sys.argv[1:4]
ns = sys.argv[4] if len(sys.argv) > 4 else "default"
uid = sys.argv[5] if len(sys.argv) > 5 else "uid-%s-%s" % (kind, op)
pod_spec = {"containers": [{"name": "c", "image": "busybox"}]}
template = {"metadata": {"labels": {"app": "x"}}, "spec": pod_spec}
spec = {
    "Pod": pod_spec,
    "ReplicationController": {"replicas": 1, "template": template},
    "Deployment": {"replicas": 1, "template": template},
    "ReplicaSet": {"replicas": 1, "template": template},
    "StatefulSet": {"replicas": 1, "template": template},
    "DaemonSet": {"template": template},
    "Job": {"template": template},
    "CronJob": {"schedule": "* * * * *",
                "jobTemplate": {"spec": {"template": template}}},
    "ResourceClaim": {"devices": {"requests": [
        {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}},
    "ResourceClaimTemplate": {"spec": {"devices": {"requests": [
        {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}}},
    "DeviceClass": {"selectors": [{"cel": {
        "expression": "device.driver == 'gpu.example.com'"}}]},
    "ConfigMap": None,
}.get(kind)
api = (group + "/" if group else "") + (
    "v1" if group in ("", "apps", "batch", "resource.k8s.io") else "v1")
obj = {"apiVersion": api, "kind": kind,
       "metadata": {"name": kind.lower() + "-x"}}
if kind != "DeviceClass":
    obj["metadata"]["namespace"] = ns
if spec is not None:
    obj["spec"] = spec
else:
    obj["data"] = {"a": "b"}
req = {"uid": uid, "kind": {"group": group, "version": "v1", "kind": kind},
       "operation": op, "name": obj["metadata"]["name"],
       "userInfo": {"username": "e2e"}, "dryRun": op == "UPDATE"}
if kind != "DeviceClass":
    req["namespace"] = ns
if op in ("CREATE", "UPDATE"):
    req["object"] = obj
if op in ("UPDATE", "DELETE"):
    req["oldObject"] = obj
if op == "DELETE":
    req["object"] = None
print(json.dumps({"apiVersion": "admission.k8s.io/v1",
                  "kind": "AdmissionReview", "request": req}))
