/*
 * devicemap.h - a run's devices as a person looks at them (the HTML
 * report): every device of the run's ResourceSlices on its node, by driver
 * and pool, the counters of each pool and how much of them allocated
 * devices use, and for each claim (or claim template) the devices it holds
 * (status.allocation: an audit, or an exported cluster) and those its
 * requests could take (their class and request selectors, evaluated by the
 * allocator's shared evaluation). Data only: the renderer lays it out.
 */
#ifndef CLAIMCHECK_DEVICEMAP_H
#define CLAIMCHECK_DEVICEMAP_H

#include <stddef.h>

struct arena;
struct allocated;
struct devmodel;
struct object;
struct run;

#define DEVICEMAP_COULD_MAX 2048    /* candidates listed per claim */

struct devicemap_claim {
    const struct object *obj;   /* a ResourceClaim or ResourceClaimTemplate */
    int allocated;              /* has status.allocation */
    const char *requests;       /* "gpu: 2 of class gpu.example.com" */
    size_t *held;               /* device indices (allocation results) */
    size_t nheld;
    size_t *could;              /* devices every selector of a request
                                   admits (first DEVICEMAP_COULD_MAX) */
    size_t ncould, ncould_total;
};

struct devicemap_counter {      /* one counter of a pool's counter set */
    size_t pool;                /* index into m->pools */
    const char *set, *name;
    const char *total;          /* quantity as written */
    double total_v, used_v;     /* in base units, for the bars */
};

struct devicemap {
    const struct devmodel *m;   /* nodes, devices, pools */
    struct devmodel *model;     /* the same, for devicemap_free */
    const struct allocated *al; /* per device: who holds it */
    struct devicemap_claim *claims;
    size_t nclaims;
    struct devicemap_counter *counters;
    size_t ncounters;
};

/* The run's device map in a (the run and its objects must outlive it), or
 * NULL when the run knows no device. */
struct devicemap *devicemap_build(struct arena *a, const struct run *r);
/* Frees the model's selector cache (the rest is a's); NULL is fine. */
void devicemap_free(struct devicemap *dm);

#endif
