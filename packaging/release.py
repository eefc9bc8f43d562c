#!/usr/bin/env python3
"""release.py check | bump X.Y.Z | refs - what the references to a release say.

VERSION holds the version the tag vVERSION publishes (the release workflow
refuses any other tag); packaging/release.env the names it publishes under
(repository, images). The references users copy - the pre-commit `rev` and
image, the Action's @vX, the GitLab snippet, the Kustomize image and tag,
README's download lines - are found by pattern in every tracked file but
tests/ (test data is not published), so a new one is checked without an
edit here.
  check        every reference names VERSION and a published name; exit 1
               listing each one that does not (file:line)
  bump X.Y.Z   write X.Y.Z into VERSION and every reference, then check
  refs         list the references (file:line: text)
"""
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VER = r"(?P<v>[0-9][0-9A-Za-z.+~]*(?:-[0-9A-Za-z.+~]+)*?)"


def load_env():
    env = {}
    for line in open(os.path.join(TOP, "packaging", "release.env"), encoding="utf-8"):
        line = line.strip()
        if line and not line.startswith("#"):
            k, _, v = line.partition("=")
            env[k] = v
    return env


def patterns(env):
    """(kind, compiled regex with a 'v' group for the version, or none)"""
    repo = re.escape(env["REPO"])
    host = re.escape(env["IMAGE_LINTER"].split("/")[0])
    return [
        # an image of ours with a tag; the name is checked too
        ("image", re.compile(r"(?P<name>%s/[a-z0-9._/-]+):%s(?![0-9A-Za-z])" % (host, VER))),
        # the Action or the repository at a tag
        ("action", re.compile(r"%s(?:/[A-Za-z0-9._/-]+)?@v%s(?![0-9A-Za-z])" % (repo, VER))),
        # pre-commit: rev right after our repo (also in # comments)
        ("pre-commit rev", re.compile(
            r"repo:\s*https://github\.com/%s[ \t]*\n[#\s]*rev:\s*v%s\b" % (repo, VER))),
        ("release asset", re.compile(
            r"github\.com/%s/releases/download/v%s/" % (repo, VER))),
        ("package", re.compile(r"\bclaimcheck(?:-webhook)?_%s-1_[a-z0-9]+\.deb" % VER)),
        ("tarball", re.compile(r"\bclaimcheck-%s\.tar\.gz" % VER)),
        ("gitlab variable", re.compile(r"CLAIMCHECK_VERSION:\s*\"%s\"" % VER)),
        ("kustomize tag", re.compile(r"newTag:\s*\"?%s\"?" % VER)),
    ]


def files():
    try:
        out = subprocess.run(["git", "-C", TOP, "ls-files", "-z"], capture_output=True,
                             text=True, check=True).stdout.split("\0")
    except (OSError, subprocess.CalledProcessError):
        out = [os.path.relpath(os.path.join(d, f), TOP)
               for d, _, fs in os.walk(TOP) if "/.git" not in d for f in fs]
    skip = ("tests/", "build/", "packaging/release.py")
    return sorted(f for f in out if f and not f.startswith(skip)
                  and os.path.isfile(os.path.join(TOP, f)))


def refs(env):
    """[(file, line, kind, version or None, image name or None, span of v)]"""
    found = []
    pats = patterns(env)
    host = env["IMAGE_LINTER"].split("/")[0]
    for f in files():
        try:
            text = open(os.path.join(TOP, f), encoding="utf-8").read()
        except (UnicodeDecodeError, OSError):
            continue
        for kind, rx in pats:
            for m in rx.finditer(text):
                found.append((f, text.count("\n", 0, m.start("v")) + 1, kind, m.group("v"),
                              m.groupdict().get("name"), m.span("v")))
        # image names without a tag (Kustomize's images: name) must be ours too
        for m in re.finditer(r"(?<![\w.-])%s/[a-z0-9._/-]*[a-z0-9]" % re.escape(host), text):
            if not re.match(r":[0-9]", text[m.end():m.end() + 2]):
                found.append((f, text.count("\n", 0, m.start()) + 1, "image name", None,
                              m.group(0), None))
    return found


def check(env, version):
    names = {env["IMAGE_LINTER"], env["IMAGE_WEBHOOK"]}
    bad = 0
    rs = refs(env)
    for f, line, kind, v, name, _ in rs:
        if name is not None and name not in names:
            print("%s:%d: %s '%s' is not a published image (%s)" % (f, line, kind, name,
                                                                   ", ".join(sorted(names))))
            bad += 1
        if v is not None and v != version:
            print("%s:%d: %s names %s, VERSION is %s" % (f, line, kind, v, version))
            bad += 1
    if not rs:
        print("no reference found: the patterns or the file list are broken")
        bad += 1
    if bad:
        print("release.py: %d references disagree (make release-bump V=%s rewrites them)"
              % (bad, version))
    else:
        print("release.py: %d references name %s and the published names" % (len(rs), version))
    return 1 if bad else 0


def bump(env, new):
    if not re.fullmatch(VER, new):
        sys.stderr.write("release.py: '%s' is not a version\n" % new)
        return 2
    edits = {}
    for f, _, _, v, _, span in refs(env):
        if span is not None:
            edits.setdefault(f, []).append(span)
    for f, spans in edits.items():
        path = os.path.join(TOP, f)
        text = open(path, encoding="utf-8").read()
        for a, b in sorted(set(spans), reverse=True):
            text = text[:a] + new + text[b:]
        open(path, "w", encoding="utf-8").write(text)
    open(os.path.join(TOP, "VERSION"), "w").write(new + "\n")
    return check(env, new)


def main(argv):
    env = load_env()
    version = open(os.path.join(TOP, "VERSION")).read().strip()
    if argv[:1] == ["check"] and len(argv) == 1:
        return check(env, version)
    if argv[:1] == ["bump"] and len(argv) == 2:
        return bump(env, argv[1])
    if argv[:1] == ["refs"] and len(argv) == 1:
        for f, line, kind, v, name, _ in refs(env):
            print("%s:%d: %s %s" % (f, line, kind, " ".join(x for x in (name, v) if x)))
        return 0
    sys.stderr.write("usage: release.py check | bump X.Y.Z | refs\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
