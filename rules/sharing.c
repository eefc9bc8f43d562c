/*
 * sharing.c - rules about exclusive and shared devices:
 * shared-claim-replicas, admin-access-namespace, allocation-all-unbounded.
 */
#include <string.h>

#include "../validate/object.h"
#include "../validate/target.h"
#include "../validate/tree.h"
#include "checks.h"
#include "rules.h"

#define ADMIN_LABEL "resource.kubernetes.io/admin-access"
#define ADMIN_LABEL_OLD "resource.k8s.io/admin-access"  /* before 1.34 */

void check_shared_claim_replicas(struct check_ctx *cx, const struct object *o)
{
    const struct podspec *p = o->pod;
    const char *how;
    size_t i;

    if (o->kind == K_DAEMONSET)
        how = "every DaemonSet pod";
    else if (o->replicas > 1)
        how = o->kind & (K_JOB | K_CRONJOB) ? "every parallel pod"
                                            : "every replica";
    else
        return;
    for (i = 0; i < p->nclaims; i++) {
        const struct podclaim *c = &p->claims[i];
        if (!c->claim_name || c->template_name)
            continue;
        if (o->kind == K_DAEMONSET)
            report(cx, c->claim_node, "%s shares ResourceClaim '%s': all of "
                   "them would need the node where it is allocated",
                   how, c->claim_name);
        else
            report(cx, c->claim_node, "%s (%s: %lld) shares ResourceClaim "
                   "'%s': they share its devices and are pinned to one node",
                   how, o->kind & (K_JOB | K_CRONJOB) ? "parallelism"
                                                      : "replicas",
                   o->replicas, c->claim_name);
    }
}

static int has_admin_label(const struct target *t, const struct object *ns)
{
    const struct tnode *labels = tree_get(ns->metadata, "labels");
    const char *v = tree_str(tree_get(labels, ADMIN_LABEL));

    if (v && !strcmp(v, "true"))
        return 1;
    if (t->major == 1 && t->minor < 34) {
        v = tree_str(tree_get(labels, ADMIN_LABEL_OLD));
        if (v && !strcmp(v, "true"))
            return 1;
    }
    return 0;
}

void check_admin_access_namespace(struct check_ctx *cx,
                                  const struct object *o)
{
    const struct object *ns;
    size_t i;

    for (i = 0; i < o->claim->nreqs; i++) {
        const struct devreq *r = &o->claim->reqs[i];
        if (!r->admin_access)
            continue;
        ns = cx_lookup(cx, K_NAMESPACE, "", object_ns(o));
        if (!ns || has_admin_label(cx_target(cx), ns))
            continue;
        report(cx, r->admin_node, "request '%s' sets adminAccess but "
               "namespace '%s' lacks the label %s: \"true\"; the apiserver "
               "rejects the %s", r->name ? r->name : "?", object_ns(o),
               ADMIN_LABEL, o->kind_name);
    }
}

static void check_all(struct check_ctx *cx, const struct devreq *r)
{
    const struct object *cls;

    if (!r->mode || strcmp(r->mode, "All") || r->admin_access || r->nsel
        || !r->class_name)
        return;
    cls = cx_lookup(cx, K_CLASS, "", r->class_name);
    if (!cls || !cls->cls || cls->cls->nsel)
        return;
    report(cx, r->mode_node, "allocationMode: All with no selector in the "
           "request nor in DeviceClass '%s': the claim takes every device "
           "of the class on the node", r->class_name);
}

void check_allocation_all_unbounded(struct check_ctx *cx,
                                    const struct object *o)
{
    size_t i, j;

    for (i = 0; i < o->claim->nreqs; i++) {
        const struct devreq *r = &o->claim->reqs[i];
        check_all(cx, r);
        for (j = 0; j < r->nsubs; j++)
            check_all(cx, &r->subs[j]);
    }
}
