/*
 * test_warm_next.c - unit tests of the selector results a device model
 * built from the one before takes from it (validate/alloc_carry.c, used
 * by a snapshot's warm-up: alloc_model_warm_next): random sequences of
 * ResourceSlice adds, updates and deletes and Node label changes
 * (dm_random.h), each model's results carried from the one before (which
 * carried its own) compared field by field with a full model's, for
 * selectors that pass, fail and raise errors, evaluated per group of
 * devices alike or on every device; and the budget rule: a carried
 * result is over the budget exactly when a full evaluation is.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../validate/alloc_internal.h"
#include "../../validate/allocate.h"
#include "../../validate/cel/cel.h"
#include "../../validate/devmodel.h"
#include "../../validate/limits.h"
#include "check.h"
#include "dm_random.h"

static CHECK_INIT;

#define STEPS 150

/* what the generator's devices give: yes, no, errors (a missing domain,
 * a missing attribute, a result not bool, list and unknown values), read
 * by name (devices alike evaluated once) or not (every device) */
static const char *const exprs[] = {
    "device.driver == 'gpu.example.com'",
    "device.attributes['gpu.example.com'].model == 'a100'",
    "device.attributes['x.example.com'].index >= 1",
    "device.attributes[device.driver].uuid.endsWith('1')",
    "device.capacity[device.driver].memory.compareTo(quantity('2Gi')) >= 0",
    "device.attributes['x.example.com'].v.isGreaterThan(semver('1.0.0'))",
    "device.attributes['gpu.example.com'].model",
    "'attr3' in device.attributes[device.driver]",
};
#define NEXPRS (sizeof(exprs) / sizeof(exprs[0]))

static int n_bad;

static void bad(const char *what, size_t k, size_t i)
{
    if (n_bad++ < 5)
        printf("  mismatch: %s (selector %zu, device %zu)\n", what, k, i);
}

/* x (carried) against y (full) over n devices: every field but the cost,
 * which is an upper bound of y's. */
static int same_match(const struct alloc_match *x, const struct alloc_match *y,
                      size_t n, size_t k)
{
    size_t i;
    int before = n_bad;

    if (x->nyes != y->nyes || x->nerr != y->nerr)
        bad("counts", k, 0);
    if (x->over_budget != y->over_budget)
        bad("over_budget", k, 0);
    if (x->cost < y->cost)
        bad("cost below the full evaluation's", k, 0);
    if (!x->err != !y->err)
        bad("err[]", k, 0);
    for (i = 0; i < n && !x->over_budget; i++) {
        if (x->v[i] != y->v[i])
            bad("v[]", k, i);
        else if (x->v[i] == AM_ERR
                 && (!x->err[i] || strcmp(x->err[i], y->err[i])))
            bad("error text", k, i);
    }
    return n_bad == before;
}

static void free_gone(struct cluster *c)
{
    size_t g;

    for (g = 0; g < c->ngone; g++)
        inventory_free(c->gone[g]);
    c->ngone = 0;
}

static void free_cluster(struct cluster *c)
{
    size_t i;

    for (i = 0; i < NNODES; i++)
        inventory_free(c->nodes[i]);
    for (i = 0; i < NSLICES; i++)
        inventory_free(c->slices[i]);
    inventory_free(c->parked);
}

/* The end of a step: the model before, the objects replaced and what the
 * step computed go; inc is the model before of the next step. */
static void step_done(struct cluster *c, struct devmodel **prev,
                      struct devmodel *inc, struct alloc_carry *cy,
                      struct arena *a)
{
    alloc_carry_free(cy);
    devmodel_free(*prev);
    free_gone(c);
    *prev = inc;
    arena_clear(a);
}

/* The end of a sequence. */
static void run_done(struct cluster *c, struct devmodel *last,
                     struct arena *a)
{
    devmodel_free(last);
    free_cluster(c);
    arena_release(a);
}

static void new_cluster(struct cluster *c)
{
    size_t i;

    memset(c, 0, sizeof(*c));
    for (i = 0; i < NNODES; i++)
        c->nodes[i] = node_obj((int)i);
    for (i = 0; i < NSLICES; i++)
        c->slices[i] = pick(4) ? slice_obj((int)i) : NULL;
}

/* Each model's results (alloc_eval_cached_from, as the warm-up asks for
 * them) from the one before, against a full model's. */
static void test_sequences(void)
{
    const struct object *objs[NOBJS];
    struct cluster c;
    struct devmodel *prev, *inc, *full;
    size_t i, k, n, carried = 0, steps_carried = 0;
    int run;

    for (run = 0; run < 4; run++) {
        struct cel_env env = alloc_scheduler_env(run != 3);
        struct arena a;
        arena_init(&a, ARENA_TINY_BYTES);
        new_cluster(&c);
        n = cluster_objs(&c, objs);
        prev = devmodel_build_next(NULL, objs, n, run != 3);
        for (i = 0; i < STEPS; i++) {
            struct alloc_carry *cy;
            change(&c);
            n = cluster_objs(&c, objs);
            inc = devmodel_build_next(prev, objs, n, run != 3);
            full = devmodel_build(NULL, objs, n, run != 3);
            cy = alloc_carry_new(inc, prev);
            carried += alloc_carry_count(cy);
            steps_carried += cy != NULL;
            for (k = 0; k < NEXPRS; k++) {
                struct cel_error ei, ef;
                const struct alloc_match *mi, *mf;
                /* prev's results first (carried from its own prev, but
                 * on the first step) */
                mi = alloc_eval_cached_from(inc, &env, exprs[k], &a, &ei,
                                            NULL, cy);
                mf = alloc_eval_cached(full, &env, exprs[k], &a, &ef, NULL);
                CHECK_MSG(!mi == !mf, "run %d step %zu: selector %zu "
                          "compiles on one model only", run, i, k);
                if (mi && mf)
                    CHECK_MSG(same_match(mi, mf, full->ndevs, k),
                              "run %d step %zu: selector %zu: the carried "
                              "results differ", run, i, k);
                else if (!mi && !mf)
                    CHECK_STR(ei.msg, ef.msg);
            }
            devmodel_free(full);
            step_done(&c, &prev, inc, cy, &a);
        }
        run_done(&c, prev, &a);
    }
    /* the comparisons mean something only where results were carried */
    CHECK(steps_carried > STEPS * 2);
    CHECK(carried > STEPS * 10);
}

/* Under budgets around the costs: over_budget as a full evaluation has it,
 * and the same results below it. */
static void test_budget(void)
{
    const struct object *objs[NOBJS];
    struct cluster c;
    struct devmodel *prev, *inc;
    size_t i, k, n, over = 0, within = 0;
    struct arena a;

    arena_init(&a, ARENA_TINY_BYTES);
    new_cluster(&c);
    n = cluster_objs(&c, objs);
    prev = devmodel_build_next(NULL, objs, n, 1);
    for (i = 0; i < 40; i++) {
        struct cel_env env = alloc_scheduler_env(1);
        struct alloc_carry *cy;
        change(&c);
        n = cluster_objs(&c, objs);
        inc = devmodel_build_next(prev, objs, n, 1);
        cy = alloc_carry_new(inc, prev);
        for (k = 0; cy && k < NEXPRS; k++) {
            struct alloc_match was, got, full;
            struct cel_program *p;
            struct cel_error err;
            uint64_t b, top;
            if (cel_compile(&a, &env, exprs[k], strlen(exprs[k]), &p,
                            &err) < 0)
                continue;
            alloc_eval(&a, inc, p, 0, &full);
            alloc_eval(&a, prev, p, 0, &was);
            top = was.cost + full.cost + 2 * inc->ndevs + 2;
            for (b = 1; b <= top; b += 1 + top / 40) {
                alloc_eval(&a, prev, p, b, &was);
                if (was.over_budget)
                    continue;       /* not kept: not carried */
                alloc_carry_eval(&a, cy, p, b, &was, &got);
                alloc_eval(&a, inc, p, b, &full);
                CHECK_MSG(got.over_budget == full.over_budget, "step %zu "
                          "selector %zu budget %llu: over_budget %d, a full "
                          "evaluation %d", i, k, (unsigned long long)b,
                          got.over_budget, full.over_budget);
                if (!full.over_budget) {
                    CHECK(same_match(&got, &full, inc->ndevs, k));
                    CHECK(got.cost <= b);
                }
                over += full.over_budget;
                within += !full.over_budget;
            }
        }
        step_done(&c, &prev, inc, cy, &a);
    }
    run_done(&c, prev, &a);
    CHECK(over > 10 && within > 10);
}

int main(void)
{
    test_sequences();
    test_budget();
    return CHECK_DONE();
}
