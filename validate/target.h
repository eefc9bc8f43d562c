/*
 * target.h - the cluster claimcheck checks against: Kubernetes minor
 * version, effective feature gates and enabled resource.k8s.io API
 * versions. Resolved once from the config (engine_new) and then read-only.
 * The gate table itself is data in rules/ (gates.c reads it).
 */
#ifndef CLAIMCHECK_TARGET_H
#define CLAIMCHECK_TARGET_H

#define TARGET_MAX_GATES 64

struct config;
struct err;

struct target {
    int major, minor;           /* 1.34 -> 1, 34 */
    char version[16];           /* "1.34" */
    unsigned char gate_on[TARGET_MAX_GATES];    /* by gate-table index */
    unsigned char gate_set[TARGET_MAX_GATES];   /* overridden by -g */
    const struct config *cfg;   /* runtime-config, device-plugin maps */
};

/* Newest Kubernetes minor in the gate table, "1.36". */
const char *target_newest(void);
int target_init(struct target *t, const struct config *cfg, struct err *err);

#endif
