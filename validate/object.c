/*
 * object.c - recognising Kubernetes objects and reading them into the
 * normalised view of object.h. Knows where each kind keeps its pod
 * template and how each resource.k8s.io version shapes device requests;
 * knows nothing about rules.
 */
#include "object.h"

#include <string.h>

#include "arena.h"
#include "suggest.h"
#include "tree.h"

int object_is_list(const struct tnode *root)
{
    const char *k;
    size_t l;

    /* items first: a document without them is no List, whatever its
     * kind (issue 17: every document is asked) */
    if (!tree_is_seq(tree_get(root, "items")))
        return 0;
    k = tree_str(tree_get(root, "kind"));
    if (!k)
        return 0;
    l = strlen(k);
    return l >= 4 && strcmp(k + l - 4, "List") == 0;
}

const char *object_ns(const struct object *o)
{
    const struct kind_info *k = kind_by_bit(o->kind);

    if (k && !k->namespaced)
        return "";
    return o->ns && *o->ns ? o->ns : "default";
}

const char *object_ref(struct arena *a, const struct object *o)
{
    const char *name = o->name && *o->name ? o->name : "<unnamed>";

    if (o->ns && *o->ns)
        return arena_printf(a, "%s/%s", o->ns, name);
    return name;
}

/* ==== DRA requests ====================================================== */

static void read_selectors(struct arena *a, const struct tnode *list,
                           struct selector **out, size_t *n)
{
    size_t i, k = 0;

    *out = NULL;
    *n = 0;
    if (!tree_is_seq(list) || !list->n)
        return;
    *out = arena_alloc(a, list->n * sizeof(**out));
    for (i = 0; i < list->n; i++) {
        const struct tnode *e = list->kids[i];
        const struct tnode *x = tree_get(tree_get(e, "cel"), "expression");
        (*out)[k].node = e;
        (*out)[k].expr_node = x;
        (*out)[k].expr = tree_str(x);
        k++;
    }
    *n = k;
}

static void read_tolerations(struct arena *a, struct devreq *r)
{
    const struct tnode *t = r->tolerations;
    size_t i;

    if (!tree_is_seq(t) || !t->n)
        return;
    r->tols = arena_alloc(a, t->n * sizeof(*r->tols));
    r->ntols = t->n;
    for (i = 0; i < t->n; i++) {
        struct devtol *d = &r->tols[i];
        d->node = t->kids[i];
        d->key_node = tree_get(d->node, "key");
        d->key = tree_str(d->key_node);
        d->op_node = tree_get(d->node, "operator");
        d->op = tree_str(d->op_node);
        d->value_node = tree_get(d->node, "value");
        d->value = tree_str(d->value_node);
        d->effect_node = tree_get(d->node, "effect");
        d->effect = tree_str(d->effect_node);
        /* +default="Equal" (every served version) */
        if (tree_is_map(d->node) && (!d->op_node || d->op_node->kind == T_NULL
                                     || (d->op && !*d->op)))
            d->op = "Equal";
    }
}

/* SetDefaults_ExactDeviceRequest / _DeviceSubRequest / (v1alpha3,
 * v1beta1) _DeviceRequest: an empty allocationMode becomes ExactCount,
 * then a zero count with ExactCount becomes 1. */
static void default_mode_count(struct devreq *r)
{
    if (!r->mode_node || r->mode_node->kind == T_NULL
        || (r->mode && !*r->mode))
        r->mode = "ExactCount";
    if (r->mode && !strcmp(r->mode, "ExactCount") && r->count == 0)
        r->count = 1;
}

/* Fills the exact-request fields of r from mapping f; dflt: apply the
 * allocationMode/count defaults (see read_request). */
static void read_exact(struct arena *a, struct devreq *r,
                       const struct tnode *f, int dflt)
{
    long long c;

    r->fields = tree_is_map(f) ? f : NULL;
    r->count = 0;
    if (!r->fields)
        return;
    r->class_node = tree_get(f, "deviceClassName");
    r->class_name = tree_str(r->class_node);
    r->selectors_node = tree_get(f, "selectors");
    read_selectors(a, r->selectors_node, &r->sel, &r->nsel);
    r->mode_node = tree_get(f, "allocationMode");
    r->mode = tree_str(r->mode_node);
    r->count_node = tree_get(f, "count");
    if (tree_int(r->count_node, &c) == 0)
        r->count = c;
    r->admin_node = tree_get(f, "adminAccess");
    r->admin_access = tree_true(r->admin_node);
    r->tolerations = tree_get(f, "tolerations");
    read_tolerations(a, r);
    r->capacity = tree_get(f, "capacity");
    if (dflt)
        default_mode_count(r);
}

static void read_request(struct arena *a, enum dra_shape shape,
                         const struct tnode *n, struct devreq *r)
{
    const struct tnode *fa;
    size_t i;

    r->node = n;
    r->name_node = tree_get(n, "name");
    r->name = tree_str(r->name_node);
    fa = tree_get(n, "firstAvailable");
    r->first_available = fa;
    /* v1alpha3/v1beta1 SetDefaults_DeviceRequest returns early when
     * deviceClassName is empty (a firstAvailable request) */
    if (shape == DRA_EXACTLY)
        read_exact(a, r, tree_get(n, "exactly"), 1);
    else
        read_exact(a, r, n, tree_str(tree_get(n, "deviceClassName"))
                   && *tree_str(tree_get(n, "deviceClassName")));
    if (tree_is_seq(fa) && fa->n) {
        r->subs = arena_alloc(a, fa->n * sizeof(*r->subs));
        r->nsubs = fa->n;
        for (i = 0; i < fa->n; i++) {
            struct devreq *s = &r->subs[i];
            s->node = fa->kids[i];
            s->name_node = tree_get(s->node, "name");
            s->name = tree_str(s->name_node);
            s->parent = r;
            read_exact(a, s, s->node, 1);
        }
    }
}

static struct claimspec *read_claimspec(struct arena *a, const char *version,
                                        const struct tnode *spec)
{
    struct claimspec *c = arena_alloc(a, sizeof(*c));
    const struct tnode *reqs;
    size_t i;

    c->shape = (!strcmp(version, "v1alpha3") || !strcmp(version, "v1beta1")
                || !strncmp(version, "v1alpha", 7))
               ? DRA_FLAT : DRA_EXACTLY;
    c->spec = tree_is_map(spec) ? spec : NULL;
    c->devices = tree_get(spec, "devices");
    reqs = tree_get(c->devices, "requests");
    c->requests_node = reqs;
    c->constraints = tree_get(c->devices, "constraints");
    c->config = tree_get(c->devices, "config");
    if (tree_is_seq(reqs) && reqs->n) {
        c->reqs = arena_alloc(a, reqs->n * sizeof(*c->reqs));
        c->nreqs = reqs->n;
        for (i = 0; i < reqs->n; i++)
            read_request(a, c->shape, reqs->kids[i], &c->reqs[i]);
    }
    return c;
}

static struct classspec *read_classspec(struct arena *a,
                                        const struct tnode *spec)
{
    struct classspec *c = arena_alloc(a, sizeof(*c));

    c->spec = tree_is_map(spec) ? spec : NULL;
    c->selectors_node = tree_get(spec, "selectors");
    read_selectors(a, c->selectors_node, &c->sel, &c->nsel);
    c->extended_node = tree_get(spec, "extendedResourceName");
    c->extended_resource = tree_str(c->extended_node);
    return c;
}

/* ==== pods ============================================================== */

/* SetDefaults_Pod: a container's limit without a request becomes its
 * request too (kind Pod only, not ephemeral containers; a template's
 * containers are defaulted when the Pod is made). The map returned is
 * not in the tree: its kids are the written requests, then the limits'
 * own nodes (their parent stays `limits`). */
static const struct tnode *default_requests(struct arena *a,
                                            const struct tnode *res,
                                            const struct tnode *req,
                                            const struct tnode *lim)
{
    struct tnode *m;
    size_t i, k = 0, add = 0;

    if (!tree_is_map(lim) || (req && !tree_is_map(req)))
        return req;
    for (i = 0; i < lim->n; i++)
        add += !tree_get(req, lim->kids[i]->key);
    if (!add)
        return req;
    m = tree_new(a, T_MAP, lim->line, lim->col);
    m->parent = res;
    m->key = "requests";
    m->key_line = lim->key_line;
    m->key_col = lim->key_col;
    m->n = (unsigned)((req ? req->n : 0) + add);
    m->kids = tree_kids_new(a, m->n);
    for (i = 0; req && i < req->n; i++)
        m->kids[k++] = req->kids[i];
    for (i = 0; i < lim->n; i++)
        if (!tree_get(req, lim->kids[i]->key))
            m->kids[k++] = lim->kids[i];
    return m;
}

static size_t add_containers(struct arena *a, struct podspec *p,
                             const struct tnode *list, int init,
                             int ephemeral, int is_pod, size_t k)
{
    size_t i;

    if (!tree_is_seq(list))
        return k;
    for (i = 0; i < list->n; i++) {
        struct container *c = &p->ctrs[k++];
        const struct tnode *res = tree_get(list->kids[i], "resources");
        c->node = list->kids[i];
        c->name = tree_str(tree_get(c->node, "name"));
        c->init = init;
        c->ephemeral = ephemeral;
        c->limits = tree_get(res, "limits");
        c->requests_written = tree_get(res, "requests");
        c->requests = c->requests_written;
        if (is_pod && !ephemeral)
            c->requests = default_requests(a, res, c->requests, c->limits);
        c->claims = tree_get(res, "claims");
    }
    return k;
}

/* The podspec of an absent or empty spec: nothing to read (a pod without
 * spec, issue 17) */
static struct podspec *no_podspec(struct arena *a, const struct tnode *spec,
                                  const struct tnode *meta)
{
    struct podspec *p = arena_alloc(a, sizeof(*p));

    p->spec = spec;
    p->meta = meta;
    return p;
}

static struct podspec *read_podspec(struct arena *a, const struct tnode *spec,
                                    const struct tnode *meta, int is_pod)
{
    struct podspec *p = arena_alloc(a, sizeof(*p));
    const struct tnode *rc, *ic, *cc, *ec;
    size_t n = 0, i;

    p->spec = spec;
    p->meta = meta;
    rc = tree_get(spec, "resourceClaims");
    p->claims_node = rc;
    if (tree_is_seq(rc) && rc->n) {
        p->claims = arena_alloc(a, rc->n * sizeof(*p->claims));
        p->nclaims = rc->n;
        for (i = 0; i < rc->n; i++) {
            struct podclaim *c = &p->claims[i];
            const struct tnode *src;
            c->node = rc->kids[i];
            c->name_node = tree_get(c->node, "name");
            c->name = tree_str(c->name_node);
            /* 1.26-1.30 nested the reference under `source` */
            src = tree_get(c->node, "source");
            if (!tree_is_map(src))
                src = c->node;
            c->claim_node = tree_get(src, "resourceClaimName");
            c->claim_name = tree_str(c->claim_node);
            c->template_node = tree_get(src, "resourceClaimTemplateName");
            c->template_name = tree_str(c->template_node);
        }
    }
    ic = tree_get(spec, "initContainers");
    cc = tree_get(spec, "containers");
    ec = tree_get(spec, "ephemeralContainers");
    n += tree_is_seq(ic) ? ic->n : 0;
    n += tree_is_seq(cc) ? cc->n : 0;
    n += tree_is_seq(ec) ? ec->n : 0;
    if (n) {
        p->ctrs = arena_alloc(a, n * sizeof(*p->ctrs));
        n = add_containers(a, p, ic, 1, 0, is_pod, 0);
        n = add_containers(a, p, cc, 0, 0, is_pod, n);
        n = add_containers(a, p, ec, 0, 1, is_pod, n);
        p->nctrs = n;
    }
    return p;
}

/* ==== recognition ======================================================= */

/* "'kind' is set but 'apiVersion' is missing", naming the key that was
 * probably meant (`apiversion:`, case-sensitive like every field name) */
static const char *missing(struct arena *a, const struct tnode *root,
                           const char *set, const char *want)
{
    size_t i;

    for (i = 0; i < root->n; i++) {
        struct suggest s;
        suggest_init(&s, root->kids[i]->key);
        suggest_add(&s, want);
        if (suggest_best(&s))
            return arena_printf(a, "'%s' is set but '%s' is missing: did "
                                "you mean '%s' instead of '%s'?", set, want,
                                want, root->kids[i]->key);
    }
    return arena_printf(a, "'%s' is set but '%s' is missing", set, want);
}

enum object_status object_read(struct arena *a, const struct tnode *root,
                               const char *file, unsigned doc_index,
                               struct object *o,
                               const struct tnode **bad_at, const char **why)
{
    static const char *const top_keys[] = {"apiVersion", "kind", "metadata",
                                           "spec"};
    const struct tnode *top[4];
    const struct tnode *av, *kd, *md;
    const char *slash;
    const struct kind_info *d;

    memset(o, 0, sizeof(*o));
    *bad_at = root;
    *why = NULL;
    if (!tree_is_map(root))
        return OBJ_NOT_K8S;
    tree_get_many(root, top_keys, top, 4);
    av = top[0];
    kd = top[1];
    if (!av && !kd)
        return OBJ_NOT_K8S;
    if (!kd) {
        *bad_at = av;
        *why = missing(a, root, "apiVersion", "kind");
        return OBJ_BAD;
    }
    if (!av) {
        *bad_at = kd;
        *why = missing(a, root, "kind", "apiVersion");
        return OBJ_BAD;
    }
    if (!tree_str(av) || !*av->str) {
        *bad_at = av;
        *why = arena_printf(a, "'apiVersion' must be a non-empty string, "
                            "not %s", tree_kind_desc(av));
        return OBJ_BAD;
    }
    if (!tree_str(kd) || !*kd->str) {
        *bad_at = kd;
        *why = arena_printf(a, "'kind' must be a non-empty string, not %s",
                            tree_kind_desc(kd));
        return OBJ_BAD;
    }
    md = top[2];
    o->root = root;
    o->api_node = av;
    if (md && md->kind != T_MAP && md->kind != T_NULL) {
        o->api_version = av->str;
        o->kind_name = kd->str;
        *bad_at = md;
        *why = arena_printf(a, "'metadata' must be a mapping, not %s",
                            tree_kind_desc(md));
        return OBJ_BAD;
    }
    o->kind_node = kd;
    o->api_version = av->str;
    o->kind_name = kd->str;
    o->metadata = tree_is_map(md) ? md : NULL;
    o->file = file;
    o->doc_index = doc_index;
    slash = strrchr(av->str, '/');
    if (slash) {
        o->group = arena_strndup(a, av->str, (size_t)(slash - av->str));
        o->version = slash + 1;
    } else {
        o->group = "";
        o->version = av->str;
    }
    o->ns = tree_str(tree_get(md, "namespace"));
    if (!o->ns)
        o->ns = "";
    o->name = tree_str(tree_get(md, "name"));
    if (!o->name)
        o->name = tree_str(tree_get(md, "generateName"));
    if (!o->name)
        o->name = "";
    d = kind_by_name(kd->str, strlen(kd->str));
    if (!d || !kind_group_ok(d, o->group))
        return OBJ_OTHER;
    o->kind = d->bit;
    o->spec = top[3];
    if (o->spec && o->spec->kind != T_MAP && o->spec->kind != T_NULL) {
        *bad_at = o->spec;
        *why = arena_printf(a, "'spec' must be a mapping, not %s",
                            tree_kind_desc(o->spec));
        return OBJ_BAD;
    }
    if (d->pod_path) {
        /* a Pod's is its spec, found already */
        const struct tnode *ps = strcmp(d->pod_path, "spec")
                                 ? tree_at(root, d->pod_path) : o->spec;
        if (ps && !tree_is_map(ps)) {
            *bad_at = ps;
            *why = arena_printf(a, "'%s' must be a mapping, not %s",
                                d->pod_path, tree_kind_desc(ps));
            return OBJ_BAD;
        }
        o->pod = ps && ps->kind == T_MAP && ps->n
                 ? read_podspec(a, ps, d->meta_path
                                ? tree_at(root, d->meta_path) : NULL,
                                d->bit == K_POD)
                 : no_podspec(a, ps, d->meta_path
                              ? tree_at(root, d->meta_path) : NULL);
    }
    o->replicas = 1;
    if (d->bit == K_DAEMONSET) {
        o->replicas = -1;       /* one per node */
    } else if (d->replicas_path) {
        long long r;
        o->replicas_node = tree_at(root, d->replicas_path);
        if (tree_int(o->replicas_node, &r) == 0)
            o->replicas = r;
    }
    if (d->bit == K_CLAIM)
        o->claim = read_claimspec(a, o->version, o->spec);
    else if (d->bit == K_TEMPLATE)
        o->claim = read_claimspec(a, o->version, tree_get(o->spec, "spec"));
    else if (d->bit == K_CLASS)
        o->cls = read_classspec(a, o->spec);
    return OBJ_OK;
}

int claimspec_has_request(const struct claimspec *c, const char *ref)
{
    const char *slash = strchr(ref, '/');
    size_t i, j, rl = slash ? (size_t)(slash - ref) : strlen(ref);

    for (i = 0; i < c->nreqs; i++) {
        const struct devreq *r = &c->reqs[i];
        if (!r->name || strlen(r->name) != rl || strncmp(r->name, ref, rl))
            continue;
        if (!slash)
            return 1;
        for (j = 0; j < r->nsubs; j++)
            if (r->subs[j].name && !strcmp(r->subs[j].name, slash + 1))
                return 1;
    }
    return 0;
}
