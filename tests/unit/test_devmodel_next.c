/*
 * test_devmodel_next.c - unit tests of the device model built from the one
 * before (devmodel_build_next, validate/devmodel_next.c): random sequences
 * of ResourceSlice adds, updates and deletes and Node label changes, each
 * model built from the one before AND in full, compared field by field;
 * and the inventory snapshot that builds its model from the previous
 * snapshot's (inventory_set_previous).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../validate/devmodel.h"
#include "../../validate/engine.h"
#include "../../validate/err.h"
#include "../../validate/inventory.h"
#include "../../validate/object.h"
#include "check.h"
#include "dm_random.h"

static CHECK_INIT;

#define STEPS 300

/* ==== comparing two models =============================================== */

static int same_str(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

static int n_bad;

static void bad(const char *what, size_t i)
{
    if (n_bad++ < 5)
        printf("  mismatch: %s (%zu)\n", what, i);
}

#define SAME(cond, what, i)                                               \
    do {                                                                  \
        if (!(cond))                                                      \
            bad(what, i);                                                 \
    } while (0)

/* An interned string of m: its own canonical copy. */
static int interned(const struct devmodel *m, const char *s)
{
    return devmodel_domain(m, s) == s;
}

static void same_attrs(const struct devmodel *mi, const struct devmodel *mf,
                       const struct dm_device *x, const struct dm_device *y,
                       size_t i)
{
    size_t k;

    SAME(x->cel.nattrs == y->cel.nattrs && x->cel.ncaps == y->cel.ncaps
         && x->cel.unsupported == y->cel.unsupported
         && x->cel.bind == y->cel.bind, "attribute counts", i);
    for (k = 0; k < x->cel.nattrs && k < y->cel.nattrs; k++) {
        const struct cel_attr *a = &x->cel.attrs[k], *b = &y->cel.attrs[k];
        SAME(a->type == b->type && a->name == b->name
             && same_str(a->id, b->id) && same_str(a->domain, b->domain)
             && x->attr_hash[k] == y->attr_hash[k], "attribute", i);
        SAME(interned(mi, a->domain), "attribute domain interned", i);
        SAME(devmodel_sym(mi, a->id, strlen(a->id)) == (long)x->attr_sym[k]
             && devmodel_sym(mf, b->id, strlen(b->id))
                == (long)y->attr_sym[k], "attribute id", i);
        if (a->type == CEL_ATTR_STRING || a->type == CEL_ATTR_VERSION)
            SAME(same_str(a->s, b->s) && interned(mi, a->s),
                 "attribute value", i);
        if (a->type == CEL_ATTR_INT)
            SAME(a->i == b->i, "int value", i);
        if (a->type == CEL_ATTR_INTS)
            SAME(a->nv == b->nv && !memcmp(a->iv, b->iv,
                                          a->nv * sizeof(*a->iv)),
                 "ints value", i);
        SAME(dm_attr_sym(x, x->attr_sym[k], a->domain == x->driver ? NULL
                                                                   : a->domain)
             == a, "dm_attr_sym", i);
    }
    for (k = 0; k < x->cel.ncaps && k < y->cel.ncaps; k++) {
        const struct cel_capacity *a = &x->cel.caps[k], *b = &y->cel.caps[k];
        SAME(same_str(a->id, b->id) && same_str(a->domain, b->domain)
             && same_str(a->quantity, b->quantity)
             && x->cap_hash[k] == y->cap_hash[k]
             && !quantity_cmp(&x->cap_value[k], &y->cap_value[k])
             && x->cap_policy[k] == y->cap_policy[k], "capacity", i);
        SAME(devmodel_sym(mi, a->id, strlen(a->id)) == (long)x->cap_sym[k],
             "capacity id", i);
    }
}

static void same_device(const struct devmodel *mi, const struct devmodel *mf,
                        size_t i)
{
    const struct dm_device *x = &mi->devs[i], *y = &mf->devs[i];
    size_t k, n;

    SAME(same_str(x->driver, y->driver) && same_str(x->pool, y->pool)
         && same_str(x->name, y->name) && same_str(x->ref, y->ref)
         && x->pool_idx == y->pool_idx, "device name", i);
    SAME(x->driver == x->cel.driver && interned(mi, x->driver)
         && x->driver == mi->pools[x->pool_idx].driver, "driver interned", i);
    SAME(x->place == y->place && x->node == y->node && x->taints == y->taints
         && x->node_selector == y->node_selector && x->multi == y->multi
         && x->gated == y->gated && x->driver_hash == y->driver_hash,
         "device", i);
    SAME(x->place != DM_NODE || x->node_idx == y->node_idx, "node", i);
    SAME(x->place != DM_SELECTOR
         || x->nodesel->nerrs == y->nodesel->nerrs, "selector", i);
    for (n = 0; n < mi->nnodes && n < mf->nnodes; n++)
        SAME(dm_device_on_node(mi, i, n) == dm_device_on_node(mf, i, n),
             "placement", i);
    same_attrs(mi, mf, x, y, i);
    SAME(x->nconsumes == y->nconsumes, "consumes", i);
    for (k = 0; k < x->nconsumes && k < y->nconsumes; k++)
        SAME(x->consumes[k].set == y->consumes[k].set
             && same_str(x->consumes[k].set_name, y->consumes[k].set_name)
             && x->consumes[k].n == y->consumes[k].n, "consumes", i);
}

static void same_pool(const struct dm_pool *x, const struct dm_pool *y,
                      size_t i)
{
    size_t k;

    SAME(same_str(x->driver, y->driver) && same_str(x->name, y->name)
         && x->generation == y->generation
         && x->slice_count == y->slice_count
         && x->slices_seen == y->slices_seen && same_str(x->older, y->older)
         && same_str(x->invalid, y->invalid)
         && x->invalid_counters == y->invalid_counters
         && x->nsets == y->nsets, "pool", i);
    for (k = 0; k < x->nsets && k < y->nsets; k++)
        SAME(same_str(x->sets[k].name, y->sets[k].name)
             && x->sets[k].n == y->sets[k].n, "counter set", i);
}

/* mi (built from the model before) is mf (built in full) */
static int same_model(const struct devmodel *mi, const struct devmodel *mf)
{
    static const char *const ids[] = {"model", "index", "uuid", "v",
                                      "lanes", "odd", "memory", "bw",
                                      "attr0", "attr3", "attr7", "none"};
    size_t i, k;

    n_bad = 0;
    SAME(mi->ndevs == mf->ndevs && mi->nnodes == mf->nnodes
         && mi->npools == mf->npools && mi->nshared == mf->nshared
         && mi->nincomplete == mf->nincomplete
         && mi->nslices == mf->nslices
         && mi->nnode_objects == mf->nnode_objects
         && mi->max_local == mf->max_local, "counts", (size_t)0);
    if (n_bad) {
        printf("  devs %zu/%zu nodes %zu/%zu pools %zu/%zu shared %zu/%zu "
               "incomplete %zu/%zu slices %zu/%zu node objects %zu/%zu "
               "max local %zu/%zu\n", mi->ndevs, mf->ndevs, mi->nnodes,
               mf->nnodes, mi->npools, mf->npools, mi->nshared, mf->nshared,
               mi->nincomplete, mf->nincomplete, mi->nslices, mf->nslices,
               mi->nnode_objects, mf->nnode_objects, mi->max_local,
               mf->max_local);
        return 0;
    }
    for (i = 0; i < mi->ndevs; i++)
        same_device(mi, mf, i);
    for (i = 0; i < mi->npools; i++) {
        same_pool(&mi->pools[i], &mf->pools[i], i);
        SAME(devmodel_pool(mi, mf->pools[i].driver, mf->pools[i].name)
             - mi->pools == devmodel_pool(mf, mf->pools[i].driver,
                                          mf->pools[i].name) - mf->pools,
             "pool index", i);
    }
    for (i = 0; i < mi->nnodes; i++) {
        const struct dm_node *x = &mi->nodes[i], *y = &mf->nodes[i];
        SAME(same_str(x->name, y->name) && x->sel.labels == y->sel.labels
             && x->sel.labels_known == y->sel.labels_known
             && x->nlocal == y->nlocal, "node", i);
        for (k = 0; k < x->nlocal && k < y->nlocal; k++)
            SAME(x->local[k] == y->local[k], "node local", i);
    }
    for (i = 0; i < mi->nshared; i++)
        SAME(mi->shared[i] == mf->shared[i], "shared", i);
    for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
        SAME((devmodel_sym(mi, ids[i], strlen(ids[i])) >= 0)
             == (devmodel_sym(mf, ids[i], strlen(ids[i])) >= 0), "sym", i);
    return !n_bad;
}

/* ==== the sequences ====================================================== */

static void test_sequences(void)
{
    const struct object *objs[NOBJS];
    struct cluster c;
    struct devmodel *prev, *inc, *full;
    size_t i, n, steps_reused = 0, reused = 0, held = 0;
    int run;

    for (run = 0; run < 4; run++) {
        memset(&c, 0, sizeof(c));
        for (i = 0; i < NNODES; i++)
            c.nodes[i] = node_obj((int)i);
        for (i = 0; i < NSLICES; i++)
            c.slices[i] = pick(4) ? slice_obj((int)i) : NULL;
        n = cluster_objs(&c, objs);
        prev = devmodel_build_next(NULL, objs, n, run != 3);
        CHECK(prev->reused == 0 && prev->npieces == 1);
        for (i = 0; i < STEPS; i++) {
            size_t g;
            change(&c);
            n = cluster_objs(&c, objs);
            inc = devmodel_build_next(prev, objs, n, run != 3);
            full = devmodel_build(NULL, objs, n, run != 3);
            CHECK_MSG(same_model(inc, full), "run %d step %zu: the model "
                      "built from the one before differs", run, i);
            steps_reused += inc->reused > 0;
            reused += inc->reused;
            if (inc->npieces > held)
                held = inc->npieces;
            devmodel_free(full);
            /* what the model before saw can go with it */
            devmodel_free(prev);
            for (g = 0; g < c.ngone; g++)
                inventory_free(c.gone[g]);
            c.ngone = 0;
            prev = inc;
        }
        devmodel_free(prev);
        for (i = 0; i < NNODES; i++)
            inventory_free(c.nodes[i]);
        for (i = 0; i < NSLICES; i++)
            inventory_free(c.slices[i]);
        inventory_free(c.parked);
    }
    /* the comparisons mean something only where devices were taken */
    CHECK(steps_reused > STEPS * 2);
    CHECK(reused > 0 && held > 2);
}

/* A snapshot after another builds its model from the other's: the same
 * objects (a snapshot sharing its objects) are taken, not built. */
static void test_snapshots(void)
{
    struct text t = {"", 0};
    struct inventory *files, *a, *b, *c;
    const struct devmodel *ma, *mb, *mc;
    int i;

    for (i = 0; i < 4; i++)
        put(&t, "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
                "metadata: {name: s%d}\nspec:\n  driver: d.example.com\n"
                "  nodeName: n%d\n  pool: {name: p%d, generation: 0, "
                "resourceSliceCount: 1}\n  devices:\n  - {name: a, "
                "attributes: {m: {string: x}}}\n  - {name: b}\n---\n",
            i, i, i);
    files = inv_of(t.b);
    a = inventory_new();
    inventory_add_inventory(a, files);
    inventory_set_previous(a, NULL);
    inventory_prepare(a);
    ma = inventory_devices(a);
    CHECK(ma->ndevs == 8 && ma->reused == 0 && ma->npieces == 1);
    b = inventory_new();
    inventory_add_inventory(b, files);
    inventory_set_previous(b, a);
    inventory_free(a);              /* b holds it until its model is built */
    mb = inventory_devices(b);
    CHECK(mb->ndevs == 8 && mb->reused == 8);
    CHECK(mb->npieces == 1);        /* nothing built: no piece of its own */
    CHECK(devmodel_sym(mb, "m", 1) == 0);
    /* without a previous snapshot: a full build, still reusable */
    c = inventory_new();
    inventory_add_inventory(c, files);
    inventory_set_previous(c, NULL);
    mc = inventory_devices(c);
    CHECK(mc->reused == 0 && mc->npieces == 1);
    inventory_free(b);
    inventory_free(c);
    inventory_free(files);
}

int main(void)
{
    test_sequences();
    test_snapshots();
    return CHECK_DONE();
}
