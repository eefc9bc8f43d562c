/*
 * dra_util.h - questions several rule families ask about DRA objects.
 */
#ifndef CLAIMCHECK_DRA_UTIL_H
#define CLAIMCHECK_DRA_UTIL_H

#include <stddef.h>

struct cel_env;
struct cel_error;
struct cel_program;
struct check_ctx;
struct devreq;
struct object;
struct podclaim;
struct selector;

/* A selector's text compiled in the DRA environment env for Kubernetes
 * 1.<kube_minor> (0 = the newest), once per run: the selector rules, the
 * driver questions below and every object repeating the text share one
 * compile (cx_memo). Returns the program (run-owned, immutable), or NULL
 * with *err pointing at the run-owned compile error. */
const struct cel_program *selector_program(struct check_ctx *cx,
                                           const struct cel_env *env,
                                           int kube_minor, const char *expr,
                                           const struct cel_error **err);
/* The driver every device must have to satisfy these selectors together
 * (`device.driver == "X"` as a conjunct), or NULL. Run-owned. */
const char *selectors_driver(struct check_ctx *cx, const struct selector *sel,
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
