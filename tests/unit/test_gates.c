/*
 * test_gates.c - consistency of the data in validate/k8s/gates.c and the
 * semantics target.c gives it: every gate has a well-formed stage for
 * every minor 1.26-1.37, stages only move forward (alpha, beta, GA, then
 * removed), locks sit on GA gates, alpha is never on by default; every
 * gated path names a known gate and really walks the objects it describes
 * (checked by linting fixtures that hold every gated field at 1.33, which
 * serves v1alpha3, v1beta1 and v1beta2 and where every one of them is
 * disabled or absent); the API-version timeline is ordered;
 * the device-plugin and class maps of drivers.yaml are well-formed; and -k/-g/--runtime-config
 * resolve like kube-apiserver's flags.
 */
#include <ctype.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "../../validate/k8s/drivers.h"
#include "../../validate/k8s/gates.h"
#include "../../rules/rules.h"
#include "../../validate/arena.h"
#include "../../validate/config.h"
#include "../../validate/diag.h"
#include "../../validate/engine.h"
#include "../../validate/err.h"
#include "../../validate/load_yaml.h"
#include "../../validate/object.h"
#include "../../validate/run.h"
#include "../../validate/target.h"
#include "check.h"

static CHECK_INIT;

static int stage_rank(enum gate_stage s)
{
    switch (s) {
    case GATE_ABSENT: return 0;
    case GATE_ALPHA: return 1;
    case GATE_BETA: return 2;
    case GATE_GA: return 3;
    case GATE_REMOVED: return 4;
    }
    return -1;
}

static void test_gate_rows(void)
{
    size_t i, j;

    CHECK(gate_count <= TARGET_MAX_GATES);
    for (i = 0; i < gate_count; i++) {
        const struct gate *g = &gate_table[i];
        int m, prev = 0, existed = 0, ntok = 0;
        const char *p = g->stages;
        for (; *p; p++)
            if (*p != ' ' && (p == g->stages || p[-1] == ' '))
                ntok++;
        if (ntok != GATE_NVERSIONS)
            printf("FAIL gate %s has %d stages, want %d\n", g->name, ntok,
                   GATE_NVERSIONS);
        CHECK(ntok == GATE_NVERSIONS);
        CHECK(g->name && g->kep && g->controls && *g->controls);
        CHECK(gate_find(g->name) == (int)i);
        for (j = 0; j < i; j++)
            CHECK(strcmp(gate_table[j].name, g->name) != 0);
        for (m = GATE_MIN_MINOR; m <= GATE_MAX_MINOR; m++) {
            struct gate_state s;
            int r;
            CHECK(gate_state_at(g, m, &s) == 0);
            r = stage_rank(s.stage);
            /* forward only; absent only before the gate appears */
            if (r < prev || (existed && s.stage == GATE_ABSENT))
                printf("FAIL gate %s goes backwards at 1.%d\n", g->name, m);
            CHECK(r >= prev && !(existed && s.stage == GATE_ABSENT));
            if (s.stage == GATE_REMOVED)
                CHECK(existed || m == GATE_MIN_MINOR);
            /* locked only on GA; GA is on; alpha is off */
            CHECK(!s.locked || s.stage == GATE_GA);
            CHECK(s.stage != GATE_GA || s.on);
            CHECK(s.stage != GATE_ALPHA || !s.on);
            existed |= s.stage != GATE_ABSENT;
            prev = r;
        }
        CHECK(existed);
    }
    /* a few rows from the reference, spelled out */
    {
        struct gate_state s;
        int dra = gate_find("DynamicResourceAllocation");
        int pl = gate_find("DRAPrioritizedList");
        CHECK(dra >= 0 && pl >= 0);
        gate_state_at(&gate_table[dra], 33, &s);
        CHECK(s.stage == GATE_BETA && !s.on);
        gate_state_at(&gate_table[dra], 35, &s);
        CHECK(s.stage == GATE_GA && s.on && s.locked);
        CHECK(gate_ga_minor(&gate_table[dra]) == 34);
        CHECK(gate_on_minor(&gate_table[pl]) == 34);
        CHECK(gate_first_minor(&gate_table[pl]) == 33);
        gate_state_at(&gate_table[pl], 25, &s);
        CHECK(s.stage == GATE_ABSENT);
        CHECK_STR(gate_stage_name(GATE_BETA), "beta");
    }
}

static void test_field_rows(void)
{
    size_t i;

    for (i = 0; i < gated_field_count; i++) {
        const struct gated_field *f = &gated_fields[i];
        CHECK(gate_find(f->gate) >= 0);
        CHECK(!f->gate2 || gate_find(f->gate2) >= 0);
        CHECK(f->kinds && f->shapes && f->path && *f->path);
        CHECK(f->effect && *f->effect && !isupper((unsigned char)*f->effect));
        CHECK(f->effect[strlen(f->effect) - 1] != '.');
        CHECK(!f->until || f->until > f->since);
        CHECK(!(f->kinds & K_PODLIKE) || f->shapes == SHAPE_ANY);
    }
}

static void test_api_rows(void)
{
    size_t i;
    int defaults = 0;

    CHECK(api_version_count <= TARGET_MAX_APIS);
    CHECK(api_version_count <= API_MAX_VERSIONS);
    for (i = 0; i < api_version_count; i++) {
        const struct api_version *v = &api_versions[i];
        CHECK(v->introduced >= GATE_MIN_MINOR);
        CHECK(!v->removed || v->removed > v->introduced);
        CHECK(!v->deprecated || v->deprecated >= v->introduced);
        CHECK(!v->removal_planned || v->removal_planned > v->deprecated);
        CHECK(i == 0 || v->introduced >= api_versions[i - 1].introduced);
        CHECK(api_version_find(v->version) == (int)i);
        /* alpha and post-1.24 beta versions are off by default */
        CHECK(!v->default_on || !strchr(v->version, 'a'));
        defaults += v->default_on;
    }
    CHECK(defaults == 1);
    CHECK(api_version_served(&api_versions[api_version_find("v1alpha3")],
                             33));
    CHECK(!api_version_served(&api_versions[api_version_find("v1alpha3")],
                              34));
    CHECK(!api_version_served(&api_versions[api_version_find("v1")], 33));
}

/* kinds with their own timeline (DeviceTaintRule, ResourcePoolStatusRequest)
 * outlive their version's `removed` (issue 14) */
static void test_kind_rows(void)
{
    size_t i;
    const struct kind_version *kv;

    for (i = 0; i < kind_version_count; i++) {
        const struct kind_version *k = &kind_versions[i];
        int v = api_version_find(k->version);
        CHECK_MSG(v >= 0, "kind %s in unknown version %s", k->kind,
                  k->version);
        CHECK(v < 0 || k->introduced >= api_versions[v].introduced);
        CHECK(!k->gate || gate_find(k->gate) >= 0);
    }
    kv = kind_version_find("DeviceTaintRule", "v1beta2");
    CHECK(kv && kv->introduced == 36);
    CHECK(!kind_version_find("DeviceTaintRule", "v1beta1"));
    CHECK(kind_has_versions("ResourcePoolStatusRequest"));
    CHECK(!kind_has_versions("ResourceClaim"));
    CHECK(kind_version_serves("v1alpha3", 36));
    CHECK(!kind_version_serves("v1alpha3", 32));
}

static int dns_subdomain(const char *s)
{
    size_t i, n = strlen(s);

    if (!n || n > 253 || !strchr(s, '.'))
        return 0;
    for (i = 0; i < n; i++)
        if (!(islower((unsigned char)s[i]) || isdigit((unsigned char)s[i])
              || s[i] == '-' || s[i] == '.'))
            return 0;
    return s[0] != '.' && s[n - 1] != '.' && s[0] != '-';
}

static void test_plugin_map(void)
{
    size_t i;

    for (i = 0; i < plugin_map_count; i++) {
        const struct plugin_map *m = &plugin_maps[i];
        const char *slash = strchr(m->resource, '/');
        const char *star = strchr(m->resource, '*');
        CHECK(slash && slash != m->resource && slash[1]);
        CHECK(!star || star[1] == '\0');
        CHECK(dns_subdomain(m->driver));
        CHECK(m->hardware && *m->hardware);
    }
    CHECK(plugin_pattern_match("nvidia.com/mig-*", "nvidia.com/mig-1g.10gb"));
    CHECK(!plugin_pattern_match("nvidia.com/mig-*", "nvidia.com/mig-"));
    CHECK(!plugin_pattern_match("nvidia.com/gpu", "nvidia.com/gpus"));
    CHECK(plugin_pattern_match("gpu.intel.com/*", "gpu.intel.com/xe"));
    CHECK(plugin_map_find("nvidia.com/mig-2g.20gb") != NULL);
    CHECK(plugin_map_find("example.org/nothing") == NULL);
    for (i = 0; i < class_map_count; i++) {
        const struct class_map *m = &class_maps[i];
        CHECK(dns_subdomain(m->class_name));
        CHECK(dns_subdomain(m->driver));
        CHECK(class_map_driver(m->class_name) == m->driver);
    }
    CHECK_STR(class_map_driver("mig.nvidia.com"), "gpu.nvidia.com");
    CHECK(class_map_driver("compute-domain-default-channel.nvidia.com")
          && strcmp(class_map_driver("compute-domain-default-channel"
                                     ".nvidia.com"), "gpu.nvidia.com"));
    CHECK(class_map_driver("my-gpus") == NULL);
}

/* ==== target ============================================================ */

static int init(struct target *t, const char *k, const char *g,
                const char *rc, struct err *err)
{
    struct config cfg;
    int r = 0;

    config_init(&cfg);
    if (k)
        r = config_set_kube_version(&cfg, k, err);
    if (r == 0 && g)
        r = config_add_gates(&cfg, g, err);
    if (r == 0 && rc)
        r = config_add_runtime(&cfg, rc, err);
    if (r == 0)
        r = target_init(t, &cfg, err);
    t->cfg = NULL;  /* cfg dies here */
    config_release(&cfg);
    return r;
}

static void test_target(void)
{
    struct target t;
    struct err err;
    int v1 = api_version_find("v1"), b1 = api_version_find("v1beta1");

    CHECK_STR(target_newest(), "1.36");
    CHECK(init(&t, NULL, NULL, NULL, &err) == 0);
    CHECK_STR(t.version, "1.36");
    CHECK(!t.prerelease);
    CHECK(target_gate_on(&t, "DRAConsumableCapacity"));
    CHECK(!target_gate_on(&t, "DRAListTypeAttributes"));
    CHECK(t.api_on[v1] && !t.api_on[b1]);
    CHECK(init(&t, "1.37", NULL, NULL, &err) == 0 && t.prerelease);
    CHECK(init(&t, "1.33", "DRAPrioritizedList=true", NULL, &err) == 0);
    CHECK(target_gate_on(&t, "DRAPrioritizedList"));
    CHECK(t.gate_set[gate_find("DRAPrioritizedList")]);
    CHECK(!target_gate_on(&t, "DynamicResourceAllocation"));
    CHECK(init(&t, NULL, "Nope=true", NULL, &err) < 0);
    CHECK_STR(err.msg, "unknown feature gate 'Nope'");
    CHECK(init(&t, NULL, "DRAAdminAccess=false", NULL, &err) < 0);
    CHECK_STR(err.msg, "cannot set feature gate DRAAdminAccess to false, "
              "feature is locked to true");
    CHECK(init(&t, NULL, "DRAAdminAccess=true", NULL, &err) == 0);
    CHECK(init(&t, "1.35", "DRAPrioritizedList=false", NULL, &err) == 0);
    CHECK(!target_gate_on(&t, "DRAPrioritizedList"));
    CHECK(init(&t, "1.33", "DRAListTypeAttributes=true", NULL, &err) < 0);
    CHECK(init(&t, "1.25", NULL, NULL, &err) < 0);
    CHECK(init(&t, "1.38", NULL, NULL, &err) < 0);
    CHECK(init(&t, NULL, NULL, "resource.k8s.io/v1beta1=true", &err) == 0);
    CHECK(t.api_on[b1] && t.api_set[b1]);
    CHECK(init(&t, NULL, NULL, "resource.k8s.io/v1=false", &err) == 0);
    CHECK(!t.api_on[v1]);
    CHECK(init(&t, "1.32", NULL, "api/beta=true", &err) == 0);
    CHECK(t.api_on[b1] && !t.api_on[api_version_find("v1alpha3")]);
    CHECK(init(&t, NULL, NULL, "resource.k8s.io/v7=true", &err) < 0);
    CHECK(init(&t, NULL, NULL, "batch/v1=true", &err) == 0);
}

/* ==== every gated path walks real objects =============================== */

static const char fixtures[] =
"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
"  resourceClaims: [{name: a, source: {resourceClaimName: c}}]\n"
"  resources: {claims: [{name: a}]}\n"
"  containers: [{name: c, resources: {claims: [{name: a}]}}]\n"
"  initContainers: [{name: i, resources: {claims: [{name: a}]}}]\n"
"  ephemeralContainers: [{name: e, resources: {claims: [{name: a}]}}]\n"
"---\napiVersion: resource.k8s.io/v1beta2\nkind: ResourceClaim\n"
"metadata: {name: c}\nspec:\n  devices:\n    requests:\n"
"    - name: a\n      exactly:\n        deviceClassName: x.example.com\n"
"        adminAccess: true\n        tolerations: [{operator: Exists}]\n"
"        capacity: {requests: {memory: 1Gi}}\n"
"    - name: b\n      firstAvailable:\n      - name: s\n"
"        deviceClassName: x.example.com\n"
"        tolerations: [{operator: Exists}]\n"
"        capacity: {requests: {memory: 1Gi}}\n"
"    constraints: [{requests: [a], distinctAttribute: x.example.com/u}]\n"
"---\napiVersion: resource.k8s.io/v1alpha3\nkind: ResourceClaimTemplate\n"
"metadata: {name: t}\nspec:\n  spec:\n    controller: x.example.com\n"
"    devices:\n      requests:\n"
"      - name: a\n        deviceClassName: x.example.com\n"
"        adminAccess: true\n        tolerations: [{operator: Exists}]\n"
"        capacity: {requests: {memory: 1Gi}}\n"
"      - name: b\n        firstAvailable:\n        - name: s\n"
"          deviceClassName: x.example.com\n"
"          tolerations: [{operator: Exists}]\n"
"          capacity: {requests: {memory: 1Gi}}\n"
"---\napiVersion: resource.k8s.io/v1beta2\nkind: DeviceClass\n"
"metadata: {name: d}\nspec: {extendedResourceName: example.com/x}\n"
"---\napiVersion: resource.k8s.io/v1alpha3\nkind: DeviceClass\n"
"metadata: {name: e}\nspec: {suitableNodes: {nodeSelectorTerms: []},"
" selectors: []}\n"
"---\napiVersion: resource.k8s.io/v1beta2\nkind: ResourceSlice\n"
"metadata: {name: s}\nspec:\n  driver: x.example.com\n"
"  perDeviceNodeSelection: true\n  partitionTypeAttribute: x.example.com/t\n"
"  skipNodeOperations: ['*']\n"
"  sharedCounters: [{name: c, counters: {m: {value: 1}}}]\n"
"  devices:\n  - name: d\n"
"    attributes: {a: {ints: [1]}, b: {bools: [true]}, "
"c: {strings: [x]}, v: {versions: [1.0.0]}}\n"
"    capacity: {m: {value: 1, requestPolicy: {default: 1}}}\n"
"    consumesCounters: [{counterSet: c, counters: {m: {value: 1}}}]\n"
"    nodeName: n1\n    nodeSelector: {nodeSelectorTerms: []}\n"
"    allNodes: true\n    taints: [{key: k, effect: NoSchedule}]\n"
"    bindsToNode: true\n    bindingConditions: [c]\n"
"    bindingFailureConditions: [f]\n    allowMultipleAllocations: true\n"
"    nodeAllocatableResourceMappings: {cpu: {}}\n"
"    nodeAllocatableResources: {cpu: {}}\n"
"---\napiVersion: resource.k8s.io/v1beta1\nkind: ResourceSlice\n"
"metadata: {name: t}\nspec:\n  driver: x.example.com\n"
"  devices:\n  - name: d\n    basic:\n"
"      attributes: {a: {ints: [1]}, b: {bools: [true]}, "
"c: {strings: [x]}, v: {versions: [1.0.0]}}\n"
"      capacity: {m: {value: 1, requestPolicy: {default: 1}}}\n"
"      consumesCounters: [{counterSet: c, counters: {m: {value: 1}}}]\n"
"      nodeName: n1\n      nodeSelector: {nodeSelectorTerms: []}\n"
"      allNodes: true\n      taints: [{key: k, effect: NoSchedule}]\n"
"      bindsToNode: true\n      bindingConditions: [c]\n"
"      bindingFailureConditions: [f]\n      allowMultipleAllocations: true\n"
"      nodeAllocatableResourceMappings: {cpu: {}}\n"
"      nodeAllocatableResources: {cpu: {}}\n";

/* "devices[].attributes[*].ints" -> "^spec\.devices\[[0-9]+\]..." ; the
 * claim template's spec is one level deeper. */
static void path_regex(const struct gated_field *f, char *out, size_t n)
{
    const char *p = f->path;
    size_t k = 0;

    k += (size_t)snprintf(out + k, n - k, "^spec\\.(spec\\.)?");
    for (; *p && k + 32 < n; p++) {
        if (!strncmp(p, "[]", 2)) {
            k += (size_t)snprintf(out + k, n - k, "\\[[0-9]+\\]");
            p++;
        } else if (!strncmp(p, "[*]", 3)) {
            k += (size_t)snprintf(out + k, n - k, "(\\.[A-Za-z0-9_]+|\\[[^]"
                                  "]+\\])");
            p += 2;
        } else if (*p == '.') {
            k += (size_t)snprintf(out + k, n - k, "\\.");
        } else {
            out[k++] = *p;
        }
    }
    snprintf(out + k, n - k, "$");
}

static void test_paths_walk(void)
{
    struct config cfg;
    struct engine *e;
    struct err err;
    struct arena a;
    struct diag_list l;
    struct run *r;
    size_t i, j;

    config_init(&cfg);
    CHECK(config_set_kube_version(&cfg, "1.33", &err) == 0);
    e = engine_new(&cfg, &rules_builtin, &err);
    CHECK(e != NULL);
    if (!e)
        return;
    arena_init(&a, 1 << 16);
    diag_list_init(&l, &a);
    r = run_new(e, NULL, &a, &l);
    run_add_text(r, "fixtures.yaml", fixtures, strlen(fixtures));
    run_check(r);
    CHECK(run_parse_errors(r) == 0);
    for (i = 0; i < gated_field_count; i++) {
        const struct gated_field *f = &gated_fields[i];
        char re[512];
        regex_t rx;
        int hit = 0;
        path_regex(f, re, sizeof(re));
        CHECK(regcomp(&rx, re, REG_EXTENDED | REG_NOSUB) == 0);
        for (j = 0; j < l.n; j++)
            if (!strcmp(l.v[j].rule->id, "feature-gate-disabled")
                && regexec(&rx, l.v[j].path, 0, NULL, 0) == 0)
                hit = 1;
        regfree(&rx);
        if (!hit)
            printf("FAIL gated path '%s' (%s) walks no fixture field "
                   "(regex %s)\n", f->path, f->gate, re);
        CHECK(hit);
    }
    run_free(r);
    arena_release(&a);
    engine_free(e);
    config_release(&cfg);
}


/* ==== admission: the apiserver already dropped disabled fields ========== */

static void test_admission(void)
{
    static const char claim[] =
        "apiVersion: resource.k8s.io/v1beta1\nkind: ResourceClaim\n"
        "metadata: {name: c, namespace: ml}\nspec:\n  devices:\n"
        "    requests:\n    - name: a\n      firstAvailable:\n"
        "      - {name: s, deviceClassName: x.example.com}\n";
    struct config cfg;
    struct engine *e;
    struct err err;
    struct arena a;
    struct diag_list l;
    struct ydocs docs;
    size_t i;
    int disabled = 0, unavailable = 0, deprecated = 0;

    config_init(&cfg);
    CHECK(config_set_kube_version(&cfg, "1.35", &err) == 0);
    CHECK(config_add_gates(&cfg, "DRAPrioritizedList=false", &err) == 0);
    e = engine_new(&cfg, &rules_builtin, &err);
    CHECK(e != NULL);
    if (!e)
        return;
    arena_init(&a, 1 << 14);
    diag_list_init(&l, &a);
    load_yaml(&a, claim, strlen(claim), &docs);
    CHECK(docs.n == 1 && docs.v[0].root);
    CHECK(engine_check_admission(e, NULL, docs.v[0].root, "ml", 0, &l,
                                 &err) == 0);
    for (i = 0; i < l.n; i++) {
        disabled += !strcmp(l.v[i].rule->id, "feature-gate-disabled");
        unavailable += !strcmp(l.v[i].rule->id, "api-version-unavailable");
        deprecated += !strcmp(l.v[i].rule->id, "api-version-deprecated");
    }
    /* served (it was sent) and not dropped (it is still there) */
    CHECK(disabled == 0 && unavailable == 0);
    /* the apiserver serves v1beta1 (it sent it): deprecated in 1.35 */
    CHECK(deprecated == 1);
    arena_release(&a);
    engine_free(e);
    config_release(&cfg);
}

int main(void)
{
    test_gate_rows();
    test_field_rows();
    test_api_rows();
    test_kind_rows();
    test_plugin_map();
    test_target();
    test_paths_walk();
    test_admission();
    return CHECK_DONE();
}
