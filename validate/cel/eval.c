/*
 * eval.c - the tree-walking evaluator: operators (with int64/uint64 overflow
 * and division errors), the error-absorbing && / || / ?:, field selection
 * (maps, the DRA device, optionals), indexing, list/map literals,
 * comprehensions (macros) and cel.bind, plus the runtime cost counter.
 * Functions live in lib_*.c; name resolution was done by check.c.
 */
#include "cel_internal.h"
#include "../arena.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static struct cel_value eval(struct cel_eval *ev, const struct cel_node *n);

/* One node: dispatch, remember where the first error arose, stop once the
 * runtime cost is over the limit. Inline so the recursion costs one call
 * per node. Each kind of node adds its own cost (cel-go's CostTracker):
 * identifiers and qualifiers 1, calls their call cost (cost.c), list and
 * map literals 10 and 30 unless constant, comprehensions what their
 * expansions evaluate. */
static inline struct cel_value ev_node(struct cel_eval *ev,
                                       const struct cel_node *n)
{
    struct cel_value v;

    if (ev->cost > CEL_MAX_COST)
        return cel_verr(ev, "%s", CEL_COST_MSG);
    v = eval(ev, n);
    if (ev->cost > CEL_MAX_COST && v.kind != CEL_V_ERROR)
        v = cel_verr(ev, "%s", CEL_COST_MSG);
    if (v.kind == CEL_V_ERROR && !ev->err_node)
        ev->err_node = n;
    return v;
}

static inline void charge(struct cel_eval *ev, uint64_t c)
{
    ev->cost = ev->cost + c < ev->cost ? UINT64_MAX : ev->cost + c;
}

/* Is n an attribute when cel-go plans it (an identifier, a selection, an
 * index, a conditional)? Qualifiers are added to an attribute; anything
 * else is wrapped in a relative attribute first, which costs one more. */
static int rt_attr(const struct cel_node *n)
{
    switch (n->kind) {
    case CEL_N_IDENT: case CEL_N_SELECT: case CEL_N_OPTSELECT:
    case CEL_N_INDEX: case CEL_N_OPTINDEX: case CEL_N_COND:
        return 1;
    default:
        return 0;
    }
}

static int is_conversion(const struct cel_node *n)
{
    static const char *const conv[] = { "bool", "bytes", "double",
        "duration", "dyn", "int", "string", "timestamp", "type", "uint" };
    size_t i;

    if (n->kind != CEL_N_CALL || n->member || n->nargs != 1)
        return 0;
    for (i = 0; i < sizeof(conv) / sizeof(conv[0]); i++)
        if (n->name_len == strlen(conv[i]) &&
            memcmp(n->name, conv[i], n->name_len) == 0)
            return 1;
    return 0;
}

/* Is n a constant of the optimized program (OptOptimize folds constant
 * list and map literals and conversions of constants)? Constants cost
 * nothing at runtime. */
static int rt_const(const struct cel_node *n)
{
    unsigned i;

    switch (n->kind) {
    case CEL_N_LIT:
        return n->lit_cost == 0;
    case CEL_N_LIST: case CEL_N_MAP:
        if (n->kind == CEL_N_LIST && n->opt_elems)
            return 0;
        for (i = 0; i < n->nargs; i++)
            if (!rt_const(n->args[i]))
                return 0;
        return 1;
    case CEL_N_CALL:
        return is_conversion(n) && rt_const(n->args[0]);
    default:
        return 0;
    }
}

/* `x in [constants]` becomes a set lookup that costs only x */
static int rt_set_membership(const struct cel_node *n)
{
    const struct cel_node *l;
    unsigned i;

    if (n->kind != CEL_N_BINOP || n->op != CEL_OP_IN)
        return 0;
    l = n->args[1];
    if (l->kind != CEL_N_LIST || !rt_const(l))
        return 0;
    for (i = 0; i < l->nargs; i++) {
        const struct cel_node *e = l->args[i];
        if (e->kind != CEL_N_LIT || (e->lit.kind != CEL_V_BOOL &&
            e->lit.kind != CEL_V_INT && e->lit.kind != CEL_V_UINT &&
            e->lit.kind != CEL_V_DOUBLE && e->lit.kind != CEL_V_STRING))
            return 0;
    }
    return 1;
}

/* the cost of the key of an index: a constant qualifier 1, an attribute
 * its own cost, anything else a relative attribute (one more) */
static uint64_t key_cost(const struct cel_node *k)
{
    if (rt_const(k))
        return 1;
    return rt_attr(k) ? 0 : 1;
}

static struct cel_value no_overload(struct cel_eval *ev, const char *op,
                                    const struct cel_value *a,
                                    const struct cel_value *b)
{
    if (b)
        return cel_verr(ev, "no such overload: %s %s %s",
                        cel_type_name(cel_value_type(a)), op,
                        cel_type_name(cel_value_type(b)));
    return cel_verr(ev, "no such overload: %s%s", op,
                    cel_type_name(cel_value_type(a)));
}

static int is_err(const struct cel_value *v)
{
    return v->kind == CEL_V_ERROR;
}

/* ================= field selection ================= */

static struct cel_value device_field(struct cel_eval *ev,
                                     const struct cel_value *d,
                                     const char *name, size_t nl, int *found)
{
    const struct cel_device *dev = d->x;
    struct cel_value v;

    memset(&v, 0, sizeof(v));
    *found = 1;
    if (nl == 6 && memcmp(name, "driver", 6) == 0)
        return cel_vstr(dev->driver ? dev->driver : "",
                        dev->driver ? strlen(dev->driver) : 0);
    if ((nl == 10 && memcmp(name, "attributes", 10) == 0) ||
        (nl == 8 && memcmp(name, "capacity", 8) == 0)) {
        v.kind = CEL_V_DEVMAP;
        v.sub = nl == 8;
        v.x = dev;
        return v;
    }
    if (nl == 24 && memcmp(name, "allowMultipleAllocations", 24) == 0 &&
        ev->p->env.consumable_capacity)
        return cel_vbool(dev->allow_multiple_allocations);
    *found = 0;
    return cel_verr(ev, "no such field: %.*s", (int)nl, name);
}

static struct cel_value select_field(struct cel_eval *ev,
                                     const struct cel_value *o,
                                     const char *name, size_t nl,
                                     int optional)
{
    struct cel_value key, out;
    int r, found;

    if (o->kind == CEL_V_OPT) {
        struct cel_value inner;
        if (!o->sub)
            return *o;
        inner = select_field(ev, o->v.opt, name, nl, 1);
        if (is_err(&inner) || inner.kind == CEL_V_OPT)
            return inner;
        return cel_vopt(ev, &inner);
    }
    if (cel_is_map(o)) {
        key = cel_vstr(name, nl);
        r = cel_map_get(ev, o, &key, &out);
        if (r == 1) {
            if (is_err(&out))
                return out;
            return optional ? cel_vopt(ev, &out) : out;
        }
        if (optional)
            return cel_vopt(ev, NULL);
        return cel_verr(ev, "no such key: %.*s", (int)nl, name);
    }
    if (o->kind == CEL_V_DEVICE) {
        out = device_field(ev, o, name, nl, &found);
        if (!found && optional)
            return cel_vopt(ev, NULL);
        if (optional && !is_err(&out))
            return cel_vopt(ev, &out);
        return out;
    }
    return cel_verr(ev, "type '%s' does not support field selection",
                    cel_type_name(cel_value_type(o)));
}

static int index_of(struct cel_eval *ev, const struct cel_value *k,
                    size_t n, size_t *out, struct cel_value *errv)
{
    int64_t i;

    if (k->kind == CEL_V_INT) {
        i = k->v.i;
    } else if (k->kind == CEL_V_UINT) {
        i = k->v.u > (uint64_t)INT64_MAX ? -1 : (int64_t)k->v.u;
    } else if (k->kind == CEL_V_DOUBLE && k->v.d == trunc(k->v.d) &&
               fabs(k->v.d) < 9e18) {
        i = (int64_t)k->v.d;
    } else {
        *errv = cel_verr(ev, "no such overload: list[%s]",
                         cel_type_name(cel_value_type(k)));
        return -1;
    }
    if (i < 0 || (uint64_t)i >= n) {
        *errv = cel_verr(ev, "index out of range: %lld", (long long)i);
        return -1;
    }
    *out = (size_t)i;
    return 0;
}

__attribute__((noinline))
static struct cel_value do_index(struct cel_eval *ev,
                                 const struct cel_value *o,
                                 const struct cel_value *k, int optional)
{
    struct cel_value out;
    size_t i;

    if (o->kind == CEL_V_OPT) {
        struct cel_value inner;
        if (!o->sub)
            return *o;
        inner = do_index(ev, o->v.opt, k, 1);
        if (is_err(&inner) || inner.kind == CEL_V_OPT)
            return inner;
        return cel_vopt(ev, &inner);
    }
    if (o->kind == CEL_V_LIST) {
        if (index_of(ev, k, o->v.l->n, &i, &out) < 0) {
            if (optional && k->kind != CEL_V_STRING &&
                strncmp(out.v.s.p, "index", 5) == 0)
                return cel_vopt(ev, NULL);
            return out;
        }
        return optional ? cel_vopt(ev, &o->v.l->v[i]) : o->v.l->v[i];
    }
    if (cel_is_map(o)) {
        int r = cel_map_get(ev, o, k, &out);
        if (r < 0)
            return cel_verr(ev, "unsupported key type: %s",
                            cel_type_name(cel_value_type(k)));
        if (r == 0) {
            char tmp[80];
            if (optional)
                return cel_vopt(ev, NULL);
            if (cel_value_render(k, tmp, sizeof(tmp)) < 0)
                snprintf(tmp, sizeof(tmp), "...");
            if (k->kind == CEL_V_STRING)
                return cel_verr(ev, "no such key: %.*s", (int)k->v.s.n,
                                k->v.s.p);
            return cel_verr(ev, "no such key: %s", tmp);
        }
        if (is_err(&out))
            return out;
        return optional ? cel_vopt(ev, &out) : out;
    }
    return cel_verr(ev, "no such overload: %s[%s]",
                    cel_type_name(cel_value_type(o)),
                    cel_type_name(cel_value_type(k)));
}

__attribute__((noinline))
static struct cel_value has_field(struct cel_eval *ev,
                                  const struct cel_value *o,
                                  const char *name, size_t nl)
{
    struct cel_value key, out;
    int found;

    if (o->kind == CEL_V_OPT)
        return o->sub ? has_field(ev, o->v.opt, name, nl) : cel_vbool(0);
    if (cel_is_map(o)) {
        key = cel_vstr(name, nl);
        return cel_vbool(cel_map_get(ev, o, &key, &out) == 1);
    }
    if (o->kind == CEL_V_DEVICE) {
        out = device_field(ev, o, name, nl, &found);
        return found ? cel_vbool(1) : out;
    }
    return cel_verr(ev, "invalid type for field selection: %s",
                    cel_type_name(cel_value_type(o)));
}

/* ================= arithmetic ================= */

__attribute__((noinline))
static struct cel_value arith(struct cel_eval *ev, int op,
                              const struct cel_value *a,
                              const struct cel_value *b)
{
    static const char *const names[] = { "==", "!=", "<", "<=", ">", ">=",
                                         "in", "+", "-", "*", "/", "%" };
    int64_t ri;
    uint64_t ru;

    if (a->kind == CEL_V_INT && b->kind == CEL_V_INT) {
        int64_t x = a->v.i, y = b->v.i;
        switch (op) {
        case CEL_OP_ADD:
            if (__builtin_add_overflow(x, y, &ri))
                return cel_verr(ev, "integer overflow");
            return cel_vint(ri);
        case CEL_OP_SUB:
            if (__builtin_sub_overflow(x, y, &ri))
                return cel_verr(ev, "integer overflow");
            return cel_vint(ri);
        case CEL_OP_MUL:
            if (__builtin_mul_overflow(x, y, &ri))
                return cel_verr(ev, "integer overflow");
            return cel_vint(ri);
        case CEL_OP_DIV:
            if (y == 0)
                return cel_verr(ev, "division by zero");
            if (x == INT64_MIN && y == -1)
                return cel_verr(ev, "integer overflow");
            return cel_vint(x / y);
        case CEL_OP_MOD:
            if (y == 0)
                return cel_verr(ev, "modulus by zero");
            if (x == INT64_MIN && y == -1)
                return cel_verr(ev, "integer overflow");
            return cel_vint(x % y);
        default: break;
        }
    } else if (a->kind == CEL_V_UINT && b->kind == CEL_V_UINT) {
        uint64_t x = a->v.u, y = b->v.u;
        switch (op) {
        case CEL_OP_ADD:
            if (__builtin_add_overflow(x, y, &ru))
                return cel_verr(ev, "unsigned integer overflow");
            return cel_vuint(ru);
        case CEL_OP_SUB:
            if (__builtin_sub_overflow(x, y, &ru))
                return cel_verr(ev, "unsigned integer overflow");
            return cel_vuint(ru);
        case CEL_OP_MUL:
            if (__builtin_mul_overflow(x, y, &ru))
                return cel_verr(ev, "unsigned integer overflow");
            return cel_vuint(ru);
        case CEL_OP_DIV:
            if (y == 0)
                return cel_verr(ev, "division by zero");
            return cel_vuint(x / y);
        case CEL_OP_MOD:
            if (y == 0)
                return cel_verr(ev, "modulus by zero");
            return cel_vuint(x % y);
        default: break;
        }
    } else if (a->kind == CEL_V_DOUBLE && b->kind == CEL_V_DOUBLE) {
        double x = a->v.d, y = b->v.d;
        switch (op) {
        case CEL_OP_ADD: return cel_vdouble(x + y);
        case CEL_OP_SUB: return cel_vdouble(x - y);
        case CEL_OP_MUL: return cel_vdouble(x * y);
        case CEL_OP_DIV: return cel_vdouble(x / y);
        default: break;
        }
    } else if ((op == CEL_OP_ADD || op == CEL_OP_SUB) &&
               (a->kind == CEL_V_TIMESTAMP || a->kind == CEL_V_DURATION) &&
               (b->kind == CEL_V_TIMESTAMP || b->kind == CEL_V_DURATION) &&
               !(op == CEL_OP_ADD && a->kind == CEL_V_TIMESTAMP &&
                 b->kind == CEL_V_TIMESTAMP) &&
               !(op == CEL_OP_SUB && a->kind == CEL_V_DURATION &&
                 b->kind == CEL_V_TIMESTAMP)) {
        /* ts+dur, dur+ts, dur+dur, ts-dur, ts-ts, dur-dur */
        struct cel_value r;
        int kind = (a->kind == CEL_V_TIMESTAMP) != (b->kind ==
                   CEL_V_TIMESTAMP) ? CEL_V_TIMESTAMP : CEL_V_DURATION;
        int64_t sec, ns = (int64_t)a->v.t.nsec +
                          (op == CEL_OP_ADD ? 1 : -1) * (int64_t)b->v.t.nsec;
        if (op == CEL_OP_SUB && a->kind == CEL_V_TIMESTAMP &&
            b->kind == CEL_V_TIMESTAMP)
            kind = CEL_V_DURATION;
        if ((op == CEL_OP_ADD ? __builtin_add_overflow(a->v.t.sec,
                                                       b->v.t.sec, &sec)
                              : __builtin_sub_overflow(a->v.t.sec,
                                                       b->v.t.sec, &sec)) ||
            cel_time_make(kind, sec, ns, &r) < 0)
            return cel_verr(ev, "%s out of range", kind == CEL_V_TIMESTAMP
                            ? "timestamp" : "duration");
        return r;
    } else if (op == CEL_OP_ADD && a->kind == b->kind &&
               (a->kind == CEL_V_STRING || a->kind == CEL_V_BYTES)) {
        size_t n = a->v.s.n + b->v.s.n;
        char *p;
        if (n > CEL_MAX_STRING)
            return cel_verr(ev, "string too large");
        p = cel_ev_alloc(ev, n + 1);
        struct cel_value r;
        if (a->v.s.n)
            memcpy(p, a->v.s.p, a->v.s.n);
        if (b->v.s.n)
            memcpy(p + a->v.s.n, b->v.s.p, b->v.s.n);
        p[n] = 0;
        r = cel_vstr(p, n);
        r.kind = a->kind;
        return r;
    } else if (op == CEL_OP_ADD && a->kind == CEL_V_LIST &&
               b->kind == CEL_V_LIST) {
        size_t n = a->v.l->n + b->v.l->n;
        struct cel_value *items;
        if (!a->v.l->n)
            return *b;
        if (!b->v.l->n)
            return *a;
        items = (struct cel_value *)cel_ev_alloc(ev, n * sizeof(*items));
        memcpy(items, a->v.l->v, a->v.l->n * sizeof(*items));
        memcpy(items + a->v.l->n, b->v.l->v, b->v.l->n * sizeof(*items));
        return cel_vlist(ev, items, n);
    }
    return no_overload(ev, names[op], a, b);
}

static struct cel_value binop_value(struct cel_eval *ev,
                                    const struct cel_node *n,
                                    const struct cel_value *a,
                                    const struct cel_value *b)
{
    int c;
    size_t i;

    switch (n->op) {
    case CEL_OP_EQ:
        return cel_vbool(cel_value_equal(a, b) == 1);
    case CEL_OP_NE:
        return cel_vbool(cel_value_equal(a, b) != 1);
    case CEL_OP_LT: case CEL_OP_LE: case CEL_OP_GT: case CEL_OP_GE:
        c = cel_value_compare(a, b);
        if (c == 2) {
            static const char *const rel[] = { "<", "<=", ">", ">=" };
            return no_overload(ev, rel[n->op - CEL_OP_LT], a, b);
        }
        if (c == 3)
            return cel_vbool(0);
        switch (n->op) {
        case CEL_OP_LT: return cel_vbool(c < 0);
        case CEL_OP_LE: return cel_vbool(c <= 0);
        case CEL_OP_GT: return cel_vbool(c > 0);
        default: return cel_vbool(c >= 0);
        }
    case CEL_OP_IN:
        if (b->kind == CEL_V_LIST) {
            for (i = 0; i < b->v.l->n; i++) {
                if (cel_value_equal(a, &b->v.l->v[i]) == 1)
                    return cel_vbool(1);
            }
            return cel_vbool(0);
        }
        if (cel_is_map(b))
            return cel_vbool(cel_map_has(b, a));
        return no_overload(ev, "in", a, b);
    default:
        return arith(ev, n->op, a, b);
    }
}

/* the cost of a call of class cls (CEL_RT_ONE: the common case inline) */
static inline uint64_t call_cost(struct cel_eval *ev, int cls,
                                 const struct cel_value *a, unsigned na,
                                 const struct cel_value *res)
{
    return cls == CEL_RT_ONE ? 1 : cel_call_cost(ev, cls, a, na, res);
}

__attribute__((noinline))
static struct cel_value binop(struct cel_eval *ev, const struct cel_node *n)
{
    struct cel_value ab[2], r;

    ab[0] = ev_node(ev, n->args[0]);
    if (is_err(&ab[0]))
        return ab[0];
    ab[1] = ev_node(ev, n->args[1]);
    if (is_err(&ab[1]))
        return ab[1];
    if (ab[0].kind == CEL_V_INT && ab[1].kind == CEL_V_INT &&
        n->op != CEL_OP_IN) {
        /* the common case inline: an operator on ints costs 1 */
        int64_t x = ab[0].v.i, y = ab[1].v.i;
        charge(ev, 1);
        switch (n->op) {
        case CEL_OP_EQ: return cel_vbool(x == y);
        case CEL_OP_NE: return cel_vbool(x != y);
        case CEL_OP_LT: return cel_vbool(x < y);
        case CEL_OP_LE: return cel_vbool(x <= y);
        case CEL_OP_GT: return cel_vbool(x > y);
        case CEL_OP_GE: return cel_vbool(x >= y);
        default: return arith(ev, n->op, &ab[0], &ab[1]);
        }
    }
    if (n->op == CEL_OP_IN && ab[1].kind == CEL_V_LIST &&
        n->rtc != CEL_RT_FREE) {
        /* charged before the scan: it is proportional to the list */
        charge(ev, cel_call_cost(ev, n->rtc, ab, 2, NULL));
        if (ev->cost > CEL_MAX_COST)
            return cel_verr(ev, "%s", CEL_COST_MSG);
        return binop_value(ev, n, &ab[0], &ab[1]);
    }
    r = binop_value(ev, n, &ab[0], &ab[1]);
    charge(ev, call_cost(ev, n->rtc, ab, 2, &r));
    return r;
}

/* ================= literals ================= */

__attribute__((noinline))
static struct cel_value list_lit(struct cel_eval *ev, const struct cel_node *n)
{
    struct cel_value *items;
    size_t i, k = 0;

    if (n->nargs == 0)
        return cel_vlist(ev, NULL, 0);
    items = (struct cel_value *)cel_ev_alloc(ev, n->nargs * sizeof(*items));
    for (i = 0; i < n->nargs; i++) {
        struct cel_value v = ev_node(ev, n->args[i]);
        if (is_err(&v))
            return v;
        if (n->opt_elems && n->optflags[i]) {
            if (v.kind != CEL_V_OPT)
                return cel_verr(ev, "no such overload: optional element "
                                "of type %s",
                                cel_type_name(cel_value_type(&v)));
            if (!v.sub)
                continue;
            v = *v.v.opt;
        }
        items[k++] = v;
    }
    return cel_vlist(ev, items, k);
}

static int valid_key(const struct cel_value *k)
{
    return k->kind == CEL_V_STRING || k->kind == CEL_V_INT ||
           k->kind == CEL_V_UINT || k->kind == CEL_V_BOOL;
}

__attribute__((noinline))
static struct cel_value map_lit(struct cel_eval *ev, const struct cel_node *n)
{
    size_t cnt = n->nargs / 2, i, j, k = 0;
    struct cel_value *keys, *vals, r;
    struct cel_map *m;

    keys = (struct cel_value *)cel_ev_alloc(ev, (cnt + 1) * sizeof(*keys));
    vals = (struct cel_value *)cel_ev_alloc(ev, (cnt + 1) * sizeof(*vals));
    for (i = 0; i < cnt; i++) {
        struct cel_value kv = ev_node(ev, n->args[2 * i]);
        struct cel_value vv;
        if (is_err(&kv))
            return kv;
        vv = ev_node(ev, n->args[2 * i + 1]);
        if (is_err(&vv))
            return vv;
        if (!valid_key(&kv))
            return cel_verr(ev, "unsupported map key type: %s",
                            cel_type_name(cel_value_type(&kv)));
        if (n->opt_elems && n->optflags[i]) {
            if (vv.kind != CEL_V_OPT)
                return cel_verr(ev, "no such overload: optional map value "
                                "of type %s",
                                cel_type_name(cel_value_type(&vv)));
            if (!vv.sub)
                continue;
            vv = *vv.v.opt;
        }
        for (j = 0; j < k; j++) {
            if (cel_value_equal(&keys[j], &kv) == 1)
                return cel_verr(ev, "failed with repeated key");
        }
        keys[k] = kv;
        vals[k] = vv;
        k++;
    }
    m = (struct cel_map *)cel_ev_alloc(ev, sizeof(*m));
    m->n = k;
    m->k = keys;
    m->v = vals;
    memset(&r, 0, sizeof(r));
    r.kind = CEL_V_MAP;
    r.v.m = m;
    return r;
}

/* ================= comprehensions ================= */

/* the Go type cel-go's runtime errors name (%T of the value) */
static const char *go_type_name(const struct cel_value *v)
{
    switch (v->kind) {
    case CEL_V_INT: return "types.Int";
    case CEL_V_UINT: return "types.Uint";
    case CEL_V_DOUBLE: return "types.Double";
    case CEL_V_BOOL: return "types.Bool";
    case CEL_V_STRING: return "types.String";
    case CEL_V_BYTES: return "types.Bytes";
    case CEL_V_NULL: return "types.Null";
    case CEL_V_DURATION: return "types.Duration";
    case CEL_V_TIMESTAMP: return "types.Timestamp";
    case CEL_V_TYPE: return "*types.Type";
    case CEL_V_OPT: return "*types.Optional";
    case CEL_V_QUANTITY: return "cel.Quantity";
    case CEL_V_SEMVER: return "cel.Semver";
    case CEL_V_IP: return "cel.IP";
    case CEL_V_CIDR: return "cel.CIDR";
    case CEL_V_URL: return "cel.URL";
    case CEL_V_FORMAT: return "*cel.Format";
    default: return cel_type_name(cel_value_type(v));
    }
}

/* list.sortBy(x, key): cel.bind(@in, list, @in.@sortByAssociatedKeys(
 * @in.map(x, key))) - a stable sort by the computed keys */
__attribute__((noinline))
static struct cel_value sort_by(struct cel_eval *ev, const struct cel_node *n,
                                const struct cel_value *range)
{
    const struct cel_list *l;
    struct cel_value *keys, *out, args[2], kl;
    size_t cnt, i;
    int s1 = n->args[1]->slot;

    if (range->kind != CEL_V_LIST)
        return no_overload(ev, "sortBy ", range, NULL);
    l = range->v.l;
    cnt = l->n;
    keys = (struct cel_value *)cel_ev_alloc(ev, (cnt + 1) * sizeof(*keys));
    out = (struct cel_value *)cel_ev_alloc(ev, (cnt + 1) * sizeof(*out));
    charge(ev, 1);                  /* @in as the map's range */
    for (i = 0; i < cnt; i++) {
        ev->slots[s1] = l->v[i];
        /* __result__ + [key] */
        charge(ev, 1 + (rt_const(n->args[3]) && !ev->p->unoptimized
                        ? 0 : CEL_COST_LIST) + 1);
        keys[i] = ev_node(ev, n->args[3]);
        if (is_err(&keys[i]))
            return keys[i];
        if (i && keys[i].kind != keys[0].kind)
            return cel_verr(ev, "sortBy: keys must have the same type");
        out[i] = l->v[i];
    }
    charge(ev, 2);                  /* the map's result, @in the receiver */
    kl = cel_vlist(ev, keys, cnt);
    args[0] = *range;
    args[1] = kl;
    charge(ev, cel_call_cost(ev, cel_call_class("@sortByAssociatedKeys", 1),
                             args, 2, NULL));
    if (ev->cost > CEL_MAX_COST)
        return cel_verr(ev, "%s", CEL_COST_MSG);
    {
        struct cel_value err;
        if (cel_sort_values(ev, out, keys, cnt, &err) < 0)
            return err;
    }
    return cel_vlist(ev, out, cnt);
}

/* optMap / optFlatMap: t.hasValue() ? optional.of(bind(x, t.value(), f))
 * : optional.none() (optFlatMap without optional.of); t is evaluated
 * twice in the expansion, so its cost counts twice when present */
__attribute__((noinline))
static struct cel_value opt_map(struct cel_eval *ev, const struct cel_node *n,
                                const struct cel_value *range, uint64_t rcost)
{
    struct cel_value r;
    int m = n->op;

    if (range->kind != CEL_V_OPT)
        return no_overload(ev, m == CEL_M_OPTMAP ? "optMap " : "optFlatMap ",
                           range, NULL);
    charge(ev, 1);                  /* hasValue() */
    if (!range->sub) {
        charge(ev, 1);              /* optional.none() */
        return *range;
    }
    charge(ev, rcost + 1);          /* t.value() */
    ev->slots[n->args[1]->slot] = *range->v.opt;
    r = ev_node(ev, n->args[3]);
    if (is_err(&r))
        return r;
    if (m == CEL_M_OPTMAP) {
        charge(ev, 1);              /* optional.of() */
        return cel_vopt(ev, &r);
    }
    if (r.kind != CEL_V_OPT)
        return no_overload(ev, "optFlatMap ", &r, NULL);
    return r;
}

/* The macros, evaluated as the comprehensions they expand to, with their
 * costs: the loop condition, the step and the result of the expansion
 * (the accumulator is an identifier: 1). */
__attribute__((noinline))
static struct cel_value compr(struct cel_eval *ev, const struct cel_node *n)
{
    uint64_t before = ev->cost;
    struct cel_value range = ev_node(ev, n->args[0]);
    const struct cel_node *e1 = n->args[3], *e2 = n->args[4];
    int s1 = n->args[1]->slot, s2 = n->args[2] ? n->args[2]->slot : -1;
    size_t cnt, i, k = 0;
    int is_list, count = 0, acc = -1;   /* all/exists: decided value */
    int have_err = 0;
    struct cel_value err, *out = NULL, *outk = NULL;
    int m = n->op, all, filt;
    uint64_t elem_list = 0;

    if (is_err(&range))
        return range;
    if (m == CEL_M_OPTMAP || m == CEL_M_OPTFLATMAP)
        return opt_map(ev, n, &range, ev->cost - before);
    if (range.kind == CEL_V_LIST) {
        is_list = 1;
        cnt = range.v.l->n;
    } else if (cel_is_map(&range)) {
        is_list = 0;
        cnt = cel_map_size(&range);
    } else {
        return cel_verr(ev, "got '%s', expected iterable type",
                        go_type_name(&range));
    }
    memset(&err, 0, sizeof(err));
    if (m == CEL_M_SORTBY)
        return sort_by(ev, n, &range);
    all = m == CEL_M_ALL || m == CEL_M_ALL2;
    filt = m == CEL_M_MAP_FILTER || m == CEL_M_TLIST_FILTER ||
           m == CEL_M_TMAP_FILTER || m == CEL_M_TMAPENTRY_FILTER;
    if (m == CEL_M_MAP || m == CEL_M_MAP_FILTER || m == CEL_M_FILTER ||
        m == CEL_M_TLIST || m == CEL_M_TLIST_FILTER || m == CEL_M_TMAP ||
        m == CEL_M_TMAP_FILTER || m == CEL_M_TMAPENTRY ||
        m == CEL_M_TMAPENTRY_FILTER)
        out = (struct cel_value *)cel_ev_alloc(ev, (cnt + 1) * sizeof(*out));
    if (m == CEL_M_TMAP || m == CEL_M_TMAP_FILTER || m == CEL_M_TMAPENTRY ||
        m == CEL_M_TMAPENTRY_FILTER)
        outk = (struct cel_value *)cel_ev_alloc(ev, (cnt + 1) * sizeof(*outk));
    /* the accumulator's [] or {}: built at runtime without OptOptimize */
    if (ev->p->unoptimized && (out || outk))
        charge(ev, outk ? CEL_COST_MAP : CEL_COST_LIST);
    /* [f] in __result__ + [f]: a list literal unless f is constant */
    if (m == CEL_M_FILTER)
        elem_list = CEL_COST_LIST;
    else if (e1 && (m == CEL_M_MAP || m == CEL_M_TLIST))
        elem_list = rt_const(e1) && !ev->p->unoptimized ? 0 : CEL_COST_LIST;
    else if (e2 && (m == CEL_M_MAP_FILTER || m == CEL_M_TLIST_FILTER))
        elem_list = rt_const(e2) && !ev->p->unoptimized ? 0 : CEL_COST_LIST;
    for (i = 0; i < cnt; i++) {
        struct cel_value key, val, r;

        if (ev->cost > CEL_MAX_COST)
            return cel_verr(ev, "%s", CEL_COST_MSG);
        if (is_list) {
            key = cel_vint((int64_t)i);
            val = range.v.l->v[i];
        } else {
            cel_map_entry(ev, &range, i, &key, &val);
        }
        if (s2 >= 0) {
            ev->slots[s1] = key;
            ev->slots[s2] = val;
        } else {
            ev->slots[s1] = is_list ? val : key;
            val = ev->slots[s1];
        }
        switch (m) {
        case CEL_M_ALL: case CEL_M_ALL2:
        case CEL_M_EXISTS: case CEL_M_EXISTS2: {
            /* cond @not_strictly_false(__result__) (exists: of
             * !__result__), then __result__ && p (||) */
            int want = !all;
            charge(ev, all ? 2 : 3);
            if (acc == want)
                goto stop;
            charge(ev, 1);
            r = ev_node(ev, e1);
            if (r.kind == CEL_V_BOOL) {
                if (r.v.b == want)
                    acc = want;
            } else if (!have_err) {
                have_err = 1;
                err = is_err(&r) ? r : no_overload(ev, "!", &r, NULL);
            }
            break;
        }
        case CEL_M_EXISTS_ONE: case CEL_M_EXISTS_ONE2:
            /* p ? __result__ + 1 : __result__ */
            r = ev_node(ev, e1);
            if (is_err(&r))
                return r;
            if (r.kind != CEL_V_BOOL)
                return no_overload(ev, "!", &r, NULL);
            count += r.v.b;
            charge(ev, r.v.b ? 2 : 1);
            break;
        case CEL_M_MAP: case CEL_M_TLIST: case CEL_M_TMAP:
        case CEL_M_TMAPENTRY:
            r = ev_node(ev, e1);
            if (is_err(&r))
                return r;
            /* __result__ + [f] / cel.@mapInsert(__result__, k, f) */
            charge(ev, m == CEL_M_TMAP ? 3 : m == CEL_M_TMAPENTRY ? 2
                                       : 2 + elem_list);
            if (m == CEL_M_TMAPENTRY) {
                if (!cel_is_map(&r) || cel_map_size(&r) != 1)
                    return cel_verr(ev, "transformMapEntry: the entry "
                                    "must be a map with one key");
                cel_map_entry(ev, &r, 0, &key, &r);
            }
            if (outk)
                outk[k] = key;
            out[k++] = r;
            break;
        case CEL_M_FILTER:
            r = ev_node(ev, e1);
            if (is_err(&r))
                return r;
            if (r.kind != CEL_V_BOOL)
                return no_overload(ev, "!", &r, NULL);
            /* p ? __result__ + [x] : __result__ */
            charge(ev, r.v.b ? 3 + elem_list : 1);
            if (r.v.b)
                out[k++] = val;
            break;
        default:    /* MAP_FILTER, TLIST_FILTER, TMAP(ENTRY)_FILTER */
            r = ev_node(ev, e1);
            if (is_err(&r))
                return r;
            if (r.kind != CEL_V_BOOL)
                return no_overload(ev, "!", &r, NULL);
            if (!r.v.b) {
                charge(ev, 1);
                break;
            }
            r = ev_node(ev, e2);
            if (is_err(&r))
                return r;
            charge(ev, m == CEL_M_TMAP_FILTER ? 3
                       : m == CEL_M_TMAPENTRY_FILTER ? 2 : 2 + elem_list);
            if (m == CEL_M_TMAPENTRY_FILTER) {
                if (!cel_is_map(&r) || cel_map_size(&r) != 1)
                    return cel_verr(ev, "transformMapEntry: the entry "
                                    "must be a map with one key");
                cel_map_entry(ev, &r, 0, &key, &r);
            }
            if (outk)
                outk[k] = key;
            out[k++] = r;
            break;
        }
    }
stop:
    switch (m) {
    case CEL_M_ALL: case CEL_M_ALL2:
    case CEL_M_EXISTS: case CEL_M_EXISTS2:
        charge(ev, 1);
        if (acc == !all)
            return cel_vbool(acc);
        return have_err ? err : cel_vbool(all);
    case CEL_M_EXISTS_ONE: case CEL_M_EXISTS_ONE2:
        charge(ev, 2);      /* __result__ == 1 */
        return cel_vbool(count == 1);
    case CEL_M_TMAP: case CEL_M_TMAP_FILTER: case CEL_M_TMAPENTRY:
    case CEL_M_TMAPENTRY_FILTER: {
        struct cel_map *mp = (struct cel_map *)cel_ev_alloc(ev, sizeof(*mp));
        struct cel_value r;
        size_t a, b;
        charge(ev, 1);
        for (a = 0; a < k && m != CEL_M_TMAP && m != CEL_M_TMAP_FILTER; a++)
            for (b = 0; b < a; b++)
                if (cel_value_equal(&outk[a], &outk[b]) == 1) {
                    char kt[80];
                    if (cel_value_render(&outk[a], kt, sizeof(kt)) < 0)
                        snprintf(kt, sizeof(kt), "...");
                    return cel_verr(ev, "insert failed: key %s already "
                                    "exists", kt);
                }
        mp->n = k;
        mp->k = outk;
        mp->v = out;
        memset(&r, 0, sizeof(r));
        r.kind = CEL_V_MAP;
        r.v.m = mp;
        return r;
    }
    default:
        charge(ev, 1);
        (void)filt;
        return cel_vlist(ev, out, k);
    }
}

/* ================= dispatcher ================= */

__attribute__((noinline))
static struct cel_value call(struct cel_eval *ev, const struct cel_node *n)
{
    struct cel_value args[16], r;
    unsigned i;
    uint64_t c;

    for (i = 0; i < n->nargs && i < 16; i++) {
        args[i] = ev_node(ev, n->args[i]);
        if (is_err(&args[i]))
            return args[i];
    }
    if (!n->fn || !n->fn->impl)
        return cel_func_lookup(n->name, n->name_len)
               ? cel_no_overload(ev, n, args, n->nargs)
               : cel_verr(ev, "undeclared reference to '%.*s'",
                          (int)n->name_len, n->name);
    /* the call's cost first (a lower bound when it depends on the
     * result): work it would pay for over the limit is not done */
    c = call_cost(ev, n->rtc, args, n->nargs, NULL);
    if (ev->cost + c > CEL_MAX_COST) {
        charge(ev, c);
        return cel_verr(ev, "%s", CEL_COST_MSG);
    }
    r = n->fn->impl(ev, n, args, n->nargs);
    if (cel_call_cost_needs_result(n->rtc))
        c = cel_call_cost(ev, n->rtc, args, n->nargs, &r);
    charge(ev, c);
    return r;
}

/* a constant of the optimized program: built (once, or here without the
 * cost), never charged */
__attribute__((noinline))
static struct cel_value eval_const(struct cel_eval *ev,
                                   const struct cel_node *n)
{
    uint64_t c = ev->cost;
    struct cel_value a;

    if (n->konst == 2)
        return n->lit;      /* a literal built once (cel_plan) */
    a = n->kind == CEL_N_LIST ? list_lit(ev, n)
        : n->kind == CEL_N_MAP ? map_lit(ev, n)
        : n->kind == CEL_N_BINOP ? cel_vbool(0) : call(ev, n);
    ev->cost = c;
    return a;
}

__attribute__((noinline))
static struct cel_value eval_select(struct cel_eval *ev,
                                    const struct cel_node *n)
{
    struct cel_value a = ev_node(ev, n->args[0]);

    if (is_err(&a))
        return a;
    if (n->kind == CEL_N_HAS) {
        charge(ev, rt_attr(n->args[0]) ? 0 : 1);
        return has_field(ev, &a, n->name, n->name_len);
    }
    charge(ev, rt_attr(n->args[0]) ? 1 : 2);
    return select_field(ev, &a, n->name, n->name_len,
                        n->kind == CEL_N_OPTSELECT);
}

__attribute__((noinline))
static struct cel_value eval_index(struct cel_eval *ev,
                                   const struct cel_node *n)
{
    struct cel_value a = ev_node(ev, n->args[0]), b;

    if (is_err(&a))
        return a;
    charge(ev, (rt_attr(n->args[0]) ? 0 : 1) + key_cost(n->args[1]));
    b = ev_node(ev, n->args[1]);
    if (is_err(&b))
        return b;
    return do_index(ev, &a, &b, n->kind == CEL_N_OPTINDEX);
}

/* && and ||: error-absorbing, left to right */
__attribute__((noinline))
static struct cel_value eval_logic(struct cel_eval *ev,
                                   const struct cel_node *n)
{
    int want = n->kind == CEL_N_OR;    /* the absorbing value */
    struct cel_value a = ev_node(ev, n->args[0]), b;

    if (a.kind == CEL_V_BOOL && a.v.b == want)
        return a;
    b = ev_node(ev, n->args[1]);
    if (b.kind == CEL_V_BOOL && b.v.b == want)
        return b;
    if (a.kind == CEL_V_BOOL && b.kind == CEL_V_BOOL)
        return b;
    if (is_err(&a))
        return a;
    if (is_err(&b))
        return b;
    return no_overload(ev, want ? "||" : "&&",
                       a.kind == CEL_V_BOOL ? &b : &a, NULL);
}

/* ?:, !, unary -, cel.bind */
__attribute__((noinline))
static struct cel_value eval_other(struct cel_eval *ev,
                                   const struct cel_node *n)
{
    struct cel_value a;

    switch (n->kind) {
    case CEL_N_COND:
        a = ev_node(ev, n->args[0]);
        if (is_err(&a))
            return a;
        if (a.kind != CEL_V_BOOL)
            return no_overload(ev, "?:", &a, NULL);
        return ev_node(ev, n->args[a.v.b ? 1 : 2]);
    case CEL_N_NOT:
        a = ev_node(ev, n->args[0]);
        if (is_err(&a))
            return a;
        charge(ev, 1);
        if (a.kind != CEL_V_BOOL)
            return no_overload(ev, "!", &a, NULL);
        return cel_vbool(!a.v.b);
    case CEL_N_NEG:
        a = ev_node(ev, n->args[0]);
        if (is_err(&a))
            return a;
        charge(ev, 1);
        if (a.kind == CEL_V_INT) {
            if (a.v.i == INT64_MIN)
                return cel_verr(ev, "integer overflow");
            return cel_vint(-a.v.i);
        }
        if (a.kind == CEL_V_DOUBLE)
            return cel_vdouble(-a.v.d);
        return no_overload(ev, "-", &a, NULL);
    case CEL_N_BIND:
        if (ev->p->unoptimized)
            charge(ev, CEL_COST_LIST);  /* its empty range, built */
        ev->slots[n->args[0]->slot] = ev_node(ev, n->args[1]);
        return ev_node(ev, n->args[2]);
    default:
        return cel_verr(ev, "unknown expression");
    }
}

/* The dispatcher: small, since it runs for every node. */
static struct cel_value eval(struct cel_eval *ev, const struct cel_node *n)
{
    if (n->konst)
        return eval_const(ev, n);
    switch (n->kind) {
    case CEL_N_LIT:
        if (n->lit_cost)
            charge(ev, n->lit_cost);
        return n->lit;
    case CEL_N_IDENT:
        charge(ev, 1);
        if (n->slot < 0)
            return cel_verr(ev, "undeclared reference to '%.*s'",
                            (int)n->name_len, n->name);
        return ev->slots[n->slot];
    case CEL_N_SELECT: case CEL_N_OPTSELECT: case CEL_N_HAS:
        return eval_select(ev, n);
    case CEL_N_INDEX: case CEL_N_OPTINDEX:
        return eval_index(ev, n);
    case CEL_N_CALL:
        return call(ev, n);
    case CEL_N_LIST:
        charge(ev, CEL_COST_LIST);
        return list_lit(ev, n);
    case CEL_N_MAP:
        charge(ev, CEL_COST_MAP);
        return map_lit(ev, n);
    case CEL_N_AND: case CEL_N_OR:
        return eval_logic(ev, n);
    case CEL_N_BINOP:
        return binop(ev, n);
    case CEL_N_COMPR:
        return compr(ev, n);
    default:
        return eval_other(ev, n);
    }
}

/* A constant list or map literal is built once, in the program's arena
 * (a value, so immutable and shared by every evaluation); folded = 2. */
static void fold_literal(struct arena *a, struct cel_node *n)
{
    struct cel_value *v, *k = NULL;
    unsigned i, j, cnt;

    for (i = 0; i < n->nargs; i++)
        if (n->args[i]->kind != CEL_N_LIT && n->args[i]->konst != 2)
            return;
    if (n->kind == CEL_N_LIST) {
        struct cel_list *l = arena_alloc(a, sizeof(*l));
        v = arena_alloc(a, (n->nargs + 1) * sizeof(*v));
        for (i = 0; i < n->nargs; i++)
            v[i] = n->args[i]->lit;
        l->n = n->nargs;
        l->v = v;
        memset(&n->lit, 0, sizeof(n->lit));
        n->lit.kind = CEL_V_LIST;
        n->lit.v.l = l;
    } else {
        struct cel_map *m = arena_alloc(a, sizeof(*m));
        cnt = n->nargs / 2;
        k = arena_alloc(a, (cnt + 1) * sizeof(*k));
        v = arena_alloc(a, (cnt + 1) * sizeof(*v));
        for (i = 0; i < cnt; i++) {
            k[i] = n->args[2 * i]->lit;
            v[i] = n->args[2 * i + 1]->lit;
            if (k[i].kind != CEL_V_STRING && k[i].kind != CEL_V_INT &&
                k[i].kind != CEL_V_UINT && k[i].kind != CEL_V_BOOL)
                return;     /* an error at runtime */
            for (j = 0; j < i; j++)
                if (cel_value_equal(&k[j], &k[i]) == 1)
                    return;
        }
        m->n = cnt;
        m->k = k;
        m->v = v;
        memset(&n->lit, 0, sizeof(n->lit));
        n->lit.kind = CEL_V_MAP;
        n->lit.v.m = m;
    }
    n->konst = 2;
}

void cel_plan(struct arena *a, struct cel_node *n)
{
    unsigned i;

    if (!n)
        return;
    for (i = 0; i < n->nargs; i++)
        cel_plan(a, n->args[i]);
    n->konst = (unsigned char)(n->kind != CEL_N_LIT && rt_const(n));
    if (rt_set_membership(n) && n->args[1]->nargs == 0)
        n->konst = 1;       /* x in []: the constant false */
    if (n->konst && !n->opt_elems &&
        (n->kind == CEL_N_LIST || n->kind == CEL_N_MAP))
        fold_literal(a, n);
    if (n->kind == CEL_N_CALL)
        n->rtc = (unsigned char)cel_call_class(n->fn ? n->fn->name : "",
                                               n->member);
    else if (rt_set_membership(n))
        n->rtc = CEL_RT_FREE;   /* a set lookup, not a call */
    else if (n->kind == CEL_N_BINOP)
        n->rtc = (unsigned char)cel_call_class(cel_binop_function(n->op), 0);
}

static void unoptimize(struct cel_node *n)
{
    unsigned i;

    if (!n)
        return;
    for (i = 0; i < n->nargs; i++)
        unoptimize(n->args[i]);
    if (n->kind != CEL_N_LIT)
        n->konst = 0;
    if (n->kind == CEL_N_BINOP && n->rtc == CEL_RT_FREE)
        n->rtc = (unsigned char)cel_call_class(cel_binop_function(n->op), 0);
}

void cel_unoptimize(struct cel_program *p)
{
    p->unoptimized = 1;
    unoptimize(p->root);
}

struct cel_value cel_eval_node(struct cel_eval *ev, const struct cel_node *n)
{
    return ev_node(ev, n);
}
