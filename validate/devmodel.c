/*
 * devmodel.c - building the device model (see devmodel.h) from
 * ResourceSlices and Nodes: pools and their newest generation, devices
 * with attributes, capacity and counters read once, interned names and
 * value hashes for the allocator, placement (a slice's node selector is
 * compiled once per slice). devmodel_index.c answers questions about the
 * built model. A model built from the one before (devmodel_build_next)
 * copies the devices of the pools that did not change (reuse_slice);
 * devmodel_next.c decides which and keeps what the models share.
 */
#include "devmodel.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devmodel_next.h"
#include "limits.h"
#include "object.h"
#include "tree.h"
#include "xalloc.h"

static uint64_t hash_str(uint64_t h, const char *s)
{
    for (; s && *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return (h ^ 0xff) * 1099511628211ull;
}

static uint64_t hash_attr(const struct cel_attr *a)
{
    uint64_t h = 1469598103934665603ull;
    size_t i;

    h = hash_str(h, a->domain);
    h = hash_str(h, a->id);
    h = (h ^ (uint64_t)a->type) * 1099511628211ull;
    switch (a->type) {
    case CEL_ATTR_INT:
        h = (h ^ (uint64_t)a->i) * 1099511628211ull;
        break;
    case CEL_ATTR_BOOL:
        h = (h ^ (uint64_t)a->b) * 1099511628211ull;
        break;
    case CEL_ATTR_STRING:
    case CEL_ATTR_VERSION:
        h = hash_str(h, a->s);
        break;
    case CEL_ATTR_INTS:
    case CEL_ATTR_BOOLS:
    case CEL_ATTR_STRINGS:
    case CEL_ATTR_VERSIONS:
        for (i = 0; i < a->nv; i++) {
            if (a->type == CEL_ATTR_INTS)
                h = (h ^ (uint64_t)a->iv[i]) * 1099511628211ull;
            else if (a->type == CEL_ATTR_BOOLS)
                h = (h ^ (uint64_t)a->bv[i]) * 1099511628211ull;
            else
                h = hash_str(h, a->sv[i]);
        }
        break;
    }
    return h;
}

static unsigned intern(struct devmodel *m, const char *id)
{
    void *v = strmap_get(&m->syms, id);

    if (v)
        return (unsigned)((uintptr_t)v - 1);
    strmap_put(&m->syms, id, (void *)(uintptr_t)(m->nsyms + 1));
    return (unsigned)m->nsyms++;
}

static const char *intern_domain(struct devmodel *m, const char *s,
                                  size_t n)
{
    char key[256];      /* (same_name knows the size) */
    const char *v;

    if (n >= sizeof(key))
        return arena_strndup(m->da, s, n);
    /* a tree string in a model not to be reused is the canonical copy
     * itself (below): one probe */
    if (!s[n] && !m->pieces && !m->domains_base.n)
        return strmap_intern_borrowed(&m->domains, s);
    memcpy(key, s, n);
    key[n] = 0;
    v = devmodel_domain(m, key);
    if (v)
        return v;
    /* a NUL-terminated s (a tree string) is the canonical copy itself:
     * it lives as long as the objects the model is built from; not in a
     * model to be reused (pieces), whose later models keep devices that
     * point at it after the slice that had it is gone */
    v = s[n] || m->pieces ? arena_strdup(m->da, key) : s;
    strmap_put_borrowed(&m->domains, v, (void *)(uintptr_t)v);
    return v;
}

/* Splits "domain/id" (or a bare id, in the driver's domain); domains are
 * interned. */
static void split_qualified(struct devmodel *m, const char *name,
                            const char *driver, const char **dom,
                            const char **id)
{
    const char *slash = strrchr(name, '/');

    if (slash) {
        *dom = intern_domain(m, name, (size_t)(slash - name));
        *id = slash + 1;
    } else {
        *dom = driver;
        *id = name;
    }
}

/* Reads a list attribute value (ints/bools/strings/versions). */
static int read_list_attr(struct arena *a, const struct tnode *v,
                          enum cel_attr_type t, struct cel_attr *out)
{
    size_t i;

    if (!tree_is_seq(v))
        return -1;
    out->type = t;
    out->nv = v->n;
    if (t == CEL_ATTR_INTS) {
        long long *iv = arena_alloc(a, (v->n + 1) * sizeof(*iv));
        for (i = 0; i < v->n; i++)
            if (tree_int(v->kids[i], &iv[i]) < 0)
                return -1;
        out->iv = iv;
    } else if (t == CEL_ATTR_BOOLS) {
        int *bv = arena_alloc(a, (v->n + 1) * sizeof(*bv));
        for (i = 0; i < v->n; i++)
            bv[i] = tree_true(v->kids[i]);
        out->bv = bv;
    } else {
        const char **sv = arena_alloc(a, (v->n + 1) * sizeof(*sv));
        for (i = 0; i < v->n; i++) {
            sv[i] = tree_text(v->kids[i]);
            if (!sv[i])
                return -1;
        }
        out->sv = sv;
    }
    return 0;
}

/* The members of an attribute value (a map of one member, mostly) by
 * type, read in one pass: the first member of each name, as tree_get()
 * finds it. */
enum { AV_INT, AV_BOOL, AV_STRING, AV_VERSION, AV_INTS, AV_BOOLS,
       AV_STRINGS, AV_VERSIONS, AV_N };

static void attr_members(const struct tnode *v, const struct tnode **x)
{
    static const char *const keys[AV_N] = {"int", "bool", "string",
                                           "version", "ints", "bools",
                                           "strings", "versions"};
    size_t i, k;

    memset(x, 0, AV_N * sizeof(*x));
    if (!tree_is_map(v))
        return;
    for (i = 0; i < v->n; i++)
        for (k = 0; k < AV_N; k++)
            if (!x[k] && v->kids[i]->key[0] == keys[k][0]
                && strcmp(v->kids[i]->key, keys[k]) == 0) {
                x[k] = v->kids[i];
                break;
            }
}

/* 1 if an attribute value has none of the fields of a known type (an
 * empty map, or only fields of a newer API); x: its attr_members(). */
static int no_known_value(const struct tnode *v, const struct tnode **x)
{
    size_t k;

    if (!tree_is_map(v))
        return 0;
    for (k = 0; k < AV_N; k++)
        if (x[k])
            return 0;
    return 1;
}

/* One attribute value {int|bool|string|version|ints|...} (x: its
 * attr_members()); -1 if none. */
static int read_attr(struct arena *a, const struct tnode **x,
                     struct cel_attr *out)
{
    static const enum cel_attr_type lists[] = {CEL_ATTR_INTS, CEL_ATTR_BOOLS,
                                               CEL_ATTR_STRINGS,
                                               CEL_ATTR_VERSIONS};
    size_t i;

    if (x[AV_INT]) {
        out->type = CEL_ATTR_INT;
        return tree_int(x[AV_INT], &out->i);
    }
    if (x[AV_BOOL] && x[AV_BOOL]->kind == T_BOOL) {
        out->type = CEL_ATTR_BOOL;
        out->b = x[AV_BOOL]->boolean;
        return 0;
    }
    if (x[AV_STRING] && tree_text(x[AV_STRING])) {
        out->type = CEL_ATTR_STRING;
        out->s = tree_text(x[AV_STRING]);
        return 0;
    }
    if (x[AV_VERSION] && tree_text(x[AV_VERSION])) {
        out->type = CEL_ATTR_VERSION;
        out->s = tree_text(x[AV_VERSION]);
        return 0;
    }
    for (i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
        if (x[AV_INTS + i])
            return read_list_attr(a, x[AV_INTS + i], lists[i], out);
    return -1;
}

static struct dm_counter *read_counters(struct arena *a,
                                        const struct tnode *counters,
                                        size_t *n)
{
    struct dm_counter *c;
    size_t i, k = 0;

    *n = 0;
    if (!tree_is_map(counters))
        return NULL;
    c = arena_alloc(a, (counters->n + 1) * sizeof(*c));
    for (i = 0; i < counters->n; i++) {
        const struct tnode *v = counters->kids[i];
        const struct tnode *val = tree_is_map(v) ? tree_get(v, "value") : v;
        if (quantity_from_text(tree_text(val), &c[k].value) < 0)
            continue;
        c[k].text = tree_text(val);
        c[k++].name = v->key;
    }
    *n = k;
    return c;
}

/* "driver\x1fname" in buf (n bytes) or, longer, in a. */
static char *pool_key(struct arena *a, char *buf, size_t n,
                      const char *driver, const char *name)
{
    size_t ld = strlen(driver), ln = strlen(name);
    char *key = buf;

    if (ld + ln + 2 > n)
        key = arena_alloc(a, ld + ln + 2);
    memcpy(key, driver, ld);
    key[ld] = '\x1f';
    memcpy(key + ld + 1, name, ln + 1);
    return key;
}

/* A new pool entry (driver interned; key: its pool_index key, kept). */
static size_t pool_add(struct devmodel *m, size_t *cap, const char *driver,
                       const char *name, const char *key)
{
    if (m->npools == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        m->pools = arena_grow(m->a, m->pools, m->npools, *cap,
                              sizeof(*m->pools));
    }
    memset(&m->pools[m->npools], 0, sizeof(m->pools[0]));
    m->pools[m->npools].driver = driver;
    m->pools[m->npools].name = name;
    m->pools[m->npools].key = key;
    m->pools[m->npools].generation = -1;
    return m->npools++;
}

/* The pool of a slice, created on first sight (its key kept where the
 * map pools lives). */
static size_t pool_of(struct devmodel *m, struct strmap *pools,
                      size_t *cap, const char *driver, const char *name)
{
    char buf[512], *key = pool_key(pools->arena, buf, sizeof(buf), driver,
                                   name);
    void *v = strmap_get(pools, key);
    size_t p;

    if (v)
        return (size_t)((uintptr_t)v - 1);
    if (key == buf)
        key = arena_strdup(pools->arena, buf);
    p = pool_add(m, cap, intern_domain(m, driver, strlen(driver)), name,
                 key);
    strmap_put_borrowed(pools, key, (void *)(uintptr_t)(p + 1));
    return p;
}

static size_t node_of(struct devmodel *m, size_t *cap, const char *name)
{
    struct dm_node *n = strmap_get(&m->node_index, name);

    if (n)
        return (size_t)(n - m->nodes);
    if (m->nnodes == *cap) {
        size_t i;
        *cap = *cap ? *cap * 2 : 64;
        m->nodes = arena_grow(m->a, m->nodes, m->nnodes, *cap,
                              sizeof(*m->nodes));
        /* the index points into the array: re-point it */
        for (i = 0; i < m->nnodes; i++)
            strmap_put(&m->node_index, m->nodes[i].name, &m->nodes[i]);
    }
    n = &m->nodes[m->nnodes];
    memset(n, 0, sizeof(*n));
    n->name = name;
    n->sel.name = name;
    /* (a tree string, or a literal: it outlives the model) */
    strmap_put_borrowed(&m->node_index, name, n);
    return m->nnodes++;
}

struct build {
    struct devmodel *m;
    size_t devcap, nodecap, poolcap, sharedcap;
    struct strmap seen;         /* driver\x1fpool\x1fdevice */
    struct strmap fresh;        /* pools the model before has not */
    struct strmap unknown;      /* names of slices not the model
                                   before's records -> 1 + the first
                                   object of that name (dups_known
                                   looks the records' up by the hash
                                   they keep) */
    struct arena scratch_a;     /* unknown's: freed with the build */
    unsigned char *dup;         /* per object: a slice whose name an
                                   earlier one has (one object twice, e.g.
                                   as JSON and YAML): left out */
    const struct tnode *sel_src;    /* the NodeSelector last compiled */
    struct nodesel *sel;            /* ... into this */
    const struct tnode *place_src;  /* what placed the device before (its
                                       slice's spec, mostly) */
    enum dm_place place;            /* ... where */
    size_t place_node;              /* ... DM_NODE: the node */
    unsigned slice_gated;           /* the slice's DM_GATED_* bits */
    int per_device;                 /* ... perDeviceNodeSelection */
    const char *hash_driver;        /* the driver hashed last */
    uint64_t driver_hash;           /* ... its hash */
    int drop_lists;                 /* the slice being added is to be
                                       applied (not stored) with
                                       DRAListTypeAttributes off */
    struct strmap older;            /* "pool\x1fnode\x1fgeneration" ->
                                       struct oldgen: node-local slices of
                                       older generations */
    struct strmap newest_on;        /* "pool\x1fnode" -> long long *: the
                                       newest generation of the pool's
                                       slices that target the node */
    long long *shared_gen;          /* per pool: the newest generation of
                                       its slices not bound to one node
                                       (-1: none) */
    struct dm_device prev;          /* the device added last: its
                                       attributes and capacity are reused
                                       (attr_repeats, device_caps) */
    const struct tnode *prev_spec;  /* ... the spec of its slice */
    struct cel_attr *scratch;       /* a device's attributes, read */
    struct attr_block *blocks;      /* attribute blocks kept (NULL: a
                                       model to be reused shares none) */
    size_t nblocks;                 /* ... slots (a power of two) */
    size_t nslice_objs;             /* ResourceSlice objects given */
    size_t *opool;                  /* per object: its pool entry + 1, 0:
                                       not a slice the model reads */
    const struct dm_facts **facts;  /* ... what was read of it, or its
                                       record's in the model before */
    struct dm_facts *factbuf;       /* ... the ones read (the build's
                                       own: records keep copies) */
    size_t nfacts;
    /* a model to be reused (m->pieces; devmodel_next.c) */
    const struct devmodel *before;  /* the model reused, or NULL */
    struct dm_next_reuse reuse;     /* ... what is taken from it */
    size_t *node_again;             /* ... per node of it: index + 1 here */
    int nodes_same;                 /* ... the same Node objects: its
                                       first nnode_objects nodes are
                                       these */
    unsigned char *dev_reused;      /* per device: taken from it */
    unsigned char *taken;           /* per slice record of it: taken */
};

/* The node-local slices of one older generation of a pool on one node. */
struct oldgen {
    size_t pool;                    /* the pool's newest entry */
    const char *node;
    long long gen, count;           /* resourceSliceCount they state */
    size_t seen;
    int counters;                   /* one of them has sharedCounters */
    size_t entry;                   /* its own pool entry, or SIZE_MAX */
};

static const struct tnode *slice_pool(const struct object *o)
{
    return tree_get(o->spec, "pool");
}

/* The attributes of a device, interned and hashed for the allocator. */
/* 1 if key ("domain/id", or a bare id in driver's domain) names what a
 * previous device's dom and id (split_qualified's) do; *id: key's id. */
static int same_name(const char *key, const char *driver, const char *dom,
                     const char *pid, const char **id)
{
    const char *slash = strrchr(key, '/');

    if (slash) {
        size_t n = (size_t)(slash - key);
        /* dom is interned (the driver too), so the same text is the same
         * address, as intern_domain() would give it (the allocator
         * compares domains by address); a longer one is copied each time */
        if (n >= 256 || strncmp(dom, key, n) != 0 || dom[n])
            return 0;
        *id = slash + 1;
    } else {
        if (dom != driver)
            return 0;
        *id = key;
    }
    return strcmp(*id, pid) == 0;
}

/* Reuses what it can of the previous device's k-th attribute for av[k]
 * (key and value already read): the devices of a slice mostly repeat
 * their attributes in the same order, and the same name has the same
 * domain, id and symbol, the same value too the same interned value and
 * hash. 0: another name; 1: the name is the same (domain, id and *asym
 * set), the value is not; 2: both are (*ahash and the interned value
 * set too). */
static int attr_repeats(const struct dm_device *prev, const char *driver,
                        size_t k, struct cel_attr *av, unsigned *asym,
                        uint64_t *ahash)
{
    const struct cel_attr *p;
    const char *id;

    if (k >= prev->cel.nattrs || prev->driver != driver)
        return 0;
    p = &prev->cel.attrs[k];
    if (!same_name(av->name, driver, p->domain, p->id, &id))
        return 0;
    av->domain = p->domain;
    av->id = id;
    *asym = prev->attr_sym[k];
    if (p->type != av->type)
        return 1;
    switch (av->type) {
    case CEL_ATTR_INT:
        if (p->i != av->i)
            return 1;
        break;
    case CEL_ATTR_BOOL:
        if (p->b != av->b)
            return 1;
        break;
    case CEL_ATTR_STRING:
    case CEL_ATTR_VERSION:
        if (p->s != av->s && strcmp(p->s, av->s) != 0)
            return 1;
        av->s = p->s;       /* the interned copy */
        break;
    default:
        return 1;           /* lists: read and hashed afresh */
    }
    *ahash = prev->attr_hash[k];
    return 2;
}

/* The symbols of a device's attributes or capacity (n of them, in syms):
 * the previous device's array when they are the same (a slice's devices
 * mostly have the same names), else a copy in a. */
static const unsigned *syms_of(struct arena *a, const unsigned *syms,
                               size_t n, const unsigned *prev, size_t nprev)
{
    unsigned *v;

    if (prev && n == nprev && memcmp(syms, prev, n * sizeof(*syms)) == 0)
        return prev;
    if (!n)
        return NULL;
    v = arena_alloc_aligned(a, n * sizeof(*v), _Alignof(unsigned));
    memcpy(v, syms, n * sizeof(*v));
    return v;
}

/* The versions and lists among a device's attributes: what
 * cel_device_prepare() looks at. A device whose versions are all the
 * previous device's (attr_repeats(): the same values at the same places),
 * as many as the previous one has versions and lists, and which has no
 * list, binds as the previous one (its CEL_BIND_* flags), without
 * parsing the versions again. */
static size_t versions_of(const struct dm_device *d)
{
    size_t k, n = 0;

    for (k = 0; k < d->cel.nattrs; k++)
        n += d->cel.attrs[k].type == CEL_ATTR_VERSION
             || d->cel.attrs[k].type >= CEL_ATTR_INTS;
    return n;
}

/* The attribute block of a device (values, then hashes; n of each), where
 * the device keeps it: the same block of a device before when one is
 * bytewise the same (the same names, and values interned: the NICs of
 * every node, say), else a copy in the model. Only in a model not to be
 * reused, whose objects all outlive it (the names point into a slice). A
 * small cache by hash finds them (no table that grows per device). */
struct attr_block {
    uint64_t h;
    const struct cel_attr *av;
    size_t n;
};

#define ATTR_BLOCKS 4096        /* cache slots at most (a power of two) */
#define ATTR_SCRATCH 64         /* attributes read in scratch memory (the
                                   API allows 32 per device); more: read
                                   in place, kept as they are */

static const struct cel_attr *attrs_keep(struct build *b,
                                         const struct cel_attr *av,
                                         const uint64_t *ahash, size_t n)
{
    struct devmodel *m = b->m;
    struct attr_block *slot = NULL;
    struct cel_attr *v;
    uint64_t h = 1469598103934665603ull;
    size_t k;

    if (b->blocks) {
        for (k = 0; k < n; k++)
            h = (h ^ ahash[k] ^ (uint64_t)(uintptr_t)av[k].name)
                * 1099511628211ull;
        slot = &b->blocks[h & (b->nblocks - 1)];
        if (slot->av && slot->h == h && slot->n == n
            && !memcmp(slot->av, av, n * sizeof(*av))
            && !memcmp(slot->av + n, ahash, n * sizeof(*ahash)))
            return slot->av;
    }
    v = arena_alloc(m->da, n * (sizeof(*av) + sizeof(*ahash)));
    memcpy(v, av, n * sizeof(*av));
    memcpy(v + n, ahash, n * sizeof(*ahash));
    if (slot) {
        slot->h = h;
        slot->av = v;
        slot->n = n;
    }
    return v;
}

static void device_attrs(struct build *b, struct dm_device *d,
                         const struct tnode *attrs)
{
    struct devmodel *m = b->m;
    const struct dm_device *prev = &b->prev;
    struct arena *a = m->da;
    struct cel_attr *av;
    unsigned sbuf[ATTR_SCRATCH], *asym;
    uint64_t *ahash;
    size_t i, k = 0, nver = 0;
    int fresh = 0;              /* a list, or a version not prev's */
    int scratch;                /* av is b->scratch (then kept) */

    if (!tree_is_map(attrs))
        return;
    /* values and hashes read into scratch memory (zeroed: the padding
     * too, for attrs_keep()'s comparison), then kept; the ids are those
     * of the device before, mostly (syms_of) */
    scratch = attrs->n <= ATTR_SCRATCH;
    if (scratch) {
        av = b->scratch;
        memset(av, 0, attrs->n * (sizeof(*av) + sizeof(*ahash)));
        asym = sbuf;
    } else {
        av = arena_alloc(a, attrs->n * (sizeof(*av) + sizeof(*ahash)));
        asym = xcalloc(attrs->n, sizeof(*asym));
    }
    ahash = (uint64_t *)(av + attrs->n);
    for (i = 0; i < attrs->n; i++) {
        const struct tnode *v = attrs->kids[i], *x[AV_N];
        int rep;
        attr_members(v, x);
        if (read_attr(a, x, &av[k]) < 0) {
            /* no value of a known type ({}): Kubernetes' DeviceMatches
             * fails every selector on the device (getAttributeValue) */
            if (!d->cel.unsupported && no_known_value(v, x))
                d->cel.unsupported = v->key;
            memset(&av[k], 0, sizeof(av[k]));
            continue;
        }
        /* With DRAListTypeAttributes off the apiserver strips list values
         * from a slice it is given (strategy.go; feature-gate-disabled
         * says so): left out of a slice to be applied. A slice of the
         * inventory is stored, perhaps while the gate was on: its lists
         * stay, and the scheduler with the gate off fails every selector
         * on the device (compile.go, getAttributeValue). */
        if (b->drop_lists && av[k].type >= CEL_ATTR_INTS) {
            memset(&av[k], 0, sizeof(av[k]));
            continue;
        }
        av[k].name = v->key;        /* CEL messages name it so */
        rep = attr_repeats(prev, d->driver, k, &av[k], &asym[k], &ahash[k]);
        nver += av[k].type == CEL_ATTR_VERSION;
        fresh |= av[k].type >= CEL_ATTR_INTS
                 || (av[k].type == CEL_ATTR_VERSION && rep != 2);
        if (rep == 2) {
            k++;
            continue;
        }
        if (!rep) {
            split_qualified(m, v->key, d->driver, &av[k].domain, &av[k].id);
            asym[k] = intern(m, av[k].id);
        }
        if (av[k].type == CEL_ATTR_STRING || av[k].type == CEL_ATTR_VERSION)
            av[k].s = intern_domain(m, av[k].s, strlen(av[k].s));
        ahash[k] = hash_attr(&av[k]);
        k++;
    }
    d->cel.nattrs = k;
    if (scratch && k) {
        d->cel.attrs = attrs_keep(b, av, ahash, k);
        d->attr_hash = (const uint64_t *)(d->cel.attrs + k);
    } else if (!scratch) {
        d->cel.attrs = av;
        d->attr_hash = ahash;
    }
    d->attr_sym = syms_of(a, asym, k, prev->attr_sym, prev->cel.nattrs);
    if (asym != sbuf)
        free(asym);
    if (!fresh && prev->cel.bind && nver == versions_of(prev))
        d->cel.bind = prev->cel.bind;   /* the same versions, no lists */
    else
        cel_device_prepare(&d->cel);
}

/* 1 if the capacity of a device is the previous device's again: the
 * same names and quantities, in the same order, none with a request
 * policy (a node of its own device) nor one that does not parse (left
 * out). Then the device shares the previous one's arrays, and the ids and
 * quantities there, which point into the previous device's slice: only
 * in the same slice (a model built to be reused may keep the device after
 * the other slice is gone). */
static int caps_repeat(const struct dm_device *d, const struct tnode *caps,
                       const struct dm_device *prev)
{
    size_t i;

    if (caps->n != prev->cel.ncaps || prev->driver != d->driver
        || !caps->n)
        return 0;
    for (i = 0; i < caps->n; i++) {
        const struct tnode *v = caps->kids[i], *val = v;
        const char *text, *id;
        if (tree_is_map(v)) {
            if (tree_get(v, "requestPolicy"))
                return 0;
            val = tree_get(v, "value");
        }
        text = tree_text(val);
        if (!text || prev->cap_policy[i]
            || strcmp(prev->cel.caps[i].quantity, text) != 0
            || !same_name(v->key, d->driver, prev->cel.caps[i].domain,
                          prev->cel.caps[i].id, &id))
            return 0;
    }
    return 1;
}

/* The capacity of a device: values, request policies, hashes. */
static void device_caps(struct devmodel *m, struct dm_device *d,
                        const struct tnode *caps,
                        const struct dm_device *prev, int same_slice)
{
    struct arena *a = m->da;
    struct cel_capacity *cv;
    unsigned sbuf[64], *csym;
    uint64_t *chash;
    struct quantity *cval;
    const struct tnode **cpol;
    size_t i, k = 0;

    if (!tree_is_map(caps))
        return;
    if (same_slice && caps_repeat(d, caps, prev)) {
        d->cel.caps = prev->cel.caps;
        d->cap_sym = prev->cap_sym;
        d->cap_value = prev->cap_value;
        d->cap_policy = prev->cap_policy;
        d->cap_hash = prev->cap_hash;
        d->cel.ncaps = prev->cel.ncaps;
        return;
    }
    /* one block per device, as for attributes */
    cval = arena_alloc(a, caps->n * (sizeof(*cval) + sizeof(*cv)
                                     + sizeof(*chash) + sizeof(*cpol)));
    cv = (struct cel_capacity *)(cval + caps->n);
    chash = (uint64_t *)(cv + caps->n);
    cpol = (const struct tnode **)(chash + caps->n);
    csym = caps->n <= sizeof(sbuf) / sizeof(sbuf[0])
           ? sbuf : xcalloc(caps->n, sizeof(*csym));
    for (i = 0; i < caps->n; i++) {
        const struct tnode *v = caps->kids[i];
        const struct tnode *val = tree_is_map(v) ? tree_get(v, "value") : v;
        const char *text = tree_text(val);
        cpol[k] = tree_is_map(v) ? tree_get(v, "requestPolicy") : NULL;
        /* as for attributes: the previous device's k-th capacity again */
        if (k < prev->cel.ncaps && prev->driver == d->driver && text
            && strcmp(prev->cel.caps[k].quantity, text) == 0
            && same_name(v->key, d->driver, prev->cel.caps[k].domain,
                         prev->cel.caps[k].id, &cv[k].id)) {
            cval[k] = prev->cap_value[k];
            cv[k].domain = prev->cel.caps[k].domain;
            cv[k].quantity = text;
            csym[k] = prev->cap_sym[k];
            chash[k] = prev->cap_hash[k];
            k++;
            continue;
        }
        if (quantity_from_text(text, &cval[k]) < 0)
            continue;
        split_qualified(m, v->key, d->driver, &cv[k].domain, &cv[k].id);
        cv[k].quantity = text;
        csym[k] = intern(m, cv[k].id);
        chash[k] = hash_str(hash_str(hash_str(7, cv[k].domain), cv[k].id),
                            cv[k].quantity);
        k++;
    }
    d->cel.caps = cv;
    d->cap_sym = syms_of(a, csym, k, prev->cap_sym, prev->cel.ncaps);
    d->cap_value = cval;
    d->cap_policy = cpol;
    d->cap_hash = chash;
    d->cel.ncaps = k;
    if (csym != sbuf)
        free(csym);
}

/* The consumesCounters of a device (counter sets resolved later). */
static void device_consumes(struct arena *a, struct dm_device *d,
                            const struct tnode *cons)
{
    size_t i;

    if (!tree_is_seq(cons) || !cons->n)
        return;
    d->consumes = arena_alloc(a, cons->n * sizeof(*d->consumes));
    for (i = 0; i < cons->n; i++) {
        struct dm_consume *c = &d->consumes[d->nconsumes++];
        c->set_name = tree_str(tree_get(cons->kids[i], "counterSet"));
        c->set = SIZE_MAX;
        c->c = read_counters(a, tree_get(cons->kids[i], "counters"), &c->n);
    }
}

/* Where a device can be used: nn is the slice's spec, or the device with
 * perDeviceNodeSelection. A node selector is compiled once per slice. */
static void device_place(struct build *b, struct dm_device *d,
                         const struct tnode *nn)
{
    struct devmodel *m = b->m;
    const char *node;

    /* the devices of a slice share its placement: looked up once */
    if (nn == b->place_src) {
        d->place = b->place;
        if (d->place == DM_NODE)
            d->node_idx = b->place_node;
        else if (d->place == DM_SELECTOR) {
            d->node_selector = b->sel_src;
            d->nodesel = b->sel;
        }
        return;
    }
    node = tree_str(tree_get(nn, "nodeName"));
    if (node) {
        d->place = DM_NODE;
        d->node_idx = node_of(m, &b->nodecap, node);
    } else if (tree_is_map(tree_get(nn, "nodeSelector"))) {
        d->place = DM_SELECTOR;
        d->node_selector = tree_get(nn, "nodeSelector");
        if (b->sel_src != d->node_selector) {
            b->sel = arena_alloc(m->da, sizeof(*b->sel));
            nodesel_compile(m->da, d->node_selector, b->sel);
            b->sel_src = d->node_selector;
        }
        d->nodesel = b->sel;
    } else {
        d->place = DM_ALL;
    }
    b->place_src = nn;
    b->place = d->place;
    b->place_node = d->node_idx;
}

/* Marks a pool invalid, keeping the first reason (but one about
 * something else over one about counters, which do not count with
 * DRAPartitionableDevices off); counters: the reason is about
 * sharedCounters / consumesCounters. */
static void pool_invalid(struct devmodel *m, size_t pool, const char *why,
                         int counters)
{
    if (m->pools[pool].invalid
        && (counters || !m->pools[pool].invalid_counters))
        return;
    m->pools[pool].invalid = why;
    m->pools[pool].invalid_counters = counters;
}

/* What the device needs a gate for (dm_device.gated): Kubernetes'
 * GatherPools skips a slice with perDeviceNodeSelection (set at all) or
 * sharedCounters while DRAPartitionableDevices is off (the pool's
 * completeness still counts it), and isSelectable / allocateDevice refuse
 * a device with bindingConditions or consumesCounters while their feature
 * is off. The slice's part (spec) is slice_gated(), f is the device's. */
static unsigned slice_gated(const struct tnode *spec)
{
    const struct tnode *sc = tree_get(spec, "sharedCounters");

    if ((tree_is_seq(sc) && sc->n)
        || tree_text(tree_get(spec, "perDeviceNodeSelection")))
        return DM_GATED_PARTITIONABLE;
    return 0;
}

static unsigned device_gated(const struct dm_device *d, const struct tnode *f,
                             unsigned slice)
{
    const struct tnode *bc = tree_get(f, "bindingConditions");
    unsigned g = slice;

    if (d->nconsumes)
        g |= DM_GATED_PARTITIONABLE;
    if (tree_is_seq(bc) && bc->n)
        g |= DM_GATED_BINDING;
    return g;
}

/* "where/name" in a (dm_device.ref), without a printf per device. */
static const char *join_ref(struct arena *a, const char *where,
                            const char *name)
{
    size_t lw = strlen(where), ln = strlen(name);
    char *p = arena_alloc_aligned(a, lw + ln + 2, 1);  /* zeroed:
                                                           terminated */

    memcpy(p, where, lw);
    p[lw] = '/';
    memcpy(p + lw + 1, name, ln);
    return p;
}

/* What places a device: the device (its basic map, or itself) with
 * perDeviceNodeSelection, else its slice's spec. */
static const struct tnode *place_of(const struct tnode *dev,
                                    const struct tnode *spec)
{
    const struct tnode *f;

    if (!tree_true(tree_get(spec, "perDeviceNodeSelection")))
        return spec;
    f = tree_get(dev, "basic");
    return tree_is_map(f) ? f : dev;
}

static void add_device(struct build *b, size_t pool, const struct tnode *dev,
                       const struct tnode *spec)
{
    struct devmodel *m = b->m;
    struct arena *a = m->a;
    const char *driver = m->pools[pool].driver;
    const char *name = tree_str(tree_get(dev, "name"));
    const struct tnode *f = tree_get(dev, "basic");
    struct dm_device *d;

    if (!name)
        return;
    if (!tree_is_map(f))
        f = dev;
    /* a name twice in one pool counts once; only pools of several slices
     * can repeat one (names are unique within a slice) */
    if (m->pools[pool].slices_seen > 1) {
        const char *key = arena_printf(a, "%zu\x1f%s", pool, name);
        if (strmap_get(&b->seen, key)) {
            pool_invalid(m, pool, arena_printf(m->da, "device name '%s' "
                                               "is used twice", name), 0);
            return;
        }
        strmap_put(&b->seen, key, (void *)1);
    }
    if (m->ndevs == b->devcap) {
        b->devcap = b->devcap ? b->devcap * 2 : 256;
        m->devs = arena_grow(a, m->devs, m->ndevs, b->devcap,
                             sizeof(*m->devs));
    }
    d = &m->devs[m->ndevs];
    memset(d, 0, sizeof(*d));
    d->driver = driver;
    d->pool = m->pools[pool].name;
    d->name = name;
    d->pool_idx = pool;
    d->node = dev;
    d->cel.driver = driver;
    d->multi = tree_true(tree_get(f, "allowMultipleAllocations"));
    d->cel.allow_multiple_allocations = d->multi;
    d->taints = tree_is_seq(tree_get(f, "taints")) ? tree_get(f, "taints")
                                                   : NULL;
    device_attrs(b, d, tree_get(f, "attributes"));
    device_caps(m, d, tree_get(f, "capacity"), &b->prev,
                b->prev_spec == spec);
    device_consumes(m->da, d, tree_get(f, "consumesCounters"));
    d->gated = device_gated(d, f, b->slice_gated);
    /* (place_of(), with the slice's perDeviceNodeSelection read once) */
    device_place(b, d, !b->per_device ? spec : f);
    if (b->hash_driver != driver) {
        b->hash_driver = driver;
        b->driver_hash = hash_str(1469598103934665603ull, driver);
    }
    d->driver_hash = b->driver_hash ^ ((uint64_t)d->multi << 60);
    d->ref = join_ref(m->da, d->place == DM_NODE ? m->nodes[d->node_idx].name
                                             : d->pool, name);
    b->prev = *d;
    b->prev_spec = spec;
    m->ndevs++;
}

/* The slices of an older generation that Kubernetes' allocator still
 * uses on node node: the node-local slices of that generation, complete
 * by themselves, and no slice of the pool that targets the node (its own,
 * or one not bound to a node) is newer (GatherPools and
 * checkSlicesInPool, pools*.go). NULL if none. */
static struct oldgen *older_used(struct build *b, size_t p, const char *node,
                                 long long gen)
{
    struct devmodel *m = b->m;
    char *key = arena_printf(m->a, "%zu\x1f%s\x1f%lld", p, node, gen);
    struct oldgen *g = strmap_get(&b->older, key);
    const long long *newest;

    if (!g || g->counters || (long long)g->seen != g->count
        || b->shared_gen[p] > gen)
        return NULL;
    newest = strmap_get(&b->newest_on, arena_printf(m->a, "%zu\x1f%s", p,
                                                      node));
    return newest && *newest > gen ? NULL : g;
}

/* The pool entry of an older generation used on one node (created on
 * first use). */
static size_t older_entry(struct build *b, struct oldgen *g)
{
    struct devmodel *m = b->m;
    struct dm_pool *pl;

    if (g->entry != SIZE_MAX)
        return g->entry;
    if (m->npools == b->poolcap) {
        b->poolcap = b->poolcap ? b->poolcap * 2 : 16;
        m->pools = arena_grow(m->a, m->pools, m->npools, b->poolcap,
                              sizeof(*m->pools));
    }
    pl = &m->pools[m->npools];
    memset(pl, 0, sizeof(*pl));
    pl->driver = m->pools[g->pool].driver;
    pl->name = m->pools[g->pool].name;
    pl->generation = g->gen;
    pl->slice_count = g->count;
    pl->slices_seen = g->seen;
    pl->older = g->node;
    g->entry = m->npools++;
    return g->entry;
}

/* The index in m of node k of the model reused, whose name d (taken from
 * it, of slice rec) names: the name as the slice spells it (the model
 * reused may hold the name of a slice gone since), its nodeName (a fact
 * of its record) unless the devices are placed one by one. */
static size_t node_again(struct build *b, size_t k, const struct dm_device *d,
                         const struct dm_slice *rec)
{
    const char *name = rec->f.node;

    if (b->node_again[k])
        return b->node_again[k] - 1;
    if (b->nodes_same && k < b->before->nnode_objects)
        return k;       /* (a Node object's) */
    if (rec->f.per_device)
        name = tree_str(tree_get(place_of(d->node, rec->obj->spec),
                                 "nodeName"));
    b->node_again[k] = node_of(b->m, &b->nodecap, name) + 1;
    return b->node_again[k] - 1;
}

/* The devices of a slice of a pool that did not change, taken from the
 * model before (rec: its record there): the struct values copied, what
 * they point at shared; the pool entry's counter sets and reason too (all
 * the pool's slices are the same, so they are what a build would find). */
static void reuse_slice(struct build *b, const struct dm_slice *rec,
                        size_t p)
{
    struct devmodel *m = b->m;
    const struct dm_pool *pp = &b->before->pools[rec->pool];
    size_t k;

    m->pools[p].sets = pp->sets;
    m->pools[p].nsets = pp->nsets;
    m->pools[p].invalid = pp->invalid;
    m->pools[p].invalid_counters = pp->invalid_counters;
    for (k = 0; k < rec->n; k++) {
        struct dm_device *d = &m->devs[m->ndevs];
        *d = b->before->devs[rec->first + k];
        d->pool_idx = p;
        d->pool = m->pools[p].name;
        if (d->place == DM_NODE)
            d->node_idx = node_again(b, d->node_idx, d, rec);
        b->dev_reused[m->ndevs++] = 1;
    }
    m->reused += rec->n;
}

/* The slice's devices, its sharedCounters in its pool; rec: its record
 * (a model to be reused), filled. */
static void add_slice(struct build *b, const struct object *o, size_t oi,
                      struct dm_slice *rec, const struct dm_slice *again)
{
    struct devmodel *m = b->m;
    const struct tnode *devs, *sc;
    const struct dm_facts *f = b->facts[oi];
    long long gen;
    size_t p, i;

    if (!b->opool[oi])      /* (no driver or pool name) */
        return;
    gen = f->gen;
    p = b->opool[oi] - 1;
    if (gen != m->pools[p].generation) {
        struct oldgen *g = f->node ? older_used(b, p, f->node, gen) : NULL;
        if (!g)
            return;
        p = older_entry(b, g);
    }
    m->nslices++;
    if (rec)
        rec->pool = p;
    if (again && again->pool != SIZE_MAX) {
        reuse_slice(b, again, p);
        return;
    }
    b->drop_lists = !m->list_attributes && !o->inventory;
    b->slice_gated = slice_gated(o->spec);
    b->per_device = f->per_device;
    sc = tree_get(o->spec, "sharedCounters");
    if (tree_is_seq(sc) && sc->n) {
        struct dm_pool *pl = &m->pools[p];
        struct dm_counterset *sets = arena_alloc(m->da,
            (pl->nsets + sc->n) * sizeof(*sets));
        if (pl->nsets)
            memcpy(sets, pl->sets, pl->nsets * sizeof(*sets));
        for (i = 0; i < sc->n; i++) {
            struct dm_counterset *s = &sets[pl->nsets];
            size_t k;
            s->name = tree_str(tree_get(sc->kids[i], "name"));
            if (!s->name)
                continue;
            for (k = 0; k < pl->nsets; k++)
                if (!strcmp(sets[k].name, s->name))
                    pool_invalid(m, p, arena_printf(m->da, "counter set "
                                                    "'%s' is defined twice",
                                                    s->name), 1);
            s->c = read_counters(m->da,
                                 tree_get(sc->kids[i], "counters"), &s->n);
            pl->nsets++;
        }
        pl->sets = sets;
    }
    devs = tree_get(o->spec, "devices");
    if (!tree_is_seq(devs))
        return;
    for (i = 0; i < devs->n; i++)
        add_device(b, p, devs->kids[i], o->spec);
}

static struct devmodel *model_new(struct arena *a)
{
    struct devmodel *m;

    if (a) {
        m = arena_alloc(a, sizeof(*m));
        m->a = a;
    } else {
        m = xcalloc(1, sizeof(*m));
        /* the model only grows until it is freed: chunks of a run's
         * size are mapped and populated a step ahead, where smaller
         * ones are malloc'd and cleared per allocation (a page fault
         * per 4 KiB) */
        arena_init(&m->own, ARENA_RUN_BYTES);
        m->a = &m->own;
        m->owned = 1;
    }
    m->da = m->a;
    strmap_init(&m->node_index, m->a);
    strmap_init(&m->syms, m->a);
    strmap_init(&m->domains, m->a);
    m->attrhash = xcalloc(DM_ATTRHASH, sizeof(*m->attrhash));
    m->ext = xcalloc(1, sizeof(*m->ext));
    return m;
}

/* Nodes first: their labels are what node selectors test. */
/* The Node objects of a model to be reused, in order; b->nodes_same: 1
 * if they are the model before's. */
static void node_objects(struct build *b, const struct object *const *objs,
                         size_t n, size_t nnode)
{
    struct devmodel *m = b->m;
    const struct devmodel *before = b->before;
    size_t i;

    m->node_objs = arena_alloc(m->a, (nnode + 1) * sizeof(*m->node_objs));
    for (i = 0; i < n; i++)
        if (objs[i]->kind == K_NODE && *objs[i]->name)
            m->node_objs[m->nnode_objs++] = objs[i];
    b->nodes_same = before && before->nnode_objs == m->nnode_objs
                    && !memcmp(before->node_objs, m->node_objs,
                               m->nnode_objs * sizeof(*m->node_objs));
}

/* The nodes of the same Node objects as the model before's (nodes_same):
 * its first nodes, theirs, copied (names and labels of those objects),
 * indexed. */
static void nodes_again(struct build *b)
{
    struct devmodel *m = b->m;
    const struct devmodel *before = b->before;
    size_t k;

    memcpy(m->nodes, before->nodes,
           before->nnode_objects * sizeof(*m->nodes));
    for (k = 0; k < before->nnode_objects; k++) {
        m->nodes[k].local = NULL;
        m->nodes[k].nlocal = 0;
        strmap_put_borrowed(&m->node_index, m->nodes[k].name, &m->nodes[k]);
    }
    m->nnodes = m->nnode_objects = before->nnode_objects;
}

static void add_nodes(struct build *b, const struct object *const *objs,
                      size_t n)
{
    struct devmodel *m = b->m;
    size_t i, k;

    if (b->nodes_same) {
        nodes_again(b);
        return;
    }
    for (i = 0; i < n; i++) {
        const struct object *o = objs[i];
        if (o->kind != K_NODE || !*o->name)
            continue;
        k = node_of(m, &b->nodecap, o->name);
        if (!m->nodes[k].sel.labels_known)
            m->nnode_objects++;
        m->nodes[k].sel.labels = tree_get(o->metadata, "labels");
        m->nodes[k].sel.labels_known = 1;
    }
}

/* Which slices of the pools target which node, by generation
 * (older_used() decides from them): node-local slices by (pool, node,
 * generation) and the newest generation per (pool, node); slices not
 * bound to one node (allNodes, a node selector, per-device selection)
 * count as targeting every node. */
static void older_scan(struct build *b, size_t n)
{
    struct devmodel *m = b->m;
    unsigned char *older = arena_alloc(m->a, m->npools + 1);
    size_t i;

    strmap_init(&b->older, m->a);
    strmap_init(&b->newest_on, m->a);
    b->shared_gen = arena_alloc(m->a, (m->npools + 1) * sizeof(long long));
    for (i = 0; i < m->npools; i++)
        b->shared_gen[i] = -1;
    /* only pools with a slice of an older generation have any use for
     * them (older_used() is asked about those only) */
    for (i = 0; i < n; i++)
        if (b->opool[i]
            && b->facts[i]->gen < m->pools[b->opool[i] - 1].generation)
            older[b->opool[i] - 1] = 1;
    for (i = 0; i < n; i++) {
        const struct dm_facts *f = b->facts[i];
        const char *node;
        const char *key;
        long long gen, cnt, *newest;
        struct oldgen *g;
        size_t p = b->opool[i] - 1;
        if (!b->opool[i] || !older[p])
            continue;
        node = f->node;
        gen = f->gen;
        cnt = f->count;
        if (!node) {
            if (gen > b->shared_gen[p])
                b->shared_gen[p] = gen;
            continue;
        }
        key = arena_printf(m->a, "%zu\x1f%s", p, node);
        newest = strmap_get(&b->newest_on, key);
        if (!newest) {
            newest = arena_alloc(m->a, sizeof(*newest));
            *newest = gen;
            strmap_put(&b->newest_on, key, newest);
        } else if (gen > *newest) {
            *newest = gen;
        }
        if (gen >= m->pools[p].generation)
            continue;
        key = arena_printf(m->a, "%zu\x1f%s\x1f%lld", p, node, gen);
        g = strmap_get(&b->older, key);
        if (!g) {
            g = arena_alloc(m->a, sizeof(*g));
            memset(g, 0, sizeof(*g));
            g->pool = p;
            g->node = node;
            g->gen = gen;
            g->count = cnt;
            g->entry = SIZE_MAX;
            strmap_put(&b->older, key, g);
        }
        g->seen++;
        g->counters |= f->counters;
    }
}

/* What the build reads of slice o before its devices. */
static void read_facts(const struct object *o, struct dm_facts *f)
{
    const struct tnode *pool = slice_pool(o), *devs, *sc;

    memset(f, 0, sizeof(*f));
    f->driver = tree_str(tree_get(o->spec, "driver"));
    f->pname = tree_str(tree_get(pool, "name"));
    f->node = tree_str(tree_get(o->spec, "nodeName"));
    f->count = 1;
    tree_int(tree_get(pool, "generation"), &f->gen);
    tree_int(tree_get(pool, "resourceSliceCount"), &f->count);
    devs = tree_get(o->spec, "devices");
    f->ndev = tree_is_seq(devs) ? devs->n : 0;
    sc = tree_get(o->spec, "sharedCounters");
    f->counters = tree_is_seq(sc) && sc->n > 0;
    f->per_device = tree_true(tree_get(o->spec, "perDeviceNodeSelection"));
    f->name_hash = strmap_hash(o->name);
}

/* The record of the model before whose facts f are. */
static const struct dm_slice *facts_rec(const struct dm_facts *f)
{
    return (const struct dm_slice *)(const void *)
           ((const char *)f - offsetof(struct dm_slice, f));
}

/* The slice objects that are records of the model before (b->facts: their
 * facts there; once each: an object given twice is the record once), and
 * of the others (returned: how many) the names in b->unknown, b->dup set
 * among them: the records' names are distinct there, so only a name of
 * theirs can come twice (dups_known decides about the records'). */
static size_t dups_unknown(struct build *b, const struct object *const *objs,
                           size_t n)
{
    const struct devmodel *before = b->before;
    unsigned char *hit = arena_alloc(b->m->a, before->nslice_recs + 1);
    size_t i, r, nu = 0, *u;

    u = xmalloc((b->nslice_objs + 1) * sizeof(*u));
    for (i = 0; i < n; i++) {
        if (objs[i]->kind != K_SLICE)
            continue;
        r = dm_slice_record(before, objs[i]);
        if (r != SIZE_MAX && !hit[r]) {
            hit[r] = 1;
            b->facts[i] = &before->slices[r].f;
        } else {
            u[nu++] = i;
        }
    }
    strmap_reserve(&b->unknown, nu);
    for (r = 0; r < nu; r++) {
        const char *name = objs[u[r]]->name;
        if (!*name)
            continue;
        if (strmap_get(&b->unknown, name))
            b->dup[u[r]] = 1;
        else
            strmap_put_borrowed(&b->unknown, name,
                                (void *)(uintptr_t)(u[r] + 1));
    }
    free(u);
    return nu;
}

/* Whether record object i (a name of its own among the records) repeats
 * the name of an unknown slice, or the other way round: the later is left
 * out (b->dup), the first of the unknown ones when it is i. */
static void dups_known(struct build *b, const struct object *o, size_t i)
{
    const struct dm_facts *f = b->facts[i];
    void *v;
    size_t first;

    if (!b->unknown.n || !*o->name)
        return;
    v = strmap_get_hashed(&b->unknown, o->name, f->name_hash);
    if (!v)
        return;
    first = (size_t)((uintptr_t)v - 1);     /* of the unknown ones */
    if (first < i)
        b->dup[i] = 1;
    else
        b->dup[first] = 1;
}

/* b->dup: a slice whose name an earlier one has. */
static void dups_by_name(struct build *b, const struct object *const *objs,
                         size_t n)
{
    struct strmap names;        /* slice names seen */
    size_t i;

    strmap_init(&names, b->m->a);
    strmap_reserve(&names, b->nslice_objs);
    for (i = 0; i < n; i++) {
        const struct object *o = objs[i];
        if (o->kind != K_SLICE || !*o->name)
            continue;
        if (strmap_get(&names, o->name))
            b->dup[i] = 1;
        else
            strmap_put_borrowed(&names, o->name, (void *)1);
    }
}

/* Pool entry q of the model before, here (again: per entry there, its
 * entry here + 1): made on first sight, named as the slice seen first
 * spells it (pname), with the same driver and key (interned, and in the
 * pieces this model holds: nothing hashed). */
static size_t pool_again(struct build *b, size_t q, size_t *again,
                         const char *pname)
{
    const struct dm_pool *pq = &b->before->pools[q];
    struct devmodel *m = b->m;

    if (!again[q])
        again[q] = pool_add(m, &b->poolcap, pq->driver, pname, pq->key) + 1;
    return again[q] - 1;
}

/* The pool entry of slice i: in a model built from another (again), that
 * one's entry of its record, or of its driver and pool name, again; else
 * (or one the other has not: b->fresh) by driver and pool name. */
static size_t slice_pool_entry(struct build *b, size_t i, int known,
                               size_t *again)
{
    const struct dm_facts *f = b->facts[i];
    struct devmodel *m = b->m;
    char buf[512], *key;
    void *v;

    if (!again)
        return pool_of(m, &m->pool_index, &b->poolcap, f->driver, f->pname);
    if (known)
        return pool_again(b, facts_rec(f)->pool0, again, f->pname);
    key = pool_key(m->a, buf, sizeof(buf), f->driver, f->pname);
    v = strmap_get(&b->before->pool_index, key);
    if (v)
        return pool_again(b, (size_t)((uintptr_t)v - 1), again, f->pname);
    return pool_of(m, &b->fresh, &b->poolcap, f->driver, f->pname);
}

/* The pool index of a model built from another: the other's table when
 * the pools are its pools in its order and the table is in a piece (read
 * only from then on); else one of its own, in its piece when the pools
 * are the same (for the models after to share), in its arena when they
 * changed (they may change again: no piece grows by a table a change). */
static void index_pools(struct build *b, const size_t *again)
{
    struct devmodel *m = b->m;
    size_t i, np = m->npools;
    int same = np == b->before->pool_index.n && !b->fresh.n;

    for (i = 0; same && i < np; i++)
        same = again[i] == i + 1;
    m->pool_index_kept = same;
    if (same && b->before->pool_index_kept) {
        m->pool_index = b->before->pool_index;
        m->pool_index.arena = m->da;
        return;
    }
    strmap_init(&m->pool_index, same ? m->da : m->a);
    strmap_reserve(&m->pool_index, np);
    for (i = 0; i < np; i++)
        strmap_put_borrowed(&m->pool_index, m->pools[i].key,
                            (void *)(uintptr_t)(i + 1));
}

/* The newest generation of every pool and its slice count (a slice name
 * seen before is the same object again: b->dup); returns the devices of
 * all generations (an upper bound for the array). What is read of a
 * slice the model before has a record of is taken from there. */
static size_t gather_pools(struct build *b, const struct object *const *objs,
                           size_t n)
{
    struct devmodel *m = b->m;
    size_t i, ndev = 0, *again = NULL;

    if (!b->before)
        strmap_reserve(&m->pool_index, b->nslice_objs);
    b->dup = arena_alloc(m->a, n + 1);
    b->opool = arena_alloc(m->a, (n + 1) * sizeof(*b->opool));
    b->facts = arena_alloc(m->a, (n + 1) * sizeof(*b->facts));
    /* facts read: of every slice, or of those not the model before's */
    if (!b->before) {
        dups_by_name(b, objs, n);
        b->factbuf = xmalloc((b->nslice_objs + 1) * sizeof(*b->factbuf));
    } else {
        b->factbuf = xmalloc((dups_unknown(b, objs, n) + 1)
                             * sizeof(*b->factbuf));
    }
    if (b->before) {
        again = arena_alloc(m->a, (b->before->npools + 1) * sizeof(*again));
        strmap_init(&b->fresh, m->da);
    }
    for (i = 0; i < n; i++) {
        const struct dm_facts *f = b->facts[i];
        int known = f != NULL;      /* (a record of the model before) */
        size_t p;
        if (known && objs[i]->kind == K_SLICE && *objs[i]->name)
            dups_known(b, objs[i], i);
        if (objs[i]->kind != K_SLICE || b->dup[i])
            continue;
        if (!f) {
            struct dm_facts *nf = &b->factbuf[b->nfacts++];
            read_facts(objs[i], nf);
            b->facts[i] = f = nf;
            if (!f->driver || !f->pname)
                continue;
        }
        p = slice_pool_entry(b, i, known, again);
        b->opool[i] = p + 1;
        if (f->gen > m->pools[p].generation) {
            m->pools[p].generation = f->gen;
            m->pools[p].slices_seen = 0;
            m->pools[p].slice_count = f->count;
        }
        if (f->gen == m->pools[p].generation)
            m->pools[p].slices_seen++;
        ndev += f->ndev;
    }
    if (again)
        index_pools(b, again);
    older_scan(b, n);
    for (i = 0; i < m->npools; i++)
        if (dm_pool_incomplete(&m->pools[i]))
            m->nincomplete++;
    return ndev;
}

/* A consumesCounters entry must name a counter set of the pool, and
 * counters that set has; else the pool is invalid. */
static void consumes_check(struct devmodel *m, const struct dm_device *d,
                           const struct dm_consume *c)
{
    const struct dm_counterset *set;
    size_t i, k;

    if (c->set == SIZE_MAX) {
        pool_invalid(m, d->pool_idx, arena_printf(m->da, "device '%s' "
                     "consumes counter set '%s', which the pool does not "
                     "define", d->name, c->set_name ? c->set_name : ""), 1);
        return;
    }
    set = &m->pools[d->pool_idx].sets[c->set];
    for (i = 0; i < c->n; i++) {
        for (k = 0; k < set->n; k++)
            if (!strcmp(set->c[k].name, c->c[i].name))
                break;
        if (k == set->n) {
            pool_invalid(m, d->pool_idx, arena_printf(m->da, "device '%s' "
                         "consumes counter '%s', which counter set '%s' "
                         "does not have", d->name, c->c[i].name, set->name),
                         1);
            return;
        }
    }
}

/* Counter sets by index for device i, checked (a device taken from the
 * model before was resolved and checked there, against the same sets). */
static void resolve_consumes(struct devmodel *m, size_t i)
{
    struct dm_device *d = &m->devs[i];
    const struct dm_pool *pl = &m->pools[d->pool_idx];
    size_t j, k;

    for (j = 0; j < d->nconsumes; j++) {
        for (k = 0; k < pl->nsets; k++)
            if (d->consumes[j].set_name
                && !strcmp(pl->sets[k].name, d->consumes[j].set_name))
                d->consumes[j].set = k;
        consumes_check(m, d, &d->consumes[j]);
    }
}

/* Devices first .. first + n placed alike (all on node node, or, not
 * DM_NODE, none on one): the node's count, or m->shared. */
static void place_run(struct build *b, size_t first, size_t n,
                      enum dm_place place, size_t node)
{
    struct devmodel *m = b->m;
    size_t i;

    if (place == DM_NODE) {
        m->nodes[node].nlocal += n;
        return;
    }
    if (m->nshared + n > b->sharedcap) {
        size_t cap = b->sharedcap ? b->sharedcap * 2 : 16;
        while (cap < m->nshared + n)
            cap *= 2;
        m->shared = arena_grow(m->a, m->shared, m->nshared, cap,
                               sizeof(*m->shared));
        b->sharedcap = cap;
    }
    for (i = 0; i < n; i++)
        m->shared[m->nshared++] = first + i;
}

typedef void run_fn(struct build *b, size_t first, size_t n,
                    enum dm_place place, size_t node);

/* Device k alone */
static void dev_run(struct build *b, run_fn *fn, size_t k)
{
    const struct dm_device *d = &b->m->devs[k];

    fn(b, k, 1, d->place, d->node_idx);
}

/* The runs of devices placed alike, in device order: a slice's devices
 * share its placement (its record's: no device read) unless placed one
 * by one (a model to be reused has its slices' records; else device by
 * device). */
static void for_runs(struct build *b, run_fn *fn)
{
    struct devmodel *m = b->m;
    size_t r, k;

    if (!m->pieces) {
        for (k = 0; k < m->ndevs; k++)
            dev_run(b, fn, k);
        return;
    }
    for (r = 0; r < m->nslice_recs; r++) {
        const struct dm_slice *s = &m->slices[r];
        if (!s->n)
            continue;
        if (!s->f.per_device) {
            fn(b, s->first, s->n, s->place, s->node);
            continue;
        }
        for (k = 0; k < s->n; k++)
            dev_run(b, fn, s->first + k);
    }
}

/* Counter sets by index; devices that are not node-local in m->shared;
 * pools whose devices consume counters they do not define are invalid. */
static void resolve_devices(struct build *b)
{
    struct devmodel *m = b->m;
    size_t i, r;

    if (!m->pieces)
        for (i = 0; i < m->ndevs; i++)
            resolve_consumes(m, i);
    for (r = 0; m->pieces && r < m->nslice_recs; r++) {
        const struct dm_slice *s = &m->slices[r];
        /* (a slice's devices are all taken, or all built) */
        for (i = 0; i < s->n && !(b->dev_reused
                                   && b->dev_reused[s->first]); i++)
            resolve_consumes(m, s->first + i);
    }
    for_runs(b, place_run);
}

/* Devices first .. first + n placed alike, in their node's list. */
static void index_run(struct build *b, size_t first, size_t n,
                      enum dm_place place, size_t node)
{
    struct devmodel *m = b->m;
    struct dm_node *nd;
    size_t i;

    if (place != DM_NODE)
        return;
    nd = &m->nodes[node];
    for (i = 0; i < n; i++)
        nd->local[nd->nlocal++] = first + i;
    if (nd->nlocal > m->max_local)
        m->max_local = nd->nlocal;
}

/* Every node's list of local devices. */
static void index_nodes(struct build *b)
{
    struct devmodel *m = b->m;
    size_t i;

    for (i = 0; i < m->nnodes; i++) {
        m->nodes[i].local = arena_alloc(m->a, (m->nodes[i].nlocal + 1)
                                        * sizeof(size_t));
        m->nodes[i].nlocal = 0;
    }
    for_runs(b, index_run);
}

/* The model m of objs; before: the model to reuse pools from (m->pieces
 * and its tables set up by dm_next_begin), or NULL. */
static struct devmodel *build(struct devmodel *m,
                              const struct devmodel *before,
                              const struct object *const *objs, size_t n)
{
    struct build b;
    size_t i, r = 0, ndev, nnode_objs = 0;

    memset(&b, 0, sizeof(b));
    b.m = m;
    b.before = before;
    strmap_init(&m->pool_index, m->da);
    m->pool_index_kept = m->pieces != NULL;
    strmap_init(&b.seen, m->a);
    arena_init(&b.scratch_a, ARENA_CHUNK_BYTES);
    strmap_init(&b.unknown, &b.scratch_a);
    for (i = 0; i < n; i++) {
        b.nslice_objs += objs[i]->kind == K_SLICE;
        nnode_objs += objs[i]->kind == K_NODE;
    }
    /* the arrays made once, not copied (nor the nodes re-indexed)
     * growing: about as many nodes and pools as the model before, or at
     * most a pool per slice and a node per Node and slice (what is not
     * handed out of an arena is not touched) */
    b.nodecap = before ? before->nnodes + 64 : nnode_objs + b.nslice_objs + 1;
    m->nodes = arena_alloc(m->a, b.nodecap * sizeof(*m->nodes));
    strmap_reserve(&m->node_index, nnode_objs);
    b.poolcap = before ? before->npools + 64 : b.nslice_objs + 16;
    m->pools = arena_alloc(m->a, b.poolcap * sizeof(*m->pools));
    if (m->pieces)
        node_objects(&b, objs, n, nnode_objs);
    add_nodes(&b, objs, n);
    ndev = gather_pools(&b, objs, n);
    b.scratch = xmalloc(ATTR_SCRATCH * (sizeof(*b.scratch)
                                        + sizeof(uint64_t)));
    if (!m->pieces) {       /* a cache of the devices' size, to a point */
        for (b.nblocks = 16; b.nblocks < ndev && b.nblocks < ATTR_BLOCKS;)
            b.nblocks *= 2;
        b.blocks = xcalloc(b.nblocks, sizeof(*b.blocks));
    }
    if (m->pieces)
        dm_next_slices(m, before, objs, n, b.opool, b.facts, &b.reuse);
    /* one array, sized for every device of every generation (an upper
     * bound): growing it would leave copies behind in the arena */
    b.devcap = ndev ? ndev : 1;
    /* about a value of its own per device (a uuid, a bus address) is
     * common: the interned values' table made once (a table that stays
     * sparse is mapped, few of its pages touched) */
    if (!m->pieces)
        strmap_reserve(&m->domains, ndev);
    m->devs = m->pieces ? dm_next_devs(m, b.devcap)
                        : arena_alloc(m->a, b.devcap * sizeof(*m->devs));
    if (before) {
        b.node_again = arena_alloc(m->a, (before->nnodes + 1)
                                   * sizeof(*b.node_again));
        b.dev_reused = arena_alloc(m->a, b.devcap);
        b.taken = arena_alloc(m->a, before->nslice_recs + 1);
    }
    for (i = 0; i < n; i++) {   /* devices of the newest generations, and
                                   of older ones still used on a node */
        struct dm_slice *rec = NULL;
        const struct dm_slice *again = NULL;
        if (objs[i]->kind != K_SLICE || b.dup[i])
            continue;
        if (m->pieces && b.opool[i]) {
            rec = &m->slices[r];
            rec->first = m->ndevs;
            if (b.reuse.pool && b.reuse.pool[b.opool[i] - 1]) {
                again = &before->slices[b.reuse.rec[r]];
                b.taken[b.reuse.rec[r]] = 1;
            }
            r++;
        }
        add_slice(&b, objs[i], i, rec, again);
        if (rec)
            rec->n = m->ndevs - rec->first;
        if (rec && rec->n) {
            rec->place = m->devs[rec->first].place;  /* (for_runs) */
            rec->node = m->devs[rec->first].node_idx;
        }
    }
    free(b.scratch);
    free(b.blocks);
    free(b.factbuf);
    arena_release(&b.scratch_a);
    b.facts = NULL;     /* (they pointed into it) */
    resolve_devices(&b);
    /* nothing names a node but some devices are network-attached: one
     * stand-in node, so that they can be allocated at all */
    if (!m->nnodes && m->nshared)
        node_of(m, &b.nodecap, "(any node)");
    m->symidx = xcalloc(m->nsyms + 1, sizeof(*m->symidx));
    index_nodes(&b);
    if (m->pieces)
        dm_next_finish(m, before, b.taken, b.dev_reused);
    return m;
}

struct devmodel *devmodel_build(struct arena *a,
                                const struct object *const *objs, size_t n,
                                int list_attributes)
{
    struct devmodel *m = model_new(a);

    m->list_attributes = list_attributes;
    return build(m, NULL, objs, n);
}

struct devmodel *devmodel_build_next(const struct devmodel *prev,
                                     const struct object *const *objs,
                                     size_t n, int list_attributes)
{
    struct devmodel *m = model_new(NULL);

    m->list_attributes = list_attributes;
    return build(m, dm_next_begin(m, prev), objs, n);
}

void devmodel_free(struct devmodel *m)
{
    if (!m)
        return;
    devmodel_index_free(m);
    dm_next_release(m);
    if (!m->owned)
        return;
    arena_release(&m->own);
    free(m);
}
