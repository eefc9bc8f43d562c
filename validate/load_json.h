/*
 * load_json.h - JSON text -> claimcheck's document tree (tree.h).
 *
 * claimcheck's own one-pass parser (load_json.c): the webhook's hot path.
 * The result follows Kubernetes' decoder: keys are case-sensitive, a
 * duplicate key keeps the LAST value, trailing data after the value is an
 * error, the grammar is strict RFC 8259 (as Go's encoding/json). Our
 * limits: nesting is capped at LIMIT_NEST_DEPTH (limits.h), strings must be
 * valid UTF-8 without NUL (raw or \u0000) or lone surrogates, a number has
 * at most 63 characters. Numbers that are integral with |v| < 2^53 become
 * T_INT (ival), other finite numbers T_FLOAT; scalar nodes keep a text
 * rendering in str. No positions: every line/col is 0 (errors name the
 * byte, line and column). Checked against cJSON by tests/unit/json_oracle.h.
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

/* 1 if s[0..n) is valid UTF-8 (no overlongs, surrogates or > U+10FFFF). */
int utf8_valid(const char *s, size_t n);
/* Bytes of the white-space character at s (before end) as Go's
 * unicode.IsSpace sees it (ASCII \t \n \v \f \r and space, U+0085,
 * U+00A0 and Unicode's other spaces), 0 if s is not one: kubectl trims
 * these around a `---` and before a JSON stream's first '{'. */
size_t utf8_space_len(const char *s, const char *end);

#endif
