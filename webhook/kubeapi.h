/*
 * kubeapi.h - the one HTTP client of the Kubernetes API, shared by the
 * webhook's in-cluster watcher (cluster.c) and `audit` (audit.c): GET with
 * the credentials of a struct kubecreds (bearer token or token file, client
 * certificate, exec credential plugin; a CA file or PEM bytes, or no
 * verification), a list with limit/continue paging, a line-streamed GET for
 * watches, and failures worded for the user who meets them (unreachable
 * server, TLS, the token file). HTTP statuses are returned, not judged:
 * what a 403 or a 404 means depends on what the caller was doing.
 *
 * Where credentials come from (kubeconfig, the service account) is
 * kubeconfig.c's business; running exec plugins is execcred.c's.
 */
#ifndef CLAIMCHECK_WEBHOOK_KUBEAPI_H
#define CLAIMCHECK_WEBHOOK_KUBEAPI_H

#include <stddef.h>

#include "../validate/arena.h"

struct buf;
struct err;
struct execcred;
struct tnode;

/* Where requests go and who makes them. Every string lives in `arena`
 * (kubecreds_init, kubecreds_release); NULL = not set. */
struct kubecreds {
    struct arena arena;
    const char *server;         /* "https://host:port", no trailing '/' */
    const char *ca_file;        /* PEM file of the CA bundle */
    const char *ca_pem;         /* ... or its bytes (certificate-authority-
                                   data, decoded) */
    size_t ca_pem_len;
    int insecure;               /* insecure-skip-tls-verify */
    const char *tls_server_name;    /* name the certificate must carry */
    const char *token;          /* bearer token */
    const char *token_file;     /* re-read for every request (rotation) */
    const char *cert_file, *key_file;   /* client certificate and key */
    const char *cert_pem, *key_pem;     /* ... or their bytes */
    size_t cert_pem_len, key_pem_len;
    struct execcred *exec;      /* exec credential plugin (owned: freed by
                                   kubecreds_release) */
    const char *origin;         /* for messages: "context 'kind' of
                                   '/home/me/.kube/config'" */
};

void kubecreds_init(struct kubecreds *cr);
void kubecreds_release(struct kubecreds *cr);

/* Process-wide libcurl setup: once from main before any thread. */
int kubeapi_global_init(struct err *err);
void kubeapi_global_cleanup(void);

struct kubeapi;

/* A client with its own connection (one per thread); cr is borrowed and
 * must outlive it. Never NULL (aborts when libcurl cannot make a handle). */
struct kubeapi *kubeapi_new(const struct kubecreds *cr);
void kubeapi_free(struct kubeapi *k);
/* stop(cls) is polled during transfers; non-zero aborts them (-1,
 * "aborted"). */
void kubeapi_set_stop(struct kubeapi *k, int (*stop)(void *cls), void *cls);
const char *kubeapi_server(const struct kubeapi *k);
/* List pages this client has read (kubeapi_list), for tests of paging. */
size_t kubeapi_pages(const struct kubeapi *k);

/* GET path (after the server URL) into body (its max bounds the answer).
 * Returns the HTTP status, or -1 with err saying what failed (cannot
 * resolve or reach the server, TLS, credentials that cannot be read or
 * obtained). With an exec plugin, a 401 runs it again once. */
long kubeapi_get(struct kubeapi *k, const char *path, struct buf *body,
                 long timeout_s, struct err *err);

/* Any other request: method ("PATCH", "DELETE", ...), path, a body of
 * content_type (body NULL: none); the answer into `answer`. Returns the
 * HTTP status, or -1 with err (as kubeapi_get). */
long kubeapi_send(struct kubeapi *k, const char *method, const char *path,
                  const char *content_type, const char *body, size_t len,
                  struct buf *answer, long timeout_s, struct err *err);

/* GET path and hand every line of the answer to on_line as it arrives
 * (a watch); lines longer than line_max fail the transfer. Returns the
 * HTTP status, or -1 with err. */
long kubeapi_stream(struct kubeapi *k, const char *path, size_t line_max,
                    void (*on_line)(void *cls, const char *line, size_t len),
                    void *cls, long timeout_s, struct err *err);

/* Lists a collection (path without query) page by page: `limit` objects
 * per page (0: all at once), following metadata.continue. on_item gets
 * every item; its tree lives until the page is done. rv (may be NULL)
 * receives the list's resourceVersion. Returns 200 when every page was
 * read, another HTTP status as soon as a page fails (410: the continue
 * token expired; the body of that answer is in *fail_body when not NULL,
 * for the caller's message), or -1 with err. */
long kubeapi_list(struct kubeapi *k, const char *path, unsigned limit,
                  void (*on_item)(void *cls, const struct tnode *item),
                  void *cls, char *rv, size_t rvmax, struct buf *fail_body,
                  struct err *err);

#endif
