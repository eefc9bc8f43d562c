/*
 * schema_claim.c - claim-schema: the apiserver's validation of
 * ResourceClaim, ResourceClaimTemplate and DeviceClass specs, as
 * pkg/apis/resource/validation/validation.go does it on the defaulted
 * internal object (validateDeviceClaim, validateDeviceRequest,
 * validateExactDeviceRequest, validateDeviceSubRequest,
 * validateDeviceConstraint, validateDeviceClaimConfiguration,
 * validateDeviceClassSpec). Paths are the internal type's, so a v1beta1
 * flat request field is reported on "...requests[i].exactly.<field>" as
 * the apiserver prints it. Lists over their limit get one finding and no
 * item checks. CEL compilation is selector-invalid's (selectors.c);
 * object metadata is object-metadata's (metadata.c).
 */
#include <string.h>

#include "../validate/names.h"
#include "../validate/object.h"
#include "../validate/target.h"
#include "../validate/tree.h"
#include "apival.h"
#include "checks.h"
#include "rules.h"

#define MAX_REQUESTS 32         /* DeviceRequestsMaxSize */
#define MAX_SUBREQUESTS 8       /* FirstAvailableDeviceRequestMaxSize */
#define MAX_SELECTORS 32        /* DeviceSelectorsMaxSize */
#define MAX_CONSTRAINTS 32      /* DeviceConstraintsMaxSize */
#define MAX_CONFIG 32           /* DeviceConfigMaxSize */
#define MAX_PARAMETERS 10240    /* OpaqueParametersMaxLength */

/* v1alpha3/v1beta1 fields a flat request holds for `exactly` */
static const char *const flat_fields[] = {
    "deviceClassName", "selectors", "allocationMode", "count", "adminAccess",
    "tolerations", "capacity", NULL
};

/* ==== selectors ========================================================= */

static void check_selectors(struct check_ctx *cx, const struct tnode *list,
                            const struct fpath *path)
{
    size_t i;

    if (!av_list(cx, list, path, MAX_SELECTORS, "selectors"))
        return;
    for (i = 0; i < list->n; i++) {
        const struct tnode *s = list->kids[i];
        struct fpath p = fp_index(path, i);
        const struct tnode *cel = tree_get(s, "cel");
        const struct tnode *x = tree_get(cel, "expression");
        struct fpath cp = fp_child(&p, "cel");
        struct fpath xp = fp_child(&cp, "expression");
        if (!tree_is_map(s)) {
            av_report(cx, s, &p, "a selector must be a mapping with 'cel', "
                      "not %s", tree_kind_desc(s));
        } else if (!cel || cel->kind == T_NULL) {
            av_report(cx, cel ? cel : s, &cp, "selector has no 'cel' with "
                      "an expression%s", tree_get(s, "expression")
                      ? " ('expression' is indented at the level of 'cel')"
                      : "");
        } else if (!tree_is_map(cel)) {
            av_report(cx, cel, &cp, "'cel' must be a mapping with "
                      "'expression', not %s", tree_kind_desc(cel));
        } else if (!x) {
            av_report(cx, cel, &xp, "'cel' has no 'expression'");
        } else if (!tree_str(x)) {
            av_report(cx, x, &xp, "'expression' must be a string, not %s",
                      tree_kind_desc(x));
        } else if (!*x->str) {
            av_report(cx, x, &xp, "'expression' is empty");
        }
    }
}

/* ==== requests ========================================================== */

/* validateDeviceAllocationMode on the defaulted mode and count */
static void check_mode_count(struct check_ctx *cx, const struct devreq *r,
                             const struct fpath *path)
{
    struct fpath mp = fp_child(path, "allocationMode");
    struct fpath cp = fp_child(path, "count");
    const struct tnode *at = r->mode_node ? r->mode_node : r->fields;

    long long v;

    /* a count or mode of the wrong type is input-object's (2.0 is an
     * integer: kubectl sends it as 2) */
    if ((r->count_node && r->count_node->kind != T_NULL
         && tree_int(r->count_node, &v) < 0)
        || (r->mode_node && r->mode_node->kind != T_NULL
            && !tree_str(r->mode_node)))
        return;
    if (r->mode && !strcmp(r->mode, "All")) {
        if (r->count != 0)
            av_report(cx, r->count_node, &cp, "count must not be set with "
                      "allocationMode: All");
    } else if (r->mode && !strcmp(r->mode, "ExactCount")) {
        if (r->count <= 0)
            av_report(cx, r->count_node, &cp, "count must be greater than "
                      "zero with allocationMode: ExactCount, not %lld",
                      r->count);
    } else if (!r->mode || !*r->mode) {
        /* v1alpha3/v1beta1 default it only for a request with a class */
        av_report(cx, at, &mp, "allocationMode is not set, and is not "
                  "defaulted for a request without deviceClassName "
                  "(ExactCount or All)");
    } else {
        av_report(cx, at, &mp, "allocationMode %s is not supported "
                  "(ExactCount or All)", av_show(cx, r->mode));
    }
}

/* The fields ExactDeviceRequest and DeviceSubRequest share. */
static void check_exact(struct check_ctx *cx, const struct devreq *r,
                        const struct fpath *path)
{
    struct fpath cp = fp_child(path, "deviceClassName");
    struct fpath tp = fp_child(path, "tolerations");
    struct fpath sp = fp_child(path, "selectors");
    struct fpath kp = fp_child(path, "capacity");
    const char *cls;
    size_t i;

    cls = av_str(cx, r->class_node, &cp, "deviceClassName");
    if (cls && *cls)
        av_dns_subdomain(cx, r->class_node, &cp, "deviceClassName", cls);
    else if (!r->class_node || r->class_node->kind == T_NULL || cls)
        av_report(cx, r->class_node ? r->class_node : r->fields, &cp,
                  "request '%s' has no deviceClassName",
                  r->name ? r->name : "");
    check_selectors(cx, r->selectors_node, &sp);
    check_mode_count(cx, r, path);
    if (av_list(cx, r->tolerations, &tp, -1, "tolerations"))
        for (i = 0; i < r->ntols; i++) {
            struct fpath ip = fp_index(&tp, i);
            av_device_toleration(cx, &r->tols[i], &ip);
        }
    av_is_map(cx, r->capacity, &kp, "capacity");
}

/* Duplicate names among the items of list (requests, firstAvailable):
 * reported on the item, as validateSet does. */
static void check_unique_names(struct check_ctx *cx, const struct devreq *v,
                               size_t n, const struct fpath *path,
                               const char *what)
{
    size_t i, j;

    for (i = 1; i < n; i++)
        for (j = 0; j < i; j++)
            if (!strcmp(v[i].name ? v[i].name : "", v[j].name ? v[j].name
                                                              : "")) {
                struct fpath ip = fp_index(path, i);
                av_report(cx, v[i].name_node ? v[i].name_node : v[i].node,
                          &ip, "%s name %s is used twice", what,
                          av_show(cx, v[i].name ? v[i].name : ""));
                break;
            }
}

static void check_name(struct check_ctx *cx, const struct devreq *r,
                       const struct fpath *path)
{
    struct fpath np = fp_child(path, "name");
    const char *s = av_str(cx, r->name_node, &np, "name");

    if (s && *s)
        av_dns_label(cx, r->name_node, &np, "request name", s);
    else if (!r->name_node || r->name_node->kind == T_NULL || s)
        av_report(cx, r->name_node ? r->name_node : r->node, &np,
                  "request has no name");
}

/* 1 if a flat (v1alpha3/v1beta1) request sets any field of `exactly`
 * (hasAnyMainRequestFieldsSet: then the conversion makes one) */
static int flat_has_exact(const struct tnode *n)
{
    size_t i;

    for (i = 0; flat_fields[i]; i++) {
        const struct tnode *f = tree_get(n, flat_fields[i]);
        if (!f || f->kind == T_NULL)
            continue;
        if ((f->kind == T_STR && !*f->str)
            || (f->kind == T_INT && f->ival == 0)
            || (f->kind == T_SEQ && !f->n))
            continue;
        return 1;
    }
    return 0;
}

static void check_request(struct check_ctx *cx, const struct claimspec *c,
                          const struct devreq *r, const struct fpath *path)
{
    const struct tnode *fa = r->first_available;
    struct fpath fp = fp_child(path, "firstAvailable");
    struct fpath ep = fp_child(path, "exactly");
    int has_fa, has_ex;
    size_t i;

    if (!tree_is_map(r->node)) {
        av_report(cx, r->node, path, "a request must be a mapping, not %s",
                  tree_kind_desc(r->node));
        return;
    }
    check_name(cx, r, path);
    if (fa && fa->kind != T_NULL && fa->kind != T_SEQ) {
        av_report(cx, fa, &fp, "'firstAvailable' must be a list, not %s",
                  tree_kind_desc(fa));
        return;
    }
    has_fa = tree_is_seq(fa) && fa->n > 0;
    if (c->shape == DRA_EXACTLY) {
        const struct tnode *ex = tree_get(r->node, "exactly");
        has_ex = ex && ex->kind != T_NULL;
        if (has_ex && !tree_is_map(ex)) {
            av_report(cx, ex, &ep, "'exactly' "
                      "must be a mapping, not %s", tree_kind_desc(ex));
            return;
        }
    } else {
        has_ex = flat_has_exact(r->node);
    }
    if (!has_fa && !has_ex && c->shape == DRA_FLAT) {
        av_report(cx, r->node, path, "request '%s' sets neither "
                  "deviceClassName (with the other fields of an exact "
                  "request) nor firstAvailable", r->name ? r->name : "");
        return;
    }
    if (!has_fa && !has_ex) {
        av_report(cx, r->node, path, "request '%s' needs exactly one of "
                  "exactly and firstAvailable%s", r->name ? r->name : "",
                  tree_get(r->node, "deviceClassName")
                  ? " (deviceClassName belongs under exactly in this "
                  "apiVersion)" : "");
        return;
    }
    if (has_fa && has_ex) {
        av_report(cx, c->shape == DRA_EXACTLY ? tree_get(r->node, "exactly")
                  : fa, path, "request '%s' sets both %s and "
                  "firstAvailable; exactly one is allowed",
                  r->name ? r->name : "", c->shape == DRA_EXACTLY
                  ? "exactly" : "exact-request fields");
        return;
    }
    if (has_ex) {
        check_exact(cx, r, &ep);
        return;
    }
    if (!av_list(cx, fa, &fp, MAX_SUBREQUESTS, "firstAvailable"))
        return;
    for (i = 0; i < r->nsubs; i++) {
        const struct devreq *s = &r->subs[i];
        struct fpath sp = fp_index(&fp, i);
        struct fpath ap = fp_child(&sp, "adminAccess");
        if (!tree_is_map(s->node)) {
            av_report(cx, s->node, &sp, "a firstAvailable entry must be a "
                      "mapping, not %s", tree_kind_desc(s->node));
            continue;
        }
        check_name(cx, s, &sp);
        if (tree_get(s->node, "adminAccess"))
            av_report(cx, tree_get(s->node, "adminAccess"), &ap,
                      "adminAccess is not a field of firstAvailable "
                      "entries");
        check_exact(cx, s, &sp);
    }
    check_unique_names(cx, r->subs, r->nsubs, &fp, "subrequest");
}

/* ==== constraints and config ============================================ */

/* validateRequestNameRef on each entry of list (a set, <= 32) */
static void check_refs(struct check_ctx *cx, const struct claimspec *c,
                       const struct tnode *list, const struct fpath *path)
{
    size_t i;

    if (!av_list(cx, list, path, MAX_REQUESTS, "requests"))
        return;
    for (i = 0; i < list->n; i++) {
        const struct tnode *e = list->kids[i];
        struct fpath p = fp_index(path, i);
        const char *ref = av_str(cx, e, &p, "request reference");
        const char *slash;
        if (!ref)
            continue;
        slash = strchr(ref, '/');
        if (slash && strchr(slash + 1, '/')) {
            av_report(cx, e, &p, "%s is not a request name or "
                      "<request>/<subrequest>", av_show(cx, ref));
            continue;
        }
        if (slash) {
            char first[64];
            size_t l = (size_t)(slash - ref);
            if (l < sizeof(first)) {
                memcpy(first, ref, l);
                first[l] = '\0';
                av_dns_label(cx, e, &p, "request name", first);
            } else {
                av_report(cx, e, &p, "request name in %s is not a DNS "
                          "label (at most 63)", av_show(cx, ref));
            }
            av_dns_label(cx, e, &p, "subrequest name", slash + 1);
        } else {
            av_dns_label(cx, e, &p, "request name", ref);
        }
        if (!claimspec_has_request(c, ref))
            av_report(cx, e, &p, "request %s is not a request of the "
                      "claim (nor <request>/<subrequest> of one with "
                      "firstAvailable)", av_show(cx, ref));
    }
    av_unique(cx, list, path, NULL, "request");
}

static void check_constraints(struct check_ctx *cx, const struct claimspec *c,
                              const struct fpath *path)
{
    const struct tnode *cs = c->constraints;
    size_t i;

    if (!av_list(cx, cs, path, MAX_CONSTRAINTS, "constraints"))
        return;
    for (i = 0; i < cs->n; i++) {
        const struct tnode *e = cs->kids[i];
        struct fpath p = fp_index(path, i);
        struct fpath rp = fp_child(&p, "requests");
        struct fpath mp = fp_child(&p, "matchAttribute");
        struct fpath dp = fp_child(&p, "distinctAttribute");
        const struct tnode *ma = tree_get(e, "matchAttribute");
        const struct tnode *da = tree_get(e, "distinctAttribute");
        const char *s;
        if (!av_is_map(cx, e, &p, "constraint"))
            continue;
        check_refs(cx, c, tree_get(e, "requests"), &rp);
        if (ma && ma->kind == T_NULL)
            ma = NULL;
        if (da && da->kind == T_NULL)
            da = NULL;
        /* with both, only matchAttribute is validated */
        if (ma || da) {
            const char *f = ma ? "matchAttribute" : "distinctAttribute";
            s = av_str(cx, ma ? ma : da, ma ? &mp : &dp, f);
            if (s)
                av_fully_qualified_name(cx, ma ? ma : da, ma ? &mp : &dp, f,
                                        s);
        } else if (target_gate_on(cx_target(cx), "DRAConsumableCapacity")) {
            av_report(cx, e, &p, "a constraint needs matchAttribute or "
                      "distinctAttribute");
        } else {
            av_report(cx, e, &mp, "a constraint needs matchAttribute");
        }
    }
}

/* validateDeviceConfiguration (opaque driver and parameters) and, for
 * claims (c not NULL), the requests the entry applies to. */
static void check_config(struct check_ctx *cx, const struct claimspec *c,
                         const struct tnode *cfg, const struct fpath *path)
{
    size_t i;

    if (!av_list(cx, cfg, path, MAX_CONFIG, "config"))
        return;
    for (i = 0; i < cfg->n; i++) {
        const struct tnode *e = cfg->kids[i];
        struct fpath p = fp_index(path, i);
        const struct tnode *op = tree_get(e, "opaque");
        struct fpath opp = fp_child(&p, "opaque");
        struct fpath rp = fp_child(&p, "requests");
        struct fpath dp = fp_child(&opp, "driver");
        struct fpath pp = fp_child(&opp, "parameters");
        const struct tnode *d = tree_get(op, "driver");
        const char *drv;
        if (!av_is_map(cx, e, &p, "config entry"))
            continue;
        if (c)
            check_refs(cx, c, tree_get(e, "requests"), &rp);
        if (!op || op->kind == T_NULL) {
            av_report(cx, op ? op : e, &opp, "a config entry needs 'opaque' "
                      "(the only configuration type)");
            continue;
        }
        if (!av_is_map(cx, op, &opp, "opaque"))
            continue;
        drv = av_str(cx, d, &dp, "driver");
        if (drv || !d || d->kind == T_NULL)
            av_driver_name(cx, d ? d : op, &dp, "driver", drv);
        av_raw_extension(cx, op, tree_get(op, "parameters"), &pp,
                         MAX_PARAMETERS);
    }
}

/* ==== the rule ========================================================== */

static void check_claimspec(struct check_ctx *cx, const struct object *o)
{
    const struct claimspec *c = o->claim;
    struct fpath base = fp_child(NULL, o->kind == K_TEMPLATE ? "spec.spec"
                                                            : "spec");
    struct fpath dp = fp_child(&base, "devices");
    struct fpath rp = fp_child(&dp, "requests");
    struct fpath cp = fp_child(&dp, "constraints");
    struct fpath gp = fp_child(&dp, "config");
    size_t i;

    if (!c->spec) {
        report(cx, o->kind == K_TEMPLATE && o->spec
               ? tree_get(o->spec, "spec") : o->spec,
               "%s has no spec", o->kind_name);
        return;
    }
    if (!c->devices || !av_is_map(cx, c->devices, &dp, "devices"))
        return;
    if (av_list(cx, c->requests_node, &rp, MAX_REQUESTS, "requests")) {
        for (i = 0; i < c->nreqs; i++) {
            struct fpath ip = fp_index(&rp, i);
            check_request(cx, c, &c->reqs[i], &ip);
        }
        check_unique_names(cx, c->reqs, c->nreqs, &rp, "request");
    }
    check_constraints(cx, c, &cp);
    check_config(cx, c, c->config, &gp);
}

static void check_classspec(struct check_ctx *cx, const struct object *o)
{
    const struct classspec *k = o->cls;
    struct fpath spec = fp_child(NULL, "spec");
    struct fpath ep = fp_child(&spec, "extendedResourceName");
    struct fpath sp = fp_child(&spec, "selectors");
    struct fpath cp = fp_child(&spec, "config");
    const char *ext;

    if (!k->spec) {
        if (!o->spec)
            report(cx, NULL, "DeviceClass has no spec");
        return;
    }
    check_selectors(cx, k->selectors_node, &sp);
    check_config(cx, NULL, tree_get(k->spec, "config"), &cp);
    ext = av_str(cx, k->extended_node, &ep, "extendedResourceName");
    /* v1helper.IsExtendedResourceName: no kubernetes.io/ prefix at all */
    if (ext && (!name_is_extended_resource(ext)
                || strstr(ext, "kubernetes.io/")))
        av_report(cx, k->extended_node, &ep, "extendedResourceName %s is "
                  "not an extended resource name (<domain>/<name>, not in "
                  "the kubernetes.io domain)", av_show(cx, ext));
}

void check_claim_schema(struct check_ctx *cx, const struct object *o)
{
    /* classic DRA (v1alpha1/v1alpha2) had other shapes: api-version-*
     * rules report those versions, the schema here does not apply */
    if (strcmp(o->version, "v1alpha3") && strcmp(o->version, "v1beta1")
        && strcmp(o->version, "v1beta2") && strcmp(o->version, "v1"))
        return;
    if (o->claim)
        check_claimspec(cx, o);
    else if (o->cls)
        check_classspec(cx, o);
}
