/*
 * gen.c - certs_generate(): a new CA (or a reused one) and a serving
 * certificate for the webhook Service, written as ca.crt, tls.crt and
 * tls.key. Owns key generation (OpenSSL 3 EVP, ECDSA P-256 or RSA), the
 * X.509 v3 profile of both certificates and the safe file publication
 * (O_EXCL temporaries, fsync, link/rename). It does not print: the CLI
 * (cmd.c) reports what was written.
 */
#include "certs.h"
#include "certs_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>

#include "../validate/err.h"

#define CA_DAYS        CERTS_MAX_DAYS
#define BACKDATE_SECS  300     /* notBefore = now - 5 min: clock skew */
#define SERIAL_BYTES   16      /* 128-bit random serial */

enum { OUT_CA, OUT_CRT, OUT_KEY, N_OUT };

static const struct out_spec {
    const char *name;
    mode_t mode;
} out_specs[N_OUT] = {
    [OUT_CA]  = { CERTS_CA_CRT,  0644 },
    [OUT_CRT] = { CERTS_TLS_CRT, 0644 },
    [OUT_KEY] = { CERTS_TLS_KEY, 0600 },
};

struct out_file {
    char dst[PATH_MAX];
    char tmp[PATH_MAX];
    int skip;               /* ca.crt when it is the reused CA file itself */
    int have_tmp;
};

/* ==== options and output paths ==== */

static const char *out_dir(const struct certs_opts *o)
{
    return o->out_dir && *o->out_dir ? o->out_dir : ".";
}

static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;

    if (stat(a, &sa) < 0 || stat(b, &sb) < 0)
        return 0;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static int out_paths(const struct certs_opts *o, struct out_file out[N_OUT],
                     struct err *err)
{
    const char *dir = out_dir(o);
    int i, n;

    for (i = 0; i < N_OUT; i++) {
        memset(&out[i], 0, sizeof(out[i]));
        n = snprintf(out[i].dst, sizeof(out[i].dst), "%s/%s", dir,
                     out_specs[i].name);
        if (n < 0 || (size_t)n >= sizeof(out[i].dst))
            return err_set(err, "output directory '%s' is too long", dir);
    }
    /* Rotating the serving cert under one's own CA, in place. */
    if (o->ca_cert && same_file(o->ca_cert, out[OUT_CA].dst))
        out[OUT_CA].skip = 1;
    return 0;
}

static int check_exist(struct out_file out[N_OUT], struct err *err)
{
    struct stat st;
    int i;

    for (i = 0; i < N_OUT; i++) {
        if (out[i].skip)
            continue;
        if (lstat(out[i].dst, &st) == 0) {
            err_set(err, "'%s' already exists (use --force to overwrite)",
                    out[i].dst);
            return 1;
        }
        if (errno != ENOENT && errno != ENOTDIR)
            return err_set(err, "cannot stat '%s': %s", out[i].dst,
                           strerror(errno));
    }
    return 0;
}

int certs_outputs_exist(const struct certs_opts *o, struct err *err)
{
    struct out_file out[N_OUT];

    if (out_paths(o, out, err) < 0)
        return -1;
    return check_exist(out, err);
}

static int check_opts(const struct certs_opts *o, int *days,
                      char sans[CERTS_N_SVC_SANS][CERTS_DNS_MAX + 1],
                      struct err *err)
{
    size_t i;

    if (certs_svc_sans(o->service, o->namespace_, sans, err) < 0)
        return -1;
    *days = o->days ? o->days : CERTS_DEFAULT_DAYS;
    if (*days < 1 || *days > CERTS_MAX_DAYS)
        return err_set(err, "days must be between 1 and %d, not %d",
                       CERTS_MAX_DAYS, *days);
    if (o->rsa_bits != 0 && o->rsa_bits != 2048 && o->rsa_bits != 3072)
        return err_set(err, "rsa key size must be 2048 or 3072, not %d",
                       o->rsa_bits);
    for (i = 0; i < o->n_extra_dns; i++)
        if (!certs_is_dns_name(o->extra_dns[i]))
            return err_set(err, "'%s' is not a valid DNS name",
                           o->extra_dns[i]);
    for (i = 0; i < o->n_extra_ip; i++)
        if (!certs_is_ip(o->extra_ip[i]))
            return err_set(err, "'%s' is not an IP address", o->extra_ip[i]);
    if (!o->ca_cert != !o->ca_key)
        return err_set(err, "a reused CA needs both the certificate and "
                       "the key (--ca-cert and --ca-key)");
    return 0;
}

int certs_opts_check(const struct certs_opts *o, struct err *err)
{
    char sans[CERTS_N_SVC_SANS][CERTS_DNS_MAX + 1];
    int days;

    return check_opts(o, &days, sans, err);
}

/* mkdir -p, mode 0755 for what it creates. */
static int make_dir(const char *dir, struct err *err)
{
    char path[PATH_MAX];
    size_t i, n = strlen(dir);
    struct stat st;

    if (n >= sizeof(path))
        return err_set(err, "output directory '%s' is too long", dir);
    memcpy(path, dir, n + 1);
    for (i = 1; i <= n; i++) {
        if (path[i] != '/' && path[i] != '\0')
            continue;
        path[i] = '\0';
        if (mkdir(path, 0755) < 0 && errno != EEXIST)
            return err_set(err, "cannot create directory '%s': %s", path,
                           strerror(errno));
        path[i] = dir[i];
    }
    if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
        return err_set(err, "'%s' is not a directory", dir);
    return 0;
}

/* ==== keys and certificates ==== */

static EVP_PKEY *new_key(int rsa_bits, struct err *err)
{
    EVP_PKEY *k;

    if (rsa_bits)
        k = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)rsa_bits);
    else
        k = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    if (!k)
        certs_ossl_err(err, "cannot generate a key");
    return k;
}

static int set_serial(X509 *x, struct err *err)
{
    unsigned char raw[SERIAL_BYTES];
    ASN1_INTEGER *ai = NULL;
    BIGNUM *bn = NULL;
    int ret = -1;

    do {
        if (RAND_bytes(raw, sizeof(raw)) != 1) {
            certs_ossl_err(err, "cannot get random bytes");
            goto out;
        }
        BN_free(bn);
        bn = BN_bin2bn(raw, sizeof(raw), NULL);
        if (!bn) {
            certs_ossl_err(err, "cannot make a serial number");
            goto out;
        }
    } while (BN_is_zero(bn));       /* serials must be positive */
    ai = BN_to_ASN1_INTEGER(bn, NULL);
    if (!ai || !X509_set_serialNumber(x, ai)) {
        certs_ossl_err(err, "cannot set the serial number");
        goto out;
    }
    ret = 0;
out:
    ASN1_INTEGER_free(ai);
    BN_free(bn);
    return ret;
}

/* A v3 certificate for key with subject CN=cn, valid from now - 5 min to
 * now + days; issuer, extensions and signature are the caller's. */
static X509 *new_cert(EVP_PKEY *key, const char *cn, int days, time_t now,
                      struct err *err)
{
    X509 *x = X509_new();

    if (!x) {
        certs_ossl_err(err, "cannot allocate a certificate");
        return NULL;
    }
    if (!X509_set_version(x, X509_VERSION_3) ||
        !X509_time_adj_ex(X509_getm_notBefore(x), 0, -BACKDATE_SECS, &now) ||
        !X509_time_adj_ex(X509_getm_notAfter(x), days, 0, &now) ||
        !X509_set_pubkey(x, key) ||
        !X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN",
                                    MBSTRING_UTF8,
                                    (const unsigned char *)cn, -1, -1, 0)) {
        certs_ossl_err(err, "cannot build certificate '%s'", cn);
        X509_free(x);
        return NULL;
    }
    if (set_serial(x, err) < 0) {
        X509_free(x);
        return NULL;
    }
    return x;
}

/* Adds one extension from OpenSSL's config syntax. Values are constants
 * of this file, never user input (SANs are built as GENERAL_NAMEs). */
static int add_ext(X509 *x, X509 *issuer, int nid, const char *value,
                   struct err *err)
{
    X509V3_CTX ctx;
    X509_EXTENSION *ex;
    int ok;

    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, x, NULL, NULL, 0);
    ex = X509V3_EXT_nconf_nid(NULL, &ctx, nid, value);
    if (!ex)
        return certs_ossl_err(err, "cannot add extension %s = '%s'",
                              OBJ_nid2sn(nid), value);
    ok = X509_add_ext(x, ex, -1);
    X509_EXTENSION_free(ex);
    if (!ok)
        return certs_ossl_err(err, "cannot add extension %s",
                              OBJ_nid2sn(nid));
    return 0;
}

static const EVP_MD *sign_md(EVP_PKEY *k)
{
    /* EdDSA signs the message itself: no separate digest. */
    if (EVP_PKEY_is_a(k, "ED25519") || EVP_PKEY_is_a(k, "ED448"))
        return NULL;
    return EVP_sha256();
}

static int sign(X509 *x, EVP_PKEY *k, const char *what, struct err *err)
{
    if (!X509_sign(x, k, sign_md(k)))
        return certs_ossl_err(err, "cannot sign the %s", what);
    return 0;
}

static X509 *new_ca(EVP_PKEY *key, const struct certs_opts *o, time_t now,
                    struct err *err)
{
    char cn[160];
    X509 *x;

    snprintf(cn, sizeof(cn), "claimcheck-webhook CA for %s.%s", o->service,
             o->namespace_);
    x = new_cert(key, cn, CA_DAYS, now, err);
    if (!x)
        return NULL;
    if (!X509_set_issuer_name(x, X509_get_subject_name(x)) ||
        add_ext(x, x, NID_basic_constraints, "critical,CA:TRUE", err) < 0 ||
        add_ext(x, x, NID_key_usage, "critical,keyCertSign,cRLSign",
                err) < 0 ||
        add_ext(x, x, NID_subject_key_identifier, "hash", err) < 0 ||
        sign(x, key, "CA certificate", err) < 0) {
        if (!err->msg[0])
            certs_ossl_err(err, "cannot build the CA certificate");
        X509_free(x);
        return NULL;
    }
    return x;
}

static int push_name(GENERAL_NAMES *gens, int type, ASN1_STRING *v)
{
    GENERAL_NAME *g;
    int i;

    for (i = 0; i < sk_GENERAL_NAME_num(gens); i++) {
        const GENERAL_NAME *h = sk_GENERAL_NAME_value(gens, i);
        int htype;
        const ASN1_STRING *hv = GENERAL_NAME_get0_value(h, &htype);

        if (htype != type || ASN1_STRING_length(hv) != ASN1_STRING_length(v))
            continue;
        if (type == GEN_DNS
                ? !strncasecmp((const char *)ASN1_STRING_get0_data(hv),
                               (const char *)ASN1_STRING_get0_data(v),
                               (size_t)ASN1_STRING_length(v))
                : !ASN1_STRING_cmp(hv, v)) {
            ASN1_STRING_free(v);        /* duplicate: keep the first */
            return 0;
        }
    }
    g = GENERAL_NAME_new();
    if (!g) {
        ASN1_STRING_free(v);
        return -1;
    }
    GENERAL_NAME_set0_value(g, type, v);
    if (!sk_GENERAL_NAME_push(gens, g)) {
        GENERAL_NAME_free(g);
        return -1;
    }
    return 0;
}

static int push_dns(GENERAL_NAMES *gens, const char *name)
{
    ASN1_IA5STRING *s = ASN1_IA5STRING_new();

    if (!s)
        return -1;
    if (!ASN1_STRING_set(s, name, -1)) {
        ASN1_IA5STRING_free(s);
        return -1;
    }
    return push_name(gens, GEN_DNS, s);
}

static int add_sans(X509 *x, const struct certs_opts *o,
                    char sans[CERTS_N_SVC_SANS][CERTS_DNS_MAX + 1],
                    struct err *err)
{
    GENERAL_NAMES *gens = sk_GENERAL_NAME_new_null();
    ASN1_OCTET_STRING *ip;
    size_t i;
    int ret = -1;

    if (!gens)
        goto fail;
    for (i = 0; i < CERTS_N_SVC_SANS; i++)
        if (push_dns(gens, sans[i]) < 0)
            goto fail;
    for (i = 0; i < o->n_extra_dns; i++)
        if (push_dns(gens, o->extra_dns[i]) < 0)
            goto fail;
    for (i = 0; i < o->n_extra_ip; i++) {
        ip = a2i_IPADDRESS(o->extra_ip[i]);    /* checked in check_opts */
        if (!ip || push_name(gens, GEN_IPADD, ip) < 0)
            goto fail;
    }
    /* Not critical: the subject (CN) is not empty. */
    if (X509_add1_ext_i2d(x, NID_subject_alt_name, gens, 0,
                          X509V3_ADD_DEFAULT) != 1)
        goto fail;
    ret = 0;
    goto out;
fail:
    certs_ossl_err(err, "cannot add the subjectAltName extension");
out:
    GENERAL_NAMES_free(gens);
    return ret;
}

static X509 *new_leaf(EVP_PKEY *key, X509 *ca, EVP_PKEY *ca_key,
                      const struct certs_opts *o, int days, time_t now,
                      char sans[CERTS_N_SVC_SANS][CERTS_DNS_MAX + 1],
                      struct err *err)
{
    const char *ku = o->rsa_bits ? "critical,digitalSignature,keyEncipherment"
                                 : "critical,digitalSignature";
    X509 *x;

    /* CN = NAME.NS.svc for humans; the apiserver only looks at SANs. */
    x = new_cert(key, sans[2], days, now, err);
    if (!x)
        return NULL;
    if (!X509_set_issuer_name(x, X509_get_subject_name(ca))) {
        certs_ossl_err(err, "cannot set the issuer");
        goto fail;
    }
    if (add_ext(x, ca, NID_basic_constraints, "critical,CA:FALSE", err) < 0 ||
        add_ext(x, ca, NID_key_usage, ku, err) < 0 ||
        add_ext(x, ca, NID_ext_key_usage, "serverAuth", err) < 0 ||
        add_ext(x, ca, NID_subject_key_identifier, "hash", err) < 0 ||
        /* keyid from the CA's SKI; issuer+serial if a reused CA has none */
        add_ext(x, ca, NID_authority_key_identifier, "keyid,issuer",
                err) < 0 ||
        add_sans(x, o, sans, err) < 0 ||
        sign(x, ca_key, "serving certificate", err) < 0)
        goto fail;
    return x;
fail:
    X509_free(x);
    return NULL;
}

/* Loads and vets a CA given with --ca-cert/--ca-key. */
static int load_ca(const struct certs_opts *o, int days, time_t now,
                   STACK_OF(X509) **chain, EVP_PKEY **key, struct err *err)
{
    char when[40];
    X509 *ca;
    long long nb, na;

    *chain = certs_load_certs(o->ca_cert, err);
    if (!*chain)
        return -1;
    *key = certs_load_key(o->ca_key, err);
    if (!*key)
        return -1;
    ca = sk_X509_value(*chain, 0);
    if (certs_key_matches(ca, *key, o->ca_cert, o->ca_key, err) < 0)
        return -1;
    if (X509_check_ca(ca) < 1)
        return err_set(err, "'%s' is not a CA certificate (needs "
                       "basicConstraints CA:TRUE and keyCertSign)",
                       o->ca_cert);
    nb = certs_time_unix(X509_get0_notBefore(ca));
    na = certs_time_unix(X509_get0_notAfter(ca));
    if (nb < 0 || na < 0)
        return err_set(err, "'%s' has an unreadable validity period",
                       o->ca_cert);
    if (nb > (long long)now) {
        certs_format_time(nb, when, sizeof(when));
        return err_set(err, "CA '%s' is not valid before %s", o->ca_cert,
                       when);
    }
    if (na < (long long)now + (long long)days * 86400) {
        certs_format_time(na, when, sizeof(when));
        return err_set(err, "CA '%s' expires %s, before a %d-day serving "
                       "certificate would", o->ca_cert, when, days);
    }
    ERR_clear_error();
    return 0;
}

/* ==== writing files ==== */

static int write_all(int fd, const char *p, size_t n)
{
    ssize_t w;

    while (n) {
        w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Writes data to a fresh O_EXCL temporary next to f->dst. */
static int write_tmp(struct out_file *f, mode_t mode, const char *data,
                     size_t len, const char *dir, const char *name,
                     struct err *err)
{
    int fd, n;

    n = snprintf(f->tmp, sizeof(f->tmp), "%s/.%s.XXXXXX", dir, name);
    if (n < 0 || (size_t)n >= sizeof(f->tmp))
        return err_set(err, "output directory '%s' is too long", dir);
    fd = mkstemp(f->tmp);   /* O_CREAT|O_EXCL, mode 0600 */
    if (fd < 0)
        return err_set(err, "cannot create a file in '%s': %s", dir,
                       strerror(errno));
    f->have_tmp = 1;
    if (fchmod(fd, mode) < 0 || write_all(fd, data, len) < 0 ||
        fsync(fd) < 0) {
        err_set(err, "cannot write '%s': %s", f->tmp, strerror(errno));
        close(fd);
        return -1;
    }
    if (close(fd) < 0)
        return err_set(err, "cannot write '%s': %s", f->tmp,
                       strerror(errno));
    return 0;
}

/* Moves the temporary into place. Without force, link(2) refuses to
 * replace a file that appeared since check_exist(); filesystems without
 * hard links fall back to a last check and rename(2). */
static int publish(struct out_file *f, int force, int *exists,
                   struct err *err)
{
    struct stat st;

    if (!force) {
        if (link(f->tmp, f->dst) == 0) {
            unlink(f->tmp);
            f->have_tmp = 0;
            return 0;
        }
        if (errno != EEXIST && errno != EPERM && errno != ENOTSUP &&
            errno != EOPNOTSUPP && errno != EMLINK)
            return err_set(err, "cannot create '%s': %s", f->dst,
                           strerror(errno));
        if (errno == EEXIST || lstat(f->dst, &st) == 0) {
            *exists = 1;
            return err_set(err, "'%s' already exists (use --force to "
                           "overwrite)", f->dst);
        }
    }
    if (rename(f->tmp, f->dst) < 0)
        return err_set(err, "cannot rename '%s' to '%s': %s", f->tmp, f->dst,
                       strerror(errno));
    f->have_tmp = 0;
    return 0;
}

static void sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
}

/* PEM of all certs (or of the key) into a memory BIO. */
static BIO *pem_certs(STACK_OF(X509) *sk, struct err *err)
{
    BIO *b = BIO_new(BIO_s_mem());
    int i;

    if (!b)
        goto fail;
    for (i = 0; i < sk_X509_num(sk); i++)
        if (!PEM_write_bio_X509(b, sk_X509_value(sk, i)))
            goto fail;
    return b;
fail:
    BIO_free(b);
    certs_ossl_err(err, "cannot encode a certificate");
    return NULL;
}

static BIO *pem_key(EVP_PKEY *k, struct err *err)
{
    BIO *b = BIO_new(BIO_s_secmem());

    /* PEM_write_bio_PrivateKey writes PKCS#8 ("BEGIN PRIVATE KEY"). */
    if (!b || !PEM_write_bio_PrivateKey(b, k, NULL, NULL, 0, NULL, NULL)) {
        BIO_free(b);
        certs_ossl_err(err, "cannot encode the private key");
        return NULL;
    }
    return b;
}

static size_t bio_data(BIO *b, const char **p)
{
    char *q = NULL;
    long n = BIO_get_mem_data(b, &q);

    *p = q;
    return n > 0 ? (size_t)n : 0;
}

/* ==== certs_generate ==== */

int certs_generate(const struct certs_opts *o, struct err *err)
{
    int exists;

    return certs_generate_ex(o, &exists, err);
}

int certs_generate_ex(const struct certs_opts *o, int *exists,
                      struct err *err)
{
    char sans[CERTS_N_SVC_SANS][CERTS_DNS_MAX + 1];
    struct out_file out[N_OUT];
    STACK_OF(X509) *ca_chain = NULL, *leaf_sk = NULL;
    EVP_PKEY *ca_key = NULL, *key = NULL;
    X509 *ca, *leaf = NULL;
    BIO *pem[N_OUT] = { NULL, NULL, NULL };
    time_t now = time(NULL);
    const char *dir = out_dir(o), *data;
    size_t len;
    int days, i, ret = -1;

    err->msg[0] = '\0';
    *exists = 0;
    memset(out, 0, sizeof(out));
    if (check_opts(o, &days, sans, err) < 0 || out_paths(o, out, err) < 0)
        goto out;
    if (!o->force) {
        i = check_exist(out, err);
        if (i != 0) {
            *exists = i > 0;
            goto out;
        }
    }

    if (o->ca_cert) {
        if (load_ca(o, days, now, &ca_chain, &ca_key, err) < 0)
            goto out;
    } else {
        ca_chain = sk_X509_new_null();
        if (!ca_chain) {
            certs_ossl_err(err, "out of memory");
            goto out;
        }
        ca_key = new_key(o->rsa_bits, err);
        if (!ca_key)
            goto out;
        ca = new_ca(ca_key, o, now, err);
        if (!ca)
            goto out;
        if (!sk_X509_push(ca_chain, ca)) {
            X509_free(ca);
            certs_ossl_err(err, "out of memory");
            goto out;
        }
    }
    ca = sk_X509_value(ca_chain, 0);

    key = new_key(o->rsa_bits, err);
    if (!key)
        goto out;
    leaf = new_leaf(key, ca, ca_key, o, days, now, sans, err);
    if (!leaf)
        goto out;

    leaf_sk = sk_X509_new_null();
    if (!leaf_sk || !sk_X509_push(leaf_sk, leaf)) {
        certs_ossl_err(err, "out of memory");
        goto out;
    }
    leaf = NULL;            /* owned by leaf_sk */
    pem[OUT_CA] = pem_certs(ca_chain, err);
    pem[OUT_CRT] = pem_certs(leaf_sk, err);
    pem[OUT_KEY] = pem_key(key, err);
    if (!pem[OUT_CA] || !pem[OUT_CRT] || !pem[OUT_KEY])
        goto out;

    if (make_dir(dir, err) < 0)
        goto out;
    for (i = 0; i < N_OUT; i++) {
        if (out[i].skip)
            continue;
        len = bio_data(pem[i], &data);
        if (write_tmp(&out[i], out_specs[i].mode, data, len, dir,
                      out_specs[i].name, err) < 0)
            goto out;
    }
    /* Key before certificate: a watcher woken by tls.crt finds its key. */
    if (publish(&out[OUT_KEY], o->force, exists, err) < 0 ||
        publish(&out[OUT_CRT], o->force, exists, err) < 0 ||
        (!out[OUT_CA].skip &&
         publish(&out[OUT_CA], o->force, exists, err) < 0))
        goto out;
    sync_dir(dir);
    ret = 0;
out:
    for (i = 0; i < N_OUT; i++) {
        if (out[i].have_tmp)
            unlink(out[i].tmp);
        BIO_free(pem[i]);
    }
    X509_free(leaf);
    sk_X509_pop_free(leaf_sk, X509_free);
    sk_X509_pop_free(ca_chain, X509_free);
    EVP_PKEY_free(key);
    EVP_PKEY_free(ca_key);
    ERR_clear_error();
    return ret;
}
