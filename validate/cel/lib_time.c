/*
 * lib_time.c - CEL timestamps and durations (google.protobuf.Timestamp and
 * .Duration semantics): RFC 3339 and Go-duration parsing and formatting,
 * range checks (years 1..9999; durations fit int64 nanoseconds, as
 * cel-go's time.Duration),
 * arithmetic, and the getters with an optional time zone ("UTC", "+05:30",
 * or an IANA name read from /usr/share/zoneinfo per call: no caches, no
 * global state). Values are (seconds, nanoseconds) with 0 <= nsec < 1e9.
 */
#include "cel_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../file.h"

#define TS_MIN  (-62135596800LL)    /* 0001-01-01T00:00:00Z */
#define TS_MAX  (253402300799LL)    /* 9999-12-31T23:59:59Z */
#define DUR_MAX (9223372037LL)      /* int64 ns, in whole seconds */

static struct cel_value mk(int kind, int64_t sec, int32_t nsec)
{
    struct cel_value v;

    memset(&v, 0, sizeof(v));
    v.kind = (unsigned char)kind;
    v.v.t.sec = sec;
    v.v.t.nsec = nsec;
    return v;
}

/* normalizes to 0 <= nsec < 1e9; checks the range of the kind */
int cel_time_make(int kind, int64_t sec, int64_t nsec, struct cel_value *out)
{
    int64_t carry = nsec / 1000000000;

    nsec %= 1000000000;
    if (nsec < 0) {
        nsec += 1000000000;
        carry--;
    }
    if (__builtin_add_overflow(sec, carry, &sec))
        return -1;
    if (kind == CEL_V_TIMESTAMP && (sec < TS_MIN || sec > TS_MAX))
        return -1;
    if (kind == CEL_V_DURATION) {
        /* as cel-go (time.Duration): the total must fit int64 nanoseconds */
        int64_t total;
        if (__builtin_mul_overflow(sec, (int64_t)1000000000, &total) ||
            __builtin_add_overflow(total, nsec, &total))
            return -1;
    }
    *out = mk(kind, sec, (int32_t)nsec);
    return 0;
}

/* ================= civil calendar (proleptic Gregorian) ================= */

static int64_t days_from_civil(int64_t y, int m, int d)
{
    int64_t era, yoe, doy, doe;

    y -= m <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = y - era * 400;
    doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
    int64_t era, doe, yoe, doy, mp;

    z += 719468;
    era = (z >= 0 ? z : z - 146096) / 146097;
    doe = z - era * 146097;
    yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    *y = yoe + era * 400;
    doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y += *m <= 2;
}

static int digits(const char *s, size_t n, size_t at, int k, int64_t *out)
{
    int64_t v = 0;
    int i;

    if (at + (size_t)k > n)
        return -1;
    for (i = 0; i < k; i++) {
        char c = s[at + (size_t)i];
        if (c < '0' || c > '9')
            return -1;
        v = v * 10 + (c - '0');
    }
    *out = v;
    return 0;
}

/* RFC 3339: YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM) */
int cel_rfc3339_parse(const char *s, size_t n, int64_t *sec, int32_t *ns)
{
    int64_t y, mo, d, h, mi, se, oh = 0, om = 0, frac = 0;
    size_t p = 19;
    int fd = 0, sign = 0;

    if (n < 20 || digits(s, n, 0, 4, &y) || s[4] != '-' ||
        digits(s, n, 5, 2, &mo) || s[7] != '-' || digits(s, n, 8, 2, &d) ||
        (s[10] != 'T' && s[10] != 't') || digits(s, n, 11, 2, &h) ||
        s[13] != ':' || digits(s, n, 14, 2, &mi) || s[16] != ':' ||
        digits(s, n, 17, 2, &se))
        return -1;
    if (p < n && s[p] == '.') {
        p++;
        while (p < n && s[p] >= '0' && s[p] <= '9') {
            if (fd < 9) {
                frac = frac * 10 + (s[p] - '0');
                fd++;
            }
            p++;
        }
        if (fd == 0)
            return -1;
        while (fd < 9) {
            frac *= 10;
            fd++;
        }
    }
    if (p < n && (s[p] == 'Z' || s[p] == 'z')) {
        p++;
    } else if (p < n && (s[p] == '+' || s[p] == '-')) {
        sign = s[p] == '-' ? -1 : 1;
        if (digits(s, n, p + 1, 2, &oh) || p + 3 >= n || s[p + 3] != ':' ||
            digits(s, n, p + 4, 2, &om))
            return -1;
        p += 6;
    } else {
        return -1;
    }
    if (p != n || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 ||
        mi > 59 || se > 60 || oh > 23 || om > 59)
        return -1;
    *sec = days_from_civil(y, (int)mo, (int)d) * 86400 + h * 3600 +
           mi * 60 + se - sign * (oh * 3600 + om * 60);
    *ns = (int32_t)frac;
    return 0;
}

/* Go time.ParseDuration syntax, into (sec, nsec) without int64-ns limits */
int cel_duration_parse(const char *s, size_t n, int64_t *sec, int64_t *nsec)
{
    size_t p = 0;
    int neg = 0;
    /* total in nanoseconds as a 128-bit-free pair: whole seconds + ns */
    int64_t ts = 0, tn = 0;

    if (p < n && (s[p] == '-' || s[p] == '+')) {
        neg = s[p] == '-';
        p++;
    }
    if (p == n)
        return -1;
    if (n - p == 1 && s[p] == '0') {
        *sec = 0;
        *nsec = 0;
        return 0;
    }
    while (p < n) {
        int64_t whole = 0, frac = 0, fscale = 1, unit_ns;
        int have = 0;
        size_t u;

        while (p < n && s[p] >= '0' && s[p] <= '9') {
            if (whole > (INT64_MAX - 9) / 10)
                return -1;
            whole = whole * 10 + (s[p] - '0');
            p++;
            have = 1;
        }
        if (p < n && s[p] == '.') {
            p++;
            while (p < n && s[p] >= '0' && s[p] <= '9') {
                if (fscale < 1000000000000000000LL) {
                    frac = frac * 10 + (s[p] - '0');
                    fscale *= 10;
                }
                p++;
                have = 1;
            }
        }
        if (!have)
            return -1;
        u = p;
        while (p < n && !(s[p] >= '0' && s[p] <= '9') && s[p] != '.')
            p++;
#define UNIT(str) (p - u == strlen(str) && memcmp(s + u, str, p - u) == 0)
        if (UNIT("ns"))
            unit_ns = 1;
        else if (UNIT("us") || UNIT("\xc2\xb5s") || UNIT("\xce\xbcs"))
            unit_ns = 1000;
        else if (UNIT("ms"))
            unit_ns = 1000000;
        else if (UNIT("s"))
            unit_ns = 1000000000;
        else if (UNIT("m"))
            unit_ns = 60LL * 1000000000;
        else if (UNIT("h"))
            unit_ns = 3600LL * 1000000000;
        else
            return -1;
#undef UNIT
        /* whole * unit: split into seconds and nanoseconds */
        if (unit_ns >= 1000000000) {
            int64_t mult = unit_ns / 1000000000, add;
            if (__builtin_mul_overflow(whole, mult, &add) ||
                __builtin_add_overflow(ts, add, &ts))
                return -1;
            /* fraction: frac/fscale * unit */
            {
                double f = (double)frac / (double)fscale * (double)mult;
                int64_t fs = (int64_t)f;
                ts += fs;
                tn += (int64_t)((f - (double)fs) * 1e9 + 0.5);
            }
        } else {
            int64_t per = 1000000000 / unit_ns;
            ts += whole / per;
            tn += (whole % per) * unit_ns;
            tn += (int64_t)((double)frac / (double)fscale * (double)unit_ns +
                            0.5);
        }
        if (ts > DUR_MAX * 2)
            return -1;
        ts += tn / 1000000000;
        tn %= 1000000000;
    }
    *sec = neg ? -ts : ts;
    *nsec = neg ? -tn : tn;
    return 0;
}

/* ================= formatting ================= */

static void frac9(char *out, size_t sz, int32_t ns)
{
    int k = 9;

    if (ns == 0) {
        out[0] = 0;
        return;
    }
    snprintf(out, sz, ".%09d", (int)ns);
    while (k > 0 && out[k] == '0')
        out[k--] = 0;
}

void cel_time_format(const struct cel_value *v, char *out, size_t outsz)
{
    char fr[16];

    if (v->kind == CEL_V_TIMESTAMP) {
        int64_t days = v->v.t.sec / 86400, rem = v->v.t.sec % 86400, y;
        int m, d;
        if (rem < 0) {
            rem += 86400;
            days--;
        }
        civil_from_days(days, &y, &m, &d);
        frac9(fr, sizeof(fr), v->v.t.nsec);
        snprintf(out, outsz, "%04lld-%02d-%02dT%02d:%02d:%02d%sZ",
                 (long long)y, m, d, (int)(rem / 3600),
                 (int)(rem / 60 % 60), (int)(rem % 60), fr);
        return;
    }
    {
        int64_t s = v->v.t.sec;
        int32_t ns = v->v.t.nsec;
        const char *sign = "";
        if (s < 0) {
            sign = "-";
            if (ns) {
                s = -(s + 1);
                ns = 1000000000 - ns;
            } else {
                s = -s;
            }
        }
        frac9(fr, sizeof(fr), ns);
        snprintf(out, outsz, "%s%lld%ss", sign, (long long)s, fr);
    }
}

/* ================= time zones ================= */

static int64_t be(const unsigned char *p, int k)
{
    uint64_t v = 0;
    int i;

    for (i = 0; i < k; i++)
        v = (v << 8) | p[i];
    if (k == 4)
        return (int32_t)(uint32_t)v;
    return (int64_t)v;
}

/* UTC offset (seconds) of IANA zone `name` at `t`; 0 ok, -1 unknown */
static int tzif_offset(const char *name, int64_t t, int64_t *off)
{
    char path[300];
    unsigned char *buf = NULL;
    char *text = NULL;
    size_t n;
    long len;
    int ret = -1;
    size_t i;

    for (i = 0; name[i]; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '/' || c == '_' || c == '-' ||
              c == '+'))
            return -1;
    }
    if (strstr(name, "..") || name[0] == '/' || i == 0)
        return -1;
    snprintf(path, sizeof(path), "/usr/share/zoneinfo/%s", name);
    if (file_read(path, 1000000 - 1, &text, &n, NULL) < 0 || n <= 44) {
        free(text);
        return -1;
    }
    buf = (unsigned char *)text;
    len = (long)n;
    if (memcmp(buf, "TZif", 4) == 0) {
        const unsigned char *h = buf;
        int v2 = buf[4] >= '2';
        int64_t isutc = be(h + 20, 4), isstd = be(h + 24, 4);
        int64_t leap = be(h + 28, 4), timecnt = be(h + 32, 4);
        int64_t typecnt = be(h + 36, 4), charcnt = be(h + 40, 4);
        int tsz = 4;
        const unsigned char *d = h + 44;

        if (v2) {
            /* skip the v1 block, use the 64-bit one */
            d += timecnt * 5 + typecnt * 6 + charcnt + leap * 8 + isstd +
                 isutc;
            if (d + 44 > buf + len || memcmp(d, "TZif", 4) != 0)
                goto out;
            h = d;
            isutc = be(h + 20, 4);
            isstd = be(h + 24, 4);
            leap = be(h + 28, 4);
            timecnt = be(h + 32, 4);
            typecnt = be(h + 36, 4);
            charcnt = be(h + 40, 4);
            d = h + 44;
            tsz = 8;
        }
        if (typecnt < 1 ||
            d + timecnt * (tsz + 1) + typecnt * 6 > buf + len)
            goto out;
        {
            const unsigned char *times = d, *idx = d + timecnt * tsz;
            const unsigned char *types = idx + timecnt;
            int64_t k, type = 0;
            for (k = 0; k < timecnt; k++) {
                if (be(times + k * tsz, tsz) > t)
                    break;
                type = idx[k];
            }
            if (type >= typecnt)
                goto out;
            *off = be(types + type * 6, 4);
            ret = 0;
        }
    }
out:
    free(buf);
    return ret;
}

static int tz_offset(const struct cel_value *tz, int64_t t, int64_t *off)
{
    char name[128];
    const char *s = tz->v.s.p;
    size_t n = tz->v.s.n;

    if (n == 0 || n >= sizeof(name))
        return -1;
    memcpy(name, s, n);
    name[n] = 0;
    if (!strcmp(name, "UTC") || !strcmp(name, "Z")) {
        *off = 0;
        return 0;
    }
    if ((n == 5 || n == 6) && ((s[0] >= '0' && s[0] <= '9') || s[0] == '+' ||
                               s[0] == '-')) {
        size_t p = s[0] == '+' || s[0] == '-';
        int64_t hh, mm;
        if (n - p != 5 || digits(s, n, p, 2, &hh) || s[p + 2] != ':' ||
            digits(s, n, p + 3, 2, &mm))
            return -1;
        *off = (hh * 3600 + mm * 60) * (s[0] == '-' ? -1 : 1);
        return 0;
    }
    return tzif_offset(name, t, off);
}

/* ================= functions ================= */

F(f_timestamp)
{
    int64_t sec;
    int32_t ns;
    struct cel_value v;

    (void)na;
    if (a[0].kind == CEL_V_TIMESTAMP)
        return a[0];
    if (a[0].kind == CEL_V_INT) {
        if (cel_time_make(CEL_V_TIMESTAMP, a[0].v.i, 0, &v) < 0)
            return cel_verr(ev, "timestamp out of range");
        return v;
    }
    if (a[0].kind != CEL_V_STRING)
        return cel_no_overload(ev, n, a, 1);
    if (cel_rfc3339_parse(a[0].v.s.p, a[0].v.s.n, &sec, &ns) < 0)
        return cel_verr(ev, "cannot parse timestamp '%.*s'",
                        (int)a[0].v.s.n, a[0].v.s.p);
    if (cel_time_make(CEL_V_TIMESTAMP, sec, ns, &v) < 0)
        return cel_verr(ev, "timestamp out of range");
    return v;
}

F(f_duration)
{
    int64_t sec, ns;
    struct cel_value v;

    (void)na;
    if (a[0].kind == CEL_V_DURATION)
        return a[0];
    if (a[0].kind != CEL_V_STRING)
        return cel_no_overload(ev, n, a, 1);
    if (cel_duration_parse(a[0].v.s.p, a[0].v.s.n, &sec, &ns) < 0)
        return cel_verr(ev, "cannot parse duration '%.*s'",
                        (int)a[0].v.s.n, a[0].v.s.p);
    if (cel_time_make(CEL_V_DURATION, sec, ns, &v) < 0)
        return cel_verr(ev, "duration out of range");
    return v;
}

enum { G_YEAR, G_MONTH, G_DOY, G_DOM, G_DATE, G_DOW, G_HOURS, G_MINUTES,
       G_SECONDS, G_MILLIS };

static struct cel_value getter(struct cel_eval *ev, const struct cel_node *n,
                               const struct cel_value *a, unsigned na, int g)
{
    int64_t off = 0, local, days, rem, y;
    int m, d;

    if (a[0].kind == CEL_V_DURATION && na == 1) {
        /* totals, truncated toward zero */
        int64_t s = a[0].v.t.sec;
        int32_t ns = a[0].v.t.nsec;
        if (s < 0 && ns) {
            s += 1;
            ns -= 1000000000;
        }
        switch (g) {
        case G_HOURS: return cel_vint(s / 3600);
        case G_MINUTES: return cel_vint(s / 60);
        case G_SECONDS: return cel_vint(s);
        case G_MILLIS: return cel_vint(ns / 1000000);
        default: return cel_no_overload(ev, n, a, na);
        }
    }
    if (a[0].kind != CEL_V_TIMESTAMP ||
        (na == 2 && a[1].kind != CEL_V_STRING))
        return cel_no_overload(ev, n, a, na);
    if (na == 2 && tz_offset(&a[1], a[0].v.t.sec, &off) < 0)
        return cel_verr(ev, "unknown time zone '%.*s'", (int)a[1].v.s.n,
                        a[1].v.s.p);
    local = a[0].v.t.sec + off;
    days = local / 86400;
    rem = local % 86400;
    if (rem < 0) {
        rem += 86400;
        days--;
    }
    civil_from_days(days, &y, &m, &d);
    switch (g) {
    case G_YEAR: return cel_vint(y);
    case G_MONTH: return cel_vint(m - 1);
    case G_DOY: return cel_vint(days - days_from_civil(y, 1, 1));
    case G_DOM: return cel_vint(d - 1);
    case G_DATE: return cel_vint(d);
    case G_DOW: return cel_vint(((days % 7) + 11) % 7);
    case G_HOURS: return cel_vint(rem / 3600);
    case G_MINUTES: return cel_vint(rem / 60 % 60);
    case G_SECONDS: return cel_vint(rem % 60);
    default: return cel_vint(a[0].v.t.nsec / 1000000);
    }
}

#define GET(fname, g)                                   \
    F(fname)                                            \
    {                                                   \
        return getter(ev, n, a, na, g);                 \
    }
GET(f_year, G_YEAR)
GET(f_month, G_MONTH)
GET(f_doy, G_DOY)
GET(f_dom, G_DOM)
GET(f_date, G_DATE)
GET(f_dow, G_DOW)
GET(f_hours, G_HOURS)
GET(f_minutes, G_MINUTES)
GET(f_seconds, G_SECONDS)
GET(f_millis, G_MILLIS)

const struct cel_func cel_lib_time[] = {
    { "timestamp",
      "timestamp_to_timestamp:(timestamp)->timestamp "
      "int64_to_timestamp:(int)->timestamp "
      "string_to_timestamp:(string)->timestamp",
      0, f_timestamp },
    { "duration",
      "duration_to_duration:(duration)->duration "
      "int64_to_duration:(int)->duration "
      "string_to_duration:(string)->duration",
      0, f_duration },
    { "getFullYear",
      "timestamp_to_year:timestamp.()->int "
      "timestamp_to_year_with_tz:timestamp.(string)->int",
      0, f_year },
    { "getMonth",
      "timestamp_to_month:timestamp.()->int "
      "timestamp_to_month_with_tz:timestamp.(string)->int",
      0, f_month },
    { "getDayOfYear",
      "timestamp_to_day_of_year:timestamp.()->int "
      "timestamp_to_day_of_year_with_tz:timestamp.(string)->int",
      0, f_doy },
    { "getDayOfMonth",
      "timestamp_to_day_of_month:timestamp.()->int "
      "timestamp_to_day_of_month_with_tz:timestamp.(string)->int",
      0, f_dom },
    { "getDate",
      "timestamp_to_day_of_month_1_based:timestamp.()->int "
      "timestamp_to_day_of_month_1_based_with_tz:timestamp.(string)->int",
      0, f_date },
    { "getDayOfWeek",
      "timestamp_to_day_of_week:timestamp.()->int "
      "timestamp_to_day_of_week_with_tz:timestamp.(string)->int",
      0, f_dow },
    { "getHours",
      "timestamp_to_hours:timestamp.()->int "
      "timestamp_to_hours_with_tz:timestamp.(string)->int "
      "duration_to_hours:duration.()->int",
      0, f_hours },
    { "getMinutes",
      "timestamp_to_minutes:timestamp.()->int "
      "timestamp_to_minutes_with_tz:timestamp.(string)->int "
      "duration_to_minutes:duration.()->int",
      0, f_minutes },
    { "getSeconds",
      "timestamp_to_seconds:timestamp.()->int "
      "timestamp_to_seconds_tz:timestamp.(string)->int "
      "duration_to_seconds:duration.()->int",
      0, f_seconds },
    { "getMilliseconds",
      "timestamp_to_milliseconds:timestamp.()->int "
      "timestamp_to_milliseconds_with_tz:timestamp.(string)->int "
      "duration_to_milliseconds:duration.()->int",
      0, f_millis },
};
const size_t cel_lib_time_n = sizeof(cel_lib_time) / sizeof(cel_lib_time[0]);
