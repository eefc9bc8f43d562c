#!/usr/bin/env bash
# run.sh - the allocator scenarios suite of `make test` (run.py does the
# work; it needs python3 with PyYAML, else the suite is skipped).
top=$(cd "$(dirname "$0")/../../.." && pwd)
if ! python3 -c 'import yaml' 2>/dev/null; then
  echo "skipped: python3 with PyYAML not found (tests/k8s/allocator)"
  echo "0 passed, 0 failed"
  exit 0
fi
exec python3 "$top/tests/k8s/allocator/run.py" "$@"
