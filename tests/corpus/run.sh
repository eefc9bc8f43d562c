#!/usr/bin/env bash
# corpus/run.sh - lint every manifest of ../shared/corpus/upstream (real
# files from public DRA drivers and docs) and compare the findings with
# tests/corpus/expected.txt, whose every line was checked by hand against
# its file (see tests/corpus/REVIEW.md). Also lints each file on its own:
# a crash, a hang or exit 2 on a file that parses is a failure.
# Usage: tests/corpus/run.sh [--update]
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
bin="$top/build/claimcheck"
corpus="${CLAIMCHECK_CORPUS:-$top/../shared/corpus/upstream}"
expected="$top/tests/corpus/expected.txt"
# files that do not parse on purpose (SOURCES.md / README.md of the corpus)
unparseable="kubernetes__website/content/en/docs/concepts/scheduling-eviction/dynamic-resource-allocation.md.extracted/v1alpha2-cats.yaml"
pass=0; fail=0
if [ ! -d "$corpus" ]; then
  # a fresh clone has no ../shared: the corpus lives outside the repository
  echo "skipped: corpus: $corpus not found (set CLAIMCHECK_CORPUS to the upstream corpus)"
  echo "0 passed, 0 failed, 1 skipped"; exit 0
fi
# One run per repository snapshot, as a user lints their own repository:
# references resolve inside it, and ResourceSlices of one project's docs
# are not an inventory for another project's claims.
out=""
for repo in $(cd "$corpus" && ls -d */ | sort); do
  repo=${repo%/}
  part=$(cd "$corpus" && timeout 60 "$bin" lint --no-hints --no-color "$repo" 2>&1)
  rc=$?
  if [ $rc -gt 2 ]; then echo "FAIL corpus run $repo: exit $rc"; fail=$((fail+1)); else pass=$((pass+1)); fi
  out="$out$part"$'\n'
done
out=${out%$'\n'}
if [ "${1:-}" = "--update" ]; then printf '%s\n' "$out" > "$expected"; fi
if [ "$out" != "$(cat "$expected")" ]; then
  echo "FAIL corpus findings differ from tests/corpus/expected.txt:"
  diff -u "$expected" <(printf '%s\n' "$out") | head -60
  fail=$((fail+1))
else
  pass=$((pass+1))
fi
while IFS= read -r f; do
  rel=${f#"$corpus"/}
  timeout 20 "$bin" lint --no-color "$f" >/dev/null 2>&1
  rc=$?
  if [ $rc -eq 124 ]; then echo "FAIL $rel: hang (timeout)"; fail=$((fail+1)); continue; fi
  if [ $rc -gt 2 ]; then echo "FAIL $rel: crash (exit $rc)"; fail=$((fail+1)); continue; fi
  if [ $rc -eq 2 ] && [ "$rel" != "$unparseable" ]; then
    echo "FAIL $rel: exit 2 on a file that parses"; fail=$((fail+1)); continue
  fi
  pass=$((pass+1))
done < <(find "$corpus" -type f \( -name '*.yaml' -o -name '*.yml' -o -name '*.json' \) | sort)
echo "corpus: $pass passed, $fail failed"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
