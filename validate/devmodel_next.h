/*
 * devmodel_next.h - inside the device model build (devmodel.c): what a
 * model built to be reused keeps (pieces of device memory, its slices),
 * and what the next model takes from it (devmodel_next.c).
 */
#ifndef CLAIMCHECK_DEVMODEL_NEXT_H
#define CLAIMCHECK_DEVMODEL_NEXT_H

#include <stddef.h>

#include "devmodel.h"

struct object;

/* What a build takes from the model before. */
struct dm_next_reuse {
    unsigned char *pool;        /* per pool entry (newest): 1 if its
                                   devices are taken from the model before */
    size_t *rec;                /* per slice record: its record there */
};

/* Makes m a model to be reused: its device memory a piece of its own,
 * after prev's pieces when prev can be reused (the same list_attributes,
 * not too much memory held by devices gone), whose interned ids and
 * strings m starts from. Returns prev, or NULL when m is a full build. */
const struct devmodel *dm_next_begin(struct devmodel *m,
                                     const struct devmodel *prev);
/* The records of m's slices (opool: per object, its pool entry + 1, 0:
 * not a slice of the model; facts: per object of those, what was read of
 * it), in object order, each pool's slices counted; with before, which
 * pools are the same slices in the same order there. */
void dm_next_slices(struct devmodel *m, const struct devmodel *before,
                    const struct object *const *objs, size_t n,
                    const size_t *opool, const struct dm_facts *const *facts,
                    struct dm_next_reuse *reuse);
/* After the build: its piece is let go if nothing was built in it; how
 * many devices have each interned id (with before: its counts, less the
 * devices of its slices not taken (taken: per record of before), plus
 * the devices built, those not taken (reused: per device)). */
void dm_next_finish(struct devmodel *m, const struct devmodel *before,
                    const unsigned char *taken,
                    const unsigned char *reused);
/* A devs array for m (a model to be reused) of n devices: the one a
 * model of the chain freed where it is large enough (memory a process
 * has written is far cheaper to write again than new memory: a page
 * fault per 4 KiB, some 15 us each on a virtual machine), else new. */
struct dm_device *dm_next_devs(struct devmodel *m, size_t n);
/* Drops m's references to its pieces (devmodel_free). */
void dm_next_release(struct devmodel *m);

#endif
