/*
 * cost.c - Kubernetes' CEL cost estimate. It is
 * cel-go's checker/cost.go (paths, computed and entry sizes, the
 * comprehensions the macros expand to, cel.bind's empty range) with the
 * estimators Kubernetes plugs in: ext lists/sets overload estimators,
 * apiserver library.CostEstimator, and compile.go's DRA estimator
 * (includes() and the declared sizes under `device`). The runtime half is
 * in callcost.c. Nothing here changes a program but its p->cost_min/max.
 */
#include "cel_internal.h"
#include "../arena.h"

#include <math.h>
#include <string.h>

#define U64MAX UINT64_MAX
#define STR_FACTOR CEL_COST_STR_FACTOR
#define REGEX_FACTOR CEL_COST_REGEX_FACTOR
#define MAX_FORMAT_SIZE 64      /* apiserver cel.MaxFormatSize */
#define MAX_NAME_FORMAT_REGEX 128   /* cel.MaxNameFormatRegexSize */

/* ================= ranges ================= */

struct est { uint64_t min, max; };

static struct est fixed(uint64_t v)
{
    struct est e = { v, v };
    return e;
}

static struct est range(uint64_t lo, uint64_t hi)
{
    struct est e = { lo, hi };
    return e;
}

#define add_u cel_add_sat

static uint64_t mul_u(uint64_t x, uint64_t y)
{
    return y != 0 && x > U64MAX / y ? U64MAX : x * y;
}

static uint64_t factor_u(uint64_t x, double f)
{
    double xf = (double)x, c;

    if (xf > 0 && f > 0 && xf > (double)U64MAX / f)
        return U64MAX;
    c = ceil(xf * f);
    if (c >= 18446744073709551616.0)
        return U64MAX;
    return (uint64_t)c;
}

static struct est e_add(struct est a, struct est b)
{
    return range(add_u(a.min, b.min), add_u(a.max, b.max));
}

static struct est e_mul(struct est a, struct est b)
{
    return range(mul_u(a.min, b.min), mul_u(a.max, b.max));
}

static struct est e_factor(struct est a, double f)
{
    return range(factor_u(a.min, f), factor_u(a.max, f));
}

static struct est e_union(struct est a, struct est b)
{
    return range(a.min < b.min ? a.min : b.min, a.max > b.max ? a.max : b.max);
}

static const struct est unknown = { 0, U64MAX };

/* ================= what the coster knows about an expression ========== */

/* A field path from a variable: "device", "attributes", "@values"... */
struct path {
    const struct path *up;
    const char *seg;
    size_t len;
};

struct osize { int ok; struct est v; };

struct entry {                  /* entrySizeEstimate */
    int ok;
    int list;                   /* container kind: list (1) or map (0) */
    struct est key, val;
};

/* cel-go's AstNode plus the coster's per-expression maps, for one
 * expression (real or part of a macro's expansion) */
struct val {
    struct est cost;
    const struct cel_node *n;   /* NULL for expansion parts */
    const struct cel_type *type;
    const struct path *path;
    struct osize size;          /* computed size (computeSize) */
    struct entry ent;           /* computed entry size */
    int accu;                   /* the accumulator: no path for estimators */
    int lit_int;                /* an int literal (nodeAsIntValue) */
    int64_t ival;
};

struct local {                  /* a comprehension or bind variable */
    int live;
    const struct path *path;
    struct osize size;
    struct entry ent;
};

struct coster {
    struct cel_program *p;
    struct arena *a;
    int test_sizes;             /* the library cost tests' estimator */
    const struct cel_type *attr_type;   /* any or dyn */
    struct local locals[CEL_MAX_SLOTS];
    struct val accu;            /* the innermost accumulator */
};

static const struct path *path_add(struct coster *c, const struct path *up,
                                   const char *seg, size_t len)
{
    struct path *p = arena_alloc(c->a, sizeof(*p));

    p->up = up;
    p->seg = seg;
    p->len = len;
    return p;
}

static int path_len(const struct path *p)
{
    int n = 0;

    for (; p; p = p->up)
        n++;
    return n;
}

static int seg_is(const struct path *p, const char *s)
{
    return p->len == strlen(s) && memcmp(p->seg, s, p->len) == 0;
}

/* ---- compile.go's sizeEstimator over the 1.34 device type ---- */

enum decl { D_DEVICE, D_STRING63, D_STRING32, D_OUTER_ATTRS, D_INNER_ATTRS,
            D_OUTER_CAPS, D_INNER_CAPS, D_ATTR, D_QUANTITY, D_BOOL, D_NONE };

static uint64_t decl_max(int d)
{
    switch (d) {
    case D_STRING63: return 63;
    case D_STRING32: return 32;
    case D_OUTER_ATTRS: case D_INNER_ATTRS:
    case D_OUTER_CAPS: case D_INNER_CAPS: return 32;
    case D_ATTR: return 64;
    case D_BOOL: return 1;
    default: return 0;
    }
}

static int decl_step(int d, const struct path *seg)
{
    int items = seg_is(seg, "@items") || seg_is(seg, "@values");
    int keys = seg_is(seg, "@keys");

    switch (d) {
    case D_DEVICE:
        if (items || keys)
            return D_NONE;
        if (seg_is(seg, "driver"))
            return D_STRING63;
        if (seg_is(seg, "attributes"))
            return D_OUTER_ATTRS;
        if (seg_is(seg, "capacity"))
            return D_OUTER_CAPS;
        if (seg_is(seg, "allowMultipleAllocations"))
            return D_BOOL;
        return D_NONE;
    case D_OUTER_ATTRS: case D_OUTER_CAPS:
        if (items)
            return d == D_OUTER_ATTRS ? D_INNER_ATTRS : D_INNER_CAPS;
        return keys ? D_STRING63 : D_NONE;
    case D_INNER_ATTRS:
        /* unknown names under the attributes map: the attribute type */
        return items ? D_ATTR : keys ? D_STRING32 : D_ATTR;
    case D_INNER_CAPS:
        return items ? D_QUANTITY : keys ? D_STRING32 : D_NONE;
    default:
        return D_NONE;
    }
}

static int dra_size(const struct path *p, struct est *out)
{
    const struct path *segs[64];
    int n = path_len(p), i, d = D_DEVICE;

    if (n == 0 || n > 64)
        return 0;
    for (i = n - 1; p; p = p->up)
        segs[i--] = p;
    if (!seg_is(segs[0], "device"))
        return 0;
    for (i = 1; i < n; i++) {
        d = decl_step(d, segs[i]);
        if (d == D_NONE)
            return 0;
    }
    *out = range(0, decl_max(d));
    return 1;
}

/* The environment's size estimator: compile.go's (sizes under `device`),
 * or the library cost tests' (strings and bytes 0..12). */
static int estimator_size(const struct coster *c, const struct val *v,
                          struct est *out)
{
    if (c->test_sizes) {
        if (v->type && (v->type->kind == CEL_TY_STRING ||
                        v->type->kind == CEL_TY_BYTES)) {
            *out = range(0, 12);
            return 1;
        }
        return 0;
    }
    return !v->accu && dra_size(v->path, out);
}

/* isScalar / computeTypeSize */
static int scalar(const struct cel_type *t)
{
    switch (t->kind) {
    case CEL_TY_BOOL: case CEL_TY_DOUBLE: case CEL_TY_DURATION:
    case CEL_TY_INT: case CEL_TY_TIMESTAMP: case CEL_TY_UINT:
        return 1;
    case CEL_TY_OPAQUE:
        return cel_ty_is_opt(t) && scalar(t->p[0]);
    default:
        return 0;
    }
}

/* computeExprSize for a node */
static int expr_size(const struct cel_node *n, struct est *out)
{
    size_t l;

    if (!n)
        return 0;
    if (n->kind == CEL_N_LIST) {
        *out = fixed(n->nargs);
        return 1;
    }
    if (n->kind == CEL_N_MAP) {
        *out = fixed(n->nargs / 2);
        return 1;
    }
    if (n->kind != CEL_N_LIT)
        return 0;
    switch (n->lit.kind) {
    case CEL_V_STRING:
        cel_utf8_len(n->lit.v.s.p, n->lit.v.s.n, &l);
        *out = fixed(l);
        return 1;
    case CEL_V_BYTES:
        *out = fixed(n->lit.v.s.n);
        return 1;
    case CEL_V_BOOL: case CEL_V_DOUBLE: case CEL_V_INT: case CEL_V_UINT:
    case CEL_V_NULL:
        *out = fixed(1);
        return 1;
    default:
        return 0;
    }
}

/* computeSize */
static struct osize size_of(struct coster *c, const struct val *v)
{
    struct osize s = v->size;

    if (s.ok)
        return s;
    if (expr_size(v->n, &s.v)) {
        s.ok = 1;
        return s;
    }
    if (estimator_size(c, v, &s.v)) {
        s.ok = 1;
        return s;
    }
    if (v->type && scalar(v->type)) {
        s.ok = 1;
        s.v = fixed(1);
        return s;
    }
    if (v->n && v->n->kind == CEL_N_IDENT && v->n->slot >= 0 &&
        v->n->slot < CEL_MAX_SLOTS && c->locals[v->n->slot].live)
        return c->locals[v->n->slot].size;
    return s;
}

static struct est size_or_unknown(struct coster *c, const struct val *v)
{
    struct osize s = size_of(c, v);

    return s.ok ? s.v : unknown;
}

static struct entry entry_of(struct coster *c, const struct val *v)
{
    if (v->ent.ok)
        return v->ent;
    if (v->n && v->n->kind == CEL_N_IDENT && v->n->slot >= 0 &&
        v->n->slot < CEL_MAX_SLOTS && c->locals[v->n->slot].live)
        return c->locals[v->n->slot].ent;
    return v->ent;
}

static struct entry entry_union(struct entry a, struct entry b)
{
    struct entry r;

    memset(&r, 0, sizeof(r));
    if (!a.ok || !b.ok)
        return r;
    r = a;
    r.key = e_union(a.key, b.key);
    r.val = e_union(a.val, b.val);
    return r;
}

/* ================= function costs ================= */

static int id_is(const char *id, const char *s)
{
    return strcmp(id, s) == 0;
}

static int name_is(const char *fn, const char *s)
{
    return strcmp(fn, s) == 0;
}

/* library.CostEstimator.listElementNode: the element of a list-typed
 * node (path + @items, no computed size) */
static int list_elem(struct coster *c, const struct val *list,
                     struct val *out)
{
    const struct cel_type *t = list->type;

    if (!t || !t->np)
        return 0;
    memset(out, 0, sizeof(*out));
    out->type = t->p[0];
    out->path = list->path && !list->accu
                ? path_add(c, list->path, "@items", 6) : NULL;
    return 1;
}

/* library.CostEstimator.sizeEstimate */
static struct est k8s_size(struct coster *c, const struct val *v)
{
    struct est s;

    if (v->size.ok)
        return v->size.v;
    if (estimator_size(c, v, &s))
        return s;
    return unknown;
}

/* cel-go's estimateSize (ext lists/sets): ComputedSize, else estimator */
static struct est ext_size(struct coster *c, const struct val *v)
{
    struct osize s = size_of(c, v);

    return s.ok ? s.v : unknown;
}

static struct est alloc_list_call(double f, struct est sz, struct osize *res)
{
    res->ok = 1;
    res->v = sz;
    return e_add(e_add(e_factor(sz, f), fixed(1)), fixed(CEL_COST_LIST));
}

/* The overload estimators of ext lists v3 and ext sets; 1 when one
 * answered. */
static int ext_estimate(struct coster *c, const char *id,
                        const struct val *a, unsigned na, int member,
                        struct est *cost, struct osize *res)
{
    const struct val *t = member ? &a[0] : NULL;
    const struct val *args = member ? a + 1 : a;
    unsigned nargs = member ? na - 1 : na;
    size_t l = strlen(id);

    if (id_is(id, "list_sets_contains_list") ||
        id_is(id, "list_sets_intersects_list") ||
        id_is(id, "list_sets_equivalent_list")) {
        double f = id_is(id, "list_sets_equivalent_list") ? 2 : 1;
        if (nargs != 2)
            return 0;
        *cost = e_add(e_factor(e_mul(ext_size(c, &args[0]),
                                     ext_size(c, &args[1])), f), fixed(1));
        return 1;
    }
    if (id_is(id, "list_slice")) {
        struct est sz;
        uint64_t s, e;
        if (!t || nargs != 2)
            return 0;
        sz = ext_size(c, t);
        s = args[0].lit_int ? (args[0].ival < 0 ? 0 : (uint64_t)args[0].ival)
                            : 0;
        e = args[1].lit_int ? (args[1].ival < 0 ? 0 : (uint64_t)args[1].ival)
                            : sz.max;
        *cost = alloc_list_call(1, fixed(e - s), res);
        return 1;
    }
    if (id_is(id, "lists_range")) {
        if (t || nargs != 1)
            return 0;
        *cost = alloc_list_call(1, fixed(args[0].lit_int
                                         ? (args[0].ival < 0 ? 0
                                            : (uint64_t)args[0].ival)
                                         : U64MAX), res);
        return 1;
    }
    if (id_is(id, "list_reverse")) {
        if (!t || nargs != 0)
            return 0;
        *cost = alloc_list_call(1, ext_size(c, t), res);
        return 1;
    }
    if (id_is(id, "list_flatten") || id_is(id, "list_flatten_int")) {
        uint64_t depth = 1;
        if (!t || nargs > 1)
            return 0;
        if (nargs == 1)
            depth = args[0].lit_int ? (args[0].ival < 0 ? 0
                                       : (uint64_t)args[0].ival) : U64MAX;
        *cost = alloc_list_call((double)depth, ext_size(c, t), res);
        return 1;
    }
    if (id_is(id, "list_distinct")) {
        struct est sz;
        if (!t || nargs != 0)
            return 0;
        sz = ext_size(c, t);
        *cost = alloc_list_call(2, e_mul(sz, sz), res);
        return 1;
    }
    if (l > 5 && strncmp(id, "list_", 5) == 0 &&
        (strcmp(id + l - 5, "_sort") == 0 ||
         (l > 23 && strcmp(id + l - 23, "_sortByAssociatedKeys") == 0))) {
        int by = id[l - 1] == 's';
        const struct val *node;
        struct est sz;
        double f = 2;
        if (!t || nargs != (unsigned)(by ? 1 : 0))
            return 0;
        node = by ? &args[0] : t;
        if (strstr(id, "_string_") || strstr(id, "_bytes_"))
            f += STR_FACTOR;
        sz = ext_size(c, node);
        *cost = alloc_list_call(f, e_mul(sz, sz), res);
        return 1;
    }
    return 0;
}

/* One bound of replace()'s result size (library.CostEstimator): from a
 * string of s code points, replacing matches of `from` code points
 * (`same`: the replacement is no longer / no shorter than that), how many
 * replacements and how much of s is kept. */
static void replace_bound(uint64_t s, uint64_t from, int same,
                          uint64_t *count, uint64_t *kept)
{
    *count = *kept = 0;
    if (from == 0) {
        *count = s < U64MAX ? s + 1 : s;
        *kept = s;
    } else if (same) {
        *kept = s;
    } else {
        *count = (uint64_t)ceil((double)s / (double)from);
    }
}

/* compile.go's draCostEstimator + apiserver library.CostEstimator
 * EstimateCallCost; 1 when one answered. */
static int k8s_estimate(struct coster *c, const char *fn, const char *id,
                        const struct val *a, unsigned na, int member,
                        struct est *cost, struct osize *res)
{
    const struct val *t = member ? &a[0] : NULL;
    const struct val *args = member ? a + 1 : a;
    unsigned nargs = member ? na - 1 : na;
    struct val el;

    if (name_is(fn, "includes") && id_is(id, "dra_includes_dyn_dyn")) {
        if (t) {
            *cost = range(0, CEL_INCLUDES_MAX);
            return 1;
        }
    }
    if (name_is(fn, "isSorted") || name_is(fn, "sum") || name_is(fn, "max") ||
        name_is(fn, "min") || name_is(fn, "indexOf") ||
        name_is(fn, "lastIndexOf")) {
        if (!t)
            return 0;
        if (list_elem(c, t, &el)) {
            struct est elc = fixed(1);
            if (el.type->kind == CEL_TY_STRING ||
                el.type->kind == CEL_TY_BYTES)
                elc = e_add(elc, e_factor(k8s_size(c, &el), STR_FACTOR));
            *cost = e_mul(k8s_size(c, t), elc);
        } else {
            *cost = e_factor(k8s_size(c, t), STR_FACTOR);
        }
        return 1;
    }
    if (name_is(fn, "url")) {
        if (nargs != 1)
            return 0;
        *cost = e_factor(k8s_size(c, &args[0]), STR_FACTOR);
        res->ok = 1;
        res->v = k8s_size(c, &args[0]);
        return 1;
    }
    if (name_is(fn, "lowerAscii") || name_is(fn, "upperAscii") ||
        name_is(fn, "substring") || name_is(fn, "trim")) {
        if (!t)
            return 0;
        *cost = e_factor(k8s_size(c, t), STR_FACTOR);
        res->ok = 1;
        res->v = k8s_size(c, t);
        return 1;
    }
    if (name_is(fn, "replace")) {
        struct est sz, from, with, count, kept, size;
        if (!t || nargs < 2)
            return 0;
        sz = k8s_size(c, t);
        from = k8s_size(c, &args[0]);
        with = k8s_size(c, &args[1]);
        /* the longest result replaces the shortest matches by the
         * longest replacement, the shortest the other way round */
        replace_bound(sz.max, from.min, with.max <= from.min, &count.max,
                      &kept.max);
        replace_bound(sz.min, from.max, from.max <= with.min, &count.min,
                      &kept.min);
        size = e_add(e_mul(count, with), kept);
        *cost = e_factor(sz, 2 * STR_FACTOR);
        res->ok = 1;
        res->v = size;
        return 1;
    }
    if (name_is(fn, "split")) {
        struct est sz;
        uint64_t mx;
        if (!t)
            return 0;
        sz = k8s_size(c, t);
        mx = sz.max;
        if (nargs > 1 && args[1].lit_int)
            mx = (uint64_t)args[1].ival;
        *cost = e_factor(sz, 2 * STR_FACTOR);
        res->ok = 1;
        res->v = range(0, mx);
        return 1;
    }
    if (name_is(fn, "join")) {
        struct est sz = fixed(0), ls;
        if (!t)
            return 0;
        ls = k8s_size(c, t);
        if (list_elem(c, t, &el))
            sz = e_mul(ls, k8s_size(c, &el));
        if (nargs > 0) {
            struct est seps = range(ls.min > 0 ? ls.min - 1 : 0,
                                    ls.max > 0 ? ls.max - 1 : 0);
            sz = e_add(sz, e_mul(k8s_size(c, &args[0]), seps));
        }
        *cost = e_factor(sz, STR_FACTOR);
        res->ok = 1;
        res->v = sz;
        return 1;
    }
    if (name_is(fn, "find") || name_is(fn, "findAll")) {
        struct est sz;
        if (!t || nargs < 1)
            return 0;
        sz = k8s_size(c, t);
        *cost = e_mul(e_factor(e_add(sz, fixed(1)), STR_FACTOR),
                      e_factor(k8s_size(c, &args[0]), REGEX_FACTOR));
        res->ok = 1;
        res->v = range(0, sz.max);
        return 1;
    }
    if (name_is(fn, "cidr") || name_is(fn, "isIP") || name_is(fn, "isCIDR") ||
        name_is(fn, "quantity") || name_is(fn, "isQuantity") ||
        name_is(fn, "semver") || name_is(fn, "isSemver")) {
        if (nargs < 1)
            return 0;
        *cost = e_factor(k8s_size(c, &args[0]), STR_FACTOR);
        return 1;
    }
    if (name_is(fn, "ip")) {
        if (id_is(id, "cidr_ip")) {
            *cost = fixed(1);
            return 1;
        }
        if (nargs < 1)
            return 0;
        *cost = e_factor(k8s_size(c, &args[0]), STR_FACTOR);
        return 1;
    }
    if (name_is(fn, "ip.isCanonical")) {
        if (nargs < 1)
            return 0;
        *cost = e_factor(k8s_size(c, &args[0]), 2 * STR_FACTOR);
        return 1;
    }
    if (name_is(fn, "containsIP") || name_is(fn, "containsCIDR")) {
        struct est sz = range(4, 16), ipc;
        if (nargs < 1)
            return 0;
        ipc = e_factor(e_add(sz, sz), STR_FACTOR);
        if (name_is(fn, "containsCIDR"))
            ipc = e_add(e_add(ipc, e_factor(sz, STR_FACTOR)), fixed(1));
        if (id_is(id, "cidr_contains_ip_string") ||
            id_is(id, "cidr_contains_cidr_string"))
            ipc = e_add(ipc, e_factor(k8s_size(c, &args[0]), STR_FACTOR));
        *cost = ipc;
        return 1;
    }
    if (name_is(fn, "validate")) {
        if (nargs < 1)
            return 0;
        *cost = e_factor(e_factor(k8s_size(c, &args[0]), STR_FACTOR),
                         MAX_NAME_FORMAT_REGEX * REGEX_FACTOR);
        return 1;
    }
    if (name_is(fn, "format.named") || name_is(fn, "sign") ||
        name_is(fn, "asInteger") || name_is(fn, "isInteger") ||
        name_is(fn, "asApproximateFloat") || name_is(fn, "isGreaterThan") ||
        name_is(fn, "isLessThan") || name_is(fn, "compareTo") ||
        name_is(fn, "add") || name_is(fn, "sub") || name_is(fn, "major") ||
        name_is(fn, "minor") || name_is(fn, "patch") ||
        name_is(fn, "getScheme") || name_is(fn, "getHostname") ||
        name_is(fn, "getHost") || name_is(fn, "getPort") ||
        name_is(fn, "getEscapedPath") || name_is(fn, "getQuery") ||
        name_is(fn, "masked") || name_is(fn, "prefixLength") ||
        name_is(fn, "family") || name_is(fn, "isUnspecified") ||
        name_is(fn, "isLoopback") || name_is(fn, "isLinkLocalMulticast") ||
        name_is(fn, "isLinkLocalUnicast") || name_is(fn, "isGlobalUnicast")) {
        *cost = fixed(1);
        return 1;
    }
    if (name_is(fn, "_==_") && nargs == 2 && args[0].type && args[1].type &&
        cel_ty_exact(args[0].type, args[1].type)) {
        const struct cel_type *ty = args[0].type;
        if (ty == &cel_ty_ip || ty == &cel_ty_cidr ||
            (ty->kind == CEL_TY_OPAQUE && ty->name &&
             (!strcmp(ty->name, "net.IP") || !strcmp(ty->name, "net.CIDR"))))
        {
            *cost = fixed(1);
            return 1;
        }
        if (ty->kind == CEL_TY_STRUCT && ty->name) {
            if (!strcmp(ty->name, "kubernetes.Quantity") ||
                !strcmp(ty->name, "kubernetes.Semver")) {
                *cost = fixed(1);
                return 1;
            }
            if (!strcmp(ty->name, "kubernetes.NamedFormat")) {
                *cost = e_factor(range(1, MAX_FORMAT_SIZE), STR_FACTOR);
                return 1;
            }
            if (!strcmp(ty->name, "kubernetes.URL")) {
                /* the apiserver unions rhs with itself */
                struct est sz = fixed(1);
                if (args[1].size.ok)
                    sz = args[1].size.v;
                *cost = e_factor(range(1, sz.max), STR_FACTOR);
                return 1;
            }
        }
    }
    return 0;
}

/* cel-go's functionCost for one overload; sets *res for a result size */
static struct est function_cost(struct coster *c, const char *fn,
                                const char *id, const struct val *a,
                                unsigned na, int member, struct est argsum,
                                struct osize *res, struct entry *ent)
{
    const struct val *t = member ? &a[0] : NULL;
    const struct val *args = member ? a + 1 : a;
    unsigned nargs = member ? na - 1 : na;
    struct est e;

    res->ok = 0;
    if (ext_estimate(c, id, a, na, member, &e, res) ||
        k8s_estimate(c, fn, id, a, na, member, &e, res))
        return e_add(e, argsum);
    if (id_is(id, "string_format") && t)
        return e_add(e_factor(size_or_unknown(c, t), STR_FACTOR), argsum);
    if (id_is(id, "string_to_bytes") && nargs == 1) {
        struct est sz = size_or_unknown(c, &args[0]);
        res->ok = 1;
        res->v = range(sz.min, mul_u(sz.max, 4));
        return e_add(e_factor(sz, STR_FACTOR), argsum);
    }
    if (id_is(id, "bytes_to_string") && nargs == 1) {
        struct est sz = size_or_unknown(c, &args[0]);
        res->ok = 1;
        res->v = range(sz.min / 4, sz.max);
        return e_add(e_factor(sz, STR_FACTOR), argsum);
    }
    if (id_is(id, "strings_quote") && nargs == 1) {
        struct est sz = size_or_unknown(c, &args[0]);
        res->ok = 1;
        res->v = range(add_u(sz.min, 2), add_u(mul_u(sz.max, 2), 2));
        return e_add(e_factor(sz, STR_FACTOR), argsum);
    }
    if ((id_is(id, "starts_with_string") || id_is(id, "ends_with_string")) &&
        nargs == 1)
        return e_add(e_factor(size_or_unknown(c, &args[0]), STR_FACTOR),
                     argsum);
    if (id_is(id, "in_list") && nargs == 2)
        return e_add(e_factor(size_or_unknown(c, &args[1]), 1), argsum);
    if (id_is(id, "matches_string") && t && nargs == 1) {
        struct est s = e_factor(e_add(size_or_unknown(c, t), fixed(1)),
                                STR_FACTOR);
        return e_add(e_mul(s, e_factor(size_or_unknown(c, &args[0]),
                                       REGEX_FACTOR)), argsum);
    }
    if (id_is(id, "contains_string") && t && nargs == 1)
        return e_add(e_mul(e_factor(size_or_unknown(c, t), STR_FACTOR),
                           e_factor(size_or_unknown(c, &args[0]),
                                    STR_FACTOR)), argsum);
    if ((id_is(id, "add_string") || id_is(id, "add_bytes") ||
         id_is(id, "add_list")) && nargs == 2) {
        struct est rs = e_add(size_or_unknown(c, &args[0]),
                              size_or_unknown(c, &args[1]));
        struct entry u = entry_union(entry_of(c, &args[0]),
                                     entry_of(c, &args[1]));
        if (u.ok)
            *ent = u;
        res->ok = 1;
        res->v = rs;
        if (id_is(id, "add_list"))
            return e_add(fixed(1), argsum);
        return e_add(e_factor(rs, STR_FACTOR), argsum);
    }
    if (id_is(id, "less_string") || id_is(id, "greater_string") ||
        id_is(id, "less_equals_string") ||
        id_is(id, "greater_equals_string") || id_is(id, "less_bytes") ||
        id_is(id, "greater_bytes") || id_is(id, "less_equals_bytes") ||
        id_is(id, "greater_equals_bytes") || id_is(id, "equals") ||
        id_is(id, "not_equals")) {
        struct est l = size_or_unknown(c, &args[0]);
        struct est r = size_or_unknown(c, &args[1]);
        uint64_t mx = l.max < r.max ? l.max : r.max;
        return e_add(e_factor(range(mx > 0 ? 1 : 0, mx), STR_FACTOR),
                     argsum);
    }
    return e_add(fixed(1), argsum);
}

/* ================= the walk ================= */

static struct val cost_node(struct coster *c, const struct cel_node *n);

static struct val mkval(const struct cel_node *n)
{
    struct val v;

    memset(&v, 0, sizeof(v));
    v.n = n;
    v.type = n ? n->type : NULL;
    if (n && n->kind == CEL_N_LIT && n->lit.kind == CEL_V_INT) {
        v.lit_int = 1;
        v.ival = n->lit.v.i;
    }
    return v;
}

/* a call over evaluated arguments (receiver first when member) with the
 * overloads the checker matched */
static struct val call_cost(struct coster *c, const struct cel_node *n,
                            const char *fn, const char *const *ids,
                            unsigned nids, struct val *a, unsigned na,
                            int member)
{
    struct val r = mkval(n);
    struct est argsum = fixed(0), fcost = range(U64MAX, 0), tcost = fixed(0);
    struct osize res;
    unsigned i, first = member ? 1 : 0;
    int have_res = 0, index = 0;

    if (!nids)
        return r;
    for (i = first; i < na; i++)
        argsum = e_add(argsum, a[i].cost);
    if (member)
        tcost = a[0].cost;
    if (name_is(fn, "_&&_") || name_is(fn, "_||_")) {
        r.cost = range(a[0].cost.min, add_u(a[0].cost.max, a[1].cost.max));
        return r;
    }
    if (name_is(fn, "_?_:_")) {
        struct est s = e_union(size_or_unknown(c, &a[1]),
                               size_or_unknown(c, &a[2]));
        r.ent = entry_union(entry_of(c, &a[1]), entry_of(c, &a[2]));
        r.cost = e_add(a[0].cost, e_union(a[1].cost, a[2].cost));
        r.size.ok = 1;
        r.size.v = s;
        return r;
    }
    for (i = 0; i < nids; i++) {
        struct entry ent;
        struct est fc;
        memset(&ent, 0, sizeof(ent));
        fc = function_cost(c, fn, ids[i], a, na, member, argsum, &res, &ent);
        fcost = e_union(fcost, fc);
        if (ent.ok)
            r.ent = ent;
        if (res.ok) {
            r.size.v = have_res ? e_union(r.size.v, res.v) : res.v;
            have_res = 1;
        }
        if (id_is(ids[i], "index_list") || id_is(ids[i], "index_map")) {
            struct entry pe = entry_of(c, &a[0]);
            int list = id_is(ids[i], "index_list");
            have_res = pe.ok;
            if (pe.ok)
                r.size.v = pe.val;
            r.path = a[0].path && !a[0].accu
                     ? path_add(c, a[0].path, list ? "@items" : "@values",
                                list ? 6 : 7) : NULL;
            index = 1;
        }
        if (!have_res) {
            struct val tmp = r;
            struct osize s;
            tmp.size.ok = 0;
            s = size_of(c, &tmp);
            if (s.ok) {
                r.size.v = s.v;
                have_res = 1;
            }
        }
    }
    (void)index;
    r.size.ok = have_res;
    r.cost = e_add(tcost, fcost);
    return r;
}

static const char *const *one_id(struct coster *c, const char *id)
{
    const char **v = arena_alloc(c->a, sizeof(*v));

    v[0] = id;
    return v;
}

/* the accumulator variable of a comprehension (ident cost 1) */
static struct val accu_ident(const struct val *accu)
{
    struct val v = *accu;

    v.n = NULL;
    v.cost = fixed(1);
    v.accu = 1;
    v.path = NULL;
    v.lit_int = 0;
    return v;
}

static struct val lit_val(const struct cel_type *t, int64_t i)
{
    struct val v;

    memset(&v, 0, sizeof(v));
    v.type = t;
    v.size.ok = 1;
    v.size.v = fixed(1);
    v.lit_int = t == &cel_ty_int;
    v.ival = i;
    return v;
}

/* an empty list or map literal of the expansion (the accumulator) */
static struct val empty_literal(int list)
{
    struct val v;

    memset(&v, 0, sizeof(v));
    v.cost = fixed(list ? CEL_COST_LIST : CEL_COST_MAP);
    v.size.ok = 1;
    v.size.v = fixed(0);
    v.ent.ok = 1;
    v.ent.list = list;
    v.ent.key = list ? fixed(1) : fixed(0);
    v.ent.val = fixed(0);
    return v;
}

/* [e]: a one-element list literal */
static struct val list_of(struct coster *c, const struct val *e)
{
    struct val v;

    memset(&v, 0, sizeof(v));
    v.cost = e_add(e->cost, fixed(CEL_COST_LIST));
    v.size.ok = 1;
    v.size.v = fixed(1);
    v.ent.ok = 1;
    v.ent.list = 1;
    v.ent.key = fixed(1);
    v.ent.val = size_or_unknown(c, e);
    return v;
}

static void push_var(struct coster *c, int slot, const struct path *path,
                     struct osize size, struct entry ent)
{
    if (slot < 0 || slot >= CEL_MAX_SLOTS)
        return;
    c->locals[slot].live = 1;
    c->locals[slot].path = path;
    c->locals[slot].size = size;
    c->locals[slot].ent = ent;
}

static void pop_var(struct coster *c, int slot)
{
    if (slot >= 0 && slot < CEL_MAX_SLOTS)
        memset(&c->locals[slot], 0, sizeof(c->locals[slot]));
}

/* pushIterSingle / pushIterKey / pushIterValue */
static void push_iter(struct coster *c, const struct cel_node *compr,
                      const struct val *range)
{
    struct entry e = entry_of(c, range);
    int list = e.ok ? e.list : (range->type &&
                                range->type->kind == CEL_TY_LIST);
    const struct path *rp = range->accu ? NULL : range->path;
    struct osize ks, vs;

    ks.ok = e.ok;
    ks.v = e.key;
    vs.ok = e.ok;
    vs.v = e.val;
    if (compr->args[2]) {
        struct osize none;
        none.ok = 0;
        push_var(c, compr->args[1]->slot,
                 rp ? path_add(c, rp, list ? "@indices" : "@keys",
                               list ? 8 : 5) : NULL, ks, e);
        push_var(c, compr->args[2]->slot,
                 rp ? path_add(c, rp, list ? "@items" : "@values",
                               list ? 6 : 7) : NULL, vs, e);
        c->locals[compr->args[1]->slot].ent.ok = 0;
        c->locals[compr->args[2]->slot].ent.ok = 0;
        (void)none;
    } else {
        push_var(c, compr->args[1]->slot,
                 rp ? path_add(c, rp, list ? "@items" : "@keys",
                               list ? 6 : 5) : NULL, list ? vs : ks, e);
        c->locals[compr->args[1]->slot].ent.ok = 0;
    }
}

/* costComprehension over the pieces of an expansion */
static struct val comprehension(struct coster *c, const struct cel_node *n,
                                const struct val *range,
                                const struct val *init, struct est loop,
                                const struct val *step, struct est result)
{
    struct val r = mkval(n);
    struct est cnt = size_or_unknown(c, range);

    r.cost = e_add(e_add(e_add(range->cost, init->cost), result),
                   e_mul(cnt, e_add(step->cost, loop)));
    if (init->ent.ok) {             /* a list or map accumulator */
        r.size.ok = 1;
        r.size.v = cnt;
        if (step->ent.ok)
            r.ent = step->ent;
    } else {
        r.size = size_of(c, init);
    }
    return r;
}

/* cond ? a : b of the expansion */
static struct val ternary(struct coster *c, const struct val *p,
                          const struct val *a, const struct val *b)
{
    struct val v;

    memset(&v, 0, sizeof(v));
    v.cost = e_add(p->cost, e_union(a->cost, b->cost));
    v.size.ok = 1;
    v.size.v = e_union(size_or_unknown(c, a), size_or_unknown(c, b));
    v.ent = entry_union(entry_of(c, a), entry_of(c, b));
    return v;
}

static struct val cost_compr(struct coster *c, const struct cel_node *n)
{
    struct val range = cost_node(c, n->args[0]), init, step, p, f, saved;
    struct val accu, tmp[3];
    struct est loop = fixed(0), result = fixed(1);
    int m = n->op, filt;

    memset(&init, 0, sizeof(init));
    saved = c->accu;
    if (m == CEL_M_OPTMAP || m == CEL_M_OPTFLATMAP) {
        /* t.hasValue() ? optional.of(bind(x, t.value(), f)) :
         * optional.none(); optFlatMap without optional.of() */
        struct val has, value, body, none;
        struct osize vs;
        struct entry ve;
        has = range;
        has.cost = e_add(range.cost, fixed(1));
        value = range;
        value.n = NULL;
        value.cost = e_add(range.cost, fixed(1));
        value.size.ok = 0;
        memset(&ve, 0, sizeof(ve));
        vs = size_of(c, &value);
        push_var(c, n->args[1]->slot, NULL, vs, ve);
        f = cost_node(c, n->args[3]);
        pop_var(c, n->args[1]->slot);
        body = f;
        body.cost = e_add(e_add(fixed(CEL_COST_LIST), value.cost), f.cost);
        if (m == CEL_M_OPTMAP)
            body.cost = e_add(body.cost, fixed(1));
        memset(&none, 0, sizeof(none));
        none.cost = fixed(1);
        tmp[0] = ternary(c, &has, &body, &none);
        tmp[0].n = n;
        tmp[0].type = n->type;
        return tmp[0];
    }
    if (m == CEL_M_SORTBY) {
        /* cel.bind(@in, t, @in.@sortByAssociatedKeys(@in.map(x, key))) */
        struct val in, keys, r;
        in = range;
        in.n = NULL;
        in.cost = fixed(1);
        keys = in;
        push_iter(c, n, &in);
        f = cost_node(c, n->args[3]);
        pop_var(c, n->args[1]->slot);
        accu = empty_literal(1);
        c->accu = accu;
        tmp[0] = accu_ident(&accu);
        tmp[1] = list_of(c, &f);
        step = call_cost(c, NULL, "_+_", one_id(c, "add_list"), 1, tmp, 2, 0);
        keys = comprehension(c, NULL, &in, &accu, fixed(0), &step, fixed(1));
        keys.type = n->type;
        tmp[0] = in;
        tmp[1] = keys;
        r = call_cost(c, n, "@sortByAssociatedKeys", n->ovl, n->novl, tmp, 2,
                      1);
        r.cost = e_add(e_add(fixed(CEL_COST_LIST), range.cost), r.cost);
        c->accu = saved;
        return r;
    }
    filt = m == CEL_M_MAP_FILTER || m == CEL_M_TLIST_FILTER ||
           m == CEL_M_TMAP_FILTER || m == CEL_M_TMAPENTRY_FILTER ||
           m == CEL_M_FILTER;
    switch (m) {
    case CEL_M_ALL: case CEL_M_ALL2: case CEL_M_EXISTS: case CEL_M_EXISTS2:
        init = lit_val(&cel_ty_bool, 0);
        break;
    case CEL_M_EXISTS_ONE: case CEL_M_EXISTS_ONE2:
        init = lit_val(&cel_ty_int, 0);
        break;
    case CEL_M_TMAP: case CEL_M_TMAP_FILTER: case CEL_M_TMAPENTRY:
    case CEL_M_TMAPENTRY_FILTER:
        init = empty_literal(0);
        break;
    default:
        init = empty_literal(1);
        break;
    }
    accu = init;
    accu.type = (m == CEL_M_EXISTS_ONE || m == CEL_M_EXISTS_ONE2)
                ? &cel_ty_int : (init.ent.ok ? n->type : &cel_ty_bool);
    c->accu = accu;
    push_iter(c, n, &range);
    p = cost_node(c, n->args[3]);
    if (n->args[4])
        f = cost_node(c, n->args[4]);
    else
        f = p;
    switch (m) {
    case CEL_M_ALL: case CEL_M_ALL2: case CEL_M_EXISTS: case CEL_M_EXISTS2:
        loop = fixed(m == CEL_M_ALL || m == CEL_M_ALL2 ? 2 : 3);
        tmp[0] = accu_ident(&accu);
        tmp[1] = p;
        step = call_cost(c, NULL, "_&&_", one_id(c, "logical_and"), 1, tmp,
                         2, 0);
        break;
    case CEL_M_EXISTS_ONE: case CEL_M_EXISTS_ONE2:
        tmp[0] = accu_ident(&accu);
        tmp[1] = lit_val(&cel_ty_int, 1);
        tmp[2] = call_cost(c, NULL, "_+_", one_id(c, "add_int64"), 1, tmp, 2,
                           0);
        tmp[0] = accu_ident(&accu);
        step = ternary(c, &p, &tmp[2], &tmp[0]);
        tmp[0] = accu_ident(&accu);
        tmp[1] = lit_val(&cel_ty_int, 1);
        result = call_cost(c, NULL, "_==_", one_id(c, "equals"), 1, tmp, 2,
                           0).cost;
        break;
    case CEL_M_TMAP: case CEL_M_TMAP_FILTER: case CEL_M_TMAPENTRY:
    case CEL_M_TMAPENTRY_FILTER: {
        int entry = m == CEL_M_TMAPENTRY || m == CEL_M_TMAPENTRY_FILTER;
        struct val k;
        tmp[0] = accu_ident(&accu);
        memset(&k, 0, sizeof(k));
        k.cost = fixed(1);
        if (entry) {
            tmp[1] = f;
        } else {
            tmp[1] = k;
            tmp[2] = f;
        }
        step = call_cost(c, NULL, "cel.@mapInsert",
                         one_id(c, "@mapInsert_map_key_value"), 1, tmp,
                         entry ? 2 : 3, 0);
        if (filt) {
            tmp[0] = accu_ident(&accu);
            step = ternary(c, &p, &step, &tmp[0]);
        }
        break;
    }
    default: {
        struct val x;
        if (m == CEL_M_FILTER) {
            memset(&x, 0, sizeof(x));
            x.cost = fixed(1);
            x.n = n->args[1];
            f = x;
        }
        tmp[0] = accu_ident(&accu);
        tmp[1] = list_of(c, &f);
        step = call_cost(c, NULL, "_+_", one_id(c, "add_list"), 1, tmp, 2, 0);
        if (filt) {
            tmp[0] = accu_ident(&accu);
            step = ternary(c, &p, &step, &tmp[0]);
        }
        break;
    }
    }
    pop_var(c, n->args[1]->slot);
    if (n->args[2])
        pop_var(c, n->args[2]->slot);
    c->accu = saved;
    tmp[0] = comprehension(c, n, &range, &init, loop, &step, result);
    tmp[0].type = n->type;
    return tmp[0];
}

static struct val cost_node(struct coster *c, const struct cel_node *n)
{
    struct val v = mkval(n), a[17];
    unsigned i;

    switch (n->kind) {
    case CEL_N_LIT:
        /* type names are identifiers in cel-go */
        if (n->lit.kind == CEL_V_TYPE)
            v.cost = fixed(1);
        break;
    case CEL_N_IDENT:
        v.cost = fixed(1);
        if (n->slot >= 0 && n->slot < CEL_MAX_SLOTS &&
            c->locals[n->slot].live)
            v.path = c->locals[n->slot].path;
        else
            v.path = path_add(c, NULL, n->name, n->name_len);
        break;
    case CEL_N_SELECT:
        a[0] = cost_node(c, n->args[0]);
        v.cost = a[0].cost;
        if (a[0].type && (a[0].type->kind == CEL_TY_MAP ||
                          a[0].type->kind == CEL_TY_STRUCT ||
                          a[0].type->kind == CEL_TY_PARAM))
            v.cost = e_add(v.cost, fixed(1));
        v.path = a[0].path && !a[0].accu
                 ? path_add(c, a[0].path, n->name, n->name_len) : NULL;
        break;
    case CEL_N_HAS:
        a[0] = cost_node(c, n->args[0]);
        v.cost = a[0].cost;     /* PresenceTestHasCost(false) */
        break;
    case CEL_N_OPTSELECT: {
        /* _?._(operand, "field") */
        a[0] = cost_node(c, n->args[0]);
        v.cost = e_add(a[0].cost, fixed(1));
        break;
    }
    case CEL_N_CALL: {
        unsigned na = n->nargs < 17 ? n->nargs : 17;
        if (n->name_len == 3 && memcmp(n->name, "dyn", 3) == 0 &&
            !n->member && na == 1) {
            a[0] = cost_node(c, n->args[0]);
            v = a[0];
            v.n = n;
            v.type = n->type;
            v.cost = e_add(a[0].cost, fixed(1));
            v.size = size_of(c, &a[0]);
            v.ent = entry_of(c, &a[0]);
            v.lit_int = 0;
            break;
        }
        for (i = 0; i < na; i++)
            a[i] = cost_node(c, n->args[i]);
        for (i = 0; i < na; i++)
            a[i].size = size_of(c, &a[i]);
        v = call_cost(c, n, n->fn ? n->fn->name : "", n->ovl, n->novl, a, na,
                      n->member);
        break;
    }
    case CEL_N_INDEX: case CEL_N_OPTINDEX: case CEL_N_NOT: case CEL_N_NEG:
    case CEL_N_BINOP: case CEL_N_AND: case CEL_N_OR: case CEL_N_COND: {
        static const char *const names[] = {
            [CEL_N_INDEX] = "_[_]", [CEL_N_OPTINDEX] = "_[?_]",
            [CEL_N_NOT] = "!_", [CEL_N_NEG] = "-_", [CEL_N_AND] = "_&&_",
            [CEL_N_OR] = "_||_", [CEL_N_COND] = "_?_:_",
        };
        const char *fn = n->kind == CEL_N_BINOP ? cel_binop_function(n->op)
                                                : names[n->kind];
        for (i = 0; i < n->nargs && i < 3; i++) {
            a[i] = cost_node(c, n->args[i]);
            a[i].size = size_of(c, &a[i]);
        }
        v = call_cost(c, n, fn, n->ovl, n->novl, a, n->nargs, 0);
        break;
    }
    case CEL_N_LIST: {
        struct est items = range(n->nargs ? U64MAX : 0, 0);
        v.cost = fixed(CEL_COST_LIST);
        for (i = 0; i < n->nargs; i++) {
            a[0] = cost_node(c, n->args[i]);
            v.cost = e_add(v.cost, a[0].cost);
            items = e_union(items, size_or_unknown(c, &a[0]));
        }
        v.ent.ok = 1;
        v.ent.list = 1;
        v.ent.key = fixed(1);
        v.ent.val = items;
        break;
    }
    case CEL_N_MAP: {
        struct est ks = range(n->nargs ? U64MAX : 0, 0), vs = ks;
        v.cost = fixed(CEL_COST_MAP);
        for (i = 0; i + 1 < n->nargs; i += 2) {
            a[0] = cost_node(c, n->args[i]);
            a[1] = cost_node(c, n->args[i + 1]);
            v.cost = e_add(e_add(v.cost, a[0].cost), a[1].cost);
            ks = e_union(ks, size_or_unknown(c, &a[0]));
            vs = e_union(vs, size_or_unknown(c, &a[1]));
        }
        v.ent.ok = 1;
        v.ent.list = 0;
        v.ent.key = ks;
        v.ent.val = vs;
        break;
    }
    case CEL_N_COMPR:
        return cost_compr(c, n);
    case CEL_N_BIND: {
        /* the empty iteration range is kept: a list literal's cost */
        struct osize s;
        a[0] = cost_node(c, n->args[1]);
        s = size_of(c, &a[0]);
        push_var(c, n->args[0]->slot, a[0].accu ? NULL : a[0].path, s,
                 entry_of(c, &a[0]));
        a[1] = cost_node(c, n->args[2]);
        pop_var(c, n->args[0]->slot);
        v = a[1];
        v.n = n;
        v.type = n->type;
        v.cost = e_add(e_add(fixed(CEL_COST_LIST), a[0].cost), a[1].cost);
        v.size = size_of(c, &a[1]);
        v.ent = entry_of(c, &a[1]);
        v.lit_int = 0;
        break;
    }
    default:
        break;
    }
    return v;
}

static void estimate(struct cel_program *p, struct arena *a, int test)
{
    struct coster c;
    struct val v;

    memset(&c, 0, sizeof(c));
    c.p = p;
    c.a = a;
    c.test_sizes = test;
    v = cost_node(&c, p->root);
    p->cost_min = v.cost.min;
    p->cost_max = v.cost.max;
}

void cel_estimate_cost(struct cel_program *p, struct arena *a)
{
    estimate(p, a, 0);
}

void cel_estimate_cost_test(struct cel_program *p, struct arena *a)
{
    estimate(p, a, 1);
}
