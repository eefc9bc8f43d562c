/*
 * cmd_lint.c - `claimcheck lint [options] [PATH ...]`: reads the inputs
 * (inputs.c) and the inventory, runs the engine over them and writes each
 * requested format to stdout or its --output file. Owns the lint options,
 * how flags and the config file combine (flags win), and the exit code:
 * 0 nothing at or above --fail-on, 1 findings at or above it, 2 a usage
 * error or input that could not be read or parsed.
 */
#include "cmds.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../rules/rules.h"
#include "../validate/arena.h"
#include "../validate/config.h"
#include "../validate/engine.h"
#include "../validate/err.h"
#include "../validate/inventory.h"
#include "../validate/limits.h"
#include "../validate/run.h"
#include "../validate/version.h"
#include "../validate/xalloc.h"
#include "cli.h"
#include "inputs.h"
#include "render.h"

#define MAX_OUTPUTS 8

enum {
    O_INVENTORY, O_FORMAT, O_OUTPUT, O_FAIL_ON, O_CONFIG, O_ENABLE,
    O_DISABLE, O_SHOW_SUPPRESSED, O_NO_COLOR, O_NO_HINTS
};

static const struct opt rows[] = {
    { "kube-version", 'k', OPT_VALUE, "X.Y",
      "target Kubernetes version (default: newest known)", CLI_KUBE_VERSION },
    { "feature-gates", 'g', OPT_VALUE, "K=V,..",
      "feature gate overrides (kube-apiserver syntax)", CLI_FEATURE_GATES },
    { "runtime-config", 0, OPT_VALUE, "GV=true,..",
      "API versions enabled beyond the defaults", CLI_RUNTIME_CONFIG },
    { "inventory", 'i', OPT_VALUE, "PATH",
      "cluster objects to check against (repeatable)", O_INVENTORY },
    { "format", 'o', OPT_VALUE, "FORMAT",
      "an output format below (repeatable; each may\n"
      "be followed by --output FILE)", O_FORMAT },
    { "output", 0, OPT_VALUE, "FILE",
      "write the preceding --format to FILE", O_OUTPUT },
    { "fail-on", 0, OPT_VALUE, "error|warning|never",
      "the lowest severity that exits 1 (default\nerror)", O_FAIL_ON },
    { "config", 'c', OPT_VALUE, "FILE",
      "config file (default: ./.claimcheck.yaml if present)", O_CONFIG },
    { "enable", 0, OPT_VALUE, "ID,..", "turn rules or categories on",
      O_ENABLE },
    { "disable", 0, OPT_VALUE, "ID,..", "turn rules or categories off",
      O_DISABLE },
    { "show-suppressed", 0, OPT_FLAG, NULL,
      "also list findings suppressed by annotations", O_SHOW_SUPPRESSED },
    { "no-color", 0, OPT_FLAG, NULL, "never colour the text output",
      O_NO_COLOR },
    { "no-hints", 0, OPT_FLAG, NULL,
      "leave out the hint lines (text output)", O_NO_HINTS },
    { "no-hint", 0, OPT_FLAG, NULL, NULL, O_NO_HINTS },
    { "help", 'h', OPT_FLAG, NULL, "show this help", CLI_HELP },
};
const struct opt_table lint_options = OPT_TABLE(rows);

void lint_help_more(FILE *f)
{
    size_t i;

    fprintf(f, "\nformats:");
    for (i = 0; i < render_nformats; i++)
        fprintf(f, "%s %s%s", i ? "," : "", render_formats[i].name,
                i ? "" : " (default)");
    fprintf(f, "\n\nPATH is a file, a directory (its *.yaml, *.yml and *.json, "
            "hidden\nentries skipped) or - for stdin; without PATH stdin is "
            "read unless\nit is a terminal.\n"
            "\nexit status: 0 nothing at or above --fail-on, 1 findings at "
            "or above it,\n2 usage error or input that could not be read or "
            "parsed\n");
}

struct output {
    const struct render_format *fmt;
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

static void push(const char ***v, size_t *n, const char *s)
{
    *v = xrealloc(*v, (*n + 1) * sizeof(**v));
    (*v)[(*n)++] = s;
}

static int add_format(struct lint_opts *o, const char *v, struct err *err)
{
    char names[128];
    size_t i, n = 0;

    if (o->nouts == MAX_OUTPUTS)
        return err_set(err, "too many --format options");
    o->outs[o->nouts].fmt = render_format_find(v);
    if (!o->outs[o->nouts].fmt) {
        names[0] = '\0';
        for (i = 0; i < render_nformats && n < sizeof(names); i++)
            n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s",
                                  i ? ", " : "", render_formats[i].name);
        return err_set(err, "unknown format '%s' (%s)", v, names);
    }
    o->outs[o->nouts++].file = NULL;
    return 0;
}

static int on_option(void *ctx, int id, const char *v, struct err *err)
{
    struct lint_opts *o = ctx;

    switch (id) {
    case OPT_OPERAND:
        push(&o->paths, &o->npaths, v);
        return 0;
    case O_NO_COLOR:
        o->no_color = 1;
        return 0;
    case O_NO_HINTS:
        o->no_hints = 1;
        return 0;
    case O_SHOW_SUPPRESSED:
        o->cfg.show_suppressed = 1;
        return 0;
    case O_INVENTORY:
        push(&o->inventories, &o->ninventories, v);
        return 0;
    case O_FORMAT:
        return add_format(o, v, err);
    case O_OUTPUT:
        if (!o->nouts)
            return err_set(err, "--output must follow a --format");
        o->outs[o->nouts - 1].file = v;
        return 0;
    case O_FAIL_ON:
        if (!strcmp(v, "never"))
            o->fail_on = SEV_OFF;
        else if (!strcmp(v, "error"))
            o->fail_on = SEV_ERROR;
        else if (!strcmp(v, "warning"))
            o->fail_on = SEV_WARN;
        else if (!strcmp(v, "info"))
            o->fail_on = SEV_INFO;
        else
            return err_set(err, "--fail-on takes error, warning or never, "
                           "not '%s'", v);
        return 0;
    case O_CONFIG:
        o->config_path = v;
        return 0;
    case O_ENABLE:
    case O_DISABLE:
        return config_add_enable(&o->cfg, v, id == O_ENABLE, err);
    default:
        return cli_target_option(&o->cfg, id, v, err);
    }
}

static int check_outputs(const struct lint_opts *o, struct err *err)
{
    size_t k, to_stdout = 0;

    for (k = 0; k < o->nouts; k++)
        to_stdout += !o->outs[k].file || !strcmp(o->outs[k].file, "-");
    if (to_stdout > 1)
        return err_set(err, "only one format can go to stdout; give the "
                       "others --output FILE");
    return 0;
}

/* The config file, then the flags again so that flags win. */
static int apply_config_file(struct lint_opts *o, struct err *err)
{
    struct config flags = o->cfg;
    size_t i;

    config_init(&o->cfg);
    if (config_load_file(&o->cfg, o->config_path, err) < 0) {
        config_release(&flags);
        return -1;
    }
    if (flags.kube_version)
        o->cfg.kube_version = arena_strdup(&o->cfg.arena, flags.kube_version);
    for (i = 0; i < flags.ngates; i++)
        config_add_gates(&o->cfg, arena_printf(&o->cfg.arena, "%s=%s",
                                               flags.gates[i].key,
                                               flags.gates[i].value), err);
    for (i = 0; i < flags.nruntime; i++)
        config_add_runtime(&o->cfg, arena_printf(&o->cfg.arena, "%s=%s",
                                                 flags.runtime[i].key,
                                                 flags.runtime[i].value),
                           err);
    for (i = 0; i < flags.nsevs; i++)
        config_add_enable(&o->cfg, flags.sevs[i].rule,
                          flags.sevs[i].use_default, err);
    o->cfg.show_suppressed |= flags.show_suppressed;
    config_release(&flags);
    return 0;
}

static int write_outputs(const struct lint_opts *o, const struct diag_list *l,
                         struct render_opts *ro)
{
    size_t i;
    int rc = 0;

    for (i = 0; i < o->nouts; i++) {
        const struct output *out = &o->outs[i];
        FILE *f = stdout;
        if (out->file && strcmp(out->file, "-")) {
            f = fopen(out->file, "w");
            if (!f) {
                cli_error("cannot write '%s': %s", out->file,
                          strerror(errno));
                rc = -1;
                continue;
            }
        }
        ro->color = out->fmt->color && f == stdout && !o->no_color
                    && isatty(fileno(stdout)) && !getenv("NO_COLOR");
        if (render(f, out->fmt, l, ro) < 0) {
            cli_error("write error");
            rc = -1;
        }
        if (f != stdout)
            fclose(f);
    }
    return rc;
}

static int load_inventory(const struct lint_opts *o, struct inputs *invin,
                          struct inventory **inv, struct err *err)
{
    size_t i;

    if (!o->ninventories)
        return 0;
    *inv = inventory_new();
    for (i = 0; i < o->ninventories; i++)
        inputs_add(invin, o->inventories[i]);
    if (invin->failed)
        return -2;      /* reported already */
    for (i = 0; i < invin->n; i++)
        if (inventory_add_text(*inv, invin->v[i].name, invin->v[i].data,
                               invin->v[i].len, err) < 0)
            return -1;
    return 0;
}

/* The objects JUnit reports one testcase for; malloc'ed. */
static struct render_object *checked_objects(const struct run *run,
                                             size_t *n)
{
    const struct run_obj *objs = run_checked(run, n);
    struct render_object *robjs = xcalloc(*n ? *n : 1, sizeof(*robjs));
    size_t i;

    for (i = 0; i < *n; i++) {
        robjs[i].file = objs[i].file;
        robjs[i].kind = objs[i].kind;
        robjs[i].ns = objs[i].ns;
        robjs[i].name = objs[i].name;
    }
    return robjs;
}

int cmd_lint(const struct cli *cli, int argc, char **argv)
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
    struct err err;
    size_t i;
    int ret = 2, worst_hit = 0, rc;

    memset(&o, 0, sizeof(o));
    config_init(&o.cfg);
    o.fail_on = SEV_ERROR;
    arena_init(&arena, ARENA_RUN_BYTES);
    if (cli_parse(cli, argc, argv, on_option, &o, &ret) < 0)
        goto out;
    if (!o.npaths && isatty(STDIN_FILENO)) {
        /* nothing given and nobody piping: waiting on the terminal would
         * look like a hang */
        cli_error("no PATH given and stdin is a terminal (use - to read it)");
        cli_help(cli, stderr);
        goto out;
    }
    if (check_outputs(&o, &err) < 0) {
        cli_error("%s", err.msg);
        goto out;
    }
    if (!o.config_path && access(".claimcheck.yaml", R_OK) == 0)
        o.config_path = ".claimcheck.yaml";
    if (o.config_path && apply_config_file(&o, &err) < 0) {
        cli_error("%s", err.msg);
        goto out;
    }
    if (!o.nouts) {
        o.outs[0].fmt = &render_formats[0];
        o.outs[0].file = NULL;
        o.nouts = 1;
    }
    eng = engine_new(&o.cfg, &rules_builtin, &err);
    if (!eng) {
        cli_error("%s", err.msg);
        goto out;
    }
    rc = load_inventory(&o, &invin, &inv, &err);
    if (rc < 0) {
        if (rc == -1)
            cli_error("inventory: %s", err.msg);
        goto out;
    }
    if (!o.npaths)
        inputs_add(&in, "-");
    for (i = 0; i < o.npaths; i++)
        inputs_add(&in, o.paths[i]);
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
    robjs = checked_objects(run, &ro.nobjs);
    ro.objs = robjs;
    if (write_outputs(&o, &diags, &ro) < 0) {
        run_free(run);
        goto out;
    }
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
