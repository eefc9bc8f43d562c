/*
 * schema_slice.c - slice-schema: the apiserver's validation of
 * ResourceSlices (validateResourceSliceSpec, validateDevice,
 * validateDeviceAttribute, validateCounterSet ...), DeviceTaintRules
 * (validateDeviceTaintRuleSpec) and ResourcePoolStatusRequests
 * (validateResourcePoolStatusRequestSpec) on create, as
 * pkg/apis/resource/validation does it. Paths are the internal type's: a
 * v1alpha3/v1beta1 device's `basic` fields are reported on
 * "spec.devices[i].<field>". Limits short-circuit as in the claims rule.
 * Fields Kubernetes 1.36 does not have (partitionTypeAttribute,
 * skipNodeOperations, nodeAllocatableResources) are not judged here.
 */
#include <string.h>

#include "../validate/cel/cel.h"
#include "../validate/names.h"
#include "../validate/object.h"
#include "../validate/tree.h"
#include "apival.h"
#include "checks.h"
#include "rules.h"

#define MAX_DEVICES 128             /* ResourceSliceMaxDevices */
#define MAX_DEVICES_ADVANCED 64     /* ...WithAdvancedFeatures */
#define MAX_COUNTER_SETS 8          /* ResourceSliceMaxCounterSets */
#define MAX_COUNTERS 32             /* ...MaxCountersPerCounterSet, and per
                                       DeviceCounterConsumption */
#define MAX_CONSUMPTIONS 2          /* ...CounterConsumptionsPerDevice */
#define MAX_ATTRS_AND_CAPS 32       /* ...AttributesAndCapacitiesPerDevice */
#define MAX_ATTR_VALUES 48          /* ...MaxAttributeValuesPerDevice */
#define MAX_ATTR_VALUE_BYTES 64     /* DeviceAttributeMaxValueLength */
#define MAX_TAINTS 16               /* DeviceTaintsMaxLength */
#define MAX_KEY_PATH 96             /* domain 63 + '/' + id 32: keys longer
                                       are cut in paths */
#define POOL_REQUEST_LIMIT_MAX 1000 /* ResourcePoolStatusRequestLimitMax */

static const char *const list_fields[] = {"bools", "ints", "strings",
                                          "versions", NULL};

/* The mapping holding a device's fields: v1alpha3/v1beta1 keep them under
 * `basic`, later versions on the device itself. */
static const struct tnode *device_body(const struct object *o,
                                       const struct tnode *dev)
{
    if (!strcmp(o->version, "v1alpha3") || !strcmp(o->version, "v1beta1"))
        return tree_get(dev, "basic");
    return dev;
}

static int present(const struct tnode *n)
{
    return n && n->kind != T_NULL;
}

static size_t len_of(const struct tnode *n)
{
    return (tree_is_seq(n) || tree_is_map(n)) ? n->n : 0;
}

/* ==== attributes ======================================================== */

static void check_string_value(struct check_ctx *cx, const struct tnode *v,
                               const char *path, int version)
{
    const char *s = av_str(cx, v, path, version ? "version" : "string");

    if (!s)
        return;
    if (version && !cel_semver_valid(s))
        report_path(cx, v, path, "version %s is not a semantic version "
                    "(semver.org 2.0.0: MAJOR.MINOR.PATCH[-pre][+build])",
                    av_show(cx, s));
    if (strlen(s) > MAX_ATTR_VALUE_BYTES)
        report_path(cx, v, path, "%s %s is longer than %d bytes",
                    version ? "version" : "string", av_show(cx, s),
                    MAX_ATTR_VALUE_BYTES);
}

/* validateDeviceAttribute: exactly one value; strings and versions */
static void check_attribute(struct check_ctx *cx, const struct tnode *a,
                            const char *path)
{
    static const char *const scalars[] = {"bool", "int", "string",
                                          "version", NULL};
    size_t nset = 0, i, j;

    if (!av_is_map(cx, a, path, "attribute")) {
        if (!present(a))
            report_path(cx, a, path, "attribute has no value: exactly one "
                        "of int, bool, string, version, ints, bools, "
                        "strings, versions must be set");
        return;
    }
    for (i = 0; scalars[i]; i++) {
        const struct tnode *v = tree_get(a, scalars[i]);
        if (!present(v))
            continue;
        nset++;
        if (i >= 2)
            check_string_value(cx, v, fp_child(cx, path, scalars[i]), i == 3);
    }
    for (i = 0; list_fields[i]; i++) {
        const struct tnode *v = tree_get(a, list_fields[i]);
        const char *lp = fp_child(cx, path, list_fields[i]);
        if (!present(v))
            continue;
        nset++;
        if (!av_list(cx, v, lp, -1, list_fields[i])) {
            if (tree_is_seq(v))
                report_path(cx, v, lp, "'%s' must not be empty if set",
                            list_fields[i]);
            continue;
        }
        if (i >= 2)
            for (j = 0; j < v->n; j++)
                check_string_value(cx, v->kids[j], fp_index(cx, lp, j),
                                   i == 3);
    }
    if (nset != 1)
        report_path(cx, a, path, "an attribute needs exactly one value (int, "
                    "bool, string, version, ints, bools, strings or "
                    "versions), not %zu", nset);
}

/* numEntriesDeviceAttribute: a scalar counts 1, list values count each
 * item (an attribute with only empty lists counts 1) */
static size_t attribute_values(const struct tnode *attrs)
{
    size_t n = 0, i, j;

    for (i = 0; tree_is_map(attrs) && i < attrs->n; i++) {
        size_t items = 0;
        for (j = 0; list_fields[j]; j++)
            items += len_of(tree_get(attrs->kids[i], list_fields[j]));
        n += items ? items : 1;
    }
    return n;
}

static int has_list_attribute(const struct tnode *attrs)
{
    size_t i, j;

    for (i = 0; tree_is_map(attrs) && i < attrs->n; i++)
        for (j = 0; list_fields[j]; j++)
            if (present(tree_get(attrs->kids[i], list_fields[j])))
                return 1;
    return 0;
}

/* ==== capacity ========================================================== */

/* The parts of validateRequestPolicy that need no quantity arithmetic. */
static void check_request_policy(struct check_ctx *cx, const struct tnode *p,
                                 const char *path)
{
    const struct tnode *vv = tree_get(p, "validValues");
    const struct tnode *vr = tree_get(p, "validRange");

    if (!av_is_map(cx, p, path, "requestPolicy"))
        return;
    if (len_of(vv) && present(vr)) {
        report_path(cx, p, path, "a request policy sets either validValues "
                    "or validRange, not both");
        return;
    }
    if (len_of(vv) && !present(tree_get(p, "default")))
        report_path(cx, vv, fp_child(cx, path, "default"), "'default' is "
                    "required when validValues is set");
    if (present(vr) && av_is_map(cx, vr, fp_child(cx, path, "validRange"),
                                 "validRange")) {
        if (!present(tree_get(p, "default")))
            report_path(cx, vr, fp_child(cx, path, "default"), "'default' "
                        "is required when validRange is set");
        else if (!present(tree_get(vr, "min")))
            report_path(cx, vr, fp_child(cx, fp_child(cx, path, "validRange"),
                        "min"), "'min' is required in validRange");
    }
}

static void check_capacity(struct check_ctx *cx, const struct tnode *caps,
                           const char *path, int multi)
{
    size_t i;

    if (!av_map(cx, caps, path, -1, "capacity"))
        return;
    for (i = 0; i < caps->n; i++) {
        const struct tnode *c = caps->kids[i];
        const char *kp = fp_key(cx, path, c->key, MAX_KEY_PATH);
        const struct tnode *rp = tree_get(c, "requestPolicy");
        av_qualified_name(cx, c, path, "capacity name", c->key);
        if (!present(rp))
            continue;
        if (!multi)
            report_path(cx, rp, fp_child(cx, kp, "requestPolicy"), "a "
                        "request policy needs allowMultipleAllocations: "
                        "true on the device");
        else
            check_request_policy(cx, rp, fp_child(cx, kp, "requestPolicy"));
    }
}

/* ==== counters ========================================================== */

static void check_counters(struct check_ctx *cx, const struct tnode *parent,
                           const struct tnode *m, const char *path)
{
    size_t i;

    if (!len_of(m) && !(m && m->kind != T_NULL && m->kind != T_MAP)) {
        report_path(cx, m ? m : parent, path, "'counters' is required");
        return;
    }
    if (!av_map(cx, m, path, MAX_COUNTERS, "counters"))
        return;
    for (i = 0; i < m->n; i++)
        av_dns_label(cx, m->kids[i], path, "counter name", m->kids[i]->key);
}

/* A counter set (sharedCounters[]) or a consumption (consumesCounters[]):
 * its name field is `key`. */
static void check_counter_set(struct check_ctx *cx, const struct tnode *s,
                              const char *path, const char *key)
{
    const struct tnode *nm = tree_get(s, key);
    const char *np = fp_child(cx, path, key);
    const char *name;

    if (!av_is_map(cx, s, path, key))
        return;
    name = av_str(cx, nm, np, key);
    if (name && *name)
        av_dns_label(cx, nm, np, key, name);
    else if (!present(nm) || name)
        av_required(cx, nm ? nm : s, np, key);
    check_counters(cx, s, tree_get(s, "counters"),
                   fp_child(cx, path, "counters"));
}

static void check_counter_list(struct check_ctx *cx, const struct tnode *l,
                               const char *path, long max, const char *key)
{
    size_t i;

    if (!av_list(cx, l, path, max, key[0] == 'n' ? "sharedCounters"
                                                 : "consumesCounters"))
        return;
    for (i = 0; i < l->n; i++)
        check_counter_set(cx, l->kids[i], fp_index(cx, path, i), key);
    av_unique(cx, l, path, key, key[0] == 'n' ? "counter set"
                                              : "counter set consumed");
}

/* ==== devices =========================================================== */

/* exactly one of nodeName, nodeSelector, allNodes: true (per device) */
static void check_device_node(struct check_ctx *cx, const struct tnode *dev,
                              const struct tnode *b, const char *path,
                              int per_device)
{
    const struct tnode *nn = tree_get(b, "nodeName");
    const struct tnode *ns = tree_get(b, "nodeSelector");
    const struct tnode *an = tree_get(b, "allNodes");
    int set = 0;

    if (!per_device) {
        if (present(nn) || present(ns) || present(an))
            report_path(cx, present(nn) ? nn : present(ns) ? ns : an, path,
                        "nodeName, nodeSelector and allNodes of a device "
                        "need perDeviceNodeSelection: true in the slice");
        return;
    }
    if (present(nn)) {
        const char *s = av_str(cx, nn, fp_child(cx, path, "nodeName"),
                               "nodeName");
        if (s && !*s) {
            report_path(cx, nn, fp_child(cx, path, "nodeName"), "nodeName "
                        "must not be empty");
        } else if (s) {
            set++;
            av_dns_subdomain(cx, nn, fp_child(cx, path, "nodeName"),
                             "node name", s);
        }
    }
    if (present(ns)) {
        set++;
        av_node_selector(cx, ns, fp_child(cx, path, "nodeSelector"));
    }
    if (present(an)) {
        if (tree_true(an))
            set++;
        else
            report_path(cx, an, fp_child(cx, path, "allNodes"), "allNodes "
                        "must be unset or true");
    }
    if (set == 0)
        report_path(cx, dev, path, "with perDeviceNodeSelection the device "
                    "needs exactly one of nodeName, nodeSelector and "
                    "allNodes: true");
    else if (set > 1)
        report_path(cx, dev, path, "the device sets more than one of "
                    "nodeName, nodeSelector and allNodes");
}

static void check_device(struct check_ctx *cx, const struct object *o,
                         const struct tnode *dev, const char *path,
                         int per_device)
{
    const struct tnode *b = device_body(o, dev);
    const struct tnode *nm = tree_get(dev, "name");
    const struct tnode *attrs, *caps, *taints;
    const char *name, *tp;
    size_t n, i;

    if (!av_is_map(cx, dev, path, "device"))
        return;
    name = av_str(cx, nm, fp_child(cx, path, "name"), "name");
    if (name && *name)
        av_dns_label(cx, nm, fp_child(cx, path, "name"), "device name", name);
    else if (!present(nm) || name)
        report_path(cx, nm ? nm : dev, fp_child(cx, path, "name"), "a device "
                    "needs a name");
    if (b != dev && present(b) && !av_is_map(cx, b, fp_child(cx, path,
                                                             "basic"),
                                             "basic"))
        return;
    attrs = tree_get(b, "attributes");
    caps = tree_get(b, "capacity");
    n = len_of(attrs) + len_of(caps);
    if (n > MAX_ATTRS_AND_CAPS)
        report_path(cx, dev, path, "the device has %zu attributes and "
                    "capacities; at most %d are allowed", n,
                    MAX_ATTRS_AND_CAPS);
    n = attribute_values(attrs);
    if (n > MAX_ATTR_VALUES)
        report_path(cx, dev, path, "the device has %zu attribute values "
                    "(each list item counts); at most %d are allowed", n,
                    MAX_ATTR_VALUES);
    if (av_map(cx, attrs, fp_child(cx, path, "attributes"), -1,
               "attributes"))
        for (i = 0; i < attrs->n; i++) {
            const struct tnode *a = attrs->kids[i];
            const char *ap = fp_child(cx, path, "attributes");
            av_qualified_name(cx, a, ap, "attribute name", a->key);
            check_attribute(cx, a, fp_key(cx, ap, a->key, MAX_KEY_PATH));
        }
    check_capacity(cx, caps, fp_child(cx, path, "capacity"),
                   tree_true(tree_get(b, "allowMultipleAllocations")));
    taints = tree_get(b, "taints");
    tp = fp_child(cx, path, "taints");
    if (av_list(cx, taints, tp, MAX_TAINTS, "taints"))
        for (i = 0; i < taints->n; i++)
            av_device_taint(cx, taints->kids[i], fp_index(cx, tp, i));
    check_counter_list(cx, tree_get(b, "consumesCounters"),
                       fp_child(cx, path, "consumesCounters"),
                       MAX_CONSUMPTIONS, "counterSet");
    check_device_node(cx, dev, b, path, per_device);
    if (tree_is_map(b))
        av_binding_conditions(cx, b, path);
}

/* devices past 64 need plain devices: no taints, counters or lists */
static long max_devices(const struct object *o, const struct tnode *devs)
{
    size_t i;

    for (i = 0; tree_is_seq(devs) && i < devs->n; i++) {
        const struct tnode *b = device_body(o, devs->kids[i]);
        if (len_of(tree_get(b, "taints"))
            || len_of(tree_get(b, "consumesCounters"))
            || has_list_attribute(tree_get(b, "attributes")))
            return MAX_DEVICES_ADVANCED;
    }
    return MAX_DEVICES;
}

/* ==== the slice ========================================================= */

static void check_pool(struct check_ctx *cx, const struct tnode *spec)
{
    const struct tnode *pool = tree_get(spec, "pool");
    const struct tnode *nm = tree_get(pool, "name");
    const struct tnode *rc = tree_get(pool, "resourceSliceCount");
    const struct tnode *gen = tree_get(pool, "generation");
    const char *name;
    long long v;

    if (present(pool) && !av_is_map(cx, pool, "spec.pool", "pool"))
        return;
    name = av_str(cx, nm, "spec.pool.name", "name");
    if (name || !present(nm))
        av_pool_name(cx, nm ? nm : pool ? pool : spec, "spec.pool.name",
                     "pool name", name);
    if (tree_int(rc, &v) < 0)
        v = 0;
    if (v <= 0)
        report_path(cx, rc ? rc : pool ? pool : spec,
                    "spec.pool.resourceSliceCount", "resourceSliceCount "
                    "must be greater than zero");
    if (tree_int(gen, &v) == 0 && v < 0)
        report_path(cx, gen, "spec.pool.generation", "generation must not "
                    "be negative");
}

/* exactly one of nodeName, nodeSelector, allNodes: true,
 * perDeviceNodeSelection: true */
static void check_node_selection(struct check_ctx *cx,
                                 const struct tnode *spec)
{
    const struct tnode *nn = tree_get(spec, "nodeName");
    const struct tnode *ns = tree_get(spec, "nodeSelector");
    static const char *const flags[] = {"allNodes", "perDeviceNodeSelection"};
    const char *set[4];
    size_t nset = 0, i;

    if (present(nn)) {
        const char *s = av_str(cx, nn, "spec.nodeName", "nodeName");
        if (s && !*s) {
            report_path(cx, nn, "spec.nodeName", "nodeName must be unset or "
                        "a non-empty string");
        } else if (s) {
            set[nset++] = "nodeName";
            av_dns_subdomain(cx, nn, "spec.nodeName", "node name", s);
        }
    }
    if (present(ns)) {
        const struct tnode *terms = tree_get(ns, "nodeSelectorTerms");
        set[nset++] = "nodeSelector";
        av_node_selector(cx, ns, "spec.nodeSelector");
        if (tree_is_map(ns) && len_of(terms) != 1)
            report_path(cx, terms ? terms : ns,
                        "spec.nodeSelector.nodeSelectorTerms", "a slice's "
                        "node selector must have exactly one term");
    }
    for (i = 0; i < 2; i++) {
        const struct tnode *f = tree_get(spec, flags[i]);
        if (!present(f))
            continue;
        if (tree_true(f))
            set[nset++] = flags[i];
        else
            report_path(cx, f, fp_child(cx, "spec", flags[i]), "%s must be "
                        "unset or true", flags[i]);
    }
    if (nset == 0)
        report_path(cx, spec, "spec", "the slice needs exactly one of "
                    "nodeName, nodeSelector, allNodes: true and "
                    "perDeviceNodeSelection: true");
    else if (nset > 1)
        report_path(cx, spec, "spec", "the slice sets %s%s%s%s%s and %s; "
                    "exactly one of nodeName, nodeSelector, allNodes and "
                    "perDeviceNodeSelection is allowed", set[0],
                    nset > 2 ? ", " : "", nset > 2 ? set[1] : "",
                    nset > 3 ? ", " : "", nset > 3 ? set[2] : "",
                    set[nset - 1]);
}

static void check_slice(struct check_ctx *cx, const struct object *o)
{
    const struct tnode *spec = o->spec;
    const struct tnode *devs = tree_get(spec, "devices");
    const struct tnode *shared = tree_get(spec, "sharedCounters");
    const struct tnode *at = spec ? spec : o->kind_node;
    const char *drv;
    size_t i;

    if (!tree_is_map(spec))
        spec = NULL;
    drv = av_str(cx, tree_get(spec, "driver"), "spec.driver", "driver");
    if (drv || !present(tree_get(spec, "driver")))
        av_driver_name(cx, tree_get(spec, "driver") ? tree_get(spec, "driver")
                       : at, "spec.driver", "driver", drv);
    check_pool(cx, spec);
    check_node_selection(cx, spec);
    if (present(devs) && present(shared))
        report_path(cx, shared, "spec", "a slice has either sharedCounters or "
                    "devices, not both");
    if (av_list(cx, devs, "spec.devices", max_devices(o, devs), "devices")) {
        int per = tree_true(tree_get(spec, "perDeviceNodeSelection"));
        for (i = 0; i < devs->n; i++)
            check_device(cx, o, devs->kids[i],
                         fp_index(cx, "spec.devices", i), per);
        av_unique(cx, devs, "spec.devices", "name", "device");
    }
    check_counter_list(cx, shared, "spec.sharedCounters", MAX_COUNTER_SETS,
                       "name");
}

/* ==== DeviceTaintRule and ResourcePoolStatusRequest ===================== */

static void check_taint_rule(struct check_ctx *cx, const struct object *o)
{
    const struct tnode *sel = tree_get(o->spec, "deviceSelector");
    const struct tnode *taint = tree_get(o->spec, "taint");
    const char *sp = "spec.deviceSelector";
    const char *s;

    if (present(sel) && av_is_map(cx, sel, sp, "deviceSelector")) {
        s = av_str(cx, tree_get(sel, "driver"), fp_child(cx, sp, "driver"),
                   "driver");
        if (s)
            av_driver_name(cx, tree_get(sel, "driver"),
                           fp_child(cx, sp, "driver"), "driver", s);
        s = av_str(cx, tree_get(sel, "pool"), fp_child(cx, sp, "pool"),
                   "pool");
        if (s)
            av_pool_name(cx, tree_get(sel, "pool"), fp_child(cx, sp, "pool"),
                         "pool name", s);
        s = av_str(cx, tree_get(sel, "device"), fp_child(cx, sp, "device"),
                   "device");
        if (s)
            av_dns_label(cx, tree_get(sel, "device"),
                         fp_child(cx, sp, "device"), "device name", s);
    }
    /* the taint is a value in Go: an absent one is an empty taint */
    if (present(taint)) {
        av_device_taint(cx, taint, "spec.taint");
    } else {
        const struct tnode *at = o->spec ? o->spec : o->kind_node;
        av_required(cx, at, "spec.taint.key", "taint.key");
        av_required(cx, at, "spec.taint.effect", "taint.effect");
    }
}

static void check_pool_request(struct check_ctx *cx, const struct object *o)
{
    const struct tnode *d = tree_get(o->spec, "driver");
    const struct tnode *p = tree_get(o->spec, "poolName");
    const struct tnode *l = tree_get(o->spec, "limit");
    const char *s;
    long long v;

    s = av_str(cx, d, "spec.driver", "driver");
    if (s || !present(d))
        av_driver_name(cx, d ? d : o->spec ? o->spec : o->kind_node,
                       "spec.driver", "driver", s);
    s = av_str(cx, p, "spec.poolName", "poolName");
    if (s && *s)
        av_pool_name(cx, p, "spec.poolName", "pool name", s);
    /* limit defaults to 100 when absent */
    if (present(l) && tree_int(l, &v) == 0 && (v < 1
                                               || v > POOL_REQUEST_LIMIT_MAX))
        report_path(cx, l, "spec.limit", "limit %lld is out of range (1 to "
                    "%d)", v, POOL_REQUEST_LIMIT_MAX);
    else if (present(l) && l->kind != T_INT)
        report_path(cx, l, "spec.limit", "limit must be an integer, not %s",
                    tree_kind_desc(l));
}

void check_slice_schema(struct check_ctx *cx, const struct object *o)
{
    /* v1alpha1/v1alpha2 had other shapes (api-version-* reports them) */
    if (strcmp(o->version, "v1alpha3") && strcmp(o->version, "v1beta1")
        && strcmp(o->version, "v1beta2") && strcmp(o->version, "v1"))
        return;
    if (o->spec && !tree_is_map(o->spec))
        return;
    if (o->kind == K_SLICE)
        check_slice(cx, o);
    else if (o->kind == K_TAINTRULE)
        check_taint_rule(cx, o);
    else if (o->kind == K_POOLREQ)
        check_pool_request(cx, o);
}
