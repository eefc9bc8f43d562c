/*
 * config.h - the settings shared by the linter and the webhook: target
 * Kubernetes version, feature-gate overrides, runtime-config, rule
 * enable/disable and severity overrides, the webhook's action per rule,
 * exceptions (findings suppressed by kind, namespace, name and rule),
 * paths not linted (ignorePaths), extra device-plugin and
 * DeviceClass <-> driver mappings (devicePlugins, drivers), excluded
 * namespaces (webhook). Filled from the YAML config file (-c / --config, or
 * .claimcheck.yaml) and then from command-line flags, which win. All
 * strings are owned by cfg->arena.
 */
#ifndef CLAIMCHECK_CONFIG_H
#define CLAIMCHECK_CONFIG_H

#include <stddef.h>

#include "arena.h"
#include "diag.h"

struct err;

struct config_kv {
    const char *key, *value;
};

struct config_sev {
    const char *rule;           /* rule id or category name */
    enum sev sev;               /* SEV_OFF disables */
    int use_default;            /* --enable: back to the default severity */
    const char *where;          /* "file:line:col" in the config, or NULL
                                   (a flag): prefixes errors about it */
};

/* rules: {ID: {action: deny|warn|off}}: what the webhook does with the
 * rule's errors. The linter never reads it (its --fail-on decides). */
enum config_action {
    ACTION_DENY,                /* the default: an error denies */
    ACTION_WARN,                /* errors become admission warnings */
    ACTION_OFF                  /* the webhook does not report the rule */
};

struct config_act {
    const char *rule;           /* rule id or category name */
    enum config_action action;
    const char *where;          /* "file:line:col" in the config */
};

/* exceptions: findings of these rules on matching objects are suppressed
 * as an annotation suppresses them (reason shown, counted as suppressed).
 * An empty list matches anything; names are globs (glob.h). */
struct config_exception {
    const char **kinds, **namespaces, **names, **rules;
    size_t nkinds, nnamespaces, nnames, nrules;
    const char **rules_where;   /* "file:line:col" of each rules entry */
    const char *reason;         /* required, not empty */
};

/* One extra driver mapping (devicePlugins, drivers): exactly one of
 * resource and class_name is set. */
struct config_map {
    const char *resource;       /* device-plugin resource, may end in '*' */
    const char *class_name;     /* DeviceClass name the driver serves */
    const char *driver;         /* DRA driver name */
};

/* `claimcheck audit`: the objects are a live cluster's, read now */
struct config_audit {
    int on;                     /* live rules run (struct rule.flags) */
    long long now;              /* the time of the reading, Unix seconds */
    long long idle_after;       /* claim-idle: seconds allocated without a
                                   running Pod; 0 = CONFIG_IDLE_AFTER */
};
#define CONFIG_IDLE_AFTER (24LL * 3600)

struct config {
    struct arena arena;
    const char *kube_version;   /* "1.34"; NULL = newest in the table */
    struct config_kv *gates;    /* -g overrides, in order */
    size_t ngates;
    struct config_kv *runtime;  /* --runtime-config entries */
    size_t nruntime;
    struct config_sev *sevs;    /* severity overrides and --enable/--disable */
    size_t nsevs;
    struct config_act *acts;    /* the webhook's action per rule */
    size_t nacts;
    struct config_exception *exceptions;
    size_t nexceptions;
    const char **ignore_paths;  /* globs relative to ignore_base */
    size_t nignore;
    const char *ignore_base;    /* the config file's directory */
    struct config_map *maps;    /* extra plugin and class mappings */
    size_t nmaps;
    const char **excluded_ns;   /* webhook: namespaces never checked */
    size_t nexcluded;
    int show_suppressed;
    struct config_audit audit;
    enum sev beta_on_sev;       /* feature-gate-prerelease for a beta gate
                                   on by default: SEV_INFO unless set */
};

void config_init(struct config *cfg);
void config_release(struct config *cfg);
/* Reads a YAML config file; unknown keys are an error naming file:line. */
int config_load_file(struct config *cfg, const char *path, struct err *err);
/* Loads the file at path under what cfg already holds (the command
 * line's settings, which win): the file first, then those again. On
 * failure cfg keeps the command line's settings. 0, or -1 with err. */
int config_load_under_flags(struct config *cfg, const char *path,
                            struct err *err);
/* Command-line forms (kube-apiserver syntax): "A=true,B=false". */
int config_set_kube_version(struct config *cfg, const char *v, struct err *err);
int config_add_gates(struct config *cfg, const char *list, struct err *err);
int config_add_runtime(struct config *cfg, const char *list, struct err *err);
/* --enable / --disable: comma list of rule ids or category names. */
int config_add_enable(struct config *cfg, const char *list, int on,
                      struct err *err);

#endif
