/*
 * test_verdict.c - the admission verdict cache: pods of one spec share a
 * verdict (with their own names), a different spec or namespace does not,
 * volatile metadata is ignored, other kinds are never cached, and a new
 * inventory snapshot starts empty.
 */
#include <string.h>

#include "../../rules/rules.h"
#include "../../validate/arena.h"
#include "../../validate/clock.h"
#include "../../validate/config.h"
#include "../../validate/engine.h"
#include "../../validate/err.h"
#include "../../validate/load_yaml.h"
#include "../../validate/tree.h"
#include "../../validate/verdict.h"
#include "check.h"

static CHECK_INIT;

static const char pod_a[] =
"apiVersion: v1\nkind: Pod\nmetadata:\n  name: web-abc12\n"
"  generateName: web-\n  uid: '1111'\n  resourceVersion: '5'\n"
"spec:\n  containers:\n  - name: c\n    image: busybox\n"
"    resources:\n      requests:\n        nvidia.com/gpu: 1\n";
static const char pod_b[] =     /* same spec, other name and uid */
"apiVersion: v1\nkind: Pod\nmetadata:\n  name: web-xyz89\n"
"  generateName: web-\n  uid: '2222'\n  resourceVersion: '9'\n"
"spec:\n  containers:\n  - name: c\n    image: busybox\n"
"    resources:\n      requests:\n        nvidia.com/gpu: 1\n";
static const char pod_c[] =     /* another spec: no finding */
"apiVersion: v1\nkind: Pod\nmetadata:\n  name: web-abc12\n"
"spec:\n  containers:\n  - name: c\n    image: busybox\n"
"    resources:\n      limits:\n        nvidia.com/gpu: 1\n";
static const char pod_d[] =     /* a spec of its own: never cached before */
"apiVersion: v1\nkind: Pod\nmetadata:\n  name: late\n"
"spec:\n  containers:\n  - name: c\n    image: busybox\n"
"    resources:\n      requests:\n        example.com/fpga: 2\n";
static const char claim[] =
"apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n"
"  name: c\nspec: {}\n";

static const struct tnode *load(struct arena *a, const char *text)
{
    struct ydocs d;

    load_yaml(a, text, strlen(text), &d);
    return d.n ? d.v[0].root : NULL;
}

static size_t check(const struct engine *e, const struct inventory *inv,
                    struct arena *a, const char *text, const char *ns,
                    struct diag_list *l)
{
    struct err err;

    diag_list_init(l, a);
    CHECK(engine_check_admission(e, inv, load(a, text), ns, 0, l, &err) == 0);
    return l->n;
}

int main(void)
{
    struct config cfg;
    struct engine *e;
    struct inventory *inv1, *inv2;
    struct arena a;
    struct diag_list l1, l2, l3;
    struct verdict_key k1, k2, k3, k4;
    struct err err;

    config_init(&cfg);
    e = engine_new(&cfg, &rules_builtin, &err);
    CHECK(e != NULL);
    arena_init(&a, 64 * 1024);

    /* keys: volatile metadata ignored, spec and namespace count */
    CHECK(verdict_key(&a, load(&a, pod_a), "ml", &k1) == 0);
    CHECK(verdict_key(&a, load(&a, pod_b), "ml", &k2) == 0);
    CHECK(verdict_key(&a, load(&a, pod_c), "ml", &k3) == 0);
    CHECK(verdict_key(&a, load(&a, pod_a), "other", &k4) == 0);
    CHECK(verdict_key_same(&k1, &k2));
    CHECK(!verdict_key_same(&k1, &k3));
    CHECK(!verdict_key_same(&k1, &k4));
    CHECK(verdict_key(&a, load(&a, claim), "ml", &k3) == -1);

    /* a hit needs the same bytes, not only the same hash: a key forged to
     * collide with a stored one misses */
    {
        struct verdict_cache *vc = verdict_cache_new();
        struct verdict_key forged = k3;
        struct diag_list got;
        diag_list_init(&l1, &a);
        diag_list_add(&l1)->rule = ruleset_find(&rules_builtin, "extended-resource-limits");
        l1.v[0].sev = SEV_ERROR;
        l1.v[0].api_version = "v1";
        l1.v[0].path = "spec";
        l1.v[0].msg = "m";
        verdict_cache_put(vc, &k1, &l1, 0);
        CHECK(verdict_key(&a, load(&a, pod_c), "ml", &forged) == 0);
        forged.hash = k1.hash;                  /* same slot, same hash */
        diag_list_init(&got, &a);
        CHECK(verdict_cache_get(vc, &forged, &got, "Pod", "ml", "x") == 0
              && got.n == 0);
        forged.len = k1.len < forged.len ? k1.len : forged.len;
        CHECK(!verdict_key_same(&forged, &k1));    /* same length too */
        CHECK(verdict_cache_get(vc, &k2, &got, "Pod", "ml", "x") == 1
              && got.n == 1);
        /* another spec whose hash picks the same place keeps both: the
         * next Pod of either ReplicaSet is answered from the cache (a
         * direct-mapped table lost the first) */
        CHECK(verdict_key(&a, load(&a, pod_c), "ml", &forged) == 0);
        forged.hash = k1.hash;
        verdict_cache_put(vc, &forged, &l1, 0);
        diag_list_init(&got, &a);
        CHECK(verdict_cache_get(vc, &k1, &got, "Pod", "ml", "x") == 1
              && got.n == 1);
        diag_list_init(&got, &a);
        CHECK(verdict_cache_get(vc, &forged, &got, "Pod", "ml", "x") == 1
              && got.n == 1);
        /* still bounded: of six specs in one place, the four used last
         * stay (k1 and forged were read last, then ns1..ns4 put) */
        {
            static const char *const nss[] = {"ns1", "ns2", "ns3", "ns4"};
            struct verdict_key more[4];
            size_t i, hits = 0;
            for (i = 0; i < 4; i++) {
                CHECK(verdict_key(&a, load(&a, pod_a), nss[i], &more[i])
                      == 0);
                more[i].hash = k1.hash;
                verdict_cache_put(vc, &more[i], &l1, 0);
            }
            for (i = 0; i < 4; i++) {
                diag_list_init(&got, &a);
                hits += (size_t)verdict_cache_get(vc, &more[i], &got, "Pod",
                                                  "ml", "x");
            }
            diag_list_init(&got, &a);
            CHECK(hits == 4
                  && verdict_cache_get(vc, &k1, &got, "Pod", "ml", "x") == 0
                  && verdict_cache_get(vc, &forged, &got, "Pod", "ml", "x")
                     == 0);
        }
        verdict_cache_free(vc);
    }

    /* the second pod is answered from the cache, under its own name */
    CHECK(check(e, NULL, &a, pod_a, "ml", &l1) == 1);
    CHECK(check(e, NULL, &a, pod_b, "ml", &l2) == 1);
    CHECK_STR(l1.v[0].rule->id, "extended-resource-limits");
    CHECK_STR(l2.v[0].rule->id, l1.v[0].rule->id);
    CHECK_STR(l2.v[0].msg, l1.v[0].msg);
    CHECK_STR(l2.v[0].path, l1.v[0].path);
    CHECK_STR(l1.v[0].name, "web-abc12");
    CHECK_STR(l2.v[0].name, "web-xyz89");
    CHECK_STR(l2.v[0].ns, "ml");
    CHECK(check(e, NULL, &a, pod_c, "ml", &l3) == 0);
    CHECK(check(e, NULL, &a, pod_a, "ml", &l3) == 1);   /* still cached */

    /* a deadline that has passed: nothing judged, nothing cached */
    diag_list_init(&l3, &a);
    CHECK(engine_check_admission(e, NULL, load(&a, pod_d), "ml", 1, &l3,
                                 &err) == 1 && l3.n == 0);
    CHECK(check(e, NULL, &a, pod_d, "ml", &l3) == 1);   /* judged now */
    diag_list_init(&l3, &a);
    CHECK(engine_check_admission(e, NULL, load(&a, pod_d), "ml",
                                 clock_mono_ns() + 60000000000ull, &l3,
                                 &err) == 0 && l3.n == 1);

    /* a new snapshot has its own, empty cache; results agree */
    inv1 = inventory_new();
    inv2 = inventory_new();
    CHECK(check(e, inv1, &a, pod_a, "ml", &l1) == 1);
    CHECK(check(e, inv2, &a, pod_b, "ml", &l2) == 1);
    CHECK_STR(l2.v[0].name, "web-xyz89");
    inventory_free(inv1);
    inventory_free(inv2);

    arena_release(&a);
    engine_free(e);
    config_release(&cfg);
    return CHECK_DONE();
}
