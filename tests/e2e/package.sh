#!/usr/bin/env bash
# tests/e2e/package.sh - `make dist` and `make deb`:
#  1. make dist writes build/claimcheck-V.tar.gz (V: `claimcheck version`)
#     holding HEAD's committed files under claimcheck-V/ plus VERSION = V,
#     and the same commit gives the same bytes;
#  2. the tarball, unpacked in a temp dir (no git, no ../shared), builds:
#     `make deb` there compiles both binaries, whose `version` says V, and
#     writes the two packages;
#  3. the packages: Version, Depends (= dpkg-shlibdeps' where installed),
#     files (stripped binaries, gzipped man pages, completions, copyright,
#     changelog.Debian.gz), md5sums, lintian clean (-I --pedantic) where
#     lintian is installed;
#  4. dpkg installs them into a temp root (dpkg --root), not into this
#     machine: the machine is shared with other sessions, whose suites would
#     then find a packaged claimcheck on PATH, and dpkg's lock would be
#     contended with their apt-get. The root's package database holds the
#     host's entries of exactly the packages in Depends, so dpkg checks
#     Depends (and versions) against what this machine has; an empty one
#     must refuse the install. The installed binaries run (version, a lint,
#     certs) and `dpkg --remove` leaves no file.
# Last line: "N passed, N failed"; exit status non-zero on any failure.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
bin=build/claimcheck
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top/tests/e2e/lib.sh"
finish() { echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit $?; }

[ -x "$bin" ] || { bad "$bin not built"; finish; }
v=$("$bin" version | awk 'NR == 1 { print $2 }')

# ---- 1. make dist ------------------------------------------------------------
if ! git rev-parse --verify -q HEAD >/dev/null 2>&1; then
  echo "skipped: make dist and make deb (not a git checkout: the tarball is HEAD's tree)"
  finish
fi
tarball=build/claimcheck-$v.tar.gz
rm -f "$tarball"
make --no-print-directory dist >"$tmp/dist.log" 2>&1
rc=$?
[ $rc -eq 0 ] && [ -s "$tarball" ] && ok "make dist wrote $tarball" \
  || { bad "make dist: exit $rc, no $tarball"; tail -5 "$tmp/dist.log"; finish; }
sum1=$(sha256sum <"$tarball")
tar -tzf "$tarball" | sed '/\/$/d' | sort >"$tmp/tar.list"
{ git ls-tree -r --name-only HEAD; echo VERSION; } | sed "s|^|claimcheck-$v/|" | sort -u >"$tmp/want.list"
diff -u "$tmp/want.list" "$tmp/tar.list" >"$tmp/list.diff" \
  && ok "tarball: HEAD's $(git ls-tree -r HEAD | wc -l) files and VERSION under claimcheck-$v/" \
  || { bad "tarball files differ from HEAD's"; head -20 "$tmp/list.diff"; }
got=$(tar -xzOf "$tarball" "claimcheck-$v/VERSION")
[ "$got" = "$v" ] && ok "tarball VERSION is '$v'" || bad "tarball VERSION '$got', want '$v'"
sleep 1
make --no-print-directory dist >/dev/null 2>&1
[ "$(sha256sum <"$tarball")" = "$sum1" ] && ok "make dist again: the same bytes" \
  || bad "make dist is not reproducible"

# ---- 2. build from the tarball -----------------------------------------------
src=$tmp/unpack/claimcheck-$v
mkdir -p "$tmp/unpack" && tar -xzf "$tarball" -C "$tmp/unpack"
[ ! -e "$src/.git" ] && [ ! -e "$tmp/unpack/shared" ] \
  && ok "unpacked in a temp dir without .git or ../shared" || bad "unpacked tree has .git or ../shared"
if ! command -v dpkg-deb >/dev/null 2>&1; then
  echo "skipped: make deb (no dpkg-deb: not a Debian system)"
  finish
fi
( cd "$src" && make --no-print-directory -j2 deb ) >"$tmp/deb.log" 2>&1
rc=$?
debs=("$src"/build/*.deb)
[ $rc -eq 0 ] && [ ${#debs[@]} -eq 2 ] && [ -f "${debs[0]}" ] \
  && ok "make deb in the unpacked tarball: $(cd "$src/build" && ls ./*.deb | tr '\n' ' ')" \
  || { bad "make deb in the unpacked tarball: exit $rc"; tail -15 "$tmp/deb.log"; finish; }
for b in claimcheck claimcheck-webhook; do
  got=$("$src/build/deb/$b" version 2>&1 | awk 'NR == 1 { print $2 }')
  [ "$got" = "$v" ] && ok "$b built from the tarball: version $got" || bad "$b from the tarball: version '$got', want '$v'"
done
grep -q 'make dist needs a git checkout' <( cd "$src" && make --no-print-directory dist 2>&1 ) \
  && ok "make dist in the tarball says it needs git" || bad "make dist in the tarball: no clear error"

# ---- 3. the packages ---------------------------------------------------------
debver=$(printf '%s' "$v" | sed -E 's/-(alpha|beta|rc)/~\1/; y/-/+/')-1
arch=$(dpkg --print-architecture)
field() { dpkg-deb -f "$1" "$2"; }
shlibdeps_of() {  # BINARY: dpkg-shlibdeps' Depends, from a throwaway debian/
  local d=$tmp/shlib; rm -rf "$d"; mkdir -p "$d/debian"
  printf 'Source: x\n\nPackage: x\nArchitecture: any\n' >"$d/debian/control"
  cp "$1" "$d/"
  (cd "$d" && dpkg-shlibdeps -O "$(basename "$1")" 2>/dev/null) | sed -n 's/^shlibs:Depends=//p'
}
for pkg in claimcheck claimcheck-webhook; do
  deb=$src/build/${pkg}_${debver}_${arch}.deb
  [ -f "$deb" ] || { bad "no ${pkg}_${debver}_${arch}.deb"; continue; }
  [ "$(field "$deb" Package)" = "$pkg" ] && [ "$(field "$deb" Version)" = "$debver" ] \
    && [ "$(field "$deb" Architecture)" = "$arch" ] \
    && ok "$pkg: Package, Version $debver, Architecture $arch" \
    || bad "$pkg: control $(field "$deb" Package) $(field "$deb" Version) $(field "$deb" Architecture)"
  dpkg-deb -c "$deb" | awk '{ print $1, $2, $6 }' | sed 's|\./||' >"$tmp/contents"
  want="usr/bin/$pkg usr/share/doc/$pkg/copyright usr/share/doc/$pkg/changelog.Debian.gz"
  [ $pkg = claimcheck ] \
    && want="$want usr/share/man/man1/claimcheck.1.gz usr/share/bash-completion/completions/claimcheck" \
    && want="$want usr/share/zsh/vendor-completions/_claimcheck" \
    || want="$want usr/share/man/man8/claimcheck-webhook.8.gz"
  missing=""
  for f in $want; do grep -q " root/root $f\$" "$tmp/contents" || missing="$missing $f"; done
  [ -z "$missing" ] && ok "$pkg: binary, gzipped man page, copyright, changelog.Debian.gz$([ $pkg = claimcheck ] && echo ', completions'), owned by root" \
    || { bad "$pkg: missing or not root-owned:$missing"; cat "$tmp/contents"; }
  x=$tmp/x-$pkg; mkdir -p "$x"; dpkg-deb -x "$deb" "$x"; dpkg-deb -e "$deb" "$x/DEBIAN"
  readelf -S "$x/usr/bin/$pkg" | grep -q '\.symtab' && bad "$pkg: binary not stripped" \
    || ok "$pkg: binary stripped"
  (cd "$x" && md5sum --quiet -c DEBIAN/md5sums) >/dev/null 2>&1 \
    && [ "$(wc -l <"$x/DEBIAN/md5sums")" -eq "$(cd "$x" && find usr -type f | wc -l)" ] \
    && ok "$pkg: md5sums cover every file" || bad "$pkg: md5sums do not match the files"
  zcat "$x/usr/share/doc/$pkg/changelog.Debian.gz" | head -1 | grep -qF "$pkg ($debver) " \
    && ok "$pkg: changelog.Debian names $debver" || bad "$pkg: changelog.Debian lacks $debver"
  dep=$(field "$deb" Depends)
  grep -q "libc6" <<<"$dep" && ok "$pkg: Depends: $dep" || bad "$pkg: Depends '$dep' lacks libc6"
  if have_pkg dpkg-dev command -v dpkg-shlibdeps; then
    want=$(shlibdeps_of "$src/build/deb/$pkg")
    [ -n "$want" ] && [ "$dep" = "$want" ] && ok "$pkg: Depends equal dpkg-shlibdeps'" \
      || bad "$pkg: Depends '$dep', dpkg-shlibdeps '$want'"
  else
    echo "skipped: Depends compared with dpkg-shlibdeps (dpkg-dev not installed)"
  fi
done
if have_pkg lintian command -v lintian; then
  lintian -I --pedantic "${debs[@]}" >"$tmp/lintian.out" 2>"$tmp/lintian.err"
  rc=$?
  [ $rc -eq 0 ] && ! grep -qE '^[EWIP]: ' "$tmp/lintian.out" \
    && ok "lintian -I --pedantic: no tag on either package" \
    || { bad "lintian: exit $rc"; head -20 "$tmp/lintian.out" "$tmp/lintian.err"; }
else
  echo "skipped: lintian (not installed; as root: apt-get install -y lintian)"
fi

# ---- 4. install into a temp root, run, remove --------------------------------
# mkroot DIR PKG...: a dpkg root whose database holds the host's PKGs
mkroot() {
  local r=$1; shift
  mkdir -p "$r/var/lib/dpkg/info" "$r/var/lib/dpkg/updates" "$r/var/lib/dpkg/triggers"
  : >"$r/var/lib/dpkg/available"
  if [ $# -gt 0 ]; then
    dpkg-query -s "$@" >"$r/var/lib/dpkg/status" 2>/dev/null
    dpkg-query -W -f '${binary:Package}\n' "$@" | while read -r p; do : >"$r/var/lib/dpkg/info/$p.list"; done
  else
    : >"$r/var/lib/dpkg/status"
  fi
}
deppkgs=$(for d in "${debs[@]}"; do field "$d" Depends; done | tr ',' '\n' | awk '{ print $1 }' | sort -u)
root=$tmp/root
# shellcheck disable=SC2086
mkroot "$root" $deppkgs
dpkg --root="$root" -i "${debs[@]}" >"$tmp/dpkg.log" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "dpkg --root -i both packages: Depends satisfied by this machine's $(echo $deppkgs | wc -w) packages" \
  || { bad "dpkg --root -i: exit $rc"; tail -10 "$tmp/dpkg.log"; }
st=$(dpkg --root="$root" -s claimcheck claimcheck-webhook 2>/dev/null | grep -c '^Status: install ok installed')
[ "$st" = 2 ] && ok "dpkg: both packages 'install ok installed'" || bad "dpkg status: $st of 2 installed"
r=$root/usr/bin
got=$("$r/claimcheck" version 2>&1)
[ "$got" = "$("$bin" version)" ] && ok "installed claimcheck version: $got" || bad "installed claimcheck version: '$got'"
"$r/claimcheck" lint --no-hints deploy/examples/too-big.yaml >"$tmp/lint.out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q 'error\[claim-request-unknown\]' "$tmp/lint.out" \
  && ok "installed claimcheck lint: exit 1 with the example's error" || { bad "installed lint: exit $rc"; head -3 "$tmp/lint.out"; }
"$r/claimcheck-webhook" certs --service s --namespace n --out "$tmp/certs" >/dev/null 2>&1 \
  && "$r/claimcheck-webhook" certs --check "$tmp/certs" --service s --namespace n >/dev/null 2>&1 \
  && ok "installed claimcheck-webhook certs writes a certificate that --check accepts" \
  || bad "installed claimcheck-webhook certs"
for s in bash zsh; do
  f=$root/usr/share/bash-completion/completions/claimcheck
  [ $s = zsh ] && f=$root/usr/share/zsh/vendor-completions/_claimcheck
  "$r/claimcheck" completion $s | cmp -s - "$f" \
    && ok "installed $s completion is the installed 'claimcheck completion $s'" \
    || bad "installed $s completion differs from 'claimcheck completion $s'"
done
MANWIDTH=80 man -l "$root/usr/share/man/man1/claimcheck.1.gz" 2>/dev/null | grep -q '^NAME' \
  && ok "installed claimcheck.1.gz reads with man" || bad "installed claimcheck.1.gz does not read"
dpkg --root="$root" -r claimcheck-webhook claimcheck >"$tmp/rm.log" 2>&1
rc=$?
left=$(cd "$root" && find usr -type f 2>/dev/null | head -5 | tr '\n' ' ')
[ $rc -eq 0 ] && [ -z "$left" ] && ok "dpkg --root -r: no file left" || { bad "dpkg -r: exit $rc, left: $left"; tail -3 "$tmp/rm.log"; }

# Depends are real: a root where they are not installed refuses the package
mkroot "$tmp/bare"
dpkg --root="$tmp/bare" -i "$src/build/claimcheck_${debver}_${arch}.deb" >"$tmp/bare.log" 2>&1
rc=$?
[ $rc -ne 0 ] && grep -q 'depends on libyaml-0-2' "$tmp/bare.log" \
  && ok "dpkg refuses claimcheck where libyaml-0-2 is not installed" \
  || { bad "dpkg on a bare root: exit $rc"; tail -5 "$tmp/bare.log"; }

finish
