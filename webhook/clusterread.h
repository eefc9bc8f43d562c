/*
 * clusterread.h - a whole cluster read once, for `audit` and the
 * PolicyReport writer: the target version (GET /version), which
 * resource.k8s.io version serves the DRA kinds (discovery), then every
 * object of the checked kinds, paged: Namespaces, Nodes, DeviceClasses,
 * ResourceSlices, DeviceTaintRules (when served), ResourceClaims,
 * ResourceClaimTemplates, Pods and the workload kinds. Objects a listed
 * controller made (a controller ownerReference to a listed uid: Pods of a
 * ReplicaSet, ReplicaSets of a Deployment, claims generated for a Pod) are
 * marked derived, so only live rules check them (run_add_derived).
 *
 * clusterread_gates() reads the apiserver's feature gates from its
 * /metrics (the webhook's serve --in-cluster; audit does not).
 *
 * A failed request stops the reading; struct clusterread_fail says what
 * was asked and what came back, for a message that names the RBAC rule
 * or the API version missing.
 */
#ifndef CLAIMCHECK_WEBHOOK_CLUSTERREAD_H
#define CLAIMCHECK_WEBHOOK_CLUSTERREAD_H

#include <stddef.h>

#include "../validate/arena.h"

struct err;
struct featuremetric;
struct inventory;
struct kubeapi;
struct run;
struct tnode;

struct clusterread_opts {
    const char *ns;             /* --namespace: namespaced kinds from this
                                   namespace only; NULL: all */
    unsigned page_size;         /* objects per list page; 0: 500 */
};

struct clusterread_obj {
    const struct tnode *root;   /* with apiVersion and kind set */
    int derived;                /* a listed controller made it */
};

struct clusterread {
    struct arena arena;         /* the objects (clusterread_release) */
    char version[16];           /* "1.34" from /version; "" unknown */
    char git_version[64];       /* "v1.34.1" */
    char dra_version[16];       /* "v1": what resource.k8s.io serves */
    struct clusterread_obj *objs;
    size_t n, cap;
    size_t pages;               /* list pages read (paging is tested) */
};

/* Why the reading stopped (status > 0: an HTTP answer). */
struct clusterread_fail {
    long status;                /* 401, 403, 404, ...; 0: no answer */
    const char *verb;           /* "list", "get" */
    const char *group;          /* "" core, "apps", "resource.k8s.io" */
    const char *resource;       /* "resourceclaims" */
    const char *ns;             /* the namespace asked, or NULL */
    char served[128];           /* 404 of resource.k8s.io: the versions
                                   it serves ("" none: DRA is off) */
    char message[256];          /* the apiserver's Status message */
};

void clusterread_init(struct clusterread *cr);
void clusterread_release(struct clusterread *cr);

/* GET /version: "1.34" into cr->version (and the git version). 0, or -1
 * with err / fail. */
int clusterread_version(struct kubeapi *k, struct clusterread *cr,
                        struct clusterread_fail *fail, struct err *err);
/* GET /metrics: the apiserver's feature gates (featuremetric.h) into fm.
 * 0, or -1 with err / fail (403: the RBAC rule for the nonResourceURL
 * /metrics is missing; a text that does not parse: fail->status 0). */
int clusterread_gates(struct kubeapi *k, struct featuremetric *fm,
                      struct clusterread_fail *fail, struct err *err);
/* Discovery, then every kind. 0, or -1 with err (and fail->status > 0
 * when the apiserver answered with an error). */
int clusterread_all(struct kubeapi *k, const struct clusterread_opts *o,
                    struct clusterread *cr, struct clusterread_fail *fail,
                    struct err *err);
/* Adds the objects to a run (derived ones with run_add_derived) and the
 * inventory kinds to inv; file names the cluster in findings. */
void clusterread_to_run(const struct clusterread *cr, struct run *r,
                        struct inventory *inv, const char *file);

#endif
