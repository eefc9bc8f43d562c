/*
 * test_cel_k8s.c - Kubernetes' library cost tests (tests/k8s/cel/cost.yaml,
 * transcribed from apiserver pkg/cel/library/cost_test.go) in their own
 * configuration: the expression type-checked without `device`, the cost
 * estimated with the tests' size estimator (strings and bytes of unknown
 * size are 0..12) and evaluated without OptOptimize (constant literals are
 * built every time), as testCost() does. Both the estimated range and the
 * runtime cost must be the table's. tests/k8s/cel/run.py checks the same
 * expressions through `claimcheck cel` in the DRA environment.
 *
 * Usage: test_cel_k8s [cost.yaml]
 */
#include "../../validate/arena.h"
#include "../../validate/cel/cel_internal.h"
#include "../../validate/load_yaml.h"
#include "../../validate/tree.h"
#include "check.h"

static CHECK_INIT;

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COST_YAML "tests/k8s/cel/cost.yaml"
#define FILE_MAX (4u << 20)

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf;

    if (!f)
        return NULL;
    buf = malloc(FILE_MAX + 1);
    if (!buf)
        abort();
    *len = fread(buf, 1, FILE_MAX, f);
    fclose(f);
    buf[*len] = 0;
    return buf;
}

static unsigned long long num(const struct tnode *n)
{
    const char *s = tree_text(n);

    return s ? strtoull(s, NULL, 10) : 0;
}

static void run_case(const struct tnode *c, int *skipped)
{
    const char *name = tree_str(tree_get(c, "case"));
    const char *expr = tree_str(tree_get(c, "expression"));
    const struct tnode *cost = tree_get(c, "cost");
    unsigned long long wmin = num(tree_get(cost, "min"));
    unsigned long long wmax = num(tree_get(cost, "max"));
    unsigned long long wrt = num(tree_get(c, "runtimeCost"));
    struct arena a;
    struct cel_program *p;
    struct cel_error err;
    struct cel_scratch *sc;
    struct cel_value out;
    uint64_t used = 0;

    if (!name || !expr)
        return;
    if (tree_get(c, "skip") || strstr(expr, "authorizer") ||
        strstr(expr, "jsonpatch")) {
        (*skipped)++;
        printf("skipped: %s: %s\n", name,
               tree_get(c, "skip") ? tree_str(tree_get(c, "skip"))
               : "needs a library the DRA environment lacks (authorizer, "
                 "JSONPatch)");
        return;
    }
    arena_init(&a, 65536);
    if (cel_compile_library_test(&a, expr, strlen(expr), &p, &err) < 0) {
        CHECK_MSG(0, "%s: compile error: %s", name, err.msg);
        arena_release(&a);
        return;
    }
    CHECK_MSG(p->cost_min == wmin && p->cost_max == wmax,
              "%s: estimated %llu..%llu, want %llu..%llu", name,
              (unsigned long long)p->cost_min,
              (unsigned long long)p->cost_max, wmin, wmax);
    sc = malloc(sizeof(*sc));
    if (!sc)
        abort();
    cel_scratch_init(sc);
    if (cel_eval_bindings(p, NULL, 0, sc, &out, &used, &err) < 0)
        CHECK_MSG(0, "%s: evaluation error: %s", name, err.msg);
    else
        CHECK_MSG(used == wrt, "%s: runtime cost %llu, want %llu", name,
                  (unsigned long long)used, wrt);
    cel_scratch_release(sc);
    free(sc);
    cel_program_release(p);
    arena_release(&a);
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : COST_YAML;
    struct arena a;
    struct ydocs docs;
    size_t len, i;
    char *data = slurp(path, &len);
    int skipped = 0;

    if (!data) {
        printf("FAIL cannot read %s\n", path);
        printf("0 passed, 1 failed\n");
        return 1;
    }
    arena_init(&a, 1 << 16);
    load_yaml(&a, data, len, &docs);
    for (i = 1; i < docs.n; i++)    /* document 0 is the header */
        run_case(docs.v[i].root, &skipped);
    printf("%d skipped\n", skipped);
    arena_release(&a);
    free(data);
    return CHECK_DONE();
}
