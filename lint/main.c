/*
 * lint.c - the `claimcheck` command line: lint, rules, explain, version
 * (and the commands other modules add: gates, cel, match). Parses flags,
 * reads files, directories and stdin, runs the engine and renders. The
 * only file of the linter that prints; all state lives in main's frame.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../rules/rules.h"
#include "../validate/arena.h"
#include "../validate/buf.h"
#include "cmds.h"
#include "../validate/config.h"
#include "../validate/engine.h"
#include "../validate/err.h"
#include "../validate/limits.h"
#include "../validate/object.h"
#include "render.h"
#include "../validate/run.h"
#include "../validate/target.h"
#include "../validate/version.h"

#define MAX_OUTPUTS 8

static const char usage_text[] =
"usage: claimcheck <command> [options]\n"
"\n"
"commands:\n"
"  lint [options] [PATH ...]   check manifests (files, directories, - for stdin)\n"
"  rules [-o json]             list the rules\n"
"  explain RULE                what a rule catches, why, and how to fix it\n"
"  gates [-k X.Y] [-g ...]     DRA feature gates at a Kubernetes version\n"
"  cel [--device FILE] EXPR    evaluate a CEL expression in the DRA environment\n"
"  match -i INVENTORY [--class NAME] EXPR\n"
"                              which inventory devices a selector matches\n"
"  version                     print the version\n"
"\n"
"lint options:\n"
"  -k, --kube-version X.Y      target Kubernetes version (default: newest known)\n"
"  -g, --feature-gates K=V,..  feature gate overrides (kube-apiserver syntax)\n"
"      --runtime-config GV=true,..  API versions enabled beyond the defaults\n"
"  -i, --inventory PATH        cluster objects to check against (repeatable)\n"
"  -o, --format FORMAT         text, json, sarif, junit, github (repeatable;\n"
"                              each may be followed by --output FILE)\n"
"      --output FILE           write the preceding --format to FILE\n"
"      --fail-on LEVEL         error (default), warning or never\n"
"  -c, --config FILE           config file (default: ./.claimcheck.yaml if present)\n"
"      --enable ID,..          turn rules or categories on\n"
"      --disable ID,..         turn rules or categories off\n"
"      --show-suppressed       also list findings suppressed by annotations\n"
"      --no-color              never colour the text output\n"
"      --no-hints              leave out the hint lines (text output)\n"
"\n"
"exit status: 0 nothing at or above --fail-on, 1 findings at or above it,\n"
"2 usage error or input that could not be read or parsed\n";

/* ==== reading inputs ==================================================== */

struct input {
    char *name;                 /* as given / found; malloc'ed */
    char *data;                 /* file contents, NUL-terminated; malloc'ed */
    size_t len;
};

struct inputs {
    struct input *v;
    size_t n, cap;
    int failed;                 /* a path could not be read */
};

static int read_stream(FILE *f, char **out, size_t *len, struct err *err,
                       const char *name)
{
    struct buf b;
    char chunk[65536];
    size_t n;

    buf_init(&b, LIMIT_FILE_BYTES);
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        if (buf_add(&b, chunk, n) < 0) {
            buf_release(&b);
            return err_set(err, "%s: larger than the %u MiB input limit",
                           name, LIMIT_FILE_BYTES >> 20);
        }
    if (ferror(f)) {
        buf_release(&b);
        return err_set(err, "%s: read error: %s", name, strerror(errno));
    }
    if (!b.cap) {   /* empty input: still hand out a malloc'ed buffer */
        buf_addc(&b, '\0');
        b.len = 0;
    }
    *out = b.p;
    *len = b.len;
    return 0;
}

/* A regular file: one exact allocation (no doubling), so peak memory is
 * the file size once; a file that grows while read falls back to the
 * stream reader. */
static int read_file(FILE *f, off_t size, char **out, size_t *len,
                     struct err *err, const char *name)
{
    char *data;
    size_t n;

    if (size < 0 || (unsigned long long)size > LIMIT_FILE_BYTES)
        return err_set(err, "%s: larger than the %u MiB input limit", name,
                       LIMIT_FILE_BYTES >> 20);
    data = malloc((size_t)size + 1);
    if (!data)
        return err_set(err, "%s: out of memory", name);
    n = fread(data, 1, (size_t)size, f);
    if (ferror(f)) {
        free(data);
        return err_set(err, "%s: read error: %s", name, strerror(errno));
    }
    if (n == (size_t)size && fgetc(f) != EOF) {
        free(data);
        rewind(f);
        return read_stream(f, out, len, err, name);
    }
    data[n] = '\0';
    *out = data;
    *len = n;
    return 0;
}

static void inputs_push(struct inputs *in, const char *name, char *data,
                        size_t len)
{
    if (in->n == in->cap) {
        in->cap = in->cap ? in->cap * 2 : 16;
        in->v = realloc(in->v, in->cap * sizeof(*in->v));
        if (!in->v)
            abort();
    }
    in->v[in->n].name = strdup(name);
    in->v[in->n].data = data;
    in->v[in->n].len = len;
    in->n++;
}

static int has_manifest_ext(const char *name)
{
    const char *dot = strrchr(name, '.');

    return dot && (!strcmp(dot, ".yaml") || !strcmp(dot, ".yml")
                   || !strcmp(dot, ".json"));
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void read_path(struct inputs *in, const char *path, int top,
                      int depth);

static void read_dir(struct inputs *in, const char *path, int depth)
{
    DIR *d = opendir(path);
    struct dirent *de;
    char **names = NULL;
    size_t n = 0, cap = 0, i;

    if (!d) {
        fprintf(stderr, "claimcheck: cannot open directory '%s': %s\n", path,
                strerror(errno));
        in->failed = 1;
        return;
    }
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;   /* hidden files and .git */
        if (n == cap) {
            cap = cap ? cap * 2 : 32;
            names = realloc(names, cap * sizeof(*names));
            if (!names)
                abort();
        }
        names[n] = malloc(strlen(path) + strlen(de->d_name) + 2);
        if (!names[n])
            abort();
        snprintf(names[n], strlen(path) + strlen(de->d_name) + 2, "%s%s%s",
                 path, path[strlen(path) - 1] == '/' ? "" : "/", de->d_name);
        n++;
    }
    closedir(d);
    qsort(names, n, sizeof(*names), cmp_names);
    for (i = 0; i < n; i++) {
        read_path(in, names[i], 0, depth + 1);
        free(names[i]);
    }
    free(names);
}

static void read_path(struct inputs *in, const char *path, int top, int depth)
{
    struct stat st;
    struct err err;
    FILE *f;
    char *data;
    size_t len;

    if (!strcmp(path, "-") && top) {
        if (read_stream(stdin, &data, &len, &err, "-") < 0) {
            fprintf(stderr, "claimcheck: %s\n", err.msg);
            in->failed = 1;
            return;
        }
        inputs_push(in, "-", data, len);
        return;
    }
    if (stat(path, &st) < 0) {
        fprintf(stderr, "claimcheck: cannot read '%s': %s\n", path,
                strerror(errno));
        in->failed = 1;
        return;
    }
    if (S_ISDIR(st.st_mode)) {
        if (depth > 64) {
            fprintf(stderr, "claimcheck: '%s': directories nested too "
                    "deep\n", path);
            in->failed = 1;
            return;
        }
        read_dir(in, path, depth);
        return;
    }
    if (!top && (!S_ISREG(st.st_mode) || !has_manifest_ext(path)))
        return;
    f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "claimcheck: cannot open '%s': %s\n", path,
                strerror(errno));
        in->failed = 1;
        return;
    }
    if (read_file(f, st.st_size, &data, &len, &err, path) < 0) {
        fprintf(stderr, "claimcheck: %s\n", err.msg);
        in->failed = 1;
        fclose(f);
        return;
    }
    fclose(f);
    inputs_push(in, path, data, len);
}

static void inputs_release(struct inputs *in)
{
    size_t i;

    for (i = 0; i < in->n; i++) {
        free(in->v[i].name);
        free(in->v[i].data);
    }
    free(in->v);
}

/* ==== options =========================================================== */

struct output {
    enum render_format fmt;
    const char *file;           /* NULL = stdout */
};

struct lint_opts {
    struct config cfg;
    const char **paths;
    size_t npaths;
    const char **inventories;
    size_t ninventories;
    struct output outs[MAX_OUTPUTS];
    size_t nouts;
    enum sev fail_on;
    int no_color, no_hints;
    const char *config_path;
};

/* Returns the option's value: "--x=v", or the next argument. */
static const char *opt_value(int argc, char **argv, int *i, const char *a,
                             const char *name)
{
    size_t l = strlen(name);

    if (!strncmp(a, name, l) && a[l] == '=')
        return a + l + 1;
    if (*i + 1 >= argc) {
        fprintf(stderr, "claimcheck: option '%s' needs a value\n", name);
        return NULL;
    }
    return argv[++*i];
}

static int is_opt(const char *a, const char *name)
{
    size_t l = strlen(name);

    return !strncmp(a, name, l) && (a[l] == '\0' || a[l] == '=');
}

static int usage_error(const char *msg)
{
    fprintf(stderr, "claimcheck: %s\n(see 'claimcheck --help')\n", msg);
    return 2;
}

static int parse_lint_args(int argc, char **argv, struct lint_opts *o)
{
    struct err err;
    int i;

    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        int rc = 0;
        if (a[0] != '-' || !strcmp(a, "-")) {
            o->paths = realloc(o->paths, (o->npaths + 1) * sizeof(char *));
            if (!o->paths)
                abort();
            o->paths[o->npaths++] = a;
            continue;
        }
        if (!strcmp(a, "--")) {
            for (i++; i < argc; i++) {
                o->paths = realloc(o->paths, (o->npaths + 1) * sizeof(char *));
                if (!o->paths)
                    abort();
                o->paths[o->npaths++] = argv[i];
            }
            break;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage_text, stdout);
            return 1;
        }
        if (!strcmp(a, "--no-color")) {
            o->no_color = 1;
        } else if (!strcmp(a, "--no-hints") || !strcmp(a, "--no-hint")) {
            o->no_hints = 1;
        } else if (!strcmp(a, "--show-suppressed")) {
            o->cfg.show_suppressed = 1;
        } else if (!strcmp(a, "-k") || is_opt(a, "--kube-version")) {
            v = opt_value(argc, argv, &i, a, a[1] == 'k' ? "-k"
                          : "--kube-version");
            rc = !v ? -1 : config_set_kube_version(&o->cfg, v, &err);
        } else if (!strcmp(a, "-g") || is_opt(a, "--feature-gates")) {
            v = opt_value(argc, argv, &i, a, a[1] == 'g' ? "-g"
                          : "--feature-gates");
            rc = !v ? -1 : config_add_gates(&o->cfg, v, &err);
        } else if (is_opt(a, "--runtime-config")) {
            v = opt_value(argc, argv, &i, a, "--runtime-config");
            rc = !v ? -1 : config_add_runtime(&o->cfg, v, &err);
        } else if (!strcmp(a, "-i") || is_opt(a, "--inventory")) {
            v = opt_value(argc, argv, &i, a, a[1] == 'i' ? "-i"
                          : "--inventory");
            if (!v)
                return -1;
            o->inventories = realloc(o->inventories, (o->ninventories + 1)
                                     * sizeof(char *));
            if (!o->inventories)
                abort();
            o->inventories[o->ninventories++] = v;
        } else if (!strcmp(a, "-o") || is_opt(a, "--format")) {
            v = opt_value(argc, argv, &i, a, a[1] == 'o' ? "-o" : "--format");
            if (!v)
                return -1;
            if (o->nouts == MAX_OUTPUTS) {
                usage_error("too many --format options");
                return -1;
            }
            if (render_format_parse(v, &o->outs[o->nouts].fmt) < 0) {
                fprintf(stderr, "claimcheck: unknown format '%s' (text, "
                        "json, sarif, junit, github)\n", v);
                return -1;
            }
            o->outs[o->nouts++].file = NULL;
        } else if (is_opt(a, "--output")) {
            v = opt_value(argc, argv, &i, a, "--output");
            if (!v)
                return -1;
            if (!o->nouts) {
                usage_error("--output must follow a --format");
                return -1;
            }
            o->outs[o->nouts - 1].file = v;
        } else if (is_opt(a, "--fail-on")) {
            v = opt_value(argc, argv, &i, a, "--fail-on");
            if (!v)
                return -1;
            if (!strcmp(v, "never"))
                o->fail_on = SEV_OFF;
            else if (!strcmp(v, "error"))
                o->fail_on = SEV_ERROR;
            else if (!strcmp(v, "warning"))
                o->fail_on = SEV_WARN;
            else if (!strcmp(v, "info"))
                o->fail_on = SEV_INFO;
            else {
                fprintf(stderr, "claimcheck: --fail-on takes error, warning "
                        "or never, not '%s'\n", v);
                return -1;
            }
        } else if (!strcmp(a, "-c") || is_opt(a, "--config")) {
            v = opt_value(argc, argv, &i, a, a[1] == 'c' ? "-c" : "--config");
            if (!v)
                return -1;
            o->config_path = v;
        } else if (is_opt(a, "--enable") || is_opt(a, "--disable")) {
            int on = a[2] == 'e';
            v = opt_value(argc, argv, &i, a, on ? "--enable" : "--disable");
            rc = !v ? -1 : config_add_enable(&o->cfg, v, on, &err);
        } else {
            fprintf(stderr, "claimcheck: unknown option '%s'\n(see "
                    "'claimcheck --help')\n", a);
            return -1;
        }
        if (rc < 0) {
            if (v)
                fprintf(stderr, "claimcheck: %s\n", err.msg);
            return -1;
        }
    }
    {
        size_t k, to_stdout = 0;
        for (k = 0; k < o->nouts; k++)
            to_stdout += !o->outs[k].file || !strcmp(o->outs[k].file, "-");
        if (to_stdout > 1) {
            fprintf(stderr, "claimcheck: only one format can go to stdout; "
                    "give the others --output FILE\n");
            return -1;
        }
    }
    return 0;
}

/* ==== lint ============================================================== */

static int write_outputs(const struct lint_opts *o, const struct diag_list *l,
                         struct render_opts *ro)
{
    size_t i;
    int stdout_used = 0, rc = 0;

    for (i = 0; i < o->nouts; i++) {
        const struct output *out = &o->outs[i];
        FILE *f = stdout;
        if (out->file && strcmp(out->file, "-")) {
            f = fopen(out->file, "w");
            if (!f) {
                fprintf(stderr, "claimcheck: cannot write '%s': %s\n",
                        out->file, strerror(errno));
                rc = -1;
                continue;
            }
        } else if (stdout_used++) {
            fprintf(stderr, "claimcheck: only one format can go to stdout; "
                    "give the others --output FILE\n");
            rc = -1;
            continue;
        }
        ro->color = out->fmt == FMT_TEXT && f == stdout && !o->no_color
                    && isatty(fileno(stdout)) && !getenv("NO_COLOR");
        if (render(f, out->fmt, l, ro) < 0) {
            fprintf(stderr, "claimcheck: write error\n");
            rc = -1;
        }
        if (f != stdout)
            fclose(f);
    }
    return rc;
}

static int cmd_lint(int argc, char **argv)
{
    struct lint_opts o;
    struct inputs in = {0}, invin = {0};
    struct inventory *inv = NULL;
    struct engine *eng = NULL;
    struct arena arena;
    struct diag_list diags;
    struct run *run;
    struct render_opts ro;
    struct render_object *robjs = NULL;
    const struct run_obj *objs;
    struct err err;
    size_t i, nobjs;
    int ret = 2, worst_hit = 0;

    memset(&o, 0, sizeof(o));
    config_init(&o.cfg);
    o.fail_on = SEV_ERROR;
    arena_init(&arena, 1 << 20);
    i = (size_t)parse_lint_args(argc, argv, &o);
    if ((int)i == 1) {
        ret = 0;
        goto out;
    }
    if ((int)i < 0)
        goto out;
    if (!o.config_path && access(".claimcheck.yaml", R_OK) == 0)
        o.config_path = ".claimcheck.yaml";
    if (o.config_path) {
        /* the file first, then the flags again so that flags win */
        struct config flags = o.cfg;
        config_init(&o.cfg);
        if (config_load_file(&o.cfg, o.config_path, &err) < 0) {
            fprintf(stderr, "claimcheck: %s\n", err.msg);
            config_release(&flags);
            goto out;
        }
        if (flags.kube_version)
            o.cfg.kube_version = arena_strdup(&o.cfg.arena,
                                              flags.kube_version);
        for (i = 0; i < flags.ngates; i++) {
            char *kv = arena_printf(&o.cfg.arena, "%s=%s", flags.gates[i].key,
                                    flags.gates[i].value);
            config_add_gates(&o.cfg, kv, &err);
        }
        for (i = 0; i < flags.nruntime; i++) {
            char *kv = arena_printf(&o.cfg.arena, "%s=%s",
                                    flags.runtime[i].key,
                                    flags.runtime[i].value);
            config_add_runtime(&o.cfg, kv, &err);
        }
        for (i = 0; i < flags.nsevs; i++)
            config_add_enable(&o.cfg, flags.sevs[i].rule,
                              flags.sevs[i].use_default, &err);
        o.cfg.show_suppressed |= flags.show_suppressed;
        config_release(&flags);
    }
    if (!o.nouts) {
        o.outs[0].fmt = FMT_TEXT;
        o.outs[0].file = NULL;
        o.nouts = 1;
    }
    eng = engine_new(&o.cfg, &rules_builtin, &err);
    if (!eng) {
        fprintf(stderr, "claimcheck: %s\n", err.msg);
        goto out;
    }
    if (o.ninventories) {
        inv = inventory_new();
        for (i = 0; i < o.ninventories; i++)
            read_path(&invin, o.inventories[i], 1, 0);
        if (invin.failed)
            goto out;
        for (i = 0; i < invin.n; i++)
            if (inventory_add_text(inv, invin.v[i].name, invin.v[i].data,
                                   invin.v[i].len, &err) < 0) {
                fprintf(stderr, "claimcheck: inventory: %s\n", err.msg);
                goto out;
            }
    }
    if (!o.npaths)
        read_path(&in, "-", 1, 0);
    for (i = 0; i < o.npaths; i++)
        read_path(&in, o.paths[i], 1, 0);
    diag_list_init(&diags, &arena);
    run = run_new(eng, inv, &arena, &diags);
    for (i = 0; i < in.n; i++)
        run_add_text(run, in.v[i].name, in.v[i].data, in.v[i].len);
    run_check(run);
    diag_list_sort(&diags);

    memset(&ro, 0, sizeof(ro));
    ro.hints = !o.no_hints;
    ro.show_suppressed = o.cfg.show_suppressed;
    ro.fail_on = o.fail_on;
    ro.rules = &rules_builtin;
    ro.kube_version = engine_kube_version(eng);
    ro.tool_version = claimcheck_version;
    ro.files = in.n;
    ro.objects = run_objects(run);
    objs = run_checked(run, &nobjs);
    robjs = calloc(nobjs ? nobjs : 1, sizeof(*robjs));
    if (!robjs)
        abort();
    for (i = 0; i < nobjs; i++) {
        robjs[i].file = objs[i].file;
        robjs[i].kind = objs[i].kind;
        robjs[i].ns = objs[i].ns;
        robjs[i].name = objs[i].name;
    }
    ro.objs = robjs;
    ro.nobjs = nobjs;
    if (write_outputs(&o, &diags, &ro) < 0)
        goto out;
    for (i = 0; i < diags.n; i++)
        if (!diags.v[i].suppressed && o.fail_on != SEV_OFF
            && diags.v[i].sev >= o.fail_on)
            worst_hit = 1;
    ret = (in.failed || run_parse_errors(run)) ? 2 : worst_hit;
    run_free(run);
out:
    free(robjs);
    engine_free(eng);
    inventory_free(inv);
    inputs_release(&in);
    inputs_release(&invin);
    free(o.paths);
    free(o.inventories);
    config_release(&o.cfg);
    arena_release(&arena);
    return ret;
}

/* ==== rules / explain / version ========================================= */

static int cmd_rules(int argc, char **argv)
{
    struct buf b;
    int json = 0;
    size_t i;

    if (argc == 3 && !strcmp(argv[1], "-o") && !strcmp(argv[2], "json"))
        json = 1;
    else if (argc == 2 && !strcmp(argv[1], "--format=json"))
        json = 1;
    else if (argc != 1)
        return usage_error("usage: claimcheck rules [-o json]");
    buf_init(&b, 1 << 20);
    if (json)
        buf_adds(&b, "[");
    for (i = 0; i < rules_builtin.n; i++) {
        const struct rule *r = &rules_builtin.v[i];
        if (json) {
            buf_adds(&b, i ? ",\n{\"id\":" : "\n{\"id\":");
            buf_add_json_str(&b, r->id);
            buf_adds(&b, ",\"category\":");
            buf_add_json_str(&b, category_name(r->category));
            buf_adds(&b, ",\"severity\":");
            buf_add_json_str(&b, sev_name(r->default_sev));
            buf_adds(&b, ",\"summary\":");
            buf_add_json_str(&b, r->summary);
            buf_adds(&b, ",\"hint\":");
            buf_add_json_str(&b, r->hint);
            buf_adds(&b, "}");
        } else {
            buf_addf(&b, "%-28s %-15s %-8s %s\n", r->id,
                     category_name(r->category), sev_name(r->default_sev),
                     r->summary);
        }
    }
    if (json)
        buf_adds(&b, "\n]\n");
    fwrite(b.p, 1, b.len, stdout);
    buf_release(&b);
    return 0;
}

static void print_indented(const char *s)
{
    while (*s) {
        const char *nl = strchr(s, '\n');
        size_t l = nl ? (size_t)(nl - s) : strlen(s);
        printf("    %.*s\n", (int)l, s);
        s += l + (nl ? 1 : 0);
    }
}

static int cmd_explain(int argc, char **argv)
{
    const struct rule *r;

    if (argc != 2)
        return usage_error("usage: claimcheck explain RULE");
    r = ruleset_find(&rules_builtin, argv[1]);
    if (!r) {
        fprintf(stderr, "claimcheck: unknown rule '%s' (see 'claimcheck "
                "rules')\n", argv[1]);
        return 2;
    }
    printf("%s (%s, default severity %s)\n\n%s\n\n", r->id,
           category_name(r->category), sev_name(r->default_sev), r->summary);
    if (r->why)
        printf("Why it matters:\n%s\n\n", r->why);
    if (r->bad) {
        printf("Fails:\n");
        print_indented(r->bad);
        printf("\n");
    }
    if (r->good) {
        printf("Fixed:\n");
        print_indented(r->good);
        printf("\n");
    }
    printf("Fix: %s\n", r->hint);
    printf("Suppress on one object: annotation ignore.claimcheck.dev/%s: "
           "\"<reason>\"\n", r->id);
    return 0;
}

static int cmd_version(void)
{
    printf("claimcheck %s (Kubernetes feature-gate table up to %s)\n",
           claimcheck_version, target_newest());
    return 0;
}

int main(int argc, char **argv)
{
    const char *cmd;

    if (argc < 2) {
        fputs(usage_text, stderr);
        return 2;
    }
    cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (!strcmp(cmd, "version") || !strcmp(cmd, "--version"))
        return cmd_version();
    if (!strcmp(cmd, "lint"))
        return cmd_lint(argc - 1, argv + 1);
    if (!strcmp(cmd, "rules"))
        return cmd_rules(argc - 1, argv + 1);
    if (!strcmp(cmd, "explain"))
        return cmd_explain(argc - 1, argv + 1);
    if (!strcmp(cmd, "gates"))
        return cmd_gates(argc - 1, argv + 1);
    if (!strcmp(cmd, "cel"))
        return cmd_cel(argc - 1, argv + 1);
    if (!strcmp(cmd, "match"))
        return cmd_match(argc - 1, argv + 1);
    fprintf(stderr, "claimcheck: unknown command '%s'\n(see 'claimcheck "
            "--help')\n", cmd);
    return 2;
}
