/*
 * render_github.c - GitHub workflow commands: one ::error/::warning/::notice
 * line per unsuppressed finding, escaped as the runner expects, and no
 * other control character (ESC, C1) left raw.
 */
#include "render_int.h"

#include <stddef.h>

#include "../validate/buf.h"
#include "../validate/rule.h"

/* The runner's escapes (%25 %0D %0A, in properties %3A %2C), then every
 * other control character as buf_add_visible() writes it. */
static void gh_escape(struct buf *b, const char *s, int property)
{
    struct buf m;

    buf_init(&m, RENDER_OUT_MAX);
    for (; *s; s++) {
        if (*s == '%')
            buf_adds(&m, "%25");
        else if (*s == '\r')
            buf_adds(&m, "%0D");
        else if (*s == '\n')
            buf_adds(&m, "%0A");
        else if (property && *s == ':')
            buf_adds(&m, "%3A");
        else if (property && *s == ',')
            buf_adds(&m, "%2C");
        else
            buf_addc(&m, *s);
    }
    buf_add_visible(b, m.p, 0);
    buf_release(&m);
}

void render_github(struct buf *b, const struct diag_list *l,
                   const struct render_opts *o)
{
    size_t i;

    for (i = 0; i < l->n; i++) {
        const struct diag *d = &l->v[i];
        if (d->suppressed)
            continue;
        buf_addf(b, "::%s ", d->sev == SEV_ERROR ? "error"
                 : d->sev == SEV_WARN ? "warning" : "notice");
        if (d->line || !o->cluster) {
            buf_adds(b, "file=");
            gh_escape(b, render_file(d), 1);
            buf_addf(b, ",line=%u,col=%u,", d->line ? d->line : 1,
                     d->col ? d->col : 1);
        }
        buf_adds(b, "title=");
        gh_escape(b, d->rule->id, 1);
        buf_adds(b, "::");
        if (*d->kind) {
            struct buf m;
            buf_init(&m, 4096);
            buf_addf(&m, "%s %s%s%s: ", d->kind, d->ns, *d->ns ? "/" : "",
                     d->name);
            gh_escape(b, m.p, 0);
            buf_release(&m);
        }
        gh_escape(b, d->msg, 0);
        buf_adds(b, " (hint: ");
        gh_escape(b, render_hint(d), 0);
        buf_adds(b, ")\n");
    }
}
