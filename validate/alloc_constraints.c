/*
 * alloc_constraints.c - matchAttribute and distinctAttribute during a
 * search: each constraint's attribute resolved once, where it applies,
 * the values taken so far (an undo stack for backtracking), list-type
 * values as Kubernetes compares them (a common element for
 * matchAttribute, none shared for distinctAttribute), and the
 * necessary conditions checked on a node's candidates before any search.
 */
#include "allocate.h"

#include <stdint.h>
#include <string.h>

#include "alloc_internal.h"
#include "arena.h"

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
            if (x->type == CEL_ATTR_INTS ? x->iv[i] != y->iv[i]
                : x->type == CEL_ATTR_BOOLS ? !x->bv[i] != !y->bv[i]
                : strcmp(x->sv[i], y->sv[i]) != 0)
                return 0;
        }
        return 1;
    }
    return 0;
}

/* A value as a list (Kubernetes' list-type attributes: a scalar is a
 * list of one): its length, and whether element i of x equals element j
 * of y (elements of different kinds are never equal). */
static size_t attr_len(const struct cel_attr *x)
{
    return x->type >= CEL_ATTR_INTS ? x->nv : 1;
}

static int attr_elem_eq(const struct cel_attr *x, size_t i,
                        const struct cel_attr *y, size_t j)
{
    int lx = x->type >= CEL_ATTR_INTS, ly = y->type >= CEL_ATTR_INTS;
    int kx = lx ? (int)x->type - CEL_ATTR_INTS : (int)x->type;
    int ky = ly ? (int)y->type - CEL_ATTR_INTS : (int)y->type;

    if (kx != ky)
        return 0;
    switch ((enum cel_attr_type)kx) {
    case CEL_ATTR_INT:
        return (lx ? x->iv[i] : x->i) == (ly ? y->iv[j] : y->i);
    case CEL_ATTR_BOOL:
        return !(lx ? x->bv[i] : x->b) == !(ly ? y->bv[j] : y->b);
    default:
        return !strcmp(lx ? x->sv[i] : x->s, ly ? y->sv[j] : y->s);
    }
}

/* 1 if element i of x is in y. */
static int attr_has(const struct cel_attr *x, size_t i,
                    const struct cel_attr *y)
{
    size_t j;

    for (j = 0; j < attr_len(y); j++)
        if (attr_elem_eq(x, i, y, j))
            return 1;
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
uint64_t alloc_cons_hash(const struct devmodel *m, const struct cstate *c,
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

static void push_undo(struct search *s, size_t ci)
{
    if (s->nundo == s->capundo) {
        s->capundo = s->capundo ? s->capundo * 2 : 32;
        s->undo = arena_grow(s->a, s->undo, s->nundo, s->capundo,
                             sizeof(*s->undo));
    }
    s->undo[s->nundo++] = ci;
}

static void keep_value(struct search *s, struct cstate *c, size_t d,
                       uint64_t h)
{
    if (c->nvals == c->capvals) {
        c->capvals = c->capvals ? c->capvals * 2 : 8;
        c->vdev = arena_grow(s->a, c->vdev, c->nvals, c->capvals,
                             sizeof(*c->vdev));
        c->vhs = arena_grow(s->a, c->vhs, c->nvals, c->capvals,
                            sizeof(*c->vhs));
    }
    c->vdev[c->nvals] = d;
    c->vhs[c->nvals++] = h;
}

/* List-type values (c->lists): matchAttribute needs an element common to
 * every device taken, distinctAttribute no element shared by two. */
static int lists_fit(const struct search *s, const struct cstate *c,
                     size_t d)
{
    const struct cel_attr *x = cons_attr(s->m, c, d);
    size_t i, j;

    if (c->c->distinct) {
        for (j = 0; j < c->nvals; j++)
            for (i = 0; i < attr_len(x); i++)
                if (attr_has(x, i, cons_attr(s->m, c, c->vdev[j])))
                    return 0;
        return 1;
    }
    for (i = 0; i < attr_len(x); i++) {
        for (j = 0; j < c->nvals; j++)
            if (!attr_has(x, i, cons_attr(s->m, c, c->vdev[j])))
                break;
        if (j == c->nvals)
            return 1;
    }
    return 0;
}

int alloc_constraints_take(struct search *s, size_t si, size_t ai, size_t d)
{
    const struct slot *sl = &s->slots[si];
    const struct alloc_claim *cl = &s->p->claims[sl->claim];
    size_t i, j;

    for (i = 0; i < cl->ncons; i++) {
        struct cstate *c = &s->cs[s->cs0[sl->claim] + i];
        uint64_t h;
        if (s->only_cons != SIZE_MAX
            && (s->only_claim != sl->claim || s->only_cons != i))
            continue;
        if (!c->applies[ai])
            continue;
        s->cons_failed = i;
        h = alloc_cons_hash(s->m, c, d);
        if (!h)
            return -1;
        if (c->lists) {
            if (!lists_fit(s, c, d))
                return -1;
            keep_value(s, c, d, h);
        } else if (c->c->distinct) {
            /* distinct values: exact on equal hashes */
            for (j = 0; j < c->nvals; j++)
                if (c->vhs[j] == h
                    && attr_eq(cons_attr(s->m, c, c->vdev[j]),
                               cons_attr(s->m, c, d)))
                    return -1;
            keep_value(s, c, d, h);
        } else {
            if (c->npin && c->pin != h)
                return -1;
            c->pin = h;
            c->npin++;
        }
        push_undo(s, s->cs0[sl->claim] + i);
    }
    return 0;
}

void alloc_constraints_undo(struct search *s, size_t nundo)
{
    while (s->nundo > nundo) {
        struct cstate *c = &s->cs[s->undo[--s->nundo]];
        if (c->lists || c->c->distinct) {
            c->nvals--;
        } else if (--c->npin == 0) {
            c->pin = 0;
        }
    }
}

void alloc_constraints_reset(struct search *s)
{
    size_t i;

    for (i = 0; i < s->ncs; i++) {
        s->cs[i].pin = 0;
        s->cs[i].npin = 0;
        s->cs[i].nvals = 0;
    }
    s->nundo = 0;
}

void alloc_constraints_init(struct search *s)
{
    const struct devmodel *m = s->m;
    size_t i, n, k, j;
    int lists = s->ncs && alloc_model_lists(m);

    /* the attribute resolved once, where each applies */
    for (i = 0; i < s->ncs; i++) {
        struct cstate *cs = &s->cs[i];
        const char *slash = strrchr(cs->c->attr, '/');
        const char *id = slash ? slash + 1 : cs->c->attr;
        cs->sym = devmodel_sym(m, id, strlen(id));
        cs->domain = NULL;
        if (slash) {
            const char *dom = arena_strndup(s->a, cs->c->attr,
                                            (size_t)(slash - cs->c->attr));
            cs->domain = devmodel_domain(m, dom);
            if (!cs->domain)
                cs->sym = -1;   /* no device has that domain */
        }
        cs->idx = devmodel_sym_index(m, cs->sym);
        cs->vh = devmodel_attr_hashes(m, cs->sym, cs->domain);
        cs->applies = arena_alloc(s->a, s->nalts + 1);
        cs->lists = 0;
        /* the walk only where some device of the model has a list */
        for (k = 0; cs->idx && lists && k < m->ndevs && !cs->lists; k++) {
            const struct cel_attr *at = cons_attr(m, cs, k);
            cs->lists = at && at->type >= CEL_ATTR_INTS;
        }
    }
    for (n = 0; n < s->nslots; n++) {
        const struct slot *sl = &s->slots[n];
        for (k = 0; k < sl->r->nalts; k++)
            for (j = 0; j < s->p->claims[sl->claim].ncons; j++) {
                struct cstate *cs = &s->cs[s->cs0[sl->claim] + j];
                cs->applies[sl->alt0 + k] = (unsigned char)cons_applies(
                    cs->c, sl->r, s->alts[sl->alt0 + k]);
            }
    }
}

/* Necessary conditions of the constraints on the current node's
 * candidates, without a search: a matchAttribute needs one value shared by
 * as many devices as its requests need together, a distinctAttribute as
 * many distinct values. Skipped where devices may be shared (adminAccess,
 * allowMultipleAllocations) and where allocationMode All applies (the
 * search tells a failure from Kubernetes' error). Returns 1 and fills f
 * when one fails. */
int alloc_constraints_short(struct search *s, struct alloc_node *f)
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
                /* adminAccess shares devices; allocationMode All errors
                 * where a constraint refuses one of its devices (a search
                 * finds which) */
                shared |= c->applies[sl->alt0 + a]
                          && (alt->admin || alt->all);
                if (least < 0 || want < least)
                    least = want;
            }
            if (least > 0) {
                need += least;
                claim = sl->claim;
            }
        }
        if (shared || need <= 1 || c->lists)
            continue;   /* lists: a value count says nothing */
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
                    h = alloc_cons_hash(s->m, c, d);
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
