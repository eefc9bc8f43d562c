// formats_sarif.js - checks SARIF files the way GitHub code scanning takes them.
// Usage: node formats_sarif.js LABEL=FILE...
// Each FILE must hold exactly one JSON value (nothing else was printed into
// it), valid against the SARIF 2.1.0 JSON schema (sarif-2.1.0-rtm.5.json as
// shipped in @microsoft/jest-sarif, draft-04, validated with ajv), plus
// GitHub's own requirements: a results array even when empty, rules with
// help text, repo-relative URIs, startLine >= 1, the documented limits.
// Prints "ok ..." / "FAIL ..." lines, "RESULTS LABEL N", and "N passed, N failed".
"use strict";
const fs = require("fs");
const path = require("path");
const Ajv = require("ajv-draft-04");
const addFormats = require("ajv-formats");

const schemaFile = path.join(path.dirname(require.resolve("@microsoft/jest-sarif/package.json")),
  "lib/schemas/sarif-2.1.0-rtm.5.json");
// unicodeRegExp: false - the schema's language pattern has a stray "]" that
// the "u" flag rejects; it is a valid pattern without it
const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
addFormats(ajv);
const validate = ajv.compile(JSON.parse(fs.readFileSync(schemaFile, "utf8")));

let pass = 0, fail = 0;
const check = (name, cond, why) => {
  if (cond) { pass++; console.log("ok " + name); }
  else { fail++; console.log("FAIL " + name + (why ? ": " + why : "")); }
};
const LEVELS = ["error", "warning", "note", "none"];
const nonEmpty = (s) => typeof s === "string" && s.trim().length > 0;

for (const arg of process.argv.slice(2)) {
  const eq = arg.indexOf("=");
  const label = arg.slice(0, eq), file = arg.slice(eq + 1);
  const t = `sarif ${label}: `;
  const text = fs.readFileSync(file, "utf8");
  let doc;
  try { doc = JSON.parse(text); } catch (e) {
    check(t + "one JSON document, nothing else", false, e.message + ": " + text.slice(0, 120));
    continue;
  }
  check(t + "one JSON document, nothing else", true);
  const valid = validate(doc);
  check(t + "valid against the SARIF 2.1.0 schema", valid,
    JSON.stringify((validate.errors || []).slice(0, 3)));
  check(t + "version 2.1.0 with $schema", doc.version === "2.1.0" && nonEmpty(doc.$schema));
  const runs = doc.runs || [];
  check(t + "1 run (<= 20)", runs.length === 1);
  const run = runs[0] || {};
  const drv = (run.tool || {}).driver || {};
  check(t + "driver name, version, informationUri",
    nonEmpty(drv.name) && nonEmpty(drv.version) && nonEmpty(drv.informationUri));
  const rules = drv.rules || [];
  check(t + "rules listed (<= 25000)", rules.length > 0 && rules.length <= 25000);
  const ids = rules.map((r) => r.id);
  check(t + "rule ids unique", new Set(ids).size === ids.length);
  const badRules = rules.filter((r) => !(nonEmpty(r.id) && nonEmpty((r.shortDescription || {}).text)
    && nonEmpty((r.fullDescription || {}).text) && nonEmpty((r.help || {}).text)
    && LEVELS.includes((r.defaultConfiguration || {}).level)
    && (!r.properties || !r.properties.tags || r.properties.tags.length <= 20)));
  check(t + "every rule has short/full description, help text, default level",
    badRules.length === 0, badRules.map((r) => r.id).join(","));
  const badUri = rules.filter((r) => !(typeof r.helpUri === "string"
    && /^https:\/\/[^\s#]+#[a-z0-9-]+$/.test(r.helpUri) && r.helpUri.endsWith("#" + r.id)));
  check(t + "every rule has an absolute helpUri ending in #<rule id>",
    badUri.length === 0, badUri.map((r) => r.id).join(","));
  check(t + "results array present", Array.isArray(run.results));
  const results = run.results || [];
  check(t + "results <= 25000", results.length <= 25000);
  const problems = [];
  const fps = new Set();
  for (const [i, r] of results.entries()) {
    const p = (m) => problems.push(`result ${i} (${r.ruleId}): ${m}`);
    if (!ids.includes(r.ruleId)) p("ruleId not in rules");
    if (r.ruleIndex !== undefined && ids[r.ruleIndex] !== r.ruleId) p("ruleIndex points elsewhere");
    if (!["error", "warning", "note"].includes(r.level)) p("level " + r.level);
    if (!nonEmpty((r.message || {}).text)) p("empty message");
    const fp = r.partialFingerprints || {};
    if (!nonEmpty(fp["claimcheck/v1"])) p("no partialFingerprints claimcheck/v1");
    if (fps.has(fp["claimcheck/v1"])) p("fingerprint shared with another result");
    fps.add(fp["claimcheck/v1"]);
    const locs = r.locations || [];
    if (locs.length < 1 || locs.length > 1000) { p("locations " + locs.length); continue; }
    const pl = locs[0].physicalLocation || {};
    const uri = (pl.artifactLocation || {}).uri;
    if (!nonEmpty(uri)) p("no uri");
    else {
      if (/^[a-z][a-z0-9+.-]*:/i.test(uri)) p("uri has a scheme (not repo-relative): " + uri);
      if (uri.startsWith("/")) p("absolute uri " + uri);
      if (uri.startsWith("./") || /(^|\/)\.\.(\/|$)/.test(uri)) p("uri with ./ or ..: " + uri);
      if (/[^A-Za-z0-9\-._~!$&'()*+,;=:@/%]/.test(uri) || /%(?![0-9A-Fa-f]{2})/.test(uri))
        p("uri not a valid URI reference: " + uri);
    }
    const reg = pl.region || {};
    if (!(Number.isInteger(reg.startLine) && reg.startLine >= 1)) p("startLine " + reg.startLine);
    if (reg.startColumn !== undefined && !(Number.isInteger(reg.startColumn) && reg.startColumn >= 1))
      p("startColumn " + reg.startColumn);
  }
  check(t + "every result: known rule, level, message, repo-relative URI, startLine >= 1",
    problems.length === 0, problems.slice(0, 5).join("; "));
  console.log(`RESULTS ${label} ${results.length}`);
}
console.log(`${pass} passed, ${fail} failed`);
process.exit(fail ? 1 : 0);
