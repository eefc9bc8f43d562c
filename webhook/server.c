/*
 * server.c - libmicrohttpd daemon (epoll + fixed thread pool, TLS through
 * tls.c), routing, body accumulation with the size cap, timeouts and
 * connection limits, readiness and draining. The only file besides tls.c
 * including <microhttpd.h>. What a request means is admission.c's job.
 */
#include "server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <microhttpd.h>

#include "../validate/clock.h"
#include "../validate/arena.h"
#include "../validate/buf.h"
#include "../validate/err.h"
#include "../validate/limits.h"
#include "../validate/xalloc.h"
#include "admission.h"
#include "costly.h"
#include "invstore.h"
#include "log.h"
#include "membudget.h"
#include "metrics.h"
#include "tls.h"

#define SERVER_CONN_MEMORY (32 * 1024)  /* headers + read buffer; MHD
                                          zeroes it per request */
#define SERVER_METRICS_MAX (1024 * 1024)
#define SERVER_SMALL_MAX (4096)
#define SERVER_ARENA_CHUNK (64 * 1024)
#define SERVER_POOL_MAX 64          /* idle request structs kept */
#define SERVER_POOL_BODY (64 * 1024) /* ... with a body buffer up to this */

struct route;

struct server {
    struct server_opts o;
    struct tls *tls;
    const struct admission_cfg *adm;
    struct invstore *inv;
    struct metrics *metrics;
    struct MHD_Daemon *d;
    struct sockaddr_storage addr;
    int ipv6;
    unsigned port;
    int listen_fd;              /* returned by MHD_quiesce_daemon */
    atomic_int draining;
    atomic_size_t in_flight;
    atomic_size_t connections;  /* open client connections */
    struct log_batch *log;      /* request lines, flushed by server_tick */
    struct membudget mem;       /* bodies and arenas, --memory-budget */
    /* idle requests, reused with their arena's first chunk and body
     * buffer: no malloc per request in the steady state */
    pthread_mutex_t pool_mu;
    struct request *pool;
    unsigned npool;
    struct costly_pool *costly; /* --costly-threads; NULL: none */
};

/* Where a review estimated costly is (costly.h). */
enum { COSTLY_NO, COSTLY_QUEUED, COSTLY_DONE };

struct request {
    struct request *next;       /* in the server's pool of idle requests */
    struct arena arena;
    struct buf body;
    const struct route *route;  /* NULL: no such path (404) */
    int too_big;                /* body passed max_body: 413 at the end */
    int over_budget;            /* body refused by the memory budget: 429 */
    size_t charged;             /* body bytes charged to the budget */
    int answered;               /* a response was queued early */
    int large;                  /* it held MEMBUDGET_TRIM_BYTES or more */
    double t0;
    uint64_t arrived_ns;        /* clock_mono_ns() when it arrived */
    /* a costly review, judged by the costly pool while its connection is
     * suspended (costly_run) */
    struct costly_job job;
    int costly;                 /* COSTLY_* */
    struct MHD_Connection *conn;
    struct invref *ref;         /* the snapshot it is judged against */
    struct admission_cfg adm;
    struct admission_out out;
    struct buf resp;
};


/* ---- the request pool ------------------------------------------------ */

static struct request *request_get(struct server *s)
{
    struct request *rq;

    pthread_mutex_lock(&s->pool_mu);
    rq = s->pool;
    if (rq) {
        s->pool = rq->next;
        s->npool--;
    }
    pthread_mutex_unlock(&s->pool_mu);
    if (!rq) {
        rq = xcalloc(1, sizeof(*rq));
        arena_init(&rq->arena, SERVER_ARENA_CHUNK);
        arena_meter(&rq->arena, &s->mem.used);
        buf_init(&rq->body, s->o.max_body);
    }
    rq->next = NULL;
    rq->route = NULL;
    rq->too_big = 0;
    rq->over_budget = 0;
    rq->charged = 0;
    rq->answered = 0;
    rq->costly = COSTLY_NO;
    rq->t0 = clock_mono_s();
    return rq;
}

/* Gives back the body's charge to the memory budget. */
static void request_uncharge(struct server *s, struct request *rq)
{
    membudget_give(&s->mem, rq->charged);
    rq->charged = 0;
}

/* Empties rq's body and arena (the arena keeps its first chunk, a small
 * body buffer is kept) and gives back their charge, as soon as its answer
 * is queued: libmicrohttpd completes the request only once the answer is
 * sent, and a worker may validate others first. After a large request,
 * free memory goes back to the system. */
static void request_shed(struct server *s, struct request *rq)
{
    size_t held = rq->arena.total + rq->body.cap;

    request_uncharge(s, rq);
    arena_clear(&rq->arena);
    if (rq->too_big || rq->over_budget || rq->body.cap > SERVER_POOL_BODY) {
        buf_release(&rq->body);
        buf_init(&rq->body, s->o.max_body);
    } else {
        buf_reset(&rq->body);
    }
    if (membudget_after(&s->mem, held))
        rq->large = 1;
}

/* Empties rq and pools it, or frees it when the pool is full; 1 when it
 * held a large request (membudget_after()). */
static int request_put(struct server *s, struct request *rq)
{
    int large;

    request_shed(s, rq);
    large = rq->large;
    rq->large = 0;
    pthread_mutex_lock(&s->pool_mu);
    if (s->npool < SERVER_POOL_MAX) {
        rq->next = s->pool;
        s->pool = rq;
        s->npool++;
        rq = NULL;
    }
    pthread_mutex_unlock(&s->pool_mu);
    if (rq) {
        arena_release(&rq->arena);
        buf_release(&rq->body);
        free(rq);
    }
    return large;
}

/* ---- responses ------------------------------------------------------- */

/* An extra response header: Allow on a 405, Retry-After on a 429. */
struct header {
    const char *name, *value;
};

static enum MHD_Result reply(struct server *s, struct MHD_Connection *c,
                             unsigned status, const char *ctype,
                             char *body, size_t len, const struct header *h)
{
    struct MHD_Response *r;
    enum MHD_Result ret;

    r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_COPY);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
    if (h)
        MHD_add_response_header(r, h->name, h->value);
    /* while draining, close keep-alive connections after this response */
    if (atomic_load(&s->draining))
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
    ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    metrics_http(s->metrics, (int)status);
    return ret;
}

/* When the request arrived, queue time included: a worker reads its
 * connections only between validations, so a request may have waited in
 * the socket for as long as the one before took. The kernel knows when
 * the connection last received data (TCP_INFO tcpi_last_data_recv, in
 * ms): at the first call, the headers have just been read, so that is
 * when the latest of the request's bytes (so far) came, never before the
 * request itself (the answer to the request before was sent since). Time
 * in the listen backlog before the TLS handshake is not seen: the
 * apiserver keeps its connections. Without TCP_INFO: now. */
static uint64_t arrival_ns(struct MHD_Connection *c)
{
    uint64_t now = clock_mono_ns();
#ifdef TCP_INFO
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    struct tcp_info ti;
    socklen_t len = sizeof(ti);
    uint64_t ago;

    if (!ci || getsockopt(ci->connect_fd, IPPROTO_TCP, TCP_INFO, &ti, &len)
        || len < offsetof(struct tcp_info, tcpi_last_data_recv)
                 + sizeof(ti.tcpi_last_data_recv))
        return now;
    ago = (uint64_t)ti.tcpi_last_data_recv * 1000000u;
    return ago < now ? now - ago : now;
#else
    (void)c;
    return now;
#endif
}

static enum MHD_Result reply_error(struct server *s, struct MHD_Connection *c,
                                   struct request *rq, unsigned status,
                                   const char *msg, const struct header *h)
{
    struct buf b;
    enum MHD_Result ret;

    buf_init(&b, SERVER_SMALL_MAX);
    buf_addf(&b, "{\"error\":{\"code\":%u,\"message\":", status);
    buf_add_json_str(&b, msg);
    buf_adds(&b, "}}");
    ret = reply(s, c, status, "application/json", b.p, b.len, h);
    buf_release(&b);
    rq->answered = 1;
    return ret;
}

static enum MHD_Result reply_text(struct server *s, struct MHD_Connection *c,
                                  struct request *rq, unsigned status,
                                  const char *json)
{
    struct buf b;
    enum MHD_Result ret;

    buf_init(&b, SERVER_SMALL_MAX);
    buf_adds(&b, json);
    ret = reply(s, c, status, "application/json", b.p, b.len, NULL);
    buf_release(&b);
    rq->answered = 1;
    return ret;
}

/* ---- routes ---------------------------------------------------------- */

static enum MHD_Result serve_healthz(struct server *s,
                                     struct MHD_Connection *c,
                                     struct request *rq)
{
    return reply_text(s, c, rq, 200, "{\"status\":\"ok\"}");
}

/* Ready. An inventory load refused (invstore.h) leaves it ready: the last
 * good snapshot still answers correctly, and every replica reads the same
 * mounted file, so a 503 would take them all out of service at once (no
 * checking with failurePolicy Ignore, no Pod created with Fail); the body
 * names the refusal instead, and so do the log and the metric. */
static enum MHD_Result serve_ready(struct server *s, struct MHD_Connection *c,
                                   struct request *rq)
{
    char why[256], msg[320];
    struct buf b;
    enum MHD_Result ret;

    if (!s->inv || !invstore_refusal(s->inv, why, sizeof(why)))
        return reply_text(s, c, rq, 200, "{\"status\":\"ok\"}");
    snprintf(msg, sizeof(msg), "refused, the previous snapshot serves: %s",
             why);
    buf_init(&b, SERVER_SMALL_MAX);
    buf_adds(&b, "{\"status\":\"ok\",\"inventory\":");
    buf_add_json_str(&b, msg);
    buf_adds(&b, "}");
    ret = reply_text(s, c, rq, 200, b.p);
    buf_release(&b);
    return ret;
}

static enum MHD_Result serve_readyz(struct server *s, struct MHD_Connection *c,
                                    struct request *rq)
{
    if (atomic_load(&s->draining))
        return reply_text(s, c, rq, 503, "{\"status\":\"draining\"}");
    if (s->o.ready_fn && !s->o.ready_fn(s->o.ready_cls))
        return reply_text(s, c, rq, 503,
                          "{\"status\":\"waiting for inventory sync\"}");
    return serve_ready(s, c, rq);
}

static enum MHD_Result serve_metrics(struct server *s,
                                     struct MHD_Connection *c,
                                     struct request *rq)
{
    struct buf b;
    enum MHD_Result ret;

    buf_init(&b, SERVER_METRICS_MAX);
    metrics_render(s->metrics, &b);
    buf_addf(&b, "# HELP claimcheck_in_flight_requests requests being "
             "served\n# TYPE claimcheck_in_flight_requests gauge\n"
             "claimcheck_in_flight_requests %zu\n",
             atomic_load(&s->in_flight));
    buf_addf(&b, "# HELP claimcheck_memory_budget_bytes --memory-budget "
             "(0: none)\n# TYPE claimcheck_memory_budget_bytes gauge\n"
             "claimcheck_memory_budget_bytes %zu\n"
             "# HELP claimcheck_memory_used_bytes request bodies and "
             "arenas held now\n# TYPE claimcheck_memory_used_bytes gauge\n"
             "claimcheck_memory_used_bytes %zu\n", s->mem.limit,
             membudget_used(&s->mem));
    buf_addf(&b, "# HELP claimcheck_ready 1 when /readyz answers 200\n"
             "# TYPE claimcheck_ready gauge\nclaimcheck_ready %d\n",
             !atomic_load(&s->draining)
             && (!s->o.ready_fn || s->o.ready_fn(s->o.ready_cls)));
    ret = reply(s, c, 200, "text/plain; version=0.0.4; charset=utf-8", b.p,
                b.len, NULL);
    buf_release(&b);
    rq->answered = 1;
    return ret;
}

/* The answer of a review, judged here or by the costly pool. */
static enum MHD_Result validate_reply(struct server *s,
                                      struct MHD_Connection *c,
                                      struct request *rq)
{
    struct admission_out out = rq->out;
    struct buf resp = rq->resp;
    struct log_req lr;
    enum MHD_Result ret;
    double secs;

    ret = reply(s, c, (unsigned)out.status, "application/json", resp.p,
                resp.len, NULL);
    rq->answered = 1;
    secs = clock_mono_s() - rq->t0;
    metrics_request(s->metrics, out.rv.rkind, out.rv.operation, out.decision,
                    secs);
    memset(&lr, 0, sizeof(lr));
    lr.uid = out.rv.uid;
    lr.kind = out.rv.rkind;
    lr.ns = out.rv.ns;
    lr.name = out.rv.name;
    lr.operation = out.rv.operation;
    lr.decision = out.decision;
    lr.rules = out.rules;
    lr.error = out.error;
    lr.status = out.status;
    lr.latency_ms = secs * 1e3;
    lr.metered = out.metered;
    lr.cel_cost = out.cel_cost;
    lr.alloc_steps = out.alloc_steps;
    log_request(s->log, &lr);
    buf_release(&rq->resp);
    request_shed(s, rq);        /* the answer is a copy: done with both */
    return ret;
}

/* On a thread of the costly pool: judges the review, then hands the
 * connection back to its worker, which calls serve_validate() again. */
static void costly_run(struct costly_job *j)
{
    struct request *rq = (struct request *)(void *)
        ((char *)j - offsetof(struct request, job));

    admission_judge(&rq->adm, invref_inventory(rq->ref), &rq->arena,
                    rq->arrived_ns, &rq->resp, &rq->out);
    invref_release(rq->ref);
    rq->ref = NULL;
    rq->costly = COSTLY_DONE;
    MHD_resume_connection(rq->conn);
}

/* A review: parsed here; its rules run here too unless its selectors are
 * estimated costly (costly.h): then the connection is suspended and the
 * costly pool judges it, so that this worker goes on serving the others. */
static enum MHD_Result serve_validate(struct server *s,
                                      struct MHD_Connection *c,
                                      struct request *rq)
{
    struct invref *ref;

    if (rq->costly == COSTLY_DONE)
        return validate_reply(s, c, rq);
    buf_init(&rq->resp, LIMIT_BODY_BYTES);
    ref = invstore_acquire(s->inv);
    rq->adm = *s->adm;
    if (invref_engine(ref))     /* the snapshot's engine (invstore.h) */
        rq->adm.engine = invref_engine(ref);
    if (admission_begin(&rq->adm, &rq->arena, rq->body.p, rq->body.len,
                        rq->arrived_ns, &rq->resp, &rq->out)) {
        if (s->costly && costly_review(rq->out.rv.object)) {
            rq->costly = COSTLY_QUEUED;
            rq->conn = c;
            rq->ref = ref;
            rq->job.run = costly_run;
            MHD_suspend_connection(c);
            costly_pool_submit(s->costly, &rq->job);
            return MHD_YES;
        }
        admission_judge(&rq->adm, invref_inventory(ref), &rq->arena,
                        rq->arrived_ns, &rq->resp, &rq->out);
    }
    invref_release(ref);
    return validate_reply(s, c, rq);
}

/* The endpoints: adding one is a row here and its serve function. */
static const struct route {
    const char *method;         /* "POST", or "GET" (HEAD too) */
    const char *path;           /* exact, the query string ignored */
    const char *allow;          /* the Allow header of a 405 */
    int body;                   /* reads a body, capped by --max-body, and
                                   wants the client certificate when
                                   --client-ca is set */
    enum MHD_Result (*serve)(struct server *s, struct MHD_Connection *c,
                             struct request *rq);
} routes[] = {
    { "POST", "/validate", "POST", 1, serve_validate },
    { "GET", "/healthz", "GET, HEAD", 0, serve_healthz },
    { "GET", "/readyz", "GET, HEAD", 0, serve_readyz },
    { "GET", "/metrics", "GET, HEAD", 0, serve_metrics },
};
#define NROUTES (sizeof(routes) / sizeof(routes[0]))

static const struct route *route_of(const char *url)
{
    size_t n = strcspn(url, "?"), i;

    for (i = 0; i < NROUTES; i++)
        if (strlen(routes[i].path) == n && !memcmp(url, routes[i].path, n))
            return &routes[i];
    return NULL;
}

static int method_ok(const struct route *r, const char *method)
{
    return !strcmp(method, r->method)
           || (!strcmp(r->method, "GET") && !strcmp(method, "HEAD"));
}

static enum MHD_Result not_found(struct server *s, struct MHD_Connection *c,
                                 struct request *rq)
{
    struct buf b;
    enum MHD_Result ret;
    size_t i;

    buf_init(&b, SERVER_SMALL_MAX);
    buf_adds(&b, "not found; the webhook serves ");
    for (i = 0; i < NROUTES; i++)
        buf_addf(&b, "%s%s", i == 0 ? "" : i + 1 < NROUTES ? ", " : " and ",
                 routes[i].path);
    ret = reply_error(s, c, rq, 404, b.p, NULL);
    buf_release(&b);
    return ret;
}

/* The memory budget is in use: 429, Retry-After, counted. */
static enum MHD_Result refuse_busy(struct server *s, struct MHD_Connection *c,
                                   struct request *rq)
{
    static const struct header retry = { MHD_HTTP_HEADER_RETRY_AFTER, "1" };
    char msg[160];

    metrics_memory_refused(s->metrics);
    metrics_request(s->metrics, NULL, NULL, "error", clock_mono_s() - rq->t0);
    log_msg(LOG_WARN, "refused a request body: the memory budget is in use "
            "(%zu of %zu bytes)", membudget_used(&s->mem), s->mem.limit);
    snprintf(msg, sizeof(msg), "the server's memory budget (--memory-budget "
             "%zu bytes) is in use by other requests; retry in 1 s",
             s->mem.limit);
    return reply_error(s, c, rq, 429, msg, &retry);
}

/* Charges the body's growth to the memory budget (a chunked body, or a
 * buffer from the pool): 0, or -1 when it does not fit (the body is then
 * dropped and its charge given back). */
static int charge_body(struct server *s, struct request *rq)
{
    if (rq->body.cap <= rq->charged)
        return 0;
    if (membudget_take(&s->mem, rq->body.cap - rq->charged) == 0) {
        rq->charged = rq->body.cap;
        return 0;
    }
    rq->over_budget = 1;
    buf_release(&rq->body);
    request_uncharge(s, rq);
    return -1;
}

/* A body may not be larger than --max-body: checked on Content-Length
 * here, and while reading (a chunked body has none). A body of known
 * length is charged to the memory budget now, and its buffer allocated
 * once. One that does not fit is read and dropped, then answered 429:
 * answering before the body is read closes the connection, and a client
 * still writing its body would see a reset instead of the answer. */
static enum MHD_Result check_length(struct server *s, struct MHD_Connection *c,
                                    struct request *rq)
{
    const char *cl = MHD_lookup_connection_value(
        c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    char *end;
    unsigned long long n;

    if (!cl)
        return MHD_YES;
    errno = 0;
    n = strtoull(cl, &end, 10);
    if (!errno && !*end && n <= s->o.max_body) {
        if (membudget_take(&s->mem, (size_t)n + 1) < 0) {
            rq->over_budget = 1;
            return MHD_YES;
        }
        rq->charged = (size_t)n + 1;
        if (buf_presize(&rq->body, (size_t)n) == 0
            && rq->body.cap > rq->charged)
            charge_body(s, rq);         /* a pooled buffer: already held */
        return MHD_YES;
    }
    metrics_request(s->metrics, NULL, NULL, "error", clock_mono_s() - rq->t0);
    log_msg(LOG_WARN, "refused a request body of %s bytes (--max-body %zu)",
            cl, s->o.max_body);
    return reply_error(s, c, rq, 413, "request body is larger than "
                       "--max-body", NULL);
}

/* Framing the server does not guess at (RFC 9112 6.1, 6.3): two different
 * Content-Length values are a 400 (libmicrohttpd takes the first one), a
 * Transfer-Encoding other than "chunked" a 501 (libmicrohttpd cannot
 * delimit that body and waited for it until the idle timeout). */
struct framing {
    const char *length;         /* the first Content-Length */
    int lengths_differ;
    int unknown_coding;
};

static enum MHD_Result framing_header(void *cls, enum MHD_ValueKind kind,
                                      const char *key, const char *value)
{
    struct framing *f = cls;

    (void)kind;
    if (!strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH)) {
        if (f->length && strcmp(f->length, value))
            f->lengths_differ = 1;
        if (!f->length)
            f->length = value;
    } else if (!strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING)
               && strcasecmp(value, "chunked")) {
        f->unknown_coding = 1;
    }
    return MHD_YES;
}

/* 0 when the framing is one the server reads, else the status to answer
 * with and *msg */
static unsigned check_framing(struct MHD_Connection *c, const char **msg)
{
    struct framing f = {0};

    MHD_get_connection_values(c, MHD_HEADER_KIND, framing_header, &f);
    if (f.unknown_coding) {
        *msg = "only the chunked Transfer-Encoding is implemented";
        return 501;
    }
    if (f.lengths_differ) {
        *msg = "conflicting Content-Length headers";
        return 400;
    }
    return 0;
}

/* First call of a request: route, method, early limits. An answer queued
 * here makes libmicrohttpd close the connection (it has not read the
 * body), which is right for errors; normal answers wait for the last call
 * so keep-alive is kept. */
static enum MHD_Result on_first(struct server *s, struct MHD_Connection *c,
                                struct request *rq, const char *method)
{
    const struct route *r = rq->route;
    const char *why;
    unsigned bad = check_framing(c, &why);
    char msg[64];

    if (bad)
        return reply_error(s, c, rq, bad, why, NULL);
    if (!r)
        return not_found(s, c, rq);
    if (!method_ok(r, method)) {
        struct header allow = { MHD_HTTP_HEADER_ALLOW, r->allow };
        snprintf(msg, sizeof(msg), "use %s for %s", r->method, r->path);
        return reply_error(s, c, rq, 405, msg, &allow);
    }
    if (!r->body)
        return MHD_YES;
    if (!tls_client_ok(s->tls, c))
        return reply_error(s, c, rq, 403, "client certificate missing or "
                           "not trusted", NULL);
    return check_length(s, c, rq);
}

static enum MHD_Result on_access(void *cls, struct MHD_Connection *c,
                                 const char *url, const char *method,
                                 const char *version, const char *upload,
                                 size_t *upload_size, void **req_cls)
{
    struct server *s = cls;
    struct request *rq = *req_cls;

    (void)version;
    if (!rq) {
        rq = request_get(s);
        if (!rq)
            return MHD_NO;
        rq->route = route_of(url);
        rq->arrived_ns = arrival_ns(c);
        *req_cls = rq;
        atomic_fetch_add(&s->in_flight, 1);
        return on_first(s, c, rq, method);
    }
    if (*upload_size) {
        /* chunked bodies have no Content-Length: cap while reading; other
         * routes ignore a body */
        if (!rq->answered && !rq->too_big && !rq->over_budget && rq->route
            && rq->route->body) {
            if (buf_add(&rq->body, upload, *upload_size) < 0) {
                rq->too_big = 1;
                buf_release(&rq->body);
                request_uncharge(s, rq);
            } else {
                charge_body(s, rq);
            }
        }
        *upload_size = 0;
        return MHD_YES;
    }
    if (rq->answered)
        return MHD_YES;
    if (!rq->route)
        return MHD_NO;
    if (rq->too_big)
        return reply_error(s, c, rq, 413, "request body is larger than "
                           "--max-body", NULL);
    if (rq->over_budget)
        return refuse_busy(s, c, rq);
    return rq->route->serve(s, c, rq);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **req_cls,
                         enum MHD_RequestTerminationCode toe)
{
    struct server *s = cls;
    struct request *rq = *req_cls;
    int large;

    (void)c;
    (void)toe;
    if (!rq)
        return;
    large = request_put(s, rq);
    *req_cls = NULL;
    atomic_fetch_sub(&s->in_flight, 1);
    if (large)      /* (this thread read it: its malloc arena) */
        membudget_thread_trim();
}

static void on_connection(void *cls, struct MHD_Connection *c,
                          void **socket_context,
                          enum MHD_ConnectionNotificationCode toe)
{
    struct server *s = cls;

    (void)c;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        atomic_fetch_add(&s->connections, 1);
        tls_bind_connection(s->tls, socket_context);
    } else if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
        atomic_fetch_sub(&s->connections, 1);
        membudget_closed(&s->mem);
    }
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    log_vmsg(LOG_WARN, fmt, ap);
}

/* ---- lifecycle ------------------------------------------------------- */

static int parse_listen(struct server *s, const char *spec, struct err *err)
{
    char host[256];
    const char *colon = strrchr(spec, ':');
    struct addrinfo hints, *res = NULL;
    char *end;
    long port;
    size_t hl;

    if (!colon)
        return err_set(err, "--listen '%s' is not ADDR:PORT", spec);
    errno = 0;
    port = strtol(colon + 1, &end, 10);
    if (errno || *end || end == colon + 1 || port < 0 || port > 65535)
        return err_set(err, "--listen '%s' has a bad port", spec);
    hl = (size_t)(colon - spec);
    if (hl >= 2 && spec[0] == '[' && spec[hl - 1] == ']') {
        spec++;
        hl -= 2;
    }
    if (hl == 0 || hl >= sizeof(host))
        return err_set(err, "--listen '%s' has a bad address", spec);
    memcpy(host, spec, hl);
    host[hl] = '\0';
    memset(&hints, 0, sizeof(hints));
    hints.ai_flags = AI_NUMERICHOST | AI_PASSIVE;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host, NULL, &hints, &res) != 0 || !res)
        return err_set(err, "--listen address '%s' is not a numeric IP",
                       host);
    memcpy(&s->addr, res->ai_addr, res->ai_addrlen);
    s->ipv6 = res->ai_family == AF_INET6;
    if (s->ipv6)
        ((struct sockaddr_in6 *)&s->addr)->sin6_port = htons((uint16_t)port);
    else
        ((struct sockaddr_in *)&s->addr)->sin_port = htons((uint16_t)port);
    s->port = (unsigned)port;
    freeaddrinfo(res);
    return 0;
}

struct server *server_new(const struct server_opts *o, struct tls *tls,
                          const struct admission_cfg *adm,
                          struct invstore *inv, struct metrics *m,
                          struct err *err)
{
    struct server *s = xcalloc(1, sizeof(*s));

    s->o = *o;
    if (!s->o.threads)
        s->o.threads = 2;
    if (!s->o.max_body)
        s->o.max_body = LIMIT_BODY_BYTES;
    if (!s->o.max_connections)
        s->o.max_connections = 1024;
    if (!s->o.conn_timeout)
        s->o.conn_timeout = 30;
    s->tls = tls;
    s->adm = adm;
    s->inv = inv;
    s->metrics = m;
    s->listen_fd = -1;
    s->log = log_batch_new();
    membudget_init(&s->mem, s->o.memory_budget);
    pthread_mutex_init(&s->pool_mu, NULL);
    if (parse_listen(s, o->listen ? o->listen : "0.0.0.0:8443", err) < 0) {
        log_batch_free(s->log);
        pthread_mutex_destroy(&s->pool_mu);
        free(s);
        return NULL;
    }
    return s;
}

int server_start(struct server *s, struct err *err)
{
    struct MHD_OptionItem opts[24];
    size_t n = 0;
    unsigned flags = MHD_USE_TLS | MHD_USE_EPOLL_INTERNAL_THREAD
                     | MHD_USE_ITC | MHD_USE_ERROR_LOG
                     | MHD_ALLOW_SUSPEND_RESUME;
    const union MHD_DaemonInfo *di;
    char host[INET6_ADDRSTRLEN] = "?";

    if (s->ipv6)
        flags |= MHD_USE_IPv6;
    n += tls_mhd_options(s->tls, opts + n, 3);
    opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_SOCK_ADDR, 0,
                                         &s->addr };
    if (s->o.threads > 1)
        opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_THREAD_POOL_SIZE,
                                             s->o.threads, NULL };
    opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_LIMIT,
                                         s->o.max_connections, NULL };
    opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_TIMEOUT,
                                         s->o.conn_timeout, NULL };
    opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_MEMORY_LIMIT,
                                         SERVER_CONN_MEMORY, NULL };
    opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
    /* the logger first, so every MHD message goes through log.c */
    s->d = MHD_start_daemon(flags, (uint16_t)s->port, NULL, NULL, on_access,
                            s, MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, s,
                            MHD_OPTION_ARRAY, opts,
                            MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
                            MHD_OPTION_NOTIFY_CONNECTION, on_connection, s,
                            MHD_OPTION_END);
    if (!s->d)
        return err_set(err, "cannot start the HTTPS server on '%s'",
                       s->o.listen ? s->o.listen : "0.0.0.0:8443");
    if (s->o.costly_threads) {
        s->costly = costly_pool_new(s->o.costly_threads);
        if (!s->costly)
            return err_set(err, "cannot start the %u threads of "
                           "--costly-threads", s->o.costly_threads);
    }
    di = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
    if (di)
        s->port = di->port;
    if (s->ipv6)
        inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&s->addr)->sin6_addr,
                  host, sizeof(host));
    else
        inet_ntop(AF_INET, &((struct sockaddr_in *)&s->addr)->sin_addr, host,
                  sizeof(host));
    log_msg(LOG_INFO, "listening on https://%s%s%s:%u (threads %u, costly "
            "threads %u, max connections %u, max body %zu, memory budget "
            "%zu)", s->ipv6 ? "[" : "", host, s->ipv6 ? "]" : "", s->port,
            s->o.threads, s->o.costly_threads, s->o.max_connections,
            s->o.max_body, s->o.memory_budget);
    return 0;
}

unsigned server_port(struct server *s)
{
    return s->port;
}

void server_drain(struct server *s)
{
    atomic_store(&s->draining, 1);
}

void server_quiesce(struct server *s)
{
    if (s->d && s->listen_fd < 0) {
        MHD_socket fd = MHD_quiesce_daemon(s->d);
        s->listen_fd = fd == MHD_INVALID_SOCKET ? -1 : (int)fd;
        /* the workers no longer poll it, but it may only be closed after
         * MHD_stop_daemon: shut it down so that connections still in the
         * backlog are reset and new ones refused now, not at exit */
        if (s->listen_fd >= 0)
            shutdown(s->listen_fd, SHUT_RDWR);
    }
}

size_t server_connections(struct server *s)
{
    return atomic_load(&s->connections);
}

size_t server_in_flight(struct server *s)
{
    return atomic_load(&s->in_flight);
}

void server_tick(struct server *s)
{
    log_batch_flush(s->log);
    membudget_idle(&s->mem, atomic_load(&s->connections));
}

void server_free(struct server *s)
{
    if (!s)
        return;
    /* the costly reviews first: their connections are resumed (and
     * answered by the workers) before the daemon stops */
    costly_pool_free(s->costly);
    if (s->d)
        MHD_stop_daemon(s->d);
    if (s->listen_fd >= 0)
        close(s->listen_fd);
    log_batch_free(s->log);     /* after the workers: every line written */
    while (s->pool) {
        struct request *rq = s->pool;
        s->pool = rq->next;
        arena_release(&rq->arena);
        buf_release(&rq->body);
        free(rq);
    }
    pthread_mutex_destroy(&s->pool_mu);
    free(s);
}
