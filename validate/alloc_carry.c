/*
 * alloc_carry.c - the selector results a device model built from the one
 * before (devmodel_build_next) takes from it (alloc_carry_new,
 * alloc_carry_eval: see alloc_internal.h): which of its devices are the
 * other model's, unchanged, and the results over every device made from
 * the other model's results for those and an evaluation of the rest. A
 * snapshot's warm-up (alloc_warm.c) evaluates only the devices of the
 * pools that changed.
 */
#include "alloc_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cel/cel.h"
#include "devmodel.h"
#include "object.h"
#include "xalloc.h"

struct alloc_carry {
    const struct devmodel *m, *prev;
    size_t *was;            /* per device of m: its index in prev + 1, 0:
                               not carried */
    size_t *fresh;          /* the devices of m not carried */
    size_t nfresh;
};

/* 1 if a selector reads the same on x and y: what cel_eval_device reads
 * (a struct cel_device), the same values, the same pointers. */
static int same_view(const struct cel_device *x, const struct cel_device *y)
{
    return x->driver == y->driver && x->attrs == y->attrs
           && x->nattrs == y->nattrs && x->caps == y->caps
           && x->ncaps == y->ncaps
           && x->allow_multiple_allocations == y->allow_multiple_allocations
           && x->bind == y->bind && x->unsupported == y->unsupported;
}

/* The devices of slice record s of m that prev's record of the same
 * object (same place among its pool's slices, as many devices) has. */
static void carry_slice(struct alloc_carry *c, const struct dm_slice *s)
{
    const struct devmodel *m = c->m, *prev = c->prev;
    const struct dm_slice *ps;
    size_t k, r = dm_slice_record(prev, s->obj);

    if (r == SIZE_MAX)
        return;
    ps = &prev->slices[r];
    if (ps->n != s->n)
        return;
    for (k = 0; k < s->n; k++)
        if (same_view(&m->devs[s->first + k].cel,
                      &prev->devs[ps->first + k].cel))
            c->was[s->first + k] = ps->first + k + 1;
}

struct alloc_carry *alloc_carry_new(const struct devmodel *m,
                                    const struct devmodel *prev)
{
    struct alloc_carry *c;
    size_t r, i;

    if (!prev || prev == m || !m->nslice_recs || !prev->nslice_recs)
        return NULL;
    c = xcalloc(1, sizeof(*c));
    c->m = m;
    c->prev = prev;
    c->was = xcalloc(m->ndevs + 1, sizeof(*c->was));
    for (r = 0; r < m->nslice_recs; r++)
        carry_slice(c, &m->slices[r]);
    for (i = 0; i < m->ndevs; i++)
        c->nfresh += !c->was[i];
    if (c->nfresh == m->ndevs) {    /* nothing to carry */
        alloc_carry_free(c);
        return NULL;
    }
    /* (sized to what changed: fresh memory costs a page fault a page) */
    c->fresh = xmalloc((c->nfresh + 1) * sizeof(*c->fresh));
    for (i = 0, r = 0; i < m->ndevs; i++)
        if (!c->was[i])
            c->fresh[r++] = i;
    return c;
}

void alloc_carry_free(struct alloc_carry *c)
{
    if (!c)
        return;
    free(c->was);
    free(c->fresh);
    free(c);
}

const struct devmodel *alloc_carry_from(const struct alloc_carry *c)
{
    return c->prev;
}

size_t alloc_carry_count(const struct alloc_carry *c)
{
    return c ? c->m->ndevs - c->nfresh : 0;
}

/* The devices not carried, evaluated one by one (few: the pools that
 * changed); the cost so far in *spent. -1 past the budget. */
static int eval_fresh(struct arena *a, const struct alloc_carry *c,
                      const struct cel_program *prog, uint64_t budget,
                      uint64_t *spent, struct alloc_match *out)
{
    const struct devmodel *m = c->m;
    const char *last = NULL;
    size_t k;

    for (k = 0; k < c->nfresh; k++) {
        size_t i = c->fresh[k];
        struct cel_error err;
        uint64_t cost = 0;
        int r = cel_eval_device_costed(prog, &m->devs[i].cel, &cost, &err);
        *spent += cost + 1;
        if (budget && *spent > budget)
            return -1;
        if (r < 0 && (!last || strcmp(last, err.msg)))
            last = arena_strdup(a, err.msg);    /* one copy per text */
        alloc_match_set(a, out, i, r, r < 0 ? last : NULL, m->ndevs);
    }
    return 0;
}

void alloc_carry_eval(struct arena *a, const struct alloc_carry *c,
                      const struct cel_program *prog, uint64_t budget,
                      const struct alloc_match *was, struct alloc_match *out)
{
    const struct devmodel *m = c->m;
    const char *in = NULL, *copy = NULL;
    uint64_t spent = was->cost;
    size_t i;

    memset(out, 0, sizeof(*out));
    out->v = arena_alloc(a, m->ndevs + 1);
    if (eval_fresh(a, c, prog, budget, &spent, out) < 0) {
        /* the bound passes the budget: a full evaluation decides */
        alloc_eval(a, m, prog, budget, out);
        return;
    }
    for (i = 0; i < m->ndevs; i++) {
        size_t j = c->was[i];
        unsigned char r;
        if (!j)
            continue;
        r = was->v[j - 1];
        if (r == AM_ERR && was->err[j - 1] != in) {
            in = was->err[j - 1];   /* the texts live with prev's results */
            copy = arena_strdup(a, in);
        }
        alloc_match_set(a, out, i, r == AM_ERR ? -1 : r,
                        r == AM_ERR ? copy : NULL, m->ndevs);
    }
    out->cost = spent;
}
