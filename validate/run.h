/*
 * run.h - one linting run: the objects of every input file, checked
 * together (references between files resolve), against an engine and an
 * optional inventory. The linter uses it directly; the webhook goes through
 * engine_check_admission(), which builds a run of one object.
 */
#ifndef CLAIMCHECK_RUN_H
#define CLAIMCHECK_RUN_H

#include <stddef.h>

#include "kinds.h"

struct arena;
struct diag_list;
struct engine;
struct inventory;
struct tnode;
struct rule;
struct run;

/* Everything is allocated in a (objects, trees, findings): release a after
 * run_free() and after printing the findings. */
struct run *run_new(const struct engine *e, const struct inventory *inv,
                    struct arena *a, struct diag_list *out);
/* Loads a YAML/JSON text; parse errors become input-parse findings. The
 * data must stay valid until the run is freed. Documents are read one at
 * a time: one of a kind the rules check into the run's memory for kept
 * objects (its strings shared with theirs), where it stays if its object
 * is kept and is given back at once if not; others into a scratch arena
 * (a JSON value's object is copied if kept); run_free() hands what is
 * kept to a. Documents that are pods or workloads (a top-level `kind:` line
 * says so) are cut here and remembered (where their text is), and read
 * in run_check(), when the objects they reference are all known, each
 * checked and forgotten in turn: a stream of any number of documents
 * costs the run what it keeps and a few words per pod-like document. */
void run_add_text(struct run *r, const char *file, const char *data,
                  size_t len);
/* fn(arg, from, to) is called once the run has read the document at
 * [from, to) of a text given to run_add_text(): as it is cut there, and
 * again for a pod-like one when run_check() has read it. A hint that the
 * text before it may leave memory (the linter lets a mapped file's pages
 * go, file_text_forget()): the run reads a text forwards, twice at most,
 * and what it keeps does not point into it. fn must not change the
 * text. NULL (a new run's): no calls. */
typedef void run_read_fn(void *arg, const char *from, const char *to);
void run_on_read(struct run *r, run_read_fn *fn, void *arg);
/* Adds one already-loaded document root (webhook). */
void run_add_root(struct run *r, const struct tnode *root, const char *file,
                  unsigned doc_index, const char *default_ns);
/* The same for an object a controller made from another checked object
 * (audit: its ownerReferences name a listed controller): only live rules
 * (RULE_LIVE) check it, so a template's finding is not repeated for
 * every Pod or generated claim; other rules still see it as context. */
void run_add_derived(struct run *r, const struct tnode *root,
                     const char *file);
/* Runs every enabled rule on every added object. */
void run_check(struct run *r);
size_t run_objects(const struct run *r);    /* Kubernetes objects seen */
/* Identity of a checked object (for per-object reports such as JUnit);
 * strings owned by the run's arena. */
struct run_obj {
    const char *file, *api_version, *kind, *ns, *name;
};
/* Calls fn for every object of the given kinds the run knows, as checks
 * see them (cx_each): the input's (pods and workloads excepted after
 * run_check: they were parsed one at a time), then the inventory's that
 * no input object shadows. For front ends (the device map). */
struct object;
void run_each(const struct run *r, unsigned kinds,
              void (*fn)(void *arg, const struct object *o), void *arg);
/* The objects of checked kinds, in the order they were checked; valid
 * until run_free(). */
const struct run_obj *run_checked(const struct run *r, size_t *n);
int run_parse_errors(const struct run *r);  /* documents that did not parse */
/* DRAListTypeAttributes at the run's target (a device model built
 * for the run drops list attributes without it) */
int run_list_attributes(const struct run *r);
/* 1 if an inventory was given; the enabled rules whose needed kinds
 * (rule.needs) neither the input nor the inventory holds go to *out (up to
 * max, the count is returned): they could not run. */
int run_has_inventory(const struct run *r);
/* Whether the ResourceSlices and Nodes of the linted input serve as the
 * inventory the checks judge claims and device plugins against
 * (--inventory-from-input). They are linted as objects either way, and
 * DeviceClasses of the input always resolve references (they are applied
 * with the claims). AUTO (a new run's): only when the inventory holds no
 * ResourceSlice or Node; ALWAYS: merged with the inventory; NEVER. A
 * finding judged with them carries INPUT_INVENTORY_NOTE as its last
 * detail. In an audit the input is the cluster: always, and no note. */
enum input_inventory { INPUT_INV_AUTO, INPUT_INV_ALWAYS, INPUT_INV_NEVER };
#define INPUT_INV_KINDS (K_SLICE | K_NODE)
#define INPUT_INVENTORY_NOTE "note: judged with ResourceSlices or Nodes " \
    "of the linted files as the inventory (--inventory-from-input)"
void run_inventory_from_input(struct run *r, enum input_inventory mode);
/* 1 when o may serve as the inventory (cx_inventory_object(), rule.h):
 * for front ends that show the devices (the device map). */
int run_inventory_object(const struct run *r, const struct object *o);
/* 1 when ResourceSlices or Nodes of the input served as the inventory of
 * some check (report_from_input; not in an audit): the summary says so. */
int run_input_inventory(const struct run *r);
size_t run_not_run(const struct run *r, const struct rule **out, size_t max);
void run_free(struct run *r);

#endif
