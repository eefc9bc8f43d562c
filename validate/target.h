/*
 * target.h - the cluster claimcheck checks against: Kubernetes minor
 * version, effective feature gates and enabled resource.k8s.io API
 * versions. Resolved once from the config (engine_new) with the gate table
 * of validate/k8s/gates.h, then read-only (webhook threads share it).
 */
#ifndef CLAIMCHECK_TARGET_H
#define CLAIMCHECK_TARGET_H

#define TARGET_MAX_GATES 64
#define TARGET_MAX_APIS 8

struct cel_env;
struct config;
struct err;

struct target {
    int major, minor;           /* 1.34 -> 1, 34 */
    char version[16];           /* "1.34" */
    int prerelease;             /* the table's data for it is pre-release */
    unsigned char gate_on[TARGET_MAX_GATES];    /* by gate-table index */
    unsigned char gate_set[TARGET_MAX_GATES];   /* overridden by -g */
    unsigned char api_on[TARGET_MAX_APIS];      /* by api_versions index:
                                                   served and enabled */
    unsigned char api_set[TARGET_MAX_APIS];     /* set by --runtime-config */
    const struct config *cfg;   /* runtime-config, device-plugin maps */
};

/* Newest released Kubernetes minor in the gate table, "1.36". */
const char *target_newest(void);
/* Resolves the version (cfg->kube_version or target_newest(); 1.26-1.37),
 * the gates (table defaults, then cfg->gates in order, kube-apiserver
 * rules: unknown gate, gate not in that version and changing a locked gate
 * are errors) and the API versions (defaults, then cfg->runtime).
 * Returns 0, or -1 with err filled (a usage error). */
int target_init(struct target *t, const struct config *cfg, struct err *err);
/* 1 if the gate named name is on at the target (0 if unknown). */
int target_gate_on(const struct target *t, const char *name);
/* The DRA CEL environment at the target: device.allowMultipleAllocations
 * with DRAConsumableCapacity, list attributes and includes() with
 * DRAListTypeAttributes; no regex JIT. */
void target_cel_env(const struct target *t, struct cel_env *env);

#endif
