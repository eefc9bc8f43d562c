#!/usr/bin/env bash
# tests/e2e/monitoring.sh - deploy/monitoring against the webhook's real
# /metrics: starts build/claimcheck-webhook, sends allow, warn, deny, skip
# and error requests (so the counters with labels have series), scrapes
# /metrics, and has tests/e2e/monitoring/check.py check that every metric
# and label the PrometheusRule and the Grafana dashboard select exists and
# that every expression parses: with promtool when there is one (on PATH,
# or extracted from Debian's prometheus package into build/tools: `apt-get
# download`, no server installed or started), else with
# tests/e2e/monitoring/promql.py; the output says which. With promtool, the
# scrape passes `promtool check metrics` and the alerts their unit tests
# (tests/e2e/monitoring/alerts_test.yaml: each fires on the series it is
# meant for and not on healthy ones). Two mutations (a misspelt metric, a
# broken expression) must make check.py fail, so it cannot pass by
# checking nothing. PROMTOOL=none forces the promql.py path.
# Metrics other branches are adding (PENDING below) are skipped while
# absent. Last line: "N passed, N failed"; exit 1 on any failure.
set -u
cd "$(dirname "$0")/../.."
ROOT=$PWD
BIN=${CLAIMCHECK_WEBHOOK:-$ROOT/build/claimcheck-webhook}
MON=$ROOT/deploy/monitoring
HERE=$ROOT/tests/e2e/monitoring
source "$ROOT/tests/e2e/hook.sh"
source "$ROOT/tests/e2e/lib.sh"
# refused inventory swaps (issue 16)
PENDING=(claimcheck_inventory_refused_total)

hook_init monitoring || { echo "0 passed, 1 failed"; exit 1; }
python3 -c 'import yaml' 2>/dev/null || {
    echo "skipped: monitoring checks (PyYAML missing: apt-get install python3-yaml)"
    echo "0 passed, 0 failed, 1 skipped"; exit 0; }

# ---- promtool ------------------------------------------------------------
find_promtool() {
    [ "${PROMTOOL:-}" = none ] && return 1
    if [ -n "${PROMTOOL:-}" ]; then echo "$PROMTOOL"; return 0; fi
    command -v promtool && return 0
    local t=$ROOT/build/tools/promtool d
    [ -x "$t" ] && { echo "$t"; return 0; }
    command -v apt-get >/dev/null 2>&1 && command -v dpkg-deb >/dev/null 2>&1 || return 1
    d=$(mktemp -d)
    if (cd "$d" && timeout 300 apt-get download -qq prometheus >/dev/null 2>&1) \
       && mkdir -p "$(dirname "$t")" \
       && dpkg-deb --fsys-tarfile "$d"/prometheus_*.deb | tar -xO ./usr/bin/promtool >"$t.tmp" \
       && chmod +x "$t.tmp" && "$t.tmp" --version >/dev/null 2>&1; then
        mv "$t.tmp" "$t"; rm -rf "$d"; echo "$t"; return 0
    fi
    rm -rf "$d" "$t.tmp"
    return 1
}
PT=$(find_promtool)
if [ "${PROMTOOL:-}" = none ]; then
    echo "skipped: promtool (PROMTOOL=none): expressions checked by promql.py"
elif [ -n "$PT" ]; then
    echo "promtool: $PT ($("$PT" --version 2>&1 | head -1))"
else
    echo "skipped: promtool (not installed and Debian's prometheus package not downloadable): expressions checked by promql.py"
fi

# ---- the webhook, exercised ------------------------------------------------
mkdir -p "$T/c"
"$BIN" certs --service webhook --namespace default --out "$T/c" --ip 127.0.0.1 \
    --dns localhost >/dev/null 2>&1 || { bad "certificates"; echo "$pass passed, $fail failed"; exit 1; }
CA=$T/c/ca.crt
if ! hook_start m --tls-cert "$T/c/tls.crt" --tls-key "$T/c/tls.key" \
        --inventory "$ROOT/tests/e2e/webhook/inventory.yaml" --drain-delay-ms 0; then
    bad "webhook starts" "$(tail -3 "$T/m.log")"; echo "$pass passed, $fail failed"; exit 1
fi
P=$PORT_m
post() { # file -> HTTP status
    curl -s -o /dev/null -w '%{http_code}' --max-time 10 --cacert "$CA" \
        -H 'Content-Type: application/json' --data-binary "@$1" \
        "https://127.0.0.1:$P/validate"
}
review() { # uid op kind object-json
    printf '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"%s","kind":{"group":"","version":"v1","kind":"%s"},"operation":"%s","namespace":"ml","object":%s}}' \
        "$1" "$3" "$2" "$4"
}
review u1 CREATE Pod '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"plain"},"spec":{"containers":[{"name":"c","image":"i"}]}}' >"$T/allow.json"
review u2 CREATE Pod '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"gpu"},"spec":{"containers":[{"name":"c","image":"i","resources":{"requests":{"nvidia.com/gpu":"1"}}}]}}' >"$T/deny.json"
review u3 DELETE Pod 'null' >"$T/skip.json"
printf '{"apiVersion":' >"$T/error.json"
st=$(post "$T/allow.json"); [ "$st" = 200 ] && ok "allow request answered" || bad "allow request: $st"
st=$(post "$T/deny.json"); [ "$st" = 200 ] && ok "deny request answered" || bad "deny request: $st"
st=$(post "$ROOT/deploy/examples/admission-warn.json"); [ "$st" = 200 ] && ok "warn request answered" || bad "warn request: $st"
st=$(post "$T/skip.json"); [ "$st" = 200 ] && ok "DELETE answered" || bad "DELETE request: $st"
st=$(post "$T/error.json"); [ "$st" = 400 ] && ok "malformed request -> 400" || bad "malformed request: $st"
curl -s --max-time 10 --cacert "$CA" "https://127.0.0.1:$P/metrics" >"$T/metrics.txt"
for d in allow deny warn skip error; do
    grep -q "^claimcheck_admission_requests_total{.*decision=\"$d\"} [1-9]" "$T/metrics.txt" \
        && ok "scrape has decision=\"$d\"" || bad "scrape lacks decision=\"$d\""
done

# ---- the rules and the dashboard against the scrape ------------------------
pend=(); for p in "${PENDING[@]}"; do pend+=(--pending "$p"); done
python3 "$HERE/check.py" "$T/metrics.txt" "$MON/prometheusrule.yaml" \
    "$MON/grafana-dashboard.json" "${pend[@]}" ${PT:+--promtool "$PT"} --tmp "$T" \
    >"$T/check.out" 2>&1
rc=$?
grep -E '^(skipped|syntax|note)' "$T/check.out"
tally "$T/check.out"
grep -q '^[0-9]* passed, [0-9]* failed' "$T/check.out" && [ $rc -le 1 ] \
    || { bad "check.py crashed (exit $rc)"; tail -5 "$T/check.out"; }
if [ -n "$PT" ]; then   # the fallback parser agrees on this input too
    PROMTOOL=none python3 "$HERE/check.py" "$T/metrics.txt" "$MON/prometheusrule.yaml" \
        "$MON/grafana-dashboard.json" "${pend[@]}" >"$T/check-py.out" 2>&1 \
        && ok "promql.py accepts every expression promtool accepts" \
        || { bad "promql.py disagrees with promtool"; grep '^FAIL' "$T/check-py.out" | head -5; }
fi

# ---- the checker can fail ------------------------------------------------------
sed 's/claimcheck_deadline_overruns_total/claimcheck_deadline_overrun_total/' \
    "$MON/prometheusrule.yaml" >"$T/misspelt.yaml"
python3 "$HERE/check.py" "$T/metrics.txt" "$T/misspelt.yaml" "$MON/grafana-dashboard.json" \
    "${pend[@]}" ${PT:+--promtool "$PT"} --tmp "$T" >"$T/m1.out" 2>&1
[ $? = 1 ] && grep -q '^FAIL .*claimcheck_deadline_overrun_total exported' "$T/m1.out" \
    && ok "a misspelt metric fails the check" || { bad "a misspelt metric passes"; tail -3 "$T/m1.out"; }
sed 's/(rate(claimcheck_admission_duration_seconds_bucket{job="claimcheck"}\[5m\]))/(rate(claimcheck_admission_duration_seconds_bucket{job="claimcheck"}))/' \
    "$MON/prometheusrule.yaml" >"$T/broken.yaml"
if cmp -s "$T/broken.yaml" "$MON/prometheusrule.yaml"; then
    bad "mutation: the latency alert's expression was not found"
else
    python3 "$HERE/check.py" "$T/metrics.txt" "$T/broken.yaml" "$MON/grafana-dashboard.json" \
        "${pend[@]}" ${PT:+--promtool "$PT"} --tmp "$T" >"$T/m2.out" 2>&1
    [ $? = 1 ] && grep -q '^FAIL .*pars' "$T/m2.out" \
        && ok "rate() of an instant vector fails the syntax check" \
        || { bad "a broken expression passes"; tail -3 "$T/m2.out"; }
fi
sed 's/decision="deny"/decision="denied"/' "$MON/prometheusrule.yaml" >"$T/label.yaml"
python3 "$HERE/check.py" "$T/metrics.txt" "$T/label.yaml" "$MON/grafana-dashboard.json" \
    "${pend[@]}" --tmp "$T" >"$T/m3.out" 2>&1
[ $? = 1 ] && grep -q '^FAIL .*decision="denied".* has a series' "$T/m3.out" \
    && ok "a label value no series has fails the check" || { bad "a wrong label value passes"; tail -3 "$T/m3.out"; }

# ---- promtool: the exposition format and the alerts' unit tests -----------------
if [ -n "$PT" ]; then
    "$PT" check metrics <"$T/metrics.txt" >"$T/lint.out" 2>&1
    [ $? = 0 ] && ok "promtool check metrics: the scrape is clean" \
        || { bad "promtool check metrics"; head -10 "$T/lint.out"; }
    python3 -c '
import sys, yaml
pr = yaml.safe_load(open(sys.argv[1]))
for g in pr["spec"]["groups"]:     # the unit tests compare summaries only
    for r in g["rules"]:
        r.get("annotations", {}).pop("description", None)
yaml.safe_dump({"groups": pr["spec"]["groups"]}, open(sys.argv[2], "w"))
' "$MON/prometheusrule.yaml" "$T/claimcheck.rules.yaml"
    sed "s|@RULES@|$T/claimcheck.rules.yaml|" "$HERE/alerts_test.yaml" >"$T/alerts_test.yaml"
    "$PT" test rules "$T/alerts_test.yaml" >"$T/unit.out" 2>&1
    [ $? = 0 ] && ok "promtool test rules: alerts fire on their series, not on healthy ones" \
        || { bad "promtool test rules"; head -40 "$T/unit.out"; }
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
