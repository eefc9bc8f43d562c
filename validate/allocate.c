/*
 * allocate.c - the allocator's solver (see allocate.h): requests flattened
 * into slots and alternatives, then node by node a backtracking search
 * over the node's candidates with a work budget, and on failure an
 * analysis of why (relaxing constraints, counters, exclusivity in turn);
 * the errors Kubernetes' allocator returns on a node (node_checks before
 * the search, all_refused during it) make the verdict ALLOC_ERROR.
 * The concerns it combines live beside it (alloc_internal.h lists them).
 * Owns no state between calls and prints nothing.
 */
#include "allocate.h"

#include <stdint.h>
#include <string.h>

#include "alloc_internal.h"
#include "arena.h"
#include "clock.h"
#include "nodeaffinity.h"

/* ==== the search ========================================================= */

static void undo_to(struct search *s, size_t nundo, size_t nctr)
{
    alloc_constraints_undo(s, nundo);
    s->nctr = nctr;
}

/* Where the claim of slot si marks device d as held (s->held), or NULL. */
static unsigned char *held_at(struct search *s, size_t si, size_t d)
{
    return s->held ? &s->held[s->slots[si].claim * s->m->ndevs + d] : NULL;
}

/* Tries to add device d for alternative ai of slot si; 1 if it fits (the
 * state then includes it: undo with unplace), 0 if not, -1 if only a
 * constraint refuses it. As in Kubernetes' allocator a device is held by
 * one request, unless it allows multiple allocations; an adminAccess
 * request may take a device other claims hold, never one its own claim
 * holds, and holds it too. The checks run in allocateDevice's order: in
 * use, counters, constraints. */
static int place(struct search *s, size_t si, size_t ai, size_t d)
{
    const struct alloc_alt *alt = s->alts[ai];
    const struct dm_device *dv = &s->m->devs[d];
    int excl = !dv->multi && !(s->relax & RELAX_EXCL);
    unsigned char *held = held_at(s, si, d);
    size_t nundo = s->nundo, nctr = s->nctr, nshares = s->nshares;
    int first = 1;

    if (excl && (alt->admin ? held && *held : s->used[d] > 0))
        return 0;
    /* a multi-allocatable device spends its counters once, with its
     * first allocation (allocateDevice's skipCounterCheck) */
    if (dv->multi) {
        size_t i;
        for (i = 0; i < s->nshares && first; i++)
            first = s->shares[i].dev != d;
    }
    if (!alt->admin && !(s->relax & RELAX_CTR) && first
        && alloc_counters_take(s, d) < 0) {
        undo_to(s, nundo, nctr);
        return 0;
    }
    if (!(s->relax & RELAX_CONS)
        && alloc_constraints_take(s, si, ai, d) < 0) {
        undo_to(s, nundo, nctr);
        return -1;
    }
    /* what its allocations consume of its capacity, together
     * (CmpRequestOverCapacity with the capacity being allocated) */
    if (dv->multi && !(s->relax & RELAX_CTR)
        && alloc_shares_take(s, ai, d) < 0) {
        undo_to(s, nundo, nctr);
        s->nshares = nshares;
        return 0;
    }
    if (excl) {
        s->used[d]++;
        if (held)
            *held = 1;
    }
    return 1;
}

/* allocationMode All must take device d and a constraint refuses it:
 * Kubernetes' allocator stops with an error ("cannot add device ...
 * because a claim constraint would not be satisfied", allocateDevice with
 * must set). Stops the search (not while analysing a failure). */
static void all_refused(struct search *s, size_t si, size_t ai, size_t d)
{
    struct alloc_node *f = &s->errnode;

    if (s->relax || s->only_cons != SIZE_MAX)
        return;
    memset(f, 0, sizeof(*f));
    f->why = WHY_ERROR;
    f->err = AERR_ALL_CONSTRAINT;
    f->claim = s->slots[si].claim;
    f->req = s->slots[si].req;
    f->alt = ai - s->slots[si].alt0;
    f->obj = d;
    f->cons = s->cons_failed;
    f->alike = ALLOC_ALIKE;
    s->fatal = 1;
    s->over = 1;        /* unwinds the search */
}

static void unplace(struct search *s, size_t si, size_t d, size_t nundo,
                    size_t nctr)
{
    unsigned char *held = held_at(s, si, d);

    undo_to(s, nundo, nctr);
    if (s->m->devs[d].multi && !(s->relax & RELAX_CTR)) {
        size_t n = s->m->devs[d].cel.ncaps ? s->m->devs[d].cel.ncaps : 1;
        s->nshares -= n;    /* the entries its place() pushed, on top */
    }
    if (!s->m->devs[d].multi && !(s->relax & RELAX_EXCL)) {
        s->used[d]--;
        if (held)
            *held = 0;
    }
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
        if (place(s, si, ai, d) > 0) {
            if (choose(s, si, ai, i + 1, left - 1))
                return 1;
            unplace(s, si, d, nundo, nctr);
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
                int r;
                s->steps++;
                r = place(s, si, ai, s->cand[ai][i]);
                if (r < 0)
                    all_refused(s, si, ai, s->cand[ai][i]);
                if (r <= 0)
                    break;
            }
            if (i == n && dfs(s, si + 1))
                return 1;
            while (k-- > 0)
                unplace(s, si, s->cand[ai][k], nu[k], nc[k]);
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
    alloc_constraints_reset(s);
    s->nctr = s->nctr_taken;
    s->nshares = 0;
}

/* Runs the search on the current node's candidates; 1 found, 0 not,
 * -1 budget exhausted, -2 Kubernetes' allocator errors (s->errnode).
 * used[] is clean again afterwards. */
static int attempt(struct search *s, int relax)
{
    int r;
    size_t si, ai, i;

    reset(s);
    s->relax = relax;
    r = dfs(s, 0);
    /* a found assignment stays placed: clear used[] and held[] */
    for (si = 0; si < s->nslots; si++)
        for (ai = s->slots[si].alt0;
             ai < s->slots[si].alt0 + s->slots[si].r->nalts; ai++)
            for (i = 0; i < s->ncand[ai]; i++) {
                unsigned char *held = held_at(s, si, s->cand[ai][i]);
                s->used[s->cand[ai][i]] = 0;
                if (held)
                    *held = 0;
            }
    if (s->fatal)
        return -2;
    if (s->over)
        return -1;
    return r;
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

/* ==== solving, node by node ============================================== */

struct solve {
    struct search s;
    struct alloc_result *out;
    struct placement_of place;  /* the Pod's nodeSelector and affinity */
    struct memo memo;
    int use_memo;
    size_t capfails, nexplained;
    int over;                   /* out of budget or time */
};

/* The search state of problem p: requests flattened into slots and
 * alternatives, constraints, device filters. */
static void search_init(struct search *s, struct arena *a,
                        const struct devmodel *m,
                        const struct alloc_problem *p)
{
    size_t c, r, i, k, n = 0, ai = 0;

    memset(s, 0, sizeof(*s));
    s->a = a;
    s->m = m;
    s->p = p;
    s->budget = p->budget ? p->budget : ALLOC_BUDGET;
    s->deadline = p->deadline_ns;
    s->only_cons = SIZE_MAX;
    for (c = 0; c < p->nclaims; c++) {
        s->nslots += p->claims[c].nreqs;
        s->ncs += p->claims[c].ncons;
        for (r = 0; r < p->claims[c].nreqs; r++)
            s->nalts += p->claims[c].reqs[r].nalts;
    }
    s->slots = arena_alloc(a, (s->nslots + 1) * sizeof(*s->slots));
    s->alts = arena_alloc(a, (s->nalts + 1) * sizeof(*s->alts));
    s->eff = arena_alloc(a, (s->nalts + 1) * sizeof(*s->eff));
    s->cand = arena_alloc(a, (s->nalts + 1) * sizeof(*s->cand));
    s->ncand = arena_alloc(a, (s->nalts + 1) * sizeof(*s->ncand));
    s->cpos = arena_alloc(a, (s->nalts + 1) * sizeof(*s->cpos));
    s->cs = arena_alloc(a, (s->ncs + 1) * sizeof(*s->cs));
    s->cs0 = arena_alloc(a, (p->nclaims + 1) * sizeof(*s->cs0));
    s->used = arena_alloc(a, (m->ndevs + 1) * sizeof(*s->used));
    for (c = 0, i = 0; c < p->nclaims; c++) {
        const struct alloc_claim *cl = &p->claims[c];
        s->cs0[c] = i;
        for (k = 0; k < cl->ncons; k++)
            s->cs[i++].c = &cl->cons[k];
        for (r = 0; r < cl->nreqs; r++) {
            struct slot *sl = &s->slots[n++];
            sl->claim = c;
            sl->req = r;
            sl->r = &cl->reqs[r];
            sl->alt0 = ai;
            for (k = 0; k < cl->reqs[r].nalts; k++)
                s->alts[ai++] = &cl->reqs[r].alts[k];
        }
    }
    for (i = 0; i < s->nalts && !s->held; i++)
        if (s->alts[i]->admin)
            s->held = arena_alloc(a, p->nclaims * m->ndevs + 1);
    alloc_constraints_init(s);
    alloc_counters_taken(s);
    alloc_pools_init(s);
}

/* 1 when some request has no alternative with enough candidates on the
 * node (f says which), else 0. */
static int short_of_devices(const struct search *s, struct alloc_node *f)
{
    size_t i, k;

    for (i = 0; i < s->nslots; i++) {
        const struct slot *sl = &s->slots[i];
        long long best = -1;
        int ok = 0;
        for (k = 0; k < sl->r->nalts; k++) {
            const struct alloc_alt *alt = s->alts[sl->alt0 + k];
            long long have = (long long)s->ncand[sl->alt0 + k];
            if (alt->all ? have > 0 : have >= alt->count)
                ok = 1;
            if (best < 0) {
                best = have;
                f->need = alt->all ? 0 : alt->count;
            }
        }
        if (!ok) {
            f->why = WHY_COUNT;
            f->claim = sl->claim;
            f->req = sl->req;
            f->have = best;
            return 1;
        }
    }
    return 0;
}

/* A node where Kubernetes' allocator returns an error: kept in fails[]
 * and counted; the first one is the result's error. */
static void node_error(struct solve *sv, const struct alloc_node *f)
{
    if (!sv->out->nerror++)
        sv->out->error = *f;
    add_fail(&sv->s, sv->out, &sv->capfails, f);
}

/* What Kubernetes' allocator checks on a node before it searches
 * (Allocate and validateDeviceRequest, claim by claim, request by
 * request): allocationMode All while a pool of the node is incomplete or
 * invalid, then a claim that needs more than ALLOC_RESULTS_MAX devices
 * (All: as many as match on the node; firstAvailable: its smallest
 * alternative). 1 and f filled (WHY_ERROR) on such an error. */
static int node_checks(const struct search *s, size_t n,
                       struct alloc_node *f)
{
    size_t c, si, k, bad = SIZE_MAX;
    int looked = 0;

    for (c = 0; c < s->p->nclaims; c++) {
        long long total = 0;
        for (si = 0; si < s->nslots; si++) {
            const struct slot *sl = &s->slots[si];
            long long least = -1;
            if (sl->claim != c)
                continue;
            for (k = 0; k < sl->r->nalts; k++) {
                const struct alloc_alt *alt = s->alts[sl->alt0 + k];
                long long want = alt->count;
                if (alt->all) {
                    if (!looked) {
                        bad = alloc_pools_unusable_on(s, n, alt->off);
                        looked = 1;
                    }
                    if (bad != SIZE_MAX) {
                        f->why = WHY_ERROR;
                        f->err = dm_pool_incomplete(&s->m->pools[bad])
                                 ? AERR_ALL_INCOMPLETE : AERR_ALL_INVALID;
                        f->claim = c;
                        f->req = sl->req;
                        f->alt = k;
                        f->obj = bad;
                        return 1;
                    }
                    want = (long long)s->ncand[sl->alt0 + k];
                }
                if (least < 0 || want < least)
                    least = want;
            }
            total += least;
        }
        if (total > ALLOC_RESULTS_MAX) {
            f->why = WHY_ERROR;
            f->err = AERR_TOO_MANY;
            f->claim = c;
            f->have = total;
            return 1;
        }
    }
    return 0;
}

static void node_fits(struct solve *sv, size_t n)
{
    if (!sv->out->nsat)
        sv->out->sat_first = n;
    sv->out->nsat++;
}

/* Searches node n once it has candidates for every request: the memo of
 * nodes alike, the constraints' necessary conditions, the search, and
 * when it fails, why. Returns -1 when the budget ran out. */
static int search_node(struct solve *sv, struct alloc_node *f, size_t n)
{
    struct search *s = &sv->s;
    const struct memo_entry *hit;
    uint64_t *sig;
    size_t nsig = 0;
    int res;

    sig = sv->use_memo ? alloc_node_signature(s, &nsig) : NULL;
    hit = sig ? alloc_memo_find(&sv->memo, sig, nsig) : NULL;
    if (hit) {          /* a node like one already solved */
        if (hit->kind != MEMO_SHORT)
            sv->out->nmatching++;
        if (hit->kind == MEMO_SAT) {
            node_fits(sv, n);
        } else {
            *f = hit->f;
            f->node = n;
            add_fail(s, sv->out, &sv->capfails, f);
        }
        return 0;
    }
    if (alloc_constraints_short(s, f)) {
        if (sig)
            f->alike = alloc_memo_add(s, &sv->memo, sig, nsig, MEMO_SHORT, f);
        add_fail(s, sv->out, &sv->capfails, f);
        return 0;
    }
    sv->out->nmatching++;
    if (alloc_counters_short(s, f)) {
        if (sig)
            f->alike = alloc_memo_add(s, &sv->memo, sig, nsig, MEMO_FAIL, f);
        add_fail(s, sv->out, &sv->capfails, f);
        return 0;
    }
    res = attempt(s, 0);
    if (res == 1) {
        node_fits(sv, n);
        if (sig)
            alloc_memo_add(s, &sv->memo, sig, nsig, MEMO_SAT, f);
        return 0;
    }
    if (res == -2) {    /* not remembered: nodes alike search again */
        s->fatal = 0;
        s->over = 0;
        s->errnode.node = n;
        node_error(sv, &s->errnode);
        return 0;
    }
    if (res < 0) {
        f->why = WHY_BUDGET;
        add_fail(s, sv->out, &sv->capfails, f);
        return -1;
    }
    if (sv->nexplained++ < ALLOC_EXPLAIN_NODES) {
        unsigned long save = s->steps;
        analyse(s, f);
        s->over = 0;
        s->steps = save;
    } else {
        f->why = WHY_TOGETHER;
    }
    if (sig)
        f->alike = alloc_memo_add(s, &sv->memo, sig, nsig, MEMO_FAIL, f);
    add_fail(s, sv->out, &sv->capfails, f);
    return 0;
}

/* Node n: its candidates, the Pod's placement, enough devices, then the
 * search. Returns -1 when the work must stop. */
static int solve_node(struct solve *sv, size_t n)
{
    struct search *s = &sv->s;
    struct alloc_node f;
    int any;

    memset(&f, 0, sizeof(f));
    f.node = n;
    f.alike = ALLOC_ALIKE;
    any = alloc_pools_node(s, n);
    if (!alloc_node_placed(s->p, &sv->place, s->m, n, &f.why)) {
        if (any)
            add_fail(s, sv->out, &sv->capfails, &f);
        return 0;
    }
    sv->out->nplaced++;
    if (node_checks(s, n, &f)) {
        node_error(sv, &f);
        return 0;
    }
    if (!any)
        return 0;
    sv->out->nwithdev++;
    if (short_of_devices(s, &f)) {
        add_fail(s, sv->out, &sv->capfails, &f);
        return 0;
    }
    return search_node(sv, &f, n);
}

enum alloc_verdict alloc_solve(struct arena *a, const struct devmodel *m,
                               const struct alloc_problem *p,
                               struct alloc_result *out)
{
    struct solve sv;
    size_t n;

    memset(out, 0, sizeof(*out));
    memset(&sv, 0, sizeof(sv));
    sv.out = out;
    search_init(&sv.s, a, m, p);
    alloc_placement_init(a, m, p, &sv.place);
    sv.use_memo = sv.s.ncs > 0 || sv.s.nslots > 1;
    if (p->node_name && !strmap_get(&m->node_index, p->node_name)) {
        /* a node the inventory does not describe: cannot judge */
        out->verdict = ALLOC_UNKNOWN;
        return out->verdict;
    }
    /* the scheduler stops filtering once ALLOC_FEASIBLE_MIN nodes fit:
     * so does the search, the verdict is OK whatever the rest holds */
    for (n = 0; n < m->nnodes && !sv.over && !out->enough; n++) {
        if ((n & 63) == 0 && clock_past(p->deadline_ns))
            sv.over = 1;        /* out of time: as out of budget */
        else if (solve_node(&sv, n) < 0)
            sv.over = 1;
        out->enough = out->nsat >= ALLOC_FEASIBLE_MIN;
    }
    out->nvisited = n;
    out->ndevchecked = sv.s.ndevchecked;
    out->nplacematch = sv.place.nmatched;
    out->steps = sv.s.steps;
    if (sv.over)
        out->verdict = out->nsat ? ALLOC_OK : ALLOC_UNKNOWN;
    else if (out->nerror && out->nsat < ALLOC_FEASIBLE_MIN)
        out->verdict = ALLOC_ERROR;     /* every node is filtered */
    else
        out->verdict = out->nsat ? ALLOC_OK : ALLOC_FAIL;
    out->partial = sv.over;
    return out->verdict;
}
