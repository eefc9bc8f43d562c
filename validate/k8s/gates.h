/*
 * gates.h - the project's own data about non-stable DRA features:
 * every DRA feature gate with its stage and default per Kubernetes minor
 * (1.26-1.37; 1.37 is pre-release), the fields each gate controls per kind
 * and apiVersion shape and the resource.k8s.io version timeline (the
 * device-plugin <-> DRA driver map is drivers.h). The rows are data
 * (gates.yaml, from Kubernetes' kube_features.go and the +featureGate tags
 * of kubernetes/api, as its header says), generated into gates_data.c by
 * gen.py; tests/unit/test_gates.c checks
 * their consistency.
 *
 * Everything here is const data plus small pure lookups: no allocation,
 * no printing. target.c resolves a target from it; rules/gates.c,
 * rules/conflict.c and cmd_gates.c read it.
 */
#ifndef CLAIMCHECK_K8S_GATES_H
#define CLAIMCHECK_K8S_GATES_H

#include <stddef.h>

#include "gates_data.h"          /* GATE_MIN_MINOR, GATE_MAX_MINOR,
                                       GATE_RELEASED_MINOR */
#define GATE_NVERSIONS (GATE_MAX_MINOR - GATE_MIN_MINOR + 1)

enum gate_stage {
    GATE_ABSENT,                    /* the gate does not exist (yet) */
    GATE_ALPHA,
    GATE_BETA,
    GATE_GA,
    GATE_REMOVED,                   /* existed before, gone now */
};

struct gate_state {
    enum gate_stage stage;
    int on;                         /* default value */
    int locked;                     /* LockToDefault */
};

struct gate {
    const char *name;               /* "DRAPrioritizedList" */
    const char *kep;                /* "4816" */
    /* 12 space-separated tokens for 1.26..1.37: "-" absent, "x" removed,
     * else stage A|B|G, default 0|1, optional L (locked): "B1", "G1L" */
    const char *stages;
    const char *removal;            /* planned removal of the gate, or NULL */
    const char *plan;               /* GA plan beyond the table, or NULL */
    const char *controls;           /* one line for `claimcheck gates` */
    int unconfirmed;                /* the reference flags a part as
                                       unconfirmed */
};

extern const struct gate gate_table[];
extern const size_t gate_count;

/* Index of the gate named name (exact), or -1. */
int gate_find(const char *name);
/* State of g at minor 1.<minor>; minors outside the table are ABSENT.
 * Returns -1 if the stages string is malformed (the unit test's job). */
int gate_state_at(const struct gate *g, int minor, struct gate_state *out);
/* First minor at which g is GA in the table, or 0. */
int gate_ga_minor(const struct gate *g);
/* First minor at which g is on by default, or 0. */
int gate_on_minor(const struct gate *g);
/* First minor at which g exists, or 0. */
int gate_first_minor(const struct gate *g);
/* "alpha", "beta", "GA", "removed", "absent" */
const char *gate_stage_name(enum gate_stage s);

/* ==== gated fields ==================================================== */

/* apiVersion shapes of resource.k8s.io objects (see object.h dra_shape) */
#define SHAPE_FLAT 1u               /* v1alpha3, v1beta1: `basic`, no
                                       `exactly` */
#define SHAPE_EXACTLY 2u            /* v1beta2, v1 */
#define SHAPE_ANY 3u

/* A field a gate controls. path is relative to the kind's spec: the
 * PodSpec for pods and pod templates, the ResourceClaimSpec for claims and
 * claim templates, `spec` for DeviceClasses and ResourceSlices. Segments
 * are map keys separated by '.'; "key[]" walks every item of a sequence,
 * "key[*]" every value of a mapping. */
struct gated_field {
    const char *gate;               /* the gate */
    const char *gate2;              /* a second gate also needed, or NULL */
    unsigned kinds;                 /* K_* bits (object.h) */
    unsigned shapes;                /* SHAPE_*; pods: SHAPE_ANY */
    const char *path;
    int since;                      /* minor the field appears; 0: with
                                       the gate */
    int until;                      /* minor the field is gone; 0: never */
    const char *effect;             /* what happens when it is dropped */
};

extern const struct gated_field gated_fields[];
extern const size_t gated_field_count;

/* ==== resource.k8s.io versions ======================================== */

struct api_version {
    const char *version;            /* "v1beta1" */
    int introduced;                 /* first minor served */
    int deprecated;                 /* minor it is deprecated from, or 0 */
    int removed;                    /* first minor NOT served, or 0 */
    int removal_planned;            /* announced removal, or 0 */
    int default_on;                 /* enabled without --runtime-config */
    const char *note;               /* what it held, for `claimcheck gates` */
};

#define API_MAX_VERSIONS 8

extern const struct api_version api_versions[];
extern const size_t api_version_count;

/* Index of "v1beta1" in api_versions, or -1. */
int api_version_find(const char *version);
/* 1 if the version is part of kube-apiserver at minor (on or off). */
int api_version_served(const struct api_version *v, int minor);

/* ==== kinds served per version ======================================== */

/* A resource.k8s.io kind that a version serves from a later minor than the
 * version itself, or only with a gate on. A kind with rows here is served
 * by exactly those rows (api_versions' `removed` is about the version's
 * other kinds). */
struct kind_version {
    const char *kind;               /* "DeviceTaintRule" */
    const char *version;            /* "v1beta2" */
    int introduced;                 /* first minor that serves it */
    const char *gate;               /* the gate that registers it, or NULL */
};

extern const struct kind_version kind_versions[];
extern const size_t kind_version_count;

/* 1 if kind has rows in kind_versions (its own timeline). */
int kind_has_versions(const char *kind);
/* The row of kind in version, or NULL. */
const struct kind_version *kind_version_find(const char *kind,
                                             const char *version);
/* 1 if some listed kind is served by version at minor: the version stays
 * enabled for it after api_versions' `removed`. */
int kind_version_serves(const char *version, int minor);

#endif
