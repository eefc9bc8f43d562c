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
    if (cel_work_guard(ev, hn / 10) < 0)
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

/* optional.unwrap(list) / list.unwrapOpt(): the values of the present
 * optionals */
F(f_unwrap)
{
    const struct cel_list *l;
    struct cel_value *out;
    size_t i, k = 0;

    (void)na;
    if (a[0].kind != CEL_V_LIST)
        return cel_no_overload(ev, n, a, 1);
    l = a[0].v.l;
    out = (struct cel_value *)cel_ev_alloc(ev, (l->n + 1) * sizeof(*out));
    for (i = 0; i < l->n; i++) {
        if (l->v[i].kind != CEL_V_OPT)
            return cel_no_overload(ev, n, &l->v[i], 1);
        if (l->v[i].sub)
            out[k++] = *l->v[i].v.opt;
    }
    return cel_vlist(ev, out, k);
}

const struct cel_func cel_lib_core[] = {
    { "_==_",
      "equals:(A,A)->bool",
      0, NULL },
    { "_!=_",
      "not_equals:(A,A)->bool",
      0, NULL },
    { "_<_",
      "less_bool:(bool,bool)->bool less_int64:(int,int)->bool "
      "less_int64_double:(int,double)->bool "
      "less_int64_uint64:(int,uint)->bool "
      "less_uint64:(uint,uint)->bool "
      "less_uint64_double:(uint,double)->bool "
      "less_uint64_int64:(uint,int)->bool "
      "less_double:(double,double)->bool "
      "less_double_int64:(double,int)->bool "
      "less_double_uint64:(double,uint)->bool "
      "less_string:(string,string)->bool "
      "less_bytes:(bytes,bytes)->bool "
      "less_timestamp:(timestamp,timestamp)->bool "
      "less_duration:(duration,duration)->bool",
      0, NULL },
    { "_<=_",
      "less_equals_bool:(bool,bool)->bool "
      "less_equals_int64:(int,int)->bool "
      "less_equals_int64_double:(int,double)->bool "
      "less_equals_int64_uint64:(int,uint)->bool "
      "less_equals_uint64:(uint,uint)->bool "
      "less_equals_uint64_double:(uint,double)->bool "
      "less_equals_uint64_int64:(uint,int)->bool "
      "less_equals_double:(double,double)->bool "
      "less_equals_double_int64:(double,int)->bool "
      "less_equals_double_uint64:(double,uint)->bool "
      "less_equals_string:(string,string)->bool "
      "less_equals_bytes:(bytes,bytes)->bool "
      "less_equals_timestamp:(timestamp,timestamp)->bool "
      "less_equals_duration:(duration,duration)->bool",
      0, NULL },
    { "_>_",
      "greater_bool:(bool,bool)->bool "
      "greater_int64:(int,int)->bool "
      "greater_int64_double:(int,double)->bool "
      "greater_int64_uint64:(int,uint)->bool "
      "greater_uint64:(uint,uint)->bool "
      "greater_uint64_double:(uint,double)->bool "
      "greater_uint64_int64:(uint,int)->bool "
      "greater_double:(double,double)->bool "
      "greater_double_int64:(double,int)->bool "
      "greater_double_uint64:(double,uint)->bool "
      "greater_string:(string,string)->bool "
      "greater_bytes:(bytes,bytes)->bool "
      "greater_timestamp:(timestamp,timestamp)->bool "
      "greater_duration:(duration,duration)->bool",
      0, NULL },
    { "_>=_",
      "greater_equals_bool:(bool,bool)->bool "
      "greater_equals_int64:(int,int)->bool "
      "greater_equals_int64_double:(int,double)->bool "
      "greater_equals_int64_uint64:(int,uint)->bool "
      "greater_equals_uint64:(uint,uint)->bool "
      "greater_equals_uint64_double:(uint,double)->bool "
      "greater_equals_uint64_int64:(uint,int)->bool "
      "greater_equals_double:(double,double)->bool "
      "greater_equals_double_int64:(double,int)->bool "
      "greater_equals_double_uint64:(double,uint)->bool "
      "greater_equals_string:(string,string)->bool "
      "greater_equals_bytes:(bytes,bytes)->bool "
      "greater_equals_timestamp:(timestamp,timestamp)->bool "
      "greater_equals_duration:(duration,duration)->bool",
      0, NULL },
    { "_+_",
      "add_bytes:(bytes,bytes)->bytes "
      "add_double:(double,double)->double "
      "add_duration_duration:(duration,duration)->duration "
      "add_duration_timestamp:(duration,timestamp)->timestamp "
      "add_timestamp_duration:(timestamp,duration)->timestamp "
      "add_int64:(int,int)->int "
      "add_list:(list(A),list(A))->list(A) "
      "add_string:(string,string)->string "
      "add_uint64:(uint,uint)->uint",
      0, NULL },
    { "_-_",
      "subtract_double:(double,double)->double "
      "subtract_duration_duration:(duration,duration)->duration "
      "subtract_int64:(int,int)->int "
      "subtract_timestamp_duration:(timestamp,duration)->timestamp "
      "subtract_timestamp_timestamp:(timestamp,timestamp)->duration "
      "subtract_uint64:(uint,uint)->uint",
      0, NULL },
    { "_*_",
      "multiply_double:(double,double)->double "
      "multiply_int64:(int,int)->int "
      "multiply_uint64:(uint,uint)->uint",
      0, NULL },
    { "_/_",
      "divide_double:(double,double)->double "
      "divide_int64:(int,int)->int "
      "divide_uint64:(uint,uint)->uint",
      0, NULL },
    { "_%_",
      "modulo_int64:(int,int)->int "
      "modulo_uint64:(uint,uint)->uint",
      0, NULL },
    { "-_",
      "negate_double:(double)->double negate_int64:(int)->int",
      0, NULL },
    { "!_",
      "logical_not:(bool)->bool",
      0, NULL },
    { "_?_:_",
      "conditional:(bool,A,A)->A",
      0, NULL },
    { "_&&_",
      "logical_and:(bool,bool)->bool",
      0, NULL },
    { "_||_",
      "logical_or:(bool,bool)->bool",
      0, NULL },
    { "@not_strictly_false",
      "not_strictly_false:(bool)->bool",
      0, NULL },
    { "_[_]",
      "index_list:(list(A),int)->A index_map:(map(A,B),A)->B "
      "optional_list_index_int:(opt(list(V)),int)->opt(V) "
      "optional_map_index_value:(opt(map(K,V)),K)->opt(V)",
      0, NULL },
    { "_[?_]",
      "list_optindex_optional_int:(list(V),int)->opt(V) "
      "optional_list_optindex_optional_int:(opt(list(V)),int)->opt(V) "
      "map_optindex_optional_value:(map(K,V),K)->opt(V) "
      "optional_map_optindex_optional_value:(opt(map(K,V)),K)->opt(V)",
      0, NULL },
    { "@in",
      "in_list:(A,list(A))->bool in_map:(A,map(A,B))->bool",
      0, NULL },
    { "cel.@mapInsert",
      "@mapInsert_map_key_value:(map(K,V),K,V)->map(K,V) "
      "@mapInsert_map_map:(map(K,V),map(K,V))->map(K,V)",
      0, NULL },
    { "int",
      "int64_to_int64:(int)->int double_to_int64:(double)->int "
      "duration_to_int64:(duration)->int "
      "string_to_int64:(string)->int "
      "timestamp_to_int64:(timestamp)->int "
      "uint64_to_int64:(uint)->int",
      0, f_int },
    { "uint",
      "uint64_to_uint64:(uint)->uint "
      "double_to_uint64:(double)->uint "
      "int64_to_uint64:(int)->uint "
      "string_to_uint64:(string)->uint",
      0, f_uint },
    { "double",
      "double_to_double:(double)->double "
      "int64_to_double:(int)->double "
      "string_to_double:(string)->double "
      "uint64_to_double:(uint)->double",
      0, f_double },
    { "string",
      "string_to_string:(string)->string "
      "bool_to_string:(bool)->string "
      "bytes_to_string:(bytes)->string "
      "double_to_string:(double)->string "
      "duration_to_string:(duration)->string "
      "int64_to_string:(int)->string "
      "timestamp_to_string:(timestamp)->string "
      "uint64_to_string:(uint)->string ip_to_string:(ip)->string "
      "cidr_to_string:(cidr)->string",
      0, f_string },
    { "bytes",
      "bytes_to_bytes:(bytes)->bytes "
      "string_to_bytes:(string)->bytes",
      0, f_bytes },
    { "bool",
      "bool_to_bool:(bool)->bool string_to_bool:(string)->bool",
      0, f_bool },
    { "type",
      "type:(A)->type(A)",
      0, f_type },
    { "dyn",
      "to_dyn:(A)->dyn",
      0, f_dyn },
    { "size",
      "size_bytes:(bytes)->int bytes_size:bytes.()->int "
      "size_list:(list(A))->int list_size:list(A).()->int "
      "size_map:(map(A,B))->int map_size:map(A,B).()->int "
      "size_string:(string)->int string_size:string.()->int",
      0, f_size },
    { "contains",
      "contains_string:string.(string)->bool",
      0, f_contains },
    { "startsWith",
      "starts_with_string:string.(string)->bool",
      0, f_starts },
    { "endsWith",
      "ends_with_string:string.(string)->bool",
      0, f_ends },
    { "matches",
      "matches:(string,string)->bool "
      "matches_string:string.(string)->bool",
      0, f_matches },
    { "optional.of",
      "optional_of:(V)->opt(V)",
      0, f_opt_of },
    { "optional.none",
      "optional_none:()->opt(V)",
      0, f_opt_none },
    { "optional.ofNonZeroValue",
      "optional_ofNonZeroValue:(V)->opt(V)",
      0, f_opt_nonzero },
    { "hasValue",
      "optional_hasValue:opt(V).()->bool",
      0, f_has_value },
    { "value",
      "optional_value:opt(V).()->V",
      0, f_value },
    { "orValue",
      "optional_orValue_value:opt(V).(V)->V",
      0, f_or_value },
    { "or",
      "optional_or_optional:opt(V).(opt(V))->opt(V)",
      0, f_or },
    { "optional.unwrap",
      "optional_unwrap:(list(opt(V)))->list(V)",
      0, f_unwrap },
    { "unwrapOpt",
      "optional_unwrapOpt:list(opt(V)).()->list(V)",
      0, f_unwrap },
};
const size_t cel_lib_core_n = sizeof(cel_lib_core) / sizeof(cel_lib_core[0]);
