/*
 * load_json.h - JSON text -> claimcheck's document tree (tree.h).
 *
 * claimcheck's own one-pass parser (load_json.c): the webhook's hot path,
 * and the linter's reader of JSON manifests. The result follows
 * Kubernetes' decoder: keys are case-sensitive, a duplicate key keeps the
 * LAST value (flagged TF_DUP), trailing data after the value is an error,
 * the grammar is strict RFC 8259 (as Go's encoding/json). Our limits:
 * nesting is capped at LIMIT_NEST_DEPTH (limits.h), strings must be valid
 * UTF-8 without NUL (raw or \u0000) or lone surrogates and at most 64 MiB,
 * a number has at most 63 characters. A number written without fraction
 * or exponent that fits int64 is T_INT, any other finite one T_FLOAT (as
 * sigs.k8s.io/json reads them into interface{}); a number's str is its
 * literal (TF_JSON).
 * Positions only when asked (load_json_read()); load_json() gives every
 * line/col 0, and errors name the byte, line and column. Checked against
 * cJSON by tests/unit/json_oracle.h.
 */
#ifndef CLAIMCHECK_LOAD_JSON_H
#define CLAIMCHECK_LOAD_JSON_H

#include <stddef.h>

struct arena;
struct err;
struct tnode;

/* Parses data[0..len) (need not be NUL-terminated) into a tree allocated in
 * a; *out is the root. Returns 0, or -1 with err filled (the message names
 * the byte offset where it can). */
int load_json(struct arena *a, const char *data, size_t len,
              struct tnode **out, struct err *err);

/* Members a reader does not need: maps at nesting depth `depth` (the root
 * map is 1) drop the members whose key is in `keys` (NULL-terminated).
 * Their values are still checked in full (grammar, UTF-8, NUL, numbers,
 * depth), only no nodes are made: for the webhook, an AdmissionReview's
 * userInfo, oldObject and the like. */
struct json_skip {
    unsigned depth;
    const char *const *keys;
};

/* load_json() without the members skip names (skip may be NULL). */
int load_json_skipping(struct arena *a, const char *data, size_t len,
                       const struct json_skip *skip, struct tnode **out,
                       struct err *err);

/* Everything load_json_read() can be asked, and what it says back. */
struct json_in {
    const char *data;           /* the text, data[0..len) */
    size_t len;
    char *copy;                 /* NULL, or a writable copy of data that
                                   strings are cut out of (the values of one
                                   stream share one; else one is made) */
    unsigned line, col;         /* the position of data[0], 1-based; line 0:
                                   nodes get no positions (the webhook) */
    const struct json_skip *skip;   /* may be NULL */
    int stream;                 /* 1: read one value; text may follow it */
    size_t used;                /* out: bytes up to the end of the value */
    unsigned err_line, err_col; /* out: where a failure is (with line) */
};

/* The general form: one JSON value of in->data into *out (arena-owned).
 * 0, or -1 with err filled and, when positions were asked,
 * in->err_line/err_col. */
int load_json_read(struct arena *a, struct json_in *in, struct tnode **out,
                   struct err *err);

/* 1 if s[0..n) is valid UTF-8 (no overlongs, surrogates or > U+10FFFF). */
int utf8_valid(const char *s, size_t n);
/* Bytes of the white-space character at s (before end) as Go's
 * unicode.IsSpace sees it (ASCII \t \n \v \f \r and space, U+0085,
 * U+00A0 and Unicode's other spaces), 0 if s is not one: kubectl trims
 * these around a `---` and before a JSON stream's first '{'. */
size_t utf8_space_len(const char *s, const char *end);

#endif
