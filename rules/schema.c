/*
 * schema.c - rules for structure the apiserver rejects anyway:
 * claim-schema (ResourceClaim, ResourceClaimTemplate, DeviceClass) and
 * extended-resource-limits (containers). Limits and formats follow the
 * resource.k8s.io validation code (reference: dra-api.md §3).
 */
#include <stdlib.h>
#include <string.h>

#include "../validate/names.h"
#include "../validate/object.h"
#include "../validate/quantity.h"
#include "../validate/tree.h"
#include "checks.h"
#include "rules.h"

#define MAX_REQUESTS 32
#define MAX_SUBREQUESTS 8
#define MAX_SELECTORS 32
#define MAX_CONSTRAINTS 32
#define MAX_CONFIG 32
#define MAX_TOLERATIONS 16

/* ==== claim-schema ====================================================== */

static int wrong_type(struct check_ctx *cx, const struct tnode *n,
                      enum tkind want, const char *what)
{
    if (!n || n->kind == want || n->kind == T_NULL)
        return 0;
    report(cx, n, "%s must be a %s, not %s", what,
           want == T_SEQ ? "list" : want == T_MAP ? "mapping" : "string",
           tree_kind_desc(n));
    return 1;
}

static void check_selectors(struct check_ctx *cx, const struct tnode *list,
                            const char *owner)
{
    size_t i;

    if (wrong_type(cx, list, T_SEQ, "selectors") || !tree_is_seq(list))
        return;
    if (list->n > MAX_SELECTORS)
        report(cx, list, "%s has %zu selectors; at most %d are allowed",
               owner, (size_t)list->n, MAX_SELECTORS);
    for (i = 0; i < list->n; i++) {
        const struct tnode *s = list->kids[i];
        const struct tnode *cel = tree_get(s, "cel");
        const struct tnode *x = tree_get(cel, "expression");
        if (!tree_is_map(s)) {
            report(cx, s, "a selector must be a mapping with 'cel', not %s",
                   tree_kind_desc(s));
        } else if (!cel || cel->kind == T_NULL) {
            report(cx, cel ? cel : s, "selector has no 'cel' with an "
                   "expression%s", tree_get(s, "expression")
                   ? " ('expression' is indented at the level of 'cel')"
                   : "");
        } else if (!tree_is_map(cel)) {
            report(cx, cel, "'cel' must be a mapping with 'expression', not "
                   "%s", tree_kind_desc(cel));
        } else if (!x) {
            report(cx, cel, "'cel' has no 'expression'");
        } else if (!tree_str(x)) {
            report(cx, x, "'expression' must be a string, not %s",
                   tree_kind_desc(x));
        } else if (!*x->str) {
            report(cx, x, "'expression' is empty");
        }
    }
}

static void check_tolerations(struct check_ctx *cx, const struct tnode *t)
{
    size_t i;

    if (wrong_type(cx, t, T_SEQ, "tolerations") || !tree_is_seq(t))
        return;
    if (t->n > MAX_TOLERATIONS)
        report(cx, t, "%zu tolerations; at most %d are allowed", (size_t)t->n,
               MAX_TOLERATIONS);
    for (i = 0; i < t->n; i++) {
        const struct tnode *e = t->kids[i];
        const char *op = tree_str(tree_get(e, "operator"));
        const char *key = tree_str(tree_get(e, "key"));
        const char *eff = tree_str(tree_get(e, "effect"));
        if (op && strcmp(op, "Exists") && strcmp(op, "Equal"))
            report(cx, tree_get(e, "operator"), "toleration operator '%s' "
                   "is not supported (Exists or Equal)", op);
        if ((!key || !*key) && (!op || strcmp(op, "Exists")))
            report(cx, e, "a toleration without a key needs operator: "
                   "Exists");
        if (op && !strcmp(op, "Exists") && tree_str(tree_get(e, "value"))
            && *tree_str(tree_get(e, "value")))
            report(cx, tree_get(e, "value"), "a toleration with operator "
                   "Exists must not have a value");
        if (eff && *eff && strcmp(eff, "NoSchedule")
            && strcmp(eff, "NoExecute"))
            report(cx, tree_get(e, "effect"), "toleration effect '%s' is "
                   "not supported (NoSchedule or NoExecute)", eff);
    }
}

/* Checks the exact-request fields of r (v1 `exactly`, v1beta1 request,
 * or a sub-request). */
static void check_exact(struct check_ctx *cx, const struct devreq *r,
                        const char *what)
{
    const char *mode = r->mode;

    if (!r->fields)
        return;
    if (!r->class_node || r->class_node->kind == T_NULL) {
        report(cx, r->fields, "request '%s' has no deviceClassName", what);
    } else if (!r->class_name) {
        report(cx, r->class_node, "deviceClassName must be a string, not "
               "%s", tree_kind_desc(r->class_node));
    } else if (!name_is_dns_subdomain(r->class_name)) {
        report(cx, r->class_node, "deviceClassName '%s' is not a valid "
               "DeviceClass name (lowercase DNS subdomain)", r->class_name);
    }
    check_selectors(cx, r->selectors_node, what);
    if (r->mode_node && r->mode_node->kind != T_NULL && !mode) {
        report(cx, r->mode_node, "allocationMode must be a string");
    } else if (mode && strcmp(mode, "ExactCount") && strcmp(mode, "All")) {
        report(cx, r->mode_node, "allocationMode '%s' is not supported "
               "(ExactCount or All)", mode);
        mode = NULL;
    }
    if (r->count_node && r->count_node->kind != T_NULL) {
        long long v;
        if (tree_int(r->count_node, &v) < 0) {
            /* no integer (2.0 is one: kubectl sends it as 2): input-object
             * says so in the apiserver's words */
        } else if (mode && !strcmp(mode, "All")) {
            if (r->count != 0)
                report(cx, r->count_node, "count must not be set with "
                       "allocationMode: All");
        } else if (r->count < 1) {
            report(cx, r->count_node, "count must be at least 1 with "
                   "allocationMode: ExactCount, not %lld", r->count);
        }
    }
    check_tolerations(cx, r->tolerations);
    wrong_type(cx, r->capacity, T_MAP, "capacity");
}

/* Flat (v1alpha3/v1beta1) fields that must not sit beside firstAvailable */
static const char *const exact_fields[] = {
    "deviceClassName", "selectors", "allocationMode", "count", "adminAccess",
    "tolerations", "capacity", NULL
};

static void check_request(struct check_ctx *cx, const struct claimspec *c,
                          const struct devreq *r)
{
    const char *what = r->name ? r->name : "request";
    size_t i, j;

    if (!tree_is_map(r->node)) {
        report(cx, r->node, "a request must be a mapping, not %s",
               tree_kind_desc(r->node));
        return;
    }
    if (!r->name_node || r->name_node->kind == T_NULL)
        report(cx, r->node, "request has no name");
    else if (!r->name)
        report(cx, r->name_node, "request name must be a string");
    else if (!name_is_dns_label(r->name))
        report(cx, r->name_node, "request name '%s' is not a DNS label "
               "(lowercase letters, digits and '-', at most 63)", r->name);
    if (c->shape == DRA_EXACTLY) {
        const struct tnode *ex = tree_get(r->node, "exactly");
        int has_ex = ex && ex->kind != T_NULL;
        int has_fa = r->first_available && r->first_available->kind != T_NULL;
        if (has_ex && has_fa)
            report(cx, r->first_available, "request '%s' sets both exactly "
                   "and firstAvailable; exactly one is allowed", what);
        else if (!has_ex && !has_fa)
            report(cx, r->node, "request '%s' needs exactly one of exactly "
                   "and firstAvailable%s", what,
                   tree_get(r->node, "deviceClassName")
                   ? " (deviceClassName belongs under exactly in this "
                     "apiVersion)" : "");
        if (has_ex && !tree_is_map(ex))
            report(cx, ex, "exactly must be a mapping, not %s",
                   tree_kind_desc(ex));
        if (has_ex)
            check_exact(cx, r, what);
    } else if (r->first_available && r->first_available->kind != T_NULL) {
        for (i = 0; exact_fields[i]; i++) {
            const struct tnode *f = tree_get(r->node, exact_fields[i]);
            if (f)
                report(cx, f, "request '%s' has firstAvailable, so %s must "
                       "not be set", what, exact_fields[i]);
        }
    } else {
        check_exact(cx, r, what);
    }
    if (r->first_available && r->first_available->kind != T_NULL) {
        const struct tnode *fa = r->first_available;
        if (wrong_type(cx, fa, T_SEQ, "firstAvailable"))
            return;
        if (fa->n == 0)
            report(cx, fa, "firstAvailable of request '%s' is empty", what);
        if (fa->n > MAX_SUBREQUESTS)
            report(cx, fa, "request '%s' has %zu firstAvailable entries; at "
                   "most %d are allowed", what, (size_t)fa->n, MAX_SUBREQUESTS);
        for (i = 0; i < r->nsubs; i++) {
            const struct devreq *s = &r->subs[i];
            if (!tree_is_map(s->node)) {
                report(cx, s->node, "a firstAvailable entry must be a "
                       "mapping, not %s", tree_kind_desc(s->node));
                continue;
            }
            if (!s->name)
                report(cx, s->name_node ? s->name_node : s->node,
                       "firstAvailable entry has no name");
            else if (!name_is_dns_label(s->name))
                report(cx, s->name_node, "sub-request name '%s' is not a "
                       "DNS label", s->name);
            else
                for (j = 0; j < i; j++)
                    if (r->subs[j].name && !strcmp(r->subs[j].name, s->name))
                        report(cx, s->name_node, "sub-request name '%s' is "
                               "used twice in request '%s'", s->name, what);
            if (tree_get(s->node, "adminAccess"))
                report(cx, tree_get(s->node, "adminAccess"), "adminAccess "
                       "is not a field of firstAvailable entries");
            check_exact(cx, s, s->name ? s->name : "sub-request");
        }
    }
}

static void check_refs(struct check_ctx *cx, const struct claimspec *c,
                       const struct tnode *reqs, const char *what)
{
    size_t i, j;

    if (!reqs || reqs->kind == T_NULL)
        return;
    if (wrong_type(cx, reqs, T_SEQ, "requests"))
        return;
    for (i = 0; i < reqs->n; i++) {
        const char *ref = tree_str(reqs->kids[i]);
        if (!ref) {
            report(cx, reqs->kids[i], "a %s request reference must be a "
                   "string", what);
            continue;
        }
        if (!claimspec_has_request(c, ref))
            report(cx, reqs->kids[i], "%s names request '%s', which the "
                   "claim does not define", what, ref);
        for (j = 0; j < i; j++)
            if (tree_str(reqs->kids[j]) && !strcmp(reqs->kids[j]->str, ref))
                report(cx, reqs->kids[i], "%s lists request '%s' twice",
                       what, ref);
    }
}

static void check_attr_name(struct check_ctx *cx, const struct tnode *n,
                            const char *field)
{
    const char *s = tree_str(n);

    if (!s)
        report(cx, n, "%s must be a string, not %s", field,
               tree_kind_desc(n));
    else if (!name_is_fully_qualified(s))
        report(cx, n, "%s '%s' is not a fully qualified name "
               "(<domain>/<attribute>, e.g. gpu.example.com/pcieRoot)",
               field, s);
}

static void check_constraints(struct check_ctx *cx, const struct claimspec *c)
{
    const struct tnode *cs = c->constraints;
    size_t i;

    if (!cs || wrong_type(cx, cs, T_SEQ, "constraints") || !tree_is_seq(cs))
        return;
    if (cs->n > MAX_CONSTRAINTS)
        report(cx, cs, "%zu constraints; at most %d are allowed", (size_t)cs->n,
               MAX_CONSTRAINTS);
    for (i = 0; i < cs->n; i++) {
        const struct tnode *e = cs->kids[i];
        const struct tnode *ma = tree_get(e, "matchAttribute");
        const struct tnode *da = tree_get(e, "distinctAttribute");
        if (!tree_is_map(e)) {
            report(cx, e, "a constraint must be a mapping, not %s",
                   tree_kind_desc(e));
            continue;
        }
        check_refs(cx, c, tree_get(e, "requests"), "constraint");
        if (ma && da)
            report(cx, da, "a constraint sets both matchAttribute and "
                   "distinctAttribute; exactly one is allowed");
        else if (!ma && !da)
            report(cx, e, "a constraint needs matchAttribute or "
                   "distinctAttribute");
        if (ma)
            check_attr_name(cx, ma, "matchAttribute");
        if (da)
            check_attr_name(cx, da, "distinctAttribute");
    }
}

static void check_config(struct check_ctx *cx, const struct claimspec *c,
                         const struct tnode *cfg)
{
    size_t i;

    if (!cfg || wrong_type(cx, cfg, T_SEQ, "config") || !tree_is_seq(cfg))
        return;
    if (cfg->n > MAX_CONFIG)
        report(cx, cfg, "%zu config entries; at most %d are allowed",
               (size_t)cfg->n, MAX_CONFIG);
    for (i = 0; i < cfg->n; i++) {
        const struct tnode *e = cfg->kids[i];
        const struct tnode *op = tree_get(e, "opaque");
        const char *drv = tree_str(tree_get(op, "driver"));
        if (!tree_is_map(e)) {
            report(cx, e, "a config entry must be a mapping, not %s",
                   tree_kind_desc(e));
            continue;
        }
        if (c)
            check_refs(cx, c, tree_get(e, "requests"), "config");
        if (!op || op->kind == T_NULL) {
            report(cx, e, "a config entry needs 'opaque' (the only "
                   "configuration type)");
            continue;
        }
        if (!tree_is_map(op)) {
            report(cx, op, "opaque must be a mapping, not %s",
                   tree_kind_desc(op));
            continue;
        }
        if (!drv)
            report(cx, tree_get(op, "driver") ? tree_get(op, "driver") : op,
                   "opaque config needs a driver name");
        else if (!name_is_dns_subdomain(drv) || strlen(drv) > 63)
            report(cx, tree_get(op, "driver"), "driver '%s' is not a valid "
                   "driver name (lowercase DNS subdomain, at most 63)", drv);
        if (!tree_get(op, "parameters"))
            report(cx, op, "opaque config needs parameters");
    }
}

static void check_claimspec(struct check_ctx *cx, const struct object *o)
{
    const struct claimspec *c = o->claim;
    size_t i, j;

    if (!c->spec) {
        report(cx, o->kind == K_TEMPLATE && o->spec
               ? tree_get(o->spec, "spec") : o->spec,
               "%s has no spec", o->kind_name);
        return;
    }
    if (o->kind == K_TEMPLATE) {
        const struct tnode *m = tree_get(o->spec, "metadata");
        for (i = 0; tree_is_map(m) && i < m->n; i++)
            if (strcmp(m->kids[i]->key, "labels")
                && strcmp(m->kids[i]->key, "annotations"))
                report(cx, m->kids[i], "spec.metadata may only set labels "
                       "and annotations, not '%s'", m->kids[i]->key);
    }
    if (c->devices && wrong_type(cx, c->devices, T_MAP, "devices"))
        return;
    if (c->requests_node && wrong_type(cx, c->requests_node, T_SEQ,
                                       "requests"))
        return;
    if (tree_is_seq(c->requests_node) && c->nreqs > MAX_REQUESTS)
        report(cx, c->requests_node, "%zu requests; at most %d are allowed",
               c->nreqs, MAX_REQUESTS);
    for (i = 0; i < c->nreqs; i++) {
        check_request(cx, c, &c->reqs[i]);
        for (j = 0; j < i; j++)
            if (c->reqs[i].name && c->reqs[j].name
                && !strcmp(c->reqs[i].name, c->reqs[j].name))
                report(cx, c->reqs[i].name_node, "request name '%s' is used "
                       "twice", c->reqs[i].name);
    }
    check_constraints(cx, c);
    check_config(cx, c, c->config);
}

void check_claim_schema(struct check_ctx *cx, const struct object *o)
{
    /* classic DRA (v1alpha1/v1alpha2) had other shapes: api-version-*
     * rules report those versions, the schema here does not apply */
    if (strcmp(o->version, "v1alpha3") && strcmp(o->version, "v1beta1")
        && strcmp(o->version, "v1beta2") && strcmp(o->version, "v1"))
        return;
    if (o->claim) {
        check_claimspec(cx, o);
        return;
    }
    if (!o->cls)
        return;
    if (!o->cls->spec) {
        if (!o->spec)
            report(cx, NULL, "DeviceClass has no spec");
        return;
    }
    check_selectors(cx, o->cls->selectors_node, "DeviceClass");
    check_config(cx, NULL, tree_get(o->cls->spec, "config"));
    if (o->cls->extended_node && !o->cls->extended_resource)
        report(cx, o->cls->extended_node, "extendedResourceName must be a "
               "string");
    else if (o->cls->extended_resource
             && !name_is_extended_resource(o->cls->extended_resource))
        report(cx, o->cls->extended_node, "extendedResourceName '%s' is not "
               "an extended resource name (<domain>/<name>, not in the "
               "kubernetes.io domain)", o->cls->extended_resource);
}

/* ==== extended-resource-limits ========================================== */

static void check_ext_list(struct check_ctx *cx, const struct tnode *list,
                           const struct tnode *other, int is_requests)
{
    size_t i;

    if (!tree_is_map(list))
        return;
    for (i = 0; i < list->n; i++) {
        const struct tnode *v = list->kids[i];
        const char *text = tree_text(v);
        struct quantity q, q2;
        const struct tnode *o;
        if (!name_is_extended_resource(v->key))
            continue;
        if (quantity_from_text(text, &q) < 0) {
            report(cx, v, "'%s' is not a valid quantity", v->key);
            continue;
        }
        /* Kubernetes: an integer resource's MilliValue() % 1000 == 0 */
        if (!quantity_is_whole(&q)) {
            report(cx, v, "extended resource '%s' must be a whole number, "
                   "not %s", v->key, text);
            continue;
        }
        if (!is_requests)
            continue;
        o = tree_get(other, v->key);
        if (!o) {
            report(cx, v, "extended resource '%s' is requested without a "
                   "limit; extended resources need limits", v->key);
            continue;
        }
        if (quantity_from_text(tree_text(o), &q2) == 0
            && quantity_cmp(&q2, &q) != 0)
            report(cx, v, "extended resource '%s' requests %s but limits "
                   "%s; they must be equal", v->key, text, tree_text(o));
    }
}

void check_extended_resource_limits(struct check_ctx *cx,
                                    const struct object *o)
{
    size_t i;

    for (i = 0; i < o->pod->nctrs; i++) {
        const struct container *c = &o->pod->ctrs[i];
        check_ext_list(cx, c->requests, c->limits, 1);
        check_ext_list(cx, c->limits, c->requests, 0);
    }
}
