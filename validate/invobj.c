/*
 * invobj.c - inventory objects parsed once, shared by the snapshots that
 * hold them (invobj.h): reference counts, the per-object memory, and the
 * strings the objects share. What an inventory object is (its kinds, the
 * view read from it) is inventory.c's (inventory_read).
 */
#include "invobj.h"

#include <stdatomic.h>
#include <stdlib.h>

#include "arena.h"
#include "inventory.h"
#include "limits.h"
#include "object.h"
#include "strmap.h"
#include "tree.h"
#include "xalloc.h"

#define INVOBJ_SLACK 64         /* past the tree (alignment): the bulk,
                                   slices and Nodes, get nothing more from
                                   object_read; the few that do (a class's
                                   selectors, a template's requests) take
                                   a second block */

struct invstrs {
    struct arena arena;         /* the strings and the map's slots */
    struct strmap strs;
    atomic_long refs;
};

struct invobj {
    atomic_long refs;
    struct arena arena;         /* holds this struct, the tree and the
                                   view: one block, sized for them */
    struct invstrs *strs;       /* the tree's strings */
    struct object obj;
};

struct invstrs *invstrs_new(void)
{
    struct invstrs *s = xcalloc(1, sizeof(*s));

    arena_init(&s->arena, ARENA_LARGE_BYTES);
    strmap_init(&s->strs, &s->arena);
    atomic_init(&s->refs, 1);
    return s;
}

size_t invstrs_count(const struct invstrs *s)
{
    return s->strs.n;
}

void invstrs_release(struct invstrs *s)
{
    if (!s || atomic_fetch_sub(&s->refs, 1) != 1)
        return;
    arena_release(&s->arena);
    free(s);
}

/* Bytes tree_clone() takes for t's nodes and kid arrays (as deep as it
 * copies) */
static size_t tree_bytes(const struct tnode *t, int depth)
{
    size_t n = sizeof(*t) + t->n * sizeof(t->kids[0]), i;

    if (depth < 512)
        for (i = 0; i < t->n; i++)
            n += tree_bytes(t->kids[i], depth + 1);
    return n;
}

struct invobj *invobj_new(const struct tnode *tree, struct invstrs *strs)
{
    struct arena a;
    struct invobj *o;

    if (!tree_is_map(tree))
        return NULL;
    arena_init(&a, sizeof(*o) + tree_bytes(tree, 0) + INVOBJ_SLACK);
    o = arena_alloc(&a, sizeof(*o));
    if (inventory_read(&a, tree_clone(&a, &strs->strs, tree), &o->obj) < 0) {
        arena_release(&a);
        return NULL;
    }
    o->arena = a;               /* from here on, o's own */
    o->strs = strs;
    atomic_fetch_add(&strs->refs, 1);
    atomic_init(&o->refs, 1);
    return o;
}

struct object *invobj_object(struct invobj *o)
{
    return &o->obj;
}

const struct tnode *invobj_tree(const struct invobj *o)
{
    return o->obj.root;
}

void invobj_hold(struct invobj *o)
{
    atomic_fetch_add(&o->refs, 1);
}

void invobj_release(struct invobj *o)
{
    struct invstrs *strs;
    struct arena a;

    if (!o || atomic_fetch_sub(&o->refs, 1) != 1)
        return;
    strs = o->strs;
    a = o->arena;               /* o lives in it */
    arena_release(&a);
    invstrs_release(strs);
}
