/*
 * kubeapi.c - the Kubernetes API client (see kubeapi.h) through libcurl,
 * the ONLY file including <curl/curl.h>: credentials onto a request
 * (token, token file, client certificate, exec plugin; CA file, CA bytes
 * or no verification), GET, line-streamed GET, paged lists, and libcurl's
 * failures turned into messages that say what to check. It keeps no
 * objects (cluster.c, audit.c do) and decides nothing about statuses.
 */
#include "kubeapi.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "../validate/buf.h"
#include "../validate/err.h"
#include "../validate/file.h"
#include "../validate/limits.h"
#include "../validate/load_json.h"
#include "../validate/tree.h"
#include "../validate/version.h"
#include "../validate/xalloc.h"
#include "execcred.h"

#define KUBEAPI_TOKEN_MAX (64 * 1024)
#define KUBEAPI_LIST_MAX (256u * 1024 * 1024)   /* one list page */
#define KUBEAPI_LIST_TIMEOUT 120                /* seconds per page */
#define KUBEAPI_CONNECT_TIMEOUT 10

struct kubeapi {
    const struct kubecreds *cr;
    CURL *curl;
    int (*stop)(void *cls);
    void *stop_cls;
    size_t pages;               /* list pages read */
    char errbuf[CURL_ERROR_SIZE];
};

void kubecreds_init(struct kubecreds *cr)
{
    memset(cr, 0, sizeof(*cr));
    arena_init(&cr->arena, ARENA_TINY_BYTES);
}

void kubecreds_release(struct kubecreds *cr)
{
    execcred_free(cr->exec);
    arena_release(&cr->arena);
    memset(cr, 0, sizeof(*cr));
}

int kubeapi_global_init(struct err *err)
{
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        return err_set(err, "cannot initialise libcurl");
    return 0;
}

void kubeapi_global_cleanup(void)
{
    curl_global_cleanup();
}

struct kubeapi *kubeapi_new(const struct kubecreds *cr)
{
    struct kubeapi *k = xcalloc(1, sizeof(*k));

    k->cr = cr;
    k->curl = curl_easy_init();
    if (!k->curl)
        abort();
    return k;
}

void kubeapi_free(struct kubeapi *k)
{
    if (!k)
        return;
    curl_easy_cleanup(k->curl);
    free(k);
}

void kubeapi_set_stop(struct kubeapi *k, int (*stop)(void *cls), void *cls)
{
    k->stop = stop;
    k->stop_cls = cls;
}

const char *kubeapi_server(const struct kubeapi *k)
{
    return k->cr->server;
}

size_t kubeapi_pages(const struct kubeapi *k)
{
    return k->pages;
}

/* ==== one request ======================================================= */

/* A token file (the service account's is rotated by the kubelet: read
 * every time), without trailing whitespace, into out[max]. */
static int read_token(const char *path, char *out, size_t max)
{
    struct err err;
    char *data;
    size_t n;

    if (file_read(path, max - 1, &data, &n, &err) < 0)
        return -1;
    while (n && (data[n - 1] == '\n' || data[n - 1] == '\r'
                 || data[n - 1] == ' '))
        n--;
    memcpy(out, data, n);
    out[n] = '\0';
    memset(data, 0, n);
    free(data);
    return n ? 0 : -1;
}

static int on_progress(void *cls, curl_off_t dt, curl_off_t dn,
                       curl_off_t ut, curl_off_t un)
{
    struct kubeapi *k = cls;

    (void)dt;
    (void)dn;
    (void)ut;
    (void)un;
    return k->stop && k->stop(k->stop_cls) ? 1 : 0;
}

struct sink {
    struct buf *body;
    void (*on_line)(void *cls, const char *line, size_t len);
    void *cls;
    const char *method;         /* NULL: GET */
    const char *content_type;   /* of send */
    const char *send;           /* request body, or NULL */
    size_t send_len;
};

static size_t on_data(char *p, size_t size, size_t nmemb, void *cls)
{
    struct sink *s = cls;
    size_t n = size * nmemb, i, start = 0;

    if (!s->on_line)
        return buf_add(s->body, p, n) < 0 ? 0 : n;
    for (i = 0; i < n; i++) {
        if (p[i] != '\n')
            continue;
        if (buf_add(s->body, p + start, i - start) < 0)
            return 0;
        if (s->body->len)
            s->on_line(s->cls, s->body->p, s->body->len);
        buf_reset(s->body);
        start = i + 1;
    }
    if (start < n && buf_add(s->body, p + start, n - start) < 0)
        return 0;
    return n;
}

static void blob(CURL *c, CURLoption opt, const char *p, size_t len)
{
    struct curl_blob b;

    b.data = (void *)(uintptr_t)p;
    b.len = len;
    b.flags = CURL_BLOB_COPY;
    curl_easy_setopt(c, opt, &b);
}

/* The failure of a transfer, in terms of what to check. */
static int transfer_err(struct kubeapi *k, CURLcode rc, const char *path,
                        struct err *err)
{
    const char *srv = k->cr->server;
    const char *why = k->errbuf[0] ? k->errbuf : curl_easy_strerror(rc);

    switch (rc) {
    case CURLE_COULDNT_RESOLVE_HOST:
        return err_set(err, "cannot resolve the host of '%s': %s", srv, why);
    case CURLE_COULDNT_CONNECT:
        return err_set(err, "cannot reach the apiserver at '%s': %s", srv,
                       why);
    case CURLE_OPERATION_TIMEDOUT:
        return err_set(err, "the apiserver at '%s' did not answer in time "
                       "(%s): %s", srv, path, why);
    case CURLE_PEER_FAILED_VERIFICATION:
        return err_set(err, "TLS: the certificate of '%s' is not trusted "
                       "(check certificate-authority and the server name): "
                       "%s", srv, why);
    case CURLE_SSL_CACERT_BADFILE:
        return err_set(err, "TLS: cannot use the CA certificate for '%s': %s",
                       srv, why);
    case CURLE_SSL_CERTPROBLEM:
        return err_set(err, "TLS: cannot use the client certificate for "
                       "'%s': %s", srv, why);
    case CURLE_SSL_CONNECT_ERROR:
        return err_set(err, "TLS handshake with '%s' failed: %s", srv, why);
    case CURLE_ABORTED_BY_CALLBACK:
        return err_set(err, "%s: aborted", path);
    case CURLE_WRITE_ERROR:
        return err_set(err, "%s: the answer is larger than allowed", path);
    default:
        return err_set(err, "%s%s: %s", srv, path, why);
    }
}

/* Credentials from the exec plugin or the token file, for one request. */
struct auth {
    struct execcred_out x;
    char token[KUBEAPI_TOKEN_MAX];
};

static int auth_get(const struct kubecreds *cr, struct auth *au,
                    struct err *err)
{
    memset(&au->x, 0, sizeof(au->x));
    au->token[0] = '\0';
    if (cr->exec && execcred_get(cr->exec, &au->x, err) < 0)
        return -1;
    if (cr->token_file && !cr->token && !au->x.token
        && read_token(cr->token_file, au->token, sizeof(au->token)) < 0)
        return err_set(err, "cannot read the token file '%s'",
                       cr->token_file);
    return 0;
}

static void auth_release(struct auth *au)
{
    execcred_out_release(&au->x);
    memset(au->token, 0, sizeof(au->token));
}

/* tls-server-name: the URL with that name instead of the server's host
 * into url, and "name:port:host:port" (curl's connect-to) into map.
 * -1 when the server URL cannot be split. */
static int server_name_url(const struct kubecreds *cr, const char *path,
                           char *url, size_t urlmax, char *map, size_t mapmax)
{
    const char *h = strstr(cr->server, "://"), *port, *end;
    const char *scheme = "https";
    size_t hl;

    if (!h)
        return -1;
    if (!strncmp(cr->server, "http://", 7))
        scheme = "http";
    h += 3;
    end = h + strcspn(h, "/");
    port = h[0] == '[' ? strchr(h, ']') : h;
    port = port ? memchr(port, ':', (size_t)(end - port)) : NULL;
    hl = (size_t)((port ? port : end) - h);
    snprintf(url, urlmax, "%s://%s:%.*s%s", scheme, cr->tls_server_name,
             port ? (int)(end - port - 1) : 3, port ? port + 1 : "443",
             path);
    snprintf(map, mapmax, "%s:%.*s:%.*s:%.*s", cr->tls_server_name,
             port ? (int)(end - port - 1) : 3, port ? port + 1 : "443",
             (int)hl, h, port ? (int)(end - port - 1) : 3,
             port ? port + 1 : "443");
    return 0;
}

static long perform(struct kubeapi *k, const char *path, struct sink *s,
                    long timeout_s, struct err *err)
{
    const struct kubecreds *cr = k->cr;
    struct curl_slist *h = NULL, *ct = NULL;
    struct auth au;
    char full[4096], hdr[KUBEAPI_TOKEN_MAX + 32], ua[64];
    const char *token;
    long status = -1;
    CURLcode rc;

    if (auth_get(cr, &au, err) < 0) {
        auth_release(&au);
        return -1;
    }
    token = au.x.token ? au.x.token : cr->token ? cr->token
            : au.token[0] ? au.token : NULL;
    snprintf(full, sizeof(full), "%s%s", cr->server, path);
    snprintf(ua, sizeof(ua), "claimcheck-webhook/%s", claimcheck_version);
    h = curl_slist_append(h, "Accept: application/json");
    if (s->send) {
        snprintf(hdr, sizeof(hdr), "Content-Type: %s", s->content_type);
        h = curl_slist_append(h, hdr);
    }
    if (token) {
        snprintf(hdr, sizeof(hdr), "Authorization: Bearer %s", token);
        h = curl_slist_append(h, hdr);
        memset(hdr, 0, sizeof(hdr));
    }
    curl_easy_reset(k->curl);
    k->errbuf[0] = '\0';
    curl_easy_setopt(k->curl, CURLOPT_ERRORBUFFER, k->errbuf);
    curl_easy_setopt(k->curl, CURLOPT_URL, full);
    curl_easy_setopt(k->curl, CURLOPT_USERAGENT, ua);   /* copied */
    curl_easy_setopt(k->curl, CURLOPT_HTTPHEADER, h);
    if (s->method)
        curl_easy_setopt(k->curl, CURLOPT_CUSTOMREQUEST, s->method);
    if (s->send) {
        curl_easy_setopt(k->curl, CURLOPT_POSTFIELDS, s->send);
        curl_easy_setopt(k->curl, CURLOPT_POSTFIELDSIZE_LARGE,
                         (curl_off_t)s->send_len);
    }
    if (cr->ca_pem)
        blob(k->curl, CURLOPT_CAINFO_BLOB, cr->ca_pem, cr->ca_pem_len);
    else if (cr->ca_file)
        curl_easy_setopt(k->curl, CURLOPT_CAINFO, cr->ca_file);
    if (cr->insecure) {
        curl_easy_setopt(k->curl, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(k->curl, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    if (au.x.cert_pem) {
        blob(k->curl, CURLOPT_SSLCERT_BLOB, au.x.cert_pem, au.x.cert_len);
        blob(k->curl, CURLOPT_SSLKEY_BLOB, au.x.key_pem, au.x.key_len);
    } else if (cr->cert_pem) {
        blob(k->curl, CURLOPT_SSLCERT_BLOB, cr->cert_pem, cr->cert_pem_len);
        blob(k->curl, CURLOPT_SSLKEY_BLOB, cr->key_pem, cr->key_pem_len);
    } else if (cr->cert_file) {
        curl_easy_setopt(k->curl, CURLOPT_SSLCERT, cr->cert_file);
        curl_easy_setopt(k->curl, CURLOPT_SSLKEY, cr->key_file);
    }
    if (cr->tls_server_name && server_name_url(cr, path, full, sizeof(full),
                                               hdr, sizeof(hdr)) == 0) {
        /* the name in the URL (SNI, verification), the connection to the
         * server's address: curl's --connect-to */
        ct = curl_slist_append(NULL, hdr);
        curl_easy_setopt(k->curl, CURLOPT_URL, full);
        curl_easy_setopt(k->curl, CURLOPT_CONNECT_TO, ct);
    }
    curl_easy_setopt(k->curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(k->curl, CURLOPT_CONNECTTIMEOUT,
                     (long)KUBEAPI_CONNECT_TIMEOUT);
    curl_easy_setopt(k->curl, CURLOPT_TIMEOUT, timeout_s);
    curl_easy_setopt(k->curl, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(k->curl, CURLOPT_WRITEDATA, s);
    curl_easy_setopt(k->curl, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(k->curl, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(k->curl, CURLOPT_XFERINFODATA, k);
    curl_easy_setopt(k->curl, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(k->curl, CURLOPT_PROTOCOLS_STR, "https,http");
    rc = curl_easy_perform(k->curl);
    curl_easy_getinfo(k->curl, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(h);
    curl_slist_free_all(ct);
    auth_release(&au);
    /* the blobs were copied; the token header was wiped */
    curl_easy_setopt(k->curl, CURLOPT_HTTPHEADER, NULL);
    if (rc != CURLE_OK)
        return transfer_err(k, rc, path, err);
    return status;
}

/* One request; with an exec plugin, a 401 runs the plugin again once
 * (the credential may have been revoked before its expiry). */
static long request(struct kubeapi *k, const char *path, struct sink *s,
                    long timeout_s, struct err *err)
{
    long status = perform(k, path, s, timeout_s, err);

    if (status == 401 && k->cr->exec) {
        execcred_expire(k->cr->exec);
        buf_reset(s->body);
        status = perform(k, path, s, timeout_s, err);
    }
    return status;
}

long kubeapi_get(struct kubeapi *k, const char *path, struct buf *body,
                 long timeout_s, struct err *err)
{
    struct sink s;

    memset(&s, 0, sizeof(s));
    s.body = body;
    return request(k, path, &s, timeout_s, err);
}

long kubeapi_send(struct kubeapi *k, const char *method, const char *path,
                  const char *content_type, const char *body, size_t len,
                  struct buf *answer, long timeout_s, struct err *err)
{
    struct sink s;

    memset(&s, 0, sizeof(s));
    s.body = answer;
    s.method = method;
    s.content_type = content_type;
    s.send = body;
    s.send_len = len;
    return request(k, path, &s, timeout_s, err);
}

long kubeapi_stream(struct kubeapi *k, const char *path, size_t line_max,
                    void (*on_line)(void *cls, const char *line, size_t len),
                    void *cls, long timeout_s, struct err *err)
{
    struct buf line;
    struct sink s;
    long status;

    buf_init(&line, line_max);
    memset(&s, 0, sizeof(s));
    s.body = &line;
    s.on_line = on_line;
    s.cls = cls;
    status = request(k, path, &s, timeout_s, err);
    buf_release(&line);
    return status;
}

/* ==== paged lists ======================================================= */

long kubeapi_list(struct kubeapi *k, const char *path, unsigned limit,
                  void (*on_item)(void *cls, const struct tnode *item),
                  void *cls, char *rv, size_t rvmax, struct buf *fail_body,
                  struct err *err)
{
    char url[2048], cont[1024] = "";
    long status;

    if (rv && rvmax)
        rv[0] = '\0';
    for (;;) {
        struct buf body;
        struct arena a;
        struct tnode *t;
        const struct tnode *items, *md;
        const char *next, *v;
        size_t i;
        int n;

        if (cont[0]) {
            char *esc = curl_easy_escape(k->curl, cont, 0);
            n = snprintf(url, sizeof(url), "%s?limit=%u&continue=%s", path,
                         limit, esc ? esc : "");
            curl_free(esc);
        } else if (limit) {
            n = snprintf(url, sizeof(url), "%s?limit=%u", path, limit);
        } else {
            n = snprintf(url, sizeof(url), "%s", path);
        }
        if (n < 0 || (size_t)n >= sizeof(url))
            return err_set(err, "list %s: the continue token is too long",
                           path);
        buf_init(&body, KUBEAPI_LIST_MAX);
        status = kubeapi_get(k, url, &body, KUBEAPI_LIST_TIMEOUT, err);
        if (status != 200) {
            if (status > 0 && fail_body)
                buf_add(fail_body, body.p ? body.p : "", body.len);
            buf_release(&body);
            return status;
        }
        arena_init(&a, ARENA_CHUNK_BYTES);
        if (load_json(&a, body.p, body.len, &t, err) < 0) {
            buf_release(&body);
            arena_release(&a);
            return -1;
        }
        buf_release(&body);
        k->pages++;
        items = tree_get(t, "items");
        md = tree_get(t, "metadata");
        v = tree_str(tree_get(md, "resourceVersion"));
        if (rv && rvmax)
            snprintf(rv, rvmax, "%s", v ? v : "");
        next = tree_str(tree_get(md, "continue"));
        snprintf(cont, sizeof(cont), "%s", next ? next : "");
        for (i = 0; tree_is_seq(items) && i < items->n; i++)
            on_item(cls, items->kids[i]);
        arena_release(&a);
        if (!cont[0])
            return 200;
        if (k->stop && k->stop(k->stop_cls))
            return err_set(err, "list %s: aborted", path);
    }
}
