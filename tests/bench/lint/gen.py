#!/usr/bin/env python3
"""gen.py N OUT [MIX] - a multi-document manifest of N documents for the
lint benchmark. MIX:
  dra   (default) Pods, Deployments, ResourceClaims, ResourceClaimTemplates,
        DeviceClasses and Namespaces in realistic proportions and shapes
  repo  a repository-like stream: Deployments, Services, ConfigMaps,
        ResourceClaims and Jobs in turn
  tiny  tiny documents: ConfigMaps of a name, Pods of a name, and empty
        documents (`---` alone) in turn"""
import random, sys

n, out = int(sys.argv[1]), sys.argv[2]
mix = sys.argv[3] if len(sys.argv) > 3 else "dra"
rnd = random.Random(42)
models = ["A100", "H100", "L40S", "MI300X", "T4"]

def ns(i): return "team-%d" % (i % 20)

def pod(i, kind="Pod"):
    # a template of the pod's own namespace (templates: see template())
    claim = "tmpl-%d" % (i // 100)
    body = """  containers:
  - name: worker
    image: registry.example.com/ml/trainer:%d.%d
    command: ["python", "-m", "train", "--epochs", "%d"]
    env:
    - name: MODEL
      value: %s
    - name: BATCH
      value: "%d"
    resources:
      requests:
        cpu: "%d"
        memory: %dGi
      limits:
        memory: %dGi
      claims:
      - name: gpu
  resourceClaims:
  - name: gpu
    resourceClaimTemplateName: %s
  tolerations:
  - key: nvidia.com/gpu
    operator: Exists
    effect: NoSchedule
""" % (i % 7, i % 13, 10 + i % 90, rnd.choice(models), 2 ** (i % 8), 1 + i % 16,
       4 + i % 60, 8 + i % 60, claim)
    meta = """metadata:
  name: %s-%d
  namespace: %s
  labels:
    app.kubernetes.io/name: trainer
    app.kubernetes.io/instance: run-%d
  annotations:
    team.example.com/owner: owner-%d@example.com
""" % (kind.lower(), i, ns(i), i, i % 300)
    if kind == "Pod":
        return "apiVersion: v1\nkind: Pod\n" + meta + "spec:\n" + body
    ind = "\n".join("      " + l if l else l for l in body.split("\n"))
    return ("apiVersion: apps/v1\nkind: Deployment\n" + meta +
            "spec:\n  replicas: %d\n  selector:\n    matchLabels:\n      app: t%d\n"
            "  template:\n    metadata:\n      labels:\n        app: t%d\n    spec:\n%s\n"
            % (1 + i % 3, i, i, ind.rstrip()))

def request_body(i, ind):
    sel = ('device.attributes["gpu.example.com"].model == "%s" && '
           'device.capacity["gpu.example.com"].memory.compareTo(quantity("%dGi")) >= 0'
           % (rnd.choice(models), 16 * (1 + i % 5)))
    return ("devices:\n  requests:\n  - name: gpu\n    exactly:\n"
            "      deviceClassName: gpu.example.com\n      count: %d\n"
            "      selectors:\n      - cel:\n          expression: '%s'\n"
            "  constraints:\n  - requests: [gpu]\n"
            "    matchAttribute: resource.kubernetes.io/pcieRoot\n") % (1 + i % 2, sel.replace("'", "''"))

def indent(text, k):
    return "\n".join((" " * k + l) if l else l for l in text.split("\n"))

def claim(i):
    return ("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n"
            "  name: claim-%d\n  namespace: %s\nspec:\n%s" % (i, ns(i), indent(request_body(i, 2), 2)))

def template(i):
    return ("apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata:\n"
            "  name: tmpl-%d\n  namespace: %s\nspec:\n  spec:\n%s"
            % (i // 100, ns(i), indent(request_body(i, 4), 4)))

def dclass(i):
    return ("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: class-%d.example.com\n"
            "spec:\n  selectors:\n  - cel:\n      expression: device.driver == \"gpu.example.com\"\n"
            "  - cel:\n      expression: device.attributes[\"gpu.example.com\"].model == \"%s\"\n"
            % (i, rnd.choice(models)))

def namespace(i):
    return "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns-%d\n  labels:\n    team: t%d\n" % (i, i % 9)

def web(i):
    return """apiVersion: apps/v1
kind: Deployment
metadata:
  name: web-%d
  namespace: %s
  labels:
    app: web-%d
spec:
  replicas: 2
  selector:
    matchLabels:
      app: web-%d
  template:
    metadata:
      labels:
        app: web-%d
    spec:
      containers:
      - name: app
        image: registry.example.com/web:%d
        ports:
        - containerPort: 8080
        env:
        - name: MODE
          value: prod
        resources:
          requests:
            cpu: 100m
            memory: 128Mi
""" % (i, ns(i), i, i, i, i)

def service(i):
    return """apiVersion: v1
kind: Service
metadata:
  name: web-%d
  namespace: %s
spec:
  selector:
    app: web-%d
  ports:
  - port: 80
    targetPort: 8080
""" % (i, ns(i), i)

def configmap(i):
    return """apiVersion: v1
kind: ConfigMap
metadata:
  name: cfg-%d
  namespace: %s
data:
  app.properties: |
    key.a=%d
    key.b=value-%d
  level: info
""" % (i, ns(i), i, i)

def job(i):
    return """apiVersion: batch/v1
kind: Job
metadata:
  name: job-%d
  namespace: %s
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: run
        image: registry.example.com/batch:%d
        command: ["run", "--id", "%d"]
""" % (i, ns(i), i, i)

def tiny_configmap(i):
    return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c%d\n" % i

def tiny_pod(i):
    return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p%d\n" % i

if mix == "repo":
    makers = [(web, 1), (service, 1), (configmap, 1), (claim, 1), (job, 1)]
elif mix == "tiny":
    makers = [(tiny_configmap, 1), (tiny_pod, 1), (lambda i: "", 1)]
else:
    makers = [(pod, 40), (lambda i: pod(i, "Deployment"), 10), (template, 20),
              (claim, 20), (dclass, 5), (namespace, 5)]
table = [m for m, w in makers for _ in range(w)]
with open(out, "w") as f:
    for i in range(n):
        f.write(table[i % len(table)](i).rstrip("\n") + "\n---\n")
