/*
 * inventory.h - the inside of struct inventory (engine.h has the public
 * API): cluster objects that are context for the checks, indexed by kind,
 * namespace and name, and the device model built from them. Immutable once
 * built; shared by threads.
 */
#ifndef CLAIMCHECK_INVENTORY_H
#define CLAIMCHECK_INVENTORY_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "devmodel.h"
#include "strmap.h"

struct invobj;
struct object;
struct tnode;
struct inventory_model;

struct inventory {
    struct arena arena;         /* owns trees and objects */
    struct object **objs;
    size_t n, cap;
    struct strmap index;        /* object_key() -> struct object * */
    struct strmap strs;         /* the keys and scalars of its trees, each
                                   held once (tree_clone's intern map) */
    int compact;                /* inventory_set_compact() */
    unsigned kinds;             /* K_* bits present */
    struct inventory_model *model;  /* inventory_devices(): built once, on
                                   first use (a cell of its own: the
                                   snapshot itself is never written) */
    struct verdict_cache *verdicts; /* admission verdicts on this snapshot */
    int no_list_attributes;     /* the model drops list-valued attributes
                                   (inventory_set_list_attributes) */
    struct inventory *base;     /* whose objects objs shares, or NULL
                                   (inventory_add_inventory) */
    struct invobj **held;       /* shared objects it holds a reference to
                                   (inventory_add_invobj) */
    size_t nheld, heldcap;
    atomic_long refs;           /* its own, and one per snapshot sharing
                                   its objects */
};

/* Reads root (one object, not a List) into *o as an inventory object
 * (its view in a, o->inventory set): 0, or -1 when it is no object of an
 * inventory kind with a name (then it is not kept). */
int inventory_read(struct arena *a, const struct tnode *root,
                   struct object *o);
/* "Kind\x1fns\x1fname" in a; ns "" for cluster-scoped kinds. */
const char *object_key(struct arena *a, unsigned kind, const char *ns,
                       const char *name);
const struct object *inventory_lookup(const struct inventory *inv,
                                      unsigned kind, const char *ns,
                                      const char *name);
/* The snapshot's device model (devmodel.h), built by the first caller
 * while concurrent ones wait (a mutex-guarded once-init), then shared by
 * every thread until inventory_free(). NULL when inv is NULL. */
const struct devmodel *inventory_devices(const struct inventory *inv);

#endif
