/*
 * log.c - JSON-lines logging to stderr. Owns formatting, the single
 * write(2) per message line and the batch of request lines (struct
 * log_batch); it knows nothing about HTTP or admission.
 */
#include "log.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../validate/buf.h"
#include "../validate/xalloc.h"

#define LOG_LINE_MAX 8192
#define LOG_MSG_MAX (LOG_LINE_MAX / 2)  /* bytes of a message */
#define LOG_VALUE_MAX 1024              /* of a request line's field */
#define LOG_BATCH_BYTES (64 * 1024)     /* one write(2) per this many */

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

/* Writes v as `width` decimal digits (zero-padded) at o; returns the end. */
static char *digits(char *o, unsigned long v, int width)
{
    int i;

    for (i = width - 1; i >= 0; i--) {
        o[i] = (char)('0' + v % 10);
        v /= 10;
    }
    return o + width;
}

/* Writes v in decimal, no padding, at o; returns the end. */
static char *decimal(char *o, unsigned long v)
{
    char t[24];
    int n = 0;

    do {
        t[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    while (n)
        *o++ = t[--n];
    return o;
}

/* Days since 1970-01-01 -> year, month (1-12), day (1-31) of the
 * proleptic Gregorian calendar (H. Hinnant's days_from_civil inverse). */
static void civil_of(long long days, long long *y, unsigned *m, unsigned *d)
{
    long long z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;

    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = (long long)yoe + era * 400 + (*m <= 2);
}

/* No gmtime_r: glibc takes its time zone lock on every call, a mutex the
 * workers share once per request line. */
void log_time(char *out, const struct timespec *ts)
{
    long long secs = (long long)ts->tv_sec, days, y;
    unsigned mon, mday, sod;
    char *o = out;

    days = (secs >= 0 ? secs : secs - 86399) / 86400;
    sod = (unsigned)(secs - days * 86400);
    civil_of(days, &y, &mon, &mday);
    o = digits(o, (unsigned long)y, 4);
    *o++ = '-';
    o = digits(o, mon, 2);
    *o++ = '-';
    o = digits(o, mday, 2);
    *o++ = 'T';
    o = digits(o, sod / 3600, 2);
    *o++ = ':';
    o = digits(o, sod / 60 % 60, 2);
    *o++ = ':';
    o = digits(o, sod % 60, 2);
    *o++ = '.';
    o = digits(o, (unsigned long)ts->tv_nsec / 1000000, 3);
    *o++ = 'Z';
    *o = '\0';
}

/* No printf on this path: it runs once per request. */
static void log_start(struct buf *b, enum log_level lv)
{
    struct timespec ts;
    char when[LOG_TIME_LEN + 1];

    clock_gettime(CLOCK_REALTIME, &ts);
    log_time(when, &ts);
    buf_adds(b, "{\"time\":\"");
    buf_adds(b, when);
    buf_adds(b, "\",\"level\":\"");
    buf_adds(b, level_name(lv));
    buf_addc(b, '"');
}

static void write_all(const char *p, size_t len)
{
    size_t off = 0;

    while (off < len) {
        ssize_t n = write(STDERR_FILENO, p + off, len - off);
        if (n <= 0)
            break;
        off += (size_t)n;
    }
}

/* Closes the line; a line over LOG_LINE_MAX (or bad: a field did not fit,
 * the line is cut) becomes an error line, so every line stays JSON. */
static void log_close(struct buf *b, int bad)
{
    if (bad || buf_add(b, "}\n", 2) < 0) {
        buf_reset(b);
        buf_adds(b, "{\"level\":\"error\",\"msg\":\"log line too long\"}");
        buf_add(b, "\n", 1);
    }
}

static void log_end(struct buf *b, int bad)
{
    log_close(b, bad);
    write_all(b->p, b->len);
}

/* ,"name":"value" with the value cut at max bytes (at most LOG_MSG_MAX;
 * on a UTF-8 boundary, "..." added: a 100,000-character uid stays a short
 * line); a field that does not fit in the line marks it *bad */
static void field(struct buf *b, const char *name, const char *v, size_t max,
                  int *bad)
{
    char cut[LOG_MSG_MAX + 4];
    size_t n;

    if (!v)
        return;
    n = strlen(v);
    if (n > max) {
        n = max;
        while (n && ((unsigned char)v[n] & 0xc0) == 0x80)
            n--;
        memcpy(cut, v, n);
        memcpy(cut + n, "...", 4);
        v = cut;
    }
    if (buf_adds(b, ",\"") < 0 || buf_adds(b, name) < 0
        || buf_adds(b, "\":") < 0 || buf_add_json_str(b, v) < 0)
        *bad = 1;
}

void log_vmsg(enum log_level lv, const char *fmt, va_list ap)
{
    struct buf b, msg;
    int bad = 0;

    buf_init(&b, LOG_LINE_MAX);
    buf_init(&msg, LOG_MSG_MAX);
    log_start(&b, lv);
    if (buf_vaddf(&msg, fmt, ap) < 0)
        buf_adds(&msg, "(message too long)");
    /* libmicrohttpd's messages end in a newline; drop it */
    while (msg.len && (msg.p[msg.len - 1] == '\n'))
        msg.p[--msg.len] = '\0';
    field(&b, "msg", msg.p, LOG_MSG_MAX, &bad);
    log_end(&b, bad);
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

/* ---- request lines, batched ------------------------------------------ */

struct log_batch {
    pthread_mutex_t mu;         /* guards len and data */
    pthread_mutex_t write_mu;   /* one flusher at a time, in order */
    size_t len;
    char data[LOG_BATCH_BYTES];
    char out[LOG_BATCH_BYTES];  /* what the flusher writes, under write_mu */
};

struct log_batch *log_batch_new(void)
{
    struct log_batch *lb = xmalloc(sizeof(*lb));

    pthread_mutex_init(&lb->mu, NULL);
    pthread_mutex_init(&lb->write_mu, NULL);
    lb->len = 0;
    return lb;
}

void log_batch_flush(struct log_batch *lb)
{
    size_t n;

    if (!lb)
        return;
    pthread_mutex_lock(&lb->write_mu);
    pthread_mutex_lock(&lb->mu);
    n = lb->len;
    memcpy(lb->out, lb->data, n);
    lb->len = 0;
    pthread_mutex_unlock(&lb->mu);
    write_all(lb->out, n);      /* workers keep appending meanwhile */
    pthread_mutex_unlock(&lb->write_mu);
}

void log_batch_free(struct log_batch *lb)
{
    if (!lb)
        return;
    log_batch_flush(lb);
    pthread_mutex_destroy(&lb->mu);
    pthread_mutex_destroy(&lb->write_mu);
    free(lb);
}

/* Appends one line; a full batch is flushed first by this caller. */
static void batch_add(struct log_batch *lb, const char *p, size_t n)
{
    for (;;) {
        pthread_mutex_lock(&lb->mu);
        if (lb->len + n <= LOG_BATCH_BYTES) {
            memcpy(lb->data + lb->len, p, n);
            lb->len += n;
            pthread_mutex_unlock(&lb->mu);
            return;
        }
        pthread_mutex_unlock(&lb->mu);
        log_batch_flush(lb);
    }
}

void log_request(struct log_batch *lb, const struct log_req *r)
{
    struct buf b;
    enum log_level lv = r->status >= 500 ? LOG_ERROR
                        : r->status >= 400 ? LOG_WARN : LOG_INFO;
    char num[48], *o;
    int bad = 0;
    unsigned long us = r->latency_ms > 0
                       ? (unsigned long)(r->latency_ms * 1000 + 0.5) : 0;

    buf_init(&b, LOG_LINE_MAX);
    log_start(&b, lv);
    field(&b, "msg", "admission", LOG_VALUE_MAX, &bad);
    field(&b, "uid", r->uid, LOG_VALUE_MAX, &bad);
    field(&b, "kind", r->kind, LOG_VALUE_MAX, &bad);
    field(&b, "namespace", r->ns, LOG_VALUE_MAX, &bad);
    field(&b, "name", r->name, LOG_VALUE_MAX, &bad);
    field(&b, "operation", r->operation, LOG_VALUE_MAX, &bad);
    field(&b, "decision", r->decision, LOG_VALUE_MAX, &bad);
    field(&b, "rules", r->rules, LOG_VALUE_MAX, &bad);
    field(&b, "error", r->error, LOG_VALUE_MAX, &bad);
    if (r->metered) {
        buf_adds(&b, ",\"cel_cost\":");
        o = decimal(num, (unsigned long)r->cel_cost);
        buf_add(&b, num, (size_t)(o - num));
        buf_adds(&b, ",\"alloc_steps\":");
        o = decimal(num, (unsigned long)r->alloc_steps);
        buf_add(&b, num, (size_t)(o - num));
    }
    buf_adds(&b, ",\"status\":");
    o = decimal(num, r->status > 0 ? (unsigned long)r->status : 0);
    buf_add(&b, num, (size_t)(o - num));
    buf_adds(&b, ",\"latency_ms\":");
    o = decimal(num, us / 1000);        /* ms with three decimals */
    *o++ = '.';
    o = digits(o, us % 1000, 3);
    buf_add(&b, num, (size_t)(o - num));
    log_close(&b, bad);
    if (lb)
        batch_add(lb, b.p, b.len);
    else
        write_all(b.p, b.len);
    buf_release(&b);
}
