/*
 * load_json.c - cJSON -> document tree; the ONLY file including <cJSON.h>.
 *
 * A pre-scan checks what cJSON is lenient or silent about (nesting depth,
 * UTF-8, NUL in strings, raw control characters); cJSON then parses with an
 * explicit length and end pointer (no global error state is read); the cJSON
 * tree is converted into arena nodes and deleted at once. Duplicate keys are
 * resolved here (last one wins, at the first one's position in key order).
 */
#include "load_json.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cJSON.h>

#include "arena.h"
#include "err.h"
#include "limits.h"
#include "tree.h"

#define MAX_EXACT_INT 9007199254740992.0    /* 2^53 */
#define SMALL_MAP 16        /* maps up to this size dedupe by linear scan */

int utf8_valid(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    const unsigned char *end = p + n;

    while (p < end) {
        unsigned c = *p;
        size_t need;
        unsigned cp, min;

        if (c < 0x80) {
            /* ASCII fast path: 8 bytes at a time while no high bit */
            while ((size_t)(end - p) >= 8) {
                uint64_t w;
                memcpy(&w, p, 8);
                if (w & 0x8080808080808080u)
                    break;
                p += 8;
            }
            while (p < end && *p < 0x80)
                p++;
            continue;
        }
        if (c >= 0xc2 && c <= 0xdf) {
            need = 1;
            cp = c & 0x1f;
            min = 0x80;
        } else if (c >= 0xe0 && c <= 0xef) {
            need = 2;
            cp = c & 0x0f;
            min = 0x800;
        } else if (c >= 0xf0 && c <= 0xf4) {
            need = 3;
            cp = c & 0x07;
            min = 0x10000;
        } else {
            return 0;
        }
        if ((size_t)(end - p) <= need)
            return 0;
        for (size_t i = 1; i <= need; i++) {
            if ((p[i] & 0xc0) != 0x80)
                return 0;
            cp = (cp << 6) | (p[i] & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return 0;
        p += need + 1;
    }
    return 1;
}

/* Bytes that end a run of plain string content. */
static int str_stop(unsigned char c)
{
    return c == '"' || c == '\\' || c < 0x20;
}

/*
 * Checks nesting depth (brackets outside strings), raw control characters
 * and \u0000 escapes inside strings, and UTF-8 of the whole text. Syntax is
 * left to cJSON: this only has to be right for text cJSON would accept.
 * Plain string content is skipped in a tight loop: it is most of the bytes.
 */
static int json_prescan(const char *data, size_t len, struct err *err)
{
    const unsigned char *b = (const unsigned char *)data;
    const unsigned char *p = b, *end = b + len;
    size_t depth = 0;

    if (!utf8_valid(data, len))
        return err_set(err, "invalid UTF-8 in JSON text");
    while (p < end) {
        unsigned char c = *p++;

        if (c == '"') {
            for (;;) {
                while (p < end && !str_stop(*p))
                    p++;
                if (p >= end)
                    return 0;           /* unterminated: cJSON reports it */
                if (*p == '"') {
                    p++;
                    break;
                }
                if (*p == '\\') {
                    if (end - p >= 6 && p[1] == 'u'
                        && memcmp(p + 2, "0000", 4) == 0)
                        return err_set(err, "NUL character (\\u0000) in "
                                       "JSON string at byte %zu",
                                       (size_t)(p - b));
                    p += 2;             /* the escaped character */
                    continue;
                }
                return err_set(err, "control character in JSON string at "
                               "byte %zu", (size_t)(p - b));
            }
        } else if (c == '[' || c == '{') {
            if (++depth > LIMIT_NEST_DEPTH)
                return err_set(err, "JSON nesting deeper than %d at byte %zu",
                               LIMIT_NEST_DEPTH, (size_t)(p - 1 - b));
        } else if (c == ']' || c == '}') {
            if (depth)
                depth--;
        } else if (c == '\0') {
            return err_set(err, "NUL byte in JSON text at byte %zu",
                           (size_t)(p - 1 - b));
        }
    }
    return 0;
}

struct conv {
    struct arena *a;
    struct err *err;
};

static struct tnode *conv_node(struct conv *cv, const cJSON *j);

static int conv_scalar(struct conv *cv, const cJSON *j, struct tnode **out)
{
    struct tnode *n;

    if (cJSON_IsNull(j)) {
        n = tree_new(cv->a, T_NULL, 0, 0);
        n->str = "null";
    } else if (cJSON_IsBool(j)) {
        n = tree_new(cv->a, T_BOOL, 0, 0);
        n->boolean = cJSON_IsTrue(j) ? 1 : 0;
        n->str = n->boolean ? "true" : "false";
    } else if (cJSON_IsNumber(j)) {
        double v = j->valuedouble;

        if (!isfinite(v))
            return err_set(cv->err, "JSON number out of range");
        if (v == floor(v) && fabs(v) < MAX_EXACT_INT) {
            n = tree_new(cv->a, T_INT, 0, 0);
            n->ival = (long long)v;     /* ival/fval share storage */
            n->str = arena_printf(cv->a, "%lld", n->ival);
        } else {
            n = tree_new(cv->a, T_FLOAT, 0, 0);
            n->fval = v;
            n->str = arena_printf(cv->a, "%.17g", v);
        }
    } else if (cJSON_IsString(j)) {
        size_t len = strlen(j->valuestring);

        if (!utf8_valid(j->valuestring, len))
            return err_set(cv->err, "invalid UTF-8 in JSON string");
        n = tree_new(cv->a, T_STR, 0, 0);
        n->str = arena_strndup(cv->a, j->valuestring, len);
        n->quoted = 1;
    } else {
        return err_set(cv->err, "unsupported JSON value");
    }
    *out = n;
    return 0;
}

static size_t hash_key(const char *s)
{
    size_t h = 1469598103934665603u;     /* FNV-1a */

    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211u;
    }
    return h;
}

/* Index of an earlier kid with the same key, or -1. The hash table (NULL for
 * small maps) holds kid index + 1, 0 = empty; mask = size - 1. */
static long find_dup(struct tnode *m, const char *key, size_t *table,
                     size_t mask)
{
    size_t i;

    if (!table) {
        for (i = 0; i < m->n; i++)
            if (m->kids[i]->key[0] == key[0]
                && strcmp(m->kids[i]->key, key) == 0)
                return (long)i;
        return -1;
    }
    for (i = hash_key(key) & mask; table[i]; i = (i + 1) & mask)
        if (strcmp(m->kids[table[i] - 1]->key, key) == 0)
            return (long)(table[i] - 1);
    table[i] = m->n + 1;    /* reserve the slot for the kid about to come */
    return -1;
}

static struct tnode *conv_map(struct conv *cv, const cJSON *j)
{
    struct tnode *m = tree_new(cv->a, T_MAP, 0, 0);
    const cJSON *c;
    size_t count = 0, *table = NULL, mask = 0;

    for (c = j->child; c; c = c->next)
        count++;
    if (!count)
        return m;
    m->kids = arena_alloc(cv->a, count * sizeof(*m->kids));
    if (count > SMALL_MAP) {
        size_t size = 1;
        while (size < count * 2)
            size <<= 1;
        table = arena_alloc(cv->a, size * sizeof(*table));
        mask = size - 1;
    }
    for (c = j->child; c; c = c->next) {
        size_t klen = strlen(c->string);
        struct tnode *kid;
        long dup;

        if (!utf8_valid(c->string, klen)) {
            err_set(cv->err, "invalid UTF-8 in JSON key");
            return NULL;
        }
        kid = conv_node(cv, c);
        if (!kid)
            return NULL;
        kid->key = arena_strndup(cv->a, c->string, klen);
        kid->parent = m;
        dup = find_dup(m, kid->key, table, mask);
        if (dup >= 0)
            m->kids[dup] = kid;   /* Kubernetes keeps the last value */
        else
            m->kids[m->n++] = kid;
    }
    return m;
}

static struct tnode *conv_seq(struct conv *cv, const cJSON *j)
{
    struct tnode *s = tree_new(cv->a, T_SEQ, 0, 0);
    const cJSON *c;
    size_t count = 0;

    for (c = j->child; c; c = c->next)
        count++;
    if (!count)
        return s;
    s->kids = arena_alloc(cv->a, count * sizeof(*s->kids));
    for (c = j->child; c; c = c->next) {
        struct tnode *kid = conv_node(cv, c);
        if (!kid)
            return NULL;
        kid->parent = s;
        s->kids[s->n++] = kid;
    }
    return s;
}

/* Recursion is bounded by the pre-scan's depth limit. */
static struct tnode *conv_node(struct conv *cv, const cJSON *j)
{
    struct tnode *n = NULL;

    if (cJSON_IsObject(j))
        return conv_map(cv, j);
    if (cJSON_IsArray(j))
        return conv_seq(cv, j);
    if (conv_scalar(cv, j, &n) < 0)
        return NULL;
    return n;
}

static int is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int load_json(struct arena *a, const char *data, size_t len,
              struct tnode **out, struct err *err)
{
    cJSON *root = NULL;
    const char *end = NULL;
    struct conv cv = { a, err };
    struct tnode *t;
    int ret = -1;

    *out = NULL;
    if (!data || len == 0) {
        err_set(err, "empty JSON text");
        goto out;
    }
    if (json_prescan(data, len, err) < 0)
        goto out;
    root = cJSON_ParseWithLengthOpts(data, len, &end, 0);
    if (!root) {
        size_t at = end && end >= data && end <= data + len
                        ? (size_t)(end - data) : 0;
        err_set(err, "invalid JSON at byte %zu", at);
        goto out;
    }
    while (end < data + len && is_ws(*end))
        end++;
    if (end != data + len) {
        err_set(err, "trailing data after JSON value at byte %zu",
                (size_t)(end - data));
        goto out;
    }
    t = conv_node(&cv, root);
    if (!t)
        goto out;
    *out = t;
    ret = 0;
out:
    cJSON_Delete(root);
    return ret;
}
