/*
 * dm_random.h - random cluster objects for the tests of models built from
 * the one before (test_devmodel_next.c, test_warm_next.c): Nodes and
 * ResourceSlices of a few pools (every placement, counters, taints,
 * attributes of every kind), and a cluster of them changed one step at a
 * time: slices added, replaced, deleted, put back (the same object again,
 * after a model without it), listed in another order, one listed twice,
 * now and then a name another slice has, or every slice new at once.
 * Header-only: each test binary stays one file.
 */
#ifndef CLAIMCHECK_TEST_DM_RANDOM_H
#define CLAIMCHECK_TEST_DM_RANDOM_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../validate/engine.h"
#include "../../validate/err.h"
#include "../../validate/inventory.h"
#include "../../validate/object.h"
#include "inv_of.h"

#define NNODES 6
#define NSLICES 24
#define NOBJS (NNODES + NSLICES + 1)  /* (one slice listed twice) */

/* ==== random cluster objects ============================================ */

static uint64_t rng = 88172645463325252ull;

static unsigned pick(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

struct text {
    char b[8192];
    size_t n;
};

static void put(struct text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void put(struct text *t, const char *fmt, ...)
{
    va_list ap;
    int k;

    va_start(ap, fmt);
    k = vsnprintf(t->b + t->n, sizeof(t->b) - t->n, fmt, ap);
    va_end(ap);
    if (k < 0 || (size_t)k >= sizeof(t->b) - t->n) {
        printf("FAIL text too long\n");
        exit(1);
    }
    t->n += (size_t)k;
}

static struct inventory *node_obj(int k)
{
    static const char *const zones[] = {"a", "b", "c"};
    struct text t = {"", 0};

    put(&t, "apiVersion: v1\nkind: Node\nmetadata:\n  name: n%d\n"
            "  labels: {zone: %s, rack: r%u}\n", k, zones[pick(3)],
        pick(2));
    return inv_of(t.b);
}

static unsigned serial;

/* One device's line: attributes (shared values, a domain-qualified name,
 * a value of its own, sometimes a list or one of no known type),
 * capacity, sometimes counters and taints. */
static void device(struct text *t, int counters, int per_node)
{
    static const char *const models[] = {"a100", "h100", "l4"};
    unsigned name = pick(4);        /* a name twice in a pool: invalid */

    put(t, "  - name: d%u\n    attributes:\n", name);
    put(t, "      model: {string: %s}\n", models[pick(3)]);
    put(t, "      x.example.com/index: {int: %u}\n", pick(3));
    put(t, "      uuid: {string: u-%u}\n", serial++);
    if (!pick(4))
        put(t, "      x.example.com/v: {version: 1.%u.0}\n", pick(2));
    if (!pick(6))
        put(t, "      lanes: {ints: [1, %u]}\n", pick(3));
    if (!pick(12))
        put(t, "      odd: {}\n");
    if (!pick(3))
        put(t, "      attr%u: {bool: true}\n", pick(8));
    put(t, "    capacity:\n      memory: {value: %uGi}\n", 1 + pick(3));
    if (!pick(3))
        put(t, "      y.example.com/bw: {value: \"%u\"}\n", 1 + pick(4));
    if (counters)
        put(t, "    consumesCounters: [{counterSet: %s, counters: "
               "{mem: {value: 1Gi}}}]\n", pick(4) ? "cs" : "nope");
    if (!pick(8))
        put(t, "    taints: [{key: k, value: v, effect: NoSchedule}]\n");
    if (!pick(8))
        put(t, "    bindingConditions: [ready]\n");
    if (per_node) {
        if (pick(2))
            put(t, "    nodeName: n%u\n", pick(NNODES + 1));
        else
            put(t, "    allNodes: true\n");
    }
}

/* A ResourceSlice of one of a few pools (some of several slices, some
 * with older generations still around), placed by nodeName, node
 * selector, allNodes or per device. */
static struct inventory *slice_obj(int slot)
{
    static const char *const drivers[] = {"gpu.example.com",
                                          "nic.example.com"};
    struct text t = {"", 0};
    unsigned pool = pick(8), place = pick(6), n = pick(4), i;
    int counters = !pick(5);

    /* now and then another slot's name: one of the two is left out */
    put(&t, "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
            "metadata: {name: s%d}\nspec:\n  driver: %s\n",
        pick(10) ? slot : (int)pick(NSLICES), drivers[pool % 2]);
    put(&t, "  pool: {name: p%u, generation: %u, resourceSliceCount: %u}\n",
        pool, pick(3), 1 + pick(2));
    if (place <= 2)
        put(&t, "  nodeName: n%u\n", pool < 4 ? pool : pick(NNODES + 2));
    else if (place == 3)
        put(&t, "  nodeSelector:\n    nodeSelectorTerms:\n    - "
                "matchExpressions: [{key: zone, operator: In, values: "
                "[%s]}]\n", pick(2) ? "a" : "b");
    else if (place == 4)
        put(&t, "  allNodes: true\n");
    else
        put(&t, "  perDeviceNodeSelection: true\n");
    if (counters)
        put(&t, "  sharedCounters:\n  - name: cs\n    counters: "
                "{mem: {value: 8Gi}}\n");
    put(&t, "  devices:\n");
    for (i = 0; i < n; i++)
        device(&t, counters, place == 5);
    if (!n)
        put(&t, "  - name: only\n");
    return inv_of(t.b);
}

/* ==== a cluster changed step by step ==================================== */

struct cluster {
    struct inventory *nodes[NNODES];
    struct inventory *slices[NSLICES];     /* NULL: none in the slot */
    struct inventory *gone[512];   /* replaced this step */
    size_t ngone;
    struct inventory *parked;   /* a slice deleted, kept to be put back */
    unsigned rot;               /* the slot listed first */
    unsigned twice;             /* a slot listed twice + 1, 0: none */
    int twice_first;            /* ... the second time before the slices */
};

/* The objects: Nodes, then the slices from slot rot on (one twice). */
static size_t cluster_objs(const struct cluster *c,
                           const struct object **objs)
{
    const struct inventory *tw = c->twice ? c->slices[c->twice - 1] : NULL;
    size_t i, n = 0;

    for (i = 0; i < NNODES; i++)
        objs[n++] = c->nodes[i]->objs[0];
    if (tw && c->twice_first)
        objs[n++] = tw->objs[0];
    for (i = 0; i < NSLICES; i++)
        if (c->slices[(i + c->rot) % NSLICES])
            objs[n++] = c->slices[(i + c->rot) % NSLICES]->objs[0];
    if (tw && !c->twice_first)
        objs[n++] = tw->objs[0];
    return n;
}

/* inv goes after the step (the model before may still point into it) */
static void retire(struct cluster *c, struct inventory *inv)
{
    if (c->ngone == sizeof(c->gone) / sizeof(c->gone[0])) {
        printf("FAIL too many objects replaced in one step\n");
        exit(1);
    }
    c->gone[c->ngone++] = inv;
}

/* The parked slice back in an empty slot (the same object as before it
 * was deleted). */
static void unpark(struct cluster *c, unsigned k)
{
    if (!c->parked || c->slices[k])
        return;
    c->slices[k] = c->parked;
    c->parked = NULL;
}

/* One change: a slice added, updated or deleted (or kept to be put back),
 * a Node's labels, or (rarely) several slices at once, every slice, the
 * order, which slice is listed twice. */
static void change(struct cluster *c)
{
    unsigned op = pick(14), k = pick(NSLICES), i;

    if (op == 10) {
        unpark(c, k);
        return;
    }
    if (op == 11) {
        c->rot = pick(NSLICES);
        return;
    }
    if (op == 12) {
        c->twice = pick(3) ? 0 : k + 1;
        c->twice_first = (int)pick(2);
        return;
    }
    if (op == 13 && !pick(4)) {
        for (i = 0; i < NSLICES; i++) {
            if (c->slices[i])
                retire(c, c->slices[i]);
            c->slices[i] = pick(4) ? slice_obj((int)i) : NULL;
        }
        return;
    }
    if (op == 13)
        return;
    if (op == 2 && c->slices[k] && !c->parked && pick(2)) {
        c->parked = c->slices[k];
        c->slices[k] = NULL;
        return;
    }
    if (op == 0) {
        k = pick(NNODES);
        retire(c, c->nodes[k]);
        c->nodes[k] = node_obj((int)k);
        return;
    }
    if (op == 1) {
        for (i = 0; i < 3; i++)
            change(c);
        return;
    }
    if (c->slices[k])
        retire(c, c->slices[k]);
    c->slices[k] = op == 2 ? NULL : slice_obj((int)k);
}

#endif
