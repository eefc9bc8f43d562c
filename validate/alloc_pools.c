/*
 * alloc_pools.c - which devices an alternative can use on a node (the job
 * of GatherPools and the device checks in Kubernetes' allocator): the
 * device filters per alternative, once per device and only on the nodes
 * the search visits (selectors, capacity requests, taints; devices of
 * incomplete or invalid pools are never candidates, and allocationMode
 * All fails on a node where one would match), the candidates of one node
 * (its own devices, then the shared ones its placement admits), the pools
 * of a node the allocator cannot use (an error for allocationMode All),
 * and the Pod's own placement (nodeName, nodeSelector, required node
 * affinity through nodeaffinity.h).
 */
#include "allocate.h"

#include <stdint.h>
#include <string.h>

#include "alloc_internal.h"
#include "arena.h"

void alloc_pools_init(struct search *s)
{
    const struct devmodel *m = s->m;
    size_t ai;

    /* the filters run when a node's devices are first looked at
     * (eff_of): a search that stops after ALLOC_FEASIBLE_MIN nodes never
     * pays for the others */
    for (ai = 0; ai < s->nalts; ai++) {
        s->eff[ai] = arena_alloc(s->a, m->ndevs + 1);
        s->cand[ai] = arena_alloc(s->a, (m->max_local + m->nshared + 1)
                                        * sizeof(size_t));
        s->cpos[ai] = arena_alloc(s->a, (m->max_local + m->nshared + 1)
                                        * sizeof(size_t));
    }
}

/* Whether alternative ai may use device d (EFF_*), computed once. A
 * device allocated already is out (unless shared: adminAccess,
 * allowMultipleAllocations). */
static unsigned char eff_of(struct search *s, size_t ai, size_t d)
{
    const struct devmodel *m = s->m;
    const struct alloc_alt *alt = s->alts[ai];
    unsigned char *e = &s->eff[ai][d];

    if (*e)
        return *e;
    s->ndevchecked++;
    if (!alt->sel[d]
        || (s->p->taken && s->p->taken[d] && !alt->admin
            && !m->devs[d].multi)
        || !alloc_device_ok(s->a, &m->devs[d], alt))
        *e = EFF_NO;
    else if (!alloc_pool_usable(&m->pools[m->devs[d].pool_idx], alt->off))
        *e = EFF_UNUSABLE;
    else
        *e = EFF_USABLE;
    return *e;
}

int alloc_pools_node(struct search *s, size_t n)
{
    const struct devmodel *m = s->m;
    const struct dm_node *nd = &m->nodes[n];
    size_t ai, i;
    int any = 0;

    for (ai = 0; ai < s->nalts; ai++) {
        size_t k = 0;
        int waiting = 0;    /* a matching device of an unusable pool */
        for (i = 0; i < nd->nlocal; i++) {
            unsigned char e = eff_of(s, ai, nd->local[i]);
            waiting |= e == EFF_UNUSABLE;
            if (e == EFF_USABLE) {
                s->cpos[ai][k] = i;
                s->cand[ai][k++] = nd->local[i];
            }
        }
        for (i = 0; i < m->nshared; i++) {
            unsigned char e = eff_of(s, ai, m->shared[i]);
            if (e == EFF_NO || !dm_device_on_node(m, m->shared[i], n))
                continue;
            waiting |= e == EFF_UNUSABLE;
            if (e != EFF_USABLE)
                continue;
            s->cpos[ai][k] = ((size_t)1 << 40) + i;
            s->cand[ai][k++] = m->shared[i];
        }
        /* allocationMode All cannot take "all" of an unusable pool */
        s->ncand[ai] = waiting && s->alts[ai]->all ? 0 : k;
        any |= k > 0;
    }
    return any;
}

int alloc_node_placed(const struct alloc_problem *p,
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

size_t alloc_pools_unusable_on(const struct search *s, size_t n,
                               unsigned off)
{
    const struct devmodel *m = s->m;
    const struct dm_node *nd = &m->nodes[n];
    size_t i, best = SIZE_MAX;

    for (i = 0; i < nd->nlocal + m->nshared; i++) {
        size_t d = i < nd->nlocal ? nd->local[i] : m->shared[i - nd->nlocal];
        size_t p = m->devs[d].pool_idx;
        if (p == best || alloc_pool_usable(&m->pools[p], off)
            || (i >= nd->nlocal && !dm_device_on_node(m, d, n)))
            continue;
        if (best == SIZE_MAX
            || strcmp(m->pools[p].driver, m->pools[best].driver) < 0
            || (!strcmp(m->pools[p].driver, m->pools[best].driver)
                && strcmp(m->pools[p].name, m->pools[best].name) < 0))
            best = p;
    }
    return best;
}
