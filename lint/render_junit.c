/*
 * render_junit.c - JUnit XML: one testcase per checked object (a failure per
 * finding at or above --fail-on, system-out for the rest) and one per
 * finding outside any object (a document that does not parse).
 */
#include "render_int.h"

#include <string.h>

#include "../validate/buf.h"
#include "../validate/rule.h"

static void xml_str(struct buf *b, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': buf_adds(b, "&lt;"); break;
        case '>': buf_adds(b, "&gt;"); break;
        case '&': buf_adds(b, "&amp;"); break;
        case '"': buf_adds(b, "&quot;"); break;
        case '\'': buf_adds(b, "&apos;"); break;
        default:
            if ((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t')
                buf_addc(b, '?');
            else
                buf_addc(b, *s);
        }
    }
}

static int same_object(const struct diag *d, const struct render_object *ob)
{
    return !strcmp(render_file(d), ob->file ? ob->file : "-")
           && !strcmp(d->kind, ob->kind) && !strcmp(d->ns, ob->ns)
           && !strcmp(d->name, ob->name);
}

/* "file:line:col: severity[rule] message", escaped */
static void finding_line(struct buf *b, const struct diag *d)
{
    xml_str(b, render_file(d));
    buf_addf(b, ":%u:%u: %s[%s] ", d->line, d->col, sev_name(d->sev),
             d->rule->id);
    xml_str(b, d->msg);
}

static void junit_case(struct buf *b, const struct diag_list *l,
                       const struct render_opts *o,
                       const struct render_object *ob, size_t *failures)
{
    size_t i, nf = 0;

    buf_adds(b, "  <testcase classname=\"");
    xml_str(b, ob->file ? ob->file : "-");
    buf_adds(b, "\" name=\"");
    xml_str(b, ob->kind);
    buf_addc(b, ' ');
    if (*ob->ns) {
        xml_str(b, ob->ns);
        buf_addc(b, '/');
    }
    xml_str(b, *ob->name ? ob->name : "<unnamed>");
    buf_adds(b, "\">\n");
    for (i = 0; i < l->n; i++) {
        const struct diag *d = &l->v[i];
        if (d->suppressed || !same_object(d, ob))
            continue;
        if (render_fails(o->fail_on, o->fail_rules, o->nfail_rules, d)) {
            buf_adds(b, "    <failure type=\"");
            xml_str(b, d->rule->id);
            buf_adds(b, "\" message=\"");
            xml_str(b, d->msg);
            buf_adds(b, "\">");
            finding_line(b, d);
            buf_adds(b, "</failure>\n");
            nf++;
        } else {
            buf_adds(b, "    <system-out>");
            finding_line(b, d);
            buf_adds(b, "</system-out>\n");
        }
    }
    buf_adds(b, "  </testcase>\n");
    *failures += nf ? 1 : 0;
}

void render_junit(struct buf *b, const struct diag_list *l,
                  const struct render_opts *o)
{
    struct buf cases;
    size_t i, failures = 0, ncases = 0;

    buf_init(&cases, RENDER_OUT_MAX);
    for (i = 0; i < o->nobjs; i++, ncases++)
        junit_case(&cases, l, o, &o->objs[i], &failures);
    /* findings outside any object (parse errors): one case per file:line */
    for (i = 0; i < l->n; i++) {
        const struct diag *d = &l->v[i];
        struct render_object ob;
        if (d->suppressed || *d->kind)
            continue;
        ob.file = render_file(d);
        ob.kind = "";
        ob.ns = "";
        ob.name = "";
        buf_adds(&cases, "  <testcase classname=\"");
        xml_str(&cases, ob.file);
        buf_addf(&cases, "\" name=\"document at line %u\">\n", d->line);
        if (render_fails(o->fail_on, o->fail_rules, o->nfail_rules, d)) {
            buf_adds(&cases, "    <failure type=\"");
            xml_str(&cases, d->rule->id);
            buf_adds(&cases, "\" message=\"");
            xml_str(&cases, d->msg);
            buf_adds(&cases, "\"/>\n");
            failures++;
        }
        buf_adds(&cases, "  </testcase>\n");
        ncases++;
    }
    buf_adds(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    buf_addf(b, "<testsuites name=\"claimcheck\" tests=\"%zu\" "
             "failures=\"%zu\">\n", ncases, failures);
    buf_addf(b, " <testsuite name=\"claimcheck\" tests=\"%zu\" "
             "failures=\"%zu\" errors=\"0\">\n", ncases, failures);
    buf_add(b, cases.p, cases.len);
    buf_adds(b, " </testsuite>\n</testsuites>\n");
    buf_release(&cases);
}
