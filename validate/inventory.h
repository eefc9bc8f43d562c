/*
 * inventory.h - the inside of struct inventory (engine.h has the public
 * API): cluster objects that are context for the checks, indexed by kind,
 * namespace and name. Immutable once built; shared by threads.
 */
#ifndef CLAIMCHECK_INVENTORY_H
#define CLAIMCHECK_INVENTORY_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "cel/cel.h"
#include "nodeaffinity.h"
#include "strmap.h"

struct object;
struct tnode;
struct devmodel;

struct inventory {
    struct arena arena;         /* owns trees and objects */
    struct object **objs;
    size_t n, cap;
    struct strmap index;        /* object_key() -> struct object * */
    unsigned kinds;             /* K_* bits present */
    struct devmodel *_Atomic model; /* inventory_devices(), built lazily */
    struct verdict_cache *verdicts; /* admission verdicts on this snapshot */
};

/* "Kind\x1fns\x1fname" in a; ns "" for cluster-scoped kinds. */
const char *object_key(struct arena *a, unsigned kind, const char *ns,
                       const char *name);
const struct object *inventory_lookup(const struct inventory *inv,
                                      unsigned kind, const char *ns,
                                      const char *name);

/* ==== the device model ==================================================
 *
 * Devices of the newest pool generations of every ResourceSlice (all
 * apiVersions), their placement on nodes, taints, counters and capacity,
 * with attributes and capacity ready for CEL as struct cel_device. Built
 * once (devmodel_build) and immutable afterwards: webhook threads share
 * the inventory's model. Everything lives in the model's own arena; tree
 * nodes it points at belong to the objects it was built from, which must
 * outlive it.
 */

struct qty { int64_t hi; uint64_t lo; };    /* a Quantity in nano units */

/* Parses a resource.Quantity (exact, through the CEL engine's parser).
 * Returns 0, or -1 if s is not a quantity. */
int qty_parse(const char *s, struct qty *out);
int qty_cmp(struct qty a, struct qty b);            /* <0, 0, >0 */
struct qty qty_add(struct qty a, struct qty b);
struct qty qty_sub(struct qty a, struct qty b);

struct dm_counter {
    const char *name;
    struct qty value;
    const char *text;           /* the quantity as written */
};
struct dm_counterset {          /* a sharedCounters entry of a pool */
    const char *name;
    struct dm_counter *c;
    size_t n;
};
struct dm_consume {             /* a consumesCounters entry of a device */
    size_t set;                 /* index into its pool's sets; SIZE_MAX:
                                   names no set (never allocatable) */
    const char *set_name;
    struct dm_counter *c;
    size_t n;
};

struct dm_pool {
    const char *driver, *name;
    long long generation;       /* the newest; older slices are dropped */
    long long slice_count;      /* resourceSliceCount of the newest */
    size_t slices_seen;         /* slices of the newest generation */
    struct dm_counterset *sets;
    size_t nsets;
};

enum dm_place { DM_NODE, DM_SELECTOR, DM_ALL };

struct dm_device {
    const char *driver, *pool, *name;
    const char *ref;            /* "node-1/gpu-0" (node-local) or
                                   "pool/gpu-0", for messages */
    size_t pool_idx;
    struct cel_device cel;      /* attributes and capacity for CEL */
    const unsigned *attr_sym;   /* per cel.attrs: interned id */
    const uint64_t *attr_hash;  /* per cel.attrs: hash of name+value */
    const unsigned *cap_sym;    /* per cel.caps: interned id */
    const struct qty *cap_value;    /* per cel.caps: capacity value */
    const uint64_t *cap_hash;   /* per cel.caps: hash of name+value */
    const struct tnode *const *cap_policy; /* per cel.caps: requestPolicy */
    const struct tnode *taints; /* sequence or NULL */
    const struct tnode *node;   /* the devices[] entry */
    enum dm_place place;
    size_t node_idx;            /* DM_NODE */
    const struct tnode *node_selector;  /* DM_SELECTOR: NodeSelector */
    const struct nodesel *nodesel;      /* DM_SELECTOR: compiled (shared by
                                           the devices of a slice) */
    struct dm_consume *consumes;
    size_t nconsumes;
    int multi;                  /* allowMultipleAllocations */
    uint64_t driver_hash;       /* hash of driver and multi */
};

struct dm_node {
    const char *name;
    struct na_node sel;         /* what node selectors see: the name, and
                                   the labels when a Node object was seen
                                   (sel.labels_known) */
    size_t *local;              /* devices placed by nodeName */
    size_t nlocal;
};

struct devmodel {
    struct arena own;           /* when built without a caller's arena */
    struct arena *a;            /* where everything lives */
    int owned;
    struct dm_device *devs;
    size_t ndevs;
    struct dm_node *nodes;
    size_t nnodes;
    struct strmap node_index;   /* name -> struct dm_node * */
    size_t *shared;             /* devices placed by selector / allNodes */
    size_t nshared;
    struct dm_pool *pools;
    size_t npools;
    size_t nincomplete;         /* pools with slices missing */
    size_t nslices;             /* slices used (newest generations) */
    struct strmap syms;         /* attribute / capacity id -> index + 1 */
    size_t nsyms;
    size_t nnode_objects;       /* Node objects seen */
    size_t max_local;           /* most devices local to one node */
    struct strmap domains;      /* attribute domains and drivers, interned:
                                   equal names are equal pointers */
    void *_Atomic *selcache;    /* alloc_eval_cached(): DM_SELCACHE slots,
                                   filled once each, lock-free */
    void *_Atomic *symidx;      /* devmodel_sym_index(): per sym, lazily */
    _Atomic size_t *selcache_bytes; /* memory held by selcache entries */
    void *_Atomic *attrhash;    /* devmodel_attr_hashes(): DM_ATTRHASH */
};

#define DM_SELCACHE 1024        /* selector results kept per model */
#define DM_SELCACHE_BYTES (64u << 20)   /* ... and at most this memory */
#define DM_ATTRHASH 64          /* (attribute, domain) hash vectors kept */

/* Builds a model from objects (ResourceSlices and Nodes are read, other
 * kinds ignored). Never NULL. With an arena a, everything lives in a and
 * devmodel_free() does nothing; with NULL the model owns its memory. */
struct devmodel *devmodel_build(struct arena *a,
                                const struct object *const *objs, size_t n);
void devmodel_free(struct devmodel *m);
/* The inventory's model, built on first use (thread-safe: concurrent first
 * callers may each build one, one wins, the others are freed). NULL when
 * inv is NULL. */
const struct devmodel *inventory_devices(const struct inventory *inv);
/* The interned index of an attribute/capacity id, or -1 if no device has
 * one of that name. */
long devmodel_sym(const struct devmodel *m, const char *id, size_t len);
/* 1 if device d can be used on node n (placement only). A nodeSelector is
 * matched with nodeaffinity.h; where the node's labels are unknown it is
 * taken as satisfied (never a false error), and one that does not parse
 * places the device on no node (Kubernetes' allocator fails on it). */
int dm_device_on_node(const struct devmodel *m, size_t d, size_t n);
/* The attribute "domain/id" (or "id" in the driver's domain) of a device,
 * or NULL. */
const struct cel_attr *dm_attr(const struct dm_device *d, const char *fqname);
/* Per device, the index in cel.attrs of its first attribute with this
 * interned id, or -1: built on first use and shared (lock-free). */
const short *devmodel_sym_index(const struct devmodel *m, long sym);
/* Per device, the hash of its attribute with interned id sym in domain
 * (interned; NULL: the device's driver's domain), never 0, or 0 when the
 * device has no such attribute. Built on first use per (sym, domain) and
 * shared (lock-free); NULL when sym < 0 or DM_ATTRHASH pairs are taken. */
const uint64_t *devmodel_attr_hashes(const struct devmodel *m, long sym,
                                     const char *domain);
/* The interned pointer of a domain or driver, or NULL if nothing in the
 * model uses it. Attribute string and version values are interned too:
 * equal values are equal pointers. */
const char *devmodel_domain(const struct devmodel *m, const char *domain);
/* The same with the name resolved once: sym from devmodel_sym() of the id,
 * domain from devmodel_domain() or NULL for the driver's own domain. */
const struct cel_attr *dm_attr_sym(const struct dm_device *d, long sym,
                                   const char *domain);

#endif
