/*
 * alloc_memo.c - nodes alike: two nodes whose candidates have the same
 * pattern - the same count per alternative, the same overlap between
 * alternatives (positions on the node), the same values of every
 * constrained attribute - get the same answer, so a cluster of thousands
 * of identical nodes is searched a few times. Devices that share state
 * across nodes or requests (counters, allowMultipleAllocations) switch the
 * memo off for the node. Values are compared by their 64-bit hashes.
 */
#include "allocate.h"

#include <stdint.h>

#include "alloc_internal.h"
#include "arena.h"

static uint64_t sig_hash(const uint64_t *v, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    size_t i;

    for (i = 0; i < n; i++)
        h = alloc_mix(h ^ v[i]) * 1099511628211ull;
    return h;
}

uint64_t *alloc_node_signature(struct search *s, size_t *n)
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
                v[len++] = alloc_cons_hash(s->m, &s->cs[c], s->cand[ai][k]);
        }
    }
    *n = len;
    return v;
}

const struct memo_entry *alloc_memo_find(const struct memo *m,
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

size_t alloc_memo_add(struct search *s, struct memo *m, const uint64_t *sig,
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
