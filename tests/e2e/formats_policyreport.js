// formats_policyreport.js - checks `-o policyreport` output the way the
// apiserver takes it: every YAML document must be a wgpolicyk8s.io/v1alpha2
// PolicyReport (namespaced) or ClusterPolicyReport (cluster-scoped) valid
// against the CRD's openAPIV3Schema (wgpolicyk8s-v1alpha2.json, taken from
// kubernetes-sigs/wg-policy-prototypes), validated with ajv. A structural
// schema prunes unknown fields silently, so the check also refuses any
// field the schema does not name (additionalProperties: false wherever the
// schema leaves it open), and the summary must count the results.
// Usage: node formats_policyreport.js LABEL=FILE[:MIN_RESULTS]...
// Prints "ok ..." / "FAIL ..." lines and "N passed, N failed".
"use strict";
const fs = require("fs");
const path = require("path");
const Ajv = require("ajv");
const yaml = require("js-yaml");

const data = JSON.parse(fs.readFileSync(path.join(__dirname, "wgpolicyk8s-v1alpha2.json"), "utf8"));
// close every object schema that does not say what else it takes
const closed = (s) => {
  if (Array.isArray(s)) return s.map(closed);
  if (!s || typeof s !== "object") return s;
  const o = {};
  for (const [k, v] of Object.entries(s)) o[k] = k === "properties" ?
    Object.fromEntries(Object.entries(v).map(([pk, pv]) => [pk, closed(pv)])) : closed(v);
  if (o.type === "object" && o.properties && o.additionalProperties === undefined)
    o.additionalProperties = false;
  return o;
};
const ajv = new Ajv({ allErrors: true, strict: false });
ajv.addFormat("int32", { type: "number", validate: (n) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 });
ajv.addFormat("int64", { type: "number", validate: (n) => Number.isInteger(n) });
const validators = {};
for (const [kind, s] of Object.entries(data.schemas)) {
  const schema = closed(s.openAPIV3Schema);
  // metadata is "type: object" in the CRD: the apiserver checks it (name)
  schema.properties.metadata = { type: "object" };
  validators[kind] = { scope: s.scope, validate: ajv.compile(schema) };
}

let pass = 0, fail = 0;
const check = (name, cond, why) => {
  if (cond) { pass++; console.log("ok " + name); }
  else { fail++; console.log("FAIL " + name + (why ? ": " + why : "")); }
  return cond;
};
const DNS1123 = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

for (const arg of process.argv.slice(2)) {
  const eq = arg.indexOf("=");
  const label = arg.slice(0, eq);
  let file = arg.slice(eq + 1), min = 0;
  const colon = file.lastIndexOf(":");
  if (colon > 0 && /^[0-9]+$/.test(file.slice(colon + 1))) {
    min = Number(file.slice(colon + 1));
    file = file.slice(0, colon);
  }
  const t = `policyreport ${label}: `;
  let docs;
  try { docs = yaml.loadAll(fs.readFileSync(file, "utf8")).filter((d) => d !== null); } catch (e) {
    check(t + "YAML documents", false, e.message);
    continue;
  }
  check(t + "at least one document", docs.length > 0);
  const clusterReports = docs.filter((d) => d && d.kind === "ClusterPolicyReport");
  check(t + "one ClusterPolicyReport", clusterReports.length === 1, clusterReports.length);
  const seen = new Set();
  let results = 0;
  for (const d of docs) {
    const v = d && validators[d.kind];
    const id = `${d && d.kind} ${d && d.metadata && d.metadata.namespace || ""}`;
    if (!check(t + id + ": a known kind", !!v, d && d.kind)) continue;
    check(t + id + ": apiVersion", d.apiVersion === "wgpolicyk8s.io/v1alpha2", d.apiVersion);
    const ok = v.validate(d);
    check(t + id + ": valid against the CRD schema (no field pruned)", ok,
      ok ? "" : JSON.stringify(v.validate.errors.slice(0, 3)));
    const md = d.metadata || {};
    check(t + id + ": metadata.name", typeof md.name === "string" && DNS1123.test(md.name), md.name);
    check(t + id + ": namespace iff namespaced",
      (v.scope === "Namespaced") === (typeof md.namespace === "string" && md.namespace.length > 0), md.namespace);
    check(t + id + ": one report per namespace", !seen.has(id));
    seen.add(id);
    const rs = d.results || [];
    results += rs.length;
    const count = { pass: 0, fail: 0, warn: 0, error: 0, skip: 0 };
    for (const r of rs) count[r.result]++;
    check(t + id + ": summary counts the results",
      JSON.stringify(count) === JSON.stringify({ pass: d.summary.pass, fail: d.summary.fail,
        warn: d.summary.warn, error: d.summary.error, skip: d.summary.skip }),
      JSON.stringify([count, d.summary]));
    check(t + id + ": every result names its policy, object and time",
      rs.every((r) => r.policy === "claimcheck" && r.resources && r.resources.length === 1
        && r.resources[0].kind && r.resources[0].name && r.timestamp && r.timestamp.seconds > 1.5e9
        && (r.result === "pass" || typeof r.rule === "string")));
    check(t + id + ": results are in the report's scope",
      rs.every((r) => (v.scope === "Namespaced") === (typeof r.resources[0].namespace === "string")
        && (v.scope !== "Namespaced" || r.resources[0].namespace === md.namespace)));
  }
  check(t + `at least ${min} results`, results >= min, results);
}
console.log(`${pass} passed, ${fail} failed`);
process.exit(fail ? 1 : 0);
