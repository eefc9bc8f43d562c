/*
 * explain.c - the explanation text of the satisfiability rules: what the
 * allocator's answers mean for the user, as bounded detail lines. Clauses
 * and the fields they read come from the selector's syntax tree
 * (cel_conjuncts, cel_comparison_of, cel_device_refs); nearest misses are
 * sorted by how far a device is from passing; failing nodes are grouped by
 * reason. The checks that decide whether to report are satisfiability.c.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../validate/allocate.h"
#include "../validate/arena.h"
#include "../validate/cel/cel.h"
#include "../validate/object.h"
#include "../validate/quantity.h"
#include "../validate/tree.h"
#include "rules.h"
#include "satisfiability.h"

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

void line_add(struct lines *l, const char *s)
{
    if (l->n < MAX_DETAILS - 1)
        l->v[l->n++] = s;
    else
        l->more++;
}

/* 1 when the next line would only be counted ("... and N more"). */
int lines_full(const struct lines *l)
{
    return l->n >= MAX_DETAILS - 1;
}

void lines_init(struct arena *a, struct lines *l)
{
    l->v = arena_alloc(a, (MAX_DETAILS + 1) * sizeof(*l->v));
    l->n = 0;
    l->more = 0;
}

void lines_close(struct arena *a, struct lines *l)
{
    if (l->more)
        l->v[l->n++] = arena_printf(a, "... and %zu more", l->more);
}

/* Pools whose slices are not all there: none of their devices is used
 * (the scheduler waits for the rest too). */
void explain_pools(struct arena *a, const struct sat *s, struct lines *l)
{
    size_t i;

    for (i = 0; i < s->m->npools; i++) {
        const struct dm_pool *p = &s->m->pools[i];
        if (!dm_pool_incomplete(p))
            continue;
        line_add(l, arena_printf(a, "note: pool '%s' of %s is incomplete "
                                 "(%zu of %lld slices): none of its devices "
                                 "is used until all are there", p->name,
                                 p->driver,
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

/* How far a device is from passing a comparison: |x - y|, exact (unknown
 * sorts last). */
struct dist {
    int known;
    struct quantity q;
};

static void dist_set(struct dist *d, const struct quantity *x,
                     const struct quantity *y)
{
    d->q = *x;
    d->known = quantity_sub(&d->q, y) == 0;
    if (d->known && quantity_sign(&d->q) < 0)
        quantity_neg(&d->q);
}

/* The device's side of a failed comparison clause: "memory 40Gi < 80Gi"
 * for `X.memory.compareTo(quantity('80Gi')) >= 0` or isGreaterThan,
 * "cores 16 < 32" for `X.cores >= 32` on an int attribute, with *dist
 * how far the device is from passing. NULL when the clause is no such
 * comparison or the device lacks the field. */
static const char *comparison(struct arena *a, const struct dm_device *d,
                              const struct clause *cl, struct dist *dist)
{
    const struct cel_comparison *c = &cl->cmp;
    struct quantity x, y;
    size_t i;

    if (!cl->has_cmp)
        return NULL;
    for (i = 0; c->is_quantity && i < d->cel.ncaps; i++) {
        if (strcmp(d->cel.caps[i].id, c->id)
            || strcmp(d->cel.caps[i].domain, c->domain))
            continue;
        if (quantity_from_text(c->quantity, &y) == 0)
            dist_set(dist, &d->cap_value[i], &y);
        return arena_printf(a, "%s %s %s %s", c->id, d->cel.caps[i].quantity,
                            c->fails, c->quantity);
    }
    for (i = 0; !c->is_quantity && i < d->cel.nattrs; i++) {
        const struct cel_attr *at = &d->cel.attrs[i];
        if (at->type != CEL_ATTR_INT || strcmp(at->id, c->id)
            || strcmp(at->domain, c->domain))
            continue;
        quantity_from_int(at->i, 0, QF_DECIMAL_SI, &x);
        quantity_from_int(c->i, 0, QF_DECIMAL_SI, &y);
        dist_set(dist, &x, &y);
        return arena_printf(a, "%s %lld %s %lld", at->id, at->i, c->fails,
                            c->i);
    }
    return NULL;
}

/* Why device i fails the first clause it fails, with its values. */
static const char *miss_reason(struct arena *a, struct sat *s,
                               const struct altinfo *ai,
                               const struct clause *cl, size_t ncl, size_t i,
                               struct dist *dist)
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
                if (c >= 0)
                    dist_set(dist, &d->cap_value[c], &cl[k].cap->q);
                return why ? why : "capacity";
            }
        }
    }
    return NULL;
}

struct miss {
    const char *why;
    size_t dev, alike;
    struct dist dist;
};

static int miss_cmp(const void *x, const void *y)
{
    const struct miss *a = x, *b = y;
    int c;

    if (a->dist.known != b->dist.known)
        return a->dist.known ? -1 : 1;
    c = a->dist.known ? quantity_cmp(&a->dist.q, &b->dist.q) : 0;
    if (c)
        return c;
    return a->dev < b->dev ? -1 : a->dev > b->dev;
}

static int compile_clause(struct arena *a, const char *text,
                          struct cel_program **p)
{
    struct cel_env env = {1, 1, 0, 1, 0 };
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
void explain_no_device(struct check_ctx *cx, struct sat *s,
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
            r = np == 1 ? ai->sels[i].res : sat_selres(cx, s, c->text);
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
        struct dist dist = {0, {0, 0, 0, 0, 0}};
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
                      && alloc_device_ok(a, &m->devs[i], &ai->alt);
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
                          && alloc_device_ok(a, &m->devs[i], &ai->alt);
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

const char *explain_error(struct arena *a, const struct devmodel *m,
                          const struct problem *pb,
                          const struct alloc_node *f)
{
    const char *cl = pb->pod
        ? arena_printf(a, "claim '%s' ", pb->claims[f->claim].name) : "";
    const struct reqinfo *ri = &pb->claims[f->claim].reqs[f->req];
    const char *req = ri->alts[f->alt < ri->nalts ? f->alt : 0].name;
    const struct dm_pool *p = f->err == AERR_ALL_INCOMPLETE
                              || f->err == AERR_ALL_INVALID
                              ? &m->pools[f->obj] : NULL;

    switch (f->err) {
    case AERR_ALL_INCOMPLETE:
        return arena_printf(a, "%srequest '%s' asks for all devices, but "
                            "pool '%s' of %s is being updated (%zu of %lld "
                            "slices)", cl, req, p->name, p->driver,
                            p->slices_seen, p->slice_count);
    case AERR_ALL_INVALID:
        return arena_printf(a, "%srequest '%s' asks for all devices, but "
                            "pool '%s' of %s is invalid (%s)", cl, req,
                            p->name, p->driver,
                            p->invalid ? p->invalid : "?");
    case AERR_ALL_CONSTRAINT: {
        const struct alloc_claim *ac = &pb->ac[f->claim];
        const struct alloc_constraint *k =
            f->cons < ac->ncons ? &ac->cons[f->cons] : NULL;
        return arena_printf(a, "%srequest '%s' asks for all devices, but "
                            "device '%s' breaks constraint %s %s", cl, req,
                            m->devs[f->obj].ref,
                            !k ? "?" : k->distinct ? "distinctAttribute"
                                                   : "matchAttribute",
                            k ? k->attr : "?");
    }
    case AERR_TOO_MANY:
        return arena_printf(a, "%s%s needs %lld devices, more than the %d "
                            "one allocation may hold",
                            pb->pod ? "claim " : "the claim",
                            pb->pod ? arena_printf(a, "'%s'",
                                                   pb->claims[f->claim].name)
                                    : "", f->have, ALLOC_RESULTS_MAX);
    }
    return "?";
}

/* 1 if some request of the problem has adminAccess. */
static int any_admin(const struct problem *pb)
{
    size_t c, r, k;

    for (c = 0; c < pb->nclaims; c++)
        for (r = 0; r < pb->claims[c].nreqs; r++)
            for (k = 0; k < pb->claims[c].reqs[r].nalts; k++)
                if (pb->claims[c].reqs[r].alts[k].alt.admin)
                    return 1;
    return 0;
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
        const char *rule = any_admin(pb)
            ? "each device goes to one request; an adminAccess request "
              "shares only what earlier claims hold"
            : "each device goes to one request";
        if (*ex)
            return arena_printf(a, "%s: %s (%s)", node, ex, rule);
        return arena_printf(a, "%s: the requests compete for the same "
                            "devices (%s)", node, rule);
    }
    case WHY_ERROR:
        return arena_printf(a, "%s: the allocator stops with an error: %s",
                            node, explain_error(a, m, pb, f));
    case WHY_TOGETHER:
    case WHY_BUDGET:
        break;
    }
    return arena_printf(a, "%s: no combination of devices satisfies every "
                        "request", node);
}

/* 1 if d without its taints passes alt's filters: then a taint is what
 * refuses it (alloc_device_fits checks taints last), told apart without
 * printing the reason of every tainted device. */
static int untainted_fits(struct arena *a, const struct dm_device *d,
                          const struct alloc_alt *alt)
{
    struct dm_device bare = *d;

    bare.taints = NULL;
    return alloc_device_fits(a, &bare, alt, NULL);
}

/* Devices a request's selectors admit but its tolerations do not (gate
 * 0), or that need a feature gate the target has off (gate 1); one line
 * per distinct finding, naming every request it applies to. */
static void explain_filtered(struct check_ctx *cx, struct sat *s,
                             const struct problem *pb, struct lines *l,
                             int gate)
{
    struct arena *a = cx_arena(cx);
    const char *names[16], *tails[16];
    size_t nt = 0, c, r, k, i, j, nf;
    /* only these can be refused by a taint or a gate: the others need
     * not be walked (per object, over 100,000s of devices) */
    const size_t *filtered = alloc_model_filtered(s->m, &nf);
    const unsigned char *kind = alloc_model_kinds(s->m);

    for (c = 0; c < pb->nclaims; c++)
        for (r = 0; r < pb->claims[c].nreqs; r++)
            for (k = 0; k < pb->claims[c].reqs[r].nalts; k++) {
                const struct altinfo *ai = &pb->claims[c].reqs[r].alts[k];
                const char *ex = NULL, *why = NULL, *tail, *name;
                size_t n = 0;
                /* a device the model knows a taint refuses: no reading */
                int known = !ai->alt.ncaps && alloc_no_tolerations(&ai->alt)
                            && !(ai->alt.off & ALLOC_OFF_TAINTS);
                for (i = 0; i < nf; i++) {
                    const struct dm_device *d = &s->m->devs[filtered[i]];
                    unsigned char dk = kind[filtered[i]];
                    if (!ai->sel[filtered[i]])
                        continue;
                    why = NULL;
                    if (gate)   /* the model knows dk needs none */
                        why = dk ? NULL : alloc_device_gated(d, ai->alt.off);
                    else if (dk == DEV_TAINTED && known)
                        why = "taint";
                    else if (d->taints
                        && !alloc_device_fits(&s->scratch, d, &ai->alt,
                                              NULL)
                        && untainted_fits(&s->scratch, d, &ai->alt))
                        why = "taint";  /* its text only for the example */
                    if (why && !n && !gate)
                        alloc_device_fits(&s->scratch, d, &ai->alt, &why);
                    if (why) {
                        if (!n)
                            ex = arena_printf(a, "%s (%s)", d->ref, why);
                        n++;
                    }
                }
                if (!n)
                    continue;
                tail = arena_printf(a, "%zu matching device%s %s, e.g. %s",
                                    n, n == 1 ? "" : "s",
                                    gate ? (n == 1 ? "needs a feature gate "
                                                     "that is off"
                                                   : "need a feature gate "
                                                     "that is off")
                                         : (n == 1 ? "is tainted"
                                                   : "are tainted"), ex);
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

void explain_taints(struct check_ctx *cx, struct sat *s,
                    const struct problem *pb, struct lines *l)
{
    explain_filtered(cx, s, pb, l, 1);
    explain_filtered(cx, s, pb, l, 0);
}

/* 1 when node_line's reason for f names nothing of its node (only the
 * line's prefix does): the same for every failure alike in the fields
 * same_reason compares. */
static int node_free(const struct alloc_node *f)
{
    switch (f->why) {
    case WHY_NODENAME:
    case WHY_NODESELECTOR:
    case WHY_AFFINITY:
    case WHY_COUNT:
    case WHY_TOGETHER:
    case WHY_BUDGET:
        return 1;
    default:
        return 0;
    }
}

/* Whether node_line gives f and x the same reason, for a node_free x. */
static int same_reason(const struct alloc_node *x, const struct alloc_node *f)
{
    if (x->why != f->why)
        return 0;
    if (x->why != WHY_COUNT)
        return 1;
    return x->claim == f->claim && x->req == f->req && x->have == f->have
           && x->need == f->need;
}

/* Per-node reasons, nodes with the same reason on one line ("gpu-node-7
 * and 412 more nodes: ..."): nodes with devices first, then the ones the
 * Pod's placement excludes. At most max lines in l; the rest is counted. */
void explain_nodes(struct arena *a, struct sat *s,
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
    struct seen {               /* a reason that names nothing of its node,
                                   and its group (ng: counted in other) */
        struct alloc_node f;
        size_t group;
    } seen[16];
    size_t ng = 0, nseen = 0, pass, i, j, k, shown = 0, other = 0;

    for (pass = 0; pass < 2; pass++)
        for (i = 0; i < res->nfails; i++) {
            const struct alloc_node *f = &res->fails[i];
            const char *line, *reason;
            if ((f->why < WHY_COUNT) != (pass == 1))
                continue;
            /* a failure like one already grouped whose reason does not
             * depend on the node: its group without printing it again
             * (the nodes a placement excludes, thousands of them) */
            for (j = 0; j < nseen && !same_reason(&seen[j].f, f); j++)
                ;
            if (j < nseen) {
                if (seen[j].group < ng)
                    g[seen[j].group].count++;
                else
                    other++;
                continue;
            }
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
                other++;    /* no group is added from now on */
            }
            if (nseen < 16 && node_free(f)) {
                seen[nseen].f = *f;
                seen[nseen++].group = k < ng ? k : 64;
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
