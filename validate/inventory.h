/*
 * inventory.h - the inside of struct inventory (engine.h has the public
 * API): cluster objects that are context for the checks, indexed by kind,
 * namespace and name. Immutable once built; shared by threads.
 */
#ifndef CLAIMCHECK_INVENTORY_H
#define CLAIMCHECK_INVENTORY_H

#include <stddef.h>

#include "arena.h"
#include "strmap.h"

struct object;

struct inventory {
    struct arena arena;         /* owns trees and objects */
    struct object **objs;
    size_t n, cap;
    struct strmap index;        /* object_key() -> struct object * */
    unsigned kinds;             /* K_* bits present */
};

/* "Kind\x1fns\x1fname" in a; ns "" for cluster-scoped kinds. */
const char *object_key(struct arena *a, unsigned kind, const char *ns,
                       const char *name);
const struct object *inventory_lookup(const struct inventory *inv,
                                      unsigned kind, const char *ns,
                                      const char *name);

#endif
