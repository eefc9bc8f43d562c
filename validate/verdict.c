/*
 * verdict.c - the admission verdict cache (see verdict.h): a direct-mapped
 * table of VERDICT_SLOTS entries, each a malloc'ed copy of a finding list,
 * replaced on collision. Bounded: at most VERDICT_SLOTS entries of at most
 * VERDICT_MAX_BYTES each.
 */
#include "verdict.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "tree.h"

#define VERDICT_SLOTS 1024
#define VERDICT_MAX_BYTES (64u * 1024)

struct vfinding {
    const struct rule *rule;
    enum sev sev;
    const char *api_version, *path, *msg, *hint, *suppress_reason;
    const char **details;
    size_t ndetails;
    int suppressed;
};

struct ventry {
    struct verdict_key key;
    struct vfinding *f;
    size_t n;
    char *block;                /* one allocation: findings and strings */
};

struct verdict_cache {
    pthread_mutex_t mu;
    struct ventry slots[VERDICT_SLOTS];
};

/* ==== the key ============================================================ */

static const char *const volatile_meta[] = {
    "name", "generateName", "uid", "resourceVersion", "creationTimestamp",
    "managedFields", "ownerReferences", "generation", "deletionTimestamp",
    NULL
};

static void mix(struct verdict_key *k, const char *s, size_t n, unsigned tag)
{
    size_t i;

    k->a ^= tag;
    k->a *= 0x100000001b3ull;
    k->b += tag * 0x9e3779b97f4a7c15ull;
    for (i = 0; i < n; i++) {
        k->a = (k->a ^ (unsigned char)s[i]) * 0x100000001b3ull;
        k->b = (k->b + (unsigned char)s[i]) * 0xff51afd7ed558ccdull;
        k->b ^= k->b >> 29;
    }
}

static void hash_tree(struct verdict_key *k, const struct tnode *n,
                      int is_metadata, int depth)
{
    unsigned i;

    mix(k, "", 0, 1u + n->kind);
    if (n->kind != T_MAP && n->kind != T_SEQ) {
        mix(k, n->str, strlen(n->str), 17);
        return;
    }
    mix(k, (const char *)&n->n, sizeof(n->n), 23);
    for (i = 0; i < n->n; i++) {
        const struct tnode *c = n->kids[i];
        if (c->key) {
            size_t j;
            int skip = 0;
            for (j = 0; is_metadata && volatile_meta[j]; j++)
                skip |= !strcmp(c->key, volatile_meta[j]);
            if (skip)
                continue;
            mix(k, c->key, strlen(c->key), 29);
        }
        hash_tree(k, c, depth == 0 && c->key
                        && !strcmp(c->key, "metadata"), depth + 1);
    }
}

int verdict_key(const struct tnode *object, const char *ns,
                struct verdict_key *key)
{
    const char *kind = tree_str(tree_get(object, "kind"));
    const char *api = tree_str(tree_get(object, "apiVersion"));

    if (!kind || !api || strcmp(kind, "Pod") || strcmp(api, "v1"))
        return -1;
    key->a = 0xcbf29ce484222325ull;
    key->b = 0x6a09e667f3bcc909ull;
    mix(key, ns ? ns : "", ns ? strlen(ns) : 0, 3);
    hash_tree(key, object, 0, 0);
    return 0;
}

/* ==== the table ========================================================== */

struct verdict_cache *verdict_cache_new(void)
{
    struct verdict_cache *c = calloc(1, sizeof(*c));

    if (!c)
        abort();
    pthread_mutex_init(&c->mu, NULL);
    return c;
}

void verdict_cache_free(struct verdict_cache *c)
{
    size_t i;

    if (!c)
        return;
    for (i = 0; i < VERDICT_SLOTS; i++)
        free(c->slots[i].block);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

static size_t slot_of(const struct verdict_key *k)
{
    return (size_t)(k->a % VERDICT_SLOTS);
}

int verdict_cache_get(struct verdict_cache *c, const struct verdict_key *k,
                      struct diag_list *out, const char *kind,
                      const char *ns, const char *name)
{
    struct ventry *e;
    struct arena *a = out->arena;
    size_t i, j;
    int hit = 0;

    pthread_mutex_lock(&c->mu);
    e = &c->slots[slot_of(k)];
    if (e->block && e->key.a == k->a && e->key.b == k->b) {
        hit = 1;
        for (i = 0; i < e->n; i++) {
            const struct vfinding *f = &e->f[i];
            struct diag *d = diag_list_add(out);
            d->rule = f->rule;
            d->sev = f->sev;
            d->api_version = arena_strdup(a, f->api_version);
            d->kind = arena_strdup(a, kind);
            d->ns = arena_strdup(a, ns ? ns : "");
            d->name = arena_strdup(a, name ? name : "");
            d->path = arena_strdup(a, f->path);
            d->msg = arena_strdup(a, f->msg);
            d->hint = f->hint ? arena_strdup(a, f->hint) : NULL;
            d->suppressed = f->suppressed;
            d->suppress_reason = f->suppress_reason
                ? arena_strdup(a, f->suppress_reason) : NULL;
            d->ndetails = f->ndetails;
            if (f->ndetails) {
                const char **dt = arena_alloc(a, f->ndetails * sizeof(*dt));
                for (j = 0; j < f->ndetails; j++)
                    dt[j] = arena_strdup(a, f->details[j]);
                d->details = dt;
            }
        }
    }
    pthread_mutex_unlock(&c->mu);
    return hit;
}

/* Appends s to the block at *off (NULL stays NULL); returns the copy. */
static const char *put_str(char *block, size_t *off, const char *s)
{
    size_t n;
    char *p;

    if (!s)
        return NULL;
    n = strlen(s) + 1;
    p = block + *off;
    memcpy(p, s, n);
    *off += n;
    return p;
}

void verdict_cache_put(struct verdict_cache *c, const struct verdict_key *k,
                       const struct diag_list *out, size_t from)
{
    size_t i, j, n = out->n - from, bytes, off;
    struct vfinding *f;
    char *block;
    struct ventry *e;

    bytes = n * (sizeof(struct vfinding) + 8);   /* + alignment padding */
    for (i = from; i < out->n; i++) {
        const struct diag *d = &out->v[i];
        bytes += strlen(d->api_version) + strlen(d->path) + strlen(d->msg) + 3;
        bytes += (d->hint ? strlen(d->hint) + 1 : 0)
                 + (d->suppress_reason ? strlen(d->suppress_reason) + 1 : 0);
        bytes += d->ndetails * sizeof(char *);
        for (j = 0; j < d->ndetails; j++)
            bytes += strlen(d->details[j]) + 1;
    }
    if (bytes > VERDICT_MAX_BYTES)
        return;
    block = malloc(bytes ? bytes : 1);
    if (!block)
        abort();
    f = (struct vfinding *)(void *)block;
    off = n * sizeof(struct vfinding);
    for (i = 0; i < n; i++) {
        const struct diag *d = &out->v[from + i];
        f[i].rule = d->rule;
        f[i].sev = d->sev;
        f[i].suppressed = d->suppressed;
        f[i].ndetails = d->ndetails;
        f[i].details = NULL;
        if (d->ndetails) {
            /* pointer array first (aligned: off is a multiple of 8) */
            off = (off + 7) & ~(size_t)7;
            f[i].details = (const char **)(void *)(block + off);
            off += d->ndetails * sizeof(char *);
        }
        f[i].api_version = put_str(block, &off, d->api_version);
        f[i].path = put_str(block, &off, d->path);
        f[i].msg = put_str(block, &off, d->msg);
        f[i].hint = put_str(block, &off, d->hint);
        f[i].suppress_reason = put_str(block, &off, d->suppress_reason);
        for (j = 0; j < d->ndetails; j++)
            f[i].details[j] = put_str(block, &off, d->details[j]);
    }
    pthread_mutex_lock(&c->mu);
    e = &c->slots[slot_of(k)];
    free(e->block);
    e->key = *k;
    e->f = f;
    e->n = n;
    e->block = block;
    pthread_mutex_unlock(&c->mu);
}
