/*
 * fields.h - the JSON field graph of every kind claimcheck reads, per
 * group/version: which fields a type has, of which type, in which
 * Kubernetes minors (validate/k8s/fields.txt, transcribed from k8s.io/api
 * and apimachinery; generated into fields_data.c by gen.py, `make
 * generate`). The strict decoding of objects (rules/fields.c) walks it.
 *
 * Const data and pure lookups: no allocation, no printing.
 */
#ifndef CLAIMCHECK_K8S_FIELDS_H
#define CLAIMCHECK_K8S_FIELDS_H

#include <stddef.h>

#include "fields_data.h"         /* FIELD_MIN_MINOR, FIELD_MAX_MINOR,
                                    K8S_KIND_COUNT, K8S_TYPE_COUNT */

/* What a field holds once its wrappers are taken off: a Go leaf type as
 * the API decodes it from JSON, or a struct of the table. */
enum k8s_leaf {
    KL_STRING, KL_INT32, KL_INT64, KL_BOOL, KL_FLOAT64,
    KL_QUANTITY,        /* resource.Quantity: a string or a number */
    KL_INTORSTRING,     /* intstr.IntOrString */
    KL_TIME,            /* metav1.Time: an RFC 3339 string */
    KL_MICROTIME,       /* metav1.MicroTime */
    KL_DURATION,        /* metav1.Duration: a string */
    KL_RAW,             /* runtime.RawExtension, FieldsV1: any JSON */
    KL_BYTES,           /* []byte: a base64 string */
    KL_STRUCT,          /* k8s_types[type] */
};

struct k8s_field {
    const char *name;           /* its JSON name (case-sensitive) */
    const char *wrap;           /* wrappers, outermost first: 'L' []T,
                                   'M' map[string]T; "" for none */
    unsigned char leaf;         /* enum k8s_leaf */
    unsigned short type;        /* the struct, for KL_STRUCT */
    unsigned short minors;      /* bit (m - FIELD_MIN_MINOR) per minor 1.m
                                   in which the field exists so */
};

struct k8s_type {
    const char *go_name;        /* "v1beta2.ExactDeviceRequest", as Go's
                                   decoding errors name it */
    unsigned short first, n;    /* its fields: k8s_fields[first..first+n),
                                   sorted by name; a name twice when its
                                   type changed between minors */
};

struct k8s_kind {
    const char *api_version;    /* "resource.k8s.io/v1", "v1", "apps/v1" */
    const char *kind;
    unsigned short type;        /* the root type */
    unsigned short minors;      /* minors that serve it */
};

extern const struct k8s_field k8s_fields[];
extern const struct k8s_type k8s_types[];
extern const struct k8s_kind k8s_kinds[];

/* The kind of that apiVersion and kind (exact, case-sensitive), or NULL:
 * kinds claimcheck has no table for (CRDs, ConfigMaps, v1alpha2) are
 * decoded by nothing here. */
const struct k8s_kind *k8s_kind_find(const char *api_version,
                                     const char *kind);
/* The rows of k8s_kinds[] of that apiVersion: [*lo, the answer), empty
 * when it has none (the rows are sorted by apiVersion). */
size_t k8s_kind_rows(const char *api_version, size_t *lo);
/* The first row of field `name` of type t (its other rows, for other
 * minors, follow it), or NULL: an unknown field. */
const struct k8s_field *k8s_field_find(const struct k8s_type *t,
                                       const char *name);

#endif
