/*
 * rule.h - the interface between the engine and the checks: what a rule
 * is (struct rule), a table of them (struct ruleset, handed to
 * engine_new()), and the API a check sees (report(), cx_*()).
 *
 * The core never names a rule table: the front ends pass one (rules/
 * registry.c builds claimcheck's), so validate/ depends on no rule. A
 * check never prints, allocates with malloc or returns early with an
 * error: it calls report() for each finding; report() takes the rule from
 * the context, so a check cannot report under another rule's id.
 */
#ifndef CLAIMCHECK_RULE_H
#define CLAIMCHECK_RULE_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"

struct tnode;
struct object;
struct check_ctx;

enum category {
    CAT_INPUT, CAT_SCHEMA, CAT_REFERENCE, CAT_CONFLICT, CAT_FEATURE_GATE,
    CAT_API_VERSION, CAT_SELECTOR, CAT_SATISFIABILITY, CAT_SHARING
};

/* struct rule.flags */
enum {
    RULE_LIVE = 1u << 0,        /* judges a live cluster's state (status,
                                   allocations, time): runs only in an
                                   audit (config.audit.on), and also on
                                   derived objects (struct object) */
    RULE_APISERVER = 1u << 1,   /* what the apiserver's own validation
                                   rejects: it judges every UPDATE in full,
                                   so the webhook never ratchets these */
};

struct rule {
    const char *id;             /* "shared-claim-replicas": stable forever */
    enum category category;
    enum sev default_sev;
    unsigned flags;             /* RULE_* */
    unsigned kinds;             /* K_* mask of the kinds it checks;
                                   0 = reported by the engine itself */
    void (*check)(struct check_ctx *cx, const struct object *obj);
    unsigned needs;             /* K_* kinds it judges against (input or
                                   inventory, or with NEEDS_INVENTORY the
                                   inventory only): without any it cannot
                                   run */
    const char *summary;        /* one line, for `claimcheck rules` */
    const char *hint;           /* remediation, shown under each finding */
    const char *why;            /* `claimcheck explain`: why it matters */
    const char *bad;            /* `claimcheck explain`: failing example */
    const char *good;           /* `claimcheck explain`: fixed example */
};

#define NEEDS_INVENTORY (1u << 30)

/* A rule table: sorted by id (binary search), rows never move. */
struct ruleset {
    const struct rule *v;
    size_t n;
};

/* The rule with that id, or NULL. */
const struct rule *ruleset_find(const struct ruleset *rs, const char *id);
/* The rule id or category name nearest to a mistyped word ("did you
 * mean"), or NULL. */
const char *ruleset_suggest(const struct ruleset *rs, const char *word);
/* "input", "schema", ... */
const char *category_name(enum category c);
/* 0 and *out, or -1 for a name that is no category. */
int category_parse(const char *s, enum category *out);

/* Reports a finding at node `at` (its key position) of the object being
 * checked (NULL: the object itself). fmt renders the message: lowercase, no
 * full stop. */
void report(struct check_ctx *cx, const struct tnode *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The same, with explanation lines shown under the finding (text output)
 * and in its `details` array (JSON). details must be arena-owned. */
void report_details(struct check_ctx *cx, const struct tnode *at,
                    const char **details, size_t ndetails,
                    const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* The same as report(), with the field path given instead of at's own:
 * the path as the apiserver prints it (field.Path: "spec.devices.
 * requests[0].exactly.count", map keys in brackets), where it differs from
 * the tree's (a bad label key is reported on "metadata.labels", a v1beta1
 * flat request field on its internal "...exactly.count"). The position is
 * still at's. path is copied. */
void report_path(struct check_ctx *cx, const struct tnode *at,
                 const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The hint of the next finding reported in this check, instead of the
 * rule's (for a case the rule's hint does not fit); s must be
 * arena-owned or static. */
void report_hint(struct check_ctx *cx, const char *s);
/* Every finding this check reports from now on (on this object) was
 * judged with ResourceSlices or Nodes of the linted input
 * (cx_inventory_object() said yes to one): each gets a note saying so. */
void report_from_input(struct check_ctx *cx);
/* The same as report(), at severity max when the rule's is higher: for a
 * rule's lesser findings (unknown-field's duplicate keys, which kubectl
 * collapses, are warnings where unknown fields are errors). */
void report_capped(struct check_ctx *cx, enum sev max, const struct tnode *at,
                   const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The same as report(), positioned at line:col inside the value of `at`
 * (e.g. the token of a CEL expression that fails); the path is at's. */
void report_at(struct check_ctx *cx, const struct tnode *at, unsigned line,
               unsigned col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* ==== what a check may look at ==== */
struct arena;
struct target;
struct inventory;
struct cel_env;
/* Arena for messages and details: lives as long as the findings. */
struct arena *cx_arena(struct check_ctx *cx);
/* Target version, gates and config (device-plugin maps...). */
const struct target *cx_target(struct check_ctx *cx);
/* The DRA CEL environment at the target (target_cel_env(), computed once
 * per engine). */
const struct cel_env *cx_cel_env(struct check_ctx *cx);
/* The inventory snapshot, or NULL when none was given. */
const struct inventory *cx_inventory(struct check_ctx *cx);
/* An object by kind (one K_* bit), namespace ("" for cluster-scoped) and
 * name, from the checked input first, then the inventory; NULL if unknown. */
const struct object *cx_lookup(struct check_ctx *cx, unsigned kind,
                               const char *ns, const char *name);
/* An input object of that kind and name in a namespace other than ns (one
 * of the checked object's own file first), or NULL. */
const struct object *cx_lookup_elsewhere(struct check_ctx *cx, unsigned kind,
                                         const char *name, const char *ns);
/* 1 if any object of these kinds is known (input or inventory): a rule
 * that needs them stays silent otherwise. */
int cx_have(struct check_ctx *cx, unsigned kinds);
/* 1 if the checked input itself (not the inventory) holds objects of
 * these kinds (pods and workloads are not counted: they come last). */
int cx_input_has(struct check_ctx *cx, unsigned kinds);
/* 1 if the inventory (not the input) holds objects of these kinds. */
int cx_inventory_has(struct check_ctx *cx, unsigned kinds);
/* 1 when o may serve as the inventory a check judges against: an
 * inventory object, an input object of another kind than ResourceSlice
 * and Node, or one of those when --inventory-from-input lets the input's
 * serve (run.h). A check that uses an input one says so with
 * report_from_input(). */
int cx_inventory_object(struct check_ctx *cx, const struct object *o);
/* Calls fn for every known object of the given kinds (input, then
 * inventory objects that no input object shadows). */
void cx_each(struct check_ctx *cx, unsigned kinds,
             void (*fn)(void *arg, const struct object *o), void *arg);
/* Admission's validation budget (budget.h): 1 once the run's deadline,
 * CEL cost or allocator steps have passed their limit (the run's findings
 * are then discarded), 0 otherwise or without one. */
int cx_expired(struct check_ctx *cx);
/* The deadline itself (clock.h clock_mono_ns() time, 0 = none), for work
 * that checks it on its own (the allocator). */
uint64_t cx_deadline(struct check_ctx *cx);
/* The allocator steps the budget still allows (alloc_problem.budget; 0:
 * no limit) and the charge for work done: CEL runtime cost units spent
 * evaluating selectors, allocator steps searched (alloc_result.steps). */
unsigned long cx_steps_left(struct check_ctx *cx);
void cx_charge(struct check_ctx *cx, uint64_t cel_cost, uint64_t steps);
/* A pointer slot per key, NULL at first, that lives as long as the run:
 * for what a family computes once per run rather than per object. What it
 * points to must be in cx_arena() (or freed by nobody: avoid). */
void **cx_memo(struct check_ctx *cx, const char *key);
/* cx_memo() of a key that is a string constant (never a buffer whose text
 * changes): found faster. */
void **cx_memo_fixed(struct check_ctx *cx, const char *key);
/* Calls fn(arg) when the run ends (after every check): frees what a family
 * keeps outside cx_arena(), e.g. a scratch arena reused per object. */
void cx_at_run_end(struct check_ctx *cx, void (*fn)(void *arg), void *arg);

#endif
