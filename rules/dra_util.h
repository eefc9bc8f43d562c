/*
 * dra_util.h - questions several rule families ask about DRA objects.
 */
#ifndef CLAIMCHECK_DRA_UTIL_H
#define CLAIMCHECK_DRA_UTIL_H

#include <stddef.h>

struct arena;
struct check_ctx;
struct devreq;
struct object;
struct podclaim;
struct selector;

/* The driver every device must have to satisfy these selectors together
 * (`device.driver == "X"` as a conjunct), or NULL. Arena-owned. */
const char *selectors_driver(struct arena *a, const struct selector *sel,
                             size_t n);
/* The driver a request pins, from its own selectors or its DeviceClass's
 * (when the class is known), or NULL. */
const char *request_driver(struct check_ctx *cx, const struct devreq *r);
/* The ResourceClaim or ResourceClaimTemplate a pod claim entry names, if
 * known, else NULL. */
const struct object *podclaim_target(struct check_ctx *cx,
                                     const struct object *pod,
                                     const struct podclaim *pc);

#endif
