/*
 * tree.h - claimcheck's read-only document tree. Both loaders (libyaml in
 * load_yaml.c, our JSON parser in load_json.c) build it at the edge, so rules
 * see one API with positions, whatever the input format (jq's jv made the
 * same choice). Every node is arena-owned and immutable after loading.
 *
 * Scalars keep their source text in str/len (NUL-terminated); the resolved
 * type is in kind (YAML 1.1 resolution as sigs.k8s.io/yaml does it: yes/on
 * are booleans unless quoted). Maps keep keys in source order; a duplicate
 * key keeps the LAST value, as Kubernetes' decoder does (the loader reports
 * the duplicate). line/col are 1-based; 0 means unknown (JSON from the
 * webhook carries no positions).
 */
#ifndef CLAIMCHECK_TREE_H
#define CLAIMCHECK_TREE_H

#include <stddef.h>

struct arena;

enum tkind { T_NULL, T_BOOL, T_INT, T_FLOAT, T_STR, T_MAP, T_SEQ };

struct tnode {                  /* 64 bytes: millions of them per big input */
    const struct tnode *parent; /* NULL at a document root */
    const char *key;            /* key in the parent map, or NULL */
    const char *str;            /* scalar source text (NUL-terminated) */
    struct tnode **kids;        /* map values / sequence items */
    union {
        long long ival;         /* T_INT value (if it fits int64) */
        double fval;            /* T_FLOAT value */
        int boolean;            /* T_BOOL value */
    };
    unsigned line, col;         /* position of the value */
    unsigned key_line, key_col; /* position of the key, for map members */
    unsigned n;                 /* number of kids */
    unsigned char kind;         /* enum tkind */
    unsigned char quoted;       /* scalar was quoted or tagged !!str */
};

/* Map member lookup (exact, case-sensitive); NULL if n is not a map or the
 * key is absent. */
const struct tnode *tree_get(const struct tnode *n, const char *key);
/* Follows a dotted path of map keys ("spec.template.spec"); NULL if any
 * step is missing. Keys containing '.' cannot be used here. */
const struct tnode *tree_at(const struct tnode *n, const char *dotted);
/* The string of a scalar that resolved to T_STR, else NULL. */
const char *tree_str(const struct tnode *n);
/* Any scalar's text (strings, numbers, bools), else NULL (maps, seqs, null). */
const char *tree_text(const struct tnode *n);
int tree_is_map(const struct tnode *n);
int tree_is_seq(const struct tnode *n);
int tree_is_scalar(const struct tnode *n);
/* 1 if n is T_BOOL true, 0 otherwise. */
int tree_true(const struct tnode *n);
/* T_INT value into *out; -1 if n is not an int. */
int tree_int(const struct tnode *n, long long *out);
/* Human name of the node's type: "string", "mapping", "sequence", ... */
const char *tree_kind_name(const struct tnode *n);
/* The same with an article, for messages: "a string", "an integer". */
const char *tree_kind_desc(const struct tnode *n);

/* JSON path of n relative to root, e.g.
 * "spec.containers[0].resources.limits[nvidia.com/gpu]": keys that are not
 * plain identifiers are written in brackets. Arena-owned; "" for root. */
char *tree_path(struct arena *a, const struct tnode *root,
                const struct tnode *n);
/* Position to report for n: a map member's key position when it has one,
 * else the value's. */
void tree_pos(const struct tnode *n, unsigned *line, unsigned *col);

/* Builders, used by the loaders only. */
struct tnode *tree_new(struct arena *a, enum tkind kind, unsigned line,
                       unsigned col);
/* Resolves a plain (unquoted, untagged) scalar's type from its text. */
void tree_resolve_scalar(struct tnode *n);

#endif
