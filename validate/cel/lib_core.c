/*
 * lib_core.c - the CEL standard functions: type conversions (int, uint,
 * double, string, bytes, bool, type, dyn), size, contains/startsWith/
 * endsWith, matches (RE2 through regex.c) and the optional library
 * (optional.of/none/ofNonZeroValue, hasValue, value, orValue, or).
 */
#include "cel_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int utf8_valid(const char *s, size_t n)
{
    size_t i = 0;

    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        size_t k, len;
        uint32_t cp;
        if (c < 0x80) {
            i++;
            continue;
        }
        if ((c & 0xE0) == 0xC0) {
            len = 2;
            cp = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            len = 3;
            cp = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            len = 4;
            cp = c & 0x07;
        } else {
            return 0;
        }
        if (i + len > n)
            return 0;
        for (k = 1; k < len; k++) {
            if (((unsigned char)s[i + k] & 0xC0) != 0x80)
                return 0;
            cp = (cp << 6) | ((unsigned char)s[i + k] & 0x3F);
        }
        if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
            (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
            (cp >= 0xD800 && cp <= 0xDFFF))
            return 0;
        i += len;
    }
    return 1;
}

/* ================= conversions ================= */

static int parse_i64(const char *s, size_t n, int64_t *out)
{
    char buf[32];
    char *end;
    long long v;

    if (n == 0 || n >= sizeof(buf))
        return -1;
    memcpy(buf, s, n);
    buf[n] = 0;
    if (buf[0] == ' ' || buf[0] == '+')
        return -1;
    errno = 0;
    v = strtoll(buf, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

static int parse_u64(const char *s, size_t n, uint64_t *out)
{
    char buf[32];
    char *end;
    unsigned long long v;

    if (n == 0 || n >= sizeof(buf) || s[0] == '-' || s[0] == ' ' ||
        s[0] == '+')
        return -1;
    memcpy(buf, s, n);
    buf[n] = 0;
    errno = 0;
    v = strtoull(buf, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

F(f_int)
{
    (void)na;
    switch (a[0].kind) {
    case CEL_V_INT: return a[0];
    case CEL_V_TIMESTAMP: return cel_vint(a[0].v.t.sec);
    case CEL_V_DURATION: {
        int64_t r;
        if (__builtin_mul_overflow(a[0].v.t.sec, (int64_t)1000000000, &r) ||
            __builtin_add_overflow(r, (int64_t)a[0].v.t.nsec, &r))
            return cel_verr(ev, "integer overflow");
        return cel_vint(r);
    }
    case CEL_V_UINT:
        if (a[0].v.u > (uint64_t)INT64_MAX)
            return cel_verr(ev, "integer overflow");
        return cel_vint((int64_t)a[0].v.u);
    case CEL_V_DOUBLE:
        if (isnan(a[0].v.d) || a[0].v.d >= 9223372036854775808.0 ||
            a[0].v.d <= -9223372036854775808.0)
            return cel_verr(ev, "integer overflow");
        return cel_vint((int64_t)a[0].v.d);
    case CEL_V_STRING: {
        int64_t v;
        if (parse_i64(a[0].v.s.p, a[0].v.s.n, &v) < 0)
            return cel_verr(ev, "cannot convert '%.*s' to int",
                            (int)a[0].v.s.n, a[0].v.s.p);
        return cel_vint(v);
    }
    default: return cel_no_overload(ev, n, a, 1);
    }
}

F(f_uint)
{
    (void)na;
    switch (a[0].kind) {
    case CEL_V_UINT: return a[0];
    case CEL_V_INT:
        if (a[0].v.i < 0)
            return cel_verr(ev, "unsigned integer overflow");
        return cel_vuint((uint64_t)a[0].v.i);
    case CEL_V_DOUBLE:
        if (isnan(a[0].v.d) || a[0].v.d >= 18446744073709551616.0 ||
            a[0].v.d <= -1.0)
            return cel_verr(ev, "unsigned integer overflow");
        return cel_vuint((uint64_t)a[0].v.d);
    case CEL_V_STRING: {
        uint64_t v;
        if (parse_u64(a[0].v.s.p, a[0].v.s.n, &v) < 0)
            return cel_verr(ev, "cannot convert '%.*s' to uint",
                            (int)a[0].v.s.n, a[0].v.s.p);
        return cel_vuint(v);
    }
    default: return cel_no_overload(ev, n, a, 1);
    }
}

F(f_double)
{
    (void)na;
    switch (a[0].kind) {
    case CEL_V_DOUBLE: return a[0];
    case CEL_V_INT: return cel_vdouble((double)a[0].v.i);
    case CEL_V_UINT: return cel_vdouble((double)a[0].v.u);
    case CEL_V_STRING: {
        char buf[128];
        char *end;
        double d;
        size_t l = a[0].v.s.n;
        if (l == 0 || l >= sizeof(buf))
            return cel_verr(ev, "cannot convert string to double");
        memcpy(buf, a[0].v.s.p, l);
        buf[l] = 0;
        if (buf[0] == ' ' || strchr(buf, 'x') || strchr(buf, 'X'))
            return cel_verr(ev, "cannot convert '%s' to double", buf);
        d = strtod(buf, &end);
        if (*end)
            return cel_verr(ev, "cannot convert '%s' to double", buf);
        return cel_vdouble(d);
    }
    default: return cel_no_overload(ev, n, a, 1);
    }
}

F(f_string)
{
    char buf[64];
    char *p;

    (void)na;
    switch (a[0].kind) {
    case CEL_V_STRING: return a[0];
    case CEL_V_BOOL:
        return a[0].v.b ? cel_vstr("true", 4) : cel_vstr("false", 5);
    case CEL_V_INT:
        snprintf(buf, sizeof(buf), "%lld", (long long)a[0].v.i);
        break;
    case CEL_V_UINT:
        snprintf(buf, sizeof(buf), "%llu", (unsigned long long)a[0].v.u);
        break;
    case CEL_V_DOUBLE:
        cel_format_double(a[0].v.d, buf, sizeof(buf));
        break;
    case CEL_V_BYTES:
        if (!utf8_valid(a[0].v.s.p, a[0].v.s.n))
            return cel_verr(ev, "invalid UTF-8 in bytes, cannot convert to "
                            "string");
        return cel_vstr(a[0].v.s.p, a[0].v.s.n);
    case CEL_V_QUANTITY:
        cel_quantity_format(&a[0], buf, sizeof(buf));
        break;
    case CEL_V_SEMVER:
        cel_semver_format(a[0].v.sv, buf, sizeof(buf));
        break;
    case CEL_V_IP:
    case CEL_V_CIDR:
        cel_net_format(&a[0], buf, sizeof(buf));
        break;
    case CEL_V_TIMESTAMP:
    case CEL_V_DURATION:
        cel_time_format(&a[0], buf, sizeof(buf));
        break;
    default: return cel_no_overload(ev, n, a, 1);
    }
    p = cel_ev_alloc(ev, strlen(buf) + 1);
    memcpy(p, buf, strlen(buf) + 1);
    return cel_vstr(p, strlen(p));
}

F(f_bytes)
{
    (void)na;
    if (a[0].kind == CEL_V_BYTES)
        return a[0];
    if (a[0].kind == CEL_V_STRING)
        return cel_vbytes(a[0].v.s.p, a[0].v.s.n);
    return cel_no_overload(ev, n, a, 1);
}

F(f_bool)
{
    static const char *const t[] = { "1", "t", "T", "TRUE", "true", "True" };
    static const char *const f[] = { "0", "f", "F", "FALSE", "false",
                                     "False" };
    size_t i;

    (void)na;
    if (a[0].kind == CEL_V_BOOL)
        return a[0];
    if (a[0].kind != CEL_V_STRING)
        return cel_no_overload(ev, n, a, 1);
    for (i = 0; i < 6; i++) {
        if (strlen(t[i]) == a[0].v.s.n &&
            memcmp(t[i], a[0].v.s.p, a[0].v.s.n) == 0)
            return cel_vbool(1);
        if (strlen(f[i]) == a[0].v.s.n &&
            memcmp(f[i], a[0].v.s.p, a[0].v.s.n) == 0)
            return cel_vbool(0);
    }
    return cel_verr(ev, "type conversion error from 'string' to 'bool'");
}

F(f_type)
{
    (void)ev;
    (void)n;
    (void)na;
    return cel_vtype(cel_value_type(&a[0]));
}

F(f_dyn)
{
    (void)ev;
    (void)n;
    (void)na;
    return a[0];
}

/* ================= size and strings ================= */

F(f_size)
{
    size_t l;

    (void)na;
    switch (a[0].kind) {
    case CEL_V_STRING:
        cel_utf8_len(a[0].v.s.p, a[0].v.s.n, &l);
        return cel_vint((int64_t)l);
    case CEL_V_BYTES: return cel_vint((int64_t)a[0].v.s.n);
    case CEL_V_LIST: return cel_vint((int64_t)a[0].v.l->n);
    case CEL_V_MAP: case CEL_V_DEVMAP: case CEL_V_DEVDOM:
        return cel_vint((int64_t)cel_map_size(&a[0]));
    default: return cel_no_overload(ev, n, a, 1);
    }
}

static int str2(const struct cel_value *a)
{
    return a[0].kind == CEL_V_STRING && a[1].kind == CEL_V_STRING;
}

F(f_contains)
{
    const char *h = a[0].v.s.p, *nd = a[1].v.s.p;
    size_t hn = a[0].v.s.n, nn = a[1].v.s.n, i;

    (void)na;
    if (!str2(a))
        return cel_no_overload(ev, n, a, 2);
    if (cel_cost(ev, hn / 10) < 0)
        return cel_verr(ev, "%s", CEL_COST_MSG);
    if (nn == 0)
        return cel_vbool(1);
    for (i = 0; i + nn <= hn; i++) {
        if (h[i] == nd[0] && memcmp(h + i, nd, nn) == 0)
            return cel_vbool(1);
    }
    return cel_vbool(0);
}

F(f_starts)
{
    (void)na;
    if (!str2(a))
        return cel_no_overload(ev, n, a, 2);
    return cel_vbool(a[1].v.s.n <= a[0].v.s.n &&
                     memcmp(a[0].v.s.p, a[1].v.s.p, a[1].v.s.n) == 0);
}

F(f_ends)
{
    (void)na;
    if (!str2(a))
        return cel_no_overload(ev, n, a, 2);
    return cel_vbool(a[1].v.s.n <= a[0].v.s.n &&
                     memcmp(a[0].v.s.p + a[0].v.s.n - a[1].v.s.n, a[1].v.s.p,
                            a[1].v.s.n) == 0);
}

F(f_matches)
{
    char msg[256];
    const struct cel_regex *re = n->aux;
    struct cel_regex *tmp = NULL;
    int r;

    (void)na;
    if (!str2(a))
        return cel_no_overload(ev, n, a, 2);
    if (!re) {
        tmp = cel_regex_compile(NULL, a[1].v.s.p, a[1].v.s.n, 0, msg);
        if (!tmp)
            return cel_verr(ev, "%s", msg);
        re = tmp;
    }
    if (cel_cost(ev, a[0].v.s.n) < 0) {
        cel_regex_free(tmp);
        return cel_verr(ev, "%s", CEL_COST_MSG);
    }
    r = cel_regex_test(re, a[0].v.s.p, a[0].v.s.n, msg);
    if (tmp)
        cel_regex_free(tmp);
    if (r < 0)
        return cel_verr(ev, "%s", msg);
    return cel_vbool(r);
}

/* ================= optionals ================= */

F(f_opt_of)
{
    (void)n;
    (void)na;
    return cel_vopt(ev, &a[0]);
}

F(f_opt_none)
{
    (void)n;
    (void)na;
    (void)a;
    return cel_vopt(ev, NULL);
}

static int is_zero(const struct cel_value *v)
{
    switch (v->kind) {
    case CEL_V_NULL: return 1;
    case CEL_V_BOOL: return !v->v.b;
    case CEL_V_INT: return v->v.i == 0;
    case CEL_V_UINT: return v->v.u == 0;
    case CEL_V_DOUBLE: return v->v.d == 0;
    case CEL_V_STRING: case CEL_V_BYTES: return v->v.s.n == 0;
    case CEL_V_LIST: return v->v.l->n == 0;
    case CEL_V_MAP: case CEL_V_DEVMAP: case CEL_V_DEVDOM:
        return cel_map_size(v) == 0;
    default: return 0;
    }
}

F(f_opt_nonzero)
{
    (void)n;
    (void)na;
    return cel_vopt(ev, is_zero(&a[0]) ? NULL : &a[0]);
}

F(f_has_value)
{
    (void)na;
    if (a[0].kind != CEL_V_OPT)
        return cel_no_overload(ev, n, a, 1);
    return cel_vbool(a[0].sub);
}

F(f_value)
{
    (void)na;
    if (a[0].kind != CEL_V_OPT)
        return cel_no_overload(ev, n, a, 1);
    if (!a[0].sub)
        return cel_verr(ev, "optional.none() dereference");
    return *a[0].v.opt;
}

F(f_or_value)
{
    (void)na;
    if (a[0].kind != CEL_V_OPT)
        return cel_no_overload(ev, n, a, 2);
    return a[0].sub ? *a[0].v.opt : a[1];
}

F(f_or)
{
    (void)na;
    if (a[0].kind != CEL_V_OPT || a[1].kind != CEL_V_OPT)
        return cel_no_overload(ev, n, a, 2);
    return a[0].sub ? a[0] : a[1];
}

const struct cel_func cel_lib_core[] = {
    { "int", 0, 1, 1, CEL_T_INT, "A", f_int },
    { "uint", 0, 1, 1, CEL_T_UINT, "A", f_uint },
    { "double", 0, 1, 1, CEL_T_DOUBLE, "A", f_double },
    { "string", 0, 1, 1, CEL_T_STRING, "A", f_string },
    { "bytes", 0, 1, 1, CEL_T_BYTES, "A", f_bytes },
    { "bool", 0, 1, 1, CEL_T_BOOL, "A", f_bool },
    { "type", 0, 1, 1, CEL_T_TYPE, "A", f_type },
    { "dyn", 0, 1, 1, CEL_T_DYN, "A", f_dyn },
    { "size", 2, 1, 1, CEL_T_INT, "Z", f_size },
    { "contains", 1, 2, 2, CEL_T_BOOL, "SS", f_contains },
    { "startsWith", 1, 2, 2, CEL_T_BOOL, "SS", f_starts },
    { "endsWith", 1, 2, 2, CEL_T_BOOL, "SS", f_ends },
    { "matches", 2, 2, 2, CEL_T_BOOL, "SS", f_matches },
    { "optional.of", 0, 1, 1, CEL_T_OPT, "A", f_opt_of },
    { "optional.none", 0, 0, 0, CEL_T_OPT, "", f_opt_none },
    { "optional.ofNonZeroValue", 0, 1, 1, CEL_T_OPT, "A", f_opt_nonzero },
    { "hasValue", 1, 1, 1, CEL_T_BOOL, "O", f_has_value },
    { "value", 1, 1, 1, CEL_T_DYN, "O", f_value },
    { "orValue", 1, 2, 2, CEL_T_DYN, "OA", f_or_value },
    { "or", 1, 2, 2, CEL_T_OPT, "OO", f_or },
};
const size_t cel_lib_core_n = sizeof(cel_lib_core) / sizeof(cel_lib_core[0]);
