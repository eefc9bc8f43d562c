#!/usr/bin/env python3
"""gen.py OUTDIR NODES [CLAIMS] - the scale benchmark's input.

inventory/NNN.yaml: NODES Nodes (16 zones, racks of 32; 5,000 nodes a
file, well under the 256 MiB input limit), each with two v1
ResourceSlices as DRA drivers publish them on an AI cluster:
 - gpu.nvidia.com: 8 GPUs (four models across nodes), each with the
   attributes the NVIDIA driver publishes (type, uuid, productName, brand,
   architecture, driverVersion, cudaComputeCapability, cudaDriverVersion,
   index, minor, pcieBusID, resource.kubernetes.io/pcieRoot) and capacity
   (memory, multiprocessors), ~1% tainted;
 - nic.example.com: 4 RDMA NICs (ifName, rdma, linkSpeed, pcieRoot,
   firmware) with a bandwidth capacity;
two DeviceClasses and 20 ResourceClaimTemplates (namespace ml).
claims.yaml: CLAIMS ResourceClaims (default 1,000): a GPU count, a GPU
model or memory selector, now and then a NIC on the GPUs' PCIe root
(matchAttribute), a few unsatisfiable on purpose.
pods.yaml: CLAIMS Pods, each with a claim from a template, half of them
with a zone nodeSelector.
Output is deterministic for a given NODES and CLAIMS.
"""
import os
import random
import sys

out = sys.argv[1]
nodes = int(sys.argv[2])
nclaims = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
rnd = random.Random(17)
MODELS = [("NVIDIA H100 80GB HBM3", "Hopper", "80Gi", "9.0", 132),
          ("NVIDIA A100-SXM4-80GB", "Ampere", "80Gi", "8.0", 108),
          ("NVIDIA L40S", "Ada Lovelace", "48Gi", "8.9", 142),
          ("NVIDIA B200", "Blackwell", "180Gi", "10.0", 148)]
G = "gpu.nvidia.com"
N = "nic.example.com"
R = "resource.kubernetes.io/pcieRoot"
PER_FILE = 5000



def slice_head(node, driver, suffix):
    """a node-local ResourceSlice up to its devices, as a driver names it"""
    return f"""---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: {node}-{driver}-{suffix}
spec:
  driver: {driver}
  nodeName: {node}
  pool: {{name: {node}, generation: 1, resourceSliceCount: 1}}
  devices:
"""


os.makedirs(f"{out}/inventory", exist_ok=True)
w = open(f"{out}/inventory/000.yaml", "w")
for cls, drv in (("gpu", G), ("nic", N)):
    w.write(f"""---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: {cls}.example.com
spec:
  selectors:
  - cel:
      expression: device.driver == '{drv}'
""")
for n in range(nodes):
    if n and n % PER_FILE == 0:
        w.close()
        w = open(f"{out}/inventory/{n // PER_FILE:03d}.yaml", "w")
    name = f"node-{n:05d}"
    model, arch, mem, cc, sms = MODELS[(n * 7 + n // 13) % len(MODELS)]
    w.write(f"""---
apiVersion: v1
kind: Node
metadata:
  name: {name}
  labels:
    kubernetes.io/hostname: {name}
    topology.kubernetes.io/zone: zone-{n % 16}
    nvidia.com/gpu.product: {model.replace(' ', '-')}
    example.com/rack: "{n // 32}"
""")
    w.write(slice_head(name, G, "x7k2p"))
    for i in range(8):
        taint = ""
        if rnd.random() < 0.01:
            taint = ("\n    taints:\n    - {key: nvidia.com/gpu-xid, value: "
                     "\"79\", effect: NoSchedule}")
        w.write(f"""  - name: gpu-{i}
    attributes:
      type: {{string: gpu}}
      uuid: {{string: GPU-{rnd.getrandbits(128):032x}}}
      productName: {{string: {model}}}
      brand: {{string: Nvidia}}
      architecture: {{string: {arch}}}
      driverVersion: {{version: 550.{54 + n % 3}.15}}
      cudaComputeCapability: {{version: {cc}.0}}
      cudaDriverVersion: {{version: 12.4.0}}
      index: {{int: {i}}}
      minor: {{int: {i}}}
      pcieBusID: {{string: "0000:{0x18 + i * 0x10:02x}:00.0"}}
      {R}: {{string: pci0000:{i // 2 * 0x40:02x}}}
    capacity:
      memory: {{value: {mem}}}
      multiprocessors: {{value: "{sms}"}}{taint}
""")
    w.write(slice_head(name, N, "q9w4d"))
    for i in range(4):
        w.write(f"""  - name: nic-{i}
    attributes:
      ifName: {{string: ens{i + 1}np0}}
      rdma: {{bool: true}}
      linkSpeed: {{int: 400}}
      firmware: {{version: 28.39.1002}}
      {R}: {{string: pci0000:{i * 0x40:02x}}}
    capacity:
      bandwidth: {{value: 400G}}
""")


def exactly(name, cls, count=None, sel=None):
    """one request of a claim: count devices of class cls matching sel"""
    s = f"- name: {name}\n  exactly:\n    deviceClassName: {cls}\n"
    if count:
        s += f"    count: {count}\n"
    if sel:
        s += f"    selectors:\n    - cel:\n        expression: {sel}\n"
    return s


def claim_spec(k, indent):
    model, _, mem, _, _ = MODELS[k % len(MODELS)]
    gpu = "gpu.example.com"
    shape = k % 6
    if shape == 0:
        req = exactly("gpu", gpu, 1,
                      f"device.attributes['{G}'].productName == '{model}'")
    elif shape == 1:
        req = exactly("gpu", gpu, 2, f"device.capacity['{G}'].memory"
                      f".compareTo(quantity('{mem}')) >= 0")
    elif shape == 2:
        req = exactly("gpu", gpu, 2) + exactly(
            "nic", "nic.example.com", None,
            f"device.attributes['{N}'].rdma && "
            f"device.attributes['{N}'].linkSpeed >= 200")
        return wrap(req, "- matchAttribute: " + R, indent)
    elif shape == 3:
        req = exactly("gpu", gpu, 4, f"device.attributes['{G}']"
                      ".cudaComputeCapability.isGreaterThan(semver('8.5.0'))")
    elif shape == 4:
        req = f"""- name: gpu
  firstAvailable:
  - name: b200
    deviceClassName: {gpu}
    count: 8
    selectors:
    - cel:
        expression: device.attributes['{G}'].architecture == 'Blackwell'
  - name: any
    deviceClassName: {gpu}
    count: 8
"""
    else:   # unsatisfiable: three GPUs on one PCIe root (two per root)
        return wrap(exactly("gpu", gpu, 3), "- matchAttribute: " + R, indent)
    return wrap(req, None, indent)


def wrap(req, cons, indent):
    s = "devices:\n  requests:\n" + "".join("  " + l + "\n"
                                             for l in req.splitlines())
    if cons:
        s += "  constraints:\n  " + cons + "\n"
    return "".join(" " * indent + l + "\n" for l in s.splitlines())


for t in range(20):
    w.write(f"""---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: tmpl-{t}
  namespace: ml
spec:
  spec:
{claim_spec(t, 4)}""")
w.close()

with open(f"{out}/claims.yaml", "w") as c:
    for k in range(nclaims):
        c.write(f"""---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: claim-{k}
  namespace: ml
spec:
{claim_spec(k, 2)}""")

with open(f"{out}/pods.yaml", "w") as p:
    for k in range(nclaims):
        place = ""
        if k % 2:
            place = f"  nodeSelector:\n    topology.kubernetes.io/zone: zone-{k % 16}\n"
        p.write(f"""---
apiVersion: v1
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
