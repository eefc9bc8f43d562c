/*
 * inventory.c - loading and indexing inventory objects (from files given
 * with --inventory, or from the webhook's cluster cache). Objects are read
 * with object_read() like linted input, but are never reported on; a
 * compact snapshot copies their trees with every string held once (a
 * large inventory repeats most of its keys and values: about a quarter
 * less memory than the trees as loaded). A snapshot may also hold
 * objects it shares instead of owning them: another inventory's
 * (inventory_add_inventory: the webhook's files) or single objects parsed
 * once (inventory_add_invobj, invobj.h: the webhook's cluster objects).
 * The snapshot's device model (devmodel.h) is built once, on first use.
 */
#include "inventory.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "allocate.h"
#include "devmodel.h"
#include "engine.h"
#include "limits.h"
#include "err.h"
#include "invobj.h"
#include "load_yaml.h"
#include "object.h"
#include "stream.h"
#include "tree.h"
#include "verdict.h"
#include "xalloc.h"


struct inventory_model {        /* the once-init of inventory_devices() */
    pthread_mutex_t mu;         /* held while the model is built */
    struct devmodel *_Atomic m; /* set once, under mu */
    int next;                   /* inventory_set_previous(): built to be
                                   reused, from prev's */
    struct inventory *prev;     /* ... held until the model is built */
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
    strmap_init(&inv->strs, &inv->arena);
    inv->verdicts = verdict_cache_new();
    inv->model = xcalloc(1, sizeof(*inv->model));
    pthread_mutex_init(&inv->model->mu, NULL);
    atomic_init(&inv->refs, 1);
    return inv;
}

/* Appends o to objs and the index. */
static void inventory_keep(struct inventory *inv, struct object *o)
{
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

int inventory_read(struct arena *a, const struct tnode *root,
                   struct object *o)
{
    const struct tnode *bad;
    const char *why;

    if (object_read(a, root, "<inventory>", 0, o, &bad, &why) != OBJ_OK
        || !(o->kind & kind_bits(KIND_INVENTORY)) || !*o->name)
        return -1;
    o->inventory = 1;
    return 0;
}

static void inventory_put(struct inventory *inv, const struct tnode *root)
{
    struct object *o = arena_alloc(&inv->arena, sizeof(*o));

    if (inventory_read(&inv->arena, root, o) == 0)
        inventory_keep(inv, o);
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

/* The objects of a file's parsed documents, or -1 with err at its first
 * parse error (then none of them) */
static int add_docs(struct inventory *inv, const char *file,
                    const struct ydocs *docs, struct err *err)
{
    size_t i;

    for (i = 0; i < docs->n; i++)
        if (docs->v[i].error)
            return err_set(err, "%s:%u:%u: %s", file, docs->v[i].line,
                           docs->v[i].col, docs->v[i].error);
    for (i = 0; i < docs->n; i++)
        if (docs->v[i].root)
            inventory_put_doc(inv, inv->compact
                                   ? tree_clone(&inv->arena, &inv->strs,
                                                docs->v[i].root)
                                   : docs->v[i].root);
    return 0;
}

int inventory_add_text(struct inventory *inv, const char *file,
                       const char *data, size_t len, struct err *err)
{
    struct inventory_text t;

    t.file = file;
    t.data = data;
    t.len = len;
    return inventory_add_texts(inv, &t, 1, err);
}

/* add_batch(): the files' documents parsed by two threads (one file: by
 * the caller alone), each file into an arena of its own with its strings
 * held once, which the inventory adopts, or, compact, releases once the
 * trees are copied; the files are taken in turn */
struct parse_job {
    const struct inventory_text *t;
    struct arena *arenas;
    struct ydocs *docs;
    size_t n;
    int intern;                 /* each file's strings held once in it */
    atomic_size_t next;
};

static void *parse_files(void *arg)
{
    struct parse_job *j = arg;
    struct strmap strs;
    size_t i;

    for (;;) {
        i = atomic_fetch_add(&j->next, 1);
        if (i >= j->n)
            break;
        arena_init(&j->arenas[i], ARENA_RUN_BYTES);
        strmap_init(&strs, &j->arenas[i]);
        stream_load(&j->arenas[i], j->intern ? &strs : NULL, j->t[i].data,
                    j->t[i].len, &j->docs[i]);
        /* the strings stay; their table is of no more use (a few MB a
         * file of an inventory of 20,000 nodes) */
        if (strs.cap > 64)
            arena_free(&j->arenas[i], strs.slots,
                       strs.cap * sizeof(*strs.slots));
    }
    return NULL;
}

static int add_batch(struct inventory *inv, struct inventory_text *t,
                     size_t n, struct err *err)
{
    struct parse_job j;
    pthread_t helper;
    int threaded, rc = 0;
    size_t i;

    j.t = t;
    j.n = n;
    /* kept as loaded: a file's trees repeat most of their strings (a
     * tenth less memory at 20,000 nodes); compact copies share them */
    j.intern = !inv->compact;
    j.arenas = xcalloc(n ? n : 1, sizeof(*j.arenas));
    j.docs = xcalloc(n ? n : 1, sizeof(*j.docs));
    atomic_init(&j.next, 0);
    threaded = n > 1 && pthread_create(&helper, NULL, parse_files, &j) == 0;
    parse_files(&j);
    if (threaded)
        pthread_join(helper, NULL);
    /* in the files' order, as inventory_add_text() one file at a time:
     * the same objects, indexed the same, the same first error */
    for (i = 0; i < n; i++) {
        size_t before = inventory_size(inv);
        if (rc == 0)
            rc = add_docs(inv, t[i].file, &j.docs[i], err);
        t[i].objects = inventory_size(inv) - before;
        if (rc == 0 && !inv->compact)   /* compact: copied */
            arena_adopt(&inv->arena, &j.arenas[i]);
        else
            arena_release(&j.arenas[i]);
    }
    free(j.arenas);
    free(j.docs);
    return rc;
}

int inventory_add_texts(struct inventory *inv, struct inventory_text *t,
                        size_t n, struct err *err)
{
    /* compact: a file's trees as loaded go once copied, so two files at a
     * time hold them (one per thread), not all of them */
    size_t from, step = inv->compact ? 2 : n;
    int rc = 0;

    for (from = 0; from < n; from += step) {
        size_t k = n - from < step ? n - from : step;
        if (rc == 0)
            rc = add_batch(inv, t + from, k, err);
        else
            while (k-- > 0)
                t[from + k].objects = 0;
    }
    return rc;
}

int inventory_add_tree(struct inventory *inv, const struct tnode *obj,
                       struct err *err)
{
    (void)err;
    if (!tree_is_map(obj))
        return 0;
    inventory_put_doc(inv, tree_clone(&inv->arena,
                                      inv->compact ? &inv->strs : NULL, obj));
    return 0;
}

void inventory_add_inventory(struct inventory *inv, struct inventory *base)
{
    size_t i;

    if (!base || inv->base)
        return;
    atomic_fetch_add(&base->refs, 1);
    inv->base = base;
    for (i = 0; i < base->n; i++)
        inventory_keep(inv, base->objs[i]);
}

void inventory_add_invobj(struct inventory *inv, struct invobj *o)
{
    if (inv->nheld == inv->heldcap) {
        size_t cap = inv->heldcap ? inv->heldcap * 2 : 64;
        inv->held = arena_grow(&inv->arena, inv->held, inv->nheld, cap,
                               sizeof(*inv->held));
        inv->heldcap = cap;
    }
    invobj_hold(o);
    inv->held[inv->nheld++] = o;
    inventory_keep(inv, invobj_object(o));
}

size_t inventory_size(const struct inventory *inv)
{
    return inv ? inv->n : 0;
}

void inventory_free(struct inventory *inv)
{
    size_t i;

    if (!inv || atomic_fetch_sub(&inv->refs, 1) != 1)
        return;
    devmodel_free(atomic_load(&inv->model->m));
    inventory_free(inv->model->prev);
    pthread_mutex_destroy(&inv->model->mu);
    free(inv->model);
    verdict_cache_free(inv->verdicts);
    /* what points into the objects is gone: let them go (the list of
     * them is in the arena) */
    for (i = 0; i < inv->nheld; i++)
        invobj_release(inv->held[i]);
    arena_release(&inv->arena);
    inventory_free(inv->base);
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
    if (!m && c->next) {
        m = devmodel_build_next(c->prev ? atomic_load(&c->prev->model->m)
                                        : NULL,
                                (const struct object *const *)inv->objs,
                                inv->n, !inv->no_list_attributes);
        atomic_store(&c->m, m);
        inventory_free(c->prev);        /* its model is not needed now */
        c->prev = NULL;
    } else if (!m) {
        m = devmodel_build(NULL, (const struct object *const *)inv->objs,
                           inv->n, !inv->no_list_attributes);
        atomic_store(&c->m, m);
    }
    pthread_mutex_unlock(&c->mu);
    return m;
}

void inventory_set_compact(struct inventory *inv, int on)
{
    inv->compact = on;
}

void inventory_set_list_attributes(struct inventory *inv, int on)
{
    inv->no_list_attributes = !on;
}

void inventory_set_previous(struct inventory *inv, struct inventory *prev)
{
    struct inventory_model *c = inv->model;

    pthread_mutex_lock(&c->mu);
    c->next = 1;
    /* only a built model is reused: a snapshot never holds a chain of
     * earlier ones */
    if (prev && prev != inv && !c->prev && !atomic_load(&c->m)
        && atomic_load(&prev->model->m)) {
        atomic_fetch_add(&prev->refs, 1);
        c->prev = prev;
    }
    pthread_mutex_unlock(&c->mu);
}

void inventory_prepare(const struct inventory *inv)
{
    inventory_devices(inv);
    alloc_model_warm(inv);      /* what the first review would learn */
}
