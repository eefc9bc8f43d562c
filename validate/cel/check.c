/*
 * check.c - name resolution, type checking, literal folding and the static
 * cost estimate. Resolves identifiers to variable slots (global variables
 * first, comprehension/bind locals on a scope stack), type names to type
 * literals, qualified names and namespaced functions (optional.of,
 * sets.contains...), binds calls to the function table, and computes a
 * one-level static type per node (attribute values are dyn, as in k8s). It
 * rejects what the apiserver rejects: unknown names, fields and functions,
 * operand type mismatches, a non-bool selector, and cost over the limit.
 */
#include "cel_internal.h"
#include "../arena.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* internal static types beyond enum cel_tkind: the device's maps */
enum { CK_ATTRS = CEL_T_NTYPES, CK_ATTRDOM, CK_CAPS, CK_CAPDOM };

struct ctype { unsigned char t, e; };   /* e: list elem / map value type */

struct scope_var { const char *name; size_t n; int slot; struct ctype type; };

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
    int dra;                /* DRA environment: k8s validators apply */
    const struct cel_node *exempt;  /* format()'s list: may be mixed */
};

static void cerr(struct checker *c, int kind, unsigned off, const char *fmt,
                 ...) __attribute__((format(printf, 4, 5)));
static void cerr(struct checker *c, int kind, unsigned off, const char *fmt,
                 ...)
{
    char msg[220];
    va_list ap;

    if (c->failed || (c->p->unchecked && kind == CEL_ERR_CHECK))
        return;
    c->failed = 1;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    cel_error_set(c->err, kind, c->p->expr, off, "%s", msg);
}

static struct ctype ty(int t, int e)
{
    struct ctype r;
    r.t = (unsigned char)t;
    r.e = (unsigned char)e;
    return r;
}

static int base(int t)
{
    if (t == CK_ATTRS || t == CK_ATTRDOM || t == CK_CAPS || t == CK_CAPDOM)
        return CEL_T_MAP;
    return t;
}

static const char *tname(struct ctype t)
{
    switch (t.t) {
    case CK_ATTRS: case CK_CAPS: return "map(string, map(string, dyn))";
    case CK_ATTRDOM: return "map(string, dyn)";
    case CK_CAPDOM: return "map(string, kubernetes.Quantity)";
    default: return cel_type_name(t.t);
    }
}

static int is_numeric(int t)
{
    return t == CEL_T_INT || t == CEL_T_UINT || t == CEL_T_DOUBLE;
}

/* type of a map value / list element */
static struct ctype elem_of(struct ctype t)
{
    switch (t.t) {
    case CK_ATTRS: return ty(CK_ATTRDOM, 0);
    case CK_CAPS: return ty(CK_CAPDOM, 0);
    case CK_ATTRDOM: return ty(CEL_T_DYN, 0);
    case CK_CAPDOM: return ty(CEL_T_QUANTITY, 0);
    default: return ty(t.e, 0);
    }
}

static struct ctype lit_type(const struct cel_value *v)
{
    int t = cel_value_type(v);
    if (v->kind == CEL_V_LIST || v->kind == CEL_V_MAP)
        return ty(t, CEL_T_DYN);
    return ty(t, 0);
}

/* ================= cost ================= */

struct cost { double c; double size; };     /* cost, max size (elements) */

static struct cost mkcost(double c, double size)
{
    struct cost r;
    r.c = c;
    r.size = size;
    return r;
}

/* ================= functions ================= */

static const struct cel_func *const lib_tables[] = {
    cel_lib_core, cel_lib_strings, cel_lib_lists, cel_lib_k8s, cel_lib_net,
    cel_lib_time, cel_lib_url, cel_lib_format,
};
static const size_t *const lib_sizes[] = {
    &cel_lib_core_n, &cel_lib_strings_n, &cel_lib_lists_n, &cel_lib_k8s_n,
    &cel_lib_net_n, &cel_lib_time_n, &cel_lib_url_n, &cel_lib_format_n,
};
#define NLIBS (sizeof(lib_tables) / sizeof(lib_tables[0]))

const struct cel_func *cel_func_lookup(const char *name, size_t n,
                                       int member, unsigned nargs)
{
    size_t i, j;

    for (i = 0; i < NLIBS; i++) {
        for (j = 0; j < *lib_sizes[i]; j++) {
            const struct cel_func *f = &lib_tables[i][j];
            if (strlen(f->name) != n || memcmp(f->name, name, n) != 0)
                continue;
            if (f->member != 2 && f->member != member)
                continue;
            if (nargs < f->min_args || nargs > f->max_args)
                continue;
            return f;
        }
    }
    return NULL;
}

int cel_func_exists(const char *name, size_t n)
{
    size_t i, j;

    for (i = 0; i < NLIBS; i++) {
        for (j = 0; j < *lib_sizes[i]; j++) {
            const struct cel_func *f = &lib_tables[i][j];
            if (strlen(f->name) == n && memcmp(f->name, name, n) == 0)
                return 1;
        }
    }
    return 0;
}

/* Does static type t satisfy signature letter ch?
 * letters: B bool I int U uint D double S string Y bytes L list M map
 * Q quantity V semver N number(int/uint/double) A any  O optional
 * C comparable (int uint double string bytes bool) T type */
static int sig_ok(char ch, struct ctype t)
{
    int b = base(t.t);

    if (b == CEL_T_DYN || ch == 'A')
        return 1;
    switch (ch) {
    case 'B': return b == CEL_T_BOOL;
    case 'I': return b == CEL_T_INT;
    case 'U': return b == CEL_T_UINT;
    case 'D': return b == CEL_T_DOUBLE;
    case 'S': return b == CEL_T_STRING;
    case 'Y': return b == CEL_T_BYTES;
    case 'L': return b == CEL_T_LIST;
    case 'M': return b == CEL_T_MAP;
    case 'Q': return b == CEL_T_QUANTITY;
    case 'V': return b == CEL_T_SEMVER;
    case 'P': return b == CEL_T_IP;
    case 'R': return b == CEL_T_CIDR;
    case 'W': return b == CEL_T_TIMESTAMP;
    case 'X': return b == CEL_T_DURATION;
    case 'G': return b == CEL_T_URL;
    case 'K': return b == CEL_T_FORMAT;
    case 'O': return b == CEL_T_OPT;
    case 'T': return b == CEL_T_TYPE;
    case 'N': return is_numeric(b);
    case 'C': return is_numeric(b) || b == CEL_T_STRING ||
                     b == CEL_T_BYTES || b == CEL_T_BOOL ||
                     b == CEL_T_TIMESTAMP || b == CEL_T_DURATION;
    case 'Z': return b == CEL_T_STRING || b == CEL_T_BYTES ||
                     b == CEL_T_LIST || b == CEL_T_MAP;    /* sized */
    default: return 1;
    }
}

/* A signature is a '|' separated list of alternatives, one letter per
 * argument (receiver first). "" = no check. */
static int sig_match(const char *sig, const struct ctype *args, unsigned n)
{
    const char *p = sig;

    if (!sig || !*sig)
        return 1;
    while (*p) {
        const char *q = strchr(p, '|');
        size_t len = q ? (size_t)(q - p) : strlen(p);
        unsigned i;
        int ok = 1;

        if (len >= n || (len > 0 && p[len - 1] == '*')) {
            for (i = 0; i < n && ok; i++) {
                char ch = i < len ? p[i] : 'A';
                if (ch == '*')
                    ch = p[len - 2 >= 1 ? len - 2 : 0];
                ok = sig_ok(ch, args[i]);
            }
            if (ok && (len == n || p[len - 1] == '*'))
                return 1;
        }
        if (!q)
            break;
        p = q + 1;
    }
    return 0;
}

/* ================= the walk ================= */

static struct ctype check(struct checker *c, struct cel_node *n,
                          struct cost *cost);

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

static int push_local(struct checker *c, struct cel_node *id, struct ctype t)
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
    if (c->next_slot > c->p->nslots)
        c->p->nslots = c->next_slot;
    return 0;
}

static void pop_locals(struct checker *c, int k)
{
    c->nlocals -= k;
    c->next_slot -= k;
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

static struct ctype check_ident(struct checker *c, struct cel_node *n)
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
        return ty(c->vars[g].type, 0);
    }
    t = cel_type_lookup(n->name, n->name_len);
    if (t >= 0) {
        n->kind = CEL_N_LIT;
        n->lit = cel_vtype(t);
        return ty(CEL_T_TYPE, 0);
    }
    cerr(c, CEL_ERR_CHECK, n->offset, "undeclared reference to '%.*s'",
         (int)n->name_len, n->name);
    return ty(CEL_T_ERROR, 0);
}

static struct ctype select_type(struct checker *c, struct cel_node *n,
                                struct ctype o)
{
    int b = base(o.t);

    if (o.t == CEL_T_DEVICE) {
        if (n->name_len == 6 && memcmp(n->name, "driver", 6) == 0)
            return ty(CEL_T_STRING, 0);
        if (n->name_len == 10 && memcmp(n->name, "attributes", 10) == 0)
            return ty(CK_ATTRS, 0);
        if (n->name_len == 8 && memcmp(n->name, "capacity", 8) == 0)
            return ty(CK_CAPS, 0);
        if (n->name_len == 24 &&
            memcmp(n->name, "allowMultipleAllocations", 24) == 0 &&
            c->p->env.consumable_capacity)
            return ty(CEL_T_BOOL, 0);
        cerr(c, CEL_ERR_CHECK, n->offset, "undefined field '%.*s'",
             (int)n->name_len, n->name);
        return ty(CEL_T_ERROR, 0);
    }
    if (b == CEL_T_MAP)
        return elem_of(o);
    if (b == CEL_T_DYN || b == CEL_T_OPT)
        return b == CEL_T_OPT ? ty(CEL_T_OPT, 0) : ty(CEL_T_DYN, 0);
    cerr(c, CEL_ERR_CHECK, n->offset,
         "type '%s' does not support field selection", tname(o));
    return ty(CEL_T_ERROR, 0);
}

/* Rewrites a.b.c to a qualified variable when declared. Returns 1 if done. */
static int try_qualified(struct checker *c, struct cel_node *n)
{
    char buf[256];
    size_t len;
    int g;

    if (dotted(n, buf, sizeof(buf), &len) < 0)
        return 0;
    {
        const struct cel_node *root = n;
        while (root->kind == CEL_N_SELECT)
            root = root->args[0];
        if (lookup_local(c, root->name, root->name_len))
            return 0;
    }
    g = lookup_global(c, buf, len);
    if (g < 0) {
        int t = cel_type_lookup(buf, len);
        if (t < 0)
            return 0;
        n->kind = CEL_N_LIT;
        n->lit = cel_vtype(t);
        n->nargs = 0;
        n->ctype = CEL_T_TYPE;
        return 1;
    }
    n->kind = CEL_N_IDENT;
    n->name = c->vars[g].name;
    n->name_len = len;
    n->nargs = 0;
    n->slot = c->vars[g].slot;
    n->ctype = c->vars[g].type;
    return 1;
}

static double str_size(struct ctype t)
{
    (void)t;
    return 64;      /* k8s: strings in the DRA env are at most 64 bytes */
}

static void fold_regex(struct checker *c, struct cel_node *n)
{
    const struct cel_node *pat = n->args[1];
    struct cel_regex *re;
    char msg[256];

    if (pat->kind != CEL_N_LIT || pat->lit.kind != CEL_V_STRING)
        return;
    re = cel_regex_compile(c->a, pat->lit.v.s.p, pat->lit.v.s.n,
                           c->p->env.regex_jit, msg);
    if (!re) {
        if (c->dra)
            cerr(c, CEL_ERR_CHECK, pat->offset, "%s", msg);
        return;
    }
    n->aux = re;
    {
        struct cel_regex **v = arena_grow(c->a, c->p->regexes,
                                          c->p->nregexes,
                                          c->p->nregexes + 1, sizeof(*v));
        v[c->p->nregexes++] = re;
        c->p->regexes = v;
    }
}

/* quantity("...")/semver("...") with a literal: fold into a literal. The
 * node keeps its argument in args[0] (nargs 0): the analysis reads the
 * quantity as written there. */
static void fold_ctor(struct checker *c, struct cel_node *n)
{
    const struct cel_node *arg;

    if (n->member || n->nargs < 1 || n->args[0]->kind != CEL_N_LIT ||
        n->args[0]->lit.kind != CEL_V_STRING)
        return;
    arg = n->args[0];
    if (n->name_len == 8 && memcmp(n->name, "quantity", 8) == 0 &&
        n->nargs == 1) {
        struct quantity q;
        if (quantity_parse(arg->lit.v.s.p, arg->lit.v.s.n, &q) < 0)
            return;
        n->kind = CEL_N_LIT;
        n->lit = cel_vquantity(&q);
        n->nargs = 0;
        return;
    }
    if (n->name_len == 6 && memcmp(n->name, "semver", 6) == 0) {
        struct cel_semver *sv = arena_alloc(c->a, sizeof(*sv));
        int norm = 0;
        struct cel_value v;
        if (n->nargs == 2) {
            if (n->args[1]->kind != CEL_N_LIT ||
                n->args[1]->lit.kind != CEL_V_BOOL)
                return;
            norm = n->args[1]->lit.v.b;
        }
        if (cel_semver_parse(arg->lit.v.s.p, arg->lit.v.s.n, norm, sv) < 0)
            return;
        if (sv->npre)
            sv->pre = arena_strndup(c->a, sv->pre, sv->npre);
        memset(&v, 0, sizeof(v));
        v.kind = CEL_V_SEMVER;
        v.v.sv = sv;
        n->kind = CEL_N_LIT;
        n->lit = v;
        n->nargs = 0;
    }
}

/* Functions of the Kubernetes base environment claimcheck does not
 * implement: a selector using them is not invalid, just unchecked. */
static int unsupported(const char *name, size_t n)
{
    static const char *const names[] = {
        "image", "isImage",
    };
    size_t i;

    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (strlen(names[i]) == n && memcmp(names[i], name, n) == 0)
            return 1;
    }
    return 0;
}

/* First Kubernetes minor whose DRA CEL environment has a function
 * (dra-api.md 4.2); 0 = always there. */
static int since_minor(const char *name, size_t n)
{
    static const struct { const char *name; int minor; } t[] = {
        { "semver", 31 }, { "isSemver", 31 },
        { "slice", 34 }, { "flatten", 34 }, { "lists.range", 34 },
        { "distinct", 34 }, { "sort", 34 }, { "first", 34 }, { "last", 34 },
        { "reverse", 34 },
    };
    size_t i;

    for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        if (strlen(t[i].name) == n && memcmp(t[i].name, name, n) == 0)
            return t[i].minor;
    }
    return 0;
}

static int is_str_literal(const struct cel_node *n)
{
    return n->kind == CEL_N_LIT && n->lit.kind == CEL_V_STRING;
}

static struct ctype check_call(struct checker *c, struct cel_node *n,
                               struct cost *cost)
{
    struct ctype at[16];
    struct cost ac[16];
    unsigned i;
    const struct cel_func *f;
    double strcost = 0;

    /* namespaced global: optional.of(x) parses as a call on 'optional' */
    if (n->member && n->args[0]->kind == CEL_N_IDENT &&
        !lookup_local(c, n->args[0]->name, n->args[0]->name_len) &&
        lookup_global(c, n->args[0]->name, n->args[0]->name_len) < 0) {
        char buf[128];
        int l = snprintf(buf, sizeof(buf), "%.*s.%.*s",
                         (int)n->args[0]->name_len, n->args[0]->name,
                         (int)n->name_len, n->name);
        if (l > 0 && (size_t)l < sizeof(buf) &&
            (cel_func_exists(buf, (size_t)l) ||
             unsupported(buf, (size_t)l))) {
            n->name = arena_strndup(c->a, buf, (size_t)l);
            n->name_len = (size_t)l;
            n->member = 0;
            n->args++;
            n->nargs--;
        }
    }
    if (n->nargs > 16) {
        cerr(c, CEL_ERR_CHECK, n->offset, "too many arguments");
        return ty(CEL_T_ERROR, 0);
    }
    if (n->name_len == 6 && memcmp(n->name, "format", 6) == 0 &&
        n->nargs == 2)
        c->exempt = n->args[1];
    for (i = 0; i < n->nargs; i++) {
        ac[i] = mkcost(0, 0);
        at[i] = check(c, n->args[i], &ac[i]);
        if (c->failed)
            return ty(CEL_T_ERROR, 0);
        cost->c += ac[i].c;
    }
    f = cel_func_lookup(n->name, n->name_len, n->member, n->nargs);
    if (!f && unsupported(n->name, n->name_len)) {
        cerr(c, CEL_ERR_UNSUPPORTED, n->offset, "function '%.*s' is part of "
             "the Kubernetes CEL environment but not supported by "
             "claimcheck", (int)n->name_len, n->name);
        return ty(CEL_T_ERROR, 0);
    }
    if (!f) {
        if (cel_func_exists(n->name, n->name_len))
            cerr(c, CEL_ERR_CHECK, n->offset,
                 "found no matching overload for '%.*s' applied to %d "
                 "argument%s", (int)n->name_len, n->name, (int)n->nargs,
                 n->nargs == 1 ? "" : "s");
        else
            cerr(c, CEL_ERR_CHECK, n->offset, "undeclared reference to '%.*s'",
                 (int)n->name_len, n->name);
        return ty(CEL_T_ERROR, 0);
    }
    if (!sig_match(f->sig, at, n->nargs)) {
        char buf[160];
        size_t l = 0;
        for (i = 0; i < n->nargs && l < sizeof(buf) - 40; i++)
            l += (size_t)snprintf(buf + l, sizeof(buf) - l, "%s%s",
                                  i ? ", " : "", tname(at[i]));
        buf[l < sizeof(buf) ? l : sizeof(buf) - 1] = 0;
        cerr(c, CEL_ERR_CHECK, n->offset,
             "found no matching overload for '%.*s' applied to '(%s)'",
             (int)n->name_len, n->name, buf);
        if (c->failed)
            return ty(CEL_T_ERROR, 0);
    }
    if (!c->p->env.list_attributes && c->dra &&
        n->name_len == 8 && memcmp(n->name, "includes", 8) == 0) {
        cerr(c, CEL_ERR_CHECK, n->offset, "undeclared reference to "
             "'includes' (requires the DRAListTypeAttributes feature)");
        return ty(CEL_T_ERROR, 0);
    }
    if (c->dra) {
        int since = since_minor(n->name, n->name_len);
        if (c->p->kube_minor && since > c->p->kube_minor) {
            cerr(c, CEL_ERR_CHECK, n->offset, "undeclared reference to "
                 "'%.*s' (available from Kubernetes 1.%d, target is 1.%d)",
                 (int)n->name_len, n->name, since, c->p->kube_minor);
            return ty(CEL_T_ERROR, 0);
        }
        if (n->name_len == 7 && memcmp(n->name, "reverse", 7) == 0 &&
            n->nargs == 1 && base(at[0].t) == CEL_T_STRING) {
            /* ext strings v3 only; Kubernetes has v2 */
            cerr(c, CEL_ERR_CHECK, n->offset, "found no matching overload "
                 "for 'reverse' applied to '(string)'");
            return ty(CEL_T_ERROR, 0);
        }
    }
    n->fn = f;
    if (c->dra && !n->member && n->nargs == 1 && is_str_literal(n->args[0]) &&
        ((n->name_len == 9 && memcmp(n->name, "timestamp", 9) == 0) ||
         (n->name_len == 8 && memcmp(n->name, "duration", 8) == 0))) {
        /* Kubernetes validates these literals at compile time */
        struct cel_eval ev;
        struct cel_scratch sc;
        struct cel_value v;
        memset(&ev, 0, sizeof(ev));
        cel_scratch_init(&sc);
        ev.scratch = &sc;
        ev.p = c->p;
        v = f->impl(&ev, n, &n->args[0]->lit, 1);
        if (v.kind == CEL_V_ERROR)
            cerr(c, CEL_ERR_CHECK, n->args[0]->offset, "%.*s",
                 (int)v.v.s.n, v.v.s.p);
        cel_scratch_release(&sc);
        if (c->failed)
            return ty(CEL_T_ERROR, 0);
    }
    /* string functions cost in proportion to their inputs */
    for (i = 0; i < n->nargs; i++) {
        if (base(at[i].t) == CEL_T_STRING || base(at[i].t) == CEL_T_DYN)
            strcost += (n->args[i]->kind == CEL_N_LIT &&
                        n->args[i]->lit.kind == CEL_V_STRING)
                       ? (double)n->args[i]->lit.v.s.n : str_size(at[i]);
        if (base(at[i].t) == CEL_T_LIST)
            strcost += ac[i].size;
    }
    cost->c += 1 + strcost * 0.1;
    if ((n->name_len == 7 && memcmp(n->name, "matches", 7) == 0) ||
        (n->name_len == 4 && memcmp(n->name, "find", 4) == 0) ||
        (n->name_len == 7 && memcmp(n->name, "findAll", 7) == 0)) {
        if (n->nargs >= 2)
            fold_regex(c, n);
        cost->c += strcost;
    }
    cost->size = ac[0].size > 0 ? ac[0].size : 16;
    fold_ctor(c, n);
    if (f->ret == CEL_T_LIST && n->nargs > 0 && base(at[0].t) == CEL_T_LIST)
        return ty(CEL_T_LIST, at[0].e);
    return ty(f->ret, CEL_T_DYN);
}

static int compat_eq(struct ctype a, struct ctype b)
{
    int x = base(a.t), y = base(b.t);

    if (x == CEL_T_DYN || y == CEL_T_DYN || x == y)
        return 1;
    if (is_numeric(x) && is_numeric(y))
        return 1;
    if (x == CEL_T_NULL || y == CEL_T_NULL)
        return 1;
    return 0;
}

static struct ctype check_binop(struct checker *c, struct cel_node *n,
                                struct ctype l, struct ctype r,
                                struct cost *cost, struct cost *rc)
{
    static const char *const names[] = { "_==_", "_!=_", "_<_", "_<=_",
                                         "_>_", "_>=_", "@in", "_+_", "_-_",
                                         "_*_", "_/_", "_%_" };
    int x = base(l.t), y = base(r.t);
    int any = x == CEL_T_DYN || y == CEL_T_DYN;

    switch (n->op) {
    case CEL_OP_EQ:
    case CEL_OP_NE:
        if (!compat_eq(l, r))
            goto bad;
        return ty(CEL_T_BOOL, 0);
    case CEL_OP_LT: case CEL_OP_LE: case CEL_OP_GT: case CEL_OP_GE:
        if (any) {
            int k = x == CEL_T_DYN ? y : x;
            if (k != CEL_T_DYN && !sig_ok('C', ty(k, 0)))
                goto bad;
            return ty(CEL_T_BOOL, 0);
        }
        if ((is_numeric(x) && is_numeric(y)) ||
            (x == y && sig_ok('C', l)))
            return ty(CEL_T_BOOL, 0);
        goto bad;
    case CEL_OP_IN:
        if (y != CEL_T_DYN && y != CEL_T_LIST && y != CEL_T_MAP)
            goto bad;
        cost->c += rc->size > 0 ? rc->size : 1;
        return ty(CEL_T_BOOL, 0);
    default:
        if (any) {
            int k = x == CEL_T_DYN ? y : x;
            if (k != CEL_T_DYN && !(is_numeric(k) ||
                k == CEL_T_TIMESTAMP || k == CEL_T_DURATION ||
                (n->op == CEL_OP_ADD && (k == CEL_T_STRING ||
                 k == CEL_T_BYTES || k == CEL_T_LIST))))
                goto bad;
            if (k == CEL_T_TIMESTAMP || k == CEL_T_DURATION)
                return ty(CEL_T_DYN, 0);
            return ty(k, k == CEL_T_LIST ? CEL_T_DYN : 0);
        }
        if ((n->op == CEL_OP_ADD || n->op == CEL_OP_SUB) &&
            (x == CEL_T_TIMESTAMP || x == CEL_T_DURATION) &&
            (y == CEL_T_TIMESTAMP || y == CEL_T_DURATION)) {
            if (n->op == CEL_OP_ADD && x == CEL_T_TIMESTAMP &&
                y == CEL_T_TIMESTAMP)
                goto bad;
            if (n->op == CEL_OP_SUB && x == CEL_T_DURATION &&
                y == CEL_T_TIMESTAMP)
                goto bad;
            return ty(x == y ? CEL_T_DURATION : CEL_T_TIMESTAMP, 0);
        }
        if (x != y)
            goto bad;
        if (is_numeric(x) && !(x == CEL_T_DOUBLE && n->op == CEL_OP_MOD))
            return ty(x, 0);
        if (n->op == CEL_OP_ADD && (x == CEL_T_STRING || x == CEL_T_BYTES))
            return ty(x, 0);
        if (n->op == CEL_OP_ADD && x == CEL_T_LIST)
            return ty(x, l.e == r.e ? l.e : CEL_T_DYN);
        goto bad;
    }
bad:
    cerr(c, CEL_ERR_CHECK, n->offset,
         "found no matching overload for '%s' applied to '(%s, %s)'",
         names[n->op], tname(l), tname(r));
    return ty(CEL_T_ERROR, 0);
}

static void need_bool(struct checker *c, const struct cel_node *n,
                      struct ctype t, const char *what)
{
    int b = base(t.t);
    if (b != CEL_T_BOOL && b != CEL_T_DYN && b != CEL_T_ERROR)
        cerr(c, CEL_ERR_CHECK, n->offset,
             "found no matching overload for '%s' applied to '(%s)'", what,
             tname(t));
}

static struct ctype check_compr(struct checker *c, struct cel_node *n,
                                struct cost *cost)
{
    struct cost rc = mkcost(0, 0), bc = mkcost(0, 0), bc2 = mkcost(0, 0);
    struct ctype r = check(c, n->args[0], &rc), kt, vt, t1, t2 = ty(0, 0);
    int b = base(r.t), pushed = 0, m = n->op;
    double size;

    if (c->failed)
        return r;
    if (c->dra && c->p->kube_minor) {
        int since = n->args[2] ? 32 : (m == CEL_M_SORTBY ? 34 : 0);
        if (since > c->p->kube_minor) {
            cerr(c, CEL_ERR_CHECK, n->offset, "%s is not available before "
                 "Kubernetes 1.%d (target is 1.%d)",
                 n->args[2] ? "a two-variable comprehension" : "sortBy()",
                 since, c->p->kube_minor);
            return ty(CEL_T_ERROR, 0);
        }
    }
    if (m == CEL_M_OPTMAP || m == CEL_M_OPTFLATMAP) {
        if (b != CEL_T_OPT && b != CEL_T_DYN) {
            cerr(c, CEL_ERR_CHECK, n->offset, "found no matching overload "
                 "for 'optMap' applied to '(%s)'", tname(r));
            return ty(CEL_T_ERROR, 0);
        }
        if (push_local(c, n->args[1], ty(CEL_T_DYN, 0)) < 0)
            return ty(CEL_T_ERROR, 0);
        t1 = check(c, n->args[3], &bc);
        pop_locals(c, 1);
        cost->c += rc.c + bc.c + 1;
        return ty(CEL_T_OPT, 0);
    }
    if (b != CEL_T_LIST && b != CEL_T_MAP && b != CEL_T_DYN) {
        cerr(c, CEL_ERR_CHECK, n->args[0]->offset,
             "expression of type '%s' cannot be the range of a "
             "comprehension", tname(r));
        return ty(CEL_T_ERROR, 0);
    }
    if (b == CEL_T_LIST) {
        kt = ty(CEL_T_INT, 0);
        vt = elem_of(r);
    } else if (b == CEL_T_MAP) {
        kt = ty(CEL_T_STRING, 0);
        if (r.t == CEL_T_MAP)
            kt = ty(CEL_T_DYN, 0);
        vt = elem_of(r);
    } else {
        kt = ty(CEL_T_DYN, 0);
        vt = ty(CEL_T_DYN, 0);
    }
    if (n->args[2]) {
        if (push_local(c, n->args[1], kt) < 0 ||
            push_local(c, n->args[2], vt) < 0)
            return ty(CEL_T_ERROR, 0);
        pushed = 2;
    } else {
        if (push_local(c, n->args[1], b == CEL_T_LIST ? vt : kt) < 0)
            return ty(CEL_T_ERROR, 0);
        pushed = 1;
    }
    t1 = check(c, n->args[3], &bc);
    if (n->args[4])
        t2 = check(c, n->args[4], &bc2);
    pop_locals(c, pushed);
    if (c->failed)
        return ty(CEL_T_ERROR, 0);
    size = rc.size > 0 ? rc.size : 32;
    cost->c += rc.c + size * (bc.c + bc2.c + 2);
    cost->size = size;
    switch (m) {
    case CEL_M_ALL: case CEL_M_EXISTS: case CEL_M_EXISTS_ONE:
    case CEL_M_ALL2: case CEL_M_EXISTS2: case CEL_M_EXISTS_ONE2:
        need_bool(c, n->args[3], t1, "@not_strictly_false");
        return ty(CEL_T_BOOL, 0);
    case CEL_M_FILTER:
        need_bool(c, n->args[3], t1, "@not_strictly_false");
        return b == CEL_T_LIST ? r : ty(CEL_T_LIST, kt.t);
    case CEL_M_MAP: case CEL_M_TLIST:
        return ty(CEL_T_LIST, t1.t < CEL_T_NTYPES ? t1.t : CEL_T_DYN);
    case CEL_M_SORTBY:
        if (b != CEL_T_LIST && b != CEL_T_DYN)
            cerr(c, CEL_ERR_CHECK, n->offset, "found no matching overload "
                 "for 'sortBy' applied to '(%s)'", tname(r));
        return b == CEL_T_LIST ? r : ty(CEL_T_LIST, CEL_T_DYN);
    case CEL_M_MAP_FILTER: case CEL_M_TLIST_FILTER:
        need_bool(c, n->args[3], t1, "@not_strictly_false");
        return ty(CEL_T_LIST, t2.t < CEL_T_NTYPES ? t2.t : CEL_T_DYN);
    case CEL_M_TMAP:
        return ty(CEL_T_MAP, t1.t < CEL_T_NTYPES ? t1.t : CEL_T_DYN);
    default:
        need_bool(c, n->args[3], t1, "@not_strictly_false");
        return ty(CEL_T_MAP, t2.t < CEL_T_NTYPES ? t2.t : CEL_T_DYN);
    }
}

static struct ctype check(struct checker *c, struct cel_node *n,
                          struct cost *cost)
{
    struct ctype t = ty(CEL_T_DYN, 0), a, b;
    struct cost ca = mkcost(0, 0), cb = mkcost(0, 0), cc = mkcost(0, 0);
    unsigned i;

    if (c->failed)
        return ty(CEL_T_ERROR, 0);
    switch (n->kind) {
    case CEL_N_LIT:
        t = lit_type(&n->lit);
        if (n->lit.kind == CEL_V_STRING || n->lit.kind == CEL_V_BYTES)
            cost->size = (double)n->lit.v.s.n;
        break;
    case CEL_N_IDENT:
        t = check_ident(c, n);
        break;
    case CEL_N_SELECT:
        if (try_qualified(c, n)) {
            t = ty(n->ctype, 0);
            break;
        }
        /* fall through */
    case CEL_N_OPTSELECT:
        a = check(c, n->args[0], &ca);
        if (c->failed)
            break;
        t = select_type(c, n, a);
        if (n->kind == CEL_N_OPTSELECT)
            t = ty(CEL_T_OPT, 0);
        cost->c += ca.c + 1;
        cost->size = t.t == CK_ATTRS || t.t == CK_CAPS || t.t == CK_ATTRDOM ||
                     t.t == CK_CAPDOM ? 32 : (t.t == CEL_T_DYN ? 48 : 64);
        break;
    case CEL_N_HAS:
        a = check(c, n->args[0], &ca);
        if (c->failed)
            break;
        if (base(a.t) != CEL_T_MAP && a.t != CEL_T_DYN &&
            a.t != CEL_T_DEVICE && a.t != CEL_T_OPT) {
            cerr(c, CEL_ERR_CHECK, n->offset, "invalid type for field "
                 "selection: '%s'", tname(a));
            break;
        }
        if (a.t == CEL_T_DEVICE)
            (void)select_type(c, n, a);
        cost->c += ca.c + 1;
        t = ty(CEL_T_BOOL, 0);
        break;
    case CEL_N_INDEX:
    case CEL_N_OPTINDEX:
        a = check(c, n->args[0], &ca);
        b = check(c, n->args[1], &cb);
        if (c->failed)
            break;
        if (base(a.t) == CEL_T_LIST) {
            if (!sig_ok('N', b)) {
                cerr(c, CEL_ERR_CHECK, n->offset, "found no matching "
                     "overload for '_[_]' applied to '(%s, %s)'", tname(a),
                     tname(b));
                break;
            }
            t = elem_of(a);
        } else if (base(a.t) == CEL_T_MAP) {
            if ((a.t != CEL_T_MAP && !sig_ok('S', b)) ||
                (a.t == CEL_T_MAP && !sig_ok('C', b))) {
                cerr(c, CEL_ERR_CHECK, n->offset, "found no matching "
                     "overload for '_[_]' applied to '(%s, %s)'", tname(a),
                     tname(b));
                break;
            }
            t = elem_of(a);
        } else if (a.t == CEL_T_DYN || a.t == CEL_T_OPT) {
            t = a.t == CEL_T_OPT ? ty(CEL_T_OPT, 0) : ty(CEL_T_DYN, 0);
        } else {
            cerr(c, CEL_ERR_CHECK, n->offset, "found no matching overload "
                 "for '_[_]' applied to '(%s, %s)'", tname(a), tname(b));
            break;
        }
        if (n->kind == CEL_N_OPTINDEX)
            t = ty(CEL_T_OPT, 0);
        cost->c += ca.c + cb.c + 1;
        cost->size = t.t >= CEL_T_NTYPES ? 32 : 48;
        break;
    case CEL_N_CALL:
        t = check_call(c, n, cost);
        break;
    case CEL_N_LIST: {
        int et = -1;
        for (i = 0; i < n->nargs; i++) {
            struct cost ce = mkcost(0, 0);
            a = check(c, n->args[i], &ce);
            cost->c += ce.c;
            if (c->failed)
                break;
            if (n->opt_elems && n->optflags[i])
                a = ty(CEL_T_DYN, 0);
            if (et < 0)
                et = base(a.t);
            else if (et != base(a.t)) {
                if (c->dra && et != CEL_T_DYN && base(a.t) != CEL_T_DYN &&
                    n != c->exempt) {
                    cerr(c, CEL_ERR_CHECK, n->args[i]->offset,
                         "expected type '%s' but found '%s'",
                         cel_type_name(et), tname(a));
                    break;
                }
                et = CEL_T_DYN;
            }
        }
        cost->c += 1;
        cost->size = n->nargs;
        t = ty(CEL_T_LIST, et < 0 || et >= CEL_T_NTYPES ? CEL_T_DYN : et);
        break;
    }
    case CEL_N_MAP: {
        int vt = -1;
        for (i = 0; i + 1 < n->nargs; i += 2) {
            struct cost ce = mkcost(0, 0);
            a = check(c, n->args[i], &ce);
            b = check(c, n->args[i + 1], &ce);
            cost->c += ce.c;
            if (c->failed)
                break;
            if (!sig_ok('C', a) || base(a.t) == CEL_T_DOUBLE ||
                base(a.t) == CEL_T_BYTES) {
                cerr(c, CEL_ERR_CHECK, n->args[i]->offset,
                     "unsupported map key type '%s'", tname(a));
                break;
            }
            if (c->dra && i > 0 && !(n->opt_elems && n->optflags[i / 2])) {
                /* HomogeneousAggregateLiterals: keys and values */
                int kt0 = base(n->args[0]->ctype);
                int vt0 = base(n->args[1]->ctype);
                if ((kt0 != base(a.t) && kt0 != CEL_T_DYN &&
                     base(a.t) != CEL_T_DYN) ||
                    (vt0 != base(b.t) && vt0 != CEL_T_DYN &&
                     base(b.t) != CEL_T_DYN && !(n->opt_elems &&
                                                 n->optflags[0]))) {
                    cerr(c, CEL_ERR_CHECK, n->args[i]->offset,
                         "expected type '%s: %s' but found '%s: %s'",
                         cel_type_name(kt0), cel_type_name(vt0), tname(a),
                         tname(b));
                    break;
                }
            }
            if (vt < 0)
                vt = base(b.t);
            else if (vt != base(b.t))
                vt = CEL_T_DYN;
        }
        cost->c += 1;
        cost->size = n->nargs / 2;
        t = ty(CEL_T_MAP, vt < 0 || vt >= CEL_T_NTYPES ? CEL_T_DYN : vt);
        break;
    }
    case CEL_N_AND:
    case CEL_N_OR:
        a = check(c, n->args[0], &ca);
        b = check(c, n->args[1], &cb);
        need_bool(c, n, a, n->kind == CEL_N_AND ? "_&&_" : "_||_");
        need_bool(c, n, b, n->kind == CEL_N_AND ? "_&&_" : "_||_");
        cost->c += ca.c + cb.c;
        t = ty(CEL_T_BOOL, 0);
        break;
    case CEL_N_COND:
        a = check(c, n->args[0], &ca);
        need_bool(c, n, a, "_?_:_");
        t = check(c, n->args[1], &cb);
        b = check(c, n->args[2], &cc);
        cost->c += ca.c + (cb.c > cc.c ? cb.c : cc.c);
        cost->size = cb.size > cc.size ? cb.size : cc.size;
        if (t.t != b.t)
            t = ty(CEL_T_DYN, 0);
        break;
    case CEL_N_NOT:
        a = check(c, n->args[0], &ca);
        need_bool(c, n, a, "!_");
        cost->c += ca.c + 1;
        t = ty(CEL_T_BOOL, 0);
        break;
    case CEL_N_NEG:
        a = check(c, n->args[0], &ca);
        if (!c->failed && base(a.t) != CEL_T_INT &&
            base(a.t) != CEL_T_DOUBLE && base(a.t) != CEL_T_DYN)
            cerr(c, CEL_ERR_CHECK, n->offset, "found no matching overload "
                 "for '-_' applied to '(%s)'", tname(a));
        cost->c += ca.c + 1;
        t = a;
        break;
    case CEL_N_BINOP:
        a = check(c, n->args[0], &ca);
        b = check(c, n->args[1], &cb);
        if (c->failed)
            break;
        cost->c += ca.c + cb.c + 1;
        t = check_binop(c, n, a, b, cost, &cb);
        if (n->op == CEL_OP_ADD)
            cost->size = ca.size + cb.size;
        break;
    case CEL_N_COMPR:
        t = check_compr(c, n, cost);
        break;
    case CEL_N_BIND:
        a = check(c, n->args[1], &ca);
        if (c->failed || push_local(c, n->args[0], a) < 0)
            break;
        t = check(c, n->args[2], &cb);
        pop_locals(c, 1);
        cost->c += ca.c + cb.c;
        cost->size = cb.size;
        break;
    default:
        break;
    }
    n->ctype = (unsigned char)(t.t < CEL_T_NTYPES ? t.t : CEL_T_MAP);
    n->celem = t.e;
    return t;
}

int cel_check(struct arena *a, struct cel_program *p,
              const struct cel_var *vars, size_t nvars, int want_bool,
              struct cel_error *err)
{
    struct checker c;
    struct cost cost = mkcost(0, 0);
    struct ctype t;

    memset(&c, 0, sizeof(c));
    c.p = p;
    c.a = a;
    c.err = err;
    c.vars = vars;
    c.nvars = nvars;
    c.next_slot = (int)nvars;
    c.dra = !p->general;
    p->nslots = (int)nvars;
    t = check(&c, p->root, &cost);
    if (c.failed)
        return -1;
    p->cost = cost.c;
    if (want_bool && base(t.t) != CEL_T_BOOL && t.t != CEL_T_DYN) {
        cel_error_set(err, CEL_ERR_CHECK, p->expr, p->root->offset,
                      "must evaluate to bool, got '%s'", tname(t));
        return -1;
    }
    if (c.dra && cost.c > CEL_MAX_COST) {
        cel_error_set(err, CEL_ERR_LIMIT, p->expr, 0,
                      "too complex, exceeds cost limit (estimated cost "
                      "%.0f, limit %d)", cost.c, CEL_MAX_COST);
        return -1;
    }
    return 0;
}
