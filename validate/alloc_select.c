/*
 * alloc_select.c - selector results over every device of a model
 * (alloc_eval, alloc_eval_cached: see allocate.h). Devices that agree on
 * everything a selector reads (cel_device_refs) share one evaluation; the
 * results of a selector text are computed once per model and kept in the
 * model's extension slot (lock-free, bounded in entries and bytes), as
 * are the lists of them a request combines (alloc_select_all), with
 * what else the allocator learns once per model (alloc_model_lists,
 * alloc_model_filtered, alloc_model_kinds, alloc_model_placement,
 * alloc_model_labelled).
 */
#include "allocate.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_internal.h"
#include "arena.h"
#include "buf.h"
#include "cel/cel.h"
#include "limits.h"
#include "strmap.h"
#include "tree.h"
#include "xalloc.h"

/* the longest key of a selector list kept by alloc_select_all() (a
 * longer list is combined into the caller's arena) */
#define ALLOC_SELALL_KEY_BYTES (64u << 10)

struct wanted {
    const struct devmodel *m;
    unsigned char *want;        /* per interned id: read by the selector */
};

static void want_ref(void *ctx, int what, const char *domain, const char *id)
{
    struct wanted *w = ctx;
    long s;

    (void)domain;
    if (what != CEL_REF_ATTR && what != CEL_REF_CAP)
        return;     /* driver and allowMultipleAllocations: always keyed */
    s = devmodel_sym(w->m, id, strlen(id));
    if (s >= 0)
        w->want[s] = 1;
}

/* Marks in want[] the interned id of every attribute and capacity the
 * program reads (the syntax tree's cel_device_refs). Returns -1 when it
 * may read fields it does not name (a map iterated or indexed by a
 * computed key, the device as a whole). */
static int referenced_syms(const struct devmodel *m,
                           const struct cel_program *prog,
                           unsigned char *want)
{
    struct wanted w;

    w.m = m;
    w.want = want;
    return cel_device_refs(prog, want_ref, &w);
}

struct group {
    uint64_t key;
    size_t rep;             /* representative device + 1; 0 = empty slot */
    unsigned char res;
    const char *err;
};

/* The groups of one evaluation: open addressing, grown as groups appear
 * (devices usually fall into few: a table sized for every device would be
 * megabytes of fresh memory probed at random, once per selector). */
struct groups {
    struct group *tab;
    size_t cap, n;          /* cap a power of 2; n used slots */
};

static void groups_init(struct groups *g)
{
    g->cap = 64;
    g->n = 0;
    g->tab = xcalloc(g->cap, sizeof(*g->tab));
}

/* The slot of key k: its group, or the empty slot where it goes */
static struct group *groups_slot(const struct groups *g, uint64_t k)
{
    size_t h = (size_t)k & (g->cap - 1);

    while (g->tab[h].rep && g->tab[h].key != k)
        h = (h + 1) & (g->cap - 1);
    return &g->tab[h];
}

/* After a slot was filled: keeps the table at most half full */
static void groups_added(struct groups *g)
{
    struct group *old = g->tab;
    size_t ocap = g->cap, i;

    if (++g->n * 2 <= g->cap)
        return;
    g->cap *= 2;
    g->tab = xcalloc(g->cap, sizeof(*g->tab));
    for (i = 0; i < ocap; i++)
        if (old[i].rep)
            *groups_slot(g, old[i].key) = old[i];
    free(old);
}

/* The key of what a selector reads on d, and of what binding d checks
 * before any evaluation (an attribute of no known type, list values, a
 * version that is not semver: each fails every selector, read or not). */
static uint64_t device_key(const struct dm_device *d,
                           const unsigned char *want)
{
    uint64_t h = d->driver_hash, sum = 0;
    size_t i, na = 0, nc = 0;

    if (d->cel.unsupported)
        h ^= 0x5bd1e995ull << 20;
    h ^= (uint64_t)(d->cel.bind & (CEL_BIND_LISTS | CEL_BIND_BADVER)) << 32;

    for (i = 0; i < d->cel.nattrs; i++)
        if (want[d->attr_sym[i]]) {
            sum += alloc_mix(d->attr_hash[i]);
            na++;
        }
    for (i = 0; i < d->cel.ncaps; i++)
        if (want[d->cap_sym[i]]) {
            sum += alloc_mix(d->cap_hash[i] ^ 0x9e3779b97f4a7c15ull);
            nc++;
        }
    return alloc_mix(h ^ sum ^ (na << 40) ^ (nc << 50));
}

static void set_result(struct arena *a, struct alloc_match *out, size_t i,
                       int r, const char *err, size_t n)
{
    if (r < 0) {
        out->v[i] = AM_ERR;
        if (!out->err)
            out->err = arena_alloc(a, n * sizeof(*out->err));
        out->err[i] = err;
        out->nerr++;
    } else {
        out->v[i] = r ? AM_YES : AM_NO;
        out->nyes += r != 0;
    }
}

void alloc_match_set(struct arena *a, struct alloc_match *out, size_t i,
                     int r, const char *err, size_t n)
{
    set_result(a, out, i, r, err, n);
}

void alloc_eval(struct arena *a, const struct devmodel *m,
                const struct cel_program *prog, uint64_t budget,
                struct alloc_match *out)
{
    uint64_t spent = 0;
    unsigned char *want = xcalloc(m->nsyms + 1, 1);
    struct groups groups = {NULL, 0, 0};
    const char *last_err = NULL;
    size_t i;
    int project;

    memset(out, 0, sizeof(*out));
    out->v = arena_alloc(a, m->ndevs + 1);
    project = referenced_syms(m, prog, want) == 0;
    if (project)
        groups_init(&groups);
    for (i = 0; i < m->ndevs; i++) {
        const struct dm_device *d = &m->devs[i];
        struct cel_error err;
        struct group *g = NULL;
        uint64_t k = 0;
        int r;
        if (project) {
            k = device_key(d, want);
            g = groups_slot(&groups, k);
            if (g->rep) {
                set_result(a, out, i, g->res == AM_ERR ? -1 : g->res,
                           g->err, m->ndevs);
                continue;
            }
        }
        {
            uint64_t cost = 0;
            r = cel_eval_device_costed(prog, &d->cel, &cost, &err);
            spent += cost + 1;
        }
        if (budget && spent > budget) {
            out->over_budget = 1;
            break;
        }
        if (r < 0 && (!last_err || strcmp(last_err, err.msg)))
            last_err = arena_strdup(a, err.msg);    /* one copy per text */
        set_result(a, out, i, r, r < 0 ? last_err : NULL, m->ndevs);
        if (g) {
            g->key = k;
            g->rep = i + 1;
            g->res = out->v[i];
            g->err = r < 0 ? out->err[i] : NULL;
            groups_added(&groups);
        }
    }
    out->cost = spent;
    free(groups.tab);
    free(want);
}

struct cache_entry {
    struct arena arena;         /* the text, the program, the results */
    const char *key;            /* env bits + expression text */
    int ok;
    struct cel_error err;
    struct alloc_match match;
};

static void cache_entry_free(struct cache_entry *e)
{
    if (!e)
        return;
    arena_release(&e->arena);
    free(e);
}

/* The selector results of one model: an extension of the model (it frees
 * the cache with itself), created by the first selector evaluated. */
struct selcache {
    struct dm_ext base;         /* first member: the model holds &base */
    void *_Atomic slot[ALLOC_SELCACHE];    /* struct cache_entry, set once */
    _Atomic size_t bytes;       /* memory held by the entries (and the
                                   combined lists) */
    _Atomic size_t solved_bytes;    /* ... by the solved[] entries */
    _Atomic int lists;          /* alloc_model_lists(): 0 not known yet,
                                   1 no device has a list value, 2 some */
    struct devfacts *_Atomic facts;     /* alloc_model_filtered(),
                                           alloc_model_plain(): set once */
    struct placement *_Atomic place[ALLOC_PLACECACHE]; /* set once */
    struct labelindex *_Atomic labels;  /* alloc_model_labelled(): set
                                           once */
    struct alloc_kept *_Atomic all[ALLOC_SELALL];    /* alloc_select_all():
                                                        set once */
    struct alloc_kept *_Atomic solved[ALLOC_SOLVED]; /* alloc_solve_shared():
                                                        set once */
};

struct selall_entry {
    struct alloc_kept kept;     /* first member: the slot holds &kept */
    struct alloc_selall all;
};

struct labelled {               /* the nodes with one label key=value */
    size_t n, fill;
    size_t *v;
};

struct labelindex {
    struct arena a;
    struct strmap map;          /* "key\x1fvalue" -> struct labelled */
};

struct placement {              /* alloc_model_placement() of one key */
    char *key;
    _Atomic unsigned char v[];  /* per node */
};

struct devfacts {
    size_t nfiltered;
    size_t *filtered;           /* devices tainted or gated */
    unsigned char *kind;        /* per device: alloc_model_kinds() */
};

static void facts_free(struct devfacts *f)
{
    if (!f)
        return;
    free(f->filtered);
    free(f->kind);
    free(f);
}

static void labelindex_free(struct labelindex *l)
{
    if (!l)
        return;
    arena_release(&l->a);
    free(l);
}

static void selcache_free(struct dm_ext *e)
{
    struct selcache *c = (struct selcache *)(void *)e;
    size_t i;

    labelindex_free(atomic_load(&c->labels));
    for (i = 0; i < ALLOC_SELALL; i++)
        alloc_kept_free(atomic_load(&c->all[i]));
    for (i = 0; i < ALLOC_SOLVED; i++)
        alloc_kept_free(atomic_load(&c->solved[i]));
    for (i = 0; i < ALLOC_SELCACHE; i++)
        cache_entry_free(atomic_load(&c->slot[i]));
    facts_free(atomic_load(&c->facts));
    for (i = 0; i < ALLOC_PLACECACHE; i++) {
        struct placement *pl = atomic_load(&c->place[i]);
        if (pl)
            free(pl->key);
        free(pl);
    }
    free(c);
}

static struct selcache *selcache_of(const struct devmodel *m)
{
    struct dm_ext *e = devmodel_ext(m);
    struct selcache *mine;

    if (e)
        return (struct selcache *)(void *)e;
    mine = xcalloc(1, sizeof(*mine));
    mine->base.free = selcache_free;
    e = devmodel_ext_install(m, &mine->base);
    if (e != &mine->base)
        free(mine);     /* another thread was first */
    return (struct selcache *)(void *)e;
}

int alloc_model_lists(const struct devmodel *m)
{
    struct selcache *sc = selcache_of(m);
    int v = atomic_load(&sc->lists);
    size_t d, i;

    for (d = 0; !v && d < m->ndevs; d++)
        for (i = 0; i < m->devs[d].cel.nattrs && !v; i++)
            if (m->devs[d].cel.attrs[i].type >= CEL_ATTR_INTS)
                v = 2;
    if (!v)
        v = 1;
    atomic_store(&sc->lists, v);    /* racing callers store the same */
    return v == 2;
}

/* 1 if d has a taint that a request without tolerations does not
 * tolerate (effect NoSchedule or NoExecute: alloc_device_fits). */
static int hard_tainted(const struct dm_device *d)
{
    unsigned i;

    for (i = 0; tree_is_seq(d->taints) && i < d->taints->n; i++) {
        const char *eff = tree_str(tree_get(d->taints->kids[i], "effect"));
        if (eff && (!strcmp(eff, "NoSchedule") || !strcmp(eff, "NoExecute")))
            return 1;
    }
    return 0;
}

/* What the model's devices are to filters other than selectors, once per
 * model (lock-free: racing callers compute the same, one is kept). */
static const struct devfacts *facts_of(const struct devmodel *m)
{
    struct selcache *sc = selcache_of(m);
    struct devfacts *f = atomic_load(&sc->facts), *none = NULL;
    size_t d;

    if (f)
        return f;
    f = xcalloc(1, sizeof(*f));
    f->filtered = xcalloc(m->ndevs + 1, sizeof(*f->filtered));
    f->kind = xcalloc(m->ndevs + 1, 1);
    for (d = 0; d < m->ndevs; d++) {
        const struct dm_device *dv = &m->devs[d];
        const struct dm_pool *p = &m->pools[dv->pool_idx];
        if (dv->taints || dv->gated)
            f->filtered[f->nfiltered++] = d;
        if (dv->gated || !alloc_pool_usable(p, 0)
            || !alloc_pool_usable(p, ALLOC_OFF_PARTITIONABLE))
            continue;
        f->kind[d] = !dv->taints ? DEV_PLAIN
                     : hard_tainted(dv) ? DEV_TAINTED : 0;
    }
    if (!atomic_compare_exchange_strong(&sc->facts, &none, f)) {
        facts_free(f);      /* another thread was first: the same facts */
        f = none;
    }
    return f;
}

const size_t *alloc_model_filtered(const struct devmodel *m, size_t *n)
{
    const struct devfacts *f = facts_of(m);

    *n = f->nfiltered;
    return f->filtered;
}

const unsigned char *alloc_model_kinds(const struct devmodel *m)
{
    return facts_of(m)->kind;
}

/* The key of label kid (key=value as the matcher reads it) in b. */
static const char *label_key(struct buf *b, const char *key, const char *val)
{
    buf_reset(b);
    if (buf_adds(b, key) < 0 || buf_addc(b, '\x1f') < 0
        || buf_adds(b, val) < 0)
        return NULL;
    return b->p;
}

/* Pass 0 counts the nodes of each key=value, pass 1 lists them. A key the
 * map repeats counts once, with its first value (tree_get's). */
static void labelindex_pass(const struct devmodel *m, struct labelindex *l,
                            struct buf *b, int pass)
{
    size_t n, i, j;

    for (n = 0; n < m->nnodes; n++) {
        const struct tnode *map = m->nodes[n].sel.labels;
        if (!m->nodes[n].sel.labels_known || !map || map->kind != T_MAP)
            continue;
        for (i = 0; i < map->n; i++) {
            const char *t = tree_text(map->kids[i]), *k;
            struct labelled *e;
            for (j = 0; j < i && strcmp(map->kids[j]->key,
                                        map->kids[i]->key); j++)
                ;
            k = j < i ? NULL : label_key(b, map->kids[i]->key, t ? t : "");
            if (!k)
                continue;
            e = strmap_get(&l->map, k);
            if (!pass) {
                if (!e) {
                    e = arena_alloc(&l->a, sizeof(*e));
                    strmap_put(&l->map, k, e);
                }
                e->n++;
                continue;
            }
            if (!e->v)
                e->v = arena_alloc(&l->a, e->n * sizeof(*e->v));
            e->v[e->fill++] = n;
        }
    }
}

const size_t *alloc_model_labelled(const struct devmodel *m, const char *key,
                                   const char *value, size_t *n)
{
    struct selcache *sc = selcache_of(m);
    struct labelindex *l = atomic_load(&sc->labels), *none = NULL;
    const struct labelled *e;
    struct buf b;
    const char *k;

    buf_init(&b, 2 * (size_t)LIMIT_SCALAR_BYTES + 2);  /* never short */
    if (!l) {
        l = xcalloc(1, sizeof(*l));
        arena_init(&l->a, ARENA_LARGE_BYTES);
        strmap_init(&l->map, &l->a);
        labelindex_pass(m, l, &b, 0);
        labelindex_pass(m, l, &b, 1);
        if (!atomic_compare_exchange_strong(&sc->labels, &none, l)) {
            labelindex_free(l);     /* another thread was first */
            l = none;
        }
    }
    k = label_key(&b, key, value);
    e = k ? strmap_get(&l->map, k) : NULL;
    buf_release(&b);
    *n = e ? e->n : 0;
    return e ? e->v : NULL;
}

static uint64_t hash_text(const char *s)
{
    uint64_t h = 1469598103934665603ull;

    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

_Atomic unsigned char *alloc_model_placement(const struct devmodel *m,
                                             const char *key)
{
    struct selcache *sc = selcache_of(m);
    struct placement *mine = NULL;
    size_t h = (size_t)hash_text(key), i;

    for (i = 0; i < 16; i++) {
        struct placement *_Atomic *slot =
            &sc->place[(h + i) % ALLOC_PLACECACHE];
        struct placement *cur = atomic_load(slot);
        if (!cur) {
            if (!mine) {
                mine = xcalloc(1, sizeof(*mine) + m->nnodes + 1);
                mine->key = xstrdup(key);
            }
            if (atomic_compare_exchange_strong(slot, &cur, mine))
                return mine->v;     /* published */
        }
        if (!strcmp(cur->key, key))
            break;                  /* cached, or another thread was first */
    }
    if (mine) {
        free(mine->key);
        free(mine);
    }
    return i < 16 ? atomic_load(&sc->place[(h + i) % ALLOC_PLACECACHE])->v
                  : NULL;
}

static void over_budget_error(struct cel_error *err, const struct devmodel *m)
{
    memset(err, 0, sizeof(*err));
    err->kind = CEL_ERR_LIMIT;
    err->line = err->col = 1;
    snprintf(err->msg, sizeof(err->msg), "evaluating the selector over the "
             "inventory's %zu devices costs more than %llu units: not judged",
             m->ndevs, (unsigned long long)ALLOC_EVAL_BUDGET);
}

/* The results kept in m's cache under key, evaluated within the budget,
 * or NULL (nothing is evaluated). */
static const struct alloc_match *kept_match(const struct devmodel *m,
                                            const char *key)
{
    const struct selcache *sc = (const struct selcache *)(const void *)
                                devmodel_ext(m);
    size_t h = (size_t)hash_text(key), i;

    for (i = 0; sc && i < 16; i++) {
        const struct cache_entry *e =
            atomic_load(&sc->slot[(h + i) % ALLOC_SELCACHE]);
        if (!e)
            break;
        if (!strcmp(e->key, key))
            return e->ok ? &e->match : NULL;
    }
    return NULL;
}

static struct cache_entry *cache_fill(const struct devmodel *m,
                                      const struct cel_env *env,
                                      const char *key, const char *expr,
                                      const struct alloc_carry *c)
{
    struct cache_entry *e = xcalloc(1, sizeof(*e));
    const struct alloc_match *was;
    struct cel_program *p;

    arena_init(&e->arena, ARENA_TINY_BYTES);
    e->key = arena_strdup(&e->arena, key);
    if (cel_compile(&e->arena, env, expr, strlen(expr), &p, &e->err) == 0) {
        e->ok = 1;
        was = c ? kept_match(alloc_carry_from(c), key) : NULL;
        if (was)
            alloc_carry_eval(&e->arena, c, p, ALLOC_EVAL_BUDGET, was,
                             &e->match);
        else
            alloc_eval(&e->arena, m, p, ALLOC_EVAL_BUDGET, &e->match);
        if (e->match.over_budget) {
            /* deterministic (cost, not time): cached as undetermined */
            e->ok = 0;
            over_budget_error(&e->err, m);
        }
    }
    return e;
}

const struct alloc_match *alloc_eval_cached(const struct devmodel *m,
                                            const struct cel_env *env,
                                            const char *expr,
                                            struct arena *a,
                                            struct cel_error *err,
                                            uint64_t *spent)
{
    return alloc_eval_cached_from(m, env, expr, a, err, spent, NULL);
}

const struct alloc_match *alloc_eval_cached_from(const struct devmodel *m,
                                                 const struct cel_env *env,
                                                 const char *expr,
                                                 struct arena *a,
                                                 struct cel_error *err,
                                                 uint64_t *spent,
                                                 const struct alloc_carry
                                                 *c)
{
    char key[CEL_MAX_EXPR_BYTES + 16];
    struct selcache *sc = selcache_of(m);
    struct cache_entry *e = NULL;
    size_t h, i;
    int n;

    if (spent)
        *spent = 0;
    n = snprintf(key, sizeof(key), "%d%d\x1f%s", env->consumable_capacity,
                 env->list_attributes, expr);
    if (n < 0 || (size_t)n >= sizeof(key)) {
        struct cel_program *p;
        struct alloc_match *mt;
        if (cel_compile(a, env, expr, strlen(expr), &p, err) < 0)
            return NULL;
        mt = arena_alloc(a, sizeof(*mt));
        alloc_eval(a, m, p, ALLOC_EVAL_BUDGET, mt);
        if (spent)
            *spent = mt->cost;
        if (mt->over_budget) {
            over_budget_error(err, m);
            return NULL;
        }
        return mt;
    }
    h = (size_t)hash_text(key);
    for (i = 0; i < 16; i++) {
        void *_Atomic *slot = &sc->slot[(h + i) % ALLOC_SELCACHE];
        void *cur = atomic_load(slot);
        if (!cur) {
            if (!e) {
                e = cache_fill(m, env, key, expr, c);
                if (spent)
                    *spent = e->match.cost;
            }
            /* bounded: past ALLOC_SELCACHE_BYTES results are not kept */
            if (atomic_fetch_add(&sc->bytes, e->arena.total)
                + e->arena.total > ALLOC_SELCACHE_BYTES) {
                atomic_fetch_sub(&sc->bytes, e->arena.total);
                i = 16;
                break;
            }
            if (atomic_compare_exchange_strong(slot, &cur, e))
                break;      /* published */
            atomic_fetch_sub(&sc->bytes, e->arena.total);
        }
        if (!strcmp(((struct cache_entry *)cur)->key, key)) {
            cache_entry_free(e);    /* another thread was first */
            e = cur;
            break;
        }
    }
    if (i == 16) {
        /* no free slot nearby: keep the results in the caller's arena */
        struct cache_entry *mine = e ? e
                                   : cache_fill(m, env, key, expr, c);
        struct alloc_match *mt = NULL;
        if (spent)
            *spent = mine->match.cost;
        if (mine->ok) {
            mt = arena_alloc(a, sizeof(*mt));
            *mt = mine->match;
            mt->v = arena_alloc(a, m->ndevs + 1);
            memcpy(mt->v, mine->match.v, m->ndevs);
            if (mine->match.err) {
                size_t k;
                mt->err = arena_alloc(a, m->ndevs * sizeof(*mt->err));
                for (k = 0; k < m->ndevs; k++)
                    if (mine->match.err[k])
                        mt->err[k] = arena_strdup(a, mine->match.err[k]);
            }
        } else {
            *err = mine->err;
        }
        cache_entry_free(mine);
        return mt;
    }
    if (!e->ok) {
        *err = e->err;
        return NULL;
    }
    return &e->match;
}

/* The AND of mt[0..n) in order into out, memory from a; own_msgs: the
 * runtime error texts are copied into a (the results may not outlive
 * it). */
static void selall_combine(struct arena *a, const struct devmodel *m,
                           const struct alloc_match *const *mt, size_t n,
                           int own_msgs, struct alloc_selall *out)
{
    size_t nd = m->ndevs, i, k, yes = 0;
    unsigned char *live = arena_alloc(a, nd + 1);
    size_t *err_sel = NULL;
    const char **err_msg = NULL, *last_in = NULL, *last_out = NULL;

    memset(out, 0, sizeof(*out));
    memset(live, 1, nd);
    /* the first error or false decides: a device is live while every
     * selector so far said yes (AM_YES is 1, AM_NO 0) */
    for (k = 0; k < n; k++) {
        const unsigned char *v = mt[k]->v;
        if (!mt[k]->nerr) {     /* vectorised */
            for (i = 0; i < nd; i++)
                live[i] &= v[i];
            continue;
        }
        for (i = 0; i < nd; i++) {
            const char *msg;
            if (!live[i] || v[i] == AM_YES)
                continue;
            live[i] = 0;
            if (v[i] != AM_ERR)
                continue;
            if (!err_sel) {
                err_sel = arena_alloc(a, nd * sizeof(*err_sel));
                err_msg = arena_alloc(a, nd * sizeof(*err_msg));
            }
            msg = mt[k]->err[i];
            if (own_msgs && msg != last_in) {
                last_in = msg;
                last_out = arena_strdup(a, msg);
            }
            err_sel[i] = k + 1;
            err_msg[i] = own_msgs ? last_out : msg;
            out->nerr++;
        }
    }
    for (i = 0; i < nd; i++)
        yes += live[i];
    out->v = live;
    out->nyes = yes;
    out->err_sel = err_sel;
    out->err_msg = err_msg;
}

/* The cache key of env and the texts: each text after its length, so no
 * two lists share one; -1 when too long to keep. */
static int selall_key(struct buf *b, const struct cel_env *env,
                      const char *const *exprs, size_t n)
{
    size_t k;

    if (buf_addf(b, "%d%d", env->consumable_capacity,
                 env->list_attributes) < 0)
        return -1;
    for (k = 0; k < n; k++)
        if (buf_addf(b, "\x1f%zu:", strlen(exprs[k])) < 0
            || buf_adds(b, exprs[k]) < 0)
            return -1;
    return 0;
}

/* The shelf of alloc_select_all() results: bounded with the selector
 * results. */
static struct alloc_shelf selall_shelf(struct selcache *sc)
{
    struct alloc_shelf sh = {sc->all, ALLOC_SELALL, &sc->bytes,
                             ALLOC_SELCACHE_BYTES};

    return sh;
}

const struct alloc_selall *alloc_select_all(const struct devmodel *m,
                                            const struct cel_env *env,
                                            const char *const *exprs,
                                            const struct alloc_match
                                            *const *mt, size_t n,
                                            struct arena *a)
{
    struct selcache *sc = selcache_of(m);
    struct alloc_shelf sh = selall_shelf(sc);
    struct selall_entry *mine;
    struct alloc_kept *k = NULL;
    struct alloc_selall *out;
    struct buf b;

    buf_init(&b, ALLOC_SELALL_KEY_BYTES);
    if (selall_key(&b, env, exprs, n) == 0) {
        k = alloc_kept_find(&sh, b.p, NULL);
        if (!k) {
            mine = xcalloc(1, sizeof(*mine));
            alloc_kept_init(&mine->kept, b.p);
            selall_combine(&mine->kept.arena, m, mt, n, 1, &mine->all);
            mine->all.key = mine->kept.key;
            k = alloc_kept_find(&sh, b.p, &mine->kept);
            if (k != &mine->kept)
                alloc_kept_free(&mine->kept);   /* not kept, or a twin */
        }
    }
    buf_release(&b);
    if (k)
        return &((struct selall_entry *)(void *)k)->all;
    out = arena_alloc(a, sizeof(*out));
    selall_combine(a, m, mt, n, 0, out);
    return out;
}

/* ==== what is kept per model under a text key ==== */

void alloc_kept_init(struct alloc_kept *k, const char *key)
{
    arena_init(&k->arena, ARENA_TINY_BYTES);
    k->key = arena_strdup(&k->arena, key);
}

void alloc_kept_free(struct alloc_kept *k)
{
    if (!k)
        return;
    arena_release(&k->arena);
    free(k);
}

struct alloc_kept *alloc_kept_find(const struct alloc_shelf *sh,
                                   const char *key, struct alloc_kept *mine)
{
    size_t h = (size_t)hash_text(key), i;

    for (i = 0; i < 16; i++) {
        struct alloc_kept *_Atomic *slot = &sh->slots[(h + i) % sh->nslots];
        struct alloc_kept *cur = atomic_load(slot);
        if (!cur) {
            size_t bytes = mine ? mine->arena.total : 0;
            if (!mine)
                return NULL;
            if (atomic_fetch_add(sh->bytes, bytes) + bytes > sh->max_bytes) {
                atomic_fetch_sub(sh->bytes, bytes);
                return NULL;
            }
            if (atomic_compare_exchange_strong(slot, &cur, mine))
                return mine;    /* published */
            atomic_fetch_sub(sh->bytes, bytes);
        }
        if (!strcmp(cur->key, key))
            return cur;         /* kept, or another thread was first */
    }
    return NULL;
}

unsigned alloc_model_knows(const struct devmodel *m)
{
    struct selcache *sc = selcache_of(m);

    return (atomic_load(&sc->facts) ? ALLOC_KNOWS_KINDS : 0)
           | (atomic_load(&sc->lists) ? ALLOC_KNOWS_LISTS : 0)
           | (atomic_load(&sc->labels) ? ALLOC_KNOWS_LABELS : 0);
}

struct cel_env alloc_scheduler_env(int list_attributes)
{
    struct cel_env env = {1, 1, 0, 1, 0 };

    env.list_attributes = list_attributes;
    return env;
}

struct alloc_shelf alloc_model_solved(const struct devmodel *m)
{
    struct selcache *sc = selcache_of(m);
    struct alloc_shelf sh = {sc->solved, ALLOC_SOLVED, &sc->solved_bytes,
                             ALLOC_SOLVED_BYTES};

    return sh;
}
