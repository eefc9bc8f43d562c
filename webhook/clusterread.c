/*
 * clusterread.c - reads a whole cluster once (see clusterread.h): the
 * table of kinds and where each is listed, discovery of the DRA API
 * version, copies of the listed objects with apiVersion and kind (list
 * items carry neither), and which objects a listed controller made. It
 * judges nothing (the engine does) and prints nothing (audit.c does).
 */
#include "clusterread.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../validate/buf.h"
#include "../validate/engine.h"
#include "../validate/err.h"
#include "../validate/limits.h"
#include "../validate/load_json.h"
#include "../validate/run.h"
#include "../validate/strmap.h"
#include "../validate/tree.h"
#include "featuremetric.h"
#include "kubeapi.h"

#define CR_DISCOVERY_MAX (4u << 20)
#define CR_METRICS_MAX (32u << 20)  /* an apiserver's /metrics page */
#define CR_TIMEOUT 30
#define DRA_GROUP "resource.k8s.io"

enum {
    CR_NAMESPACED = 1 << 0,
    CR_OPTIONAL = 1 << 1,       /* listed when served */
};

static const struct cr_kind {
    const char *group;          /* "" core */
    const char *version;        /* NULL: the DRA version discovered */
    const char *plural, *kind;
    unsigned flags;
} kinds[] = {
    { "", "v1", "namespaces", "Namespace", 0 },
    { "", "v1", "nodes", "Node", 0 },
    { DRA_GROUP, NULL, "deviceclasses", "DeviceClass", 0 },
    { DRA_GROUP, NULL, "resourceslices", "ResourceSlice", 0 },
    { DRA_GROUP, NULL, "devicetaintrules", "DeviceTaintRule",
      CR_OPTIONAL },
    { DRA_GROUP, NULL, "resourceclaims", "ResourceClaim",
      CR_NAMESPACED },
    { DRA_GROUP, NULL, "resourceclaimtemplates", "ResourceClaimTemplate",
      CR_NAMESPACED },
    { "", "v1", "pods", "Pod", CR_NAMESPACED },
    { "", "v1", "replicationcontrollers", "ReplicationController",
      CR_NAMESPACED },
    { "apps", "v1", "deployments", "Deployment", CR_NAMESPACED },
    { "apps", "v1", "replicasets", "ReplicaSet", CR_NAMESPACED },
    { "apps", "v1", "statefulsets", "StatefulSet", CR_NAMESPACED },
    { "apps", "v1", "daemonsets", "DaemonSet", CR_NAMESPACED },
    { "batch", "v1", "jobs", "Job", CR_NAMESPACED },
    { "batch", "v1", "cronjobs", "CronJob", CR_NAMESPACED },
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

void clusterread_init(struct clusterread *cr)
{
    memset(cr, 0, sizeof(*cr));
    arena_init(&cr->arena, ARENA_LARGE_BYTES);
}

void clusterread_release(struct clusterread *cr)
{
    arena_release(&cr->arena);
    memset(cr, 0, sizeof(*cr));
}

/* ==== failures =========================================================== */

static int fail_set(struct clusterread_fail *f, long status, const char *verb,
                    const char *group, const char *resource, const char *ns,
                    const struct buf *body, struct err *err)
{
    struct arena a;
    struct tnode *t;
    struct err e;
    const char *msg = NULL;

    memset(f, 0, sizeof(*f));
    f->status = status;
    f->verb = verb;
    f->group = group;
    f->resource = resource;
    f->ns = ns;
    arena_init(&a, ARENA_SMALL_BYTES);
    if (body && body->len && load_json(&a, body->p, body->len, &t, &e) == 0)
        msg = tree_str(tree_get(t, "message"));
    snprintf(f->message, sizeof(f->message), "%s", msg ? msg : "");
    arena_release(&a); /* msg pointed into it: f->message from here on */
    return err_set(err, "%s %s%s%s: HTTP %ld%s%s", verb, resource,
                   *group ? "." : "", group, status,
                   *f->message ? ": " : "", f->message);
}

/* ==== version and discovery ============================================= */

static long get_json(struct kubeapi *k, const char *path, struct arena *a,
                     struct tnode **t, struct buf *body, struct err *err)
{
    long status;

    buf_init(body, CR_DISCOVERY_MAX);
    status = kubeapi_get(k, path, body, CR_TIMEOUT, err);
    if (status == 200 && load_json(a, body->p, body->len, t, err) < 0)
        return -1;
    return status;
}

int clusterread_version(struct kubeapi *k, struct clusterread *cr,
                        struct clusterread_fail *fail, struct err *err)
{
    struct arena a;
    struct buf body;
    struct tnode *t = NULL;
    const char *major, *minor, *git;
    long status;
    int ret = -1;

    memset(fail, 0, sizeof(*fail));
    arena_init(&a, ARENA_SMALL_BYTES);
    status = get_json(k, "/version", &a, &t, &body, err);
    if (status != 200) {
        if (status > 0)
            fail_set(fail, status, "get", "", "version", NULL, &body, err);
        goto out;
    }
    major = tree_text(tree_get(t, "major"));
    minor = tree_text(tree_get(t, "minor"));
    git = tree_str(tree_get(t, "gitVersion"));
    snprintf(cr->git_version, sizeof(cr->git_version), "%s", git ? git : "");
    if (!major || !minor || !*major || !*minor) {
        err_set(err, "GET /version of '%s' has no major and minor version",
                kubeapi_server(k));
        goto out;
    }
    /* "34+" (managed clusters): the digits */
    snprintf(cr->version, sizeof(cr->version), "%.*s.%.*s",
             (int)strspn(major, "0123456789"), major,
             (int)strspn(minor, "0123456789"), minor);
    ret = 0;
out:
    buf_release(&body);
    arena_release(&a);
    return ret;
}

int clusterread_gates(struct kubeapi *k, struct featuremetric *fm,
                      struct clusterread_fail *fail, struct err *err)
{
    struct buf body;
    long status;
    int ret = -1;

    memset(fail, 0, sizeof(*fail));
    buf_init(&body, CR_METRICS_MAX);
    status = kubeapi_get(k, "/metrics", &body, CR_TIMEOUT, err);
    if (status == 200)
        ret = featuremetric_parse(fm, body.p ? body.p : "", body.len, err);
    else if (status > 0)
        fail_set(fail, status, "get", "", "/metrics", NULL, &body, err);
    buf_release(&body);
    return ret;
}

/* 1 if the APIResourceList t has resource `plural` */
static int has_resource(const struct tnode *t, const char *plural)
{
    const struct tnode *r = tree_get(t, "resources");
    size_t i;

    for (i = 0; tree_is_seq(r) && i < r->n; i++) {
        const char *nm = tree_str(tree_get(r->kids[i], "name"));
        if (nm && !strcmp(nm, plural))
            return 1;
    }
    return 0;
}

/* The DRA version (v1) or why it cannot be used; which version serves
 * DeviceTaintRules into taint_version ("" none). */
static int discover(struct kubeapi *k, struct clusterread *cr,
                    char *taint_version, size_t tvmax,
                    struct clusterread_fail *fail, struct err *err)
{
    struct arena a;
    struct buf body;
    struct tnode *t = NULL, *g = NULL;
    const struct tnode *vs;
    long status;
    size_t i, len = 0;
    int ret = -1;

    taint_version[0] = '\0';
    arena_init(&a, ARENA_SMALL_BYTES);
    status = get_json(k, "/apis/" DRA_GROUP "/v1", &a, &t, &body, err);
    if (status == 200) {
        snprintf(cr->dra_version, sizeof(cr->dra_version), "v1");
        if (has_resource(t, "devicetaintrules"))
            snprintf(taint_version, tvmax, "v1");
    } else if (status != 404) {
        if (status > 0)
            fail_set(fail, status, "get", DRA_GROUP, "v1 (discovery)", NULL,
                     &body, err);
        goto out;
    }
    buf_release(&body);
    /* the group: which versions it serves */
    status = get_json(k, "/apis/" DRA_GROUP, &a, &g, &body, err);
    if (status != 200 && status != 404) {
        if (status > 0)
            fail_set(fail, status, "get", DRA_GROUP, "(discovery)", NULL,
                     &body, err);
        goto out;
    }
    buf_release(&body);
    vs = status == 200 ? tree_get(g, "versions") : NULL;
    if (!cr->dra_version[0]) {
        memset(fail, 0, sizeof(*fail));
        fail->status = 404;
        fail->verb = "get";
        fail->group = DRA_GROUP;
        fail->resource = "v1";
        for (i = 0; tree_is_seq(vs) && i < vs->n; i++) {
            const char *v = tree_str(tree_get(vs->kids[i], "version"));
            if (v && len < sizeof(fail->served))
                len += (size_t)snprintf(fail->served + len,
                                        sizeof(fail->served) - len, "%s%s",
                                        len ? ", " : "", v);
        }
        if (len)
            err_set(err, "the apiserver at '%s' does not serve %s/v1 (it "
                    "serves %s): claimcheck audit needs Kubernetes 1.34 or "
                    "later", kubeapi_server(k), DRA_GROUP, fail->served);
        else
            err_set(err, "the apiserver at '%s' does not serve %s: Dynamic "
                    "Resource Allocation is not enabled there",
                    kubeapi_server(k), DRA_GROUP);
        goto out;
    }
    /* DeviceTaintRules: the first (preferred) version that serves them */
    for (i = 0; !taint_version[0] && tree_is_seq(vs) && i < vs->n; i++) {
        const char *v = tree_str(tree_get(vs->kids[i], "version"));
        char path[128];
        if (!v || !strcmp(v, "v1"))
            continue;
        snprintf(path, sizeof(path), "/apis/%s/%s", DRA_GROUP, v);
        if (get_json(k, path, &a, &t, &body, err) == 200
            && has_resource(t, "devicetaintrules"))
            snprintf(taint_version, tvmax, "%s", v);
        buf_release(&body);
    }
    err->msg[0] = '\0';
    ret = 0;
out:
    buf_release(&body);
    arena_release(&a);
    return ret;
}

/* ==== listing ============================================================ */

struct lister {
    struct clusterread *cr;
    const char *api_version, *kind;
};

/* A copy of a list item with apiVersion and kind (first, as kubectl
 * prints them). */
static void on_item(void *cls, const struct tnode *item)
{
    struct lister *l = cls;
    struct clusterread *cr = l->cr;
    struct tnode *root, *av, *kd;
    struct tnode **kids;
    size_t i, n = 2;

    if (!tree_is_map(item))
        return;
    root = tree_clone(&cr->arena, NULL, item);
    kids = arena_alloc(&cr->arena, (root->n + 2) * sizeof(*kids));
    av = tree_new(&cr->arena, T_STR, 0, 0);
    av->key = "apiVersion";
    av->str = l->api_version;
    av->parent = root;
    av->quoted = 1;
    kd = tree_new(&cr->arena, T_STR, 0, 0);
    kd->key = "kind";
    kd->str = l->kind;
    kd->parent = root;
    kd->quoted = 1;
    kids[0] = av;
    kids[1] = kd;
    for (i = 0; i < root->n; i++)
        if (strcmp(root->kids[i]->key, "apiVersion")
            && strcmp(root->kids[i]->key, "kind"))
            kids[n++] = root->kids[i];
    root->kids = kids;
    root->n = (unsigned)n;
    if (cr->n == cr->cap) {
        size_t cap = cr->cap ? cr->cap * 2 : 256;
        cr->objs = arena_grow(&cr->arena, cr->objs, cr->n, cap,
                              sizeof(*cr->objs));
        cr->cap = cap;
    }
    cr->objs[cr->n].root = root;
    cr->objs[cr->n].derived = 0;
    cr->n++;
}

static int list_kind(struct kubeapi *k, const struct clusterread_opts *o,
                     const struct cr_kind *kd, const char *version,
                     struct clusterread *cr, struct clusterread_fail *fail,
                     struct err *err)
{
    struct lister l;
    struct buf body;
    char path[512];
    const char *ns = kd->flags & CR_NAMESPACED ? o->ns : NULL;
    long status;
    size_t before = cr->n;

    if (*kd->group)
        snprintf(path, sizeof(path), "/apis/%s/%s/%s%s%s", kd->group,
                 version, ns ? "namespaces/" : "", ns ? ns : "",
                 ns ? "/" : "");
    else
        snprintf(path, sizeof(path), "/api/%s/%s%s%s", version,
                 ns ? "namespaces/" : "", ns ? ns : "", ns ? "/" : "");
    snprintf(path + strlen(path), sizeof(path) - strlen(path), "%s",
             kd->plural);
    l.cr = cr;
    l.api_version = *kd->group
        ? arena_printf(&cr->arena, "%s/%s", kd->group, version) : version;
    l.kind = kd->kind;
    buf_init(&body, CR_DISCOVERY_MAX);
    status = kubeapi_list(k, path, o->page_size ? o->page_size : 500,
                          on_item, &l, NULL, 0, &body, err);
    if (status != 200) {
        if (status > 0)
            fail_set(fail, status, "list", kd->group, kd->plural, ns, &body,
                     err);
        buf_release(&body);
        cr->n = before;
        return -1;
    }
    buf_release(&body);
    return 0;
}

/* With --namespace, the one Namespace (get: namespace users may not list
 * them); without it, or when not allowed, nothing. */
static void get_namespace(struct kubeapi *k, const char *ns,
                          struct clusterread *cr)
{
    struct arena a;
    struct buf body;
    struct tnode *t = NULL;
    struct err e;
    struct lister l;
    char path[512];

    arena_init(&a, ARENA_SMALL_BYTES);
    snprintf(path, sizeof(path), "/api/v1/namespaces/%s", ns);
    if (get_json(k, path, &a, &t, &body, &e) == 200) {
        l.cr = cr;
        l.api_version = "v1";
        l.kind = "Namespace";
        on_item(&l, t);
    }
    buf_release(&body);
    arena_release(&a);
}

/* Objects whose controller ownerReference names a listed uid. */
static void mark_derived(struct clusterread *cr)
{
    struct strmap uids;
    size_t i, k;

    strmap_init(&uids, &cr->arena);
    for (i = 0; i < cr->n; i++) {
        const char *uid = tree_str(tree_at(cr->objs[i].root,
                                           "metadata.uid"));
        if (uid)
            strmap_put(&uids, uid, &cr->objs[i]);
    }
    for (i = 0; i < cr->n; i++) {
        const struct tnode *refs = tree_at(cr->objs[i].root,
                                           "metadata.ownerReferences");
        for (k = 0; tree_is_seq(refs) && k < refs->n; k++) {
            const char *uid = tree_str(tree_get(refs->kids[k], "uid"));
            if (tree_true(tree_get(refs->kids[k], "controller")) && uid
                && strmap_get(&uids, uid))
                cr->objs[i].derived = 1;
        }
    }
}

int clusterread_all(struct kubeapi *k, const struct clusterread_opts *o,
                    struct clusterread *cr, struct clusterread_fail *fail,
                    struct err *err)
{
    char taint_version[16];
    size_t i;

    memset(fail, 0, sizeof(*fail));
    if (discover(k, cr, taint_version, sizeof(taint_version), fail, err) < 0)
        return -1;
    for (i = 0; i < NKINDS; i++) {
        const struct cr_kind *kd = &kinds[i];
        const char *v = kd->version ? kd->version : cr->dra_version;
        if (kd->flags & CR_OPTIONAL) {
            if (!taint_version[0])
                continue;
            v = taint_version;
        }
        if (o->ns && !strcmp(kd->plural, "namespaces")) {
            get_namespace(k, o->ns, cr);
            continue;
        }
        if (list_kind(k, o, kd, v, cr, fail, err) < 0)
            return -1;
    }
    mark_derived(cr);
    cr->pages = kubeapi_pages(k);
    return 0;
}

void clusterread_to_run(const struct clusterread *cr, struct run *r,
                        struct inventory *inv, const char *file)
{
    struct err e;
    size_t i;

    for (i = 0; i < cr->n; i++) {
        const struct clusterread_obj *ob = &cr->objs[i];
        if (inv)
            inventory_add_tree(inv, ob->root, &e);  /* other kinds: no-op */
        if (ob->derived)
            run_add_derived(r, ob->root, file);
        else
            run_add_root(r, ob->root, file, 0, NULL);
    }
}
