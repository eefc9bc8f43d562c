#!/usr/bin/env bash
# tests/e2e/release.sh - releases, as far as they can be checked here (no
# registry, no GitHub):
#  1. .github/workflows/release.yml and deploy/Dockerfile, statically
#     (release_check.py: trigger, jobs, permissions, make targets, paths,
#     artifact names, images and platforms; the Dockerfile's packages,
#     binaries and runtime libraries against the Makefile and the binaries);
#  2. the workflow's tag check, run as GitHub runs it: the tag v + VERSION
#     passes, another tag fails;
#  3. packaging/release.py on a copy of the tree: every reference agrees;
#     a reference to another version or image fails the check (named);
#     `make release-bump V=...` rewrites VERSION and every reference.
# Last line: "N passed, N failed"; exit status non-zero on any failure.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top/tests/e2e/lib.sh"

need_pyyaml "release checks"
version=$(cat VERSION)

# ---- 1. static checks --------------------------------------------------------
python3 tests/e2e/release_check.py "$top" >"$tmp/static.out" 2>&1
rc=$?
grep -E '^(ok|skipped:) ' "$tmp/static.out"
tally "$tmp/static.out"
[ $rc -eq 0 ] || { bad "release_check.py crashed (exit $rc)"; tail -5 "$tmp/static.out"; }

# ---- 2. the tag check, as GitHub runs a step ------------------------------------
python3 -c '
import sys, yaml
wf = yaml.safe_load(open(".github/workflows/release.yml"))
print([s for s in wf["jobs"]["check"]["steps"] if s.get("id") == "version"][0]["run"])
' >"$tmp/tag.sh" 2>"$tmp/tag.err" || bad "workflow: no step with id version in job check"
tagstep() {  # TAG -> rc; GitHub runs `bash --noprofile --norc -eo pipefail`
  : >"$tmp/gh_output"
  TAG=$1 GITHUB_OUTPUT="$tmp/gh_output" bash --noprofile --norc -eo pipefail "$tmp/tag.sh" \
    >"$tmp/tag.out" 2>&1
}
tagstep "v$version"; rc=$?
[ $rc -eq 0 ] && grep -qx "version=$version" "$tmp/gh_output" \
  && ok "tag check: v$version passes and outputs version=$version" \
  || { bad "tag check on v$version: exit $rc"; cat "$tmp/tag.out"; }
tagstep "v$version.1"; rc=$?
[ $rc -ne 0 ] && grep -q "::error title=release::tag v$version.1 is not v$version" "$tmp/tag.out" \
  && [ ! -s "$tmp/gh_output" ] && ok "tag check: v$version.1 fails with an annotation" \
  || { bad "tag check on v$version.1: exit $rc"; cat "$tmp/tag.out"; }

# ---- 3. release.py on a copy -------------------------------------------------
copy=$tmp/tree
mkdir -p "$copy"
git ls-files -z | xargs -0 cp --parents -t "$copy" 2>/dev/null
for f in VERSION packaging/release.env packaging/release.py; do cp "$f" "$copy/$f"; done
rel() { (cd "$copy" && python3 packaging/release.py "$@") >"$tmp/rel.out" 2>&1; }
rel check && ok "release.py check on a copy of the tree" || { bad "release.py check"; cat "$tmp/rel.out"; }
sed -i 's/newTag: "'"$version"'"/newTag: "0.0.1"/' "$copy/deploy/kubernetes/base/kustomization.yaml"
rel check; rc=$?
[ $rc -eq 1 ] && grep -q "^deploy/kubernetes/base/kustomization.yaml:[0-9]*: kustomize tag names 0.0.1, VERSION is $version" "$tmp/rel.out" \
  && ok "release.py check fails on a Kustomize tag that names another version" \
  || { bad "release.py check missed a stale Kustomize tag (exit $rc)"; cat "$tmp/rel.out"; }
sed -i 's|ghcr.io/claimcheck/claimcheck:'"$version"' lint|ghcr.io/someone/claimcheck:'"$version"' lint|' "$copy/.pre-commit-hooks.yaml"
rel check
grep -q "^.pre-commit-hooks.yaml:[0-9]*: image 'ghcr.io/someone/claimcheck' is not a published image" "$tmp/rel.out" \
  && ok "release.py check fails on an image the workflow does not publish" \
  || { bad "release.py check missed an unpublished image"; cat "$tmp/rel.out"; }
sed -i 's|ghcr.io/someone/claimcheck:|ghcr.io/claimcheck/claimcheck:|' "$copy/.pre-commit-hooks.yaml"
(cd "$copy" && find . -type f ! -name VERSION -exec md5sum {} + | sort -k2) >"$tmp/before"
(cd "$copy" && make --no-print-directory release-bump V=9.8.7) >"$tmp/bump.out" 2>&1; rc=$?
(cd "$copy" && find . -type f ! -name VERSION -exec md5sum {} + | sort -k2) >"$tmp/after"
changed=$(diff "$tmp/before" "$tmp/after" | sed -n 's/^> [0-9a-f]*  \.\///p' | sort | tr '\n' ' ')
[ $rc -eq 0 ] && [ "$(cat "$copy/VERSION")" = 9.8.7 ] && grep -q 'name 9.8.7' "$tmp/bump.out" \
  && ok "make release-bump V=9.8.7: VERSION and every reference (changed: $changed)" \
  || { bad "make release-bump: exit $rc"; cat "$tmp/bump.out"; }
left=""
for f in .pre-commit-hooks.yaml deploy/kubernetes/base/deployment.yaml \
         deploy/kubernetes/base/kustomization.yaml deploy/github-action/example-workflow.yml docs/ci.md; do
  grep -q "9\.8\.7" "$copy/$f" && ! grep -qE "(:|@v|rev: v|newTag: \")$version\b" "$copy/$f" \
    || left="$left $f"
done
[ -z "$left" ] && ok "release-bump: the pre-commit hook, Kustomize, the Action example and docs/ci.md name 9.8.7" \
  || bad "release-bump left at $version:$left"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
