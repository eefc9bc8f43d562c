/*
 * invstore.c - reference-counted inventory snapshots and their assembly
 * from file objects + cluster objects, each paired with the engine that
 * judges against it. The files are parsed once per load: their objects
 * (an inventory of their own, never published) are shared by every
 * snapshot built until the next load, and their texts are not kept. Owns
 * the snapshot and engine lifetimes; it does not read files (invfiles.c),
 * talk to the apiserver (cluster.c) or decide which engine (main.c,
 * clustertarget.c).
 */
#include "invstore.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../validate/allocate.h"
#include "../validate/engine.h"
#include "../validate/err.h"
#include "../validate/inventory.h"
#include "../validate/xalloc.h"
#include "log.h"
#include "metrics.h"

/* An engine shared by the snapshots built for it. */
struct engref {
    struct engine *eng;
    void (*release)(void *cls);     /* after engine_free; may be NULL */
    void *cls;
    atomic_long refs;
};

struct invref {
    struct inventory *inv;          /* NULL: an engine, no inventory yet */
    struct engref *eng;             /* NULL: none set */
    atomic_long refs;
};

struct text {                   /* a file of the last load */
    char *file;
    size_t objects;             /* the objects it holds */
    int blank;                  /* nothing but white space */
};

struct invstore {
    pthread_mutex_t mu;         /* guards cur (pointer + first ref) */
    struct invref *cur;
    pthread_mutex_t build_mu;   /* serializes rebuilds; guards the rest */
    struct text *texts;
    size_t ntexts;
    struct inventory *files;    /* their objects (shared by snapshots) */
    invstore_cluster_fn cluster;
    void *cluster_cls;
    struct engref *eng;         /* what new snapshots are paired with */
    struct metrics *metrics;
    atomic_size_t size;
    int no_list_attributes;     /* invstore_set_list_attributes() */
    unsigned min_percent;       /* of the last load's file objects */
    char refusal[256];          /* the last file load refused; under mu */
};

struct invstore *invstore_new(struct metrics *m)
{
    struct invstore *s = xcalloc(1, sizeof(*s));

    pthread_mutex_init(&s->mu, NULL);
    pthread_mutex_init(&s->build_mu, NULL);
    s->metrics = m;
    s->min_percent = INVSTORE_MIN_PERCENT;
    return s;
}

static void texts_free(struct text *t, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        free(t[i].file);
    free(t);
}

static void engref_release(struct engref *e)
{
    if (!e || atomic_fetch_sub(&e->refs, 1) != 1)
        return;
    engine_free(e->eng);
    if (e->release)
        e->release(e->cls);
    free(e);
}

void invstore_free(struct invstore *s)
{
    if (!s)
        return;
    invref_release(s->cur);
    engref_release(s->eng);
    texts_free(s->texts, s->ntexts);
    inventory_free(s->files);
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

const struct engine *invref_engine(const struct invref *r)
{
    return r && r->eng ? r->eng->eng : NULL;
}

void invref_release(struct invref *r)
{
    if (!r)
        return;
    if (atomic_fetch_sub(&r->refs, 1) == 1) {
        inventory_free(r->inv);
        engref_release(r->eng);
        free(r);
    }
}

/* Publishes inv (NULL: the engine alone, before any inventory) with the
 * current engine. Under build_mu. */
static void publish(struct invstore *s, struct inventory *inv)
{
    struct invref *r = xmalloc(sizeof(*r)), *old;

    r->inv = inv;
    r->eng = s->eng;
    if (r->eng)
        atomic_fetch_add(&r->eng->refs, 1);
    atomic_init(&r->refs, 1);           /* the store's own reference */
    pthread_mutex_lock(&s->mu);
    old = s->cur;
    s->cur = r;
    pthread_mutex_unlock(&s->mu);
    invref_release(old);
    if (!inv)
        return;
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

/* A snapshot of the file objects files (shared, NULL: none) and the
 * cluster's; its device model built from prev's (the snapshot published,
 * NULL: none) where the objects are the same. */
static struct inventory *build(struct inventory *files,
                               struct inventory *prev,
                               invstore_cluster_fn fn, void *cls,
                               int lists, struct err *err)
{
    struct inventory *inv = inventory_new();

    if (!inv) {
        err_set(err, "cannot allocate an inventory");
        return NULL;
    }
    inventory_set_list_attributes(inv, lists);
    inventory_set_compact(inv, 1);      /* it serves until the next one */
    inventory_set_previous(inv, prev);  /* (held until the model is built) */
    inventory_add_inventory(inv, files);
    if (fn && fn(cls, inv, err) < 0)
        goto fail;
    /* the device model, before publishing, and what the first review
     * would learn: prev's results for the devices taken from prev's model
     * (prev, published, is held by the store meanwhile) */
    inventory_devices(inv);
    alloc_model_warm_next(inv, prev ? inventory_devices(prev) : NULL);
    return inv;
fail:
    inventory_free(inv);
    return NULL;
}

int invstore_rebuild(struct invstore *s, struct err *err)
{
    struct inventory *inv;

    pthread_mutex_lock(&s->build_mu);
    inv = build(s->files, s->cur ? s->cur->inv : NULL, s->cluster,
                s->cluster_cls, !s->no_list_attributes, err);
    if (inv)
        publish(s, inv);
    else if (s->metrics)
        metrics_inventory_error(s->metrics);
    pthread_mutex_unlock(&s->build_mu);
    return inv ? 0 : -1;
}

int invstore_set_engine(struct invstore *s, struct engine *eng,
                        void (*release)(void *cls), void *cls,
                        struct err *err)
{
    struct engref *e = xmalloc(sizeof(*e));
    struct inventory *inv = NULL;
    int lists = engine_list_attributes(eng);

    e->eng = eng;
    e->release = release;
    e->cls = cls;
    atomic_init(&e->refs, 1);           /* the store's reference */
    pthread_mutex_lock(&s->build_mu);
    /* a snapshot's verdicts and device model are the engine's: a new
     * engine gets a new snapshot of the same sources */
    if (s->cur && s->cur->inv) {
        inv = build(s->files, s->cur ? s->cur->inv : NULL, s->cluster,
                    s->cluster_cls, lists, err);
        if (!inv) {
            pthread_mutex_unlock(&s->build_mu);
            engref_release(e);
            return -1;
        }
    }
    engref_release(s->eng);
    s->eng = e;
    s->no_list_attributes = !lists;
    publish(s, inv);
    pthread_mutex_unlock(&s->build_mu);
    return 0;
}

static int blank(const char *p, size_t len)
{
    size_t i;

    for (i = 0; i < len; i++)
        if (p[i] != ' ' && p[i] != '\t' && p[i] != '\n' && p[i] != '\r')
            return 0;
    return 1;
}

/* Whether the new texts t would lose data the published ones had: a file
 * now blank that had objects ("empty": a truncating copy, an editor's
 * save), or far fewer objects in all (below min_percent of the last load:
 * "shrunk"). Returns the reason, NULL when t may replace them. */
static const char *loses_data(const struct invstore *s, const struct text *t,
                              size_t n, struct err *err)
{
    size_t i, j, before = 0, after = 0;

    for (i = 0; i < s->ntexts; i++)
        before += s->texts[i].objects;
    for (i = 0; i < n; i++) {
        after += t[i].objects;
        if (!t[i].blank)
            continue;
        for (j = 0; j < s->ntexts; j++)
            if (s->texts[j].objects && !strcmp(s->texts[j].file, t[i].file)) {
                err_set(err, "'%s' is empty (it had %zu objects)", t[i].file,
                        s->texts[j].objects);
                return "empty";
            }
    }
    if (before && after * 100 < before * (size_t)s->min_percent) {
        err_set(err, "the files hold %zu objects, fewer than %u%% of the "
                "last load's %zu", after, s->min_percent, before);
        return "shrunk";
    }
    return NULL;
}

void invstore_set_refusal(struct invstore *s, const char *msg)
{
    pthread_mutex_lock(&s->mu);
    snprintf(s->refusal, sizeof(s->refusal), "%s", msg);
    pthread_mutex_unlock(&s->mu);
}

int invstore_set_files(struct invstore *s, size_t n,
                       const char *const *files, const char *const *texts,
                       const size_t *lens, struct err *err)
{
    struct text *t = xcalloc(n ? n : 1, sizeof(*t));
    struct inventory_text *it = xcalloc(n ? n : 1, sizeof(*it));
    struct inventory *fobjs = inventory_new(), *inv = NULL;
    const char *reason = NULL;
    size_t i;
    int rc;

    inventory_set_compact(fobjs, 1);
    for (i = 0; i < n; i++) {
        t[i].file = xstrdup(files[i]);
        t[i].blank = blank(texts[i], lens[i]);
        it[i].file = files[i];
        it[i].data = texts[i];
        it[i].len = lens[i];
    }
    /* parsed on two threads; the counts per file are loses_data()'s */
    rc = inventory_add_texts(fobjs, it, n, err);
    for (i = 0; i < n; i++)
        t[i].objects = it[i].objects;
    free(it);
    pthread_mutex_lock(&s->build_mu);
    if (rc == 0)
        inv = build(fobjs, s->cur ? s->cur->inv : NULL, s->cluster,
                    s->cluster_cls, !s->no_list_attributes, err);
    if (inv && s->texts && s->cur)
        reason = loses_data(s, t, n, err);
    if (inv && !reason) {
        texts_free(s->texts, s->ntexts);
        inventory_free(s->files);
        s->texts = t;
        s->ntexts = n;
        s->files = fobjs;
        publish(s, inv);
        invstore_set_refusal(s, "");
    } else {
        texts_free(t, n);
        inventory_free(inv);
        inventory_free(fobjs);
        if (reason)
            invstore_set_refusal(s, err->msg);
        if (s->metrics && reason)
            metrics_inventory_refused(s->metrics, reason);
        else if (s->metrics)
            metrics_inventory_error(s->metrics);
    }
    pthread_mutex_unlock(&s->build_mu);
    return reason ? -2 : inv ? 0 : -1;
}

void invstore_set_min_percent(struct invstore *s, unsigned percent)
{
    pthread_mutex_lock(&s->build_mu);
    s->min_percent = percent;
    pthread_mutex_unlock(&s->build_mu);
}

int invstore_refusal(struct invstore *s, char *out, size_t n)
{
    int refused;

    pthread_mutex_lock(&s->mu);
    refused = s->refusal[0] != '\0';
    snprintf(out, n, "%s", s->refusal);
    pthread_mutex_unlock(&s->mu);
    return refused;
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
