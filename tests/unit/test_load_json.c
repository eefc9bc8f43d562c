/*
 * test_load_json.c - load_json(): the JSON pitfalls it must get right
 * (tooling.md section 2): duplicate keys, case, trailing data, depth,
 * numbers, NUL and invalid UTF-8 in strings, escapes; and differential
 * checks against cJSON (json_oracle.h) over every JSON file of the tests
 * and examples and thousands of deterministic mutations of them: whatever
 * load_json accepts, cJSON accepts with an equal tree.
 */
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../validate/arena.h"
#include "../../validate/err.h"
#include "../../validate/limits.h"
#include "../../validate/load_json.h"
#include "../../validate/tree.h"
#include "json_oracle.h"
#include "check.h"

static CHECK_INIT;

static struct arena arena;
static struct err err;

static struct tnode *parse(const char *s, size_t len)
{
    struct tnode *t = NULL;

    err.msg[0] = '\0';
    if (load_json(&arena, s, len, &t, &err) < 0)
        return NULL;
    return t;
}

static struct tnode *ps(const char *s)
{
    return parse(s, strlen(s));
}

static void test_basic(void)
{
    struct tnode *t = ps("{\"apiVersion\":\"v1\",\"kind\":\"Pod\","
                         "\"spec\":{\"containers\":[{\"name\":\"a\"},"
                         "{\"name\":\"b\"}]},\"x\":null,\"y\":true}");
    const struct tnode *c;

    CHECK(t != NULL);
    if (!t)
        return;
    CHECK(tree_is_map(t));
    CHECK(strcmp(tree_str(tree_get(t, "kind")), "Pod") == 0);
    c = tree_at(t, "spec.containers");
    CHECK(tree_is_seq(c) && c->n == 2);
    CHECK(c && c->n == 2 && strcmp(tree_str(tree_get(c->kids[1], "name")),
                                   "b") == 0);
    CHECK(c && c->parent && strcmp(c->key, "containers") == 0);
    CHECK(tree_get(t, "x") && tree_get(t, "x")->kind == T_NULL);
    CHECK(tree_true(tree_get(t, "y")));
    CHECK(t->line == 0 && t->col == 0);
    CHECK(c && strcmp(tree_path(&arena, t, c->kids[1]),
                      "spec.containers[1]") == 0);
}

static void test_case_and_dups(void)
{
    struct tnode *t = ps("{\"Kind\":\"A\",\"kind\":\"B\",\"kind\":\"C\"}");

    CHECK(t && t->n == 2);
    CHECK(t && strcmp(tree_str(tree_get(t, "kind")), "C") == 0);
    CHECK(t && strcmp(tree_str(tree_get(t, "Kind")), "A") == 0);
    CHECK(t && tree_get(t, "KIND") == NULL);
    CHECK(t && (tree_get(t, "kind")->flags & TF_DUP)
          && !(tree_get(t, "Kind")->flags & TF_DUP));
}

/* positions, when asked: 1-based, in characters, from a given start */
static void test_positions(void)
{
    static const char text[] = "{\"a\": [1, \"\xc3\xa9\", {\"b\": true}],\n"
                               "  \"c\":\n    null}";
    struct json_in in;
    struct tnode *t;
    const struct tnode *a, *c;

    memset(&in, 0, sizeof(in));
    in.data = text;
    in.len = strlen(text);
    in.line = 3;            /* the text starts at line 3, column 5 */
    in.col = 5;
    CHECK(load_json_read(&arena, &in, &t, &err) == 0);
    if (!t)
        return;
    CHECK(t->line == 3 && t->col == 5);
    a = tree_get(t, "a");
    CHECK(a->key_line == 3 && a->key_col == 6);
    CHECK(a->line == 3 && a->col == 11);
    CHECK(a->kids[1]->col == 15);
    /* after the 2-byte e-acute, columns count characters */
    CHECK(tree_get(a->kids[2], "b")->key_col == 21);
    CHECK(tree_get(a->kids[2], "b")->col == 26);
    c = tree_get(t, "c");
    CHECK(c->key_line == 4 && c->key_col == 3);
    CHECK(c->line == 5 && c->col == 5);
    /* errors are positioned the same way */
    memset(&in, 0, sizeof(in));
    in.data = "{\n  \"a\": 1,\n}";
    in.len = strlen(in.data);
    in.line = 10;
    in.col = 1;
    CHECK(load_json_read(&arena, &in, &t, &err) < 0);
    CHECK(in.err_line == 12 && in.err_col == 1);
    /* without positions, nodes have none */
    t = ps("{\"a\": 1}");
    CHECK(t && t->line == 0 && tree_get(t, "a")->key_line == 0);
}

/* a stream: one value, and where it ends */
static void test_stream(void)
{
    static const char text[] = "{\"a\": 1}\n{\"b\": \"x\"} 7";
    char *copy = arena_strndup(&arena, text, sizeof(text) - 1);
    struct json_in in;
    struct tnode *t;
    size_t off = 0;
    int n = 0;

    while (off < sizeof(text) - 1) {
        memset(&in, 0, sizeof(in));
        in.data = text + off;
        in.len = sizeof(text) - 1 - off;
        in.copy = copy + off;
        in.stream = 1;
        in.line = 1;
        in.col = 1;
        if (load_json_read(&arena, &in, &t, &err) < 0)
            break;
        n++;
        off += in.used;
        while (off < sizeof(text) - 1 && (text[off] == ' '
                                          || text[off] == '\n'))
            off++;
    }
    CHECK(n == 3 && off == sizeof(text) - 1);
    CHECK(t && t->kind == T_INT && t->ival == 7);
    memset(&in, 0, sizeof(in));
    in.data = text;
    in.len = sizeof(text) - 1;
    CHECK(load_json_read(&arena, &in, &t, &err) < 0);   /* not a stream */
    CHECK(strstr(err.msg, "trailing"));
}

static void test_big_map_dups(void)
{
    char buf[8192];
    size_t n = 0;
    struct tnode *t;
    const struct tnode *v;

    n += (size_t)snprintf(buf + n, sizeof(buf) - n, "{");
    for (int i = 0; i < 100; i++)
        n += (size_t)snprintf(buf + n, sizeof(buf) - n, "\"k%d\":%d,",
                              i % 50, i);
    n += (size_t)snprintf(buf + n, sizeof(buf) - n, "\"end\":1}");
    t = parse(buf, n);
    CHECK(t && t->n == 51);
    v = tree_get(t, "k7");
    CHECK(v && v->kind == T_INT && v->ival == 57);
}

static void test_trailing(void)
{
    CHECK(ps("{\"a\":1}  \n") != NULL);
    CHECK(ps("{\"a\":1} xyz") == NULL);
    CHECK(strstr(err.msg, "trailing") != NULL);
    CHECK(ps("{\"a\":1}{}") == NULL);
    CHECK(ps("") == NULL);
    CHECK(ps("{\"a\":") == NULL);
    CHECK(ps("{\"a\":1,}") == NULL);
    /* not NUL-terminated: only len bytes are read */
    CHECK(parse("{\"a\":1}garbage", 7) != NULL);
}

static void test_depth(void)
{
    char deep[4096];
    size_t d;

    for (d = 0; d < LIMIT_NEST_DEPTH; d++)
        deep[d] = '[';
    for (; d < 2 * LIMIT_NEST_DEPTH; d++)
        deep[d] = ']';
    CHECK(parse(deep, d) != NULL);
    memset(deep, '[', 1500);
    memset(deep + 1500, ']', 1500);
    CHECK(parse(deep, 3000) == NULL);
    CHECK(strstr(err.msg, "nesting") != NULL);
    /* brackets inside strings do not count */
    {
        char s[1200];
        size_t n = 0;
        s[n++] = '"';
        for (int i = 0; i < 1000; i++)
            s[n++] = '[';
        s[n++] = '"';
        CHECK(parse(s, n) != NULL);
    }
}

static void test_numbers(void)
{
    struct tnode *t = ps("[1, -7, 2.5, 1e3, 9007199254740991, "
                         "9007199254740993, 3000000000, 1.0]");

    CHECK(t && t->n == 8);
    if (!t || t->n != 8)
        return;
    CHECK(t->kids[0]->kind == T_INT && t->kids[0]->ival == 1);
    CHECK(strcmp(t->kids[0]->str, "1") == 0);
    CHECK(t->kids[1]->kind == T_INT && t->kids[1]->ival == -7);
    CHECK(t->kids[2]->kind == T_FLOAT && t->kids[2]->fval == 2.5);
    /* an integer only without fraction or exponent, as sigs.k8s.io/json's
     * PreserveInts reads it; the literal is kept */
    CHECK(t->kids[3]->kind == T_FLOAT && t->kids[3]->fval == 1000
          && strcmp(t->kids[3]->str, "1e3") == 0);
    CHECK(t->kids[4]->kind == T_INT
          && t->kids[4]->ival == 9007199254740991LL);
    CHECK(t->kids[5]->kind == T_INT            /* exact past 2^53 */
          && t->kids[5]->ival == 9007199254740993LL);
    CHECK(t->kids[6]->kind == T_INT && t->kids[6]->ival == 3000000000LL);
    CHECK(t->kids[7]->kind == T_FLOAT && strcmp(t->kids[7]->str, "1.0") == 0);
    CHECK(t->kids[0]->flags & TF_JSON);
    t = ps("[9223372036854775807, -9223372036854775808, "
           "9223372036854775808]");
    CHECK(t && t->n == 3);
    if (t && t->n == 3) {
        CHECK(t->kids[0]->kind == T_INT
              && t->kids[0]->ival == 9223372036854775807LL);
        CHECK(t->kids[1]->kind == T_INT
              && t->kids[1]->ival == -9223372036854775807LL - 1);
        CHECK(t->kids[2]->kind == T_FLOAT);
    }
    CHECK(ps("[1e400]") == NULL);
}

static void test_strings(void)
{
    struct tnode *t;

    CHECK(ps("\"a\\u0000b\"") == NULL);
    CHECK(strstr(err.msg, "NUL") != NULL);
    CHECK(ps("{\"a\\u0000\":1}") == NULL);
    CHECK(ps("\"\xff\xfe\"") == NULL);
    CHECK(ps("\"\xc0\xaf\"") == NULL);             /* overlong */
    CHECK(ps("\"\xed\xa0\x80\"") == NULL);         /* raw surrogate */
    CHECK(ps("\"\\ud800\"") == NULL);              /* lone surrogate */
    CHECK(ps("\"a\tb\"") == NULL);                 /* raw control */
    CHECK(parse("\"a\0b\"", 5) == NULL);
    t = ps("\"caf\xc3\xa9 \\u00e9 \\ud83d\\ude00 \\\\u0000\"");
    CHECK(t && t->kind == T_STR && t->quoted);
    CHECK(t && strcmp(t->str, "caf\xc3\xa9 \xc3\xa9 \xf0\x9f\x98\x80 "
                      "\\u0000") == 0);
    t = ps("\"\"");
    CHECK(t && t->kind == T_STR && t->str[0] == '\0');
}

static void test_top_level(void)
{
    struct tnode *t = ps(" 42 ");

    CHECK(t && t->kind == T_INT && t->ival == 42);
    t = ps("{}");
    CHECK(t && t->kind == T_MAP && t->n == 0);
    t = ps("[]");
    CHECK(t && t->kind == T_SEQ && t->n == 0);
}

static void test_escapes_and_errors(void)
{
    struct tnode *t;

    t = ps("\"\\\" \\\\ \\/ \\b\\f\\n\\r\\t \\u0041\\u00DF\\u20ac\"");
    CHECK(t && strcmp(t->str, "\" \\ / \b\f\n\r\t A\xc3\x9f\xe2\x82\xac") == 0);
    CHECK(ps("\"\\x\"") == NULL && strstr(err.msg, "escape"));
    CHECK(ps("\"\\u12\"") == NULL);
    CHECK(ps("\"\\udc00\"") == NULL && strstr(err.msg, "surrogate"));
    CHECK(ps("\"\\ud800\\u0041\"") == NULL);
    CHECK(ps("[01]") == NULL && strstr(err.msg, "byte 2"));
    CHECK(ps("[1.]") == NULL && strstr(err.msg, "digits"));
    CHECK(ps("[.5]") == NULL);
    CHECK(ps("[1e]") == NULL);
    CHECK(ps("[-]") == NULL);
    CHECK(ps("[+1]") == NULL);
    CHECK(ps("[tru]") == NULL && strstr(err.msg, "literal"));
    CHECK(ps("{\"a\" 1}") == NULL && strstr(err.msg, "':'"));
    CHECK(ps("{1:2}") == NULL && strstr(err.msg, "key"));
    CHECK(ps("[1 2]") == NULL && strstr(err.msg, "','"));
    CHECK(ps("\n\n  [1,\n  x]") == NULL && strstr(err.msg, "line 4, column 3"));
    CHECK(ps("[\"abc") == NULL && strstr(err.msg, "unterminated"));
    CHECK(ps("\x01 1") == NULL);               /* cJSON skips it: we do not */
    CHECK(ps("[1]\x0b") == NULL);
    t = ps("[-0, 0, -1.5e-3, 123456789012345, 1234567890123456, 1E2]");
    CHECK(t && t->n == 6);
    if (t && t->n == 6) {
        CHECK(t->kids[0]->kind == T_INT && t->kids[0]->ival == 0
              && strcmp(t->kids[0]->str, "-0") == 0);
        CHECK(t->kids[2]->kind == T_FLOAT && t->kids[2]->fval == -1.5e-3);
        CHECK(t->kids[3]->ival == 123456789012345LL);
        CHECK(t->kids[4]->kind == T_INT && t->kids[4]->ival == 1234567890123456LL);
        CHECK(t->kids[5]->kind == T_FLOAT && strcmp(t->kids[5]->str, "1E2") == 0);
    }
    {
        char num[80];
        memset(num, '1', 64);
        num[64] = '\0';
        CHECK(ps(num) == NULL && strstr(err.msg, "longer"));
        num[63] = '\0';
        CHECK(ps(num) != NULL);
    }
}

static void test_skipping(void)
{
    static const char *const keys[] = { "userInfo", "oldObject", NULL };
    static const struct json_skip sk = { 2, keys };
    struct tnode *t = NULL;
    const struct tnode *rq;
    char deep[600];
    size_t n = 0, i;

#define SKIP(text) load_json_skipping(&arena, text, strlen(text), &sk, &t, \
                                      &err)
    CHECK(SKIP("{\"request\":{\"uid\":\"u\",\"userInfo\":{\"a\":[1,2,{}]},"
               "\"object\":{\"x\":1},\"oldObject\":{\"x\":2}},"
               "\"userInfo\":7}") == 0);
    rq = tree_get(t, "request");
    CHECK(rq && rq->n == 2 && tree_get(rq, "userInfo") == NULL
          && tree_get(rq, "oldObject") == NULL);
    CHECK(strcmp(tree_str(tree_get(rq, "uid")), "u") == 0);
    CHECK(tree_at(t, "request.object.x") && tree_at(t, "request.object.x")
          ->ival == 1);
    CHECK(tree_get(t, "userInfo") != NULL);     /* depth 1: kept */
    for (i = 0; rq && i < rq->n; i++)
        CHECK(rq->kids[i]->parent == rq);
    /* what is skipped is still checked */
    CHECK(SKIP("{\"request\":{\"userInfo\":\"a\\u0000\"}}") < 0
          && strstr(err.msg, "NUL"));
    CHECK(SKIP("{\"request\":{\"userInfo\":\"\xff\"}}") < 0
          && strstr(err.msg, "UTF-8"));
    CHECK(SKIP("{\"request\":{\"userInfo\":[01]}}") < 0);
    CHECK(SKIP("{\"request\":{\"userInfo\":1e999}}") < 0
          && strstr(err.msg, "range"));
    CHECK(SKIP("{\"request\":{\"oldObject\":{\"a\" 1}}}") < 0);
    CHECK(SKIP("{\"request\":{\"oldObject\":\"open}}") < 0);
    n += (size_t)snprintf(deep, sizeof(deep), "{\"request\":{\"oldObject\":");
    for (i = 0; i < 250; i++)
        deep[n++] = '[';
    for (i = 0; i < 250; i++)
        deep[n++] = ']';
    n += (size_t)snprintf(deep + n, sizeof(deep) - n, "}}");
    CHECK(load_json_skipping(&arena, deep, n, &sk, &t, &err) < 0
          && strstr(err.msg, "nesting"));
    /* duplicates of a skipped key, and a skipped key last */
    CHECK(SKIP("{\"request\":{\"oldObject\":1,\"oldObject\":{},\"a\":true,"
               "\"userInfo\":null}}") == 0);
    rq = tree_get(t, "request");
    CHECK(rq && rq->n == 1 && tree_true(tree_get(rq, "a")));
#undef SKIP
}

/* ---- differential: load_json against cJSON --------------------------- */

static int diff_runs, diff_both, diff_stricter;

/* Product accepts => oracle accepts and the trees are equal. */
static void differ(const char *what, const char *s, size_t n)
{
    struct tnode *mine = NULL, *ref = NULL;
    struct err e;
    int ok_mine = load_json(&arena, s, n, &mine, &e) == 0;
    int ok_ref = json_oracle(&arena, s, n, &ref) == 0;

    diff_runs++;
    if (ok_mine && ok_ref) {
        diff_both++;
        if (!json_tree_equal(mine, ref)) {
            CHECK(!"trees differ");
            printf("  ... on %s (%zu bytes)\n", what, n);
        }
    } else if (ok_mine) {
        CHECK(!"load_json accepted what cJSON rejects");
        printf("  ... on %s (%zu bytes)\n", what, n);
    } else if (ok_ref) {
        diff_stricter++;
        if (getenv("SHOW_STRICTER"))
            printf("stricter: %s\n", e.msg);     /* for review by hand */
    }
}

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    char *p = NULL;
    long len;

    if (!f)
        return NULL;
    len = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    p = len >= 0 && fseek(f, 0, SEEK_SET) == 0 ? malloc((size_t)len + 1)
                                                : NULL;
    if (p) {
        *n = fread(p, 1, (size_t)len, f);
        p[*n] = '\0';
    }
    fclose(f);
    return p;
}

static uint64_t rng_next(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static void test_differential(void)
{
    static const char *const pats[] = {
        "tests/admission/*.json", "deploy/examples/*.json",
        "tests/fuzz/seeds/fuzz_json/*", "tests/fuzz/seeds/fuzz_admission/*",
    };
    static const char bytes[] = "{}[]\",:\\ \n0123456789-+.eEtrufalsn\x01"
                                "\x80\xc3\xa9u";
    size_t files = 0, valid = 0, i, k;
    uint64_t seed = 0x9e3779b97f4a7c15ull;

    for (i = 0; i < sizeof(pats) / sizeof(pats[0]); i++) {
        glob_t g;
        if (glob(pats[i], 0, NULL, &g) != 0)
            continue;
        for (k = 0; k < g.gl_pathc; k++) {
            size_t n = 0, m;
            char *text = slurp(g.gl_pathv[k], &n), *mut;
            /* fuzz_admission seeds start with a flags byte */
            if (text && n && strstr(pats[i], "fuzz_admission")) {
                memmove(text, text + 1, n);
                n--;
            }
            struct tnode *t;
            struct err e;
            if (!text)
                continue;
            files++;
            /* every file is valid JSON but the seed of edge cases */
            valid += load_json(&arena, text, n, &t, &e) == 0
                     || strstr(g.gl_pathv[k], "/edge.json") != NULL;
            differ(g.gl_pathv[k], text, n);
            /* 300 mutations each: replace, insert or delete a few bytes */
            mut = malloc(n + 16);
            for (m = 0; mut && n && m < 300; m++) {
                size_t len = n, at, edits = 1 + rng_next(&seed) % 3, x;
                memcpy(mut, text, n);
                for (x = 0; x < edits; x++) {
                    char b = bytes[rng_next(&seed) % (sizeof(bytes) - 1)];
                    at = rng_next(&seed) % len;
                    switch (rng_next(&seed) % 3) {
                    case 0: mut[at] = b; break;
                    case 1:
                        memmove(mut + at + 1, mut + at, len - at);
                        mut[at] = b;
                        len++;
                        break;
                    default:
                        if (len > 1) {
                            memmove(mut + at, mut + at + 1, len - at - 1);
                            len--;
                        }
                    }
                }
                differ(g.gl_pathv[k], mut, len);
            }
            free(mut);
            free(text);
            arena_clear(&arena);
        }
        globfree(&g);
    }
    CHECK(files >= 15);         /* the globs found the test files */
    CHECK(valid == files);      /* ... and they are all valid JSON */
    CHECK(diff_both > (int)files);
    printf("differential: %d inputs (%zu files), %d accepted by both, %d "
           "rejected only by load_json (stricter)\n", diff_runs, files,
           diff_both, diff_stricter);
}

int main(void)
{
    arena_init(&arena, 0);
    test_basic();
    test_case_and_dups();
    test_positions();
    test_stream();
    test_big_map_dups();
    test_trailing();
    test_depth();
    test_numbers();
    test_strings();
    test_top_level();
    test_escapes_and_errors();
    test_skipping();
    test_differential();
    arena_release(&arena);
    return CHECK_DONE();
}
