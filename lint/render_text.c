/*
 * render_text.c - compiler-style text: file:line:col: severity[rule] object:
 * message, then the path, details, suppression and hint lines indented,
 * and one summary line. Colour (bold position, coloured severity) only
 * when the caller says the output is a terminal.
 */
#include "render_int.h"

#include <stddef.h>

#include "../validate/buf.h"
#include "../validate/rule.h"

static void text_object(struct buf *b, const struct diag *d)
{
    if (!*d->kind)
        return;
    buf_addf(b, "%s ", d->kind);
    if (*d->ns)
        buf_addf(b, "%s/", d->ns);
    buf_addf(b, "%s: ", *d->name ? d->name : "<unnamed>");
}

void render_text(struct buf *b, const struct diag_list *l,
                 const struct render_opts *o)
{
    static const char *col_sev[] = {"", "\033[1;36m", "\033[1;35m",
                                    "\033[1;31m"};
    size_t i, j, e, w, n;

    for (i = 0; i < l->n; i++) {
        const struct diag *d = &l->v[i];
        if (!render_visible(d, o))
            continue;
        if (d->line)
            buf_addf(b, "%s%s:%u:%u:%s ", o->color ? "\033[1m" : "",
                     render_file(d), d->line, d->col,
                     o->color ? "\033[0m" : "");
        else    /* a live object: no position */
            buf_addf(b, "%s%s:%s ", o->color ? "\033[1m" : "",
                     render_file(d), o->color ? "\033[0m" : "");
        buf_addf(b, "%s%s%s[%s] ", o->color ? col_sev[d->sev] : "",
                 sev_name(d->sev), o->color ? "\033[0m" : "", d->rule->id);
        text_object(b, d);
        buf_addf(b, "%s\n", d->msg);
        if (d->path && *d->path)
            buf_addf(b, "    path: %s\n", d->path);
        for (j = 0; j < d->ndetails; j++)
            buf_addf(b, "    %s\n", d->details[j]);
        if (d->suppressed)
            buf_addf(b, "    suppressed: %s\n", d->suppress_reason);
        if (o->hints)
            buf_addf(b, "    hint: %s\n", render_hint(d));
    }
    render_count(l, &e, &w, &n);
    if (o->cluster)
        buf_addf(b, "%zu object%s on %s", o->objects,
                 o->objects == 1 ? "" : "s", o->cluster);
    else
        buf_addf(b, "%zu object%s in %zu file%s", o->objects,
                 o->objects == 1 ? "" : "s", o->files,
                 o->files == 1 ? "" : "s");
    buf_addf(b, ": %zu error%s, %zu warning%s", e, e == 1 ? "" : "s", w,
             w == 1 ? "" : "s");
    if (n)
        buf_addf(b, ", %zu info%s", n, n == 1 ? "" : "s");
    buf_adds(b, "\n");
    if (o->hints && o->no_inventory) {
        buf_adds(b, "note: judged without an inventory (-i FILE)");
        for (i = 0; i < o->nnot_run; i++)
            buf_addf(b, "%s'%s'", i ? ", " : "; could not run: ",
                     o->not_run[i]->id);
        buf_adds(b, "\n");
    }
}
