/*
 * satisfiability.h - what the satisfiability rules share (rules/ only):
 * the per-run state (the device model, selector results by text), requests
 * and claims as the allocator sees them, the problem of one object, and
 * the explanation text explain.c writes for the checks of
 * satisfiability.c.
 */
#ifndef CLAIMCHECK_RULES_SATISFIABILITY_H
#define CLAIMCHECK_RULES_SATISFIABILITY_H

#include <stddef.h>

#include "../validate/allocate.h"
#include "../validate/strmap.h"

struct arena;
struct check_ctx;
struct object;

#define MAX_DETAILS 10          /* explanation lines per finding */
#define MAX_MISSES 3            /* nearest misses shown */
#define CLIP 100                /* clause text shown, in bytes */

/* ==== per-run state (satisfiability.c) ==== */

struct selres {                 /* one selector or clause text */
    int ok;                     /* compiled */
    const char *err;            /* why not (!ok) */
    struct alloc_match match;   /* the model's shared results (a copy of
                                   the header; vectors are the model's) */
};

struct sat {
    const struct devmodel *m;   /* NULL: no devices, every rule silent */
    const struct devmodel *objects; /* the input's slices and nodes with
                                   the inventory's, whether or not they
                                   serve as it (m then): the pool rules
                                   lint them as objects; NULL: no devices */
    int from_input;             /* m holds the input's slices and nodes */
    struct strmap sel;          /* expression text -> struct selres * */
    size_t nodes_with_devices;
    unsigned off;               /* ALLOC_OFF_*: the target's gates that
                                   are off */
    int list_attributes;        /* DRAListTypeAttributes on the target:
                                   selectors bind list values (else a
                                   device with one fails them) */
    int input_only;             /* the devices come from the linted input
                                   alone (no --inventory slices): judge
                                   only claims of drivers it has */
    /* the last object solved (claim-scarce and claim-unsatisfiable ask
     * about the same object one after the other) */
    const struct object *last_obj;
    const char *last_file;
    unsigned last_doc;
    int last_status;
    struct alloc_result last;
    struct problem *last_pb;
    /* per-object vectors (selector results per device, search state) live
     * in a scratch arena cleared when the next object comes */
    struct arena scratch;
    const struct object *cur_obj;
    const char *cur_file;
    unsigned cur_doc;
};

/* The run's state, built on first use: the device model of the input's
 * slices and nodes with the inventory's when the input's serve as the
 * inventory (cx_inventory_object), else the inventory's. */
struct sat *sat_get(struct check_ctx *cx);
/* The same for a check that judges the object with s->m: its findings
 * say so when the input's slices and nodes are in it. */
struct sat *sat_judge(struct check_ctx *cx);

/* The results of one selector (or clause) text over every device, computed
 * once per run. */
struct selres *sat_selres(struct check_ctx *cx, struct sat *s,
                          const char *expr);

/* ==== requests as the allocator sees them (satisfiability.c) ==== */

struct selref {
    const struct selector *s;
    int from_class;
    size_t index;               /* position in its list, for messages */
    struct selres *res;
};

struct altinfo {
    const struct devreq *r;
    const char *name;           /* "gpu" or "gpu/big" */
    const struct object *cls;
    struct selref *sels;
    size_t nsels;
    const unsigned char *sel;   /* combined: 1 when every selector is true
                                   (alloc_select_all: the model's) */
    size_t nyes;
    const size_t *err_sel;      /* per device: failing selector + 1, or 0 */
    const char *const *err_msg; /* per device */
    size_t nerr;
    size_t nfit;                /* devices passing selectors + capacity */
    struct alloc_capreq *caps;
    size_t ncaps;
    struct alloc_alt alt;
};

struct reqinfo {
    const struct devreq *r;
    struct altinfo *alts;
    size_t nalts;
};

struct claiminfo {
    const struct object *obj;   /* the claim or template */
    const char *name;           /* for messages */
    struct reqinfo *reqs;
    size_t nreqs;
    int usable;                 /* every request resolved */
    int any_error;              /* a runtime error somewhere */
    int any_empty;              /* a request no device matches at all */
    struct alloc_claim ac;
};

struct problem {
    struct claiminfo *claims;
    size_t nclaims;
    struct alloc_claim *ac;
    struct alloc_problem p;
    int usable;
    int pod;
    int lone_fail_input;        /* a claim of the input fails on its own */
};

/* ==== explanation text (explain.c) ==== */

struct lines {                  /* detail lines of one finding, bounded */
    const char **v;
    size_t n, more;
};

void lines_init(struct arena *a, struct lines *l);
void line_add(struct lines *l, const char *s);
/* 1 when the next line would only be counted ("... and N more"). */
int lines_full(const struct lines *l);
void lines_close(struct arena *a, struct lines *l);
/* Pools whose slices are not all there: their missing devices are not in
 * the answer (the scheduler waits for them too). */
void explain_pools(struct arena *a, const struct sat *s, struct lines *l);
/* Why no device passes alternative ai: per clause how many devices it
 * rejects, then the devices that fail the fewest clauses. */
void explain_no_device(struct check_ctx *cx, struct sat *s,
                       const struct altinfo *ai, struct lines *l);
/* Requests whose matching devices are tainted and not tolerated, or need
 * a feature gate the target has off. */
void explain_taints(struct check_ctx *cx, struct sat *s,
                    const struct problem *pb, struct lines *l);
/* Why Kubernetes' allocator stops with an error on a node (f->why is
 * WHY_ERROR), in one clause. */
const char *explain_error(struct arena *a, const struct devmodel *m,
                          const struct problem *pb,
                          const struct alloc_node *f);
/* Per-node reasons, nodes with the same reason on one line ("gpu-node-7
 * and 412 more nodes: ..."): nodes with devices first, then the ones the
 * Pod's placement excludes. At most max lines; the rest is counted. */
void explain_nodes(struct arena *a, struct sat *s, const struct problem *pb,
                   const struct alloc_result *res, struct lines *l,
                   size_t max);

#endif
