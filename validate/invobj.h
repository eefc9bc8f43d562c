/*
 * invobj.h - inventory objects parsed once and shared by every snapshot
 * that holds them (the webhook's cluster objects: a watch event brings
 * one, many snapshots read it).
 *
 * A struct invobj is one object (its struct object and compact tree)
 * with a reference count: whoever keeps it (the cluster's object map,
 * each snapshot: inventory_add_invobj) holds a reference, and the last
 * invobj_release() frees it. Once made it never changes, so snapshots
 * read it from any thread; an update is a new invobj.
 *
 * Reference counts are per object, not per generation of objects: a
 * watch replaces one object at a time, and a block of objects would stay
 * whole for the last of them still live.
 *
 * The strings of the trees (keys and scalars) are held once in a struct
 * invstrs shared by the objects interned into it (a ResourceSlice's keys
 * and most values repeat in every other); each object holds a reference
 * to its invstrs. An invstrs is written by one thread at a time (the one
 * making objects into it); the strings it holds never change.
 */
#ifndef CLAIMCHECK_INVOBJ_H
#define CLAIMCHECK_INVOBJ_H

#include <stddef.h>

struct inventory;
struct invobj;
struct invstrs;
struct object;
struct tnode;

struct invstrs *invstrs_new(void);
/* Number of strings held. */
size_t invstrs_count(const struct invstrs *s);
/* Drops the caller's reference; objects made into s hold their own. */
void invstrs_release(struct invstrs *s);

/* Reads tree (one object, not a List) into a new invobj whose tree is a
 * copy with its strings held in strs; the caller holds the one
 * reference. NULL when tree is no object of an inventory kind with a
 * name (as inventory_add_tree() ignores it). */
struct invobj *invobj_new(const struct tnode *tree, struct invstrs *strs);
/* Its object: read only (snapshots share it), not const only because
 * an inventory's objs are not. */
struct object *invobj_object(struct invobj *o);
/* Its tree (the copy). */
const struct tnode *invobj_tree(const struct invobj *o);
void invobj_hold(struct invobj *o);
/* Drops a reference: the object is freed with the last one. NULL is
 * allowed. */
void invobj_release(struct invobj *o);

/* Adds o to the snapshot inv without copying it: inv holds a reference
 * to o until inventory_free(inv) (inventory.c). */
void inventory_add_invobj(struct inventory *inv, struct invobj *o);

#endif
