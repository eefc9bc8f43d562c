/*
 * satisfiability.c - rules that check claims, templates and Pods against
 * the devices of the inventory: selector-no-device, claim-unsatisfiable,
 * selector-runtime-error, claim-scarce. All silent without devices.
 *
 * The device model is the inventory's (built once per snapshot) unless the
 * linted input itself holds ResourceSlices or Nodes: then one model of
 * input + inventory objects is built once per run (cx_memo). Selector
 * results are cached per run by expression text, so a class used by a
 * thousand claims is evaluated once. The allocator (validate/allocate.h)
 * answers; this file turns its answers into bounded explanations.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../validate/allocate.h"
#include "../validate/arena.h"
#include "../validate/cel/cel.h"
#include "../validate/inventory.h"
#include "../validate/object.h"
#include "../validate/strmap.h"
#include "../validate/tree.h"
#include "checks.h"
#include "dra_util.h"
#include "rules.h"

#define MAX_DETAILS 10          /* explanation lines per finding */
#define MAX_MISSES 3            /* nearest misses shown */
#define CLIP 100                /* clause text shown, in bytes */

/* ==== per-run state ====================================================== */

struct selres {                 /* one selector or clause text */
    int ok;                     /* compiled */
    struct alloc_match match;   /* the model's shared results (a copy of
                                   the header; vectors are the model's) */
};

struct sat {
    const struct devmodel *m;   /* NULL: no devices, every rule silent */
    struct strmap sel;          /* expression text -> struct selres * */
    size_t nodes_with_devices;
    int input_only;             /* the devices come from the linted input
                                   alone (no --inventory slices): judge
                                   only claims of drivers it has */
    /* the last object solved (claim-scarce and claim-unsatisfiable ask
     * about the same object one after the other) */
    const struct object *last_obj;
    const char *last_file;
    unsigned last_doc;
    int last_status;
    struct alloc_result last;
    struct problem *last_pb;
    /* per-object vectors (selector results per device, search state) live
     * in a scratch arena cleared when the next object comes */
    struct arena scratch;
    const struct object *cur_obj;
    const char *cur_file;
    unsigned cur_doc;
};

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

static struct sat *sat_get(struct check_ctx *cx)
{
    void **slot = cx_memo(cx, "satisfiability");
    struct sat *s = *slot;
    struct collect c;
    size_t i;

    if (s)
        return s;
    s = arena_alloc(cx_arena(cx), sizeof(*s));
    strmap_init(&s->sel, cx_arena(cx));
    arena_init(&s->scratch, 256 * 1024);
    cx_at_run_end(cx, scratch_release, s);
    memset(&c, 0, sizeof(c));
    c.a = cx_arena(cx);
    if (cx_input_has(cx, K_SLICE | K_NODE))
        cx_each(cx, K_SLICE | K_NODE, collect_fn, &c);
    if (c.input) {
        struct devmodel *own = devmodel_build(cx_arena(cx), c.v, c.n);
        cx_at_run_end(cx, model_release, own);
        s->m = own;
        s->input_only = !cx_inventory_has(cx, K_SLICE);
    } else
        s->m = inventory_devices(cx_inventory(cx));
    if (s->m && !s->m->ndevs)
        s->m = NULL;
    if (s->m) {
        for (i = 0; i < s->m->nnodes; i++)
            if (s->m->nodes[i].nlocal || s->m->nshared)
                s->nodes_with_devices++;
    }
    *slot = s;
    return s;
}

/* The results of one selector (or clause) text over every device. */
static struct selres *selres_get(struct check_ctx *cx, struct sat *s,
                                 const char *expr)
{
    struct selres *r = strmap_get(&s->sel, expr);
    struct cel_env env = {1, 1, 0};
    const struct alloc_match *mt;
    struct cel_error err;

    if (r)
        return r;
    r = arena_alloc(cx_arena(cx), sizeof(*r));
    mt = alloc_eval_cached(s->m, &env, expr, cx_arena(cx), &err);
    if (mt) {
        r->ok = 1;
        r->match = *mt;
    }
    strmap_put(&s->sel, expr, r);
    return r;
}

/* ==== requests as the allocator sees them ================================ */

struct selref {
    const struct selector *s;
    int from_class;
    size_t index;               /* position in its list, for messages */
    struct selres *res;
};

struct altinfo {
    const struct devreq *r;
    const char *name;           /* "gpu" or "gpu/big" */
    const struct object *cls;
    struct selref *sels;
    size_t nsels;
    unsigned char *sel;         /* combined: 1 when every selector is true */
    size_t nyes;
    size_t *err_sel;            /* per device: failing selector + 1, or 0 */
    const char **err_msg;       /* per device */
    size_t nerr;
    size_t nfit;                /* devices passing selectors + capacity */
    struct alloc_capreq *caps;
    size_t ncaps;
    struct alloc_alt alt;
};

struct reqinfo {
    const struct devreq *r;
    struct altinfo *alts;
    size_t nalts;
};

struct claiminfo {
    const struct object *obj;   /* the claim or template */
    const char *name;           /* for messages */
    struct reqinfo *reqs;
    size_t nreqs;
    int usable;                 /* every request resolved */
    int any_error;              /* a runtime error somewhere */
    int any_empty;              /* a request no device matches at all */
    struct alloc_claim ac;
};

static int alt_build(struct check_ctx *cx, struct sat *s, struct arena *a,
                     const struct devreq *r, const char *name,
                     struct altinfo *ai)
{
    const struct devmodel *m = s->m;
    const struct classspec *cs = NULL;
    const struct tnode *creq;
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
    for (i = 0; i < cs->nsel + r->nsel; i++) {
        const struct selector *sel = i < cs->nsel ? &cs->sel[i]
                                                  : &r->sel[i - cs->nsel];
        struct selref *sr = &ai->sels[n++];
        if (!sel->expr)
            return -1;
        sr->s = sel;
        sr->from_class = i < cs->nsel;
        sr->index = i < cs->nsel ? i : i - cs->nsel;
        sr->res = selres_get(cx, s, sel->expr);
        if (!sr->res->ok)
            return -1;
    }
    ai->nsels = n;
    /* combine in order: the first error or false decides */
    ai->sel = arena_alloc(a, m->ndevs + 1);
    for (i = 0; i < m->ndevs; i++) {
        int v = 1;
        for (k = 0; k < n && v == 1; k++) {
            const struct alloc_match *mt = &ai->sels[k].res->match;
            if (mt->v[i] == AM_NO) {
                v = 0;
            } else if (mt->v[i] == AM_ERR) {
                v = 0;
                if (!ai->err_sel) {
                    ai->err_sel = arena_alloc(a, m->ndevs * sizeof(size_t));
                    ai->err_msg = arena_alloc(a, m->ndevs * sizeof(char *));
                }
                ai->err_sel[i] = k + 1;
                ai->err_msg[i] = mt->err[i];
                ai->nerr++;
            }
        }
        ai->sel[i] = (unsigned char)v;
        ai->nyes += (size_t)v;
    }
    /* capacity.requests */
    creq = tree_get(r->capacity, "requests");
    if (tree_is_map(creq) && creq->n) {
        ai->caps = arena_alloc(a, creq->n * sizeof(*ai->caps));
        for (i = 0; i < creq->n; i++) {
            struct alloc_capreq *c = &ai->caps[ai->ncaps];
            c->name = creq->kids[i]->key;
            c->text = tree_text(creq->kids[i]);
            if (qty_parse(c->text, &c->q) < 0)
                return -1;
            ai->ncaps++;
        }
    }
    ai->alt.name = name;
    ai->alt.sel = ai->sel;
    ai->alt.all = r->mode && !strcmp(r->mode, "All");
    ai->alt.count = ai->alt.all ? 0 : r->count;
    ai->alt.admin = r->admin_access;
    ai->alt.tolerations = r->tolerations;
    ai->alt.caps = ai->caps;
    ai->alt.ncaps = ai->ncaps;
    if (!ai->alt.all && ai->alt.count < 1)
        return -1;
    for (i = 0; i < m->ndevs; i++)
        if (ai->sel[i] && (!ai->ncaps
                           || alloc_device_fits(a, &m->devs[i], &ai->alt,
                                                NULL)))
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

/* ==== explanation helpers ================================================ */

static const char *clip(struct arena *a, const char *s)
{
    size_t n = strlen(s);

    while (n && (s[n - 1] == ' ' || s[n - 1] == '\n'))
        n--;
    if (n <= CLIP)
        return arena_strndup(a, s, n);
    return arena_printf(a, "%.*s...", CLIP - 3, s);
}

static const char *attr_value(struct arena *a, const struct cel_attr *at)
{
    switch (at->type) {
    case CEL_ATTR_INT:
        return arena_printf(a, "%lld", at->i);
    case CEL_ATTR_BOOL:
        return at->b ? "true" : "false";
    case CEL_ATTR_STRING:
        return arena_printf(a, "\"%s\"", at->s);
    case CEL_ATTR_VERSION:
        return at->s;
    case CEL_ATTR_INTS:
    case CEL_ATTR_BOOLS:
    case CEL_ATTR_STRINGS:
    case CEL_ATTR_VERSIONS:
        return arena_printf(a, "[%zu values]", at->nv);
    }
    return "?";
}

/* The attributes and capacities a clause reads (cel_device_refs), once
 * each, in the order it reads them. */
struct dref {
    int what;                   /* CEL_REF_ATTR or CEL_REF_CAP */
    const char *dom, *id;
};

struct drefs {
    struct arena *a;
    struct dref *v;
    size_t n, cap;
};

static void dref_add(void *ctx, int what, const char *dom, const char *id)
{
    struct drefs *r = ctx;
    size_t i;

    if (what != CEL_REF_ATTR && what != CEL_REF_CAP)
        return;
    for (i = 0; i < r->n; i++)
        if (r->v[i].what == what && !strcmp(r->v[i].dom, dom)
            && !strcmp(r->v[i].id, id))
            return;
    if (r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 4;
        r->v = arena_grow(r->a, r->v, r->n, r->cap, sizeof(*r->v));
    }
    r->v[r->n].what = what;
    r->v[r->n].dom = arena_strdup(r->a, dom);
    r->v[r->n++].id = arena_strdup(r->a, id);
}

/* "productName=\"A100\", memory 40Gi": the device's values of every
 * attribute or capacity the clause reads; "" if none. */
static const char *values_named(struct arena *a, const struct dm_device *d,
                                const struct drefs *refs)
{
    char out[256];
    size_t len = 0, i, k;

    out[0] = 0;
    for (k = 0; k < refs->n; k++) {
        const struct dref *r = &refs->v[k];
        for (i = 0; r->what == CEL_REF_ATTR && i < d->cel.nattrs
                    && len < sizeof(out) - 1; i++)
            if (!strcmp(d->cel.attrs[i].id, r->id)
                && !strcmp(d->cel.attrs[i].domain, r->dom))
                len += (size_t)snprintf(out + len, sizeof(out) - len,
                                        "%s%s=%s", len ? ", " : "",
                                        d->cel.attrs[i].id,
                                        attr_value(a, &d->cel.attrs[i]));
        for (i = 0; r->what == CEL_REF_CAP && i < d->cel.ncaps
                    && len < sizeof(out) - 1; i++)
            if (!strcmp(d->cel.caps[i].id, r->id)
                && !strcmp(d->cel.caps[i].domain, r->dom))
                len += (size_t)snprintf(out + len, sizeof(out) - len,
                                        "%s%s %s", len ? ", " : "",
                                        d->cel.caps[i].id,
                                        d->cel.caps[i].quantity);
        if (len >= sizeof(out))
            len = sizeof(out) - 1;
    }
    return arena_strdup(a, out);
}

/* s without the blanks around it */
static const char *trim(struct arena *a, const char *s)
{
    size_t n;

    while (*s == ' ' || *s == '\n' || *s == '\t')
        s++;
    n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\n' || s[n - 1] == '\t'))
        n--;
    return arena_strndup(a, s, n);
}

struct lines {
    const char **v;
    size_t n, more;
};

static void line_add(struct lines *l, const char *s)
{
    if (l->n < MAX_DETAILS - 1)
        l->v[l->n++] = s;
    else
        l->more++;
}

/* 1 when the next line would only be counted ("... and N more"). */
static int lines_full(const struct lines *l)
{
    return l->n >= MAX_DETAILS - 1;
}

static void lines_init(struct arena *a, struct lines *l)
{
    l->v = arena_alloc(a, (MAX_DETAILS + 1) * sizeof(*l->v));
    l->n = 0;
    l->more = 0;
}

static void lines_close(struct arena *a, struct lines *l)
{
    if (l->more)
        l->v[l->n++] = arena_printf(a, "... and %zu more", l->more);
}

/* Pools whose slices are not all there: their missing devices are not in
 * the answer (the scheduler waits for them too). */
static void pool_note(struct arena *a, const struct sat *s, struct lines *l)
{
    size_t i;

    for (i = 0; i < s->m->npools; i++) {
        const struct dm_pool *p = &s->m->pools[i];
        if ((long long)p->slices_seen >= p->slice_count)
            continue;
        line_add(l, arena_printf(a, "note: pool '%s' of %s is incomplete "
                                 "(%zu of %lld slices): its other devices "
                                 "are not known", p->name, p->driver,
                                 p->slices_seen, p->slice_count));
        if (s->m->nincomplete > 1)
            line_add(l, arena_printf(a, "note: %zu more incomplete pools",
                                     s->m->nincomplete - 1));
        return;
    }
}

/* ==== selector-no-device ================================================= */

struct clause {
    const char *text;
    const char *owner;          /* "class 'x'" or "request" */
    struct selres *res;         /* NULL for a capacity request */
    const struct alloc_capreq *cap;
    size_t rejects;
    struct drefs refs;          /* the fields the clause reads */
    struct cel_comparison cmp;  /* when has_cmp: its comparison */
    int has_cmp;
};

/* The device's side of a failed comparison clause: "memory 40Gi < 80Gi"
 * for `X.memory.compareTo(quantity('80Gi')) >= 0` or isGreaterThan,
 * "cores 16 < 32" for `X.cores >= 32` on an int attribute, with *dist
 * how far the device is from passing. NULL when the clause is no such
 * comparison or the device lacks the field. */
static double qty_double(struct qty q)
{
    return (double)q.hi * 18446744073709551616.0 + (double)q.lo;
}

static const char *comparison(struct arena *a, const struct dm_device *d,
                              const struct clause *cl, double *dist)
{
    const struct cel_comparison *c = &cl->cmp;
    size_t i;

    if (!cl->has_cmp)
        return NULL;
    for (i = 0; c->is_quantity && i < d->cel.ncaps; i++) {
        struct qty w;
        if (strcmp(d->cel.caps[i].id, c->id)
            || strcmp(d->cel.caps[i].domain, c->domain))
            continue;
        if (qty_parse(c->quantity, &w) == 0) {
            double x = qty_double(d->cap_value[i]) - qty_double(w);
            *dist = x < 0 ? -x : x;
        }
        return arena_printf(a, "%s %s %s %s", c->id, d->cel.caps[i].quantity,
                            c->fails, c->quantity);
    }
    for (i = 0; !c->is_quantity && i < d->cel.nattrs; i++) {
        const struct cel_attr *at = &d->cel.attrs[i];
        double x;
        if (at->type != CEL_ATTR_INT || strcmp(at->id, c->id)
            || strcmp(at->domain, c->domain))
            continue;
        x = (double)at->i - (double)c->i;
        *dist = x < 0 ? -x : x;
        return arena_printf(a, "%s %lld %s %lld", at->id, at->i, c->fails,
                            c->i);
    }
    return NULL;
}

/* Why device i fails the first clause it fails, with its values. */
static const char *miss_reason(struct arena *a, struct sat *s,
                               const struct altinfo *ai,
                               const struct clause *cl, size_t ncl, size_t i,
                               double *dist)
{
    const struct dm_device *d = &s->m->devs[i];
    size_t k;

    for (k = 0; k < ncl; k++) {
        if (cl[k].res && cl[k].res->match.v[i] != AM_YES) {
            const char *vals = comparison(a, d, &cl[k], dist);
            if (!vals)
                vals = values_named(a, d, &cl[k].refs);
            if (cl[k].res->match.v[i] == AM_ERR)
                return arena_printf(a, "`%s`: %s", clip(a, cl[k].text),
                                    cl[k].res->match.err[i]);
            return arena_printf(a, "fails `%s`%s%s%s", clip(a, cl[k].text),
                                *vals ? " (" : "", vals, *vals ? ")" : "");
        }
        if (cl[k].cap) {
            struct alloc_alt one = ai->alt;
            struct dm_device plain = *d;
            const char *why = NULL;
            one.caps = cl[k].cap;
            one.ncaps = 1;
            plain.taints = NULL;
            if (!alloc_device_fits(a, &plain, &one, &why)) {
                long c = -1;
                size_t j;
                for (j = 0; j < d->cel.ncaps && c < 0; j++)
                    if (!strcmp(d->cel.caps[j].id,
                                strrchr(cl[k].cap->name, '/')
                                ? strrchr(cl[k].cap->name, '/') + 1
                                : cl[k].cap->name))
                        c = (long)j;
                if (c >= 0) {
                    double x = qty_double(d->cap_value[c])
                               - qty_double(cl[k].cap->q);
                    *dist = x < 0 ? -x : x;
                }
                return why ? why : "capacity";
            }
        }
    }
    return NULL;
}

struct miss {
    const char *why;
    size_t dev, alike;
    double dist;
};

static int miss_cmp(const void *x, const void *y)
{
    const struct miss *a = x, *b = y;

    if (a->dist != b->dist)
        return a->dist < b->dist ? -1 : 1;
    return a->dev < b->dev ? -1 : a->dev > b->dev;
}

static int compile_clause(struct arena *a, const char *text,
                          struct cel_program **p)
{
    struct cel_env env = {1, 1, 0};
    struct cel_error err;

    return cel_compile(a, &env, text, strlen(text), p, &err);
}

/* What the syntax tree says about a clause: the fields it reads and the
 * comparison it is, if one (p: the clause compiled, or NULL to compile
 * its text). */
static void clause_facts(struct arena *a, struct clause *c,
                         struct cel_program *p)
{
    c->refs.a = a;
    if (!p && compile_clause(a, c->text, &p) < 0)
        return;
    cel_device_refs(p, dref_add, &c->refs);
    c->has_cmp = cel_comparison_of(p, &c->cmp) == 0;
}

/* Explains why no device passes alternative ai: per clause how many
 * devices it rejects, then the devices that fail the fewest clauses. */
static void explain_no_device(struct check_ctx *cx, struct sat *s,
                              const struct altinfo *ai, struct lines *l)
{
    struct arena *a = cx_arena(cx);
    const struct devmodel *m = s->m;
    struct clause cl[64];
    size_t ncl = 0, i, k, best = SIZE_MAX, shown = 0;
    unsigned char *fails = arena_alloc(&s->scratch, m->ndevs + 1);
    struct miss miss[64];
    size_t nmiss = 0;

    for (i = 0; i < ai->nsels && ncl < 60; i++) {
        const char *expr = ai->sels[i].s->expr;
        struct cel_program *p = NULL;
        struct cel_span parts[16];
        size_t np = 1;
        const char *owner = ai->sels[i].from_class
            ? arena_printf(a, "class '%s'", ai->r->class_name)
            : "request";
        if (compile_clause(a, expr, &p) == 0)
            np = cel_conjuncts(&s->scratch, p, parts, 16);
        for (k = 0; k < np && ncl < 60; k++) {
            struct clause *c = &cl[ncl];
            struct selres *r;
            memset(c, 0, sizeof(*c));
            c->text = !p ? trim(a, expr)
                         : arena_strndup(a, expr + parts[k].offset,
                                         parts[k].len);
            r = np == 1 ? ai->sels[i].res : selres_get(cx, s, c->text);
            if (!r->ok)
                r = ai->sels[i].res;
            c->owner = owner;
            c->res = r;
            c->rejects = m->ndevs - r->match.nyes;
            clause_facts(a, c, np == 1 ? p : NULL);
            ncl++;
        }
    }
    for (i = 0; i < ai->ncaps && ncl < 64; i++) {
        struct clause *c = &cl[ncl++];
        memset(c, 0, sizeof(*c));
        c->text = arena_printf(a, "capacity.requests %s: %s",
                               ai->caps[i].name, ai->caps[i].text);
        c->owner = "request";
        c->cap = &ai->caps[i];
    }
    /* per device: how many clauses fail */
    for (i = 0; i < m->ndevs; i++) {
        unsigned f = 0;
        for (k = 0; k < ncl; k++) {
            int ok;
            if (cl[k].res) {
                ok = cl[k].res->match.v[i] == AM_YES;
            } else {
                struct alloc_alt one = ai->alt;
                struct dm_device plain = m->devs[i];
                one.caps = cl[k].cap;
                one.ncaps = 1;
                plain.taints = NULL;    /* capacity only */
                ok = alloc_device_fits(a, &plain, &one, NULL);
                if (!ok)
                    cl[k].rejects++;
            }
            f += !ok;
        }
        fails[i] = (unsigned char)(f > 255 ? 255 : f);
        if (f && f < best)
            best = f;
    }
    for (k = 0; k < ncl; k++)
        if (cl[k].rejects)
            line_add(l, arena_printf(a, "%s: `%s` rejects %zu of %zu "
                                     "device%s", cl[k].owner,
                                     clip(a, cl[k].text), cl[k].rejects,
                                     m->ndevs, m->ndevs == 1 ? "" : "s"));
    /* nearest misses: the devices failing the fewest clauses, one line
     * per distinct reason with how many devices share it, closest value
     * first when the failed clause is a comparison */
    for (i = 0; i < m->ndevs && best != SIZE_MAX; i++) {
        double dist = 1e300;
        const char *why;
        if (fails[i] != best)
            continue;
        why = miss_reason(&s->scratch, s, ai, cl, ncl, i, &dist);
        if (!why)
            continue;
        for (k = 0; k < nmiss; k++)
            if (!strcmp(miss[k].why, why))
                break;
        if (k < nmiss) {
            miss[k].alike++;
        } else if (nmiss < 64) {
            miss[nmiss].why = why;
            miss[nmiss].dev = i;
            miss[nmiss].alike = 0;
            miss[nmiss++].dist = dist;
        }
    }
    qsort(miss, nmiss, sizeof(*miss), miss_cmp);
    for (k = 0; k < nmiss && shown < MAX_MISSES; k++, shown++)
        line_add(l, arena_printf(a, "nearest miss %s: %s%s%s",
                                 m->devs[miss[k].dev].ref, miss[k].why,
                                 best > 1 ? arena_printf(a, " and %zu more "
                                                         "clause%s", best - 1,
                                                         best > 2 ? "s" : "")
                                          : "",
                                 miss[k].alike
                                 ? arena_printf(a, " (%zu more device%s "
                                                "alike)", miss[k].alike,
                                                miss[k].alike == 1 ? "" : "s")
                                 : ""));
}

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
    struct sat *s = sat_get(cx);
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
        pool_note(cx_arena(cx), s, &l);
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
        r = selres_get(cx, s, cs->sel[k].expr);
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

void check_selector_runtime_error(struct check_ctx *cx,
                                  const struct object *o)
{
    struct sat *s = sat_get(cx);
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
    claim_build(cx, s, obj_arena(s, o), o, o->claim, o->name, &ci);
    if (!ci.usable)
        return;
    for (i = 0; i < ci.nreqs; i++)
        for (k = 0; k < ci.reqs[i].nalts; k++)
            if (ci.reqs[i].alts[k].nerr)
                report_errors(cx, s, &ci.reqs[i].alts[k]);
}

/* ==== claim-unsatisfiable and claim-scarce =============================== */

struct problem {
    struct claiminfo *claims;
    size_t nclaims;
    struct alloc_claim *ac;
    struct alloc_problem p;
    int usable;
    int pod;
    int lone_fail_input;        /* a claim of the input fails on its own */
};

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
    alloc_solve(a, s->m, &pb->p, &s->last);
    /* a Pod whose input claim fails alone: that claim reports it */
    if (pb->pod && s->last.verdict == ALLOC_FAIL) {
        for (i = 0; i < pb->nclaims; i++) {
            struct alloc_problem one;
            struct alloc_result res;
            if (pb->claims[i].obj->inventory)
                continue;
            memset(&one, 0, sizeof(one));
            one.claims = &pb->ac[i];
            one.nclaims = 1;
            if (alloc_solve(a, s->m, &one, &res) == ALLOC_FAIL)
                pb->lone_fail_input = 1;
        }
    }
    s->last_status = 1;
    return pb;
}

static const char *req_name(const struct problem *pb, size_t c, size_t r)
{
    const struct claiminfo *ci = &pb->claims[c];

    return ci->reqs[r].r->name;
}

/* "2+2" (+ "1 without it"): how a constraint's attribute splits the
 * devices of its requests on one node. */
static const char *split_text(struct arena *a, const struct devmodel *m,
                              const struct problem *pb, size_t c,
                              const struct alloc_constraint *k, size_t node)
{
    const struct cel_attr *vals[64];
    size_t cnt[64], nv = 0, without = 0, i, j, r, x;
    char out[160];
    size_t len = 0;
    const struct claiminfo *ci = &pb->claims[c];

    const struct dm_node *nd = &m->nodes[node];
    size_t t;

    for (t = 0; t < nd->nlocal + m->nshared; t++) {
        int use = 0;
        const struct cel_attr *at;
        i = t < nd->nlocal ? nd->local[t] : m->shared[t - nd->nlocal];
        if (t >= nd->nlocal && !dm_device_on_node(m, i, node))
            continue;
        for (r = 0; r < ci->nreqs && !use; r++)
            for (x = 0; x < ci->reqs[r].nalts && !use; x++) {
                const struct altinfo *ai = &ci->reqs[r].alts[x];
                int applies = !k->nreqs;
                for (j = 0; j < k->nreqs && !applies; j++)
                    applies = !strcmp(k->reqs[j], ci->reqs[r].r->name)
                              || !strcmp(k->reqs[j], ai->name);
                use = applies && ai->sel[i]
                      && ((!ai->ncaps && !m->devs[i].taints)
                          || alloc_device_fits(a, &m->devs[i], &ai->alt,
                                               NULL));
            }
        if (!use)
            continue;
        at = dm_attr(&m->devs[i], k->attr);
        if (!at) {
            without++;
            continue;
        }
        for (j = 0; j < nv; j++)
            if (vals[j]->type == at->type
                && ((at->type == CEL_ATTR_INT && vals[j]->i == at->i)
                    || (at->type == CEL_ATTR_BOOL && vals[j]->b == at->b)
                    || ((at->type == CEL_ATTR_STRING
                         || at->type == CEL_ATTR_VERSION)
                        && !strcmp(vals[j]->s, at->s))))
                break;
        if (j == nv && nv < 64) {
            vals[nv] = at;
            cnt[nv++] = 0;
        }
        if (j < 64)
            cnt[j]++;
    }
    out[0] = 0;
    for (j = 0; j < nv && len < sizeof(out) - 16; j++)
        len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%zu",
                                j ? "+" : "", cnt[j]);
    if (without && len < sizeof(out) - 32)
        len += (size_t)snprintf(out + len, sizeof(out) - len,
                                "%s%zu without it", len ? ", " : "",
                                without);
    return arena_strdup(a, out);
}

/* "requests 'a', 'b' need 6 devices together, 4 can serve them": what
 * the requests
 * need together (their smallest alternatives) against the devices of the
 * node any of them can use, or "". */
static const char *exclusive_example(struct arena *a,
                                     const struct devmodel *m,
                                     const struct problem *pb, size_t node)
{
    const struct dm_node *nd = &m->nodes[node];
    const char *names = "";
    long long need = 0;
    size_t t, c, r, k, usable = 0, nreq = 0;

    for (c = 0; c < pb->nclaims; c++)
        for (r = 0; r < pb->claims[c].nreqs; r++) {
            const struct reqinfo *ri = &pb->claims[c].reqs[r];
            long long least = -1;
            for (k = 0; k < ri->nalts; k++) {
                long long n = ri->alts[k].alt.all ? 1 : ri->alts[k].alt.count;
                if (ri->alts[k].alt.admin)
                    n = 0;
                if (least < 0 || n < least)
                    least = n;
            }
            need += least > 0 ? least : 0;
            if (nreq++ < 4)
                names = arena_printf(a, "%s%s'%s%s%s'", names,
                                     *names ? ", " : "",
                                     pb->pod ? pb->claims[c].name : "",
                                     pb->pod ? "/" : "", ri->r->name);
        }
    for (t = 0; t < nd->nlocal + m->nshared; t++) {
        size_t i = t < nd->nlocal ? nd->local[t] : m->shared[t - nd->nlocal];
        int use = 0;
        if (t >= nd->nlocal && !dm_device_on_node(m, i, node))
            continue;
        for (c = 0; c < pb->nclaims && !use; c++)
            for (r = 0; r < pb->claims[c].nreqs && !use; r++)
                for (k = 0; k < pb->claims[c].reqs[r].nalts && !use; k++) {
                    const struct altinfo *ai = &pb->claims[c].reqs[r].alts[k];
                    use = ai->sel[i]
                          && ((!ai->ncaps && !m->devs[i].taints)
                              || alloc_device_fits(a, &m->devs[i], &ai->alt,
                                                   NULL));
                }
        usable += (size_t)use;
    }
    if (nreq < 2 || need <= (long long)usable)
        return "";
    return arena_printf(a, "requests %s%s need %lld devices together, %zu "
                        "can serve them", names, nreq > 4 ? ", ..." : "",
                        need, usable);
}

/* " (counter set 'gpu-0-counters' holds memory 40Gi, gpu-0-mig-a takes
 * 20Gi)" for the first matching device on the node that consumes
 * counters, or "". */
static const char *counter_example(struct arena *a, const struct devmodel *m,
                                   const struct problem *pb, size_t node)
{
    const struct dm_node *nd = &m->nodes[node];
    size_t t, c, r, k, j;

    for (t = 0; t < nd->nlocal + m->nshared; t++) {
        size_t i = t < nd->nlocal ? nd->local[t] : m->shared[t - nd->nlocal];
        const struct dm_device *d = &m->devs[i];
        const struct dm_consume *cu;
        const struct dm_counterset *set;
        int use = 0;
        if (!d->nconsumes || (t >= nd->nlocal && !dm_device_on_node(m, i,
                                                                   node)))
            continue;
        for (c = 0; c < pb->nclaims && !use; c++)
            for (r = 0; r < pb->claims[c].nreqs && !use; r++)
                for (k = 0; k < pb->claims[c].reqs[r].nalts && !use; k++)
                    use = pb->claims[c].reqs[r].alts[k].sel[i];
        cu = &d->consumes[0];
        if (!use || cu->set == SIZE_MAX || !cu->n)
            continue;
        set = &m->pools[d->pool_idx].sets[cu->set];
        for (j = 0; j < set->n; j++)
            if (!strcmp(set->c[j].name, cu->c[0].name))
                return arena_printf(a, " (counter set '%s' holds %s %s, %s "
                                    "takes %s)", set->name, set->c[j].name,
                                    set->c[j].text, d->name,
                                    cu->c[0].text);
    }
    return "";
}

static const char *node_line(struct arena *a, const struct devmodel *m,
                             const struct problem *pb,
                             const struct alloc_node *f)
{
    const char *node = m->nodes[f->node].name;
    const char *cl = pb->pod
        ? arena_printf(a, "claim '%s' ", pb->claims[f->claim].name) : "";

    switch (f->why) {
    case WHY_NODENAME:
        return arena_printf(a, "%s: the pod's nodeName is '%s'", node,
                            pb->p.node_name);
    case WHY_NODESELECTOR:
        return arena_printf(a, "%s: the pod's nodeSelector excludes it",
                            node);
    case WHY_AFFINITY:
        return arena_printf(a, "%s: the pod's required node affinity "
                            "excludes it", node);
    case WHY_COUNT: {
        const struct reqinfo *ri = &pb->claims[f->claim].reqs[f->req];
        const char *need = "";
        size_t k;
        if (ri->nalts > 1) {
            for (k = 0; k < ri->nalts; k++)
                need = arena_printf(a, "%s%s%s", need, k ? ", " : "",
                                    ri->alts[k].alt.all ? "All"
                                    : arena_printf(a, "%lld",
                                                   ri->alts[k].alt.count));
            return arena_printf(a, "%s: %lld device%s for %srequest '%s', "
                                "its alternatives need %s", node, f->have,
                                f->have == 1 ? "" : "s", cl,
                                req_name(pb, f->claim, f->req), need);
        }
        if (f->need == 0)
            return arena_printf(a, "%s: no usable device for %srequest '%s'",
                                node, cl, req_name(pb, f->claim, f->req));
        return arena_printf(a, "%s: %lld of %lld devices for %srequest '%s'",
                            node, f->have, f->need, cl,
                            req_name(pb, f->claim, f->req));
    }
    case WHY_CONSTRAINT:
        if (f->cons != SIZE_MAX) {
            const struct alloc_constraint *k =
                &pb->ac[f->claim].cons[f->cons];
            return arena_printf(a, "%s: %sconstraint %s %s: the devices "
                                "split %s", node, cl,
                                k->distinct ? "distinctAttribute"
                                            : "matchAttribute",
                                k->attr, split_text(a, m, pb, f->claim, k,
                                                    f->node));
        }
        return arena_printf(a, "%s: the constraints cannot be met together",
                            node);
    case WHY_COUNTERS:
        return arena_printf(a, "%s: the devices' consumesCounters exceed "
                            "the pool's sharedCounters%s", node,
                            counter_example(a, m, pb, f->node));
    case WHY_EXCLUSIVE: {
        const char *ex = exclusive_example(a, m, pb, f->node);
        if (*ex)
            return arena_printf(a, "%s: %s (each device goes to one "
                                "request)", node, ex);
        return arena_printf(a, "%s: the requests compete for the same "
                            "devices (each device goes to one request)",
                            node);
    }
    case WHY_TOGETHER:
    case WHY_BUDGET:
        break;
    }
    return arena_printf(a, "%s: no combination of devices satisfies every "
                        "request", node);
}

/* Devices a request's selectors admit but its tolerations do not; one
 * line per distinct finding, naming every request it applies to. */
static void taint_lines(struct check_ctx *cx, struct sat *s,
                        const struct problem *pb, struct lines *l)
{
    struct arena *a = cx_arena(cx);
    const char *names[16], *tails[16];
    size_t nt = 0, c, r, k, i, j;

    for (c = 0; c < pb->nclaims; c++)
        for (r = 0; r < pb->claims[c].nreqs; r++)
            for (k = 0; k < pb->claims[c].reqs[r].nalts; k++) {
                const struct altinfo *ai = &pb->claims[c].reqs[r].alts[k];
                const char *ex = NULL, *why = NULL, *tail, *name;
                size_t n = 0;
                for (i = 0; i < s->m->ndevs; i++) {
                    if (!ai->sel[i] || !s->m->devs[i].taints)
                        continue;
                    if (!alloc_device_fits(&s->scratch, &s->m->devs[i],
                                           &ai->alt, &why) && why
                        && !strncmp(why, "taint", 5)) {
                        if (!n)
                            ex = arena_printf(a, "%s (%s)",
                                              s->m->devs[i].ref, why);
                        n++;
                    }
                }
                if (!n)
                    continue;
                tail = arena_printf(a, "%zu matching device%s tainted, "
                                    "e.g. %s", n, n == 1 ? " is" : "s are",
                                    ex);
                name = pb->pod ? arena_printf(a, "'%s/%s'",
                                              pb->claims[c].name, ai->name)
                               : arena_printf(a, "'%s'", ai->name);
                for (j = 0; j < nt; j++)
                    if (!strcmp(tails[j], tail))
                        break;
                if (j < nt) {
                    names[j] = arena_printf(a, "%s, %s", names[j], name);
                } else if (nt < 16) {
                    names[nt] = name;
                    tails[nt++] = tail;
                }
            }
    for (j = 0; j < nt; j++)
        line_add(l, arena_printf(a, "%s %s: %s",
                                 strchr(names[j], ',') ? "requests"
                                                       : "request",
                                 names[j], tails[j]));
}

/* Per-node reasons, nodes with the same reason on one line ("gpu-node-7
 * and 412 more nodes: ..."): nodes with devices first, then the ones the
 * Pod's placement excludes. At most max lines in l; the rest is counted. */
static void node_groups(struct arena *a, struct sat *s,
                        const struct problem *pb,
                        const struct alloc_result *res, struct lines *l,
                        size_t max)
{
    struct group {
        const char *reason;
        size_t first, count;
    } g[64];
    const char **alike = arena_alloc(&s->scratch,
                                     ALLOC_ALIKE * sizeof(*alike));
    size_t ng = 0, pass, i, k, shown = 0, other = 0;

    for (pass = 0; pass < 2; pass++)
        for (i = 0; i < res->nfails; i++) {
            const struct alloc_node *f = &res->fails[i];
            const char *line, *reason;
            if ((f->why < WHY_COUNT) != (pass == 1))
                continue;
            /* nodes alike have the same explanation: compute it once */
            if (f->alike < ALLOC_ALIKE && alike[f->alike]) {
                reason = alike[f->alike];
            } else {
                line = node_line(&s->scratch, s->m, pb, f);
                reason = line + strlen(s->m->nodes[f->node].name) + 2;
                if (f->alike < ALLOC_ALIKE)
                    alike[f->alike] = reason;
            }
            for (k = 0; k < ng; k++)
                if (!strcmp(g[k].reason, reason))
                    break;
            if (k < ng) {
                g[k].count++;
            } else if (ng < 64) {
                g[ng].reason = reason;
                g[ng].first = f->node;
                g[ng++].count = 1;
            } else {
                other++;
            }
        }
    for (k = 0; k < ng; k++) {
        if (shown >= max || lines_full(l)) {
            other += g[k].count;
            continue;
        }
        shown++;
        if (g[k].count == 1)
            line_add(l, arena_printf(a, "%s: %s",
                                     s->m->nodes[g[k].first].name,
                                     g[k].reason));
        else
            line_add(l, arena_printf(a, "%s and %zu more node%s: %s",
                                     s->m->nodes[g[k].first].name,
                                     g[k].count - 1,
                                     g[k].count == 2 ? "" : "s",
                                     g[k].reason));
    }
    if (other)
        line_add(l, arena_printf(a, "%zu more node%s for other reasons",
                                 other, other == 1 ? "" : "s"));
}

void check_claim_unsatisfiable(struct check_ctx *cx, const struct object *o)
{
    struct arena *a = cx_arena(cx);
    struct sat *s = sat_get(cx);
    struct alloc_result *res;
    struct problem *pb;
    struct lines l;
    const struct tnode *at;
    size_t i;

    if (!s->m)
        return;
    pb = solve(cx, s, o, &res);
    if (!pb || res->verdict != ALLOC_FAIL || pb->lone_fail_input)
        return;
    lines_init(a, &l);
    pool_note(a, s, &l);
    taint_lines(cx, s, pb, &l);
    node_groups(a, s, pb, res, &l, MAX_DETAILS);
    lines_close(a, &l);
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
    struct sat *s = sat_get(cx);
    struct alloc_result *res;
    struct problem *pb;
    struct lines l;
    size_t i, excl = 0;

    if (!s->m)
        return;
    pb = solve(cx, s, o, &res);
    if (!pb || res->verdict != ALLOC_OK || res->partial || !res->nsat)
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
    node_groups(a, s, pb, res, &l, 5);
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
