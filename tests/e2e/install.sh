#!/usr/bin/env bash
# tests/e2e/install.sh - `make install` / `make uninstall` and the man pages:
#  1. docs/man/claimcheck.1 and claimcheck-webhook.8 format without a
#     warning (`groff -man -z -ww`, `man --warnings -l`);
#  2. every option any `--help` of the binaries lists (claimcheck --help,
#     claimcheck CMD --help for each command it lists, claimcheck-webhook
#     --help, serve --help, certs --help) is in the page, every command has
#     an entry under COMMANDS, and every option the page names exists;
#  3. `make install DESTDIR=... PREFIX=/usr` writes exactly the expected
#     files with their modes, and the installed binaries, pages and
#     completions work (bash-completion's loader and zsh's compinit find
#     them where they are installed; each is `claimcheck completion SHELL`);
#     without PREFIX the files go under /usr/local;
#  4. `make uninstall` with the same variables leaves nothing but a file
#     that was not ours (and its directory).
# Last line: "N passed, N failed"; exit status non-zero on any failure.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
bin=build/claimcheck
hook=build/claimcheck-webhook
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top/tests/e2e/lib.sh"
pages="docs/man/claimcheck.1 docs/man/claimcheck-webhook.8"

for b in "$bin" "$hook"; do
  [ -x "$b" ] || { echo "FAIL $b not built"; echo "0 passed, 1 failed"; exit 1; }
done

# ---- 1. the pages format cleanly -------------------------------------------
# as root the tools are installed when missing (have_pkg); else a skip
have_pkg groff command -v groff
have_pkg man-db command -v man
for p in $pages; do
  if command -v groff >/dev/null 2>&1; then
    groff -man -z -ww "$p" >"$tmp/groff.err" 2>&1
    rc=$?
    [ $rc -eq 0 ] && [ ! -s "$tmp/groff.err" ] && ok "groff -man -z -ww $p: no warning" \
      || { bad "groff -man -z -ww $p: exit $rc"; head -5 "$tmp/groff.err"; }
  else
    echo "skipped: groff -man -z -ww $p (groff not installed)"
  fi
  if command -v man >/dev/null 2>&1; then
    MANWIDTH=80 man --warnings -l "$p" >"$tmp/man.out" 2>"$tmp/man.err"
    rc=$?
    [ $rc -eq 0 ] && [ ! -s "$tmp/man.err" ] && [ -s "$tmp/man.out" ] \
      && ok "man --warnings -l $p: no warning" \
      || { bad "man --warnings -l $p: exit $rc"; head -5 "$tmp/man.err"; }
  else
    echo "skipped: man --warnings -l $p (man not installed)"
  fi
done

# ---- 2. the pages cover the binaries' commands and options -----------------
# render PAGE: plain text, one paragraph a line (no fill breaks, no
# hyphenation), so an option is one token
render() { groff -man -Tascii -P-cbou -rLL=2000n -rHY=0 "$1" 2>/dev/null; }
# options in a help text: -x or --long-name after a blank or [ ( , |
options_of() { grep -oE '(^|[][ (,|])--?[a-zA-Z][a-zA-Z0-9-]*' | sed 's/^[][ (,|]//' | sort -u; }
# commands: the tags of the COMMANDS section
commands_of() { awk '/^COMMANDS/{f=1;next} /^[A-Z]/{f=0} f && /^       [a-z]/{print $1}' | sort -u; }
has_token() { grep -qE -- "(^|[^a-zA-Z0-9-])$2(\$|[^a-zA-Z0-9-])" "$1"; }

# cover NAME PAGE HELPFILE COMMANDS...
cover() {
  local name=$1 page=$2 help=$3; shift 3
  render "$page" >"$tmp/page.txt"
  [ -s "$tmp/page.txt" ] || { bad "$name: $page renders empty"; return; }
  local missing=() o c
  while read -r o; do has_token "$tmp/page.txt" "$o" || missing+=("$o"); done < <(options_of <"$help")
  local n; n=$(options_of <"$help" | wc -l)
  [ "$n" -ge 5 ] || bad "$name: only $n options found in the help texts"
  [ ${#missing[@]} -eq 0 ] && ok "$name: all $n options of the help texts are in $page" \
    || bad "$name: options in --help but not in $page: ${missing[*]}"
  commands_of <"$tmp/page.txt" >"$tmp/page.cmds"
  missing=()
  for c in "$@"; do grep -qx -- "$c" "$tmp/page.cmds" || missing+=("$c"); done
  [ ${#missing[@]} -eq 0 ] && ok "$name: every command ($*) has an entry under COMMANDS" \
    || bad "$name: commands without an entry in $page: ${missing[*]}"
  # the other way: an option the page names must exist (a stale page);
  # EXAMPLES may show other programs' options (curl --cacert)
  missing=()
  while read -r o; do
    [ "$o" = --help ] || grep -qx -- "$o" <(options_of <"$help") || missing+=("$o")
  done < <(awk '/^(EXAMPLES|SEE ALSO)/{f=1;next} /^[A-Z]/{f=0} !f' "$tmp/page.txt" \
           | grep -oE '(^|[ [(,|])--[a-z][a-z0-9-]*' | sed 's/^[ [(,|]//' | sort -u)
  [ ${#missing[@]} -eq 0 ] && ok "$name: every --option in $page is in a help text" \
    || bad "$name: options in $page that no --help lists: ${missing[*]}"
}

"$bin" --help >"$tmp/help1" 2>&1
mapfile -t cmds < <(sed -n '/^commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p' "$tmp/help1")
[ ${#cmds[@]} -ge 5 ] && ok "claimcheck --help lists ${#cmds[@]} commands" \
  || bad "claimcheck --help lists ${#cmds[@]} commands"
for c in "${cmds[@]}"; do "$bin" "$c" --help >>"$tmp/help1" 2>&1 </dev/null; done
{ "$hook" --help; "$hook" serve --help; "$hook" certs --help; } >"$tmp/help8" 2>&1
mapfile -t hcmds < <(sed -n 's/^ *\(usage: \|or: \)\?claimcheck-webhook \([a-z][a-z-]*\).*/\2/p' \
                     "$tmp/help8" | sort -u)
if command -v groff >/dev/null 2>&1; then
  cover claimcheck.1 docs/man/claimcheck.1 "$tmp/help1" "${cmds[@]}"
  cover claimcheck-webhook.8 docs/man/claimcheck-webhook.8 "$tmp/help8" "${hcmds[@]}"
else
  echo "skipped: option coverage of the man pages (groff not installed)"
fi

# ---- 3. make install -------------------------------------------------------
# the files install writes under PREFIX, with their modes
expected() {  # PREFIX
  printf '%s 755\n' "$1/bin/claimcheck" "$1/bin/claimcheck-webhook"
  printf '%s 644\n' "$1/share/man/man1/claimcheck.1" "$1/share/man/man8/claimcheck-webhook.8" \
    "$1/share/bash-completion/completions/claimcheck" "$1/share/zsh/site-functions/_claimcheck"
}
listing() {  # DIR: every file and link under DIR, relative, with its mode
  (cd "$1" && find . \( -type f -o -type l \) -printf '/%P %m\n' | sort)
}
stage=$tmp/stage
make --no-print-directory install DESTDIR="$stage" PREFIX=/usr >"$tmp/install.log" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "make install DESTDIR=... PREFIX=/usr" \
  || { bad "make install: exit $rc"; tail -5 "$tmp/install.log"; }
expected /usr | sort >"$tmp/want"
listing "$stage" >"$tmp/got"
diff -u "$tmp/want" "$tmp/got" >"$tmp/diff" && ok "installed exactly $(wc -l <"$tmp/want") files with their modes" \
  || { bad "installed files differ from the expected list"; cat "$tmp/diff"; }
for p in claimcheck claimcheck-webhook; do
  cmp -s "build/$p" "$stage/usr/bin/$p" && ok "$p installed is build/$p" || bad "$p installed differs from build/$p"
done
cmp -s docs/man/claimcheck.1 "$stage/usr/share/man/man1/claimcheck.1" \
  && cmp -s docs/man/claimcheck-webhook.8 "$stage/usr/share/man/man8/claimcheck-webhook.8" \
  && ok "installed man pages are docs/man/" || bad "installed man pages differ from docs/man/"
"$stage/usr/bin/claimcheck" version >"$tmp/v.out" 2>&1 \
  && [ "$(cat "$tmp/v.out")" = "$("$bin" version)" ] \
  && ok "installed claimcheck version: $(cat "$tmp/v.out")" || { bad "installed claimcheck version"; cat "$tmp/v.out"; }
"$stage/usr/bin/claimcheck-webhook" version >"$tmp/v.out" 2>&1 \
  && grep -q '^claimcheck-webhook ' "$tmp/v.out" \
  && ok "installed claimcheck-webhook version: $(cat "$tmp/v.out")" || { bad "installed claimcheck-webhook version"; cat "$tmp/v.out"; }
"$stage/usr/bin/claimcheck" lint --no-hints deploy/examples/too-big.yaml >"$tmp/lint.out" 2>&1
rc=$?
"$bin" lint --no-hints deploy/examples/too-big.yaml >"$tmp/lint.want" 2>&1
[ $rc -eq 1 ] && grep -q 'error\[' "$tmp/lint.out" && cmp -s "$tmp/lint.out" "$tmp/lint.want" \
  && ok "installed claimcheck lint finds the example's errors (exit 1, as build/claimcheck)" \
  || { bad "installed claimcheck lint: exit $rc"; head -5 "$tmp/lint.out"; }
if command -v man >/dev/null 2>&1; then
  for s in "1 claimcheck" "8 claimcheck-webhook"; do
    read -r sec name <<<"$s"
    w=$(man -M "$stage/usr/share/man" -w "$sec" "$name" 2>/dev/null)
    [ "$w" = "$stage/usr/share/man/man$sec/$name.$sec" ] && ok "man -M PREFIX/share/man finds $name($sec)" \
      || bad "man -M .../share/man -w $sec $name: '$w'"
  done
else
  echo "skipped: man -w on the installed pages (man not installed)"
fi

# the completions: what `claimcheck completion` prints, where the shells'
# loaders look (bash-completion: XDG_DATA_DIRS/bash-completion/completions/
# CMD; zsh: a #compdef file in an fpath directory)
bcomp=$stage/usr/share/bash-completion/completions/claimcheck
zcomp=$stage/usr/share/zsh/site-functions/_claimcheck
"$bin" completion bash | cmp -s - "$bcomp" && ok "installed bash completion is 'claimcheck completion bash'" \
  || bad "installed bash completion differs from 'claimcheck completion bash'"
"$bin" completion zsh | cmp -s - "$zcomp" && ok "installed zsh completion is 'claimcheck completion zsh'" \
  || bad "installed zsh completion differs from 'claimcheck completion zsh'"
bc_main=/usr/share/bash-completion/bash_completion
if have_pkg bash-completion test -f "$bc_main"; then
  # a fresh interactive-like bash: bash-completion's on-demand loader finds
  # the installed file by the command's name, then the function completes
  got=$(XDG_DATA_DIRS="$stage/usr/share" BASH_COMPLETION_USER_DIR="$tmp/none" bash --norc -c '
    . "$1"; _completion_loader claimcheck 2>/dev/null || __load_completion claimcheck
    COMP_WORDS=(claimcheck expl); COMP_CWORD=1; COMP_LINE="claimcheck expl"; COMP_POINT=15
    _claimcheck claimcheck expl claimcheck; echo "${COMPREPLY[*]}"' _ "$bc_main" 2>&1)
  [ "$got" = explain ] && ok "bash-completion loads the installed completion: 'claimcheck expl' -> explain" \
    || bad "bash-completion with XDG_DATA_DIRS=DESTDIR/usr/share: 'claimcheck expl' -> '$got'"
else
  echo "skipped: bash-completion's loader on the installed completion (bash-completion not installed)"
fi
if command -v zsh >/dev/null 2>&1; then
  got=$(zsh -f -c 'fpath=("$1" $fpath); autoload -U compinit; compinit -u -D
                   print -r -- ${_comps[claimcheck]}' _ "$(dirname "$zcomp")" 2>&1)
  [ "$got" = _claimcheck ] && ok "zsh compinit finds the installed site-functions/_claimcheck" \
    || bad "zsh compinit with fpath=DESTDIR/.../site-functions: claimcheck -> '$got'"
  # the default PREFIX's directory is one zsh searches without set-up
  zsh -f -c 'print -l -- $fpath' | grep -qx /usr/local/share/zsh/site-functions \
    && ok "zsh's default fpath has /usr/local/share/zsh/site-functions (the default ZSHCOMPDIR)" \
    || bad "zsh's default fpath lacks /usr/local/share/zsh/site-functions"
else
  echo "skipped: zsh compinit on the installed completion (zsh not installed)"
fi

# the default PREFIX is /usr/local
stage2=$tmp/stage-default
make --no-print-directory install DESTDIR="$stage2" >"$tmp/install2.log" 2>&1
expected /usr/local | sort >"$tmp/want2"
listing "$stage2" >"$tmp/got2"
diff -u "$tmp/want2" "$tmp/got2" >"$tmp/diff2" && ok "without PREFIX: the files go under /usr/local" \
  || { bad "make install without PREFIX"; cat "$tmp/diff2"; tail -3 "$tmp/install2.log"; }

# ---- 4. make uninstall ---------------------------------------------------------
mkdir -p "$stage/usr/bin" && echo keep >"$stage/usr/bin/not-ours"
make --no-print-directory uninstall DESTDIR="$stage" PREFIX=/usr >"$tmp/uninstall.log" 2>&1
rc=$?
left=$(cd "$stage" && find . -mindepth 1 -printf '/%P\n' | sort | tr '\n' ' ')
[ $rc -eq 0 ] && [ "$left" = "/usr /usr/bin /usr/bin/not-ours " ] \
  && ok "make uninstall removed every installed file and empty directory, kept a file not ours" \
  || { bad "make uninstall: exit $rc, left: $left"; tail -3 "$tmp/uninstall.log"; }
make --no-print-directory uninstall DESTDIR="$stage2" >/dev/null 2>&1
[ -d "$stage2" ] && [ -z "$(ls -A "$stage2")" ] \
  && ok "make uninstall (default PREFIX) leaves an empty DESTDIR" \
  || bad "make uninstall (default PREFIX) left: $(cd "$stage2" 2>/dev/null && find . -mindepth 1 | head -5 | tr '\n' ' ')"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
