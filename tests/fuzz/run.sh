#!/usr/bin/env bash
# run.sh - runs each libFuzzer target of build/fuzz/ for SECONDS, one after
# the other (nice -n 10), on its seeds (tests/fuzz/seeds/<target>, read
# only) plus a working corpus in build/fuzz/corpus/<target> that
# gen_corpus.py fills from the tests and the shared corpus first.
#
#   tests/fuzz/run.sh SECONDS [TARGET...]     (build first: make fuzz)
#
# Per target it prints executions, exec/s, coverage and any crash, leak or
# timeout file (build/fuzz/artifacts/<target>/); the last line is
# "N passed, N failed" (a target fails when it leaves an artifact or exits
# non-zero). Reproduce a finding with: build/fuzz/<target> <artifact>.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
secs=${1:?usage: tests/fuzz/run.sh SECONDS [TARGET...]}
shift
out=${FUZZ_BUILD:-build/fuzz}
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in tests/fuzz/fuzz_*.c; do
    t=$(basename "${f%.c}")
    [ -x "$out/$t" ] && targets+=("$t")
  done
fi
[ ${#targets[@]} -gt 0 ] || { echo "no targets in $out/: run make fuzz"; exit 1; }

if command -v python3 >/dev/null 2>&1; then
  python3 tests/fuzz/gen_corpus.py "$out/corpus" ${FUZZ_UPSTREAM:+"$FUZZ_UPSTREAM"}
fi

max_len_of() {
  case $1 in
    fuzz_quantity_semver) echo 256;;
    fuzz_config) echo 4096;;
    fuzz_cel) echo 12288;;          # past the 10 KiB expression limit
    fuzz_admission) echo 65536;;
    *) echo 16384;;
  esac
}
dict_of() {
  case $1 in
    fuzz_yaml|fuzz_lint|fuzz_config) echo tests/fuzz/yaml.dict;;
    fuzz_json|fuzz_admission) echo tests/fuzz/json.dict;;
    fuzz_cel) echo tests/fuzz/cel.dict;;
  esac
}

pass=0; fail=0
printf '%-22s %8s %12s %8s %8s  %s\n' target seconds execs exec/s cov result
for t in "${targets[@]}"; do
  bin=$out/$t
  [ -x "$bin" ] || { echo "$t: not built"; fail=$((fail + 1)); continue; }
  corp=$out/corpus/$t art=$out/artifacts/$t/ log=$out/logs/$t.log
  mkdir -p "$corp" "$art" "$out/logs"
  seeds=tests/fuzz/seeds/$t
  dict=$(dict_of "$t")
  before=$(ls "$art" | wc -l)
  t0=$(date +%s)
  nice -n 10 "$bin" -max_total_time="$secs" -max_len="$(max_len_of "$t")" \
    -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
    -artifact_prefix="$art" ${dict:+-dict=$dict} \
    "$corp" ${seeds:+$( [ -d "$seeds" ] && echo "$seeds")} >"$log" 2>&1
  rc=$?
  dur=$(( $(date +%s) - t0 ))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -n 1 | sed 's/cov: //')
  new=$(( $(ls "$art" | wc -l) - before ))
  if [ "$rc" -eq 0 ] && [ "$new" -eq 0 ]; then
    res=ok; pass=$((pass + 1))
  else
    res="FAIL (exit $rc)"; fail=$((fail + 1))
  fi
  printf '%-22s %8s %12s %8s %8s  %s\n' "$t" "$dur" "${execs:-?}" \
    "${eps:-?}" "${cov:-?}" "$res"
  if [ "$res" != ok ]; then
    grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|ALARM|.*Test unit written)' \
      "$log" | head -n 8 | sed 's/^/    /'
    ls -t "$art" | head -n 3 | sed "s|^|    artifact: $art|"
  fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
