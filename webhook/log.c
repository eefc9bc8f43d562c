/*
 * log.c - JSON-lines logging to stderr. Owns formatting and the single
 * write(2) per line; it knows nothing about HTTP or admission.
 */
#include "log.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../validate/buf.h"

#define LOG_LINE_MAX 8192

static const char *level_name(enum log_level lv)
{
    switch (lv) {
    case LOG_DEBUG: return "debug";
    case LOG_INFO: return "info";
    case LOG_WARN: return "warn";
    case LOG_ERROR: return "error";
    }
    return "info";
}

static void log_start(struct buf *b, enum log_level lv)
{
    struct timespec ts;
    struct tm tm;
    char when[32];

    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
    buf_addf(b, "{\"time\":\"%s.%03ldZ\",\"level\":\"%s\"", when,
             ts.tv_nsec / 1000000, level_name(lv));
}

static void log_end(struct buf *b)
{
    ssize_t off = 0;

    if (buf_add(b, "}\n", 2) < 0) {
        /* over LIMIT: close the object anyway so the line stays JSON */
        buf_reset(b);
        buf_adds(b, "{\"level\":\"error\",\"msg\":\"log line too long\"}");
        buf_add(b, "\n", 1);
    }
    while ((size_t)off < b->len) {
        ssize_t n = write(STDERR_FILENO, b->p + off, b->len - (size_t)off);
        if (n <= 0)
            break;
        off += n;
    }
}

static void field(struct buf *b, const char *name, const char *v)
{
    if (!v)
        return;
    buf_addf(b, ",\"%s\":", name);
    buf_add_json_str(b, v);
}

void log_vmsg(enum log_level lv, const char *fmt, va_list ap)
{
    struct buf b, msg;

    buf_init(&b, LOG_LINE_MAX);
    buf_init(&msg, LOG_LINE_MAX / 2);
    log_start(&b, lv);
    if (buf_vaddf(&msg, fmt, ap) < 0)
        buf_adds(&msg, "(message too long)");
    /* libmicrohttpd's messages end in a newline; drop it */
    while (msg.len && (msg.p[msg.len - 1] == '\n'))
        msg.p[--msg.len] = '\0';
    field(&b, "msg", msg.p);
    log_end(&b);
    buf_release(&msg);
    buf_release(&b);
}

void log_msg(enum log_level lv, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    log_vmsg(lv, fmt, ap);
    va_end(ap);
}

void log_request(const struct log_req *r)
{
    struct buf b;
    enum log_level lv = r->status >= 500 ? LOG_ERROR
                        : r->status >= 400 ? LOG_WARN : LOG_INFO;

    buf_init(&b, LOG_LINE_MAX);
    log_start(&b, lv);
    field(&b, "msg", "admission");
    field(&b, "uid", r->uid);
    field(&b, "kind", r->kind);
    field(&b, "namespace", r->ns);
    field(&b, "name", r->name);
    field(&b, "operation", r->operation);
    field(&b, "decision", r->decision);
    field(&b, "rules", r->rules);
    field(&b, "error", r->error);
    buf_addf(&b, ",\"status\":%d,\"latency_ms\":%.3f", r->status,
             r->latency_ms);
    log_end(&b);
    buf_release(&b);
}
