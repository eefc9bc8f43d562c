// tests/e2e/html/check.js - opens `-o html` reports in headless chromium
// (puppeteer-core driving Debian's chromium) and checks them the way a
// person uses them. Usage: node check.js CHROMIUM SPEC.json
// SPEC: {"pages": [{"label", "file", "screenshot"?, "expect": {...}}]}
// For every page: no console error or page error, no request but the file
// itself (the page must be self-contained), the key elements present, the
// filters and the claim selection working, and the time from navigation
// to the first drawn page (window.__claimcheck.renderMs and the load),
// printed as "METRIC label bytes=N renderMs=N loadMs=N".
// Prints "ok ..." / "FAIL ..." lines and "N passed, N failed".
"use strict";
const fs = require("fs");
const path = require("path");
const puppeteer = require(path.join(__dirname, "..", "node_modules", "puppeteer-core"));

const [chromium, specFile] = process.argv.slice(2);
const spec = JSON.parse(fs.readFileSync(specFile, "utf8"));
let pass = 0, fail = 0;
const check = (name, cond, why) => {
  if (cond) { pass++; console.log("ok " + name); }
  else { fail++; console.log("FAIL " + name + (why !== undefined ? ": " + why : "")); }
  return cond;
};
const count = (page, sel) => page.$$eval(sel, (els) => els.length);
const texts = (page, sel) => page.$$eval(sel, (els) => els.map((e) => e.textContent));
const setValue = (page, sel, value) => page.$eval(sel, (el, v) => {
  el.value = v;
  el.dispatchEvent(new Event(el.tagName === "SELECT" ? "change" : "input", { bubbles: true }));
}, value);

(async () => {
  const browser = await puppeteer.launch({
    executablePath: chromium, headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"],
  });
  try {
    for (const p of spec.pages) {
      const t = `html ${p.label}: `, e = p.expect;
      const page = await browser.newPage();
      await page.setViewport({ width: 1400, height: 1000 });
      const errors = [], requests = [];
      page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
      page.on("pageerror", (err) => errors.push(String(err)));
      page.on("request", (r) => requests.push(r.url()));
      const url = "file://" + path.resolve(p.file);
      const t0 = Date.now();
      await page.goto(url, { waitUntil: "load", timeout: 120000 });
      await page.waitForSelector("body[data-ready='1']", { timeout: 120000 });
      const loadMs = Date.now() - t0;
      const info = await page.evaluate(() => window.__claimcheck);
      console.log(`METRIC ${p.label} bytes=${fs.statSync(p.file).size} renderMs=${Math.round(info.renderMs)} loadMs=${loadMs}`);
      check(t + "drawn (window.__claimcheck)", info && info.nodes === e.nodes, JSON.stringify(info));
      check(t + "no console or page errors", errors.length === 0, errors.slice(0, 3).join(" | "));
      check(t + "no request but the page itself", requests.length === 1 && requests[0] === url, requests.slice(0, 3).join(" "));
      if (e.maxLoadMs) check(t + `first page drawn within ${e.maxLoadMs} ms (took ${loadMs})`, loadMs <= e.maxLoadMs);
      if (e.maxBytes) check(t + `page at most ${e.maxBytes} bytes`, fs.statSync(p.file).size <= e.maxBytes, fs.statSync(p.file).size);
      const stats = (await texts(page, "#cc-stats .stat")).join(" | ");
      check(t + "header counts", stats.includes(`${e.nodes} nodes`) && stats.includes(`${e.devices} devices`), stats);
      if (e.noDevices) {
        check(t + "opens on the findings", await count(page, "#cc-findings tbody tr") === e.findings);
        await page.click("#cc-tabs [data-tab=nodes]");
        check(t + "the nodes tab says there are no devices", await count(page, "#cc-nodevices") === 1);
      } else {
        const cards = await count(page, "#cc-nodes .node");
        check(t + `node cards drawn, one page at most (${cards})`, cards === Math.min(60, e.nodesWithDevices), cards);
        check(t + "devices grouped by pool with driver", (await texts(page, ".pool .pn")).some((x) => x.includes(e.driver)));
        if (e.held !== undefined) check(t + `allocated devices shown (${e.held})`, await count(page, "#cc-nodes .dev.held") === e.held, await count(page, "#cc-nodes .dev.held"));
        if (e.counters) check(t + "counter bars (inline SVG)", await count(page, ".bar svg rect") >= 2);
        if (e.nodeSearch) {
          await setValue(page, "#cc-node", e.nodeSearch);
          check(t + `node filter '${e.nodeSearch}'`, await count(page, "#cc-nodes .node") === 1);
          await setValue(page, "#cc-node", "");
        }
        if (p.screenshot) {
          await page.screenshot({ path: p.screenshot, fullPage: false });
          check(t + "screenshot written", fs.statSync(p.screenshot).size > 10000);
        }
        await setValue(page, "#cc-driver", e.driver);
        check(t + "driver filter keeps that driver's nodes", await count(page, "#cc-nodes .node") >= 1);
        await setValue(page, "#cc-driver", "no-such-driver");
        await setValue(page, "#cc-driver", "");
        // claims: the unsatisfiable one highlighted with its reason
        await page.click("#cc-tabs [data-tab=claims]");
        const rows = await count(page, "#cc-claims tbody tr");
        check(t + `claims listed (${rows})`, rows === Math.min(100, e.claims), rows);
        if (e.problem) {
          const prob = await page.$$eval("#cc-claims tr.problem", (els) => els.map((x) => x.textContent));
          check(t + `claim '${e.problem}' highlighted with the reason`, prob.some((x) => x.includes(e.problem) && x.includes(e.problemRule)), prob.slice(0, 2).join(" | "));
        }
        if (e.select) {
          await page.$$eval("#cc-claims tr[data-claim]", (els, name) => { const r = els.find((x) => x.textContent.includes(name)); if (r) r.click(); }, e.select);
          const mine = await count(page, "#cc-nodes .dev.mine"), cand = await count(page, "#cc-nodes .dev.cand");
          check(t + `selecting '${e.select}' shows the devices it holds or could take (${mine} held, ${cand} could)`,
            mine === (e.selectHeld || 0) && mine + cand >= e.selectDevices, `${mine} + ${cand}`);
          check(t + "the selection shows only nodes with those devices",
            (await page.$$eval("#cc-nodes .node", (els) => els.every((n) => n.querySelector(".dev.mine, .dev.cand")))));
        }
        if (e.namespace) {
          await page.click("#cc-tabs [data-tab=claims]");
          await setValue(page, "#cc-ns", e.namespace);
          const names = await texts(page, "#cc-claims tbody tr td:first-child b");
          check(t + `namespace filter '${e.namespace}'`, names.length > 0 && names.every((x) => x.startsWith(e.namespace + "/")), names.slice(0, 3).join(" "));
          await setValue(page, "#cc-ns", "");
        }
      }
      // findings with file:line, and the rule filter
      await page.click("#cc-tabs [data-tab=findings]");
      const frows = await count(page, "#cc-findings tbody tr");
      check(t + `findings listed (${frows})`, frows === Math.min(100, e.findings), frows);
      if (e.where) check(t + `a finding located at ${e.where}`, (await texts(page, "#cc-findings td.mono")).some((x) => x.includes(e.where)));
      if (e.rule) {
        await setValue(page, "#cc-rule", e.rule);
        const rules = await texts(page, "#cc-findings tbody tr td:nth-child(2)");
        check(t + `rule filter '${e.rule}'`, rules.length > 0 && rules.every((x) => x === e.rule), rules.join(" "));
        await setValue(page, "#cc-rule", "");
      }
      if (e.search) {
        await setValue(page, "#cc-q", e.search);
        const n = await count(page, "#cc-findings tbody tr");
        check(t + `search '${e.search}' narrows the findings`, n >= 1 && n < Math.max(2, frows), n);
        await setValue(page, "#cc-q", "");
      }
      check(t + "no errors after using the filters", errors.length === 0, errors.slice(0, 3).join(" | "));
      await page.close();
    }
  } finally {
    await browser.close();
  }
  console.log(`${pass} passed, ${fail} failed`);
  process.exit(fail ? 1 : 0);
})().catch((err) => { console.log("FAIL html check crashed: " + err.stack); console.log(`${pass} passed, ${fail + 1} failed`); process.exit(1); });
