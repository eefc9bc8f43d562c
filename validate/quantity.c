/*
 * quantity.c - resource.Quantity (see quantity.h), rule by rule after
 * apimachinery's pkg/api/resource at v0.36.0: the scanner and the two
 * paths of ParseQuantity (quantity.go), the suffixes (suffix.go), the
 * canonical form (CanonicalizeBytes, amount.go), Cmp, the arithmetic, the
 * integer views (math.go, scale_int.go) and AsApproximateFloat64.
 * tests/k8s/apimachinery/QUANTITY.md has the rules with line numbers.
 */
#include "quantity.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* scalar typedefs (not structs): __int128 needs __extension__ under
 * -Wpedantic, once, here */
__extension__ typedef __int128 qint;
__extension__ typedef unsigned __int128 quint;

#define QMAX ((quint)(((quint)1 << 127) - 1))     /* largest magnitude */
#define CAP ((quint)INT64_MAX)     /* BinarySI's cap (maxAllowed) */

static qint mant(const struct quantity *q)
{
    return (qint)(((quint)(uint64_t)q->hi << 64) | q->lo);
}

static void set_mant(struct quantity *q, qint m)
{
    quint u = (quint)m;

    q->lo = (uint64_t)u;
    q->hi = (int64_t)(uint64_t)(u >> 64);
}

static quint mag(qint m)
{
    return m < 0 ? (quint)0 - (quint)m : (quint)m;
}

static int fits64(qint m)
{
    return m >= INT64_MIN && m <= INT64_MAX;
}

/* 10^k, or 0 when it does not fit 127 bits (k > 38) */
static quint pow10q(int64_t k)
{
    quint p = 1;

    if (k < 0 || k > 38)
        return 0;
    while (k-- > 0)
        p *= 10;
    return p;
}

/* *x *= m within QMAX; -1 when it does not fit */
static int mul_ok(quint *x, quint m)
{
    if (*x && m > QMAX / *x)
        return -1;
    *x *= m;
    return 0;
}

/* x * 10^k within QMAX; -1 when it does not fit */
static int scale_up(quint *x, int64_t k)
{
    quint p;

    if (!*x)
        return 0;
    p = pow10q(k);
    return p ? mul_ok(x, p) : -1;
}

/* x / 10^k: *q and whether a remainder was left */
static void scale_down(quint x, int64_t k, quint *q, int *rem)
{
    quint p = pow10q(k);

    if (!p) {                   /* 10^k > x */
        *q = 0;
        *rem = x != 0;
        return;
    }
    *q = x / p;
    *rem = x % p != 0;
}

/* ==== parsing ============================================================ */

struct scan {
    int positive;
    const char *value;          /* sign, digits, '.', digits */
    size_t nvalue;
    const char *num, *denom, *suf;
    size_t nnum, ndenom, nsuf;
};

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static size_t digits_end(const char *s, size_t i, size_t n)
{
    while (i < n && is_digit(s[i]))
        i++;
    return i;
}

/* parseQuantityString: 0, or -1 (ErrFormatWrong) */
static int scan(const char *s, size_t n, struct scan *o)
{
    size_t pos = 0, i;

    memset(o, 0, sizeof(*o));
    o->positive = 1;
    o->num = "0";
    o->nnum = 1;
    o->value = s;
    if (n && (s[0] == '-' || s[0] == '+')) {
        o->positive = s[0] == '+';
        pos++;
    }
    while (pos < n && s[pos] == '0')
        pos++;
    if (pos >= n) {             /* nothing but zeros: 0 */
        o->value = "0";
        o->nvalue = 1;
        return 0;
    }
    i = digits_end(s, pos, n);
    if (i > pos) {
        o->num = s + pos;
        o->nnum = i - pos;
    }
    if (i < n && s[i] == '.') {
        pos = i + 1;
        i = digits_end(s, pos, n);
        o->denom = s + pos;
        o->ndenom = i - pos;
    }
    if (i >= n) {               /* no suffix */
        o->nvalue = n;
        return 0;
    }
    pos = i;
    o->nvalue = pos;
    o->suf = s + pos;
    while (pos < n && s[pos] && strchr("eEinumkKMGTP", s[pos]))
        pos++;
    if (pos < n && (s[pos] == '-' || s[pos] == '+'))
        pos++;
    while (pos < n && is_digit(s[pos]))
        pos++;
    if (pos < n)
        return -1;
    o->nsuf = (size_t)(s + n - o->suf);
    return 0;
}

/* Go's strconv.ParseInt(s, 10, 64) */
static int parse_i64(const char *s, size_t n, int64_t *out)
{
    quint v = 0, lim = (quint)INT64_MAX;
    size_t i = 0;
    int neg = 0;

    if (n && (s[0] == '+' || s[0] == '-')) {
        neg = s[0] == '-';
        i++;
    }
    if (i >= n)
        return -1;
    if (neg)
        lim++;
    for (; i < n; i++) {
        if (!is_digit(s[i]))
            return -1;
        v = v * 10 + (quint)(s[i] - '0');
        if (v > lim)
            return -1;
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 0;
}

/* quantitySuffixer.interpret: base 10 or 2, the exponent, the Format */
static int interpret(const char *s, size_t n, int *base, int32_t *exp,
                     int *format)
{
    static const struct {
        const char *s;
        int base;
        int32_t exp;
    } table[] = {
        {"", 10, 0}, {"n", 10, -9}, {"u", 10, -6}, {"m", 10, -3},
        {"k", 10, 3}, {"M", 10, 6}, {"G", 10, 9}, {"T", 10, 12},
        {"P", 10, 15}, {"E", 10, 18}, {"Ki", 2, 10}, {"Mi", 2, 20},
        {"Gi", 2, 30}, {"Ti", 2, 40}, {"Pi", 2, 50}, {"Ei", 2, 60},
    };
    size_t i;
    int64_t e;

    for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)
        if (strlen(table[i].s) == n && !memcmp(table[i].s, s, n)) {
            *base = table[i].base;
            *exp = table[i].exp;
            *format = table[i].base == 2 ? QF_BINARY_SI : QF_DECIMAL_SI;
            return 0;
        }
    if (n > 1 && (s[0] == 'e' || s[0] == 'E')
        && parse_i64(s + 1, n - 1, &e) == 0) {
        *base = 10;
        *exp = (int32_t)(uint32_t)(uint64_t)e;  /* Go: int32(parsed) */
        *format = QF_DECIMAL_EXPONENT;
        return 0;
    }
    return -1;
}

/* The int64Amount path: few digits, scale >= nano, the product fits. */
static int parse_fast(const struct scan *sc, int base, int32_t exponent,
                      int format, struct quantity *q)
{
    int64_t precision, scale = 0, mantissa = 1, value = 0;
    size_t i;
    qint r;

    if (base == 10) {
        scale = exponent;
        precision = 18 - (int64_t)(sc->nnum + sc->ndenom);
    } else if (exponent >= 0 && !sc->ndenom) {
        mantissa = (int64_t)1 << exponent;
        precision = 15 - (int64_t)sc->nnum
                    - (int32_t)((float)exponent * 3 / 10) - 1;
    } else {
        precision = -1;
    }
    if (precision < 0)
        return -1;
    scale -= (int64_t)sc->ndenom;
    if (scale < -9)
        return -1;
    for (i = 0; i < sc->nnum; i++)
        value = value * 10 + (sc->num[i] - '0');
    for (i = 0; i < sc->ndenom; i++)
        value = value * 10 + (sc->denom[i] - '0');
    r = (qint)value * mantissa;
    if (!fits64(r))
        return -1;
    set_mant(q, sc->positive ? r : -r);
    q->exp = (int32_t)scale;
    q->format = (unsigned char)format;
    q->dec = 0;
    return 0;
}

/* The inf.Dec path: exact digits, the suffix applied, rounded up to 1n,
 * BinarySI capped. */
static int parse_dec(const struct scan *sc, int base, int32_t exponent,
                     int format, struct quantity *q)
{
    quint u = 0;
    int64_t frac = 0, scale, zeros = 0;
    int digits = 0, seen_dot = 0, rem;
    size_t i;

    /* the digits, trailing zeros held back (they only scale the value) */
    for (i = 0; i < sc->nvalue; i++) {
        char c = sc->value[i];
        if (c == '.') {
            seen_dot = 1;
            continue;
        }
        if (!is_digit(c))
            continue;
        digits = 1;
        frac += seen_dot;
        if (c == '0') {
            zeros++;
            continue;
        }
        if (scale_up(&u, zeros) < 0 || mul_ok(&u, 10) < 0
            || u > QMAX - (quint)(c - '0'))
            return QE_RANGE;
        u += (quint)(c - '0');
        zeros = 0;
    }
    if (!digits)
        return QE_NUMERIC;
    if (!u)
        zeros = 0;
    scale = frac - zeros;               /* inf.Dec's scale: -exponent */
    if (base == 10) {
        scale -= exponent;
    } else if (u) {
        /* past the cap the value is the cap, however far past: decided
         * on the integer part when the exact product would not fit */
        quint ip, sh = 0;
        int lost;
        if (scale < 0 && scale_up(&u, -scale) < 0)
            goto capped;        /* more than 10^38: far past the cap */
        if (scale < 0)
            scale = 0;
        lost = u > (QMAX >> exponent);          /* u * 2^e > QMAX */
        scale_down(u, scale, &ip, &rem);
        if (!lost)
            sh = u << exponent;
        if (ip > (CAP >> exponent)
            || (scale <= 19 && (lost || sh > CAP * pow10q(scale))))
            goto capped;
        if (lost)
            return QE_RANGE;
        u = sh;
    }
    if (u) {                            /* round up to nano */
        if (scale < 9) {
            /* Kubernetes holds it at scale 9; past 127 bits the same
             * value stays at its own scale */
            if (scale_up(&u, 9 - scale) == 0)
                scale = 9;
        } else if (scale > 9) {
            scale_down(u, scale - 9, &u, &rem);
            u += (quint)rem;
            scale = 9;
        }
        if (format == QF_BINARY_SI && scale == 9 && u < pow10q(9))
            format = QF_DECIMAL_SI;     /* 0 < x < 1 */
    }
    if (scale > INT32_MAX || scale < -(int64_t)INT32_MAX)
        return QE_RANGE;
    set_mant(q, sc->positive ? (qint)u : -(qint)u);
    q->exp = (int32_t)-scale;
    q->format = (unsigned char)format;
    q->dec = 1;
    return 0;
capped:
    set_mant(q, sc->positive ? (qint)CAP : -(qint)CAP);
    q->exp = 0;
    q->format = QF_BINARY_SI;
    q->dec = 1;
    return 0;
}

int quantity_parse(const char *s, size_t n, struct quantity *q)
{
    struct scan sc;
    int base, format, r;
    int32_t exponent;

    memset(q, 0, sizeof(*q));
    if (n == 0)
        return QE_FORMAT;
    if (n == 1 && s[0] == '0')
        return QE_OK;                   /* DecimalSI, as the fast path */
    if (scan(s, n, &sc) < 0)
        return QE_FORMAT;
    if (interpret(sc.suf ? sc.suf : "", sc.nsuf, &base, &exponent,
                  &format) < 0)
        return QE_SUFFIX;
    if (parse_fast(&sc, base, exponent, format, q) == 0)
        return QE_OK;
    r = parse_dec(&sc, base, exponent, format, q);
    if (r < 0)
        memset(q, 0, sizeof(*q));
    return r;
}

/* Go's strings.TrimSpace: the length of a Unicode space at s, or 0 */
static size_t space_at(const unsigned char *s, size_t n)
{
    static const unsigned char *const wide[] = {
        (const unsigned char *)"\xc2\x85", (const unsigned char *)"\xc2\xa0",
        (const unsigned char *)"\xe1\x9a\x80",
        (const unsigned char *)"\xe2\x80\xa8",
        (const unsigned char *)"\xe2\x80\xa9",
        (const unsigned char *)"\xe2\x80\xaf",
        (const unsigned char *)"\xe2\x81\x9f",
        (const unsigned char *)"\xe3\x80\x80",
    };
    size_t i;

    if (n && (*s == ' ' || (*s >= '\t' && *s <= '\r')))
        return 1;
    if (n >= 3 && s[0] == 0xe2 && s[1] == 0x80 && s[2] >= 0x80
        && s[2] <= 0x8a)
        return 3;               /* U+2000..U+200A */
    for (i = 0; i < sizeof(wide) / sizeof(wide[0]); i++) {
        size_t l = strlen((const char *)wide[i]);
        if (n >= l && !memcmp(s, wide[i], l))
            return l;
    }
    return 0;
}

/* the same for a space ending at s + n */
static size_t space_before(const unsigned char *s, size_t n)
{
    size_t l;

    for (l = 1; l <= 3 && l <= n; l++)
        if (space_at(s + n - l, l) == l)
            return l;
    return 0;
}

int quantity_unmarshal(const char *s, size_t n, struct quantity *q)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t l;

    memset(q, 0, sizeof(*q));
    if (n == 4 && !memcmp(s, "null", 4)) {
        q->format = QF_UNSET;
        return QE_OK;
    }
    if (n >= 2 && s[0] == '"' && s[n - 1] == '"') {
        p++;
        n -= 2;
    }
    for (;;) {
        l = space_at(p, n);
        if (!l)
            break;
        p += l;
        n -= l;
    }
    for (;;) {
        l = space_before(p, n);
        if (!l)
            break;
        n -= l;
    }
    return quantity_parse((const char *)p, n, q);
}

int quantity_from_text(const char *text, struct quantity *q)
{
    if (!text) {
        memset(q, 0, sizeof(*q));
        return QE_FORMAT;
    }
    return quantity_unmarshal(text, strlen(text), q);
}

const char *quantity_error(int err)
{
    switch (err) {
    case QE_FORMAT:
        return "quantities must match the regular expression "
               "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
    case QE_NUMERIC:
        return "unable to parse numeric part of quantity";
    case QE_SUFFIX:
        return "unable to parse quantity's suffix";
    case QE_RANGE:
        return "quantity too large for claimcheck (more than 127 bits at "
               "its scale)";
    default:
        return "";
    }
}

/* ==== the canonical form ================================================= */

static size_t put_digits(quint v, char *buf)
{
    char tmp[48];
    size_t i = 0, n = 0;

    do {
        tmp[i++] = (char)('0' + (int)(v % 10));
        v /= 10;
    } while (v);
    while (i)
        buf[n++] = tmp[--i];
    return n;
}

size_t quantity_string(const struct quantity *q, char *out, size_t outsz)
{
    static const char *const dec_suf[] = {"n", "u", "m", "", "k", "M",
                                          "G", "T", "P", "E"};
    static const char *const bin_suf[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi",
                                          "Ei"};
    static const struct quantity lo1024 = {(uint64_t)-1024, -1, 0, 0, 0};
    static const struct quantity hi1024 = {1024, 0, 0, 0, 0};
    char num[64], suffix[24] = "";
    qint m = mant(q);
    quint a = mag(m);
    int64_t e = q->exp;
    int format = q->format, zeros = 0;
    size_t n = 0;

    if (m == 0)
        return (size_t)snprintf(out, outsz, "0");
    if (format == QF_BINARY_SI) {
        /* small or fractional values print as DecimalSI (no rounding);
         * else the integer in base 1024 */
        struct quantity r = *q;
        quint b;
        if ((quantity_cmp(q, &lo1024) > 0 && quantity_cmp(q, &hi1024) < 0)
            || quantity_round_up(&r, 0) != 1)
            format = QF_DECIMAL_SI;
        b = mag(mant(&r));
        if (format == QF_BINARY_SI && scale_up(&b, r.exp) < 0)
            format = QF_DECIMAL_SI;     /* beyond 127 bits */
        if (format == QF_BINARY_SI)
            a = b;
    } else if (format != QF_DECIMAL_SI) {
        format = QF_DECIMAL_EXPONENT;
    }
    if (m < 0)
        num[n++] = '-';
    if (format == QF_BINARY_SI) {
        int times = 0;
        while (a >= 1024 && a % 1024 == 0) {
            a /= 1024;
            times++;
        }
        n += put_digits(a, num + n);
        if (times < 7)
            snprintf(suffix, sizeof(suffix), "%s", bin_suf[times]);
    } else {
        /* factors of 10 into the exponent, then down to a multiple of 3
         * (appending zeros, never overflowing) */
        while (a >= 10 && a % 10 == 0) {
            a /= 10;
            e++;
        }
        while (e % 3 != 0) {
            zeros++;
            e--;
        }
        n += put_digits(a, num + n);
        while (zeros-- > 0 && n < sizeof(num) - 1)
            num[n++] = '0';
        if (format == QF_DECIMAL_SI) {
            if (e >= -9 && e <= 18)
                snprintf(suffix, sizeof(suffix), "%s", dec_suf[(e + 9) / 3]);
        } else if (e != 0) {
            snprintf(suffix, sizeof(suffix), "e%lld", (long long)e);
        }
    }
    num[n] = 0;
    return (size_t)snprintf(out, outsz, "%s%s", num, suffix);
}

/* ==== comparison and arithmetic ========================================== */

/* |a| * 10^(ea - eb) against |b|: -1, 0, 1 */
static int cmp_mag(quint a, int64_t ea, quint b, int64_t eb)
{
    if (!a || !b)
        return a ? 1 : b ? -1 : 0;
    if (ea >= eb) {
        if (scale_up(&a, ea - eb) < 0)
            return 1;
    } else if (scale_up(&b, eb - ea) < 0) {
        return -1;
    }
    return a < b ? -1 : a > b;
}

int quantity_cmp(const struct quantity *a, const struct quantity *b)
{
    qint x = mant(a), y = mant(b);
    int sx = x < 0 ? -1 : x > 0, sy = y < 0 ? -1 : y > 0, c;

    if (sx != sy)
        return sx < sy ? -1 : 1;
    c = cmp_mag(mag(x), a->exp, mag(y), b->exp);
    return sx < 0 ? -c : c;
}

int quantity_sign(const struct quantity *q)
{
    qint m = mant(q);

    return m < 0 ? -1 : m > 0;
}

/* x * 10^k for an int64 mantissa: fits int64 (positiveScaleInt64) */
static int scale_up64(qint x, int64_t k, qint *out)
{
    quint a = mag(x);

    if (scale_up(&a, k) < 0 || a > (quint)INT64_MAX + (x < 0))
        return -1;
    *out = x < 0 ? -(qint)a : (qint)a;
    return 0;
}

/* int64Amount.Add: 1 when the int64 form holds the sum */
static int add64(struct quantity *q, qint b, int32_t bexp)
{
    qint a = mant(q), c;

    if (b == 0)
        return 1;
    if (a == 0) {
        set_mant(q, b);
        q->exp = bexp;
        return 1;
    }
    if (q->exp > bexp) {
        if (scale_up64(a, (int64_t)q->exp - bexp, &a) < 0)
            return 0;
        q->exp = bexp;
    } else if (q->exp < bexp && scale_up64(b, (int64_t)bexp - q->exp,
                                           &b) < 0) {
        return 0;
    }
    c = a + b;
    if (!fits64(c))
        return 0;
    set_mant(q, c);
    return 1;
}

/* inf.Dec's Add: the exact sum at the smaller exponent */
static int add_dec(struct quantity *q, qint b, int32_t bexp)
{
    quint x = mag(mant(q)), y = mag(b);
    int32_t e = q->exp < bexp ? q->exp : bexp;
    qint r;

    if (scale_up(&x, (int64_t)q->exp - e) < 0
        || scale_up(&y, (int64_t)bexp - e) < 0)
        return QE_RANGE;
    r = mant(q) < 0 ? -(qint)x : (qint)x;
    if ((b < 0 && r < -(qint)QMAX + (qint)y)
        || (b >= 0 && r > (qint)QMAX - (qint)y))
        return QE_RANGE;
    set_mant(q, b < 0 ? r - (qint)y : r + (qint)y);
    q->exp = e;
    q->dec = 1;
    return QE_OK;
}

int quantity_add(struct quantity *q, const struct quantity *y)
{
    struct quantity save = *q;
    int r;

    if (!q->dec && !y->dec) {
        if (mant(q) == 0)
            q->format = y->format;
        if (add64(q, mant(y), y->exp))
            return QE_OK;
        *q = save;
        if (mant(q) == 0)
            q->format = y->format;
    } else if (mant(q) == 0) {
        q->format = y->format;
    }
    r = add_dec(q, mant(y), y->exp);
    if (r < 0)
        *q = save;
    return r;
}

int quantity_sub(struct quantity *q, const struct quantity *y)
{
    struct quantity save = *q;
    qint b = mant(y);
    int r;

    if (mant(q) == 0)
        q->format = y->format;
    /* Go negates the int64 value in place: -MinInt64 stays MinInt64 */
    if (!q->dec && !y->dec
        && add64(q, b == INT64_MIN ? b : -b, y->exp))
        return QE_OK;
    q->lo = save.lo;
    q->hi = save.hi;
    q->exp = save.exp;
    r = add_dec(q, -b, y->exp);
    if (r < 0)
        *q = save;
    return r;
}

void quantity_neg(struct quantity *q)
{
    qint m = mant(q);

    if (!q->dec && m == INT64_MIN)
        return;                 /* Go's int64 negation wraps */
    set_mant(q, -m);
}

int quantity_mul(struct quantity *q, int64_t y)
{
    qint a = mant(q), c;
    quint u;
    int rem;

    if (!q->dec) {
        if (a == 0)
            return 1;
        if (y == 0) {
            set_mant(q, 0);
            q->exp = 0;
            return 1;
        }
        c = a * y;
        if (fits64(c)) {
            if (q->exp > 0) {
                if (scale_up64(c, q->exp, &(qint){0}) == 0) {
                    set_mant(q, c);
                    return 1;
                }
            } else if (q->exp == 0) {
                set_mant(q, c);
                return 1;
            } else {
                scale_down(mag(c), -(int64_t)q->exp, &u, &rem);
                if (!rem) {
                    set_mant(q, c);
                    return 1;
                }
            }
        }
    }
    u = mag(a);
    if (mul_ok(&u, mag(y)) < 0)
        return QE_RANGE;
    set_mant(q, (a < 0) != (y < 0) ? -(qint)u : (qint)u);
    q->dec = 1;
    return fits64(mant(q));
}

int quantity_round_up(struct quantity *q, int32_t scale)
{
    qint m = mant(q);
    quint u = mag(m);
    int rem;

    if (q->exp >= scale) {
        if (!q->dec || q->exp == scale)
            return 1;
        if (scale_up(&u, (int64_t)q->exp - scale) < 0)
            return QE_RANGE;
        set_mant(q, m < 0 ? -(qint)u : (qint)u);
        q->exp = scale;
        return 1;
    }
    scale_down(u, (int64_t)scale - q->exp, &u, &rem);
    u += (quint)rem;            /* away from zero */
    set_mant(q, m < 0 ? -(qint)u : (qint)u);
    q->exp = scale;
    return !rem;
}

/* ==== integer and float views ============================================ */

int quantity_as_int64(const struct quantity *q, int64_t *out)
{
    qint v;

    if (q->dec || q->exp < 0)
        return 0;
    if (scale_up64(mant(q), q->exp, &v) < 0)
        return 0;
    *out = (int64_t)v;
    return 1;
}

/* Go's int64(math.Pow10(k)) on amd64: past 10^18 the conversion gives
 * the "integer indefinite" value */
static int64_t pow10_i64(int64_t k)
{
    return k <= 18 ? (int64_t)pow10q(k) : INT64_MIN;
}

/* big.Int.Int64(): the low 64 bits */
static int64_t low64(qint m)
{
    return (int64_t)(uint64_t)(quint)m;
}

int64_t quantity_scaled_value(const struct quantity *q, int32_t scale)
{
    qint m = mant(q), v;
    int64_t dif = (int64_t)scale - q->exp;
    quint u;
    int rem;

    if (!q->dec) {              /* int64Amount.AsScaledInt64 */
        if (dif > 0) {          /* negativeScaleInt64: away from zero */
            scale_down(mag(m), dif, &u, &rem);
            u += (quint)rem;
            return m < 0 ? -(int64_t)u : (int64_t)u;
        }
        if (scale_up64(m, -dif, &v) == 0)
            return (int64_t)v;
        /* positiveScaleInt64 past int64: 1, 2, 3, 6 and 9 digits give
         * the wrapped product (but not for MinInt64), the others 0 */
        if (m != INT64_MIN && (-dif == 1 || -dif == 2 || -dif == 3
                               || -dif == 6 || -dif == 9))
            return (int64_t)((uint64_t)low64(m) * (uint64_t)pow10_i64(-dif));
        return 0;
    }
    /* scaledValue() of scale_int.go */
    if (dif == 0)
        return low64(m);
    if (dif < 0)
        return (int64_t)((uint64_t)low64(m) * (uint64_t)pow10_i64(-dif));
    if (m < INT64_MAX && dif < 19) {
        int64_t x = low64(m), d = pow10_i64(dif);
        return x / d + (x % d != 0);
    }
    /* Euclidean division, then one up for a remainder */
    scale_down(mag(m), dif, &u, &rem);
    if (m < 0 && rem)
        u++;                    /* floor of a negative quotient */
    v = m < 0 ? -(qint)u : (qint)u;
    return (int64_t)((uint64_t)low64(v) + (uint64_t)rem);  /* Go wraps */
}

int quantity_is_whole(const struct quantity *q)
{
    return quantity_scaled_value(q, -3) % 1000 == 0;
}

/* Go's math.Pow10 */
static double go_pow10(int64_t n)
{
    static const double tab[] = {
        1e00, 1e01, 1e02, 1e03, 1e04, 1e05, 1e06, 1e07, 1e08, 1e09,
        1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
        1e20, 1e21, 1e22, 1e23, 1e24, 1e25, 1e26, 1e27, 1e28, 1e29,
        1e30, 1e31,
    };
    static const double pos32[] = {
        1e00, 1e32, 1e64, 1e96, 1e128, 1e160, 1e192, 1e224, 1e256, 1e288,
    };
    static const double neg32[] = {
        1e-00, 1e-32, 1e-64, 1e-96, 1e-128, 1e-160, 1e-192, 1e-224,
        1e-256, 1e-288, 1e-320,
    };

    if (n >= 0 && n <= 308)
        return pos32[n / 32] * tab[n % 32];
    if (n >= -323 && n <= 0)
        return neg32[-n / 32] / tab[-n % 32];
    return n > 0 ? (double)INFINITY : 0;
}

double quantity_approx_float(const struct quantity *q)
{
    double base = (double)mant(q);

    if (q->exp == 0)
        return base;
    return base * go_pow10(q->exp);
}

void quantity_from_int(int64_t value, int32_t scale, enum quantity_format f,
                       struct quantity *q)
{
    memset(q, 0, sizeof(*q));
    set_mant(q, value);
    q->exp = scale;
    q->format = (unsigned char)f;
}
