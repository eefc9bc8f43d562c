#!/usr/bin/env bash
# tests/certs/run.sh - end-to-end tests of `claimcheck-webhook certs`: drive
# the CLI, then check its files with the openssl(1) command-line tool
# (chain, SANs, extensions, key type and mode, overwrite refusal, --check
# exit codes, CA reuse, a real TLS handshake). Uses build/claimcheck-webhook
# when it has the certs subcommand, else builds tests/certs/certs_driver.c.
# Last line: "N passed, N failed"; exit status 1 if anything failed.
#
#   bash tests/certs/run.sh [-v]      (-v: show every command's output)
#   CERTS_DRIVER=1 bash tests/certs/run.sh   (test the driver even if the
#                                             webhook binary exists)
set -u
cd "$(dirname "$0")/../.." || exit 2
BUILD=${BUILD:-build}
VERBOSE=0
[ "${1:-}" = "-v" ] && VERBOSE=1

for tool in openssl base64 sha256sum timeout; do
    command -v "$tool" >/dev/null || { echo "missing tool: $tool"; echo "0 passed, 1 failed"; exit 1; }
done

T=$(mktemp -d "${TMPDIR:-/tmp}/certs_e2e.XXXXXX") || exit 2
SERVER_PID=
cleanup() {
    [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT

# ---- the binary under test ----
BIN=
if [ -z "${CERTS_DRIVER:-}" ] && [ -x "$BUILD/claimcheck-webhook" ] &&
   "$BUILD/claimcheck-webhook" certs --help 2>/dev/null | grep -q 'claimcheck-webhook certs'; then
    BIN=$BUILD/claimcheck-webhook
    echo "# using $BIN certs"
else
    mkdir -p "$BUILD/tests"
    CFLAGS_DRV="-std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Wall -Wextra -Wpedantic
        -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wwrite-strings -Wformat=2 -Wvla
        -Wcast-qual -fno-common -O1 -g"
    [ -n "${DEVELOPER:-}" ] && CFLAGS_DRV="$CFLAGS_DRV -Werror"
    [ -n "${SANITIZE:-}" ] &&
        CFLAGS_DRV="$CFLAGS_DRV -fsanitize=$SANITIZE -fno-sanitize-recover=all -fno-omit-frame-pointer"
    # shellcheck disable=SC2086
    if ! ${CC:-cc} $CFLAGS_DRV -o "$BUILD/tests/certs_driver" tests/certs/certs_driver.c \
            certs/*.c validate/err.c validate/buf.c $(pkg-config --cflags --libs openssl); then
        echo "cannot build $BUILD/tests/certs_driver"
        echo "0 passed, 1 failed"
        exit 1
    fi
    BIN=$BUILD/tests/certs_driver
    echo "# using $BIN certs"
fi

pass=0
fail=0
ok()  { pass=$((pass + 1)); echo "ok   - $1"; }
bad() {
    fail=$((fail + 1)); echo "FAIL - $1"
    [ -s "$T/out" ] && sed 's/^/    stdout: /' "$T/out" | head -20
    [ -s "$T/err" ] && sed 's/^/    stderr: /' "$T/err" | head -20
    return 0
}
# t DESC CMD...: passes if CMD succeeds
t() { local d=$1; shift; if "$@"; then ok "$d"; else bad "$d"; fi; }

# certs ARGS...: runs the CLI, stdout in $T/out, stderr in $T/err, rc in $rc
certs() {
    timeout 60 "$BIN" certs "$@" >"$T/out" 2>"$T/err" </dev/null
    rc=$?
    if [ "$VERBOSE" = 1 ]; then
        echo "# certs $* -> $rc"; sed 's/^/#   /' "$T/out" "$T/err"
    fi
}
rc_is()    { [ "$rc" = "$1" ]; }
err_has()  { grep -qF -- "$1" "$T/err"; }
out_has()  { grep -qF -- "$1" "$T/out"; }
sans()     { openssl x509 -in "$1" -noout -ext subjectAltName | sed -n '2p' | sed 's/^ *//'; }
ext()      { openssl x509 -in "$1" -noout -ext "$2" 2>/dev/null; }
mode()     { stat -c %a "$1"; }
verify()   { openssl verify -CAfile "$1" "${@:3}" "$2" >/dev/null 2>&1; }
sums()     { sha256sum "$1"/* 2>/dev/null; }
nfiles()   { find "$1" -mindepth 1 | wc -l; }
pubkey_of_cert() { openssl x509 -in "$1" -noout -pubkey; }
pubkey_of_key()  { openssl pkey -in "$1" -pubout; }
same_pub() { [ "$(pubkey_of_cert "$1")" = "$(pubkey_of_key "$2")" ]; }
ts()       { date -u -d "$(openssl x509 -in "$1" -noout "-$2" | cut -d= -f2)" +%s; }
near()     { local d=$(( $1 - $2 )); [ "${d#-}" -le "${3:-10}" ]; }
SVC=(--service hook --namespace claimcheck)
DEF_SANS="DNS:hook, DNS:hook.claimcheck, DNS:hook.claimcheck.svc, DNS:hook.claimcheck.svc.cluster.local"

# ======== 1. default generation (ECDSA P-256, new CA) ========
D=$T/a
now=$(date +%s)
# umask 000 in a subshell: modes must not depend on it
(umask 000; timeout 60 "$BIN" certs "${SVC[@]}" --out "$D" >"$T/out" 2>"$T/err" </dev/null
 echo $? >"$T/rc")
rc=$(cat "$T/rc")
t "generate: exit 0" rc_is 0
t "generate: stdout is one base64 line" test "$(wc -l <"$T/out")" = 1
t "generate: stdout decodes to ca.crt (the caBundle)" cmp -s <(base64 -d "$T/out") "$D/ca.crt"
t "generate: summary on stderr names the files" err_has "$D/tls.key"
t "generate: exactly ca.crt tls.crt tls.key, no temporaries" test "$(ls -A "$D" | tr '\n' ' ')" = "ca.crt tls.crt tls.key "
t "generate: tls.key mode 0600 (umask 000)" test "$(mode "$D/tls.key")" = 600
t "generate: tls.crt mode 0644 (umask 000)" test "$(mode "$D/tls.crt")" = 644
t "generate: ca.crt mode 0644 (umask 000)" test "$(mode "$D/ca.crt")" = 644
t "generate: chain verifies (openssl verify)" verify "$D/ca.crt" "$D/tls.crt"
t "generate: verifies for purpose sslserver" verify "$D/ca.crt" "$D/tls.crt" -purpose sslserver
t "generate: verifies for host hook.claimcheck.svc" verify "$D/ca.crt" "$D/tls.crt" -verify_hostname hook.claimcheck.svc
t "generate: SANs are exactly the four service names" test "$(sans "$D/tls.crt")" = "$DEF_SANS"
t "generate: key is PKCS#8 PEM" test "$(head -1 "$D/tls.key")" = "-----BEGIN PRIVATE KEY-----"
t "generate: key is EC P-256" bash -c "openssl pkey -in '$D/tls.key' -noout -text | grep -q 'ASN1 OID: prime256v1'"
t "generate: CA key is EC P-256" bash -c "openssl x509 -in '$D/ca.crt' -noout -text | grep -q 'ASN1 OID: prime256v1'"
t "generate: key matches cert" same_pub "$D/tls.crt" "$D/tls.key"
t "generate: leaf is X.509 v3" bash -c "openssl x509 -in '$D/tls.crt' -noout -text | grep -q 'Version: 3 (0x2)'"
t "generate: CA is X.509 v3" bash -c "openssl x509 -in '$D/ca.crt' -noout -text | grep -q 'Version: 3 (0x2)'"
t "generate: signed with ecdsa-with-SHA256" bash -c "openssl x509 -in '$D/tls.crt' -noout -text | grep -q 'Signature Algorithm: ecdsa-with-SHA256'"
serial=$(openssl x509 -in "$D/tls.crt" -noout -serial | cut -d= -f2)
t "generate: serial is random 128-bit (${#serial} hex digits)" test "${#serial}" -ge 24 -a "${#serial}" -le 32
ca_serial=$(openssl x509 -in "$D/ca.crt" -noout -serial | cut -d= -f2)
t "generate: CA and leaf serials differ" test "$serial" != "$ca_serial"
t "generate: leaf notBefore = now - 5 min" near "$(ts "$D/tls.crt" startdate)" $((now - 300)) 15
t "generate: leaf notAfter = now + 365 days" near "$(ts "$D/tls.crt" enddate)" $((now + 365 * 86400)) 15
t "generate: CA notAfter = now + 3650 days" near "$(ts "$D/ca.crt" enddate)" $((now + 3650 * 86400)) 15
t "generate: CA basicConstraints critical CA:TRUE" bash -c "openssl x509 -in '$D/ca.crt' -noout -ext basicConstraints | tr -d '\n' | grep -q 'critical *CA:TRUE'"
t "generate: CA keyUsage critical keyCertSign,cRLSign" bash -c "openssl x509 -in '$D/ca.crt' -noout -ext keyUsage | tr -d '\n' | grep -q 'critical *Certificate Sign, CRL Sign$'"
t "generate: CA has a subjectKeyIdentifier" bash -c "openssl x509 -in '$D/ca.crt' -noout -ext subjectKeyIdentifier | grep -q ':'"
t "generate: leaf basicConstraints critical CA:FALSE" bash -c "openssl x509 -in '$D/tls.crt' -noout -ext basicConstraints | tr -d '\n' | grep -q 'critical *CA:FALSE'"
t "generate: leaf keyUsage critical digitalSignature only (EC)" bash -c "openssl x509 -in '$D/tls.crt' -noout -ext keyUsage | tr -d '\n' | grep -q 'critical *Digital Signature$'"
t "generate: leaf extKeyUsage serverAuth" bash -c "openssl x509 -in '$D/tls.crt' -noout -ext extendedKeyUsage | grep -q 'TLS Web Server Authentication'"
ca_ski=$(ext "$D/ca.crt" subjectKeyIdentifier | sed -n '2p' | tr -d ' ')
leaf_aki=$(ext "$D/tls.crt" authorityKeyIdentifier | sed -n '2p' | tr -d ' ' | sed 's/^keyid://')
leaf_ski=$(ext "$D/tls.crt" subjectKeyIdentifier | sed -n '2p' | tr -d ' ')
t "generate: leaf AKI = CA SKI" test -n "$ca_ski" -a "$leaf_aki" = "$ca_ski"
t "generate: leaf has its own SKI" test -n "$leaf_ski" -a "$leaf_ski" != "$ca_ski"
t "generate: SAN extension not critical" bash -c "! openssl x509 -in '$D/tls.crt' -noout -ext subjectAltName | grep -q critical"
t "generate: CN is hook.claimcheck.svc" bash -c "openssl x509 -in '$D/tls.crt' -noout -subject | grep -q 'CN *= *hook.claimcheck.svc$'"

# A real TLS 1.3 handshake with the generated pair, verified the way the
# apiserver does it (caBundle + service DNS name).
port_file=$T/s_server.out
openssl s_server -accept 127.0.0.1:0 -naccept 1 -cert "$D/tls.crt" -key "$D/tls.key" \
    -www >"$port_file" 2>&1 </dev/null &
SERVER_PID=$!
port=
for _ in $(seq 50); do
    port=$(sed -n 's/^ACCEPT .*:\([0-9][0-9]*\)$/\1/p' "$port_file")
    [ -n "$port" ] && break
    sleep 0.1
done
handshake() {
    echo | timeout 10 openssl s_client -connect "127.0.0.1:$port" -CAfile "$D/ca.crt" \
        -verify_hostname hook.claimcheck.svc -verify_return_error -tls1_3 2>&1 |
        grep -q 'Verify return code: 0 (ok)'
}
t "generate: TLS 1.3 handshake verifies (s_server/s_client)" handshake
kill "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null; SERVER_PID=

# ======== 2. refusal to overwrite, --force ========
before=$(sums "$D")
certs "${SVC[@]}" --out "$D"
t "no --force: exit 2" rc_is 2
t "no --force: message names the file and --force" err_has "'$D/ca.crt' already exists (use --force to overwrite)"
t "no --force: nothing on stdout" test ! -s "$T/out"
t "no --force: files unchanged" test "$(sums "$D")" = "$before"
t "no --force: no temporaries left" test "$(nfiles "$D")" = 3

mkdir -p "$T/one"; echo "precious" >"$T/one/tls.key"
certs "${SVC[@]}" --out "$T/one"
t "one existing output is enough to refuse: exit 2" rc_is 2
t "one existing output: message names tls.key" err_has "'$T/one/tls.key' already exists"
t "one existing output: nothing else written" test "$(ls -A "$T/one")" = "tls.key" -a "$(cat "$T/one/tls.key")" = precious

chmod 0644 "$D/tls.key"   # --force must also restore the mode
certs "${SVC[@]}" --out "$D" --force
t "--force: exit 0" rc_is 0
t "--force: every file replaced" bash -c "diff <(echo '$before' | cut -c1-64) <(sha256sum '$D'/* | cut -c1-64) | grep -c '^>' | grep -qx 3"
t "--force: tls.key back to 0600" test "$(mode "$D/tls.key")" = 600
t "--force: new chain verifies" verify "$D/ca.crt" "$D/tls.crt"
t "--force: new caBundle on stdout" cmp -s <(base64 -d "$T/out") "$D/ca.crt"
t "--force: no temporaries left" test "$(nfiles "$D")" = 3

# ======== 3. RSA, extras, days, usage errors ========
certs "${SVC[@]}" --out "$T/rsa" --rsa 2048
t "--rsa 2048: exit 0" rc_is 0
t "--rsa 2048: 2048-bit RSA key" bash -c "openssl pkey -in '$T/rsa/tls.key' -noout -text | grep -q 'Private-Key: (2048 bit'"
t "--rsa 2048: PKCS#8 PEM" test "$(head -1 "$T/rsa/tls.key")" = "-----BEGIN PRIVATE KEY-----"
t "--rsa 2048: keyUsage digitalSignature,keyEncipherment" bash -c "openssl x509 -in '$T/rsa/tls.crt' -noout -ext keyUsage | tr -d '\n' | grep -q 'critical *Digital Signature, Key Encipherment$'"
t "--rsa 2048: sha256WithRSAEncryption" bash -c "openssl x509 -in '$T/rsa/tls.crt' -noout -text | grep -q 'Signature Algorithm: sha256WithRSAEncryption'"
t "--rsa 2048: chain verifies" verify "$T/rsa/ca.crt" "$T/rsa/tls.crt" -purpose sslserver
t "--rsa 2048: key matches cert" same_pub "$T/rsa/tls.crt" "$T/rsa/tls.key"
certs "${SVC[@]}" --out "$T/rsa3" --rsa=3072
t "--rsa=3072: 3072-bit RSA key" bash -c "[ $rc = 0 ] && openssl pkey -in '$T/rsa3/tls.key' -noout -text | grep -q 'Private-Key: (3072 bit'"
certs "${SVC[@]}" --out "$T/x" --rsa 1024
t "--rsa 1024: exit 2" rc_is 2
t "--rsa 1024: nothing written" test ! -e "$T/x"

certs "${SVC[@]}" --out "$T/extra" --dns localhost --dns webhook.example.com \
    --dns HOOK.claimcheck.svc --ip 127.0.0.1 --ip ::1
t "--dns/--ip: exit 0" rc_is 0
t "--dns/--ip: SANs = service names + extras, duplicate dropped" \
    test "$(sans "$T/extra/tls.crt")" = "$DEF_SANS, DNS:localhost, DNS:webhook.example.com, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1"
t "--ip 127.0.0.1: verifies for that IP" verify "$T/extra/ca.crt" "$T/extra/tls.crt" -verify_ip 127.0.0.1
certs "${SVC[@]}" --out "$T/x" --dns "bad name"
t "--dns 'bad name': exit 2" rc_is 2
t "--dns 'bad name': message" err_has "'bad name' is not a valid DNS name"
certs "${SVC[@]}" --out "$T/x" --ip 300.1.1.1
t "--ip 300.1.1.1: exit 2" rc_is 2
certs "${SVC[@]}" --out "$T/x" --days 0
t "--days 0: exit 2" rc_is 2
certs "${SVC[@]}" --out "$T/x" --days 3651
t "--days 3651: exit 2" rc_is 2
certs "${SVC[@]}" --out "$T/x" --days 12abc
t "--days 12abc: exit 2" rc_is 2
certs --service Hook --namespace claimcheck --out "$T/x"
t "--service Hook (not a DNS label): exit 2" rc_is 2
t "--service Hook: message" err_has "service name 'Hook' is not a DNS-1123 label"
certs --namespace claimcheck --out "$T/x"
t "missing --service: exit 2" rc_is 2
t "missing --service: message" err_has "missing --service"
certs "${SVC[@]}" --bogus
t "unknown option: exit 2" rc_is 2
t "unknown option: message" err_has "unknown option '--bogus'"
certs "${SVC[@]}" --out
t "--out without value: exit 2" rc_is 2
certs "${SVC[@]}" --out=
t "--out= (empty): exit 2" rc_is 2
certs "${SVC[@]}" --out "$T/x" --ca-cert "$D/ca.crt"
t "--ca-cert without --ca-key: exit 2" rc_is 2
certs "${SVC[@]}" --out "$T/x" --min-days 5
t "--min-days without --check: exit 2" rc_is 2
t "usage errors wrote nothing" test ! -e "$T/x"
certs --help
t "--help: exit 0 and usage on stdout" bash -c "[ $rc = 0 ] && grep -q 'usage: claimcheck-webhook certs' '$T/out'"
certs
t "no arguments: exit 2" rc_is 2

certs "${SVC[@]}" --out "$T/deep/er/dir" --days 10
t "--out creates missing directories" bash -c "[ $rc = 0 ] && [ -f '$T/deep/er/dir/tls.key' ]"
t "--days 10: still valid in 9 days" bash -c "openssl x509 -in '$T/deep/er/dir/tls.crt' -noout -checkend $((9 * 86400)) >/dev/null"
t "--days 10: expired in 11 days" bash -c "! openssl x509 -in '$T/deep/er/dir/tls.crt' -noout -checkend $((11 * 86400)) >/dev/null"

# ======== 4. --check ========
certs --check "$D" "${SVC[@]}"
t "--check good dir: exit 0" rc_is 0
t "--check: prints subject" out_has "subject:    CN=hook.claimcheck.svc"
t "--check: prints SANs" out_has "SANs:       DNS:hook, DNS:hook.claimcheck,"
t "--check: prints not before" out_has "not before:"
t "--check: prints not after and days left" out_has "days left)"
t "--check: prints chain ok" out_has "chain: ok"
t "--check: prints key ok" out_has "key: ok"
t "--check: result ok" out_has "result: ok"

certs --check "$D" --service other --namespace claimcheck
t "--check missing SAN: exit 1" rc_is 1
t "--check missing SAN: names it" err_has "lacks SAN 'DNS:other.claimcheck.svc'"
certs --check "$D" "${SVC[@]}" --dns localhost
t "--check --dns not in cert: exit 1" rc_is 1
certs --check "$T/extra" "${SVC[@]}" --dns localhost --ip ::1
t "--check --dns/--ip present: exit 0" rc_is 0

cp -r "$D" "$T/broken"; cp "$T/rsa/ca.crt" "$T/broken/ca.crt"
certs --check "$T/broken" "${SVC[@]}"
t "--check broken chain (other CA): exit 1" rc_is 1
t "--check broken chain: says why" err_has "does not verify against '$T/broken/ca.crt'"
t "broken chain confirmed by openssl verify" bash -c "! openssl verify -CAfile '$T/broken/ca.crt' '$T/broken/tls.crt' >/dev/null 2>&1"

cp -r "$D" "$T/mismatch"; cp "$T/rsa/tls.key" "$T/mismatch/tls.key"
certs --check "$T/mismatch" "${SVC[@]}"
t "--check key mismatch: exit 1" rc_is 1
t "--check key mismatch: message" err_has "does not match"

certs --check "$T/deep/er/dir" "${SVC[@]}"
t "--check 10 days left < 30: exit 1" rc_is 1
t "--check 10 days left: message" err_has "days (minimum 30)"
certs --check "$T/deep/er/dir" "${SVC[@]}" --min-days 5
t "--check --min-days 5: exit 0" rc_is 0
certs "${SVC[@]}" --out "$T/d31" --days 31
certs --check "$T/d31" "${SVC[@]}"
t "--check 31 days left: exit 0" rc_is 0

certs --check "$T/nowhere" "${SVC[@]}"
t "--check missing dir: exit 1" rc_is 1
t "--check missing dir: names the file" err_has "cannot open '$T/nowhere/tls.crt'"
cp -r "$D" "$T/garbled"; sed -i '3s/./#/' "$T/garbled/tls.crt"
certs --check "$T/garbled" "${SVC[@]}"
t "--check garbled tls.crt: exit 1" rc_is 1
certs --check "$D" "${SVC[@]}" --force
t "--check with --force: exit 2" rc_is 2
certs --check "$D" --namespace claimcheck
t "--check without --service: exit 2" rc_is 2

# ======== 5. reusing a CA ========
mkdir -p "$T/myca"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$T/myca/ca.key" \
    -out "$T/myca/ca.crt" -days 1000 -subj "/CN=my test CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    >/dev/null 2>&1
certs "${SVC[@]}" --out "$T/reuse" --ca-cert "$T/myca/ca.crt" --ca-key "$T/myca/ca.key"
t "reuse CA: exit 0" rc_is 0
t "reuse CA: ca.crt is the given CA" cmp -s "$T/reuse/ca.crt" "$T/myca/ca.crt"
t "reuse CA: caBundle is the given CA" cmp -s <(base64 -d "$T/out") "$T/myca/ca.crt"
t "reuse CA: verifies against the given CA" verify "$T/myca/ca.crt" "$T/reuse/tls.crt" -purpose sslserver
t "reuse CA: issuer is the given CA" bash -c "openssl x509 -in '$T/reuse/tls.crt' -noout -issuer | grep -q 'my test CA'"
t "reuse CA: --check passes" bash -c "'$BIN' certs --check '$T/reuse' --service hook --namespace claimcheck >/dev/null 2>&1"

mkdir -p "$T/rsaca"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/rsaca/ca.key" -out "$T/rsaca/ca.crt" \
    -days 1000 -subj "/CN=my RSA CA" >/dev/null 2>&1
certs "${SVC[@]}" --out "$T/reuse-rsa" --ca-cert "$T/rsaca/ca.crt" --ca-key "$T/rsaca/ca.key"
t "reuse RSA CA for an EC leaf: exit 0 and verifies" \
    bash -c "[ $rc = 0 ] && openssl verify -CAfile '$T/rsaca/ca.crt' '$T/reuse-rsa/tls.crt' >/dev/null 2>&1"

mkdir -p "$T/edca"
openssl req -x509 -newkey ed25519 -nodes -keyout "$T/edca/ca.key" -out "$T/edca/ca.crt" \
    -days 1000 -subj "/CN=my Ed25519 CA" >/dev/null 2>&1
certs "${SVC[@]}" --out "$T/reuse-ed" --ca-cert "$T/edca/ca.crt" --ca-key "$T/edca/ca.key"
t "reuse Ed25519 CA: exit 0 and verifies" \
    bash -c "[ $rc = 0 ] && openssl verify -CAfile '$T/edca/ca.crt' '$T/reuse-ed/tls.crt' >/dev/null 2>&1"

# an intermediate CA: --ca-cert holds "intermediate, root", signing key is
# the intermediate's; ca.crt (and the caBundle) carry both
mkdir -p "$T/inter"
openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$T/inter/int.key" \
    -subj "/CN=my intermediate" -out "$T/inter/int.csr" >/dev/null 2>&1
printf 'basicConstraints=critical,CA:TRUE,pathlen:0\nkeyUsage=critical,keyCertSign,cRLSign\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n' >"$T/inter/ext"
openssl x509 -req -in "$T/inter/int.csr" -CA "$T/myca/ca.crt" -CAkey "$T/myca/ca.key" \
    -CAcreateserial -days 500 -extfile "$T/inter/ext" -out "$T/inter/int.crt" >/dev/null 2>&1
cat "$T/inter/int.crt" "$T/myca/ca.crt" >"$T/inter/chain.crt"
certs "${SVC[@]}" --out "$T/reuse-int" --ca-cert "$T/inter/chain.crt" --ca-key "$T/inter/int.key"
t "reuse intermediate CA: exit 0" rc_is 0
t "reuse intermediate CA: ca.crt holds intermediate + root" cmp -s "$T/reuse-int/ca.crt" "$T/inter/chain.crt"
t "reuse intermediate CA: verifies to the root" \
    verify "$T/myca/ca.crt" "$T/reuse-int/tls.crt" -untrusted "$T/inter/int.crt"
certs --check "$T/reuse-int" "${SVC[@]}"
t "reuse intermediate CA: --check passes" rc_is 0

certs "${SVC[@]}" --out "$T/x" --ca-cert "$T/myca/ca.crt" --ca-key "$T/rsaca/ca.key"
t "reuse CA with the wrong key: exit 1" rc_is 1
t "reuse CA with the wrong key: message" err_has "'$T/rsaca/ca.key' does not match '$T/myca/ca.crt'"
certs "${SVC[@]}" --out "$T/x" --ca-cert "$D/tls.crt" --ca-key "$D/tls.key"
t "reuse a leaf as CA: exit 1, not a CA" bash -c "[ $rc = 1 ] && grep -q 'is not a CA certificate' '$T/err'"
certs "${SVC[@]}" --out "$T/x" --ca-cert "$T/myca/ca.crt" --ca-key "$T/myca/ca.key" --days 1001
t "CA expiring before the serving cert: exit 1" rc_is 1
t "CA expiring before the serving cert: message" err_has "expires"
openssl pkey -in "$T/myca/ca.key" -aes256 -passout pass:secret -out "$T/myca/enc.key"
certs "${SVC[@]}" --out "$T/x" --ca-cert "$T/myca/ca.crt" --ca-key "$T/myca/enc.key"
t "encrypted CA key: refused without prompting, exit 1" bash -c "[ $rc = 1 ] && grep -q 'encrypted key' '$T/err'"
t "failed CA reuse wrote nothing" test ! -e "$T/x"

# --check on certificates made by openssl(1), not by us: with and without
# serverAuth (the chain check uses the TLS-server purpose, as the apiserver)
ALL_SANS=DNS:hook,DNS:hook.claimcheck,DNS:hook.claimcheck.svc,DNS:hook.claimcheck.svc.cluster.local
sign_leaf() {   # DIR EKU [SANS]
    mkdir -p "$1"; cp "$T/myca/ca.crt" "$1/ca.crt"
    openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$1/tls.key" \
        -subj "/CN=hook.claimcheck.svc" -out "$1/csr" >/dev/null 2>&1
    printf 'subjectAltName=%s\nextendedKeyUsage=%s\n' "${3:-$ALL_SANS}" "$2" >"$1/ext"
    openssl x509 -req -in "$1/csr" -CA "$T/myca/ca.crt" -CAkey "$T/myca/ca.key" -CAcreateserial \
        -days 100 -extfile "$1/ext" -out "$1/tls.crt" >/dev/null 2>&1
    rm -f "$1/csr" "$1/ext"
}
sign_leaf "$T/ossl-server" serverAuth
certs --check "$T/ossl-server" "${SVC[@]}"
t "--check an openssl-made serverAuth cert: exit 0" rc_is 0
sign_leaf "$T/ossl-client" clientAuth
certs --check "$T/ossl-client" "${SVC[@]}"
t "--check a clientAuth-only cert: exit 1 (chain purpose)" rc_is 1
t "--check a clientAuth-only cert: says unsuitable purpose" err_has "unsuitable certificate purpose"

sign_leaf "$T/ossl-wild" serverAuth "DNS:hook,DNS:hook.claimcheck,DNS:*.claimcheck.svc,DNS:*.claimcheck.svc.cluster.local"
certs --check "$T/ossl-wild" "${SVC[@]}"
t "--check wildcard SANs cover NAME.NS.svc (as in Go): exit 0" rc_is 0
t "--check wildcard SANs: reported as matched via the wildcard" out_has "SAN DNS:hook.claimcheck.svc: ok (via DNS:*.claimcheck.svc)"
sign_leaf "$T/ossl-partial" serverAuth "DNS:hook,DNS:hook.claimcheck,DNS:h*.claimcheck.svc,DNS:hook.claimcheck.svc.cluster.local"
certs --check "$T/ossl-partial" "${SVC[@]}"
t "--check partial wildcard h*.claimcheck.svc does not count: exit 1" rc_is 1
sign_leaf "$T/ossl-cn" serverAuth "DNS:hook,DNS:hook.claimcheck,DNS:hook.claimcheck.svc.cluster.local"
certs --check "$T/ossl-cn" "${SVC[@]}"
t "--check CN=hook.claimcheck.svc without that SAN: exit 1 (CN ignored)" rc_is 1

# rotate in place: the reused CA file is DIR/ca.crt itself
mkdir -p "$T/inplace"; cp "$T/myca/ca.crt" "$T/inplace/ca.crt"
certs "${SVC[@]}" --out "$T/inplace" --ca-cert "$T/inplace/ca.crt" --ca-key "$T/myca/ca.key"
t "rotate in place: first run exit 0 (ca.crt is the input)" rc_is 0
first=$(sha256sum "$T/inplace/tls.crt")
certs "${SVC[@]}" --out "$T/inplace" --ca-cert "$T/inplace/ca.crt" --ca-key "$T/myca/ca.key"
t "rotate in place: second run without --force refused (exit 2)" rc_is 2
certs "${SVC[@]}" --out "$T/inplace" --ca-cert "$T/inplace/ca.crt" --ca-key "$T/myca/ca.key" --force
t "rotate in place with --force: new tls.crt, same ca.crt" \
    bash -c "[ $rc = 0 ] && [ \"\$(sha256sum '$T/inplace/tls.crt')\" != '$first' ] && cmp -s '$T/inplace/ca.crt' '$T/myca/ca.crt'"
t "rotate in place: chain verifies" verify "$T/inplace/ca.crt" "$T/inplace/tls.crt"

# ======== 6. every generated key mode under a strict umask ========
(umask 077; timeout 60 "$BIN" certs "${SVC[@]}" --out "$T/u077" >/dev/null 2>&1)
t "umask 077: certificates still 0644, key 0600" \
    test "$(mode "$T/u077/ca.crt") $(mode "$T/u077/tls.crt") $(mode "$T/u077/tls.key")" = "644 644 600"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
