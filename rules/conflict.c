/*
 * conflict.c - device plugins and DRA on the same hardware:
 * device-plugin-dra-conflict (one pod asks for a vendor's devices both as
 * an extended resource and through a DRA claim), node-double-managed (a
 * node advertises a device-plugin resource while a slice of the mapped
 * driver publishes devices on it) and extended-resource-mapping (two
 * DeviceClasses map one extendedResourceName, or nodes also advertise it
 * through a device plugin). The device-plugin <-> driver and DeviceClass
 * name <-> driver maps are data (validate/k8s/drivers.yaml) extended by the
 * config's drivers and devicePlugins, so a claim of class 'gpu.nvidia.com'
 * is judged without an inventory. When a driver cannot be determined the
 * rules stay silent: no finding beats a guess.
 */
#include <stdlib.h>
#include <string.h>

#include "../validate/arena.h"
#include "../validate/config.h"
#include "../validate/nodeaffinity.h"
#include "../validate/object.h"
#include "../validate/quantity.h"
#include "../validate/target.h"
#include "../validate/tree.h"
#include "checks.h"
#include "dra_util.h"
#include "../validate/k8s/drivers.h"
#include "rules.h"

#define IMPLICIT_PREFIX "deviceclass.resource.kubernetes.io/"

/* The DRA driver managing the same hardware as device-plugin resource res
 * (config entries first), or NULL; *what gets a hardware name. */
static const char *plugin_driver(const struct target *t, const char *res,
                                 const char **what)
{
    const struct plugin_map *m;
    size_t i;

    if (t->cfg)
        for (i = 0; i < t->cfg->nmaps; i++)
            if (t->cfg->maps[i].resource
                && plugin_pattern_match(t->cfg->maps[i].resource, res)) {
                *what = "devices";
                return t->cfg->maps[i].driver;
            }
    m = plugin_map_find(res);
    if (!m)
        return NULL;
    *what = m->hardware;
    return m->driver;
}

/* The driver a well-known DeviceClass name stands for when no class object
 * is at hand (config entries first), or NULL. */
static const char *named_class_driver(const struct target *t,
                                      const char *name)
{
    size_t i;

    if (t->cfg)
        for (i = 0; i < t->cfg->nmaps; i++)
            if (t->cfg->maps[i].class_name
                && !strcmp(t->cfg->maps[i].class_name, name))
                return t->cfg->maps[i].driver;
    return class_map_driver(name);
}

/* 1 if a resource quantity asks for something: "1", 2, "500m"; not 0. */
static int positive(const struct tnode *n)
{
    struct quantity q;

    return quantity_from_text(tree_text(n), &q) == 0 && quantity_sign(&q) > 0;
}

/* The driver of a DeviceClass: its selectors, else the device plugin its
 * extendedResourceName stands for. NULL if unknown. */
static const char *class_driver(struct check_ctx *cx, const struct object *c)
{
    const char *d, *what;

    if (!c || !c->cls)
        return NULL;
    d = selectors_driver(cx, c->cls->sel, c->cls->nsel);
    if (d || !c->cls->extended_resource)
        return d;
    return plugin_driver(cx_target(cx), c->cls->extended_resource, &what);
}

/* The driver of the class named name: its object when at hand, else the
 * well-known class names. */
static const char *named_driver(struct check_ctx *cx, const char *name)
{
    const struct object *c = cx_lookup(cx, K_CLASS, "", name);

    if (c)
        return class_driver(cx, c);
    return named_class_driver(cx_target(cx), name);
}

/* The driver a request pins, with a class's extendedResourceName as the
 * last resort. */
static const char *req_driver(struct check_ctx *cx, const struct devreq *r)
{
    const char *d = request_driver(cx, r);

    if (d || !r->class_name)
        return d;
    return named_driver(cx, r->class_name);
}

/* ==== device-plugin-dra-conflict ======================================== */

struct dra_use {
    const char *claim;          /* pod claim entry name */
    const char *source;         /* "ResourceClaimTemplate 'x'" */
    const char *request;        /* request name or NULL */
};

/* Finds a DRA claim of pod o whose devices come from driver; 1 if found. */
static int find_claim(struct check_ctx *cx, const struct object *o,
                      const char *driver, struct dra_use *u)
{
    const struct podspec *p = o->pod;
    size_t i, j, k;

    for (i = 0; i < p->nclaims; i++) {
        const struct podclaim *pc = &p->claims[i];
        const struct object *c = podclaim_target(cx, o, pc);
        if (!c || !c->claim)
            continue;
        for (j = 0; j < c->claim->nreqs; j++) {
            const struct devreq *r = &c->claim->reqs[j];
            const char *d = req_driver(cx, r);
            for (k = 0; !(d && !strcmp(d, driver)) && k < r->nsubs; k++)
                d = req_driver(cx, &r->subs[k]);
            if (!d || strcmp(d, driver))
                continue;
            u->claim = pc->name ? pc->name : "?";
            u->source = arena_printf(cx_arena(cx), "%s '%s'", c->kind_name,
                                     c->name);
            u->request = r->name;
            return 1;
        }
    }
    return 0;
}

/* Finds an implicit extended-resource request
 * (deviceclass.resource.kubernetes.io/<class>) of pod o served by a class
 * of driver; 1 if found. */
static int find_implicit(struct check_ctx *cx, const struct object *o,
                         const char *driver, struct dra_use *u)
{
    const struct podspec *p = o->pod;
    size_t i, j, l = strlen(IMPLICIT_PREFIX);

    for (i = 0; i < p->nctrs; i++) {
        const struct tnode *lists[2];
        size_t li;
        lists[0] = p->ctrs[i].limits;
        lists[1] = p->ctrs[i].requests;
        for (li = 0; li < 2; li++) {
            const struct tnode *m = lists[li];
            for (j = 0; tree_is_map(m) && j < m->n; j++) {
                const char *k = m->kids[j]->key;
                const char *d;
                if (strncmp(k, IMPLICIT_PREFIX, l) || !positive(m->kids[j]))
                    continue;
                d = named_driver(cx, k + l);
                if (!d || strcmp(d, driver))
                    continue;
                u->claim = NULL;
                u->source = arena_printf(cx_arena(cx), "'%s'", k);
                u->request = NULL;
                return 1;
            }
        }
    }
    return 0;
}

static void conflict_one(struct check_ctx *cx, const struct object *o,
                         const struct container *c, const struct tnode *q)
{
    const char *what, *driver;
    struct dra_use u;

    driver = plugin_driver(cx_target(cx), q->key, &what);
    if (!driver || !positive(q))
        return;
    if (find_claim(cx, o, driver, &u))
        report(cx, q, "container '%s' requests '%s' from a device plugin "
               "while claim '%s' (%s%s%s%s) gets %s from DRA driver '%s': "
               "on a node where both manage them one device can be handed "
               "out twice, or the pod never fits",
               c->name ? c->name : "?", q->key, u.claim, u.source,
               u.request ? ", request '" : "", u.request ? u.request : "",
               u.request ? "'" : "", what, driver);
    else if (find_implicit(cx, o, driver, &u))
        report(cx, q, "container '%s' requests '%s' from a device plugin "
               "while the pod also requests %s, which DRA driver '%s' "
               "serves: on a node where both manage the same %s one device "
               "can be handed out twice, or the pod never fits",
               c->name ? c->name : "?", q->key, u.source, driver, what);
}

void check_device_plugin_dra_conflict(struct check_ctx *cx,
                                      const struct object *o)
{
    const struct podspec *p = o->pod;
    size_t i, j;

    if (!p)
        return;
    for (i = 0; i < p->nctrs; i++) {
        const struct container *c = &p->ctrs[i];
        const struct tnode *lim = c->limits, *req = c->requests;
        for (j = 0; tree_is_map(lim) && j < lim->n; j++)
            conflict_one(cx, o, c, lim->kids[j]);
        for (j = 0; tree_is_map(req) && j < req->n; j++)
            if (!tree_get(lim, req->kids[j]->key))
                conflict_one(cx, o, c, req->kids[j]);
    }
}

/* ==== slices and nodes ================================================== */

/* 1 if a NodeSelector certainly selects the Node object node: it parses
 * (Kubernetes' allocator fails on one that does not) and matches. */
static int selector_selects(struct arena *a, const struct tnode *sel,
                            const struct object *node)
{
    struct nodesel ns;
    struct na_node n;

    n.name = node->name;
    n.labels = tree_get(node->metadata, "labels");
    n.labels_known = 1;
    return nodesel_compile(a, sel, &ns) == 0
           && nodesel_match(&ns, &n) == NA_YES;
}

/* Number of devices slice s publishes on node (0 if none or unknown). */
static size_t devices_on_node(struct arena *a, const struct object *s,
                              const struct object *node)
{
    const struct tnode *spec = s->spec;
    const struct tnode *devs = tree_get(spec, "devices");
    const char *nn = tree_str(tree_get(spec, "nodeName"));
    size_t i, n = 0;

    if (!tree_is_seq(devs) || !devs->n || !node->name || !*node->name)
        return 0;
    if (nn)
        return strcmp(nn, node->name) ? 0 : devs->n;
    if (tree_is_map(tree_get(spec, "nodeSelector")))
        return selector_selects(a, tree_get(spec, "nodeSelector"), node)
               ? devs->n : 0;
    if (!tree_true(tree_get(spec, "perDeviceNodeSelection")))
        return 0;
    for (i = 0; i < devs->n; i++) {
        const struct tnode *d = devs->kids[i];
        const struct tnode *b = tree_get(d, "basic");
        const char *dn = tree_str(tree_get(b ? b : d, "nodeName"));
        const struct tnode *ds = tree_get(b ? b : d, "nodeSelector");
        if ((dn && !strcmp(dn, node->name))
            || (tree_is_map(ds) && selector_selects(a, ds, node)))
            n++;
    }
    return n;
}

static const char *slice_driver(const struct object *s)
{
    return tree_str(tree_get(s->spec, "driver"));
}

/* The node's device-plugin quantity for res (allocatable first), or NULL
 * when it is absent or zero. */
static const struct tnode *advertised(const struct object *node,
                                      const char *res)
{
    const struct tnode *st = tree_get(node->root, "status");
    const struct tnode *q = tree_get(tree_get(st, "allocatable"), res);

    if (q && positive(q))
        return q;
    q = tree_get(tree_get(st, "capacity"), res);
    return q && positive(q) ? q : NULL;
}

struct node_scan {
    struct check_ctx *cx;
    const struct object *node;      /* fixed side */
    const struct object *slice;     /* fixed side */
    const char *driver;             /* wanted slice driver */
    const char *res;                /* wanted advertised resource */
    const struct object *hit;       /* found counterpart */
    size_t ndev;
};

static void scan_slice(void *arg, const struct object *s)
{
    struct node_scan *ns = arg;
    const char *d = slice_driver(s);
    size_t n;

    if (ns->hit || !d || strcmp(d, ns->driver)
        || !cx_inventory_object(ns->cx, s))
        return;
    n = devices_on_node(cx_arena(ns->cx), s, ns->node);
    if (n) {
        ns->hit = s;
        ns->ndev = n;
    }
}

static void check_node_plugins(struct check_ctx *cx, const struct object *o)
{
    const struct tnode *st = tree_get(o->root, "status");
    const char *lists[2] = {"allocatable", "capacity"};
    size_t li, i;

    for (li = 0; li < 2; li++) {
        const struct tnode *m = tree_get(st, lists[li]);
        for (i = 0; tree_is_map(m) && i < m->n; i++) {
            const struct tnode *q = m->kids[i];
            const char *what, *d;
            struct node_scan ns;
            if (li == 1 && tree_get(tree_get(st, "allocatable"), q->key))
                continue;   /* reported from allocatable */
            d = plugin_driver(cx_target(cx), q->key, &what);
            if (!d || !positive(q))
                continue;
            memset(&ns, 0, sizeof(ns));
            ns.cx = cx;
            ns.node = o;
            ns.driver = d;
            cx_each(cx, K_SLICE, scan_slice, &ns);
            if (!ns.hit)
                continue;
            if (!ns.hit->inventory)
                report_from_input(cx);
            report(cx, q, "node advertises '%s: %s' through a device plugin "
                   "while ResourceSlice '%s' of DRA driver '%s' publishes "
                   "%zu device%s on it: both manage the same %s and can hand "
                   "out one device twice (a node cannot have both, KEP 5004)",
                   q->key, tree_text(q), ns.hit->name, d, ns.ndev,
                   ns.ndev == 1 ? "" : "s", what);
        }
    }
}

/* Slices of the input against Nodes of the inventory only: a Node of the
 * input is reported on the Node itself. */
static void scan_node(void *arg, const struct object *node)
{
    struct node_scan *ns = arg;
    const struct tnode *st = tree_get(node->root, "status");
    const char *lists[2] = {"allocatable", "capacity"};
    size_t li, i, n;

    if (ns->hit || !node->inventory)
        return;
    n = devices_on_node(cx_arena(ns->cx), ns->slice, node);
    if (!n)
        return;
    for (li = 0; li < 2; li++) {
        const struct tnode *m = tree_get(st, lists[li]);
        for (i = 0; tree_is_map(m) && i < m->n; i++) {
            const char *what, *d;
            d = plugin_driver(cx_target(ns->cx), m->kids[i]->key, &what);
            if (!d || strcmp(d, ns->driver) || !positive(m->kids[i]))
                continue;
            ns->hit = node;
            ns->res = m->kids[i]->key;
            ns->ndev = n;
            return;
        }
    }
}

static void check_slice_nodes(struct check_ctx *cx, const struct object *o)
{
    const struct tnode *dn = tree_get(o->spec, "driver");
    struct node_scan ns;
    const char *what = "devices";
    size_t i;

    memset(&ns, 0, sizeof(ns));
    ns.cx = cx;
    ns.slice = o;
    ns.driver = tree_str(dn);
    if (!ns.driver || !cx_inventory_has(cx, K_NODE))
        return;
    cx_each(cx, K_NODE, scan_node, &ns);
    if (!ns.hit)
        return;
    for (i = 0; i < plugin_map_count; i++)
        if (!strcmp(plugin_maps[i].driver, ns.driver)
            && plugin_pattern_match(plugin_maps[i].resource, ns.res))
            what = plugin_maps[i].hardware;
    report(cx, dn, "the slice publishes %zu device%s of DRA driver '%s' on "
           "node '%s', which advertises '%s' through a device plugin: both "
           "manage the same %s and can hand out one device twice (a node "
           "cannot have both, KEP 5004)", ns.ndev, ns.ndev == 1 ? "" : "s",
           ns.driver, ns.hit->name, ns.res, what);
}


void check_node_double_managed(struct check_ctx *cx, const struct object *o)
{
    if (o->kind == K_NODE)
        check_node_plugins(cx, o);
    else if (o->kind == K_SLICE)
        check_slice_nodes(cx, o);
}

/* ==== extended-resource-mapping ========================================= */

struct class_scan {
    struct check_ctx *cx;
    const struct object *cls;
    const char *name;               /* the extended resource */
};

static const char *created(const struct object *c)
{
    return tree_str(tree_get(c->metadata, "creationTimestamp"));
}

static void scan_class(void *arg, const struct object *other)
{
    struct class_scan *cs = arg;
    const struct object *o = cs->cls;
    const char *x = other->cls ? other->cls->extended_resource : NULL;
    const char *t1 = created(o), *t2 = created(other);
    int c;

    if (!x || strcmp(x, cs->name) || !strcmp(other->name, o->name))
        return;
    if (!t1 || !t2) {
        report(cs->cx, o->cls->extended_node, "DeviceClass '%s' also maps "
               "extendedResourceName '%s': the class created later wins, "
               "and without creationTimestamp which of '%s' and '%s' serves "
               "it cannot be determined", other->name, x, o->name,
               other->name);
        return;
    }
    c = strcmp(t1, t2);
    if (c == 0)
        c = strcmp(other->name, o->name);   /* the first name wins a tie */
    if (c > 0)
        report(cs->cx, o->cls->extended_node, "DeviceClass '%s' also maps "
               "extendedResourceName '%s'; this class wins (%s): '%s' "
               "silently serves no request for it", other->name, x,
               strcmp(t1, t2) ? "created later" : "same creation time, "
               "first name", other->name);
    else
        report(cs->cx, o->cls->extended_node, "DeviceClass '%s' also maps "
               "extendedResourceName '%s' and wins (%s): this class "
               "silently serves no request for it", other->name, x,
               strcmp(t1, t2) ? "created later" : "same creation time, "
               "first name");
}

struct plugin_scan {
    struct check_ctx *cx;
    const char *res, *driver;
    const struct object *node, *slice;
};

static void scan_plugin_slice(void *arg, const struct object *s)
{
    struct plugin_scan *ps = arg;
    const char *d = slice_driver(s);

    if (!ps->slice && d && !strcmp(d, ps->driver)
        && cx_inventory_object(ps->cx, s)
        && devices_on_node(cx_arena(ps->cx), s, ps->node))
        ps->slice = s;
}

static void scan_plugin_node(void *arg, const struct object *node)
{
    struct plugin_scan *ps = arg;

    if (ps->slice || !advertised(node, ps->res)
        || !cx_inventory_object(ps->cx, node))
        return;
    ps->node = node;
    cx_each(ps->cx, K_SLICE, scan_plugin_slice, ps);
    if (!ps->slice)
        ps->node = NULL;
}

void check_extended_resource_mapping(struct check_ctx *cx,
                                     const struct object *o)
{
    struct class_scan cs;
    struct plugin_scan ps;

    if (!o->cls || !o->cls->extended_resource
        || !target_gate_on(cx_target(cx), "DRAExtendedResource"))
        return;
    cs.cx = cx;
    cs.cls = o;
    cs.name = o->cls->extended_resource;
    cx_each(cx, K_CLASS, scan_class, &cs);

    memset(&ps, 0, sizeof(ps));
    ps.cx = cx;
    ps.res = o->cls->extended_resource;
    ps.driver = selectors_driver(cx, o->cls->sel, o->cls->nsel);
    if (!ps.driver)
        return;
    cx_each(cx, K_NODE, scan_plugin_node, &ps);
    if (!ps.slice)
        return;
    if (!ps.node->inventory || !ps.slice->inventory)
        report_from_input(cx);
    report(cx, o->cls->extended_node, "node '%s' also advertises '%s' "
           "through a device plugin while ResourceSlice '%s' publishes "
           "devices of this class (driver '%s') on it: which of the two "
           "serves a request for '%s' is ambiguous", ps.node->name, ps.res,
           ps.slice->name, ps.driver, ps.res);
}
