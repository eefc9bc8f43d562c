/*
 * cluster.c - list + watch of the inventory kinds (through kubeapi.c, the
 * one API client), the per-resource object maps, and the debounced
 * snapshot builder. It does not decide what a snapshot contains
 * (engine/inventory) or when requests read it (invstore.c).
 */
#include "cluster.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../validate/clock.h"
#include "../validate/arena.h"
#include "../validate/buf.h"
#include "../validate/kinds.h"
#include "../validate/engine.h"
#include "../validate/err.h"
#include "../validate/file.h"
#include "../validate/invobj.h"
#include "../validate/limits.h"
#include "../validate/load_json.h"
#include "../validate/tree.h"
#include "../validate/xalloc.h"
#include "invstore.h"
#include "kubeapi.h"
#include "kubeconfig.h"
#include "log.h"
#include "metrics.h"
#include "stopper.h"

#define CLUSTER_EVENT_MAX (16u * 1024 * 1024)   /* one watch event line */
#define CLUSTER_OBJ_MAX (8u * 1024 * 1024)      /* one stored object */
#define CLUSTER_WATCH_SECONDS 290
#define CLUSTER_BACKOFF_MAX 30
#define CLUSTER_RELIST_QUIET 30     /* a watch that ran this long ended
                                       normally: relist at once on 410 */
#define CLUSTER_BUCKETS 1024
#define CLUSTER_STRS_MIN 4096    /* strings held before a new set */
#define CLUSTER_CONFIRM_SECONDS 5   /* an empty list after a non-empty one
                                       is believed when the next list, this
                                       much later, is empty too */

/* ---- object map: key -> the object, parsed once ----------------------- */

/* Each object is parsed when the list or the watch event that brings it
 * arrives and is kept parsed (validate/invobj.h); a snapshot holds the
 * objects it was built from (inventory_add_invobj) instead of parsing and
 * copying them again. An update or a delete drops the map's reference
 * (the object lives on in the snapshots that hold it, unchanged); an
 * update that changes nothing keeps the object, and with it its identity
 * across snapshots. */
struct obj {
    struct obj *next;
    char *key;
    struct invobj *o;           /* the map's reference */
};

struct resource;

struct objmap {
    struct obj **b;
    size_t nb, n;
    struct resource *r;         /* while listing: whose objects */
    struct invstrs *strs;       /* the strings of objects made for it
                                   (written by the resource's thread) */
    size_t strs_max;            /* a new strs past this many strings */
    size_t parsed;              /* while listing: objects parsed anew */
};

static size_t key_hash(const char *s)
{
    size_t h = 1469598103934665603u;

    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211u;
    }
    return h;
}

static void objmap_init(struct objmap *m)
{
    m->nb = CLUSTER_BUCKETS;
    m->n = 0;
    m->b = xcalloc(m->nb, sizeof(*m->b));
    m->r = NULL;
    m->strs = invstrs_new();
    m->strs_max = CLUSTER_STRS_MIN;
    m->parsed = 0;
}

static void obj_free(struct obj *o)
{
    invobj_release(o->o);
    free(o->key);
    free(o);
}

static void objmap_release(struct objmap *m)
{
    size_t i;

    for (i = 0; i < m->nb; i++) {
        struct obj *o = m->b[i], *next;
        for (; o; o = next) {
            next = o->next;
            obj_free(o);
        }
    }
    free(m->b);
    invstrs_release(m->strs);
    m->b = NULL;
    m->strs = NULL;
    m->n = 0;
}

static void objmap_grow(struct objmap *m)
{
    struct obj **nb = xcalloc(m->nb * 2, sizeof(*nb));
    size_t i;

    for (i = 0; i < m->nb; i++) {
        struct obj *o = m->b[i], *next;
        for (; o; o = next) {
            size_t h = key_hash(o->key) & (m->nb * 2 - 1);
            next = o->next;
            o->next = nb[h];
            nb[h] = o;
        }
    }
    free(m->b);
    m->b = nb;
    m->nb *= 2;
}

static struct obj *objmap_find(const struct objmap *m, const char *key)
{
    struct obj *o = m->b[key_hash(key) & (m->nb - 1)];

    while (o && strcmp(o->key, key) != 0)
        o = o->next;
    return o;
}

/* Takes over the reference to io: it replaces what key held. */
static void objmap_put(struct objmap *m, const char *key, struct invobj *io)
{
    size_t h = key_hash(key) & (m->nb - 1);
    struct obj *o = objmap_find(m, key);

    if (o) {
        invobj_release(o->o);
        o->o = io;
        return;
    }
    o = xmalloc(sizeof(*o));
    o->key = xstrdup(key);
    o->o = io;
    o->next = m->b[h];
    m->b[h] = o;
    m->n++;
    if (m->n > m->nb)
        objmap_grow(m);
}

/* 1 when key was there */
static int objmap_del(struct objmap *m, const char *key)
{
    struct obj **pp = &m->b[key_hash(key) & (m->nb - 1)];

    for (; *pp; pp = &(*pp)->next) {
        struct obj *o = *pp;
        if (strcmp(o->key, key) == 0) {
            *pp = o->next;
            obj_free(o);
            m->n--;
            return 1;
        }
    }
    return 0;
}

/* The strings for the next object of m: a new set once m's has grown to
 * twice what the last list held (objects replaced by the watch leave
 * their strings behind; the objects of the old set hold it until they
 * go). Only the resource's thread calls this. */
static struct invstrs *objmap_strs(struct objmap *m)
{
    if (invstrs_count(m->strs) > m->strs_max) {
        invstrs_release(m->strs);
        m->strs = invstrs_new();
    }
    return m->strs;
}

/* ---- state ------------------------------------------------------------ */

struct resource {
    const char *plural;         /* "nodes" */
    const char *kind;           /* "Node": list items carry no kind */
    const char *group;          /* "" for core */
    char api_version[64];       /* "v1", "resource.k8s.io/v1" */
    char path[160];             /* "/api/v1/nodes" */
    struct cluster *c;
    pthread_t thread;
    int started;
    struct objmap objs;         /* guarded by c->mu */
    int listed;                 /* guarded by c->mu */
    int healthy;                /* listed and watching; guarded by c->mu */
    char rv[128];               /* resourceVersion to watch from */
    struct kubeapi *api;
    int held;                   /* the last list came back empty after a
                                   non-empty one and was not applied */
};

/* the inventory kinds of validate/kinds.h, one resource each */
#define NRES_MAX KIND_MAX

struct cluster {
    struct kubecreds cr;
    unsigned page_size;
    struct invstore *store;
    struct metrics *metrics;
    struct resource res[NRES_MAX];
    size_t nres;
    pthread_mutex_t mu;         /* objs, listed, dirty, parsed */
    int dirty;
    size_t parsed;              /* objects parsed since the last snapshot */
    struct stopper stop;        /* the sleeps between lists and publishes */
    atomic_int synced;
    pthread_t builder;
    int builder_started;
};

/* ---- tree -> compact JSON, with kind injected and Nodes pruned ---------- */

static int skip_member(const struct tnode *root, const struct tnode *parent,
                       const struct tnode *kid, int is_node)
{
    const char *pk = parent->key;

    if (parent == root && (strcmp(kid->key, "apiVersion") == 0
                           || strcmp(kid->key, "kind") == 0))
        return 1;       /* written first, from the resource */
    /* volatile metadata: dropping it lets an update that changes nothing
     * the rules read (a Node status heartbeat) skip the snapshot rebuild */
    if (pk && parent->parent == root && strcmp(pk, "metadata") == 0
        && (strcmp(kid->key, "managedFields") == 0
            || strcmp(kid->key, "resourceVersion") == 0
            || strcmp(kid->key, "generation") == 0))
        return 1;
    /* Node status: keep capacity/allocatable only (images etc. are big) */
    if (is_node && pk && parent->parent == root && strcmp(pk, "status") == 0
        && strcmp(kid->key, "capacity") != 0
        && strcmp(kid->key, "allocatable") != 0)
        return 1;
    return 0;
}

static void json_out(struct buf *b, const struct tnode *root,
                     const struct tnode *n, int is_node)
{
    size_t i;
    int first = 1;

    switch (n->kind) {
    case T_NULL:
        buf_adds(b, "null");
        return;
    case T_BOOL:
        buf_adds(b, n->boolean ? "true" : "false");
        return;
    case T_INT:
    case T_FLOAT:
        buf_adds(b, n->str);
        return;
    case T_STR:
        buf_add_json_str(b, n->str);
        return;
    case T_SEQ:
        buf_addc(b, '[');
        for (i = 0; i < n->n; i++) {
            if (i)
                buf_addc(b, ',');
            json_out(b, root, n->kids[i], is_node);
        }
        buf_addc(b, ']');
        return;
    case T_MAP:
        break;
    }
    if (n != root)
        buf_addc(b, '{');
    else
        first = 0;  /* the caller opened the object with apiVersion/kind */
    for (i = 0; i < n->n; i++) {
        if (skip_member(root, n, n->kids[i], is_node))
            continue;
        if (!first)
            buf_addc(b, ',');
        first = 0;
        buf_add_json_str(b, n->kids[i]->key);
        buf_addc(b, ':');
        json_out(b, root, n->kids[i], is_node);
    }
    buf_addc(b, '}');
}

/* Renders obj as compact JSON with r's apiVersion/kind first (list items
 * carry none) into a malloc'ed string, and its "namespace/name" into key.
 * Returns NULL if obj has no name or is too large. */
static char *render_object(const struct resource *r, const struct tnode *obj,
                           char *key, size_t keymax, size_t *len)
{
    const char *ns = tree_str(tree_at(obj, "metadata.namespace"));
    const char *name = tree_str(tree_at(obj, "metadata.name"));
    struct buf b;
    char *json = NULL;

    if (!tree_is_map(obj) || !name)
        return NULL;
    snprintf(key, keymax, "%s/%s", ns ? ns : "", name);
    buf_init(&b, CLUSTER_OBJ_MAX);
    buf_adds(&b, "{\"apiVersion\":");
    buf_add_json_str(&b, r->api_version);
    buf_adds(&b, ",\"kind\":");
    buf_add_json_str(&b, r->kind);
    json_out(&b, obj, obj, strcmp(r->kind, "Node") == 0);
    if (b.len < b.max) {
        json = xmalloc(b.len + 1);
        memcpy(json, b.p, b.len + 1);
        *len = b.len;
    }
    buf_release(&b);
    return json;
}

/* obj as the snapshots read it: rendered (render_object) and loaded
 * again into a, its "namespace/name" in key. -1 (logged) when it has no
 * name, is too large or does not load. */
static int load_object(const struct resource *r, const struct tnode *obj,
                       struct arena *a, char *key, size_t keymax,
                       struct tnode **out)
{
    struct err e = { "" };
    size_t len = 0;
    char *json = render_object(r, obj, key, keymax, &len);
    int rc;

    if (!json)
        return -1;
    rc = load_json(a, json, len, out, &e);
    if (rc < 0)
        log_msg(LOG_WARN, "inventory: skipping %s '%s': %s", r->kind, key,
                e.msg);
    free(json);
    return rc;
}

/* Stores one watched object of r; -1 if unusable. An object the
 * snapshots would not keep (not of r's kind, no name) removes what its
 * key held, as its update would have removed it from the next snapshot. */
static int store_object(struct resource *r, const struct tnode *obj)
{
    char key[1024];
    struct arena a;
    struct tnode *t;
    struct obj *old;
    struct invobj *io = NULL;
    int rc = -1;

    arena_init(&a, ARENA_CHUNK_BYTES);
    if (load_object(r, obj, &a, key, sizeof(key), &t) < 0)
        goto out;
    rc = 0;
    /* only this thread writes r->objs: reading it needs no lock */
    old = objmap_find(&r->objs, key);
    if (old && tree_same(invobj_tree(old->o), t, NULL))
        goto out;               /* nothing the rules read changed */
    io = invobj_new(t, objmap_strs(&r->objs));
    pthread_mutex_lock(&r->c->mu);
    if (io) {
        objmap_put(&r->objs, key, io);
        r->c->parsed++;
        r->c->dirty = 1;
    } else if (objmap_del(&r->objs, key)) {
        r->c->dirty = 1;
    }
    pthread_mutex_unlock(&r->c->mu);
out:
    arena_release(&a);
    return rc;
}

static void delete_object(struct resource *r, const struct tnode *obj)
{
    const char *ns = tree_str(tree_at(obj, "metadata.namespace"));
    const char *name = tree_str(tree_at(obj, "metadata.name"));
    char key[1024];

    if (!name)
        return;
    snprintf(key, sizeof(key), "%s/%s", ns ? ns : "", name);
    pthread_mutex_lock(&r->c->mu);
    objmap_del(&r->objs, key);
    r->c->dirty = 1;
    pthread_mutex_unlock(&r->c->mu);
}

/* invstore callback: adds every stored object to a snapshot being built
 * (shared, not copied: inventory_add_invobj). */
static int add_objects(void *cls, struct inventory *inv, struct err *err)
{
    struct cluster *c = cls;
    size_t r, i, n = 0;

    pthread_mutex_lock(&c->mu);
    for (r = 0; r < c->nres; r++) {
        struct objmap *m = &c->res[r].objs;
        for (i = 0; i < m->nb; i++) {
            struct obj *o;
            for (o = m->b[i]; o; o = o->next, n++)
                inventory_add_invobj(inv, o->o);
        }
    }
    log_msg(LOG_DEBUG, "inventory: snapshot of %zu cluster objects, %zu "
            "parsed since the last", n, c->parsed);
    c->parsed = 0;
    c->dirty = 0;
    pthread_mutex_unlock(&c->mu);
    (void)err;
    return 0;
}

/* ---- HTTP ------------------------------------------------------------- */

/* ---- list ------------------------------------------------------------- */

/* One listed object into the fresh map: the object held before when the
 * list brings it unchanged (a relist keeps the objects, and with them
 * their identity across snapshots), else parsed anew. */
static void list_item(void *cls, const struct tnode *item)
{
    struct objmap *fresh = cls;
    char key[1024];
    struct arena a;
    struct tnode *t;
    struct obj *old;
    struct invobj *io;

    arena_init(&a, ARENA_CHUNK_BYTES);
    if (load_object(fresh->r, item, &a, key, sizeof(key), &t) < 0)
        goto out;
    /* only this thread writes r->objs: reading it needs no lock */
    old = objmap_find(&fresh->r->objs, key);
    if (old && tree_same(invobj_tree(old->o), t, NULL)) {
        invobj_hold(old->o);
        objmap_put(fresh, key, old->o);
        goto out;
    }
    io = invobj_new(t, fresh->strs);
    if (io) {
        objmap_put(fresh, key, io);
        fresh->parsed++;
    }
out:
    arena_release(&a);
}

/* Lists every page into a fresh map, then swaps it in. 0, 1 = 410 (token
 * expired: list again from scratch), 2 = an empty list after a non-empty
 * one, not applied (the next empty one is), or -1. */
static int do_list(struct resource *r, struct err *err)
{
    struct objmap fresh;
    char rv[128] = "";
    size_t n;
    long status;
    int ret = -1;

    objmap_init(&fresh);
    fresh.r = r;
    status = kubeapi_list(r->api, r->path, r->c->page_size, list_item,
                          &fresh, rv, sizeof(rv), NULL, err);
    if (status == 410) {
        ret = 1;
        goto out;
    }
    if (status != 200) {
        if (status > 0)
            err_set(err, "list %s: HTTP %ld", r->plural, status);
        goto out;
    }
    if (stopper_stopping(&r->c->stop))
        goto out;
    n = fresh.n;
    if (!n && r->objs.n && !r->held) {
        /* Every object of the kind gone at once is more likely an
         * apiserver or etcd hiccup than the cluster: the objects held
         * serve on, and the next list decides (resource_main). Only this
         * thread writes r->objs, so reading n here needs no lock. */
        r->held = 1;
        ret = 2;
        goto out;
    }
    /* the watch makes a new set of strings once this one doubles */
    fresh.strs_max = 2 * invstrs_count(fresh.strs);
    if (fresh.strs_max < CLUSTER_STRS_MIN)
        fresh.strs_max = CLUSTER_STRS_MIN;
    pthread_mutex_lock(&r->c->mu);
    objmap_release(&r->objs);
    r->objs = fresh;
    r->c->parsed += fresh.parsed;
    fresh.b = NULL;
    r->listed = 1;
    r->healthy = 1;
    r->c->dirty = 1;
    pthread_mutex_unlock(&r->c->mu);
    snprintf(r->rv, sizeof(r->rv), "%s", rv);
    log_msg(LOG_INFO, "inventory: listed %zu %s at resourceVersion %s%s", n,
            r->plural, rv, r->held ? " (the list held back is confirmed "
            "or replaced)" : "");
    if (r->held)
        invstore_set_refusal(r->c->store, "");
    r->held = 0;
    ret = 0;
out:
    if (fresh.b)
        objmap_release(&fresh);
    return ret;
}

/* ---- watch ------------------------------------------------------------ */

struct watch {
    struct resource *r;
    int gone;                   /* an ERROR event with 410 */
    int failed;                 /* an event could not be handled */
    long events;
};

static void handle_event(void *cls, const char *line, size_t len)
{
    struct watch *s = cls;
    struct resource *r = s->r;
    struct arena a;
    struct tnode *t;
    struct err err = { "" };
    const char *type, *rv;
    const struct tnode *obj;

    arena_init(&a, ARENA_SMALL_BYTES);
    if (load_json(&a, line, len, &t, &err) < 0) {
        log_msg(LOG_WARN, "inventory: bad watch event for %s: %s",
                r->plural, err.msg);
        s->failed = 1;
        goto out;
    }
    type = tree_str(tree_get(t, "type"));
    obj = tree_get(t, "object");
    if (!type || !tree_is_map(obj)) {
        s->failed = 1;
        goto out;
    }
    s->events++;
    if (strcmp(type, "ERROR") == 0) {
        long long code = 0;
        tree_int(tree_get(obj, "code"), &code);
        if (code == 410)
            s->gone = 1;
        else
            s->failed = 1;
        log_msg(LOG_INFO, "inventory: watch %s ended with status %lld",
                r->plural, code);
        goto out;
    }
    rv = tree_str(tree_at(obj, "metadata.resourceVersion"));
    if (strcmp(type, "ADDED") == 0 || strcmp(type, "MODIFIED") == 0)
        store_object(r, obj);
    else if (strcmp(type, "DELETED") == 0)
        delete_object(r, obj);
    else if (strcmp(type, "BOOKMARK") != 0)
        goto out;
    if (rv)
        snprintf(r->rv, sizeof(r->rv), "%s", rv);
out:
    arena_release(&a);
}

enum watch_end { W_AGAIN, W_RELIST, W_ERROR };

static enum watch_end do_watch(struct resource *r, struct err *err)
{
    struct watch s;
    char url[1024];
    struct buf esc;
    long status;
    enum watch_end ret;
    size_t i;

    memset(&s, 0, sizeof(s));
    s.r = r;
    /* resourceVersions are opaque: escape what a URL cannot carry */
    buf_init(&esc, sizeof(r->rv) * 3 + 1);
    for (i = 0; r->rv[i]; i++) {
        unsigned char ch = (unsigned char)r->rv[i];
        if ((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z')
            || (ch >= 'A' && ch <= 'Z') || strchr("-._~", ch))
            buf_addc(&esc, (char)ch);
        else
            buf_addf(&esc, "%%%02X", ch);
    }
    snprintf(url, sizeof(url), "%s?watch=1&allowWatchBookmarks=true&"
             "resourceVersion=%s&timeoutSeconds=%d", r->path, esc.p,
             CLUSTER_WATCH_SECONDS);
    buf_release(&esc);
    status = kubeapi_stream(r->api, url, CLUSTER_EVENT_MAX, handle_event, &s,
                            CLUSTER_WATCH_SECONDS + 30, err);
    if (s.gone || status == 410)
        ret = W_RELIST;
    else if (status == 200 && !s.failed)
        ret = W_AGAIN;
    else {
        if (status > 0 && status != 200)
            err_set(err, "watch %s: HTTP %ld", r->plural, status);
        else if (s.failed && !err->msg[0])
            err_set(err, "watch %s: stream error", r->plural);
        ret = W_ERROR;
    }
    return ret;
}

static void set_healthy(struct resource *r, int on)
{
    pthread_mutex_lock(&r->c->mu);
    r->healthy = on;
    pthread_mutex_unlock(&r->c->mu);
}

static unsigned backoff_next(unsigned d)
{
    if (d == 0)
        return 1;
    return d * 2 > CLUSTER_BACKOFF_MAX ? CLUSTER_BACKOFF_MAX : d * 2;
}


/* Errors back off (delay, reset by a complete list). 410 Gone is no error,
 * but an apiserver answering it again and again (a watch cache behind the
 * list, continue tokens expiring) must not get full relists back to back:
 * relists after a 410 back off too (relist_delay), reset only by a watch
 * that ran its course or for CLUSTER_RELIST_QUIET seconds; a complete list
 * does not reset it, since the loop is list -> watch -> 410. */
static void *resource_main(void *arg)
{
    struct resource *r = arg;
    struct cluster *c = r->c;
    unsigned delay = 1, relist_delay = 0;
    int need_list = 1;
    double t_watch;

    while (!stopper_stopping(&c->stop)) {
        struct err err = { "" };
        if (need_list) {
            int rc;
            if (relist_delay && stopper_wait(&c->stop, relist_delay))
                break;
            rc = do_list(r, &err);
            if (rc < 0) {
                if (stopper_stopping(&c->stop))
                    break;
                set_healthy(r, 0);
                metrics_inventory_error(c->metrics);
                log_msg(LOG_WARN, "inventory: list %s failed, retrying in "
                        "%us: %s", r->plural, delay, err.msg);
                relist_delay = 0;   /* errors have their own backoff */
                if (stopper_wait(&c->stop, delay))
                    break;
                delay = backoff_next(delay);
                continue;
            }
            if (rc == 2) {      /* an empty list held back: list again */
                char msg[200];
                snprintf(msg, sizeof(msg), "an empty list of %s after a "
                         "non-empty one: not applied, listing again in %us",
                         r->plural, CLUSTER_CONFIRM_SECONDS);
                log_msg(LOG_WARN, "inventory: %s", msg);
                metrics_inventory_refused(c->metrics, "empty-list");
                invstore_set_refusal(c->store, msg);
                relist_delay = CLUSTER_CONFIRM_SECONDS;
                continue;
            }
            if (rc > 0) {       /* continue token expired: list again */
                relist_delay = backoff_next(relist_delay);
                log_msg(LOG_INFO, "inventory: list of %s expired (410), "
                        "listing again in %us", r->plural, relist_delay);
                continue;
            }
            need_list = 0;
            delay = 1;
        }
        t_watch = clock_mono_s();
        switch (do_watch(r, &err)) {
        case W_AGAIN:
            relist_delay = 0;
            break;
        case W_RELIST:
            relist_delay = clock_mono_s() - t_watch >= CLUSTER_RELIST_QUIET
                           ? 0 : backoff_next(relist_delay);
            log_msg(LOG_INFO, "inventory: resourceVersion of %s expired "
                    "(410), relisting in %us", r->plural, relist_delay);
            need_list = 1;
            break;
        case W_ERROR:
            if (stopper_stopping(&c->stop))
                break;
            set_healthy(r, 0);
            metrics_inventory_error(c->metrics);
            log_msg(LOG_WARN, "inventory: watch %s failed, relisting in "
                    "%us: %s", r->plural, delay, err.msg);
            need_list = 1;
            relist_delay = 0;
            if (stopper_wait(&c->stop, delay))
                return NULL;
            delay = backoff_next(delay);
            break;
        }
    }
    return NULL;
}

static int all_listed(struct cluster *c)
{
    size_t i;

    for (i = 0; i < c->nres; i++)
        if (!c->res[i].listed)
            return 0;
    return 1;
}

static int all_healthy(struct cluster *c)
{
    size_t i;

    for (i = 0; i < c->nres; i++)
        if (!c->res[i].healthy)
            return 0;
    return 1;
}

/* This thread's CPU time in seconds (a snapshot's cost, in the log). */
static double thread_cpu_s(void)
{
    struct timespec ts;

    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0;
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Publishes a snapshot at most once per second when something changed.
 * With nothing to rebuild and every watch healthy, the snapshot is
 * current: its age in the metrics restarts, so an alert on the age fires
 * only when syncing is actually stuck. */
static void *builder_main(void *arg)
{
    struct cluster *c = arg;

    for (;;) {
        int build, current;
        struct err err = { "" };
        double t0, cpu0;

        if (stopper_wait(&c->stop, 1))
            break;
        pthread_mutex_lock(&c->mu);
        build = c->dirty && all_listed(c);
        current = !c->dirty && all_healthy(c);
        pthread_mutex_unlock(&c->mu);
        if (current && atomic_load(&c->synced))
            metrics_inventory(c->metrics, invstore_size(c->store),
                              time(NULL));
        if (!build)
            continue;
        t0 = clock_mono_s();
        cpu0 = thread_cpu_s();
        if (invstore_rebuild(c->store, &err) < 0) {
            log_msg(LOG_ERROR, "inventory: snapshot failed: %s", err.msg);
            continue;
        }
        log_msg(LOG_DEBUG, "inventory: snapshot published in %.3f s "
                "(%.3f s CPU)", clock_mono_s() - t0, thread_cpu_s() - cpu0);
        if (!atomic_exchange(&c->synced, 1))
            log_msg(LOG_INFO, "inventory: first sync complete, %zu objects",
                    invstore_size(c->store));
    }
    return NULL;
}

/* ---- lifecycle -------------------------------------------------------- */

struct cluster *cluster_new(const struct cluster_opts *o,
                            struct invstore *s, struct metrics *m,
                            struct err *err)
{
    struct cluster *c = xcalloc(1, sizeof(*c));
    const char *ver = o->dra_version ? o->dra_version : "v1";
    size_t i, k;

    pthread_mutex_init(&c->mu, NULL);
    stopper_init(&c->stop);
    c->store = s;
    c->metrics = m;
    c->page_size = o->page_size ? o->page_size : 500;
    kubecreds_init(&c->cr);
    if (kubecreds_in_cluster(&c->cr, o->apiserver, o->sa_dir, err) < 0) {
        cluster_free(c);
        return NULL;
    }
    for (k = 0; k < kind_count; k++) {
        struct resource *r;
        if (!(kind_table[k].flags & KIND_INVENTORY) || c->nres == NRES_MAX)
            continue;
        i = c->nres++;
        r = &c->res[i];
        r->plural = kind_table[k].plural;
        r->kind = kind_table[k].name;
        r->group = kind_table[k].group;
        r->c = c;
        if (*r->group) {
            snprintf(r->api_version, sizeof(r->api_version), "%s/%s",
                     r->group, ver);
            snprintf(r->path, sizeof(r->path), "/apis/%s/%s/%s", r->group,
                     ver, r->plural);
        } else {
            snprintf(r->api_version, sizeof(r->api_version), "v1");
            snprintf(r->path, sizeof(r->path), "/api/v1/%s", r->plural);
        }
        objmap_init(&r->objs);
        r->api = kubeapi_new(&c->cr);
        kubeapi_set_stop(r->api, stopper_stopping, &c->stop);
    }
    invstore_set_cluster(s, add_objects, c);
    return c;
}

int cluster_start(struct cluster *c, struct err *err)
{
    size_t i;

    log_msg(LOG_INFO, "inventory: syncing from %s", c->cr.server);
    for (i = 0; i < c->nres; i++) {
        if (pthread_create(&c->res[i].thread, NULL, resource_main,
                           &c->res[i]) != 0)
            return err_set(err, "cannot start a watch thread");
        c->res[i].started = 1;
    }
    if (pthread_create(&c->builder, NULL, builder_main, c) != 0)
        return err_set(err, "cannot start the inventory builder thread");
    c->builder_started = 1;
    return 0;
}

int cluster_synced(void *cls)
{
    struct cluster *c = cls;

    return atomic_load(&c->synced);
}

void cluster_free(struct cluster *c)
{
    size_t i;

    if (!c)
        return;
    stopper_stop(&c->stop);
    for (i = 0; i < c->nres; i++)
        if (c->res[i].started)
            pthread_join(c->res[i].thread, NULL);
    if (c->builder_started)
        pthread_join(c->builder, NULL);
    invstore_set_cluster(c->store, NULL, NULL);
    for (i = 0; i < c->nres; i++) {
        kubeapi_free(c->res[i].api);
        if (c->res[i].objs.b)
            objmap_release(&c->res[i].objs);
    }
    stopper_destroy(&c->stop);
    pthread_mutex_destroy(&c->mu);
    kubecreds_release(&c->cr);
    free(c);
}
