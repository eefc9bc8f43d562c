/*
 * render.c - the output formats. Every renderer reads the same struct diag
 * fields; none decides severities or filters rules (the engine did that).
 * Suppressed findings are printed only with show_suppressed, and never
 * count towards the summary.
 */
#include "render.h"

#include <string.h>
#include <unistd.h>

#include "../validate/rule.h"
#include "../validate/buf.h"

#define OUT_MAX ((size_t)1 << 30)

int render_format_parse(const char *s, enum render_format *out)
{
    static const struct { const char *name; enum render_format f; } t[] = {
        {"text", FMT_TEXT}, {"json", FMT_JSON}, {"sarif", FMT_SARIF},
        {"junit", FMT_JUNIT}, {"github", FMT_GITHUB},
    };
    size_t i;

    for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        if (!strcmp(s, t[i].name)) {
            *out = t[i].f;
            return 0;
        }
    return -1;
}

static const char *hint_of(const struct diag *d)
{
    return d->hint ? d->hint : d->rule->hint;
}

static void count(const struct diag_list *l, size_t *err, size_t *warn,
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

static int visible(const struct diag *d, const struct render_opts *o)
{
    return !d->suppressed || o->show_suppressed;
}

static const char *file_of(const struct diag *d)
{
    return d->file ? d->file : "-";
}

/* ==== text ============================================================== */

static void text_object(struct buf *b, const struct diag *d)
{
    if (!*d->kind)
        return;
    buf_addf(b, "%s ", d->kind);
    if (*d->ns)
        buf_addf(b, "%s/", d->ns);
    buf_addf(b, "%s: ", *d->name ? d->name : "<unnamed>");
}

static void render_text(struct buf *b, const struct diag_list *l,
                        const struct render_opts *o)
{
    static const char *col_sev[] = {"", "\033[1;36m", "\033[1;35m",
                                    "\033[1;31m"};
    size_t i, j, e, w, n;

    for (i = 0; i < l->n; i++) {
        const struct diag *d = &l->v[i];
        if (!visible(d, o))
            continue;
        buf_addf(b, "%s%s:%u:%u:%s ", o->color ? "\033[1m" : "", file_of(d),
                 d->line, d->col, o->color ? "\033[0m" : "");
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
            buf_addf(b, "    hint: %s\n", hint_of(d));
    }
    count(l, &e, &w, &n);
    buf_addf(b, "%zu object%s in %zu file%s: %zu error%s, %zu warning%s",
             o->objects, o->objects == 1 ? "" : "s", o->files,
             o->files == 1 ? "" : "s", e, e == 1 ? "" : "s", w,
             w == 1 ? "" : "s");
    if (n)
        buf_addf(b, ", %zu info%s", n, n == 1 ? "" : "s");
    buf_adds(b, "\n");
}

/* ==== JSON ============================================================== */

static void json_kv(struct buf *b, const char *k, const char *v, int comma)
{
    buf_add_json_str(b, k);
    buf_addc(b, ':');
    buf_add_json_str(b, v ? v : "");
    if (comma)
        buf_addc(b, ',');
}

static void render_json(struct buf *b, const struct diag_list *l,
                        const struct render_opts *o)
{
    size_t i, j, e, w, n, k = 0;

    buf_adds(b, "{\"version\":1,");
    json_kv(b, "kubeVersion", o->kube_version, 1);
    buf_adds(b, "\"findings\":[");
    for (i = 0; i < l->n; i++) {
        const struct diag *d = &l->v[i];
        if (!visible(d, o))
            continue;
        buf_adds(b, k++ ? ",\n{" : "\n{");
        json_kv(b, "rule", d->rule->id, 1);
        json_kv(b, "category", category_name(d->rule->category), 1);
        json_kv(b, "severity", sev_name(d->sev), 1);
        buf_adds(b, "\"object\":{");
        json_kv(b, "apiVersion", d->api_version, 1);
        json_kv(b, "kind", d->kind, 1);
        json_kv(b, "namespace", d->ns, 1);
        json_kv(b, "name", d->name, 0);
        buf_adds(b, "},");
        json_kv(b, "path", d->path, 1);
        json_kv(b, "file", file_of(d), 1);
        buf_addf(b, "\"line\":%u,\"column\":%u,", d->line, d->col);
        json_kv(b, "message", d->msg, 1);
        json_kv(b, "hint", hint_of(d), d->ndetails || d->suppressed);
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
            json_kv(b, "suppressReason", d->suppress_reason, 0);
        }
        buf_addc(b, '}');
    }
    count(l, &e, &w, &n);
    buf_addf(b, "%s],\"summary\":{\"files\":%zu,\"objects\":%zu,"
             "\"errors\":%zu,\"warnings\":%zu,\"infos\":%zu}}\n",
             k ? "\n" : "", o->files, o->objects, e, w, n);
}

/* ==== SARIF 2.1.0 ======================================================= */

static const char *sarif_level(enum sev s)
{
    return s == SEV_ERROR ? "error" : s == SEV_WARN ? "warning" : "note";
}

/* Repo-relative URI, as GitHub code scanning maps only those: strip leading
 * "./"; an absolute path under the working directory becomes relative to
 * it (kube-linter does the same), any other absolute path a file:// URI.
 * Bytes outside RFC 3986's path characters are percent-encoded, ':' too
 * (in a first segment it would read as a scheme). Appends a JSON string. */
static void sarif_uri(struct buf *b, const struct diag *d)
{
    static const char hex[] = "0123456789ABCDEF";
    const char *f = file_of(d);
    char cwd[4096];
    struct buf u;
    size_t n;

    buf_init(&u, OUT_MAX);
    if (f[0] == '/') {
        n = getcwd(cwd, sizeof(cwd)) ? strlen(cwd) : 0;
        if (n > 1 && !strncmp(f, cwd, n) && f[n] == '/')
            f += n + 1;
        else
            buf_adds(&u, "file://");
    }
    while (f[0] == '.' && f[1] == '/')
        f += 2;
    for (; *f; f++) {
        unsigned char c = (unsigned char)*f;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
            || (c >= '0' && c <= '9') || strchr("-._~/!$&'()*+,;=@", c)) {
            buf_addc(&u, (char)c);
        } else {
            buf_addc(&u, '%');
            buf_addc(&u, hex[c >> 4]);
            buf_addc(&u, hex[c & 15]);
        }
    }
    buf_add_json_str(b, u.p);
    buf_release(&u);
}

static void render_sarif(struct buf *b, const struct diag_list *l,
                         const struct render_opts *o)
{
    size_t i, k = 0;

    buf_adds(b, "{\"$schema\":\"https://json.schemastore.org/"
             "sarif-2.1.0.json\",\"version\":\"2.1.0\",\"runs\":[{\"tool\":"
             "{\"driver\":{\"name\":\"claimcheck\",");
    json_kv(b, "version", o->tool_version, 1);
    json_kv(b, "semanticVersion", o->tool_version, 1);
    buf_adds(b, "\"informationUri\":\"https://github.com/claimcheck/"
             "claimcheck\",\"rules\":[");
    for (i = 0; i < o->rules->n; i++) {
        const struct rule *r = &o->rules->v[i];
        if (i)
            buf_addc(b, ',');
        buf_adds(b, "{");
        json_kv(b, "id", r->id, 1);
        json_kv(b, "name", r->id, 1);
        buf_adds(b, "\"shortDescription\":{");
        json_kv(b, "text", r->summary, 0);
        buf_adds(b, "},\"fullDescription\":{");
        json_kv(b, "text", r->why ? r->why : r->summary, 0);
        buf_adds(b, "},\"help\":{");
        json_kv(b, "text", r->hint, 0);
        buf_adds(b, "},\"defaultConfiguration\":{");
        json_kv(b, "level", sarif_level(r->default_sev), 0);
        buf_adds(b, "},\"properties\":{\"tags\":[");
        buf_add_json_str(b, category_name(r->category));
        buf_adds(b, "]}}");
    }
    buf_adds(b, "]}},\"results\":[");
    for (i = 0; i < l->n; i++) {
        const struct diag *d = &l->v[i];
        if (d->suppressed)
            continue;
        buf_adds(b, k++ ? ",{" : "{");
        json_kv(b, "ruleId", d->rule->id, 1);
        buf_addf(b, "\"ruleIndex\":%zu,", (size_t)(d->rule - o->rules->v));
        json_kv(b, "level", sarif_level(d->sev), 1);
        buf_adds(b, "\"message\":{\"text\":");
        {
            struct buf m;
            buf_init(&m, 1 << 20);
            if (*d->kind)
                buf_addf(&m, "%s %s%s%s: ", d->kind, d->ns,
                         *d->ns ? "/" : "", d->name);
            buf_adds(&m, d->msg);
            if (d->path && *d->path)
                buf_addf(&m, " (at %s)", d->path);
            buf_add_json_str(b, m.p);
            buf_release(&m);
        }
        buf_adds(b, "},\"locations\":[{\"physicalLocation\":"
                 "{\"artifactLocation\":{");
        buf_adds(b, "\"uri\":");
        sarif_uri(b, d);
        buf_addf(b, "},\"region\":{\"startLine\":%u,\"startColumn\":%u}}",
                 d->line ? d->line : 1, d->col ? d->col : 1);
        if (*d->kind) {
            buf_adds(b, ",\"logicalLocations\":[{");
            json_kv(b, "fullyQualifiedName", d->path, 1);
            json_kv(b, "kind", "member", 0);
            buf_adds(b, "}]");
        }
        buf_adds(b, "}]}");
    }
    buf_adds(b, "]}]}\n");
}

/* ==== JUnit ============================================================= */

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
    return !strcmp(file_of(d), ob->file ? ob->file : "-")
           && !strcmp(d->kind, ob->kind) && !strcmp(d->ns, ob->ns)
           && !strcmp(d->name, ob->name);
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
        if (d->sev >= o->fail_on && o->fail_on != SEV_OFF) {
            buf_adds(b, "    <failure type=\"");
            xml_str(b, d->rule->id);
            buf_adds(b, "\" message=\"");
            xml_str(b, d->msg);
            buf_adds(b, "\">");
            xml_str(b, file_of(d));
            buf_addf(b, ":%u:%u: %s[%s] ", d->line, d->col, sev_name(d->sev),
                     d->rule->id);
            xml_str(b, d->msg);
            buf_adds(b, "</failure>\n");
            nf++;
        } else {
            buf_adds(b, "    <system-out>");
            xml_str(b, file_of(d));
            buf_addf(b, ":%u:%u: %s[%s] ", d->line, d->col, sev_name(d->sev),
                     d->rule->id);
            xml_str(b, d->msg);
            buf_adds(b, "</system-out>\n");
        }
    }
    buf_adds(b, "  </testcase>\n");
    *failures += nf ? 1 : 0;
}

static void render_junit(struct buf *b, const struct diag_list *l,
                         const struct render_opts *o)
{
    struct buf cases;
    size_t i, failures = 0, ncases = 0;

    buf_init(&cases, OUT_MAX);
    for (i = 0; i < o->nobjs; i++, ncases++)
        junit_case(&cases, l, o, &o->objs[i], &failures);
    /* findings outside any object (parse errors): one case per file:line */
    for (i = 0; i < l->n; i++) {
        const struct diag *d = &l->v[i];
        struct render_object ob;
        if (d->suppressed || *d->kind)
            continue;
        ob.file = file_of(d);
        ob.kind = "";
        ob.ns = "";
        ob.name = "";
        buf_adds(&cases, "  <testcase classname=\"");
        xml_str(&cases, ob.file);
        buf_addf(&cases, "\" name=\"document at line %u\">\n", d->line);
        if (d->sev >= o->fail_on && o->fail_on != SEV_OFF) {
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

/* ==== GitHub workflow commands ========================================== */

static void gh_escape(struct buf *b, const char *s, int property)
{
    for (; *s; s++) {
        if (*s == '%')
            buf_adds(b, "%25");
        else if (*s == '\r')
            buf_adds(b, "%0D");
        else if (*s == '\n')
            buf_adds(b, "%0A");
        else if (property && *s == ':')
            buf_adds(b, "%3A");
        else if (property && *s == ',')
            buf_adds(b, "%2C");
        else
            buf_addc(b, *s);
    }
}

static void render_github(struct buf *b, const struct diag_list *l,
                          const struct render_opts *o)
{
    size_t i;

    (void)o;
    for (i = 0; i < l->n; i++) {
        const struct diag *d = &l->v[i];
        if (d->suppressed)
            continue;
        buf_addf(b, "::%s file=", d->sev == SEV_ERROR ? "error"
                 : d->sev == SEV_WARN ? "warning" : "notice");
        gh_escape(b, file_of(d), 1);
        buf_addf(b, ",line=%u,col=%u,title=", d->line ? d->line : 1,
                 d->col ? d->col : 1);
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
        gh_escape(b, hint_of(d), 0);
        buf_adds(b, ")\n");
    }
}

int render(FILE *f, enum render_format fmt, const struct diag_list *l,
           const struct render_opts *o)
{
    struct buf b;
    int rc = 0;

    buf_init(&b, OUT_MAX);
    switch (fmt) {
    case FMT_TEXT: render_text(&b, l, o); break;
    case FMT_JSON: render_json(&b, l, o); break;
    case FMT_SARIF: render_sarif(&b, l, o); break;
    case FMT_JUNIT: render_junit(&b, l, o); break;
    case FMT_GITHUB: render_github(&b, l, o); break;
    }
    if (b.len && fwrite(b.p, 1, b.len, f) != b.len)
        rc = -1;
    if (fflush(f) != 0)
        rc = -1;
    buf_release(&b);
    return rc;
}
