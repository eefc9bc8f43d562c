/*
 * render_sarif.c - SARIF 2.1.0: the tool with every rule (help = hint, level
 * = default severity, category tag) and one result per unsuppressed
 * finding with a repository-relative URI, region and logical location.
 */
#include "render_int.h"

#include <string.h>
#include <unistd.h>

#include "../validate/buf.h"
#include "../validate/rule.h"

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
    const char *f = render_file(d);
    char cwd[4096];
    struct buf u;
    size_t n;

    buf_init(&u, RENDER_OUT_MAX);
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

/* "Kind/ns/name" (or "Kind/name") as a JSON string */
static void sarif_object(struct buf *b, const struct diag *d)
{
    struct buf m;

    buf_init(&m, 4096);
    buf_addf(&m, "%s/%s%s%s", d->kind, d->ns, *d->ns ? "/" : "", d->name);
    buf_add_json_str(b, m.p);
    buf_release(&m);
}

void render_sarif(struct buf *b, const struct diag_list *l,
                  const struct render_opts *o)
{
    size_t i, k = 0;

    buf_adds(b, "{\"$schema\":\"https://json.schemastore.org/"
             "sarif-2.1.0.json\",\"version\":\"2.1.0\",\"runs\":[{\"tool\":"
             "{\"driver\":{\"name\":\"claimcheck\",");
    render_json_kv(b, "version", o->tool_version, 1);
    render_json_kv(b, "semanticVersion", o->tool_version, 1);
    buf_adds(b, "\"informationUri\":\"https://github.com/claimcheck/"
             "claimcheck\",\"rules\":[");
    for (i = 0; i < o->rules->n; i++) {
        const struct rule *r = &o->rules->v[i];
        if (i)
            buf_addc(b, ',');
        buf_adds(b, "{");
        render_json_kv(b, "id", r->id, 1);
        render_json_kv(b, "name", r->id, 1);
        buf_adds(b, "\"shortDescription\":{");
        render_json_kv(b, "text", r->summary, 0);
        buf_adds(b, "},\"fullDescription\":{");
        render_json_kv(b, "text", r->why ? r->why : r->summary, 0);
        buf_adds(b, "},\"help\":{");
        render_json_kv(b, "text", r->hint, 0);
        buf_adds(b, "},\"defaultConfiguration\":{");
        render_json_kv(b, "level", sarif_level(r->default_sev), 0);
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
        render_json_kv(b, "ruleId", d->rule->id, 1);
        buf_addf(b, "\"ruleIndex\":%zu,", (size_t)(d->rule - o->rules->v));
        render_json_kv(b, "level", sarif_level(d->sev), 1);
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
        if (!d->line && o->cluster) {
            /* a live object: located by its identity */
            buf_adds(b, "},\"locations\":[{\"logicalLocations\":[{");
            buf_adds(b, "\"fullyQualifiedName\":");
            sarif_object(b, d);
            buf_adds(b, ",\"kind\":\"resource\"}]}]}");
            continue;
        }
        buf_adds(b, "},\"locations\":[{\"physicalLocation\":"
                 "{\"artifactLocation\":{");
        buf_adds(b, "\"uri\":");
        sarif_uri(b, d);
        buf_addf(b, "},\"region\":{\"startLine\":%u,\"startColumn\":%u}}",
                 d->line ? d->line : 1, d->col ? d->col : 1);
        if (*d->kind) {
            buf_adds(b, ",\"logicalLocations\":[{");
            render_json_kv(b, "fullyQualifiedName", d->path, 1);
            render_json_kv(b, "kind", "member", 0);
            buf_adds(b, "}]");
        }
        buf_adds(b, "}]}");
    }
    buf_adds(b, "]}]}\n");
}
