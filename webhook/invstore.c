/*
 * invstore.c - reference-counted inventory snapshots and their assembly
 * from file texts + cluster objects. Owns the snapshot lifetime; it does not
 * read files (invfiles.c) or talk to the apiserver (cluster.c).
 */
#include "invstore.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../validate/engine.h"
#include "../validate/err.h"
#include "../validate/xalloc.h"
#include "log.h"
#include "metrics.h"

struct invref {
    struct inventory *inv;
    atomic_long refs;
};

struct text {
    char *file, *data;
    size_t len;
};

struct invstore {
    pthread_mutex_t mu;         /* guards cur (pointer + first ref) */
    struct invref *cur;
    pthread_mutex_t build_mu;   /* serializes rebuilds; guards the rest */
    struct text *texts;
    size_t ntexts;
    invstore_cluster_fn cluster;
    void *cluster_cls;
    struct metrics *metrics;
    atomic_size_t size;
    int no_list_attributes;     /* invstore_set_list_attributes() */
};

struct invstore *invstore_new(struct metrics *m)
{
    struct invstore *s = xcalloc(1, sizeof(*s));

    pthread_mutex_init(&s->mu, NULL);
    pthread_mutex_init(&s->build_mu, NULL);
    s->metrics = m;
    return s;
}

static void texts_free(struct text *t, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        free(t[i].file);
        free(t[i].data);
    }
    free(t);
}

void invstore_free(struct invstore *s)
{
    if (!s)
        return;
    invref_release(s->cur);
    texts_free(s->texts, s->ntexts);
    pthread_mutex_destroy(&s->mu);
    pthread_mutex_destroy(&s->build_mu);
    free(s);
}

struct invref *invstore_acquire(struct invstore *s)
{
    struct invref *r;

    pthread_mutex_lock(&s->mu);
    r = s->cur;
    if (r)
        atomic_fetch_add(&r->refs, 1);
    pthread_mutex_unlock(&s->mu);
    return r;
}

const struct inventory *invref_inventory(const struct invref *r)
{
    return r ? r->inv : NULL;
}

void invref_release(struct invref *r)
{
    if (!r)
        return;
    if (atomic_fetch_sub(&r->refs, 1) == 1) {
        inventory_free(r->inv);
        free(r);
    }
}

static void publish(struct invstore *s, struct inventory *inv)
{
    struct invref *r = xmalloc(sizeof(*r)), *old;

    r->inv = inv;
    atomic_init(&r->refs, 1);           /* the store's own reference */
    pthread_mutex_lock(&s->mu);
    old = s->cur;
    s->cur = r;
    pthread_mutex_unlock(&s->mu);
    invref_release(old);
    atomic_store(&s->size, inventory_size(inv));
    if (s->metrics)
        metrics_inventory(s->metrics, inventory_size(inv), time(NULL));
}

void invstore_set_list_attributes(struct invstore *s, int on)
{
    pthread_mutex_lock(&s->build_mu);
    s->no_list_attributes = !on;
    pthread_mutex_unlock(&s->build_mu);
}

static struct inventory *build(struct text *t, size_t n,
                               invstore_cluster_fn fn, void *cls,
                               int lists, struct err *err)
{
    struct inventory *inv = inventory_new();
    size_t i;

    if (!inv) {
        err_set(err, "cannot allocate an inventory");
        return NULL;
    }
    inventory_set_list_attributes(inv, lists);
    for (i = 0; i < n; i++) {
        if (inventory_add_text(inv, t[i].file, t[i].data, t[i].len, err) < 0)
            goto fail;
    }
    if (fn && fn(cls, inv, err) < 0)
        goto fail;
    inventory_prepare(inv);     /* the device model, before publishing */
    return inv;
fail:
    inventory_free(inv);
    return NULL;
}

int invstore_rebuild(struct invstore *s, struct err *err)
{
    struct inventory *inv;

    pthread_mutex_lock(&s->build_mu);
    inv = build(s->texts, s->ntexts, s->cluster, s->cluster_cls,
                !s->no_list_attributes, err);
    if (inv)
        publish(s, inv);
    else if (s->metrics)
        metrics_inventory_error(s->metrics);
    pthread_mutex_unlock(&s->build_mu);
    return inv ? 0 : -1;
}

int invstore_set_files(struct invstore *s, size_t n,
                       const char *const *files, const char *const *texts,
                       const size_t *lens, struct err *err)
{
    struct text *t = xcalloc(n ? n : 1, sizeof(*t));
    struct inventory *inv;
    size_t i;

    for (i = 0; i < n; i++) {
        t[i].file = xstrdup(files[i]);
        t[i].data = xmalloc(lens[i] + 1);
        memcpy(t[i].data, texts[i], lens[i]);
        t[i].data[lens[i]] = '\0';
        t[i].len = lens[i];
    }
    pthread_mutex_lock(&s->build_mu);
    inv = build(t, n, s->cluster, s->cluster_cls, !s->no_list_attributes,
                err);
    if (inv) {
        texts_free(s->texts, s->ntexts);
        s->texts = t;
        s->ntexts = n;
        publish(s, inv);
    } else {
        texts_free(t, n);
        if (s->metrics)
            metrics_inventory_error(s->metrics);
    }
    pthread_mutex_unlock(&s->build_mu);
    return inv ? 0 : -1;
}

void invstore_set_cluster(struct invstore *s, invstore_cluster_fn fn,
                          void *cls)
{
    pthread_mutex_lock(&s->build_mu);
    s->cluster = fn;
    s->cluster_cls = cls;
    pthread_mutex_unlock(&s->build_mu);
}

size_t invstore_size(struct invstore *s)
{
    return atomic_load(&s->size);
}
