/*
 * references.c - rules about references between a Pod (or pod template)
 * and its claims, and between requests and DeviceClasses:
 * pod-claim-undeclared, pod-claim-source, pod-claim-unused,
 * claim-request-unknown, claim-not-found, device-class-not-found.
 */
#include <string.h>

#include "../validate/arena.h"
#include "../validate/names.h"
#include "../validate/object.h"
#include "../validate/tree.h"
#include "checks.h"
#include "dra_util.h"
#include "rules.h"

/* DRA drivers whose devices are attached to the pod (network interfaces
 * moved into the pod's network namespace), not to a container: a claim of
 * theirs needs no container reference. */
static const char *const pod_level_drivers[] = {
    "dra.net",              /* google/dranet */
    "networking.k8s.io",    /* dranet's driver name before v0.3 */
    NULL
};

static int is_pod_level_driver(const char *d)
{
    size_t k;

    for (k = 0; d && pod_level_drivers[k]; k++)
        if (!strcmp(d, pod_level_drivers[k]))
            return 1;
    return 0;
}

static const struct podclaim *find_podclaim(const struct podspec *p,
                                            const char *name)
{
    size_t i;

    for (i = 0; i < p->nclaims; i++)
        if (p->claims[i].name && !strcmp(p->claims[i].name, name))
            return &p->claims[i];
    return NULL;
}

void check_pod_claim_undeclared(struct check_ctx *cx, const struct object *o)
{
    const struct podspec *p = o->pod;
    size_t i, j;

    for (i = 0; i < p->nctrs; i++) {
        const struct tnode *cl = p->ctrs[i].claims;
        if (!tree_is_seq(cl))
            continue;
        for (j = 0; j < cl->n; j++) {
            const struct tnode *nm = tree_get(cl->kids[j], "name");
            const char *name = tree_str(nm);
            if (!name) {
                report(cx, nm ? nm : cl->kids[j], "a resources.claims entry "
                       "needs a name");
                continue;
            }
            if (!find_podclaim(p, name))
                report(cx, nm, "container '%s' uses claim '%s', which is "
                       "not declared in spec.resourceClaims",
                       p->ctrs[i].name ? p->ctrs[i].name : "?", name);
        }
    }
}

/* A request reference of a container: "req" or "req/subrequest" (a
 * firstAvailable alternative), each part a DNS label. */
static int request_ref_ok(const char *s)
{
    const char *slash = strchr(s, '/');
    char first[64];
    size_t n;

    if (!slash)
        return name_is_dns_label(s);
    n = (size_t)(slash - s);
    if (n >= sizeof(first))
        return 0;
    memcpy(first, s, n);
    first[n] = '\0';
    return name_is_dns_label(first) && name_is_dns_label(slash + 1);
}

/* A container's resources.claims (validateResourceClaimNames): a name, a
 * request that is a DNS label, no entry twice - an entry without request
 * (the whole claim) repeats every entry of the same claim. */
static void check_container_claims(struct check_ctx *cx,
                                   const struct container *c)
{
    const struct tnode *cl = c->claims;
    size_t i, j;

    if (c->ephemeral && tree_is_seq(cl) && cl->n) {
        report(cx, cl, "ephemeral container '%s' cannot have resources, so "
               "no resources.claims", c->name ? c->name : "?");
        return;
    }
    for (i = 0; tree_is_seq(cl) && i < cl->n; i++) {
        const struct tnode *e = cl->kids[i];
        const char *name = tree_str(tree_get(e, "name"));
        const struct tnode *rq = tree_get(e, "request");
        const char *req = tree_str(rq);
        if (!name || !*name)
            continue;           /* pod-claim-undeclared reports it */
        if (req && *req && !request_ref_ok(req))
            report(cx, rq, "request '%s' is not a request name or "
                   "<request>/<subrequest> (DNS labels: lowercase letters, "
                   "digits and '-', at most 63)", req);
        for (j = 0; j < i; j++) {
            const struct tnode *f = cl->kids[j];
            const char *n2 = tree_str(tree_get(f, "name"));
            const char *r2 = tree_str(tree_get(f, "request"));
            if (!n2 || strcmp(n2, name))
                continue;
            if (!req || !*req || !r2 || !*r2 || !strcmp(req, r2)) {
                const char *one = req && *req ? req : r2 && *r2 ? r2 : NULL;
                const char *cn = c->name ? c->name : "?";
                if (!one)
                    report(cx, e, "container '%s' lists claim '%s' twice",
                           cn, name);
                else if ((!req || !*req) != (!r2 || !*r2))
                    report(cx, e, "container '%s' lists claim '%s' both whole "
                           "and for request '%s'", cn, name, one);
                else
                    report(cx, e, "container '%s' lists request '%s' of claim "
                           "'%s' twice", cn, one, name);
                break;
            }
        }
    }
}

/* The name of a claim or template a pod refers to: a DNS subdomain. */
static void check_ref_name(struct check_ctx *cx, const struct tnode *n,
                           const char *field)
{
    const char *s = tree_str(n);

    if (n && n->kind != T_NULL && !s)
        report(cx, n, "%s must be a string, not %s", field,
               tree_kind_desc(n));
    else if (s && !name_is_dns_subdomain(s))
        report(cx, n, "%s '%s' is not a valid object name (a lowercase DNS "
               "subdomain)", field, s);
}

void check_pod_claim_source(struct check_ctx *cx, const struct object *o)
{
    const struct podspec *p = o->pod;
    size_t i, j;

    for (i = 0; i < p->nclaims; i++) {
        const struct podclaim *c = &p->claims[i];
        if (!tree_is_map(c->node)) {
            report(cx, c->node, "a resourceClaims entry must be a mapping, "
                   "not %s", tree_kind_desc(c->node));
            continue;
        }
        if (!c->name || !*c->name)
            report(cx, c->name_node ? c->name_node : c->node,
                   "resourceClaims entry has no name");
        else if (!name_is_dns_label(c->name))
            report(cx, c->name_node, "claim name '%s' is not a DNS label "
                   "(lowercase letters, digits and '-', at most 63)",
                   c->name);
        if (c->claim_node && c->template_node
            && c->claim_node->kind != T_NULL
            && c->template_node->kind != T_NULL)
            report(cx, c->template_node, "claim '%s' sets both "
                   "resourceClaimName and resourceClaimTemplateName; exactly "
                   "one is allowed", c->name ? c->name : "?");
        else if ((!c->claim_node || c->claim_node->kind == T_NULL)
                 && (!c->template_node || c->template_node->kind == T_NULL))
            report(cx, c->node, "claim '%s' needs resourceClaimName or "
                   "resourceClaimTemplateName", c->name ? c->name : "?");
        check_ref_name(cx, c->claim_node, "resourceClaimName");
        check_ref_name(cx, c->template_node, "resourceClaimTemplateName");
        for (j = 0; c->name && *c->name && j < i; j++)
            if (p->claims[j].name && !strcmp(p->claims[j].name, c->name)) {
                report(cx, c->name_node, "claim name '%s' is declared "
                       "twice", c->name);
                break;
            }
    }
    for (i = 0; i < p->nctrs; i++)
        check_container_claims(cx, &p->ctrs[i]);
}

/* 1 if the pod claim's devices are pod-level (network) devices */
static int claim_is_pod_level(struct check_ctx *cx, const struct object *pod,
                              const struct podclaim *pc)
{
    const struct object *t = podclaim_target(cx, pod, pc);
    size_t i, j;

    if (!t || !t->claim || !t->claim->nreqs)
        return 0;
    for (i = 0; i < t->claim->nreqs; i++) {
        const struct devreq *r = &t->claim->reqs[i];
        const struct devreq *alts = r->nsubs ? r->subs : r;
        size_t nalts = r->nsubs ? r->nsubs : 1;
        for (j = 0; j < nalts; j++) {
            /* the driver pinned by selectors or class; else a class named
             * after the driver (dranet's own examples use class dra.net) */
            const char *d = request_driver(cx, &alts[j]);
            if (!is_pod_level_driver(d ? d : alts[j].class_name))
                return 0;
        }
    }
    return 1;
}

static int claim_used(const struct podspec *p, const char *name)
{
    const struct tnode *podlevel = tree_at(p->spec, "resources.claims");
    size_t i, j;

    for (i = 0; i < p->nctrs; i++) {
        const struct tnode *cl = p->ctrs[i].claims;
        for (j = 0; tree_is_seq(cl) && j < cl->n; j++)
            if (tree_str(tree_get(cl->kids[j], "name"))
                && !strcmp(tree_get(cl->kids[j], "name")->str, name))
                return 1;
    }
    for (j = 0; tree_is_seq(podlevel) && j < podlevel->n; j++)
        if (tree_str(tree_get(podlevel->kids[j], "name"))
            && !strcmp(tree_get(podlevel->kids[j], "name")->str, name))
            return 1;
    return 0;
}

/* 1 if an entry before claims[i] has its name: pod-claim-source reports
 * the duplicate, which is not a second unused claim. */
static int declared_before(const struct podspec *p, size_t i)
{
    size_t j;

    for (j = 0; j < i; j++)
        if (p->claims[j].name && !strcmp(p->claims[j].name, p->claims[i].name))
            return 1;
    return 0;
}

void check_pod_claim_unused(struct check_ctx *cx, const struct object *o)
{
    const struct podspec *p = o->pod;
    size_t i;

    for (i = 0; i < p->nclaims; i++) {
        const struct podclaim *c = &p->claims[i];
        if (!c->name || claim_used(p, c->name) || declared_before(p, i))
            continue;
        if (claim_is_pod_level(cx, o, c))
            continue;
        report(cx, c->name_node, "claim '%s' is declared but no container "
               "uses it: its devices are allocated and stay idle", c->name);
    }
}

static const char *request_names(struct check_ctx *cx,
                                 const struct claimspec *c)
{
    const char *out = "";
    size_t i;

    for (i = 0; i < c->nreqs && i < 8; i++)
        if (c->reqs[i].name)
            out = arena_printf(cx_arena(cx), "%s%s'%s'", out,
                               *out ? ", " : "", c->reqs[i].name);
    return *out ? out : "none";
}

void check_claim_request_unknown(struct check_ctx *cx, const struct object *o)
{
    const struct podspec *p = o->pod;
    size_t i, j;

    for (i = 0; i < p->nctrs; i++) {
        const struct tnode *cl = p->ctrs[i].claims;
        for (j = 0; tree_is_seq(cl) && j < cl->n; j++) {
            const char *name = tree_str(tree_get(cl->kids[j], "name"));
            const struct tnode *rq = tree_get(cl->kids[j], "request");
            const struct podclaim *pc;
            const struct object *t;
            if (!name || !tree_str(rq) || !*rq->str)
                continue;
            pc = find_podclaim(p, name);
            t = pc ? podclaim_target(cx, o, pc) : NULL;
            if (!t || !t->claim || !t->claim->nreqs)
                continue;
            if (!claimspec_has_request(t->claim, rq->str))
                report(cx, rq, "claim '%s' (%s %s) has no request '%s'; it "
                       "defines %s", name, t->kind_name, t->name, rq->str,
                       request_names(cx, t->claim));
        }
    }
}

void check_claim_not_found(struct check_ctx *cx, const struct object *o)
{
    const struct podspec *p = o->pod;
    const char *ns = object_ns(o);
    size_t i;

    for (i = 0; i < p->nclaims; i++) {
        const struct podclaim *c = &p->claims[i];
        unsigned kind;
        const char *name;
        const struct tnode *at;
        const struct object *other;
        if (c->claim_name && c->template_name)
            continue;
        kind = c->claim_name ? K_CLAIM : K_TEMPLATE;
        name = c->claim_name ? c->claim_name : c->template_name;
        at = c->claim_name ? c->claim_node : c->template_node;
        if (!name || cx_lookup(cx, kind, ns, name))
            continue;
        other = cx_lookup_elsewhere(cx, kind, name, ns);
        if (other)
            report(cx, at, "%s '%s' is not in namespace '%s' (the input "
                   "defines it in namespace '%s'): the pod stays Pending",
                   kind_bit_name(kind), name, ns, object_ns(other));
        else if (cx_inventory_has(cx, kind))
            report(cx, at, "%s '%s' does not exist in namespace '%s': the "
                   "pod stays Pending", kind_bit_name(kind), name, ns);
    }
}

static void check_class_ref(struct check_ctx *cx, const struct devreq *r)
{
    if (!r->class_name || cx_lookup(cx, K_CLASS, "", r->class_name))
        return;
    report(cx, r->class_node, "DeviceClass '%s' does not exist: the claim "
           "can never be allocated", r->class_name);
}

void check_device_class_not_found(struct check_ctx *cx,
                                  const struct object *o)
{
    size_t i, j;

    /* the input alone does not say which classes the cluster has (driver
     * charts install them): only an inventory with classes decides */
    if (!cx_inventory_has(cx, K_CLASS))
        return;
    for (i = 0; i < o->claim->nreqs; i++) {
        const struct devreq *r = &o->claim->reqs[i];
        check_class_ref(cx, r);
        for (j = 0; j < r->nsubs; j++)
            check_class_ref(cx, &r->subs[j]);
    }
}
