/*
 * pem.c - reading certificates and keys from PEM files, and the small
 * helpers every file of certs/ needs: OpenSSL error text for struct err,
 * ASN1_TIME conversion, DNS name checks and the service SAN list. Files are
 * read with a size cap (CERTS_LIMIT_PEM_BYTES) into memory first, so
 * errors can name the file and say what is wrong with it. Writing files is
 * gen.c's job.
 */
#include "certs.h"
#include "certs_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include "../validate/err.h"
#include "../validate/file.h"

int certs_ossl_err(struct err *err, const char *fmt, ...)
{
    unsigned long e = ERR_peek_last_error();
    const char *reason = e ? ERR_reason_error_string(e) : NULL;
    char msg[sizeof(err->msg)];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    ERR_clear_error();
    if (reason)
        return err_set(err, "%s: %s", msg, reason);
    return err_set(err, "%s", msg);
}

/* Reads path whole (capped) into *data, the caller frees it, and opens a
 * memory BIO over it; NULL and *err on failure. */
static BIO *open_pem(const char *path, char **data, size_t *len,
                     struct err *err)
{
    BIO *bio;

    if (file_read(path, CERTS_LIMIT_PEM_BYTES, data, len, err) < 0)
        return NULL;
    bio = BIO_new_mem_buf(*data, (int)*len);
    if (!bio)
        certs_ossl_err(err, "cannot read '%s'", path);
    return bio;
}

STACK_OF(X509) *certs_load_certs(const char *path, struct err *err)
{
    STACK_OF(X509) *sk = NULL;
    char *data = NULL;
    size_t len;
    X509 *x;
    BIO *bio;

    bio = open_pem(path, &data, &len, err);
    if (!bio)
        goto out;
    sk = sk_X509_new_null();
    if (!sk) {
        certs_ossl_err(err, "cannot read '%s'", path);
        goto out;
    }
    for (;;) {
        x = PEM_read_bio_X509(bio, NULL, NULL, NULL);
        if (!x)
            break;
        if (!sk_X509_push(sk, x)) {
            X509_free(x);
            sk_X509_pop_free(sk, X509_free);
            sk = NULL;
            certs_ossl_err(err, "cannot read '%s'", path);
            goto out;
        }
    }
    /* PEM_read_bio_X509 ends every file with "no start line"; anything
     * else (a damaged block after good ones, say) is worth reporting. */
    if (sk_X509_num(sk) == 0) {
        sk_X509_pop_free(sk, X509_free);
        sk = NULL;
        ERR_clear_error();
        err_set(err, "'%s' holds no PEM certificate", path);
        goto out;
    }
    ERR_clear_error();
out:
    BIO_free(bio);
    free(data);
    return sk;
}

X509 *certs_load_cert(const char *path, struct err *err)
{
    STACK_OF(X509) *sk = certs_load_certs(path, err);
    X509 *x;

    if (!sk)
        return NULL;
    x = sk_X509_shift(sk);
    sk_X509_pop_free(sk, X509_free);
    return x;
}

/* Never prompt on a terminal for a passphrase. */
static int no_passphrase(char *buf, int size, int rwflag, void *u)
{
    (void)buf;
    (void)size;
    (void)rwflag;
    (void)u;
    return -1;
}

EVP_PKEY *certs_load_key(const char *path, struct err *err)
{
    EVP_PKEY *k = NULL;
    char *data = NULL;
    size_t len = 0;
    BIO *bio;

    bio = open_pem(path, &data, &len, err);
    if (!bio)
        goto out;
    if (strstr(data, "ENCRYPTED")) {
        err_set(err, "'%s' is an encrypted key (not supported)", path);
        goto out;
    }
    k = PEM_read_bio_PrivateKey(bio, NULL, no_passphrase, NULL);
    if (!k)
        certs_ossl_err(err, "'%s' holds no PEM private key", path);
out:
    BIO_free(bio);
    if (data)
        OPENSSL_cleanse(data, len);
    free(data);
    return k;
}

int certs_key_matches(X509 *cert, EVP_PKEY *key, const char *cert_path,
                      const char *key_path, struct err *err)
{
    EVP_PKEY *pub = X509_get0_pubkey(cert);
    EVP_PKEY_CTX *ctx;
    int r;

    if (!pub)
        return certs_ossl_err(err, "cannot read the public key of '%s'",
                              cert_path);
    if (EVP_PKEY_eq(pub, key) != 1) {
        ERR_clear_error();
        return err_set(err, "'%s' does not match '%s'", key_path, cert_path);
    }
    /* A tampered key file can carry the right public half and a wrong
     * private one; the pairwise test catches that. -2: not supported. */
    ctx = EVP_PKEY_CTX_new_from_pkey(NULL, key, NULL);
    if (!ctx)
        return certs_ossl_err(err, "cannot check '%s'", key_path);
    r = EVP_PKEY_pairwise_check(ctx);
    EVP_PKEY_CTX_free(ctx);
    if (r != 1 && r != -2)
        return certs_ossl_err(err, "'%s' is not a consistent key pair",
                              key_path);
    ERR_clear_error();
    return 0;
}

long long certs_time_unix(const ASN1_TIME *t)
{
    struct tm tm;

    memset(&tm, 0, sizeof(tm));
    if (!t || !ASN1_TIME_to_tm(t, &tm))
        return -1;
    return (long long)timegm(&tm);
}

void certs_format_time(long long t, char *out, size_t n)
{
    time_t tt = (time_t)t;
    struct tm tm;

    if (!gmtime_r(&tt, &tm) || !strftime(out, n, "%Y-%m-%d %H:%M:%S UTC",
                                         &tm))
        snprintf(out, n, "@%lld", t);
}

static int is_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9');
}

int certs_is_label(const char *s)
{
    size_t i, n = strlen(s);

    if (n == 0 || n > 63)
        return 0;
    for (i = 0; i < n; i++) {
        char c = s[i];

        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'))
            return 0;
    }
    return s[0] != '-' && s[n - 1] != '-';
}

int certs_is_dns_name(const char *s)
{
    size_t n = strlen(s), len = 0, i;

    if (n == 0 || n > CERTS_DNS_MAX)
        return 0;
    if (s[0] == '*' && s[1] == '.' && s[2])
        s += 2;
    else if (s[0] == '*')
        return 0;
    for (i = 0;; i++) {
        char c = s[i];

        if (c == '.' || c == '\0') {
            if (len == 0 || len > 63 || s[i - 1] == '-')
                return 0;
            if (c == '\0')
                return 1;
            len = 0;
            continue;
        }
        if (!is_alnum(c) && c != '-')
            return 0;
        if (len == 0 && c == '-')
            return 0;
        len++;
    }
}

int certs_is_ip(const char *s)
{
    ASN1_OCTET_STRING *ip = a2i_IPADDRESS(s);

    ERR_clear_error();
    if (!ip)
        return 0;
    ASN1_OCTET_STRING_free(ip);
    return 1;
}

int certs_svc_sans(const char *service, const char *ns,
                   char names[CERTS_N_SVC_SANS][CERTS_DNS_MAX + 1],
                   struct err *err)
{
    static const char *const suffix[CERTS_N_SVC_SANS] = {
        "", "", ".svc", ".svc.cluster.local",
    };
    int i;

    if (!service || !*service)
        return err_set(err, "missing service name");
    if (!ns || !*ns)
        return err_set(err, "missing namespace");
    if (!certs_is_label(service))
        return err_set(err, "service name '%s' is not a DNS-1123 label "
                       "(lowercase letters, digits and '-', at most 63)",
                       service);
    if (!certs_is_label(ns))
        return err_set(err, "namespace '%s' is not a DNS-1123 label "
                       "(lowercase letters, digits and '-', at most 63)",
                       ns);
    /* Two labels of at most 63 plus the suffix always fit in 253. */
    snprintf(names[0], CERTS_DNS_MAX + 1, "%s", service);
    for (i = 1; i < CERTS_N_SVC_SANS; i++)
        snprintf(names[i], CERTS_DNS_MAX + 1, "%s.%s%s", service, ns,
                 suffix[i]);
    return 0;
}

void certs_describe_key(const EVP_PKEY *k, char *out, size_t n)
{
    char group[64];
    size_t glen = 0;

    if (EVP_PKEY_is_a(k, "EC")) {
        if (EVP_PKEY_get_group_name(k, group, sizeof(group), &glen) != 1)
            snprintf(group, sizeof(group), "unknown curve");
        snprintf(out, n, "EC %s", group);
    } else if (EVP_PKEY_is_a(k, "RSA")) {
        snprintf(out, n, "RSA %d", EVP_PKEY_get_bits(k));
    } else {
        snprintf(out, n, "%s", EVP_PKEY_get0_type_name(k));
    }
    ERR_clear_error();
}
