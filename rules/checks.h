/*
 * checks.h - prototypes of every check function, one per rule, grouped by
 * the file of their family. Only registry.c and the family files include
 * this header.
 */
#ifndef CLAIMCHECK_CHECKS_H
#define CLAIMCHECK_CHECKS_H

struct check_ctx;
struct object;

/* fields.c */
void check_unknown_field(struct check_ctx *cx, const struct object *o);
void check_input_types(struct check_ctx *cx, const struct object *o);

/* schema_claim.c */
void check_claim_schema(struct check_ctx *cx, const struct object *o);

/* schema_slice.c */
void check_slice_schema(struct check_ctx *cx, const struct object *o);

/* schema.c */
void check_extended_resource_limits(struct check_ctx *cx,
                                    const struct object *o);

/* metadata.c */
void check_object_metadata(struct check_ctx *cx, const struct object *o);

/* references.c */
void check_pod_claim_undeclared(struct check_ctx *cx, const struct object *o);
void check_pod_claim_source(struct check_ctx *cx, const struct object *o);
void check_pod_claim_unused(struct check_ctx *cx, const struct object *o);
void check_claim_request_unknown(struct check_ctx *cx, const struct object *o);
void check_claim_not_found(struct check_ctx *cx, const struct object *o);
void check_device_class_not_found(struct check_ctx *cx,
                                  const struct object *o);

/* sharing.c */
void check_shared_claim_replicas(struct check_ctx *cx, const struct object *o);
void check_admin_access_namespace(struct check_ctx *cx,
                                  const struct object *o);
void check_allocation_all_unbounded(struct check_ctx *cx,
                                    const struct object *o);
void check_claim_idle(struct check_ctx *cx, const struct object *o);

/* gates.c */
void check_feature_gate_disabled(struct check_ctx *cx, const struct object *o);
void check_feature_gate_prerelease(struct check_ctx *cx,
                                   const struct object *o);
void check_api_version_unavailable(struct check_ctx *cx,
                                   const struct object *o);
void check_api_version_deprecated(struct check_ctx *cx,
                                  const struct object *o);

/* conflict.c */
void check_device_plugin_dra_conflict(struct check_ctx *cx,
                                      const struct object *o);
void check_node_double_managed(struct check_ctx *cx, const struct object *o);
void check_extended_resource_mapping(struct check_ctx *cx,
                                     const struct object *o);

/* satisfiability.c */
void check_selector_no_device(struct check_ctx *cx, const struct object *o);
void check_claim_unsatisfiable(struct check_ctx *cx, const struct object *o);
void check_selector_runtime_error(struct check_ctx *cx,
                                  const struct object *o);
void check_claim_scarce(struct check_ctx *cx, const struct object *o);
void check_claim_blocked(struct check_ctx *cx, const struct object *o);

/* pools.c */
void check_pool_invalid(struct check_ctx *cx, const struct object *o);
void check_pool_incomplete(struct check_ctx *cx, const struct object *o);

/* selectors.c */
void check_selector_invalid(struct check_ctx *cx, const struct object *o);
void check_selector_never_matches(struct check_ctx *cx,
                                  const struct object *o);
void check_selector_foreign_domain(struct check_ctx *cx,
                                   const struct object *o);

#endif
