/*
 * verdict.c - the admission verdict cache (see verdict.h): a table of
 * VERDICT_SLOTS entries in sets of VERDICT_WAYS, each a malloc'ed copy of
 * a finding list; a key's set is picked by its hash, and a full set gives
 * up its least recently used entry (a direct-mapped table lost a verdict
 * to any other key of its slot: at 1,000 specs a few dozen were lost, and
 * a ReplicaSet's next Pod was judged again). Bounded: at most
 * VERDICT_SLOTS entries of at most VERDICT_MAX_BYTES each (key and
 * findings).
 */
#include "verdict.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "tree.h"
#include "xalloc.h"

#define VERDICT_SLOTS 1024
#define VERDICT_WAYS 4          /* entries a key may take in its set */
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
    uint64_t used;              /* the cache's tick when last read or put */
};

struct verdict_cache {
    pthread_mutex_t mu;
    uint64_t tick;
    struct ventry slots[VERDICT_SLOTS];
};

/* ==== the key ============================================================ */

static const char *const volatile_meta[] = {
    "name", "generateName", "uid", "resourceVersion", "creationTimestamp",
    "managedFields", "ownerReferences", "generation", "deletionTimestamp",
    NULL
};

/* The canonical form: every node is a tag byte; scalars and keys carry a
 * 4-byte length and their text, containers end with a close tag. Nothing
 * in it depends on pointers or on input formatting. */
enum { K_KEY = 0x40, K_CLOSE = 0x7f };

struct kbuf {
    struct arena *a;
    unsigned char *p;
    size_t len, cap;
    int full;                   /* passed VERDICT_KEY_MAX: not cacheable */
};

/* Room for n more bytes at the end of k, or NULL once the key is too big. */
static unsigned char *kroom(struct kbuf *k, size_t n)
{
    if (k->full || n > VERDICT_KEY_MAX - k->len) {
        k->full = 1;
        return NULL;
    }
    if (k->len + n > k->cap) {
        size_t want = k->cap ? k->cap * 2 : 4096;
        while (want < k->len + n)
            want *= 2;
        k->p = arena_grow(k->a, k->p, k->len, want, 1);
        k->cap = want;
    }
    return k->p + k->len;
}

static void kput_byte(struct kbuf *k, unsigned char c)
{
    unsigned char *o = kroom(k, 1);

    if (o) {
        *o = c;
        k->len++;
    }
}

static void kput_text(struct kbuf *k, unsigned char tag, const char *s)
{
    size_t n = strlen(s);
    unsigned char *o = kroom(k, n + 5);

    if (!o)
        return;
    o[0] = tag;
    o[1] = (unsigned char)(n >> 24);
    o[2] = (unsigned char)(n >> 16);
    o[3] = (unsigned char)(n >> 8);
    o[4] = (unsigned char)n;
    memcpy(o + 5, s, n);
    k->len += n + 5;
}

static int is_volatile(const char *key)
{
    size_t j;

    for (j = 0; volatile_meta[j]; j++)
        if (key[0] == volatile_meta[j][0] && !strcmp(key, volatile_meta[j]))
            return 1;
    return 0;
}

static void key_tree(struct kbuf *k, const struct tnode *n, int is_metadata,
                     int depth)
{
    unsigned char tag = (unsigned char)(1u + n->kind);
    unsigned i;

    if (n->kind != T_MAP && n->kind != T_SEQ) {
        kput_text(k, tag, n->str);
        return;
    }
    kput_byte(k, tag);
    for (i = 0; i < n->n && !k->full; i++) {
        const struct tnode *c = n->kids[i];
        if (c->key) {
            if (is_metadata && is_volatile(c->key))
                continue;
            kput_text(k, K_KEY, c->key);
        }
        key_tree(k, c, depth == 0 && c->key && c->key[0] == 'm'
                 && !strcmp(c->key, "metadata"), depth + 1);
    }
    kput_byte(k, K_CLOSE);
}

static uint64_t hash_bytes(const unsigned char *p, size_t n)
{
    uint64_t h = 0x6a09e667f3bcc909ull ^ n, w;

    for (; n >= 8; p += 8, n -= 8) {
        memcpy(&w, p, 8);
        h = (h ^ w) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
    }
    w = 0;
    memcpy(&w, p, n);
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    return h ^ (h >> 32);
}

int verdict_key(struct arena *a, const struct tnode *object, const char *ns,
                struct verdict_key *key)
{
    const char *kind = tree_str(tree_get(object, "kind"));
    const char *api = tree_str(tree_get(object, "apiVersion"));
    struct kbuf k = { a, NULL, 0, 0, 0 };

    if (!kind || !api || strcmp(kind, "Pod") || strcmp(api, "v1"))
        return -1;
    kput_text(&k, 0, ns ? ns : "");
    key_tree(&k, object, 0, 0);
    if (k.full)
        return -1;
    key->bytes = k.p;
    key->len = k.len;
    key->hash = hash_bytes(k.p, k.len);
    return 0;
}

int verdict_key_same(const struct verdict_key *x, const struct verdict_key *y)
{
    return x->hash == y->hash && x->len == y->len
           && memcmp(x->bytes, y->bytes, x->len) == 0;
}

/* ==== the table ========================================================== */

struct verdict_cache *verdict_cache_new(void)
{
    struct verdict_cache *c = xcalloc(1, sizeof(*c));

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

/* The entry holding k in its set, or NULL. Under c->mu. */
static struct ventry *entry_of(struct verdict_cache *c,
                               const struct verdict_key *k)
{
    size_t set = (size_t)(k->hash % (VERDICT_SLOTS / VERDICT_WAYS)), i;
    struct ventry *e = &c->slots[set * VERDICT_WAYS];

    for (i = 0; i < VERDICT_WAYS; i++)
        if (e[i].block && verdict_key_same(&e[i].key, k))
            return &e[i];
    return NULL;
}

/* Where k goes in its set: its own entry, an empty one, else the least
 * recently used. Under c->mu. */
static struct ventry *room_for(struct verdict_cache *c,
                               const struct verdict_key *k)
{
    size_t set = (size_t)(k->hash % (VERDICT_SLOTS / VERDICT_WAYS)), i;
    struct ventry *e = &c->slots[set * VERDICT_WAYS], *best = e;

    if (entry_of(c, k))
        return entry_of(c, k);
    for (i = 0; i < VERDICT_WAYS; i++) {
        if (!e[i].block)
            return &e[i];
        if (e[i].used < best->used)
            best = &e[i];
    }
    return best;
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
    e = entry_of(c, k);
    if (e) {
        hit = 1;
        e->used = ++c->tick;
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
    struct verdict_key key;

    bytes = n * (sizeof(struct vfinding) + 8)    /* + alignment padding */
            + k->len;
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
    block = xmalloc(bytes ? bytes : 1);
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
    key = *k;
    key.bytes = memcpy(block + off, k->bytes, k->len);
    pthread_mutex_lock(&c->mu);
    e = room_for(c, k);
    free(e->block);
    e->used = ++c->tick;
    e->key = key;
    e->f = f;
    e->n = n;
    e->block = block;
    pthread_mutex_unlock(&c->mu);
}
