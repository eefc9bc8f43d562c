/*
 * quantity.c - exact Kubernetes resource.Quantity arithmetic: parsing of
 * "<number><suffix>" (binary Ki..Ei, decimal n u m k M G T P E, exponents
 * e/E), values held as a signed 128-bit count of nano units (10^-9) so
 * comparisons never touch floating point. Values finer than 1n round up
 * away from zero, as resource.Quantity does. Magnitudes beyond ~1.7e29
 * (2^127 nano units) are rejected rather than approximated.
 */
#include "cel_internal.h"

#include <stdio.h>
#include <string.h>

/* scalar typedefs (not structs): __int128 needs __extension__ under
 * -Wpedantic, once, here */
__extension__ typedef __int128 qint;
__extension__ typedef unsigned __int128 quint;

#define QMAX ((quint)1 << 126)      /* generous headroom for add/sub */

static qint q_get(const struct cel_value *v)
{
    quint u = ((quint)(uint64_t)v->v.q.hi << 64) | v->v.q.lo;
    return (qint)u;
}

static void q_set(qint x, uint64_t *lo, int64_t *hi)
{
    quint u = (quint)x;
    *lo = (uint64_t)u;
    *hi = (int64_t)(uint64_t)(u >> 64);
}

static int mul_ok(quint *x, quint m)
{
    if (m && *x > QMAX / m)
        return -1;
    *x *= m;
    return 0;
}

static int idx_of(const char *set, char c)
{
    const char *p = c ? strchr(set, c) : NULL;
    return p ? (int)(p - set) : -1;
}

int cel_quantity_parse(const char *s, size_t n, uint64_t *lo, int64_t *hi)
{
    size_t i = 0, ndig = 0, frac = 0;
    int neg = 0, seen_dot = 0, bin = 0;
    long dexp = 0;
    quint mant = 0;
    int sig_overflow = 0;

    if (n == 0)
        return -1;
    if (s[0] == '+' || s[0] == '-') {
        neg = s[0] == '-';
        i++;
    }
    for (; i < n; i++) {
        if (s[i] >= '0' && s[i] <= '9') {
            ndig++;
            if (mant > QMAX / 10) {
                /* digits past 38 significant: only zeros matter exactly */
                if (s[i] != '0')
                    sig_overflow = 1;
                if (!seen_dot)
                    dexp++;
                continue;
            }
            mant = mant * 10 + (quint)(s[i] - '0');
            if (seen_dot)
                frac++;
        } else if (s[i] == '.' && !seen_dot) {
            seen_dot = 1;
        } else {
            break;
        }
    }
    if (ndig == 0 || sig_overflow)
        return -1;
    /* suffix */
    if (i < n) {
        const char *suf = s + i;
        size_t sl = n - i;
        static const char bins[] = "KMGTPE";
        static const char decs[] = "kMGTPE";
        int bi = idx_of(bins, suf[0]), di = idx_of(decs, suf[0]);

        if (sl == 2 && suf[1] == 'i' && bi >= 0) {
            bin = bi + 1;
        } else if (sl == 1 && suf[0] == 'n') {
            dexp -= 9;
        } else if (sl == 1 && suf[0] == 'u') {
            dexp -= 6;
        } else if (sl == 1 && suf[0] == 'm') {
            dexp -= 3;
        } else if (sl == 1 && di >= 0) {
            dexp += 3 * ((long)di + 1);
        } else if (suf[0] == 'e' || suf[0] == 'E') {
            size_t j = 1;
            int eneg = 0;
            long e = 0;
            if (j < sl && (suf[j] == '+' || suf[j] == '-')) {
                eneg = suf[j] == '-';
                j++;
            }
            if (j >= sl)
                return -1;
            for (; j < sl; j++) {
                if (suf[j] < '0' || suf[j] > '9')
                    return -1;
                e = e * 10 + (suf[j] - '0');
                if (e > 1000)
                    return -1;
            }
            dexp += eneg ? -e : e;
        } else {
            return -1;
        }
    }
    {
        long scale = 9 + dexp - (long)frac;
        quint v = mant;
        int k;

        for (k = 0; k < bin; k++) {
            if (mul_ok(&v, 1024) < 0)
                return -1;
        }
        if (scale >= 0) {
            for (; scale > 0; scale--) {
                if (v == 0)
                    break;
                if (mul_ok(&v, 10) < 0)
                    return -1;
            }
        } else {
            int rem = 0;
            for (; scale < 0; scale++) {
                rem |= (v % 10) != 0;
                v /= 10;
                if (v == 0 && scale < -40)
                    break;
            }
            if (rem)
                v += 1;     /* round up away from zero */
        }
        if (v > QMAX)
            return -1;
        q_set(neg ? -(qint)v : (qint)v, lo, hi);
    }
    return 0;
}

int cel_quantity_cmp(const struct cel_value *a, const struct cel_value *b)
{
    qint x = q_get(a), y = q_get(b);
    return x < y ? -1 : x > y;
}

static void fmt_u128(quint v, char *out, size_t outsz)
{
    char tmp[48];
    size_t i = sizeof(tmp) - 1;

    tmp[i] = 0;
    do {
        tmp[--i] = (char)('0' + (int)(v % 10));
        v /= 10;
    } while (v && i > 0);
    snprintf(out, outsz, "%s", tmp + i);
}

void cel_quantity_format(const struct cel_value *v, char *out, size_t outsz)
{
    qint x = q_get(v);
    quint m = x < 0 ? (quint)(-x) : (quint)x;
    const char *sign = x < 0 ? "-" : "";
    char num[48];
    static const char *const bsuf[] = { "Ki", "Mi", "Gi", "Ti", "Pi", "Ei" };
    static const char *const dsuf[] = { "k", "M", "G", "T", "P", "E" };
    quint whole = m / 1000000000u;
    int k;

    if (m == 0) {
        snprintf(out, outsz, "0");
        return;
    }
    if (m % 1000000000u == 0) {
        for (k = 5; k >= 0; k--) {
            quint d = (quint)1 << (10 * (k + 1));
            if (whole % d == 0) {
                fmt_u128(whole / d, num, sizeof(num));
                snprintf(out, outsz, "%s%s%s", sign, num, bsuf[k]);
                return;
            }
        }
        for (k = 5; k >= 0; k--) {
            quint d = 1;
            int j;
            for (j = 0; j <= k; j++)
                d *= 1000;
            if (whole % d == 0) {
                fmt_u128(whole / d, num, sizeof(num));
                snprintf(out, outsz, "%s%s%s", sign, num, dsuf[k]);
                return;
            }
        }
        fmt_u128(whole, num, sizeof(num));
        snprintf(out, outsz, "%s%s", sign, num);
        return;
    }
    if (m % 1000000u == 0) {
        fmt_u128(m / 1000000u, num, sizeof(num));
        snprintf(out, outsz, "%s%sm", sign, num);
    } else if (m % 1000u == 0) {
        fmt_u128(m / 1000u, num, sizeof(num));
        snprintf(out, outsz, "%s%su", sign, num);
    } else {
        fmt_u128(m, num, sizeof(num));
        snprintf(out, outsz, "%s%sn", sign, num);
    }
}

/* ---- helpers for lib_k8s.c ---- */


int cel_quantity_add(const struct cel_value *a, const struct cel_value *b,
                     int sub, struct cel_value *out)
{
    qint x = q_get(a), y = q_get(b), r;

    if (sub)
        y = -y;
    r = x + y;
    if (r > (qint)QMAX || r < -(qint)QMAX)
        return -1;
    memset(out, 0, sizeof(*out));
    out->kind = CEL_V_QUANTITY;
    q_set(r, &out->v.q.lo, &out->v.q.hi);
    return 0;
}

int cel_quantity_from_int(int64_t i, struct cel_value *out)
{
    memset(out, 0, sizeof(*out));
    out->kind = CEL_V_QUANTITY;
    q_set((qint)i * 1000000000, &out->v.q.lo, &out->v.q.hi);
    return 0;
}

int cel_quantity_sign(const struct cel_value *a)
{
    qint x = q_get(a);
    return x < 0 ? -1 : x > 0;
}

int cel_quantity_as_int(const struct cel_value *a, int64_t *out)
{
    qint x = q_get(a);

    if (x % 1000000000 != 0)
        return -1;
    x /= 1000000000;
    if (x > INT64_MAX || x < INT64_MIN)
        return -1;
    *out = (int64_t)x;
    return 0;
}

double cel_quantity_approx(const struct cel_value *a)
{
    qint x = q_get(a);
    qint w = x / 1000000000, f = x % 1000000000;
    return (double)w + (double)f / 1e9;
}
