/*
 * cluster.h - in-cluster inventory: list + watch of DeviceClasses,
 * ResourceSlices, ResourceClaims, ResourceClaimTemplates, Nodes and
 * Namespaces through the apiserver with the pod's service account.
 *
 * One thread per resource lists (paginated), then watches from the list's
 * resourceVersion with allowWatchBookmarks; 410 Gone relists at once,
 * other errors back off (1 s doubling to 30 s) and re-watch or relist.
 * Objects are kept as compact JSON (Nodes pruned to what rules read);
 * a builder thread turns them into a new immutable snapshot in the
 * invstore at most once per second, so validation never waits for the
 * apiserver. cluster_synced() is 1 once every resource has been listed
 * and the first snapshot published.
 */
#ifndef CLAIMCHECK_WEBHOOK_CLUSTER_H
#define CLAIMCHECK_WEBHOOK_CLUSTER_H

struct cluster;
struct err;
struct invstore;
struct metrics;

struct cluster_opts {
    const char *apiserver;      /* https://host:port; NULL = from
                                   KUBERNETES_SERVICE_HOST/PORT */
    const char *sa_dir;         /* token and ca.crt; NULL = KUBE_SA_DIR
                                   (kubeconfig.h) */
    const char *dra_version;    /* resource.k8s.io version, NULL = "v1" */
    unsigned page_size;         /* list ?limit=, 0 = 500 */
};

/* kubeapi_global_init() must have run (main, before any thread). */
struct cluster *cluster_new(const struct cluster_opts *o,
                            struct invstore *s, struct metrics *m,
                            struct err *err);
int cluster_start(struct cluster *c, struct err *err);
/* 1 after the first complete sync (for /readyz). cls is a struct cluster. */
int cluster_synced(void *cls);
/* Stops every thread (aborting transfers) and frees c. */
void cluster_free(struct cluster *c);

#endif
