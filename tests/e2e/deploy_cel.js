// deploy_cel.js - the webhook configuration's matchConditions, compiled and
// evaluated with @bufbuild/cel (a conformance-tested CEL implementation).
// Usage: node deploy_cel.js WEBHOOK.yaml [CLAIMCHECK]
// With CLAIMCHECK (a claimcheck binary that has `cel`), every condition is
// also evaluated by the project's own CEL engine and must agree.
// Kubernetes binds `object`, `oldObject` and `request` as dynamically typed
// values (unstructured maps), so they are bound here as CEL maps built from
// sample JSON objects. For each sample the expected decision is "sent to
// the webhook" (every condition true) or "skipped" (some condition false);
// a condition that errors is a failure of the test for every sample
// (with failurePolicy Fail an error rejects the request; with Ignore it
// silently skips a manifest that should have been checked).
// Prints "ok NAME" / "FAIL NAME: why" lines and "N passed, N failed".
"use strict";
const fs = require("fs");
const yaml = require("js-yaml");
const { parse, run } = require("@bufbuild/cel");

let pass = 0, fail = 0;
const check = (name, cond, why) => {
  if (cond) { pass++; console.log("ok " + name); }
  else { fail++; console.log("FAIL " + name + (why ? ": " + why : "")); }
};

// JSON -> CEL input: objects become Maps, integral numbers ints
const cel = (v) => Array.isArray(v) ? v.map(cel)
  : v !== null && typeof v === "object"
    ? new Map(Object.entries(v).map(([k, x]) => [k, cel(x)]))
    : typeof v === "number" && Number.isInteger(v) ? BigInt(v) : v;

const vwc = yaml.loadAll(fs.readFileSync(process.argv[2], "utf8"))
  .find((d) => d && d.kind === "ValidatingWebhookConfiguration");
const hooks = Object.fromEntries(vwc.webhooks.map((h) => [
  h.rules.some((r) => r.resources.includes("pods")) ? "pods" : "dra", h]));

// ---- samples ---------------------------------------------------------------
const ctr = (res) => ({ name: "c", image: "img", ...(res ? { resources: res } : {}) });
const podSpec = (o = {}) => ({ containers: [ctr(o.res)], ...o.extra });
const GPU = { limits: { "nvidia.com/gpu": 1 } };
const CPU = { requests: { cpu: "1", memory: "1Gi" }, limits: { memory: "1Gi" } };
const CLAIMS = { resourceClaims: [{ name: "gpu", resourceClaimTemplateName: "gpu" }] };
const meta = (extra) => ({ name: "x", namespace: "ml", ...extra });
const pod = (spec, m) => ({ apiVersion: "v1", kind: "Pod", metadata: meta(m), spec });
const wl = (kind, group, spec) => ({
  apiVersion: group ? group + "/v1" : "v1", kind, metadata: meta(),
  spec: { replicas: 1, template: { metadata: {}, spec } },
});
const cron = (spec) => ({
  apiVersion: "batch/v1", kind: "CronJob", metadata: meta(),
  spec: { schedule: "* * * * *", jobTemplate: { spec: { template: { spec } } } },
});
const claim = (m) => ({
  apiVersion: "resource.k8s.io/v1", kind: "ResourceClaim", metadata: meta(m),
  spec: { devices: { requests: [{ name: "gpu", exactly: { deviceClassName: "gpu.example.com" } }] } },
});
const GROUPS = { Pod: "", ReplicationController: "", Deployment: "apps", ReplicaSet: "apps",
  StatefulSet: "apps", DaemonSet: "apps", Job: "batch", CronJob: "batch",
  ResourceClaim: "resource.k8s.io", ResourceClaimTemplate: "resource.k8s.io",
  DeviceClass: "resource.k8s.io" };

// [webhook, name, object, expected sent?, operation, oldObject]
const samples = [
  ["pods", "Pod without devices", pod(podSpec()), false],
  ["pods", "Pod with cpu/memory only", pod(podSpec({ res: CPU })), false],
  ["pods", "Pod with empty resourceClaims", pod(podSpec({ extra: { resourceClaims: [] } })), false],
  ["pods", "Pod with resourceClaims", pod(podSpec({ extra: CLAIMS })), true],
  ["pods", "Pod with nvidia.com/gpu limit", pod(podSpec({ res: GPU })), true],
  ["pods", "Pod with extended resource in requests only",
    pod(podSpec({ res: { requests: { "example.com/fpga": 1 } } })), true],
  ["pods", "Pod with extended resource in an init container",
    pod({ containers: [ctr()], initContainers: [ctr({ requests: { "example.com/fpga": 1 } })] }), true],
  ["pods", "Pod with resources: {}", pod(podSpec({ res: {} })), false],
  ["pods", "Pod being deleted",
    pod(podSpec({ res: GPU }), { deletionTimestamp: "2026-01-01T00:00:00Z" }), false],
  ["pods", "Pod UPDATE, spec unchanged (label edit)", pod(podSpec({ res: GPU }), { labels: { a: "b" } }),
    false, "UPDATE", pod(podSpec({ res: GPU }))],
  ["pods", "Pod UPDATE, spec changed", pod(podSpec({ extra: CLAIMS })), true, "UPDATE",
    pod(podSpec())],
  ["pods", "Pod UPDATE removing finalizers while deleting",
    pod(podSpec({ res: GPU }), { deletionTimestamp: "2026-01-01T00:00:00Z" }), false, "UPDATE",
    pod(podSpec({ res: GPU }), { finalizers: ["x"], deletionTimestamp: "2026-01-01T00:00:00Z" })],
  ...["Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "ReplicationController"]
    .flatMap((k) => [
      ["pods", k + " with claims", wl(k, GROUPS[k], podSpec({ extra: CLAIMS })), true],
      ["pods", k + " with a GPU limit", wl(k, GROUPS[k], podSpec({ res: GPU })), true],
      ["pods", k + " without devices", wl(k, GROUPS[k], podSpec({ res: CPU })), false],
    ]),
  ["pods", "ReplicationController without template",
    { apiVersion: "v1", kind: "ReplicationController", metadata: meta(), spec: { replicas: 0 } }, false],
  ["pods", "Deployment UPDATE scaling replicas (spec changed)",
    wl("Deployment", "apps", podSpec({ res: GPU })), true, "UPDATE",
    { ...wl("Deployment", "apps", podSpec({ res: GPU })), spec: { ...wl("Deployment", "apps", podSpec({ res: GPU })).spec, replicas: 3 } }],
  ["pods", "CronJob with claims", cron(podSpec({ extra: CLAIMS })), true],
  ["pods", "CronJob with a GPU in an init container",
    cron({ containers: [ctr()], initContainers: [ctr(GPU)] }), true],
  ["pods", "CronJob without devices", cron(podSpec()), false],
  ["dra", "ResourceClaim written by a user", claim(), true],
  ["dra", "ResourceClaim with other annotations", claim({ annotations: { a: "b" } }), true],
  ["dra", "ResourceClaim generated from a template",
    claim({ annotations: { "resource.kubernetes.io/pod-claim-name": "gpu" } }), false],
  ["dra", "ResourceClaimTemplate", { apiVersion: "resource.k8s.io/v1", kind: "ResourceClaimTemplate",
    metadata: meta(), spec: { spec: claim().spec } }, true],
  ["dra", "DeviceClass", { apiVersion: "resource.k8s.io/v1", kind: "DeviceClass",
    metadata: { name: "gpu.example.com" },
    spec: { selectors: [{ cel: { expression: "device.driver == 'gpu.example.com'" } }] } }, true],
  ["dra", "DeviceClass UPDATE, labels only", { apiVersion: "resource.k8s.io/v1", kind: "DeviceClass",
    metadata: { name: "c", labels: { a: "b" } }, spec: {} }, false, "UPDATE",
  { apiVersion: "resource.k8s.io/v1", kind: "DeviceClass", metadata: { name: "c" }, spec: {} }],
  ["dra", "ResourceClaim being deleted", claim({ deletionTimestamp: "2026-01-01T00:00:00Z" }), false],
];

// ---- compile ---------------------------------------------------------------
for (const [key, h] of Object.entries(hooks)) {
  for (const mc of h.matchConditions || []) {
    let err = null;
    try { parse(mc.expression); } catch (e) { err = e.message; }
    check(`${h.name} ${mc.name}: parses`, !err, err);
    check(`${h.name} ${mc.name}: refers only to object, oldObject, request`,
      !/\b(authorizer|namespaceObject|params|variables)\b/.test(mc.expression));
  }
}

// ---- the project's own engine, by substitution ----------------------------
// `claimcheck cel` evaluates in the DRA environment, which has no `object`,
// so each variable is replaced by a dyn() literal of its value (every value
// wrapped in dyn(), as the engine wants homogeneous aggregate literals).
// Its result must agree with @bufbuild/cel's.
const { execFileSync } = require("child_process");
const ccBin = process.argv[3];
const lit = (v) => v === null ? "null"
  : Array.isArray(v) ? "[" + v.map((x) => "dyn(" + lit(x) + ")").join(", ") + "]"
    : typeof v === "object" ? "{" + Object.entries(v).map(([k, x]) =>
      JSON.stringify(k) + ": dyn(" + lit(x) + ")").join(", ") + "}"
      : JSON.stringify(v);
let ccOk = false;
if (ccBin) {
  try { ccOk = execFileSync(ccBin, ["cel", "1 + 1"], { encoding: "utf8" }).trim() === "2"; } catch (e) { }
}
if (!ccOk) console.log("skipped: cross-check with claimcheck cel (" + (ccBin || "no binary") + ")");
const ccEval = (expr, vars) => {
  const sub = expr.replace(/(^|[^.\w])(object|oldObject|request)\b/g,
    (m, pre, v) => pre + "dyn(" + lit(vars[v]) + ")");
  try {
    return execFileSync(ccBin, ["cel", sub], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
  } catch (e) { return ((e.stdout || "") + (e.stderr || "")).trim() || "error"; }
};

// ---- evaluate --------------------------------------------------------------
for (const [key, name, obj, want, op = "CREATE", old = null] of samples) {
  const h = hooks[key];
  const kind = obj.kind;
  const request = {
    uid: "1", operation: op, namespace: "ml", name: "x",
    kind: { group: GROUPS[kind], version: "v1", kind },
    resource: { group: GROUPS[kind], version: "v1", resource: kind.toLowerCase() + "s" },
  };
  const vars = { object: cel(obj), oldObject: cel(old), request: cel(request) };
  let sent = true, errs = [], disagree = [];
  const plain = { object: obj, oldObject: old, request };
  for (const mc of h.matchConditions || []) {
    let r;
    try { r = run(mc.expression, vars); } catch (e) { r = e; }
    if (ccOk) {
      const c = ccEval(mc.expression, plain);
      if (c !== String(r)) disagree.push(`${mc.name}: bufbuild ${typeof r === "boolean" ? r : "error"}, claimcheck ${c.slice(0, 120)}`);
    }
    if (typeof r !== "boolean") { errs.push(`${mc.name}: ${r && r.message}`); continue; }
    if (!r) sent = false;
  }
  if (ccOk) check(`${h.name} ${name}: claimcheck cel agrees`, disagree.length === 0, disagree.join("; "));
  check(`${h.name} ${name}: no evaluation error`, errs.length === 0, errs.join("; "));
  check(`${h.name} ${name}: ${want ? "sent" : "skipped"}`, errs.length === 0 && sent === want,
    `got ${sent ? "sent" : "skipped"}`);
}
console.log(`${pass} passed, ${fail} failed`);
process.exit(fail ? 1 : 0);
