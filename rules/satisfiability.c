/*
 * satisfiability.c - rules that check claims, templates and Pods against
 * the devices of the inventory: selector-no-device, claim-unsatisfiable,
 * selector-runtime-error, claim-scarce, and (audit) claim-blocked: the
 * same question with the devices live claims hold taken. All silent
 * without devices.
 *
 * The device model is the inventory's (built once per snapshot) unless the
 * linted input itself holds ResourceSlices or Nodes that serve as the
 * inventory (--inventory-from-input): then one model of input + inventory
 * objects is built once per run (cx_memo), and every finding judged with
 * it says so (report_from_input). Selector
 * results are cached per run by expression text, so a class used by a
 * thousand claims is evaluated once; a request's list of them is combined
 * once per model (alloc_select_all), and claims that pose the same
 * problem share one answer (alloc_solve_shared). The allocator
 * (validate/allocate.h) answers; explain.c turns its answers into bounded
 * explanations.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../validate/allocate.h"
#include "../validate/allocated.h"
#include "../validate/arena.h"
#include "../validate/buf.h"
#include "../validate/cel/cel.h"
#include "../validate/inventory.h"
#include "../validate/limits.h"
#include "../validate/object.h"
#include "../validate/strmap.h"
#include "../validate/target.h"
#include "../validate/tree.h"
#include "checks.h"
#include "dra_util.h"
#include "rules.h"
#include "satisfiability.h"

/* ==== per-run state ====================================================== */

static void model_release(void *arg)
{
    devmodel_free(arg);     /* its selector cache; the rest is the run's */
}

static void scratch_release(void *arg)
{
    struct sat *s = arg;

    arena_release(&s->scratch);
}

/* The scratch arena for object o (cleared when o is a new object). */
static struct arena *obj_arena(struct sat *s, const struct object *o)
{
    if (s->cur_obj != o || s->cur_file != o->file
        || s->cur_doc != o->doc_index) {
        arena_clear(&s->scratch);
        s->cur_obj = o;
        s->cur_file = o->file;
        s->cur_doc = o->doc_index;
        s->last_obj = NULL;     /* solve() must not reuse a stale answer */
    }
    return &s->scratch;
}

struct collect {
    const struct object **v;
    size_t n, cap;
    int input;                  /* some object is from the input */
    struct arena *a;
};

static void collect_fn(void *arg, const struct object *o)
{
    struct collect *c = arg;

    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 64;
        c->v = arena_grow(c->a, (void *)c->v, c->n, c->cap, sizeof(*c->v));
    }
    c->v[c->n++] = o;
    c->input |= !o->inventory;
}

/* The features the allocator does without on the target (allocate.h
 * ALLOC_OFF_*), as Kubernetes' allocator reads its feature gates. */
static unsigned sat_gates_off(const struct target *t)
{
    unsigned off = 0;

    if (!target_gate_on(t, "DRADeviceTaints"))
        off |= ALLOC_OFF_TAINTS;
    if (!target_gate_on(t, "DRAPartitionableDevices"))
        off |= ALLOC_OFF_PARTITIONABLE;
    if (!target_gate_on(t, "DRADeviceBindingConditions")
        || !target_gate_on(t, "DRAResourceClaimDeviceStatus"))
        off |= ALLOC_OFF_BINDING;
    return off;
}

/* m without devices is no model: NULL */
static const struct devmodel *with_devices(const struct devmodel *m)
{
    return m && m->ndevs ? m : NULL;
}

struct sat *sat_get(struct check_ctx *cx)
{
    void **slot = cx_memo_fixed(cx, "satisfiability");
    struct sat *s = *slot;
    struct collect c;
    size_t i;

    if (s)
        return s;
    s = arena_alloc(cx_arena(cx), sizeof(*s));
    strmap_init(&s->sel, cx_arena(cx));
    arena_init(&s->scratch, ARENA_LARGE_BYTES);
    cx_at_run_end(cx, scratch_release, s);
    memset(&c, 0, sizeof(c));
    c.a = cx_arena(cx);
    if (cx_input_has(cx, K_SLICE | K_NODE))
        cx_each(cx, K_SLICE | K_NODE, collect_fn, &c);
    s->m = inventory_devices(cx_inventory(cx));
    s->objects = s->m;
    if (c.input) {
        struct devmodel *own = devmodel_build(cx_arena(cx), c.v, c.n,
            target_gate_on(cx_target(cx), "DRAListTypeAttributes"));
        cx_at_run_end(cx, model_release, own);
        s->objects = own;
        if (cx_inventory_object(cx, c.v[0])) {  /* input first: they serve */
            s->m = own;
            s->from_input = 1;
            s->input_only = !cx_inventory_has(cx, K_SLICE);
        }
    }
    s->m = with_devices(s->m);
    s->objects = with_devices(s->objects);
    s->off = sat_gates_off(cx_target(cx));
    s->list_attributes = target_gate_on(cx_target(cx),
                                        "DRAListTypeAttributes");
    if (s->m) {
        for (i = 0; i < s->m->nnodes; i++)
            if (s->m->nodes[i].nlocal || s->m->nshared)
                s->nodes_with_devices++;
    }
    *slot = s;
    return s;
}

struct sat *sat_judge(struct check_ctx *cx)
{
    struct sat *s = sat_get(cx);

    if (s->from_input)
        report_from_input(cx);
    return s;
}

/* The scheduler's environment with the target's DRAListTypeAttributes. */
static struct cel_env sat_env(const struct sat *s)
{
    return alloc_scheduler_env(s->list_attributes);
}

struct selres *sat_selres(struct check_ctx *cx, struct sat *s,
                          const char *expr)
{
    struct selres *r = strmap_get(&s->sel, expr);
    struct cel_env env = sat_env(s);
    const struct alloc_match *mt;
    struct cel_error err;
    uint64_t spent = 0;

    if (r)
        return r;
    r = arena_alloc(cx_arena(cx), sizeof(*r));
    if (cx_expired(cx)) {
        /* past the request's budget: the run's findings are void, so
         * the selector is not evaluated (nor its result remembered) */
        r->err = "not evaluated: over the request's budget";
        return r;
    }
    mt = alloc_eval_cached(s->m, &env, expr, cx_arena(cx), &err, &spent);
    cx_charge(cx, spent, 0);
    if (mt) {
        r->ok = 1;
        r->match = *mt;
    } else {
        r->err = arena_strdup(cx_arena(cx), err.msg);
    }
    strmap_put(&s->sel, expr, r);
    return r;
}

/* ==== requests as the allocator sees them ================================ */

static int alt_build(struct check_ctx *cx, struct sat *s, struct arena *a,
                     const struct devreq *r, const char *name,
                     struct altinfo *ai)
{
    const struct devmodel *m = s->m;
    const struct classspec *cs = NULL;
    const struct tnode *creq;
    const struct alloc_selall *all;
    const struct alloc_match **mts;
    const char **exprs;
    struct cel_env env = sat_env(s);
    size_t i, k, n = 0;

    memset(ai, 0, sizeof(*ai));
    ai->r = r;
    ai->name = name;
    if (!r->class_name)
        return -1;
    ai->cls = cx_lookup(cx, K_CLASS, "", r->class_name);
    if (!ai->cls || !ai->cls->cls)
        return -1;
    cs = ai->cls->cls;
    ai->sels = arena_alloc(a, (cs->nsel + r->nsel + 1) * sizeof(*ai->sels));
    exprs = arena_alloc(a, (cs->nsel + r->nsel + 1) * sizeof(*exprs));
    mts = arena_alloc(a, (cs->nsel + r->nsel + 1) * sizeof(*mts));
    for (i = 0; i < cs->nsel + r->nsel; i++) {
        const struct selector *sel = i < cs->nsel ? &cs->sel[i]
                                                  : &r->sel[i - cs->nsel];
        struct selref *sr = &ai->sels[n++];
        if (!sel->expr)
            return -1;
        sr->s = sel;
        sr->from_class = i < cs->nsel;
        sr->index = i < cs->nsel ? i : i - cs->nsel;
        sr->res = sat_selres(cx, s, sel->expr);
        if (!sr->res->ok)
            return -1;
    }
    ai->nsels = n;
    for (k = 0; k < n; k++) {
        exprs[k] = ai->sels[k].s->expr;
        mts[k] = &ai->sels[k].res->match;
    }
    all = alloc_select_all(m, &env, exprs, mts, n, a);
    ai->sel = all->v;
    ai->nyes = all->nyes;
    ai->err_sel = all->err_sel;
    ai->err_msg = all->err_msg;
    ai->nerr = all->nerr;
    /* capacity.requests */
    creq = tree_get(r->capacity, "requests");
    if (tree_is_map(creq) && creq->n) {
        ai->caps = arena_alloc(a, creq->n * sizeof(*ai->caps));
        for (i = 0; i < creq->n; i++) {
            struct alloc_capreq *c = &ai->caps[ai->ncaps];
            c->name = creq->kids[i]->key;
            c->text = tree_text(creq->kids[i]);
            if (quantity_from_text(c->text, &c->q) < 0)
                return -1;
            ai->ncaps++;
        }
    }
    ai->alt.name = name;
    ai->alt.sel = ai->sel;
    ai->alt.sel_key = all->key;
    ai->alt.all = r->mode && !strcmp(r->mode, "All");
    ai->alt.count = ai->alt.all ? 0 : r->count;
    ai->alt.admin = r->admin_access;
    ai->alt.tolerations = r->tolerations;
    ai->alt.caps = ai->caps;
    ai->alt.ncaps = ai->ncaps;
    ai->alt.off = s->off;
    if (!ai->alt.all && ai->alt.count < 1)
        return -1;
    if (!ai->ncaps)
        ai->nfit = ai->nyes;
    for (i = 0; i < m->ndevs && ai->ncaps; i++)
        if (ai->sel[i] && alloc_device_fits(a, &m->devs[i], &ai->alt, NULL))
            ai->nfit++;
    return 0;
}

/* 1 if the model has a pool of the driver the request (or its class)
 * pins. Slices in the linted input are not a cluster snapshot: a repo may
 * hold one driver's example slices next to another driver's claims. */
static int driver_present(struct check_ctx *cx, const struct sat *s,
                          const struct devreq *r)
{
    const char *driver = request_driver(cx, r);
    size_t i;

    if (!driver)
        return 0;
    for (i = 0; i < s->m->npools; i++)
        if (!strcmp(s->m->pools[i].driver, driver))
            return 1;
    return 0;
}

static const char *const *constraint_reqs(struct arena *a,
                                          const struct tnode *reqs,
                                          size_t *n)
{
    const char **v;
    size_t i;

    *n = 0;
    if (!tree_is_seq(reqs) || !reqs->n)
        return NULL;
    v = arena_alloc(a, reqs->n * sizeof(*v));
    for (i = 0; i < reqs->n; i++)
        if (tree_str(reqs->kids[i]))
            v[(*n)++] = tree_str(reqs->kids[i]);
    return v;
}

/* Reads a claim spec into the allocator's terms. ci->usable is 0 when a
 * class is unknown or a selector does not compile (other rules say so). */
static void claim_build(struct check_ctx *cx, struct sat *s, struct arena *a,
                        const struct object *obj, const struct claimspec *c,
                        const char *name, struct claiminfo *ci)
{
    struct alloc_request *ar;
    struct alloc_constraint *acs;
    const struct tnode *cons = c->constraints;
    size_t i, k;

    memset(ci, 0, sizeof(*ci));
    ci->obj = obj;
    ci->name = name;
    ci->usable = c->nreqs > 0;
    ci->reqs = arena_alloc(a, (c->nreqs + 1) * sizeof(*ci->reqs));
    ar = arena_alloc(a, (c->nreqs + 1) * sizeof(*ar));
    ci->nreqs = c->nreqs;
    for (i = 0; i < c->nreqs && ci->usable; i++) {
        const struct devreq *r = &c->reqs[i];
        struct reqinfo *ri = &ci->reqs[i];
        struct alloc_alt *alts;
        size_t nalts = r->nsubs ? r->nsubs : 1, fit = 0;
        ri->r = r;
        ri->alts = arena_alloc(a, nalts * sizeof(*ri->alts));
        alts = arena_alloc(a, nalts * sizeof(*alts));
        ri->nalts = nalts;
        if (!r->name) {
            ci->usable = 0;
            break;
        }
        for (k = 0; k < nalts; k++) {
            const struct devreq *sr = r->nsubs ? &r->subs[k] : r;
            const char *nm = r->nsubs
                ? arena_printf(a, "%s/%s", r->name,
                               sr->name ? sr->name : "?")
                : r->name;
            if (alt_build(cx, s, a, sr, nm, &ri->alts[k]) < 0
                || (s->input_only && !driver_present(cx, s, sr))) {
                ci->usable = 0;
                break;
            }
            alts[k] = ri->alts[k].alt;
            fit += ri->alts[k].nfit;
            ci->any_error |= ri->alts[k].nerr > 0;
        }
        if (!fit)
            ci->any_empty = 1;
        ar[i].name = r->name;
        ar[i].alts = alts;
        ar[i].nalts = nalts;
    }
    ci->ac.name = name;
    ci->ac.reqs = ar;
    ci->ac.nreqs = c->nreqs;
    if (tree_is_seq(cons) && cons->n) {
        acs = arena_alloc(a, cons->n * sizeof(*acs));
        for (i = 0; i < cons->n; i++) {
            const struct tnode *e = cons->kids[i];
            struct alloc_constraint *x = &acs[ci->ac.ncons];
            const char *ma = tree_str(tree_get(e, "matchAttribute"));
            const char *da = tree_str(tree_get(e, "distinctAttribute"));
            if (!ma && !da)
                continue;
            x->distinct = !ma;
            x->attr = ma ? ma : da;
            x->reqs = constraint_reqs(a, tree_get(e, "requests"), &x->nreqs);
            ci->ac.ncons++;
        }
        ci->ac.cons = acs;
    }
}

/* ==== selector-no-device ================================================= */

static const struct tnode *alt_at(const struct altinfo *ai)
{
    const struct devreq *r = ai->r;

    if (r->selectors_node)
        return r->selectors_node;
    if (r->class_node)
        return r->class_node;
    return r->node;
}

void check_selector_no_device(struct check_ctx *cx, const struct object *o)
{
    struct sat *s = sat_judge(cx);
    struct claiminfo ci;
    size_t i, k;

    if (!s->m || !o->claim)
        return;
    claim_build(cx, s, obj_arena(s, o), o, o->claim, o->name, &ci);
    for (i = 0; i < ci.nreqs && ci.usable; i++) {
        const struct reqinfo *ri = &ci.reqs[i];
        struct lines l;
        size_t fit = 0, err = 0;
        for (k = 0; k < ri->nalts; k++) {
            fit += ri->alts[k].nfit;
            err += ri->alts[k].nerr;
        }
        if (fit || err)
            continue;
        lines_init(cx_arena(cx), &l);
        explain_pools(cx_arena(cx), s, &l);
        for (k = 0; k < ri->nalts; k++) {
            if (ri->nalts > 1)
                line_add(&l, arena_printf(cx_arena(cx), "alternative '%s':",
                                          ri->alts[k].name));
            explain_no_device(cx, s, &ri->alts[k], &l);
        }
        lines_close(cx_arena(cx), &l);
        report_details(cx, ri->nalts > 1 ? ri->r->first_available
                                         : alt_at(&ri->alts[0]),
                       l.v, l.n,
                       "request '%s': no device of the inventory matches "
                       "%s (%zu device%s checked)", ri->r->name,
                       ri->nalts > 1 ? "any of its alternatives"
                       : arena_printf(cx_arena(cx), "class '%s'%s%s",
                                      ri->alts[0].r->class_name,
                                      ri->alts[0].r->nsel
                                      ? " and the request's selectors" : "",
                                      ri->alts[0].ncaps
                                      ? " with its capacity.requests" : ""),
                       s->m->ndevs, s->m->ndevs == 1 ? "" : "s");
    }
}

/* ==== selector-runtime-error ============================================= */

static const struct tnode *alt_at_class(const struct altinfo *ai)
{
    return ai->r->class_node ? ai->r->class_node : ai->r->node;
}

/* Reports the runtime errors of one alternative's selectors; class
 * selectors only when the class is not itself in the input (then the
 * class reports them). */
static void report_errors(struct check_ctx *cx, struct sat *s,
                          const struct altinfo *ai)
{
    struct arena *a = cx_arena(cx);
    size_t k, i;

    for (k = 0; k < ai->nsels; k++) {
        const struct selref *sr = &ai->sels[k];
        struct lines l;
        size_t n = 0, admitted = 0, first = SIZE_MAX;
        if (sr->from_class && !ai->cls->inventory)
            continue;
        for (i = 0; i < s->m->ndevs; i++) {
            if (ai->err_sel && ai->err_sel[i] == k + 1) {
                if (first == SIZE_MAX)
                    first = i;
                n++;
            }
        }
        if (!n)
            continue;
        /* devices the class admits (its selectors all true) */
        for (i = 0; i < s->m->ndevs; i++) {
            size_t j;
            int ok = 1;
            for (j = 0; j < ai->nsels && ok; j++)
                if (ai->sels[j].from_class)
                    ok = ai->sels[j].res->match.v[i] == AM_YES;
            admitted += (size_t)ok;
        }
        lines_init(a, &l);
        for (i = first; i < s->m->ndevs; i++)
            if (ai->err_sel[i] == k + 1)
                line_add(&l, arena_printf(a, "%s: %s", s->m->devs[i].ref,
                                          ai->err_msg[i]));
        lines_close(a, &l);
        /* a class selector lives in another object: point at the
         * request's deviceClassName */
        report_details(cx, sr->from_class ? alt_at_class(ai)
                       : sr->s->expr_node ? sr->s->expr_node : sr->s->node,
                       l.v, l.n,
                       "%s selector #%zu raises a CEL runtime error on %zu "
                       "device%s%s (%s): the scheduler aborts allocation of "
                       "the whole claim", sr->from_class
                       ? arena_printf(a, "class '%s'", ai->r->class_name)
                       : arena_printf(a, "request '%s'", ai->name),
                       sr->index + 1, n, n == 1 ? "" : "s",
                       sr->from_class ? ""
                       : arena_printf(a, " of %zu the class admits",
                                      admitted),
                       ai->err_msg[first]);
    }
}

/* Class in the input: errors of its own selectors, in order. */
static void class_errors(struct check_ctx *cx, struct sat *s,
                         const struct object *o)
{
    struct arena *a = cx_arena(cx);
    const struct classspec *cs = o->cls;
    unsigned char *live;
    size_t k, i;

    live = arena_alloc(a, s->m->ndevs + 1);
    memset(live, 1, s->m->ndevs);
    for (k = 0; k < cs->nsel; k++) {
        struct selres *r;
        struct lines l;
        size_t n = 0, first = SIZE_MAX;
        if (!cs->sel[k].expr)
            return;
        r = sat_selres(cx, s, cs->sel[k].expr);
        if (!r->ok)
            return;
        lines_init(a, &l);
        for (i = 0; i < s->m->ndevs; i++) {
            if (!live[i])
                continue;
            if (r->match.v[i] == AM_ERR) {
                if (first == SIZE_MAX)
                    first = i;
                n++;
                line_add(&l, arena_printf(a, "%s: %s", s->m->devs[i].ref,
                                          r->match.err[i]));
            }
            live[i] = r->match.v[i] == AM_YES;
        }
        lines_close(a, &l);
        if (n)
            report_details(cx, cs->sel[k].expr_node, l.v, l.n,
                           "selector #%zu raises a CEL runtime error on %zu "
                           "device%s (%s): the scheduler aborts allocation of "
                           "every claim of this class", k + 1, n,
                           n == 1 ? "" : "s", r->match.err[first]);
    }
}

/* A request whose class has a selector that does not compile (the class
 * itself gets selector-invalid when it is linted): Kubernetes' allocator
 * fails the claim with the compile error. */
static void class_broken(struct check_ctx *cx, struct sat *s,
                         const struct devreq *r)
{
    const struct object *cls;
    size_t i;

    if (!r->class_name)
        return;
    cls = cx_lookup(cx, K_CLASS, "", r->class_name);
    if (!cls || !cls->cls)
        return;
    for (i = 0; i < cls->cls->nsel; i++) {
        const struct selres *sr;
        if (!cls->cls->sel[i].expr || !*cls->cls->sel[i].expr)
            continue;
        sr = sat_selres(cx, s, cls->cls->sel[i].expr);
        if (sr->ok)
            continue;
        report_hint(cx, "fix the DeviceClass's selector; `claimcheck cel "
                    "EXPR` compiles it in the DRA environment");
        report(cx, r->class_node ? r->class_node : r->node,
               "class '%s' selector #%zu does not compile (%s): the "
               "scheduler fails allocation of the whole claim with this "
               "error", r->class_name, i + 1, sr->err);
        return;
    }
}

void check_selector_runtime_error(struct check_ctx *cx,
                                  const struct object *o)
{
    struct sat *s = sat_judge(cx);
    struct claiminfo ci;
    size_t i, k;

    if (!s->m)
        return;
    if (o->kind == K_CLASS) {
        if (o->cls)
            class_errors(cx, s, o);
        return;
    }
    if (!o->claim)
        return;
    for (i = 0; i < o->claim->nreqs; i++) {
        const struct devreq *r = &o->claim->reqs[i];
        class_broken(cx, s, r);
        for (k = 0; k < r->nsubs; k++)
            class_broken(cx, s, &r->subs[k]);
    }
    claim_build(cx, s, obj_arena(s, o), o, o->claim, o->name, &ci);
    if (!ci.usable)
        return;
    for (i = 0; i < ci.nreqs; i++)
        for (k = 0; k < ci.reqs[i].nalts; k++)
            if (ci.reqs[i].alts[k].nerr)
                report_errors(cx, s, &ci.reqs[i].alts[k]);
}

/* ==== claim-unsatisfiable and claim-scarce =============================== */

static const struct tnode *pod_affinity(const struct tnode *spec)
{
    return tree_at(spec, "affinity.nodeAffinity."
                   "requiredDuringSchedulingIgnoredDuringExecution");
}

/* The problem of an object: a claim/template alone, or a Pod's claims. */
static void problem_build(struct check_ctx *cx, struct sat *s,
                          struct arena *a, const struct object *o,
                          struct problem *pb)
{
    size_t i;

    memset(pb, 0, sizeof(*pb));
    pb->usable = 1;
    if (o->claim) {
        pb->claims = arena_alloc(a, sizeof(*pb->claims));
        claim_build(cx, s, a, o, o->claim, o->name, &pb->claims[0]);
        pb->nclaims = 1;
    } else if (o->pod) {
        const struct podspec *ps = o->pod;
        pb->pod = 1;
        pb->claims = arena_alloc(a, (ps->nclaims + 1) * sizeof(*pb->claims));
        for (i = 0; i < ps->nclaims; i++) {
            const struct object *t = podclaim_target(cx, o, &ps->claims[i]);
            const struct claimspec *c = t ? t->claim : NULL;
            size_t j;
            if (!c || tree_get(tree_get(t->root, "status"), "allocation"))
                continue;   /* unknown or already allocated: not judged */
            /* one ResourceClaim named twice is allocated once */
            for (j = 0; j < pb->nclaims && t->kind == K_CLAIM; j++)
                if (pb->claims[j].obj == t)
                    break;
            if (t->kind == K_CLAIM && j < pb->nclaims)
                continue;
            claim_build(cx, s, a, t, c, ps->claims[i].name
                        ? ps->claims[i].name : t->name,
                        &pb->claims[pb->nclaims]);
            if (!pb->claims[pb->nclaims].usable)
                continue;
            pb->nclaims++;
        }
        pb->p.node_name = tree_str(tree_get(ps->spec, "nodeName"));
        pb->p.node_selector = tree_get(ps->spec, "nodeSelector");
        pb->p.affinity = pod_affinity(ps->spec);
    }
    if (!pb->nclaims) {
        pb->usable = 0;
        return;
    }
    pb->ac = arena_alloc(a, pb->nclaims * sizeof(*pb->ac));
    for (i = 0; i < pb->nclaims; i++) {
        const struct claiminfo *ci = &pb->claims[i];
        if (!ci->usable || ci->any_error || ci->any_empty)
            pb->usable = 0;     /* other rules explain these */
        pb->ac[i] = ci->ac;
    }
    pb->p.claims = pb->ac;
    pb->p.nclaims = pb->nclaims;
    pb->p.deadline_ns = cx_deadline(cx);
    pb->p.budget = cx_steps_left(cx);
    /* a file's object: a lint run, where many claims of one shape share
     * one answer, however large (an object under admission has no file) */
    pb->p.share_large = o->file != NULL;
}

/* Solves the object once for both rules. Returns the problem, or NULL
 * when nothing can be said. */
static struct problem *solve(struct check_ctx *cx, struct sat *s,
                             const struct object *o, struct alloc_result **r)
{
    struct arena *a = obj_arena(s, o);
    struct problem *pb;
    size_t i;

    if (s->last_obj == o && s->last_file == o->file
        && s->last_doc == o->doc_index) {
        *r = &s->last;
        return s->last_status ? s->last_pb : NULL;
    }
    s->last_obj = o;
    s->last_file = o->file;
    s->last_doc = o->doc_index;
    s->last_status = 0;
    pb = arena_alloc(a, sizeof(*pb));
    s->last_pb = pb;
    *r = &s->last;
    problem_build(cx, s, a, o, pb);
    if (!pb->usable)
        return NULL;
    alloc_solve_shared(a, s->m, &pb->p, &s->last);
    cx_charge(cx, 0, s->last.steps);
    /* a Pod whose input claim fails alone: that claim reports it */
    if (pb->pod && (s->last.verdict == ALLOC_FAIL
                    || s->last.verdict == ALLOC_ERROR)) {
        for (i = 0; i < pb->nclaims; i++) {
            struct alloc_problem one;
            struct alloc_result res;
            if (pb->claims[i].obj->inventory)
                continue;
            memset(&one, 0, sizeof(one));
            one.claims = &pb->ac[i];
            one.nclaims = 1;
            one.deadline_ns = pb->p.deadline_ns;
            one.share_large = pb->p.share_large;
            one.budget = cx_steps_left(cx);
            alloc_solve_shared(a, s->m, &one, &res);
            if (res.verdict == ALLOC_FAIL || res.verdict == ALLOC_ERROR)
                pb->lone_fail_input = 1;
            cx_charge(cx, 0, res.steps);
        }
    }
    s->last_status = 1;
    return pb;
}

void check_claim_unsatisfiable(struct check_ctx *cx, const struct object *o)
{
    struct arena *a = cx_arena(cx);
    struct sat *s = sat_judge(cx);
    struct alloc_result *res;
    struct problem *pb;
    struct lines l;
    const struct tnode *at;
    size_t i;

    if (!s->m)
        return;
    pb = solve(cx, s, o, &res);
    if (!pb || (res->verdict != ALLOC_FAIL && res->verdict != ALLOC_ERROR)
        || pb->lone_fail_input)
        return;
    lines_init(a, &l);
    if (res->verdict == ALLOC_ERROR && res->nsat)
        line_add(&l, arena_printf(a, "%s%s could host it, but the "
                                  "scheduler filters every node while "
                                  "fewer than %d fit, and the error "
                                  "aborts the attempt",
                                  s->m->nodes[res->sat_first].name,
                                  res->nsat > 1
                                  ? arena_printf(a, " and %zu more nodes",
                                                 res->nsat - 1) : "",
                                  ALLOC_FEASIBLE_MIN));
    explain_pools(a, s, &l);
    explain_taints(cx, s, pb, &l);
    explain_nodes(a, s, pb, res, &l, MAX_DETAILS);
    lines_close(a, &l);
    if (res->verdict == ALLOC_ERROR) {
        /* Kubernetes' allocator errors (the Pod stays Pending with the
         * error in its events) and no node could host it anyway */
        report_details(cx, pb->pod ? o->pod->claims_node
                                   : o->claim->requests_node,
                       l.v, l.n, "%s cannot be allocated: the scheduler's "
                       "allocator stops with an error on %zu node%s: %s",
                       !pb->pod ? "the claim"
                       : pb->nclaims == 1
                       ? arena_printf(a, "the pod's claim '%s'",
                                      pb->claims[0].name)
                       : arena_printf(a, "the pod's %zu claims together",
                                      pb->nclaims),
                       res->nerror, res->nerror == 1 ? "" : "s",
                       explain_error(a, s->m, pb, &res->error));
        return;
    }
    if (pb->pod) {
        size_t excl = 0;
        for (i = 0; i < res->nfails; i++)
            excl += res->fails[i].why < WHY_COUNT;
        report_details(cx, o->pod->claims_node, l.v, l.n, "no node can "
                       "satisfy %s (%zu node%s with matching devices, %zu of "
                       "them allowed by the pod's placement)",
                       pb->nclaims == 1
                       ? arena_printf(a, "the pod's claim '%s'",
                                      pb->claims[0].name)
                       : arena_printf(a, "the pod's %zu claims together",
                                      pb->nclaims),
                       res->nwithdev + excl,
                       res->nwithdev + excl == 1 ? "" : "s", res->nwithdev);
        return;
    }
    at = o->claim->requests_node ? o->claim->requests_node : NULL;
    report_details(cx, at, l.v, l.n, "no single node can satisfy every "
                   "request of the claim (%zu node%s with matching devices)",
                   res->nwithdev, res->nwithdev == 1 ? "" : "s");
}

void check_claim_scarce(struct check_ctx *cx, const struct object *o)
{
    struct arena *a = cx_arena(cx);
    struct sat *s = sat_judge(cx);
    struct alloc_result *res;
    struct problem *pb;
    struct lines l;
    size_t i, excl = 0;

    if (!s->m)
        return;
    pb = solve(cx, s, o, &res);
    /* res->enough: ALLOC_FEASIBLE_MIN nodes fit, as many as the
     * scheduler looks for: not narrow (the search stopped there) */
    if (!pb || res->verdict != ALLOC_OK || res->partial || !res->nsat
        || res->enough)
        return;
    if (pb->pod && pb->p.node_name)
        return;     /* pinned by design */
    for (i = 0; i < res->nfails; i++)
        excl += res->fails[i].why < WHY_COUNT;
    /* narrow: fits few of the nodes whose devices match (a claim that
     * fits every such node is not narrow, the hardware is scarce) */
    if (res->nsat >= res->nwithdev + excl
        || !((res->nsat < 3 && s->nodes_with_devices >= 3)
             || res->nsat * 10 < res->nwithdev + excl))
        return;
    lines_init(a, &l);
    line_add(&l, arena_printf(a, "fits: %s%s", s->m->nodes[res->sat_first]
                              .name, res->nsat > 1 ? " and others" : ""));
    explain_nodes(a, s, pb, res, &l, 5);
    lines_close(a, &l);
    report_details(cx, pb->pod ? o->pod->claims_node
                               : o->claim->requests_node, l.v, l.n,
                   "can be allocated on only %zu of %zu node%s with "
                   "matching devices%s: it will often wait", res->nsat,
                   res->nwithdev + excl,
                   res->nwithdev + excl == 1 ? "" : "s",
                   excl ? arena_printf(a, " (%zu allowed by the pod's "
                                       "placement)", res->nwithdev) : "");
}

/* ==== claim-blocked (audit) ============================================== */

#define MAX_HOLDERS 3           /* holders named per request */
#define MAX_HELD 4              /* devices named per holder */

/* The devices live claims hold, laid onto the run's model once. */
static const struct allocated *held_get(struct check_ctx *cx, struct sat *s)
{
    void **slot = cx_memo_fixed(cx, "allocated");
    struct allocated *al = *slot;
    struct collect c;

    if (al)
        return al;
    memset(&c, 0, sizeof(c));
    c.a = cx_arena(cx);
    cx_each(cx, K_CLAIM, collect_fn, &c);
    al = arena_alloc(cx_arena(cx), sizeof(*al));
    allocated_build(cx_arena(cx), s->m, c.v, c.n, al);
    *slot = al;
    return al;
}

static const char *claim_name(struct arena *a, const struct object *c)
{
    return arena_printf(a, "ResourceClaim %s", object_ref(a, c));
}

/* "request 'gpu' (2 devices): 3 of 4 matching devices are held: n1/g0,
 * n1/g1 by ResourceClaim ml/a; n2/g0 by ResourceClaim ml/b" */
static const char *held_line(struct arena *a, const struct devmodel *m,
                             const struct allocated *al,
                             const struct altinfo *ai)
{
    const struct object *who[MAX_HOLDERS];
    struct buf b;
    size_t nwho = 0, nmatch = 0, nheld = 0, i, k, shown, more = 0;
    const char *out;

    for (i = 0; i < m->ndevs; i++) {
        if (!ai->sel[i])
            continue;
        nmatch++;
        if (!al->taken[i] || ai->alt.admin || m->devs[i].multi)
            continue;
        nheld++;
        for (k = 0; k < nwho && who[k] != al->holder[i]; k++)
            ;
        if (k == nwho && nwho < MAX_HOLDERS)
            who[nwho++] = al->holder[i];
    }
    buf_init(&b, 4096);
    buf_addf(&b, "request '%s'", ai->name);
    if (ai->alt.all)
        buf_adds(&b, " (all matching devices)");
    else
        buf_addf(&b, " (%lld device%s)", ai->alt.count,
                 ai->alt.count == 1 ? "" : "s");
    buf_addf(&b, ": %zu of %zu matching device%s %s held", nheld, nmatch,
             nmatch == 1 ? "" : "s", nheld == 1 ? "is" : "are");
    for (k = 0; k < nwho; k++) {
        buf_adds(&b, k ? "; " : ": ");
        for (i = 0, shown = 0; i < m->ndevs; i++) {
            if (!ai->sel[i] || !al->taken[i] || al->holder[i] != who[k]
                || m->devs[i].multi)
                continue;
            if (shown++ < MAX_HELD)
                buf_addf(&b, "%s%s", shown > 1 ? ", " : "", m->devs[i].ref);
            else
                more++;
        }
        if (more)
            buf_addf(&b, " and %zu more", more);
        more = 0;
        buf_addf(&b, " by %s", who[k] ? claim_name(a, who[k]) : "?");
    }
    out = arena_strdup(a, b.p);
    buf_release(&b);
    return out;
}

struct waiter {
    const struct object *claim;
    struct lines *l;
    struct arena *a;
    size_t n;
};

/* Pending Pods that use the claim (by name or as their generated claim). */
static void waiter_fn(void *arg, const struct object *pod)
{
    struct waiter *w = arg;
    const struct tnode *st = tree_get(pod->root, "status");
    const struct tnode *gen = tree_get(st, "resourceClaimStatuses");
    const char *phase = tree_str(tree_get(st, "phase"));
    size_t i;
    int uses = 0;

    if (pod->kind != K_POD || strcmp(object_ns(pod), object_ns(w->claim))
        || !phase || strcmp(phase, "Pending"))
        return;
    for (i = 0; pod->pod && i < pod->pod->nclaims && !uses; i++)
        uses = pod->pod->claims[i].claim_name
               && !strcmp(pod->pod->claims[i].claim_name, w->claim->name);
    for (i = 0; tree_is_seq(gen) && i < gen->n && !uses; i++) {
        const char *nm = tree_str(tree_get(gen->kids[i],
                                           "resourceClaimName"));
        uses = nm && !strcmp(nm, w->claim->name);
    }
    if (uses && w->n++ < 2)
        line_add(w->l, arena_printf(w->a, "Pod %s is Pending, waiting for "
                                    "it", object_ref(w->a, pod)));
}

void check_claim_blocked(struct check_ctx *cx, const struct object *o)
{
    struct arena *a = cx_arena(cx);
    struct sat *s = sat_judge(cx);
    const struct allocated *al;
    struct alloc_problem now;
    struct alloc_result *res, nres;
    const struct tnode *st = tree_get(o->root, "status");
    const char *phase = tree_str(tree_get(st, "phase"));
    struct problem *pb;
    struct lines l;
    size_t c, r, k;

    if (!s->m || tree_get(o->metadata, "deletionTimestamp"))
        return;
    if (o->kind == K_CLAIM && tree_get(st, "allocation"))
        return;     /* it has its devices */
    if (o->kind == K_POD
        && (!phase || strcmp(phase, "Pending")
            || tree_str(tree_get(o->pod->spec, "nodeName"))))
        return;     /* scheduled, running or done */
    al = held_get(cx, s);
    if (!al->nheld)
        return;
    pb = solve(cx, s, o, &res);
    if (!pb || res->verdict != ALLOC_OK)
        return;     /* not even on an empty cluster: claim-unsatisfiable */
    now = pb->p;
    now.taken = al->taken;
    now.budget = cx_steps_left(cx);
    if (alloc_solve(obj_arena(s, o), s->m, &now, &nres) != ALLOC_FAIL) {
        cx_charge(cx, 0, nres.steps);
        return;
    }
    cx_charge(cx, 0, nres.steps);
    lines_init(a, &l);
    for (c = 0; c < pb->nclaims; c++)
        for (r = 0; r < pb->claims[c].nreqs; r++)
            for (k = 0; k < pb->claims[c].reqs[r].nalts; k++)
                line_add(&l, held_line(a, s->m, al,
                                       &pb->claims[c].reqs[r].alts[k]));
    if (o->kind == K_CLAIM) {
        struct waiter w = {o, &l, a, 0};
        cx_each(cx, K_POD, waiter_fn, &w);
        if (w.n > 2)
            line_add(&l, arena_printf(a, "and %zu more Pending Pods",
                                      w.n - 2));
    }
    lines_close(a, &l);
    if (o->kind == K_POD) {
        report_details(cx, o->pod->claims_node, l.v, l.n, "the pod is "
                       "Pending: %s cannot be allocated now, the devices "
                       "%s are held by other claims (on an empty cluster "
                       "%s)",
                       pb->nclaims == 1
                       ? arena_printf(a, "its claim '%s'", pb->claims[0].name)
                       : arena_printf(a, "its %zu claims together",
                                      pb->nclaims),
                       pb->nclaims == 1 ? "it needs" : "they need",
                       pb->nclaims == 1 ? "it could be" : "they could be");
        return;
    }
    report_details(cx, o->claim->requests_node, l.v, l.n, "the claim cannot "
                   "be allocated now: the devices it needs are held by "
                   "other claims (on an empty cluster it could be)");
}
