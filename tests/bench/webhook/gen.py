#!/usr/bin/env python3
"""gen.py - benchmark inputs.
  gen.py review OUT        a realistic ~2.5 KB Pod AdmissionReview
  gen.py inventory OUT N   N Nodes, one ResourceSlice per node (4 GPUs),
                           DeviceClass gpu.nvidia.com, a claim template"""
import json
import sys


def review(out):
    pod = {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {
            "name": "trainer-7c9f8d6b5-x2k4q", "namespace": "ml",
            "generateName": "trainer-7c9f8d6b5-",
            "labels": {"app": "trainer", "pod-template-hash": "7c9f8d6b5",
                       "team": "research", "tier": "batch"},
            "annotations": {"kubectl.kubernetes.io/restartedAt":
                            "2026-11-29T10:00:00Z",
                            "prometheus.io/scrape": "true",
                            "prometheus.io/port": "9090"},
            "ownerReferences": [{"apiVersion": "apps/v1",
                                 "kind": "ReplicaSet",
                                 "name": "trainer-7c9f8d6b5",
                                 "uid": "3f2a1b4c-5d6e-7f80-9a1b-2c3d4e5f6a7b",
                                 "controller": True,
                                 "blockOwnerDeletion": True}]},
        "spec": {
            "serviceAccountName": "trainer",
            "nodeSelector": {"nvidia.com/gpu.present": "true"},
            "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists",
                             "effect": "NoSchedule"}],
            "resourceClaims": [{"name": "gpu",
                                "resourceClaimTemplateName": "single-gpu"}],
            "containers": [{
                "name": "train",
                "image": "registry.example.com/ml/train:1.4.2",
                "command": ["python", "-m", "train", "--epochs", "40"],
                "env": [{"name": "NCCL_DEBUG", "value": "INFO"},
                        {"name": "MODEL", "value": "resnet152"},
                        {"name": "DATA", "value": "/data/imagenet"}],
                "ports": [{"containerPort": 9090, "name": "metrics"}],
                "resources": {"requests": {"cpu": "4", "memory": "16Gi"},
                              "limits": {"cpu": "8", "memory": "32Gi"},
                              "claims": [{"name": "gpu"}]},
                "volumeMounts": [{"name": "data", "mountPath": "/data"},
                                 {"name": "shm", "mountPath": "/dev/shm"}]},
                {"name": "sidecar", "image": "registry.example.com/log:2.1",
                 "resources": {"requests": {"cpu": "100m",
                                            "memory": "64Mi"}}}],
            "volumes": [{"name": "data", "persistentVolumeClaim":
                         {"claimName": "imagenet"}},
                        {"name": "shm", "emptyDir": {"medium": "Memory"}}]}}
    r = {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
         "request": {
             "uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
             "kind": {"group": "", "version": "v1", "kind": "Pod"},
             "resource": {"group": "", "version": "v1", "resource": "pods"},
             "requestKind": {"group": "", "version": "v1", "kind": "Pod"},
             "requestResource": {"group": "", "version": "v1",
                                 "resource": "pods"},
             "name": "trainer-7c9f8d6b5-x2k4q", "namespace": "ml",
             "operation": "CREATE",
             "userInfo": {"username": "system:serviceaccount:kube-system:"
                          "replicaset-controller",
                          "uid": "a1b2c3d4-e5f6-4a5b-8c9d-0e1f2a3b4c5d",
                          "groups": ["system:serviceaccounts",
                                     "system:serviceaccounts:kube-system",
                                     "system:authenticated"]},
             "object": pod, "oldObject": None, "dryRun": False,
             "options": {"apiVersion": "meta.k8s.io/v1",
                         "kind": "CreateOptions"}}}
    open(out, "w").write(json.dumps(r))


def inventory(out, n):
    docs = [{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
             "metadata": {"name": "gpu.nvidia.com"},
             "spec": {"selectors": [{"cel": {"expression":
                      "device.driver == 'gpu.nvidia.com'"}}]}},
            {"apiVersion": "resource.k8s.io/v1",
             "kind": "ResourceClaimTemplate",
             "metadata": {"name": "single-gpu", "namespace": "ml"},
             "spec": {"spec": {"devices": {"requests": [
                 {"name": "gpu", "exactly": {
                     "deviceClassName": "gpu.nvidia.com"}}]}}}},
            {"apiVersion": "v1", "kind": "Namespace",
             "metadata": {"name": "ml"}}]
    for i in range(n):
        node = "node-%05d" % i
        docs.append({"apiVersion": "v1", "kind": "Node",
                     "metadata": {"name": node, "labels": {
                         "kubernetes.io/hostname": node,
                         "nvidia.com/gpu.present": "true"}},
                     "status": {"capacity": {"cpu": "64"},
                                "allocatable": {"cpu": "63"}}})
        docs.append({"apiVersion": "resource.k8s.io/v1",
                     "kind": "ResourceSlice",
                     "metadata": {"name": node + "-gpu"},
                     "spec": {"driver": "gpu.nvidia.com", "nodeName": node,
                              "pool": {"name": node, "generation": 1,
                                       "resourceSliceCount": 1},
                              "devices": [{"name": "gpu-%d" % g,
                                           "attributes": {
                                               "model": {"string": "A100"},
                                               "index": {"int": g}},
                                           "capacity": {"memory": {
                                               "value": "80Gi"}}}
                                          for g in range(4)]}})
    with open(out, "w") as f:
        f.write(json.dumps({"apiVersion": "v1", "kind": "List",
                            "items": docs}))


if __name__ == "__main__":
    if sys.argv[1] == "review":
        review(sys.argv[2])
    else:
        inventory(sys.argv[2], int(sys.argv[3]))
