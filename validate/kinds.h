/*
 * kinds.h - the Kubernetes kinds claimcheck knows, listed once: the K_*
 * bit rules use, the API group(s), the plural resource name, the scope,
 * where a pod-like kind keeps its pod template, and which part of
 * claimcheck takes it. object.c recognises objects with this table, the
 * run defers pod-like documents by it, inventory snapshots keep the
 * inventory kinds, and the webhook admits, lists, watches and counts by
 * it. Adding a kind is adding a row (and a bit).
 */
#ifndef CLAIMCHECK_KINDS_H
#define CLAIMCHECK_KINDS_H

#include <stddef.h>

enum kind_bit {
    K_POD = 1u << 0,
    K_DEPLOYMENT = 1u << 1,
    K_REPLICASET = 1u << 2,
    K_STATEFULSET = 1u << 3,
    K_DAEMONSET = 1u << 4,
    K_JOB = 1u << 5,
    K_CRONJOB = 1u << 6,
    K_RC = 1u << 7,
    K_CLAIM = 1u << 8,
    K_TEMPLATE = 1u << 9,
    K_CLASS = 1u << 10,
    K_SLICE = 1u << 11,
    K_NODE = 1u << 12,
    K_NAMESPACE = 1u << 13,
    K_TAINTRULE = 1u << 14,         /* DeviceTaintRule */
    K_POOLREQ = 1u << 15,           /* ResourcePoolStatusRequest */
};
#define K_WORKLOADS (K_DEPLOYMENT | K_REPLICASET | K_STATEFULSET | K_DAEMONSET \
                     | K_JOB | K_CRONJOB | K_RC)
#define K_PODLIKE (K_POD | K_WORKLOADS)
#define K_CLAIMLIKE (K_CLAIM | K_TEMPLATE)
#define K_DRA (K_CLAIM | K_TEMPLATE | K_CLASS | K_SLICE)
#define K_ALL 0xffffu
/* A Kubernetes object of a kind claimcheck does not model (a ConfigMap, a
 * PodTemplate, a mistyped kind): only rules that read the tree itself see
 * it (strict decoding); it is no cross-object reference, no checked object
 * in reports, and no suppression is checked on it. */
#define K_OTHER (1u << 31)

enum kind_flags {
    KIND_ADMITTED = 1u << 0,    /* the webhook validates CREATE and UPDATE */
    KIND_INVENTORY = 1u << 1,   /* context for the checks: kept in inventory
                                   snapshots, listed and watched by the
                                   webhook's cluster cache */
};

struct kind_info {
    const char *name;           /* "Deployment" */
    unsigned char name_len;     /* strlen(name) */
    unsigned bit;               /* K_DEPLOYMENT */
    const char *group;          /* its API group ("" core): what the webhook
                                   admits and lists */
    const char *groups;         /* every group an object of the kind may
                                   name, '|'-separated: "apps|extensions" */
    const char *plural;         /* resource name: "deployments" */
    int namespaced;
    unsigned flags;             /* enum kind_flags */
    const char *pod_path;       /* pod-like: where the PodSpec is */
    const char *meta_path;      /* ... the pod template's metadata */
    const char *replicas_path;  /* ... replicas / parallelism, or NULL */
};

#define KIND_MAX 16             /* rows the table may grow to */

extern const struct kind_info kind_table[];
extern const size_t kind_count;

/* The row of a kind name (len bytes of name, not NUL-terminated), or
 * NULL. */
const struct kind_info *kind_by_name(const char *name, size_t len);
/* The row of one K_* bit, or NULL. */
const struct kind_info *kind_by_bit(unsigned bit);
/* "Pod", "Deployment"... for one K_* bit; "object" for none. */
const char *kind_bit_name(unsigned bit);
/* 1 if an object of kind k may name API group g (apiVersion's group). */
int kind_group_ok(const struct kind_info *k, const char *g);
/* The K_* bits of every kind with all of these flags. */
unsigned kind_bits(unsigned flags);

#endif
