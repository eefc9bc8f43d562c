#!/usr/bin/env python3
"""shlibdeps.py BINARY... - the Depends of a Debian package holding BINARY...

What dpkg-shlibdeps computes, from the same data, without a debian/
source tree: each binary's NEEDED libraries (readelf), where the loader
finds them (ldd), the package that ships each one (dpkg -S), and that
package's symbols file (the highest minimal version over the symbols the
binary uses) or, without one, its shlibs file (dpkg-query --control-path).
Prints one line, e.g. "libc6 (>= 2.34), libyaml-0-2". Fails (exit 1,
naming the library) when a library comes from no package or has no
dependency information: a guessed Depends is worse than none.
"""
import functools
import os
import re
import subprocess
import sys


def run(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True).stdout


def fail(msg):
    sys.stderr.write("shlibdeps: %s\n" % msg)
    sys.exit(1)


def needed(binary):
    """NEEDED sonames, in order."""
    out = run("readelf", "-d", "-W", binary)
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)


def lib_paths(binary):
    """soname -> path, as the loader resolves them."""
    out = run("ldd", binary)
    return dict(re.findall(r"^\s*(\S+) => (/\S+)", out, re.M))


def aliases(path):
    """PATH and the usrmerge aliases dpkg may have registered instead
    ("/lib/x" for "/usr/lib/x" and the other way), also of its target"""
    cands = [path, os.path.realpath(path)]
    for p in list(cands):
        cands.append(p[4:] if p.startswith("/usr/") else "/usr" + p)
    return cands


def packages_of(paths):
    """path -> the package shipping it (arch-qualified); one dpkg -S for
    all (each call reads every package's file list)"""
    cands = sorted({a for p in paths for a in aliases(p)})
    owner = {}
    r = subprocess.run(["dpkg", "-S"] + cands, capture_output=True, text=True)
    for line in r.stdout.splitlines():
        pkg, _, file = line.partition(": ")
        if "," not in pkg and not pkg.startswith("diversion"):
            owner[file] = pkg
    return {p: next((owner[a] for a in aliases(p) if a in owner), None)
            for p in paths}


def control_file(pkg, name):
    path = run("dpkg-query", "--control-path", pkg, name).strip()
    return path if path and os.path.exists(path) else None


def split_soname(soname):
    """libfoo.so.1 -> (libfoo, 1); libfoo-1.2.so -> (libfoo, 1.2)"""
    m = re.match(r"^(.*)\.so\.(.*)$", soname)
    if m:
        return m.groups()
    m = re.match(r"^(.*)-(\d.*)\.so$", soname)
    return m.groups() if m else None


def read_symbols(path):
    """soname -> (dependency template, {symbol@version: minver})"""
    objs, cur = {}, None
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line or line.startswith("#") or line.startswith("|") \
                or line.startswith("*"):
            continue
        if line.startswith(" "):
            if cur is None:
                continue
            f = line.split()
            name = re.sub(r"^\([^)]*\)", "", f[0])   # (optional), (arch=...)
            if len(f) >= 2:
                cur[1][name] = f[1]
        else:
            soname, _, template = line.partition(" ")
            cur = (template.replace("#MINVER#", "").strip(), {})
            objs[soname] = cur
    return objs


def read_shlibs(path, soname):
    parts = split_soname(soname)
    if not parts:
        return None
    for line in open(path, encoding="utf-8"):
        f = line.split(None, 2)
        if len(f) == 3 and not f[0].endswith(":") and (f[0], f[1]) == parts:
            return f[2].strip()
    return None


def undefined_symbols(binary):
    """symbol@version (or @Base) of the strong undefined dynamic symbols"""
    out = run("nm", "-D", "--undefined-only", binary)
    syms = []
    for line in out.splitlines():
        f = line.split()
        if len(f) == 2 and f[0] == "U":
            syms.append(f[1] if "@" in f[1] else f[1] + "@Base")
    return syms


@functools.lru_cache(maxsize=None)
def vercmp(a, b):
    if a == b:
        return 0
    r = subprocess.run(["dpkg", "--compare-versions", a, "gt", b])
    return 1 if r.returncode == 0 else -1


def main(binaries):
    deps = {}        # package dependency -> minimal version ("" = any)

    def want(dep, ver):
        old = deps.get(dep)
        if old is None or (ver and (not old or vercmp(ver, old) > 0)):
            deps[dep] = ver

    for b in binaries:
        sonames = needed(b)
        paths = lib_paths(b)
        symfiles = {}                   # soname -> (template, symbols)
        for so in sonames:
            if so not in paths:
                fail("%s: the loader does not find %s" % (b, so))
        owners = packages_of([paths[so] for so in sonames])
        for so in sonames:
            path = paths[so]
            pkg = owners[path]
            if not pkg:
                fail("%s: %s (%s) comes from no package" % (b, so, path))
            sym = control_file(pkg, "symbols")
            objs = read_symbols(sym) if sym else {}
            if so in objs:
                symfiles[so] = objs[so]
                continue
            shl = control_file(pkg, "shlibs")
            dep = read_shlibs(shl, so) if shl else None
            if not dep:
                fail("%s: no dependency information for %s in %s" % (b, so, pkg))
            for d in dep.split(","):
                m = re.match(r"^\s*(\S+)\s*(?:\(>=\s*([^)]+)\))?\s*$", d)
                if not m:
                    fail("%s: cannot read the shlibs entry '%s'" % (pkg, dep))
                want(m.group(1), m.group(2) or "")
        for so, (template, _) in symfiles.items():
            want(template, "")
        for sym in undefined_symbols(b):
            for so in sonames:
                if so in symfiles and sym in symfiles[so][1]:
                    v = symfiles[so][1][sym]
                    want(symfiles[so][0], "" if v == "0" else v)
                    break
    out = []
    for dep in sorted(deps):
        out.append("%s (>= %s)" % (dep, deps[dep]) if deps[dep] else dep)
    print(", ".join(out))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.stderr.write("usage: shlibdeps.py BINARY...\n")
        sys.exit(2)
    main(sys.argv[1:])
