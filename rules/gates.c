/*
 * gates.c - the feature-gate and api-version families:
 * feature-gate-disabled, feature-gate-prerelease (gated fields, read from
 * the gated_fields table of validate/k8s/gates.yaml, against the target's
 * effective gates) and api-version-unavailable, api-version-deprecated (the
 * resource.k8s.io version timeline against the target and runtime-config).
 * Gate-dependent CEL (includes(), device.allowMultipleAllocations) is the
 * selector rules' business, not this file's.
 */
#include <string.h>

#include "../validate/arena.h"
#include "../validate/config.h"
#include "../validate/object.h"
#include "../validate/target.h"
#include "../validate/tree.h"
#include "checks.h"
#include "../validate/k8s/gates.h"
#include "rules.h"

/* ==== walking gated paths =============================================== */

static unsigned object_shape(const struct object *o)
{
    const char *v = o->version ? o->version : "";

    if (!(o->kind & K_DRA))
        return SHAPE_ANY;
    if (!strncmp(v, "v1alpha", 7) || !strcmp(v, "v1beta1"))
        return SHAPE_FLAT;
    return SHAPE_EXACTLY;
}

/* The mapping gated paths are relative to, or NULL. */
static const struct tnode *field_root(const struct object *o)
{
    if (o->kind & K_PODLIKE)
        return o->pod ? o->pod->spec : NULL;
    if (o->kind & K_CLAIMLIKE)
        return o->claim ? o->claim->spec : NULL;
    return o->spec;
}

/* A field worth reporting: dropping null, false or an empty list changes
 * nothing. */
static int meaningful(const struct tnode *n)
{
    if (!n || n->kind == T_NULL)
        return 0;
    if (n->kind == T_BOOL)
        return n->boolean;
    if (n->kind == T_SEQ || n->kind == T_MAP)
        return n->n > 0;
    return 1;
}

/* The member of map n whose key is the len bytes at key, or NULL: the
 * path segment compared where it lies, not copied out first. */
static const struct tnode *member(const struct tnode *n, const char *key,
                                  size_t len)
{
    size_t i, j;

    for (i = 0; i < n->n; i++) {
        const char *k = n->kids[i]->key;
        if (k[0] != key[0])
            continue;
        for (j = 1; j < len && k[j] == key[j]; j++)
            ;
        if (j == len && k[j] == '\0')
            return n->kids[i];
    }
    return NULL;
}

/* Calls fn for every node path (see struct gated_field) reaches from n. */
static void walk(const struct tnode *n, const char *path,
                 void (*fn)(void *arg, const struct tnode *at), void *arg)
{
    const char *dot = strchr(path, '.');
    size_t len = dot ? (size_t)(dot - path) : strlen(path);
    int seq = 0, map = 0;
    const struct tnode *v;
    size_t i;

    if (!tree_is_map(n))
        return;
    if (len > 2 && path[len - 2] == '[' && path[len - 1] == ']') {
        seq = 1;
        len -= 2;
    } else if (len > 3 && path[len - 3] == '[' && path[len - 2] == '*'
               && path[len - 1] == ']') {
        map = 1;
        len -= 3;
    }
    v = member(n, path, len);
    if (!v)
        return;
    if (!seq && !map) {
        if (dot)
            walk(v, dot + 1, fn, arg);
        else if (meaningful(v))
            fn(arg, v);
        return;
    }
    if ((seq && !tree_is_seq(v)) || (map && !tree_is_map(v)))
        return;
    for (i = 0; i < v->n; i++) {
        if (dot)
            walk(v->kids[i], dot + 1, fn, arg);
        else if (meaningful(v->kids[i]))
            fn(arg, v->kids[i]);
    }
}

/* ==== verdicts ========================================================== */

enum verdict { V_OK, V_DISABLED, V_PRERELEASE };

/* "on by default from 1.34", "not on by default in any version yet" */
static const char *on_from(struct arena *a, const struct gate *g)
{
    int m = gate_on_minor(g);

    if (!m)
        return "no release turns it on by default yet";
    if (m > GATE_RELEASED_MINOR)
        return arena_printf(a, "on by default planned for 1.%d", m);
    return arena_printf(a, "on by default from 1.%d", m);
}

/* "GA in 1.36", "GA planned for 1.38 (KEP 5075)", "no GA version known" */
static const char *ga_when(struct arena *a, const struct gate *g)
{
    int m = gate_ga_minor(g);

    if (m > GATE_RELEASED_MINOR)
        return arena_printf(a, "GA planned for 1.%d", m);
    if (m)
        return arena_printf(a, "GA in 1.%d", m);
    if (g->plan)
        return g->plan;
    return "no GA version announced";
}

/* The gated field that replaces f from the minor f ends (same gate and
 * kinds, `since` where f has `until`), or NULL: a renamed field. */
static const struct gated_field *renamed_to(const struct gated_field *f)
{
    size_t i;

    for (i = 0; f->until && i < gated_field_count; i++) {
        const struct gated_field *g = &gated_fields[i];
        if (g != f && g->since == f->until && !strcmp(g->gate, f->gate)
            && (g->kinds & f->kinds))
            return g;
    }
    return NULL;
}

/* What judge_gate found besides the message: a hint for the case (NULL:
 * the rule's) and whether the gate is beta and on by default. */
struct gate_case {
    const char *hint;
    int beta_default_on;
};

static const char *field_name(const char *path);

/* Judges one gate of field f at the target; *why gets the message part
 * before ": the apiserver drops ..." (disabled) or the whole message
 * (prerelease), gc the hint that fits the case. */
static enum verdict judge_gate(struct arena *a, const struct target *t,
                               const struct gated_field *f, const char *gname,
                               const char *field, const char **why,
                               struct gate_case *gc)
{
    int gi = gate_find(gname);
    const struct gate *g;
    struct gate_state s;
    int since, m = t->minor;

    if (gi < 0)
        return V_OK;
    g = &gate_table[gi];
    gate_state_at(g, m, &s);
    since = f->since ? f->since : gate_first_minor(g);
    gc->hint = NULL;
    gc->beta_default_on = 0;
    if (since && m < since) {
        *why = arena_printf(a, "'%s' does not exist in Kubernetes %s: it "
                            "comes with feature gate %s in 1.%d (%s)", field,
                            t->version, g->name, since, on_from(a, g));
        gc->hint = arena_printf(a, "drop the field for Kubernetes %s, or "
                                "target 1.%d or newer (-k) once the cluster "
                                "runs it", t->version, since);
        return V_DISABLED;
    }
    if (f->until && m >= f->until) {
        const struct gated_field *nf = renamed_to(f);
        *why = arena_printf(a, "'%s' no longer exists in Kubernetes %s "
                            "(removed in 1.%d)", field, t->version,
                            f->until);
        gc->hint = nf ? arena_printf(a, "the field was renamed in 1.%d: "
                                     "write '%s' instead", f->until,
                                     field_name(nf->path))
                      : arena_printf(a, "drop the field: Kubernetes 1.%d "
                                     "removed it", f->until);
        return V_DISABLED;
    }
    if (s.stage == GATE_ABSENT)
        return V_OK;    /* the field predates its gate (v1alpha3 1.31) */
    if (s.stage == GATE_REMOVED) {
        if (gate_ga_minor(g))
            return V_OK;
        *why = arena_printf(a, "'%s' no longer exists in Kubernetes %s: "
                            "feature gate %s was removed without reaching "
                            "GA", field, t->version, g->name);
        gc->hint = "drop the field: the feature is gone and no gate brings "
                   "it back";
        return V_DISABLED;
    }
    if (!t->gate_on[gi]) {
        if (t->gate_set[gi] && s.on) {
            *why = arena_printf(a, "'%s' needs feature gate %s, which "
                                "--feature-gates turns off (%s in "
                                "Kubernetes %s, on by default)", field,
                                g->name, gate_stage_name(s.stage),
                                t->version);
            gc->hint = arena_printf(a, "remove %s=false from the cluster's "
                                    "--feature-gates (and from -g), or drop "
                                    "the field", g->name);
        } else {
            *why = arena_printf(a, "'%s' needs feature gate %s, which is "
                                "off in Kubernetes %s (%s, off by default; "
                                "%s)", field, g->name, t->version,
                                gate_stage_name(s.stage), on_from(a, g));
            gc->hint = arena_printf(a, "enable %s on the cluster (and pass "
                                    "-g %s=true), or drop the field", g->name,
                                    g->name);
        }
        return V_DISABLED;
    }
    if (s.stage == GATE_GA)
        return V_OK;
    if (s.stage == GATE_ALPHA)
        *why = arena_printf(a, "'%s' needs feature gate %s, alpha in "
                            "Kubernetes %s%s (%s): alpha fields can change "
                            "or be removed without notice", field, g->name,
                            t->version, t->gate_set[gi]
                            ? " and turned on by --feature-gates" : "",
                            ga_when(a, g));
    else
        *why = arena_printf(a, "'%s' needs feature gate %s, beta in "
                            "Kubernetes %s (%s; %s): it may still change",
                            field, g->name, t->version, s.on
                            ? "on by default" : "turned on by "
                            "--feature-gates", ga_when(a, g));
    if (s.stage == GATE_BETA && s.on) {
        gc->beta_default_on = 1;
        gc->hint = "nothing to do while the gate stays on by default; pin "
                   "the Kubernetes version if you depend on the field "
                   "(config betaOnByDefault: warning makes this a warning)";
    }
    return V_PRERELEASE;
}

/* The name a message quotes: the pattern after its last "[]." / "[*].",
 * e.g. "resources.claims", "exactly.adminAccess", "taints". */
static const char *field_name(const char *path)
{
    const char *p = strrchr(path, ']');

    return p && p[1] == '.' ? p + 2 : path;
}

struct field_ctx {
    struct check_ctx *cx;
    const struct gated_field *f;
    enum verdict want;
};

static void on_field(void *arg, const struct tnode *at)
{
    struct field_ctx *fc = arg;
    struct arena *a = cx_arena(fc->cx);
    const struct target *t = cx_target(fc->cx);
    const char *field = field_name(fc->f->path);
    const char *why = NULL, *why2 = NULL;
    struct gate_case gc, gc2 = {NULL, 0};
    enum verdict v, v2 = V_OK;
    enum sev mild = t->cfg ? t->cfg->beta_on_sev : SEV_INFO;

    v = judge_gate(a, t, fc->f, fc->f->gate, field, &why, &gc);
    if (fc->f->gate2)
        v2 = judge_gate(a, t, fc->f, fc->f->gate2, field, &why2, &gc2);
    if ((v != V_DISABLED && v2 == V_DISABLED)
        || (v == V_OK && v2 == V_PRERELEASE)
        || (v == V_PRERELEASE && v2 == V_PRERELEASE
            && gc.beta_default_on && !gc2.beta_default_on)) {
        v = v2;
        why = why2;
        gc = gc2;
    }
    if (v != fc->want || (gc.beta_default_on && mild == SEV_OFF))
        return;
    if (gc.hint)
        report_hint(fc->cx, gc.hint);
    if (v == V_DISABLED)
        report(fc->cx, at, "%s: the apiserver drops it silently and %s",
               why, fc->f->effect);
    else if (gc.beta_default_on)
        report_capped(fc->cx, mild, at, "%s", why);
    else
        report(fc->cx, at, "%s", why);
}

/* 1 if o's apiVersion is one the target apiserver has (enabled or not):
 * fields of an object it rejects outright are api-version-unavailable's
 * business, not a second finding. */
static int version_exists(struct check_ctx *cx, const struct object *o)
{
    int k;

    if (!(o->kind & K_DRA))
        return 1;
    k = api_version_find(o->version ? o->version : "");
    return k >= 0
           && api_version_served(&api_versions[k], cx_target(cx)->minor);
}

/* The gated fields found in one object: feature-gate-disabled walks the
 * object and keeps them here (run memo "gates.found"), and
 * feature-gate-prerelease, which runs right after it on the same object,
 * reads them instead of walking again. Either rule walks by itself when
 * the other is off: the list serves only the object it names. */
struct found {
    const struct object *o;         /* whose fields, or NULL: none kept */
    const struct tnode *root;
    size_t n, cap;
    struct found_field {
        const struct gated_field *f;
        const struct tnode *at;
    } *v;
};

struct collect {
    struct arena *a;
    struct found *fd;
    const struct gated_field *f;
};

static void keep_field(void *arg, const struct tnode *at)
{
    struct collect *c = arg;
    struct found *fd = c->fd;

    if (fd->n == fd->cap) {
        size_t cap = fd->cap ? 2 * fd->cap : 16;
        struct found_field *v = arena_alloc(c->a, cap * sizeof(*v));
        if (fd->n)
            memcpy(v, fd->v, fd->n * sizeof(*v));
        fd->v = v;
        fd->cap = cap;
    }
    fd->v[fd->n].f = c->f;
    fd->v[fd->n].at = at;
    fd->n++;
}

/* Fills fd with the gated fields of o that reach the checks. */
static void find_fields(struct check_ctx *cx, const struct object *o,
                        struct found *fd)
{
    const struct tnode *root = field_root(o);
    unsigned shape = object_shape(o);
    struct collect c;
    size_t i;

    fd->o = o;
    fd->root = o->root;
    fd->n = 0;
    if (!root || !version_exists(cx, o))
        return;
    c.a = cx_arena(cx);
    c.fd = fd;
    for (i = 0; i < gated_field_count; i++) {
        const struct gated_field *f = &gated_fields[i];
        if (!(f->kinds & o->kind) || !(f->shapes & shape))
            continue;
        c.f = f;
        walk(root, f->path, keep_field, &c);
    }
}

static struct found *found_memo(struct check_ctx *cx)
{
    struct found **slot = (struct found **)cx_memo_fixed(cx, "gates.found");

    if (!*slot) {
        *slot = arena_alloc(cx_arena(cx), sizeof(**slot));
        memset(*slot, 0, sizeof(**slot));
    }
    return *slot;
}

static void judge_fields(struct check_ctx *cx, const struct found *fd,
                         enum verdict want)
{
    struct field_ctx fc;
    size_t i;

    fc.cx = cx;
    fc.want = want;
    for (i = 0; i < fd->n; i++) {
        fc.f = fd->v[i].f;
        on_field(&fc, fd->v[i].at);
    }
}

/* An object under admission (no file) has been through the apiserver's
 * PrepareForCreate/Update, which already dropped every field whose gate is
 * off, and arrives in a version the apiserver serves: reporting either
 * would only repeat a mismatch between the webhook's flags and the
 * cluster. */
static int admitted(const struct object *o)
{
    return o->file == NULL;
}

void check_feature_gate_disabled(struct check_ctx *cx, const struct object *o)
{
    struct found *fd = found_memo(cx);

    fd->o = NULL;
    if (admitted(o))
        return;
    find_fields(cx, o, fd);
    judge_fields(cx, fd, V_DISABLED);
}

void check_feature_gate_prerelease(struct check_ctx *cx,
                                   const struct object *o)
{
    struct found *fd = found_memo(cx);

    /* feature-gate-disabled found them just now, unless it is off */
    if (fd->o != o || fd->root != o->root)
        find_fields(cx, o, fd);
    fd->o = NULL;       /* used: the next object walks again */
    judge_fields(cx, fd, V_PRERELEASE);
}

/* ==== API versions ====================================================== */

/* The newest resource.k8s.io version enabled at the target, or NULL. */
static const char *best_enabled(const struct target *t)
{
    size_t i = api_version_count;

    while (i-- > 0)
        if (t->api_on[i])
            return api_versions[i].version;
    return NULL;
}

/* The newest version served (enabled or not) at the target, or NULL. */
static const char *best_served(const struct target *t)
{
    size_t i = api_version_count;

    while (i-- > 0)
        if (api_version_served(&api_versions[i], t->minor))
            return api_versions[i].version;
    return NULL;
}

static unsigned version_shape(const char *v)
{
    if (!strncmp(v, "v1alpha", 7) || !strcmp(v, "v1beta1"))
        return SHAPE_FLAT;
    return SHAPE_EXACTLY;
}

/* "use resource.k8s.io/v1 (requests move under exactly, ...)" or how to
 * enable the newest served version. Arena-owned. */
static const char *instead(struct arena *a, const struct target *t,
                           const struct object *o)
{
    const char *best = best_enabled(t);
    const char *shape = "";

    if (best && strcmp(best, o->version)) {
        if (!strcmp(o->version, "v1alpha1") || !strcmp(o->version, "v1alpha2"))
            shape = " (classic DRA objects do not convert: rewrite them with "
                    "device requests)";
        else if (version_shape(best) != version_shape(o->version)
            && o->kind & (K_CLAIMLIKE | K_SLICE))
            shape = version_shape(best) == SHAPE_EXACTLY
                    ? (o->kind & K_SLICE ? " (device fields move out of "
                       "`basic`)" : " (request fields move under "
                       "`exactly`)")
                    : "";
        return arena_printf(a, "use resource.k8s.io/%s%s", best, shape);
    }
    best = best_served(t);
    if (best)
        return arena_printf(a, "enable resource.k8s.io/%s with "
                            "--runtime-config=resource.k8s.io/%s=true", best,
                            best);
    return "DRA has no API in this version";
}

static int is_resource_group(const struct object *o)
{
    return o->group && !strcmp(o->group, "resource.k8s.io") && o->version;
}

/* "v1alpha3 from 1.33, v1beta2 from 1.36" for a kind with its own
 * timeline (kind_versions). Arena-owned. */
static const char *kind_timeline(struct arena *a, const char *kind)
{
    const char *out = "";
    size_t i;

    for (i = 0; i < kind_version_count; i++)
        if (!strcmp(kind_versions[i].kind, kind))
            out = arena_printf(a, "%s%s%s from 1.%d", out, *out ? ", " : "",
                               kind_versions[i].version,
                               kind_versions[i].introduced);
    return out;
}

/* A kind with its own timeline: served by its rows only, when the version
 * is enabled and the kind's gate is on. */
static void kind_unavailable(struct check_ctx *cx, const struct object *o,
                             int k)
{
    const struct target *t = cx_target(cx);
    struct arena *a = cx_arena(cx);
    const struct kind_version *kv = kind_version_find(o->kind_name,
                                                      o->version);
    const struct tnode *at = o->api_node;
    int g;

    if (!kv || t->minor < kv->introduced) {
        report(cx, at, "'%s' does not serve %s in Kubernetes %s: the "
               "apiserver rejects it (%s is served in %s)", o->api_version,
               o->kind_name, t->version, o->kind_name,
               kind_timeline(a, o->kind_name));
        return;
    }
    if (!t->api_on[k]) {
        report(cx, at, "'%s' is not served by default in Kubernetes %s (%s "
               "versions need --runtime-config=%s=true): the apiserver "
               "rejects the %s", o->api_version, t->version,
               strstr(o->version, "alpha") ? "alpha"
               : strstr(o->version, "beta") ? "beta" : "these",
               o->api_version, o->kind_name);
        return;
    }
    g = kv->gate ? gate_find(kv->gate) : -1;
    if (g >= 0 && !t->gate_on[g])
        report(cx, at, "'%s' serves %s only with feature gate %s on, which "
               "is off in Kubernetes %s: the apiserver rejects the %s",
               o->api_version, o->kind_name, kv->gate, t->version,
               o->kind_name);
}

void check_api_version_unavailable(struct check_ctx *cx,
                                   const struct object *o)
{
    const struct target *t = cx_target(cx);
    struct arena *a = cx_arena(cx);
    const struct api_version *v;
    const struct tnode *at = o->api_node;
    int k;

    if (!is_resource_group(o) || admitted(o))
        return;
    k = api_version_find(o->version);
    report_hint(cx, "use the apiVersion the message names: no flag turns "
                "on a version this apiserver does not have");
    if (k < 0) {
        report(cx, at, "'%s' is not a resource.k8s.io version Kubernetes "
               "knows: the apiserver rejects the %s; %s", o->api_version,
               o->kind_name, instead(a, t, o));
        return;
    }
    if (kind_has_versions(o->kind_name)) {
        kind_unavailable(cx, o, k);
        return;
    }
    v = &api_versions[k];
    if (t->minor < v->introduced) {
        report(cx, at, "'%s' does not exist in Kubernetes %s (added in "
               "1.%d): the apiserver rejects the %s; %s", o->api_version,
               t->version, v->introduced, o->kind_name, instead(a, t, o));
        return;
    }
    if (v->removed && t->minor >= v->removed) {
        report(cx, at, "'%s' was removed in Kubernetes 1.%d: the apiserver "
               "of %s rejects the %s; %s", o->api_version, v->removed,
               t->version, o->kind_name, instead(a, t, o));
        return;
    }
    report_hint(cx, NULL);
    if (t->api_on[k])
        return;
    if (t->api_set[k]) {
        report_hint(cx, arena_printf(a, "remove %s=false from the "
                                     "apiserver's --runtime-config (and from "
                                     "claimcheck's), or use the apiVersion "
                                     "the message names", o->api_version));
        report(cx, at, "'%s' is turned off by --runtime-config: the "
               "apiserver rejects the %s; %s", o->api_version, o->kind_name,
               instead(a, t, o));
    } else {
        report(cx, at, "'%s' is not served by default in Kubernetes %s "
               "(%s versions need --runtime-config=%s=true%s): the "
               "apiserver rejects the %s; %s", o->api_version, t->version,
               strstr(v->version, "alpha") ? "alpha" : "beta",
               o->api_version,
               v->deprecated && t->minor >= v->deprecated
               ? arena_printf(a, "; deprecated since 1.%d",
                              v->deprecated) : "",
               o->kind_name, instead(a, t, o));
    }
}

/* 1 if a version newer than o's serves o's kind at minor */
static int kind_newer_served(const struct object *o, int minor)
{
    int mine = api_version_find(o->version);
    size_t i;

    for (i = 0; i < kind_version_count; i++)
        if (!strcmp(kind_versions[i].kind, o->kind_name)
            && api_version_find(kind_versions[i].version) > mine
            && minor >= kind_versions[i].introduced)
            return 1;
    return 0;
}

void check_api_version_deprecated(struct check_ctx *cx,
                                  const struct object *o)
{
    const struct target *t = cx_target(cx);
    struct arena *a = cx_arena(cx);
    const struct api_version *v;
    int k;

    if (!is_resource_group(o))
        return;
    k = api_version_find(o->version);
    if (k < 0 || (!t->api_on[k] && !admitted(o)))
        return;     /* api-version-unavailable's case; an admitted object's
                       version is served, whatever our flags say */
    v = &api_versions[k];
    if (!v->deprecated || t->minor < v->deprecated)
        return;
    if (kind_has_versions(o->kind_name) && !kind_newer_served(o, t->minor))
        return;     /* no newer version serves this kind yet */
    report(cx, o->api_node, "'%s' is deprecated since Kubernetes 1.%d%s: "
           "%s", o->api_version, v->deprecated, v->removal_planned
           ? arena_printf(a, " (removal planned for 1.%d)",
                          v->removal_planned) : "",
           instead(a, t, o));
}
