/*
 * render_policyreport.c - findings and checked objects grouped into
 * wgpolicyk8s.io/v1alpha2 PolicyReports (see policyreport.h), written as
 * YAML whose scalars are JSON strings (valid YAML, escapes and all). It
 * maps severities to results; it filters nothing the engine kept.
 */
#include "policyreport.h"
#include "render_int.h"

#include <stdlib.h>
#include <string.h>

#include "../validate/buf.h"
#include "../validate/diag.h"
#include "../validate/kinds.h"
#include "../validate/rule.h"
#include "../validate/xalloc.h"

#define PR_DOC_MAX ((size_t)1 << 30)

struct pr_ns {                  /* one report */
    const char *ns;             /* NULL: cluster-scoped */
    size_t pass, fail, warn, skip;
};

static int cluster_scoped(const char *kind)
{
    const struct kind_info *k = kind ? kind_by_name(kind, strlen(kind))
                                     : NULL;

    return k && !k->namespaced;
}

/* The report an object belongs to: NULL for cluster-scoped kinds; objects
 * without a namespace are in "default", as the apiserver would put them. */
static const char *report_ns(const char *kind, const char *ns)
{
    if (cluster_scoped(kind))
        return NULL;
    return ns && *ns ? ns : "default";
}

static int same_ns(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

static int cmp_ns(const void *x, const void *y)
{
    const struct pr_ns *a = x, *b = y;

    if (!a->ns || !b->ns)
        return !a->ns - !b->ns;     /* the cluster report last */
    return strcmp(a->ns, b->ns);
}

static void kv(struct buf *b, const char *indent, const char *key,
               const char *value)
{
    buf_addf(b, "%s%s: ", indent, key);
    buf_add_json_str(b, value ? value : "");
    buf_addc(b, '\n');
}

static void resource(struct buf *b, const char *api_version,
                     const char *kind, const char *ns, const char *name)
{
    buf_adds(b, "  resources:\n");
    kv(b, "  - ", "apiVersion", api_version);
    kv(b, "    ", "kind", kind);
    if (!cluster_scoped(kind))
        kv(b, "    ", "namespace", ns && *ns ? ns : "default");
    kv(b, "    ", "name", name);
}

static void result_head(struct buf *b, const struct render_opts *o,
                        const char *rule, const char *category,
                        const char *result, const char *severity)
{
    buf_adds(b, "- policy: " POLICYREPORT_NAME "\n");
    if (rule)
        kv(b, "  ", "rule", rule);
    if (category)
        kv(b, "  ", "category", category);
    buf_addf(b, "  result: %s\n", result);
    if (severity)
        buf_addf(b, "  severity: %s\n", severity);
    buf_adds(b, "  scored: true\n  source: claimcheck\n");
    buf_addf(b, "  timestamp:\n    seconds: %lld\n    nanos: 0\n", o->now);
}

static void finding(struct buf *b, const struct render_opts *o,
                    const struct diag *d, struct pr_ns *r)
{
    const char *result, *sev;
    size_t i;

    if (d->suppressed) {
        result = "skip";
        r->skip++;
    } else if (d->sev == SEV_ERROR) {
        result = "fail";
        r->fail++;
    } else {
        result = "warn";
        r->warn++;
    }
    sev = d->sev == SEV_ERROR ? "high" : d->sev == SEV_WARN ? "medium"
                                                            : "info";
    result_head(b, o, d->rule->id, category_name(d->rule->category), result,
                sev);
    kv(b, "  ", "message", d->msg);
    resource(b, d->api_version, d->kind, d->ns, d->name);
    buf_adds(b, "  properties:\n");
    if (d->path && *d->path)
        kv(b, "    ", "path", d->path);
    if (d->line) {
        kv(b, "    ", "file", d->file ? d->file : "-");
        buf_addf(b, "    line: \"%u\"\n    column: \"%u\"\n", d->line,
                 d->col);
    }
    if (o->cluster)
        kv(b, "    ", "cluster", o->cluster);
    kv(b, "    ", "hint", d->hint ? d->hint : d->rule->hint);
    if (d->suppressed)
        kv(b, "    ", "suppressReason", d->suppress_reason);
    if (d->ndetails) {
        struct buf det;
        buf_init(&det, PR_DOC_MAX);
        for (i = 0; i < d->ndetails; i++)
            buf_addf(&det, "%s%s", i ? "\n" : "", d->details[i]);
        kv(b, "    ", "details", det.p);
        buf_release(&det);
    }
}

/* 1 if the object has a finding that is not suppressed */
static int has_finding(const struct diag_list *l,
                       const struct render_object *ob)
{
    size_t i;

    for (i = 0; i < l->n; i++) {
        const struct diag *d = &l->v[i];
        if (!d->suppressed && !strcmp(d->kind, ob->kind)
            && !strcmp(d->ns, ob->ns) && !strcmp(d->name, ob->name))
            return 1;
    }
    return 0;
}

static void one_report(struct buf *b, const struct diag_list *l,
                       const struct render_opts *o, struct pr_ns *r)
{
    struct buf res;
    size_t i;

    buf_init(&res, PR_DOC_MAX);
    for (i = 0; i < l->n; i++) {
        const struct diag *d = &l->v[i];
        if (*d->kind && same_ns(report_ns(d->kind, d->ns), r->ns))
            finding(&res, o, d, r);
    }
    for (i = 0; i < o->nobjs; i++) {
        const struct render_object *ob = &o->objs[i];
        if (!same_ns(report_ns(ob->kind, ob->ns), r->ns)
            || has_finding(l, ob))
            continue;
        result_head(&res, o, NULL, NULL, "pass", NULL);
        kv(&res, "  ", "message", "no finding");
        resource(&res, ob->api_version, ob->kind, ob->ns, ob->name);
        r->pass++;
    }
    buf_addf(b, "apiVersion: " POLICYREPORT_API "\nkind: %s\nmetadata:\n"
             "  name: " POLICYREPORT_NAME "\n",
             r->ns ? "PolicyReport" : "ClusterPolicyReport");
    if (r->ns)
        kv(b, "  ", "namespace", r->ns);
    buf_adds(b, "  labels:\n    app.kubernetes.io/managed-by: claimcheck\n");
    buf_addf(b, "summary:\n  pass: %zu\n  fail: %zu\n  warn: %zu\n"
             "  error: 0\n  skip: %zu\n", r->pass, r->fail, r->warn,
             r->skip);
    if (res.len) {
        buf_adds(b, "results:\n");
        buf_add(b, res.p, res.len);
    } else {
        buf_adds(b, "results: []\n");
    }
    buf_release(&res);
}

void policyreport_each(const struct diag_list *l, const struct render_opts *o,
                       void (*fn)(void *cls, const char *ns,
                                  const struct buf *doc),
                       void *cls)
{
    struct pr_ns *v = xcalloc(l->n + o->nobjs + 1, sizeof(*v));
    size_t n = 0, i, k;
    struct buf doc;

    v[n++].ns = NULL;
    for (i = 0; i < l->n + o->nobjs; i++) {
        const char *kind = i < l->n ? l->v[i].kind : o->objs[i - l->n].kind;
        const char *ns = i < l->n ? l->v[i].ns : o->objs[i - l->n].ns;
        const char *rn;
        if (!*kind)
            continue;   /* a document that did not parse: no object */
        rn = report_ns(kind, ns);
        for (k = 0; k < n && !same_ns(v[k].ns, rn); k++)
            ;
        if (k == n)
            v[n++].ns = rn;
    }
    qsort(v, n, sizeof(*v), cmp_ns);
    buf_init(&doc, PR_DOC_MAX);
    for (i = 0; i < n; i++) {
        buf_reset(&doc);
        one_report(&doc, l, o, &v[i]);
        fn(cls, v[i].ns, &doc);
    }
    buf_release(&doc);
    free(v);
}

static void add_doc(void *cls, const char *ns, const struct buf *doc)
{
    struct buf *b = cls;

    (void)ns;
    buf_adds(b, "---\n");
    buf_add(b, doc->p, doc->len);
}

void render_policyreport(struct buf *b, const struct diag_list *l,
                         const struct render_opts *o)
{
    policyreport_each(l, o, add_doc, b);
}
