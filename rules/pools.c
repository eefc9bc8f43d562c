/*
 * pools.c - rules about the pools of the device model, reported on each
 * ResourceSlice of the pool's newest generation: pool-invalid (a pool
 * Kubernetes' allocator refuses) and pool-incomplete (slices missing).
 * The model (devmodel.h) decides both; neither pool's devices are used by
 * the allocator (allocate.h). Counter problems are not reported with
 * DRAPartitionableDevices off (the apiserver drops the counters).
 */
#include <stddef.h>

#include "../validate/devmodel.h"
#include "../validate/object.h"
#include "../validate/target.h"
#include "../validate/tree.h"
#include "checks.h"
#include "rules.h"
#include "satisfiability.h"

/* The slice's pool in the run's model when the slice belongs to its
 * newest generation, else NULL. */
static const struct dm_pool *slice_pool(struct check_ctx *cx,
                                        const struct object *o,
                                        const struct tnode **at)
{
    const struct sat *s = sat_get(cx);
    const struct tnode *pool = tree_get(o->spec, "pool");
    const char *driver = tree_str(tree_get(o->spec, "driver"));
    const char *name = tree_str(tree_get(pool, "name"));
    const struct dm_pool *p;
    long long gen = 0;

    if (!s->objects || !driver || !name)
        return NULL;
    p = devmodel_pool(s->objects, driver, name);
    tree_int(tree_get(pool, "generation"), &gen);
    if (!p || gen != p->generation)
        return NULL;
    *at = pool;
    return p;
}

void check_pool_invalid(struct check_ctx *cx, const struct object *o)
{
    const struct tnode *at = NULL;
    const struct dm_pool *p = slice_pool(cx, o, &at);

    if (!p || !p->invalid)
        return;
    /* with the gate off the apiserver drops the counters: nothing wrong */
    if (p->invalid_counters
        && !target_gate_on(cx_target(cx), "DRAPartitionableDevices"))
        return;
    report(cx, at, "pool '%s' of %s is invalid: %s; the allocator uses none "
           "of its devices", p->name, p->driver, p->invalid);
}

void check_pool_incomplete(struct check_ctx *cx, const struct object *o)
{
    const struct tnode *at = NULL;
    const struct dm_pool *p = slice_pool(cx, o, &at);

    if (!p || !dm_pool_incomplete(p))
        return;
    report(cx, at, "pool '%s' of %s has %zu of %lld slices (generation "
           "%lld): the allocator uses none of its devices until all are "
           "there", p->name, p->driver, p->slices_seen, p->slice_count,
           p->generation);
}
