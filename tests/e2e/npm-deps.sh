# tests/e2e/npm-deps.sh - sourced by deploy.sh and formats.sh.
# npm_ensure: makes sure every package of E2E_NPM_PKGS is in
# tests/e2e/node_modules (git-ignored). They are always installed together,
# pinned, without a package.json: npm prunes what an install does not name,
# so installing a subset would remove the rest. Returns non-zero (and says
# why on stdout) when npm/node is missing or the registry is unreachable;
# the caller then skips the tests that need them.
#   @bufbuild/cel         CEL evaluator: the webhook's matchConditions
#   ajv, ajv-draft-04, ajv-formats  JSON Schema validator (the SARIF schema is draft-04)
#   @microsoft/jest-sarif ships the SARIF 2.1.0 schema (lib/schemas/sarif-2.1.0-rtm.5.json)
#   js-yaml               YAML for the Python checks when PyYAML is missing
#   puppeteer-core        drives Debian's chromium for the HTML report
E2E_NM="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/node_modules"
E2E_NPM_PKGS=(@bufbuild/cel@0.6.1 ajv@8.17.1 ajv-draft-04@1.0.0 ajv-formats@3.0.1
              @microsoft/jest-sarif@1.0.0-beta.0 js-yaml@4.1.0
              puppeteer-core@25.16.0)
npm_ensure() {
  local p missing=0
  for p in "${E2E_NPM_PKGS[@]}"; do
    [ -f "$E2E_NM/${p%@*}/package.json" ] || missing=1
  done
  [ $missing -eq 0 ] && return 0
  command -v npm >/dev/null 2>&1 || { echo "npm unavailable"; return 1; }
  command -v node >/dev/null 2>&1 || { echo "node unavailable"; return 1; }
  echo "installing ${E2E_NPM_PKGS[*]} into tests/e2e/node_modules"
  if ! (cd "$(dirname "$E2E_NM")" && timeout 300 npm install --no-save --no-package-lock \
        --no-audit --no-fund --prefix . "${E2E_NPM_PKGS[@]}" >/dev/null 2>&1); then
    echo "npm install failed (registry unreachable?)"
    return 1
  fi
}
