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
#include <time.h>
#include <unistd.h>

#include "../rules/rules.h"
#include "../validate/arena.h"
#include "../validate/config.h"
#include "../validate/devicemap.h"
#include "../validate/engine.h"
#include "../validate/err.h"
#include "../validate/inventory.h"
#include "../validate/limits.h"
#include "../validate/run.h"
#include "../validate/version.h"
#include "../validate/xalloc.h"
#include "cli.h"
#include "inputs.h"
#include "kustomize.h"
#include "outputs.h"
#include "pathignore.h"
#include "render.h"

#define RULES_MAX_NOT_RUN 16    /* rules listed as "could not run" */

enum {
    O_INVENTORY, O_FORMAT, O_OUTPUT, O_FAIL_ON, O_CONFIG, O_ENABLE,
    O_DISABLE, O_SHOW_SUPPRESSED, O_NO_COLOR, O_NO_HINTS, O_INPUT_INVENTORY,
    O_KUSTOMIZE
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
    { "inventory-from-input", 0, OPT_VALUE, "auto|always|never",
      "the linted files' ResourceSlices and Nodes as inventory (auto: "
      "when -i has none)", O_INPUT_INVENTORY },
    { "kustomize", 0, OPT_VALUE, "DIR",
      "lint what 'kubectl kustomize DIR' renders (repeatable)", O_KUSTOMIZE },
    CLI_REPORT_ROWS(O_),
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
            "hidden\nentries skipped) or - for stdin; without PATH (or "
            "--kustomize) stdin is\nread unless it is a terminal. "
            "--kustomize DIR runs 'kubectl kustomize DIR'\n(or 'kustomize "
            "build DIR' when only kustomize is installed, no shell) and\n"
            "lints its output as one stream named DIR.\n"
            "\nexit status: 0 nothing at or above --fail-on, 1 findings at "
            "or above it,\n2 usage error or input that could not be read or "
            "parsed\n");
}

struct lint_opts {
    struct config cfg;
    const char **paths;
    size_t npaths;
    const char **inventories;
    size_t ninventories;
    const char **kustomize;     /* --kustomize directories */
    size_t nkustomize;
    struct outputs outs;
    int no_hints;
    const char *config_path;
    enum input_inventory input_inv;
};

static int input_inventory_parse(const char *v, enum input_inventory *out,
                                 struct err *err)
{
    static const char *const words[] = {"auto", "always", "never"};
    static const enum input_inventory modes[] = {
        INPUT_INV_AUTO, INPUT_INV_ALWAYS, INPUT_INV_NEVER
    };
    size_t i;

    for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
        if (!strcmp(v, words[i])) {
            *out = modes[i];
            return 0;
        }
    return err_set(err, "--inventory-from-input takes 'auto', 'always' or "
                   "'never', not '%s'", v);
}

static void push(const char ***v, size_t *n, const char *s)
{
    *v = xrealloc(*v, (*n + 1) * sizeof(**v));
    (*v)[(*n)++] = s;
}

static int on_option(void *ctx, int id, const char *v, struct err *err)
{
    struct lint_opts *o = ctx;

    switch (id) {
    case OPT_OPERAND:
        push(&o->paths, &o->npaths, v);
        return 0;
    case O_NO_COLOR:
        o->outs.no_color = 1;
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
    case O_KUSTOMIZE:
        push(&o->kustomize, &o->nkustomize, v);
        return 0;
    case O_INPUT_INVENTORY:
        return input_inventory_parse(v, &o->input_inv, err);
    case O_FORMAT:
        return outputs_add(&o->outs, v, err);
    case O_OUTPUT:
        return outputs_set_file(&o->outs, v, err);
    case O_FAIL_ON:
        return outputs_fail_on(&o->outs, &rules_builtin, v, err);
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
    return inputs_to_inventory(invin, *inv, err);
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
    struct devicemap *dmap = NULL;
    struct pathignore ignore = {0};
    const struct rule *not_run[RULES_MAX_NOT_RUN];
    struct err err;
    size_t i;
    int ret = 2, rc;

    memset(&o, 0, sizeof(o));
    config_init(&o.cfg);
    outputs_init(&o.outs);
    arena_init(&arena, ARENA_RUN_BYTES);
    if (cli_parse(cli, argc, argv, on_option, &o, &ret) < 0)
        goto out;
    if (!o.npaths && !o.nkustomize && isatty(STDIN_FILENO)) {
        /* nothing given and nobody piping: waiting on the terminal would
         * look like a hang */
        cli_error("no PATH given and stdin is a terminal (use - to read it)");
        cli_help(cli, stderr);
        goto out;
    }
    if (outputs_finish(&o.outs, &err) < 0) {
        cli_error("%s", err.msg);
        goto out;
    }
    if (!o.config_path && access(".claimcheck.yaml", R_OK) == 0)
        o.config_path = ".claimcheck.yaml";
    if (o.config_path
        && config_load_under_flags(&o.cfg, o.config_path, &err) < 0) {
        cli_error("%s", err.msg);
        goto out;
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
    inputs_release(&invin);     /* parsed: the inventory holds no text */
    if (inv)
        inventory_set_list_attributes(inv, engine_list_attributes(eng));
    pathignore_init(&ignore, &o.cfg, o.config_path);
    in.ignore = &ignore;
    if (!o.npaths && !o.nkustomize)
        inputs_add(&in, "-");
    for (i = 0; i < o.npaths; i++)
        inputs_add(&in, o.paths[i]);
    for (i = 0; i < o.nkustomize; i++)
        kustomize_add(&in, o.kustomize[i]);
    diag_list_init(&diags, &arena);
    run = run_new(eng, inv, &arena, &diags);
    run_inventory_from_input(run, o.input_inv);
    run_on_read(run, inputs_on_read, &in);
    for (i = 0; i < in.n; i++)
        run_add_text(run, in.v[i].name, in.v[i].text.data,
                     in.v[i].text.len);
    run_check(run);
    diag_list_sort(&diags);

    memset(&ro, 0, sizeof(ro));
    ro.hints = !o.no_hints;
    ro.show_suppressed = o.cfg.show_suppressed;
    ro.fail_on = o.outs.fail_on;
    ro.fail_rules = o.outs.fail_rules;
    ro.nfail_rules = o.outs.nfail_rules;
    ro.rules = &rules_builtin;
    ro.kube_version = engine_kube_version(eng);
    ro.tool_version = claimcheck_version;
    ro.now = (long long)time(NULL);
    ro.files = in.n;
    ro.objects = run_objects(run);
    outputs_objects(&arena, run, &ro);
    if (outputs_has(&o.outs, "html"))
        dmap = devicemap_build(&arena, run);
    ro.devicemap = dmap;
    ro.no_inventory = !run_has_inventory(run);
    ro.input_inventory = run_input_inventory(run);
    ro.nnot_run = run_not_run(run, not_run, RULES_MAX_NOT_RUN);
    if (ro.nnot_run > RULES_MAX_NOT_RUN)
        ro.nnot_run = RULES_MAX_NOT_RUN;
    ro.not_run = not_run;
    if (outputs_write(&o.outs, "claimcheck", &diags, &ro) < 0) {
        run_free(run);
        goto out;
    }
    ret = (in.failed || run_parse_errors(run)) ? 2
          : outputs_failed(&o.outs, &diags);
    run_free(run);
out:
    devicemap_free(dmap);
    engine_free(eng);
    inventory_free(inv);
    inputs_release(&in);
    inputs_release(&invin);
    pathignore_release(&ignore);
    free(o.paths);
    free(o.inventories);
    free(o.kustomize);
    config_release(&o.cfg);
    arena_release(&arena);
    return ret;
}
