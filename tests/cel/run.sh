#!/usr/bin/env bash
# tests/cel/run.sh - the CEL conformance suite (cel-spec v0.25.1, as packaged
# in @bufbuild/cel-spec@0.6.1 on npm). Installs the package into
# tests/cel/node_modules (git-ignored) unless it is already there, dumps
# testdata/conformance.js to build/cel/conformance.json and runs it through
# build/tests/test_cel_conformance. Offline works once node_modules exists;
# without npm/node it reports "skipped: npm unavailable" and passes.
# The last line is always "N passed, N failed"; exit status is non-zero
# only when some test failed.
set -u
cd "$(dirname "$0")/../.." || exit 1

PKG="@bufbuild/cel-spec@0.6.1"
# installed together with the benchmark's peer, so neither npm run prunes
# the other (tests/bench/cel/run.sh installs the same pair)
PEER="@bufbuild/cel@0.6.1"
NM=tests/cel/node_modules/@bufbuild/cel-spec
OUT=build/cel/conformance.json

skip() {
    echo "skipped: $1"
    echo "0 passed, 0 failed"
    exit 0
}

if [ ! -f "$NM/package.json" ]; then
    command -v npm >/dev/null 2>&1 || skip "npm unavailable"
    echo "installing $PKG into tests/cel/node_modules"
    if ! (cd tests/cel && timeout 300 npm install --no-save --no-package-lock \
            --no-audit --no-fund --fetch-retries=1 --fetch-timeout=20000 --prefix . "$PKG" "$PEER" >/dev/null 2>&1); then
        skip "npm unavailable (npm install $PKG failed)"
    fi
fi
command -v node >/dev/null 2>&1 || skip "node unavailable"

mkdir -p build/cel
if [ ! -s "$OUT" ] || [ "$NM/package.json" -nt "$OUT" ] || [ "$0" -nt "$OUT" ]; then
    # Strings holding NUL would be cut short by cJSON: ship them as
    # {"$u8b64": base64(utf8)} and let the driver decode them.
    (cd tests/cel && node -e '
        const {tests} = require("@bufbuild/cel-spec/testdata/conformance.js");
        const fix = (k, v) => (typeof v === "string" && v.includes("\u0000"))
            ? {"$u8b64": Buffer.from(v, "utf8").toString("base64")} : v;
        process.stdout.write(JSON.stringify(tests, fix));
    ') > "$OUT.tmp" && mv "$OUT.tmp" "$OUT" || skip "could not dump conformance.js"
fi

make -s build/tests/test_cel_conformance >/dev/null 2>&1 || {
    echo "cannot build build/tests/test_cel_conformance"
    echo "0 passed, 1 failed"
    exit 1
}
exec build/tests/test_cel_conformance "$OUT" "$@"
