/*
 * object.h - the Kubernetes object view rules work on.
 *
 * object_read() recognises a document (or a List item) as one of the kinds
 * claimcheck checks and reads it into ONE normalised view: Pods and the pod
 * templates of workloads become a struct podspec; ResourceClaims and
 * ResourceClaimTemplates of every resource.k8s.io version (v1alpha3/v1beta1
 * flat requests, v1beta2/v1 exactly/firstAvailable) become a struct
 * claimspec; DeviceClasses a struct classspec. Every normalised field keeps
 * the tree node it came from, so findings point at the original key in the
 * original apiVersion's shape. Fields of the wrong type are left NULL here;
 * the schema rules report them. All memory is arena-owned.
 *
 * The view is DEFAULTED as the apiserver defaults the object's version
 * before validating it (SetDefaults_* of resource.k8s.io and core/v1;
 * tests/k8s/types/defaults.yaml): every rule sees what Kubernetes would
 * store, while the tree stays as written so positions stay exact. The
 * webhook receives objects the apiserver already defaulted; defaulting is
 * idempotent, so both judge the same values.
 */
#ifndef CLAIMCHECK_OBJECT_H
#define CLAIMCHECK_OBJECT_H

#include <stddef.h>

#include "kinds.h"

struct arena;
struct tnode;


/* resource.k8s.io request shape */
enum dra_shape {
    DRA_FLAT,       /* v1alpha3, v1beta1: fields directly on the request */
    DRA_EXACTLY,    /* v1beta2, v1: exactly / firstAvailable */
};

struct selector {
    const char *expr;               /* the CEL text, NULL if not a string */
    const struct tnode *expr_node;  /* the `expression` scalar */
    const struct tnode *node;       /* the selectors[] entry */
};

/* A DeviceToleration, defaulted: operator "Equal" when empty. Strings are
 * NULL when absent or not a string. */
struct devtol {
    const struct tnode *node;       /* the tolerations[] entry */
    const char *key, *op, *value, *effect;
    const struct tnode *key_node, *op_node, *value_node, *effect_node;
};

/* A device request or a firstAvailable sub-request, normalised. */
struct devreq {
    const char *name;               /* NULL if missing or not a string */
    const struct tnode *node;       /* requests[] / firstAvailable[] entry */
    const struct tnode *name_node;
    const struct tnode *fields;     /* mapping holding deviceClassName etc.:
                                       v1 `exactly`, v1beta1 the request itself,
                                       a sub-request itself; NULL if none */
    const char *class_name;
    const struct tnode *class_node;
    struct selector *sel;
    size_t nsel;
    const struct tnode *selectors_node;
    const char *mode;               /* allocationMode, defaulted to
                                       "ExactCount" when empty; NULL when
                                       not defaulted and not a string */
    const struct tnode *mode_node;  /* as written, NULL if absent */
    long long count;                /* as written (0 when absent), then 1
                                       when 0 with ExactCount (defaulted) */
    const struct tnode *count_node;
    int admin_access;               /* adminAccess: true */
    const struct tnode *admin_node;
    const struct tnode *tolerations;
    struct devtol *tols;            /* tolerations, defaulted */
    size_t ntols;
    const struct tnode *capacity;   /* capacity (with .requests) */
    struct devreq *subs;            /* firstAvailable alternatives */
    size_t nsubs;
    const struct tnode *first_available;
    const struct devreq *parent;    /* set on sub-requests */
};

struct claimspec {
    enum dra_shape shape;
    const struct tnode *spec;       /* the ResourceClaimSpec mapping */
    const struct tnode *devices;
    const struct tnode *requests_node;
    struct devreq *reqs;
    size_t nreqs;
    const struct tnode *constraints;
    const struct tnode *config;
};

struct classspec {
    const struct tnode *spec;
    struct selector *sel;
    size_t nsel;
    const struct tnode *selectors_node;
    const char *extended_resource;  /* spec.extendedResourceName */
    const struct tnode *extended_node;
};

struct podclaim {                   /* spec.resourceClaims[] */
    const char *name;
    const struct tnode *node, *name_node;
    const char *claim_name, *template_name;
    const struct tnode *claim_node, *template_node;
};

struct container {
    const struct tnode *node;
    const char *name;
    int init, ephemeral;
    const struct tnode *limits;     /* resources.limits */
    const struct tnode *requests;   /* resources.requests; for a Pod's
                                       containers and init containers
                                       defaulted as SetDefaults_Pod does:
                                       a limit without a request adds that
                                       limit's node (a map the tree does
                                       not hold; its kids keep their own
                                       parents and positions) */
    const struct tnode *requests_written;   /* as written, or NULL */
    const struct tnode *claims;             /* resources.claims */
};

struct podspec {
    const struct tnode *spec;       /* the PodSpec mapping */
    const struct tnode *meta;       /* template metadata (workloads) */
    struct podclaim *claims;
    size_t nclaims;
    const struct tnode *claims_node;
    struct container *ctrs;
    size_t nctrs;
};

struct object {
    unsigned kind;                  /* one K_* bit; 0 = not checked */
    const char *kind_name;          /* "Pod", "Deployment", ... */
    const char *api_version;        /* as written */
    const char *group, *version;    /* "" for the core group */
    const char *ns;                 /* metadata.namespace or "" */
    const char *name;               /* metadata.name, generateName, or "" */
    const struct tnode *root, *metadata, *spec;
    const struct tnode *api_node, *kind_node;
    const char *file;
    unsigned doc_index;
    int inventory;                  /* context only: never reported */
    int derived;                    /* made by a controller from a checked
                                       owner (an audit's Pods of a
                                       ReplicaSet, claims of a template):
                                       only live rules check it, the
                                       owner's checks cover the rest */
    int stored_selectors;           /* its CEL selectors are as stored (an
                                       UPDATE that kept them): validated
                                       with Kubernetes' StoredExpressions
                                       environment */
    long long replicas;             /* workloads: replicas / parallelism */
    const struct tnode *replicas_node;
    struct podspec *pod;            /* K_PODLIKE */
    struct claimspec *claim;        /* K_CLAIMLIKE */
    struct classspec *cls;          /* K_CLASS */
};

/* Outcome of object_read() */
enum object_status {
    OBJ_OK,         /* a kind claimcheck checks: *out filled */
    OBJ_OTHER,      /* a Kubernetes object of another kind: ignore */
    OBJ_NOT_K8S,    /* neither apiVersion nor kind: not meant as an object */
    OBJ_BAD,        /* meant as an object but malformed: *bad_at and *why */
};

/* Reads root (a document or List item). file/doc_index are recorded. */
enum object_status object_read(struct arena *a, const struct tnode *root,
                               const char *file, unsigned doc_index,
                               struct object *out,
                               const struct tnode **bad_at, const char **why);

/* 1 if ref ("req" or "req/sub") names a request or sub-request of c */
int claimspec_has_request(const struct claimspec *c, const char *ref);
/* The namespace used to resolve references: metadata.namespace or
 * "default" for namespaced kinds. */
const char *object_ns(const struct object *o);
/* "ns/name" or "name" for messages (arena-owned). */
const char *object_ref(struct arena *a, const struct object *o);
/* Walks a List (kind List / *List with items); 1 if root is a list. */
int object_is_list(const struct tnode *root);

#endif
