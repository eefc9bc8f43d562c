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
 * affinity through nodeaffinity.h; its answer per node kept per model).
 */
#include "allocate.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_internal.h"
#include "arena.h"
#include "buf.h"
#include "limits.h"
#include "tree.h"
#include "xalloc.h"

void alloc_pools_init(struct search *s)
{
    const struct devmodel *m = s->m;
    size_t ai;

    /* the filters run when a node's devices are first looked at
     * (eff_of): a search that stops after ALLOC_FEASIBLE_MIN nodes never
     * pays for the others */
    s->kind = alloc_model_kinds(m);
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
    if (alt->sel[d] && !alt->ncaps && !s->p->taken
        && s->kind[d] == DEV_PLAIN)
        *e = EFF_USABLE;    /* nothing else to check (its device unread) */
    else if (alt->sel[d] && !alt->ncaps && s->kind[d] == DEV_TAINTED
             && !(alt->off & ALLOC_OFF_TAINTS) && alloc_no_tolerations(alt))
        *e = EFF_NO;
    else if (!alt->sel[d]
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

/* enum place_memo: a node's answer to a Pod's placement, kept per model */
enum { PLACE_YES = 1, PLACE_SELECTOR, PLACE_AFFINITY };

int alloc_tree_key(struct buf *b, const struct tnode *n)
{
    const char *t;
    unsigned i;

    if (!n)
        return buf_addc(b, '-');
    if (buf_addf(b, "%u.%u.%u", n->kind, n->flags, n->quoted) < 0)
        return -1;
    if (n->kind == T_MAP || n->kind == T_SEQ) {
        if (buf_addf(b, "[%u", n->n) < 0)
            return -1;
        for (i = 0; i < n->n; i++) {
            const char *k = n->kind == T_MAP ? n->kids[i]->key : "";
            if (buf_addf(b, "%zu:%s", strlen(k), k) < 0
                || alloc_tree_key(b, n->kids[i]) < 0)
                return -1;
        }
        return buf_addc(b, ']');
    }
    t = tree_text(n);
    return t ? buf_addf(b, "%zu:%s", strlen(t), t) : buf_addc(b, '~');
}

/* A Pod's nodeSelector alone (a label set, as nodesel_from_labels reads
 * it): its answer on every node at once from the model's label index, the
 * nodes that hold every key=value. */
static void placement_fill(const struct devmodel *m, const struct tnode *sel,
                           _Atomic unsigned char *memo)
{
    unsigned *have = xcalloc(m->nnodes + 1, sizeof(*have));
    size_t i, k, n;

    for (i = 0; i < sel->n; i++) {
        const char *t = tree_text(sel->kids[i]);
        const size_t *v = alloc_model_labelled(m, sel->kids[i]->key,
                                               t ? t : "", &n);
        for (k = 0; k < n; k++)
            if (have[v[k]] == i)
                have[v[k]] = (unsigned)i + 1;
    }
    for (n = 0; n < m->nnodes; n++)
        atomic_store_explicit(&memo[n], !m->nodes[n].sel.labels_known
                                        || have[n] == sel->n
                                        ? PLACE_YES : PLACE_SELECTOR,
                              memory_order_relaxed);
    atomic_store(&memo[m->nnodes], 1);
    free(have);
}

void alloc_placement_init(struct arena *a, const struct devmodel *m,
                          const struct alloc_problem *p,
                          struct placement_of *pl)
{
    struct buf b;

    memset(pl, 0, sizeof(*pl));
    na_required_init(a, p->node_selector, p->affinity, &pl->req);
    if (pl->req.selector.everything && !pl->req.has_affinity)
        return;     /* every node: nothing to keep */
    buf_init(&b, LIMIT_PLACEMENT_BYTES);
    if (buf_adds(&b, "sel ") == 0 && alloc_tree_key(&b, p->node_selector) == 0
        && buf_adds(&b, " aff ") == 0 && alloc_tree_key(&b, p->affinity) == 0)
        pl->memo = alloc_model_placement(m, b.p);
    buf_release(&b);
    if (pl->memo && !pl->req.has_affinity && !atomic_load(&pl->memo[m->nnodes]))
        placement_fill(m, p->node_selector, pl->memo);
}

int alloc_node_placed(const struct alloc_problem *p, struct placement_of *pl,
                      const struct devmodel *m, size_t n,
                      enum alloc_why *why)
{
    const struct dm_node *nd = &m->nodes[n];
    enum na_part part;
    unsigned char v = 0;

    if (p->node_name && strcmp(p->node_name, nd->name)) {
        *why = WHY_NODENAME;
        return 0;
    }
    if (pl->memo)
        v = atomic_load_explicit(&pl->memo[n], memory_order_relaxed);
    if (!v) {
        pl->nmatched++;
        v = na_required_match(&pl->req, &nd->sel, &part) != NA_NO
            ? PLACE_YES
            : part == NA_PART_SELECTOR ? PLACE_SELECTOR : PLACE_AFFINITY;
        if (pl->memo)
            atomic_store_explicit(&pl->memo[n], v, memory_order_relaxed);
    }
    if (v == PLACE_YES)
        return 1;
    *why = v == PLACE_SELECTOR ? WHY_NODESELECTOR : WHY_AFFINITY;
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
