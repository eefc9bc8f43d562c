/*
 * render_sarif.c - SARIF 2.1.0: the tool with every rule (help = hint,
 * helpUri = the rule's section of docs/rules.md, level = default severity,
 * category tag) and one result per unsuppressed finding with a
 * repository-relative URI, region, logical location and a
 * partialFingerprints entry that survives edits elsewhere in the file
 * (rule, object identity and path; no line number) for GitHub code
 * scanning's de-duplication.
 */
#include "render_int.h"

#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "../validate/arena.h"
#include "../validate/buf.h"
#include "../validate/limits.h"
#include "../validate/rule.h"
#include "../validate/strmap.h"

#define PROJECT_URL "https://github.com/claimcheck/claimcheck"
/* docs/rules.md on the default branch; each rule's heading is its id, so
 * its anchor is the id (tests/e2e/formats.sh checks both). */
#define RULES_DOC_URL PROJECT_URL "/blob/main/docs/rules.md#"
#define FINGERPRINT_KEY "claimcheck/v1"

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

/* The identity of finding d that stays put when lines move: rule, object
 * (kind/namespace/name, or the file for a finding on no object) and path.
 * Into f (reset first). */
static void fingerprint_text(struct buf *f, const struct diag *d)
{
    buf_reset(f);
    buf_addf(f, "%s:", d->rule->id);
    if (*d->kind)
        buf_addf(f, "%s/%s/%s", d->kind, d->ns, d->name);
    else
        buf_addf(f, "%s", render_file(d));
    buf_addf(f, ":%s", d->path ? d->path : "");
    if (!*d->kind)     /* input-parse: the message tells two apart */
        buf_addf(f, ":%s", d->msg);
}

/* Appends the partialFingerprints member of finding d: its identity, with
 * ":2", ":3"... for the second and later finding of the same identity in
 * this output (seen counts them), so that no two results share one. */
static void sarif_fingerprint(struct buf *b, const struct diag *d,
                              struct strmap *seen, struct buf *f)
{
    uintptr_t n;

    fingerprint_text(f, d);
    n = (uintptr_t)strmap_get(seen, f->p) + 1;
    strmap_put(seen, arena_strdup(seen->arena, f->p), (void *)n);
    if (n > 1)
        buf_addf(f, ":%zu", (size_t)n);
    buf_adds(b, ",\"partialFingerprints\":{\"" FINGERPRINT_KEY "\":");
    buf_add_json_str(b, f->p);
    buf_addc(b, '}');
}

void render_sarif(struct buf *b, const struct diag_list *l,
                  const struct render_opts *o)
{
    struct arena a;
    struct strmap seen;
    struct buf f;
    size_t i, k = 0;

    arena_init(&a, ARENA_SMALL_BYTES);
    strmap_init(&seen, &a);
    buf_init(&f, RENDER_OUT_MAX);

    buf_adds(b, "{\"$schema\":\"https://json.schemastore.org/"
             "sarif-2.1.0.json\",\"version\":\"2.1.0\",\"runs\":[{\"tool\":"
             "{\"driver\":{\"name\":\"claimcheck\",");
    render_json_kv(b, "version", o->tool_version, 1);
    render_json_kv(b, "semanticVersion", o->tool_version, 1);
    buf_adds(b, "\"informationUri\":\"" PROJECT_URL "\",\"rules\":[");
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
        buf_addf(b, "},\"helpUri\":\"%s%s\",\"defaultConfiguration\":{",
                 RULES_DOC_URL, r->id);
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
        buf_adds(b, "}]");
        sarif_fingerprint(b, d, &seen, &f);
        buf_addc(b, '}');
    }
    buf_adds(b, "]}]}\n");
    buf_release(&f);
    arena_release(&a);
}
