/*
 * allocate.c - the allocator model (see allocate.h): selector vectors over
 * every device with shared evaluations, device filters (capacity requests,
 * taints), and a backtracking search per node with a work budget. Owns no
 * state between calls and prints nothing.
 */
#include "allocate.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "cel/cel.h"
#include "clock.h"
#include "nodeaffinity.h"
#include "tree.h"
#include "xalloc.h"

/* ==== selector vectors =================================================== */

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

static uint64_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

static uint64_t device_key(const struct dm_device *d,
                           const unsigned char *want)
{
    uint64_t h = d->driver_hash, sum = 0;
    size_t i, na = 0, nc = 0;

    for (i = 0; i < d->cel.nattrs; i++)
        if (want[d->attr_sym[i]]) {
            sum += mix(d->attr_hash[i]);
            na++;
        }
    for (i = 0; i < d->cel.ncaps; i++)
        if (want[d->cap_sym[i]]) {
            sum += mix(d->cap_hash[i] ^ 0x9e3779b97f4a7c15ull);
            nc++;
        }
    return mix(h ^ sum ^ (na << 40) ^ (nc << 50));
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

void alloc_eval(struct arena *a, const struct devmodel *m,
                const struct cel_program *prog, uint64_t budget,
                struct alloc_match *out)
{
    uint64_t spent = 0;
    unsigned char *want = xcalloc(m->nsyms + 1, 1);
    struct group *tab = NULL;
    const char *last_err = NULL;
    size_t cap = 0, i;
    int project;

    memset(out, 0, sizeof(*out));
    out->v = arena_alloc(a, m->ndevs + 1);
    project = referenced_syms(m, prog, want) == 0;
    if (project) {
        cap = 64;
        while (cap < m->ndevs * 2)
            cap *= 2;
        tab = xcalloc(cap, sizeof(*tab));
    }
    for (i = 0; i < m->ndevs; i++) {
        const struct dm_device *d = &m->devs[i];
        struct cel_error err;
        struct group *g = NULL;
        int r;
        if (project) {
            uint64_t k = device_key(d, want);
            size_t h = (size_t)k & (cap - 1);
            while (tab[h].rep && tab[h].key != k)
                h = (h + 1) & (cap - 1);
            g = &tab[h];
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
            g->key = device_key(d, want);   /* (the slot's key) */
            g->rep = i + 1;
            g->res = out->v[i];
            g->err = r < 0 ? out->err[i] : NULL;
        }
    }
    free(tab);
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
    _Atomic size_t bytes;       /* memory held by the entries */
};

static void selcache_free(struct dm_ext *e)
{
    struct selcache *c = (struct selcache *)(void *)e;
    size_t i;

    for (i = 0; i < ALLOC_SELCACHE; i++)
        cache_entry_free(atomic_load(&c->slot[i]));
    free(c);
}

static struct selcache *selcache_of(const struct devmodel *m)
{
    struct dm_ext *e = devmodel_ext(m);
    struct selcache *mine;

    if (e)
        return (struct selcache *)(void *)e;
    mine = calloc(1, sizeof(*mine));
    if (!mine)
        abort();
    mine->base.free = selcache_free;
    e = devmodel_ext_install(m, &mine->base);
    if (e != &mine->base)
        free(mine);     /* another thread was first */
    return (struct selcache *)(void *)e;
}

static uint64_t hash_text(const char *s)
{
    uint64_t h = 1469598103934665603ull;

    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
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

static struct cache_entry *cache_fill(const struct devmodel *m,
                                      const struct cel_env *env,
                                      const char *key, const char *expr)
{
    struct cache_entry *e = xcalloc(1, sizeof(*e));
    struct cel_program *p;

    arena_init(&e->arena, 4096);
    e->key = arena_strdup(&e->arena, key);
    if (cel_compile(&e->arena, env, expr, strlen(expr), &p, &e->err) == 0) {
        e->ok = 1;
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
                                            struct cel_error *err)
{
    char key[CEL_MAX_EXPR_BYTES + 16];
    struct selcache *sc = selcache_of(m);
    struct cache_entry *e = NULL;
    size_t h, i;
    int n;

    n = snprintf(key, sizeof(key), "%d%d\x1f%s", env->consumable_capacity,
                 env->list_attributes, expr);
    if (n < 0 || (size_t)n >= sizeof(key)) {
        struct cel_program *p;
        struct alloc_match *mt;
        if (cel_compile(a, env, expr, strlen(expr), &p, err) < 0)
            return NULL;
        mt = arena_alloc(a, sizeof(*mt));
        alloc_eval(a, m, p, ALLOC_EVAL_BUDGET, mt);
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
            if (!e)
                e = cache_fill(m, env, key, expr);
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
        struct cache_entry *mine = e ? e : cache_fill(m, env, key, expr);
        struct alloc_match *mt = NULL;
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

/* ==== device filters ===================================================== */

int alloc_tolerates(const struct tnode *tols, const struct tnode *taint)
{
    const char *tkey = tree_str(tree_get(taint, "key"));
    const char *tval = tree_text(tree_get(taint, "value"));
    const char *teff = tree_str(tree_get(taint, "effect"));
    size_t i;

    if (!tree_is_seq(tols))
        return 0;
    for (i = 0; i < tols->n; i++) {
        const struct tnode *t = tols->kids[i];
        const char *key = tree_str(tree_get(t, "key"));
        const char *op = tree_str(tree_get(t, "operator"));
        const char *val = tree_text(tree_get(t, "value"));
        const char *eff = tree_str(tree_get(t, "effect"));
        int exists = op && !strcmp(op, "Exists");
        if (key && *key) {
            if (!tkey || strcmp(key, tkey))
                continue;
        } else if (!exists) {
            continue;
        }
        if (!exists && strcmp(val ? val : "", tval ? tval : ""))
            continue;
        if (eff && *eff && (!teff || strcmp(eff, teff)))
            continue;
        return 1;
    }
    return 0;
}

/* The capacity of d named "domain/id" or "id" (driver's domain), or -1. */
static long find_cap(const struct dm_device *d, const char *name)
{
    const char *slash = strrchr(name, '/');
    const char *id = slash ? slash + 1 : name;
    size_t dl = slash ? (size_t)(slash - name) : 0, i;

    for (i = 0; i < d->cel.ncaps; i++) {
        const struct cel_capacity *c = &d->cel.caps[i];
        if (strcmp(c->id, id))
            continue;
        if (slash ? strlen(c->domain) == dl && !strncmp(c->domain, name, dl)
                  : !strcmp(c->domain, d->driver))
            return (long)i;
    }
    return -1;
}

/* Applies a requestPolicy to a requested amount: the amount actually
 * consumed, or -1 if the policy cannot grant it. */
static int apply_policy(const struct tnode *pol, struct qty *q)
{
    const struct tnode *vv = tree_get(pol, "validValues");
    const struct tnode *vr = tree_get(pol, "validRange");
    struct qty v, best;
    int have = 0;
    size_t i;

    if (tree_is_seq(vv) && vv->n) {
        for (i = 0; i < vv->n; i++) {
            if (qty_parse(tree_text(vv->kids[i]), &v) < 0)
                continue;
            if (qty_cmp(v, *q) >= 0 && (!have || qty_cmp(v, best) < 0)) {
                best = v;
                have = 1;
            }
        }
        if (!have)
            return -1;
        *q = best;
    }
    if (tree_is_map(vr)) {
        if (qty_parse(tree_text(tree_get(vr, "max")), &v) == 0
            && qty_cmp(*q, v) > 0)
            return -1;
        if (qty_parse(tree_text(tree_get(vr, "min")), &v) == 0
            && qty_cmp(*q, v) < 0)
            *q = v;
    }
    return 0;
}

int alloc_device_fits(struct arena *a, const struct dm_device *d,
                      const struct alloc_alt *alt, const char **why)
{
    size_t i;

    for (i = 0; i < alt->ncaps; i++) {
        const struct alloc_capreq *c = &alt->caps[i];
        struct qty q = c->q;
        long k = find_cap(d, c->name);
        const char *id = strrchr(c->name, '/') ? strrchr(c->name, '/') + 1
                                               : c->name;
        if (k < 0) {
            if (why)
                *why = arena_printf(a, "no capacity %s", id);
            return 0;
        }
        if (d->cap_policy[k] && apply_policy(d->cap_policy[k], &q) < 0) {
            if (why)
                *why = arena_printf(a, "%s %s not allowed by requestPolicy",
                                    id, c->text);
            return 0;
        }
        if (qty_cmp(q, d->cap_value[k]) > 0) {
            if (why)
                *why = arena_printf(a, "%s %s < %s", id,
                                    d->cel.caps[k].quantity, c->text);
            return 0;
        }
    }
    if (d->taints) {
        for (i = 0; i < d->taints->n; i++) {
            const struct tnode *t = d->taints->kids[i];
            const char *eff = tree_str(tree_get(t, "effect"));
            if (!eff || (strcmp(eff, "NoSchedule")
                         && strcmp(eff, "NoExecute")))
                continue;
            if (alloc_tolerates(alt->tolerations, t))
                continue;
            if (why) {
                const char *v = tree_text(tree_get(t, "value"));
                *why = arena_printf(a, "taint %s%s%s:%s not tolerated",
                                    tree_str(tree_get(t, "key"))
                                        ? tree_str(tree_get(t, "key")) : "",
                                    v && *v ? "=" : "", v ? v : "", eff);
            }
            return 0;
        }
    }
    return 1;
}

/* ==== the search ========================================================= */

enum { RELAX_CONS = 1, RELAX_CTR = 2, RELAX_EXCL = 4 };

struct slot {
    size_t claim, req;
    const struct alloc_request *r;
    size_t alt0;                /* index of its first alternative */
};

struct cstate {                 /* one constraint during the search */
    const struct alloc_constraint *c;
    long sym;                   /* the attribute's interned id (-1: none) */
    const char *domain;         /* its domain; NULL: the driver's */
    const short *idx;           /* devmodel_sym_index() of sym */
    const uint64_t *vh;         /* devmodel_attr_hashes(), or NULL */
    unsigned char *applies;     /* per alternative (flattened index) */
    uint64_t pin;               /* matchAttribute: the value's hash, once
                                   set (equal hashes are taken as equal
                                   values: a collision can only let a
                                   search succeed, never fail) */
    size_t npin;
    size_t *vdev;               /* distinctAttribute: devices taken */
    uint64_t *vhs;              /* ... and their values' hashes */
    size_t nvals, capvals;
};

struct ctr_use {
    size_t pool, set;
    const char *name;
    struct qty q;
};

struct search {
    struct arena *a;
    const struct devmodel *m;
    const struct alloc_problem *p;
    struct slot *slots;
    size_t nslots, nalts;
    const struct alloc_alt **alts;      /* flattened */
    unsigned char **eff;                /* per alt: device usable */
    size_t **cand;                      /* per alt: candidates on node */
    size_t **cpos;                      /* per alt: their position on the
                                           node (local index, or shared) */
    size_t *ncand;
    unsigned char *used;                /* per device */
    struct cstate *cs;                  /* flattened per claim */
    size_t *cs0;                        /* per claim: first cstate */
    size_t ncs;
    size_t *undo;                       /* cstate indexes pushed */
    size_t nundo, capundo;
    struct ctr_use *ctr;
    size_t nctr, capctr;
    unsigned long steps, budget;
    uint64_t deadline;                  /* alloc_problem.deadline_ns */
    int over;
    int relax;
    size_t only_claim, only_cons;       /* analysis: one constraint only */
};

static int attr_eq(const struct cel_attr *x, const struct cel_attr *y)
{
    size_t i;

    if (x->type != y->type)
        return 0;
    switch (x->type) {
    case CEL_ATTR_INT:
        return x->i == y->i;
    case CEL_ATTR_BOOL:
        return !x->b == !y->b;
    case CEL_ATTR_STRING:
    case CEL_ATTR_VERSION:
        return x->s == y->s;    /* interned by the model */
    case CEL_ATTR_INTS:
    case CEL_ATTR_BOOLS:
    case CEL_ATTR_STRINGS:
    case CEL_ATTR_VERSIONS:
        if (x->nv != y->nv)
            return 0;
        for (i = 0; i < x->nv; i++) {
            if (x->iv && x->iv[i] != y->iv[i])
                return 0;
            if (x->bv && !x->bv[i] != !y->bv[i])
                return 0;
            if (x->sv && strcmp(x->sv[i], y->sv[i]))
                return 0;
        }
        return 1;
    }
    return 0;
}

/* The attribute a constraint reads on device d, or NULL. */
static const struct cel_attr *cons_attr(const struct devmodel *m,
                                        const struct cstate *c, size_t d)
{
    const struct dm_device *dv = &m->devs[d];
    const struct cel_attr *at;

    if (c->sym < 0 || !c->idx || c->idx[d] < 0)
        return NULL;
    at = &dv->cel.attrs[c->idx[d]];
    if (at->domain == (c->domain ? c->domain : dv->driver))
        return at;
    return dm_attr_sym(dv, c->sym, c->domain);  /* same id, other domain */
}

/* The hash of that attribute's name and value (never 0), or 0 when d has
 * none. */
static uint64_t cons_hash(const struct devmodel *m, const struct cstate *c,
                          size_t d)
{
    const struct cel_attr *at;
    uint64_t h;

    if (c->vh)
        return c->vh[d];
    at = cons_attr(m, c, d);
    if (!at)
        return 0;
    h = m->devs[d].attr_hash[at - m->devs[d].cel.attrs];
    return h ? h : 1;
}

static int cons_applies(const struct alloc_constraint *c,
                        const struct alloc_request *r,
                        const struct alloc_alt *alt)
{
    size_t i;

    if (!c->nreqs)
        return 1;
    for (i = 0; i < c->nreqs; i++)
        if ((r->name && !strcmp(c->reqs[i], r->name))
            || (alt->name && !strcmp(c->reqs[i], alt->name)))
            return 1;
    return 0;
}

static struct qty ctr_used(const struct search *s, size_t pool, size_t set,
                           const char *name)
{
    struct qty q = {0, 0};
    size_t i;

    for (i = 0; i < s->nctr; i++)
        if (s->ctr[i].pool == pool && s->ctr[i].set == set
            && !strcmp(s->ctr[i].name, name))
            q = qty_add(q, s->ctr[i].q);
    return q;
}

static void push_undo(struct search *s, size_t ci)
{
    if (s->nundo == s->capundo) {
        s->capundo = s->capundo ? s->capundo * 2 : 32;
        s->undo = arena_grow(s->a, s->undo, s->nundo, s->capundo,
                             sizeof(*s->undo));
    }
    s->undo[s->nundo++] = ci;
}

static void undo_to(struct search *s, size_t nundo, size_t nctr)
{
    while (s->nundo > nundo) {
        struct cstate *c = &s->cs[s->undo[--s->nundo]];
        if (c->c->distinct) {
            c->nvals--;
        } else if (--c->npin == 0) {
            c->pin = 0;
        }
    }
    s->nctr = nctr;
}

/* Tries to add device d for alternative ai of slot si; 1 if it fits (the
 * state then includes it: undo with undo_to and used[d]--). */
static int place(struct search *s, size_t si, size_t ai, size_t d)
{
    const struct slot *sl = &s->slots[si];
    const struct alloc_alt *alt = s->alts[ai];
    const struct dm_device *dv = &s->m->devs[d];
    const struct dm_pool *pl = &s->m->pools[dv->pool_idx];
    int excl = !alt->admin && !dv->multi && !(s->relax & RELAX_EXCL);
    size_t nundo = s->nundo, nctr = s->nctr, i, j, k;

    if (excl && s->used[d])
        return 0;
    if (!(s->relax & RELAX_CONS)) {
        const struct alloc_claim *cl = &s->p->claims[sl->claim];
        for (i = 0; i < cl->ncons; i++) {
            struct cstate *c = &s->cs[s->cs0[sl->claim] + i];
            uint64_t h;
            if (s->only_cons != SIZE_MAX
                && (s->only_claim != sl->claim || s->only_cons != i))
                continue;
            if (!c->applies[ai])
                continue;
            h = cons_hash(s->m, c, d);
            if (!h)
                goto fail;
            if (c->c->distinct) {
                /* distinct values: exact on equal hashes */
                for (j = 0; j < c->nvals; j++)
                    if (c->vhs[j] == h
                        && attr_eq(cons_attr(s->m, c, c->vdev[j]),
                                   cons_attr(s->m, c, d)))
                        goto fail;
                if (c->nvals == c->capvals) {
                    c->capvals = c->capvals ? c->capvals * 2 : 8;
                    c->vdev = arena_grow(s->a, c->vdev, c->nvals,
                                         c->capvals, sizeof(*c->vdev));
                    c->vhs = arena_grow(s->a, c->vhs, c->nvals,
                                        c->capvals, sizeof(*c->vhs));
                }
                c->vdev[c->nvals] = d;
                c->vhs[c->nvals++] = h;
            } else {
                if (c->npin && c->pin != h)
                    goto fail;
                c->pin = h;
                c->npin++;
            }
            push_undo(s, s->cs0[sl->claim] + i);
        }
    }
    if (!alt->admin && !(s->relax & RELAX_CTR)) {
        for (i = 0; i < dv->nconsumes; i++) {
            const struct dm_consume *cu = &dv->consumes[i];
            if (cu->set == SIZE_MAX)
                goto fail;
            for (j = 0; j < cu->n; j++) {
                const struct dm_counterset *set = &pl->sets[cu->set];
                const struct dm_counter *have = NULL;
                for (k = 0; k < set->n; k++)
                    if (!strcmp(set->c[k].name, cu->c[j].name))
                        have = &set->c[k];
                if (!have)
                    goto fail;
                if (qty_cmp(qty_add(ctr_used(s, dv->pool_idx, cu->set,
                                             cu->c[j].name), cu->c[j].value),
                            have->value) > 0)
                    goto fail;
                if (s->nctr == s->capctr) {
                    s->capctr = s->capctr ? s->capctr * 2 : 16;
                    s->ctr = arena_grow(s->a, s->ctr, s->nctr, s->capctr,
                                        sizeof(*s->ctr));
                }
                s->ctr[s->nctr].pool = dv->pool_idx;
                s->ctr[s->nctr].set = cu->set;
                s->ctr[s->nctr].name = cu->c[j].name;
                s->ctr[s->nctr].q = cu->c[j].value;
                s->nctr++;
            }
        }
    }
    if (excl)
        s->used[d]++;
    return 1;
fail:
    undo_to(s, nundo, nctr);
    return 0;
}

static void unplace(struct search *s, size_t ai, size_t d, size_t nundo,
                    size_t nctr)
{
    const struct alloc_alt *alt = s->alts[ai];

    undo_to(s, nundo, nctr);
    if (!alt->admin && !s->m->devs[d].multi && !(s->relax & RELAX_EXCL))
        s->used[d]--;
}

static int dfs(struct search *s, size_t si);

/* Chooses `left` more devices from the candidates of alt ai, from index
 * `from` on (combinations, not permutations). */
static int choose(struct search *s, size_t si, size_t ai, size_t from,
                  long long left)
{
    size_t i, n = s->ncand[ai];

    if (left == 0)
        return dfs(s, si + 1);
    for (i = from; i + (size_t)left <= n; i++) {
        size_t d = s->cand[ai][i], nundo = s->nundo, nctr = s->nctr;
        if (++s->steps > s->budget
            || ((s->steps & 4095) == 0 && clock_past(s->deadline))) {
            s->over = 1;
            return 0;
        }
        if (place(s, si, ai, d)) {
            if (choose(s, si, ai, i + 1, left - 1))
                return 1;
            unplace(s, ai, d, nundo, nctr);
        }
        if (s->over)
            return 0;
    }
    return 0;
}

static int dfs(struct search *s, size_t si)
{
    const struct slot *sl;
    size_t a, i;

    if (si == s->nslots)
        return 1;
    sl = &s->slots[si];
    for (a = 0; a < sl->r->nalts; a++) {
        size_t ai = sl->alt0 + a, n = s->ncand[ai];
        const struct alloc_alt *alt = s->alts[ai];
        if (alt->all) {
            size_t *nu = NULL, *nc = NULL, k = 0;
            if (!n)
                continue;
            nu = arena_alloc(s->a, n * sizeof(*nu));
            nc = arena_alloc(s->a, n * sizeof(*nc));
            for (i = 0; i < n; i++, k++) {
                nu[i] = s->nundo;
                nc[i] = s->nctr;
                s->steps++;
                if (!place(s, si, ai, s->cand[ai][i]))
                    break;
            }
            if (i == n && dfs(s, si + 1))
                return 1;
            while (k-- > 0)
                unplace(s, ai, s->cand[ai][k], nu[k], nc[k]);
        } else if (alt->count > 0 && (size_t)alt->count <= n) {
            if (choose(s, si, ai, 0, alt->count))
                return 1;
        }
        if (s->over || s->steps > s->budget) {
            s->over = 1;
            return 0;
        }
    }
    return 0;
}

/* Resets the search state for a new node or a new attempt. */
static void reset(struct search *s)
{
    size_t i;

    for (i = 0; i < s->ncs; i++) {
        s->cs[i].pin = 0;
        s->cs[i].npin = 0;
        s->cs[i].nvals = 0;
    }
    s->nundo = 0;
    s->nctr = 0;
}

/* Runs the search on the current node's candidates; 1 found, 0 not,
 * -1 budget exhausted. used[] is clean again afterwards. */
static int attempt(struct search *s, int relax)
{
    int r;
    size_t ai, i;

    reset(s);
    s->relax = relax;
    r = dfs(s, 0);
    /* a found assignment stays placed: clear used[] */
    for (ai = 0; ai < s->nalts; ai++)
        for (i = 0; i < s->ncand[ai]; i++)
            s->used[s->cand[ai][i]] = 0;
    if (s->over)
        return -1;
    return r;
}

/* Necessary conditions of the constraints on the current node's
 * candidates, without a search: a matchAttribute needs one value shared by
 * as many devices as its requests need together, a distinctAttribute as
 * many distinct values. Skipped where devices may be shared (adminAccess,
 * allowMultipleAllocations). Returns 1 and fills f when one fails. */
static int constraints_short(struct search *s, struct alloc_node *f)
{
    size_t vdev[64];
    uint64_t hv[64], h;
    size_t cnt[64];
    size_t i, j, k, a, n;

    for (i = 0; i < s->ncs; i++) {
        struct cstate *c = &s->cs[i];
        long long need = 0;
        size_t nv = 0, best = 0, claim = 0;
        int shared = 0;
        for (j = 0; j < s->nslots; j++) {
            const struct slot *sl = &s->slots[j];
            long long least = -1;
            for (a = 0; a < sl->r->nalts; a++) {
                const struct alloc_alt *alt = s->alts[sl->alt0 + a];
                long long want = !c->applies[sl->alt0 + a] ? 0
                                 : alt->all ? 1 : alt->count;
                shared |= c->applies[sl->alt0 + a] && alt->admin;
                if (least < 0 || want < least)
                    least = want;
            }
            if (least > 0) {
                need += least;
                claim = sl->claim;
            }
        }
        if (shared || need <= 1)
            continue;
        /* the values over the union of candidates (marked in used[]) */
        for (j = 0; j < s->nslots && !shared; j++) {
            const struct slot *sl = &s->slots[j];
            for (a = 0; a < sl->r->nalts && !shared; a++) {
                size_t ai = sl->alt0 + a;
                if (!c->applies[ai])
                    continue;
                for (n = 0; n < s->ncand[ai]; n++) {
                    size_t d = s->cand[ai][n];
                    if (s->m->devs[d].multi) {
                        shared = 1;
                        break;
                    }
                    if (s->used[d])
                        continue;
                    s->used[d] = 1;
                    h = cons_hash(s->m, c, d);
                    if (!h)
                        continue;
                    /* equal hashes: equal values for matchAttribute (a
                     * collision only merges groups: less pruning, never
                     * a wrong verdict); exact for distinctAttribute */
                    for (k = 0; k < nv; k++)
                        if (hv[k] == h
                            && (!c->c->distinct
                                || attr_eq(cons_attr(s->m, c, vdev[k]),
                                           cons_attr(s->m, c, d))))
                            break;
                    if (k == nv) {
                        if (nv == 64) {
                            shared = 1;     /* too many to judge: search */
                            break;
                        }
                        vdev[nv] = d;
                        hv[nv] = h;
                        cnt[nv++] = 0;
                    }
                    if (++cnt[k] > best)
                        best = cnt[k];
                }
            }
        }
        for (j = 0; j < s->nalts; j++)
            for (n = 0; n < s->ncand[j]; n++)
                s->used[s->cand[j][n]] = 0;
        if (shared)
            continue;
        if ((long long)(c->c->distinct ? nv : best) < need) {
            f->why = WHY_CONSTRAINT;
            f->claim = claim;
            f->cons = i - s->cs0[claim];
            return 1;
        }
    }
    return 0;
}

/* ==== the Pod's placement ================================================ */

/* 1 if the Pod's nodeName, nodeSelector and required node affinity allow
 * node n (labels not known count as allowed); else 0 and *why. */
static int node_placed(const struct alloc_problem *p,
                       const struct na_required *req, const struct dm_node *n,
                       enum alloc_why *why)
{
    enum na_part part;

    if (p->node_name && strcmp(p->node_name, n->name)) {
        *why = WHY_NODENAME;
        return 0;
    }
    if (na_required_match(req, &n->sel, &part) != NA_NO)
        return 1;
    *why = part == NA_PART_SELECTOR ? WHY_NODESELECTOR : WHY_AFFINITY;
    return 0;
}

static void add_fail(struct search *s, struct alloc_result *out, size_t *cap,
                     const struct alloc_node *f)
{
    if (out->nfails == *cap) {
        *cap = *cap ? *cap * 2 : 32;
        out->fails = arena_grow(s->a, out->fails, out->nfails, *cap,
                                sizeof(*out->fails));
    }
    out->fails[out->nfails++] = *f;
}

/* Why the search failed on this node, by relaxing one aspect at a time. */
static void analyse(struct search *s, struct alloc_node *f)
{
    size_t c, k;

    f->why = WHY_TOGETHER;
    if (attempt(s, RELAX_CONS) == 1) {
        f->why = WHY_CONSTRAINT;
        /* the constraint that alone fails, if one does */
        for (c = 0; c < s->p->nclaims; c++)
            for (k = 0; k < s->p->claims[c].ncons; k++) {
                int r;
                s->only_claim = c;
                s->only_cons = k;
                r = attempt(s, 0);
                s->only_cons = SIZE_MAX;
                if (r == 0) {
                    f->claim = c;
                    f->cons = k;
                    return;
                }
            }
        f->claim = 0;
        f->cons = SIZE_MAX;
        return;
    }
    if (attempt(s, RELAX_CTR) == 1) {
        f->why = WHY_COUNTERS;
        return;
    }
    if (attempt(s, RELAX_EXCL) == 1)
        f->why = WHY_EXCLUSIVE;
}

/* ==== nodes alike ========================================================
 * Two nodes whose candidates have the same pattern - the same count per
 * alternative, the same overlap between alternatives (positions on the
 * node), the same values of every constrained attribute - get the same
 * answer, so a cluster of thousands of identical nodes is searched a few
 * times. Devices that share state across nodes or requests (counters,
 * allowMultipleAllocations) switch the memo off for the node. Values are
 * compared by their 64-bit hashes. */

enum { MEMO_SAT, MEMO_SHORT, MEMO_FAIL };
#define MEMO_SLOTS (2 * ALLOC_ALIKE)

struct memo_entry {
    const uint64_t *sig;
    size_t n;
    uint64_t h;
    int kind;
    size_t id;                  /* order of insertion: alloc_node.alike */
    struct alloc_node f;
};

struct memo {
    struct memo_entry *slot[MEMO_SLOTS];
    size_t n;
};

static uint64_t sig_hash(const uint64_t *v, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    size_t i;

    for (i = 0; i < n; i++)
        h = mix(h ^ v[i]) * 1099511628211ull;
    return h;
}

/* The current node's signature (in the search arena), or NULL when a
 * candidate carries cross-node state. */
static uint64_t *node_signature(struct search *s, size_t *n)
{
    size_t len = 0, ai, k, c;
    uint64_t *v;

    for (ai = 0; ai < s->nalts; ai++)
        len += 1 + s->ncand[ai] * (1 + s->ncs);
    v = arena_alloc(s->a, (len + 1) * sizeof(*v));
    len = 0;
    for (ai = 0; ai < s->nalts; ai++) {
        v[len++] = s->ncand[ai];
        for (k = 0; k < s->ncand[ai]; k++) {
            const struct dm_device *d = &s->m->devs[s->cand[ai][k]];
            if (d->multi || d->nconsumes)
                return NULL;
            v[len++] = s->cpos[ai][k];
            for (c = 0; c < s->ncs; c++)
                v[len++] = cons_hash(s->m, &s->cs[c], s->cand[ai][k]);
        }
    }
    *n = len;
    return v;
}

static const struct memo_entry *memo_find(const struct memo *m,
                                          const uint64_t *sig, size_t n)
{
    uint64_t h = sig_hash(sig, n);
    size_t i, k;

    for (i = 0; i < MEMO_SLOTS; i++) {
        const struct memo_entry *e = m->slot[(h + i) % MEMO_SLOTS];
        if (!e)
            return NULL;
        if (e->h == h && e->n == n) {
            for (k = 0; k < n && e->sig[k] == sig[k]; k++)
                ;
            if (k == n)
                return e;
        }
    }
    return NULL;
}

/* Remembers the answer for nodes like the current one; returns its id
 * for alloc_node.alike (ALLOC_ALIKE when the memo is full). */
static size_t memo_add(struct search *s, struct memo *m, const uint64_t *sig,
                       size_t n, int kind, const struct alloc_node *f)
{
    uint64_t h = sig_hash(sig, n);
    struct memo_entry *e;
    size_t i;

    if (m->n >= MEMO_SLOTS / 2)
        return ALLOC_ALIKE;
    e = arena_alloc(s->a, sizeof(*e));
    e->sig = sig;
    e->n = n;
    e->h = h;
    e->kind = kind;
    e->id = m->n;
    e->f = *f;
    e->f.alike = e->id;
    for (i = 0; m->slot[(h + i) % MEMO_SLOTS]; i++)
        ;
    m->slot[(h + i) % MEMO_SLOTS] = e;
    m->n++;
    return e->id;
}

enum alloc_verdict alloc_solve(struct arena *a, const struct devmodel *m,
                               const struct alloc_problem *p,
                               struct alloc_result *out)
{
    struct search s;
    struct na_required pl;
    struct memo memo;
    const struct memo_entry *hit;
    uint64_t *sig;
    size_t nsig = 0;
    int use_memo;
    size_t c, r, i, ai, n, capfails = 0, nexplained = 0;
    int over = 0;

    memset(out, 0, sizeof(*out));
    memset(&s, 0, sizeof(s));
    s.a = a;
    s.m = m;
    s.p = p;
    s.budget = p->budget ? p->budget : ALLOC_BUDGET;
    s.deadline = p->deadline_ns;
    s.only_cons = SIZE_MAX;
    for (c = 0; c < p->nclaims; c++) {
        s.nslots += p->claims[c].nreqs;
        s.ncs += p->claims[c].ncons;
        for (r = 0; r < p->claims[c].nreqs; r++)
            s.nalts += p->claims[c].reqs[r].nalts;
    }
    s.slots = arena_alloc(a, (s.nslots + 1) * sizeof(*s.slots));
    s.alts = arena_alloc(a, (s.nalts + 1) * sizeof(*s.alts));
    s.eff = arena_alloc(a, (s.nalts + 1) * sizeof(*s.eff));
    s.cand = arena_alloc(a, (s.nalts + 1) * sizeof(*s.cand));
    s.ncand = arena_alloc(a, (s.nalts + 1) * sizeof(*s.ncand));
    s.cpos = arena_alloc(a, (s.nalts + 1) * sizeof(*s.cpos));
    s.cs = arena_alloc(a, (s.ncs + 1) * sizeof(*s.cs));
    s.cs0 = arena_alloc(a, (p->nclaims + 1) * sizeof(*s.cs0));
    s.used = arena_alloc(a, m->ndevs + 1);
    n = ai = 0;
    for (c = 0, i = 0; c < p->nclaims; c++) {
        const struct alloc_claim *cl = &p->claims[c];
        size_t k;
        s.cs0[c] = i;
        for (k = 0; k < cl->ncons; k++)
            s.cs[i++].c = &cl->cons[k];
        for (r = 0; r < cl->nreqs; r++) {
            struct slot *sl = &s.slots[n++];
            sl->claim = c;
            sl->req = r;
            sl->r = &cl->reqs[r];
            sl->alt0 = ai;
            for (k = 0; k < cl->reqs[r].nalts; k++)
                s.alts[ai++] = &cl->reqs[r].alts[k];
        }
    }
    /* constraints: the attribute resolved once, where each applies */
    for (i = 0; i < s.ncs; i++) {
        struct cstate *cs = &s.cs[i];
        const char *slash = strrchr(cs->c->attr, '/');
        const char *id = slash ? slash + 1 : cs->c->attr;
        cs->sym = devmodel_sym(m, id, strlen(id));
        cs->domain = NULL;
        if (slash) {
            const char *dom = arena_strndup(a, cs->c->attr,
                                            (size_t)(slash - cs->c->attr));
            cs->domain = devmodel_domain(m, dom);
            if (!cs->domain)
                cs->sym = -1;   /* no device has that domain */
        }
        cs->idx = devmodel_sym_index(m, cs->sym);
        cs->vh = devmodel_attr_hashes(m, cs->sym, cs->domain);
        cs->applies = arena_alloc(a, s.nalts + 1);
    }
    for (n = 0; n < s.nslots; n++) {
        const struct slot *sl = &s.slots[n];
        size_t k, j;
        for (k = 0; k < sl->r->nalts; k++)
            for (j = 0; j < p->claims[sl->claim].ncons; j++) {
                struct cstate *cs = &s.cs[s.cs0[sl->claim] + j];
                cs->applies[sl->alt0 + k] = (unsigned char)cons_applies(
                    cs->c, sl->r, s.alts[sl->alt0 + k]);
            }
    }
    /* device filters, once per alternative */
    for (ai = 0; ai < s.nalts; ai++) {
        const struct alloc_alt *alt = s.alts[ai];
        unsigned char *e = arena_alloc(a, m->ndevs + 1);
        for (i = 0; i < m->ndevs; i++)
            e[i] = alt->sel[i]
                   && ((!alt->ncaps && !m->devs[i].taints)
                       || alloc_device_fits(a, &m->devs[i], alt, NULL));
        s.eff[ai] = e;
        s.cand[ai] = arena_alloc(a, (m->max_local + m->nshared + 1)
                                    * sizeof(size_t));
        s.cpos[ai] = arena_alloc(a, (m->max_local + m->nshared + 1)
                                    * sizeof(size_t));
    }
    na_required_init(a, p->node_selector, p->affinity, &pl);
    memset(&memo, 0, sizeof(memo));
    use_memo = s.ncs > 0 || s.nslots > 1;
    if (p->node_name && !strmap_get(&m->node_index, p->node_name)) {
        /* a node the inventory does not describe: cannot judge */
        out->verdict = ALLOC_UNKNOWN;
        return out->verdict;
    }
    for (n = 0; n < m->nnodes; n++) {
        const struct dm_node *nd = &m->nodes[n];
        struct alloc_node f;
        int any = 0, short_ = 0, res;
        if ((n & 63) == 0 && clock_past(p->deadline_ns)) {
            over = 1;           /* out of time: as out of budget */
            break;
        }
        memset(&f, 0, sizeof(f));
        f.node = n;
        f.alike = ALLOC_ALIKE;
        /* candidates per alternative */
        for (ai = 0; ai < s.nalts; ai++) {
            size_t k = 0;
            for (i = 0; i < nd->nlocal; i++)
                if (s.eff[ai][nd->local[i]]) {
                    s.cpos[ai][k] = i;
                    s.cand[ai][k++] = nd->local[i];
                }
            for (i = 0; i < m->nshared; i++)
                if (s.eff[ai][m->shared[i]]
                    && dm_device_on_node(m, m->shared[i], n)) {
                    s.cpos[ai][k] = ((size_t)1 << 40) + i;
                    s.cand[ai][k++] = m->shared[i];
                }
            s.ncand[ai] = k;
            any |= k > 0;
        }
        if (!node_placed(p, &pl, nd, &f.why)) {
            if (any)
                add_fail(&s, out, &capfails, &f);
            continue;
        }
        out->nplaced++;
        if (!any)
            continue;
        out->nwithdev++;
        /* every request needs an alternative with enough devices */
        for (i = 0; i < s.nslots && !short_; i++) {
            const struct slot *sl = &s.slots[i];
            long long best = -1;
            size_t k;
            int ok = 0;
            for (k = 0; k < sl->r->nalts; k++) {
                const struct alloc_alt *alt = s.alts[sl->alt0 + k];
                long long have = (long long)s.ncand[sl->alt0 + k];
                if (alt->all ? have > 0 : have >= alt->count)
                    ok = 1;
                if (best < 0) {
                    best = have;
                    f.need = alt->all ? 0 : alt->count;
                }
            }
            if (!ok) {
                short_ = 1;
                f.why = WHY_COUNT;
                f.claim = sl->claim;
                f.req = sl->req;
                f.have = best;
            }
        }
        if (short_) {
            add_fail(&s, out, &capfails, &f);
            continue;
        }
        /* a node like one already solved gets the same answer */
        sig = use_memo ? node_signature(&s, &nsig) : NULL;
        hit = sig ? memo_find(&memo, sig, nsig) : NULL;
        if (hit) {
            if (hit->kind != MEMO_SHORT)
                out->nmatching++;
            if (hit->kind == MEMO_SAT) {
                if (!out->nsat)
                    out->sat_first = n;
                out->nsat++;
            } else {
                f = hit->f;
                f.node = n;
                add_fail(&s, out, &capfails, &f);
            }
            continue;
        }
        if (constraints_short(&s, &f)) {
            if (sig)
                f.alike = memo_add(&s, &memo, sig, nsig, MEMO_SHORT, &f);
            add_fail(&s, out, &capfails, &f);
            continue;
        }
        out->nmatching++;
        res = attempt(&s, 0);
        if (res == 1) {
            if (!out->nsat)
                out->sat_first = n;
            out->nsat++;
            if (sig)
                memo_add(&s, &memo, sig, nsig, MEMO_SAT, &f);
            continue;
        }
        if (res < 0) {
            over = 1;
            f.why = WHY_BUDGET;
            add_fail(&s, out, &capfails, &f);
            break;
        }
        if (nexplained++ < ALLOC_EXPLAIN_NODES) {
            unsigned long save = s.steps;
            analyse(&s, &f);
            s.over = 0;
            s.steps = save;
        } else {
            f.why = WHY_TOGETHER;
        }
        if (sig)
            f.alike = memo_add(&s, &memo, sig, nsig, MEMO_FAIL, &f);
        add_fail(&s, out, &capfails, &f);
    }
    out->steps = s.steps;
    if (out->nsat && !over)
        out->verdict = ALLOC_OK;
    else if (over)
        out->verdict = out->nsat ? ALLOC_OK : ALLOC_UNKNOWN;
    else
        out->verdict = ALLOC_FAIL;
    out->partial = over;
    return out->verdict;
}
