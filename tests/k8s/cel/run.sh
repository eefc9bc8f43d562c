#!/usr/bin/env bash
# tests/k8s/cel/run.sh - the differential runner over Kubernetes' own CEL
# tables (run.py: claimcheck cel, claimcheck lint, claimcheck-webhook).
# Needs python3 with PyYAML; without it the suite is one skip. The last
# line is "N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/../../.." || exit 1
if ! python3 -c 'import yaml' 2>/dev/null; then
    echo "skipped: Kubernetes CEL tables (python3 with PyYAML not installed: apt-get install python3-yaml)"
    echo "0 passed, 0 failed, 1 skipped"
    exit 0
fi
exec python3 tests/k8s/cel/run.py "$@"
