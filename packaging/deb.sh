#!/usr/bin/env bash
# packaging/deb.sh ROOT OUTDIR - `make deb`: the Debian packages from a
# `make install DESTDIR=ROOT PREFIX=/usr` tree, built with dpkg-deb (no
# network, no debian/ source tree):
#   claimcheck          the linter, claimcheck(1), the completions
#   claimcheck-webhook  the admission server, claimcheck-webhook(8)
# so a CI image or pre-commit user gets the linter without the webhook's
# HTTP and TLS libraries. Each gets its Version from `claimcheck version`
# (the one version source), Depends computed from its binary's NEEDED
# libraries (shlibdeps.py), stripped binaries, gzipped man pages,
# copyright, changelog.Debian.gz, md5sums and a lintian override (the
# one tag that only concerns uploads to Debian); files owned by root.
# Environment: SOURCE_DATE_EPOCH (the changelog date and every mtime;
# the Makefile passes the commit's), DEB_MAINTAINER.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$1
out=$2
maint=${DEB_MAINTAINER:-claimcheck maintainers <maintainers@claimcheck.dev>}
epoch=${SOURCE_DATE_EPOCH:-$(date +%s)}
homepage=https://github.com/claimcheck/claimcheck

die() { echo "deb.sh: $*" >&2; exit 1; }
command -v dpkg-deb >/dev/null || die "dpkg-deb not found (Debian's dpkg package)"
[ -x "$root/usr/bin/claimcheck" ] || die "$root/usr/bin/claimcheck missing (make install DESTDIR=$root PREFIX=/usr)"

# upstream version -> Debian version: a pre-release sorts before its
# release (0.3.0-rc1 -> 0.3.0~rc1), the rest of git describe after it
# (0.2.0-5-gabc1234-dirty -> 0.2.0+5+gabc1234+dirty); Debian revision 1
upstream=$("$root/usr/bin/claimcheck" version | awk 'NR == 1 { print $2 }')
[[ "$upstream" =~ ^[0-9][A-Za-z0-9.+~-]*$ ]] || die "unusable version '$upstream'"
debver=$(printf '%s' "$upstream" | sed -E 's/-(alpha|beta|rc)/~\1/; y/-/+/')-1
arch=$(dpkg --print-architecture)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# pkg_files PKG: the installed files (relative to ROOT) that go into PKG
pkg_files() {
  (cd "$root" && find . -type f -printf '%P\n' | sort) | if [ "$1" = claimcheck-webhook ]; then
    grep -E '(^|/)claimcheck-webhook([.][0-9](\.gz)?)?$'
  else
    grep -vE '(^|/)claimcheck-webhook([.][0-9](\.gz)?)?$'
  fi
}

# build PKG SECTION SYNOPSIS DESCRIPTION-FILE
build() {
  local pkg=$1 section=$2 synopsis=$3 desc=$4
  local d=$work/$pkg f
  mkdir -p "$d/DEBIAN" "$d/usr/share/doc/$pkg"
  while IFS= read -r f; do
    mkdir -p "$d/$(dirname "$f")"
    cp -p "$root/$f" "$d/$f"
  done < <(pkg_files "$pkg")
  [ -n "$(find "$d/usr/bin" -type f 2>/dev/null)" ] || die "$pkg: no binary in $root"
  # binaries stripped as dh_strip does; man pages gzipped without a name/date
  for f in "$d"/usr/bin/*; do
    strip --remove-section=.comment --remove-section=.note "$f"
  done
  find "$d/usr/share/man" -type f ! -name '*.gz' -exec gzip -9n {} + 2>/dev/null || true
  install -m 644 "$here/debian/copyright" "$d/usr/share/doc/$pkg/copyright"
  # not for the Debian archive: there is no ITP bug for the changelog to close
  mkdir -p "$d/usr/share/lintian/overrides"
  echo "$pkg: initial-upload-closes-no-bugs" >"$d/usr/share/lintian/overrides/$pkg"
  {
    printf '%s (%s) unstable; urgency=medium\n\n' "$pkg" "$debver"
    printf '  * claimcheck %s, packaged by make deb.\n\n' "$upstream"
    printf ' -- %s  %s\n' "$maint" "$(date -u -R -d "@$epoch")"
  } | gzip -9n >"$d/usr/share/doc/$pkg/changelog.Debian.gz"
  local depends
  depends=$(python3 "$here/shlibdeps.py" "$d"/usr/bin/*) || die "$pkg: Depends not computed"
  find "$d" -type d -exec chmod 755 {} +
  find "$d/usr" -type f -exec chmod 644 {} +
  chmod 755 "$d"/usr/bin/*
  (cd "$d" && find usr -type f -print0 | sort -z | xargs -0 md5sum) >"$d/DEBIAN/md5sums"
  chmod 644 "$d/DEBIAN/md5sums"
  {
    echo "Package: $pkg"
    echo "Version: $debver"
    echo "Architecture: $arch"
    echo "Maintainer: $maint"
    echo "Installed-Size: $(du -sk --exclude=DEBIAN "$d" | cut -f1)"
    echo "Depends: $depends"
    echo "Section: $section"
    echo "Priority: optional"
    echo "Homepage: $homepage"
    echo "Description: $synopsis"
    sed 's/^$/./; s/^/ /' "$desc"
  } >"$d/DEBIAN/control"
  chmod 644 "$d/DEBIAN/control"
  find "$d" -exec touch -h -d "@$epoch" {} +
  SOURCE_DATE_EPOCH=$epoch dpkg-deb --root-owner-group -Zxz --build "$d" \
    "$out/${pkg}_${debver}_${arch}.deb" >/dev/null
  echo "wrote $out/${pkg}_${debver}_${arch}.deb (Depends: $depends)"
}

# every installed file goes into exactly one package
all=$( (cd "$root" && find . -type f | wc -l) )
split=$(( $(pkg_files claimcheck | wc -l) + $(pkg_files claimcheck-webhook | wc -l) ))
[ "$all" -eq "$split" ] || die "$all installed files, $split assigned to a package"
mkdir -p "$out"
build claimcheck devel \
  "linter for Kubernetes Dynamic Resource Allocation manifests" \
  "$here/debian/claimcheck.description"
build claimcheck-webhook admin \
  "Kubernetes admission webhook for Dynamic Resource Allocation" \
  "$here/debian/claimcheck-webhook.description"
