/*
 * allocated.h - the devices a live cluster has handed out already: the
 * status.allocation.devices.results of its ResourceClaims laid onto a
 * device model. The allocator takes `taken` as alloc_problem.taken (an
 * audit judges what can be allocated now); explanations and the device
 * map name the claim holding each device. Built per run, then read-only.
 */
#ifndef CLAIMCHECK_ALLOCATED_H
#define CLAIMCHECK_ALLOCATED_H

#include <stddef.h>

struct arena;
struct devmodel;
struct object;

struct allocated {
    unsigned char *taken;       /* per device: 1 if allocated (adminAccess
                                   results excepted: they share) */
    const struct object **holder;   /* per device: a claim it is allocated
                                       to (adminAccess ones too), or NULL */
    size_t nheld;               /* devices with a holder */
    size_t nunknown;            /* results naming a device the model does
                                   not have (a pool that changed since) */
};

/* Lays the allocations of claims (objects of other kinds and claims
 * without status.allocation are skipped) onto m's devices. Everything is
 * allocated in a; the claims must outlive out. */
void allocated_build(struct arena *a, const struct devmodel *m,
                     const struct object *const *claims, size_t n,
                     struct allocated *out);

#endif
