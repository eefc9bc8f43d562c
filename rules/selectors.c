/*
 * selectors.c - rules on CEL device selectors, with the CEL engine
 * (validate/cel): selector-invalid (does not compile in the DRA
 * environment of the target version and gates, or is over the limits),
 * selector-never-matches (the class's and the request's selectors together
 * are provably unsatisfiable; cel_conj_unsat() proves or stays silent) and
 * selector-foreign-domain (the class pins one driver but a selector reads
 * another driver's attribute domain). Satisfiability against an inventory
 * is in satisfiability.c.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../validate/arena.h"
#include "../validate/cel/cel.h"
#include "../validate/object.h"
#include "../validate/target.h"
#include "../validate/tree.h"
#include "checks.h"
#include "dra_util.h"
#include "rules.h"

#define MAX_CONJ 64     /* class + request selectors: 32 + 32 */

/* The environment the apiserver validates o's selectors in: the target's
 * features, NewExpressions unless o keeps its stored selectors. */
static struct cel_env target_env(struct check_ctx *cx,
                                 const struct object *o)
{
    struct cel_env env = *cx_cel_env(cx);

    env.stored = o->stored_selectors;
    return env;
}

static const struct cel_program *compile(struct check_ctx *cx,
                                         const struct selector *s,
                                         const struct cel_env *env,
                                         const struct cel_error **err)
{
    return selector_program(cx, env, cx_target(cx)->minor, s->expr, err);
}

/* Position of byte `off` of the expression in the file, when the scalar
 * is on one line and its source text equals the expression (plain, or
 * quoted without quotes or escapes inside). 0 = use the node's position. */
static void expr_pos(const struct tnode *x, const char *expr, unsigned off,
                     unsigned *line, unsigned *col)
{
    unsigned chars = 0, i;

    *line = 0;
    *col = 0;
    if (!x || !x->line || strchr(expr, '\n') || off > strlen(expr))
        return;
    if (x->quoted && strpbrk(expr, "'\"\\"))
        return;
    for (i = 0; i < off; i++)
        if (((unsigned char)expr[i] & 0xc0) != 0x80)
            chars++;
    *line = x->line;
    *col = x->col + chars + (x->quoted ? 1 : 0);
}

/* ==== selector-invalid ================================================== */

static const char *gate_needed(struct check_ctx *cx, const struct selector *s,
                               const struct cel_env *env)
{
    struct cel_env e2 = *env;
    const struct cel_error *err;

    if (!env->consumable_capacity) {
        e2.consumable_capacity = 1;
        if (compile(cx, s, &e2, &err))
            return "DRAConsumableCapacity";
        e2.consumable_capacity = 0;
    }
    if (!env->list_attributes) {
        e2.list_attributes = 1;
        if (compile(cx, s, &e2, &err))
            return "DRAListTypeAttributes";
    }
    return NULL;
}

static void invalid_one(struct check_ctx *cx, const struct selector *s,
                        const struct cel_env *env)
{
    const struct cel_error *err;
    unsigned line, col;
    const char *gate;

    if (!s->expr || !*s->expr)
        return;     /* claim-schema reports missing expressions */
    if (compile(cx, s, env, &err) || err->kind == CEL_ERR_UNSUPPORTED)
        return;
    expr_pos(s->expr_node, s->expr, err->offset, &line, &col);
    if (err->kind == CEL_ERR_LIMIT) {
        report_at(cx, s->expr_node, line, col, "selector is over the "
                  "apiserver's limits: %s", err->msg);
        return;
    }
    gate = gate_needed(cx, s, env);
    if (gate) {
        report_at(cx, s->expr_node, line, col, "selector needs feature gate "
                  "%s, which is off in Kubernetes %s: %s; the apiserver "
                  "rejects the object", gate, cx_target(cx)->version,
                  err->msg);
        return;
    }
    if (strchr(s->expr, '\n'))
        report_at(cx, s->expr_node, line, col, "selector does not compile: "
                  "%s (line %u, column %u of the expression)", err->msg,
                  err->line, err->col);
    else
        report_at(cx, s->expr_node, line, col, "selector does not compile: "
                  "%s (column %u of the expression)", err->msg, err->col);
}

static void invalid_list(struct check_ctx *cx, const struct selector *sel,
                         size_t n, const struct cel_env *env)
{
    size_t i;

    for (i = 0; i < n; i++)
        invalid_one(cx, &sel[i], env);
}

void check_selector_invalid(struct check_ctx *cx, const struct object *o)
{
    struct cel_env env = target_env(cx, o);
    size_t i, j;

    if (o->cls) {
        invalid_list(cx, o->cls->sel, o->cls->nsel, &env);
        return;
    }
    for (i = 0; i < o->claim->nreqs; i++) {
        const struct devreq *r = &o->claim->reqs[i];
        invalid_list(cx, r->sel, r->nsel, &env);
        for (j = 0; j < r->nsubs; j++)
            invalid_list(cx, r->subs[j].sel, r->subs[j].nsel, &env);
    }
}

/* ==== the conjunction of a request's selectors ========================== */

struct conj {
    const struct cel_program *progs[MAX_CONJ];
    const char *labels[MAX_CONJ];
    const struct selector *sels[MAX_CONJ];
    int from_class[MAX_CONJ];
    size_t n;
};

static void conj_add(struct check_ctx *cx, struct conj *c,
                     const struct selector *sel, size_t n, int from_class,
                     const char *owner, const struct cel_env *env)
{
    size_t i;

    for (i = 0; i < n && c->n < MAX_CONJ; i++) {
        const struct cel_error *err;
        const struct cel_program *p = sel[i].expr
                                      ? compile(cx, &sel[i], env, &err)
                                      : NULL;
        if (!p)
            continue;   /* selector-invalid reports it */
        c->progs[c->n] = p;
        c->sels[c->n] = &sel[i];
        c->from_class[c->n] = from_class;
        c->labels[c->n] = n > 1
            ? arena_printf(cx_arena(cx), "%s selector %zu", owner, i + 1)
            : owner;    /* lives as long as the conjunction */
        c->n++;
    }
}

/* cel_conj_unsat_labels() of a conjunction, once per run: the programs
 * are shared per text (selector_program), so their addresses and the
 * labels name the question, and the many claims that repeat a class and
 * a selector ask it once. */
struct unsat_memo {
    int found;
    char why[256];
    size_t which;
    unsigned offset;
};

static int conj_unsat(struct check_ctx *cx, const struct conj *c,
                      char *why, size_t whysz, size_t *which,
                      unsigned *offset)
{
    char key[4096];
    size_t k = 5, i;
    struct unsat_memo *m;
    void **slot = NULL;

    /* "unsat" then "\x1f<program's address>\x1e<label>" per selector, by
     * hand: snprintf cost more than the memo lookup */
    memcpy(key, "unsat", 5);
    for (i = 0; i < c->n && k < sizeof(key); i++) {
        uintptr_t p = (uintptr_t)c->progs[i];
        size_t len = strlen(c->labels[i]);
        int shift = (int)sizeof(p) * 8 - 4;
        if (k + 3 + 2 * sizeof(p) + len >= sizeof(key)) {
            k = sizeof(key);
            break;
        }
        key[k++] = '\x1f';
        while (shift > 0 && !((p >> shift) & 0xf))
            shift -= 4;
        for (; shift >= 0; shift -= 4)
            key[k++] = "0123456789abcdef"[(p >> shift) & 0xf];
        key[k++] = '\x1e';
        memcpy(key + k, c->labels[i], len);
        k += len;
    }
    if (k < sizeof(key)) {
        key[k] = '\0';
        slot = cx_memo(cx, key);
    }
    if (!slot || !*slot) {
        m = arena_alloc(cx_arena(cx), sizeof(*m));
        m->found = cel_conj_unsat_labels(c->progs, c->labels, c->n, m->why,
                                         sizeof(m->why), &m->which,
                                         &m->offset);
        if (slot)
            *slot = m;
    } else {
        m = *slot;
    }
    if (m->found) {
        snprintf(why, whysz, "%s", m->why);
        *which = m->which;
        *offset = m->offset;
    }
    return m->found;
}

static const struct object *class_of(struct check_ctx *cx,
                                     const struct devreq *r)
{
    const struct object *cls;

    if (!r->class_name)
        return NULL;
    cls = cx_lookup(cx, K_CLASS, "", r->class_name);
    return cls && cls->cls ? cls : NULL;
}

/* ==== selector-never-matches ============================================ */

static int class_unsat(struct check_ctx *cx, const struct object *cls,
                       const struct cel_env *env)
{
    struct conj c;
    char why[256];
    size_t which;
    unsigned off;

    c.n = 0;
    conj_add(cx, &c, cls->cls->sel, cls->cls->nsel, 1, "class", env);
    return c.n && conj_unsat(cx, &c, why, sizeof(why), &which, &off);
}

static void never_one(struct check_ctx *cx, const struct devreq *r,
                      const struct cel_env *env)
{
    const struct object *cls = class_of(cx, r);
    const char *name = r->name ? r->name : "?";
    struct conj c;
    char why[256], lb[128];     /* lb: the class's label, while c lives */
    size_t which;
    unsigned off, line, col;

    if (!r->nsel)
        return;     /* the class alone is checked on the class */
    c.n = 0;
    if (cls) {
        int n = snprintf(lb, sizeof(lb), "class '%s'", cls->name);
        if (class_unsat(cx, cls, env))
            return;     /* reported on the class */
        conj_add(cx, &c, cls->cls->sel, cls->cls->nsel, 1,
                 n > 0 && (size_t)n < sizeof(lb)
                 ? lb : arena_printf(cx_arena(cx), "class '%s'", cls->name),
                 env);
    }
    conj_add(cx, &c, r->sel, r->nsel, 0, "request", env);
    if (!c.n || !conj_unsat(cx, &c, why, sizeof(why), &which, &off))
        return;
    if (c.from_class[which]) {
        report(cx, r->selectors_node, "no device can satisfy request '%s': "
               "%s", name, why);
        return;
    }
    expr_pos(c.sels[which]->expr_node, c.sels[which]->expr, off, &line,
             &col);
    report_at(cx, c.sels[which]->expr_node, line, col, "no device can "
              "satisfy request '%s': %s", name, why);
}

void check_selector_never_matches(struct check_ctx *cx,
                                  const struct object *o)
{
    struct cel_env env = target_env(cx, o);
    size_t i, j;

    if (o->cls) {
        struct conj c;
        char why[256];
        size_t which;
        unsigned off, line, col;
        c.n = 0;
        conj_add(cx, &c, o->cls->sel, o->cls->nsel, 1, "class", &env);
        if (!c.n || !conj_unsat(cx, &c, why, sizeof(why), &which, &off))
            return;
        expr_pos(c.sels[which]->expr_node, c.sels[which]->expr, off, &line,
                 &col);
        report_at(cx, c.sels[which]->expr_node, line, col, "no device can "
                  "match DeviceClass '%s': %s", o->name, why);
        return;
    }
    for (i = 0; i < o->claim->nreqs; i++) {
        const struct devreq *r = &o->claim->reqs[i];
        never_one(cx, r, &env);
        for (j = 0; j < r->nsubs; j++)
            never_one(cx, &r->subs[j], &env);
    }
}

/* ==== selector-foreign-domain =========================================== */

/* Domains every driver may publish (standard attributes such as
 * resource.kubernetes.io/pcieRoot). */
static int shared_domain(const char *d)
{
    size_t l = strlen(d);

    return (l >= 13 && !strcmp(d + l - 13, "kubernetes.io"))
           || (l >= 6 && !strcmp(d + l - 6, "k8s.io"));
}

struct foreign {
    struct check_ctx *cx;
    const struct selector *sel;
    const char *driver, *pinned_by;
    int reported;
};

static void foreign_domain(void *ctx, const char *domain, int is_capacity,
                           unsigned offset)
{
    struct foreign *f = ctx;
    const char *slash;
    unsigned line, col;

    if (!strcmp(domain, f->driver) || shared_domain(domain) || f->reported)
        return;
    f->reported = 1;
    expr_pos(f->sel->expr_node, f->sel->expr, offset, &line, &col);
    slash = strchr(domain, '/');
    if (slash) {    /* "dra.net/rdma": a qualified attribute name */
        report_hint(f->cx, arena_printf(cx_arena(f->cx), "write device.%s"
                    "['%.*s'].%s: the domain is the part before '/'",
                    is_capacity ? "capacity" : "attributes",
                    (int)(slash - domain), domain, slash + 1));
        report_at(f->cx, f->sel->expr_node, line, col, "the selector reads "
                  "device.%s['%s']: '%s' is a qualified attribute name, not "
                  "a domain (domains have no '/'), so the lookup finds an "
                  "empty map and reading the attribute from it is a runtime "
                  "error", is_capacity ? "capacity" : "attributes", domain,
                  domain);
        return;
    }
    report_at(f->cx, f->sel->expr_node, line, col, "%s pins driver '%s', "
              "but the selector reads device.%s['%s'], another driver's "
              "domain: devices of '%s' publish none there, so the lookup "
              "finds an empty map", f->pinned_by, f->driver,
              is_capacity ? "capacity" : "attributes", domain, f->driver);
}

static void foreign_list(struct check_ctx *cx, const struct selector *sel,
                         size_t n, const char *driver, const char *pinned_by,
                         const struct cel_env *env)
{
    size_t i;

    for (i = 0; i < n; i++) {
        const struct cel_error *err;
        const struct cel_program *p = sel[i].expr
                                      ? compile(cx, &sel[i], env, &err)
                                      : NULL;
        struct foreign f;
        if (!p)
            continue;
        f.cx = cx;
        f.sel = &sel[i];
        f.driver = driver;
        f.pinned_by = pinned_by;
        f.reported = 0;
        cel_foreach_domain(p, foreign_domain, &f);
    }
}

static void foreign_request(struct check_ctx *cx, const struct devreq *r,
                            const struct cel_env *env)
{
    const struct object *cls = class_of(cx, r);
    const char *d = NULL, *by = "the request";

    if (cls) {
        d = selectors_driver(cx, cls->cls->sel, cls->cls->nsel);
        by = arena_printf(cx_arena(cx), "DeviceClass '%s'", cls->name);
    }
    if (!d) {
        d = selectors_driver(cx, r->sel, r->nsel);
        by = "the request";
    }
    if (d)
        foreign_list(cx, r->sel, r->nsel, d, by, env);
}

void check_selector_foreign_domain(struct check_ctx *cx,
                                   const struct object *o)
{
    struct cel_env env = target_env(cx, o);
    size_t i, j;

    if (o->cls) {
        const char *d = selectors_driver(cx, o->cls->sel,
                                         o->cls->nsel);
        if (d)
            foreign_list(cx, o->cls->sel, o->cls->nsel, d, "the class",
                         &env);
        return;
    }
    for (i = 0; i < o->claim->nreqs; i++) {
        const struct devreq *r = &o->claim->reqs[i];
        foreign_request(cx, r, &env);
        for (j = 0; j < r->nsubs; j++)
            foreign_request(cx, &r->subs[j], &env);
    }
}
