/*
 * test_load_json.c - load_json(): the cJSON pitfalls it must hide
 * (tooling.md section 2): duplicate keys, case, trailing data, depth,
 * numbers, NUL and invalid UTF-8 in strings.
 */
#include <stdio.h>
#include <string.h>

#include "../../validate/arena.h"
#include "../../validate/err.h"
#include "../../validate/limits.h"
#include "../../validate/load_json.h"
#include "../../validate/tree.h"

static int passed, failed;

#define CHECK(cond) check((cond), #cond, __LINE__)

static void check(int ok, const char *what, int line)
{
    if (ok) {
        passed++;
        return;
    }
    failed++;
    printf("FAIL line %d: %s\n", line, what);
}

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
    CHECK(t->kids[3]->kind == T_INT && t->kids[3]->ival == 1000);
    CHECK(t->kids[4]->kind == T_INT
          && t->kids[4]->ival == 9007199254740991LL);
    CHECK(t->kids[5]->kind == T_FLOAT);
    CHECK(t->kids[6]->kind == T_INT && t->kids[6]->ival == 3000000000LL);
    CHECK(t->kids[7]->kind == T_INT);
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

int main(void)
{
    arena_init(&arena, 0);
    test_basic();
    test_case_and_dups();
    test_big_map_dups();
    test_trailing();
    test_depth();
    test_numbers();
    test_strings();
    test_top_level();
    arena_release(&arena);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
