/*
 * alloc_warm.c - what a snapshot's device model learns before the
 * snapshot is published (alloc_model_warm, see allocate.h): the passes
 * the first review would otherwise pay for (device kinds, list values,
 * the nodes' label index, the selector results of the DeviceClasses and
 * of the claim templates' requests, and their combination), none of which
 * depends on the request. A model built from the one before takes the
 * selector results of the devices it took from there (alloc_carry.c).
 */
#include "allocate.h"

#include "alloc_internal.h"
#include "arena.h"
#include "cel/cel.h"
#include "inventory.h"
#include "kinds.h"
#include "limits.h"
#include "object.h"

/* the selector lists of the snapshot's claim templates warmed at most (a
 * Pod's claims come from them; the caches bound what is kept) */
#define WARM_MAX_LISTS 256

/* Evaluates the selectors of class cs, then those of request r (NULL:
 * none), once for the model (kept there), and their combination when
 * every one compiles, as a request of the class is judged
 * (alt_build). */
static void warm_list(struct arena *a, const struct devmodel *m,
                      const struct cel_env *env, const struct alloc_carry *c,
                      const struct classspec *cs, const struct devreq *r)
{
    size_t n = cs->nsel + (r ? r->nsel : 0), i;
    const struct alloc_match **mts = arena_alloc(a, (n + 1) * sizeof(*mts));
    const char **exprs = arena_alloc(a, (n + 1) * sizeof(*exprs));
    struct cel_error err;

    for (i = 0; i < n; i++) {
        exprs[i] = i < cs->nsel ? cs->sel[i].expr : r->sel[i - cs->nsel].expr;
        mts[i] = exprs[i] ? alloc_eval_cached_from(m, env, exprs[i], a, &err,
                                                   NULL, c) : NULL;
        if (!mts[i])
            return;     /* a request of this class is not judged */
    }
    alloc_select_all(m, env, exprs, mts, n, a);
}

/* The lists of request r of a claim template (each firstAvailable
 * alternative's); returns how many. */
static size_t warm_request(struct arena *a, const struct inventory *inv,
                           const struct devmodel *m,
                           const struct cel_env *env,
                           const struct alloc_carry *c,
                           const struct devreq *r)
{
    const struct object *cls;
    size_t k, n = 0;

    for (k = 0; k < r->nsubs; k++)
        n += warm_request(a, inv, m, env, c, &r->subs[k]);
    if (r->nsubs || !r->class_name)
        return n;
    cls = inventory_lookup(inv, K_CLASS, "", r->class_name);
    if (cls && cls->cls)
        warm_list(a, m, env, c, cls->cls, r);
    return n + 1;
}

void alloc_model_warm(const struct inventory *inv)
{
    alloc_model_warm_next(inv, NULL);
}

void alloc_model_warm_next(const struct inventory *inv,
                           const struct devmodel *prev)
{
    const struct devmodel *m = inventory_devices(inv);
    struct cel_env env = alloc_scheduler_env(!inv->no_list_attributes);
    struct alloc_carry *c;
    struct arena a;
    size_t i, k, lists = 0;

    if (!m || !m->ndevs)
        return;
    c = alloc_carry_new(m, prev);
    alloc_model_kinds(m);
    alloc_model_lists(m);
    alloc_model_labelled(m, "", "", &k);   /* builds the index */
    arena_init(&a, ARENA_TINY_BYTES);
    for (i = 0; i < inv->n; i++) {
        const struct object *o = inv->objs[i];
        if (o->kind == K_CLASS && o->cls)
            warm_list(&a, m, &env, c, o->cls, NULL);
        for (k = 0; o->kind == K_TEMPLATE && o->claim && k < o->claim->nreqs
                    && lists < WARM_MAX_LISTS; k++)
            lists += warm_request(&a, inv, m, &env, c,
                                  &o->claim->reqs[k]);
        arena_clear(&a);
    }
    arena_release(&a);
    alloc_carry_free(c);
}
