/*
 * test_allocate.c - unit tests of the device model (validate/inventory.c)
 * and the allocator (validate/allocate.c): quantities, pool generations,
 * slice shapes of every apiVersion, placement, node selectors, selector
 * vectors, and the search: counts, All, firstAvailable, constraints,
 * exclusivity, adminAccess, counters, taints, feature gates that are off,
 * capacity policies, the budget (undetermined, never a false failure) and
 * the nodes-alike memo.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../validate/allocate.h"
#include "../../validate/arena.h"
#include "../../validate/clock.h"
#include "../../validate/cel/cel.h"
#include "../../validate/engine.h"
#include "../../validate/err.h"
#include "../../validate/inventory.h"
#include "../../validate/nodeaffinity.h"
#include "../../validate/object.h"
#include "../../validate/tree.h"
#include "check.h"
#include "inv_of.h"

static CHECK_INIT;

static const unsigned char *sel(struct arena *a, const struct devmodel *m,
                                const char *expr)
{
    struct cel_env env = {1, 1, 0, 0, 0 };
    struct cel_error err;
    const struct alloc_match *mt = alloc_eval_cached(m, &env, expr, a, &err,
                                                     NULL);
    unsigned char *v = arena_alloc(a, m->ndevs + 1);
    size_t i;

    if (!mt) {
        printf("FAIL compile %s: %s\n", expr, err.msg);
        exit(1);
    }
    for (i = 0; i < m->ndevs; i++)
        v[i] = mt->v[i] == AM_YES;
    return v;
}

/* The problem of one claim "c" of one request "r" of alternative alt,
 * under constraints cons (ncons), in a. */
static struct alloc_problem *one_claim(struct arena *a,
                                       const struct alloc_alt *alt,
                                       const struct alloc_constraint *cons,
                                       size_t ncons)
{
    struct alloc_request *r = arena_alloc(a, sizeof(*r));
    struct alloc_claim *c = arena_alloc(a, sizeof(*c));
    struct alloc_problem *p = arena_alloc(a, sizeof(*p));

    r->name = "r";
    r->alts = alt;
    r->nalts = 1;
    c->name = "c";
    c->reqs = r;
    c->nreqs = 1;
    c->cons = cons;
    c->ncons = ncons;
    p->claims = c;
    p->nclaims = 1;
    return p;
}

/* A claim of one request: n devices (0 = All) matching expr. */
static enum alloc_verdict solve_taken(struct arena *a,
                                      const struct devmodel *m,
                                      const char *expr, long long n,
                                      int admin, const unsigned char *taken,
                                      struct alloc_result *res)
{
    struct alloc_alt *alt = arena_alloc(a, sizeof(*alt));
    struct alloc_problem *p;

    alt->name = "r";
    alt->sel = sel(a, m, expr);
    alt->all = n == 0;
    alt->count = n;
    alt->admin = admin;
    p = one_claim(a, alt, NULL, 0);
    p->taken = taken;
    return alloc_solve(a, m, p, res);
}

static enum alloc_verdict solve1(struct arena *a, const struct devmodel *m,
                                 const char *expr, long long n,
                                 const struct alloc_constraint *cons,
                                 size_t ncons, struct alloc_result *res)
{
    struct alloc_alt *alt = arena_alloc(a, sizeof(*alt));

    alt->name = "r";
    alt->sel = sel(a, m, expr);
    alt->all = n == 0;
    alt->count = n;
    return alloc_solve(a, m, one_claim(a, alt, cons, ncons), res);
}

static const char *node_yaml(char *buf, size_t sz, const char *name,
                             const char *labels)
{
    snprintf(buf, sz, "apiVersion: v1\nkind: Node\nmetadata:\n  name: %s\n"
             "  labels: {%s}\n---\n", name, labels);
    return buf;
}

/* ==== quantities and the model ========================================== */

static const char shapes_yaml[] =
    "apiVersion: resource.k8s.io/v1beta1\nkind: ResourceSlice\n"
    "metadata: {name: a-old}\nspec:\n  driver: d.example.com\n"
    "  nodeName: n1\n  pool: {name: p1, generation: 1, resourceSliceCount: 1}\n"
    "  devices:\n  - name: old-0\n    basic: {attributes: {m: {string: x}}}\n"
    "---\n"
    "apiVersion: resource.k8s.io/v1beta1\nkind: ResourceSlice\n"
    "metadata: {name: a}\nspec:\n  driver: d.example.com\n  nodeName: n1\n"
    "  pool: {name: p1, generation: 2, resourceSliceCount: 1}\n  devices:\n"
    "  - name: g0\n    basic:\n      attributes:\n        m: {string: big}\n"
    "        other.example.com/v: {version: 1.2.3}\n"
    "      capacity: {mem: {value: 80Gi}}\n"
    "---\n"
    "apiVersion: resource.k8s.io/v1alpha3\nkind: ResourceSlice\n"
    "metadata: {name: b}\nspec:\n  driver: d.example.com\n  nodeName: n2\n"
    "  pool: {name: p2, generation: 0, resourceSliceCount: 2}\n  devices:\n"
    "  - name: g0\n    basic:\n      attributes: {m: {string: small}}\n"
    "      capacity: {mem: 40Gi}\n"
    "---\n"
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
    "metadata: {name: c}\nspec:\n  driver: d.example.com\n"
    "  perDeviceNodeSelection: true\n"
    "  pool: {name: p3, generation: 0, resourceSliceCount: 1}\n  devices:\n"
    "  - name: anywhere\n    allNodes: true\n    attributes: {m: {int: 3}}\n"
    "  - name: local\n    nodeName: n2\n    attributes: {m: {bool: true}}\n";

#define GEN_SLICE(name, node, gen, count, dev)                            \
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"               \
    "metadata: {name: " name "}\nspec:\n  driver: d\n  nodeName: " node   \
    "\n  pool: {name: p, generation: " gen ", resourceSliceCount: " count   \
    "}\n  devices: [{name: " dev "}]\n---\n"

/* Kubernetes' allocator takes, per node, the newest generation among the
 * slices that target the node (GatherPools): a complete older generation
 * on n1 is still used there while the newest, on n2, is incomplete; an
 * incomplete older one is not (a newer generation exists). */
static void test_model_generations(void)
{
    struct inventory *inv = inv_of(
        GEN_SLICE("a1", "n1", "1", "2", "d0")
        GEN_SLICE("a2", "n1", "1", "2", "d1")
        GEN_SLICE("b1", "n2", "2", "2", "d0")
        GEN_SLICE("c1", "n3", "1", "2", "d2"));
    const struct devmodel *m = inventory_devices(inv);
    struct alloc_result r;
    struct arena a;

    arena_init(&a, 1 << 16);
    CHECK(m->ndevs == 3);               /* d0, d1 of n1; d0 of n2 */
    CHECK(devmodel_pool(m, "d", "p")->generation == 2);
    CHECK(m->npools == 2 && m->pools[1].older
          && !strcmp(m->pools[1].older, "n1"));
    CHECK(solve1(&a, m, "true", 2, NULL, 0, &r) == ALLOC_OK && r.nsat == 1
          && !strcmp(m->nodes[r.sat_first].name, "n1"));
    /* the newest generation is incomplete: All errors on n2 only */
    CHECK(solve1(&a, m, "true", 0, NULL, 0, &r) == ALLOC_ERROR
          && r.nsat == 1 && r.nerror == 1);
    arena_release(&a);
    inventory_free(inv);
}

#define REPEAT_SLICE(devs)                                                \
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"               \
    "metadata: {name: s}\nspec:\n  driver: d.example.com\n"               \
    "  nodeName: n1\n  pool: {name: p, generation: 0, "                   \
    "resourceSliceCount: 1}\n  devices:\n" devs

static const char *const repeat_devs[] = {
    "  - {name: a, attributes: {m: {string: x}, o.com/k: {int: 1}, "
    "c: {bool: true}}, capacity: {mem: {value: 1Gi}}}\n",
    "  - {name: b, attributes: {m: {string: x}, o.com/k: {int: 1}, "
    "c: {bool: true}}, capacity: {mem: {value: 1Gi}}}\n",
    "  - {name: c, attributes: {m: {string: y}, o.com/k: {int: 2}, "
    "c: {bool: false}}, capacity: {mem: {value: 2Gi}}}\n",
    "  - {name: d, attributes: {d.example.com/m: {string: y}, "
    "p.com/k: {int: 2}, c: {version: 1.0.0}}, capacity: "
    "{o.com/mem: {value: 2Gi}}}\n",
    "  - {name: e, attributes: {m: {string: y}, o.com/k: {ints: [2]}, "
    "c: {bool: false}}, capacity: {mem: 2Gi}}\n",
    /* versions: not semver (CEL_BIND_BADVER), the same again, semver; a
     * request policy, then the same capacity without one */
    "  - {name: f, attributes: {m: {string: y}, c: {version: '1.0'}}, "
    "capacity: {mem: 2Gi}}\n",
    "  - {name: g, attributes: {m: {string: y}, c: {version: '1.0'}}, "
    "capacity: {mem: {value: 2Gi, requestPolicy: {default: 1Gi}}}}\n",
    "  - {name: h, attributes: {m: {string: y}, c: {version: 1.0.0}}, "
    "capacity: {mem: {value: 2Gi}}}\n",
    "  - {name: i, attributes: {m: {string: y}, c: {version: 1.0.0}}, "
    "capacity: {mem: {value: 2Gi}}}\n",
    "  - {name: j, attributes: {m: {string: y}, c: {versions: ['1.0']}}, "
    "capacity: {mem: {value: 2Gi}}}\n",
    "  - {name: k, attributes: {m: {string: y}, c: {version: 1.0.0}}, "
    "capacity: {mem: {value: 2Gi}}}\n",
};

/* The devices of a slice mostly repeat the attributes and capacity of the
 * one before, which the build reuses: each device of one slice is modelled
 * as it is alone in a slice (names, values, symbols' names, hashes), and
 * domains stay interned (the allocator compares them by address). */
static void test_model_repeats(void)
{
    char all[2048] = "", one[sizeof(all) + 1024];  /* all + the slice */
    struct inventory *inv, *alone;
    const struct devmodel *m, *m1;
    size_t i, k, n = sizeof(repeat_devs) / sizeof(repeat_devs[0]);

    for (i = 0, k = 0; i < n; i++)
        k += (size_t)snprintf(all + k, sizeof(all) - k, "%s", repeat_devs[i]);
    snprintf(one, sizeof(one), REPEAT_SLICE("%s"), all);
    inv = inv_of(one);
    m = inventory_devices(inv);
    CHECK(m->ndevs == n);
    for (i = 0; i < n && i < m->ndevs; i++) {
        const struct dm_device *d = &m->devs[i], *d1;
        snprintf(one, sizeof(one), REPEAT_SLICE("%s"), repeat_devs[i]);
        alone = inv_of(one);
        m1 = inventory_devices(alone);
        d1 = &m1->devs[0];
        CHECK(d->cel.nattrs == d1->cel.nattrs && d->cel.ncaps == d1->cel.ncaps);
        CHECK(d->cel.bind == d1->cel.bind);     /* versions, lists */
        for (k = 0; k < d->cel.nattrs && k < d1->cel.nattrs; k++) {
            const struct cel_attr *x = &d->cel.attrs[k], *y = &d1->cel.attrs[k];
            CHECK(x->type == y->type && !strcmp(x->id, y->id)
                  && !strcmp(x->domain, y->domain) && !strcmp(x->name, y->name)
                  && d->attr_hash[k] == d1->attr_hash[k]);
            CHECK((uintptr_t)strmap_get(&m->syms, x->id)
                  == (uintptr_t)d->attr_sym[k] + 1);
            CHECK(dm_attr(d, x->name) == x);
            if (x->type == CEL_ATTR_STRING)
                CHECK(!strcmp(x->s, y->s));
        }
        for (k = 0; k < d->cel.ncaps && k < d1->cel.ncaps; k++) {
            const struct cel_capacity *x = &d->cel.caps[k], *y = &d1->cel.caps[k];
            CHECK(!strcmp(x->id, y->id) && !strcmp(x->domain, y->domain)
                  && !strcmp(x->quantity, y->quantity)
                  && d->cap_hash[k] == d1->cap_hash[k]
                  && !quantity_cmp(&d->cap_value[k], &d1->cap_value[k]));
            CHECK(!d->cap_policy[k] == !d1->cap_policy[k]
                  && (uintptr_t)strmap_get(&m->syms, x->id)
                     == (uintptr_t)d->cap_sym[k] + 1);
        }
        inventory_free(alone);
    }
    /* one domain, one address (m and d.example.com/m too); a value, one
     * copy */
    for (i = 0; i < m->ndevs; i++)
        for (k = 0; k < m->devs[i].cel.nattrs; k++) {
            const char *x = m->devs[i].cel.attrs[k].domain;
            size_t j, l;
            for (j = 0; j < m->ndevs; j++)
                for (l = 0; l < m->devs[j].cel.nattrs; l++) {
                    const char *y = m->devs[j].cel.attrs[l].domain;
                    CHECK((x == y) == !strcmp(x, y));
                }
        }
    CHECK(m->devs[3].cel.attrs[0].domain == m->devs[2].cel.attrs[0].domain);
    CHECK(m->devs[1].cel.attrs[0].s == m->devs[0].cel.attrs[0].s);
    CHECK(m->devs[1].attr_hash[0] == m->devs[0].attr_hash[0]
          && m->devs[2].attr_hash[0] != m->devs[0].attr_hash[0]);
    CHECK((m->devs[5].cel.bind & CEL_BIND_BADVER)
          && (m->devs[6].cel.bind & CEL_BIND_BADVER)
          && !(m->devs[7].cel.bind & CEL_BIND_BADVER)
          && (m->devs[9].cel.bind & (CEL_BIND_BADVER | CEL_BIND_LISTS))
             == (CEL_BIND_BADVER | CEL_BIND_LISTS)
          && m->devs[10].cel.bind == CEL_BIND_READY);
    CHECK(m->devs[6].cap_policy[0] && !m->devs[7].cap_policy[0]);
    inventory_free(inv);
}

#define NIC_SLICE(name, node, devs)                                       \
    "---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"          \
    "metadata: {name: " name "}\nspec:\n  driver: nic.example.com\n"      \
    "  nodeName: " node "\n  pool: {name: " node ", generation: 0, "       \
    "resourceSliceCount: 1}\n  devices:\n" devs

/* Devices of other slices with the same attributes (names and values)
 * share one block of them in the model; one value apart, they do not,
 * and each reads as its own. */
static void test_model_shared_attrs(void)
{
    struct inventory *inv = inv_of(
        NIC_SLICE("s1", "n1",
                  "  - {name: nic-0, attributes: {if: {string: e1}, "
                  "rdma: {bool: true}, speed: {int: 400}}}\n")
        NIC_SLICE("s2", "n2",
                  "  - {name: nic-0, attributes: {if: {string: e1}, "
                  "rdma: {bool: true}, speed: {int: 400}}}\n"
                  "  - {name: nic-1, attributes: {if: {string: e1}, "
                  "rdma: {bool: false}, speed: {int: 400}}}\n"
                  "  - {name: nic-2, attributes: {x: {ints: [1, a]}, "
                  "if: {string: e1}, rdma: {bool: true}, speed: {int: 400}, "
                  "y: {}}}\n"));
    const struct devmodel *m = inventory_devices(inv);
    const struct cel_attr *at;

    CHECK(m->ndevs == 4);
    if (m->ndevs != 4) {
        inventory_free(inv);
        return;
    }
    CHECK(m->devs[0].cel.attrs == m->devs[1].cel.attrs
          && m->devs[0].attr_hash == m->devs[1].attr_hash);
    CHECK(m->devs[2].cel.attrs != m->devs[1].cel.attrs
          && m->devs[2].attr_hash[1] != m->devs[1].attr_hash[1]);
    /* a value that does not read (a list, half read) and one of no known
     * type (noted) are left out: the rest is the first block again */
    CHECK(m->devs[3].cel.attrs == m->devs[0].cel.attrs
          && m->devs[3].cel.nattrs == 3 && m->devs[3].cel.unsupported
          && !m->devs[0].cel.unsupported);
    at = dm_attr(&m->devs[1], "rdma");
    CHECK(at && at->type == CEL_ATTR_BOOL && at->b == 1);
    at = dm_attr(&m->devs[2], "rdma");
    CHECK(at && at->type == CEL_ATTR_BOOL && at->b == 0);
    at = dm_attr(&m->devs[1], "speed");
    CHECK(at && at->type == CEL_ATTR_INT && at->i == 400);
    inventory_free(inv);
}

static void test_model(void)
{
    struct inventory *inv = inv_of(shapes_yaml);
    const struct devmodel *m = inventory_devices(inv);
    const struct cel_attr *at;
    size_t i, local = 0;

    CHECK(m == inventory_devices(inv));     /* built once */
    CHECK(m->ndevs == 4);                   /* old-0 dropped: generation */
    CHECK(m->npools == 3);
    CHECK(m->nincomplete == 1);             /* p2: 1 of 2 slices */
    CHECK(m->nnodes == 2);
    CHECK(m->nshared == 1);
    CHECK_STR(m->devs[0].name, "g0");
    CHECK_STR(m->devs[0].ref, "n1/g0");
    at = dm_attr(&m->devs[0], "other.example.com/v");
    CHECK(at && at->type == CEL_ATTR_VERSION && !strcmp(at->s, "1.2.3"));
    at = dm_attr(&m->devs[0], "m");
    CHECK(at && at->type == CEL_ATTR_STRING && !strcmp(at->s, "big"));
    CHECK(dm_attr(&m->devs[0], "d.example.com/m") == at);
    CHECK(m->devs[0].cel.ncaps == 1
          && !strcmp(m->devs[0].cel.caps[0].quantity, "80Gi"));
    CHECK(m->devs[1].cel.ncaps == 1          /* v1alpha3 bare quantity */
          && !strcmp(m->devs[1].cel.caps[0].quantity, "40Gi"));
    for (i = 0; i < m->nnodes; i++)
        local += m->nodes[i].nlocal;
    CHECK(local == 3);
    CHECK(m->devs[2].place == DM_ALL && m->devs[3].place == DM_NODE);
    CHECK(dm_device_on_node(m, 2, 0) && dm_device_on_node(m, 2, 1));
    inventory_free(inv);

    /* network-attached devices and no node named anywhere: a stand-in */
    inv = inv_of("apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
                 "metadata: {name: s}\nspec:\n  driver: d\n  allNodes: true\n"
                 "  pool: {name: p, generation: 0, resourceSliceCount: 1}\n"
                 "  devices:\n  - name: x\n");
    m = inventory_devices(inv);
    CHECK(m->nnodes == 1 && !strcmp(m->nodes[0].name, "(any node)"));
    inventory_free(inv);
    test_model_generations();
    test_model_repeats();
}

/* 1 if a NodeSelector admits model node n (unknown labels: admitted, as
 * the allocator takes them) */
static int admits(struct arena *a, const struct tnode *sel,
                  const struct dm_node *n)
{
    struct nodesel s;

    nodesel_compile(a, sel, &s);
    return nodesel_match(&s, &n->sel) != NA_NO;
}

static void test_node_selectors(void)
{
    char b1[256], b2[256];
    char yaml[1024];
    struct inventory *inv;
    const struct devmodel *m;
    struct arena a;
    const struct tnode *sel;

    snprintf(yaml, sizeof(yaml), "%s%s"
             "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n",
             node_yaml(b1, sizeof(b1), "n1", "zone: a, gen: \"3\""),
             node_yaml(b2, sizeof(b2), "n2", "zone: b"));
    inv = inv_of(yaml);
    m = inventory_devices(inv);
    CHECK(m->nnodes == 2 && m->nnode_objects == 2);
    arena_init(&a, 4096);
    {
        static const char *const cases[][3] = {
            /* terms, matches n1, matches n2 */
            {"{key: zone, operator: In, values: [a]}", "1", "0"},
            {"{key: zone, operator: NotIn, values: [a]}", "0", "1"},
            {"{key: gen, operator: Exists}", "1", "0"},
            {"{key: gen, operator: DoesNotExist}", "0", "1"},
            {"{key: gen, operator: Gt, values: [\"2\"]}", "1", "0"},
            {"{key: gen, operator: Lt, values: [\"3\"]}", "0", "0"},
        };
        size_t i;
        for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
            char text[256];
            struct inventory *tmp;
            snprintf(text, sizeof(text), "apiVersion: v1\nkind: Namespace\n"
                     "metadata: {name: x}\nspec:\n  nodeSelectorTerms:\n"
                     "  - matchExpressions: [%s]\n", cases[i][0]);
            tmp = inv_of(text);
            sel = tree_get(tmp->objs[0]->root, "spec");
            CHECK(admits(&a, sel, &m->nodes[0])
                  == (cases[i][1][0] == '1'));
            CHECK(admits(&a, sel, &m->nodes[1])
                  == (cases[i][2][0] == '1'));
            inventory_free(tmp);
        }
    }
    {
        struct inventory *tmp = inv_of(
            "apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\nspec:\n"
            "  nodeSelectorTerms:\n  - matchFields: [{key: metadata.name, "
            "operator: In, values: [n2]}]\n  - {}\n");
        sel = tree_get(tmp->objs[0]->root, "spec");
        CHECK(!admits(&a, sel, &m->nodes[0]));
        CHECK(admits(&a, sel, &m->nodes[1]));
        inventory_free(tmp);
    }
    arena_release(&a);
    inventory_free(inv);
}

/* ==== the search ========================================================= */

/* n nodes, each with 4 GPUs on roots r0, r0, r1, r1 */
static char *cluster(int n, const char *extra_dev)
{
    size_t cap = 4096 + (size_t)n * 2048, len = 0;
    char *s = malloc(cap);
    int i, k;

    if (!s)
        abort();
    for (i = 0; i < n; i++) {
        len += (size_t)snprintf(s + len, cap - len,
            "apiVersion: v1\nkind: Node\nmetadata:\n  name: n%d\n"
            "  labels: {zone: z%d}\n---\n"
            "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
            "metadata: {name: s%d}\nspec:\n  driver: gpu.example.com\n"
            "  nodeName: n%d\n  pool: {name: n%d, generation: 0, "
            "resourceSliceCount: 1}\n  devices:\n", i, i % 2, i, i, i);
        for (k = 0; k < 4; k++)
            len += (size_t)snprintf(s + len, cap - len,
                "  - name: g%d\n    attributes:\n      idx: {int: %d}\n"
                "      resource.kubernetes.io/pcieRoot: {string: r%d}\n"
                "    capacity: {memory: {value: 80Gi}}\n%s", k, k, k / 2,
                k == 3 && extra_dev ? extra_dev : "");
        len += (size_t)snprintf(s + len, cap - len, "---\n");
    }
    return s;
}

static void test_counts_and_constraints(void)
{
    char *y = cluster(3, NULL);
    struct inventory *inv = inv_of(y);
    const struct devmodel *m = inventory_devices(inv);
    struct alloc_constraint match = {0, "resource.kubernetes.io/pcieRoot",
                                     NULL, 0};
    struct alloc_constraint distinct = {1, "resource.kubernetes.io/pcieRoot",
                                        NULL, 0};
    struct alloc_result r;
    struct arena a;

    arena_init(&a, 1 << 16);
    CHECK(solve1(&a, m, "true", 4, NULL, 0, &r) == ALLOC_OK && r.nsat == 3);
    CHECK(solve1(&a, m, "true", 5, NULL, 0, &r) == ALLOC_FAIL);
    CHECK(r.nfails == 3 && r.fails[0].why == WHY_COUNT
          && r.fails[0].have == 4 && r.fails[0].need == 5);
    CHECK(solve1(&a, m, "true", 2, &match, 1, &r) == ALLOC_OK);
    CHECK(solve1(&a, m, "true", 3, &match, 1, &r) == ALLOC_FAIL);
    CHECK(r.fails[0].why == WHY_CONSTRAINT && r.fails[0].cons == 0);
    CHECK(solve1(&a, m, "true", 2, &distinct, 1, &r) == ALLOC_OK);
    CHECK(solve1(&a, m, "true", 3, &distinct, 1, &r) == ALLOC_FAIL);
    CHECK(r.fails[0].why == WHY_CONSTRAINT);
    /* All: every matching device, with a constraint they break:
     * Kubernetes' allocator errors ("cannot add device ... because a
     * claim constraint would not be satisfied") */
    CHECK(solve1(&a, m, "true", 0, NULL, 0, &r) == ALLOC_OK);
    CHECK(solve1(&a, m, "true", 0, &match, 1, &r) == ALLOC_ERROR);
    CHECK(r.nerror == 3 && r.error.why == WHY_ERROR
          && r.error.err == AERR_ALL_CONSTRAINT && r.error.cons == 0
          && r.error.node == 0 && r.error.obj < m->ndevs
          && m->devs[r.error.obj].node_idx == 0);
    /* ... but a count the constraint refuses is no error */
    CHECK(solve1(&a, m, "true", 3, &match, 1, &r) == ALLOC_FAIL
          && r.nerror == 0);
    /* more than ALLOC_RESULTS_MAX devices for one claim: an error even
     * where too few devices match */
    CHECK(solve1(&a, m, "true", ALLOC_RESULTS_MAX + 1, NULL, 0, &r)
          == ALLOC_ERROR);
    CHECK(r.error.err == AERR_TOO_MANY
          && r.error.have == ALLOC_RESULTS_MAX + 1 && r.nerror == 3);
    CHECK(solve1(&a, m, "true", ALLOC_RESULTS_MAX, NULL, 0, &r)
          == ALLOC_FAIL);
    CHECK(solve1(&a, m, "device.attributes['gpu.example.com'].idx < 2", 0,
                 &match, 1, &r) == ALLOC_OK);
    CHECK(solve1(&a, m, "false", 0, NULL, 0, &r) == ALLOC_FAIL);
    /* an attribute no device has */
    {
        struct alloc_constraint none = {0, "example.com/nope", NULL, 0};
        CHECK(solve1(&a, m, "true", 1, &none, 1, &r) == ALLOC_FAIL);
    }
    /* a tiny budget: undetermined, never a failure */
    {
        struct alloc_alt alt = {"r", sel(&a, m, "true"), 0, 4, 0, NULL,
                                NULL, 0, 0, NULL};
        struct alloc_request rq = {"r", &alt, 1};
        struct alloc_claim cl = {"c", &rq, 1, &distinct, 1};
        struct alloc_problem p;
        memset(&p, 0, sizeof(p));
        p.claims = &cl;
        p.nclaims = 1;
        p.budget = 1;
        alt.count = 2;
        CHECK(alloc_solve(&a, m, &p, &r) != ALLOC_FAIL);
        /* a deadline that has passed stops the search like the budget */
        p.budget = 0;
        CHECK(alloc_solve(&a, m, &p, &r) == ALLOC_OK && !r.partial);
        p.deadline_ns = 1;
        CHECK(alloc_solve(&a, m, &p, &r) == ALLOC_UNKNOWN && r.partial
              && r.nsat == 0);
        p.deadline_ns = clock_mono_ns() + 60 * 1000000000ull;
        CHECK(alloc_solve(&a, m, &p, &r) == ALLOC_OK && !r.partial);
    }
    arena_release(&a);
    inventory_free(inv);
    free(y);
}

static void test_requests_together(void)
{
    char *y = cluster(2, NULL);
    struct inventory *inv = inv_of(y);
    const struct devmodel *m = inventory_devices(inv);
    struct arena a;
    struct alloc_result r;
    struct alloc_alt alts[4];
    struct alloc_request rq[2];
    struct alloc_claim cl;
    struct alloc_problem p;
    const unsigned char *all;

    arena_init(&a, 1 << 16);
    all = sel(&a, m, "true");
    memset(alts, 0, sizeof(alts));
    memset(&p, 0, sizeof(p));
    alts[0].name = "a";
    alts[0].sel = all;
    alts[0].count = 3;
    alts[1] = alts[0];
    alts[1].name = "b";
    rq[0].name = "a";
    rq[0].alts = &alts[0];
    rq[0].nalts = 1;
    rq[1].name = "b";
    rq[1].alts = &alts[1];
    rq[1].nalts = 1;
    memset(&cl, 0, sizeof(cl));
    cl.name = "c";
    cl.reqs = rq;
    cl.nreqs = 2;
    p.claims = &cl;
    p.nclaims = 1;
    /* 3 + 3 devices of 4: exclusive */
    CHECK(alloc_solve(&a, m, &p, &r) == ALLOC_FAIL);
    CHECK(r.nfails && r.fails[0].why == WHY_EXCLUSIVE);
    /* adminAccess shares devices with other claims, never within its
     * own claim (Kubernetes' allocatingDeviceForClaim) */
    alts[1].admin = 1;
    CHECK(alloc_solve(&a, m, &p, &r) == ALLOC_FAIL);
    {
        struct alloc_claim two[2];
        size_t i;
        memset(two, 0, sizeof(two));
        for (i = 0; i < 2; i++) {   /* one request each */
            two[i].name = i ? "c1" : "c0";
            two[i].reqs = &rq[i];
            two[i].nreqs = 1;
        }
        p.claims = two;
        p.nclaims = 2;
        /* 3 exclusive in c0, 3 adminAccess in c1, of 4: shared */
        CHECK(alloc_solve(&a, m, &p, &r) == ALLOC_OK);
        /* the other way round: what adminAccess holds is in use */
        alts[0].admin = 1;
        alts[1].admin = 0;
        CHECK(alloc_solve(&a, m, &p, &r) == ALLOC_FAIL);
        alts[1].admin = 1;
        CHECK(alloc_solve(&a, m, &p, &r) == ALLOC_OK);
        alts[0].admin = 0;
        p.claims = &cl;
        p.nclaims = 1;
    }
    alts[1].admin = 0;
    /* firstAvailable: 8 does not fit, 1 does */
    alts[2] = alts[1];
    alts[2].name = "b/eight";
    alts[2].count = 8;
    alts[3] = alts[1];
    alts[3].name = "b/one";
    alts[3].count = 1;
    rq[1].alts = &alts[2];
    rq[1].nalts = 2;
    CHECK(alloc_solve(&a, m, &p, &r) == ALLOC_OK && r.nsat == 2);
    alts[3].count = 2;
    CHECK(alloc_solve(&a, m, &p, &r) == ALLOC_FAIL);
    /* the Pod's placement */
    alts[3].count = 1;
    p.node_name = "n1";
    CHECK(alloc_solve(&a, m, &p, &r) == ALLOC_OK && r.nsat == 1
          && r.sat_first == 1);
    p.node_name = "elsewhere";      /* a node nobody describes */
    CHECK(alloc_solve(&a, m, &p, &r) == ALLOC_UNKNOWN);
    p.node_name = NULL;
    arena_release(&a);
    inventory_free(inv);
    free(y);
}

static void test_taints_and_capacity(void)
{
    char *y = cluster(1, "    taints:\n    - {key: k, value: v, "
                         "effect: NoExecute}\n"
                         "    allowMultipleAllocations: true\n");
    struct inventory *inv = inv_of(y);
    const struct devmodel *m = inventory_devices(inv);
    struct inventory *tol = inv_of(
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: t}\nspec:\n"
        "  a: [{key: k, operator: Equal, value: v, effect: NoExecute}]\n"
        "  b: [{operator: Exists}]\n"
        "  c: [{key: k, value: w}]\n"
        "  d: [{key: k, operator: Exists, effect: NoSchedule}]\n");
    const struct tnode *spec = tree_get(tol->objs[0]->root, "spec");
    const struct tnode *taint;
    struct alloc_alt alt;
    struct alloc_capreq cap;
    const char *why = NULL;
    struct arena a;

    arena_init(&a, 1 << 16);
    taint = m->devs[3].taints->kids[0];
    CHECK(alloc_tolerates(tree_get(spec, "a"), taint));
    CHECK(alloc_tolerates(tree_get(spec, "b"), taint));
    CHECK(!alloc_tolerates(tree_get(spec, "c"), taint));
    CHECK(!alloc_tolerates(tree_get(spec, "d"), taint));
    CHECK(!alloc_tolerates(NULL, taint));
    memset(&alt, 0, sizeof(alt));
    alt.count = 1;
    CHECK(!alloc_device_fits(&a, &m->devs[3], &alt, &why));
    CHECK(why && strstr(why, "taint k=v:NoExecute"));
    alt.tolerations = tree_get(spec, "b");
    CHECK(alloc_device_fits(&a, &m->devs[3], &alt, NULL));
    /* capacity requests */
    alt.tolerations = NULL;
    cap.name = "memory";
    cap.text = "100Gi";
    quantity_from_text("100Gi", &cap.q);
    alt.caps = &cap;
    alt.ncaps = 1;
    why = NULL;
    CHECK(!alloc_device_fits(&a, &m->devs[0], &alt, &why));
    CHECK_STR(why, "memory 80Gi < 100Gi");
    cap.name = "gpu.example.com/memory";
    cap.text = "40Gi";
    quantity_from_text("40Gi", &cap.q);
    CHECK(alloc_device_fits(&a, &m->devs[0], &alt, NULL));
    cap.name = "other.example.com/memory";
    CHECK(!alloc_device_fits(&a, &m->devs[0], &alt, &why));
    CHECK_STR(why, "no capacity memory");
    arena_release(&a);
    inventory_free(tol);
    inventory_free(inv);
    free(y);
}

/* n claims of one request each, for 1 device with capacity request caps
 * (NULL: none) */
static enum alloc_verdict solve_shares(struct arena *a,
                                       const struct devmodel *m, size_t n,
                                       const struct alloc_capreq *cap,
                                       struct alloc_result *res)
{
    struct alloc_alt *alt = arena_alloc(a, sizeof(*alt));
    struct alloc_request *r = arena_alloc(a, sizeof(*r));
    struct alloc_claim *c = arena_alloc(a, n * sizeof(*c));
    struct alloc_problem p;
    size_t i;

    memset(alt, 0, sizeof(*alt));
    alt->name = "r";
    alt->sel = sel(a, m, "true");
    alt->count = 1;
    alt->caps = cap;
    alt->ncaps = cap ? 1 : 0;
    r->name = "r";
    r->alts = alt;
    r->nalts = 1;
    memset(c, 0, n * sizeof(*c));
    for (i = 0; i < n; i++) {
        c[i].name = "c";
        c[i].reqs = r;
        c[i].nreqs = 1;
    }
    memset(&p, 0, sizeof(p));
    p.claims = c;
    p.nclaims = n;
    return alloc_solve(a, m, &p, res);
}

/* the allocations of a multi-allocatable device consume its capacity
 * together (consumable_capacity.go): a request rounded up by the policy,
 * else the policy's default, else all of it; its counters are spent once
 * (allocateDevice's skipCounterCheck) */
static void test_shared_capacity(void)
{
    struct inventory *inv = inv_of(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
        "metadata: {name: s}\nspec:\n  driver: d\n  nodeName: n1\n"
        "  pool: {name: p, generation: 0, resourceSliceCount: 1}\n"
        "  sharedCounters:\n  - name: cs\n    counters: {mem: {value: 1}}\n"
        "  devices:\n  - name: d0\n    allowMultipleAllocations: true\n"
        "    consumesCounters: [{counterSet: cs, counters: "
        "{mem: {value: 1}}}]\n"
        "    capacity:\n      bw:\n        value: \"8\"\n"
        "        requestPolicy: {default: \"2\", validRange: {min: \"2\", "
        "max: \"8\", step: \"2\"}}\n");
    const struct devmodel *m = inventory_devices(inv);
    struct alloc_capreq cap;
    struct alloc_result r;
    struct arena a;

    arena_init(&a, 1 << 16);
    cap.name = "bw";
    cap.text = "3";
    quantity_from_text("3", &cap.q);
    /* 3 is rounded up to 4: two fit in 8, three do not */
    CHECK(solve_shares(&a, m, 2, &cap, &r) == ALLOC_OK);
    CHECK(solve_shares(&a, m, 3, &cap, &r) == ALLOC_FAIL);
    /* no request: the default, 2, four times */
    CHECK(solve_shares(&a, m, 4, NULL, &r) == ALLOC_OK);
    CHECK(solve_shares(&a, m, 5, NULL, &r) == ALLOC_FAIL);
    arena_release(&a);
    inventory_free(inv);
    /* no policy, no request: each allocation takes all of it */
    inv = inv_of(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
        "metadata: {name: s}\nspec:\n  driver: d\n  nodeName: n1\n"
        "  pool: {name: p, generation: 0, resourceSliceCount: 1}\n"
        "  devices:\n  - name: d0\n    allowMultipleAllocations: true\n"
        "    capacity: {bw: {value: \"2\"}}\n");
    m = inventory_devices(inv);
    arena_init(&a, 1 << 16);
    CHECK(solve_shares(&a, m, 1, NULL, &r) == ALLOC_OK);
    CHECK(solve_shares(&a, m, 2, NULL, &r) == ALLOC_FAIL);
    arena_release(&a);
    inventory_free(inv);
}

static void test_request_policy(void)
{
    struct inventory *inv = inv_of(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
        "metadata: {name: s}\nspec:\n  driver: d\n  nodeName: n\n"
        "  pool: {name: p, generation: 0, resourceSliceCount: 1}\n"
        "  devices:\n  - name: shared\n    allowMultipleAllocations: true\n"
        "    capacity:\n      bw:\n        value: 100G\n"
        "        requestPolicy: {validRange: {min: 10G, max: 40G}}\n"
        "      slots:\n        value: \"8\"\n"
        "        requestPolicy: {validValues: [\"2\", \"4\"]}\n");
    const struct devmodel *m = inventory_devices(inv);
    struct alloc_alt alt;
    struct alloc_capreq cap;
    struct arena a;

    arena_init(&a, 4096);
    memset(&alt, 0, sizeof(alt));
    alt.caps = &cap;
    alt.ncaps = 1;
    cap.name = "bw";
    cap.text = "30G";
    quantity_from_text("30G", &cap.q);
    CHECK(alloc_device_fits(&a, &m->devs[0], &alt, NULL));
    cap.text = "50G";
    quantity_from_text("50G", &cap.q);
    CHECK(!alloc_device_fits(&a, &m->devs[0], &alt, NULL));  /* > max */
    cap.name = "slots";
    cap.text = "3";
    quantity_from_text("3", &cap.q);
    CHECK(alloc_device_fits(&a, &m->devs[0], &alt, NULL));   /* -> 4 */
    cap.text = "5";
    quantity_from_text("5", &cap.q);
    CHECK(!alloc_device_fits(&a, &m->devs[0], &alt, NULL));  /* none */
    arena_release(&a);
    inventory_free(inv);
}

static void test_counters(void)
{
    struct inventory *inv = inv_of(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
        "metadata: {name: c}\nspec:\n  driver: d\n  nodeName: n\n"
        "  pool: {name: p, generation: 0, resourceSliceCount: 2}\n"
        "  sharedCounters:\n  - name: cs\n    counters: {mem: {value: 40Gi}}\n"
        "---\n"
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
        "metadata: {name: d}\nspec:\n  driver: d\n  nodeName: n\n"
        "  pool: {name: p, generation: 0, resourceSliceCount: 2}\n"
        "  devices:\n"
        "  - {name: a, consumesCounters: [{counterSet: cs, counters: "
        "{mem: {value: 20Gi}}}]}\n"
        "  - {name: b, consumesCounters: [{counterSet: cs, counters: "
        "{mem: {value: 20Gi}}}]}\n"
        "  - {name: c, consumesCounters: [{counterSet: cs, counters: "
        "{mem: {value: 20Gi}}}]}\n");
    const struct devmodel *m = inventory_devices(inv);
    struct alloc_result r;
    struct arena a;

    arena_init(&a, 1 << 16);
    CHECK(m->nincomplete == 0 && m->pools[0].nsets == 1);
    CHECK(m->ndevs == 3 && !m->pools[0].invalid);
    /* two 20Gi partitions fit in 40Gi, a third does not */
    CHECK(solve1(&a, m, "true", 2, NULL, 0, &r) == ALLOC_OK);
    CHECK(solve1(&a, m, "true", 3, NULL, 0, &r) == ALLOC_FAIL);
    CHECK(r.nfails == 1 && r.fails[0].why == WHY_COUNTERS);
    arena_release(&a);
    inventory_free(inv);
}

/* Appends node's slice: counter mem of cap_gi, then n partitions of each
 * size in sizes_gi (0: consumes nothing). */
static size_t add_node(char *t, size_t at, size_t max, int node, int cap_gi,
                       const int *counts, const int *sizes_gi, size_t nsz)
{
    size_t i;
    int k, dev = 0;

    at += (size_t)snprintf(t + at, max - at,
        "---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
        "metadata: {name: s%d}\nspec:\n  driver: d\n  nodeName: n%d\n"
        "  pool: {name: p%d, generation: 0, resourceSliceCount: 1}\n"
        "  sharedCounters:\n  - name: cs\n    counters: {mem: {value: %dGi}}\n"
        "  devices:\n", node, node, node, cap_gi);
    for (i = 0; i < nsz; i++)
        for (k = 0; k < counts[i]; k++, dev++)
            at += (size_t)(sizes_gi[i]
                ? snprintf(t + at, max - at, "  - {name: x%d, consumesCounters:"
                           " [{counterSet: cs, counters: {mem: {value: "
                           "%dGi}}}]}\n", dev, sizes_gi[i])
                : snprintf(t + at, max - at, "  - {name: x%d}\n", dev));
    return at;
}

/* Many partitions of a shared counter on two nodes: a search alone tries
 * the ways to pick them until its budget runs out (undetermined, nothing
 * said); the counters' lower bound decides (issue 15). */
static void test_counter_bound(void)
{
    static const int mixed_n[] = {8, 24, 2}, mixed_gi[] = {10, 40, 0};
    static const int same_n[] = {32}, same_gi[] = {10};
    size_t max = 1 << 16, at = 0;
    char *t = malloc(max);
    struct inventory *inv;
    const struct devmodel *m;
    struct alloc_result r;
    struct arena a;
    int node;

    arena_init(&a, 1 << 16);
    /* 100Gi: 8 of 10Gi, 24 of 40Gi, 2 that consume nothing */
    for (node = 0; node < 2; node++)
        at = add_node(t, at, max, node, 100, mixed_n, mixed_gi, 3);
    inv = inv_of(t + 4);        /* past the first "---\n" */
    m = inventory_devices(inv);
    CHECK(m->ndevs == 68);
    /* 11 take at least 9 partitions (2 consume nothing): the 8 of 10Gi
     * and one of 40Gi, 120Gi */
    CHECK(solve1(&a, m, "true", 11, NULL, 0, &r) == ALLOC_FAIL);
    CHECK(!r.partial && r.nfails == 2 && r.fails[0].why == WHY_COUNTERS);
    CHECK(solve1(&a, m, "true", 12, NULL, 0, &r) == ALLOC_FAIL);
    CHECK(!r.partial && r.fails[0].why == WHY_COUNTERS);
    /* 10: the two free ones and the 8 of 10Gi, 80Gi */
    CHECK(solve1(&a, m, "true", 10, NULL, 0, &r) != ALLOC_FAIL);
    CHECK(solve1(&a, m, "true", 9, NULL, 0, &r) != ALLOC_FAIL);
    /* the free ones only: the bound has nothing to say */
    CHECK(solve1(&a, m, "!('mem' in device.capacity) && "
                 "device.attributes.size() == 0", 2, NULL, 0, &r)
          != ALLOC_FAIL);
    inventory_free(inv);

    /* 160Gi of 32 partitions of 10Gi: 16 fit, 17 never */
    at = 0;
    for (node = 0; node < 2; node++)
        at = add_node(t, at, max, node, 160, same_n, same_gi, 1);
    inv = inv_of(t + 4);
    m = inventory_devices(inv);
    CHECK(solve1(&a, m, "true", 17, NULL, 0, &r) == ALLOC_FAIL);
    CHECK(!r.partial && r.fails[0].why == WHY_COUNTERS);
    CHECK(solve1(&a, m, "true", 16, NULL, 0, &r) == ALLOC_OK);
    inventory_free(inv);
    arena_release(&a);
    free(t);
}

/* Kubernetes' allocator refuses a whole pool when a device consumes a
 * counter set the pool does not define (or a device name repeats across
 * its slices): none of its devices is used. */
static void test_invalid_pool(void)
{
    struct inventory *inv = inv_of(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
        "metadata: {name: c}\nspec:\n  driver: d\n  nodeName: n\n"
        "  pool: {name: p, generation: 0, resourceSliceCount: 1}\n"
        "  sharedCounters:\n  - name: cs\n    counters: {mem: {value: 40Gi}}\n"
        "  devices:\n"
        "  - {name: a, consumesCounters: [{counterSet: cs, counters: "
        "{mem: {value: 20Gi}}}]}\n"
        "  - {name: bad, consumesCounters: [{counterSet: nope, counters: "
        "{mem: {value: 1}}}]}\n"
        "---\n"
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
        "metadata: {name: e}\nspec:\n  driver: e\n  nodeName: n\n"
        "  pool: {name: q, generation: 0, resourceSliceCount: 2}\n"
        "  devices: [{name: x}, {name: y}]\n"
        "---\n"
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
        "metadata: {name: f}\nspec:\n  driver: e\n  nodeName: n\n"
        "  pool: {name: q, generation: 0, resourceSliceCount: 2}\n"
        "  devices: [{name: x}]\n");
    const struct devmodel *m = inventory_devices(inv);
    struct alloc_result r;
    struct arena a;

    arena_init(&a, 1 << 16);
    CHECK(m->npools == 2 && m->pools[0].invalid && m->pools[1].invalid);
    CHECK(m->pools[0].invalid_counters && !m->pools[1].invalid_counters);
    CHECK(devmodel_pool(m, "e", "q") == &m->pools[1]);
    CHECK(!dm_pool_usable(&m->pools[0]) && !dm_pool_usable(&m->pools[1]));
    /* device a alone would fit; its pool is refused */
    CHECK(solve1(&a, m, "device.driver == 'd'", 1, NULL, 0, &r)
          == ALLOC_FAIL);
    CHECK(solve1(&a, m, "device.driver == 'e'", 1, NULL, 0, &r)
          == ALLOC_FAIL);
    /* allocationMode All with a pool of the node that cannot be used, even
     * one without a matching device: an error (validateDeviceRequest),
     * naming the first pool by driver and name */
    CHECK(solve1(&a, m, "device.driver == 'e'", 0, NULL, 0, &r)
          == ALLOC_ERROR);
    CHECK(r.error.err == AERR_ALL_INVALID
          && r.error.obj == (size_t)(devmodel_pool(m, "d", "p") - m->pools));
    CHECK(solve1(&a, m, "false", 0, NULL, 0, &r) == ALLOC_ERROR);
    arena_release(&a);
    inventory_free(inv);
    inv = inv_of(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
        "metadata: {name: g}\nspec:\n  driver: g\n  nodeName: n1\n"
        "  pool: {name: p, generation: 0, resourceSliceCount: 1}\n"
        "  devices: [{name: x}]\n"
        "---\n"
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
        "metadata: {name: h}\nspec:\n  driver: h\n  nodeName: n1\n"
        "  pool: {name: p, generation: 0, resourceSliceCount: 2}\n"
        "  devices: [{name: x}]\n"
        "---\n"
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
        "metadata: {name: i}\nspec:\n  driver: i\n  nodeName: n2\n"
        "  pool: {name: p, generation: 0, resourceSliceCount: 2}\n"
        "  devices: [{name: x}]\n"
        "---\n"
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
        "metadata: {name: j}\nspec:\n  driver: g\n  nodeName: n3\n"
        "  pool: {name: q, generation: 0, resourceSliceCount: 1}\n"
        "  devices: [{name: x}]\n");
    m = inventory_devices(inv);
    arena_init(&a, 1 << 16);
    CHECK(solve1(&a, m, "device.driver == 'g'", 1, NULL, 0, &r) == ALLOC_OK);
    CHECK(solve1(&a, m, "device.driver == 'g'", 0, NULL, 0, &r)
          == ALLOC_ERROR);
    CHECK(r.error.err == AERR_ALL_INCOMPLETE && r.nerror == 2
          && r.error.obj == (size_t)(devmodel_pool(m, "h", "p") - m->pools));
    /* n3 could host it, but fewer than ALLOC_FEASIBLE_MIN nodes fit: the
     * scheduler filters n1 and n2 too, and their error aborts it */
    CHECK(r.nsat == 1 && m->nodes[r.sat_first].name[1] == '3');
    arena_release(&a);
    inventory_free(inv);
}

/* the target's feature gates that are off (alloc_alt.off), as Kubernetes'
 * allocator applies them: DRADeviceTaints off ignores taints,
 * DRAPartitionableDevices off refuses devices that consume counters or sit
 * in a slice with perDeviceNodeSelection / sharedCounters (and checks no
 * counters: a pool invalid only for them is usable),
 * DRADeviceBindingConditions off refuses devices with bindingConditions */
static void test_gates_off(void)
{
    struct inventory *inv = inv_of(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
        "metadata: {name: s}\nspec:\n  driver: d\n  nodeName: n\n"
        "  pool: {name: p, generation: 0, resourceSliceCount: 1}\n"
        "  devices:\n"
        "  - {name: plain}\n"
        "  - {name: tainted, taints: [{key: k, effect: NoSchedule}]}\n"
        "  - {name: bound, bindingConditions: [Ready]}\n"
        "  - {name: part, consumesCounters: [{counterSet: nope, counters: "
        "{mem: {value: 1}}}]}\n"
        "---\n"
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
        "metadata: {name: t}\nspec:\n  driver: e\n"
        "  perDeviceNodeSelection: true\n"
        "  pool: {name: q, generation: 0, resourceSliceCount: 1}\n"
        "  devices: [{name: pernode, nodeName: n}]\n");
    const struct devmodel *m = inventory_devices(inv);
    struct alloc_alt alt;
    const char *why = NULL;
    struct arena a;

    arena_init(&a, 1 << 16);
    CHECK(m->ndevs == 5 && m->npools == 2);
    CHECK(!m->devs[0].gated && !m->devs[1].gated);
    CHECK(m->devs[2].gated == DM_GATED_BINDING);
    CHECK(m->devs[3].gated == DM_GATED_PARTITIONABLE);
    CHECK(m->devs[4].gated == DM_GATED_PARTITIONABLE);
    CHECK(m->pools[0].invalid && m->pools[0].invalid_counters);
    memset(&alt, 0, sizeof(alt));
    alt.count = 1;
    /* every gate on: the taint counts, the others pass */
    CHECK(!alloc_device_ok(&a, &m->devs[1], &alt));
    CHECK(alloc_device_ok(&a, &m->devs[2], &alt));
    CHECK(alloc_device_ok(&a, &m->devs[3], &alt));
    CHECK(alloc_device_ok(&a, &m->devs[4], &alt));
    CHECK(!alloc_pool_usable(&m->pools[0], 0));
    alt.off = ALLOC_OFF_TAINTS;
    CHECK(alloc_device_ok(&a, &m->devs[1], &alt));
    alt.off = ALLOC_OFF_BINDING;
    CHECK(!alloc_device_fits(&a, &m->devs[2], &alt, &why));
    CHECK(why && strstr(why, "bindingConditions"));
    CHECK(alloc_device_ok(&a, &m->devs[3], &alt));
    alt.off = ALLOC_OFF_PARTITIONABLE;
    CHECK(alloc_device_ok(&a, &m->devs[0], &alt));
    CHECK(alloc_device_ok(&a, &m->devs[2], &alt));
    CHECK(!alloc_device_fits(&a, &m->devs[3], &alt, &why));
    CHECK(why && strstr(why, "consumes counters"));
    CHECK(!alloc_device_ok(&a, &m->devs[4], &alt));
    CHECK(alloc_pool_usable(&m->pools[0], ALLOC_OFF_PARTITIONABLE));
    CHECK(alloc_device_gated(&m->devs[4], ALLOC_OFF_TAINTS) == NULL);
    arena_release(&a);
    inventory_free(inv);
}

/* devices allocated already (an audit's live state): not candidates,
 * unless shared; their counters are spent */
static void test_taken(void)
{
    char *y = cluster(2, "    allowMultipleAllocations: true\n");
    struct inventory *inv = inv_of(y);
    const struct devmodel *m = inventory_devices(inv);
    struct inventory *cinv = inv_of(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
        "metadata: {name: c}\nspec:\n  driver: d\n  nodeName: n\n"
        "  pool: {name: p, generation: 0, resourceSliceCount: 1}\n"
        "  sharedCounters:\n  - name: cs\n    counters: {mem: {value: 40Gi}}\n"
        "  devices:\n"
        "  - {name: a, consumesCounters: [{counterSet: cs, counters: "
        "{mem: {value: 20Gi}}}]}\n"
        "  - {name: b, consumesCounters: [{counterSet: cs, counters: "
        "{mem: {value: 20Gi}}}]}\n"
        "  - {name: c, consumesCounters: [{counterSet: cs, counters: "
        "{mem: {value: 20Gi}}}]}\n");
    const struct devmodel *cm = inventory_devices(cinv);
    unsigned char *taken;
    struct alloc_result r;
    struct arena a;
    size_t i;

    arena_init(&a, 1 << 16);
    taken = arena_alloc(&a, m->ndevs);
    memset(taken, 0, m->ndevs);
    /* g0 and g1 of both nodes held: two free devices on each node (g2 and
     * the shared g3), three needed */
    for (i = 0; i < m->ndevs; i++)
        taken[i] = !strcmp(m->devs[i].name, "g0")
                   || !strcmp(m->devs[i].name, "g1");
    CHECK(solve_taken(&a, m, "device.attributes['gpu.example.com'].idx < 3",
                      2, 0, NULL, &r) == ALLOC_OK);
    CHECK(solve_taken(&a, m, "device.attributes['gpu.example.com'].idx < 3",
                      2, 0, taken, &r) == ALLOC_FAIL);
    CHECK(r.nfails == 2 && r.fails[0].why == WHY_COUNT
          && r.fails[0].have == 1 && r.fails[0].need == 2);
    CHECK(solve_taken(&a, m, "true", 2, 0, taken, &r) == ALLOC_OK
          && r.nsat == 2);
    CHECK(solve_taken(&a, m, "true", 3, 0, taken, &r) == ALLOC_FAIL);
    /* adminAccess shares held devices */
    CHECK(solve_taken(&a, m, "true", 4, 1, taken, &r) == ALLOC_OK);
    /* allowMultipleAllocations: g3 stays a candidate when held */
    for (i = 0; i < m->ndevs; i++)
        taken[i] = 1;
    CHECK(solve_taken(&a, m, "true", 1, 0, taken, &r) == ALLOC_OK
          && r.nsat == 2);
    CHECK(solve_taken(&a, m, "true", 2, 0, taken, &r) == ALLOC_FAIL);
    /* counters: a holds 20Gi of 40Gi, so b and c no longer fit together */
    taken = arena_alloc(&a, cm->ndevs);
    for (i = 0; i < cm->ndevs; i++)
        taken[i] = !strcmp(cm->devs[i].name, "a");
    CHECK(solve_taken(&a, cm, "true", 2, 0, NULL, &r) == ALLOC_OK);
    CHECK(solve_taken(&a, cm, "true", 2, 0, taken, &r) == ALLOC_FAIL);
    CHECK(r.nfails == 1 && r.fails[0].why == WHY_COUNTERS);
    CHECK(solve_taken(&a, cm, "true", 1, 0, taken, &r) == ALLOC_OK);
    arena_release(&a);
    inventory_free(cinv);
    inventory_free(inv);
    free(y);
}

/* selector vectors: the shared evaluation agrees with one by one */
static void test_eval(void)
{
    char *y = cluster(40, NULL);
    struct inventory *inv = inv_of(y);
    const struct devmodel *m = inventory_devices(inv);
    static const char *const exprs[] = {
        "device.attributes['gpu.example.com'].idx >= 2",
        "device.attributes['resource.kubernetes.io'].pcieRoot == 'r1'",
        "device.attributes['gpu.example.com'].exists(k, k == 'idx')",
        "device.capacity['gpu.example.com'].memory.compareTo("
        "quantity('80Gi')) == 0",
        "device.attributes['gpu.example.com'].nope == 1",
        "cel.bind(a, device.attributes['gpu.example.com'], a.idx >= 2)",
        "cel.bind(d, device, d.attributes['gpu.example.com'].idx == 1)",
        "device.attributes['gpu.example.com'] == {'idx': 1}",
        "device.attributes[device.driver].idx < 1",
        "device.attributes['gpu.example.com']['i' + 'dx'] == 2",
        "device.attributes['resource.kubernetes.io'][\"pcie\" + 'Root'] "
        "== 'r0'",
    };
    struct arena a;
    size_t i, k;

    arena_init(&a, 1 << 16);
    for (i = 0; i < sizeof(exprs) / sizeof(exprs[0]); i++) {
        struct cel_env env = {1, 1, 0, 0, 0 };
        struct cel_program *p;
        struct cel_error err;
        const struct alloc_match *mt;
        size_t bad = 0, yes = 0;
        CHECK(cel_compile(&a, &env, exprs[i], strlen(exprs[i]), &p, &err)
              == 0);
        uint64_t first = 0, again = 1;
        mt = alloc_eval_cached(m, &env, exprs[i], &a, &err, &first);
        CHECK(mt != NULL);
        /* the first call pays the evaluation, a repeat is served from
         * the model's cache and costs nothing (a request's budget) */
        CHECK(first > 0 && mt && first == mt->cost);
        CHECK(mt == alloc_eval_cached(m, &env, exprs[i], &a, &err, &again));
        CHECK(again == 0);
        for (k = 0; mt && k < m->ndevs; k++) {
            int r = cel_eval_device(p, &m->devs[k].cel, &err);
            bad += (r < 0 ? AM_ERR : r ? AM_YES : AM_NO) != mt->v[k];
            yes += r == 1;
        }
        CHECK(bad == 0);
        CHECK(!mt || yes == mt->nyes);
    }
    CHECK(alloc_eval_cached(m, &(struct cel_env){1, 1, 0, 0, 0}, "device.", &a,
                            &(struct cel_error){{0}, 0, 0, 0, 0}, NULL)
          == NULL);
    /* the cost budget over the inventory: a selector that reads the
     * attributes as a whole is evaluated on every device; past the budget
     * it stops */
    {
        struct cel_env env = {1, 1, 0, 0, 0 };
        struct cel_program *p;
        struct cel_error err;
        struct alloc_match full, cut;
        const char *e = "[1, 2, 3].all(x, x > 0 && "
                        "size(device.attributes) >= 0)";
        CHECK(cel_compile(&a, &env, e, strlen(e), &p, &err) == 0);
        alloc_eval(&a, m, p, 0, &full);
        CHECK(!full.over_budget && full.nyes == m->ndevs);
        alloc_eval(&a, m, p, 50, &cut);
        CHECK(cut.over_budget && cut.nyes < m->ndevs);
        alloc_eval(&a, m, p, ALLOC_EVAL_BUDGET, &cut);
        CHECK(!cut.over_budget && cut.nyes == m->ndevs);
        /* one that reads only device.driver is evaluated once per driver
         * (the syntax tree lists what it reads): the same budget holds */
        e = "[1, 2, 3].all(x, x > 0 && device.driver != '')";
        CHECK(cel_compile(&a, &env, e, strlen(e), &p, &err) == 0);
        alloc_eval(&a, m, p, 50, &cut);
        CHECK(!cut.over_budget && cut.nyes == m->ndevs);
    }
    arena_release(&a);
    inventory_free(inv);
    free(y);
}

/* devices that all differ in what a selector reads: one group each, more
 * than the group table first holds (it grows), every result as evaluated
 * one by one */
static void test_eval_groups(void)
{
    size_t cap = 4096 + 300 * 96, len = 0, i, k;
    char *y = malloc(cap);
    struct inventory *inv;
    const struct devmodel *m;
    static const char *const exprs[] = {
        "device.attributes['gpu.example.com'].serial % 3 == 0",
        "device.attributes['gpu.example.com'].serial > 150 "
        "&& device.attributes['gpu.example.com'].kind == 'b'",
        "device.attributes['gpu.example.com'].kind == 'a'",
        "100 / (device.attributes['gpu.example.com'].serial % 7) > 20",
    };
    struct arena a;

    CHECK(y != NULL);
    if (!y)
        return;
    len += (size_t)snprintf(y + len, cap - len,
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
        "metadata: {name: s}\nspec:\n  driver: gpu.example.com\n"
        "  nodeName: n0\n  pool: {name: n0, generation: 0, "
        "resourceSliceCount: 1}\n  devices:\n");
    for (i = 0; i < 300; i++)
        len += (size_t)snprintf(y + len, cap - len,
            "  - name: g%zu\n    attributes:\n      serial: {int: %zu}\n"
            "      kind: {string: %s}\n", i, i, i % 2 ? "a" : "b");
    inv = inv_of(y);
    m = inventory_devices(inv);
    CHECK(m && m->ndevs == 300);
    arena_init(&a, 1 << 16);
    for (i = 0; m && i < sizeof(exprs) / sizeof(exprs[0]); i++) {
        struct cel_env env = {1, 1, 0, 0, 0 };
        struct cel_program *p;
        struct cel_error err;
        struct alloc_match mt;
        size_t bad = 0, yes = 0, errs = 0;
        CHECK(cel_compile(&a, &env, exprs[i], strlen(exprs[i]), &p, &err)
              == 0);
        alloc_eval(&a, m, p, 0, &mt);
        for (k = 0; k < m->ndevs; k++) {
            int r = cel_eval_device(p, &m->devs[k].cel, &err);
            bad += (r < 0 ? AM_ERR : r ? AM_YES : AM_NO) != mt.v[k];
            bad += r < 0 && (!mt.err || strcmp(mt.err[k], err.msg));
            yes += r == 1;
            errs += r < 0;
        }
        CHECK(bad == 0);
        CHECK(yes == mt.nyes && errs == mt.nerr);
        CHECK(yes > 0 && yes < m->ndevs);
        CHECK(i != 3 || errs > 0);      /* serial % 7 == 0 divides by 0 */
    }
    arena_release(&a);
    inventory_free(inv);
    free(y);
}

/* many identical nodes: the memo gives every node the same answer */
static void test_memo(void)
{
    char *y = cluster(200, NULL);
    struct inventory *inv = inv_of(y);
    const struct devmodel *m = inventory_devices(inv);
    struct alloc_constraint match = {0, "resource.kubernetes.io/pcieRoot",
                                     NULL, 0};
    struct alloc_result r;
    struct arena a;

    arena_init(&a, 1 << 16);
    CHECK(solve1(&a, m, "true", 2, &match, 1, &r) == ALLOC_OK);
    CHECK(r.nsat == ALLOC_FEASIBLE_MIN && r.enough && !r.partial);
    CHECK(solve1(&a, m, "true", 3, &match, 1, &r) == ALLOC_FAIL);
    CHECK(r.nfails == 200 && r.fails[199].why == WHY_CONSTRAINT
          && r.fails[199].node == 199);
    arena_release(&a);
    inventory_free(inv);
    free(y);
}

/* The claim of one request for n devices whose selectors are exprs
 * (combined with alloc_select_all), under one matchAttribute constraint
 * when cons; solved with alloc_solve_shared. */
static enum alloc_verdict solve_shared(struct arena *a,
                                       const struct devmodel *m,
                                       const char *const *exprs, size_t nx,
                                       long long n,
                                       const struct alloc_constraint *cons,
                                       unsigned long budget,
                                       const unsigned char *taken,
                                       struct alloc_result *res)
{
    struct cel_env env = {1, 1, 0, 0, 0 };
    const struct alloc_match *mts[4];
    struct alloc_alt *alt = arena_alloc(a, sizeof(*alt));
    const struct alloc_selall *all;
    struct alloc_problem *p;
    struct cel_error err;
    size_t i;

    for (i = 0; i < nx && i < 4; i++)
        mts[i] = alloc_eval_cached(m, &env, exprs[i], a, &err, NULL);
    all = alloc_select_all(m, &env, exprs, mts, nx, a);
    alt->name = "r";
    alt->sel = all->v;
    alt->sel_key = all->key;
    alt->count = n;
    p = one_claim(a, alt, cons, cons != NULL);
    p->budget = budget;
    p->taken = taken;
    return alloc_solve_shared(a, m, p, res);
}

/* Selector lists combined once per model (alloc_select_all): the AND in
 * order, the first selector that is not true decides (an error after a
 * false one is none); the same texts give the same kept result. Answers
 * kept per model (alloc_solve_shared): a problem that reads the same is
 * answered from the first (no device checked again, the same fails[]); a
 * different budget, taken devices or a selector list not kept are solved
 * afresh. */
static void test_shared(void)
{
    char *y = cluster(200, NULL);
    struct inventory *inv = inv_of(y);
    const struct devmodel *m = inventory_devices(inv);
    struct cel_env env = {1, 1, 0, 0, 0 };
    const char *big = "device.attributes['gpu.example.com'].idx >= 2";
    const char *bad = "device.attributes['gpu.example.com'].nope == 1";
    const char *two[2], *no_err[2];
    const struct alloc_match *mts[2];
    const struct alloc_selall *s1, *s2, *s3;
    struct alloc_constraint match = {0, "resource.kubernetes.io/pcieRoot",
                                     NULL, 0};
    struct alloc_result r1, r2, r3;
    struct cel_error err;
    unsigned char *taken;
    struct arena a;
    size_t i, ok = 0;

    arena_init(&a, 1 << 16);
    two[0] = big;
    two[1] = bad;
    mts[0] = alloc_eval_cached(m, &env, big, &a, &err, NULL);
    mts[1] = alloc_eval_cached(m, &env, bad, &a, &err, NULL);
    CHECK(mts[0] && mts[1] && mts[1]->nerr == m->ndevs);
    s1 = alloc_select_all(m, &env, two, mts, 2, &a);
    s2 = alloc_select_all(m, &env, two, mts, 2, &a);
    CHECK(s1 == s2 && s1->key && s1->nyes == 0 && s1->err_sel
          && s1->nerr == m->ndevs / 2);
    for (i = 0; i < m->ndevs; i++)
        ok += !s1->v[i] && s1->err_sel[i] == (i % 4 >= 2 ? 2u : 0u)
              && (i % 4 < 2 || (s1->err_msg[i] && *s1->err_msg[i]));
    CHECK(ok == m->ndevs);
    no_err[0] = big;
    s3 = alloc_select_all(m, &env, no_err, mts, 1, &a);
    CHECK(s3 != s1 && s3->nyes == m->ndevs / 2 && !s3->err_sel
          && !s3->nerr && s3->v[2] && !s3->v[1]);

    /* three devices on one PCIe root fit nowhere: every node is judged */
    CHECK(solve_shared(&a, m, no_err, 1, 3, &match, 0, NULL, &r1)
          == ALLOC_FAIL);
    CHECK(r1.nfails == 200 && r1.ndevchecked == m->ndevs);
    CHECK(solve_shared(&a, m, no_err, 1, 3, &match, 0, NULL, &r2)
          == ALLOC_FAIL);
    /* (fails[] copied, or moved when it has a block of its own) */
    CHECK(r2.nfails == 200 && r2.ndevchecked == 0
          && r2.steps == r1.steps && r2.nwithdev == r1.nwithdev
          && !memcmp(r2.fails, r1.fails, r1.nfails * sizeof(*r1.fails)));
    /* another budget: solved again */
    CHECK(solve_shared(&a, m, no_err, 1, 3, &match, 1000000, NULL, &r3)
          == ALLOC_FAIL && r3.ndevchecked == m->ndevs);
    /* devices taken: never kept */
    taken = arena_alloc(&a, m->ndevs + 1);
    CHECK(solve_shared(&a, m, no_err, 1, 3, &match, 0, taken, &r3)
          == ALLOC_FAIL && r3.ndevchecked == m->ndevs);
    CHECK(solve_shared(&a, m, no_err, 1, 3, &match, 0, taken, &r3)
          == ALLOC_FAIL && r3.ndevchecked == m->ndevs);
    /* a claim that fits: kept too, with its counts */
    CHECK(solve_shared(&a, m, no_err, 1, 2, &match, 0, NULL, &r1)
          == ALLOC_OK && r1.enough && r1.ndevchecked > 0);
    CHECK(solve_shared(&a, m, no_err, 1, 2, &match, 0, NULL, &r2)
          == ALLOC_OK && r2.enough && r2.ndevchecked == 0
          && r2.nsat == r1.nsat && r2.nvisited == r1.nvisited);
    arena_release(&a);
    inventory_free(inv);
    free(y);
}

/* An answer that fails on so many nodes that its fails[] passes 64 KiB is
 * kept only when the problem asks (share_large: a lint run); under
 * admission it is solved each time (keeping it would give every later
 * review fresh memory to fault in). */
static void test_shared_large(void)
{
    char *y = cluster(1000, NULL);
    struct inventory *inv = inv_of(y);
    const struct devmodel *m = inventory_devices(inv);
    struct cel_env env = {1, 1, 0, 0, 0 };
    const char *expr = "device.attributes['gpu.example.com'].idx >= 2";
    const struct alloc_match *mt;
    const struct alloc_selall *all;
    struct alloc_constraint match = {0, "resource.kubernetes.io/pcieRoot",
                                     NULL, 0};
    struct alloc_alt *alt;
    struct alloc_problem *p;
    struct alloc_result r1, r2;
    struct cel_error err;
    struct arena a;
    int large;

    arena_init(&a, 1 << 16);
    mt = alloc_eval_cached(m, &env, expr, &a, &err, NULL);
    all = alloc_select_all(m, &env, &expr, &mt, 1, &a);
    alt = arena_alloc(&a, sizeof(*alt));
    alt->name = "r";
    alt->sel = all->v;
    alt->sel_key = all->key;
    alt->count = 3;
    for (large = 0; large < 2; large++) {
        p = one_claim(&a, alt, &match, 1);
        /* (large = 0 keeps nothing: large = 1 starts afresh) */
        p->share_large = large;
        CHECK(alloc_solve_shared(&a, m, p, &r1) == ALLOC_FAIL);
        CHECK(r1.nfails == 1000 && r1.ndevchecked == m->ndevs
              && r1.nfails * sizeof(*r1.fails) > (64u << 10));
        CHECK(alloc_solve_shared(&a, m, p, &r2) == ALLOC_FAIL);
        CHECK(r2.nfails == 1000 && r2.steps == r1.steps
              && r2.ndevchecked == (large ? 0 : m->ndevs)
              && (r2.fails == r1.fails) == large);
    }
    arena_release(&a);
    inventory_free(inv);
    free(y);
}

/* inventory_prepare learns before a snapshot is published what the first
 * review would (alloc_model_warm): the device kinds, list values, the
 * label index, and the DeviceClasses' selector results (then free); a
 * model only built has learnt none of it. */
static void test_warm(void)
{
    static const char cls[] =
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\n"
        "metadata: {name: big.example.com}\nspec:\n  selectors:\n"
        "  - cel: {expression: \"device.attributes['gpu.example.com'].idx "
        ">= 2\"}\n---\n";
    const char *expr = "device.attributes['gpu.example.com'].idx >= 2";
    char *y = cluster(20, NULL), *text = malloc(strlen(y) + sizeof(cls));
    struct cel_env env = alloc_scheduler_env(1);
    struct inventory *cold, *warm;
    const struct devmodel *m;
    struct cel_error err;
    uint64_t spent = 0;
    struct arena a;

    if (!text)
        abort();
    memcpy(text, cls, sizeof(cls) - 1);
    memcpy(text + sizeof(cls) - 1, y, strlen(y) + 1);
    arena_init(&a, 1 << 16);
    cold = inv_of(text);
    m = inventory_devices(cold);
    CHECK(m->ndevs == 80 && alloc_model_knows(m) == 0);
    CHECK(alloc_eval_cached(m, &env, expr, &a, &err, &spent) && spent > 0);
    warm = inv_of(text);
    inventory_prepare(warm);
    m = inventory_devices(warm);
    CHECK(alloc_model_knows(m) == (ALLOC_KNOWS_KINDS | ALLOC_KNOWS_LISTS
                                   | ALLOC_KNOWS_LABELS));
    spent = 1;
    CHECK(alloc_eval_cached(m, &env, expr, &a, &err, &spent) && spent == 0);
    arena_release(&a);
    inventory_free(cold);
    inventory_free(warm);
    free(text);
    free(y);
}

/* 300 nodes alike: the search stops once ALLOC_FEASIBLE_MIN fit, as the
 * scheduler's filter does, and judges the devices of no other node; a
 * claim that fits nowhere is judged on every node (its counts are
 * printed) */
static void test_enough(void)
{
    char *y = cluster(300, NULL);
    struct inventory *inv = inv_of(y);
    const struct devmodel *m = inventory_devices(inv);
    struct alloc_result r;
    struct arena a;

    arena_init(&a, 1 << 16);
    CHECK(m->nnodes == 300 && m->ndevs == 1200);
    CHECK(solve1(&a, m, "true", 1, NULL, 0, &r) == ALLOC_OK);
    CHECK(r.enough && r.nsat == ALLOC_FEASIBLE_MIN
          && r.nvisited == ALLOC_FEASIBLE_MIN
          && r.ndevchecked == 4 * ALLOC_FEASIBLE_MIN);
    /* one matching device a node: the same 100 nodes */
    CHECK(solve1(&a, m, "device.attributes['gpu.example.com'].idx == 3", 1,
                 NULL, 0, &r) == ALLOC_OK && r.enough
          && r.nvisited == ALLOC_FEASIBLE_MIN);
    CHECK(solve1(&a, m, "true", 5, NULL, 0, &r) == ALLOC_FAIL);
    CHECK(!r.enough && r.nsat == 0 && r.nvisited == 300
          && r.ndevchecked == 1200 && r.nwithdev == 300);
    arena_release(&a);
    inventory_free(inv);
    free(y);
}

/* A Pod's placement on 300 nodes of two zones: its answer per node is
 * kept with the model, so a second Pod with the same affinity matches no
 * node's labels again, and gets the same counts; another placement is
 * matched afresh; a nodeSelector alone is answered on every node from the
 * model's label index (no node matched one by one), as the matcher does.
 * Tainted and plain devices keep their verdicts on the model-wide fast
 * path. */
static void test_placement_kept(void)
{
    char *y = cluster(300, "    taints: [{key: k, effect: NoSchedule}]\n");
    struct inventory *inv = inv_of(y);
    struct inventory *pods = inv_of(
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\nspec:\n"
        "  sel: {zone: z1}\n  other: {zone: z0}\n"
        "  two: {zone: z0, kubernetes.io/hostname: n4}\n"
        "  aff:\n    nodeSelectorTerms:\n    - matchExpressions: [{key: zone,"
        " operator: In, values: [z0]}]\n");
    const struct tnode *spec = tree_get(pods->objs[0]->root, "spec");
    const struct devmodel *m = inventory_devices(inv);
    struct alloc_alt alt;
    struct alloc_request r;
    struct alloc_claim c;
    struct alloc_problem p;
    struct alloc_result r1, r2, r3;
    struct arena a;

    arena_init(&a, 1 << 16);
    memset(&alt, 0, sizeof(alt));
    alt.name = "r";
    alt.sel = sel(&a, m, "true");
    alt.count = 4;          /* the tainted device is refused: 3 a node */
    r.name = "r";
    r.alts = &alt;
    r.nalts = 1;
    memset(&c, 0, sizeof(c));
    c.name = "c";
    c.reqs = &r;
    c.nreqs = 1;
    memset(&p, 0, sizeof(p));
    p.claims = &c;
    p.nclaims = 1;
    p.node_selector = tree_get(spec, "sel");
    CHECK(alloc_solve(&a, m, &p, &r1) == ALLOC_FAIL);
    /* fails[] in node order: z0 excluded, z1 short of devices */
    CHECK(r1.nvisited == 300 && r1.nplacematch == 0 && r1.nplaced == 150
          && r1.nfails == 300 && r1.fails[0].why == WHY_NODESELECTOR
          && r1.fails[1].why == WHY_COUNT && r1.fails[1].have == 3
          && r1.fails[299].node == 299 && r1.fails[299].why == WHY_COUNT);
    CHECK(alloc_solve(&a, m, &p, &r2) == ALLOC_FAIL);
    CHECK(r2.nplacematch == 0 && r2.nplaced == 150 && r2.nfails == 300
          && r2.fails[0].why == WHY_NODESELECTOR
          && r2.fails[1].why == WHY_COUNT && r2.fails[1].have == 3
          && r2.fails[298].node == 298
          && r2.fails[298].why == WHY_NODESELECTOR);
    /* the other zone, by nodeSelector then by affinity: new keys */
    p.node_selector = tree_get(spec, "other");
    CHECK(alloc_solve(&a, m, &p, &r3) == ALLOC_FAIL);
    CHECK(r3.nplacematch == 0 && r3.nplaced == 150
          && r3.fails[0].why == WHY_COUNT && r3.fails[1].why == WHY_NODESELECTOR);
    /* a label no node has (the hostname label is not set): none */
    p.node_selector = tree_get(spec, "two");
    CHECK(alloc_solve(&a, m, &p, &r3) == ALLOC_FAIL);
    CHECK(r3.nplacematch == 0 && r3.nplaced == 0 && r3.nfails == 300);
    p.node_selector = NULL;
    p.affinity = tree_get(spec, "aff");
    CHECK(alloc_solve(&a, m, &p, &r3) == ALLOC_FAIL);
    CHECK(r3.nplacematch == 300 && r3.nplaced == 150
          && r3.fails[299].why == WHY_AFFINITY);
    CHECK(alloc_solve(&a, m, &p, &r3) == ALLOC_FAIL);
    CHECK(r3.nplacematch == 0 && r3.nplaced == 150
          && r3.fails[0].why == WHY_COUNT && r3.fails[299].why == WHY_AFFINITY);
    /* no placement: nothing to match or keep */
    p.affinity = NULL;
    CHECK(alloc_solve(&a, m, &p, &r3) == ALLOC_FAIL);
    CHECK(r3.nplaced == 300 && r3.nplacematch == 300);
    /* three devices a node tolerated: a fit on the plain ones */
    alt.count = 3;
    CHECK(alloc_solve(&a, m, &p, &r3) == ALLOC_OK && r3.enough);
    arena_release(&a);
    inventory_free(pods);
    inventory_free(inv);
    free(y);
}

/* matchAttribute over list-type values needs an element common to the
 * devices taken (alloc_model_lists tells the search such values exist) */
static void test_list_match(void)
{
    struct inventory *inv = inv_of(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
        "metadata: {name: s}\nspec:\n  driver: d\n  nodeName: n1\n"
        "  pool: {name: p, generation: 0, resourceSliceCount: 1}\n"
        "  devices:\n"
        "  - {name: a, attributes: {k: {string: a},\n"
        "                           root: {strings: [r0, r1]}}}\n"
        "  - {name: b, attributes: {k: {string: b},\n"
        "                           root: {strings: [r1, r2]}}}\n"
        "  - {name: c, attributes: {k: {string: c},\n"
        "                           root: {strings: [r3]}}}\n");
    const struct devmodel *m = inventory_devices(inv);
    struct alloc_constraint match = {0, "d/root", NULL, 0};
    struct alloc_result r;
    struct arena a;

    arena_init(&a, 1 << 16);
    CHECK(m->ndevs == 3);
    CHECK(solve1(&a, m, "device.attributes['d'].k != 'c'", 2, &match, 1, &r)
          == ALLOC_OK);
    CHECK(solve1(&a, m, "device.attributes['d'].k != 'a'", 2, &match, 1, &r)
          == ALLOC_FAIL);
    arena_release(&a);
    inventory_free(inv);
}

int main(void)
{
    test_model();
    test_model_shared_attrs();
    test_node_selectors();
    test_counts_and_constraints();
    test_requests_together();
    test_taints_and_capacity();
    test_request_policy();
    test_shared_capacity();
    test_counters();
    test_counter_bound();
    test_taken();
    test_invalid_pool();
    test_gates_off();
    test_eval();
    test_eval_groups();
    test_memo();
    test_shared();
    test_shared_large();
    test_warm();
    test_enough();
    test_placement_kept();
    test_list_match();
    return CHECK_DONE();
}
