/*
 * server.h - the HTTPS server: libmicrohttpd daemon, routes, limits,
 * readiness and graceful shutdown. Owns struct server (opaque).
 *
 * Routes (path only; the apiserver's ?timeout=10s is ignored):
 *   POST /validate   AdmissionReview (admission.c)
 *   GET  /healthz    200 while the process serves
 *   GET  /readyz     200 once ready (cert loaded; inventory synced when
 *                    required), 503 from the moment draining starts
 *   GET  /metrics    Prometheus text
 * Anything else: 404 or 405 with a JSON error body.
 */
#ifndef CLAIMCHECK_WEBHOOK_SERVER_H
#define CLAIMCHECK_WEBHOOK_SERVER_H

#include <stddef.h>

struct admission_cfg;
struct err;
struct invstore;
struct metrics;
struct server;
struct tls;

struct server_opts {
    const char *listen;         /* "ADDR:PORT", "[v6]:PORT"; port 0 = any */
    unsigned threads;           /* worker pool size */
    unsigned costly_threads;    /* the pool of costly reviews (costly.h);
                                   0: judged by the workers */
    unsigned max_connections;
    unsigned conn_timeout;      /* seconds of inactivity before closing */
    size_t max_body;            /* larger bodies get 413 */
    size_t memory_budget;       /* bodies + arenas (membudget.h); 0 none */
    int (*ready_fn)(void *cls); /* extra readiness (inventory sync), NULL */
    void *ready_cls;
};

/* All pointers must outlive the server. */
struct server *server_new(const struct server_opts *o, struct tls *tls,
                          const struct admission_cfg *adm,
                          struct invstore *inv, struct metrics *m,
                          struct err *err);
/* Binds and starts the worker threads; logs the bound address. */
int server_start(struct server *s, struct err *err);
unsigned server_port(struct server *s);
/* Starts draining: /readyz answers 503 and every response closes its
 * connection. New connections are still accepted (the endpoint removal
 * takes a moment to reach the apiserver), until server_quiesce(). */
void server_drain(struct server *s);
/* Stops accepting connections (MHD_quiesce_daemon); connections waiting
 * in the listen backlog are reset, new ones refused. */
void server_quiesce(struct server *s);
/* Open client connections (TLS handshake included). */
size_t server_connections(struct server *s);
/* Requests received but not completed yet. */
size_t server_in_flight(struct server *s);
/* Housekeeping the owner calls about every 100 ms: writes the batched
 * request log lines. */
void server_tick(struct server *s);
/* Stops the daemon (closes every connection) and frees s. */
void server_free(struct server *s);

#endif
