/*
 * analysis.c - static facts about compiled selectors for the selector rules:
 * the driver a selector pins, the attribute/capacity domains it looks up,
 * and proofs that a conjunction of selectors can never match any device.
 * Proofs are conservative: only top-level conjuncts (through parentheses,
 * && and cel.bind) of recognised shapes are used, each compared against a
 * constant; anything else is ignored, so "no proof" is the safe answer.
 */
#include "cel_internal.h"
#include "../arena.h"
#include "lex.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../xalloc.h"

/* ================= helpers ================= */

struct alias { const struct cel_node *var, *init; };
struct aliases {
    struct alias v[16];
    int n;
    int by_name;                /* a tree that was only parsed: variables
                                   have names, not slots */
};

static int same_var(const struct aliases *al, const struct cel_node *a,
                    const struct cel_node *b)
{
    if (al->by_name)
        return a->name_len == b->name_len &&
               memcmp(a->name, b->name, a->name_len) == 0;
    return a->slot == b->slot;
}

static const struct cel_node *resolve(const struct aliases *al,
                                      const struct cel_node *n)
{
    int i;

    while (n && n->kind == CEL_N_IDENT) {
        const struct cel_node *to = NULL;
        for (i = 0; al && i < al->n; i++) {
            if (same_var(al, al->v[i].var, n))
                to = al->v[i].init;
        }
        if (!to)
            break;
        n = to;
    }
    return n;
}

static int name_is(const struct cel_node *n, const char *s);

static int is_device(const struct cel_program *p, const struct aliases *al,
                     const struct cel_node *n)
{
    n = resolve(al, n);
    if (!n || n->kind != CEL_N_IDENT)
        return 0;
    if (p->parsed_only)
        return name_is(n, "device");
    return p->device_slot >= 0 && n->slot == p->device_slot;
}

static int name_is(const struct cel_node *n, const char *s)
{
    return n->name && n->name_len == strlen(s) &&
           memcmp(n->name, s, n->name_len) == 0;
}

/* device.attributes / device.capacity: 0 attrs, 1 caps, -1 neither */
static int dev_map(const struct cel_program *p, const struct aliases *al,
                   const struct cel_node *n)
{
    n = resolve(al, n);
    if (!n || n->kind != CEL_N_SELECT || !is_device(p, al, n->args[0]))
        return -1;
    if (name_is(n, "attributes"))
        return 0;
    if (name_is(n, "capacity"))
        return 1;
    return -1;
}

static int is_driver(const struct cel_program *p, const struct aliases *al,
                     const struct cel_node *n)
{
    n = resolve(al, n);
    return n && n->kind == CEL_N_SELECT && name_is(n, "driver") &&
           is_device(p, al, n->args[0]);
}

static int is_str_lit(const struct cel_node *n)
{
    return n && n->kind == CEL_N_LIT && n->lit.kind == CEL_V_STRING;
}

static unsigned min_offset(const struct cel_node *n, int depth)
{
    unsigned m = n->offset, i;

    if (depth > 64)
        return m;
    for (i = 0; i < n->nargs; i++) {
        if (n->args[i]) {
            unsigned c = min_offset(n->args[i], depth + 1);
            if (c < m)
                m = c;
        }
    }
    return m;
}

/* Calls fn on every top-level conjunct (through && and cel.bind). */
static void conjuncts(const struct cel_node *n, struct aliases *al,
                      void (*fn)(void *ctx, const struct cel_node *c,
                                 const struct aliases *al), void *ctx,
                      int depth)
{
    if (!n || depth > 200)
        return;
    if (n->kind == CEL_N_AND) {
        conjuncts(n->args[0], al, fn, ctx, depth + 1);
        conjuncts(n->args[1], al, fn, ctx, depth + 1);
        return;
    }
    if (n->kind == CEL_N_BIND) {
        int saved = al->n;
        if (al->n < 16) {
            al->v[al->n].var = n->args[0];
            al->v[al->n].init = n->args[1];
            al->n++;
        }
        conjuncts(n->args[2], al, fn, ctx, depth + 1);
        al->n = saved;
        return;
    }
    fn(ctx, n, al);
}

/* ================= pinned driver ================= */

struct pin_ctx { const struct cel_program *p; const char *driver; };

static const char *driver_eq(const struct cel_program *p,
                             const struct aliases *al,
                             const struct cel_node *c)
{
    if (c->kind != CEL_N_BINOP)
        return NULL;
    if (c->op == CEL_OP_EQ) {
        if (is_driver(p, al, c->args[0]) && is_str_lit(c->args[1]))
            return c->args[1]->lit.v.s.p;
        if (is_driver(p, al, c->args[1]) && is_str_lit(c->args[0]))
            return c->args[0]->lit.v.s.p;
    }
    if (c->op == CEL_OP_IN && is_driver(p, al, c->args[0]) &&
        c->args[1]->kind == CEL_N_LIST && c->args[1]->nargs == 1 &&
        !c->args[1]->opt_elems && is_str_lit(c->args[1]->args[0]))
        return c->args[1]->args[0]->lit.v.s.p;
    return NULL;
}

static void pin_fn(void *ctx, const struct cel_node *c,
                   const struct aliases *al)
{
    struct pin_ctx *pc = ctx;
    const char *d;

    if (pc->driver)
        return;
    d = driver_eq(pc->p, al, c);
    if (d)
        pc->driver = d;
}

const char *cel_pinned_driver(const struct cel_program *p)
{
    struct pin_ctx pc;
    struct aliases al;

    pc.p = p;
    pc.driver = NULL;
    al.n = 0;
    al.by_name = p->parsed_only;
    conjuncts(p->root, &al, pin_fn, &pc, 0);
    return pc.driver;
}

const char *cel_pinned_driver_parsed(struct arena *a, const char *expr,
                                     size_t len)
{
    struct cel_program *p;
    struct cel_error err;

    if (len > CEL_MAX_EXPR_BYTES)
        return NULL;
    p = arena_alloc(a, sizeof(*p));
    p->expr = arena_strndup(a, expr, len);
    p->len = len;
    p->device_slot = -1;
    p->parsed_only = 1;
    p->root = cel_parse(a, p->expr, len, &err);
    return p->root ? cel_pinned_driver(p) : NULL;
}

/* ================= domains ================= */

static void walk_domains(const struct cel_program *p, const struct cel_node *n,
                         void (*fn)(void *, const char *, int, unsigned),
                         void *ctx, int depth)
{
    unsigned i;

    if (!n || depth > CEL_MAX_NODE_DEPTH + 8)
        return;
    if ((n->kind == CEL_N_INDEX || n->kind == CEL_N_OPTINDEX) &&
        is_str_lit(n->args[1])) {
        int m = dev_map(p, NULL, n->args[0]);
        if (m >= 0)
            fn(ctx, n->args[1]->lit.v.s.p, m, n->args[1]->offset);
    }
    for (i = 0; i < n->nargs; i++)
        walk_domains(p, n->args[i], fn, ctx, depth + 1);
}

void cel_foreach_domain(const struct cel_program *p,
                        void (*fn)(void *ctx, const char *domain,
                                   int is_capacity, unsigned offset),
                        void *ctx)
{
    walk_domains(p, p->root, fn, ctx, 0);
}

/* ================= unsatisfiability ================= */

enum { K_NUM, K_STR, K_BOOL, K_QTY, K_VER };

/* atom ops beyond enum cel_binop: string prefix / suffix constraints */
enum { OP_STARTS = 100, OP_ENDS };

struct field {                  /* the device field an atom reads */
    int what;                   /* CEL_REF_* */
    const char *dom, *id;       /* ATTR/CAP: program-owned, not NUL- */
    size_t domn, idn;           /* terminated */
};

struct atom {
    char path[300];             /* "device.driver", "device.attributes..." */
    struct field f;
    int op;                     /* CEL_OP_EQ NE LT LE GT GE IN */
    int vk;                     /* value class K_* */
    struct cel_value val;
    const struct cel_node *valnode; /* the constant's node, or NULL */
    const struct cel_node *list;    /* IN: the list literal */
    size_t prog;
    unsigned offset;
};

#define MAX_ATOMS 256

/* a conjunct that reads exactly one device field (any shape) */
struct cref {
    const struct cel_node *node;
    const struct cel_program *p;
    size_t prog;
    unsigned offset;
    int what;                   /* CEL_REF_* */
    char path[300], dom[128], id[128];
};
#define MAX_CREFS 128

#define MAX_CONJ 256

struct unsat_ctx {
    struct { const struct cel_node *node; size_t prog; unsigned offset; }
        conj[MAX_CONJ];         /* top-level conjuncts outside cel.bind */
    size_t nconj;
    const char *const *labels;  /* per program, or NULL: "selector N" */
    const struct cel_program *p;
    size_t prog;
    struct atom atoms[MAX_ATOMS];
    size_t n;
    struct cref crefs[MAX_CREFS];
    size_t ncref;
    int const_false;            /* a conjunct folds to false */
    unsigned cf_offset;
    size_t cf_prog;
};

static int value_class(const struct cel_value *v)
{
    switch (v->kind) {
    case CEL_V_INT: case CEL_V_UINT: case CEL_V_DOUBLE: return K_NUM;
    case CEL_V_STRING: return K_STR;
    case CEL_V_BOOL: return K_BOOL;
    case CEL_V_QUANTITY: return K_QTY;
    case CEL_V_SEMVER: return K_VER;
    default: return -1;
    }
}

/* Renders the attribute path of n into buf and the field into *f; 0, or
 * -1 if n is not one. */
static int attr_path(const struct cel_program *p, const struct aliases *al,
                     const struct cel_node *n, char *buf, size_t sz,
                     struct field *f)
{
    const struct cel_node *dom;
    const char *id;
    size_t idn;
    int m;

    n = resolve(al, n);
    if (!n)
        return -1;
    memset(f, 0, sizeof(*f));
    if (is_driver(p, al, n)) {
        snprintf(buf, sz, "device.driver");
        f->what = CEL_REF_DRIVER;
        return 0;
    }
    if (n->kind == CEL_N_SELECT) {
        id = n->name;
        idn = n->name_len;
    } else if (n->kind == CEL_N_INDEX && is_str_lit(n->args[1])) {
        id = n->args[1]->lit.v.s.p;
        idn = n->args[1]->lit.v.s.n;
    } else {
        return -1;
    }
    dom = resolve(al, n->args[0]);
    if (!dom || dom->kind != CEL_N_INDEX || !is_str_lit(dom->args[1]))
        return -1;
    m = dev_map(p, al, dom->args[0]);
    if (m < 0)
        return -1;
    snprintf(buf, sz, "device.%s[\"%s\"].%.*s", m ? "capacity" : "attributes",
             dom->args[1]->lit.v.s.p, (int)idn, id);
    f->what = m ? CEL_REF_CAP : CEL_REF_ATTR;
    f->dom = dom->args[1]->lit.v.s.p;
    f->domn = dom->args[1]->lit.v.s.n;
    f->id = id;
    f->idn = idn;
    return 0;
}

static int flip(int op)
{
    switch (op) {
    case CEL_OP_LT: return CEL_OP_GT;
    case CEL_OP_LE: return CEL_OP_GE;
    case CEL_OP_GT: return CEL_OP_LT;
    case CEL_OP_GE: return CEL_OP_LE;
    default: return op;
    }
}

static int negate(int op)
{
    switch (op) {
    case CEL_OP_EQ: return CEL_OP_NE;
    case CEL_OP_NE: return CEL_OP_EQ;
    case CEL_OP_LT: return CEL_OP_GE;
    case CEL_OP_LE: return CEL_OP_GT;
    case CEL_OP_GT: return CEL_OP_LE;
    case CEL_OP_GE: return CEL_OP_LT;
    default: return -1;
    }
}

/* v: the constant (NULL for IN), vn: its node if it has one */
static void add_atom(struct unsat_ctx *u, const char *path,
                     const struct field *f, int op, const struct cel_value *v,
                     const struct cel_node *vn, const struct cel_node *list,
                     unsigned off)
{
    struct atom *a;

    if (u->n >= MAX_ATOMS)
        return;
    a = &u->atoms[u->n++];
    memset(a, 0, sizeof(*a));
    snprintf(a->path, sizeof(a->path), "%s", path);
    a->f = *f;
    a->op = op;
    a->list = list;
    a->valnode = vn;
    if (v) {
        a->val = *v;
        a->vk = value_class(v);
    } else {
        a->vk = -1;
    }
    a->prog = u->prog;
    a->offset = off;
}

/* x.compareTo(C) op K, x.isGreaterThan(C), x.isLessThan(C) */
static int cmp_call(const struct cel_node *c, const struct cel_node **x,
                    const struct cel_node **cv)
{
    if (c->kind != CEL_N_CALL || !c->member || c->nargs != 2 ||
        c->args[1]->kind != CEL_N_LIT)
        return -1;
    *x = c->args[0];
    *cv = c->args[1];
    if (name_is(c, "isGreaterThan"))
        return CEL_OP_GT;
    if (name_is(c, "isLessThan"))
        return CEL_OP_LT;
    if (name_is(c, "compareTo"))
        return 100;
    return -1;
}

static int has_ident(const struct cel_node *n, int depth)
{
    unsigned i;

    if (!n || depth > 200)
        return 1;
    if (n->kind == CEL_N_IDENT || n->kind == CEL_N_COMPR ||
        n->kind == CEL_N_BIND)
        return 1;
    for (i = 0; i < n->nargs; i++) {
        if (n->args[i] && has_ident(n->args[i], depth + 1))
            return 1;
    }
    return 0;
}

static void atom_of(struct unsat_ctx *u, const struct cel_node *c,
                    const struct aliases *al, int neg)
{
    char path[300];
    struct field f;
    const struct cel_node *x, *cv;
    unsigned off;
    int op, cop;

    /* a chain of '!' is a loop, not a recursion: each frame of this
     * function is large and a selector may hold ~1000 negations */
    while (c->kind == CEL_N_NOT) {
        c = c->args[0];
        neg = !neg;
    }
    off = min_offset(c, 0);
    if (!has_ident(c, 0)) {
        /* device-free: fold it */
        struct cel_eval ev;
        struct cel_scratch sc;
        struct cel_value v;
        memset(&ev, 0, sizeof(ev));
        cel_scratch_init(&sc);
        ev.p = u->p;
        ev.scratch = &sc;
        v = cel_eval_node(&ev, c);
        if (v.kind == CEL_V_BOOL && v.v.b == neg && !u->const_false) {
            u->const_false = 1;
            u->cf_offset = off;
            u->cf_prog = u->prog;
        }
        cel_scratch_release(&sc);
        return;
    }
    /* a bare boolean attribute */
    if (attr_path(u->p, al, c, path, sizeof(path), &f) == 0) {
        struct cel_value b = cel_vbool(!neg);
        add_atom(u, path, &f, CEL_OP_EQ, &b, NULL, NULL, off);
        return;
    }
    /* x.startsWith('p') / x.endsWith('s') */
    if (!neg && c->kind == CEL_N_CALL && c->member && c->nargs == 2 &&
        (name_is(c, "startsWith") || name_is(c, "endsWith")) &&
        is_str_lit(c->args[1]) &&
        attr_path(u->p, al, c->args[0], path, sizeof(path), &f) == 0) {
        add_atom(u, path, &f, name_is(c, "startsWith") ? OP_STARTS : OP_ENDS,
                 &c->args[1]->lit, c->args[1], NULL, off);
        return;
    }
    /* x.isGreaterThan(C) / x.isLessThan(C) */
    op = cmp_call(c, &x, &cv);
    if ((op == CEL_OP_GT || op == CEL_OP_LT) &&
        attr_path(u->p, al, x, path, sizeof(path), &f) == 0) {
        add_atom(u, path, &f, neg ? negate(op) : op, &cv->lit, cv, NULL, off);
        return;
    }
    if (c->kind != CEL_N_BINOP)
        return;
    op = c->op;
    if (op == CEL_OP_IN) {
        if (!neg &&
            attr_path(u->p, al, c->args[0], path, sizeof(path), &f) == 0 &&
            c->args[1]->kind == CEL_N_LIST && !c->args[1]->opt_elems)
            add_atom(u, path, &f, CEL_OP_IN, NULL, NULL, c->args[1], off);
        return;
    }
    if (op > CEL_OP_GE)
        return;
    if (neg)
        op = negate(op);
    /* x.compareTo(C) op K */
    cop = cmp_call(c->args[0], &x, &cv);
    if (cop == 100 && c->args[1]->kind == CEL_N_LIT &&
        c->args[1]->lit.kind == CEL_V_INT &&
        attr_path(u->p, al, x, path, sizeof(path), &f) == 0) {
        int64_t k = c->args[1]->lit.v.i;
        if (k == 0) {
            add_atom(u, path, &f, op, &cv->lit, cv, NULL, off);
        } else if ((k == 1 && op == CEL_OP_EQ) || (k == -1 && op == CEL_OP_GT)
                   || (k == -1 && op == CEL_OP_NE && 0)) {
            add_atom(u, path, &f, k == 1 ? CEL_OP_GT : CEL_OP_GE, &cv->lit, cv,
                     NULL, off);
        } else if (k == -1 && op == CEL_OP_EQ) {
            add_atom(u, path, &f, CEL_OP_LT, &cv->lit, cv, NULL, off);
        } else if (k == 1 && op == CEL_OP_LT) {
            add_atom(u, path, &f, CEL_OP_LE, &cv->lit, cv, NULL, off);
        }
        return;
    }
    if (c->args[1]->kind == CEL_N_LIT &&
        attr_path(u->p, al, c->args[0], path, sizeof(path), &f) == 0) {
        add_atom(u, path, &f, op, &c->args[1]->lit, c->args[1], NULL, off);
        return;
    }
    if (c->args[0]->kind == CEL_N_LIT &&
        attr_path(u->p, al, c->args[1], path, sizeof(path), &f) == 0)
        add_atom(u, path, &f, flip(op), &c->args[0]->lit, c->args[0], NULL,
                 off);
}

static int single_ref(const struct cel_program *p, const struct cel_node *n,
                      struct cref *out);

static void unsat_fn(void *ctx, const struct cel_node *c,
                     const struct aliases *al)
{
    struct unsat_ctx *u = ctx;

    atom_of(u, c, al, 0);
    if (al->n == 0 && u->nconj < MAX_CONJ) {
        u->conj[u->nconj].node = c;
        u->conj[u->nconj].prog = u->prog;
        u->conj[u->nconj].offset = min_offset(c, 0);
        u->nconj++;
    }
    if (u->ncref < MAX_CREFS && al->n == 0 &&
        single_ref(u->p, c, &u->crefs[u->ncref]) == 0) {
        struct cref *r = &u->crefs[u->ncref++];
        r->node = c;
        r->p = u->p;
        r->prog = u->prog;
        r->offset = min_offset(c, 0);
    }
}

static int vcmp(const struct cel_value *a, const struct cel_value *b)
{
    if (a->kind == CEL_V_QUANTITY)
        return cel_quantity_cmp(a, b);
    if (a->kind == CEL_V_SEMVER)
        return cel_semver_cmp(a->v.sv, b->v.sv);
    return cel_value_compare(a, b);
}

/* does value v satisfy atom a? 1 yes, 0 no, -1 unknown */
static int sat(const struct atom *a, const struct cel_value *v)
{
    int c;
    unsigned i;

    if (a->op == CEL_OP_IN) {
        int unknown = 0;
        for (i = 0; i < a->list->nargs; i++) {
            const struct cel_node *e = a->list->args[i];
            if (e->kind != CEL_N_LIT) {
                unknown = 1;
                continue;
            }
            if (cel_value_equal(&e->lit, v) == 1)
                return 1;
        }
        return unknown ? -1 : 0;
    }
    if (a->vk < 0 || a->vk != value_class(v))
        return -1;
    if (a->op == OP_STARTS || a->op == OP_ENDS) {
        size_t pn = a->val.v.s.n;
        if (v->kind != CEL_V_STRING)
            return -1;
        if (pn > v->v.s.n)
            return 0;
        return memcmp(a->op == OP_STARTS ? v->v.s.p
                                         : v->v.s.p + v->v.s.n - pn,
                      a->val.v.s.p, pn) == 0;
    }
    c = vcmp(v, &a->val);
    if (c == 2 || c == 3)
        return -1;
    switch (a->op) {
    case CEL_OP_EQ: return c == 0;
    case CEL_OP_NE: return c != 0;
    case CEL_OP_LT: return c < 0;
    case CEL_OP_LE: return c <= 0;
    case CEL_OP_GT: return c > 0;
    case CEL_OP_GE: return c >= 0;
    default: return -1;
    }
}

static const char *label(const char *const *labels, size_t prog,
                         char *buf, size_t sz)
{
    if (labels && labels[prog])
        return labels[prog];
    snprintf(buf, sz, "selector %zu", prog + 1);
    return buf;
}

static void show(const struct cel_value *v, char *buf, size_t sz)
{
    if (v->kind == CEL_V_STRING)
        snprintf(buf, sz, "'%.*s'", (int)v->v.s.n, v->v.s.p);
    else if (cel_value_render(v, buf, sz) < 0)
        snprintf(buf, sz, "...");
}

static const char *opname(int op)
{
    static const char *const n[] = { "==", "!=", "<", "<=", ">", ">=", "in" };
    if (op == OP_STARTS)
        return "a string starting with";
    if (op == OP_ENDS)
        return "a string ending with";
    return op >= 0 && op <= CEL_OP_IN ? n[op] : "?";
}

/* Checks atoms [0, upto] of one path for a contradiction introduced by
 * atom `upto`. Returns 1 with why filled when proven. */
static int path_unsat(const char *const *lb, const struct atom *at, size_t n,
                      size_t upto, char *why, size_t whysz)
{
    const struct atom *last = &at[upto];
    size_t i, j;
    char b1[96], b2[96], l1[32], l2[32];

    /* candidates: every EQ value and IN element among the atoms; if some
     * EQ/IN constrains the path, the value must be one of them */
    for (i = 0; i <= upto; i++) {
        const struct atom *a = &at[i];
        if (strcmp(a->path, last->path) || a->op != CEL_OP_EQ || a->vk < 0)
            continue;
        for (j = 0; j <= upto; j++) {
            const struct atom *b = &at[j];
            if (j == i || strcmp(b->path, last->path))
                continue;
            if (b->op != CEL_OP_IN && b->vk != a->vk)
                continue;
            if (sat(b, &a->val) == 0) {
                show(&a->val, b1, sizeof(b1));
                if (b->op == CEL_OP_EQ) {
                    show(&b->val, b2, sizeof(b2));
                    snprintf(why, whysz, "%s must be both %s (%s) and %s "
                             "(%s)", last->path, b1,
                             label(lb, a->prog, l1, sizeof(l1)), b2,
                             label(lb, b->prog, l2, sizeof(l2)));
                } else if (b->op == CEL_OP_IN) {
                    snprintf(why, whysz, "%s must be %s (%s) but also one "
                             "of a list that does not contain it (%s)",
                             last->path, b1,
                             label(lb, a->prog, l1, sizeof(l1)),
                             label(lb, b->prog, l2, sizeof(l2)));
                } else {
                    show(&b->val, b2, sizeof(b2));
                    snprintf(why, whysz, "%s must be %s (%s) but also %s "
                             "%s (%s)", last->path, b1,
                             label(lb, a->prog, l1, sizeof(l1)),
                             opname(b->op), b2,
                             label(lb, b->prog, l2, sizeof(l2)));
                }
                return 1;
            }
        }
    }
    /* IN lists: is some element satisfying every other atom? */
    for (i = 0; i <= upto; i++) {
        const struct atom *a = &at[i];
        int any = 0, unknown = 0;
        unsigned e;
        if (strcmp(a->path, last->path) || a->op != CEL_OP_IN)
            continue;
        for (e = 0; e < a->list->nargs && !any; e++) {
            const struct cel_node *el = a->list->args[e];
            int ok = 1;
            if (el->kind != CEL_N_LIT) {
                unknown = 1;
                continue;
            }
            for (j = 0; j <= upto && ok; j++) {
                int s;
                if (j == i || strcmp(at[j].path, last->path))
                    continue;
                s = sat(&at[j], &el->lit);
                if (s < 0)
                    unknown = 1;
                ok = s != 0;
            }
            any = ok;
        }
        if (!any && !unknown) {
            snprintf(why, whysz, "no value in the list for %s (%s) "
                     "satisfies the other conditions on it", last->path,
                     label(lb, a->prog, l1, sizeof(l1)));
            return 1;
        }
    }
    /* two prefixes (or suffixes) neither of which extends the other */
    for (i = 0; i <= upto; i++) {
        const struct atom *x = &at[i];
        if (strcmp(x->path, last->path) ||
            (x->op != OP_STARTS && x->op != OP_ENDS))
            continue;
        for (j = i + 1; j <= upto; j++) {
            const struct atom *y = &at[j];
            size_t m;
            int clash;
            if (strcmp(y->path, last->path) || y->op != x->op)
                continue;
            m = x->val.v.s.n < y->val.v.s.n ? x->val.v.s.n : y->val.v.s.n;
            if (x->op == OP_STARTS)
                clash = memcmp(x->val.v.s.p, y->val.v.s.p, m) != 0;
            else
                clash = memcmp(x->val.v.s.p + x->val.v.s.n - m,
                               y->val.v.s.p + y->val.v.s.n - m, m) != 0;
            if (clash) {
                show(&x->val, b1, sizeof(b1));
                show(&y->val, b2, sizeof(b2));
                snprintf(why, whysz, "%s must %s with both %s (%s) and %s "
                         "(%s)", last->path,
                         x->op == OP_STARTS ? "start" : "end", b1,
                         label(lb, x->prog, l1, sizeof(l1)), b2,
                         label(lb, y->prog, l2, sizeof(l2)));
                return 1;
            }
        }
    }
    /* ranges: lower bound above upper bound, same value class */
    for (i = 0; i <= upto; i++) {
        const struct atom *lo = &at[i];
        if (strcmp(lo->path, last->path) || lo->vk < 0 ||
            (lo->op != CEL_OP_GT && lo->op != CEL_OP_GE))
            continue;
        for (j = 0; j <= upto; j++) {
            const struct atom *hi = &at[j];
            int c;
            if (strcmp(hi->path, last->path) || hi->vk != lo->vk ||
                (hi->op != CEL_OP_LT && hi->op != CEL_OP_LE))
                continue;
            c = vcmp(&lo->val, &hi->val);
            if (c == 2 || c == 3)
                continue;
            if (c > 0 || (c == 0 && (lo->op == CEL_OP_GT ||
                                     hi->op == CEL_OP_LT)) ||
                (lo->vk == K_NUM && lo->val.kind == CEL_V_INT &&
                 hi->val.kind == CEL_V_INT && lo->op == CEL_OP_GT &&
                 hi->op == CEL_OP_LT && hi->val.v.i - lo->val.v.i == 1 &&
                 lo->val.v.i < hi->val.v.i)) {
                show(&lo->val, b1, sizeof(b1));
                show(&hi->val, b2, sizeof(b2));
                snprintf(why, whysz, "%s must be %s %s (%s) and %s %s (%s)",
                         last->path, opname(lo->op), b1,
                         label(lb, lo->prog, l1, sizeof(l1)),
                         opname(hi->op), b2,
                         label(lb, hi->prog, l2, sizeof(l2)));
                return 1;
            }
        }
    }
    (void)n;
    return 0;
}

/* Structural equality of two subtrees (names, not slots, for variables) */
static int node_same(const struct cel_node *a, const struct cel_node *b,
                     int depth)
{
    unsigned i;

    if (!a || !b)
        return a == b;
    if (depth > 200 || a->kind != b->kind || a->op != b->op ||
        a->member != b->member || a->nargs != b->nargs ||
        a->opt_elems != b->opt_elems || a->name_len != b->name_len ||
        (a->name_len && memcmp(a->name, b->name, a->name_len) != 0))
        return 0;
    if (a->kind == CEL_N_LIT &&
        (a->lit.kind != b->lit.kind || cel_value_equal(&a->lit, &b->lit) != 1))
        return 0;
    for (i = 0; i < a->nargs; i++) {
        if (a->opt_elems && a->optflags[i] != b->optflags[i])
            return 0;
        if (!node_same(a->args[i], b->args[i], depth + 1))
            return 0;
    }
    return 1;
}

/* A conjunct and its negation (!C next to C) among the conjuncts; the new
 * ones are [c0, nconj). */
static int negation_pairs(const struct unsat_ctx *u, size_t c0, char *why,
                          size_t whysz, size_t *which, unsigned *offset)
{
    size_t i, j;
    char l1[32], l2[32];

    for (i = 0; i < u->nconj; i++) {
        const struct cel_node *x = u->conj[i].node;
        if (x->kind != CEL_N_NOT)
            continue;
        for (j = 0; j < u->nconj; j++) {
            size_t late;
            if (i < c0 && j < c0)
                continue;
            if (!node_same(x->args[0], u->conj[j].node, 0))
                continue;
            late = (u->conj[i].prog > u->conj[j].prog ||
                    (u->conj[i].prog == u->conj[j].prog &&
                     u->conj[i].offset > u->conj[j].offset)) ? i : j;
            snprintf(why, whysz, "a condition of the %s is negated by the "
                     "%s",
                     label(u->labels, u->conj[j].prog, l1, sizeof(l1)),
                     label(u->labels, u->conj[i].prog, l2, sizeof(l2)));
            *which = u->conj[late].prog;
            *offset = u->conj[late].offset;
            return 1;
        }
    }
    return 0;
}

/* Evaluates conjunct r on a device whose only field is r's path, set to
 * the value atom a fixes. Returns 1 when that is false (a contradiction),
 * 0 otherwise (true, error, or not representable). */
static int refuted(const struct cref *r, const struct atom *a)
{
    struct cel_attr at;
    struct cel_capacity cap;
    struct cel_device dev;
    struct cel_eval ev;
    struct cel_scratch sc;
    struct cel_value v;
    char sbuf[256];
    const struct cel_value *x = &a->val;
    int i, ret;

    if (a->op != CEL_OP_EQ || a->vk < 0 || r->p->device_slot < 0)
        return 0;
    memset(&at, 0, sizeof(at));
    memset(&cap, 0, sizeof(cap));
    memset(&dev, 0, sizeof(dev));
    dev.driver = "";
    switch (r->what) {
    case CEL_REF_DRIVER:
        if (x->kind != CEL_V_STRING)
            return 0;
        snprintf(sbuf, sizeof(sbuf), "%.*s", (int)x->v.s.n, x->v.s.p);
        dev.driver = sbuf;
        break;
    case CEL_REF_ALLOW_MULTI:
        if (x->kind != CEL_V_BOOL)
            return 0;
        dev.allow_multiple_allocations = x->v.b;
        break;
    case CEL_REF_CAP:
        if (x->kind != CEL_V_QUANTITY)
            return 0;
        cel_quantity_format(x, sbuf, sizeof(sbuf));
        cap.domain = r->dom;
        cap.id = r->id;
        cap.quantity = sbuf;
        dev.caps = &cap;
        dev.ncaps = 1;
        break;
    default:
        at.domain = r->dom;
        at.id = r->id;
        if (x->kind == CEL_V_INT) {
            at.type = CEL_ATTR_INT;
            at.i = x->v.i;
        } else if (x->kind == CEL_V_BOOL) {
            at.type = CEL_ATTR_BOOL;
            at.b = x->v.b;
        } else if (x->kind == CEL_V_STRING) {
            if (x->v.s.n >= sizeof(sbuf) || memchr(x->v.s.p, 0, x->v.s.n))
                return 0;
            snprintf(sbuf, sizeof(sbuf), "%.*s", (int)x->v.s.n, x->v.s.p);
            at.type = CEL_ATTR_STRING;
            at.s = sbuf;
        } else if (x->kind == CEL_V_SEMVER) {
            cel_semver_format(x->v.sv, sbuf, sizeof(sbuf));
            at.type = CEL_ATTR_VERSION;
            at.s = sbuf;
        } else {
            return 0;
        }
        dev.attrs = &at;
        dev.nattrs = 1;
        break;
    }
    memset(&ev, 0, sizeof(ev));
    cel_scratch_init(&sc);
    ev.p = r->p;
    ev.scratch = &sc;
    for (i = 0; i < CEL_MAX_SLOTS; i++) {
        ev.slots[i].kind = CEL_V_ERROR;
        ev.slots[i].v.s.p = "unbound";
        ev.slots[i].v.s.n = 7;
    }
    memset(&ev.slots[r->p->device_slot], 0, sizeof(ev.slots[0]));
    ev.slots[r->p->device_slot].kind = CEL_V_DEVICE;
    ev.slots[r->p->device_slot].x = &dev;
    v = cel_eval_node(&ev, r->node);
    ret = v.kind == CEL_V_BOOL && !v.v.b && ev.cost <= CEL_MAX_COST;
    cel_scratch_release(&sc);
    return ret;
}

/* Pairs EQ atoms with single-field conjuncts: atoms [a0, na) or crefs
 * [c0, nc) are new. */
static int refute_pairs(const struct unsat_ctx *u, size_t a0, size_t c0,
                        char *why, size_t whysz, size_t *which,
                        unsigned *offset)
{
    size_t i, j;
    char b1[96], l1[32], l2[32];

    for (i = 0; i < u->n; i++) {
        const struct atom *a = &u->atoms[i];
        for (j = 0; j < u->ncref; j++) {
            const struct cref *r = &u->crefs[j];
            if (i < a0 && j < c0)
                continue;       /* checked before */
            if (strcmp(a->path, r->path) || !refuted(r, a))
                continue;
            show(&a->val, b1, sizeof(b1));
            snprintf(why, whysz, "%s must be %s (%s), which a condition in "
                     "the %s rules out", a->path, b1,
                     label(u->labels, a->prog, l1, sizeof(l1)),
                     label(u->labels, r->prog, l2, sizeof(l2)));
            if (a->prog > r->prog ||
                (a->prog == r->prog && a->offset > r->offset)) {
                *which = a->prog;
                *offset = a->offset;
            } else {
                *which = r->prog;
                *offset = r->offset;
            }
            return 1;
        }
    }
    return 0;
}

int cel_conj_unsat(const struct cel_program *const *progs, size_t n,
                   char *why, size_t whysz, size_t *which, unsigned *offset)
{
    return cel_conj_unsat_labels(progs, NULL, n, why, whysz, which, offset);
}

int cel_conj_unsat_labels(const struct cel_program *const *progs,
                          const char *const *labels, size_t n, char *why,
                          size_t whysz, size_t *which, unsigned *offset)
{
    struct unsat_ctx *u = NULL;
    size_t i;
    int found = 0;
    char l1[32];

    /* ~180 KiB: off the stack, and not zeroed (calloc's memset of it
     * was a third of a lint run): the counts say what is filled in, and
     * each atom is cleared when it is added */
    u = xmalloc(sizeof(*u));
    u->nconj = 0;
    u->n = 0;
    u->ncref = 0;
    u->const_false = 0;
    u->cf_offset = 0;
    u->cf_prog = 0;
    u->p = NULL;
    u->prog = 0;
    u->labels = labels;
    for (i = 0; i < n && !found; i++) {
        struct aliases al;
        size_t before = u->n, cbefore = u->ncref, k, nbefore = u->nconj;
        al.n = 0;
        al.by_name = progs[i]->parsed_only;
        u->p = progs[i];
        u->prog = i;
        conjuncts(progs[i]->root, &al, unsat_fn, u, 0);
        if (u->const_false) {
            snprintf(why, whysz, "the %s is always false",
                     label(labels, i, l1, sizeof(l1)));
            *which = u->cf_prog;
            *offset = u->cf_offset;
            found = 1;
            break;
        }
        for (k = before; k < u->n && !found; k++) {
            if (path_unsat(labels, u->atoms, u->n, k, why, whysz)) {
                *which = u->atoms[k].prog;
                *offset = u->atoms[k].offset;
                found = 1;
            }
        }
        if (!found)
            found = refute_pairs(u, before, cbefore, why, whysz, which,
                                 offset);
        if (!found)
            found = negation_pairs(u, nbefore, why, whysz, which, offset);
    }
    free(u);
    return found;
}

/* ================= device references ================= */

struct refs_ctx {
    const struct cel_program *p;
    void (*fn)(void *ctx, int what, const char *domain, const char *id);
    void *ctx;
    struct { int slot; int cap; const char *dom; } alias[16];
    int nalias;
    int incomplete;
};

static const struct cel_node *alias_dom(struct refs_ctx *r,
                                        const struct cel_node *n, int *cap,
                                        const char **dom)
{
    int i;

    if (n->kind != CEL_N_IDENT)
        return NULL;
    for (i = r->nalias - 1; i >= 0; i--) {
        if (r->alias[i].slot == n->slot) {
            *cap = r->alias[i].cap;
            *dom = r->alias[i].dom;
            return n;
        }
    }
    return NULL;
}

/* n is device.attributes[D] / device.capacity[D] with a constant D */
static int dom_lookup(struct refs_ctx *r, const struct cel_node *n, int *cap,
                      const char **dom)
{
    if (alias_dom(r, n, cap, dom))
        return 1;
    if ((n->kind != CEL_N_INDEX && n->kind != CEL_N_OPTINDEX) ||
        !is_str_lit(n->args[1]))
        return 0;
    *cap = dev_map(r->p, NULL, n->args[0]);
    if (*cap < 0)
        return 0;
    *dom = n->args[1]->lit.v.s.p;
    return 1;
}

static void refs_walk(struct refs_ctx *r, const struct cel_node *n,
                      int depth)
{
    const char *dom;
    int cap;
    unsigned i;

    if (!n || depth > CEL_MAX_NODE_DEPTH + 8)
        return;
    /* <domain map>.id, <domain map>[?"id"], has(<domain map>.id) */
    if ((n->kind == CEL_N_SELECT || n->kind == CEL_N_OPTSELECT ||
         n->kind == CEL_N_HAS) && dom_lookup(r, n->args[0], &cap, &dom)) {
        char id[256];
        snprintf(id, sizeof(id), "%.*s", (int)n->name_len, n->name);
        r->fn(r->ctx, cap ? CEL_REF_CAP : CEL_REF_ATTR, dom, id);
        return;
    }
    if ((n->kind == CEL_N_INDEX || n->kind == CEL_N_OPTINDEX) &&
        is_str_lit(n->args[1]) && dom_lookup(r, n->args[0], &cap, &dom)) {
        r->fn(r->ctx, cap ? CEL_REF_CAP : CEL_REF_ATTR, dom,
              n->args[1]->lit.v.s.p);
        return;
    }
    if ((n->kind == CEL_N_SELECT || n->kind == CEL_N_HAS ||
         n->kind == CEL_N_OPTSELECT) && is_device(r->p, NULL, n->args[0])) {
        if (name_is(n, "driver")) {
            r->fn(r->ctx, CEL_REF_DRIVER, NULL, NULL);
            return;
        }
        if (name_is(n, "allowMultipleAllocations")) {
            r->fn(r->ctx, CEL_REF_ALLOW_MULTI, NULL, NULL);
            return;
        }
    }
    if (n->kind == CEL_N_BIND &&
        dom_lookup(r, n->args[1], &cap, &dom) && r->nalias < 16) {
        r->alias[r->nalias].slot = n->args[0]->slot;
        r->alias[r->nalias].cap = cap;
        r->alias[r->nalias].dom = dom;
        r->nalias++;
        refs_walk(r, n->args[2], depth + 1);
        r->nalias--;
        return;
    }
    if (n->kind == CEL_N_IDENT) {
        if (is_device(r->p, NULL, n) || alias_dom(r, n, &cap, &dom))
            r->incomplete = 1;   /* the device (or a domain) as a whole */
        return;
    }
    if (n->kind == CEL_N_BIND && is_device(r->p, NULL, n->args[1]))
        r->incomplete = 1;
    for (i = 0; i < n->nargs; i++)
        refs_walk(r, n->args[i], depth + 1);
}

int cel_device_refs(const struct cel_program *p,
                    void (*fn)(void *ctx, int what, const char *domain,
                               const char *id),
                    void *ctx)
{
    struct refs_ctx r;

    memset(&r, 0, sizeof(r));
    r.p = p;
    r.fn = fn;
    r.ctx = ctx;
    refs_walk(&r, p->root, 0);
    return r.incomplete ? -1 : 0;
}

/* ---- single_ref: the one device field a conjunct reads ---- */

struct one_ref { struct cref *out; int count; };

static void one_ref_fn(void *ctx, int what, const char *dom, const char *id)
{
    struct one_ref *o = ctx;
    struct cref tmp;

    tmp.what = what;
    snprintf(tmp.dom, sizeof(tmp.dom), "%s", dom ? dom : "");
    snprintf(tmp.id, sizeof(tmp.id), "%s", id ? id : "");
    if (what == CEL_REF_DRIVER)
        snprintf(tmp.path, sizeof(tmp.path), "device.driver");
    else if (what == CEL_REF_ALLOW_MULTI)
        snprintf(tmp.path, sizeof(tmp.path),
                 "device.allowMultipleAllocations");
    else
        snprintf(tmp.path, sizeof(tmp.path), "device.%s[\"%s\"].%s",
                 what == CEL_REF_CAP ? "capacity" : "attributes", tmp.dom,
                 tmp.id);
    if (o->count && !strcmp(o->out->path, tmp.path))
        return;
    o->count++;
    if (o->count == 1) {
        o->out->what = tmp.what;
        memcpy(o->out->dom, tmp.dom, sizeof(tmp.dom));
        memcpy(o->out->id, tmp.id, sizeof(tmp.id));
        memcpy(o->out->path, tmp.path, sizeof(tmp.path));
    }
}

static int single_ref(const struct cel_program *p, const struct cel_node *n,
                      struct cref *out)
{
    struct refs_ctx r;
    struct one_ref o;

    memset(&r, 0, sizeof(r));
    o.out = out;
    o.count = 0;
    r.p = p;
    r.fn = one_ref_fn;
    r.ctx = &o;
    refs_walk(&r, n, 0);
    return !r.incomplete && o.count == 1 ? 0 : -1;
}

/* ================= clauses ================= */

static int cel_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
           c == '\v';
}

static void span_set(const struct cel_program *p, size_t b, size_t e,
                     struct cel_span *out)
{
    while (b < e && cel_space(p->expr[b]))
        b++;
    while (e > b && cel_space(p->expr[e - 1]))
        e--;
    out->offset = b;
    out->len = e - b;
}

size_t cel_conjuncts(struct arena *a, const struct cel_program *p,
                     struct cel_span *out, size_t max)
{
    struct cel_lexer lx;
    struct cel_token t;
    struct cel_error err;
    size_t n = 0, start = 0;
    int depth = 0;

    if (!max)
        return 0;
    span_set(p, 0, p->len, &out[0]);
    /* && binds tighter than || and ?:, so the && operators outside
     * brackets split the text into the operands of a root AND chain */
    if (!p->root || p->root->kind != CEL_N_AND)
        return 1;
    memset(&lx, 0, sizeof(lx));
    lx.src = p->expr;
    lx.len = p->len;
    lx.a = a;
    lx.err = &err;
    for (;;) {
        cel_lex_next(&lx, &t);
        if (t.kind == TK_EOF || t.kind == TK_ERROR)
            break;
        if (t.kind == TK_LPAREN || t.kind == TK_LBRACK || t.kind == TK_LBRACE)
            depth++;
        else if (t.kind == TK_RPAREN || t.kind == TK_RBRACK ||
                 t.kind == TK_RBRACE)
            depth--;
        else if (t.kind == TK_AND && depth == 0) {
            if (n + 1 >= max) {
                span_set(p, 0, p->len, &out[0]);
                return 1;
            }
            span_set(p, start, t.offset, &out[n++]);
            start = t.offset + t.len;
        }
    }
    if (!n)
        return 1;
    span_set(p, start, p->len, &out[n++]);
    return n;
}

static const char *opname_c(int op)
{
    return op >= CEL_OP_EQ && op <= CEL_OP_GE ? opname(op) : NULL;
}

struct cmp_ctx { struct unsat_ctx *u; int nconj; };

static void cmp_fn(void *ctx, const struct cel_node *c,
                   const struct aliases *al)
{
    struct cmp_ctx *x = ctx;

    x->nconj++;
    atom_of(x->u, c, al, 0);
}

int cel_comparison_of(const struct cel_program *p,
                      struct cel_comparison *out)
{
    struct unsat_ctx *u = calloc(1, sizeof(*u));
    struct cmp_ctx x;
    struct aliases al;
    const struct atom *a;
    int ret = -1;

    if (!u)
        return -1;
    memset(out, 0, sizeof(*out));
    u->p = p;
    x.u = u;
    x.nconj = 0;
    al.n = 0;
    al.by_name = p->parsed_only;
    conjuncts(p->root, &al, cmp_fn, &x, 0);
    a = &u->atoms[0];
    if (x.nconj != 1 || u->n != 1 || u->const_false || !opname_c(a->op) ||
        !opname_c(negate(a->op)) || a->f.domn >= sizeof(out->domain) ||
        a->f.idn >= sizeof(out->id))
        goto out;
    if (a->f.what == CEL_REF_ATTR && a->val.kind == CEL_V_INT) {
        out->i = a->val.v.i;
    } else if (a->f.what == CEL_REF_CAP && a->val.kind == CEL_V_QUANTITY &&
               a->valnode && a->valnode->args && is_str_lit(a->valnode->args[0])
               && a->valnode->args[0]->lit.v.s.n < sizeof(out->quantity)) {
        /* quantity('80Gi') folded into a literal keeps its argument */
        const struct cel_value *q = &a->valnode->args[0]->lit;
        out->is_quantity = 1;
        memcpy(out->quantity, q->v.s.p, q->v.s.n);
    } else {
        goto out;
    }
    out->what = a->f.what;
    memcpy(out->domain, a->f.dom, a->f.domn);
    memcpy(out->id, a->f.id, a->f.idn);
    out->holds = opname_c(a->op);
    out->fails = opname_c(negate(a->op));
    ret = 0;
out:
    free(u);
    return ret;
}
