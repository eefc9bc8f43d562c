/*
 * apival.h - the apiserver's field validators that the schema rules share
 * (claim-schema, object-metadata, slice-schema): field paths written as
 * Go's field.Path prints them, list and map limits that short-circuit as
 * validation.go's validateSlice/validateSet/validateMap do, the name
 * formats (with the message each gets), labels and annotations, node
 * selectors, raw extensions (opaque parameters), device taints and
 * tolerations. Every finding goes through report_path() with the path it
 * is given (rendered then), positioned at the node it is given (or the
 * nearest written parent when the field is absent). Strings are the
 * tree's; rendered paths and messages live in cx_arena().
 */
#ifndef CLAIMCHECK_APIVAL_H
#define CLAIMCHECK_APIVAL_H

#include <stddef.h>

struct check_ctx;
struct devtol;
struct tnode;

/* ---- paths ------------------------------------------------------------ */
/* A field path as Go's field.Path prints it ("spec.devices.requests[0]
 * .exactly.count", map keys in brackets), built on the stack as a check
 * descends and rendered only when a finding is reported: checking a valid
 * object costs no string work. A node points to its parent, which must
 * outlive it (the caller's frame). */
enum fp_kind { FP_CHILD, FP_INDEX, FP_KEY };

struct fpath {
    const struct fpath *parent;     /* NULL: a root segment */
    const char *name;               /* FP_CHILD: the field (a root may be
                                       dotted, "spec.spec"); FP_KEY: the
                                       map key */
    size_t index;                   /* FP_INDEX */
    size_t trunc;                   /* FP_KEY: keys longer are cut in the
                                       middle (validateMap's
                                       truncateIfTooLong; < 16 counts as
                                       16); 0 = never */
    enum fp_kind kind;
};

static inline struct fpath fp_child(const struct fpath *p, const char *name)
{
    struct fpath f = { p, name, 0, 0, FP_CHILD };
    return f;
}

static inline struct fpath fp_index(const struct fpath *p, size_t i)
{
    struct fpath f = { p, NULL, i, 0, FP_INDEX };
    return f;
}

static inline struct fpath fp_key(const struct fpath *p, const char *key,
                                  size_t trunc)
{
    struct fpath f = { p, key, 0, trunc, FP_KEY };
    return f;
}

/* The path as text, in cx_arena(). */
const char *fp_text(struct check_ctx *cx, const struct fpath *p);
/* report_path() with p rendered. */
void av_report(struct check_ctx *cx, const struct tnode *at,
               const struct fpath *p, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* A value for a message: quoted text cut to at most 64 bytes. */
const char *av_show(struct check_ctx *cx, const char *s);

/* ---- typed access ----------------------------------------------------- */
/* The string of n, or NULL: a value of another type (not null) is reported
 * ("'what' must be a string, not ..."); absent or null is NULL quietly. */
const char *av_str(struct check_ctx *cx, const struct tnode *n,
                   const struct fpath *path, const char *what);
/* 1 if n is a mapping; a value of another type (not null) is reported. */
int av_is_map(struct check_ctx *cx, const struct tnode *n,
              const struct fpath *path, const char *what);
/* A list field: 1 if its items are to be validated. A value that is not a
 * list is reported; more than max items (max < 0: no limit) is reported
 * once as too many and then no item is validated (the apiserver's DOS
 * short-circuit). Absent, null or empty: 0. */
int av_list(struct check_ctx *cx, const struct tnode *n,
            const struct fpath *path, long max, const char *what);
/* The same for a map field (validateMap). */
int av_map(struct check_ctx *cx, const struct tnode *n,
           const struct fpath *path, long max, const char *what);
/* Reports items of list n whose string value (or, with key, whose map
 * member `key`) repeats an earlier one, on the item's path (Duplicate). */
void av_unique(struct check_ctx *cx, const struct tnode *n,
               const struct fpath *path, const char *key, const char *what);

/* ---- formats (each reports at `at` with `path`; what names the field) - */
void av_required(struct check_ctx *cx, const struct tnode *at,
                 const struct fpath *path, const char *what);
void av_dns_label(struct check_ctx *cx, const struct tnode *at,
                  const struct fpath *path, const char *what, const char *s);
void av_dns_subdomain(struct check_ctx *cx, const struct tnode *at,
                      const struct fpath *path, const char *what,
                      const char *s);
/* metav1validation.ValidateLabelName: a label key (qualified name). */
void av_label_key(struct check_ctx *cx, const struct tnode *at,
                  const struct fpath *path, const char *what, const char *s);
void av_label_value(struct check_ctx *cx, const struct tnode *at,
                    const struct fpath *path, const char *what,
                    const char *s);
/* corevalidation.ValidateCSIDriverName: required, <= 63, a DNS subdomain
 * once lower-cased. */
void av_driver_name(struct check_ctx *cx, const struct tnode *at,
                    const struct fpath *path, const char *what,
                    const char *s);
/* DRA QualifiedName (attribute and capacity keys): a C identifier <= 32,
 * or <driver name>/<C identifier <= 32>; more than one '/' is invalid. */
void av_qualified_name(struct check_ctx *cx, const struct tnode *at,
                       const struct fpath *path, const char *what,
                       const char *s);
/* DRA FullyQualifiedName: a qualified name that has a domain. */
void av_fully_qualified_name(struct check_ctx *cx, const struct tnode *at,
                             const struct fpath *path, const char *what,
                             const char *s);
/* A pool name: required, <= 253, each '/'-separated part a subdomain. */
void av_pool_name(struct check_ctx *cx, const struct tnode *at,
                  const struct fpath *path, const char *what, const char *s);

/* ---- composites -------------------------------------------------------- */
/* ValidateLabels on map n (findings on path itself, as the apiserver). */
void av_labels(struct check_ctx *cx, const struct tnode *n,
               const struct fpath *path);
/* ValidateAnnotations: keys (case-insensitive label keys) and the total
 * size of keys and values, 256 KiB. */
void av_annotations(struct check_ctx *cx, const struct tnode *n,
                    const struct fpath *path);
/* corevalidation.ValidateNodeSelector (terms, requirements, operators,
 * label keys and values, matchFields). */
void av_node_selector(struct check_ctx *cx, const struct tnode *n,
                      const struct fpath *path);
/* validateRawExtension: n must hold a JSON object whose compact JSON (as
 * kubectl sends it) is at most max bytes; absent or null is required. */
void av_raw_extension(struct check_ctx *cx, const struct tnode *parent,
                      const struct tnode *n, const struct fpath *path,
                      size_t max);
/* validateDeviceTaint: key (a label key), value (a label value), effect
 * (required; NoSchedule, NoExecute or None). */
void av_device_taint(struct check_ctx *cx, const struct tnode *n,
                     const struct fpath *path);
/* validateDeviceToleration on a defaulted toleration. */
void av_device_toleration(struct check_ctx *cx, const struct devtol *t,
                          const struct fpath *path);
/* validateDeviceBindingParameters on the bindingConditions and
 * bindingFailureConditions of mapping n (a device or an allocation). */
void av_binding_conditions(struct check_ctx *cx, const struct tnode *n,
                           const struct fpath *path);

#endif
