/*
 * tree.h - claimcheck's read-only document tree. Both loaders (libyaml in
 * load_yaml.c, our JSON parser in load_json.c) build it at the edge, so rules
 * see one API with positions, whatever the input format (jq's jv made the
 * same choice). Every node is arena-owned and immutable after loading.
 *
 * Scalars keep their source text in str (NUL-terminated; a string's str is
 * its value); the resolved type is in kind, resolved as Kubernetes reads a
 * manifest: go-yaml v2's YAML 1.1 rules for YAML (tree_resolve(), facts in
 * tests/k8s/decode/RESOLVE.md: y/yes/on are booleans unless quoted, 0x10,
 * 0o17, 017 and 1_000 integers, 2.0 a float), JSON's for JSON. Keys are the
 * strings sigs.k8s.io/yaml gives them (`yes:` is "true", `1.0:` is "1").
 * Maps keep keys in source order; a duplicate key keeps the LAST value at
 * the first one's place, as Kubernetes' decoder does, and is flagged
 * TF_DUP. line/col are 1-based; 0 means unknown (JSON from the webhook
 * carries no positions).
 */
#ifndef CLAIMCHECK_TREE_H
#define CLAIMCHECK_TREE_H

#include <stddef.h>

struct arena;
struct buf;
struct strmap;

enum tkind { T_NULL, T_BOOL, T_INT, T_FLOAT, T_STR, T_MAP, T_SEQ };

enum tflag {
    TF_DUP = 1 << 0,    /* a map member whose key was set before in the same
                           map: this last value replaced the earlier ones */
    TF_UINT = 1 << 1,   /* T_INT above INT64_MAX (YAML up to 2^64 - 1):
                           ival holds the uint64's bits */
    TF_JSON = 1 << 2,   /* read from JSON text: a number's str is its
                           literal, which the apiserver sees as written */
};

struct tnode {                  /* 56 bytes: millions of them per big input */
    const struct tnode *parent; /* NULL at a document root */
    const char *key;            /* key in the parent map, or NULL */
    const char *str;            /* scalar source text (NUL-terminated) */
    union {                     /* by kind: a node has kids or a value */
        struct tnode **kids;    /* T_MAP values / T_SEQ items (n of them;
                                   scalars have n = 0) */
        long long ival;         /* T_INT value (if it fits int64) */
        double fval;            /* T_FLOAT value */
        int boolean;            /* T_BOOL value */
    };
    unsigned line, col;         /* position of the value */
    unsigned key_line, key_col; /* position of the key, for map members */
    unsigned n;                 /* number of kids */
    unsigned char kind;         /* enum tkind */
    unsigned char quoted;       /* scalar was quoted or tagged !!str */
    unsigned char flags;        /* enum tflag bits */
};

/* Map member lookup (exact, case-sensitive); NULL if n is not a map or the
 * key is absent. */
const struct tnode *tree_get(const struct tnode *n, const char *key);
/* got[k] = tree_get(m, keys[k]) for k < n (distinct keys), in one pass
 * over m's members (a map's keys are unique: duplicates are collapsed as
 * they are read) */
void tree_get_many(const struct tnode *m, const char *const *keys,
                   const struct tnode **got, size_t n);
/* 1 when a and b hold the same value (maps compared by key, in any order;
 * scalars by kind and text), the top level's members named in ignore
 * (NULL-terminated, or NULL) left out. */
int tree_same(const struct tnode *a, const struct tnode *b,
              const char *const *ignore);
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
/* The value an integer field gets from n into *out: a T_INT within
 * int64, or a T_FLOAT with an integral value (kubectl sends YAML's 2.0 and
 * 1e1, and JSON's too after its unstructured round trip, as 2 and 10);
 * -1 otherwise (strings, 2.5, values past int64). */
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

/* The JSON text of a scalar as the apiserver receives it: for YAML, as
 * sigs.k8s.io/yaml's YAMLToJSON writes it (numbers as Go's encoding/json
 * prints the value: 2.0 -> 2, 1e3 -> 1000, 1e21 -> 1e+21, 0x10 -> 16);
 * for JSON (TF_JSON), a number's literal as written. Strings are quoted and
 * escaped as encoding/json does. NULL for NaN and infinities (JSON has
 * none: YAMLToJSON fails on them), maps and sequences. Arena-owned. */
const char *tree_json_text(struct arena *a, const struct tnode *n);
/* Appends the subtree as YAMLToJSON writes it (map keys sorted, as Go's
 * encoding/json writes a map). 0, or -1 with *why (static text) when a
 * NaN or infinity has no JSON form or out is full. */
int tree_to_json(struct buf *out, const struct tnode *n, const char **why);
/* A deep copy of n into a, for a tree that must outlive the arena it was
 * loaded in; the copy's root has no parent. Keys and scalars are copied
 * into a, or, with an intern map, shared through it (trees of one kind
 * repeat most of their strings). Nodes deeper than 512 levels (more than
 * the loaders build) become nulls. */
struct tnode *tree_clone(struct arena *a, struct strmap *intern,
                         const struct tnode *n);

/* Builders, used by the loaders (and object.c for defaulted maps): a
 * zeroed node (str ""), and a zeroed array of n kid pointers, both packed
 * at their own alignment (8 bytes), not the arena's 16. */
struct tnode *tree_new(struct arena *a, enum tkind kind, unsigned line,
                       unsigned col);
struct tnode **tree_kids_new(struct arena *a, size_t n);
/* Resolves a YAML scalar whose text is in n->str exactly as go-yaml v2
 * decodes it into interface{}: tag is libyaml's (NULL: none; "!" and local
 * tags make a string; !!str/!!int/!!float/!!bool/!!null/!!timestamp must
 * fit the text; !!binary is base64-decoded), plain is 1 for an unquoted
 * plain scalar (the only style that is resolved without a tag). Returns 0,
 * or -1 with *why (arena-owned) for text its tag does not admit (go-yaml
 * fails the document: "cannot decode !!str `abc` as a !!int"). */
int tree_resolve(struct arena *a, struct tnode *n, const char *tag, int plain,
                 const char **why);
/* 1 when a plain scalar (unquoted, no tag) whose text starts with byte c
 * is a string whatever follows: go-yaml v2 looks further only at texts
 * that start with a digit, a sign, '.', '~' or a letter of yes/no/true/
 * false/on/off/null (or are empty). tree_resolve() would make it T_STR
 * and nothing else: a loader may skip the call (most keys and values). */
int tree_plain_is_str(char c);
/* The JSON object key sigs.k8s.io/yaml makes of a resolved key scalar:
 * strings as they are, integers in decimal, floats with float32 precision
 * (1.0 -> "1", 3.14159265359 -> "3.1415927"), booleans "true"/"false".
 * NULL for a null key (`~:`), which YAMLToJSON refuses. Arena-owned. */
const char *tree_json_key(struct arena *a, const struct tnode *k);

#endif
