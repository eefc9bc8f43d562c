/*
 * allocate.h - "could this claim / pod be allocated on some node, and why
 * not": a pure model of the scheduler's structured-parameters allocator
 * over a struct devmodel (devmodel.h). No printing: the results are data
 * the satisfiability rules and `claimcheck match` turn into explanations.
 *
 * What is modelled: selectors (evaluated by the caller with alloc_eval()),
 * capacity.requests as a filter (with requestPolicy), device taints against
 * request tolerations, ExactCount and All, firstAvailable alternatives in
 * order, matchAttribute / distinctAttribute constraints (list-type values
 * as Kubernetes compares them), devices of incomplete pools never used
 * (allocationMode All errors on their node), exclusivity across
 * requests (unless allowMultipleAllocations: then the capacity its
 * allocations consume together, and its counters spent once; an
 * adminAccess request shares what earlier claims hold, never what its own
 * claim holds), consumesCounters against the pool's sharedCounters, the
 * Pod's
 * nodeName / nodeSelector / required node affinity against placements,
 * the feature gates the target has off (alloc_alt.off), and the errors
 * Kubernetes' allocator returns instead of "does not fit" (enum
 * alloc_err: ALLOC_ERROR).
 * Devices already allocated to other claims count only when the caller
 * names them (alloc_problem.taken: an audit of a live cluster); otherwise
 * the cluster is taken as empty (capacity already consumed on shared
 * devices is not known either).
 *
 * The search is bounded by a work budget per problem; past it the verdict
 * is ALLOC_UNKNOWN and callers must report nothing.
 */
#ifndef CLAIMCHECK_ALLOCATE_H
#define CLAIMCHECK_ALLOCATE_H

#include <stddef.h>
#include <stdint.h>

#include "devmodel.h"

struct arena;
struct inventory;
struct tnode;
struct cel_env;
struct cel_error;
struct cel_program;

#define ALLOC_BUDGET 200000     /* search steps per object */
/* CEL runtime cost units one selector may spend over the whole inventory
 * (each evaluation is also held to Kubernetes' per-evaluation limit). A
 * costly selector times 40,000 devices took 14 s before this: past the
 * budget its result is "undetermined", rules about it stay silent, and
 * the verdict is cached like any other, so it is paid once per snapshot.
 * The units are Kubernetes' (constants are free), about 3/4 of the
 * per-node units this budget was first set in: 15M bounds the same work
 * as 20M did. */
#define ALLOC_EVAL_BUDGET 15000000ull
#define ALLOC_EXPLAIN_NODES 16  /* nodes whose failure is analysed deeply */
#define ALLOC_SELCACHE 1024     /* selector results kept per model */
#define ALLOC_SELCACHE_BYTES (64u << 20)    /* ... and at most this memory */
#define ALLOC_SELALL 256        /* selector lists combined kept per model
                                   (alloc_select_all) */
#define ALLOC_SOLVED 64         /* problems whose answer is kept per model
                                   (alloc_solve_shared) */
#define ALLOC_SOLVED_BYTES (64u << 20)  /* ... and at most this memory (an
                                   answer that fits nowhere lists every
                                   node: 5.7 MB at 65,000 nodes) */
#define ALLOC_PLACECACHE 128    /* Pod placements whose answer per node is
                                   kept per model (a byte a node each) */
/* resource.AllocationResultsMaxSize: the devices one claim's allocation
 * may hold; Kubernetes' allocator fails a claim that needs more */
#define ALLOC_RESULTS_MAX 32
/* the scheduler's minFeasibleNodesToFind (schedule_one.go): it stops
 * filtering nodes once it has found this many (or a percentage of a
 * larger cluster) that fit, never before */
#define ALLOC_FEASIBLE_MIN 100

/* ==== selector evaluation over every device ==== */

enum alloc_m { AM_NO = 0, AM_YES = 1, AM_ERR = 2 };

struct alloc_match {
    unsigned char *v;           /* per device: enum alloc_m */
    const char **err;           /* per device: runtime error (AM_ERR), NULL
                                   when no device raised one */
    size_t nyes, nerr;
    int over_budget;            /* stopped past the budget: v is partial */
    uint64_t cost;              /* CEL runtime cost units spent */
};

/* Evaluates prog on every device of m. Devices that agree on everything
 * the program can read (driver, allowMultipleAllocations and the
 * attributes and capacities of cel_device_refs) share one evaluation; a
 * program that iterates maps or indexes them dynamically is evaluated on
 * every device. Past `budget` runtime cost units in all (0: no budget)
 * it stops and sets out->over_budget. Results are allocated in a. */
void alloc_eval(struct arena *a, const struct devmodel *m,
                const struct cel_program *prog, uint64_t budget,
                struct alloc_match *out);

/* The results of a selector text over every device of m, computed once
 * per model and shared (lock-free; safe for concurrent callers, which may
 * both compute a new entry, one of them wins; the cache is an extension
 * of the model, freed with it). Returns NULL when the
 * expression does not compile (*err filled), else results that live as
 * long as m. When the cache is full, results are computed into `a`.
 * *spent (may be NULL) gets the CEL runtime cost units this call spent:
 * 0 when the results were cached (a request's budget, budget.h). */
const struct alloc_match *alloc_eval_cached(const struct devmodel *m,
                                            const struct cel_env *env,
                                            const char *expr,
                                            struct arena *a,
                                            struct cel_error *err,
                                            uint64_t *spent);

/* What a list of selectors makes of every device of m together, in
 * order (a request's class selectors, then its own): per device 1 when
 * every one is true, else 0; where the first one that is not true raised
 * a runtime error, which one (err_sel: its index + 1) and why. */
struct alloc_selall {
    const unsigned char *v;     /* per device: 1 if every selector is true */
    size_t nyes;
    const size_t *err_sel;      /* per device: the erring selector + 1, or
                                   0; NULL when no device raised one */
    const char *const *err_msg; /* per device, where err_sel is set */
    size_t nerr;
    const char *key;            /* kept with the model under this key
                                   (env and texts); NULL: computed into
                                   the caller's arena */
};

/* The AND of n selector results mt[] (of the texts exprs[], evaluated
 * with env by alloc_eval_cached()), computed once per model for the same
 * env and texts and shared like the selector results (lock-free, bounded
 * by ALLOC_SELALL entries and ALLOC_SELCACHE_BYTES with them): a thousand
 * claims with one request shape combine once. When the cache has no room
 * the result is computed into a. Lives as long as m (or a). */
const struct alloc_selall *alloc_select_all(const struct devmodel *m,
                                            const struct cel_env *env,
                                            const char *const *exprs,
                                            const struct alloc_match
                                            *const *mt, size_t n,
                                            struct arena *a);

/* The CEL environment the scheduler evaluates device selectors in:
 * stored expressions, list values bound only with DRAListTypeAttributes
 * on (list_attributes; cel.Features). */
struct cel_env alloc_scheduler_env(int list_attributes);

/* Learns now what the allocator would learn on first use from the
 * snapshot inv and its device model, whatever the request: the device
 * kinds and filtered devices, whether a device has list values, the
 * index of the nodes' labels, and the selector results of each
 * DeviceClass and of the requests of the snapshot's claim templates (at
 * most 256 lists) with their combination (alloc_select_all), within the
 * caches' bounds, so that the first review of
 * a snapshot is as fast as the next (inventory_prepare calls it before
 * a snapshot is published). Thread-safe; nothing without devices. */
void alloc_model_warm(const struct inventory *inv);
/* The same for a snapshot whose model was built from prev's
 * (devmodel_build_next; prev alive during the call, NULL: none): the
 * selector results prev keeps are taken for the devices the model took
 * from prev, only the other devices are evaluated; the results are those
 * of alloc_model_warm() (their cost an upper bound of its, see
 * alloc_carry_eval). */
void alloc_model_warm_next(const struct inventory *inv,
                           const struct devmodel *prev);

/* What of the above m has learnt (ALLOC_KNOWS_* bits): for tests and
 * benchmarks. */
enum { ALLOC_KNOWS_KINDS = 1, ALLOC_KNOWS_LISTS = 2, ALLOC_KNOWS_LABELS = 4 };
unsigned alloc_model_knows(const struct devmodel *m);

/* The devices of m (in model order) that a filter other than selectors
 * may refuse whatever the request: tainted, or needing a feature gate
 * (dm_device.taints, .gated); *n gets how many. Computed once per model
 * and kept with the selector cache (lock-free); lives as long as m. */
const size_t *alloc_model_filtered(const struct devmodel *m, size_t *n);

/* Per device of m, what filters other than selectors and capacity
 * requests make of it whatever features are off (no feature gate needed,
 * its pool usable): DEV_PLAIN nothing refuses it; DEV_TAINTED a request
 * without tolerations is refused by a taint (unless taints are off); 0
 * anything else (read the device). Once per model, lives as long as m. */
enum { DEV_PLAIN = 1, DEV_TAINTED = 2 };
const unsigned char *alloc_model_kinds(const struct devmodel *m);

/* ==== the problem ==== */

struct alloc_capreq {           /* capacity.requests entry */
    const char *name;           /* as written: "domain/id" or "id" */
    struct quantity q;
    const char *text;           /* the quantity as written */
};

/* alloc_alt.off: features the target cluster has off (its feature gates),
 * applied as Kubernetes' allocator applies them */
enum {
    ALLOC_OFF_TAINTS = 1,       /* DRADeviceTaints: taints are ignored */
    ALLOC_OFF_PARTITIONABLE = 2,/* DRAPartitionableDevices: devices that
                                   need it (DM_GATED_PARTITIONABLE) are not
                                   allocatable; counters do not make a pool
                                   invalid */
    ALLOC_OFF_BINDING = 4,      /* DRADeviceBindingConditions or
                                   DRAResourceClaimDeviceStatus: devices with
                                   bindingConditions are not allocatable */
};

struct alloc_alt {              /* a request, or one firstAvailable entry */
    const char *name;           /* "gpu" or "gpu/big" */
    const unsigned char *sel;   /* per device: 1 if every class and request
                                   selector is true */
    int all;                    /* allocationMode: All */
    long long count;            /* ExactCount */
    int admin;                  /* adminAccess */
    const struct tnode *tolerations;
    const struct alloc_capreq *caps;
    size_t ncaps;
    unsigned off;               /* ALLOC_OFF_* */
    const char *sel_key;        /* the key the model keeps sel under
                                   (alloc_selall.key), or NULL: then the
                                   problem's answer is not shared */
};

struct alloc_request {
    const char *name;
    const struct alloc_alt *alts;   /* the request itself, or its
                                       firstAvailable list in order */
    size_t nalts;
};

struct alloc_constraint {
    int distinct;               /* distinctAttribute, else matchAttribute */
    const char *attr;           /* fully qualified attribute name */
    const char *const *reqs;    /* "req" or "req/sub"; none = all */
    size_t nreqs;
};

struct alloc_claim {
    const char *name;           /* for messages */
    const struct alloc_request *reqs;
    size_t nreqs;
    const struct alloc_constraint *cons;
    size_t ncons;
};

struct alloc_problem {
    const struct alloc_claim *claims;   /* one, or all of a Pod's */
    size_t nclaims;
    const char *node_name;              /* Pod spec.nodeName */
    const struct tnode *node_selector;  /* Pod spec.nodeSelector (map) */
    const struct tnode *affinity;       /* required node affinity
                                           (a NodeSelector; NULL or null:
                                           none), see nodeaffinity.h */
    unsigned long budget;               /* 0: ALLOC_BUDGET */
    uint64_t deadline_ns;               /* clock_mono_ns() time; past it
                                           the search stops as if out of
                                           budget (0: none) */
    int share_large;                    /* alloc_solve_shared() keeps an
                                           answer that fails on many nodes
                                           too (a lint of many claims of
                                           one shape). Not in admission:
                                           each answer kept there is that
                                           much memory the next reviews
                                           get fresh (page faults: at
                                           20,000 nodes 2 -> 10 ms for a
                                           Pod that fits nowhere), and the
                                           verdict cache answers repeated
                                           Pods */
    const unsigned char *taken;         /* per device of the model: 1 if
                                           allocated already (not a
                                           candidate unless adminAccess or
                                           allowMultipleAllocations; its
                                           consumesCounters are spent);
                                           NULL: an empty cluster */
};

/* ==== the answer ==== */

/* ALLOC_ERROR: on some node Kubernetes' allocator stops with an error,
 * and fewer than ALLOC_FEASIBLE_MIN nodes can host the problem: the
 * scheduler then filters every node, and the error of one aborts the
 * attempt (the Pod stays Pending with that error in its events);
 * alloc_result.error says why */
enum alloc_verdict { ALLOC_OK, ALLOC_FAIL, ALLOC_UNKNOWN, ALLOC_ERROR };

enum alloc_why {
    WHY_NODENAME,               /* the Pod's nodeName is another node */
    WHY_NODESELECTOR,           /* the Pod's nodeSelector excludes it */
    WHY_AFFINITY,               /* required node affinity excludes it */
    WHY_COUNT,                  /* too few matching devices for a request */
    WHY_CONSTRAINT,             /* a constraint cannot be met */
    WHY_COUNTERS,               /* shared counters are exhausted */
    WHY_EXCLUSIVE,              /* requests compete for the same devices */
    WHY_TOGETHER,               /* no combination works (other reasons) */
    WHY_BUDGET,                 /* search budget exhausted on this node */
    WHY_ERROR,                  /* Kubernetes' allocator returns an error
                                   on this node (alloc_node.err says which) */
};

/* alloc_node.err: the errors of Kubernetes' allocator that are modelled
 * (allocator.go, at v1.36) */
enum alloc_err {
    AERR_ALL_INCOMPLETE = 1,    /* allocationMode All while a pool of the
                                   node is incomplete: "asks for all
                                   devices, but resource pool ... is
                                   currently being updated" (obj: pool) */
    AERR_ALL_INVALID,           /* ... or invalid (obj: pool) */
    AERR_ALL_CONSTRAINT,        /* allocationMode All: a device it must take
                                   breaks a constraint: "cannot add device
                                   ... because a claim constraint would not
                                   be satisfied" (obj: device, cons) */
    AERR_TOO_MANY,              /* a claim needs more than ALLOC_RESULTS_MAX
                                   devices: "exceeds the claim limit"
                                   (have: how many) */
};

struct alloc_node {             /* why one node cannot host the problem */
    size_t node;                /* index into m->nodes */
    enum alloc_why why;
    size_t claim, req;          /* WHY_COUNT / WHY_CONSTRAINT: which */
    long long have, need;       /* WHY_COUNT: matching devices, needed
                                   (need 0: All) */
    size_t cons;                /* WHY_CONSTRAINT: index in the claim */
    enum alloc_err err;         /* WHY_ERROR: which; claim and req say
                                   where (req: the slot, alt: its
                                   alternative) */
    size_t alt;                 /* WHY_ERROR: alternative index in req */
    size_t obj;                 /* WHY_ERROR: the pool or device index */
    size_t alike;               /* nodes with the same candidate pattern
                                   (so the same explanation) share this
                                   number < ALLOC_ALIKE; else ALLOC_ALIKE */
};

#define ALLOC_ALIKE 512

/* The search stops once ALLOC_FEASIBLE_MIN nodes fit (alloc_result.enough),
 * as the scheduler's filter does: the counts then cover the nodes visited
 * (the first nvisited of the model), not the whole inventory. */
struct alloc_result {
    enum alloc_verdict verdict;
    size_t nsat;                /* nodes that can host it */
    size_t sat_first;           /* one of them (when nsat > 0) */
    size_t nmatching;           /* nodes with a matching device for every
                                   request (before combining) */
    size_t nplaced;             /* nodes the Pod's placement allows */
    size_t nwithdev;            /* nodes with some matching device */
    struct alloc_node *fails;   /* failing nodes with a device, in model
                                   order, then placement exclusions */
    size_t nfails;
    unsigned long steps;        /* work done */
    int partial;                /* budget exhausted: nsat is a lower bound
                                   and fails[] incomplete */
    int enough;                 /* stopped when ALLOC_FEASIBLE_MIN nodes
                                   fit (verdict ALLOC_OK) */
    size_t nvisited;            /* nodes looked at, in model order */
    size_t ndevchecked;         /* devices whose filters were evaluated
                                   (capacity, taints, pools) */
    size_t nplacematch;         /* nodes whose labels the Pod's placement
                                   was matched against (not known from an
                                   earlier problem with the same one) */
    size_t nerror;              /* nodes where the allocator errors */
    struct alloc_node error;    /* the first of them (WHY_ERROR) */
};

/* Solves p over m. Every alternative's selector vector must have
 * m->ndevs entries. Memory from a. Returns out->verdict. */
enum alloc_verdict alloc_solve(struct arena *a, const struct devmodel *m,
                               const struct alloc_problem *p,
                               struct alloc_result *out);

/* alloc_solve(), with the answer kept per model and shared (lock-free,
 * bounded by ALLOC_SOLVED entries and ALLOC_SOLVED_BYTES) when p says all
 * it asks in text: every alternative's
 * sel_key set, no taken devices. An answer is kept when it is complete
 * (not partial, not ALLOC_UNKNOWN) and is found again by a problem that
 * reads the same (the same budget included): a thousand claims of one
 * shape that fit nowhere walk the nodes once. A kept answer's fails[]
 * lives as long as m; steps are the search's that found it (a request's
 * budget is charged the same), ndevchecked and nplacematch 0 (no work
 * done). */
enum alloc_verdict alloc_solve_shared(struct arena *a,
                                      const struct devmodel *m,
                                      const struct alloc_problem *p,
                                      struct alloc_result *out);

/* 1 if device d passes alt's filters other than selectors: the features
 * it needs (alt->off), capacity requests and taints. When it does not and
 * why is not NULL, *why is set to a short reason (arena-owned), e.g.
 * "memory 40Gi < 80Gi". */
int alloc_device_fits(struct arena *a, const struct dm_device *d,
                      const struct alloc_alt *alt, const char **why);

/* Why Kubernetes' allocator does not allocate device d while the features
 * in off (ALLOC_OFF_*) are off (static text), or NULL. */
const char *alloc_device_gated(const struct dm_device *d, unsigned off);

/* alloc_device_fits() without a reason, quick where nothing can fail. */
static inline int alloc_device_ok(struct arena *a, const struct dm_device *d,
                                  const struct alloc_alt *alt)
{
    return (!alt->ncaps && !d->taints && !d->gated)
           || alloc_device_fits(a, d, alt, NULL);
}

/* 1 if the allocator may use the devices of pool p at all: complete, and
 * valid (with ALLOC_OFF_PARTITIONABLE in off, counters cannot make it
 * invalid). */
int alloc_pool_usable(const struct dm_pool *p, unsigned off);

/* 1 if alt tolerates no taint (no tolerations). */
int alloc_no_tolerations(const struct alloc_alt *alt);

/* 1 if tolerations (a DeviceToleration sequence, may be NULL) tolerate
 * the taint. */
int alloc_tolerates(const struct tnode *tolerations,
                    const struct tnode *taint);

#endif
