/*
 * test_budget.c - the work budget of one admission review (budget.h,
 * engine_check_update): what a review spends is counted (CEL cost of
 * the selectors it evaluates, allocator steps), a selector whose results
 * the snapshot has cached costs nothing, and past either limit the work
 * stops with no findings and work_budget_over() names the limit.
 */
#include <string.h>

#include "../../rules/rules.h"
#include "../../validate/arena.h"
#include "../../validate/budget.h"
#include "../../validate/config.h"
#include "../../validate/engine.h"
#include "../../validate/err.h"
#include "../../validate/load_yaml.h"
#include "check.h"

static CHECK_INIT;

static const char inventory[] =
"apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n"
"  name: gpu\nspec:\n  selectors:\n  - cel:\n"
"      expression: device.driver == 'gpu.example.com'\n"
"---\napiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n"
"---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata:\n"
"  name: n1-gpu\nspec:\n  driver: gpu.example.com\n  nodeName: n1\n"
"  pool:\n    name: n1\n    generation: 1\n    resourceSliceCount: 1\n"
"  devices:\n  - name: g0\n    attributes:\n      model: {string: a}\n"
"  - name: g1\n    attributes:\n      model: {string: b}\n"
"  - name: g2\n    attributes:\n      model: {string: c}\n";

/* a claim of two requests that cannot both be met (3 devices, 4 asked):
 * an error finding when judged in full */
static const char claim[] =
"apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n"
"  name: c\n  namespace: ml\nspec:\n  devices:\n    requests:\n"
"    - name: a\n      exactly:\n        deviceClassName: gpu\n"
"        count: 2\n        selectors:\n        - cel:\n"
"            expression: \"[1, 2, 3].all(x, x > 0) && "
"device.attributes['gpu.example.com'].model != 'z'\"\n"
"    - name: b\n      exactly:\n        deviceClassName: gpu\n"
"        count: 2\n";

static int judge(const struct engine *e, const struct inventory *inv,
                 struct arena *a, struct work_budget *b, size_t *nfound)
{
    struct ydocs d;
    struct diag_list l;
    struct err err;
    int rc;

    load_yaml(a, claim, strlen(claim), &d);
    diag_list_init(&l, a);
    rc = engine_check_update(e, inv, d.v[0].root, "ml", 0, b, &l, &err);
    *nfound = l.n;
    return rc;
}

static struct inventory *fresh(void)
{
    struct inventory *inv = inventory_new();
    struct err err;

    CHECK(inventory_add_text(inv, "inv.yaml", inventory, strlen(inventory),
                             &err) == 0);
    return inv;
}

int main(void)
{
    struct config cfg;
    struct engine *e;
    struct inventory *inv;
    struct arena a;
    struct work_budget b;
    struct err err;
    size_t n = 0;

    config_init(&cfg);
    e = engine_new(&cfg, &rules_builtin, &err);
    CHECK(e != NULL);
    arena_init(&a, 64 * 1024);

    /* no limit: judged in full, what it spent is counted */
    inv = fresh();
    memset(&b, 0, sizeof(b));
    CHECK(judge(e, inv, &a, &b, &n) == 0 && n >= 1);
    CHECK(b.cel_cost > 0 && b.alloc_steps > 0);
    CHECK(work_budget_over(&b) == BUDGET_OK);
    /* again on the same snapshot: the selectors' results are cached */
    memset(&b, 0, sizeof(b));
    CHECK(judge(e, inv, &a, &b, &n) == 0 && n >= 1);
    CHECK(b.cel_cost == 0 && b.alloc_steps > 0);
    inventory_free(inv);

    /* a CEL budget of 1 unit on a new snapshot: stopped, no findings */
    inv = fresh();
    memset(&b, 0, sizeof(b));
    b.cel_cost_max = 1;
    CHECK(judge(e, inv, &a, &b, &n) == 1 && n == 0);
    CHECK(work_budget_over(&b) == BUDGET_CEL);
    inventory_free(inv);

    /* an allocator budget of 1 step: stopped, no findings */
    inv = fresh();
    memset(&b, 0, sizeof(b));
    b.alloc_steps_max = 1;
    CHECK(judge(e, inv, &a, &b, &n) == 1 && n == 0);
    CHECK(work_budget_over(&b) == BUDGET_ALLOC);
    /* and a budget it stays within changes nothing */
    memset(&b, 0, sizeof(b));
    b.alloc_steps_max = 1000000;
    b.cel_cost_max = 1000000;
    CHECK(judge(e, inv, &a, &b, &n) == 0 && n >= 1);
    CHECK(work_budget_over(&b) == BUDGET_OK);
    inventory_free(inv);

    arena_release(&a);
    engine_free(e);
    config_release(&cfg);
    return CHECK_DONE();
}
