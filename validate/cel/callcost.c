/*
 * callcost.c - the runtime cost of one CEL call as Kubernetes counts it:
 * cel-go's CostTracker with the overload trackers of ext lists and sets,
 * the apiserver library.CostEstimator.CallCost and cel-go's default table.
 * Each call node gets a class once (cel_call_class, from its function and
 * call style) so evaluation does not compare names; eval.c adds the costs
 * of the other nodes. The estimate is cost.c.
 */
#include "cel_internal.h"

#include <math.h>
#include <string.h>

#define STR_FACTOR CEL_COST_STR_FACTOR
#define REGEX_FACTOR CEL_COST_REGEX_FACTOR

/* actualSize: the size of a sizer (strings in code points), an optional's
 * value, else 1 */
uint64_t cel_actual_size(const struct cel_value *v)
{
    size_t l;

    switch (v->kind) {
    case CEL_V_STRING:
        cel_utf8_len(v->v.s.p, v->v.s.n, &l);
        return l;
    case CEL_V_BYTES: return v->v.s.n;
    case CEL_V_LIST: return v->v.l->n;
    case CEL_V_MAP: case CEL_V_DEVMAP: case CEL_V_DEVDOM:
        return cel_map_size(v);
    case CEL_V_OPT:
        return v->sub ? cel_actual_size(v->v.opt) : 1;
    default: return 1;
    }
}

/* library.CostEstimator's traversalCost */
static uint64_t traversal(struct cel_eval *ev, const struct cel_value *v)
{
    uint64_t c = 0;
    size_t i;

    switch (v->kind) {
    case CEL_V_STRING: case CEL_V_BYTES:
        return (uint64_t)((double)v->v.s.n * STR_FACTOR);
    case CEL_V_LIST:
        for (i = 0; i < v->v.l->n; i++)
            c = cel_add_sat(c, traversal(ev, &v->v.l->v[i]));
        return c;
    case CEL_V_MAP: case CEL_V_DEVMAP: case CEL_V_DEVDOM:
        for (i = 0; i < cel_map_size(v); i++) {
            struct cel_value k, x;
            cel_map_entry(ev, v, i, &k, &x);
            c = cel_add_sat(c, cel_add_sat(traversal(ev, &k),
                                           traversal(ev, &x)));
        }
        return c;
    default:
        return 1;
    }
}

static uint64_t ceil_factor(uint64_t x, double f)
{
    return (uint64_t)ceil((double)x * f);
}

static uint64_t alloc_list_track(double f, uint64_t size)
{
    return (uint64_t)((double)size * f) + 1 + CEL_COST_LIST;
}

static uint64_t self_compare(const struct cel_value *l)
{
    uint64_t sz = cel_actual_size(l);
    double f = 2;

    if (l->kind != CEL_V_LIST || sz == 0)
        return alloc_list_track(f, 0);
    if (l->v.l->v[0].kind == CEL_V_STRING || l->v.l->v[0].kind == CEL_V_BYTES)
        f += STR_FACTOR;
    return alloc_list_track(f, sz * sz);
}

static int is_kind(const struct cel_value *v, int kind)
{
    return v->kind == kind;
}

/* How a call is charged at runtime, decided once per call node (the
 * function name and call style are fixed); see cel_call_cost(). */
enum rt_class {
    RT_ONE = CEL_RT_ONE,    /* the default: 1 */
    RT_FREE = CEL_RT_FREE,  /* folded by the optimizer: nothing */
    RT_TRAVERSAL,       /* traversal of the receiver (k8s lists) */
    RT_STR1,            /* ceil(size(args[0]) * 0.1) */
    RT_STR2,            /* ceil(size(args[0]) * 0.2) */
    RT_JOIN,            /* ceil(size(result) * 0.2) */
    RT_FIND,            /* string * regex size */
    RT_IP,              /* ip(string) or cidr.ip() */
    RT_CONTAINS_IP, RT_CONTAINS_CIDR, RT_VALIDATE,
    RT_EQ,              /* ==: 1 for library types, else min size * 0.1 */
    RT_NE,              /* !=: min size * 0.1 */
    RT_CMP,             /* < <= > >=: min size * 0.1 on strings/bytes */
    RT_ADD,             /* +: size sum * 0.1 on strings/bytes */
    RT_IN,              /* in: the list's size */
    RT_MATCHES,         /* receiver.matches(): string * regex size */
    RT_CONTAINS,        /* receiver.contains() */
    RT_BYTES, RT_STRING,/* bytes(string), string(bytes): O(n) */
    RT_LIST_OUT,        /* slice, reverse, lists.range: result size */
    RT_FLATTEN, RT_SELF_CMP, RT_SORTBY, RT_SETS1, RT_SETS2
};

static const struct { const char *name; signed char member;
                      unsigned char cls; } rt_table[] = {
    { "isSorted", -1, RT_TRAVERSAL }, { "sum", -1, RT_TRAVERSAL },
    { "max", -1, RT_TRAVERSAL }, { "min", -1, RT_TRAVERSAL },
    { "indexOf", -1, RT_TRAVERSAL }, { "lastIndexOf", -1, RT_TRAVERSAL },
    { "url", -1, RT_STR1 }, { "lowerAscii", -1, RT_STR1 },
    { "upperAscii", -1, RT_STR1 }, { "substring", -1, RT_STR1 },
    { "trim", -1, RT_STR1 }, { "cidr", -1, RT_STR1 },
    { "isIP", -1, RT_STR1 }, { "isCIDR", -1, RT_STR1 },
    { "quantity", -1, RT_STR1 }, { "isQuantity", -1, RT_STR1 },
    { "semver", -1, RT_STR1 }, { "isSemver", -1, RT_STR1 },
    { "startsWith", -1, RT_STR1 }, { "endsWith", -1, RT_STR1 },
    { "strings.quote", -1, RT_STR1 }, { "format", -1, RT_STR1 },
    { "replace", -1, RT_STR2 }, { "split", -1, RT_STR2 },
    { "ip.isCanonical", -1, RT_STR2 }, { "join", -1, RT_JOIN },
    { "find", -1, RT_FIND }, { "findAll", -1, RT_FIND },
    { "ip", -1, RT_IP }, { "containsIP", -1, RT_CONTAINS_IP },
    { "containsCIDR", -1, RT_CONTAINS_CIDR },
    { "validate", -1, RT_VALIDATE }, { "_==_", -1, RT_EQ },
    { "_!=_", -1, RT_NE }, { "_<_", -1, RT_CMP }, { "_<=_", -1, RT_CMP },
    { "_>_", -1, RT_CMP }, { "_>=_", -1, RT_CMP }, { "_+_", -1, RT_ADD },
    { "@in", -1, RT_IN }, { "matches", 1, RT_MATCHES },
    { "contains", -1, RT_CONTAINS }, { "bytes", -1, RT_BYTES },
    { "string", -1, RT_STRING }, { "slice", -1, RT_LIST_OUT },
    { "reverse", -1, RT_LIST_OUT }, { "lists.range", -1, RT_LIST_OUT },
    { "flatten", -1, RT_FLATTEN }, { "distinct", -1, RT_SELF_CMP },
    { "sort", -1, RT_SELF_CMP }, { "@sortByAssociatedKeys", -1, RT_SORTBY },
    { "sets.contains", -1, RT_SETS1 }, { "sets.intersects", -1, RT_SETS1 },
    { "sets.equivalent", -1, RT_SETS2 },
};

int cel_call_class(const char *fn, int member)
{
    size_t i;

    for (i = 0; i < sizeof(rt_table) / sizeof(rt_table[0]); i++)
        if ((rt_table[i].member < 0 || rt_table[i].member == member) &&
            strcmp(rt_table[i].name, fn) == 0)
            return rt_table[i].cls;
    return RT_ONE;
}

int cel_call_cost_needs_result(int cls)
{
    return cls == RT_JOIN || cls == RT_LIST_OUT;
}

static int str_or_bytes2(const struct cel_value *a)
{
    return (is_kind(&a[0], CEL_V_STRING) && is_kind(&a[1], CEL_V_STRING)) ||
           (is_kind(&a[0], CEL_V_BYTES) && is_kind(&a[1], CEL_V_BYTES));
}

/* ceil(min(size(a0), size(a1)) * 0.1), the string sizes in code points;
 * counted only as far as needed (an empty side is 0; otherwise the side
 * with fewer bytes first: the other has at least bytes/4 code points) */
static uint64_t min_size_tenth(const struct cel_value *a)
{
    uint64_t l, r;

    if (is_kind(&a[0], CEL_V_STRING) && is_kind(&a[1], CEL_V_STRING)) {
        const struct cel_value *s = a[0].v.s.n <= a[1].v.s.n ? &a[0] : &a[1];
        const struct cel_value *o = s == &a[0] ? &a[1] : &a[0];
        if (s->v.s.n == 0)
            return 0;
        l = cel_actual_size(s);
        r = l <= o->v.s.n / 4 ? l : cel_actual_size(o);
    } else {
        l = cel_actual_size(&a[0]);
        r = cel_actual_size(&a[1]);
    }
    return ceil_factor(l < r ? l : r, STR_FACTOR);
}

uint64_t cel_call_cost(struct cel_eval *ev, int cls,
                       const struct cel_value *a, unsigned na,
                       const struct cel_value *res)
{
    uint64_t c;

    switch (cls) {
    case RT_FREE:
        return 0;
    /* overload trackers (ext lists, ext sets) */
    case RT_LIST_OUT:
        if (na >= 1 && is_kind(&a[0], CEL_V_STRING))
            return 1;       /* string reverse(): not in Kubernetes */
        return alloc_list_track(1, res ? cel_actual_size(res) : 0);
    case RT_FLATTEN:
        return alloc_list_track(na == 2 && a[1].kind == CEL_V_INT
                                ? (double)a[1].v.i : 1.0,
                                cel_actual_size(&a[0]));
    case RT_SELF_CMP:
        return self_compare(&a[0]);
    case RT_SORTBY:
        return na == 2 ? self_compare(&a[1]) : 1;
    case RT_SETS1: case RT_SETS2:
        return 1 + (uint64_t)((double)(cel_actual_size(&a[0]) *
                                       cel_actual_size(&a[1])) *
                              (cls == RT_SETS2 ? 2 : 1));
    /* library.CostEstimator.CallCost (the receiver is args[0]) */
    case RT_TRAVERSAL:
        return na > 0 ? traversal(ev, &a[0]) : 0;
    case RT_STR1:
        return ceil_factor(cel_actual_size(&a[0]), STR_FACTOR);
    case RT_STR2:
        return ceil_factor(cel_actual_size(&a[0]), 2 * STR_FACTOR);
    case RT_JOIN:
        return res ? ceil_factor(cel_actual_size(res), 2 * STR_FACTOR) : 0;
    case RT_FIND:
        return na < 2 ? 1 : ceil_factor(1 + cel_actual_size(&a[0]),
                                        STR_FACTOR) *
               ceil_factor(cel_actual_size(&a[1]), REGEX_FACTOR);
    case RT_IP:
        return is_kind(&a[0], CEL_V_CIDR) ? 1
               : ceil_factor(cel_actual_size(&a[0]), STR_FACTOR);
    case RT_CONTAINS_IP: case RT_CONTAINS_CIDR: {
        uint64_t cidr = cel_actual_size(&a[0]);
        c = ceil_factor(cidr + cidr, STR_FACTOR);
        if (cls == RT_CONTAINS_CIDR)
            c += ceil_factor(cidr, STR_FACTOR) + 1;
        if (na >= 2 && is_kind(&a[1], CEL_V_STRING))
            c += ceil_factor(cel_actual_size(&a[1]), STR_FACTOR);
        return c;
    }
    case RT_VALIDATE:
        if (na < 2 || !is_kind(&a[0], CEL_V_FORMAT))
            return 1;
        return ceil_factor(1 + cel_actual_size(&a[1]), STR_FACTOR) *
               ceil_factor((uint64_t)cel_format_max_regex(&a[0]),
                           REGEX_FACTOR);
    case RT_EQ:
        switch (a[0].kind) {
        case CEL_V_QUANTITY: case CEL_V_IP: case CEL_V_CIDR:
        case CEL_V_FORMAT: case CEL_V_URL: case CEL_V_SEMVER:
            return 1;
        default:
            return min_size_tenth(a);
        }
    /* cel-go's default table, by overload */
    case RT_NE:
        return min_size_tenth(a);
    case RT_CMP:
        return str_or_bytes2(a) ? min_size_tenth(a) : 1;
    case RT_ADD:
        return str_or_bytes2(a)
               ? ceil_factor(cel_actual_size(&a[0]) + cel_actual_size(&a[1]),
                             STR_FACTOR) : 1;
    case RT_IN:
        return is_kind(&a[1], CEL_V_LIST) ? cel_actual_size(&a[1]) : 1;
    case RT_MATCHES:
        return ceil_factor(1 + cel_actual_size(&a[0]), STR_FACTOR) *
               ceil_factor(cel_actual_size(&a[1]), REGEX_FACTOR);
    case RT_CONTAINS:
        return na < 2 ? 1 : ceil_factor(cel_actual_size(&a[0]), STR_FACTOR) *
               ceil_factor(cel_actual_size(&a[1]), STR_FACTOR);
    case RT_BYTES:
        return is_kind(&a[0], CEL_V_STRING)
               ? ceil_factor(cel_actual_size(&a[0]), STR_FACTOR) : 1;
    case RT_STRING:
        return is_kind(&a[0], CEL_V_BYTES)
               ? ceil_factor(cel_actual_size(&a[0]), STR_FACTOR) : 1;
    default:
        return 1;
    }
}

uint64_t cel_call_cost_of(const struct cel_program *p,
                          const struct cel_node *n,
                          const struct cel_value *a, unsigned na,
                          const struct cel_value *res)
{
    struct cel_eval ev;

    memset(&ev, 0, sizeof(ev));
    ev.p = p;
    return cel_call_cost(&ev, cel_call_class(n->fn ? n->fn->name : "",
                                             n->member), a, na, res);
}
