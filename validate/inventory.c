/*
 * inventory.c - loading and indexing inventory objects (from files given
 * with --inventory, or from the webhook's cluster cache). Objects are read
 * with object_read() like linted input, but are never reported on.
 * Also the device model (see inventory.h): devices of the newest pool
 * generations with their placement, built from ResourceSlices and Nodes.
 */
#include "inventory.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "allocate.h"
#include "cel/cel_internal.h"   /* cel_quantity_parse: one quantity parser */
#include "engine.h"
#include "err.h"
#include "load_yaml.h"
#include "object.h"
#include "stream.h"
#include "tree.h"
#include "verdict.h"
#include "xalloc.h"

#define INVENTORY_KINDS (K_CLAIM | K_TEMPLATE | K_CLASS | K_SLICE | K_NODE \
                         | K_NAMESPACE)

const char *object_key(struct arena *a, unsigned kind, const char *ns,
                       const char *name)
{
    return arena_printf(a, "%u\x1f%s\x1f%s", kind, ns ? ns : "", name);
}

struct inventory *inventory_new(void)
{
    struct inventory *inv = xcalloc(1, sizeof(*inv));

    arena_init(&inv->arena, 256 * 1024);
    strmap_init(&inv->index, &inv->arena);
    inv->verdicts = verdict_cache_new();
    return inv;
}

static void inventory_put(struct inventory *inv, const struct tnode *root)
{
    struct object *o = arena_alloc(&inv->arena, sizeof(*o));
    const struct tnode *bad;
    const char *why;

    if (object_read(&inv->arena, root, "<inventory>", 0, o, &bad, &why)
        != OBJ_OK || !(o->kind & INVENTORY_KINDS) || !*o->name)
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

static struct tnode *tree_copy(struct arena *a, const struct tnode *src,
                               const struct tnode *parent, int depth)
{
    struct tnode *n = arena_alloc(a, sizeof(*n));
    size_t i;

    *n = *src;
    n->parent = parent;
    if (src->key)
        n->key = arena_strdup(a, src->key);
    n->str = arena_strdup(a, src->str);
    if (src->n) {
        n->kids = arena_alloc(a, src->n * sizeof(*n->kids));
        for (i = 0; i < src->n; i++)
            n->kids[i] = depth < 512 ? tree_copy(a, src->kids[i], n, depth + 1)
                                     : tree_new(a, T_NULL, 0, 0);
    }
    return n;
}

int inventory_add_tree(struct inventory *inv, const struct tnode *obj,
                       struct err *err)
{
    (void)err;
    if (!tree_is_map(obj))
        return 0;
    inventory_put_doc(inv, tree_copy(&inv->arena, obj, NULL, 0));
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
    devmodel_free(atomic_load(&inv->model));
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

/* ==== quantities ========================================================= */

int qty_parse(const char *s, struct qty *out)
{
    if (!s)
        return -1;
    return cel_quantity_parse(s, strlen(s), &out->lo, &out->hi);
}

int qty_cmp(struct qty a, struct qty b)
{
    if (a.hi != b.hi)
        return a.hi < b.hi ? -1 : 1;
    if (a.lo != b.lo)
        return a.lo < b.lo ? -1 : 1;
    return 0;
}

struct qty qty_add(struct qty a, struct qty b)
{
    struct qty r;

    r.lo = a.lo + b.lo;
    r.hi = (int64_t)((uint64_t)a.hi + (uint64_t)b.hi + (r.lo < a.lo));
    return r;
}

struct qty qty_sub(struct qty a, struct qty b)
{
    struct qty r;

    r.lo = a.lo - b.lo;
    r.hi = (int64_t)((uint64_t)a.hi - (uint64_t)b.hi - (a.lo < b.lo));
    return r;
}

/* ==== device model ======================================================= */

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
            if (a->iv)
                h = (h ^ (uint64_t)a->iv[i]) * 1099511628211ull;
            if (a->bv)
                h = (h ^ (uint64_t)a->bv[i]) * 1099511628211ull;
            if (a->sv)
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

long devmodel_sym(const struct devmodel *m, const char *id, size_t len)
{
    char key[128];
    void *v;

    if (len >= sizeof(key))
        return -1;
    memcpy(key, id, len);
    key[len] = 0;
    v = strmap_get(&m->syms, key);
    return v ? (long)((uintptr_t)v - 1) : -1;
}

static const char *intern_domain(struct devmodel *m, const char *s,
                                  size_t n)
{
    char key[256];
    const char *v;

    if (n >= sizeof(key))
        return arena_strndup(m->a, s, n);
    memcpy(key, s, n);
    key[n] = 0;
    v = strmap_get(&m->domains, key);
    if (v)
        return v;
    /* a NUL-terminated s (a tree string) is the canonical copy itself:
     * it lives as long as the objects the model is built from */
    v = s[n] ? arena_strdup(m->a, key) : s;
    strmap_put(&m->domains, key, (void *)(uintptr_t)v);
    return v;
}

const short *devmodel_sym_index(const struct devmodel *m, long sym)
{
    void *expect = NULL;
    short *v;
    size_t i, k;

    if (sym < 0 || (size_t)sym >= m->nsyms)
        return NULL;
    v = atomic_load(&m->symidx[sym]);
    if (v)
        return v;
    v = xmalloc((m->ndevs + 1) * sizeof(*v));
    for (i = 0; i < m->ndevs; i++) {
        const struct dm_device *d = &m->devs[i];
        v[i] = -1;
        for (k = 0; k < d->cel.nattrs; k++)
            if ((long)d->attr_sym[k] == sym) {
                v[i] = (short)k;
                break;
            }
    }
    if (!atomic_compare_exchange_strong(&m->symidx[sym], &expect, v)) {
        free(v);
        v = expect;
    }
    return v;
}

struct attrhash {
    long sym;
    const char *domain;
    uint64_t *h;
};

const uint64_t *devmodel_attr_hashes(const struct devmodel *m, long sym,
                                     const char *domain)
{
    struct attrhash *mine = NULL;
    size_t i, k;

    if (sym < 0)
        return NULL;
    for (k = 0; k < DM_ATTRHASH; k++) {
        void *seen = atomic_load(&m->attrhash[k]);
        struct attrhash *cur = seen;
        if (!cur) {
            if (!mine) {
                mine = xmalloc(sizeof(*mine));
                mine->sym = sym;
                mine->domain = domain;
                mine->h = xmalloc((m->ndevs + 1) * sizeof(*mine->h));
                for (i = 0; i < m->ndevs; i++) {
                    const struct dm_device *d = &m->devs[i];
                    const struct cel_attr *at = dm_attr_sym(d, sym, domain);
                    uint64_t h = at ? d->attr_hash[at - d->cel.attrs] : 0;
                    mine->h[i] = at && !h ? 1 : h;
                }
            }
            if (atomic_compare_exchange_strong(&m->attrhash[k], &seen, mine))
                return mine->h;
            cur = seen;         /* another thread filled the slot first */
        }
        if (cur->sym == sym && cur->domain == domain) {
            if (mine) {
                free(mine->h);
                free(mine);
            }
            return cur->h;
        }
    }
    if (mine) {
        free(mine->h);
        free(mine);
    }
    return NULL;
}

const char *devmodel_domain(const struct devmodel *m, const char *domain)
{
    return strmap_get(&m->domains, domain);
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

/* One attribute value {int|bool|string|version|ints|...}; -1 if none. */
static int read_attr(struct arena *a, const struct tnode *v,
                     struct cel_attr *out)
{
    static const struct {
        const char *key;
        enum cel_attr_type type;
    } lists[] = {{"ints", CEL_ATTR_INTS}, {"bools", CEL_ATTR_BOOLS},
                 {"strings", CEL_ATTR_STRINGS},
                 {"versions", CEL_ATTR_VERSIONS}};
    const struct tnode *x;
    size_t i;

    x = tree_get(v, "int");
    if (x) {
        out->type = CEL_ATTR_INT;
        return tree_int(x, &out->i);
    }
    x = tree_get(v, "bool");
    if (x && x->kind == T_BOOL) {
        out->type = CEL_ATTR_BOOL;
        out->b = x->boolean;
        return 0;
    }
    x = tree_get(v, "string");
    if (x && tree_text(x)) {
        out->type = CEL_ATTR_STRING;
        out->s = tree_text(x);
        return 0;
    }
    x = tree_get(v, "version");
    if (x && tree_text(x)) {
        out->type = CEL_ATTR_VERSION;
        out->s = tree_text(x);
        return 0;
    }
    for (i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
        x = tree_get(v, lists[i].key);
        if (x)
            return read_list_attr(a, x, lists[i].type, out);
    }
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
        if (qty_parse(tree_text(val), &c[k].value) < 0)
            continue;
        c[k].text = tree_text(val);
        c[k++].name = v->key;
    }
    *n = k;
    return c;
}

/* The pool of a slice, created on first sight. */
static size_t pool_of(struct devmodel *m, struct strmap *pools,
                      size_t *cap, const char *driver, const char *name)
{
    char *key = arena_printf(m->a, "%s\x1f%s", driver, name);
    void *v = strmap_get(pools, key);

    if (v)
        return (size_t)((uintptr_t)v - 1);
    if (m->npools == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        m->pools = arena_grow(m->a, m->pools, m->npools, *cap,
                              sizeof(*m->pools));
    }
    memset(&m->pools[m->npools], 0, sizeof(m->pools[0]));
    m->pools[m->npools].driver = intern_domain(m, driver, strlen(driver));
    m->pools[m->npools].name = name;
    m->pools[m->npools].generation = -1;
    strmap_put(pools, key, (void *)(uintptr_t)(m->npools + 1));
    return m->npools++;
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
    strmap_put(&m->node_index, name, n);
    return m->nnodes++;
}

struct build {
    struct devmodel *m;
    size_t devcap, nodecap, poolcap, sharedcap;
    struct strmap pools;
    struct strmap seen;         /* driver\x1fpool\x1fdevice */
    const struct tnode *sel_src;    /* the NodeSelector last compiled */
    struct nodesel *sel;            /* ... into this */
};

static const struct tnode *slice_pool(const struct object *o)
{
    return tree_get(o->spec, "pool");
}

static void add_device(struct build *b, const struct object *o, size_t pool,
                       const struct tnode *dev, const struct tnode *spec)
{
    struct devmodel *m = b->m;
    struct arena *a = m->a;
    const char *driver = m->pools[pool].driver;
    const char *name = tree_str(tree_get(dev, "name"));
    const struct tnode *f = tree_get(dev, "basic");
    const struct tnode *attrs, *caps, *cons, *nn;
    struct dm_device *d;
    struct cel_attr *av;
    struct cel_capacity *cv;
    unsigned *asym, *csym;
    uint64_t *ahash, *chash;
    struct qty *cval;
    const struct tnode **cpol;
    const char *key;
    size_t i, k;

    (void)o;
    if (!name)
        return;
    if (!tree_is_map(f))
        f = dev;
    /* a name twice in one pool counts once; only pools of several slices
     * can repeat one (names are unique within a slice) */
    if (m->pools[pool].slices_seen > 1) {
        key = arena_printf(a, "%s\x1f%s\x1f%s", driver,
                           m->pools[pool].name, name);
        if (strmap_get(&b->seen, key))
            return;
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

    attrs = tree_get(f, "attributes");
    k = 0;
    if (tree_is_map(attrs)) {
        av = arena_alloc(a, (attrs->n + 1) * sizeof(*av));
        asym = arena_alloc(a, (attrs->n + 1) * sizeof(*asym));
        ahash = arena_alloc(a, (attrs->n + 1) * sizeof(*ahash));
        for (i = 0; i < attrs->n; i++) {
            const struct tnode *v = attrs->kids[i];
            split_qualified(m, v->key, driver, &av[k].domain, &av[k].id);
            if (read_attr(a, v, &av[k]) < 0)
                continue;
            if (av[k].type == CEL_ATTR_STRING || av[k].type == CEL_ATTR_VERSION)
                av[k].s = intern_domain(m, av[k].s, strlen(av[k].s));
            asym[k] = intern(m, av[k].id);
            ahash[k] = hash_attr(&av[k]);
            k++;
        }
        d->cel.attrs = av;
        d->attr_sym = asym;
        d->attr_hash = ahash;
    }
    d->cel.nattrs = k;

    caps = tree_get(f, "capacity");
    k = 0;
    if (tree_is_map(caps)) {
        cv = arena_alloc(a, (caps->n + 1) * sizeof(*cv));
        csym = arena_alloc(a, (caps->n + 1) * sizeof(*csym));
        cval = arena_alloc(a, (caps->n + 1) * sizeof(*cval));
        cpol = arena_alloc(a, (caps->n + 1) * sizeof(*cpol));
        chash = arena_alloc(a, (caps->n + 1) * sizeof(*chash));
        for (i = 0; i < caps->n; i++) {
            const struct tnode *v = caps->kids[i];
            const struct tnode *val = tree_is_map(v) ? tree_get(v, "value")
                                                     : v;
            if (qty_parse(tree_text(val), &cval[k]) < 0)
                continue;
            split_qualified(m, v->key, driver, &cv[k].domain, &cv[k].id);
            cv[k].quantity = tree_text(val);
            csym[k] = intern(m, cv[k].id);
            cpol[k] = tree_is_map(v) ? tree_get(v, "requestPolicy") : NULL;
            chash[k] = hash_str(hash_str(hash_str(7, cv[k].domain),
                                         cv[k].id), cv[k].quantity);
            k++;
        }
        d->cel.caps = cv;
        d->cap_sym = csym;
        d->cap_value = cval;
        d->cap_policy = cpol;
        d->cap_hash = chash;
    }
    d->cel.ncaps = k;

    cons = tree_get(f, "consumesCounters");
    if (tree_is_seq(cons) && cons->n) {
        d->consumes = arena_alloc(a, cons->n * sizeof(*d->consumes));
        for (i = 0; i < cons->n; i++) {
            struct dm_consume *c = &d->consumes[d->nconsumes++];
            c->set_name = tree_str(tree_get(cons->kids[i], "counterSet"));
            c->set = SIZE_MAX;
            c->c = read_counters(a, tree_get(cons->kids[i], "counters"),
                                 &c->n);
        }
    }

    /* placement: the slice's, or the device's own */
    nn = tree_true(tree_get(spec, "perDeviceNodeSelection")) ? f : spec;
    if (tree_str(tree_get(nn, "nodeName"))) {
        d->place = DM_NODE;
        d->node_idx = node_of(m, &b->nodecap,
                              tree_str(tree_get(nn, "nodeName")));
    } else if (tree_is_map(tree_get(nn, "nodeSelector"))) {
        d->place = DM_SELECTOR;
        d->node_selector = tree_get(nn, "nodeSelector");
        if (b->sel_src != d->node_selector) {  /* once per slice */
            b->sel = arena_alloc(a, sizeof(*b->sel));
            nodesel_compile(a, d->node_selector, b->sel);
            b->sel_src = d->node_selector;
        }
        d->nodesel = b->sel;
    } else {
        d->place = DM_ALL;
    }
    d->driver_hash = hash_str(1469598103934665603ull, driver)
                     ^ ((uint64_t)d->multi << 60);
    d->ref = d->place == DM_NODE
             ? arena_printf(a, "%s/%s", m->nodes[d->node_idx].name, name)
             : arena_printf(a, "%s/%s", d->pool, name);
    m->ndevs++;
}

static void add_slice(struct build *b, const struct object *o)
{
    struct devmodel *m = b->m;
    const struct tnode *pool = slice_pool(o), *devs, *sc;
    const char *driver = tree_str(tree_get(o->spec, "driver"));
    const char *pname = tree_str(tree_get(pool, "name"));
    long long gen = 0;
    size_t p, i;

    if (!driver || !pname)
        return;
    tree_int(tree_get(pool, "generation"), &gen);
    p = pool_of(m, &b->pools, &b->poolcap, driver, pname);
    if (gen != m->pools[p].generation)
        return;
    m->nslices++;
    sc = tree_get(o->spec, "sharedCounters");
    if (tree_is_seq(sc) && sc->n) {
        struct dm_pool *pl = &m->pools[p];
        struct dm_counterset *sets = arena_alloc(m->a,
            (pl->nsets + sc->n) * sizeof(*sets));
        if (pl->nsets)
            memcpy(sets, pl->sets, pl->nsets * sizeof(*sets));
        for (i = 0; i < sc->n; i++) {
            struct dm_counterset *s = &sets[pl->nsets];
            s->name = tree_str(tree_get(sc->kids[i], "name"));
            if (!s->name)
                continue;
            s->c = read_counters(m->a,
                                 tree_get(sc->kids[i], "counters"), &s->n);
            pl->nsets++;
        }
        pl->sets = sets;
    }
    devs = tree_get(o->spec, "devices");
    if (!tree_is_seq(devs))
        return;
    for (i = 0; i < devs->n; i++)
        add_device(b, o, p, devs->kids[i], o->spec);
}

struct devmodel *devmodel_build(struct arena *a,
                                const struct object *const *objs, size_t n)
{
    struct devmodel *m;
    struct build b;
    size_t i, j, k, ndev = 0;

    if (a) {
        m = arena_alloc(a, sizeof(*m));
        m->a = a;
    } else {
        m = xcalloc(1, sizeof(*m));
        arena_init(&m->own, 256 * 1024);
        m->a = &m->own;
        m->owned = 1;
    }
    strmap_init(&m->node_index, m->a);
    strmap_init(&m->syms, m->a);
    strmap_init(&m->domains, m->a);
    m->selcache = xcalloc(DM_SELCACHE, sizeof(*m->selcache));
    m->selcache_bytes = xcalloc(1, sizeof(*m->selcache_bytes));
    m->attrhash = xcalloc(DM_ATTRHASH, sizeof(*m->attrhash));
    memset(&b, 0, sizeof(b));
    b.m = m;
    strmap_init(&b.pools, m->a);
    strmap_init(&b.seen, m->a);

    /* Nodes first: their labels */
    for (i = 0; i < n; i++) {
        const struct object *o = objs[i];
        if (o->kind != K_NODE || !*o->name)
            continue;
        k = node_of(m, &b.nodecap, o->name);
        if (!m->nodes[k].sel.labels_known)
            m->nnode_objects++;
        m->nodes[k].sel.labels = tree_get(o->metadata, "labels");
        m->nodes[k].sel.labels_known = 1;
    }
    /* pass 1: the newest generation of every pool and its slice count */
    for (i = 0; i < n; i++) {
        const struct object *o = objs[i];
        const struct tnode *pool;
        const char *driver, *pname;
        long long gen = 0, cnt = 1;
        size_t p;
        if (o->kind != K_SLICE)
            continue;
        pool = slice_pool(o);
        driver = tree_str(tree_get(o->spec, "driver"));
        pname = tree_str(tree_get(pool, "name"));
        if (!driver || !pname)
            continue;
        tree_int(tree_get(pool, "generation"), &gen);
        tree_int(tree_get(pool, "resourceSliceCount"), &cnt);
        p = pool_of(m, &b.pools, &b.poolcap, driver, pname);
        if (gen > m->pools[p].generation) {
            m->pools[p].generation = gen;
            m->pools[p].slices_seen = 0;
            m->pools[p].slice_count = cnt;
        }
        if (gen == m->pools[p].generation)
            m->pools[p].slices_seen++;
        if (tree_is_seq(tree_get(o->spec, "devices")))
            ndev += tree_get(o->spec, "devices")->n;
    }
    /* one array, sized for every device of every generation (an upper
     * bound): growing it would leave copies behind in the arena */
    b.devcap = ndev ? ndev : 1;
    m->devs = arena_alloc(m->a, b.devcap * sizeof(*m->devs));
    for (i = 0; i < m->npools; i++)
        if ((long long)m->pools[i].slices_seen < m->pools[i].slice_count)
            m->nincomplete++;
    /* pass 2: devices and counters of the newest generations */
    for (i = 0; i < n; i++)
        if (objs[i]->kind == K_SLICE)
            add_slice(&b, objs[i]);
    /* resolve counter sets, place devices */
    for (i = 0; i < m->ndevs; i++) {
        struct dm_device *d = &m->devs[i];
        const struct dm_pool *pl = &m->pools[d->pool_idx];
        for (j = 0; j < d->nconsumes; j++)
            for (k = 0; k < pl->nsets; k++)
                if (d->consumes[j].set_name
                    && !strcmp(pl->sets[k].name, d->consumes[j].set_name))
                    d->consumes[j].set = k;
        if (d->place == DM_NODE) {
            m->nodes[d->node_idx].nlocal++;
        } else {
            if (m->nshared == b.sharedcap) {
                b.sharedcap = b.sharedcap ? b.sharedcap * 2 : 16;
                m->shared = arena_grow(m->a, m->shared, m->nshared,
                                       b.sharedcap, sizeof(*m->shared));
            }
            m->shared[m->nshared++] = i;
        }
    }
    /* nothing names a node but some devices are network-attached: one
     * stand-in node, so that they can be allocated at all */
    if (!m->nnodes && m->nshared)
        node_of(m, &b.nodecap, "(any node)");
    m->symidx = xcalloc(m->nsyms + 1, sizeof(*m->symidx));
    for (i = 0; i < m->nnodes; i++) {
        m->nodes[i].local = arena_alloc(m->a, (m->nodes[i].nlocal + 1)
                                        * sizeof(size_t));
        m->nodes[i].nlocal = 0;
    }
    for (i = 0; i < m->ndevs; i++) {
        struct dm_node *nd;
        if (m->devs[i].place != DM_NODE)
            continue;
        nd = &m->nodes[m->devs[i].node_idx];
        nd->local[nd->nlocal++] = i;
        if (nd->nlocal > m->max_local)
            m->max_local = nd->nlocal;
    }
    return m;
}

void devmodel_free(struct devmodel *m)
{
    size_t i;

    if (!m)
        return;
    for (i = 0; i < DM_SELCACHE; i++)
        alloc_cache_entry_free(atomic_load(&m->selcache[i]));
    for (i = 0; m->symidx && i < m->nsyms; i++)
        free(atomic_load(&m->symidx[i]));
    {
        void *p;
        memcpy(&p, &m->symidx, sizeof(p));
        free(p);
        memcpy(&p, &m->selcache_bytes, sizeof(p));
        free(p);
        for (i = 0; i < DM_ATTRHASH; i++) {
            struct attrhash *h = atomic_load(&m->attrhash[i]);
            if (h)
                free(h->h);
            free(h);
        }
        memcpy(&p, &m->attrhash, sizeof(p));
        free(p);
    }
    {
        void *slots;    /* free() takes no _Atomic-qualified pointer */
        memcpy(&slots, &m->selcache, sizeof(slots));
        free(slots);
    }
    m->selcache = NULL;
    if (!m->owned)
        return;
    arena_release(&m->own);
    free(m);
}

const struct devmodel *inventory_devices(const struct inventory *inv)
{
    struct inventory *w = (struct inventory *)(uintptr_t)inv;
    struct devmodel *m, *expect = NULL;

    if (!inv)
        return NULL;
    m = atomic_load(&w->model);
    if (m)
        return m;
    m = devmodel_build(NULL, (const struct object *const *)inv->objs,
                       inv->n);
    if (!atomic_compare_exchange_strong(&w->model, &expect, m)) {
        devmodel_free(m);
        m = expect;
    }
    return m;
}

int dm_device_on_node(const struct devmodel *m, size_t d, size_t n)
{
    const struct dm_device *dv = &m->devs[d];

    switch (dv->place) {
    case DM_NODE:
        return dv->node_idx == n;
    case DM_SELECTOR:
        return !dv->nodesel->nerrs
               && nodesel_match(dv->nodesel, &m->nodes[n].sel) != NA_NO;
    case DM_ALL:
        return 1;
    }
    return 0;
}

const struct cel_attr *dm_attr(const struct dm_device *d, const char *fq)
{
    const char *slash = strrchr(fq, '/');
    size_t dl = slash ? (size_t)(slash - fq) : 0, i;
    const char *id = slash ? slash + 1 : fq;

    for (i = 0; i < d->cel.nattrs; i++) {
        const struct cel_attr *a = &d->cel.attrs[i];
        if (strcmp(a->id, id))
            continue;
        if (slash ? (strlen(a->domain) == dl && !strncmp(a->domain, fq, dl))
                  : !strcmp(a->domain, d->driver))
            return a;
    }
    return NULL;
}

const struct cel_attr *dm_attr_sym(const struct dm_device *d, long sym,
                                   const char *domain)
{
    size_t i;

    for (i = 0; i < d->cel.nattrs; i++) {
        if ((long)d->attr_sym[i] != sym)
            continue;
        if (d->cel.attrs[i].domain == (domain ? domain : d->driver))
            return &d->cel.attrs[i];
    }
    return NULL;
}
