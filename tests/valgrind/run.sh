#!/usr/bin/env bash
# tests/valgrind/run.sh - valgrind memcheck of the claimcheck linter: every
# golden case (tests/rules/*/{fail,pass}-*.yaml with its .args, run from its
# folder as tests/golden.sh does), the upstream corpus in every output
# format (text and json with an inventory, sarif at -k 1.33, junit and
# github without), the input-parse hostile cases, and
# the other subcommands (rules, explain, gates, cel, match); and the
# webhook's AdmissionReview handler in-process over several hundred
# request bodies.
# A case fails when memcheck reports an error or a definite leak (exit 99)
# or the linter crashes (exit >= 128); findings (exit 1/2) are expected.
#
#   tests/valgrind/run.sh [-j N]      (N parallel valgrinds, default 2)
#
# Needs a linter built WITHOUT sanitizers (valgrind and ASan do not mix):
# build/claimcheck, or $CLAIMCHECK. The last line is "N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
jobs=2
[ "${1:-}" = "-j" ] && jobs=${2:-2}
bin=${CLAIMCHECK:-$top/build/claimcheck}
upstream=${CLAIMCHECK_CORPUS:-$top/../shared/corpus/upstream}

skip() { echo "skipped: $1"; echo "0 passed, 0 failed"; exit 0; }
command -v valgrind >/dev/null 2>&1 || skip "valgrind not installed"
[ -x "$bin" ] || { echo "FAIL no linter at $bin (make first)"; echo "0 passed, 1 failed"; exit 1; }
if nm "$bin" 2>/dev/null | grep -q '__asan_init'; then
  skip "$bin is built with AddressSanitizer"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cases=$work/cases
: >"$cases"
add() {   # dir, then the claimcheck arguments: one case per line, NUL-free
  local d=$1; shift
  printf '%s' "$d" >>"$cases"
  printf '\t%s' "$@" >>"$cases"
  printf '\n' >>"$cases"
}

for f in tests/rules/*/fail-*.yaml tests/rules/*/pass-*.yaml; do
  [ -e "$f" ] || continue
  d=$(dirname "$f"); c=$(basename "$f" .yaml); args=()
  [ -f "$d/$c.args" ] && read -r -a args <"$d/$c.args"
  add "$d" lint --no-hints --no-color "${args[@]}" "$c.yaml"
done
if [ -d "$upstream" ]; then
  slices=$(grep -rl 'kind: ResourceSlice' "$upstream" | grep -v testdata | head -n 4)
  inv=(); for s in $slices; do inv+=(-i "$s"); done
  # text, json and sarif are the two runs below
  for fmt in junit github; do
    add . lint -o "$fmt" --output /dev/null --fail-on never "$upstream"
  done
  add . lint -o json --output /dev/null -o text --show-suppressed "${inv[@]}" "$upstream"
  add . lint -k 1.33 -g DRAPrioritizedList=true -o sarif --output /dev/null "$upstream"
  [ ${#inv[@]} -gt 0 ] && add . match "${inv[@]}" 'device.driver != ""'
fi
add . rules -o json
add . explain shared-claim-replicas
add . gates
add . version
add . cel 'device.attributes["gpu.example.com"].model.matches("^a1") || quantity("1Gi").isGreaterThan(quantity("1G"))'
add . cel '[1, 2, 3].all(x, x > 0) && "abc".contains("b") && semver("1.2.3").isLessThan(semver("1.10.0"))'
add . cel 'device.driver =='
add . lint --no-color tests/fuzz/seeds/fuzz_yaml
add . lint --no-color -o json tests/fuzz/seeds/fuzz_json

# The webhook's admission handler in-process (tests/e2e/hostile_driver.c,
# one engine for every request, as the server has): the AdmissionReview
# examples plus one review per manifest of the tests and the corpus
# (tests/fuzz/gen_corpus.py, when python3 has PyYAML).
lib=$(dirname "$bin")
if [ -f "$lib/libhook.a" ] && [ -f "$lib/libcore.a" ] \
   && grep -q admission_handle webhook/admission.h 2>/dev/null; then
  pk() { pkg-config "$@" 2>/dev/null; }
  # shellcheck disable=SC2046
  if ${CC:-cc} -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O1 -g \
       -DHAVE_ADMISSION $(pk --cflags yaml-0.1 libcjson libpcre2-8) \
       tests/e2e/hostile_driver.c "$lib/libhook.a" "$lib/libcore.a" \
       $(pk --libs libmicrohttpd gnutls openssl libcurl yaml-0.1 libcjson libpcre2-8) \
       -lpthread -lm -o "$work/driver" 2>"$work/cc.log"; then
    mkdir -p "$work/reviews"
    cp deploy/examples/admission-*.json tests/admission/*.json "$work/reviews/" 2>/dev/null
    if python3 -c 'import yaml' 2>/dev/null; then
      python3 tests/fuzz/gen_corpus.py "$work/gen" "$upstream" >/dev/null
      for f in "$work"/gen/fuzz_admission/g-*; do
        [ -e "$f" ] && tail -c +2 "$f" >"$work/reviews/$(basename "$f").json"
      done
      rm -rf "$work/gen"
    fi
    n=$(ls "$work/reviews" | wc -l)
    echo "admission: $n request bodies in one process"
    printf '%s\t%s\t%s\n' . "$work/driver" admission >>"$cases.hook"
  else
    echo "note: admission driver did not build:"; head -n 5 "$work/cc.log"
  fi
fi

run_one() {   # line of $cases; prints "ok" or "FAIL ..."
  local line=$1 d rest rc log
  IFS=$'\t' read -r -a rest <<<"$line"
  d=${rest[0]}; rest=("${rest[@]:1}")
  log=$(mktemp)
  (cd "$d" && timeout 300 valgrind -q --error-exitcode=99 --leak-check=full \
     --errors-for-leak-kinds=definite --show-leak-kinds=definite \
     --log-fd=3 "$BIN" "${rest[@]}" 3>"$log" >/dev/null 2>&1)
  rc=$?
  if [ $rc -eq 99 ] || [ $rc -ge 124 ] || [ -s "$log" ]; then
    echo "FAIL ($d) claimcheck ${rest[*]} (exit $rc)"
    sed 's/^/    /' "$log" | head -n 30
  else
    echo "ok ($d) claimcheck ${rest[*]}"
  fi
  rm -f "$log"
}
export -f run_one
export BIN=$bin

res=$work/results
tr '\n' '\0' <"$cases" | xargs -0 -P "$jobs" -I{} bash -c 'run_one "$1"' _ {} >"$res"
if [ -f "$cases.hook" ]; then
  log=$work/hook.log
  (timeout 600 valgrind -q --error-exitcode=99 --leak-check=full \
     --errors-for-leak-kinds=definite --show-leak-kinds=definite --log-fd=3 \
     "$work/driver" admission "$work"/reviews/*.json 3>"$log" >"$work/hook.out" 2>&1)
  rc=$?
  if [ $rc -eq 99 ] || [ $rc -ge 124 ] || [ -s "$log" ]; then
    echo "FAIL (.) hostile_driver admission <$(ls "$work/reviews" | wc -l) reviews> (exit $rc)" >>"$res"
    sed 's/^/    /' "$log" | head -n 30 >>"$res"
  else
    echo "ok (.) hostile_driver admission: $(awk '{print $2}' "$work/hook.out" | sort | uniq -c | tr -s ' \n' ' ')" >>"$res"
  fi
fi
grep '^ok (.) hostile_driver' "$res"
grep -A30 '^FAIL' "$res" | grep -v '^ok ' | head -n 200
pass=$(grep -c '^ok ' "$res"); fail=$(grep -c '^FAIL' "$res")
echo "valgrind: $pass cases clean, $fail with errors, definite leaks or crashes"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
