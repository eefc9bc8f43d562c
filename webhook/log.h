/*
 * log.h - the webhook's log: one JSON object per line on stderr.
 *
 * Every line has "time" (RFC 3339, UTC, milliseconds), "level" and either
 * "msg" or the request fields. Each message line is written with one
 * write(2), so lines from worker threads never interleave. Request lines go
 * through a struct log_batch: appended whole under a mutex and written 64
 * KiB at a time, or when the owner calls log_batch_flush() (the server
 * does every 100 ms and at exit), as nginx's buffered access_log does: one
 * write per request cost a fifth of the throughput. Request bodies and
 * tokens are never passed here. Messages follow git style (lowercase, no
 * full stop).
 */
#ifndef CLAIMCHECK_WEBHOOK_LOG_H
#define CLAIMCHECK_WEBHOOK_LOG_H

#include <stdarg.h>
#include <time.h>

enum log_level { LOG_DEBUG, LOG_INFO, LOG_WARN, LOG_ERROR };

void log_msg(enum log_level lv, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void log_vmsg(enum log_level lv, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

/* One admission request. NULL strings are left out. */
struct log_req {
    const char *uid;
    const char *kind;
    const char *ns, *name;
    const char *operation;
    const char *decision;   /* allow, deny, warn, skip, error, overrun */
    const char *rules;      /* comma list of rule ids found, or NULL */
    const char *error;      /* why a request was rejected with 4xx */
    int status;             /* HTTP status sent */
    double latency_ms;
    int metered;            /* the rules ran: cel_cost and alloc_steps */
    unsigned long long cel_cost;    /* CEL runtime cost units spent */
    unsigned long long alloc_steps; /* allocator search steps spent */
};

struct log_batch;

struct log_batch *log_batch_new(void);
/* Writes what is batched (one write(2)); safe from any thread. */
void log_batch_flush(struct log_batch *lb);
/* Flushes and frees; NULL is fine. */
void log_batch_free(struct log_batch *lb);
/* Appends r's line to lb, or writes it at once when lb is NULL. */
void log_request(struct log_batch *lb, const struct log_req *r);

/* A line's "time": ts in UTC as "2026-12-02T14:40:32.123Z" (LOG_TIME_LEN
 * characters and a NUL into out), the text gmtime_r() gives, without its
 * lock. Exposed for tests. */
#define LOG_TIME_LEN 24
void log_time(char *out, const struct timespec *ts);

#endif
