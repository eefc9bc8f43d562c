// bench.mjs - runs the workload written by bench.c (devices, the 20
// selectors, claimcheck's match counts) through @bufbuild/cel and prints
// ns/eval, ns/compile and the speed ratio. @bufbuild/cel has no Kubernetes
// quantity/semver library, so minimal stand-ins are registered (quantities
// as doubles, semvers as strings): they do less work than the real thing,
// which only flatters the JS side of the ratio.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const [, , jsonPath, nmDir, cRes] = process.argv;
const require = createRequire(nmDir + "/");
const cel = require("@bufbuild/cel");
const { celEnv, parse, plan, celFunc, celMethod, CelScalar, isCelError } = cel;

const suffix = { "": 1, n: 1e-9, u: 1e-6, m: 1e-3, k: 1e3, M: 1e6, G: 1e9,
  T: 1e12, P: 1e15, E: 1e18, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30,
  Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
function qty(s) {
  const m = /^([+-]?[0-9.]+)([eE][+-]?[0-9]+|[numkMGTPE]i?|)$/.exec(s);
  if (!m) throw new Error("bad quantity " + s);
  if (m[2].startsWith("e") || m[2].startsWith("E")) return Number(m[1] + m[2]);
  return Number(m[1]) * suffix[m[2]];
}
function semv(s) {
  const [core, pre] = s.split("-", 2);
  return { v: core.split(".").map(Number), pre };
}
function semCmp(a, b) {
  const x = semv(a), y = semv(b);
  for (let i = 0; i < 3; i++) if (x.v[i] !== y.v[i]) return x.v[i] < y.v[i] ? -1 : 1;
  if (x.pre === y.pre) return 0;
  if (!x.pre) return 1;
  if (!y.pre) return -1;
  return x.pre < y.pre ? -1 : 1;
}
const D = CelScalar.DOUBLE, S = CelScalar.STRING, B = CelScalar.BOOL, I = CelScalar.INT;
const funcs = [
  celFunc("quantity", [S], D, (s) => qty(s)),
  celMethod("compareTo", D, [D], I, function (o) { return BigInt(Math.sign(this - o)); }),
  celMethod("isGreaterThan", D, [D], B, function (o) { return this > o; }),
  celMethod("isLessThan", D, [D], B, function (o) { return this < o; }),
  celFunc("semver", [S], S, (s) => s),
  celMethod("isGreaterThan", S, [S], B, function (o) { return semCmp(this, o) > 0; }),
];
const env = celEnv({ funcs });

const data = JSON.parse(readFileSync(jsonPath, "utf8"));
const ctxs = data.devices.map((d) => {
  const attributes = {}, capacity = {};
  for (const [dom, id, t, v] of d.attributes) {
    (attributes[dom] ??= {})[id] = t === "int" ? BigInt(v) : v;
  }
  for (const [dom, id, q] of d.capacity) (capacity[dom] ??= {})[id] = qty(q);
  return { device: { driver: d.driver, attributes, capacity } };
});

const now = () => Number(process.hrtime.bigint());
let t0 = now();
const reps = 50;
for (let r = 0; r < reps; r++) for (const e of data.exprs) plan(env, parse(e));
const compileNs = (now() - t0) / (reps * data.exprs.length);

const progs = data.exprs.map((e) => plan(env, parse(e)));
let best = Infinity, mismatches = 0;
for (let round = 0; round < 3; round++) {
  let total = 0;
  progs.forEach((f, i) => {
    let m = 0, er = 0;
    const s = now();
    for (const c of ctxs) {
      const r = f(c);
      if (r === true) m++;
      else if (isCelError(r)) er++;
    }
    total += now() - s;
    if (round === 2 && (m !== data.matches[i] || er !== data.errors[i])) {
      mismatches++;
      console.log(`  mismatch #${i + 1}: @bufbuild/cel ${m} matches/${er} errors, claimcheck ${data.matches[i]}/${data.errors[i]}`);
    }
  });
  best = Math.min(best, total / (ctxs.length * progs.length));
}
console.log(`@bufbuild/cel: ${compileNs.toFixed(1)} ns/compile (parse+plan), ${best.toFixed(1)} ns/eval (same workload)`);
if (cRes) {
  const [cc, ce] = cRes.split(",").map(Number);
  console.log(`ratio: claimcheck evaluates ${(best / ce).toFixed(1)}x faster (target >= 10x), compiles ${(compileNs / cc).toFixed(1)}x faster`);
  console.log(`compile: ${(cc / 1000).toFixed(2)} us per selector (target <= 20 us)`);
}
console.log(mismatches ? `${mismatches} result mismatches` : "results agree on all 20 selectors x 10000 devices");
