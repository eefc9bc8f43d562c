/*
 * render_json.c - the contract's JSON report: version, kubeVersion, findings[]
 * (rule, category, severity, object, path, file, line, column, message,
 * hint, details, suppression) and the summary counts.
 */
#include "render_int.h"

#include <stddef.h>

#include "../validate/buf.h"
#include "../validate/rule.h"

void render_json(struct buf *b, const struct diag_list *l,
                 const struct render_opts *o)
{
    size_t i, j, e, w, n, k = 0;

    buf_adds(b, "{\"version\":1,");
    render_json_kv(b, "kubeVersion", o->kube_version, 1);
    if (o->cluster)
        render_json_kv(b, "cluster", o->cluster, 1);
    buf_adds(b, "\"findings\":[");
    for (i = 0; i < l->n; i++) {
        const struct diag *d = &l->v[i];
        if (!render_visible(d, o))
            continue;
        buf_adds(b, k++ ? ",\n{" : "\n{");
        render_json_kv(b, "rule", d->rule->id, 1);
        render_json_kv(b, "category", category_name(d->rule->category), 1);
        render_json_kv(b, "severity", sev_name(d->sev), 1);
        buf_adds(b, "\"object\":{");
        render_json_kv(b, "apiVersion", d->api_version, 1);
        render_json_kv(b, "kind", d->kind, 1);
        render_json_kv(b, "namespace", d->ns, 1);
        render_json_kv(b, "name", d->name, 0);
        buf_adds(b, "},");
        render_json_kv(b, "path", d->path, 1);
        if (d->line || !o->cluster) {   /* live objects have no file */
            render_json_kv(b, "file", render_file(d), 1);
            buf_addf(b, "\"line\":%u,\"column\":%u,", d->line, d->col);
        }
        render_json_kv(b, "message", d->msg, 1);
        render_json_kv(b, "hint", render_hint(d), d->ndetails || d->suppressed);
        if (d->ndetails) {
            buf_adds(b, "\"details\":[");
            for (j = 0; j < d->ndetails; j++) {
                if (j)
                    buf_addc(b, ',');
                buf_add_json_str(b, d->details[j]);
            }
            buf_addc(b, ']');
            if (d->suppressed)
                buf_addc(b, ',');
        }
        if (d->suppressed) {
            buf_adds(b, "\"suppressed\":true,");
            render_json_kv(b, "suppressReason", d->suppress_reason, 0);
        }
        buf_addc(b, '}');
    }
    render_count(l, &e, &w, &n);
    buf_addf(b, "%s],\"summary\":{\"files\":%zu,\"objects\":%zu,"
             "\"errors\":%zu,\"warnings\":%zu,\"infos\":%zu,"
             "\"inventory\":%s,\"inputInventory\":%s,", k ? "\n" : "",
             o->cluster ? 0 : o->files, o->objects, e, w, n,
             o->no_inventory ? "false" : "true",
             o->input_inventory ? "true" : "false");
    if (render_suppressed(l))       /* only then, as the text's summary */
        buf_addf(b, "\"suppressed\":%zu,", render_suppressed(l));
    buf_adds(b, "\"notRun\":[");
    for (i = 0; i < o->nnot_run; i++) {
        if (i)
            buf_addc(b, ',');
        buf_add_json_str(b, o->not_run[i]->id);
    }
    buf_adds(b, "]}}\n");
}
