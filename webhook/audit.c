/*
 * audit.c - the `audit` command: its options, the credentials
 * (kubeconfig.c) and the client (kubeapi.c), the target version from the
 * apiserver unless -k, reading the cluster (clusterread.c), one engine run
 * in audit mode over the live objects and inventory, the report in every
 * format asked for (outputs.h), and the messages for a cluster that cannot
 * be read (which RBAC rule is missing, which API version is not served).
 */
#include "audit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../lint/cli.h"
#include "../lint/cmds.h"
#include "../lint/outputs.h"
#include "../lint/render.h"
#include "../rules/rules.h"
#include "../validate/arena.h"
#include "../validate/cel/cel.h"
#include "../validate/config.h"
#include "../validate/devicemap.h"
#include "../validate/engine.h"
#include "../validate/err.h"
#include "../validate/limits.h"
#include "../validate/run.h"
#include "../validate/version.h"
#include "clusterread.h"
#include "clustertarget.h"
#include "kubeapi.h"
#include "kubeconfig.h"

#define PROG "claimcheck"

struct audit_args {
    struct config cfg;          /* the flags' settings */
    struct outputs outs;
    const char *kubeconfig, *context, *apiserver, *sa_dir, *config_path;
    struct clusterread_opts read;
    int in_cluster, no_hints;
};

/* ==== options ============================================================ */

static int set_idle(struct audit_args *a, const char *v, struct err *err)
{
    int64_t sec, ns;

    if (cel_duration_parse(v, strlen(v), &sec, &ns) < 0 || sec < 0
        || (sec == 0 && ns <= 0))
        return err_set(err, "--idle-after takes a duration such as 24h or "
                       "90m, not '%s'", v);
    a->cfg.audit.idle_after = (long long)sec;
    return 0;
}

static int set_page(struct audit_args *a, const char *v, struct err *err)
{
    char *end;
    unsigned long n = strtoul(v, &end, 10);

    if (!*v || *end || n < 1 || n > 100000)
        return err_set(err, "--page-size takes a number from 1 to 100000, "
                       "not '%s'", v);
    a->read.page_size = (unsigned)n;
    return 0;
}

/* 0, 1 after --help, -1 after an error (printed) */
static int on_option(void *ctx, int id, const char *v, struct err *err)
{
    struct audit_args *a = ctx;

    switch (id) {
    case OPT_OPERAND:
        return err_set(err, "audit takes no operands ('%s')", v);
    case AUDIT_KUBECONFIG: a->kubeconfig = v; return 0;
    case AUDIT_CONTEXT: a->context = v; return 0;
    case AUDIT_IN_CLUSTER: a->in_cluster = 1; return 0;
    case AUDIT_APISERVER: a->apiserver = v; return 0;
    case AUDIT_SA_DIR: a->sa_dir = v; return 0;
    case AUDIT_NAMESPACE: a->read.ns = v; return 0;
    case AUDIT_PAGE_SIZE: return set_page(a, v, err);
    case AUDIT_IDLE_AFTER: return set_idle(a, v, err);
    case AUDIT_FORMAT: return outputs_add(&a->outs, v, err);
    case AUDIT_OUTPUT: return outputs_set_file(&a->outs, v, err);
    case AUDIT_FAIL_ON:
        return outputs_fail_on(&a->outs, &rules_builtin, v, err);
    case AUDIT_CONFIG: a->config_path = v; return 0;
    case AUDIT_ENABLE:
    case AUDIT_DISABLE:
        return config_add_enable(&a->cfg, v, id == AUDIT_ENABLE, err);
    case AUDIT_SHOW_SUPPRESSED: a->cfg.show_suppressed = 1; return 0;
    case AUDIT_NO_COLOR: a->outs.no_color = 1; return 0;
    case AUDIT_NO_HINTS: a->no_hints = 1; return 0;
    default:
        return cli_target_option(&a->cfg, id, v, err);
    }
}

/* The options of lint/cmd_audit.c's table, with claimcheck's messages (the
 * command users type is `claimcheck audit`): 0, 1 after --help, -1 after
 * an error (printed). */
static int parse(int argc, char **argv, struct audit_args *a)
{
    static const struct command cmd = {
        .name = "audit", .synopsis = "[options]", .about = audit_about,
        .opts = &audit_options, .more = audit_help_more,
    };
    const struct cli cli = { &cmd, 1, &cmd };
    struct err err;
    int code;

    if (cli_parse(&cli, argc, argv, on_option, a, &code) < 0)
        return code ? -1 : 1;
    if (a->in_cluster && (a->kubeconfig || a->context)) {
        fprintf(stderr, PROG ": --in-cluster and --kubeconfig/--context "
                "exclude each other\n");
        return -1;
    }
    if (outputs_finish(&a->outs, &err) < 0) {
        fprintf(stderr, PROG ": %s\n", err.msg);
        return -1;
    }
    return 0;
}

/* ==== failures a user can act on ======================================== */

static void explain(const struct kubecreds *cr,
                    const struct clusterread_fail *f, const struct err *err)
{
    const char *who = cr->origin ? cr->origin : "the credentials";

    switch (f->status) {
    case 401:
        fprintf(stderr, PROG ": the apiserver at '%s' rejected %s (401 "
                "Unauthorized): the token, client certificate or exec "
                "plugin's credential is invalid or expired\n", cr->server,
                who);
        return;
    case 403:
        fprintf(stderr, PROG ": %s may not %s %s%s%s%s%s at '%s' (403 "
                "Forbidden)%s%s\n", who, f->verb, f->resource,
                *f->group ? "." : "", f->group,
                f->ns ? " in namespace " : "", f->ns ? f->ns : "",
                cr->server, *f->message ? ": " : "", f->message);
        fprintf(stderr, "the audit needs this RBAC rule (in a %s bound to "
                "that user; deploy/kubernetes/audit/ has the whole "
                "ClusterRole):\n"
                "- apiGroups: [\"%s\"]\n  resources: [\"%s\"]\n"
                "  verbs: [\"get\", \"list\"]\n",
                f->ns ? "Role or ClusterRole" : "ClusterRole", f->group,
                f->resource);
        return;
    default:
        fprintf(stderr, PROG ": %s\n", err->msg);
    }
}

/* ==== the audit ========================================================== */

static int read_creds(const struct audit_args *a, struct kubecreds *cr,
                      struct err *err)
{
    if (a->in_cluster)
        return kubecreds_in_cluster(cr, a->apiserver, a->sa_dir, err);
    return kubeconfig_load(a->kubeconfig, a->context, cr, err);
}

/* The engine for the version -k gave, else the apiserver's (judged as
 * the newest the gate table knows when it does not know it). */
static struct engine *engine_for(struct audit *a, struct config *cfg,
                                 struct err *err)
{
    if (!cfg->kube_version && *a->live.version)
        cfg->kube_version = clustertarget_judge(a->live.version, a->note,
                                                sizeof(a->note));
    return engine_new(cfg, &rules_builtin, err);
}

int audit_cluster(struct audit *a, struct kubeapi *k, struct config *cfg,
                  const struct clusterread_opts *o, struct err *err)
{
    memset(a, 0, sizeof(*a));
    clusterread_init(&a->live);
    arena_init(&a->arena, ARENA_RUN_BYTES);
    diag_list_init(&a->diags, &a->arena);
    if ((!cfg->kube_version
         && clusterread_version(k, &a->live, &a->fail, err) < 0)
        || clusterread_all(k, o, &a->live, &a->fail, err) < 0)
        return -1;
    cfg->audit.on = 1;
    cfg->audit.now = (long long)time(NULL);
    a->eng = engine_for(a, cfg, err);
    if (!a->eng)
        return -1;
    a->inv = inventory_new();
    a->run = run_new(a->eng, a->inv, &a->arena, &a->diags);
    clusterread_to_run(&a->live, a->run, a->inv, kubeapi_server(k));
    run_check(a->run);
    diag_list_sort(&a->diags);
    return 0;
}

void audit_render_opts(struct audit *a, const char *server,
                       struct render_opts *ro)
{
    memset(ro, 0, sizeof(*ro));
    ro->rules = &rules_builtin;
    ro->kube_version = engine_kube_version(a->eng);
    ro->tool_version = claimcheck_version;
    ro->objects = run_objects(a->run);
    ro->cluster = server;
    ro->now = engine_config(a->eng)->audit.now;
    outputs_objects(&a->arena, a->run, ro);
}

void audit_release(struct audit *a)
{
    if (a->run)
        run_free(a->run);
    engine_free(a->eng);
    inventory_free(a->inv);
    clusterread_release(&a->live);
    arena_release(&a->arena);
    memset(a, 0, sizeof(*a));
}

int audit_main(int argc, char **argv)
{
    struct audit_args a;
    struct kubecreds cr;
    struct kubeapi *k = NULL;
    struct audit au;
    struct render_opts ro;
    struct devicemap *dmap = NULL;
    struct err err;
    int ret = 2, rc;

    memset(&a, 0, sizeof(a));
    memset(&au, 0, sizeof(au));
    config_init(&a.cfg);
    outputs_init(&a.outs);
    kubecreds_init(&cr);
    err.msg[0] = '\0';
    rc = parse(argc, argv, &a);
    if (rc) {
        ret = rc > 0 ? 0 : 2;
        goto out;
    }
    if (!a.config_path && access(".claimcheck.yaml", R_OK) == 0)
        a.config_path = ".claimcheck.yaml";
    if ((a.config_path
         && config_load_under_flags(&a.cfg, a.config_path, &err) < 0)
        || read_creds(&a, &cr, &err) < 0
        || kubeapi_global_init(&err) < 0) {
        fprintf(stderr, PROG ": %s\n", err.msg);
        goto out;
    }
    k = kubeapi_new(&cr);
    if (audit_cluster(&au, k, &a.cfg, &a.read, &err) < 0) {
        explain(&cr, &au.fail, &err);
        goto out;
    }
    if (au.note[0])
        fprintf(stderr, PROG ": note: %s\n", au.note);
    audit_render_opts(&au, cr.server, &ro);
    ro.hints = !a.no_hints;
    ro.show_suppressed = a.cfg.show_suppressed;
    ro.fail_on = a.outs.fail_on;
    ro.fail_rules = a.outs.fail_rules;
    ro.nfail_rules = a.outs.nfail_rules;
    if (outputs_has(&a.outs, "html"))
        dmap = devicemap_build(&au.arena, au.run);
    ro.devicemap = dmap;
    if (outputs_write(&a.outs, PROG, &au.diags, &ro) < 0)
        goto out;
    ret = outputs_failed(&a.outs, &au.diags);
out:
    devicemap_free(dmap);
    audit_release(&au);
    kubeapi_free(k);
    if (k)
        kubeapi_global_cleanup();
    kubecreds_release(&cr);
    config_release(&a.cfg);
    return ret;
}
