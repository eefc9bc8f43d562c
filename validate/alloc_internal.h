/*
 * alloc_internal.h - what the allocator's files share (allocate.h is the
 * API): the search state, the constraint and counter state inside it, the
 * memo of nodes alike. Split as Kubernetes' structured allocator is:
 *   alloc_select.c       selector results over every device, cached,
 *                        and what else is learnt once per model
 *   alloc_carry.c        ... those a model built from the one before
 *                        takes from it for the devices it took
 *   alloc_capacity.c     capacity requests, taints, shared counters
 *   alloc_constraints.c  matchAttribute / distinctAttribute
 *   alloc_pools.c        which devices an alternative can use on a node,
 *                        and the Pod's own placement
 *   alloc_memo.c         nodes alike share one answer
 *   allocate.c           the solver: the backtracking search per node
 * Not for use outside these files.
 */
#ifndef CLAIMCHECK_ALLOC_INTERNAL_H
#define CLAIMCHECK_ALLOC_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "allocate.h"
#include "arena.h"
#include "nodeaffinity.h"

struct alloc_carry;
struct buf;

enum { RELAX_CONS = 1, RELAX_CTR = 2, RELAX_EXCL = 4 };
/* search.eff: whether an alternative may use a device (0: not yet
 * known) */
enum { EFF_USABLE = 1,
       EFF_UNUSABLE = 2,    /* passes the filters, in an incomplete or
                               invalid pool */
       EFF_NO = 3 };

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
    int lists;                  /* some device has a list-type value: the
                                   devices taken are kept (vdev) and
                                   compared element by element */
    uint64_t pin;               /* matchAttribute: the value's hash, once
                                   set (equal hashes are taken as equal
                                   values: a collision can only let a
                                   search succeed, never fail) */
    size_t npin;
    size_t *vdev;               /* distinctAttribute (or lists): devices
                                   taken */
    uint64_t *vhs;              /* ... and their values' hashes */
    size_t nvals, capvals;
};

struct ctr_use {
    size_t pool, set;
    const char *name;
    struct quantity q;
};

struct share {                  /* one allocation of a multi-allocatable
                                   device in the search: what it consumes
                                   of one capacity (k; SIZE_MAX: the
                                   device has none, a marker) */
    size_t dev, k;
    struct quantity q;
};

struct search {
    struct arena *a;
    const struct devmodel *m;
    const struct alloc_problem *p;
    struct slot *slots;
    size_t nslots, nalts;
    const struct alloc_alt **alts;      /* flattened */
    unsigned char **eff;                /* per alt and device: EFF_*, or
                                           0 until its node is visited */
    size_t ndevchecked;                 /* eff computed (a measure of the
                                           work: alloc_result) */
    const unsigned char *kind;          /* alloc_model_kinds() */
    size_t **cand;                      /* per alt: candidates on node */
    size_t **cpos;                      /* per alt: their position on the
                                           node (local index, or shared) */
    size_t *ncand;
    unsigned short *used;               /* per device: requests holding
                                           it (adminAccess ones of other
                                           claims may share) */
    unsigned char *held;                /* per claim x device: the claim
                                           holds it (only when some
                                           request has adminAccess: one
                                           may not take a device its own
                                           claim holds) */
    struct cstate *cs;                  /* flattened per claim */
    size_t *cs0;                        /* per claim: first cstate */
    size_t ncs;
    size_t *undo;                       /* cstate indexes pushed */
    size_t nundo, capundo;
    struct ctr_use *ctr;
    size_t nctr, capctr;
    size_t nctr_taken;                  /* ctr[0..nctr_taken): spent by
                                           devices already allocated */
    struct share *shares;               /* consumable capacity taken */
    size_t nshares, capshares;
    unsigned long steps, budget;
    uint64_t deadline;                  /* alloc_problem.deadline_ns */
    int over;
    int relax;
    size_t only_claim, only_cons;       /* analysis: one constraint only */
    size_t cons_failed;                 /* the constraint (index in its
                                           claim) alloc_constraints_take
                                           last refused a device for */
    int fatal;                          /* the allocator errors on this node
                                           (errnode says why): the search
                                           stopped */
    struct alloc_node errnode;
};

static inline uint64_t alloc_mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

/* ==== alloc_select.c ==== */

/* 1 if some device of m has a list-type attribute value: computed once
 * per model, in the selector cache's extension (lock-free). */
int alloc_model_lists(const struct devmodel *m);

/* Per node of m, the answer of the Pod placement named key (alloc_pools.c
 * writes it: 0 not known yet, else enum place_memo; one more byte after
 * the nodes: 1 once every node's is), kept per model (lock-free: racing
 * writers store the same answer); NULL when the table has no room near
 * key. */
_Atomic unsigned char *alloc_model_placement(const struct devmodel *m,
                                             const char *key);

/* The nodes of m (model order; *n of them) whose labels are known and
 * hold key with value (its text, as the node selector matcher reads it),
 * or NULL. An index of every node's labels built once per model. */
const size_t *alloc_model_labelled(const struct devmodel *m, const char *key,
                                   const char *value, size_t *n);

/* What is kept per model under a text key (alloc_select_all(),
 * alloc_solve_shared()): the first member of the entry kept, which owns
 * the entry's memory. */
struct alloc_kept {
    struct arena arena;         /* the key and what the entry holds */
    const char *key;
};

/* Readies k (a zeroed entry from xcalloc) with a copy of key. */
void alloc_kept_init(struct alloc_kept *k, const char *key);
/* Frees k, its arena and itself (NULL: nothing). */
void alloc_kept_free(struct alloc_kept *k);
/* Where a kind of entry is kept in a model's cache: its slots and the
 * memory its entries hold, bounded. */
struct alloc_shelf {
    struct alloc_kept *_Atomic *slots;
    size_t nslots;
    _Atomic size_t *bytes;
    size_t max_bytes;
};

/* The entry kept under key on shelf sh, or NULL. With mine: when key is
 * not kept yet and there is room (a free slot near the key's hash, the
 * shelf's memory within its bound), mine is published (lock-free) and
 * returned; another thread's entry may be returned instead; mine stays
 * the caller's unless it is returned. */
struct alloc_kept *alloc_kept_find(const struct alloc_shelf *sh,
                                   const char *key, struct alloc_kept *mine);
/* The model's shelf of alloc_solve_shared() answers (ALLOC_SOLVED
 * entries, ALLOC_SOLVED_BYTES: apart from the selector results, which
 * they must not crowd out). */
struct alloc_shelf alloc_model_solved(const struct devmodel *m);

/* alloc_match.v[i] (and err[i], nyes, nerr) of one result r (1, 0, -1:
 * error err, kept as given) of n devices, as alloc_eval() sets them. */
void alloc_match_set(struct arena *a, struct alloc_match *out, size_t i,
                     int r, const char *err, size_t n);
/* alloc_eval_cached(), but a result not kept yet is computed from the
 * results of the model c was made from (alloc_carry_eval) when that model
 * keeps them (c NULL: alloc_eval_cached()). */
const struct alloc_match *alloc_eval_cached_from(const struct devmodel *m,
                                                 const struct cel_env *env,
                                                 const char *expr,
                                                 struct arena *a,
                                                 struct cel_error *err,
                                                 uint64_t *spent,
                                                 const struct alloc_carry
                                                 *c);

/* ==== alloc_carry.c ==== */

/* Which devices of a model m are devices of prev, the model it was built
 * from: the same slice object in the same place, with the same CEL view
 * (cel_device: the same pointers into memory both models hold, which no
 * model writes again), so that a selector reads the same on both. */
struct alloc_carry;

/* The devices of m that prev has (prev and m alive while it is used), or
 * NULL when none. */
struct alloc_carry *alloc_carry_new(const struct devmodel *m,
                                    const struct devmodel *prev);
void alloc_carry_free(struct alloc_carry *c);
/* The model c's devices are taken from (prev). */
const struct devmodel *alloc_carry_from(const struct alloc_carry *c);
/* How many devices of m are carried. */
size_t alloc_carry_count(const struct alloc_carry *c);
/* The results of prog over every device of m into out (memory from a), as
 * alloc_eval(a, m, prog, budget, out) computes them, from was (prog's
 * results over prev, within the budget): a carried device takes its
 * result, error text copied, and only the others are evaluated. The cost:
 * was->cost plus that of each device evaluated, an upper bound of the
 * cost of a full evaluation (devices alike are evaluated once there);
 * when that bound passes the budget, the full evaluation is made instead
 * (over_budget exactly when a full evaluation is over). */
void alloc_carry_eval(struct arena *a, const struct alloc_carry *c,
                      const struct cel_program *prog, uint64_t budget,
                      const struct alloc_match *was, struct alloc_match *out);

/* ==== alloc_capacity.c ==== */

/* Takes device d's consumesCounters from its pool's sharedCounters (the
 * state grows s->ctr: undo by resetting s->nctr). -1 when they do not
 * fit. */
int alloc_counters_take(struct search *s, size_t d);
/* One more allocation of multi-allocatable device d for alternative ai:
 * what it consumes of each capacity, summed with the allocations of d so
 * far, must fit (the state grows s->shares by one entry per capacity,
 * or one marker without any: undo by resetting s->nshares). -1 when it
 * does not. */
int alloc_shares_take(struct search *s, size_t ai, size_t d);
/* A necessary condition before the search: the requests of one
 * alternative (ExactCount, not adminAccess) take that many different
 * devices among the node's candidates, so of each shared counter at least
 * as many of its consumers as the candidates that consume none cannot
 * make up, and those cost at least the smallest consumptions. 1 and f
 * filled (WHY_COUNTERS) when that exceeds the counter: the search would
 * only try every combination to find the same (issue 15: it ran out of
 * budget and said nothing on many small partitions). */
int alloc_counters_short(struct search *s, struct alloc_node *f);
/* Spends the consumesCounters of the devices already allocated
 * (alloc_problem.taken) before the search: they stay below nctr_taken. */
void alloc_counters_taken(struct search *s);

/* ==== alloc_constraints.c ==== */

/* Resolves every constraint's attribute and where it applies. */
void alloc_constraints_init(struct search *s);
/* Adds device d, for alternative ai of slot si, to the constraints that
 * apply (pushing undo entries); -1 when one is violated (s->cons_failed
 * says which). */
int alloc_constraints_take(struct search *s, size_t si, size_t ai, size_t d);
/* Pops undo entries down to nundo. */
void alloc_constraints_undo(struct search *s, size_t nundo);
/* Forgets every value taken (a new node or a new attempt). */
void alloc_constraints_reset(struct search *s);
/* The hash of the constrained attribute's name and value on device d
 * (never 0), or 0 when d has none. */
uint64_t alloc_cons_hash(const struct devmodel *m, const struct cstate *c,
                         size_t d);
/* Necessary conditions on the current node's candidates; 1 and f filled
 * when one fails. */
int alloc_constraints_short(struct search *s, struct alloc_node *f);

/* ==== alloc_pools.c ==== */

/* Room for which devices each alternative may use at all (selectors,
 * capacity, taints: judged when a node is first visited) and for the
 * candidates of one node. */
void alloc_pools_init(struct search *s);
/* The candidates of node n per alternative (s->cand, s->ncand, s->cpos);
 * 1 if any alternative has one. */
int alloc_pools_node(struct search *s, size_t n);
/* The first pool (by driver, then name, as Kubernetes' allocator sorts
 * them) with a device on node n that the allocator cannot use (incomplete
 * or invalid with the features in off), or SIZE_MAX. */
size_t alloc_pools_unusable_on(const struct search *s, size_t n,
                               unsigned off);
/* Appends what of tree n a matcher can read (kinds, keys, scalars' text,
 * in written order; NULL too), each string with its length: a key for
 * what was computed from n. -1 when too long for b. */
int alloc_tree_key(struct buf *b, const struct tnode *n);
/* The Pod's nodeSelector and required node affinity (placement.req), and
 * their answer per node when they are kept per model (placement.memo). */
struct placement_of {
    struct na_required req;
    _Atomic unsigned char *memo;    /* alloc_model_placement(), or NULL */
    size_t nmatched;                /* nodes matched here, not known */
};
/* Compiles the Pod's placement and finds what the model knows of it. */
void alloc_placement_init(struct arena *a, const struct devmodel *m,
                          const struct alloc_problem *p,
                          struct placement_of *pl);
/* 1 if the Pod's nodeName, nodeSelector and required node affinity allow
 * node n (labels not known count as allowed); else 0 and *why. */
int alloc_node_placed(const struct alloc_problem *p, struct placement_of *pl,
                      const struct devmodel *m, size_t n,
                      enum alloc_why *why);

/* ==== alloc_memo.c ==== */

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

/* The current node's signature (in the search arena), or NULL when a
 * candidate carries cross-node state. */
uint64_t *alloc_node_signature(struct search *s, size_t *n);
const struct memo_entry *alloc_memo_find(const struct memo *m,
                                         const uint64_t *sig, size_t n);
/* Remembers the answer for nodes like the current one; returns its id
 * for alloc_node.alike (ALLOC_ALIKE when the memo is full). */
size_t alloc_memo_add(struct search *s, struct memo *m, const uint64_t *sig,
                      size_t n, int kind, const struct alloc_node *f);

#endif
