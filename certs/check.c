/*
 * check.c - inspection of certificate files: not-after, key/cert match, the
 * base64 caBundle, and the `certs --check DIR` report (subject, SANs,
 * validity, chain verified with an X509_STORE, key match, days left). It
 * reads files only; generating them is gen.c's job, and watching them for
 * changes belongs to webhook/.
 */
#include "certs.h"
#include "certs_int.h"

#include <arpa/inet.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include "../validate/err.h"
#include "../validate/xalloc.h"

/* ==== public helpers ==== */

long long certs_not_after(const char *cert_path, struct err *err)
{
    X509 *x = certs_load_cert(cert_path, err);
    long long t;

    if (!x)
        return -1;
    t = certs_time_unix(X509_get0_notAfter(x));
    X509_free(x);
    if (t < 0)
        return err_set(err, "'%s' has an unreadable notAfter", cert_path);
    return t;
}

int certs_pair_matches(const char *cert_path, const char *key_path,
                       struct err *err)
{
    EVP_PKEY *k = NULL;
    X509 *x;
    int ret = -1;

    x = certs_load_cert(cert_path, err);
    if (!x)
        goto out;
    k = certs_load_key(key_path, err);
    if (!k)
        goto out;
    ret = certs_key_matches(x, k, cert_path, key_path, err);
out:
    EVP_PKEY_free(k);
    X509_free(x);
    return ret;
}

char *certs_ca_bundle_b64(const char *ca_path, struct err *err)
{
    STACK_OF(X509) *sk;
    BIO *b = NULL;
    char *pem = NULL, *out = NULL;
    long n;
    size_t cap;
    int i;

    sk = certs_load_certs(ca_path, err);
    if (!sk)
        return NULL;
    b = BIO_new(BIO_s_mem());
    if (!b)
        goto fail;
    for (i = 0; i < sk_X509_num(sk); i++)
        if (!PEM_write_bio_X509(b, sk_X509_value(sk, i)))
            goto fail;
    n = BIO_get_mem_data(b, &pem);
    if (n <= 0 || n > INT_MAX / 4 * 3)
        goto fail;
    cap = ((size_t)n + 2) / 3 * 4 + 1;
    out = xmalloc(cap);
    /* EVP_EncodeBlock: plain base64, no line breaks, NUL-terminated. */
    EVP_EncodeBlock((unsigned char *)out, (const unsigned char *)pem, (int)n);
    goto out;
fail:
    certs_ossl_err(err, "cannot encode '%s'", ca_path);
out:
    BIO_free(b);
    sk_X509_pop_free(sk, X509_free);
    return out;
}

/* ==== printing ==== */

static const char *plural(long long n)
{
    return n == 1 ? "" : "s";
}

/* One-line RFC 2253 name ("CN=x,O=y") into out. */
static void name_str(const X509_NAME *nm, char *out, size_t n)
{
    BIO *b = BIO_new(BIO_s_mem());
    char *p = NULL;
    long len;

    snprintf(out, n, "?");
    if (!b)
        return;
    if (X509_NAME_print_ex(b, nm, 0, XN_FLAG_RFC2253) >= 0) {
        len = BIO_get_mem_data(b, &p);
        if (len >= 0)
            snprintf(out, n, "%.*s", (int)len, p);
    }
    BIO_free(b);
}

/* Printable ASCII only: names come from a file we do not trust. */
static void put_clean(FILE *f, const unsigned char *s, int n)
{
    int i;

    for (i = 0; i < n; i++)
        fputc(s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?', f);
}

static void print_sans(FILE *f, X509 *x)
{
    GENERAL_NAMES *gens = X509_get_ext_d2i(x, NID_subject_alt_name, NULL,
                                           NULL);
    char ip[INET6_ADDRSTRLEN];
    int i, type, n;

    if (!gens) {
        fputs("(none)", f);
        ERR_clear_error();
        return;
    }
    for (i = 0; i < sk_GENERAL_NAME_num(gens); i++) {
        const GENERAL_NAME *g = sk_GENERAL_NAME_value(gens, i);
        const ASN1_STRING *v = GENERAL_NAME_get0_value(g, &type);
        const unsigned char *d = v ? ASN1_STRING_get0_data(v) : NULL;

        n = v ? ASN1_STRING_length(v) : 0;
        if (i)
            fputs(", ", f);
        if (type == GEN_DNS) {
            fputs("DNS:", f);
            put_clean(f, d, n);
        } else if (type == GEN_IPADD && (n == 4 || n == 16) &&
                   inet_ntop(n == 4 ? AF_INET : AF_INET6, d, ip,
                             sizeof(ip))) {
            fprintf(f, "IP:%s", ip);
        } else {
            fprintf(f, "(other:%d)", type);
        }
    }
    GENERAL_NAMES_free(gens);
}

static void print_validity(FILE *f, const char *indent, X509 *x, time_t now)
{
    long long nb = certs_time_unix(X509_get0_notBefore(x));
    long long na = certs_time_unix(X509_get0_notAfter(x));
    char t[40];

    certs_format_time(nb, t, sizeof(t));
    fprintf(f, "%snot before: %s\n", indent, t);
    certs_format_time(na, t, sizeof(t));
    if (na >= (long long)now)
        fprintf(f, "%snot after:  %s (%lld day%s left)\n", indent, t,
                (na - (long long)now) / 86400,
                plural((na - (long long)now) / 86400));
    else
        fprintf(f, "%snot after:  %s (expired)\n", indent, t);
}

static void print_cert(FILE *f, const char *indent, X509 *x, time_t now)
{
    char s[512];
    EVP_PKEY *k = X509_get0_pubkey(x);

    name_str(X509_get_subject_name(x), s, sizeof(s));
    fprintf(f, "%ssubject:    %s\n", indent, s);
    name_str(X509_get_issuer_name(x), s, sizeof(s));
    fprintf(f, "%sissuer:     %s\n", indent, s);
    if (k)
        certs_describe_key(k, s, sizeof(s));
    else
        snprintf(s, sizeof(s), "unreadable");
    fprintf(f, "%skey:        %s\n", indent, s);
    fprintf(f, "%sSANs:       ", indent);
    print_sans(f, x);
    fputc('\n', f);
    print_validity(f, indent, x, now);
    ERR_clear_error();
}

int certs_print_summary(FILE *f, const char *indent, const char *cert_path,
                        struct err *err)
{
    X509 *x = certs_load_cert(cert_path, err);

    if (!x)
        return -1;
    print_cert(f, indent, x, time(NULL));
    X509_free(x);
    return 0;
}

/* ==== certs --check ==== */

/* The apiserver (Go crypto/tls) matches SANs only, never the CN, and
 * accepts a wildcard as the whole leftmost label; X509_check_host() with
 * these flags does the same. */
#define HOST_FLAGS (X509_CHECK_FLAG_NEVER_CHECK_SUBJECT | \
                    X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS)

/* Prints one "  SAN x: ok|MISSING" line per required name; returns the
 * number missing. */
static int check_sans(X509 *x, const struct certs_opts *o,
                      char sans[CERTS_N_SVC_SANS][CERTS_DNS_MAX + 1],
                      const char *crt, FILE *out, FILE *errout)
{
    int missing = 0;
    size_t i;

    for (i = 0; i < CERTS_N_SVC_SANS + o->n_extra_dns; i++) {
        const char *name = i < CERTS_N_SVC_SANS
                               ? sans[i] : o->extra_dns[i - CERTS_N_SVC_SANS];
        char *peer = NULL;

        if (X509_check_host(x, name, 0, HOST_FLAGS, &peer) == 1) {
            if (peer && strcasecmp(peer, name))
                fprintf(out, "  SAN DNS:%s: ok (via DNS:%s)\n", name, peer);
            else
                fprintf(out, "  SAN DNS:%s: ok\n", name);
        } else {
            fprintf(out, "  SAN DNS:%s: MISSING\n", name);
            fprintf(errout, "error: '%s' lacks SAN 'DNS:%s'\n", crt, name);
            missing++;
        }
        OPENSSL_free(peer);
    }
    for (i = 0; i < o->n_extra_ip; i++) {
        if (X509_check_ip_asc(x, o->extra_ip[i], 0) == 1) {
            fprintf(out, "  SAN IP:%s: ok\n", o->extra_ip[i]);
        } else {
            fprintf(out, "  SAN IP:%s: MISSING\n", o->extra_ip[i]);
            fprintf(errout, "error: '%s' lacks SAN 'IP:%s'\n", crt,
                    o->extra_ip[i]);
            missing++;
        }
    }
    ERR_clear_error();
    return missing;
}

/* Verifies leaf (plus the rest of tls.crt as untrusted intermediates)
 * against the certificates of ca.crt, for TLS server use, at the current
 * time. 0 ok, -1 with the reason in why. */
static int verify_chain(STACK_OF(X509) *leaf_sk, STACK_OF(X509) *ca_sk,
                        char *why, size_t n)
{
    X509_STORE *store = X509_STORE_new();
    X509_STORE_CTX *ctx = X509_STORE_CTX_new();
    STACK_OF(X509) *untrusted = NULL;
    int i, ret = -1;

    snprintf(why, n, "out of memory");
    if (!store || !ctx)
        goto out;
    for (i = 0; i < sk_X509_num(ca_sk); i++)
        if (!X509_STORE_add_cert(store, sk_X509_value(ca_sk, i)))
            goto out;
    if (sk_X509_num(leaf_sk) > 1) {
        untrusted = sk_X509_dup(leaf_sk);
        if (!untrusted)
            goto out;
        (void)sk_X509_shift(untrusted);
    }
    if (!X509_STORE_CTX_init(ctx, store, sk_X509_value(leaf_sk, 0),
                             untrusted) ||
        !X509_STORE_CTX_set_purpose(ctx, X509_PURPOSE_SSL_SERVER))
        goto out;
    if (X509_verify_cert(ctx) == 1) {
        ret = 0;
        goto out;
    }
    snprintf(why, n, "%s", X509_verify_cert_error_string(
                               X509_STORE_CTX_get_error(ctx)));
out:
    sk_X509_free(untrusted);    /* shallow: the certs belong to leaf_sk */
    X509_STORE_CTX_free(ctx);
    X509_STORE_free(store);
    ERR_clear_error();
    return ret;
}

static int check_days(const char *label, const char *what, X509 *x,
                      int min_days, time_t now, FILE *out, FILE *errout)
{
    long long na = certs_time_unix(X509_get0_notAfter(x));
    long long left = na - (long long)now;

    if (na >= 0 && left >= (long long)min_days * 86400) {
        fprintf(out, "  %s validity: ok (%lld day%s left, minimum %d)\n",
                label, left / 86400, plural(left / 86400), min_days);
        return 0;
    }
    if (na < 0 || left < 0) {
        fprintf(out, "  %s validity: EXPIRED\n", label);
        fprintf(errout, "error: '%s' has expired\n", what);
    } else {
        fprintf(out, "  %s validity: FAILED (%lld day%s left, minimum %d)\n",
                label, left / 86400, plural(left / 86400), min_days);
        fprintf(errout, "error: '%s' expires in %lld day%s (minimum %d)\n",
                what, left / 86400, plural(left / 86400), min_days);
    }
    return 1;
}

int certs_check_dir(const char *dir, const struct certs_opts *o,
                    int min_days, FILE *out, FILE *errout)
{
    char sans[CERTS_N_SVC_SANS][CERTS_DNS_MAX + 1];
    char crt[4096], ca[4096], key[4096], why[256];
    STACK_OF(X509) *leaf_sk = NULL, *ca_sk = NULL;
    EVP_PKEY *k = NULL;
    struct err e = { { 0 } };
    time_t now = time(NULL);
    int i, failed = 0;

    if (certs_svc_sans(o->service, o->namespace_, sans, &e) < 0) {
        fprintf(errout, "error: %s\n", e.msg);
        return 1;
    }
    if ((size_t)snprintf(crt, sizeof(crt), "%s/%s", dir, CERTS_TLS_CRT) >=
            sizeof(crt) ||
        (size_t)snprintf(ca, sizeof(ca), "%s/%s", dir, CERTS_CA_CRT) >=
            sizeof(ca) ||
        (size_t)snprintf(key, sizeof(key), "%s/%s", dir, CERTS_TLS_KEY) >=
            sizeof(key)) {
        fprintf(errout, "error: directory '%s' is too long\n", dir);
        return 1;
    }

    leaf_sk = certs_load_certs(crt, &e);
    if (!leaf_sk) {
        fprintf(errout, "error: %s\n", e.msg);
        failed++;
        goto out;
    }
    fprintf(out, "%s:\n", crt);
    print_cert(out, "  ", sk_X509_value(leaf_sk, 0), now);
    for (i = 1; i < sk_X509_num(leaf_sk); i++) {
        fprintf(out, "  intermediate %d:\n", i);
        print_cert(out, "    ", sk_X509_value(leaf_sk, i), now);
    }

    ca_sk = certs_load_certs(ca, &e);
    if (!ca_sk) {
        fprintf(errout, "error: %s\n", e.msg);
        failed++;
    } else {
        fprintf(out, "%s:\n", ca);
        for (i = 0; i < sk_X509_num(ca_sk); i++)
            print_cert(out, "  ", sk_X509_value(ca_sk, i), now);
    }

    fprintf(out, "checks:\n");
    failed += check_sans(sk_X509_value(leaf_sk, 0), o, sans, crt, out,
                         errout);
    if (ca_sk) {
        if (verify_chain(leaf_sk, ca_sk, why, sizeof(why)) == 0) {
            fprintf(out, "  chain: ok (%s verifies against %s)\n",
                    CERTS_TLS_CRT, CERTS_CA_CRT);
        } else {
            fprintf(out, "  chain: FAILED (%s)\n", why);
            fprintf(errout, "error: '%s' does not verify against '%s': %s\n",
                    crt, ca, why);
            failed++;
        }
    } else {
        fprintf(out, "  chain: FAILED (no CA)\n");
    }

    k = certs_load_key(key, &e);
    if (k && certs_key_matches(sk_X509_value(leaf_sk, 0), k, crt, key,
                               &e) == 0) {
        fprintf(out, "  key: ok (%s matches %s)\n", CERTS_TLS_KEY,
                CERTS_TLS_CRT);
    } else {
        fprintf(out, "  key: FAILED\n");
        fprintf(errout, "error: %s\n", e.msg);
        failed++;
    }

    failed += check_days(CERTS_TLS_CRT, crt, sk_X509_value(leaf_sk, 0),
                         min_days, now, out, errout);
    /* An expiring CA breaks the chain just the same. */
    for (i = 0; ca_sk && i < sk_X509_num(ca_sk); i++)
        failed += check_days(CERTS_CA_CRT, ca, sk_X509_value(ca_sk, i),
                             min_days, now, out, errout);
out:
    fprintf(out, "result: %s\n", failed ? "FAILED" : "ok");
    EVP_PKEY_free(k);
    sk_X509_pop_free(leaf_sk, X509_free);
    sk_X509_pop_free(ca_sk, X509_free);
    ERR_clear_error();
    return failed ? 1 : 0;
}
