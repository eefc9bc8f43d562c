#!/usr/bin/env python3
"""run.py BINDIR FILE... - the documentation's code blocks, run (tests/doctest.sh).

Every fenced block of each FILE gets an id, FILE#heading-anchor.N (the
N-th block under the nearest heading), and is one of:
  ```sh (bash, shell)  commands a user runs: run with bash in a fresh temp
                       dir; a command that fails (a usage error, a missing
                       file, command not found) fails the block, except
                       claimcheck's exit status 1 (findings)
  transcript           a block whose first line starts with "$ ": each
                       "$ command" (with its "\\" continuation lines) runs in
                       the block's temp dir and its output (stdout and
                       stderr) must be the lines that follow it; a line
                       "..." stands for any number of lines
  ```yaml / ```json    must parse; after <!-- doctest: claimcheck-config -->
                       `claimcheck lint -c` must accept it too
  ```text and others   not run (say so with the tag)
A block with no tag that is not a transcript fails: the reader cannot tell
a command from an illustration, and neither can this runner.
Temp dirs hold only the block's fixtures (tests/doctest/fixtures.txt);
PATH starts with BINDIR (claimcheck, claimcheck-webhook). Blocks in
tests/doctest/skip.txt are skipped with their reason; a skip or fixture
entry naming no block fails (the lists cannot go stale).
Prints "ok ID", "FAIL ID: why" and "skipped: ID: reason" lines.
"""
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
SHELL_TAGS = {"sh", "bash", "shell"}
TIMEOUT = 60
MARKER = re.compile(r"^<!--\s*doctest:\s*(.*?)\s*-->\s*$")


def anchor(title):
    """GitHub's heading anchor: lower case, punctuation dropped, spaces to -"""
    t = re.sub(r"[^\w\- ]", "", title.strip().lower())
    return t.replace(" ", "-")


def blocks(path):
    """(id, tag, lines, marker, first line number) of every fenced block"""
    out, seen = [], {}
    head, marker = "", None
    lines = open(os.path.join(TOP, path), encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        m = re.match(r"^(#{1,6})\s+(.*)$", line)
        if m:
            head = anchor(m.group(2))
        mk = MARKER.match(line)
        if mk:
            marker = mk.group(1)
        fence = re.match(r"^(\s*)(```+)\s*(\S*)", line)
        if fence:
            indent, ticks, tag = fence.groups()
            body, j = [], i + 1
            while j < len(lines) and not re.match(r"^\s*" + ticks + r"\s*$", lines[j]):
                body.append(lines[j][len(indent):] if lines[j].startswith(indent) else lines[j])
                j += 1
            seen[head] = seen.get(head, 0) + 1
            out.append(("%s#%s.%d" % (path, head, seen[head]), tag, body, marker, i + 1))
            marker = None
            i = j + 1
            continue
        if line.strip() and not mk:
            marker = None
        i += 1
    return out


def read_table(name):
    """tests/doctest/NAME: 'ID rest' lines (# comments) -> [(ID, rest, line)]"""
    rows = []
    for n, line in enumerate(open(os.path.join(HERE, name), encoding="utf-8"), 1):
        line = line.strip()
        if line and not line.startswith("#"):
            f = line.split(None, 1)
            rows.append((f[0], f[1] if len(f) > 1 else "", n))
    return rows


def setup(tmp, fixtures):
    for name, src in fixtures:
        dst = os.path.join(tmp, name)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        full = os.path.join(TOP, src)
        if os.path.isdir(full):
            shutil.copytree(full, dst)
        else:
            shutil.copy(full, dst)


def env_for(bindir, tmp):
    env = dict(os.environ)
    env.update(PATH=bindir + os.pathsep + env.get("PATH", ""), NO_COLOR="1",
               HOME=tmp, LC_ALL="C.UTF-8")
    env.pop("CLAIMCHECK_CORPUS", None)
    return env


# a command that fails stops the block with its status; claimcheck's exit
# status 1 (findings, a non-matching selector) is not a failure
STRICT = ("set -o pipefail\n"
          "trap 'rc=$?; if [ $rc -gt 1 ] || [[ $BASH_COMMAND != claimcheck\\ * ]];"
          " then echo \"doctest: exit $rc: $BASH_COMMAND\" >&2; exit $rc; fi' ERR\n")


def run_shell(script, tmp, env, prolog=""):
    try:
        r = subprocess.run(["bash", "-c", prolog + script], cwd=tmp, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return 124, "doctest: timed out after %d s" % TIMEOUT
    return r.returncode, r.stdout


def transcript(lines):
    """[(command, [expected output lines])]"""
    steps = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith("$ "):
            return None
        cmd = [line[2:]]
        i += 1
        while cmd[-1].endswith("\\") and i < len(lines):
            cmd.append(lines[i])
            i += 1
        out = []
        while i < len(lines) and not lines[i].startswith("$ "):
            out.append(lines[i])
            i += 1
        while out and not out[-1].strip():
            out.pop()
        steps.append(("\n".join(cmd), out))
    return steps


def matches(want, got):
    """want's lines equal got's; a line '...' matches any number of lines"""
    memo = {}

    def m(i, j):
        if (i, j) in memo:
            return memo[(i, j)]
        if i == len(want):
            r = j == len(got)
        elif want[i].strip() == "...":
            r = m(i + 1, j) or (j < len(got) and m(i, j + 1))
        else:
            r = j < len(got) and want[i].rstrip() == got[j].rstrip() and m(i + 1, j + 1)
        memo[(i, j)] = r
        return r
    return m(0, 0)


def check(bid, tag, body, marker, bindir, fixtures):
    """-> None (passed) or the reason it failed"""
    tmp = tempfile.mkdtemp(prefix="doctest.")
    try:
        setup(tmp, fixtures)
        env = env_for(bindir, tmp)
        steps = transcript(body) if body and body[0].startswith("$ ") else None
        if steps is not None:
            for cmd, want in steps:
                rc, got = run_shell(cmd, tmp, env)
                got = got.replace(tmp, ".").rstrip("\n").split("\n") if got.strip() else []
                if not matches(want, got):
                    diff = "\n".join(difflib.unified_diff(want, got, "documented", "actual", lineterm=""))
                    return "output of '%s' (exit %d) differs:\n%s" % (cmd, rc, diff[:4000])
            return None
        if tag in SHELL_TAGS:
            rc, out = run_shell("\n".join(body), tmp, env, STRICT)
            if rc != 0 and "doctest: exit" in out:
                return "exit %d:\n%s" % (rc, "\n".join(out.rstrip().split("\n")[-15:]))
            return None
        if tag in ("yaml", "yml"):
            try:
                import yaml
            except ImportError:
                return "SKIP PyYAML not installed"
            try:
                list(yaml.safe_load_all("\n".join(body)))
            except yaml.YAMLError as e:
                return "does not parse as YAML: %s" % e
            if marker == "claimcheck-config":
                cfg = os.path.join(tmp, "config.yaml")
                open(cfg, "w").write("\n".join(body) + "\n")
                open(os.path.join(tmp, "empty.yaml"), "w").write("")
                rc, out = run_shell("claimcheck lint -c config.yaml empty.yaml", tmp, env)
                if rc != 0:
                    return "claimcheck lint -c rejects it (exit %d): %s" % (rc, out.strip()[:400])
            return None
        if tag == "json":
            try:
                json.loads("\n".join(body))
            except ValueError as e:
                return "does not parse as JSON: %s" % e
            return None
        if not tag:
            return ("no tag: tag it sh (commands, run), text (not run), yaml ..., "
                    "or start it with '$ command' (a transcript)")
        return None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    bindir, files = sys.argv[1], sys.argv[2:]
    all_blocks = [b for f in files for b in blocks(f)]
    ids = {b[0] for b in all_blocks}
    skips, fixtures, bad = {}, {}, 0
    for bid, reason, n in read_table("skip.txt"):
        if bid not in ids:
            print("FAIL tests/doctest/skip.txt:%d: '%s' is no block" % (n, bid)); bad += 1
        elif not reason:
            print("FAIL tests/doctest/skip.txt:%d: '%s' has no reason" % (n, bid)); bad += 1
        skips[bid] = reason
    for bid, rest, n in read_table("fixtures.txt"):
        f = rest.split()
        if bid not in ids or len(f) != 2 or not os.path.exists(os.path.join(TOP, f[1])):
            print("FAIL tests/doctest/fixtures.txt:%d: '%s %s': no such block or source" % (n, bid, rest))
            bad += 1
            continue
        fixtures.setdefault(bid, []).append((f[0], f[1]))
    passed = 0
    for bid, tag, body, marker, line in all_blocks:
        if bid in skips:
            print("skipped: %s: %s" % (bid, skips[bid]))
            continue
        why = check(bid, tag, body, marker, bindir, fixtures.get(bid, []))
        kind = "transcript" if body and body[0].startswith("$ ") else (tag or "untagged")
        if why is None:
            if kind in ("text",):
                continue
            print("ok %s (%s, line %d)" % (bid, kind, line)); passed += 1
        elif why.startswith("SKIP "):
            print("skipped: %s: %s" % (bid, why[5:]))
        else:
            print("FAIL %s (line %d): %s" % (bid, line, why)); bad += 1
    print("%d passed, %d failed" % (passed, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
