/*
 * devmodel_index.c - questions asked of a built device model: interned
 * attribute ids and domains, per-attribute indexes and value hashes built
 * on first use (lock-free: each slot is filled once by compare-and-swap,
 * a thread that loses frees its copy), device placement on a node, the
 * extension slot another module's cache lives in.
 */
#include "devmodel.h"
#include "limits.h"
#include "xalloc.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

struct attrhash {
    long sym;
    const char *domain;
    uint64_t *h;
};

long devmodel_sym(const struct devmodel *m, const char *id, size_t len)
{
    char key[128];
    void *v;

    if (len >= sizeof(key))
        return -1;
    memcpy(key, id, len);
    key[len] = 0;
    v = strmap_get(&m->syms, key);
    if (!v || (m->symcount && !m->symcount[(uintptr_t)v - 1]))
        return -1;          /* (an id kept from an earlier model) */
    return (long)((uintptr_t)v - 1);
}

const short *devmodel_sym_index(const struct devmodel *m, long sym)
{
    void *expect = NULL;
    short *v;
    size_t i, k;

    if (sym < 0 || (size_t)sym >= m->nsyms)
        return NULL;
    v = atomic_load(&m->symidx[sym].p);
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
    if (!atomic_compare_exchange_strong(&m->symidx[sym].p, &expect, v)) {
        free(v);
        v = expect;
    }
    return v;
}

const uint64_t *devmodel_attr_hashes(const struct devmodel *m, long sym,
                                     const char *domain)
{
    struct attrhash *mine = NULL;
    size_t i, k;

    if (sym < 0)
        return NULL;
    for (k = 0; k < DM_ATTRHASH; k++) {
        void *seen = atomic_load(&m->attrhash[k].p);
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
            if (atomic_compare_exchange_strong(&m->attrhash[k].p, &seen,
                                               mine))
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
    const char *v = strmap_get(&m->domains, domain);

    return v ? v : strmap_get(&m->domains_base, domain);
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

struct dm_ext *devmodel_ext(const struct devmodel *m)
{
    return atomic_load(&m->ext->p);
}

struct dm_ext *devmodel_ext_install(const struct devmodel *m,
                                   struct dm_ext *e)
{
    void *cur = NULL;

    if (atomic_compare_exchange_strong(&m->ext->p, &cur, e))
        return e;
    return cur;
}

void devmodel_index_free(struct devmodel *m)
{
    struct dm_ext *e = devmodel_ext(m);
    size_t i;

    if (e)
        e->free(e);
    for (i = 0; i < m->nsyms; i++)
        free(atomic_load(&m->symidx[i].p));
    for (i = 0; i < DM_ATTRHASH; i++) {
        struct attrhash *h = atomic_load(&m->attrhash[i].p);
        if (h)
            free(h->h);
        free(h);
    }
    free(m->symidx);
    free(m->attrhash);
    free(m->ext);
    m->symidx = m->attrhash = m->ext = NULL;
}

int dm_pool_incomplete(const struct dm_pool *p)
{
    return (long long)p->slices_seen < p->slice_count;
}

int dm_pool_usable(const struct dm_pool *p)
{
    return !dm_pool_incomplete(p) && !p->invalid;
}

const struct dm_pool *devmodel_pool(const struct devmodel *m,
                                    const char *driver, const char *name)
{
    char key[LIMIT_POOL_KEY_BYTES];
    int n = snprintf(key, sizeof(key), "%s\x1f%s", driver, name);
    void *v;

    if (n < 0 || (size_t)n >= sizeof(key))
        return NULL;
    v = strmap_get(&m->pool_index, key);
    return v ? &m->pools[(uintptr_t)v - 1] : NULL;
}
