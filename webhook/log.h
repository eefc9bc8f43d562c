/*
 * log.h - the webhook's log: one JSON object per line on stderr.
 *
 * Every line has "time" (RFC 3339, UTC, milliseconds), "level" and either
 * "msg" or the request fields. Each line is written with one write(2), so
 * lines from worker threads never interleave. Request bodies and tokens are
 * never passed here. Messages follow git style (lowercase, no full stop).
 */
#ifndef CLAIMCHECK_WEBHOOK_LOG_H
#define CLAIMCHECK_WEBHOOK_LOG_H

#include <stdarg.h>

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
};

void log_request(const struct log_req *r);

#endif
