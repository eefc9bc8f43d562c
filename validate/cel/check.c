/*
 * check.c - the type checker, as cel-go's checker/checker.go runs it in the
 * environment Kubernetes builds (compile.go over the apiserver's base
 * environment): identifiers to variable slots (globals, then comprehension
 * and bind locals on a scope stack), type names to type literals,
 * namespaced functions (optional.of, sets.contains...), overload
 * resolution against the declarations of the function tables with type
 * parameters unified, the macros typed as the comprehensions they expand
 * to, and the AST validators Kubernetes adds (homogeneous literals,
 * duration/timestamp/regex literals). Every node gets its final static
 * type and, for calls and operators, the ids of the overloads that
 * matched (cost.c needs both). Which declarations exist depends on the
 * environment: StoredExpressions or NewExpressions at a Kubernetes minor,
 * and the DRAConsumableCapacity / DRAListTypeAttributes features.
 */
#include "cel_internal.h"
#include "../arena.h"
#include "../err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define CHECK_FN_CACHE 48       /* parsed declarations kept per check */
#define TYPE_TEXT 160           /* a rendered type in a message */

struct scope_var {
    const char *name;
    size_t n;
    int slot;
    const struct cel_type *type;
};

struct fdecl {                  /* a function row and its parsed overloads */
    const struct cel_func *f;
    struct cel_ovl *o;
    size_t n;
};

struct checker {
    struct cel_program *p;
    struct arena *a;
    struct cel_error *err;
    const struct cel_var *vars;
    size_t nvars;
    struct scope_var locals[CEL_MAX_SLOTS];
    int nlocals;
    int next_slot;
    int failed;
    int dra;                    /* the Kubernetes environment */
    struct cel_tymap m;
    struct fdecl fns[CHECK_FN_CACHE];
    size_t nfns;
};

static void cerr(struct checker *c, int kind, unsigned off, const char *fmt,
                 ...) __attribute__((format(printf, 4, 5)));
static void cerr(struct checker *c, int kind, unsigned off, const char *fmt,
                 ...)
{
    char msg[240];
    va_list ap;

    if (c->failed || (c->p->unchecked && kind == CEL_ERR_CHECK))
        return;
    c->failed = 1;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    cel_error_set(c->err, kind, c->p->expr, off, "%s", msg);
}

static const char *fmt_type(struct checker *c, const struct cel_type *t,
                            char *buf)
{
    cel_ty_fmt(cel_ty_subst(&c->m, t, 1), buf, TYPE_TEXT);
    return buf;
}

static int is_name(const char *s, size_t n, const char *lit)
{
    return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

/* ================= declarations ================= */

static const struct cel_func *const lib_tables[] = {
    cel_lib_core, cel_lib_strings, cel_lib_lists, cel_lib_k8s, cel_lib_net,
    cel_lib_time, cel_lib_url, cel_lib_format,
};
static const size_t *const lib_sizes[] = {
    &cel_lib_core_n, &cel_lib_strings_n, &cel_lib_lists_n, &cel_lib_k8s_n,
    &cel_lib_net_n, &cel_lib_time_n, &cel_lib_url_n, &cel_lib_format_n,
};
#define NLIBS (sizeof(lib_tables) / sizeof(lib_tables[0]))

const struct cel_func *cel_func_lookup(const char *name, size_t n)
{
    size_t i, j;

    for (i = 0; i < NLIBS; i++) {
        for (j = 0; j < *lib_sizes[i]; j++) {
            const struct cel_func *f = &lib_tables[i][j];
            if (strlen(f->name) == n && memcmp(f->name, name, n) == 0)
                return f;
        }
    }
    return NULL;
}

static const struct fdecl *decl_of(struct checker *c, const struct cel_func *f)
{
    size_t i;
    struct fdecl *d;

    for (i = 0; i < c->nfns; i++)
        if (c->fns[i].f == f)
            return &c->fns[i];
    d = c->nfns < CHECK_FN_CACHE ? &c->fns[c->nfns++]
                                 : arena_alloc(c->a, sizeof(*d));
    d->f = f;
    if (cel_decl_parse(c->a, f->decl, &d->o, &d->n) < 0)
        BUG("bad declaration string");
    return d;
}

/* Functions of the Kubernetes base environment claimcheck does not
 * implement: a selector using them is not invalid, just unchecked. */
static int unsupported(const char *name, size_t n)
{
    return is_name(name, n, "image") || is_name(name, n, "isImage");
}

/* Is function f declared in this environment? Reports why not. */
static int declared(struct checker *c, const struct cel_func *f,
                    unsigned off)
{
    const struct cel_env *env = &c->p->env;

    if (!c->dra || env->stored)
        return 1;
    if (strcmp(f->name, "includes") == 0 && !env->list_attributes) {
        cerr(c, CEL_ERR_CHECK, off, "undeclared reference to 'includes' "
             "(requires the DRAListTypeAttributes feature)");
        return 0;
    }
    if (c->p->kube_minor && f->since > c->p->kube_minor) {
        cerr(c, CEL_ERR_CHECK, off, "undeclared reference to '%s' "
             "(available from Kubernetes 1.%d, target is 1.%d)", f->name,
             f->since, c->p->kube_minor);
        return 0;
    }
    return 1;
}

static const struct cel_func *func_named(const char *name)
{
    return cel_func_lookup(name, strlen(name));
}

/* ================= overload resolution ================= */

/* cel-go's resolveOverload over argument types (receiver first when
 * member). Records the matching overload ids on n (when not NULL).
 * Returns the result type, or NULL after reporting "found no matching
 * overload". */
static const struct cel_type *resolve(struct checker *c, struct cel_node *n,
                                      const struct cel_func *f, int member,
                                      const struct cel_type *const *at,
                                      unsigned na, unsigned off)
{
    const struct fdecl *d = decl_of(c, f);
    const struct cel_type *result = NULL;
    const char *ids[32];
    unsigned nids = 0, i;
    size_t k;

    if (strcmp(f->name, "_&&_") == 0 || strcmp(f->name, "_||_") == 0) {
        char b1[TYPE_TEXT];
        for (i = 0; i < na; i++) {
            if (!cel_ty_assignable(&c->m, at[i], &cel_ty_bool)) {
                cerr(c, CEL_ERR_CHECK, off, "expected type 'bool' but "
                     "found '%s'", fmt_type(c, at[i], b1));
                return NULL;
            }
        }
        ids[nids++] = d->o[0].id;
        result = &cel_ty_bool;
        goto done;
    }
    for (k = 0; k < d->n; k++) {
        const struct cel_ovl *o = &d->o[k];
        const struct cel_type *pt[CEL_OVL_MAX_ARGS], *rt;
        if (o->member != member || o->nargs != na)
            continue;
        if (o->general_only && c->dra)
            continue;
        cel_ovl_instantiate(&c->m, o, pt, &rt);
        if (!cel_ty_assignable_list(&c->m, at, pt, na))
            continue;
        if (nids < sizeof(ids) / sizeof(ids[0]))
            ids[nids++] = o->id;
        rt = cel_ty_subst(&c->m, rt, 0);
        if (!result)
            result = rt;
        else if (!cel_ty_is_dyn(result) && !cel_ty_exact(rt, result))
            result = &cel_ty_dyn;
    }
    if (!result) {
        char sig[200], tb[TYPE_TEXT];
        size_t l = 0;
        for (i = 0; i < na && l < sizeof(sig) - 2; i++) {
            const char *sep = i == 0 ? "" : (member && i == 1) ? "" : ", ";
            int w;
            if (member && i == 0)
                w = snprintf(sig + l, sizeof(sig) - l, "%s.(",
                             fmt_type(c, at[i], tb));
            else
                w = snprintf(sig + l, sizeof(sig) - l, "%s%s", sep,
                             fmt_type(c, at[i], tb));
            if (w < 0)
                break;
            l += (size_t)w;
        }
        if (l >= sizeof(sig))
            l = sizeof(sig) - 1;
        sig[l] = 0;
        if (!member || na == 0)
            cerr(c, CEL_ERR_CHECK, off, "found no matching overload for "
                 "'%s' applied to '(%s)'", f->name, sig);
        else
            cerr(c, CEL_ERR_CHECK, off, "found no matching overload for "
                 "'%s' applied to '%s)'", f->name, sig);
        return NULL;
    }
done:
    if (n) {
        const char **v = arena_alloc(c->a, (nids + 1) * sizeof(*v));
        memcpy(v, ids, nids * sizeof(*v));
        n->ovl = v;
        n->novl = (unsigned char)nids;
    }
    return result;
}

/* assertType(e, t) of cel-go: t must accept the type of the expression */
static void assert_type(struct checker *c, const struct cel_type *want,
                        const struct cel_type *got, unsigned off)
{
    char b1[TYPE_TEXT], b2[TYPE_TEXT];

    if (!cel_ty_assignable(&c->m, want, got))
        cerr(c, CEL_ERR_CHECK, off, "expected type '%s' but found '%s'",
             fmt_type(c, want, b1), fmt_type(c, got, b2));
}

/* ================= scopes ================= */

static int lookup_global(struct checker *c, const char *name, size_t len)
{
    size_t i;

    for (i = 0; i < c->nvars; i++) {
        if (strlen(c->vars[i].name) == len &&
            memcmp(c->vars[i].name, name, len) == 0)
            return (int)i;
    }
    return -1;
}

static struct scope_var *lookup_local(struct checker *c, const char *name,
                                      size_t len)
{
    int i;

    for (i = c->nlocals - 1; i >= 0; i--) {
        if (c->locals[i].n == len && memcmp(c->locals[i].name, name, len) == 0)
            return &c->locals[i];
    }
    return NULL;
}

static int push_local(struct checker *c, struct cel_node *id,
                      const struct cel_type *t)
{
    struct scope_var *v;

    if (c->nlocals >= CEL_MAX_SLOTS || c->next_slot >= CEL_MAX_SLOTS) {
        cerr(c, CEL_ERR_LIMIT, id->offset,
             "too many nested comprehension variables");
        return -1;
    }
    v = &c->locals[c->nlocals++];
    v->name = id->name;
    v->n = id->name_len;
    v->slot = c->next_slot++;
    v->type = t;
    id->slot = v->slot;
    id->type = t;
    if (c->next_slot > c->p->nslots)
        c->p->nslots = c->next_slot;
    return 0;
}

static void pop_locals(struct checker *c, int k)
{
    c->nlocals -= k;
    c->next_slot -= k;
}

/* the static type of a global variable or of a type literal */
static const struct cel_type *var_type(int code)
{
    return code == CEL_T_DEVICE ? &cel_ty_device : &cel_ty_dyn;
}

static const struct cel_type *type_literal_type(struct checker *c, int t)
{
    const struct cel_type *s;

    switch (t) {
    case CEL_T_NULL: s = &cel_ty_null; break;
    case CEL_T_BOOL: s = &cel_ty_bool; break;
    case CEL_T_INT: s = &cel_ty_int; break;
    case CEL_T_UINT: s = &cel_ty_uint; break;
    case CEL_T_DOUBLE: s = &cel_ty_double; break;
    case CEL_T_STRING: s = &cel_ty_string; break;
    case CEL_T_BYTES: s = &cel_ty_bytes; break;
    case CEL_T_LIST: s = cel_ty_list(c->a, &cel_ty_dyn); break;
    case CEL_T_MAP: s = cel_ty_map(c->a, &cel_ty_dyn, &cel_ty_dyn); break;
    case CEL_T_QUANTITY: s = &cel_ty_quantity; break;
    case CEL_T_SEMVER: s = &cel_ty_semver; break;
    case CEL_T_IP: s = &cel_ty_ip; break;
    case CEL_T_CIDR: s = &cel_ty_cidr; break;
    case CEL_T_TIMESTAMP: s = &cel_ty_timestamp; break;
    case CEL_T_DURATION: s = &cel_ty_duration; break;
    case CEL_T_URL: s = &cel_ty_url; break;
    case CEL_T_FORMAT: s = &cel_ty_format; break;
    case CEL_T_OPT: s = cel_ty_opt(c->a, &cel_ty_dyn); break;
    default: s = &cel_ty_dyn; break;
    }
    return cel_ty_type(c->a, s);
}

/* Builds the dotted name of a SELECT chain rooted at an IDENT into buf. */
static int dotted(const struct cel_node *n, char *buf, size_t sz, size_t *len)
{
    if (n->kind == CEL_N_IDENT) {
        if (n->name_len >= sz)
            return -1;
        memcpy(buf, n->name, n->name_len);
        *len = n->name_len;
        return 0;
    }
    if (n->kind != CEL_N_SELECT)
        return -1;
    if (dotted(n->args[0], buf, sz, len) < 0 ||
        *len + 1 + n->name_len >= sz)
        return -1;
    buf[(*len)++] = '.';
    memcpy(buf + *len, n->name, n->name_len);
    *len += n->name_len;
    return 0;
}

/* ================= the DRA device type ================= */

/* The type of the attribute values: compile.go's AnyType with the
 * DRAListTypeAttributes feature off, DynType with it on. */
static const struct cel_type *attr_type(const struct checker *c)
{
    return c->p->env.list_attributes ? &cel_ty_dyn : &cel_ty_any;
}

static const struct cel_type *device_field(struct checker *c,
                                           const char *name, size_t n)
{
    if (is_name(name, n, "driver"))
        return &cel_ty_string;
    if (is_name(name, n, "attributes"))
        return cel_ty_map(c->a, &cel_ty_string,
                          cel_ty_map(c->a, &cel_ty_string, attr_type(c)));
    if (is_name(name, n, "capacity"))
        return cel_ty_map(c->a, &cel_ty_string,
                          cel_ty_map(c->a, &cel_ty_string,
                                     &cel_ty_quantity));
    /* StoredExpressions has the 1.34 device type whatever the features */
    if (is_name(name, n, "allowMultipleAllocations") &&
        (c->p->env.consumable_capacity || c->p->env.stored))
        return &cel_ty_bool;
    return NULL;
}

/* ================= the walk ================= */

static const struct cel_type *check(struct checker *c, struct cel_node *n);

static const struct cel_type *set_type(struct cel_node *n,
                                       const struct cel_type *t)
{
    n->type = t;
    return t;
}

static const struct cel_type *check_ident(struct checker *c,
                                          struct cel_node *n)
{
    struct scope_var *lv = lookup_local(c, n->name, n->name_len);
    int g, t;

    if (lv) {
        n->slot = lv->slot;
        return lv->type;
    }
    g = lookup_global(c, n->name, n->name_len);
    if (g >= 0) {
        n->slot = c->vars[g].slot;
        return var_type(c->vars[g].type);
    }
    t = cel_type_lookup(n->name, n->name_len);
    if (t >= 0) {
        n->kind = CEL_N_LIT;
        n->lit = cel_vtype(t);
        return type_literal_type(c, t);
    }
    cerr(c, CEL_ERR_CHECK, n->offset, "undeclared reference to '%.*s'",
         (int)n->name_len, n->name);
    return &cel_ty_error;
}

/* checkSelectField: the type of operand.field (optional: .?field) */
static const struct cel_type *select_field(struct checker *c,
                                           const struct cel_node *n,
                                           const struct cel_type *ot,
                                           int optional)
{
    const struct cel_type *t = cel_ty_subst(&c->m, ot, 0), *r;
    int isopt = cel_ty_is_opt(t);
    char tb[TYPE_TEXT];

    if (isopt)
        t = t->p[0];
    switch (t->kind) {
    case CEL_TY_MAP:
        r = t->p[1];
        break;
    case CEL_TY_STRUCT:
        r = t == &cel_ty_device || (t->name && !strcmp(t->name,
                                    cel_ty_device.name))
            ? device_field(c, n->name, n->name_len) : NULL;
        if (!r) {
            cerr(c, CEL_ERR_CHECK, n->offset, "undefined field '%.*s'",
                 (int)n->name_len, n->name);
            r = &cel_ty_error;
        }
        break;
    case CEL_TY_PARAM:
        (void)cel_ty_assignable(&c->m, &cel_ty_dyn, t);
        r = &cel_ty_dyn;
        break;
    default:
        if (t->kind != CEL_TY_DYN && t->kind != CEL_TY_ANY &&
            t->kind != CEL_TY_ERROR)
            cerr(c, CEL_ERR_CHECK, n->offset, "type '%s' does not support "
                 "field selection", fmt_type(c, t, tb));
        r = &cel_ty_dyn;
        break;
    }
    if (isopt || optional)
        return cel_ty_opt(c->a, r);
    return r;
}

/* Rewrites a.b.c to a qualified variable or type name when declared.
 * Returns 1 if done. */
static int try_qualified(struct checker *c, struct cel_node *n)
{
    char buf[256];
    size_t len;
    const struct cel_node *root = n;
    int g, t;

    if (dotted(n, buf, sizeof(buf), &len) < 0)
        return 0;
    while (root->kind == CEL_N_SELECT)
        root = root->args[0];
    if (lookup_local(c, root->name, root->name_len))
        return 0;
    g = lookup_global(c, buf, len);
    if (g < 0) {
        t = cel_type_lookup(buf, len);
        if (t < 0)
            return 0;
        n->kind = CEL_N_LIT;
        n->lit = cel_vtype(t);
        n->nargs = 0;
        set_type(n, type_literal_type(c, t));
        return 1;
    }
    n->kind = CEL_N_IDENT;
    n->name = c->vars[g].name;
    n->name_len = len;
    n->nargs = 0;
    n->slot = c->vars[g].slot;
    set_type(n, var_type(c->vars[g].type));
    return 1;
}

/* the element type of a list literal: joinTypes with dyn on mismatch (the
 * homogeneity is a validator, run after checking) */
static const struct cel_type *join(struct checker *c,
                                   const struct cel_type *prev,
                                   const struct cel_type *cur)
{
    if (!prev)
        return cur;
    if (cel_ty_assignable(&c->m, prev, cur))
        return cel_ty_most_general(prev, cur);
    return &cel_ty_dyn;
}

static const struct cel_type *check_list(struct checker *c,
                                         struct cel_node *n)
{
    const struct cel_type *et = NULL, *t;
    unsigned i;
    char b1[TYPE_TEXT], b2[TYPE_TEXT];

    for (i = 0; i < n->nargs && !c->failed; i++) {
        t = check(c, n->args[i]);
        if (n->opt_elems && n->optflags[i]) {
            const struct cel_type *s = cel_ty_subst(&c->m, t, 0);
            if (cel_ty_is_opt(s)) {
                t = s->p[0];
            } else if (!cel_ty_is_dyn(s)) {
                cerr(c, CEL_ERR_CHECK, n->args[i]->offset, "expected type "
                     "'%s' but found '%s'",
                     fmt_type(c, cel_ty_opt(c->a, s), b1),
                     fmt_type(c, s, b2));
                return &cel_ty_error;
            }
        }
        et = join(c, et, t);
    }
    if (!et)
        et = cel_tymap_fresh(&c->m);
    return cel_ty_list(c->a, et);
}

static const struct cel_type *check_map(struct checker *c, struct cel_node *n)
{
    const struct cel_type *kt = NULL, *vt = NULL, *t;
    unsigned i;
    char b1[TYPE_TEXT], b2[TYPE_TEXT];

    for (i = 0; i + 1 < n->nargs && !c->failed; i += 2) {
        kt = join(c, kt, check(c, n->args[i]));
        t = check(c, n->args[i + 1]);
        if (n->opt_elems && n->optflags[i / 2]) {
            const struct cel_type *s = cel_ty_subst(&c->m, t, 0);
            if (cel_ty_is_opt(s)) {
                t = s->p[0];
            } else if (!cel_ty_is_dyn(s)) {
                cerr(c, CEL_ERR_CHECK, n->args[i + 1]->offset, "expected "
                     "type '%s' but found '%s'",
                     fmt_type(c, cel_ty_opt(c->a, s), b1),
                     fmt_type(c, s, b2));
                return &cel_ty_error;
            }
        }
        vt = join(c, vt, t);
    }
    if (!kt) {
        kt = cel_tymap_fresh(&c->m);
        vt = cel_tymap_fresh(&c->m);
    }
    return cel_ty_map(c->a, kt, vt);
}

/* ---- calls ---- */

static const char *const binop_fn[] = {
    [CEL_OP_EQ] = "_==_", [CEL_OP_NE] = "_!=_", [CEL_OP_LT] = "_<_",
    [CEL_OP_LE] = "_<=_", [CEL_OP_GT] = "_>_", [CEL_OP_GE] = "_>=_",
    [CEL_OP_IN] = "@in", [CEL_OP_ADD] = "_+_", [CEL_OP_SUB] = "_-_",
    [CEL_OP_MUL] = "_*_", [CEL_OP_DIV] = "_/_", [CEL_OP_MOD] = "_%_",
};

const char *cel_binop_function(int op)
{
    return binop_fn[op];
}

/* an operator node: its children checked, then the operator resolved */
static const struct cel_type *check_op(struct checker *c, struct cel_node *n,
                                       const char *fn)
{
    const struct cel_type *at[3];
    unsigned i;

    for (i = 0; i < n->nargs && i < 3; i++) {
        at[i] = check(c, n->args[i]);
        if (c->failed)
            return &cel_ty_error;
    }
    at[0] = resolve(c, n, func_named(fn), 0, at, n->nargs, n->offset);
    return at[0] ? at[0] : &cel_ty_error;
}

/* The literal-argument validators (cel-go's ValidateDurationLiterals,
 * ValidateTimestampLiterals, ValidateRegexLiterals): the first argument
 * of duration(), timestamp() and matches() when it is a literal (for the
 * receiver form of matches() that is the pattern; for matches(s, re) it
 * is s, as in cel-go). */
static void validate_literal(struct checker *c, struct cel_node *n)
{
    const struct cel_node *lit;
    unsigned first = n->member ? 1 : 0;

    if (!c->dra || n->nargs <= first)
        return;
    lit = n->args[first];
    if (lit->kind != CEL_N_LIT || lit->lit.kind != CEL_V_STRING)
        return;
    if (is_name(n->name, n->name_len, "matches")) {
        char msg[256];
        struct cel_regex *re = cel_regex_compile(c->a, lit->lit.v.s.p,
                                                 lit->lit.v.s.n, 0, msg);
        if (!re)
            cerr(c, CEL_ERR_CHECK, lit->offset, "invalid matches argument: "
                 "%s", msg);
        else
            cel_regex_free(re);
        return;
    }
    if (!n->member && n->nargs == 1 &&
        (is_name(n->name, n->name_len, "timestamp") ||
         is_name(n->name, n->name_len, "duration"))) {
        struct cel_eval ev;
        struct cel_scratch sc;
        struct cel_value v;
        memset(&ev, 0, sizeof(ev));
        cel_scratch_init(&sc);
        ev.scratch = &sc;
        ev.p = c->p;
        v = n->fn->impl(&ev, n, &lit->lit, 1);
        if (v.kind == CEL_V_ERROR)
            cerr(c, CEL_ERR_CHECK, lit->offset, "invalid %.*s argument: %.*s",
                 (int)n->name_len, n->name, (int)v.v.s.n, v.v.s.p);
        cel_scratch_release(&sc);
    }
}

/* Precompiles a constant pattern of matches/find/findAll. */
static void fold_regex(struct checker *c, struct cel_node *n)
{
    const struct cel_node *pat;
    struct cel_regex *re, **v;
    char msg[256];

    if (n->nargs != 2 && !(n->nargs == 3 && n->member))
        return;
    pat = n->args[1];
    if (pat->kind != CEL_N_LIT || pat->lit.kind != CEL_V_STRING)
        return;
    re = cel_regex_compile(c->a, pat->lit.v.s.p, pat->lit.v.s.n,
                           c->p->env.regex_jit, msg);
    if (!re)
        return;     /* a runtime error, or the validator's */
    n->aux = re;
    v = arena_grow(c->a, c->p->regexes, c->p->nregexes, c->p->nregexes + 1,
                   sizeof(*v));
    v[c->p->nregexes++] = re;
    c->p->regexes = v;
}

static const struct cel_type *check_call(struct checker *c,
                                         struct cel_node *n)
{
    const struct cel_type *at[16], *t;
    const struct cel_func *f;
    unsigned i;

    /* namespaced global: optional.of(x) parses as a call on 'optional' */
    if (n->member && (n->args[0]->kind == CEL_N_IDENT ||
                      n->args[0]->kind == CEL_N_SELECT)) {
        char buf[128];
        size_t l;
        const struct cel_node *root = n->args[0];
        while (root->kind == CEL_N_SELECT)
            root = root->args[0];
        if (root->kind == CEL_N_IDENT &&
            !lookup_local(c, root->name, root->name_len) &&
            lookup_global(c, root->name, root->name_len) < 0 &&
            dotted(n->args[0], buf, sizeof(buf) - 64, &l) == 0 &&
            l + 1 + n->name_len < sizeof(buf)) {
            buf[l++] = '.';
            memcpy(buf + l, n->name, n->name_len);
            l += n->name_len;
            if (cel_func_lookup(buf, l) || unsupported(buf, l)) {
                n->name = arena_strndup(c->a, buf, l);
                n->name_len = l;
                n->member = 0;
                n->args++;
                n->nargs--;
            }
        }
    }
    if (n->nargs > 16) {
        cerr(c, CEL_ERR_CHECK, n->offset, "too many arguments");
        return &cel_ty_error;
    }
    for (i = 0; i < n->nargs; i++) {
        at[i] = check(c, n->args[i]);
        if (c->failed)
            return &cel_ty_error;
    }
    f = cel_func_lookup(n->name, n->name_len);
    if (!f || n->name[0] == '_' || n->name[0] == '@' ||
        is_name(n->name, n->name_len, "cel.@mapInsert")) {
        if (unsupported(n->name, n->name_len)) {
            cerr(c, CEL_ERR_UNSUPPORTED, n->offset, "function '%.*s' is "
                 "part of the Kubernetes CEL environment but not supported "
                 "by claimcheck", (int)n->name_len, n->name);
            return &cel_ty_error;
        }
        cerr(c, CEL_ERR_CHECK, n->offset, "undeclared reference to '%.*s'",
             (int)n->name_len, n->name);
        return &cel_ty_error;
    }
    if (!declared(c, f, n->offset))
        return &cel_ty_error;
    n->fn = f;
    t = resolve(c, n, f, n->member, at, n->nargs, n->offset);
    if (!t && c->p->unchecked) {
        /* unchecked: dispatch at runtime, unless no overload has this
         * call style and arity (then a runtime "no such overload") */
        const struct fdecl *d = decl_of(c, f);
        size_t k;
        for (k = 0; k < d->n; k++)
            if (d->o[k].member == n->member && d->o[k].nargs == n->nargs)
                break;
        if (k == d->n)
            n->fn = NULL;
        return &cel_ty_dyn;
    }
    if (!t)
        return &cel_ty_error;
    if (is_name(n->name, n->name_len, "matches") ||
        is_name(n->name, n->name_len, "find") ||
        is_name(n->name, n->name_len, "findAll"))
        fold_regex(c, n);
    validate_literal(c, n);
    return t;
}

/* ---- comprehensions (macros typed as their expansions) ---- */

/* checkComprehension's variable types for a range type; NULL (error
 * reported) when the range cannot be iterated. */
static int range_vars(struct checker *c, const struct cel_node *range,
                      const struct cel_type *rt, int twovar,
                      const struct cel_type **v1,
                      const struct cel_type **v2)
{
    const struct cel_type *t = cel_ty_subst(&c->m, rt, 0);
    char tb[TYPE_TEXT];

    *v2 = NULL;
    switch (t->kind) {
    case CEL_TY_LIST:
        *v1 = t->p[0];
        if (twovar) {
            *v2 = t->p[0];
            *v1 = &cel_ty_int;
        }
        return 0;
    case CEL_TY_MAP:
        *v1 = t->p[0];
        if (twovar)
            *v2 = t->p[1];
        return 0;
    case CEL_TY_DYN: case CEL_TY_ERROR: case CEL_TY_PARAM:
        (void)cel_ty_assignable(&c->m, &cel_ty_dyn, t);
        *v1 = &cel_ty_dyn;
        if (twovar)
            *v2 = &cel_ty_dyn;
        return 0;
    default:
        cerr(c, CEL_ERR_CHECK, range->offset, "expression of type '%s' "
             "cannot be range of a comprehension (must be list, map, or "
             "dynamic)", fmt_type(c, t, tb));
        return -1;
    }
}

/* macro availability by version (two-variable comprehensions 1.32,
 * sortBy 1.34) in NewExpressions */
static int macro_declared(struct checker *c, const struct cel_node *n)
{
    int m = n->op, since = 0;
    const char *what = "a two-variable comprehension";

    if (!c->dra || c->p->env.stored || !c->p->kube_minor)
        return 1;
    if (n->args[2])
        since = 32;
    if (m == CEL_M_SORTBY) {
        since = 34;
        what = "sortBy()";
    }
    if (since > c->p->kube_minor) {
        cerr(c, CEL_ERR_CHECK, n->offset, "%s is not available before "
             "Kubernetes 1.%d (target is 1.%d)", what, since,
             c->p->kube_minor);
        return 0;
    }
    return 1;
}

/* The end of a comprehension that builds a list or map: the step
 * (filter: p ? step : __result__) must suit the accumulator, whose type is
 * the result. */
static const struct cel_type *accumulate(struct checker *c,
                                         const struct cel_node *n,
                                         const struct cel_type *accu,
                                         const struct cel_type *step,
                                         const struct cel_type *filter)
{
    const struct cel_type *at[3];

    if (step && filter) {
        at[0] = filter;
        at[1] = step;
        at[2] = accu;
        step = resolve(c, NULL, func_named("_?_:_"), 0, at, 3,
                       n->args[3]->offset);
    }
    if (!step)
        return &cel_ty_error;
    assert_type(c, accu, step, n->offset);
    return c->failed ? &cel_ty_error : cel_ty_subst(&c->m, accu, 0);
}

static const struct cel_type *check_compr(struct checker *c,
                                          struct cel_node *n)
{
    const struct cel_type *rt, *v1, *v2, *t1 = NULL, *t2 = NULL, *accu, *r;
    const struct cel_type *at[3];
    const struct cel_func *cond = func_named("_?_:_");
    const struct cel_func *plus = func_named("_+_");
    int m = n->op, pushed;
    unsigned off3;

    if (!macro_declared(c, n))
        return &cel_ty_error;
    rt = check(c, n->args[0]);
    if (c->failed)
        return &cel_ty_error;
    if (m == CEL_M_OPTMAP || m == CEL_M_OPTFLATMAP) {
        /* target.hasValue() ? optional.of(f[x := target.value()]) :
         * optional.none() (optFlatMap: f itself) */
        const struct cel_type *vt;
        at[0] = rt;
        if (!resolve(c, NULL, func_named("hasValue"), 1, at, 1,
                     n->args[0]->offset))
            return &cel_ty_error;
        vt = resolve(c, NULL, func_named("value"), 1, at, 1,
                     n->args[0]->offset);
        if (!vt || push_local(c, n->args[1], vt) < 0)
            return &cel_ty_error;
        t1 = check(c, n->args[3]);
        pop_locals(c, 1);
        if (c->failed)
            return &cel_ty_error;
        at[0] = &cel_ty_bool;
        at[1] = m == CEL_M_OPTMAP ? cel_ty_opt(c->a, t1) : t1;
        at[2] = cel_ty_opt(c->a, cel_tymap_fresh(&c->m));
        r = resolve(c, NULL, cond, 0, at, 3, n->offset);
        return r ? r : &cel_ty_error;
    }
    if (range_vars(c, n->args[0], rt, n->args[2] != NULL, &v1, &v2) < 0)
        return &cel_ty_error;
    if (m == CEL_M_SORTBY) {
        /* cel.bind(@in, target, @in.@sortByAssociatedKeys(@in.map(x,
         * key))) */
        const struct cel_type *kt;
        if (push_local(c, n->args[1], v1) < 0)
            return &cel_ty_error;
        t1 = check(c, n->args[3]);
        pop_locals(c, 1);
        if (c->failed)
            return &cel_ty_error;
        kt = cel_ty_list(c->a, t1);
        at[0] = rt;
        at[1] = kt;
        r = resolve(c, NULL, func_named("@sortByAssociatedKeys"), 1, at, 2,
                    n->offset);
        if (!r) {
            char b1[TYPE_TEXT], b2[TYPE_TEXT];
            c->failed = 0;
            cerr(c, CEL_ERR_CHECK, n->offset, "found no matching overload "
                 "for 'sortBy' applied to '%s.(%s)'", fmt_type(c, rt, b1),
                 fmt_type(c, kt, b2));
            return &cel_ty_error;
        }
        return r;
    }
    pushed = n->args[2] ? 2 : 1;
    if (push_local(c, n->args[1], v1) < 0 ||
        (n->args[2] && push_local(c, n->args[2], v2) < 0))
        return &cel_ty_error;
    t1 = check(c, n->args[3]);
    if (n->args[4] && !c->failed)
        t2 = check(c, n->args[4]);
    pop_locals(c, pushed);
    if (c->failed)
        return &cel_ty_error;
    off3 = n->args[3]->offset;
    switch (m) {
    case CEL_M_ALL: case CEL_M_EXISTS: case CEL_M_ALL2: case CEL_M_EXISTS2:
        /* __result__ && p / __result__ || p */
        at[0] = &cel_ty_bool;
        at[1] = t1;
        if (!resolve(c, NULL, func_named("_&&_"), 0, at, 2, off3))
            return &cel_ty_error;
        return &cel_ty_bool;
    case CEL_M_EXISTS_ONE: case CEL_M_EXISTS_ONE2:
        /* p ? __result__ + 1 : __result__ */
        at[0] = t1;
        at[1] = &cel_ty_int;
        at[2] = &cel_ty_int;
        if (!resolve(c, NULL, cond, 0, at, 3, off3))
            return &cel_ty_error;
        return &cel_ty_bool;
    case CEL_M_MAP: case CEL_M_TLIST: case CEL_M_MAP_FILTER:
    case CEL_M_TLIST_FILTER: case CEL_M_FILTER: {
        /* __result__ + [f] (filter: p ? __result__ + [x] : __result__) */
        const struct cel_type *ft = m == CEL_M_FILTER
            ? (n->args[2] ? v2 : v1) : (t2 ? t2 : t1);
        const struct cel_type *step;
        accu = cel_ty_list(c->a, cel_tymap_fresh(&c->m));
        at[0] = accu;
        at[1] = cel_ty_list(c->a, ft);
        step = resolve(c, NULL, plus, 0, at, 2, n->offset);
        return accumulate(c, n, accu, step, m != CEL_M_MAP &&
                          m != CEL_M_TLIST ? t1 : NULL);
    }
    default: {
        /* transformMap(k, v, [p,] f): cel.@mapInsert(__result__, k, f);
         * transformMapEntry(k, v, [p,] e): cel.@mapInsert(__result__, e) */
        int entry = m == CEL_M_TMAPENTRY || m == CEL_M_TMAPENTRY_FILTER;
        int filt = m == CEL_M_TMAP_FILTER || m == CEL_M_TMAPENTRY_FILTER;
        const struct cel_type *step;
        accu = cel_ty_map(c->a, cel_tymap_fresh(&c->m),
                          cel_tymap_fresh(&c->m));
        at[0] = accu;
        if (entry) {
            at[1] = filt ? t2 : t1;
        } else {
            at[1] = v1;
            at[2] = filt ? t2 : t1;
        }
        step = resolve(c, NULL, func_named("cel.@mapInsert"), 0, at,
                       entry ? 2 : 3, n->offset);
        return accumulate(c, n, accu, step, filt ? t1 : NULL);
    }
    }
}

static const struct cel_type *check(struct checker *c, struct cel_node *n)
{
    const struct cel_type *t = &cel_ty_dyn, *a;

    if (c->failed)
        return &cel_ty_error;
    switch (n->kind) {
    case CEL_N_LIT:
        switch (n->lit.kind) {
        case CEL_V_NULL: t = &cel_ty_null; break;
        case CEL_V_BOOL: t = &cel_ty_bool; break;
        case CEL_V_INT: t = &cel_ty_int; break;
        case CEL_V_UINT: t = &cel_ty_uint; break;
        case CEL_V_DOUBLE: t = &cel_ty_double; break;
        case CEL_V_STRING: t = &cel_ty_string; break;
        case CEL_V_BYTES: t = &cel_ty_bytes; break;
        case CEL_V_TYPE: t = type_literal_type(c, n->lit.sub); break;
        default: t = &cel_ty_dyn; break;
        }
        break;
    case CEL_N_IDENT:
        t = check_ident(c, n);
        break;
    case CEL_N_SELECT:
        if (try_qualified(c, n))
            return n->type;
        a = check(c, n->args[0]);
        if (c->failed)
            break;
        t = select_field(c, n, a, 0);
        break;
    case CEL_N_OPTSELECT:
        a = check(c, n->args[0]);
        if (c->failed)
            break;
        t = select_field(c, n, a, 1);
        break;
    case CEL_N_HAS:
        a = check(c, n->args[0]);
        if (c->failed)
            break;
        (void)select_field(c, n, a, 0);
        t = &cel_ty_bool;
        break;
    case CEL_N_INDEX:
        t = check_op(c, n, "_[_]");
        break;
    case CEL_N_OPTINDEX:
        t = check_op(c, n, "_[?_]");
        break;
    case CEL_N_CALL:
        t = check_call(c, n);
        break;
    case CEL_N_LIST:
        t = check_list(c, n);
        break;
    case CEL_N_MAP:
        t = check_map(c, n);
        break;
    case CEL_N_AND:
        t = check_op(c, n, "_&&_");
        break;
    case CEL_N_OR:
        t = check_op(c, n, "_||_");
        break;
    case CEL_N_COND:
        t = check_op(c, n, "_?_:_");
        break;
    case CEL_N_NOT:
        t = check_op(c, n, "!_");
        break;
    case CEL_N_NEG:
        t = check_op(c, n, "-_");
        break;
    case CEL_N_BINOP:
        t = check_op(c, n, binop_fn[n->op]);
        break;
    case CEL_N_COMPR:
        t = check_compr(c, n);
        break;
    case CEL_N_BIND:
        a = check(c, n->args[1]);
        if (c->failed || push_local(c, n->args[0], a) < 0)
            break;
        t = check(c, n->args[2]);
        pop_locals(c, 1);
        break;
    default:
        break;
    }
    if (c->failed && !c->p->unchecked)
        t = &cel_ty_error;
    return set_type(n, t);
}

/* ================= after the walk ================= */

/* Final types: every bound variable substituted, unbound ones dyn. */
static void finalize(struct checker *c, struct cel_node *n)
{
    unsigned i;

    if (!n)
        return;
    if (n->type)
        n->type = cel_ty_subst(&c->m, n->type, 1);
    for (i = 0; i < n->nargs; i++)
        finalize(c, n->args[i]);
}

/* IsEquivalentType: like exact, but type parameters match any name */
static int equivalent(const struct cel_type *a, const struct cel_type *b)
{
    unsigned i;

    if (a == b)
        return 1;
    if (a->kind != b->kind || a->np != b->np)
        return 0;
    if (a->kind != CEL_TY_PARAM && !cel_ty_exact(a, b) && !a->np)
        return 0;
    if (a->np && ((a->name || b->name) &&
                  (!a->name || !b->name || strcmp(a->name, b->name))))
        return 0;
    for (i = 0; i < a->np; i++)
        if (!equivalent(a->p[i], b->p[i]))
            return 0;
    return 1;
}

static const struct cel_type *entry_type(const struct cel_node *n,
                                         unsigned i, int opt)
{
    const struct cel_type *t = n->args[i]->type;

    if (opt && cel_ty_is_opt(t))
        return t->p[0];
    return t;
}

/* cel-go's homogeneous aggregate literal validator: every list element
 * (map key, map value) has the type of the first; literals anywhere
 * inside a format() call are exempt. */
static void homogeneous(struct checker *c, const struct cel_node *n,
                        int exempt)
{
    unsigned i;
    char b1[TYPE_TEXT], b2[TYPE_TEXT];

    if (!n || c->failed)
        return;
    if (n->kind == CEL_N_CALL && is_name(n->name, n->name_len, "format"))
        exempt = 1;
    if (!exempt && n->kind == CEL_N_LIST && n->nargs > 1) {
        const struct cel_type *e0 = entry_type(n, 0, n->opt_elems &&
                                                     n->optflags[0]);
        for (i = 1; i < n->nargs; i++) {
            const struct cel_type *e = entry_type(n, i, n->opt_elems &&
                                                        n->optflags[i]);
            if (!equivalent(e0, e)) {
                cel_ty_fmt(e0, b1, sizeof(b1));
                cel_ty_fmt(e, b2, sizeof(b2));
                cerr(c, CEL_ERR_CHECK, n->args[i]->offset, "expected type "
                     "'%s' but found '%s'", b1, b2);
                return;
            }
        }
    }
    if (!exempt && n->kind == CEL_N_MAP && n->nargs > 2) {
        const struct cel_type *k0 = n->args[0]->type;
        const struct cel_type *v0 = entry_type(n, 1, n->opt_elems &&
                                                     n->optflags[0]);
        for (i = 2; i + 1 < n->nargs; i += 2) {
            const struct cel_type *k = n->args[i]->type;
            const struct cel_type *v = entry_type(n, i + 1, n->opt_elems &&
                                                  n->optflags[i / 2]);
            if (!equivalent(k0, k)) {
                cel_ty_fmt(k0, b1, sizeof(b1));
                cel_ty_fmt(k, b2, sizeof(b2));
                cerr(c, CEL_ERR_CHECK, n->args[i]->offset, "expected type "
                     "'%s' but found '%s'", b1, b2);
                return;
            }
            if (!equivalent(v0, v)) {
                cel_ty_fmt(v0, b1, sizeof(b1));
                cel_ty_fmt(v, b2, sizeof(b2));
                cerr(c, CEL_ERR_CHECK, n->args[i + 1]->offset, "expected "
                     "type '%s' but found '%s'", b1, b2);
                return;
            }
        }
    }
    for (i = 0; i < n->nargs; i++)
        homogeneous(c, n->args[i], exempt);
}

/* quantity("...") / semver("...") with a literal argument become
 * literals; the call's runtime cost stays on the node. */
static void fold(struct cel_program *p, struct arena *a, struct cel_node *n)
{
    const struct cel_node *arg;
    struct cel_value v;
    unsigned i;

    if (!n)
        return;
    for (i = 0; i < n->nargs; i++)
        fold(p, a, n->args[i]);
    if (n->kind != CEL_N_CALL || n->member || n->nargs < 1 ||
        n->args[0]->kind != CEL_N_LIT ||
        n->args[0]->lit.kind != CEL_V_STRING)
        return;
    arg = n->args[0];
    memset(&v, 0, sizeof(v));
    if (is_name(n->name, n->name_len, "quantity") && n->nargs == 1) {
        struct quantity q;
        if (quantity_parse(arg->lit.v.s.p, arg->lit.v.s.n, &q) < 0)
            return;
        v = cel_vquantity(&q);
    } else if (is_name(n->name, n->name_len, "semver")) {
        struct cel_semver *sv = arena_alloc(a, sizeof(*sv));
        int norm = 0;
        if (n->nargs == 2) {
            if (n->args[1]->kind != CEL_N_LIT ||
                n->args[1]->lit.kind != CEL_V_BOOL)
                return;
            norm = n->args[1]->lit.v.b;
        }
        if (cel_semver_parse(arg->lit.v.s.p, arg->lit.v.s.n, norm, sv) < 0)
            return;
        if (sv->npre)
            sv->pre = arena_strndup(a, sv->pre, sv->npre);
        v.kind = CEL_V_SEMVER;
        v.v.sv = sv;
    } else {
        return;
    }
    n->lit_cost = (uint32_t)cel_call_cost_of(p, n, &arg->lit, n->nargs,
                                             &v);
    n->kind = CEL_N_LIT;
    n->lit = v;
    n->nargs = 0;
}

void cel_fold(struct cel_program *p, struct arena *a)
{
    fold(p, a, p->root);
}

int cel_check(struct arena *a, struct cel_program *p,
              const struct cel_var *vars, size_t nvars, int want_bool,
              struct cel_error *err)
{
    struct checker c;
    const struct cel_type *t;

    memset(&c, 0, sizeof(c));
    c.p = p;
    c.a = a;
    c.err = err;
    c.vars = vars;
    c.nvars = nvars;
    c.next_slot = (int)nvars;
    c.dra = !p->general;
    cel_tymap_init(&c.m, a);
    p->nslots = (int)nvars;
    t = check(&c, p->root);
    if (c.failed)
        return -1;
    finalize(&c, p->root);
    t = p->root->type;
    if (c.dra && !p->unchecked)
        homogeneous(&c, p->root, 0);
    if (c.failed)
        return -1;
    if (want_bool && t->kind != CEL_TY_BOOL && t->kind != CEL_TY_ANY &&
        !(p->env.list_attributes && t->kind == CEL_TY_DYN)) {
        char tb[TYPE_TEXT];
        cel_ty_str(t, tb, sizeof(tb));
        cel_error_set(err, CEL_ERR_CHECK, p->expr, p->root->offset,
                      "must evaluate to bool or the unknown type, not %s",
                      tb);
        return -1;
    }
    return 0;
}
