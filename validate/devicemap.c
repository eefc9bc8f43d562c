/*
 * devicemap.c - builds a run's device map (see devicemap.h): the model of
 * its slices and nodes, who holds which device (allocated.c), what each
 * claim's requests could take (the selectors' shared results), and the
 * counters pools spend. It judges nothing: the rules did.
 */
#include "devicemap.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "allocate.h"
#include "allocated.h"
#include "arena.h"
#include "buf.h"
#include "cel/cel.h"
#include "inventory.h"
#include "object.h"
#include "quantity.h"
#include "run.h"
#include "strmap.h"
#include "tree.h"

struct objs {
    const struct object **v;
    size_t n, cap;
    struct arena *a;
    int claims;                 /* keep inventory claims only if allocated */
    const struct run *devices;  /* the devices of this run's inventory
                                   only (--inventory-from-input) */
};

static void collect(void *arg, const struct object *o)
{
    struct objs *c = arg;

    if (c->claims && o->inventory
        && !tree_at(o->root, "status.allocation"))
        return;
    if (c->devices && !run_inventory_object(c->devices, o))
        return;
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 64;
        c->v = arena_grow(c->a, (void *)c->v, c->n, c->cap, sizeof(*c->v));
    }
    c->v[c->n++] = o;
}

/* ==== what a claim could take ============================================ */

/* ANDs the results of expr over every device into v (1 = still admitted);
 * a selector that does not compile admits nothing (other rules say why). */
static void and_selector(struct arena *a, const struct devmodel *m,
                         const char *expr, unsigned char *v)
{
    struct cel_env env = {1, 1, 0, 1, 0};
    struct cel_error err;
    const struct alloc_match *mt;
    size_t i;

    mt = expr ? alloc_eval_cached(m, &env, expr, a, &err, NULL) : NULL;
    for (i = 0; i < m->ndevs; i++)
        v[i] = (unsigned char)(v[i] && mt && mt->v[i] == AM_YES);
}

/* Adds the devices request r admits to any (class and request selectors;
 * a class that is not known admits nothing). */
static void request_match(struct arena *a, const struct devmodel *m,
                          const struct strmap *classes,
                          const struct devreq *r, unsigned char *any,
                          unsigned char *v)
{
    const struct object *cls = r->class_name
        ? strmap_get(classes, r->class_name) : NULL;
    size_t i;

    if (!cls || !cls->cls)
        return;
    memset(v, 1, m->ndevs);
    for (i = 0; i < cls->cls->nsel; i++)
        and_selector(a, m, cls->cls->sel[i].expr, v);
    for (i = 0; i < r->nsel; i++)
        and_selector(a, m, r->sel[i].expr, v);
    for (i = 0; i < m->ndevs; i++)
        any[i] |= v[i];
}

static void describe(struct buf *b, const struct devreq *r)
{
    if (r->mode && !strcmp(r->mode, "All"))
        buf_addf(b, "all of %s", r->class_name ? r->class_name : "?");
    else
        buf_addf(b, "%lld of %s", r->count,
                 r->class_name ? r->class_name : "?");
}

static void claim_read(struct arena *a, const struct devmodel *m,
                       const struct strmap *classes, unsigned char *any,
                       unsigned char *v, struct devicemap_claim *c)
{
    const struct claimspec *cs = c->obj->claim;
    struct buf b;
    size_t i, k;

    memset(any, 0, m->ndevs);
    buf_init(&b, 4096);
    for (i = 0; cs && i < cs->nreqs; i++) {
        const struct devreq *r = &cs->reqs[i];
        buf_addf(&b, "%s%s: ", i ? "; " : "", r->name ? r->name : "?");
        if (!r->nsubs) {
            describe(&b, r);
            request_match(a, m, classes, r, any, v);
            continue;
        }
        for (k = 0; k < r->nsubs; k++) {
            buf_adds(&b, k ? " or " : "first available: ");
            describe(&b, &r->subs[k]);
            request_match(a, m, classes, &r->subs[k], any, v);
        }
    }
    c->requests = arena_strdup(a, b.p);
    buf_release(&b);
    c->could = arena_alloc(a, (DEVICEMAP_COULD_MAX + 1) * sizeof(*c->could));
    for (i = 0; i < m->ndevs; i++) {
        if (!any[i])
            continue;
        if (c->ncould < DEVICEMAP_COULD_MAX)
            c->could[c->ncould++] = i;
        c->ncould_total++;
    }
}

/* ==== counters =========================================================== */

static void counters_read(struct arena *a, const struct devmodel *m,
                          const struct allocated *al, struct devicemap *dm)
{
    size_t p, s, k, d, i, j, n = 0;

    for (p = 0; p < m->npools; p++)
        for (s = 0; s < m->pools[p].nsets; s++)
            n += m->pools[p].sets[s].n;
    dm->counters = arena_alloc(a, (n + 1) * sizeof(*dm->counters));
    for (p = 0; p < m->npools; p++)
        for (s = 0; s < m->pools[p].nsets; s++) {
            const struct dm_counterset *set = &m->pools[p].sets[s];
            for (k = 0; k < set->n; k++) {
                struct devicemap_counter *c = &dm->counters[dm->ncounters++];
                c->pool = p;
                c->set = set->name;
                c->name = set->c[k].name;
                c->total = set->c[k].text;
                c->total_v = quantity_approx_float(&set->c[k].value);
            }
        }
    /* what held devices consume */
    for (d = 0; d < m->ndevs; d++) {
        const struct dm_device *dv = &m->devs[d];
        if (!al->taken[d])
            continue;
        for (i = 0; i < dv->nconsumes; i++)
            for (j = 0; j < dv->consumes[i].n; j++)
                for (k = 0; k < dm->ncounters; k++) {
                    struct devicemap_counter *c = &dm->counters[k];
                    if (c->pool == dv->pool_idx
                        && !strcmp(c->set, dv->consumes[i].set_name)
                        && !strcmp(c->name, dv->consumes[i].c[j].name))
                        c->used_v += quantity_approx_float(
                            &dv->consumes[i].c[j].value);
                }
    }
}

/* ==== the map ============================================================ */

struct devicemap *devicemap_build(struct arena *a, const struct run *r)
{
    struct devicemap *dm;
    struct allocated *al;
    struct objs inv, cl, classes;
    struct strmap byname, index;
    struct devmodel *m;
    struct devicemap_claim **holder;
    unsigned char *any, *v;
    size_t i;

    memset(&inv, 0, sizeof(inv));
    inv.a = a;
    inv.devices = r;
    run_each(r, K_SLICE | K_NODE, collect, &inv);
    m = devmodel_build(a, inv.v, inv.n, run_list_attributes(r));
    if (!m->ndevs) {
        devmodel_free(m);
        return NULL;
    }
    dm = arena_alloc(a, sizeof(*dm));
    memset(dm, 0, sizeof(*dm));
    dm->m = m;
    dm->model = m;
    memset(&cl, 0, sizeof(cl));
    cl.a = a;
    cl.claims = 1;
    run_each(r, K_CLAIM | K_TEMPLATE, collect, &cl);
    al = arena_alloc(a, sizeof(*al));
    allocated_build(a, m, cl.v, cl.n, al);
    dm->al = al;
    memset(&classes, 0, sizeof(classes));
    classes.a = a;
    run_each(r, K_CLASS, collect, &classes);
    strmap_init(&byname, a);
    for (i = 0; i < classes.n; i++)
        strmap_put(&byname, classes.v[i]->name,
                   (void *)(uintptr_t)classes.v[i]);
    dm->claims = arena_alloc(a, (cl.n + 1) * sizeof(*dm->claims));
    strmap_init(&index, a);
    any = arena_alloc(a, m->ndevs + 1);
    v = arena_alloc(a, m->ndevs + 1);
    for (i = 0; i < cl.n; i++) {
        struct devicemap_claim *c = &dm->claims[dm->nclaims++];
        memset(c, 0, sizeof(*c));
        c->obj = cl.v[i];
        c->allocated = tree_at(c->obj->root, "status.allocation") != NULL;
        claim_read(a, m, &byname, any, v, c);
        strmap_put(&index, arena_printf(a, "%p", (const void *)c->obj), c);
    }
    /* held devices: counted, then listed */
    holder = arena_alloc(a, (m->ndevs + 1) * sizeof(*holder));
    for (i = 0; i < m->ndevs; i++) {
        holder[i] = al->holder[i]
            ? strmap_get(&index, arena_printf(a, "%p",
                                              (const void *)al->holder[i]))
            : NULL;
        if (holder[i])
            holder[i]->nheld++;
    }
    for (i = 0; i < dm->nclaims; i++) {
        dm->claims[i].held = arena_alloc(a, (dm->claims[i].nheld + 1)
                                            * sizeof(size_t));
        dm->claims[i].nheld = 0;
    }
    for (i = 0; i < m->ndevs; i++)
        if (holder[i])
            holder[i]->held[holder[i]->nheld++] = i;
    counters_read(a, m, al, dm);
    return dm;
}

void devicemap_free(struct devicemap *dm)
{
    if (dm)
        devmodel_free(dm->model);
}
