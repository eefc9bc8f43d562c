/*
 * render_text.c - compiler-style text: file:line:col: severity[rule] object:
 * message, then the path, details, suppression and hint lines indented,
 * and one summary line. Colour (bold position, coloured severity) only
 * when the caller says the output is a terminal. Every name, path and
 * message is escaped (buf_add_visible): it can neither start a line nor
 * reach the terminal as a control sequence.
 */
#include "render_int.h"

#include <stddef.h>

#include "../validate/buf.h"
#include "../validate/rule.h"

static void text_object(struct buf *b, const struct diag *d)
{
    if (!*d->kind)
        return;
    buf_add_visible(b, d->kind, 0);
    buf_addc(b, ' ');
    if (*d->ns) {
        buf_add_visible(b, d->ns, 0);
        buf_addc(b, '/');
    }
    buf_add_visible(b, *d->name ? d->name : "<unnamed>", 0);
    buf_adds(b, ": ");
}

/* "    LABEL: TEXT" (label NULL: "    TEXT"), TEXT escaped */
static void text_line(struct buf *b, const char *label, const char *text)
{
    buf_adds(b, "    ");
    if (label)
        buf_addf(b, "%s: ", label);
    buf_add_visible(b, text, !label);
    buf_addc(b, '\n');
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
        buf_adds(b, o->color ? "\033[1m" : "");
        buf_add_visible(b, render_file(d), 1);
        if (d->line)
            buf_addf(b, ":%u:%u:", d->line, d->col);
        else    /* a live object: no position */
            buf_addc(b, ':');
        buf_addf(b, "%s ", o->color ? "\033[0m" : "");
        buf_addf(b, "%s%s%s[", o->color ? col_sev[d->sev] : "",
                 sev_name(d->sev), o->color ? "\033[0m" : "");
        buf_add_visible(b, d->rule->id, 0);
        buf_adds(b, "] ");
        text_object(b, d);
        buf_add_visible(b, d->msg, 0);
        buf_addc(b, '\n');
        if (d->path && *d->path)
            text_line(b, "path", d->path);
        for (j = 0; j < d->ndetails; j++)
            text_line(b, NULL, d->details[j]);
        if (d->suppressed)
            text_line(b, "suppressed", d->suppress_reason);
        if (o->hints)
            text_line(b, "hint", render_hint(d));
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
    if (render_suppressed(l))
        buf_addf(b, ", %zu suppressed", render_suppressed(l));
    buf_adds(b, "\n");
    if (o->input_inventory)
        buf_adds(b, "note: ResourceSlices and Nodes of the linted files "
                 "served as the inventory (--inventory-from-input)\n");
    if (o->hints && o->no_inventory) {
        buf_adds(b, "note: judged without an inventory (-i FILE)");
        for (i = 0; i < o->nnot_run; i++)
            buf_addf(b, "%s'%s'", i ? ", " : "; could not run: ",
                     o->not_run[i]->id);
        buf_adds(b, "\n");
    }
}
