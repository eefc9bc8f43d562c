#!/usr/bin/env python3
"""gen.py OUTDIR [NODES] [OBJECTS] - the allocator benchmark's input.

inventory.yaml: NODES Nodes (10 zones) with one v1 ResourceSlice each of 8
GPUs on two PCIe roots (4+4), mixed models across nodes, ~1% of devices
tainted; a DeviceClass; 20 ResourceClaimTemplates.
objects.yaml: OBJECTS objects, half ResourceClaims, half Pods using the
templates with nodeSelectors / node affinity. A few are unsatisfiable on
purpose (5 GPUs on one PCIe root) so that the failure path is measured too.
"""
import random
import sys

out = sys.argv[1]
nodes = int(sys.argv[2]) if len(sys.argv) > 2 else 5000
nobj = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
rnd = random.Random(5)
MODELS = [("NVIDIA A100-SXM4-80GB", "80Gi", "8.0"), ("NVIDIA H100 80GB HBM3", "80Gi", "9.0"),
          ("NVIDIA L40S", "48Gi", "8.9"), ("NVIDIA A10", "24Gi", "8.6")]
D = "gpu.nvidia.com"

inv = []
inv.append(f"""apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: {D}
spec:
  selectors:
  - cel:
      expression: device.driver == '{D}' && device.attributes['{D}'].type == 'gpu'
""")
for n in range(nodes):
    name = f"gpu-node-{n:05d}"
    model, mem, cc = MODELS[(n * 7 + n // 13) % len(MODELS)]
    zone = f"zone-{n % 10}"
    inv.append(f"""apiVersion: v1
kind: Node
metadata:
  name: {name}
  labels:
    kubernetes.io/hostname: {name}
    topology.kubernetes.io/zone: {zone}
    nvidia.com/gpu.product: {model.replace(' ', '-')}
    example.com/rack: "{n // 40}"
""")
    devs = []
    for i in range(8):
        taint = ""
        if rnd.random() < 0.01:
            taint = "\n    taints:\n    - {key: nvidia.com/gpu-xid, value: \"79\", effect: NoSchedule}"
        devs.append(f"""  - name: gpu-{i}
    attributes:
      type: {{string: gpu}}
      productName: {{string: {model}}}
      index: {{int: {i}}}
      uuid: {{string: GPU-{rnd.getrandbits(64):016x}}}
      driverVersion: {{version: 550.{54 + n % 3}.15}}
      cudaComputeCapability: {{version: {cc}.0}}
      resource.kubernetes.io/pcieRoot: {{string: pci0000:{0 if i < 4 else 0x80:02x}}}
    capacity:
      memory: {{value: {mem}}}{taint}
""")
    inv.append(f"""apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: {name}-{D}
spec:
  driver: {D}
  nodeName: {name}
  pool: {{name: {name}, generation: 1, resourceSliceCount: 1}}
  devices:
""" + "".join(devs))

SHAPES = [
    ("count: 1", f"device.attributes['{D}'].productName == '{{model}}'", None),
    ("count: 2", f"device.capacity['{D}'].memory.compareTo(quantity('{{mem}}')) >= 0",
     "- matchAttribute: resource.kubernetes.io/pcieRoot"),
    ("count: 4", f"device.attributes['{D}'].cudaComputeCapability.isGreaterThan(semver('8.5.0'))",
     "- matchAttribute: resource.kubernetes.io/pcieRoot"),
    ("allocationMode: All", f"device.attributes['{D}'].productName == '{{model}}'", None),
    ("count: 2", f"device.attributes['{D}'].driverVersion.isGreaterThan(semver('550.54.0'))",
     "- distinctAttribute: resource.kubernetes.io/pcieRoot"),
    ("count: 5", f"device.attributes['{D}'].productName == '{{model}}'",
     "- matchAttribute: resource.kubernetes.io/pcieRoot"),   # unsatisfiable
]

def spec(k, indent):
    shape, sel, cons = SHAPES[k % len(SHAPES)]
    model, mem, _ = MODELS[k % len(MODELS)]
    sel = sel.format(model=model, mem=["24Gi", "40Gi", "48Gi", "80Gi"][k % 4])
    if k % 7 == 3:      # a prioritized list now and then
        body = f"""- name: gpu
  firstAvailable:
  - name: h100
    deviceClassName: {D}
    count: 2
    selectors:
    - cel:
        expression: device.attributes['{D}'].productName == 'NVIDIA H100 80GB HBM3'
  - name: any
    deviceClassName: {D}
    count: 4
"""
    else:
        body = f"""- name: gpu
  exactly:
    deviceClassName: {D}
    {shape}
    selectors:
    - cel:
        expression: "{sel}"
"""
    s = "devices:\n  requests:\n" + "\n".join("  " + l for l in body.splitlines()) + "\n"
    if cons:
        s += "  constraints:\n  " + cons + "\n"
    return "\n".join(" " * indent + l for l in s.splitlines()) + "\n"

for t in range(20):
    inv.append(f"""apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: tmpl-{t}
  namespace: ml
spec:
  spec:
{spec(t, 4)}""")
open(f"{out}/inventory.yaml", "w").write("---\n".join(inv))

objs = []
for k in range(nobj):
    if k % 2 == 0:
        objs.append(f"""apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: claim-{k}
  namespace: ml
spec:
{spec(k // 2, 2)}""")
    else:
        place = ""
        if k % 3 == 0:
            place = f"  nodeSelector:\n    topology.kubernetes.io/zone: zone-{k % 10}\n"
        elif k % 3 == 1:
            place = f"""  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
          - {{key: example.com/rack, operator: Lt, values: ["{10 + k % 100}"]}}
          - {{key: topology.kubernetes.io/zone, operator: NotIn, values: [zone-0]}}
"""
        objs.append(f"""apiVersion: v1
kind: Pod
metadata:
  name: pod-{k}
  namespace: ml
spec:
{place}  resourceClaims:
  - name: gpu
    resourceClaimTemplateName: tmpl-{k % 20}
  containers:
  - name: main
    image: registry.example.com/train:1.0
    resources:
      claims:
      - name: gpu
""")
open(f"{out}/objects.yaml", "w").write("---\n".join(objs))
