#!/usr/bin/env bash
# tests/bench/json/run.sh - the JSON reader's micro-benchmark (bench.c): the
# webhook's AdmissionReview parse with and without positions, and a relist,
# against cJSON. The review is tests/admission/deny-device-plugin-conflict
# made compact, as the apiserver sends it.
set -u
cd "$(dirname "$0")/../../.." || exit 1

make -s build/libcore.a >/dev/null || { echo "cannot build build/libcore.a"; exit 1; }
mkdir -p build/bench
CC=${CC:-cc}
# shellcheck disable=SC2046
$CC -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -g -Wall -Wextra \
    $(pkg-config --cflags libcjson) -o build/bench/json_bench \
    tests/bench/json/bench.c build/libcore.a \
    $(pkg-config --libs libcjson yaml-0.1 libpcre2-8) -lm || exit 1
python3 -c 'import json, sys; json.dump(json.load(sys.stdin), sys.stdout,
separators=(",", ":"))' < tests/admission/deny-device-plugin-conflict.review.json \
    > build/bench/review-compact.json || exit 1
build/bench/json_bench build/bench/review-compact.json
