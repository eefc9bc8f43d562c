/*
 * outputs.c - the report's formats and destinations (see outputs.h). It
 * renders through render.h and decides nothing about findings but the
 * exit status --fail-on gives.
 */
#include "outputs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../validate/arena.h"
#include "../validate/err.h"
#include "../validate/rule.h"
#include "../validate/run.h"

void outputs_init(struct outputs *o)
{
    memset(o, 0, sizeof(*o));
    o->fail_on = SEV_ERROR;
}

int outputs_add(struct outputs *o, const char *name, struct err *err)
{
    char names[128];
    size_t i, n = 0;

    if (o->n == OUTPUTS_MAX)
        return err_set(err, "too many --format options");
    o->v[o->n].fmt = render_format_find(name);
    if (!o->v[o->n].fmt) {
        names[0] = '\0';
        for (i = 0; i < render_nformats && n < sizeof(names); i++)
            n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s",
                                  i ? ", " : "", render_formats[i].name);
        return err_set(err, "unknown format '%s' (%s)", name, names);
    }
    o->v[o->n++].file = NULL;
    return 0;
}

int outputs_set_file(struct outputs *o, const char *file, struct err *err)
{
    if (!o->n)
        return err_set(err, "--output must follow a --format");
    o->v[o->n - 1].file = file;
    return 0;
}

static int fail_level(const char *v, enum sev *out, struct err *err)
{
    if (!strcmp(v, "never"))
        *out = SEV_OFF;
    else if (!strcmp(v, "error"))
        *out = SEV_ERROR;
    else if (!strcmp(v, "warning"))
        *out = SEV_WARN;
    else if (!strcmp(v, "info"))
        *out = SEV_INFO;
    else
        return err_set(err, "--fail-on takes error, warning or never, or "
                       "RULE=error|warning|never, not '%s'", v);
    return 0;
}

int outputs_fail_on(struct outputs *o, const struct ruleset *rules,
                    const char *v, struct err *err)
{
    const char *eq = strchr(v, '=');
    const struct rule *r;
    struct render_fail_rule *f;
    char id[128];               /* longer is no rule id */
    const char *near;

    if (!eq)
        return fail_level(v, &o->fail_on, err);
    if ((size_t)(eq - v) >= sizeof(id))
        return err_set(err, "--fail-on: unknown rule '%.*s'", (int)(eq - v),
                       v);
    memcpy(id, v, (size_t)(eq - v));
    id[eq - v] = '\0';
    r = ruleset_find(rules, id);
    if (!r) {
        near = ruleset_suggest(rules, id);
        return err_set(err, "--fail-on: unknown rule '%s'%s%s%s", id,
                       near ? " (did you mean '" : "", near ? near : "",
                       near ? "'?)" : "");
    }
    if (o->nfail_rules == OUTPUTS_MAX_FAIL_RULES)
        return err_set(err, "too many --fail-on RULE=LEVEL options");
    f = &o->fail_rules[o->nfail_rules];
    if (fail_level(eq + 1, &f->sev, err) < 0)
        return -1;
    f->rule = r->id;
    o->nfail_rules++;
    return 0;
}

static int to_stdout(const struct output *out)
{
    return !out->file || !strcmp(out->file, "-");
}

int outputs_finish(struct outputs *o, struct err *err)
{
    size_t k, n = 0;

    if (!o->n) {
        o->v[0].fmt = &render_formats[0];
        o->v[0].file = NULL;
        o->n = 1;
    }
    for (k = 0; k < o->n; k++)
        n += (size_t)to_stdout(&o->v[k]);
    if (n > 1)
        return err_set(err, "only one format can go to stdout; give the "
                       "others --output FILE");
    return 0;
}

int outputs_write(const struct outputs *o, const char *prog,
                  const struct diag_list *l, struct render_opts *ro)
{
    size_t i;
    int rc = 0;

    for (i = 0; i < o->n; i++) {
        const struct output *out = &o->v[i];
        FILE *f = stdout;
        if (!to_stdout(out)) {
            f = fopen(out->file, "w");
            if (!f) {
                fprintf(stderr, "%s: cannot write '%s': %s\n", prog,
                        out->file, strerror(errno));
                rc = -1;
                continue;
            }
        }
        ro->color = out->fmt->color && f == stdout && !o->no_color
                    && isatty(fileno(stdout)) && !getenv("NO_COLOR");
        if (render(f, out->fmt, l, ro) < 0) {
            fprintf(stderr, "%s: write error\n", prog);
            rc = -1;
        }
        if (f != stdout)
            fclose(f);
    }
    return rc;
}

void outputs_objects(struct arena *a, const struct run *r,
                     struct render_opts *ro)
{
    const struct run_obj *objs;
    struct render_object *v;
    size_t i, n;

    objs = run_checked(r, &n);
    v = arena_alloc(a, (n + 1) * sizeof(*v));
    for (i = 0; i < n; i++) {
        v[i].file = objs[i].file;
        v[i].api_version = objs[i].api_version;
        v[i].kind = objs[i].kind;
        v[i].ns = objs[i].ns;
        v[i].name = objs[i].name;
    }
    ro->objs = v;
    ro->nobjs = n;
}

int outputs_has(const struct outputs *o, const char *name)
{
    size_t i;

    for (i = 0; i < o->n; i++)
        if (!strcmp(o->v[i].fmt->name, name))
            return 1;
    return 0;
}

int outputs_failed(const struct outputs *o, const struct diag_list *l)
{
    size_t i;

    for (i = 0; i < l->n; i++)
        if (!l->v[i].suppressed && render_fails(o->fail_on, o->fail_rules,
                                                o->nfail_rules, &l->v[i]))
            return 1;
    return 0;
}
