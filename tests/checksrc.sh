#!/usr/bin/env bash
# checksrc.sh - the house rules a compiler does not check (curl's
# checksrc.pl in small): `make checksrc` and a suite of `make test`; a
# finding fails. Each check names file:line and the rule.
#   banned      sprintf strcpy strcat strncpy strtok atoi atol sscanf gets
#   assign-cond no assignment inside an if/while condition, and no body on
#               the condition's line (tests/checksrc_cond.pl)
#   arena-size  arena_init() takes a named size from validate/limits.h
#   dep-header  a dependency's header is included in its one file/folder
#   layering    validate/ includes no rules/ lint/ webhook/ certs/; rules/
#               none of lint/ webhook/ certs/; lint/ no webhook/
#   head        every .c/.h opens with a comment saying what it owns
#   check-h     every unit test uses tests/unit/check.h
#   width       at most 80 columns (generated tables excepted)
# Last line: "N passed, N failed".
set -u
cd "$(dirname "$0")/.." || exit 1
pass=0; fail=0
finding() { echo "FAIL $*"; fail=$((fail + 1)); }
rule() {    # name, the findings (empty: the rule passes)
  local name=$1 out=$2
  if [ -n "$out" ]; then
    while IFS= read -r l; do finding "$name: $l"; done <<<"$out"
  else
    pass=$((pass + 1))
  fi
}
mapfile -t all < <(git ls-files '*.c' '*.h' 2>/dev/null | grep -v '^tests/k8s/')
[ ${#all[@]} -gt 0 ] || mapfile -t all < <(find validate rules lint webhook certs tests \
  -name '*.[ch]' -not -path '*/node_modules/*' 2>/dev/null | sort)
src=(); for f in "${all[@]}"; do case $f in tests/*) ;; *) src+=("$f");; esac; done
hand=(); for f in "${src[@]}"; do case $f in *_data.[ch]) ;; *) hand+=("$f");; esac; done

rule banned "$(grep -nE \
  '\b(sprintf|vsprintf|strcpy|strcat|strncpy|strtok|atoi|atol|atoll|sscanf|gets)\(' \
  "${all[@]}")"
rule assign-cond "$(perl tests/checksrc_cond.pl "${all[@]}")"
rule arena-size "$(grep -nE 'arena_init\([^,]+, *[0-9(]' "${src[@]}")"

dep() {     # header regex, allowed path regex
  rule "dep-header <$1>" "$(grep -nE "#include <($1)" "${all[@]}" | grep -vE "^($2):")"
}
dep 'yaml\.h' 'validate/load_yaml\.c|tests/bench/lint/yaml_events\.c'
dep 'pcre2\.h' 'validate/cel/regex\.c'
dep 'curl/' 'webhook/kubeapi\.c'
dep 'microhttpd\.h' 'webhook/server\.c|webhook/tls\.c|tests/bench/webhook/bare\.c'
dep 'gnutls/' 'webhook/tls\.c|tests/unit/hook_test_certs_gnutls\.c'
dep 'openssl/' 'certs/[a-z_]+\.[ch]|tests/certs/certs_driver\.c'
dep 'cJSON\.h' 'tests/.*'

rule "layering validate/" "$(grep -nE '#include "(\.\./)+(rules|lint|webhook|certs)/' \
  validate/*.[ch] validate/*/*.[ch] 2>/dev/null)"
rule "layering rules/" "$(grep -nE '#include "\.\./(lint|webhook|certs)/' rules/*.[ch] 2>/dev/null)"
rule "layering lint/" "$(grep -nE '#include "\.\./webhook/' lint/*.[ch] 2>/dev/null)"

rule head "$(for f in "${all[@]}"; do
  head -n 1 "$f" | grep -qE '^/\*' || echo "$f:1: no head comment"
done)"
rule check-h "$(for f in tests/unit/*test_*.c; do
  grep -q '#include "check.h"' "$f" || echo "$f: does not use check.h"
done)"
rule width "$(awk 'length > 80 { print FILENAME ":" FNR ": " length " columns" }' "${hand[@]}")"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
