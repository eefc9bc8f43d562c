/*
 * kinds.c - the table of kinds.h and its lookups.
 */
#include "kinds.h"

#include <string.h>

#define ADM KIND_ADMITTED
#define INV KIND_INVENTORY
#define NAME(s) s, sizeof(s) - 1  /* name and name_len */

/* Order: pod-like first, as users think of them; the webhook's metrics
 * list admitted kinds in this order. */
const struct kind_info kind_table[] = {
    {NAME("Pod"), K_POD, "", "", "pods", 1, ADM, "spec", NULL, NULL},
    {NAME("Deployment"), K_DEPLOYMENT, "apps", "apps|extensions",
     "deployments", 1, ADM, "spec.template.spec", "spec.template.metadata",
     "spec.replicas"},
    {NAME("ReplicaSet"), K_REPLICASET, "apps", "apps|extensions",
     "replicasets", 1, ADM, "spec.template.spec", "spec.template.metadata",
     "spec.replicas"},
    {NAME("StatefulSet"), K_STATEFULSET, "apps", "apps", "statefulsets", 1,
     ADM, "spec.template.spec", "spec.template.metadata", "spec.replicas"},
    {NAME("DaemonSet"), K_DAEMONSET, "apps", "apps|extensions", "daemonsets",
     1, ADM, "spec.template.spec", "spec.template.metadata", NULL},
    {NAME("Job"), K_JOB, "batch", "batch", "jobs", 1, ADM,
     "spec.template.spec", "spec.template.metadata", "spec.parallelism"},
    {NAME("CronJob"), K_CRONJOB, "batch", "batch", "cronjobs", 1, ADM,
     "spec.jobTemplate.spec.template.spec",
     "spec.jobTemplate.spec.template.metadata",
     "spec.jobTemplate.spec.parallelism"},
    {NAME("ReplicationController"), K_RC, "", "", "replicationcontrollers", 1,
     ADM, "spec.template.spec", "spec.template.metadata", "spec.replicas"},
    {NAME("ResourceClaim"), K_CLAIM, "resource.k8s.io", "resource.k8s.io",
     "resourceclaims", 1, ADM | INV, NULL, NULL, NULL},
    {NAME("ResourceClaimTemplate"), K_TEMPLATE, "resource.k8s.io",
     "resource.k8s.io", "resourceclaimtemplates", 1, ADM | INV, NULL, NULL,
     NULL},
    {NAME("DeviceClass"), K_CLASS, "resource.k8s.io", "resource.k8s.io",
     "deviceclasses", 0, ADM | INV, NULL, NULL, NULL},
    {NAME("ResourceSlice"), K_SLICE, "resource.k8s.io", "resource.k8s.io",
     "resourceslices", 0, ADM | INV, NULL, NULL, NULL},
    {NAME("Node"), K_NODE, "", "", "nodes", 0, INV, NULL, NULL, NULL},
    {NAME("Namespace"), K_NAMESPACE, "", "", "namespaces", 0, INV, NULL, NULL,
     NULL},
    {NAME("DeviceTaintRule"), K_TAINTRULE, "resource.k8s.io",
     "resource.k8s.io", "devicetaintrules", 0, ADM, NULL, NULL, NULL},
    {NAME("ResourcePoolStatusRequest"), K_POOLREQ, "resource.k8s.io",
     "resource.k8s.io", "resourcepoolstatusrequests", 0, ADM, NULL, NULL,
     NULL},
};
const size_t kind_count = sizeof(kind_table) / sizeof(kind_table[0]);

const struct kind_info *kind_by_name(const char *name, size_t len)
{
    size_t i;

    if (!len)
        return NULL;    /* (name[0] may be past the text) */
    /* the length and first byte first: called per document (twice),
     * mostly for kinds that share them with no row (issue 17) */
    for (i = 0; i < kind_count; i++)
        if (kind_table[i].name_len == len && kind_table[i].name[0] == name[0]
            && memcmp(kind_table[i].name, name, len) == 0)
            return &kind_table[i];
    return NULL;
}

const struct kind_info *kind_by_bit(unsigned bit)
{
    size_t i;

    for (i = 0; i < kind_count; i++)
        if (kind_table[i].bit == bit)
            return &kind_table[i];
    return NULL;
}

const char *kind_bit_name(unsigned bit)
{
    const struct kind_info *k = kind_by_bit(bit);

    return k ? k->name : "object";
}

int kind_group_ok(const struct kind_info *k, const char *g)
{
    size_t gl;
    const char *p = k->groups;

    if (!*p)
        return !*g;     /* the core group only (a Pod: issue 17) */
    gl = strlen(g);

    for (;;) {
        const char *bar = strchr(p, '|');
        size_t l = bar ? (size_t)(bar - p) : strlen(p);
        if (l == gl && strncmp(p, g, l) == 0)
            return 1;
        if (!bar)
            return 0;
        p = bar + 1;
    }
}

unsigned kind_bits(unsigned flags)
{
    unsigned bits = 0;
    size_t i;

    for (i = 0; i < kind_count; i++)
        if ((kind_table[i].flags & flags) == flags)
            bits |= kind_table[i].bit;
    return bits;
}
