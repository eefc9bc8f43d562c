/*
 * tls.c - serving certificate for libmicrohttpd's GnuTLS backend; the ONLY
 * file including GnuTLS headers. Owns: reading and matching cert/key files,
 * the per-handshake certificate callback, the reload thread, the grace-
 * period freeing of replaced credentials, client-certificate verification.
 * It does not own the daemon or HTTP (server.c) or certificate generation
 * (certs/).
 */
#include "tls.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gnutls/abstract.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <microhttpd.h>

#include "../validate/err.h"
#include "../validate/file.h"
#include "../validate/xalloc.h"
#include "log.h"
#include "metrics.h"

#define TLS_MAX_CHAIN 16
#define TLS_FILE_MAX (1024 * 1024)
#define TLS_EXPIRY_WARN (30 * 24 * 3600)
/* TLS 1.2 and 1.3 only; not SECURE256 (refuses P-256 keys, tooling.md) */
#define TLS_PRIORITIES "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"

struct creds {
    gnutls_pcert_st pcert[TLS_MAX_CHAIN];
    unsigned n;
    gnutls_privkey_t key;
    time_t not_after;
    time_t retired_at;          /* when it was replaced */
    struct creds *next;         /* retired list */
};

struct file_id {
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime, ctime;
};

struct tls {
    char *cert_path, *key_path;
    char *client_ca;            /* PEM text for MHD, or NULL */
    unsigned hold_seconds;
    char priorities[64];        /* GnuTLS priority string for MHD */
    struct metrics *metrics;
    _Atomic(struct creds *) cur;
    struct creds *retired;      /* reload thread only */
    struct file_id seen_cert, seen_key; /* last pair tried */
    time_t last_expiry_warn;
    pthread_t thread;
    int started;
    pthread_mutex_t mu;         /* guards stop, with cond */
    pthread_cond_t cond;
    int stop;
    pthread_mutex_t reload_mu;  /* one reload at a time */
};

static int read_file(const char *path, gnutls_datum_t *out, struct err *err)
{
    char *data;
    size_t len;

    if (file_read(path, TLS_FILE_MAX, &data, &len, err) < 0)
        return -1;
    out->data = (unsigned char *)data;
    out->size = (unsigned)len;
    return 0;
}

static void creds_free(struct creds *c)
{
    unsigned i;

    if (!c)
        return;
    for (i = 0; i < c->n; i++)
        gnutls_pcert_deinit(&c->pcert[i]);
    if (c->key)
        gnutls_privkey_deinit(c->key);
    free(c);
}

static int pubkey_der(gnutls_pubkey_t k, gnutls_datum_t *out)
{
    return gnutls_pubkey_export2(k, GNUTLS_X509_FMT_DER, out);
}

/* 0 if the private key belongs to the first certificate of the chain. */
static int creds_match(struct creds *c, struct err *err)
{
    gnutls_pubkey_t pk = NULL;
    gnutls_datum_t a = { NULL, 0 }, b = { NULL, 0 };
    int ret = -1;

    if (gnutls_pubkey_init(&pk) < 0
        || gnutls_pubkey_import_privkey(pk, c->key, 0, 0) < 0
        || pubkey_der(pk, &a) < 0 || pubkey_der(c->pcert[0].pubkey, &b) < 0) {
        err_set(err, "cannot compare certificate and key");
        goto out;
    }
    if (a.size != b.size || memcmp(a.data, b.data, a.size) != 0) {
        err_set(err, "private key does not match the certificate");
        goto out;
    }
    ret = 0;
out:
    gnutls_free(a.data);
    gnutls_free(b.data);
    if (pk)
        gnutls_pubkey_deinit(pk);
    return ret;
}

static time_t cert_not_after(const gnutls_datum_t *der)
{
    gnutls_x509_crt_t crt;
    time_t t = 0;

    if (gnutls_x509_crt_init(&crt) < 0)
        return 0;
    if (gnutls_x509_crt_import(crt, der, GNUTLS_X509_FMT_DER) >= 0)
        t = gnutls_x509_crt_get_expiration_time(crt);
    gnutls_x509_crt_deinit(crt);
    return t == (time_t)-1 ? 0 : t;
}

static struct creds *creds_load(const char *cert, const char *key,
                                struct err *err)
{
    gnutls_datum_t cd = { NULL, 0 }, kd = { NULL, 0 };
    struct creds *c = xcalloc(1, sizeof(*c));
    unsigned n = TLS_MAX_CHAIN;
    int rc;

    if (read_file(cert, &cd, err) < 0 || read_file(key, &kd, err) < 0)
        goto fail;
    rc = gnutls_pcert_list_import_x509_raw(c->pcert, &n, &cd,
                                           GNUTLS_X509_FMT_PEM, 0);
    if (rc < 0 || n == 0) {
        err_set(err, "cannot parse certificate '%s': %s", cert,
                gnutls_strerror(rc));
        goto fail;
    }
    c->n = n;
    rc = gnutls_privkey_init(&c->key);
    if (rc >= 0)
        rc = gnutls_privkey_import_x509_raw(c->key, &kd, GNUTLS_X509_FMT_PEM,
                                            NULL, 0);
    if (rc < 0) {
        err_set(err, "cannot parse private key '%s': %s", key,
                gnutls_strerror(rc));
        goto fail;
    }
    if (creds_match(c, err) < 0)
        goto fail;
    c->not_after = cert_not_after(&c->pcert[0].cert);
    free(cd.data);
    gnutls_memset(kd.data, 0, kd.size);
    free(kd.data);
    return c;
fail:
    free(cd.data);
    if (kd.data)
        gnutls_memset(kd.data, 0, kd.size);
    free(kd.data);
    creds_free(c);
    return NULL;
}

static int file_id_get(const char *path, struct file_id *id)
{
    struct stat st;

    memset(id, 0, sizeof(*id));
    if (stat(path, &st) < 0)
        return -1;
    id->dev = st.st_dev;
    id->ino = st.st_ino;
    id->size = st.st_size;
    id->mtime = st.st_mtim;
    id->ctime = st.st_ctim;
    return 0;
}

static int file_id_eq(const struct file_id *a, const struct file_id *b)
{
    return a->dev == b->dev && a->ino == b->ino && a->size == b->size
           && a->mtime.tv_sec == b->mtime.tv_sec
           && a->mtime.tv_nsec == b->mtime.tv_nsec
           && a->ctime.tv_sec == b->ctime.tv_sec
           && a->ctime.tv_nsec == b->ctime.tv_nsec;
}

static void check_expiry(struct tls *t, const struct creds *c)
{
    time_t now = time(NULL);

    if (c->not_after && c->not_after - now < TLS_EXPIRY_WARN
        && now - t->last_expiry_warn >= 3600) {
        t->last_expiry_warn = now;
        log_msg(LOG_WARN, "serving certificate '%s' expires in %lld days",
                t->cert_path, (long long)(c->not_after - now) / 86400);
    }
}

static void free_retired(struct tls *t, int all)
{
    struct creds **pp = &t->retired;
    time_t now = time(NULL);

    while (*pp) {
        struct creds *c = *pp;
        if (all || now - c->retired_at > (time_t)t->hold_seconds) {
            *pp = c->next;
            creds_free(c);
        } else {
            pp = &c->next;
        }
    }
}

int tls_reload(struct tls *t)
{
    struct file_id ci, ki;
    struct creds *c, *old;
    struct err err = { "" };
    int ret = 0;

    pthread_mutex_lock(&t->reload_mu);
    free_retired(t, 0);
    check_expiry(t, atomic_load(&t->cur));
    if (file_id_get(t->cert_path, &ci) < 0 || file_id_get(t->key_path, &ki) < 0)
        goto out;       /* mid-swap or removed: keep serving, look again */
    if (file_id_eq(&ci, &t->seen_cert) && file_id_eq(&ki, &t->seen_key))
        goto out;
    t->seen_cert = ci;
    t->seen_key = ki;
    c = creds_load(t->cert_path, t->key_path, &err);
    if (!c) {
        log_msg(LOG_ERROR, "certificate reload failed, keeping the old one: "
                "%s", err.msg);
        if (t->metrics)
            metrics_cert_reload(t->metrics, 0);
        ret = -1;
        goto out;
    }
    old = atomic_exchange(&t->cur, c);
    old->retired_at = time(NULL);
    old->next = t->retired;
    t->retired = old;
    if (t->metrics) {
        metrics_cert_reload(t->metrics, 1);
        metrics_cert(t->metrics, c->not_after);
    }
    log_msg(LOG_INFO, "serving certificate reloaded from '%s' (not after "
            "%lld)", t->cert_path, (long long)c->not_after);
    t->last_expiry_warn = 0;
    check_expiry(t, c);
    ret = 1;
out:
    pthread_mutex_unlock(&t->reload_mu);
    return ret;
}

static void *reload_main(void *arg)
{
    struct tls *t = arg;

    pthread_mutex_lock(&t->mu);
    while (!t->stop) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += 1;
        pthread_cond_timedwait(&t->cond, &t->mu, &ts);
        if (t->stop)
            break;
        pthread_mutex_unlock(&t->mu);
        tls_reload(t);
        pthread_mutex_lock(&t->mu);
    }
    pthread_mutex_unlock(&t->mu);
    return NULL;
}

struct tls *tls_new(const char *cert, const char *key, const char *client_ca,
                    unsigned hold_seconds, struct metrics *m,
                    struct err *err)
{
    struct tls *t;
    struct creds *c;

    if (!cert || !key) {
        err_set(err, "--tls-cert and --tls-key are required");
        return NULL;
    }
    if (gnutls_check_version("3.6.0") == NULL) {
        err_set(err, "GnuTLS 3.6 or newer is required");
        return NULL;
    }
    t = xcalloc(1, sizeof(*t));
    t->cert_path = xstrdup(cert);
    t->key_path = xstrdup(key);
    t->hold_seconds = hold_seconds;
    snprintf(t->priorities, sizeof(t->priorities), "%s", TLS_PRIORITIES);
    t->metrics = m;
    pthread_mutex_init(&t->mu, NULL);
    pthread_mutex_init(&t->reload_mu, NULL);
    pthread_cond_init(&t->cond, NULL);
    file_id_get(cert, &t->seen_cert);
    file_id_get(key, &t->seen_key);
    c = creds_load(cert, key, err);
    if (!c)
        goto fail;
    atomic_store(&t->cur, c);
    if (client_ca) {
        size_t len;     /* NUL-terminated, as MHD wants it */
        if (file_read(client_ca, TLS_FILE_MAX, &t->client_ca, &len, err) < 0)
            goto fail;
    }
    if (m)
        metrics_cert(m, c->not_after);
    check_expiry(t, c);
    return t;
fail:
    tls_free(t);
    return NULL;
}

int tls_start(struct tls *t, struct err *err)
{
    if (pthread_create(&t->thread, NULL, reload_main, t) != 0)
        return err_set(err, "cannot start the certificate reload thread");
    t->started = 1;
    return 0;
}

void tls_free(struct tls *t)
{
    if (!t)
        return;
    if (t->started) {
        pthread_mutex_lock(&t->mu);
        t->stop = 1;
        pthread_cond_signal(&t->cond);
        pthread_mutex_unlock(&t->mu);
        pthread_join(t->thread, NULL);
    }
    free_retired(t, 1);
    creds_free(atomic_load(&t->cur));
    pthread_cond_destroy(&t->cond);
    pthread_mutex_destroy(&t->mu);
    pthread_mutex_destroy(&t->reload_mu);
    free(t->client_ca);
    free(t->cert_path);
    free(t->key_path);
    free(t);
}

time_t tls_not_after(struct tls *t)
{
    return atomic_load(&t->cur)->not_after;
}

/*
 * GnuTLS asks for the certificate during each handshake. The callback has
 * no user pointer; libmicrohttpd sets the session pointer to
 * its connection, whose socket context tls_bind_connection() filled.
 */
static int cert_callback(gnutls_session_t s, const gnutls_datum_t *req_ca,
                         int nreqs, const gnutls_pk_algorithm_t *pk_algos,
                         int pk_algos_length, gnutls_pcert_st **pcert,
                         unsigned int *pcert_length, gnutls_privkey_t *key)
{
    struct MHD_Connection *conn = gnutls_session_get_ptr(s);
    const union MHD_ConnectionInfo *ci;
    struct tls *t;
    struct creds *c;

    (void)req_ca;
    (void)nreqs;
    (void)pk_algos;
    (void)pk_algos_length;
    if (!conn)
        return -1;
    ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    if (!ci || !ci->socket_context)
        return -1;
    t = ci->socket_context;
    c = atomic_load(&t->cur);
    *pcert = c->pcert;
    *pcert_length = c->n;
    *key = c->key;
    return 0;
}

size_t tls_mhd_options(struct tls *t, struct MHD_OptionItem *items,
                       size_t max)
{
    gnutls_certificate_retrieve_function2 *fn = cert_callback;
    void *fp;
    size_t n = 0;

    /* MHD takes the callback through a void * slot; POSIX (dlsym) makes
     * function and object pointers interconvertible, ISO C does not, so
     * copy the bits instead of casting */
    _Static_assert(sizeof(fn) == sizeof(fp), "function pointer size");
    memcpy(&fp, &fn, sizeof(fp));
    if (max < 3)
        return 0;
    items[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_CERT_CALLBACK, 0,
                                          fp };
    items[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_PRIORITIES, 0,
                                          t->priorities };
    if (t->client_ca)
        items[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_TRUST, 0,
                                              t->client_ca };
    return n;
}

void tls_bind_connection(struct tls *t, void **socket_context)
{
    *socket_context = t;
}

int tls_client_ok(struct tls *t, struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *ci;
    gnutls_session_t s;
    unsigned status = 0, n = 0;

    if (!t->client_ca)
        return 1;
    ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
    if (!ci || !ci->tls_session)
        return 0;
    s = (gnutls_session_t)ci->tls_session;
    if (!gnutls_certificate_get_peers(s, &n) || n == 0)
        return 0;
    if (gnutls_certificate_verify_peers2(s, &status) < 0 || status != 0)
        return 0;
    return 1;
}
