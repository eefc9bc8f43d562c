#!/usr/bin/env python3
"""check.py - do deploy/monitoring's alerts and dashboard fit the metrics the
webhook exports? For tests/e2e/monitoring.sh.

Usage: check.py METRICS.txt PROMETHEUSRULE.yaml DASHBOARD.json
                [--pending NAME]... [--promtool PATH] [--tmp DIR]

METRICS.txt is a scrape of the webhook's /metrics taken after allow, deny,
error and skip requests, so counters with labels have series. For every
expression of the PrometheusRule and the dashboard (Grafana variables
substituted):
  - it parses: with `promtool check rules` when --promtool is given (the
    expressions become the rules of a temporary rule file), else with
    promql.py; the line says which ran;
  - every selector's metric exists in the scrape (series of a histogram
    count by their own names: _bucket, _sum, _count), except `up`, which
    Prometheus adds at each scrape, and the --pending names (metrics
    another branch is adding: skipped while absent, checked once they
    are there);
  - some series of that metric satisfies the selector's label matchers,
    leaving out the labels Prometheus and the operator attach to a target
    (job, namespace, pod, instance, service, endpoint, container).
Alerts also need a unique name, a severity of critical or warning and a
summary. Prints "ok ...", "FAIL ...", "skipped: ..." lines and
"N passed, N failed" last; exit status 1 on any failure.
"""
import argparse
import json
import os
import re
import subprocess
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]
import promql  # noqa: E402
from tally import check, summary  # noqa: E402

TARGET_LABELS = {"job", "namespace", "pod", "instance", "service",
                 "endpoint", "container"}
SCRAPE_METRICS = {"up"}
# Grafana's built-in variables and the dashboard's own, as a query sees them
GRAFANA_VARS = {"__rate_interval": "5m", "__interval": "1m",
                "__range": "1h", "namespace": "claimcheck", "pod": ".*"}


SAMPLE = re.compile(r'^([A-Za-z_:][A-Za-z0-9_:]*)(\{(.*)\})?\s+(\S+)')
LABEL = re.compile(r'\s*([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?')


def read_scrape(path):
    """name -> [labels dict] of every sample"""
    series = {}
    for line in open(path):
        if not line.strip() or line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        if not m:
            raise SystemExit("check.py: unparsable sample line %r" % line)
        labels, rest = {}, m.group(3) or ""
        while rest:
            lm = LABEL.match(rest)
            if not lm:
                raise SystemExit("check.py: bad labels in %r" % line)
            labels[lm.group(1)] = re.sub(r'\\(.)', lambda e: {
                "n": "\n"}.get(e.group(1), e.group(1)), lm.group(2))
            rest = rest[lm.end():]
        series.setdefault(m.group(1), []).append(labels)
    return series


def matches(labels, label, op, val):
    v = labels.get(label, "")
    if op == "=":
        return v == val
    if op == "!=":
        return v != val
    hit = re.fullmatch(val, v) is not None
    return hit if op == "=~" else not hit


def substitute(expr):
    def one(m):
        name = m.group(1) or m.group(2)
        if name not in GRAFANA_VARS:
            raise KeyError(name)
        return GRAFANA_VARS[name]
    return re.sub(r"\$\{(\w+)\}|\$(\w+)", one, expr)


def dashboard_exprs(dash):
    """(where, expression) of every panel target and variable query"""
    out = []

    def panels(ps):
        for p in ps:
            for t in p.get("targets", []):
                if t.get("expr"):
                    out.append(("panel '%s' %s" % (p.get("title"),
                                                   t.get("refId")),
                                t["expr"]))
            panels(p.get("panels", []))
    panels(dash.get("panels", []))
    for v in dash.get("templating", {}).get("list", []):
        q = v.get("query")
        q = q.get("query") if isinstance(q, dict) else q
        if v.get("type") != "query" or not q:
            continue
        # label_values(SELECTOR, label): the selector is the expression
        m = re.fullmatch(r"\s*label_values\((.*),\s*\w+\)\s*", q)
        out.append(("variable '%s'" % v["name"], m.group(1) if m else q))
    return out


def promtool_check(promtool, tmp, rules, exprs):
    """promtool check rules on the rule groups and on the dashboard's
    expressions as recording rules; returns (ok, output)"""
    f1 = os.path.join(tmp, "alerts.rules.yaml")
    f2 = os.path.join(tmp, "dashboard.rules.yaml")
    yaml.safe_dump({"groups": rules}, open(f1, "w"))
    yaml.safe_dump({"groups": [{"name": "dashboard", "rules": [
        {"record": "dashboard:expr_%d" % i, "expr": e}
        for i, (_, e) in enumerate(exprs)]}]}, open(f2, "w"))
    r = subprocess.run([promtool, "check", "rules", f1, f2],
                       capture_output=True, text=True)
    return r.returncode == 0, (r.stdout + r.stderr).strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("metrics")
    ap.add_argument("rules")
    ap.add_argument("dashboard")
    ap.add_argument("--pending", action="append", default=[])
    ap.add_argument("--promtool")
    ap.add_argument("--tmp", default="/tmp")
    a = ap.parse_args()

    series = read_scrape(a.metrics)
    check("scrape has claimcheck series", any(n.startswith("claimcheck_")
                                              for n in series))
    pr = yaml.safe_load(open(a.rules))
    check("PrometheusRule monitoring.coreos.com/v1",
          pr.get("apiVersion") == "monitoring.coreos.com/v1"
          and pr.get("kind") == "PrometheusRule")
    groups = pr.get("spec", {}).get("groups", [])
    exprs, names = [], []
    for g in groups:
        for r in g.get("rules", []):
            name = r.get("alert") or r.get("record")
            names.append(name)
            exprs.append(("alert %s" % name, str(r.get("expr", ""))))
            if "alert" not in r:
                continue
            check("alert %s: severity critical or warning" % name,
                  r.get("labels", {}).get("severity") in ("critical",
                                                          "warning"))
            check("alert %s: summary and description" % name,
                  r.get("annotations", {}).get("summary")
                  and r.get("annotations", {}).get("description"))
            if "for" in r:
                check("alert %s: 'for' is a duration" % name,
                      re.fullmatch(r"([0-9]+(ms|[smhdwy]))+", str(r["for"])))
    check("alert names unique", len(names) == len(set(names)),
          str(sorted(n for n in names if names.count(n) > 1)))
    nalerts = len(exprs)
    dash = json.load(open(a.dashboard))
    check("dashboard has a uid and panels", dash.get("uid")
          and dash.get("panels"))
    for where, e in dashboard_exprs(dash):
        try:
            exprs.append((where, substitute(e)))
        except KeyError as k:
            check("%s: variables known" % where, False, "$%s" % k.args[0])

    # -- syntax ---------------------------------------------------------------
    parsed = []
    for where, e in exprs:
        try:
            parsed.append((where, promql.parse(e)))
            if not a.promtool:
                check("%s parses (promql.py)" % where, True)
        except promql.PromQLError as err:
            check("%s parses (promql.py)" % where, False, str(err))
    if a.promtool:
        ok, out = promtool_check(a.promtool, a.tmp, groups, exprs[nalerts:])
        check("%d alert and %d dashboard expressions parse (promtool check "
              "rules)" % (nalerts, len(exprs) - nalerts), ok, out)
        print("syntax checked by promtool")
    else:
        print("syntax checked by promql.py (promtool not installed)")

    # -- every selector against the scrape ------------------------------------
    seen = set()
    for where, e in parsed:
        for name, ms in promql.selectors(e):
            key = (name, tuple(ms))
            if key in seen:
                continue
            seen.add(key)
            sel = "%s{%s}" % (name, ",".join('%s%s"%s"' % m for m in ms))
            if name is None:
                check("%s: selector %s names a metric" % (where, sel), False)
                continue
            if name in SCRAPE_METRICS:
                check("%s: %s comes from the scrape itself" % (where, sel),
                      all(label in TARGET_LABELS for label, _, _ in ms))
                continue
            if name not in series:
                if name in a.pending:
                    print("skipped: %s: %s is pending (another branch adds "
                          "it)" % (where, name))
                    continue
                check("%s: metric %s exported" % (where, name), False,
                      "not in /metrics")
                continue
            if name in a.pending:
                print("note: pending metric %s is exported now: take it off "
                      "the pending list" % name)
            want = [m for m in ms if m[0] not in TARGET_LABELS]
            hit = any(all(matches(s, *m) for m in want)
                      for s in series[name])
            check("%s: %s has a series" % (where, sel), hit,
                  "labels seen: %s" % series[name][:4])
    return summary()


if __name__ == "__main__":
    sys.exit(main())
