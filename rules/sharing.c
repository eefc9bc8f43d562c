/*
 * sharing.c - rules about exclusive and shared devices:
 * shared-claim-replicas, admin-access-namespace, allocation-all-unbounded,
 * and (audit) claim-idle: devices allocated that no running Pod uses.
 */
#include <stdio.h>
#include <string.h>

#include "../validate/arena.h"
#include "../validate/cel/cel.h"
#include "../validate/config.h"
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

/* ==== claim-idle (audit) ================================================= */

struct users {
    const struct object *claim;
    const struct tnode *reserved;   /* status.reservedFor */
    int running;                    /* a Running Pod uses the claim */
    const struct object *first;     /* a user that is not running */
    const char *first_phase;
    size_t n;
};

static int reserved_for(const struct tnode *rf, const char *pod)
{
    size_t i;

    for (i = 0; tree_is_seq(rf) && i < rf->n; i++) {
        const char *res = tree_str(tree_get(rf->kids[i], "resource"));
        const char *nm = tree_str(tree_get(rf->kids[i], "name"));
        if (res && !strcmp(res, "pods") && nm && !strcmp(nm, pod))
            return 1;
    }
    return 0;
}

/* Pods that name the claim, have it as their generated claim, or hold a
 * reservation of it. */
static void user_fn(void *arg, const struct object *pod)
{
    struct users *u = arg;
    const struct tnode *st = tree_get(pod->root, "status");
    const struct tnode *gen = tree_get(st, "resourceClaimStatuses");
    const char *phase = tree_str(tree_get(st, "phase"));
    size_t i;
    int uses = 0;

    if (pod->kind != K_POD || strcmp(object_ns(pod), object_ns(u->claim)))
        return;
    for (i = 0; pod->pod && i < pod->pod->nclaims && !uses; i++)
        uses = pod->pod->claims[i].claim_name
               && !strcmp(pod->pod->claims[i].claim_name, u->claim->name);
    for (i = 0; tree_is_seq(gen) && i < gen->n && !uses; i++) {
        const char *nm = tree_str(tree_get(gen->kids[i],
                                           "resourceClaimName"));
        uses = nm && !strcmp(nm, u->claim->name);
    }
    if (!uses && !reserved_for(u->reserved, pod->name))
        return;
    if (phase && !strcmp(phase, "Running")) {
        u->running = 1;
        return;
    }
    if (!u->n++) {
        u->first = pod;
        u->first_phase = phase ? phase : "no phase";
    }
}

/* When the claim's status last changed (allocation, a consumer added or
 * removed): the newest managedFields entry of the status subresource,
 * else its creation (*created set). -1 when neither can be read. */
static long long status_since(const struct object *o, int *created)
{
    const struct tnode *mf = tree_get(o->metadata, "managedFields");
    const char *t = NULL;
    long long best = -1;
    int64_t sec;
    int32_t ns;
    size_t i;

    for (i = 0; tree_is_seq(mf) && i < mf->n; i++) {
        const char *sub = tree_str(tree_get(mf->kids[i], "subresource"));
        t = tree_str(tree_get(mf->kids[i], "time"));
        if (sub && !strcmp(sub, "status") && t
            && cel_rfc3339_parse(t, strlen(t), &sec, &ns) == 0
            && (long long)sec > best)
            best = (long long)sec;
    }
    *created = best < 0;
    if (best >= 0)
        return best;
    t = tree_str(tree_get(o->metadata, "creationTimestamp"));
    if (t && cel_rfc3339_parse(t, strlen(t), &sec, &ns) == 0)
        return (long long)sec;
    return -1;
}

/* "3d4h", "3d", "5h12m", "5h", "40m" */
static const char *duration_text(struct arena *a, long long s)
{
    if (s >= 86400 && s % 86400 / 3600)
        return arena_printf(a, "%lldd%lldh", s / 86400, s % 86400 / 3600);
    if (s >= 86400)
        return arena_printf(a, "%lldd", s / 86400);
    if (s >= 3600 && s % 3600 / 60)
        return arena_printf(a, "%lldh%lldm", s / 3600, s % 3600 / 60);
    if (s >= 3600)
        return arena_printf(a, "%lldh", s / 3600);
    return arena_printf(a, "%lldm", s / 60);
}

void check_claim_idle(struct check_ctx *cx, const struct object *o)
{
    const struct config_audit *au = &cx_target(cx)->cfg->audit;
    long long after = au->idle_after ? au->idle_after : CONFIG_IDLE_AFTER;
    const struct tnode *alloc = tree_at(o->root, "status.allocation");
    const struct tnode *res = tree_get(tree_get(alloc, "devices"),
                                       "results");
    struct arena *a = cx_arena(cx);
    const char **details, *devs;
    struct users u;
    long long since;
    int created = 0;
    size_t i, nd = 0;
    char list[256];
    size_t len = 0;

    if (!tree_is_map(alloc) || tree_get(o->metadata, "deletionTimestamp"))
        return;
    memset(&u, 0, sizeof(u));
    u.claim = o;
    u.reserved = tree_at(o->root, "status.reservedFor");
    for (i = 0; tree_is_seq(u.reserved) && i < u.reserved->n; i++) {
        const char *r = tree_str(tree_get(u.reserved->kids[i], "resource"));
        if (!r || strcmp(r, "pods"))
            return;     /* a consumer other than a Pod: cannot judge */
    }
    cx_each(cx, K_POD, user_fn, &u);
    since = status_since(o, &created);
    if (u.running || since < 0 || au->now - since < after)
        return;
    list[0] = '\0';
    for (i = 0; tree_is_seq(res) && i < res->n; i++) {
        const char *pool = tree_str(tree_get(res->kids[i], "pool"));
        const char *dev = tree_str(tree_get(res->kids[i], "device"));
        if (!dev)
            continue;
        if (nd++ < 4 && len < sizeof(list) - 1)
            len += (size_t)snprintf(list + len, sizeof(list) - len,
                                    "%s%s/%s", nd > 1 ? ", " : "",
                                    pool ? pool : "?", dev);
        if (len >= sizeof(list))
            len = sizeof(list) - 1;
    }
    details = arena_alloc(a, 2 * sizeof(*details));
    devs = nd > 4 ? arena_printf(a, "%s and %zu more", list, nd - 4)
                  : arena_strdup(a, list);
    details[0] = u.first
        ? arena_printf(a, "%s: Pod %s (%s)%s", u.n == 1 ? "its user"
                       : "its users", object_ref(a, u.first), u.first_phase,
                       u.n > 1 ? arena_printf(a, " and %zu more not "
                                              "running", u.n - 1) : "")
        : "no Pod uses it";
    details[1] = arena_printf(a, "%s %s ago (the idle threshold is %s)",
                              created ? "created" : "status last changed",
                              duration_text(a, au->now - since),
                              duration_text(a, after));
    report_details(cx, alloc, details, 2, "the claim holds "
                   "%zu device%s%s%s%s and no running Pod has used it for "
                   "%s: the devices are allocated and idle", nd,
                   nd == 1 ? "" : "s", nd ? " (" : "", devs, nd ? ")" : "",
                   duration_text(a, au->now - since));
}
