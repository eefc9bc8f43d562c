/*
 * devmodel.h - the device model: the devices of the newest pool
 * generations of every ResourceSlice (all apiVersions; an older generation
 * where the allocator still uses it on a node), their placement on
 * nodes (nodeName, allNodes, or a node selector matched with
 * nodeaffinity.h), taints, shared counters and capacity, with attributes
 * and capacity ready for CEL as struct cel_device. What the allocator
 * (allocate.h) and the satisfiability rules work on.
 *
 * Built once (devmodel_build: devmodel.c) and immutable afterwards, so
 * threads share one; per-attribute indexes and the allocator's selector
 * cache are built on first use, lock-free (devmodel_index.c). Everything
 * lives in the model's own arena (or the caller's); the tree nodes it
 * points at belong to the objects it was built from, which must outlive
 * it. An inventory snapshot owns one (inventory_devices()). A snapshot
 * that follows another builds its model from the one before
 * (devmodel_build_next: devmodel_next.c), taking the devices of the pools
 * that did not change, whose memory (pieces) successive models share.
 */
#ifndef CLAIMCHECK_DEVMODEL_H
#define CLAIMCHECK_DEVMODEL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "cel/cel.h"
#include "nodeaffinity.h"
#include "quantity.h"
#include "strmap.h"

struct object;
struct tnode;

struct dm_counter {
    const char *name;
    struct quantity value;
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
    const char *key;            /* "driver\x1fname": its pool_index key
                                   (NULL: an older generation's entry) */
    long long generation;       /* the newest (older: the one it holds) */
    long long slice_count;      /* resourceSliceCount of that generation */
    size_t slices_seen;         /* slices of that generation */
    const char *older;          /* NULL, or the node whose own slices
                                   hold an older generation, complete,
                                   that Kubernetes' allocator still uses
                                   there (GatherPools: the newest
                                   generation among the slices of the
                                   node): an extra entry, not in
                                   pool_index, its devices placed on that
                                   node only */
    struct dm_counterset *sets;
    size_t nsets;
    const char *invalid;        /* why Kubernetes' allocator refuses the
                                   pool (a device name twice, a counter set
                                   defined twice or consumed but missing,
                                   across its slices), NULL: valid */
    int invalid_counters;       /* ... every reason is about counters,
                                   which the apiserver drops (and the
                                   allocator does not check) with
                                   DRAPartitionableDevices off */
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
    const struct quantity *cap_value;   /* per cel.caps: its value */
    const uint64_t *cap_hash;   /* per cel.caps: hash of name+value */
    const struct tnode *const *cap_policy; /* per cel.caps: requestPolicy */
    const struct tnode *taints; /* sequence or NULL */
    const struct tnode *node;   /* the devices[] entry */
    size_t node_idx;            /* DM_NODE */
    const struct tnode *node_selector;  /* DM_SELECTOR: NodeSelector */
    const struct nodesel *nodesel;      /* DM_SELECTOR: compiled (shared by
                                           the devices of a slice) */
    struct dm_consume *consumes;
    size_t nconsumes;
    enum dm_place place;        /* (next to the ints: no padding) */
    int multi;                  /* allowMultipleAllocations */
    unsigned gated;             /* DM_GATED_*: what needs a feature gate
                                   to be allocatable at all */
    uint64_t driver_hash;       /* hash of driver and multi */
};

/* dm_device.gated: Kubernetes' allocator does not allocate the device
 * while the feature is off */
enum {
    DM_GATED_PARTITIONABLE = 1, /* consumesCounters, or in a slice with
                                   perDeviceNodeSelection or sharedCounters
                                   (DRAPartitionableDevices) */
    DM_GATED_BINDING = 2,       /* bindingConditions
                                   (DRADeviceBindingConditions) */
};

struct dm_node {
    const char *name;
    struct na_node sel;         /* what node selectors see: the name, and
                                   the labels when a Node object was seen
                                   (sel.labels_known) */
    size_t *local;              /* devices placed by nodeName */
    size_t nlocal;
};

/* A block of device memory shared by successive models
 * (devmodel_build_next): reference-counted, freed with the last model
 * that holds it. */
struct dm_piece {
    atomic_long refs;
    atomic_size_t bytes;        /* what its arena holds (arena_meter) */
    struct arena a;
    void *_Atomic spare;        /* the first piece of a chain: the devs
                                   array of a model of it freed, for the
                                   next one (struct dm_devblock) */
};

/* What the build reads of a ResourceSlice before its devices (its tree
 * strings): a model built from another takes them from its record of the
 * same object, which never changes (devmodel.c gather_pools). */
struct dm_facts {
    const char *driver, *pname; /* spec.driver, spec.pool.name */
    const char *node;           /* spec.nodeName, or NULL */
    long long gen, count;       /* pool generation, resourceSliceCount */
    size_t ndev;                /* devices listed (0: not a sequence) */
    int counters;               /* it has sharedCounters */
    int per_device;             /* perDeviceNodeSelection */
    size_t name_hash;           /* strmap_hash() of its name */
};

/* One ResourceSlice of a model that can be reused (devmodel_build_next) */
struct dm_slice {
    const struct object *obj;
    struct dm_facts f;          /* what gather_pools read of it */
    size_t ord;                 /* its place among its pool's slices */
    size_t pool;                /* the pool entry of its devices, or
                                   SIZE_MAX: no device of it is used */
    size_t pool0;               /* its pool's entry (newest generation) */
    size_t first, n;            /* its devices: devs[first .. first+n) */
    size_t node;                /* ... their node (place DM_NODE), unless
                                   placed one by one (f.per_device) */
    enum dm_place place;        /* ... their placement (the same) */
};

struct devmodel {
    struct arena own;           /* when built without a caller's arena */
    struct arena *a;            /* where everything lives */
    int owned;
    struct arena *da;           /* where device contents (attributes,
                                   capacity, counters, refs, compiled
                                   selectors), pool counter sets and
                                   reasons, and interned strings live: a,
                                   or the newest of pieces */
    struct dm_piece **pieces;   /* a model built to be reused: the device
                                   memory it holds, its own last */
    size_t npieces;
    struct dm_slice *slices;    /* ... its slices, in object order */
    size_t nslice_recs;
    uint32_t *rec_of;           /* ... its objects' records: a table by
                                   object address (dm_slice_record) */
    size_t rec_mask;            /* ... its slots - 1 */
    size_t *pool_nslices;       /* ... per pool entry: slices of its
                                   driver and name (every generation) */
    const size_t *symcount;     /* ... per sym: the devices that have it
                                   (ids are kept from the model before,
                                   used or not) */
    size_t reused;              /* devices taken from the model before */
    struct dm_devblock *devblock;   /* a model to be reused: where devs
                                   is (not in its arena) */
    struct dm_device *devs;
    size_t ndevs;
    struct dm_node *nodes;
    size_t nnodes;
    struct strmap node_index;   /* name -> struct dm_node * */
    size_t *shared;             /* devices placed by selector / allNodes */
    size_t nshared;
    struct dm_pool *pools;
    size_t npools;
    struct strmap pool_index;   /* "driver\x1fname" -> index + 1 */
    int pool_index_kept;        /* ... the table is in a piece: a model
                                   built from this one with the same
                                   pools shares it */
    size_t nincomplete;         /* pools with slices missing */
    size_t nslices;             /* slices used (newest generations) */
    struct strmap syms;         /* attribute / capacity id -> index + 1 */
    size_t nsyms;
    size_t nnode_objects;       /* Node objects seen */
    const struct object **node_objs;    /* a model to be reused: the Node
                                           objects given, in order */
    size_t nnode_objs;
    int list_attributes;        /* DRAListTypeAttributes: off, list
                                   values are left out of slices to be
                                   applied (the apiserver strips them) and
                                   kept in stored ones (object.inventory:
                                   the scheduler refuses such a device) */
    size_t max_local;           /* most devices local to one node */
    struct strmap domains;      /* attribute domains and drivers, interned:
                                   equal names are equal pointers */
    struct strmap domains_base; /* a model built from another: the ones
                                   of the full build its chain began with
                                   (in its first piece, never written
                                   again); domains: the ones added since */
    /* built on first use, lock-free (devmodel_index.c); the slot arrays
     * are allocated with the model, each slot filled once */
    struct dm_slot *symidx;     /* devmodel_sym_index(): per sym */
    struct dm_slot *attrhash;   /* devmodel_attr_hashes(): DM_ATTRHASH */
    struct dm_slot *ext;        /* devmodel_ext(): one */
};

struct dm_slot {                /* a pointer filled once, by CAS */
    void *_Atomic p;
};

#define DM_ATTRHASH 64          /* (attribute, domain) hash vectors kept */

/* A cache another module keeps on a model (the allocator's selector
 * results): a struct that embeds this one, freed through free() when the
 * model is. The model knows nothing else about it. */
struct dm_ext {
    void (*free)(struct dm_ext *self);
};

/* 1 if the pool's newest generation lacks slices (resourceSliceCount):
 * Kubernetes' allocator uses none of its devices until they are there. */
int dm_pool_incomplete(const struct dm_pool *p);
/* 1 if the allocator may use the pool's devices: complete and valid. */
int dm_pool_usable(const struct dm_pool *p);
/* The index in m->slices of the record of object o (a model built to be
 * reused, whose objects are alive: the same address is the same object,
 * which never changes), or SIZE_MAX. By address, no string hashed. */
size_t dm_slice_record(const struct devmodel *m, const struct object *o);
/* The pool of that driver and name, or NULL. */
const struct dm_pool *devmodel_pool(const struct devmodel *m,
                                    const char *driver, const char *name);

/* Builds a model from objects (ResourceSlices and Nodes are read, other
 * kinds ignored). Never NULL. With an arena a, everything lives in a and
 * devmodel_free() frees only the caches built on first use; with NULL the
 * model owns its memory. list_attributes is the DRAListTypeAttributes
 * gate: off, list-valued attributes (ints, bools, strings, versions) are
 * left out of the slices of the linted input, as the apiserver strips them
 * from a slice it is given, and kept in the inventory's (stored slices;
 * the scheduler's selectors fail on such a device). An attribute of no
 * known type is noted in cel.unsupported (selectors fail there too). */
struct devmodel *devmodel_build(struct arena *a,
                                const struct object *const *objs, size_t n,
                                int list_attributes);
/* The model of objs, equal to devmodel_build(NULL, objs, n,
 * list_attributes)'s but for the numbering of interned ids (kept from
 * prev) and devmodel_domain(), which may also answer for a name only an
 * earlier model used: the devices of every pool whose slices are the same
 * objects, in the same order, as in prev are taken from prev (their
 * memory shared, not copied: prev may be freed afterwards), the other
 * pools are built. prev is a model from devmodel_build_next (or NULL),
 * alive during the call, as are its objects. Where nothing can be reused
 * (prev NULL, another list_attributes, too much memory held by old
 * devices) it is a full build that the next call can reuse. Never NULL;
 * the model owns its memory. */
struct devmodel *devmodel_build_next(const struct devmodel *prev,
                                     const struct object *const *objs,
                                     size_t n, int list_attributes);
void devmodel_free(struct devmodel *m);
/* The extension installed on m, or NULL. */
struct dm_ext *devmodel_ext(const struct devmodel *m);
/* Installs e unless another is in place; returns the one in place (e, or
 * the other: then e is the caller's to free). Lock-free. */
struct dm_ext *devmodel_ext_install(const struct devmodel *m,
                                   struct dm_ext *e);
/* Frees what devmodel_index.c built on first use (devmodel_free's). */
void devmodel_index_free(struct devmodel *m);
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
