/*
 * allocated.c - allocation results of live ResourceClaims onto the device
 * model (see allocated.h). It reads status only; whether a claim could get
 * other devices is the allocator's question.
 */
#include "allocated.h"

#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "inventory.h"
#include "object.h"
#include "strmap.h"
#include "tree.h"

static const char *dev_key(struct arena *a, const char *driver,
                           const char *pool, const char *name)
{
    return arena_printf(a, "%s\x1f%s\x1f%s", driver, pool, name);
}

void allocated_build(struct arena *a, const struct devmodel *m,
                     const struct object *const *claims, size_t n,
                     struct allocated *out)
{
    struct strmap index;
    size_t i, k;

    memset(out, 0, sizeof(*out));
    out->taken = arena_alloc(a, m->ndevs + 1);
    memset(out->taken, 0, m->ndevs + 1);
    out->holder = arena_alloc(a, (m->ndevs + 1) * sizeof(*out->holder));
    memset(out->holder, 0, (m->ndevs + 1) * sizeof(*out->holder));
    strmap_init(&index, a);
    for (i = 0; i < m->ndevs; i++)
        strmap_put(&index, dev_key(a, m->devs[i].driver, m->devs[i].pool,
                                   m->devs[i].name), &m->devs[i]);
    for (i = 0; i < n; i++) {
        const struct object *c = claims[i];
        const struct tnode *res;
        if (c->kind != K_CLAIM)
            continue;
        res = tree_at(c->root, "status.allocation.devices.results");
        for (k = 0; tree_is_seq(res) && k < res->n; k++) {
            const struct tnode *r = res->kids[k];
            const char *drv = tree_str(tree_get(r, "driver"));
            const char *pool = tree_str(tree_get(r, "pool"));
            const char *dev = tree_str(tree_get(r, "device"));
            const struct dm_device *d;
            size_t di;
            if (!drv || !pool || !dev)
                continue;
            d = strmap_get(&index, dev_key(a, drv, pool, dev));
            if (!d) {
                out->nunknown++;
                continue;
            }
            di = (size_t)(d - m->devs);
            if (!tree_true(tree_get(r, "adminAccess")))
                out->taken[di] = 1;
            if (!out->holder[di]) {
                out->holder[di] = c;
                out->nheld++;
            }
        }
    }
}
