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
#include <stdint.h>
#include <string.h>

#include "../validate/cel/cel.h"
#include "../validate/names.h"
#include "../validate/object.h"
#include "../validate/quantity.h"
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
                               const struct fpath *path, int version)
{
    const char *s = av_str(cx, v, path, version ? "version" : "string");

    if (!s)
        return;
    if (version && !cel_semver_valid(s))
        av_report(cx, v, path, "version %s is not a semantic version "
                  "(semver.org 2.0.0: MAJOR.MINOR.PATCH[-pre][+build])",
                  av_show(cx, s));
    if (strlen(s) > MAX_ATTR_VALUE_BYTES)
        av_report(cx, v, path, "%s %s is longer than %d bytes",
                  version ? "version" : "string", av_show(cx, s),
                  MAX_ATTR_VALUE_BYTES);
}

/* validateDeviceAttribute: exactly one value; strings and versions */
static void check_attribute(struct check_ctx *cx, const struct tnode *a,
                            const struct fpath *path)
{
    static const char *const scalars[] = {"bool", "int", "string",
                                          "version", NULL};
    size_t nset = 0, i, j;

    if (!av_is_map(cx, a, path, "attribute")) {
        if (!present(a))
            av_report(cx, a, path, "attribute has no value: exactly one of "
                      "int, bool, string, version, ints, bools, strings, "
                      "versions must be set");
        return;
    }
    for (i = 0; scalars[i]; i++) {
        const struct tnode *v = tree_get(a, scalars[i]);
        struct fpath vp = fp_child(path, scalars[i]);
        if (!present(v))
            continue;
        nset++;
        if (i >= 2)
            check_string_value(cx, v, &vp, i == 3);
    }
    for (i = 0; list_fields[i]; i++) {
        const struct tnode *v = tree_get(a, list_fields[i]);
        struct fpath lp = fp_child(path, list_fields[i]);
        if (!present(v))
            continue;
        nset++;
        if (!av_list(cx, v, &lp, -1, list_fields[i])) {
            if (tree_is_seq(v))
                av_report(cx, v, &lp, "'%s' must not be empty if set",
                          list_fields[i]);
            continue;
        }
        for (j = 0; i >= 2 && j < v->n; j++) {
            struct fpath ip = fp_index(&lp, j);
            check_string_value(cx, v->kids[j], &ip, i == 3);
        }
    }
    if (nset != 1)
        av_report(cx, a, path, "an attribute needs exactly one value (int, "
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

#define MAX_POLICY_VALUES 10        /* CapacityRequestPolicyDiscrete-
                                       MaxOptions */
#define QTY_TEXT 64                 /* a quantity's String() for a message */

/* The quantity of n when n is present and parses (a value that does not
 * is input-object's); 0 when it is absent or does not. */
static int policy_qty(const struct tnode *n, struct quantity *q)
{
    return present(n) && quantity_from_text(tree_text(n), q) == QE_OK;
}

static const char *qty_text(const struct quantity *q, char *buf)
{
    quantity_string(q, buf, QTY_TEXT);
    return buf;
}

/* validateRequestPolicyValidValues, integer mode (DRAFractionalCapacity-
 * Range, the decimal mode, is not in 1.36): ascending, each at most the
 * capacity, unique by Value(), the default one of them. */
static void check_valid_values(struct check_ctx *cx, const struct tnode *vv,
                               const struct quantity *cap,
                               const struct quantity *def,
                               const struct fpath *path)
{
    struct quantity q[MAX_POLICY_VALUES], prev;
    char a[QTY_TEXT], b[QTY_TEXT];
    int found = 0;
    size_t i, j;

    for (i = 0; i < vv->n; i++) {
        struct fpath ip = fp_index(path, i);
        struct quantity cur;
        if (!policy_qty(vv->kids[i], &cur))
            return;
        if (i > 0 && quantity_cmp(&prev, &cur) > 0)
            av_report(cx, vv->kids[i], &ip, "validValues must be sorted in "
                      "ascending order: '%s' follows '%s'",
                      qty_text(&cur, a), qty_text(&prev, b));
        if (i < MAX_POLICY_VALUES)
            q[i] = cur;
        prev = cur;
    }
    if (vv->n > MAX_POLICY_VALUES) {
        av_report(cx, vv, path, "%zu validValues; at most %d are allowed",
                  (size_t)vv->n, MAX_POLICY_VALUES);
    } else {
        for (i = 0; i < vv->n; i++) {
            struct fpath ip = fp_index(path, i);
            if (quantity_cmp(&q[i], cap) > 0)
                av_report(cx, vv->kids[i], &ip, "option '%s' is larger than "
                          "the capacity value '%s'", qty_text(&q[i], a),
                          qty_text(cap, b));
            if (quantity_cmp(&q[i], def) == 0)
                found = 1;
        }
        for (i = 0; i < vv->n; i++)
            for (j = 0; j < i; j++)
                if (quantity_scaled_value(&q[i], 0)
                    == quantity_scaled_value(&q[j], 0)) {
                    struct fpath ip = fp_index(path, i);
                    av_report(cx, vv->kids[i], &ip, "option '%s' repeats "
                              "validValues[%zu] (options are compared as "
                              "whole numbers)", qty_text(&q[i], a), j);
                    break;
                }
    }
    if (!found)
        av_report(cx, vv, path, "default '%s' is not one of validValues",
                  qty_text(def, a));
}

/* validateInt64Range: the integer arithmetic below reads Value(), which
 * only holds in [0, MaxInt64]. 1 if q is in it, else reported. */
static int policy_int64(struct check_ctx *cx, const struct tnode *n,
                        const struct quantity *q, const struct fpath *path)
{
    struct quantity max;
    char a[QTY_TEXT];

    quantity_from_int(INT64_MAX, 0, QF_DECIMAL_SI, &max);
    if (quantity_sign(q) < 0)
        av_report(cx, n, path, "'%s' must be greater than or equal to 0",
                  qty_text(q, a));
    else if (quantity_cmp(q, &max) > 0)
        av_report(cx, n, path, "'%s' must not be larger than "
                  "9223372036854775807", qty_text(q, a));
    else
        return 1;
    return 0;
}

/* validateRequestPolicyRangeStep, integer mode: value - min a multiple of
 * step (all three in [0, MaxInt64], step > 0). */
static void check_step_multiple(struct check_ctx *cx, const struct tnode *at,
                                const struct quantity *v,
                                const struct quantity *min,
                                const struct quantity *step,
                                const struct fpath *path)
{
    int64_t d = quantity_scaled_value(v, 0) - quantity_scaled_value(min, 0);
    char a[QTY_TEXT], b[QTY_TEXT], c[QTY_TEXT];

    if (d % quantity_scaled_value(step, 0) != 0)
        av_report(cx, at, path, "'%s' is not a multiple of the step '%s' "
                  "from min '%s'", qty_text(v, a), qty_text(step, b),
                  qty_text(min, c));
}

/* validateRequestPolicyRange, integer mode; path is ...validRange. */
static void check_valid_range(struct check_ctx *cx, const struct tnode *vr,
                              const struct tnode *defn,
                              const struct quantity *cap,
                              const struct quantity *def,
                              const struct fpath *path)
{
    const struct tnode *minn = tree_get(vr, "min");
    const struct tnode *maxn = tree_get(vr, "max");
    const struct tnode *stepn = tree_get(vr, "step");
    struct fpath mp = fp_child(path, "min"), xp = fp_child(path, "max");
    struct fpath dp = fp_child(path, "default");
    struct fpath sp = fp_child(path, "step");
    struct quantity min, max, step, sum;
    char a[QTY_TEXT], b[QTY_TEXT];
    int has_max = present(maxn), ok;

    if (!policy_qty(minn, &min) || (has_max && !policy_qty(maxn, &max))
        || (present(stepn) && !policy_qty(stepn, &step)))
        return;
    if (quantity_cmp(&min, cap) > 0)
        av_report(cx, minn, &mp, "min '%s' is larger than the capacity value "
                  "'%s'", qty_text(&min, a), qty_text(cap, b));
    if (quantity_cmp(def, &min) < 0)
        av_report(cx, defn, &dp, "default '%s' is less than min '%s'",
                  qty_text(def, a), qty_text(&min, b));
    if (has_max) {
        if (quantity_cmp(&min, &max) > 0)
            av_report(cx, maxn, &xp, "min '%s' is larger than max '%s'",
                      qty_text(&min, a), qty_text(&max, b));
        if (quantity_cmp(&max, cap) > 0)
            av_report(cx, maxn, &xp, "max '%s' is larger than the capacity "
                      "value '%s'", qty_text(&max, a), qty_text(cap, b));
        if (quantity_cmp(def, &max) > 0)
            av_report(cx, defn, &dp, "default '%s' is more than max '%s'",
                      qty_text(def, a), qty_text(&max, b));
    }
    if (!present(stepn))
        return;
    if (quantity_sign(&step) <= 0) {
        av_report(cx, stepn, &sp, "step '%s' must be greater than zero",
                  qty_text(&step, a));
        return;
    }
    sum = min;
    if (quantity_add(&sum, &step) == QE_OK && quantity_cmp(&sum, cap) > 0)
        av_report(cx, stepn, &sp, "one step from min, '%s', is larger than "
                  "the capacity value '%s'", qty_text(&sum, a),
                  qty_text(cap, b));
    ok = policy_int64(cx, defn, def, &dp);
    ok &= policy_int64(cx, minn, &min, &mp);
    if (has_max)
        ok &= policy_int64(cx, maxn, &max, &xp);
    ok &= policy_int64(cx, stepn, &step, &sp);
    if (!ok)
        return;
    check_step_multiple(cx, defn, def, &min, &step, &sp);
    if (has_max)
        check_step_multiple(cx, maxn, &max, &min, &step, &sp);
}

/* validateRequestPolicy on a capacity (cap_node: its `value`). */
static void check_request_policy(struct check_ctx *cx, const struct tnode *p,
                                 const struct tnode *cap_node,
                                 const struct fpath *path)
{
    const struct tnode *vv = tree_get(p, "validValues");
    const struct tnode *vr = tree_get(p, "validRange");
    const struct tnode *defn = tree_get(p, "default");
    struct fpath dp = fp_child(path, "default");
    struct fpath vp = fp_child(path, "validValues");
    struct fpath rp = fp_child(path, "validRange");
    struct fpath mp = fp_child(&rp, "min");
    struct quantity cap, def;

    if (!av_is_map(cx, p, path, "requestPolicy"))
        return;
    if (len_of(vv) && present(vr)) {
        av_report(cx, p, path, "a request policy sets either validValues or "
                  "validRange, not both");
        return;
    }
    if (len_of(vv) && !present(defn))
        av_report(cx, vv, &dp, "'default' is required when validValues is "
                  "set");
    if (present(vr) && av_is_map(cx, vr, &rp, "validRange")) {
        if (!present(defn))
            av_report(cx, vr, &dp, "'default' is required when validRange "
                      "is set");
        else if (!present(tree_get(vr, "min")))
            av_report(cx, vr, &mp, "'min' is required in validRange");
    }
    /* the arithmetic, once the fields parse (a malformed quantity is
     * input-object's); an absent capacity value is zero */
    if (!present(defn) || !policy_qty(defn, &def))
        return;
    if (!present(cap_node))
        memset(&cap, 0, sizeof(cap));
    else if (!policy_qty(cap_node, &cap))
        return;
    if (len_of(vv) && tree_is_seq(vv))
        check_valid_values(cx, vv, &cap, &def, &vp);
    else if (tree_is_map(vr) && present(tree_get(vr, "min")))
        check_valid_range(cx, vr, defn, &cap, &def, &rp);
}

static void check_capacity(struct check_ctx *cx, const struct tnode *caps,
                           const struct fpath *path, int multi)
{
    size_t i;

    if (!av_map(cx, caps, path, -1, "capacity"))
        return;
    for (i = 0; i < caps->n; i++) {
        const struct tnode *c = caps->kids[i];
        struct fpath kp = fp_key(path, c->key, MAX_KEY_PATH);
        struct fpath pp = fp_child(&kp, "requestPolicy");
        const struct tnode *rp = tree_get(c, "requestPolicy");
        av_qualified_name(cx, c, path, "capacity name", c->key);
        if (!present(rp))
            continue;
        if (!multi)
            av_report(cx, rp, &pp, "a request policy needs "
                      "allowMultipleAllocations: true on the device");
        else
            check_request_policy(cx, rp, tree_get(c, "value"), &pp);
    }
}

/* ==== counters ========================================================== */

static void check_counters(struct check_ctx *cx, const struct tnode *parent,
                           const struct tnode *m, const struct fpath *path)
{
    size_t i;

    if (!len_of(m) && !(m && m->kind != T_NULL && m->kind != T_MAP)) {
        av_report(cx, m ? m : parent, path, "'counters' is required");
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
                              const struct fpath *path, const char *key)
{
    const struct tnode *nm = tree_get(s, key);
    struct fpath np = fp_child(path, key);
    struct fpath cp = fp_child(path, "counters");
    const char *name;

    if (!av_is_map(cx, s, path, key))
        return;
    name = av_str(cx, nm, &np, key);
    if (name && *name)
        av_dns_label(cx, nm, &np, key, name);
    else if (!present(nm) || name)
        av_required(cx, nm ? nm : s, &np, key);
    check_counters(cx, s, tree_get(s, "counters"), &cp);
}

static void check_counter_list(struct check_ctx *cx, const struct tnode *l,
                               const struct fpath *path, long max,
                               const char *key)
{
    size_t i;

    if (!av_list(cx, l, path, max, key[0] == 'n' ? "sharedCounters"
                                                 : "consumesCounters"))
        return;
    for (i = 0; i < l->n; i++) {
        struct fpath ip = fp_index(path, i);
        check_counter_set(cx, l->kids[i], &ip, key);
    }
    av_unique(cx, l, path, key, key[0] == 'n' ? "counter set"
                                              : "counter set consumed");
}

/* ==== node selection ==================================================== */

/* One of the node-selection fields of a slice or a device: 1 if it counts
 * as set. An empty nodeName or a false flag is an error of its own. */
static int node_field(struct check_ctx *cx, const struct tnode *f,
                      const struct fpath *path, const char *name,
                      const char *empty_msg)
{
    struct fpath fp = fp_child(path, name);
    const char *s;

    if (!present(f))
        return 0;
    if (!strcmp(name, "nodeName")) {
        s = av_str(cx, f, &fp, name);
        if (s && !*s) {
            av_report(cx, f, &fp, "%s", empty_msg);
            return 0;
        }
        if (s)
            av_dns_subdomain(cx, f, &fp, "node name", s);
        return s != NULL;
    }
    if (!strcmp(name, "nodeSelector")) {
        av_node_selector(cx, f, &fp);
        return 1;
    }
    if (tree_true(f))
        return 1;
    av_report(cx, f, &fp, "%s must be unset or true", name);
    return 0;
}

/* exactly one of nodeName, nodeSelector, allNodes: true (per device) */
static void check_device_node(struct check_ctx *cx, const struct tnode *dev,
                              const struct tnode *b, const struct fpath *path,
                              int per_device)
{
    const struct tnode *nn = tree_get(b, "nodeName");
    const struct tnode *ns = tree_get(b, "nodeSelector");
    const struct tnode *an = tree_get(b, "allNodes");
    int set;

    if (!per_device) {
        if (present(nn) || present(ns) || present(an))
            av_report(cx, present(nn) ? nn : present(ns) ? ns : an, path,
                      "nodeName, nodeSelector and allNodes of a device need "
                      "perDeviceNodeSelection: true in the slice");
        return;
    }
    set = node_field(cx, nn, path, "nodeName", "nodeName must not be empty");
    set += node_field(cx, ns, path, "nodeSelector", NULL);
    set += node_field(cx, an, path, "allNodes", NULL);
    if (set == 0)
        av_report(cx, dev, path, "with perDeviceNodeSelection the device "
                  "needs exactly one of nodeName, nodeSelector and "
                  "allNodes: true");
    else if (set > 1)
        av_report(cx, dev, path, "the device sets more than one of "
                  "nodeName, nodeSelector and allNodes");
}

/* exactly one of nodeName, nodeSelector, allNodes: true,
 * perDeviceNodeSelection: true */
static void check_node_selection(struct check_ctx *cx,
                                 const struct tnode *spec,
                                 const struct fpath *path)
{
    static const char *const fields[] = {"nodeName", "nodeSelector",
                                         "allNodes", "perDeviceNodeSelection"};
    const struct tnode *ns = tree_get(spec, "nodeSelector");
    const struct tnode *terms = tree_get(ns, "nodeSelectorTerms");
    struct fpath nsp = fp_child(path, "nodeSelector");
    struct fpath tp = fp_child(&nsp, "nodeSelectorTerms");
    const char *set[4];
    size_t nset = 0, i;

    for (i = 0; i < 4; i++)
        if (node_field(cx, tree_get(spec, fields[i]), path, fields[i],
                       "nodeName must be unset or a non-empty string"))
            set[nset++] = fields[i];
    if (tree_is_map(ns) && len_of(terms) != 1)
        av_report(cx, terms ? terms : ns, &tp, "a slice's node selector "
                  "must have exactly one term");
    if (nset == 0)
        av_report(cx, spec, path, "the slice needs exactly one of nodeName, "
                  "nodeSelector, allNodes: true and perDeviceNodeSelection: "
                  "true");
    else if (nset > 1)
        av_report(cx, spec, path, "the slice sets %s%s%s%s%s and %s; exactly "
                  "one of nodeName, nodeSelector, allNodes and "
                  "perDeviceNodeSelection is allowed", set[0],
                  nset > 2 ? ", " : "", nset > 2 ? set[1] : "",
                  nset > 3 ? ", " : "", nset > 3 ? set[2] : "",
                  set[nset - 1]);
}

/* ==== devices =========================================================== */

static void check_device(struct check_ctx *cx, const struct object *o,
                         const struct tnode *dev, const struct fpath *path,
                         int per_device)
{
    const struct tnode *b = device_body(o, dev);
    const struct tnode *nm = tree_get(dev, "name");
    const struct tnode *attrs, *caps, *taints;
    struct fpath np = fp_child(path, "name");
    struct fpath bp = fp_child(path, "basic");
    struct fpath ap = fp_child(path, "attributes");
    struct fpath cp = fp_child(path, "capacity");
    struct fpath tp = fp_child(path, "taints");
    struct fpath kp = fp_child(path, "consumesCounters");
    const char *name;
    size_t n, i;

    if (!av_is_map(cx, dev, path, "device"))
        return;
    name = av_str(cx, nm, &np, "name");
    if (name && *name)
        av_dns_label(cx, nm, &np, "device name", name);
    else if (!present(nm) || name)
        av_report(cx, nm ? nm : dev, &np, "a device needs a name");
    if (b != dev && present(b) && !av_is_map(cx, b, &bp, "basic"))
        return;
    attrs = tree_get(b, "attributes");
    caps = tree_get(b, "capacity");
    n = len_of(attrs) + len_of(caps);
    if (n > MAX_ATTRS_AND_CAPS)
        av_report(cx, dev, path, "the device has %zu attributes and "
                  "capacities; at most %d are allowed", n,
                  MAX_ATTRS_AND_CAPS);
    n = attribute_values(attrs);
    if (n > MAX_ATTR_VALUES)
        av_report(cx, dev, path, "the device has %zu attribute values (each "
                  "list item counts); at most %d are allowed", n,
                  MAX_ATTR_VALUES);
    if (av_map(cx, attrs, &ap, -1, "attributes"))
        for (i = 0; i < attrs->n; i++) {
            const struct tnode *a = attrs->kids[i];
            struct fpath kp2 = fp_key(&ap, a->key, MAX_KEY_PATH);
            av_qualified_name(cx, a, &ap, "attribute name", a->key);
            check_attribute(cx, a, &kp2);
        }
    check_capacity(cx, caps, &cp,
                   tree_true(tree_get(b, "allowMultipleAllocations")));
    taints = tree_get(b, "taints");
    if (av_list(cx, taints, &tp, MAX_TAINTS, "taints"))
        for (i = 0; i < taints->n; i++) {
            struct fpath ip = fp_index(&tp, i);
            av_device_taint(cx, taints->kids[i], &ip);
        }
    check_counter_list(cx, tree_get(b, "consumesCounters"), &kp,
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

static void check_pool(struct check_ctx *cx, const struct tnode *spec,
                       const struct fpath *path)
{
    const struct tnode *pool = tree_get(spec, "pool");
    const struct tnode *nm = tree_get(pool, "name");
    const struct tnode *rc = tree_get(pool, "resourceSliceCount");
    const struct tnode *gen = tree_get(pool, "generation");
    struct fpath pp = fp_child(path, "pool");
    struct fpath np = fp_child(&pp, "name");
    struct fpath rp = fp_child(&pp, "resourceSliceCount");
    struct fpath gp = fp_child(&pp, "generation");
    const char *name;
    long long v;

    if (present(pool) && !av_is_map(cx, pool, &pp, "pool"))
        return;
    name = av_str(cx, nm, &np, "name");
    if (name || !present(nm))
        av_pool_name(cx, nm ? nm : pool ? pool : spec, &np, "pool name",
                     name);
    if (tree_int(rc, &v) < 0)
        v = 0;
    if (v <= 0)
        av_report(cx, rc ? rc : pool ? pool : spec, &rp, "resourceSliceCount "
                  "must be greater than zero");
    if (tree_int(gen, &v) == 0 && v < 0)
        av_report(cx, gen, &gp, "generation must not be negative");
}

static void check_slice(struct check_ctx *cx, const struct object *o)
{
    const struct tnode *spec = o->spec;
    const struct tnode *devs = tree_get(spec, "devices");
    const struct tnode *shared = tree_get(spec, "sharedCounters");
    const struct tnode *drv_n = tree_get(spec, "driver");
    const struct tnode *at = spec ? spec : o->kind_node;
    struct fpath sp = fp_child(NULL, "spec");
    struct fpath dp = fp_child(&sp, "driver");
    struct fpath vp = fp_child(&sp, "devices");
    struct fpath cp = fp_child(&sp, "sharedCounters");
    const char *drv;
    size_t i;

    drv = av_str(cx, drv_n, &dp, "driver");
    if (drv || !present(drv_n))
        av_driver_name(cx, drv_n ? drv_n : at, &dp, "driver", drv);
    check_pool(cx, spec, &sp);
    check_node_selection(cx, spec, &sp);
    if (present(devs) && present(shared))
        av_report(cx, shared, &sp, "a slice has either sharedCounters or "
                  "devices, not both");
    if (av_list(cx, devs, &vp, max_devices(o, devs), "devices")) {
        int per = tree_true(tree_get(spec, "perDeviceNodeSelection"));
        for (i = 0; i < devs->n; i++) {
            struct fpath ip = fp_index(&vp, i);
            check_device(cx, o, devs->kids[i], &ip, per);
        }
        av_unique(cx, devs, &vp, "name", "device");
    }
    check_counter_list(cx, shared, &cp, MAX_COUNTER_SETS, "name");
}

/* ==== DeviceTaintRule and ResourcePoolStatusRequest ===================== */

static void check_taint_rule(struct check_ctx *cx, const struct object *o)
{
    const struct tnode *sel = tree_get(o->spec, "deviceSelector");
    const struct tnode *taint = tree_get(o->spec, "taint");
    const struct tnode *d = tree_get(sel, "driver");
    const struct tnode *p = tree_get(sel, "pool");
    const struct tnode *v = tree_get(sel, "device");
    struct fpath spec = fp_child(NULL, "spec");
    struct fpath sp = fp_child(&spec, "deviceSelector");
    struct fpath dp = fp_child(&sp, "driver"), pp = fp_child(&sp, "pool");
    struct fpath vp = fp_child(&sp, "device");
    struct fpath tp = fp_child(&spec, "taint");
    struct fpath kp = fp_child(&tp, "key"), ep = fp_child(&tp, "effect");
    const char *s;

    if (present(sel) && av_is_map(cx, sel, &sp, "deviceSelector")) {
        s = av_str(cx, d, &dp, "driver");
        if (s)
            av_driver_name(cx, d, &dp, "driver", s);
        s = av_str(cx, p, &pp, "pool");
        if (s)
            av_pool_name(cx, p, &pp, "pool name", s);
        s = av_str(cx, v, &vp, "device");
        if (s)
            av_dns_label(cx, v, &vp, "device name", s);
    }
    /* the taint is a value in Go: an absent one is an empty taint */
    if (present(taint)) {
        av_device_taint(cx, taint, &tp);
    } else {
        const struct tnode *at = o->spec ? o->spec : o->kind_node;
        av_required(cx, at, &kp, "taint.key");
        av_required(cx, at, &ep, "taint.effect");
    }
}

static void check_pool_request(struct check_ctx *cx, const struct object *o)
{
    const struct tnode *d = tree_get(o->spec, "driver");
    const struct tnode *p = tree_get(o->spec, "poolName");
    const struct tnode *l = tree_get(o->spec, "limit");
    struct fpath spec = fp_child(NULL, "spec");
    struct fpath dp = fp_child(&spec, "driver");
    struct fpath pp = fp_child(&spec, "poolName");
    struct fpath lp = fp_child(&spec, "limit");
    const char *s;
    long long v;

    s = av_str(cx, d, &dp, "driver");
    if (s || !present(d))
        av_driver_name(cx, d ? d : o->spec ? o->spec : o->kind_node, &dp,
                       "driver", s);
    s = av_str(cx, p, &pp, "poolName");
    if (s && *s)
        av_pool_name(cx, p, &pp, "pool name", s);
    /* limit defaults to 100 when absent */
    if (present(l) && tree_int(l, &v) == 0 && (v < 1
                                               || v > POOL_REQUEST_LIMIT_MAX))
        av_report(cx, l, &lp, "limit %lld is out of range (1 to %d)", v,
                  POOL_REQUEST_LIMIT_MAX);
    else if (present(l) && l->kind != T_INT)
        av_report(cx, l, &lp, "limit must be an integer, not %s",
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
