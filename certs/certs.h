/*
 * certs.h - certificates for claimcheck-webhook: a CA plus a serving
 * certificate for the webhook Service, the caBundle, and inspection (expiry,
 * key/cert match, `certs --check`). certs/ is the only place that includes
 * OpenSSL headers; this header includes none, so the webhook can use it
 * without depending on OpenSSL types. Serving TLS and hot reload belong to
 * webhook/ (GnuTLS); certs/ never opens a socket.
 *
 * Failures return -1 (or NULL) and leave a git-style message naming the file
 * in the caller's struct err. Nothing here keeps global state, so every
 * function may be called from any thread.
 */
#ifndef CLAIMCHECK_CERTS_H
#define CLAIMCHECK_CERTS_H

#include <stddef.h>

struct err;

/* Output file names inside certs_opts.out_dir (the keys of a Kubernetes
 * kubernetes.io/tls Secret, plus ca.crt). */
#define CERTS_CA_CRT  "ca.crt"
#define CERTS_TLS_CRT "tls.crt"
#define CERTS_TLS_KEY "tls.key"

#define CERTS_DEFAULT_DAYS     365
#define CERTS_MAX_DAYS         3650  /* also the lifetime of a new CA */
#define CERTS_DEFAULT_MIN_DAYS 30    /* `--check` fails below this */
/* Largest PEM file we read; a CA bundle is a few KiB. */
#define CERTS_LIMIT_PEM_BYTES  (1024u * 1024)

struct certs_opts {
    const char *service, *namespace_;   /* required, DNS-1123 labels */
    const char *out_dir;                /* default "." (created if missing) */
    int days;                           /* serving cert validity, 0 = 365;
                                           CA gets 10 years unless reused */
    int rsa_bits;                       /* 0 = ECDSA P-256 (default);
                                           2048 or 3072 = RSA */
    const char *const *extra_dns;       /* --dns (repeatable) */
    size_t n_extra_dns;
    const char *const *extra_ip;        /* --ip (repeatable), v4 or v6 */
    size_t n_extra_ip;
    const char *ca_cert, *ca_key;       /* reuse an existing CA instead of
                                           creating one (both or neither) */
    int force;                          /* overwrite existing files */
};

/*
 * Writes ca.crt, tls.crt and tls.key into o->out_dir. Each file is written
 * to a temporary file created with O_CREAT|O_EXCL (mode 0600 for the key,
 * 0644 for certificates, independent of the umask), fsync'ed, then moved into
 * place: with o->force by rename(2), otherwise by link(2), which fails rather
 * than replace a file that appeared meanwhile. Without o->force nothing is
 * written if any output already exists.
 *
 * The serving certificate's SANs are NAME, NAME.NS, NAME.NS.svc,
 * NAME.NS.svc.cluster.local, then the extras (duplicates dropped). A new CA's
 * private key is never written: the CA is single-use, so a leaked Secret
 * cannot mint further certificates. To rotate the serving certificate under
 * the same caBundle, pass your own CA in ca_cert/ca_key; its key must match
 * and it must outlive the serving certificate.
 *
 * Returns 0, or -1 and fills *err. All three files are fully written to
 * temporaries before the first is moved into place, so a failure leaves
 * earlier outputs only if moving a later one fails (or loses a race).
 */
int certs_generate(const struct certs_opts *o, struct err *err);

/*
 * Returns 0 if none of o->out_dir's output files exists, 1 if at least one
 * does (err names the first), -1 on another failure (err filled). Lets the
 * CLI tell "refused to overwrite" (exit 2) from other failures.
 */
int certs_outputs_exist(const struct certs_opts *o, struct err *err);

/*
 * Base64 (one line, no newline) of the certificates in ca_path re-encoded as
 * PEM: the value for caBundle. malloc'ed, the caller frees. NULL and *err if
 * the file cannot be read or holds no certificate.
 */
char *certs_ca_bundle_b64(const char *ca_path, struct err *err);

/* Not-after of the first certificate in a PEM file as a Unix time (UTC), or
 * -1 and *err. */
long long certs_not_after(const char *cert_path, struct err *err);

/* Checks that the private key (PEM, unencrypted, PKCS#8 or traditional)
 * matches the first certificate of cert_path; 0 ok, -1 and *err otherwise
 * (a mismatch is reported as "'KEY' does not match 'CERT'"). */
int certs_pair_matches(const char *cert_path, const char *key_path,
                       struct err *err);

/*
 * `claimcheck-webhook certs ...` entry point, argv[0] == "certs". Prints the
 * caBundle (generation) or the report (--check) on stdout, messages on
 * stderr. Returns the process exit code: 0 ok, 1 check or generation failed,
 * 2 usage error (including "output exists, use --force").
 */
int certs_main(int argc, char **argv);

#endif
