/*
 * json_oracle.h - the reference JSON reader the product's own parser
 * (validate/load_json.c) is checked against: cJSON, converted into the same
 * tree, with the same NUL/UTF-8/depth rules applied by a pre-scan. Used by
 * tests/unit/test_load_json.c (every JSON file of the tests and examples,
 * plus generated bodies) and tests/fuzz/fuzz_json.c (differential fuzzing).
 * The only place that includes <cJSON.h>. Header-only (static functions) so
 * both the unit test and the fuzz build pick it up without a Makefile rule.
 *
 * Known, intended differences: the product parser is strict where cJSON is
 * lenient (leading zeros, "1.", whitespace other than space/tab/CR/LF,
 * control bytes between tokens), so "oracle accepts, product rejects" is
 * allowed for those; "product accepts" must always mean "oracle accepts
 * with an equal tree" (json_tree_equal).
 */
#ifndef CLAIMCHECK_JSON_ORACLE_H
#define CLAIMCHECK_JSON_ORACLE_H

#include <math.h>
#include <string.h>

#include <cJSON.h>

#include "../../validate/arena.h"
#include "../../validate/err.h"
#include "../../validate/limits.h"
#include "../../validate/load_json.h"
#include "../../validate/tree.h"

#define ORACLE_MAX_EXACT_INT 9007199254740992.0

static int oracle_prescan(const char *data, size_t len)
{
    const unsigned char *p = (const unsigned char *)data, *end = p + len;
    size_t depth = 0;

    if (!utf8_valid(data, len))
        return -1;
    while (p < end) {
        unsigned char c = *p++;
        if (c == '"') {
            for (;;) {
                while (p < end && *p != '"' && *p != '\\' && *p >= 0x20)
                    p++;
                if (p >= end)
                    return 0;
                if (*p == '"') {
                    p++;
                    break;
                }
                if (*p == '\\') {
                    if (end - p >= 6 && p[1] == 'u'
                        && memcmp(p + 2, "0000", 4) == 0)
                        return -1;
                    p += 2;
                    continue;
                }
                return -1;
            }
        } else if (c == '[' || c == '{') {
            if (++depth > LIMIT_NEST_DEPTH)
                return -1;
        } else if (c == ']' || c == '}') {
            if (depth)
                depth--;
        } else if (c == '\0') {
            return -1;
        }
    }
    return 0;
}

static struct tnode *oracle_conv(struct arena *a, const cJSON *j)
{
    struct tnode *n;
    const cJSON *c;
    size_t count = 0;

    if (cJSON_IsObject(j) || cJSON_IsArray(j)) {
        int map = cJSON_IsObject(j);
        n = tree_new(a, map ? T_MAP : T_SEQ, 0, 0);
        for (c = j->child; c; c = c->next)
            count++;
        n->kids = arena_alloc(a, (count ? count : 1) * sizeof(*n->kids));
        for (c = j->child; c; c = c->next) {
            struct tnode *kid = oracle_conv(a, c);
            unsigned i;
            int dup = 0;
            if (!kid)
                return NULL;
            kid->parent = n;
            if (map) {
                if (!utf8_valid(c->string, strlen(c->string)))
                    return NULL;
                kid->key = arena_strdup(a, c->string);
                for (i = 0; i < n->n && !dup; i++)
                    if (strcmp(n->kids[i]->key, kid->key) == 0) {
                        n->kids[i] = kid;       /* last wins */
                        dup = 1;
                    }
            }
            if (!dup)
                n->kids[n->n++] = kid;
        }
        return n;
    }
    if (cJSON_IsNull(j)) {
        n = tree_new(a, T_NULL, 0, 0);
        n->str = "null";
    } else if (cJSON_IsBool(j)) {
        n = tree_new(a, T_BOOL, 0, 0);
        n->boolean = cJSON_IsTrue(j) ? 1 : 0;
        n->str = n->boolean ? "true" : "false";
    } else if (cJSON_IsNumber(j)) {
        double v = j->valuedouble;
        if (!isfinite(v))
            return NULL;
        if (v == floor(v) && fabs(v) < ORACLE_MAX_EXACT_INT) {
            n = tree_new(a, T_INT, 0, 0);
            n->ival = (long long)v;
            n->str = arena_printf(a, "%lld", n->ival);
        } else {
            n = tree_new(a, T_FLOAT, 0, 0);
            n->fval = v;
            n->str = arena_printf(a, "%.17g", v);
        }
    } else if (cJSON_IsString(j)) {
        if (!utf8_valid(j->valuestring, strlen(j->valuestring)))
            return NULL;
        n = tree_new(a, T_STR, 0, 0);
        n->str = arena_strdup(a, j->valuestring);
        n->quoted = 1;
    } else {
        return NULL;
    }
    return n;
}

/* 0 and *out, or -1: cJSON's reading of data[0..len) with our rules. */
static int json_oracle(struct arena *a, const char *data, size_t len,
                       struct tnode **out)
{
    const char *end = NULL;
    cJSON *root;

    *out = NULL;
    if (!len || oracle_prescan(data, len) < 0)
        return -1;
    root = cJSON_ParseWithLengthOpts(data, len, &end, 0);
    if (!root)
        return -1;
    while (end < data + len && (*end == ' ' || *end == '\t' || *end == '\n'
                                || *end == '\r'))
        end++;
    if (end == data + len)
        *out = oracle_conv(a, root);
    cJSON_Delete(root);
    return *out ? 0 : -1;
}

/* 1 if both trees have the same kinds, texts, values, keys and order. */
static int json_tree_equal(const struct tnode *x, const struct tnode *y)
{
    unsigned i;

    if ((x->kind == T_INT || x->kind == T_FLOAT)
        && (y->kind == T_INT || y->kind == T_FLOAT)) {
        /* cJSON keeps a double only: numbers compare by value (ours keep
         * the literal and tell 2.0 from 2, as sigs.k8s.io/json does) */
        double a = x->kind == T_INT ? (double)x->ival : x->fval;
        double b = y->kind == T_INT ? (double)y->ival : y->fval;
        if (a != b || x->n || y->n)
            return 0;
    } else if (x->kind != y->kind || x->n != y->n || x->quoted != y->quoted
               || strcmp(x->str, y->str) != 0) {
        return 0;
    }
    if ((x->key == NULL) != (y->key == NULL)
        || (x->key && strcmp(x->key, y->key) != 0))
        return 0;
    if (x->kind == T_BOOL && x->boolean != y->boolean)
        return 0;
    for (i = 0; i < x->n; i++)
        if (x->kids[i]->parent != x || y->kids[i]->parent != y
            || !json_tree_equal(x->kids[i], y->kids[i]))
            return 0;
    return 1;
}

#endif
