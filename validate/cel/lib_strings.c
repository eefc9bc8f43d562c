/*
 * lib_strings.c - cel-go's ext strings library (v2+): charAt, indexOf,
 * lastIndexOf, lowerAscii, upperAscii, replace, split, substring, trim,
 * join, strings.quote, reverse and format. Indices count code points, as
 * cel-go does; results are allocated in the evaluation scratch.
 */
#include "cel_internal.h"

#include <stdio.h>
#include <string.h>

#define FMT_MAX_PREC 1000   /* digits after `%.` in format() */

static size_t cp_len(unsigned char c)
{
    if (c < 0x80)
        return 1;
    if ((c & 0xE0) == 0xC0)
        return 2;
    if ((c & 0xF0) == 0xE0)
        return 3;
    if ((c & 0xF8) == 0xF0)
        return 4;
    return 1;
}

/* byte offset of code point index i, or (size_t)-1 when i > length */
static size_t cp_off(const char *s, size_t n, int64_t i)
{
    size_t o = 0;

    if (i < 0)
        return (size_t)-1;
    while (i > 0 && o < n) {
        o += cp_len((unsigned char)s[o]);
        i--;
    }
    if (i > 0)
        return (size_t)-1;
    return o > n ? n : o;
}

static int64_t cp_index(const char *s, size_t off)
{
    size_t o = 0;
    int64_t i = 0;

    while (o < off) {
        o += cp_len((unsigned char)s[o]);
        i++;
    }
    return i;
}

F(f_char_at)
{
    size_t o, l;

    (void)na;
    if (a[0].kind != CEL_V_STRING || a[1].kind != CEL_V_INT)
        return cel_no_overload(ev, n, a, 2);
    o = cp_off(a[0].v.s.p, a[0].v.s.n, a[1].v.i);
    if (o == (size_t)-1)
        return cel_verr(ev, "index out of range: %lld", (long long)a[1].v.i);
    if (o >= a[0].v.s.n)
        return cel_vstr("", 0);
    l = cp_len((unsigned char)a[0].v.s.p[o]);
    return cel_vstr(a[0].v.s.p + o, l);
}

static int64_t find_fwd(const char *h, size_t hn, const char *nd, size_t nn,
                        size_t from)
{
    size_t i;

    for (i = from; i + nn <= hn; i++) {
        if (nn == 0 || memcmp(h + i, nd, nn) == 0)
            return (int64_t)i;
    }
    return -1;
}

F(f_index_of)
{
    size_t from = 0;
    int64_t r;

    if (a[0].kind == CEL_V_LIST)
        return cel_list_index_of(ev, n, a, na, 0);
    if (a[0].kind != CEL_V_STRING || a[1].kind != CEL_V_STRING ||
        (na == 3 && a[2].kind != CEL_V_INT))
        return cel_no_overload(ev, n, a, na);
    if (na == 3) {
        from = cp_off(a[0].v.s.p, a[0].v.s.n, a[2].v.i);
        if (from == (size_t)-1)
            return cel_verr(ev, "index out of range: %lld",
                            (long long)a[2].v.i);
    }
    r = find_fwd(a[0].v.s.p, a[0].v.s.n, a[1].v.s.p, a[1].v.s.n, from);
    return cel_vint(r < 0 ? -1 : cp_index(a[0].v.s.p, (size_t)r));
}

F(f_last_index_of)
{
    const char *h = a[0].v.s.p, *nd = a[1].v.s.p;
    size_t hn = a[0].v.s.n, nn = a[1].v.s.n, start;
    int64_t i;

    if (a[0].kind == CEL_V_LIST)
        return cel_list_index_of(ev, n, a, na, 1);
    if (a[0].kind != CEL_V_STRING || a[1].kind != CEL_V_STRING ||
        (na == 3 && a[2].kind != CEL_V_INT))
        return cel_no_overload(ev, n, a, na);
    start = hn;
    if (na == 3) {
        start = cp_off(h, hn, a[2].v.i);
        if (start == (size_t)-1 || (start >= hn && hn > 0 && a[2].v.i > 0 &&
                                    cp_index(h, hn) <= a[2].v.i))
            return cel_verr(ev, "index out of range: %lld",
                            (long long)a[2].v.i);
    }
    if (nn == 0)
        return cel_vint(cp_index(h, start));
    for (i = (int64_t)(start + nn > hn ? hn - (nn > hn ? hn : nn) : start);
         i >= 0; i--) {
        if ((size_t)i + nn <= hn && memcmp(h + i, nd, nn) == 0)
            return cel_vint(cp_index(h, (size_t)i));
    }
    return cel_vint(-1);
}

static struct cel_value ascii_case(struct cel_eval *ev,
                                   const struct cel_value *s, int upper)
{
    char *d = cel_ev_alloc(ev, s->v.s.n + 1);
    size_t i;

    for (i = 0; i < s->v.s.n; i++) {
        char c = s->v.s.p[i];
        if (upper && c >= 'a' && c <= 'z')
            c = (char)(c - 32);
        else if (!upper && c >= 'A' && c <= 'Z')
            c = (char)(c + 32);
        d[i] = c;
    }
    d[s->v.s.n] = 0;
    return cel_vstr(d, s->v.s.n);
}

F(f_lower)
{
    (void)na;
    if (a[0].kind != CEL_V_STRING)
        return cel_no_overload(ev, n, a, 1);
    return ascii_case(ev, &a[0], 0);
}

F(f_upper)
{
    (void)na;
    if (a[0].kind != CEL_V_STRING)
        return cel_no_overload(ev, n, a, 1);
    return ascii_case(ev, &a[0], 1);
}

F(f_replace)
{
    const char *s = a[0].v.s.p, *old = a[1].v.s.p, *nw = a[2].v.s.p;
    size_t sn = a[0].v.s.n, on = a[1].v.s.n, nn = a[2].v.s.n;
    int64_t limit = -1, done = 0;
    size_t i = 0, o = 0, cap;
    char *d;

    if (a[0].kind != CEL_V_STRING || a[1].kind != CEL_V_STRING ||
        a[2].kind != CEL_V_STRING || (na == 4 && a[3].kind != CEL_V_INT))
        return cel_no_overload(ev, n, a, na);
    if (na == 4)
        limit = a[3].v.i;
    {
        /* bound the result before building it */
        uint64_t hits = 0;
        size_t k;
        if (on == 0) {
            /* step exactly as the copy loop below does, so malformed
             * UTF-8 cannot make the two disagree (fuzz_cel finding) */
            for (k = 0; k < sn;) {
                size_t l = cp_len((unsigned char)s[k]);
                if (l == 0 || k + l > sn)
                    l = l == 0 ? 1 : sn - k;
                hits++;
                k += l;
            }
            hits++;
        } else {
            for (k = 0; k + on <= sn;) {
                if (memcmp(s + k, old, on) == 0) {
                    hits++;
                    k += on;
                } else {
                    k++;
                }
            }
        }
        if (limit >= 0 && hits > (uint64_t)limit)
            hits = (uint64_t)limit;
        if (hits * nn + sn > CEL_MAX_STRING)
            return cel_verr(ev, "string too large");
        if (cel_work_guard(ev, (hits * nn + sn) / 10) < 0)
            return cel_verr(ev, "%s", CEL_COST_MSG);
        cap = sn + (size_t)hits * nn + 1;
    }
    d = cel_ev_alloc(ev, cap);
    while (i <= sn) {
        if ((limit < 0 || done < limit) &&
            (on == 0 || (i + on <= sn && memcmp(s + i, old, on) == 0))) {
            memcpy(d + o, nw, nn);
            o += nn;
            done++;
            if (on) {
                i += on;
                continue;
            }
        }
        if (i == sn)
            break;
        {
            size_t l = on ? 1 : cp_len((unsigned char)s[i]);
            if (l == 0)
                l = 1;
            if (i + l > sn)
                l = sn - i;
            memcpy(d + o, s + i, l);
            o += l;
            i += l;
        }
    }
    d[o] = 0;
    return cel_vstr(d, o);
}

F(f_split)
{
    const char *s = a[0].v.s.p, *sep = a[1].v.s.p;
    size_t sn = a[0].v.s.n, pn = a[1].v.s.n, i = 0, k = 0, start = 0;
    int64_t limit = -1;
    struct cel_value *items;

    if (a[0].kind != CEL_V_STRING || a[1].kind != CEL_V_STRING ||
        (na == 3 && a[2].kind != CEL_V_INT))
        return cel_no_overload(ev, n, a, na);
    if (na == 3)
        limit = a[2].v.i;
    if (limit == 0)
        return cel_vlist(ev, NULL, 0);
    if (cel_work_guard(ev, sn) < 0)
        return cel_verr(ev, "%s", CEL_COST_MSG);
    items = (struct cel_value *)cel_ev_alloc(ev, (sn + 2) * sizeof(*items));
    if (pn == 0) {
        while (i < sn) {
            size_t l = cp_len((unsigned char)s[i]);
            if (limit > 0 && (int64_t)k == limit - 1) {
                items[k++] = cel_vstr(s + i, sn - i);
                return cel_vlist(ev, items, k);
            }
            items[k++] = cel_vstr(s + i, l);
            i += l;
        }
        return cel_vlist(ev, items, k);
    }
    while (i + pn <= sn) {
        if ((limit < 0 || (int64_t)k < limit - 1) &&
            memcmp(s + i, sep, pn) == 0) {
            items[k++] = cel_vstr(s + start, i - start);
            i += pn;
            start = i;
            continue;
        }
        i++;
    }
    items[k++] = cel_vstr(s + start, sn - start);
    return cel_vlist(ev, items, k);
}

F(f_substring)
{
    size_t so, eo;

    if (a[0].kind != CEL_V_STRING || a[1].kind != CEL_V_INT ||
        (na == 3 && a[2].kind != CEL_V_INT))
        return cel_no_overload(ev, n, a, na);
    so = cp_off(a[0].v.s.p, a[0].v.s.n, a[1].v.i);
    if (so == (size_t)-1)
        return cel_verr(ev, "index out of range: %lld", (long long)a[1].v.i);
    eo = a[0].v.s.n;
    if (na == 3) {
        if (a[2].v.i < a[1].v.i)
            return cel_verr(ev, "invalid substring range. start: %lld, "
                            "end: %lld", (long long)a[1].v.i,
                            (long long)a[2].v.i);
        eo = cp_off(a[0].v.s.p, a[0].v.s.n, a[2].v.i);
        if (eo == (size_t)-1)
            return cel_verr(ev, "index out of range: %lld",
                            (long long)a[2].v.i);
    }
    return cel_vstr(a[0].v.s.p + so, eo - so);
}

/* unicode.IsSpace; returns byte length of the space at s, or 0 */
static size_t space_at(const unsigned char *s, size_t n)
{
    if (n == 0)
        return 0;
    if (s[0] == ' ' || (s[0] >= '\t' && s[0] <= '\r'))
        return 1;
    if (n >= 2 && s[0] == 0xC2 && (s[1] == 0x85 || s[1] == 0xA0))
        return 2;
    if (n >= 3 && s[0] == 0xE1 && s[1] == 0x9A && s[2] == 0x80)
        return 3;
    if (n >= 3 && s[0] == 0xE2 && s[1] == 0x80 &&
        (s[2] <= 0x8A || s[2] == 0xA8 || s[2] == 0xA9 || s[2] == 0xAF))
        return 3;
    if (n >= 3 && s[0] == 0xE2 && s[1] == 0x81 && s[2] == 0x9F)
        return 3;
    if (n >= 3 && s[0] == 0xE3 && s[1] == 0x80 && s[2] == 0x80)
        return 3;
    return 0;
}

static size_t space_before(const unsigned char *s, size_t end)
{
    size_t k;
    for (k = 1; k <= 3 && k <= end; k++) {
        if (space_at(s + end - k, k) == k)
            return k;
    }
    return 0;
}

F(f_trim)
{
    const unsigned char *s = (const unsigned char *)a[0].v.s.p;
    size_t b = 0, e = a[0].v.s.n, l;

    (void)na;
    if (a[0].kind != CEL_V_STRING)
        return cel_no_overload(ev, n, a, 1);
    while (b < e) {
        l = space_at(s + b, e - b);
        if (!l)
            break;
        b += l;
    }
    while (e > b) {
        l = space_before(s, e);
        if (!l)
            break;
        e -= l;
    }
    return cel_vstr(a[0].v.s.p + b, e - b);
}

F(f_join)
{
    const struct cel_list *l;
    const char *sep = "";
    size_t sn = 0, total = 0, i, o = 0;
    char *d;

    if (a[0].kind != CEL_V_LIST || (na == 2 && a[1].kind != CEL_V_STRING))
        return cel_no_overload(ev, n, a, na);
    l = a[0].v.l;
    if (na == 2) {
        sep = a[1].v.s.p;
        sn = a[1].v.s.n;
    }
    for (i = 0; i < l->n; i++) {
        if (l->v[i].kind != CEL_V_STRING)
            return cel_verr(ev, "join: list element %zu is not a string", i);
        total += l->v[i].v.s.n + sn;
    }
    d = cel_ev_alloc(ev, total + 1);
    for (i = 0; i < l->n; i++) {
        if (i && sn) {
            memcpy(d + o, sep, sn);
            o += sn;
        }
        if (l->v[i].v.s.n)
            memcpy(d + o, l->v[i].v.s.p, l->v[i].v.s.n);
        o += l->v[i].v.s.n;
    }
    d[o] = 0;
    return cel_vstr(d, o);
}

static int valid_seq(const unsigned char *s, size_t n, size_t *len)
{
    size_t l = cp_len(s[0]), k;
    if (s[0] >= 0x80 && (l == 1 || (s[0] & 0xC0) == 0x80))
        return 0;
    if (l > n)
        return 0;
    for (k = 1; k < l; k++) {
        if ((s[k] & 0xC0) != 0x80)
            return 0;
    }
    *len = l;
    return 1;
}

F(f_quote)
{
    const unsigned char *s = (const unsigned char *)a[0].v.s.p;
    size_t sn = a[0].v.s.n, i = 0, o = 0;
    char *d;

    (void)na;
    if (a[0].kind != CEL_V_STRING)
        return cel_no_overload(ev, n, a, 1);
    d = cel_ev_alloc(ev, sn * 3 + 3);
    d[o++] = '"';
    while (i < sn) {
        size_t l;
        unsigned char c = s[i];
        const char *esc = NULL;
        switch (c) {
        case '\a': esc = "\\a"; break;
        case '\b': esc = "\\b"; break;
        case '\f': esc = "\\f"; break;
        case '\n': esc = "\\n"; break;
        case '\r': esc = "\\r"; break;
        case '\t': esc = "\\t"; break;
        case '\v': esc = "\\v"; break;
        case '\\': esc = "\\\\"; break;
        case '"': esc = "\\\""; break;
        default: break;
        }
        if (esc) {
            memcpy(d + o, esc, 2);
            o += 2;
            i++;
            continue;
        }
        if (!valid_seq(s + i, sn - i, &l)) {
            memcpy(d + o, "\xEF\xBF\xBD", 3);
            o += 3;
            i++;
            continue;
        }
        memcpy(d + o, s + i, l);
        o += l;
        i += l;
    }
    d[o++] = '"';
    d[o] = 0;
    return cel_vstr(d, o);
}

struct cel_value cel_str_reverse(struct cel_eval *ev, const struct cel_node *n,
                                 const struct cel_value *a, unsigned na)
{
    size_t sn = a[0].v.s.n, i = 0;
    char *d;

    (void)na;
    if (a[0].kind != CEL_V_STRING)
        return cel_no_overload(ev, n, a, 1);
    d = cel_ev_alloc(ev, sn + 1);
    while (i < sn) {
        size_t l = cp_len((unsigned char)a[0].v.s.p[i]);
        if (i + l > sn)
            l = sn - i;
        memcpy(d + sn - i - l, a[0].v.s.p + i, l);
        i += l;
    }
    d[sn] = 0;
    return cel_vstr(d, sn);
}

/* ================= format ================= */

struct sbuf { char *p; size_t n, cap; struct cel_eval *ev; };

static void sb_add(struct sbuf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t nc = (b->cap + n + 1) * 2;
        char *np = cel_ev_alloc(b->ev, nc);
        if (b->n)
            memcpy(np, b->p, b->n);
        b->p = np;
        b->cap = nc;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}

static int fmt_value(struct sbuf *b, const struct cel_value *v, int nested,
                     char *err, size_t errsz);

static int fmt_str(struct sbuf *b, const struct cel_value *v, int nested,
                   char *err, size_t errsz)
{
    char tmp[128];
    size_t i;

    (void)nested;   /* cel-go prints nested strings and bytes unquoted too */
    switch (v->kind) {
    case CEL_V_STRING:
        sb_add(b, v->v.s.p, v->v.s.n);
        return 0;
    case CEL_V_BYTES:
        sb_add(b, v->v.s.p, v->v.s.n);
        return 0;
    case CEL_V_TIMESTAMP:
    case CEL_V_DURATION:
        cel_time_format(v, tmp, sizeof(tmp));
        sb_add(b, tmp, strlen(tmp));
        return 0;
    case CEL_V_LIST:
        sb_add(b, "[", 1);
        for (i = 0; i < v->v.l->n; i++) {
            if (i)
                sb_add(b, ", ", 2);
            if (fmt_value(b, &v->v.l->v[i], 1, err, errsz) < 0)
                return -1;
        }
        sb_add(b, "]", 1);
        return 0;
    case CEL_V_MAP: {
        /* cel-go sorts map keys when formatting */
        size_t nn = v->v.m->n, j, *ord;
        ord = (size_t *)cel_ev_alloc(b->ev, (nn + 1) * sizeof(*ord));
        for (i = 0; i < nn; i++)
            ord[i] = i;
        for (i = 1; i < nn; i++) {
            for (j = i; j > 0; j--) {
                char x[128], y[128];
                struct sbuf bx = { x, 0, 0, b->ev }, by = { y, 0, 0, b->ev };
                bx.p = NULL;
                by.p = NULL;
                if (fmt_value(&bx, &v->v.m->k[ord[j]], 1, err, errsz) < 0 ||
                    fmt_value(&by, &v->v.m->k[ord[j - 1]], 1, err, errsz) < 0)
                    return -1;
                if (strcmp(bx.p ? bx.p : "", by.p ? by.p : "") >= 0)
                    break;
                {
                    size_t t = ord[j];
                    ord[j] = ord[j - 1];
                    ord[j - 1] = t;
                }
            }
        }
        sb_add(b, "{", 1);
        for (i = 0; i < nn; i++) {
            if (i)
                sb_add(b, ", ", 2);
            if (fmt_value(b, &v->v.m->k[ord[i]], 1, err, errsz) < 0)
                return -1;
            sb_add(b, ": ", 2);
            if (fmt_value(b, &v->v.m->v[ord[i]], 1, err, errsz) < 0)
                return -1;
        }
        sb_add(b, "}", 1);
        return 0;
    }
    case CEL_V_DOUBLE:
        cel_format_double(v->v.d, tmp, sizeof(tmp));
        if (!strcmp(tmp, "+Inf"))
            snprintf(tmp, sizeof(tmp), "Infinity");
        else if (!strcmp(tmp, "-Inf"))
            snprintf(tmp, sizeof(tmp), "-Infinity");
        sb_add(b, tmp, strlen(tmp));
        return 0;
    case CEL_V_TYPE: {
        const char *t = cel_type_name(v->sub);
        sb_add(b, t, strlen(t));
        return 0;
    }
    case CEL_V_UINT:
        snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)v->v.u);
        sb_add(b, tmp, strlen(tmp));
        return 0;
    default:
        if (cel_value_render(v, tmp, sizeof(tmp)) < 0) {
            snprintf(err, errsz, "value too large to format");
            return -1;
        }
        sb_add(b, tmp, strlen(tmp));
        return 0;
    }
}

static int fmt_value(struct sbuf *b, const struct cel_value *v, int nested,
                     char *err, size_t errsz)
{
    return fmt_str(b, v, nested, err, errsz);
}

static void fmt_radix(struct sbuf *b, uint64_t u, int neg, int base,
                      int upper)
{
    char tmp[80];
    const char *dig = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    size_t i = sizeof(tmp);

    do {
        tmp[--i] = dig[u % (uint64_t)base];
        u /= (uint64_t)base;
    } while (u);
    if (neg)
        tmp[--i] = '-';
    sb_add(b, tmp + i, sizeof(tmp) - i);
}

F(f_format)
{
    const char *f = a[0].v.s.p;
    size_t fn = a[0].v.s.n, i = 0, argi = 0;
    const struct cel_list *args;
    struct sbuf b;
    char err[160];

    (void)na;
    if (a[0].kind != CEL_V_STRING || a[1].kind != CEL_V_LIST)
        return cel_no_overload(ev, n, a, 2);
    args = a[1].v.l;
    memset(&b, 0, sizeof(b));
    b.ev = ev;
    sb_add(&b, "", 0);
    while (i < fn) {
        int prec = -1;
        char verb;
        const struct cel_value *v;

        if (f[i] != '%') {
            sb_add(&b, f + i, 1);
            i++;
            continue;
        }
        i++;
        if (i < fn && f[i] == '%') {
            sb_add(&b, "%", 1);
            i++;
            continue;
        }
        if (i < fn && f[i] == '.') {
            prec = 0;
            i++;
            while (i < fn && f[i] >= '0' && f[i] <= '9') {
                /* bounded: glibc builds every digit of %.*f in memory */
                if (prec > FMT_MAX_PREC / 10)
                    return cel_verr(ev, "could not parse formatting "
                                    "clause: precision over %d",
                                    FMT_MAX_PREC);
                prec = prec * 10 + (f[i++] - '0');
            }
            if (prec > FMT_MAX_PREC)
                return cel_verr(ev, "could not parse formatting clause: "
                                "precision over %d", FMT_MAX_PREC);
        }
        if (i >= fn)
            return cel_verr(ev, "could not parse formatting clause: "
                            "unexpected end of string");
        verb = f[i++];
        if (argi >= args->n)
            return cel_verr(ev, "index %zu out of range", argi);
        v = &args->v[argi++];
        switch (verb) {
        case 's':
            if (fmt_str(&b, v, 0, err, sizeof(err)) < 0)
                return cel_verr(ev, "%s", err);
            break;
        case 'd':
            if (v->kind == CEL_V_INT)
                fmt_radix(&b, v->v.i < 0 ? (uint64_t)0 - (uint64_t)v->v.i
                                         : (uint64_t)v->v.i, v->v.i < 0, 10,
                          0);
            else if (v->kind == CEL_V_UINT)
                fmt_radix(&b, v->v.u, 0, 10, 0);
            else if (v->kind == CEL_V_DOUBLE && (v->v.d != v->v.d ||
                     v->v.d * 0 != 0)) {
                if (fmt_str(&b, v, 0, err, sizeof(err)) < 0)
                    return cel_verr(ev, "%s", err);
            } else
                return cel_verr(ev, "error during formatting: decimal "
                                "clause can only be used on integers, was "
                                "given %s",
                                cel_type_name(cel_value_type(v)));
            break;
        case 'f':
        case 'e': {
            /* the widest: 309 integer digits, '.', FMT_MAX_PREC digits,
             * or an exponent form of the same precision */
            char tmp[FMT_MAX_PREC + 400], fm[16];
            double d;
            if (v->kind == CEL_V_DOUBLE)
                d = v->v.d;
            else if (v->kind == CEL_V_INT)
                d = (double)v->v.i;
            else if (v->kind == CEL_V_UINT)
                d = (double)v->v.u;
            else
                return cel_verr(ev, "error during formatting: %s clause "
                                "can only be used on doubles, was given %s",
                                verb == 'f' ? "fixed-point" : "scientific",
                                cel_type_name(cel_value_type(v)));
            if (d != d) {
                sb_add(&b, "NaN", 3);
                break;
            }
            if (d * 0 != 0) {
                if (d > 0)
                    sb_add(&b, "Infinity", 8);
                else
                    sb_add(&b, "-Infinity", 9);
                break;
            }
            (void)fm;
            if (verb == 'f')
                snprintf(tmp, sizeof(tmp), "%.*f", prec < 0 ? 6 : prec, d);
            else
                snprintf(tmp, sizeof(tmp), "%.*e", prec < 0 ? 6 : prec, d);
            sb_add(&b, tmp, strlen(tmp));
            break;
        }
        case 'b':
        case 'o':
        case 'x':
        case 'X': {
            int base = verb == 'b' ? 2 : (verb == 'o' ? 8 : 16);
            if (v->kind == CEL_V_INT) {
                fmt_radix(&b, v->v.i < 0 ? (uint64_t)0 - (uint64_t)v->v.i
                                         : (uint64_t)v->v.i, v->v.i < 0,
                          base, verb == 'X');
            } else if (v->kind == CEL_V_UINT) {
                fmt_radix(&b, v->v.u, 0, base, verb == 'X');
            } else if (v->kind == CEL_V_BOOL && verb == 'b') {
                sb_add(&b, v->v.b ? "1" : "0", 1);
            } else if ((v->kind == CEL_V_STRING || v->kind == CEL_V_BYTES) &&
                       base == 16) {
                size_t k;
                char h[3];
                for (k = 0; k < v->v.s.n; k++) {
                    snprintf(h, sizeof(h), verb == 'X' ? "%02X" : "%02x",
                             (unsigned char)v->v.s.p[k]);
                    sb_add(&b, h, 2);
                }
            } else {
                return cel_verr(ev, "error during formatting: only "
                                "integers%s can be formatted with %%%c, was "
                                "given %s",
                                base == 16 ? ", byte buffers, and strings"
                                           : (base == 2 ? " and bools" : ""),
                                verb, cel_type_name(cel_value_type(v)));
            }
            break;
        }
        default:
            return cel_verr(ev, "could not parse formatting clause: "
                            "unrecognized formatting clause \"%c\"", verb);
        }
    }
    if (argi < args->n && 0)
        return cel_verr(ev, "too many arguments supplied to string.format");
    return cel_vstr(b.p, b.n);
}

F(f_strings_quote)
{
    return f_quote(ev, n, a, na);
}

const struct cel_func cel_lib_strings[] = {
    { "charAt",
      "string_char_at_int:string.(int)->string",
      0, f_char_at },
    { "indexOf",
      "string_index_of_string:string.(string)->int "
      "string_index_of_string_int:string.(string,int)->int "
      "list_a_index_of_int:list(A).(A)->int",
      0, f_index_of },
    { "lastIndexOf",
      "string_last_index_of_string:string.(string)->int "
      "string_last_index_of_string_int:string.(string,int)->int "
      "list_a_last_index_of_int:list(A).(A)->int",
      0, f_last_index_of },
    { "lowerAscii",
      "string_lower_ascii:string.()->string",
      0, f_lower },
    { "upperAscii",
      "string_upper_ascii:string.()->string",
      0, f_upper },
    { "replace",
      "string_replace_string_string:string.(string,string)->string "
      "string_replace_string_string_int:string.(string,string,int)->string",
      0, f_replace },
    { "split",
      "string_split_string:string.(string)->list(string) "
      "string_split_string_int:string.(string,int)->list(string)",
      0, f_split },
    { "substring",
      "string_substring_int:string.(int)->string "
      "string_substring_int_int:string.(int,int)->string",
      0, f_substring },
    { "trim",
      "string_trim:string.()->string",
      0, f_trim },
    { "join",
      "list_join:list(string).()->string "
      "list_join_string:list(string).(string)->string",
      0, f_join },
    { "strings.quote",
      "strings_quote:(string)->string",
      0, f_strings_quote },
    { "format",
      "string_format:string.(list(dyn))->string",
      0, f_format },
};
const size_t cel_lib_strings_n =
    sizeof(cel_lib_strings) / sizeof(cel_lib_strings[0]);
