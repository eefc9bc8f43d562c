/*
 * nodeaffinity.h - does a node satisfy a node selector: the one matcher of
 * the core (ResourceSlice placement, a Pod's nodeSelector and required node
 * affinity, the conflict rules), after Kubernetes' component-helpers
 * scheduling/corev1/nodeaffinity and apimachinery's labels.Requirement.
 * tests/k8s/nodeaffinity/cases.yaml holds their test tables as data.
 *
 * A v1.NodeSelector is compiled once and matched against any number of
 * nodes. Its terms are ORed and the requirements of a term ANDed; an empty
 * term matches nothing, and so does a selector without terms.
 * matchExpressions test the node's labels with In, NotIn, Exists,
 * DoesNotExist, Gt and Lt (integers as Go's strconv.ParseInt reads them: a
 * label value that is not one fails Gt and Lt); matchFields test the
 * node's fields - metadata.name is the only one - with In or NotIn of
 * exactly one value. A requirement that does not parse (unknown operator,
 * invalid label key or value, wrong number of values, a Gt/Lt value that
 * is not an int64) is an error of its term, kept as Kubernetes' field.Error
 * would be; such a term matches nothing (LazyErrorNodeSelector), and a
 * caller that needs NewNodeSelector's all-or-nothing checks nerrs.
 *
 * Answers are three-valued: on a node whose labels are not known (a name
 * seen in a ResourceSlice, no Node object) a label test answers NA_UNKNOWN,
 * combined as Kleene logic (NO wins an AND, YES wins an OR). Callers pick
 * their side: the allocator is optimistic, the conflict rules want YES.
 *
 * Everything compiled lives in the caller's arena and points into the
 * selector's tree, which must outlive it. No state, no printing.
 */
#ifndef CLAIMCHECK_NODEAFFINITY_H
#define CLAIMCHECK_NODEAFFINITY_H

#include <stddef.h>

struct arena;
struct tnode;

enum na_answer { NA_NO, NA_YES, NA_UNKNOWN };

struct na_node {                /* what a selector sees of a node */
    const char *name;           /* metadata.name; NULL or "": none, and
                                   matchFields are then not tested (as in
                                   Kubernetes) */
    const struct tnode *labels; /* the labels map; NULL: no labels */
    int labels_known;           /* 0: label tests answer NA_UNKNOWN */
};

struct na_error {               /* a field.Error as Kubernetes prints it */
    const char *type;           /* "Invalid", "NotSupported" */
    const char *field;          /* "nodeSelectorTerms[0].matchFields[0]
                                   .values" */
    const char *detail;         /* claimcheck's words */
};

struct na_req;                  /* private to nodeaffinity.c */

struct na_term {                /* fields private */
    const struct na_req *reqs;
    size_t nreqs;
    int bad;                    /* a requirement did not parse */
};

struct nodesel {                /* a compiled selector; fields read-only */
    const struct na_term *terms;    /* the non-empty terms */
    size_t nterms;
    int everything;             /* matches every node (a Pod's empty
                                   nodeSelector map) */
    const struct na_error *errs;    /* parse errors, in Kubernetes' order */
    size_t nerrs;
};

/* Compiles sel, a v1.NodeSelector ({nodeSelectorTerms: [...]}); anything
 * else (absent, null) compiles to a selector that matches nothing. Returns
 * 0, or -1 when a requirement does not parse (out->errs says which; out is
 * usable all the same, its bad terms matching nothing). */
int nodesel_compile(struct arena *a, const struct tnode *sel,
                    struct nodesel *out);
/* A label set as a selector (a Pod's spec.nodeSelector: every key=value,
 * ANDed, not validated - SelectorFromSet). A non-map or empty map matches
 * every node. */
void nodesel_from_labels(struct arena *a, const struct tnode *map,
                         struct nodesel *out);
/* The answer of s for node n (NULL: no node, NA_NO). */
enum na_answer nodesel_match(const struct nodesel *s, const struct na_node *n);

/* ==== a Pod's required placement (GetRequiredNodeAffinity) ============== */

enum na_part { NA_PART_NONE, NA_PART_SELECTOR, NA_PART_AFFINITY };

struct na_required {            /* fields read-only */
    struct nodesel selector;    /* spec.nodeSelector */
    struct nodesel affinity;    /* required node affinity, if has_affinity */
    int has_affinity;
};

/* node_selector: a Pod's spec.nodeSelector (may be NULL); required: its
 * affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution
 * (NULL or null: none; a NodeSelector, with lazy parse errors). */
void na_required_init(struct arena *a, const struct tnode *node_selector,
                      const struct tnode *required, struct na_required *out);
/* Both parts ANDed. When the answer is NA_NO, *part (may be NULL) names
 * the part that excludes the node, the nodeSelector first. */
enum na_answer na_required_match(const struct na_required *r,
                                 const struct na_node *n, enum na_part *part);

#endif
