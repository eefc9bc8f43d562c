/*
 * engine.h - the validation core's entry points: objects x rules -> findings.
 *
 * A struct engine holds the resolved configuration (target Kubernetes
 * version, feature gates, runtime-config, rule severities, device-plugin map)
 * and is immutable after engine_init(), so webhook threads share one.
 * A struct inventory is an immutable snapshot of cluster objects
 * (DeviceClasses, ResourceSlices, Nodes, Namespaces, ResourceClaims,
 * ResourceClaimTemplates);
 * it is built once and then only read, so it can be swapped atomically.
 */
#ifndef CLAIMCHECK_ENGINE_H
#define CLAIMCHECK_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "diag.h"

struct arena;
struct err;
struct tnode;
struct config;
struct inventory;
struct engine;
struct ruleset;
struct rule;

/* Builds an engine from a config (see config.h) and a rule table (the
 * front end's: rules/rules.h rules_builtin), both borrowed for the
 * engine's life. Returns NULL and fills err on failure (unknown gate,
 * unknown rule id in the config...). */
struct engine *engine_new(const struct config *cfg,
                          const struct ruleset *rules, struct err *err);
/* The config the engine was built with (borrowed). */
const struct config *engine_config(const struct engine *e);
/* The rule table the engine was built with. */
const struct ruleset *engine_rules(const struct engine *e);
void engine_free(struct engine *e);
/* The target Kubernetes version, "1.34". */
const char *engine_kube_version(const struct engine *e);
/* What the webhook does with rule r's errors (config rules.ID.action):
 * ACTION_DENY unless the config says warn or off. */
enum config_action engine_rule_action(const struct engine *e,
                                      const struct rule *r);

/* Admission: checks one object (the AdmissionReview's request.object, as a
 * tree without positions) against the engine's rules and, when inv is not
 * NULL, against the inventory. ns is request.namespace (may be "" for
 * cluster-scoped kinds). Findings are appended to out (allocated in out's
 * arena). deadline_ns (clock.h clock_mono_ns() time, 0 = none) is checked
 * before every rule and inside the allocator's search: once it has passed,
 * the work stops, nothing is appended and 1 is returned. Returns 0, 1, or
 * -1 with err filled for input that is not an object. */
int engine_check_admission(const struct engine *e, const struct inventory *inv,
                           const struct tnode *object, const char *ns,
                           uint64_t deadline_ns, struct diag_list *out,
                           struct err *err);

/* The same for an UPDATE, and with a whole work budget (budget.h; NULL:
 * none): the deadline, CEL runtime cost and allocator steps. What the run
 * spends is added to *budget (a verdict cache hit spends nothing); once a
 * limit is passed the work stops as at the deadline (1 is returned, no
 * findings) and work_budget_over() says which. The overshoot is at most
 * one selector's pass over the inventory (ALLOC_EVAL_BUDGET units), which
 * cannot stop halfway. stored_selectors: the object's CEL selectors are
 * those already stored (a ResourceClaim's or template's immutable spec, a
 * DeviceClass whose selectors did not change): Kubernetes validates them
 * with the StoredExpressions environment, which accepts what an older or
 * newer apiserver or other feature gates admitted. */
struct work_budget;
int engine_check_update(const struct engine *e, const struct inventory *inv,
                        const struct tnode *object, const char *ns,
                        int stored_selectors, struct work_budget *budget,
                        struct diag_list *out, struct err *err);

/* Inventory snapshots. inventory_new() returns an empty snapshot that owns
 * its own arena; objects added are deep-copied into it. */
struct inventory *inventory_new(void);
/* Adds every object of a YAML/JSON text (multi-document, List). Parse errors
 * are failures here (-1 + err naming file:line:col). inventory_add_texts()
 * with one file. The text and the file name may go once it returns:
 * nothing points into them. */
int inventory_add_text(struct inventory *inv, const char *file,
                       const char *data, size_t len, struct err *err);
/* The same for n files, parsed on two threads that take the files in
 * turn (each file into an arena of its own, merged in after):
 * the objects, their order and the error are those of inventory_add_text()
 * called on each file in turn, which stops at the first that fails.
 * objects is set to the number of objects each file added (0 from the
 * one that fails on). */
struct inventory_text {
    const char *file;
    const char *data;
    size_t len;
    size_t objects;             /* out */
};
int inventory_add_texts(struct inventory *inv, struct inventory_text *t,
                        size_t n, struct err *err);
/* Adds one object tree (deep copy). Kinds that are not inventory kinds are
 * ignored (returns 0). */
int inventory_add_tree(struct inventory *inv, const struct tnode *obj,
                       struct err *err);
/* Adds every object of base (not copied: shared) and keeps a reference to
 * base until inventory_free(inv), so that objects parsed once (the
 * webhook's --inventory files) serve every snapshot built on them. base
 * must not change afterwards; at most one base per snapshot. */
void inventory_add_inventory(struct inventory *inv, struct inventory *base);
/* Number of objects of inventory kinds held. */
size_t inventory_size(const struct inventory *inv);
/* The DRAListTypeAttributes gate of the cluster the snapshot is from
 * (default on): off, its device model leaves out list-valued attributes,
 * as the apiserver drops them from the slices it stores. Call before the
 * model is built (inventory_prepare(), the first check). */
void inventory_set_list_attributes(struct inventory *inv, int on);
/* For a snapshot that lives long (the webhook's): its objects' trees are
 * kept as copies with every string held once, about a quarter less
 * memory than the trees as loaded for about half again the CPU of the
 * load (default off: a run of the linter loads and drops its inventory).
 * Call before objects are added. */
void inventory_set_compact(struct inventory *inv, int on);
/* For a snapshot that follows another (the webhook's): its device model
 * is built from prev's, taking the devices of every pool whose
 * ResourceSlices are the same objects (inventory_add_inventory shares
 * them) instead of building them again, and the snapshot after it can
 * take from it in turn. prev (NULL: none yet; one whose model is not
 * built counts as none) is held until inv's model is built. Call before
 * that. */
void inventory_set_previous(struct inventory *inv, struct inventory *prev);
/* The gate as the engine's target has it. */
int engine_list_attributes(const struct engine *e);
/* Builds now what the checks derive from the snapshot (its device model,
 * and what the allocator learns from it whatever the request:
 * alloc_model_warm) instead of on first use, so that a snapshot is ready
 * when published.
 * Optional; thread-safe. */
void inventory_prepare(const struct inventory *inv);
/* Drops the caller's reference: the snapshot (and a base it shares) is
 * freed with the last one. */
void inventory_free(struct inventory *inv);

#endif
