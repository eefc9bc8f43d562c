/*
 * types.c - the checker's static types, as cel-go's common/types and
 * checker/types.go define them: kinds (dyn, any, error, primitives,
 * list/map/type, opaque such as optional_type(T) and net.IP, structs such
 * as kubernetes.Quantity, type parameters), the two renderings Kubernetes
 * shows users (FormatCELType in checker errors, Type.String() in "must
 * evaluate to ..."), the declaration strings of the function tables
 * (parsed into overloads), and unification: type-parameter substitutions
 * with an undo trail, assignability, most-general and substitution. Values
 * and their runtime type names are in values.c.
 */
#include "cel_internal.h"
#include "../arena.h"

#include <stdio.h>
#include <string.h>

#define PRIM(n, k) const struct cel_type n = { k, 0, 0, NULL, { NULL, NULL } }
PRIM(cel_ty_dyn, CEL_TY_DYN);
PRIM(cel_ty_any, CEL_TY_ANY);
PRIM(cel_ty_error, CEL_TY_ERROR);
PRIM(cel_ty_null, CEL_TY_NULL);
PRIM(cel_ty_bool, CEL_TY_BOOL);
PRIM(cel_ty_int, CEL_TY_INT);
PRIM(cel_ty_uint, CEL_TY_UINT);
PRIM(cel_ty_double, CEL_TY_DOUBLE);
PRIM(cel_ty_string, CEL_TY_STRING);
PRIM(cel_ty_bytes, CEL_TY_BYTES);
PRIM(cel_ty_duration, CEL_TY_DURATION);
PRIM(cel_ty_timestamp, CEL_TY_TIMESTAMP);
#undef PRIM
#define NAMED(n, k, s) const struct cel_type n = { k, 0, 0, s, { NULL, NULL } }
NAMED(cel_ty_quantity, CEL_TY_STRUCT, "kubernetes.Quantity");
NAMED(cel_ty_semver, CEL_TY_STRUCT, "kubernetes.Semver");
NAMED(cel_ty_url, CEL_TY_STRUCT, "kubernetes.URL");
NAMED(cel_ty_format, CEL_TY_STRUCT, "kubernetes.NamedFormat");
NAMED(cel_ty_device, CEL_TY_STRUCT, "kubernetes.DRADevice");
NAMED(cel_ty_ip, CEL_TY_OPAQUE, "net.IP");
NAMED(cel_ty_cidr, CEL_TY_OPAQUE, "net.CIDR");
#undef NAMED

static struct cel_type *mk(struct arena *a, int kind, const char *name,
                           const struct cel_type *p0,
                           const struct cel_type *p1)
{
    struct cel_type *t = arena_alloc(a, sizeof(*t));

    t->kind = (unsigned char)kind;
    t->name = name;
    t->p[0] = p0;
    t->p[1] = p1;
    t->np = (unsigned char)(p1 ? 2 : p0 ? 1 : 0);
    return t;
}

const struct cel_type *cel_ty_list(struct arena *a, const struct cel_type *e)
{
    return mk(a, CEL_TY_LIST, "list", e, NULL);
}

const struct cel_type *cel_ty_map(struct arena *a, const struct cel_type *k,
                                  const struct cel_type *v)
{
    return mk(a, CEL_TY_MAP, "map", k, v);
}

const struct cel_type *cel_ty_opt(struct arena *a, const struct cel_type *e)
{
    return mk(a, CEL_TY_OPAQUE, "optional_type", e, NULL);
}

const struct cel_type *cel_ty_type(struct arena *a, const struct cel_type *e)
{
    return mk(a, CEL_TY_TYPE, "type", e, NULL);
}

int cel_ty_is_opt(const struct cel_type *t)
{
    return t->kind == CEL_TY_OPAQUE && t->np == 1 &&
           strcmp(t->name, "optional_type") == 0;
}

/* ================= renderings ================= */

struct sbuf { char *p; size_t left; };

static void put(struct sbuf *b, const char *s)
{
    size_t n = strlen(s);

    if (!b->left)
        return;
    if (n >= b->left)
        n = b->left - 1;
    memcpy(b->p, s, n);
    b->p += n;
    b->left -= n;
    *b->p = 0;
}

/* the runtime type name (TypeName()) */
static const char *type_name(const struct cel_type *t)
{
    switch (t->kind) {
    case CEL_TY_DYN: return "dyn";
    case CEL_TY_ANY: return "google.protobuf.Any";
    case CEL_TY_ERROR: return "*error*";
    case CEL_TY_NULL: return "null_type";
    case CEL_TY_BOOL: return "bool";
    case CEL_TY_INT: return "int";
    case CEL_TY_UINT: return "uint";
    case CEL_TY_DOUBLE: return "double";
    case CEL_TY_STRING: return "string";
    case CEL_TY_BYTES: return "bytes";
    case CEL_TY_DURATION: return "google.protobuf.Duration";
    case CEL_TY_TIMESTAMP: return "google.protobuf.Timestamp";
    default: return t->name ? t->name : "?";
    }
}

static void param_name(const struct cel_type *t, char *out, size_t sz)
{
    if (t->name)
        snprintf(out, sz, "%s", t->name);
    else
        snprintf(out, sz, "_var%u", t->id);
}

/* go_string 0: FormatCELType (checker messages: "any", "duration");
 * 1: Type.String() (compile.go's result message: "google.protobuf.Any",
 * parameters as <T>) */
static void render(const struct cel_type *t, struct sbuf *b, int go_string)
{
    unsigned i;
    char tmp[32];

    if (t->kind == CEL_TY_PARAM) {
        param_name(t, tmp, sizeof(tmp));
        put(b, go_string ? "<" : "");
        put(b, tmp);
        put(b, go_string ? ">" : "");
        return;
    }
    switch (go_string ? CEL_TY_DYN : t->kind) {
    case CEL_TY_ANY: put(b, "any"); return;
    case CEL_TY_DURATION: put(b, "duration"); return;
    case CEL_TY_ERROR: put(b, "!error!"); return;
    case CEL_TY_NULL: put(b, "null"); return;
    case CEL_TY_TIMESTAMP: put(b, "timestamp"); return;
    default: break;
    }
    put(b, type_name(t));
    if (!t->np)
        return;
    put(b, "(");
    for (i = 0; i < t->np; i++) {
        if (i)
            put(b, ", ");
        render(t->p[i], b, go_string);
    }
    put(b, ")");
}

void cel_ty_fmt(const struct cel_type *t, char *out, size_t sz)
{
    struct sbuf b = { out, sz };

    if (sz)
        out[0] = 0;
    render(t, &b, 0);
}

void cel_ty_str(const struct cel_type *t, char *out, size_t sz)
{
    struct sbuf b = { out, sz };

    if (sz)
        out[0] = 0;
    render(t, &b, 1);
}

int cel_ty_exact(const struct cel_type *a, const struct cel_type *b)
{
    unsigned i;

    if (a == b)
        return 1;
    if (a->kind != b->kind || a->np != b->np)
        return 0;
    if (a->kind == CEL_TY_PARAM)
        return a->id == b->id && (a->name == b->name ||
               (a->name && b->name && strcmp(a->name, b->name) == 0));
    if ((a->name || b->name) &&
        (!a->name || !b->name || strcmp(a->name, b->name) != 0))
        return 0;
    for (i = 0; i < a->np; i++)
        if (!cel_ty_exact(a->p[i], b->p[i]))
            return 0;
    return 1;
}

int cel_ty_is_dyn(const struct cel_type *t)
{
    return t->kind == CEL_TY_DYN || t->kind == CEL_TY_ANY;
}

/* ================= declaration strings ================= */

/*
 * A function's declaration is a list of overloads separated by spaces:
 *   ID:(T1,T2)->R          global overload
 *   ID:T0.(T1)->R          member overload with receiver type T0
 * Types: int uint double bool string bytes null dyn any timestamp duration
 * list(T) map(K,V) opt(T) type(T) quantity semver url format ip cidr, and
 * single capital letters for type parameters.
 */
struct dparse {
    struct arena *a;
    const char *s;
    int bad;
};

static const struct cel_type *dtype(struct dparse *d);

static int dword(struct dparse *d, const char *w)
{
    size_t n = strlen(w);
    char c;

    if (strncmp(d->s, w, n) != 0)
        return 0;
    c = d->s[n];
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
        (c >= '0' && c <= '9'))
        return 0;
    d->s += n;
    return 1;
}

static void dexpect(struct dparse *d, char c)
{
    if (*d->s == c)
        d->s++;
    else
        d->bad = 1;
}

static const struct cel_type *dtype(struct dparse *d)
{
    static const struct { const char *w; const struct cel_type *t; } prim[] = {
        { "int", &cel_ty_int }, { "uint", &cel_ty_uint },
        { "double", &cel_ty_double }, { "bool", &cel_ty_bool },
        { "string", &cel_ty_string }, { "bytes", &cel_ty_bytes },
        { "null", &cel_ty_null }, { "dyn", &cel_ty_dyn },
        { "any", &cel_ty_any }, { "timestamp", &cel_ty_timestamp },
        { "duration", &cel_ty_duration }, { "quantity", &cel_ty_quantity },
        { "semver", &cel_ty_semver }, { "url", &cel_ty_url },
        { "format", &cel_ty_format }, { "ip", &cel_ty_ip },
        { "cidr", &cel_ty_cidr },
    };
    const struct cel_type *x, *y;
    size_t i;

    if (d->bad)
        return &cel_ty_error;
    if (*d->s >= 'A' && *d->s <= 'Z') {
        struct cel_type *t = mk(d->a, CEL_TY_PARAM,
                                arena_strndup(d->a, d->s, 1), NULL, NULL);
        d->s++;
        return t;
    }
    if (dword(d, "list")) {
        dexpect(d, '(');
        x = dtype(d);
        dexpect(d, ')');
        return cel_ty_list(d->a, x);
    }
    if (dword(d, "map")) {
        dexpect(d, '(');
        x = dtype(d);
        dexpect(d, ',');
        y = dtype(d);
        dexpect(d, ')');
        return cel_ty_map(d->a, x, y);
    }
    if (dword(d, "opt")) {
        dexpect(d, '(');
        x = dtype(d);
        dexpect(d, ')');
        return cel_ty_opt(d->a, x);
    }
    if (dword(d, "type")) {
        dexpect(d, '(');
        x = dtype(d);
        dexpect(d, ')');
        return cel_ty_type(d->a, x);
    }
    for (i = 0; i < sizeof(prim) / sizeof(prim[0]); i++)
        if (dword(d, prim[i].w))
            return prim[i].t;
    d->bad = 1;
    return &cel_ty_error;
}

int cel_decl_parse(struct arena *a, const char *decl, struct cel_ovl **out,
                   size_t *n)
{
    struct dparse d;
    struct cel_ovl *v = NULL;
    size_t k = 0, cap = 0;

    *out = NULL;
    *n = 0;
    memset(&d, 0, sizeof(d));
    d.a = a;
    d.s = decl;
    while (*d.s) {
        struct cel_ovl o;
        const char *colon;

        while (*d.s == ' ')
            d.s++;
        if (!*d.s)
            break;
        memset(&o, 0, sizeof(o));
        colon = strchr(d.s, ':');
        if (!colon)
            return -1;
        if (*d.s == '!') {
            o.general_only = 1;
            d.s++;
        }
        o.id = arena_strndup(a, d.s, (size_t)(colon - d.s));
        d.s = colon + 1;
        if (*d.s != '(') {
            o.args[o.nargs++] = dtype(&d);
            o.member = 1;
            dexpect(&d, '.');
        }
        dexpect(&d, '(');
        while (!d.bad && *d.s != ')') {
            if (o.nargs >= CEL_OVL_MAX_ARGS)
                return -1;
            o.args[o.nargs++] = dtype(&d);
            if (*d.s == ',')
                d.s++;
            else if (*d.s != ')')
                d.bad = 1;
        }
        dexpect(&d, ')');
        dexpect(&d, '-');
        dexpect(&d, '>');
        o.ret = dtype(&d);
        if (d.bad)
            return -1;
        if (k == cap) {
            cap = cap ? cap * 2 : 4;
            v = arena_grow(a, v, k, cap, sizeof(*v));
        }
        v[k++] = o;
    }
    *out = v;
    *n = k;
    return 0;
}

/* ================= unification (cel-go checker/types.go) ================= */

void cel_tymap_init(struct cel_tymap *m, struct arena *a)
{
    memset(m, 0, sizeof(*m));
    m->a = a;
}

const struct cel_type *cel_tymap_fresh(struct cel_tymap *m)
{
    struct cel_type *t = mk(m->a, CEL_TY_PARAM, NULL, NULL, NULL);

    if (m->nvars == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 16;
        m->sub = arena_grow(m->a, m->sub, m->nvars, cap, sizeof(*m->sub));
        m->cap = cap;
    }
    t->id = (unsigned)m->nvars;
    m->sub[m->nvars++] = NULL;
    return t;
}

static const struct cel_type *find(const struct cel_tymap *m,
                                   const struct cel_type *t)
{
    if (t->kind != CEL_TY_PARAM || t->name || t->id >= m->nvars)
        return NULL;
    return m->sub[t->id];
}

static void add(struct cel_tymap *m, const struct cel_type *from,
                const struct cel_type *to)
{
    if (from->kind != CEL_TY_PARAM || from->name || from->id >= m->nvars)
        return;     /* declared parameters are always instantiated first */
    if (m->ntrail == m->captrail) {
        size_t cap = m->captrail ? m->captrail * 2 : 32;
        m->trail = arena_grow(m->a, m->trail, m->ntrail, cap,
                              sizeof(*m->trail));
        m->captrail = cap;
    }
    m->trail[m->ntrail].id = from->id;
    m->trail[m->ntrail].old = m->sub[from->id];
    m->ntrail++;
    m->sub[from->id] = to;
}

size_t cel_tymap_mark(const struct cel_tymap *m)
{
    return m->ntrail;
}

void cel_tymap_undo(struct cel_tymap *m, size_t mark)
{
    while (m->ntrail > mark) {
        m->ntrail--;
        m->sub[m->trail[m->ntrail].id] = m->trail[m->ntrail].old;
    }
}

static int is_dyn_or_error(const struct cel_type *t)
{
    return t->kind == CEL_TY_DYN || t->kind == CEL_TY_ANY ||
           t->kind == CEL_TY_ERROR;
}

/* isEqualOrLessSpecific */
static int less_specific(const struct cel_type *a, const struct cel_type *b)
{
    unsigned i;

    if (cel_ty_is_dyn(a) || a->kind == CEL_TY_PARAM)
        return 1;
    if (cel_ty_is_dyn(b) || b->kind == CEL_TY_PARAM)
        return 0;
    if (a->kind != b->kind)
        return 0;
    switch (a->kind) {
    case CEL_TY_OPAQUE:
        if (strcmp(a->name, b->name) != 0 || a->np != b->np)
            return 0;
        for (i = 0; i < a->np; i++)
            if (!less_specific(a->p[i], b->p[i]))
                return 0;
        return 1;
    case CEL_TY_LIST:
        return less_specific(a->p[0], b->p[0]);
    case CEL_TY_MAP:
        return less_specific(a->p[0], b->p[0]) &&
               less_specific(a->p[1], b->p[1]);
    case CEL_TY_TYPE:
        return 1;
    default:
        return cel_ty_exact(a, b);
    }
}

const struct cel_type *cel_ty_most_general(const struct cel_type *a,
                                           const struct cel_type *b)
{
    return less_specific(a, b) ? a : b;
}

/* occurs check */
static int not_referenced_in(const struct cel_tymap *m,
                             const struct cel_type *t,
                             const struct cel_type *within)
{
    const struct cel_type *s;
    unsigned i;

    if (cel_ty_exact(t, within))
        return 0;
    switch (within->kind) {
    case CEL_TY_PARAM:
        s = find(m, within);
        return s ? not_referenced_in(m, t, s) : 1;
    case CEL_TY_OPAQUE: case CEL_TY_LIST: case CEL_TY_MAP: case CEL_TY_TYPE:
        for (i = 0; i < within->np; i++)
            if (!not_referenced_in(m, t, within->p[i]))
                return 0;
        return 1;
    default:
        return 1;
    }
}

static int assignable(struct cel_tymap *m, const struct cel_type *t1,
                      const struct cel_type *t2);

/* isValidTypeSubstitution: is t2 (a parameter) a valid substitution for
 * t1; *has_sub says whether t2 was already bound. */
static int valid_sub(struct cel_tymap *m, const struct cel_type *t1,
                     const struct cel_type *t2, int *has_sub)
{
    const struct cel_type *s;

    *has_sub = 0;
    if (t1->kind == t2->kind && cel_ty_exact(t1, t2)) {
        *has_sub = 1;
        return 1;
    }
    s = find(m, t2);
    if (s) {
        *has_sub = 1;
        if (t1->kind == s->kind && cel_ty_exact(t1, s))
            return 1;
        if (assignable(m, t1, s)) {
            const struct cel_type *g = cel_ty_most_general(t1, s);
            if (not_referenced_in(m, t2, g))
                add(m, t2, g);
            return 1;
        }
        return 0;
    }
    if (not_referenced_in(m, t2, t1)) {
        add(m, t2, t1);
        return 1;
    }
    return 0;
}

/* the nullness rules of the legacy checker */
static int nullable(const struct cel_type *t)
{
    switch (t->kind) {
    case CEL_TY_OPAQUE: case CEL_TY_STRUCT: case CEL_TY_ANY:
    case CEL_TY_DURATION: case CEL_TY_TIMESTAMP: case CEL_TY_NULL:
    case CEL_TY_DYN: case CEL_TY_PARAM:
        return 1;
    default:
        return 0;
    }
}

/* Type.IsAssignableType for the kinds that need no substitution */
static int type_assignable(const struct cel_type *to,
                           const struct cel_type *from)
{
    unsigned i;

    if (to == from || to->kind == CEL_TY_DYN || to->kind == CEL_TY_ANY ||
        to->kind == CEL_TY_PARAM)
        return 1;
    if (to->kind != from->kind || to->np != from->np ||
        strcmp(type_name(to), type_name(from)) != 0)
        return 0;
    for (i = 0; i < to->np; i++)
        if (!type_assignable(to->p[i], from->p[i]))
            return 0;
    return 1;
}

static int assignable(struct cel_tymap *m, const struct cel_type *t1,
                      const struct cel_type *t2)
{
    int has;
    unsigned i;

    if (t2->kind == CEL_TY_PARAM) {
        if (valid_sub(m, t1, t2, &has))
            return 1;
        if (has)
            return 0;
    }
    if (t1->kind == CEL_TY_PARAM)
        return valid_sub(m, t2, t1, &has);
    if (is_dyn_or_error(t1) || is_dyn_or_error(t2))
        return 1;
    if (t1->kind == CEL_TY_NULL)
        return nullable(t2);
    if (t2->kind == CEL_TY_NULL)
        return nullable(t1);
    switch (t1->kind) {
    case CEL_TY_BOOL: case CEL_TY_BYTES: case CEL_TY_DOUBLE:
    case CEL_TY_INT: case CEL_TY_STRING: case CEL_TY_UINT:
    case CEL_TY_ANY: case CEL_TY_DURATION: case CEL_TY_TIMESTAMP:
    case CEL_TY_STRUCT:
        return type_assignable(t2, t1);
    case CEL_TY_TYPE:
        return t2->kind == CEL_TY_TYPE;
    case CEL_TY_OPAQUE: case CEL_TY_LIST: case CEL_TY_MAP:
        if (t1->kind != t2->kind || t1->np != t2->np ||
            strcmp(type_name(t1), type_name(t2)) != 0)
            return 0;
        for (i = 0; i < t1->np; i++)
            if (!assignable(m, t1->p[i], t2->p[i]))
                return 0;
        return 1;
    default:
        return 0;
    }
}

int cel_ty_assignable(struct cel_tymap *m, const struct cel_type *t1,
                      const struct cel_type *t2)
{
    size_t mark = m->ntrail;

    if (assignable(m, t1, t2))
        return 1;
    cel_tymap_undo(m, mark);
    return 0;
}

int cel_ty_assignable_list(struct cel_tymap *m,
                           const struct cel_type *const *l1,
                           const struct cel_type *const *l2, unsigned n)
{
    size_t mark = m->ntrail;
    unsigned i;

    for (i = 0; i < n; i++) {
        if (!assignable(m, l1[i], l2[i])) {
            cel_tymap_undo(m, mark);
            return 0;
        }
    }
    return 1;
}

const struct cel_type *cel_ty_subst(struct cel_tymap *m,
                                    const struct cel_type *t, int to_dyn)
{
    const struct cel_type *s = find(m, t);
    const struct cel_type *p0, *p1;
    unsigned depth = 0;

    while (s && depth++ < 1000) {
        t = s;
        s = find(m, t);
    }
    if (t->kind == CEL_TY_PARAM)
        return to_dyn ? &cel_ty_dyn : t;
    if (!t->np || (t->kind != CEL_TY_OPAQUE && t->kind != CEL_TY_LIST &&
                   t->kind != CEL_TY_MAP && t->kind != CEL_TY_TYPE))
        return t;
    p0 = cel_ty_subst(m, t->p[0], to_dyn);
    p1 = t->np > 1 ? cel_ty_subst(m, t->p[1], to_dyn) : NULL;
    if (p0 == t->p[0] && (t->np < 2 || p1 == t->p[1]))
        return t;
    return mk(m->a, t->kind, t->name, p0, p1);
}

/* Replaces declared parameters (A, K, V...) of an overload's types with
 * fresh variables, the same letter getting the same variable. */
static const struct cel_type *inst(struct cel_tymap *m,
                                   const struct cel_type *t,
                                   const struct cel_type **vars)
{
    const struct cel_type *p0, *p1;

    if (t->kind == CEL_TY_PARAM && t->name) {
        int i = t->name[0] - 'A';
        if (i < 0 || i >= 26)
            return t;
        if (!vars[i])
            vars[i] = cel_tymap_fresh(m);
        return vars[i];
    }
    if (!t->np)
        return t;
    p0 = inst(m, t->p[0], vars);
    p1 = t->np > 1 ? inst(m, t->p[1], vars) : NULL;
    if (p0 == t->p[0] && (t->np < 2 || p1 == t->p[1]))
        return t;
    return mk(m->a, t->kind, t->name, p0, p1);
}

void cel_ovl_instantiate(struct cel_tymap *m, const struct cel_ovl *o,
                         const struct cel_type **args,
                         const struct cel_type **ret)
{
    const struct cel_type *vars[26];
    unsigned i;

    memset(vars, 0, sizeof(vars));
    for (i = 0; i < o->nargs; i++)
        args[i] = inst(m, o->args[i], vars);
    *ret = inst(m, o->ret, vars);
}
