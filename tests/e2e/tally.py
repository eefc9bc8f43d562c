"""tally.py - the result lines of the Python checkers in tests/e2e
(deploy_check.py, monitoring/check.py): "ok NAME" or "FAIL NAME: WHY" per
check, and "N passed, N failed" last, the lines tests/e2e/lib.sh's tally
counts."""

counts = {"passed": 0, "failed": 0}


def check(name, cond, why=""):
    """one check: an "ok" or "FAIL" line, counted"""
    if cond:
        counts["passed"] += 1
        print("ok " + name)
    else:
        counts["failed"] += 1
        print("FAIL %s%s" % (name, ": " + why if why else ""))


def summary():
    """prints the last line; returns the exit status (1 on any failure)"""
    print("%(passed)d passed, %(failed)d failed" % counts)
    return 1 if counts["failed"] else 0
