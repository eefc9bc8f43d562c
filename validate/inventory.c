/*
 * inventory.c - loading and indexing inventory objects (from files given
 * with --inventory, or from the webhook's cluster cache). Objects are read
 * with object_read() like linted input, but are never reported on. The
 * snapshot's device model (devmodel.h) is built once, on first use.
 */
#include "inventory.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devmodel.h"
#include "engine.h"
#include "limits.h"
#include "err.h"
#include "load_yaml.h"
#include "object.h"
#include "stream.h"
#include "tree.h"
#include "verdict.h"
#include "xalloc.h"


struct inventory_model {        /* the once-init of inventory_devices() */
    pthread_mutex_t mu;         /* held while the model is built */
    struct devmodel *_Atomic m; /* set once, under mu */
};

const char *object_key(struct arena *a, unsigned kind, const char *ns,
                       const char *name)
{
    return arena_printf(a, "%u\x1f%s\x1f%s", kind, ns ? ns : "", name);
}

struct inventory *inventory_new(void)
{
    struct inventory *inv = xcalloc(1, sizeof(*inv));

    arena_init(&inv->arena, ARENA_RUN_BYTES);
    strmap_init(&inv->index, &inv->arena);
    inv->verdicts = verdict_cache_new();
    inv->model = xcalloc(1, sizeof(*inv->model));
    pthread_mutex_init(&inv->model->mu, NULL);
    return inv;
}

static void inventory_put(struct inventory *inv, const struct tnode *root)
{
    struct object *o = arena_alloc(&inv->arena, sizeof(*o));
    const struct tnode *bad;
    const char *why;

    if (object_read(&inv->arena, root, "<inventory>", 0, o, &bad, &why)
        != OBJ_OK || !(o->kind & kind_bits(KIND_INVENTORY)) || !*o->name)
        return;
    o->inventory = 1;
    if (inv->n == inv->cap) {
        size_t cap = inv->cap ? inv->cap * 2 : 64;
        inv->objs = arena_grow(&inv->arena, inv->objs, inv->n, cap,
                               sizeof(*inv->objs));
        inv->cap = cap;
    }
    inv->objs[inv->n++] = o;
    inv->kinds |= o->kind;
    strmap_put(&inv->index, object_key(&inv->arena, o->kind, object_ns(o),
                                       o->name), o);
}

static void inventory_put_doc(struct inventory *inv, const struct tnode *root)
{
    size_t i;

    if (object_is_list(root)) {
        const struct tnode *items = tree_get(root, "items");
        for (i = 0; i < items->n; i++)
            inventory_put(inv, items->kids[i]);
        return;
    }
    inventory_put(inv, root);
}

int inventory_add_text(struct inventory *inv, const char *file,
                       const char *data, size_t len, struct err *err)
{
    struct ydocs docs;
    size_t i;

    stream_load(&inv->arena, data, len, &docs);
    for (i = 0; i < docs.n; i++)
        if (docs.v[i].error)
            return err_set(err, "%s:%u:%u: %s", file, docs.v[i].line,
                           docs.v[i].col, docs.v[i].error);
    for (i = 0; i < docs.n; i++)
        if (docs.v[i].root)
            inventory_put_doc(inv, docs.v[i].root);
    return 0;
}

int inventory_add_tree(struct inventory *inv, const struct tnode *obj,
                       struct err *err)
{
    (void)err;
    if (!tree_is_map(obj))
        return 0;
    inventory_put_doc(inv, tree_clone(&inv->arena, NULL, obj));
    return 0;
}

size_t inventory_size(const struct inventory *inv)
{
    return inv ? inv->n : 0;
}

void inventory_free(struct inventory *inv)
{
    if (!inv)
        return;
    devmodel_free(atomic_load(&inv->model->m));
    pthread_mutex_destroy(&inv->model->mu);
    free(inv->model);
    verdict_cache_free(inv->verdicts);
    arena_release(&inv->arena);
    free(inv);
}

const struct object *inventory_lookup(const struct inventory *inv,
                                      unsigned kind, const char *ns,
                                      const char *name)
{
    char key[1024];
    int n;

    if (!inv || !name)
        return NULL;
    n = snprintf(key, sizeof(key), "%u\x1f%s\x1f%s", kind, ns ? ns : "",
                 name);
    if (n < 0 || (size_t)n >= sizeof(key))
        return NULL;
    return strmap_get(&inv->index, key);
}

const struct devmodel *inventory_devices(const struct inventory *inv)
{
    struct inventory_model *c;
    struct devmodel *m;

    if (!inv)
        return NULL;
    c = inv->model;
    m = atomic_load(&c->m);
    if (m)
        return m;
    pthread_mutex_lock(&c->mu);
    m = atomic_load(&c->m);
    if (!m) {
        m = devmodel_build(NULL, (const struct object *const *)inv->objs,
                           inv->n, !inv->no_list_attributes);
        atomic_store(&c->m, m);
    }
    pthread_mutex_unlock(&c->mu);
    return m;
}

void inventory_set_list_attributes(struct inventory *inv, int on)
{
    inv->no_list_attributes = !on;
}

void inventory_prepare(const struct inventory *inv)
{
    inventory_devices(inv);
}
