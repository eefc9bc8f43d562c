/*
 * metadata.c - object-metadata: object metadata as apimachinery's
 * ValidateObjectMeta judges it on create (v0.36.0
 * pkg/api/validation/objectmeta.go, generic.go): the name (or the name a
 * generateName yields) in the kind's format, generateName, namespace,
 * generation, labels, annotations, ownerReferences, finalizers and
 * managedFields; a pod template's metadata (labels, annotations) and a
 * ResourceClaimTemplate's spec.metadata (ValidateTemplateObjectMeta: only
 * labels and annotations). What the client or the apiserver fills in
 * before validating is not reported: a missing namespace (kubectl uses
 * the context's) and a namespace on a cluster-scoped kind (cleared).
 */
#include <string.h>

#include "../validate/arena.h"
#include "../validate/names.h"
#include "../validate/object.h"
#include "../validate/tree.h"
#include "apival.h"
#include "checks.h"
#include "rules.h"

#define FIELD_MANAGER_MAX 128       /* FieldManagerMaxLength */
#define SUBRESOURCE_MAX 256         /* MaxSubresourceNameLength */
#define CRONJOB_NAME_MAX 52         /* 63 - 11: the Job name suffix */

enum name_fmt { NAME_SUBDOMAIN, NAME_LABEL };

struct meta_rule {
    unsigned kinds;             /* K_* bits */
    enum name_fmt fmt;
    size_t max;                 /* a stricter length, 0 = the format's */
    int check_generate_name;    /* ValidateObjectMeta (not ...WithOpts) */
};

static const struct meta_rule meta_rules[] = {
    { K_PODLIKE & ~K_CRONJOB, NAME_SUBDOMAIN, 0, 1 },
    { K_CRONJOB, NAME_SUBDOMAIN, CRONJOB_NAME_MAX, 1 },
    { K_CLAIM | K_TEMPLATE | K_SLICE | K_NODE | K_TAINTRULE | K_POOLREQ,
      NAME_SUBDOMAIN, 0, 1 },
    { K_CLASS, NAME_SUBDOMAIN, 0, 0 },  /* validate.LongName */
    { K_NAMESPACE, NAME_LABEL, 0, 1 },
};

/* Where a kind keeps pod template metadata (ValidatePodTemplateSpec) */
static const struct {
    unsigned kind;
    const char *path;
} templates[] = {
    { K_DEPLOYMENT | K_REPLICASET | K_STATEFULSET | K_DAEMONSET | K_JOB
      | K_RC, "spec.template.metadata" },
    { K_CRONJOB, "spec.jobTemplate.metadata" },
    { K_CRONJOB, "spec.jobTemplate.spec.template.metadata" },
};

/* The members of metadata ValidateObjectMeta reads, taken in one pass
 * (tree_get_many(): most objects have a name and little else) */
enum { M_NAME, M_GENERATE_NAME, M_NS, M_GENERATION, M_LABELS, M_ANNOTATIONS,
       M_OWNER_REFS, M_FINALIZERS, M_MANAGED_FIELDS, M_COUNT };
static const char *const meta_keys[M_COUNT] = {
    "name", "generateName", "namespace", "generation", "labels",
    "annotations", "ownerReferences", "finalizers", "managedFields",
};

static const struct meta_rule *rule_for(unsigned kind)
{
    size_t i;

    for (i = 0; i < sizeof(meta_rules) / sizeof(meta_rules[0]); i++)
        if (meta_rules[i].kinds & kind)
            return &meta_rules[i];
    return NULL;
}

static int name_ok(const struct meta_rule *m, const char *s)
{
    if (m->max && strlen(s) > m->max)
        return 0;
    return m->fmt == NAME_LABEL ? name_is_dns_label(s)
                                : name_is_dns_subdomain(s);
}

static void bad_name(struct check_ctx *cx, const struct meta_rule *m,
                     const struct tnode *at, const struct fpath *path,
                     const char *what, const char *s)
{
    if (m->max && strlen(s) > m->max)
        av_report(cx, at, path, "%s %s is longer than %zu characters", what,
                  av_show(cx, s), m->max);
    else if (m->fmt == NAME_LABEL)
        av_dns_label(cx, at, path, what, s);
    else
        av_dns_subdomain(cx, at, path, what, s);
}

static void check_names(struct check_ctx *cx, const struct object *o,
                        const struct meta_rule *m,
                        const struct tnode *const *mm)
{
    const struct tnode *md = o->metadata;
    const struct tnode *nn = mm[M_NAME];
    const struct tnode *gn = mm[M_GENERATE_NAME];
    struct fpath mp = fp_child(NULL, "metadata");
    struct fpath np = fp_child(&mp, "name");
    struct fpath gp = fp_child(&mp, "generateName");
    const char *name = av_str(cx, nn, &np, "name");
    const char *gen = av_str(cx, gn, &gp, "generateName");
    int gen_bad = 0;

    if (gen && *gen && m->check_generate_name) {
        char *masked = arena_alloc(cx_arena(cx), strlen(gen) + 1);
        name_mask_trailing_dash(gen, masked);
        if (!name_ok(m, masked)) {
            gen_bad = 1;
            bad_name(cx, m, gn, &gp, "generateName", gen);
        }
    }
    if (name && *name) {
        if (!name_ok(m, name))
            bad_name(cx, m, nn, &np, "name", name);
        return;
    }
    if (gen && *gen) {
        /* the apiserver makes the name: generateName cut to 58 bytes and
         * five random lowercase letters or digits */
        if (!gen_bad) {
            const char *made = arena_printf(cx_arena(cx), "%.*sxxxxx",
                                            NAME_GENERATED_BASE, gen);
            if (!name_ok(m, made))
                bad_name(cx, m, gn, &np, "the name generated from "
                         "generateName, e.g.", made);
        }
        return;
    }
    if (!nn || nn->kind == T_NULL || name)
        av_report(cx, nn ? nn : md ? md : o->kind_node, &np, "%s needs "
                  "metadata.name or metadata.generateName", o->kind_name);
}

static void check_owner_references(struct check_ctx *cx,
                                   const struct tnode *refs)
{
    static const char *const need[] = {"apiVersion", "kind", "name", "uid"};
    struct fpath mp = fp_child(NULL, "metadata");
    struct fpath path = fp_child(&mp, "ownerReferences");
    const char *controller = NULL;
    size_t i, k;

    if (!av_list(cx, refs, &path, -1, "ownerReferences"))
        return;
    for (i = 0; i < refs->n; i++) {
        const struct tnode *r = refs->kids[i];
        const char *av, *kind;
        struct fpath ip = fp_index(&path, i);
        if (!av_is_map(cx, r, &ip, "owner reference"))
            continue;
        /* validateOwnerReference reports on the list's path */
        for (k = 0; k < sizeof(need) / sizeof(need[0]); k++) {
            const char *s = tree_str(tree_get(r, need[k]));
            const char *v = s && k == 0 ? strchr(s, '/') : NULL;
            struct fpath fp = fp_child(&path, need[k]);
            /* schema.ParseGroupVersion: "v", "g/v"; else no version */
            if (!s || !*s || (v && (!v[1] || strchr(v + 1, '/'))))
                av_report(cx, tree_get(r, need[k]) ? tree_get(r, need[k])
                          : r, &fp, "owner reference %zu has no %s", i,
                          k == 0 ? "apiVersion version" : need[k]);
        }
        av = tree_str(tree_get(r, "apiVersion"));
        kind = tree_str(tree_get(r, "kind"));
        if (av && kind && !strcmp(av, "v1") && !strcmp(kind, "Event"))
            av_report(cx, r, &path, "an Event cannot be an owner");
        if (tree_true(tree_get(r, "controller"))) {
            const char *who = arena_printf(cx_arena(cx), "%s/%s",
                                           kind ? kind : "",
                                           tree_str(tree_get(r, "name"))
                                           ? tree_str(tree_get(r, "name"))
                                           : "");
            if (controller)
                av_report(cx, r, &path, "only one owner reference can be "
                          "the controller: %s and %s are", controller,
                          who);
            else
                controller = who;
        }
    }
}

static void check_finalizers(struct check_ctx *cx, const struct tnode *f)
{
    struct fpath mp = fp_child(NULL, "metadata");
    struct fpath path = fp_child(&mp, "finalizers");
    int orphan = 0, foreground = 0;
    size_t i;

    if (!av_list(cx, f, &path, -1, "finalizers"))
        return;
    for (i = 0; i < f->n; i++) {
        const char *s = av_str(cx, f->kids[i], &path, "finalizer");
        if (!s)
            continue;
        av_label_key(cx, f->kids[i], &path, "finalizer", s);
        orphan |= !strcmp(s, "orphan");
        foreground |= !strcmp(s, "foregroundDeletion");
    }
    if (orphan && foreground)
        av_report(cx, f, &path, "finalizers 'orphan' and "
                  "'foregroundDeletion' cannot both be set");
}

/* 1 if s has no control character (C0, DEL, C1 as UTF-8): what
 * ValidateFieldManager's unicode.IsPrint check refuses in practice */
static int printable(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;

    for (; *p; p++) {
        if (*p < 0x20 || *p == 0x7f)
            return 0;
        if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
            return 0;
    }
    return 1;
}

static void check_managed_fields(struct check_ctx *cx, const struct tnode *mf)
{
    struct fpath mp = fp_child(NULL, "metadata");
    struct fpath path = fp_child(&mp, "managedFields");
    size_t i;

    if (!av_list(cx, mf, &path, -1, "managedFields"))
        return;
    for (i = 0; i < mf->n; i++) {
        const struct tnode *e = mf->kids[i];
        struct fpath p = fp_index(&path, i);
        struct fpath op_p = fp_child(&p, "operation");
        struct fpath ft_p = fp_child(&p, "fieldsType");
        struct fpath mg_p = fp_child(&p, "manager");
        struct fpath sr_p = fp_child(&p, "subresource");
        const char *op, *ft, *mgr, *sub;
        if (!av_is_map(cx, e, &p, "managedFields entry"))
            continue;
        op = tree_str(tree_get(e, "operation"));
        if (!op || (strcmp(op, "Apply") && strcmp(op, "Update")))
            av_report(cx, tree_get(e, "operation") ? tree_get(e, "operation")
                      : e, &op_p, "managedFields operation must be 'Apply' "
                      "or 'Update'");
        ft = tree_str(tree_get(e, "fieldsType"));
        if (ft && *ft && strcmp(ft, "FieldsV1"))
            av_report(cx, tree_get(e, "fieldsType"), &ft_p, "managedFields "
                      "fieldsType must be 'FieldsV1'");
        mgr = tree_str(tree_get(e, "manager"));
        if (mgr && strlen(mgr) > FIELD_MANAGER_MAX)
            av_report(cx, tree_get(e, "manager"), &mg_p, "managedFields "
                      "manager is longer than %d bytes", FIELD_MANAGER_MAX);
        if (mgr && !printable(mgr))
            av_report(cx, tree_get(e, "manager"), &mg_p, "managedFields "
                      "manager must be printable characters only");
        sub = tree_str(tree_get(e, "subresource"));
        if (sub && strlen(sub) > SUBRESOURCE_MAX)
            av_report(cx, tree_get(e, "subresource"), &sr_p, "managedFields "
                      "subresource is longer than %d bytes",
                      SUBRESOURCE_MAX);
    }
}

/* ValidateTemplateObjectMeta: labels and annotations, nothing else set */
static void check_template_meta(struct check_ctx *cx, const struct tnode *m,
                                const struct fpath *path, int only_labels)
{
    struct fpath lp = fp_child(path, "labels");
    struct fpath ap = fp_child(path, "annotations");
    size_t i;

    if (!av_is_map(cx, m, path, "metadata"))
        return;
    av_labels(cx, tree_get(m, "labels"), &lp);
    av_annotations(cx, tree_get(m, "annotations"), &ap);
    for (i = 0; only_labels && i < m->n; i++) {
        const struct tnode *f = m->kids[i];
        if (!strcmp(f->key, "labels") || !strcmp(f->key, "annotations")
            || f->kind == T_NULL || (f->kind == T_STR && !*f->str)
            || ((f->kind == T_MAP || f->kind == T_SEQ) && !f->n))
            continue;
        struct fpath fp = fp_child(path, f->key);
        av_report(cx, f, &fp, "%s may only set labels and annotations, not "
                  "'%s'", fp_text(cx, path), f->key);
    }
}

void check_object_metadata(struct check_ctx *cx, const struct object *o)
{
    const struct meta_rule *m = rule_for(o->kind);
    const struct tnode *mm[M_COUNT];
    struct fpath mp = fp_child(NULL, "metadata");
    struct fpath nsp = fp_child(&mp, "namespace");
    struct fpath gp = fp_child(&mp, "generation");
    struct fpath lp = fp_child(&mp, "labels");
    struct fpath ap = fp_child(&mp, "annotations");
    const char *nss;
    long long gen;
    size_t i;

    if (!m)
        return;
    tree_get_many(o->metadata, meta_keys, mm, M_COUNT);
    check_names(cx, o, m, mm);
    nss = av_str(cx, mm[M_NS], &nsp, "namespace");
    /* object_ns() is "" for a cluster-scoped kind (kinds.h) */
    if (nss && *nss && *object_ns(o))
        av_dns_label(cx, mm[M_NS], &nsp, "namespace", nss);
    if (tree_int(mm[M_GENERATION], &gen) == 0 && gen < 0)
        av_report(cx, mm[M_GENERATION], &gp, "generation must not be negative");
    av_labels(cx, mm[M_LABELS], &lp);
    av_annotations(cx, mm[M_ANNOTATIONS], &ap);
    check_owner_references(cx, mm[M_OWNER_REFS]);
    check_finalizers(cx, mm[M_FINALIZERS]);
    check_managed_fields(cx, mm[M_MANAGED_FIELDS]);
    if (o->kind == K_TEMPLATE && tree_get(o->spec, "metadata")) {
        struct fpath tp = fp_child(NULL, "spec.metadata");
        check_template_meta(cx, tree_get(o->spec, "metadata"), &tp, 1);
    }
    for (i = 0; i < sizeof(templates) / sizeof(templates[0]); i++)
        if ((templates[i].kind & o->kind)
            && tree_at(o->root, templates[i].path)) {
            struct fpath tp = fp_child(NULL, templates[i].path);
            check_template_meta(cx, tree_at(o->root, templates[i].path), &tp,
                                0);
        }
}
