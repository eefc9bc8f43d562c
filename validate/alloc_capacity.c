/*
 * alloc_capacity.c - what a device offers besides its selectors: the
 * feature gates it needs, capacity requests against its capacity (with
 * requestPolicy), taints against a request's tolerations, which pools are
 * usable, the shared counters devices consume from their pool during
 * a search, and the capacity the allocations of a multi-allocatable
 * device consume together.
 */
#include "allocate.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_internal.h"
#include "arena.h"
#include "tree.h"

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
static int apply_policy(const struct tnode *pol, struct quantity *q)
{
    const struct tnode *vv = tree_get(pol, "validValues");
    const struct tnode *vr = tree_get(pol, "validRange");
    struct quantity v, best;
    int have = 0;
    size_t i;

    if (tree_is_seq(vv) && vv->n) {
        for (i = 0; i < vv->n; i++) {
            if (quantity_from_text(tree_text(vv->kids[i]), &v) < 0)
                continue;
            if (quantity_cmp(&v, q) >= 0
                && (!have || quantity_cmp(&v, &best) < 0)) {
                best = v;
                have = 1;
            }
        }
        if (!have)
            return -1;
        *q = best;
    }
    if (tree_is_map(vr)) {
        if (quantity_from_text(tree_text(tree_get(vr, "max")), &v) == 0
            && quantity_cmp(q, &v) > 0)
            return -1;
        if (quantity_from_text(tree_text(tree_get(vr, "min")), &v) == 0
            && quantity_cmp(q, &v) < 0)
            *q = v;
    }
    return 0;
}

const char *alloc_device_gated(const struct dm_device *d, unsigned off)
{
    if ((off & ALLOC_OFF_PARTITIONABLE) && (d->gated & DM_GATED_PARTITIONABLE))
        return d->nconsumes ? "consumes counters, DRAPartitionableDevices "
                              "is off"
                            : "its slice needs DRAPartitionableDevices, "
                              "which is off";
    if ((off & ALLOC_OFF_BINDING) && (d->gated & DM_GATED_BINDING))
        return "has bindingConditions, which need DRADeviceBindingConditions "
               "and DRAResourceClaimDeviceStatus";
    return NULL;
}

int alloc_device_fits(struct arena *a, const struct dm_device *d,
                      const struct alloc_alt *alt, const char **why)
{
    const char *gated = alloc_device_gated(d, alt->off);
    size_t i;

    if (gated) {
        if (why)
            *why = gated;
        return 0;
    }
    for (i = 0; i < alt->ncaps; i++) {
        const struct alloc_capreq *c = &alt->caps[i];
        struct quantity q = c->q;
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
        if (quantity_cmp(&q, &d->cap_value[k]) > 0) {
            if (why)
                *why = arena_printf(a, "%s %s < %s", id,
                                    d->cel.caps[k].quantity, c->text);
            return 0;
        }
    }
    if (d->taints && !(alt->off & ALLOC_OFF_TAINTS)) {
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

int alloc_no_tolerations(const struct alloc_alt *alt)
{
    return !tree_is_seq(alt->tolerations) || !alt->tolerations->n;
}

int alloc_pool_usable(const struct dm_pool *p, unsigned off)
{
    if (!(off & ALLOC_OFF_PARTITIONABLE))
        return dm_pool_usable(p);
    /* GatherPools checks no counters then */
    return !dm_pool_incomplete(p) && (!p->invalid || p->invalid_counters);
}

/* ==== shared counters ==================================================== */

/* The counter named name of pool pool's counter set set, or NULL. */
static const struct dm_counter *ctr_have(const struct devmodel *m,
                                         size_t pool, size_t set,
                                         const char *name)
{
    const struct dm_counterset *cs = &m->pools[pool].sets[set];
    size_t k;

    for (k = 0; k < cs->n; k++)
        if (!strcmp(cs->c[k].name, name))
            return &cs->c[k];
    return NULL;
}

/* What s->ctr[0..end) has taken of one counter: the search so far (end
 * s->nctr) or the devices allocated already (s->nctr_taken). QE_RANGE
 * past 127 bits: then nothing more fits. */
static int ctr_used(const struct search *s, size_t end, size_t pool,
                    size_t set, const char *name, struct quantity *q)
{
    size_t i;

    memset(q, 0, sizeof(*q));
    for (i = 0; i < end; i++)
        if (s->ctr[i].pool == pool && s->ctr[i].set == set
            && !strcmp(s->ctr[i].name, name)
            && quantity_add(q, &s->ctr[i].q) < 0)
            return QE_RANGE;
    return 0;
}

static void ctr_spend(struct search *s, size_t pool, size_t set,
                      const struct dm_counter *c)
{
    if (s->nctr == s->capctr) {
        s->capctr = s->capctr ? s->capctr * 2 : 16;
        s->ctr = arena_grow(s->a, s->ctr, s->nctr, s->capctr,
                            sizeof(*s->ctr));
    }
    s->ctr[s->nctr].pool = pool;
    s->ctr[s->nctr].set = set;
    s->ctr[s->nctr].name = c->name;
    s->ctr[s->nctr].q = c->value;
    s->nctr++;
}

void alloc_counters_taken(struct search *s)
{
    const struct devmodel *m = s->m;
    size_t d, i, j;

    for (d = 0; s->p->taken && d < m->ndevs; d++) {
        if (!s->p->taken[d])
            continue;
        for (i = 0; i < m->devs[d].nconsumes; i++) {
            const struct dm_consume *cu = &m->devs[d].consumes[i];
            if (cu->set == SIZE_MAX)
                continue;
            for (j = 0; j < cu->n; j++)
                ctr_spend(s, m->devs[d].pool_idx, cu->set, &cu->c[j]);
        }
    }
    s->nctr_taken = s->nctr;
}

int alloc_counters_take(struct search *s, size_t d)
{
    const struct dm_device *dv = &s->m->devs[d];
    size_t i, j;

    for (i = 0; i < dv->nconsumes; i++) {
        const struct dm_consume *cu = &dv->consumes[i];
        if (cu->set == SIZE_MAX)
            return -1;
        for (j = 0; j < cu->n; j++) {
            const struct dm_counter *have = ctr_have(s->m, dv->pool_idx,
                                                     cu->set, cu->c[j].name);
            struct quantity used;
            if (!have)
                return -1;
            if (ctr_used(s, s->nctr, dv->pool_idx, cu->set, cu->c[j].name,
                         &used) < 0
                || quantity_add(&used, &cu->c[j].value) < 0
                || quantity_cmp(&used, &have->value) > 0)
                return -1;
            ctr_spend(s, dv->pool_idx, cu->set, &cu->c[j]);
        }
    }
    return 0;
}

/* ==== consumable capacity of multi-allocatable devices ================== */

/* A requested amount rounded up as the capacity's requestPolicy says
 * (calculateConsumedCapacity, consumable_capacity.go): to validRange.min,
 * then to min + a multiple of step; or to the first validValues entry at
 * least as large. */
static void policy_round_up(const struct tnode *pol, struct quantity *q)
{
    const struct tnode *vr = tree_get(pol, "validRange");
    const struct tnode *vv = tree_get(pol, "validValues");
    struct quantity min, step, v;
    size_t i;

    if (tree_is_map(vr)
        && quantity_from_text(tree_text(tree_get(vr, "min")), &min) == 0) {
        int64_t x, lo, st, n;
        if (quantity_cmp(q, &min) < 0) {
            *q = min;
            return;
        }
        if (quantity_from_text(tree_text(tree_get(vr, "step")), &step) < 0)
            return;
        x = quantity_scaled_value(q, 0);
        lo = quantity_scaled_value(&min, 0);
        st = quantity_scaled_value(&step, 0);
        if (st <= 0)
            return;
        n = (x - lo) / st + ((x - lo) % st != 0);
        quantity_from_int(lo + st * n, 0, QF_BINARY_SI, q);
        return;
    }
    for (i = 0; tree_is_seq(vv) && i < vv->n; i++)
        if (quantity_from_text(tree_text(vv->kids[i]), &v) == 0
            && quantity_cmp(q, &v) <= 0) {
            *q = v;
            return;
        }
}

/* What one allocation of d for alt consumes of capacity k: the request
 * (rounded up by the policy), else the policy's default, else all. */
static void share_of(const struct dm_device *d, size_t k,
                     const struct alloc_alt *alt, struct quantity *out)
{
    const struct tnode *pol = d->cap_policy[k];
    size_t i;

    for (i = 0; i < alt->ncaps; i++)
        if (find_cap(d, alt->caps[i].name) == (long)k) {
            *out = alt->caps[i].q;
            if (pol)
                policy_round_up(pol, out);
            return;
        }
    if (!pol || quantity_from_text(tree_text(tree_get(pol, "default")),
                                   out) < 0)
        *out = d->cap_value[k];
}

static void share_push(struct search *s, size_t d, size_t k,
                       const struct quantity *q)
{
    if (s->nshares == s->capshares) {
        s->capshares = s->capshares ? s->capshares * 2 : 16;
        s->shares = arena_grow(s->a, s->shares, s->nshares, s->capshares,
                               sizeof(*s->shares));
    }
    s->shares[s->nshares].dev = d;
    s->shares[s->nshares].k = k;
    if (q)
        s->shares[s->nshares].q = *q;
    s->nshares++;
}

int alloc_shares_take(struct search *s, size_t ai, size_t d)
{
    const struct dm_device *dv = &s->m->devs[d];
    size_t k, i;

    for (k = 0; k < dv->cel.ncaps; k++) {
        struct quantity want, sum;
        share_of(dv, k, s->alts[ai], &want);
        sum = want;
        for (i = 0; i < s->nshares; i++)
            if (s->shares[i].dev == d && s->shares[i].k == k
                && quantity_add(&sum, &s->shares[i].q) < 0)
                return -1;
        if (quantity_cmp(&sum, &dv->cap_value[k]) > 0)
            return -1;
        share_push(s, d, k, &want);
    }
    if (!dv->cel.ncaps)
        share_push(s, d, SIZE_MAX, NULL);
    return 0;
}

/* ==== a lower bound on the counters a node's requests consume =========== */

struct ctr_need {               /* what one candidate consumes of one
                                   counter (summed over its entries) */
    size_t dev, pool, set;
    const char *name;
    struct quantity q;
};

static int need_by_key(const void *x, const void *y)
{
    const struct ctr_need *a = x, *b = y;
    int c;

    if (a->pool != b->pool)
        return a->pool < b->pool ? -1 : 1;
    if (a->set != b->set)
        return a->set < b->set ? -1 : 1;
    c = strcmp(a->name, b->name);
    if (c)
        return c;
    return quantity_cmp(&a->q, &b->q);
}

static int by_index(const void *x, const void *y)
{
    size_t a = *(const size_t *)x, b = *(const size_t *)y;

    return a < b ? -1 : a > b;
}

/* Adds what device d consumes (SIZE_MAX sets, which make it never
 * allocatable, left out: that only weakens the bound) to need[*n..]. */
static void need_add(const struct devmodel *m, size_t d,
                     struct ctr_need *need, size_t *n)
{
    const struct dm_device *dv = &m->devs[d];
    size_t i, j, k, first = *n;

    for (i = 0; i < dv->nconsumes; i++) {
        const struct dm_consume *cu = &dv->consumes[i];
        if (cu->set == SIZE_MAX)
            continue;
        for (j = 0; j < cu->n; j++) {
            for (k = first; k < *n; k++)    /* the same counter twice */
                if (need[k].set == cu->set
                    && !strcmp(need[k].name, cu->c[j].name))
                    break;
            if (k < *n) {
                if (quantity_add(&need[k].q, &cu->c[j].value) < 0)
                    need[k].q = cu->c[j].value;     /* keep a lower one */
                continue;
            }
            need[*n].dev = d;
            need[*n].pool = dv->pool_idx;
            need[*n].set = cu->set;
            need[*n].name = cu->c[j].name;
            need[*n].q = cu->c[j].value;
            (*n)++;
        }
    }
}

/* How many consumers of one counter slot si must take at least: its
 * count less its candidates that do not consume it (keys[0..nkey) are
 * the consumers' device indexes, sorted). */
static long long slot_least(const struct search *s, size_t ai,
                            long long count, const size_t *keys,
                            size_t nkey)
{
    size_t i, in = 0;

    for (i = 0; i < s->ncand[ai]; i++)
        in += bsearch(&s->cand[ai][i], keys, nkey, sizeof(*keys),
                      by_index) != NULL;
    return count - (long long)(s->ncand[ai] - in);
}

int alloc_counters_short(struct search *s, struct alloc_node *f)
{
    const struct devmodel *m = s->m;
    size_t si, i, j, nd = 0, nneed = 0, room = 0, g, e;
    long long total = 0;
    size_t *devs, *keys;
    struct ctr_need *need;
    int consumers = 0;

    /* the slots the bound is sure of: one alternative, ExactCount, not
     * adminAccess; every device they take is a different one */
    for (si = 0; si < s->nslots; si++) {
        const struct slot *sl = &s->slots[si];
        const struct alloc_alt *alt = s->alts[sl->alt0];
        if (sl->r->nalts != 1 || alt->all || alt->admin || alt->count < 1)
            continue;
        total += alt->count;
        room += s->ncand[sl->alt0];
        for (i = 0; i < s->ncand[sl->alt0] && !consumers; i++)
            consumers = m->devs[s->cand[sl->alt0][i]].nconsumes > 0;
    }
    if (!total || !consumers)   /* the usual case: nothing to bound */
        return 0;
    devs = arena_alloc(s->a, (room + 1) * sizeof(*devs));
    for (si = 0; si < s->nslots; si++) {
        const struct slot *sl = &s->slots[si];
        const struct alloc_alt *alt = s->alts[sl->alt0];
        if (sl->r->nalts != 1 || alt->all || alt->admin || alt->count < 1)
            continue;
        for (i = 0; i < s->ncand[sl->alt0]; i++) {
            size_t d = s->cand[sl->alt0][i];
            if (m->devs[d].multi)   /* counters spent once for several
                                       allocations: not bounded here */
                return 0;
            devs[nd++] = d;
        }
    }
    qsort(devs, nd, sizeof(*devs), by_index);
    for (i = j = 0; i < nd; i++)        /* the union of the candidates */
        if (!j || devs[j - 1] != devs[i])
            devs[j++] = devs[i];
    nd = j;
    for (i = 0, room = 0; i < nd; i++) {
        const struct dm_device *dv = &m->devs[devs[i]];
        for (j = 0; j < dv->nconsumes; j++)
            room += dv->consumes[j].n;
    }
    if (!room)
        return 0;
    need = arena_alloc(s->a, room * sizeof(*need));
    keys = arena_alloc(s->a, room * sizeof(*keys));
    for (i = 0; i < nd; i++)
        need_add(m, devs[i], need, &nneed);
    qsort(need, nneed, sizeof(*need), need_by_key);
    for (g = 0; g < nneed; g = e) {
        const struct dm_counter *have;
        struct quantity sum;
        long long least;
        int over;
        for (e = g + 1; e < nneed && need[e].pool == need[g].pool
             && need[e].set == need[g].set
             && !strcmp(need[e].name, need[g].name); e++)
            ;
        have = ctr_have(m, need[g].pool, need[g].set, need[g].name);
        if (!have)
            continue;
        for (i = g; i < e; i++)
            keys[i - g] = need[i].dev;
        qsort(keys, e - g, sizeof(*keys), by_index);
        /* consumers needed: all the devices taken are different, and
         * at most nd - (e - g) of them consume none of it */
        least = total - (long long)(nd - (e - g));
        for (si = 0; si < s->nslots; si++) {
            const struct slot *sl = &s->slots[si];
            const struct alloc_alt *alt = s->alts[sl->alt0];
            long long l;
            if (sl->r->nalts != 1 || alt->all || alt->admin
                || alt->count < 1)
                continue;
            l = slot_least(s, sl->alt0, alt->count, keys, e - g);
            if (l > least)
                least = l;
        }
        if (least <= 0)
            continue;
        if (least > (long long)(e - g))
            least = (long long)(e - g); /* the count check says the rest */
        /* the least it costs: its smallest consumers, plus what devices
         * already allocated spent */
        over = ctr_used(s, s->nctr_taken, need[g].pool, need[g].set,
                        need[g].name, &sum) < 0;
        for (i = g; i < g + (size_t)least && !over; i++)
            over = quantity_add(&sum, &need[i].q) < 0;
        if (over || quantity_cmp(&sum, &have->value) > 0) {
            f->why = WHY_COUNTERS;
            return 1;
        }
    }
    return 0;
}
