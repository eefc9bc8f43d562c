#!/usr/bin/env bash
# packaging/dist.sh VERSION OUTDIR - `make dist`: OUTDIR/claimcheck-VERSION.tar.gz,
# the committed tree of HEAD (git archive: no build output, no ignored or
# uncommitted files) under claimcheck-VERSION/, plus a VERSION file with
# VERSION, so a build from the tarball knows its version without git.
# Entries are sorted, owned by 0:0 and dated at HEAD's commit: the same
# commit gives the same tarball.
set -euo pipefail
v=$1
out=$2
top=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "dist.sh: $*" >&2; exit 1; }
[[ "$v" =~ ^[0-9][A-Za-z0-9.+~-]*$ ]] || die "unusable version '$v'"
git -C "$top" rev-parse --verify -q HEAD >/dev/null \
  || die "make dist needs a git checkout (this tree has no HEAD)"
if [ -n "$(git -C "$top" status --porcelain --untracked-files=no)" ]; then
  echo "dist.sh: uncommitted changes are not in the tarball (it is HEAD's tree)" >&2
fi
name=claimcheck-$v
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
git -C "$top" archive --format=tar --prefix="$name/" HEAD | tar -x -C "$stage"
printf '%s\n' "$v" >"$stage/$name/VERSION"
mtime=$(git -C "$top" log -1 --format=%ct HEAD)
mkdir -p "$out"
tar --sort=name --mtime="@$mtime" --owner=0 --group=0 --numeric-owner \
  --format=posix --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime \
  -C "$stage" -cf - "$name" | gzip -9n >"$out/$name.tar.gz.tmp"
mv "$out/$name.tar.gz.tmp" "$out/$name.tar.gz"
echo "wrote $out/$name.tar.gz"
