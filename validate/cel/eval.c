/*
 * eval.c - the tree-walking evaluator: operators (with int64/uint64 overflow
 * and division errors), the error-absorbing && / || / ?:, field selection
 * (maps, the DRA device, optionals), indexing, list/map literals,
 * comprehensions (macros) and cel.bind, plus the runtime cost counter.
 * Functions live in lib_*.c; name resolution was done by check.c.
 */
#include "cel_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>


static struct cel_value eval(struct cel_eval *ev, const struct cel_node *n);

/* One node: cost tick, dispatch, remember where the first error arose.
 * Inline so the recursion costs one call per node. */
static inline struct cel_value ev_node(struct cel_eval *ev,
                                       const struct cel_node *n)
{
    struct cel_value v;

    if (++ev->cost > CEL_MAX_COST)
        return cel_verr(ev, "%s", CEL_COST_MSG);
    v = eval(ev, n);
    if (v.kind == CEL_V_ERROR && !ev->err_node)
        ev->err_node = n;
    return v;
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
        if (n > CEL_MAX_STRING || cel_cost(ev, n / 10) < 0)
            return n > CEL_MAX_STRING ? cel_verr(ev, "string too large")
                                      : cel_verr(ev, "%s", CEL_COST_MSG);
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
        if (cel_cost(ev, n) < 0)
            return cel_verr(ev, "%s", CEL_COST_MSG);
        items = (struct cel_value *)cel_ev_alloc(ev, n * sizeof(*items));
        memcpy(items, a->v.l->v, a->v.l->n * sizeof(*items));
        memcpy(items + a->v.l->n, b->v.l->v, b->v.l->n * sizeof(*items));
        return cel_vlist(ev, items, n);
    }
    return no_overload(ev, names[op], a, b);
}

static struct cel_value binop(struct cel_eval *ev, const struct cel_node *n)
{
    struct cel_value a = ev_node(ev, n->args[0]);
    struct cel_value b;
    int c;
    size_t i;

    if (is_err(&a))
        return a;
    b = ev_node(ev, n->args[1]);
    if (is_err(&b))
        return b;
    switch (n->op) {
    case CEL_OP_EQ:
        return cel_vbool(cel_value_equal(&a, &b) == 1);
    case CEL_OP_NE:
        return cel_vbool(cel_value_equal(&a, &b) != 1);
    case CEL_OP_LT: case CEL_OP_LE: case CEL_OP_GT: case CEL_OP_GE:
        c = cel_value_compare(&a, &b);
        if (c == 2) {
            static const char *const rel[] = { "<", "<=", ">", ">=" };
            return no_overload(ev, rel[n->op - CEL_OP_LT], &a, &b);
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
        if (b.kind == CEL_V_LIST) {
            if (cel_cost(ev, b.v.l->n) < 0)
                return cel_verr(ev, "%s", CEL_COST_MSG);
            for (i = 0; i < b.v.l->n; i++) {
                if (cel_value_equal(&a, &b.v.l->v[i]) == 1)
                    return cel_vbool(1);
            }
            return cel_vbool(0);
        }
        if (cel_is_map(&b)) {
            struct cel_value out;
            int r = cel_map_get(ev, &b, &a, &out);
            return cel_vbool(r == 1);
        }
        return no_overload(ev, "in", &a, &b);
    default:
        return arith(ev, n->op, &a, &b);
    }
}

/* ================= literals ================= */

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


static int cost_tick(struct cel_eval *ev, uint64_t n)
{
    ev->cost += n;
    return ev->cost > CEL_MAX_COST;
}

/* list.sortBy(x, key): stable sort by the computed keys */
static struct cel_value sort_by(struct cel_eval *ev, const struct cel_node *n,
                                const struct cel_value *range)
{
    const struct cel_list *l;
    struct cel_value *keys, *out;
    size_t cnt, i;
    int s1 = n->args[1]->slot;

    if (range->kind != CEL_V_LIST)
        return no_overload(ev, "sortBy ", range, NULL);
    l = range->v.l;
    cnt = l->n;
    keys = (struct cel_value *)cel_ev_alloc(ev, (cnt + 1) * sizeof(*keys));
    out = (struct cel_value *)cel_ev_alloc(ev, (cnt + 1) * sizeof(*out));
    for (i = 0; i < cnt; i++) {
        if (cost_tick(ev, 1))
            return cel_verr(ev, "%s", CEL_COST_MSG);
        ev->slots[s1] = l->v[i];
        keys[i] = ev_node(ev, n->args[3]);
        if (is_err(&keys[i]))
            return keys[i];
        if (i && keys[i].kind != keys[0].kind)
            return cel_verr(ev, "sortBy: keys must have the same type");
        out[i] = l->v[i];
    }
    {
        struct cel_value err;
        uint64_t lg = 1;
        while (((size_t)1 << lg) < cnt && lg < 63)
            lg++;
        if (cel_cost(ev, cnt * lg) < 0)
            return cel_verr(ev, "%s", CEL_COST_MSG);
        if (cel_sort_values(ev, out, keys, cnt, &err) < 0)
            return err;
    }
    return cel_vlist(ev, out, cnt);
}

static struct cel_value compr(struct cel_eval *ev, const struct cel_node *n)
{
    struct cel_value range = ev_node(ev, n->args[0]);
    const struct cel_node *e1 = n->args[3], *e2 = n->args[4];
    int s1 = n->args[1]->slot, s2 = n->args[2] ? n->args[2]->slot : -1;
    size_t cnt, i, k = 0;
    int is_list, count = 0;
    struct cel_value err, *out = NULL, *outk = NULL;
    int have_err = 0, m = n->op;

    if (is_err(&range))
        return range;
    if (m == CEL_M_OPTMAP || m == CEL_M_OPTFLATMAP) {
        struct cel_value r;
        if (range.kind != CEL_V_OPT)
            return no_overload(ev, "optMap ", &range, NULL);
        if (!range.sub)
            return range;
        ev->slots[s1] = *range.v.opt;
        r = ev_node(ev, e1);
        if (is_err(&r))
            return r;
        if (m == CEL_M_OPTMAP)
            return cel_vopt(ev, &r);
        if (r.kind != CEL_V_OPT)
            return no_overload(ev, "optFlatMap ", &r, NULL);
        return r;
    }
    if (range.kind == CEL_V_LIST) {
        is_list = 1;
        cnt = range.v.l->n;
    } else if (cel_is_map(&range)) {
        is_list = 0;
        cnt = cel_map_size(&range);
    } else {
        return cel_verr(ev, "expression of type '%s' cannot be the range "
                        "of a comprehension",
                        cel_type_name(cel_value_type(&range)));
    }
    memset(&err, 0, sizeof(err));
    if (m == CEL_M_SORTBY)
        return sort_by(ev, n, &range);
    if (m == CEL_M_MAP || m == CEL_M_MAP_FILTER || m == CEL_M_FILTER ||
        m == CEL_M_TLIST || m == CEL_M_TLIST_FILTER || m == CEL_M_TMAP ||
        m == CEL_M_TMAP_FILTER)
        out = (struct cel_value *)cel_ev_alloc(ev, (cnt + 1) * sizeof(*out));
    if (m == CEL_M_TMAP || m == CEL_M_TMAP_FILTER)
        outk = (struct cel_value *)cel_ev_alloc(ev, (cnt + 1) * sizeof(*outk));
    for (i = 0; i < cnt; i++) {
        struct cel_value key, val, r;

        if (cost_tick(ev, 1))
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
            int want = (m == CEL_M_EXISTS || m == CEL_M_EXISTS2);
            r = ev_node(ev, e1);
            if (r.kind == CEL_V_BOOL) {
                if (r.v.b == want)
                    return cel_vbool(want);
            } else if (!have_err) {
                have_err = 1;
                err = is_err(&r) ? r : no_overload(ev, "!", &r, NULL);
            }
            break;
        }
        case CEL_M_EXISTS_ONE: case CEL_M_EXISTS_ONE2:
            r = ev_node(ev, e1);
            if (is_err(&r))
                return r;
            if (r.kind != CEL_V_BOOL)
                return no_overload(ev, "!", &r, NULL);
            count += r.v.b;
            break;
        case CEL_M_MAP: case CEL_M_TLIST: case CEL_M_TMAP:
            r = ev_node(ev, e1);
            if (is_err(&r))
                return r;
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
            if (r.v.b)
                out[k++] = val;
            break;
        default:    /* MAP_FILTER, TLIST_FILTER, TMAP_FILTER */
            r = ev_node(ev, e1);
            if (is_err(&r))
                return r;
            if (r.kind != CEL_V_BOOL)
                return no_overload(ev, "!", &r, NULL);
            if (!r.v.b)
                break;
            r = ev_node(ev, e2);
            if (is_err(&r))
                return r;
            if (outk)
                outk[k] = key;
            out[k++] = r;
            break;
        }
    }
    switch (m) {
    case CEL_M_ALL: case CEL_M_ALL2:
        return have_err ? err : cel_vbool(1);
    case CEL_M_EXISTS: case CEL_M_EXISTS2:
        return have_err ? err : cel_vbool(0);
    case CEL_M_EXISTS_ONE: case CEL_M_EXISTS_ONE2:
        return cel_vbool(count == 1);
    case CEL_M_TMAP: case CEL_M_TMAP_FILTER: {
        struct cel_map *mp = (struct cel_map *)cel_ev_alloc(ev, sizeof(*mp));
        struct cel_value r;
        mp->n = k;
        mp->k = outk;
        mp->v = out;
        memset(&r, 0, sizeof(r));
        r.kind = CEL_V_MAP;
        r.v.m = mp;
        return r;
    }
    default:
        return cel_vlist(ev, out, k);
    }
}

/* ================= dispatcher ================= */

static struct cel_value call(struct cel_eval *ev, const struct cel_node *n)
{
    struct cel_value args[16];
    unsigned i;

    for (i = 0; i < n->nargs && i < 16; i++) {
        args[i] = ev_node(ev, n->args[i]);
        if (is_err(&args[i]))
            return args[i];
    }
    if (!n->fn)
        return cel_verr(ev, "undeclared reference to '%.*s'",
                        (int)n->name_len, n->name);
    return n->fn->impl(ev, n, args, n->nargs);
}

static struct cel_value eval(struct cel_eval *ev, const struct cel_node *n)
{
    struct cel_value a, b;

    switch (n->kind) {
    case CEL_N_LIT:
        return n->lit;
    case CEL_N_IDENT:
        if (n->slot < 0)
            return cel_verr(ev, "undeclared reference to '%.*s'",
                            (int)n->name_len, n->name);
        return ev->slots[n->slot];
    case CEL_N_SELECT:
    case CEL_N_OPTSELECT:
        a = ev_node(ev, n->args[0]);
        if (is_err(&a))
            return a;
        return select_field(ev, &a, n->name, n->name_len,
                            n->kind == CEL_N_OPTSELECT);
    case CEL_N_HAS:
        a = ev_node(ev, n->args[0]);
        if (is_err(&a))
            return a;
        return has_field(ev, &a, n->name, n->name_len);
    case CEL_N_INDEX:
    case CEL_N_OPTINDEX:
        a = ev_node(ev, n->args[0]);
        if (is_err(&a))
            return a;
        b = ev_node(ev, n->args[1]);
        if (is_err(&b))
            return b;
        return do_index(ev, &a, &b, n->kind == CEL_N_OPTINDEX);
    case CEL_N_CALL:
        return call(ev, n);
    case CEL_N_LIST:
        return list_lit(ev, n);
    case CEL_N_MAP:
        return map_lit(ev, n);
    case CEL_N_AND:
    case CEL_N_OR: {
        int want = n->kind == CEL_N_OR;    /* the absorbing value */
        a = ev_node(ev, n->args[0]);
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
        if (a.kind != CEL_V_BOOL)
            return no_overload(ev, "!", &a, NULL);
        return cel_vbool(!a.v.b);
    case CEL_N_NEG:
        a = ev_node(ev, n->args[0]);
        if (is_err(&a))
            return a;
        if (a.kind == CEL_V_INT) {
            if (a.v.i == INT64_MIN)
                return cel_verr(ev, "integer overflow");
            return cel_vint(-a.v.i);
        }
        if (a.kind == CEL_V_DOUBLE)
            return cel_vdouble(-a.v.d);
        return no_overload(ev, "-", &a, NULL);
    case CEL_N_BINOP:
        return binop(ev, n);
    case CEL_N_COMPR:
        return compr(ev, n);
    case CEL_N_BIND:
        ev->slots[n->args[0]->slot] = ev_node(ev, n->args[1]);
        return ev_node(ev, n->args[2]);
    default:
        return cel_verr(ev, "unknown expression");
    }
}

struct cel_value cel_eval_node(struct cel_eval *ev, const struct cel_node *n)
{
    return ev_node(ev, n);
}
