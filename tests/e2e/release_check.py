#!/usr/bin/env python3
"""release_check.py TOP - what cannot run here, checked statically (tests/e2e/release.sh):
.github/workflows/release.yml (trigger, jobs and their order, permissions,
make targets and paths it uses, artifact names, images and platforms) and
deploy/Dockerfile against the Makefile (build packages, binaries, runtime
libraries per image, nothing tied to one architecture), and that the
pre-commit hook, the Action, Kustomize and docs name the images the
workflow pushes. Prints "ok ...", "FAIL ..." and "skipped: ..." lines.
"""
import fnmatch
import glob
import os
import re
import subprocess
import sys

import yaml

TOP = sys.argv[1]
WF = ".github/workflows/release.yml"
JOBS = {"check", "test", "dist", "deb", "images", "release"}


def ok(cond, name, why=""):
    print(("ok " if cond else "FAIL ") + name + ("" if cond or not why else ": " + str(why)))
    return cond


def read(p):
    return open(os.path.join(TOP, p), encoding="utf-8").read()


def env_file():
    env = {}
    for line in read("packaging/release.env").splitlines():
        if line.strip() and not line.startswith("#"):
            k, _, v = line.partition("=")
            env[k.strip()] = v.strip()
    return env


def make_vars(*names):
    """values of Makefile variables, as make computes them"""
    rule = "print-vars:\n\t@printf '%s\\n' " + " ".join("'$(%s)'" % n for n in names) + "\n"
    r = subprocess.run(["make", "--no-print-directory", "-s", "CLAIMCHECK_STAGE2=1",
                        "-f", "Makefile", "-f", "-", "print-vars"], cwd=TOP, input=rule,
                       capture_output=True, text=True)
    return r.stdout.split("\n")[:len(names)]


def make_targets():
    text = read("Makefile")
    return set(re.findall(r"^([A-Za-z0-9_.-]+)\s*:(?!=)", text, re.M))


def steps(job):
    return job.get("steps", [])


def runs(wf):
    for name, job in wf["jobs"].items():
        for s in steps(job):
            if "run" in s:
                yield name, s["run"]


def expr_free(s, version):
    """a workflow string with its ${{ }} expressions resolved as far as we can"""
    s = s.replace("${{ needs.check.outputs.version }}", version)
    return re.sub(r"\$\{\{[^}]*\}\}", "*", s)


def check_workflow(wf, env, version):
    on = wf.get("on", wf.get(True))      # YAML 1.1 reads the key on as true
    tags = (on or {}).get("push", {}).get("tags", []) if isinstance(on, dict) else []
    ok(isinstance(on, dict) and set(on) == {"push"} and set(on["push"]) == {"tags"},
       "workflow: triggered by pushed tags only", on)
    ok(any(fnmatch.fnmatch("v" + version, t) for t in tags)
       and not any(fnmatch.fnmatch(version, t) for t in tags),
       "workflow: the tag pattern %s takes v%s, not %s" % (tags, version, version))
    jobs = wf.get("jobs", {})
    ok(set(jobs) == JOBS, "workflow: jobs %s" % sorted(JOBS), sorted(jobs))

    def needs(j):
        n = jobs.get(j, {}).get("needs", [])
        return {n} if isinstance(n, str) else set(n)

    def before(j):              # every job j waits for, transitively
        seen, todo = set(), list(needs(j))
        while todo:
            x = todo.pop()
            if x not in seen:
                seen.add(x)
                todo.extend(needs(x))
        return seen
    ok("check" in before("test"), "workflow: test runs after check")
    ok(all({"check", "test"} <= before(j) for j in ("dist", "deb", "images")),
       "workflow: nothing is built for publishing before check and test pass")
    ok({"check", "test", "dist", "deb", "images"} <= before("release"),
       "workflow: the release waits for every artifact and image")
    ok(any(re.search(r"\bmake test\b", r) for j, r in runs(wf) if j == "test"),
       "workflow: the test job runs make test")

    # permissions: read by default, write only where publishing
    perms = wf.get("permissions", {})
    ok(perms == {"contents": "read"}, "workflow: default permissions contents: read", perms)
    writes = {j: {k for k, v in (job.get("permissions") or {}).items() if v == "write"}
              for j, job in jobs.items()}
    ok(writes.get("images") == {"packages"} and writes.get("release") == {"contents"}
       and not any(w for j, w in writes.items() if j not in ("images", "release")),
       "workflow: only images writes packages, only release writes contents", writes)

    # actions at a released major version
    uses = [s["uses"] for job in jobs.values() for s in steps(job) if "uses" in s]
    loose = [u for u in uses if not re.search(r"@v\d+(\.\d+)*$", u)]
    ok(uses and not loose, "workflow: %d actions pinned to a release" % len(uses), loose)

    # make targets it runs exist
    targets = make_targets()
    used = set()
    for _, r in runs(wf):
        for m in re.finditer(r"\bmake((?:\s+(?:-\S+|\w+=\S+))*)\s+([a-z][a-z0-9-]*)", r):
            used.add(m.group(2))
    ok(used and used <= targets, "workflow: make targets %s exist" % sorted(used),
       sorted(used - targets))

    # repository paths it names exist (build/ outputs are checked below)
    paths = set()
    texts = [r for _, r in runs(wf)] + [str(v) for job in jobs.values() for s in steps(job)
                                       for v in (s.get("with") or {}).values()]
    for t in texts:
        for m in re.finditer(r"(?<![\w$/.{-])((?:\.github|deploy|packaging|tests|docs|validate|"
                             r"webhook|certs|rules|lint)/[\w./*-]*[\w*]|VERSION\b|Makefile\b)", t):
            paths.add(m.group(1))
    missing = [p for p in sorted(paths) if not glob.glob(os.path.join(TOP, p))]
    ok(paths and not missing, "workflow: the %d repository paths it names exist" % len(paths),
       missing)

    # artifacts: the names make dist and make deb write
    dist = [expr_free(s["with"]["path"], version) for s in steps(jobs.get("dist", {}))
            if "upload-artifact" in s.get("uses", "")]
    ok(dist == ["build/claimcheck-%s.tar.gz" % version],
       "workflow: dist uploads build/claimcheck-%s.tar.gz (make dist's name)" % version, dist)
    matrix = jobs.get("deb", {}).get("strategy", {}).get("matrix", {}).get("include", [])
    arches = {m.get("arch") for m in matrix}
    ok(arches == {"amd64", "arm64"}, "workflow: packages for amd64 and arm64", arches)
    up = [s["with"]["path"] for s in steps(jobs.get("deb", {}))
          if "upload-artifact" in s.get("uses", "")]
    for a in sorted(a for a in arches if a):
        names = ["%s_%s-1_%s.deb" % (p, version, a) for p in ("claimcheck", "claimcheck-webhook")]
        pat = up[0].replace("${{ matrix.arch }}", a) if up else ""
        ok(pat and all(fnmatch.fnmatch("build/" + n, pat) for n in names),
           "workflow: the %s upload (%s) takes %s" % (a, pat, " and ".join(names)))

    # images: the Dockerfile's targets, under release.env's names, multi-arch
    host = env["IMAGE_LINTER"].split("/")[0]
    login = [s["with"].get("registry") for s in steps(jobs.get("images", {}))
             if "login-action" in s.get("uses", "")]
    ok(login == [host], "workflow: logs in to %s, the images' registry" % host, login)
    ok(all("packaging/release.env" in s.get("run", "") for s in steps(jobs.get("images", {}))
           if "GITHUB_ENV" in s.get("run", "")) and "IMAGE_WEBHOOK" in env,
       "workflow: image names come from packaging/release.env")
    builds = [s["with"] for s in steps(jobs.get("images", {}))
              if "build-push-action" in s.get("uses", "")]
    want = {"linter": "${{ env.IMAGE_LINTER }}", "webhook": "${{ env.IMAGE_WEBHOOK }}"}
    got = {b.get("target"): b.get("tags", "").split(":")[0] for b in builds}
    ok(got == want, "workflow: target linter -> IMAGE_LINTER, webhook -> IMAGE_WEBHOOK", got)
    ok(all(b.get("file") == "deploy/Dockerfile" and b.get("context") == "."
           and b.get("push") is True for b in builds),
       "workflow: both images from deploy/Dockerfile with the repository as context, pushed")
    ok(builds and all({"linux/amd64", "linux/arm64"} <= set(str(b.get("platforms")).split(","))
                      for b in builds), "workflow: both images for linux/amd64 and linux/arm64")
    ok(all(b.get("tags", "").endswith(":${{ needs.check.outputs.version }}") for b in builds),
       "workflow: images tagged with the checked version")
    return arches


def stages(dockerfile):
    """name -> {'from': image, 'runs': [RUN texts], 'copies': [(from, src)], 'entry': ...}"""
    text = re.sub(r"\\\n", " ", dockerfile)
    out, cur = {}, None
    for line in text.splitlines():
        line = line.strip()
        m = re.match(r"FROM\s+(?P<plat>--platform=\S+\s+)?(?P<img>\S+)(?:\s+AS\s+(?P<n>\S+))?",
                     line, re.I)
        if m:
            cur = {"from": m.group("img"), "platform": m.group("plat"), "runs": [],
                   "copies": [], "entry": None}
            out[m.group("n") or "stage%d" % len(out)] = cur
        elif cur is None:
            continue
        elif line.upper().startswith("RUN "):
            cur["runs"].append(line[4:])
        elif line.upper().startswith("COPY "):
            m = re.match(r"COPY\s+--from=(\S+)\s+(\S+)", line, re.I)
            if m:
                cur["copies"].append((m.group(1), m.group(2)))
        elif line.upper().startswith("ENTRYPOINT"):
            cur["entry"] = line
    return out


def apt_installs(runs):
    pkgs = set()
    for r in runs:
        for m in re.finditer(r"apt-get install((?:\s+(?:-\S+|[a-z0-9][a-z0-9.+-]*))+)", r):
            pkgs |= {w for w in m.group(1).split() if not w.startswith("-")}
    return pkgs


def check_dockerfile(env, version):
    df = stages(read("deploy/Dockerfile"))
    ok({"build", "linter", "webhook"} <= set(df), "Dockerfile: stages build, linter, webhook",
       sorted(df))
    if not {"build", "linter", "webhook"} <= set(df):
        return
    lint_bin, hook_bin, apt = make_vars("LINT_BIN", "HOOK_BIN", "APT_PKGS")
    bins = {lint_bin, hook_bin}
    # the build stage: the Makefile's packages, its binaries
    dev = apt_installs(df["build"]["runs"])
    ok(set(apt.split()) <= dev and dev - set(apt.split()) <= {"build-essential"},
       "Dockerfile: the build stage installs the Makefile's APT_PKGS (and build-essential)",
       "Makefile %s, Dockerfile %s" % (sorted(apt.split()), sorted(dev)))
    made = set()
    for r in df["build"]["runs"]:
        for m in re.finditer(r"\bmake\b((?:\s+(?:-\S+|\w+=\S+|build/\S+))+)", r):
            made |= {w for w in m.group(1).split() if w.startswith("build/")}
    ok(made == bins, "Dockerfile: the build stage makes the Makefile's binaries %s"
       % sorted(bins), sorted(made))
    for st, want in (("linter", {lint_bin}), ("webhook", bins)):
        got = {os.path.relpath(src, "/src") for frm, src in df[st]["copies"] if frm == "build"}
        ok(got == want, "Dockerfile: %s copies %s" % (st, sorted(want)), sorted(got))
    ok('"claimcheck"' in (df["linter"]["entry"] or "")
       and '"claimcheck-webhook"' in (df["webhook"]["entry"] or ""),
       "Dockerfile: linter runs claimcheck, webhook runs claimcheck-webhook")
    # multi-arch: official multi-arch bases, nothing tied to one architecture
    froms = {s["from"] for s in df.values()}
    pinned = [n for n, s in df.items() if s["platform"]]
    archy = [r for s in df.values() for r in s["runs"]
             if re.search(r"amd64|x86_64|x86-64|aarch64|arm64|i386", r)]
    ok(all(re.match(r"debian:[a-z]+(-slim)?$", f) for f in froms) and not pinned and not archy,
       "Dockerfile: multi-arch (Debian bases %s, no --platform, no architecture in RUN)"
       % sorted(froms), pinned + archy)
    # runtime libraries: what the binaries need, as the packages compute it
    codename = ""
    if os.path.exists("/etc/os-release"):
        m = re.search(r"^VERSION_CODENAME=(\S+)", open("/etc/os-release").read(), re.M)
        codename = m.group(1) if m else ""
    base = {s["from"].split(":")[1].split("-")[0] for n, s in df.items() if n != "build"}
    have = all(os.access(os.path.join(TOP, b), os.X_OK) for b in bins)
    if base != {codename} or not have or subprocess.run(["sh", "-c", "command -v dpkg"],
                                                        capture_output=True).returncode:
        print("skipped: Dockerfile runtime packages against the binaries' Depends (needs dpkg,"
              " the built binaries and a %s host; this is '%s')" % ("/".join(base), codename))
        return
    for st, want_bins in (("linter", [lint_bin]), ("webhook", [lint_bin, hook_bin])):
        r = subprocess.run([sys.executable, "packaging/shlibdeps.py"] + want_bins, cwd=TOP,
                           capture_output=True, text=True)
        need = {d.split()[0] for d in r.stdout.strip().split(", ") if d} - {"libc6"}
        san = sorted(d for d in need if re.match(r"lib(asan|ubsan|tsan|lsan)\d*$", d))
        if san:  # make SANITIZE=...: not the build the Dockerfile ships
            print("skipped: Dockerfile runtime packages against the binaries' Depends (the"
                  " binaries are a sanitizer build needing %s; the image builds without)"
                  % ", ".join(san))
            return
        got = apt_installs(df[st]["runs"]) - {"ca-certificates"}
        ok(r.returncode == 0 and need == got,
           "Dockerfile: %s installs exactly its binaries' libraries %s" % (st, sorted(need)),
           "Dockerfile %s, Depends %s %s" % (sorted(got), sorted(need), r.stderr.strip()))


def check_users(env, version, arches):
    """the images the hook, Kustomize and docs use are the ones pushed for them"""
    hooks = yaml.safe_load(read(".pre-commit-hooks.yaml"))
    dock = [h for h in hooks if h.get("language") == "docker_image"]
    ok(dock and all(h["entry"].split()[0] == "%s:%s" % (env["IMAGE_LINTER"], version)
                    and h["entry"].split()[1:2] == ["lint"] for h in dock),
       "pre-commit: the docker hook runs the linter image %s:%s lint" % (env["IMAGE_LINTER"], version),
       [h["entry"] for h in dock])
    dep = [d for d in yaml.safe_load_all(read("deploy/kubernetes/base/deployment.yaml"))
           if d and d.get("kind") == "Deployment"][0]
    c = dep["spec"]["template"]["spec"]["containers"][0]
    ok(c["image"] == "%s:%s" % (env["IMAGE_WEBHOOK"], version) and c.get("args", [""])[0] == "serve",
       "Kustomize: the Deployment runs %s:%s serve" % (env["IMAGE_WEBHOOK"], version), c["image"])
    kust = yaml.safe_load(read("deploy/kubernetes/base/kustomization.yaml"))
    ok([(i.get("name"), str(i.get("newTag"))) for i in kust.get("images", [])]
       == [(env["IMAGE_WEBHOOK"], version)],
       "Kustomize: images: sets %s to %s" % (env["IMAGE_WEBHOOK"], version), kust.get("images"))
    act = yaml.safe_load(read("deploy/github-action/action.yml"))
    ok(act.get("runs", {}).get("using") == "composite",
       "Action: composite, built from the tagged source it is used at")
    # download links name assets the release job uploads
    assets = {"claimcheck-%s.tar.gz" % version, "SHA256SUMS"} | {
        "%s_%s-1_%s.deb" % (p, version, a) for p in ("claimcheck", "claimcheck-webhook")
        for a in arches}
    files = subprocess.run(["git", "ls-files"], cwd=TOP, capture_output=True,
                           text=True).stdout.split()
    links = set()
    for f in files:
        if f.endswith((".md", ".yml", ".yaml")) and not f.startswith("tests/"):
            for m in re.finditer(r"github\.com/%s/releases/download/v[^/\s]+/([^\s\"'`)]+)"
                                 % re.escape(env["REPO"]), read(f)):
                if "$" not in m.group(1):
                    links.add((f, m.group(1)))
    ok(links and all(n in assets for _, n in links),
       "docs: the %d release download links name assets the workflow uploads" % len(links),
       sorted(l for l in links if l[1] not in assets))
    r = subprocess.run([sys.executable, "packaging/release.py", "check"], cwd=TOP,
                       capture_output=True, text=True)
    ok(r.returncode == 0, "references: " + (r.stdout.strip().split("\n") or [""])[-1],
       r.stdout.strip())


def main():
    env = env_file()
    version = read("VERSION").strip()
    wf = yaml.safe_load(read(WF))
    arches = check_workflow(wf, env, version)
    check_dockerfile(env, version)
    check_users(env, version, arches)


if __name__ == "__main__":
    main()
