#!/usr/bin/env bash
# deploy/run.sh - `make run`: a throwaway CA and serving certificate for
# localhost and 127.0.0.1 in deploy/.certs (git-ignored), the linter's view
# of the sample manifests, then claimcheck-webhook on https://127.0.0.1:8443
# (LISTEN=ADDR:PORT to change) with the example inventory, in the
# foreground (Ctrl-C stops it). `make deploy-manifests` rewrites
# deploy/.certs for the cluster with localhost and 127.0.0.1 too, so the
# running server reloads a certificate the printed curl lines still accept.
# The caBundle `certs` prints is for a cluster (deploy/render.sh puts it in
# the manifests): here it is not printed, and not claimed to be.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
certs=deploy/.certs
addr=${LISTEN:-127.0.0.1:8443}
inv=deploy/examples/inventory.yaml
inv_args=()
[ -f "$inv" ] && inv_args=(--inventory "$inv")

mkdir -p "$certs"
echo "== a throwaway CA and serving certificate in $certs"
# its summary (stderr) without the line about the caBundle on stdout,
# which goes nowhere here
build/claimcheck-webhook certs --service claimcheck --namespace claimcheck \
  --dns localhost --ip 127.0.0.1 --days 90 --out "$certs" --force 2>&1 >/dev/null \
  | grep -v 'caBundle.* on stdout$'
[ "${PIPESTATUS[0]}" -eq 0 ]
echo

echo "== claimcheck lint deploy/examples (the linter's view, inventory: $inv)"
build/claimcheck lint --no-hints "${inv_args[@]/--inventory/-i}" \
  deploy/examples/good-training.yaml deploy/examples/double-managed.yaml \
  deploy/examples/shared-claim.yaml deploy/examples/too-big.yaml || true
echo
echo "== claimcheck-webhook on https://$addr"
echo "try, from another terminal:"
for f in deploy/examples/admission-*.json; do
  echo "  curl -sS --cacert $certs/ca.crt -H 'Content-Type: application/json' -d @$f https://$addr/validate"
done
echo "  curl -sS --cacert $certs/ca.crt https://$addr/metrics"
echo
exec build/claimcheck-webhook serve --listen "$addr" \
  --tls-cert "$certs/tls.crt" --tls-key "$certs/tls.key" "${inv_args[@]}"
