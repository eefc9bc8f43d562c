#!/usr/bin/env bash
# build.sh - builds the libFuzzer targets of tests/fuzz/ into build/fuzz/
# (`make fuzz`). The project's sources are compiled again with clang and
# coverage instrumentation (-fsanitize=fuzzer-no-link,address,undefined):
# build/libcore.a is gcc-built without it, so it is not linked.
#
#   tests/fuzz/build.sh [TARGET...]      default: every fuzz_*.c here
#
# Environment: FUZZ_BUILD (default build/fuzz), CLANG (default clang),
# JOBS (parallel compiles, default 2). Objects are rebuilt only when their
# source or a header they include changed.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
out=${FUZZ_BUILD:-build/fuzz}
cc=${CLANG:-clang}
jobs=${JOBS:-2}

if ! command -v "$cc" >/dev/null 2>&1; then
  echo "fuzz: '$cc' not found; install clang and libclang-rt-14-dev" \
       "(apt-get install -y clang libclang-rt-14-dev)" >&2
  exit 1
fi
probe=$(mktemp -d)
printf 'int LLVMFuzzerTestOneInput(const char *d, long n)'\
'{ (void)d; (void)n; return 0; }\n' >"$probe/p.c"
if ! "$cc" -fsanitize=fuzzer,address,undefined "$probe/p.c" \
     -o "$probe/p" 2>"$probe/err"; then
  cat "$probe/err" >&2
  echo "fuzz: '$cc' cannot link libFuzzer; install libclang-rt-14-dev" >&2
  rm -rf "$probe"; exit 1
fi
rm -rf "$probe"

core_pkgs="yaml-0.1 libcjson libpcre2-8"   # cJSON: fuzz_json's oracle
hook_pkgs="libmicrohttpd gnutls openssl libcurl"
core_cflags=$(pkg-config --cflags $core_pkgs) || exit 1
core_libs="$(pkg-config --libs $core_pkgs) -lm"
hook_cflags=$(pkg-config --cflags $hook_pkgs 2>/dev/null || true)
hook_libs="$(pkg-config --libs $hook_pkgs 2>/dev/null || true) -lpthread"

san="-fsanitize=address,undefined -fno-sanitize-recover=all"
base="-std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -g -O1 \
  -fno-omit-frame-pointer -Wall -Wextra -Wno-unused-parameter $san"
cflags="$base -fsanitize=fuzzer-no-link -DCLAIMCHECK_FUZZING"

core_src=$(ls validate/*.c validate/cel/*.c validate/k8s/*.c rules/*.c lint/*.c | grep -v '^lint/main.c$')
hook_src=""
if [ -f webhook/admission.h ] && grep -q 'admission_handle' webhook/admission.h; then
  hook_src=$(ls webhook/*.c certs/*.c 2>/dev/null | grep -v '^webhook/main.c$')
fi

# stale: object missing, or older than its source or any dependency it
# recorded (-MMD) the last time
stale() {   # obj src
  local o=$1 s=$2 d=${1%.o}.d dep
  [ -f "$o" ] && [ -f "$d" ] || return 0
  [ "$s" -nt "$o" ] && return 0
  for dep in $(sed -e 's/^[^:]*://' -e 's/\\$//' "$d"); do
    case "$dep" in *:) continue;; esac
    [ -e "$dep" ] || return 0
    [ "$dep" -nt "$o" ] && return 0
  done
  return 1
}

version=$(cat VERSION)   # the Makefile's fallback; see validate/version.h
compile() {   # src
  local s=$1 o=$out/obj/${1%.c}.o extra=""
  case "$s" in
    webhook/*|certs/*) extra=$hook_cflags;;
    validate/version.c) extra="-DCLAIMCHECK_VERSION=\"$version\"";;
  esac
  mkdir -p "$(dirname "$o")"
  # shellcheck disable=SC2086
  if ! nice -n 10 "$cc" $cflags $core_cflags $extra -MMD -MP -c "$s" -o "$o"; then
    echo "fuzz: compiling $s failed" >&2; return 1
  fi
}
export -f compile
export out cc cflags core_cflags hook_cflags version

todo=()
for s in $core_src $hook_src; do
  stale "$out/obj/${s%.c}.o" "$s" && todo+=("$s")
done
if [ ${#todo[@]} -gt 0 ]; then
  echo "fuzz: compiling ${#todo[@]} sources with $cc (-j$jobs)"
  printf '%s\n' "${todo[@]}" | xargs -P "$jobs" -I{} bash -c 'compile "$@"' _ {} \
    || exit 1
fi
core_obj=""; for s in $core_src; do core_obj+=" $out/obj/${s%.c}.o"; done
hook_obj=""; for s in $hook_src; do hook_obj+=" $out/obj/${s%.c}.o"; done

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in tests/fuzz/fuzz_*.c; do targets+=("$(basename "${f%.c}")"); done
fi
built=0
for t in "${targets[@]}"; do
  src=tests/fuzz/$t.c
  [ -f "$src" ] || { echo "fuzz: no $src" >&2; exit 1; }
  objs=$core_obj libs=$core_libs
  if [ "$t" = fuzz_admission ]; then
    if [ -z "$hook_src" ]; then
      echo "fuzz: skipping $t (webhook/admission.h has no admission_handle)"
      continue
    fi
    objs="$hook_obj $core_obj" libs="$hook_libs $core_libs"
  fi
  # shellcheck disable=SC2086
  nice -n 10 "$cc" $base -fsanitize=fuzzer $core_cflags $hook_cflags \
    "$src" $objs $libs -o "$out/$t" || { echo "fuzz: linking $t failed" >&2; exit 1; }
  built=$((built + 1))
done
echo "fuzz: built $built targets in $out/"
