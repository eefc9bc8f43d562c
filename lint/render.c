/*
 * render.c - the format table (name -> renderer) and what every renderer
 * shares: which findings are listed, their counts, hint and file. The
 * formats themselves are render_<name>.c. Suppressed findings are printed
 * only with show_suppressed, and never count towards the summary.
 */
#include "render.h"
#include "render_html.h"
#include "render_int.h"

#include <string.h>

#include "../validate/buf.h"
#include "../validate/rule.h"

const struct render_format render_formats[] = {
    { .name = "text", .color = 1, .render = render_text },
    { .name = "json", .render = render_json },
    { .name = "sarif", .render = render_sarif },
    { .name = "junit", .render = render_junit },
    { .name = "github", .render = render_github },
    { .name = "policyreport", .render = render_policyreport },
    { .name = "html", .render = render_html },
};
const size_t render_nformats = sizeof(render_formats)
                               / sizeof(render_formats[0]);

const struct render_format *render_format_find(const char *name)
{
    size_t i;

    for (i = 0; i < render_nformats; i++)
        if (!strcmp(name, render_formats[i].name))
            return &render_formats[i];
    return NULL;
}

int render(FILE *f, const struct render_format *fmt,
           const struct diag_list *l, const struct render_opts *o)
{
    struct buf b;
    int rc = 0;

    buf_init(&b, RENDER_OUT_MAX);
    fmt->render(&b, l, o);
    if (b.len && fwrite(b.p, 1, b.len, f) != b.len)
        rc = -1;
    if (fflush(f) != 0)
        rc = -1;
    buf_release(&b);
    return rc;
}

/* ==== shared by the renderers =========================================== */

const char *render_hint(const struct diag *d)
{
    return d->hint ? d->hint : d->rule->hint;
}

const char *render_file(const struct diag *d)
{
    return d->file ? d->file : "-";
}

int render_fails(enum sev fail_on, const struct render_fail_rule *v,
                 size_t n, const struct diag *d)
{
    size_t i;

    for (i = n; i-- > 0;)
        if (d->rule && !strcmp(v[i].rule, d->rule->id)) {
            fail_on = v[i].sev;
            break;
        }
    return fail_on != SEV_OFF && d->sev >= fail_on;
}

int render_visible(const struct diag *d, const struct render_opts *o)
{
    return !d->suppressed || o->show_suppressed;
}

void render_count(const struct diag_list *l, size_t *err, size_t *warn,
                  size_t *info)
{
    size_t i;

    *err = *warn = *info = 0;
    for (i = 0; i < l->n; i++) {
        if (l->v[i].suppressed)
            continue;
        if (l->v[i].sev == SEV_ERROR)
            (*err)++;
        else if (l->v[i].sev == SEV_WARN)
            (*warn)++;
        else if (l->v[i].sev == SEV_INFO)
            (*info)++;
    }
}

size_t render_suppressed(const struct diag_list *l)
{
    size_t i, n = 0;

    for (i = 0; i < l->n; i++)
        n += l->v[i].suppressed ? 1 : 0;
    return n;
}

void render_json_kv(struct buf *b, const char *k, const char *v, int comma)
{
    buf_add_json_str(b, k);
    buf_addc(b, ':');
    buf_add_json_str(b, v ? v : "");
    if (comma)
        buf_addc(b, ',');
}
