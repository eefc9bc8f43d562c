/*
 * alloc_solved.c - answers of the allocator kept per model
 * (alloc_solve_shared, see allocate.h): a problem written as text (every
 * request, alternative, selector list by its key, constraint, the Pod's
 * placement and the budget) is the key of its alloc_result, kept in the
 * model's selector cache extension (alloc_select.c) with its fails[].
 */
#include "allocate.h"

#include <stdlib.h>
#include <string.h>

#include "alloc_internal.h"
#include "arena.h"
#include "buf.h"
#include "xalloc.h"

/* the longest problem text kept (a longer one is solved every time) */
#define SOLVED_KEY_BYTES (256u << 10)
/* the largest fails[] kept unless the problem asks (share_large): a
 * problem that fits nowhere fails on every node (1.7 MB at 20,000 nodes) */
#define SOLVED_FAILS_BYTES ((size_t)64 << 10)

struct solved {
    struct alloc_kept kept;     /* first member: the slot holds &kept */
    struct alloc_result r;      /* fails[] in kept.arena */
};

/* s with its length ("~" for NULL): no two texts share a key */
static int key_str(struct buf *b, const char *s)
{
    return s ? buf_addf(b, "%zu:%s", strlen(s), s) : buf_addc(b, '~');
}

static int alt_key(struct buf *b, const struct alloc_alt *alt)
{
    size_t i;

    if (!alt->sel_key || key_str(b, alt->name) < 0
        || key_str(b, alt->sel_key) < 0
        || buf_addf(b, "%d.%lld.%d.%u.%zu", alt->all, alt->count, alt->admin,
                    alt->off, alt->ncaps) < 0
        || alloc_tree_key(b, alt->tolerations) < 0)
        return -1;
    for (i = 0; i < alt->ncaps; i++)
        if (key_str(b, alt->caps[i].name) < 0
            || key_str(b, alt->caps[i].text) < 0)
            return -1;
    return 0;
}

static int claim_key(struct buf *b, const struct alloc_claim *c)
{
    size_t r, k;

    if (buf_addf(b, "c%zu.%zu", c->nreqs, c->ncons) < 0)
        return -1;
    for (r = 0; r < c->nreqs; r++) {
        if (key_str(b, c->reqs[r].name) < 0
            || buf_addf(b, "r%zu", c->reqs[r].nalts) < 0)
            return -1;
        for (k = 0; k < c->reqs[r].nalts; k++)
            if (alt_key(b, &c->reqs[r].alts[k]) < 0)
                return -1;
    }
    for (k = 0; k < c->ncons; k++) {
        const struct alloc_constraint *x = &c->cons[k];
        size_t i;
        if (buf_addf(b, "x%d.%zu", x->distinct, x->nreqs) < 0
            || key_str(b, x->attr) < 0)
            return -1;
        for (i = 0; i < x->nreqs; i++)
            if (key_str(b, x->reqs[i]) < 0)
                return -1;
    }
    return 0;
}

/* What the answer to p depends on, as text; -1 when p cannot say it
 * (taken devices, a selector list not kept, too long). */
static int problem_key(struct buf *b, const struct alloc_problem *p)
{
    size_t c;

    if (p->taken
        || buf_addf(b, "b%lu.%zu", p->budget ? p->budget : ALLOC_BUDGET,
                    p->nclaims) < 0
        || key_str(b, p->node_name) < 0
        || alloc_tree_key(b, p->node_selector) < 0
        || alloc_tree_key(b, p->affinity) < 0)
        return -1;
    for (c = 0; c < p->nclaims; c++)
        if (claim_key(b, &p->claims[c]) < 0)
            return -1;
    return 0;
}

/* Keeps *r under key with its fails[]; silently not when there is no
 * room, or when fails[] is larger than SOLVED_FAILS_BYTES and p does not
 * ask for it (see struct alloc_problem.share_large). A fails[] that has a
 * block of its own in a moves to the kept answer instead of being copied
 * (a copy is that much fresh memory to fault in); the caller's *r reads
 * the same memory, which lives with the model from now on. */
static void keep(struct arena *a, const struct devmodel *m,
                 const struct alloc_problem *p, const char *key,
                 const struct alloc_result *r)
{
    struct solved *mine;
    struct alloc_shelf sh = alloc_model_solved(m);
    struct alloc_kept *k;
    int moved = 0;

    if (r->nfails > SOLVED_FAILS_BYTES / sizeof(*r->fails) && !p->share_large)
        return;
    mine = xcalloc(1, sizeof(*mine));
    alloc_kept_init(&mine->kept, key);
    mine->r = *r;
    mine->r.ndevchecked = 0;
    mine->r.nplacematch = 0;
    if (r->nfails) {
        moved = arena_move_block(&mine->kept.arena, a, r->fails) == 0;
        if (!moved) {
            mine->r.fails = arena_alloc(&mine->kept.arena,
                                        r->nfails * sizeof(*r->fails));
            memcpy(mine->r.fails, r->fails, r->nfails * sizeof(*r->fails));
        }
    }
    k = alloc_kept_find(&sh, key, &mine->kept);
    if (k == &mine->kept)
        return;
    /* no room, or a twin: the caller's fails[] goes back to a */
    if (moved)
        arena_move_block(a, &mine->kept.arena, r->fails);
    alloc_kept_free(&mine->kept);
}

enum alloc_verdict alloc_solve_shared(struct arena *a,
                                      const struct devmodel *m,
                                      const struct alloc_problem *p,
                                      struct alloc_result *out)
{
    struct alloc_shelf sh = alloc_model_solved(m);
    struct alloc_kept *k;
    struct buf b;

    buf_init(&b, SOLVED_KEY_BYTES);
    if (problem_key(&b, p) < 0) {
        buf_release(&b);
        return alloc_solve(a, m, p, out);
    }
    k = alloc_kept_find(&sh, b.p, NULL);
    if (k) {
        *out = ((struct solved *)(void *)k)->r;
        buf_release(&b);
        return out->verdict;
    }
    alloc_solve(a, m, p, out);
    if (!out->partial && out->verdict != ALLOC_UNKNOWN)
        keep(a, m, p, b.p, out);
    buf_release(&b);
    return out->verdict;
}
