/*
 * main.c - claimcheck-webhook: subcommands (serve, certs, audit, version,
 * help),
 * flags, signals, startup and graceful shutdown. The only file with
 * mutable globals: the signal flags.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../certs/certs.h"
#include "../rules/rules.h"
#include "../validate/cel/cel.h"
#include "../validate/config.h"
#include "../validate/engine.h"
#include "../validate/err.h"
#include "../validate/limits.h"
#include "../validate/opt.h"
#include "../validate/target.h"
#include "../validate/version.h"
#include "admission.h"
#include "audit.h"
#include "cluster.h"
#include "clustertarget.h"
#include "invfiles.h"
#include "invstore.h"
#include "kubeapi.h"
#include "kubeconfig.h"
#include "log.h"
#include "membudget.h"
#include "metrics.h"
#include "reportwriter.h"
#include "server.h"
#include "tls.h"

#define MAX_MULTI 64            /* repeatable flags */

static volatile sig_atomic_t got_term;

static void on_signal(int sig)
{
    (void)sig;
    got_term = 1;
}

struct serve_args {
    struct server_opts srv;
    const char *cert, *key, *client_ca;
    const char *config, *kube_version, *runtime;
    const char *gates[MAX_MULTI];
    size_t ngates;
    const char *inventory[MAX_MULTI];
    size_t ninventory;
    const char *exclude[MAX_MULTI];
    size_t nexclude;
    int in_cluster;
    long long report_interval;      /* --policy-reports, seconds; 0 off */
    long long target_refresh;       /* --target-refresh, seconds */
    struct cluster_opts cl;
    const char *sa_dir;
    int warn_mode;
    unsigned deadline_ms;
    unsigned long long budget_cel_cost;     /* --budget-cel-cost */
    unsigned long long budget_alloc_steps;  /* --budget-alloc-steps */
    unsigned grace_seconds;
    unsigned inv_min_percent;       /* --inventory-min-percent */
    unsigned drain_delay_ms;
};

enum {
    O_LISTEN, O_TLS_CERT, O_TLS_KEY, O_CLIENT_CA, O_CONFIG, O_KUBE_VERSION,
    O_FEATURE_GATES, O_RUNTIME_CONFIG, O_INVENTORY, O_IN_CLUSTER,
    O_APISERVER, O_SA_DIR, O_DRA_VERSION, O_LIST_PAGE_SIZE, O_POLICY_REPORTS,
    O_TARGET_REFRESH,
    O_MODE,
    O_EXCLUDE_NAMESPACE, O_THREADS, O_COSTLY_THREADS, O_MAX_CONNECTIONS,
    O_CONN_TIMEOUT,
    O_MAX_BODY, O_MEMORY_BUDGET, O_DEADLINE_MS, O_BUDGET_CEL_COST,
    O_BUDGET_ALLOC_STEPS, O_DRAIN_DELAY_MS,
    O_GRACE_SECONDS, O_INVENTORY_MIN_PERCENT, O_HELP
};

static const struct opt serve_rows[] = {
    { "listen", 0, OPT_VALUE, "ADDR:PORT",
      "listen address (default 0.0.0.0:8443)", O_LISTEN },
    { "tls-cert", 0, OPT_VALUE, "FILE",
      "serving certificate (PEM, chain allowed);", O_TLS_CERT },
    { "tls-key", 0, OPT_VALUE, "FILE",
      "its key; both reloaded when they change", O_TLS_KEY },
    { "client-ca", 0, OPT_VALUE, "FILE",
      "require client certificates signed by FILE", O_CLIENT_CA },
    { "config", 'c', OPT_VALUE, "FILE",
      "claimcheck config (rules, gates, excluded ns)", O_CONFIG },
    { "kube-version", 'k', OPT_VALUE, "X.Y",
      "target Kubernetes version (--in-cluster:\nthe apiserver's unless given)",
      O_KUBE_VERSION },
    { "feature-gates", 'g', OPT_VALUE, "K=V,...",
      "feature-gate overrides (repeatable;\n--in-cluster: the apiserver's "
      "unless given)", O_FEATURE_GATES },
    { "runtime-config", 0, OPT_VALUE, "GV=true,...", "extra API versions",
      O_RUNTIME_CONFIG },
    { "inventory", 'i', OPT_VALUE, "PATH",
      "cluster objects (files/dirs, repeatable;\nreloaded on change)",
      O_INVENTORY },
    { "inventory-min-percent", 0, OPT_VALUE, "P",
      "refuse a reload keeping fewer objects than\nP% of the last "
      "(default 50, 0 = any)", O_INVENTORY_MIN_PERCENT },
    { "in-cluster", 0, OPT_FLAG, NULL,
      "list+watch the inventory from the apiserver", O_IN_CLUSTER },
    { "apiserver", 0, OPT_VALUE, "URL",
      "apiserver (default from KUBERNETES_SERVICE_*)", O_APISERVER },
    { "sa-dir", 0, OPT_VALUE, "DIR",
      "service-account token+CA dir (default\n" KUBE_SA_DIR ")",
      O_SA_DIR },
    { "dra-version", 0, OPT_VALUE, "V",
      "resource.k8s.io version to watch (default v1)", O_DRA_VERSION },
    { "list-page-size", 0, OPT_VALUE, "N",
      "objects per list page (default 500)", O_LIST_PAGE_SIZE },
    { "policy-reports", 0, OPT_VALUE, "INTERVAL",
      "with --in-cluster: audit the cluster every\nINTERVAL (10m, 1h) and "
      "write wgpolicyk8s.io\nPolicyReports (off by default; docs/audit.md)",
      O_POLICY_REPORTS },
    { "target-refresh", 0, OPT_VALUE, "INTERVAL",
      "with --in-cluster and no -k: re-read the\napiserver's version and "
      "gates every\nINTERVAL (default 5m)", O_TARGET_REFRESH },
    { "mode", 0, OPT_VALUE, "enforce|warn",
      "warn never denies (default enforce)", O_MODE },
    { "exclude-namespace", 0, OPT_VALUE, "NS",
      "allow NS untouched (repeatable; adds to config)",
      O_EXCLUDE_NAMESPACE },
    { "threads", 0, OPT_VALUE, "N", "worker threads (default 2)",
      O_THREADS },
    { "costly-threads", 0, OPT_VALUE, "N",
      "threads of their own for reviews whose\nselectors are estimated "
      "costly (default 1;\n0 = the workers judge them)", O_COSTLY_THREADS },
    { "max-connections", 0, OPT_VALUE, "N",
      "concurrent connections (default 1024)", O_MAX_CONNECTIONS },
    { "conn-timeout", 0, OPT_VALUE, "S",
      "idle/slow connection timeout (default 30)", O_CONN_TIMEOUT },
    { "max-body", 0, OPT_VALUE, "BYTES",
      "request body cap (default 3145728; more: 413)", O_MAX_BODY },
    { "memory-budget", 0, OPT_VALUE, "BYTES",
      "request bodies + validation memory, all\nrequests together "
      "(default 201326592, fits a\n512Mi limit; past it: 429; 0 = none)",
      O_MEMORY_BUDGET },
    { "deadline-ms", 0, OPT_VALUE, "MS",
      "validation budget from the request's arrival\n(queue time included); "
      "past it: allow +\nwarning (default 2000, 0 = none)",
      O_DEADLINE_MS },
    { "budget-cel-cost", 0, OPT_VALUE, "UNITS",
      "CEL runtime cost one request may spend\n(selectors over the "
      "inventory; cached\nresults are free); past it: allow +\nwarning "
      "(default 10000000, 0 = none)", O_BUDGET_CEL_COST },
    { "budget-alloc-steps", 0, OPT_VALUE, "N",
      "allocator search steps one request may\nspend; past it: allow + "
      "warning\n(default 2000000, 0 = none)", O_BUDGET_ALLOC_STEPS },
    { "drain-delay-ms", 0, OPT_VALUE, "MS",
      "after SIGTERM keep serving (readyz 503) at\nleast this long "
      "(default 2000)", O_DRAIN_DELAY_MS },
    { "grace-seconds", 0, OPT_VALUE, "S", "SIGTERM drain limit (default 10)",
      O_GRACE_SECONDS },
    { "help", 'h', OPT_FLAG, NULL, "show this help", O_HELP },
};
static const struct opt_table serve_table = OPT_TABLE(serve_rows);

static void usage(FILE *f)
{
    fputs("usage: claimcheck-webhook serve --tls-cert FILE --tls-key FILE "
          "[options]\n"
          "       claimcheck-webhook certs --service NAME --namespace NS "
          "[--out DIR]\n"
          "       claimcheck-webhook audit [options] (claimcheck audit "
          "--help)\n"
          "       claimcheck-webhook version\n"
          "\n"
          "serve options:\n", f);
    opt_help(f, &serve_table);
}

static int parse_uint(const char *flag, const char *v, unsigned long max,
                      unsigned long *out, struct err *err)
{
    char *end;
    unsigned long n;

    errno = 0;
    n = strtoul(v ? v : "", &end, 10);
    if (!v || !*v || *end || errno || n > max || v[0] == '-')
        return err_set(err, "%s needs a number up to %lu, not '%s'", flag,
                       max, v ? v : "");
    *out = n;
    return 0;
}

/* the number options: their range (a minimum of 0 keeps parse_uint's
 * message, else the message names the range) */
static const struct {
    int id;
    unsigned long min, max;
} ranges[] = {
    { O_LIST_PAGE_SIZE, 1, 100000 }, { O_THREADS, 1, 256 },
    { O_COSTLY_THREADS, 0, 64 },
    { O_MAX_CONNECTIONS, 1, 100000 }, { O_CONN_TIMEOUT, 1, 3600 },
    { O_MAX_BODY, 1, 64ul * 1024 * 1024 },
    { O_MEMORY_BUDGET, 0, 64ul * 1024 * 1024 * 1024 },
    { O_DEADLINE_MS, 0, 600000 },
    { O_BUDGET_CEL_COST, 0, 1000000000000ul },
    { O_BUDGET_ALLOC_STEPS, 0, 1000000000000ul },
    { O_DRAIN_DELAY_MS, 0, 3600000 }, { O_GRACE_SECONDS, 0, 3600 },
    { O_INVENTORY_MIN_PERCENT, 0, 100 },
};

/* Parses a number option's value into *n: 1 done, 0 not a number option,
 * -1 and *err. */
static int number_option(int id, const char *flag, const char *v,
                         unsigned long *n, struct err *err)
{
    size_t i;

    for (i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++) {
        if (ranges[i].id != id)
            continue;
        if (parse_uint(flag, v, ranges[i].max, n, err) < 0
            || *n < ranges[i].min)
            return ranges[i].min ? err_set(err, "%s needs %lu..%lu", flag,
                                           ranges[i].min, ranges[i].max)
                                 : -1;
        return 1;
    }
    return 0;
}

static int add_multi(const char **v, size_t *n, const char *s,
                     const char *flag, struct err *err)
{
    if (*n >= MAX_MULTI)
        return err_set(err, "too many %s flags", flag);
    v[(*n)++] = s;
    return 0;
}

/* One option into a; 0, or -1 with *err. */
/* An interval option of 1 s or more (CEL duration syntax: 90s, 5m, 1h). */
static int interval_opt(const char *opt, const char *v, const char *eg,
                        long long *out, struct err *err)
{
    int64_t sec, ns;

    if (cel_duration_parse(v, strlen(v), &sec, &ns) < 0 || sec < 1)
        return err_set(err, "%s takes an interval of 1s or more (%s), not "
                       "'%s'", opt, eg, v);
    *out = (long long)sec;
    return 0;
}

static int serve_option(struct serve_args *a, int id, const char *flag,
                        const char *v, struct err *err)
{
    unsigned long n = 0;
    int rc;

    switch (id) {
    case O_LISTEN: a->srv.listen = v; return 0;
    case O_TLS_CERT: a->cert = v; return 0;
    case O_TLS_KEY: a->key = v; return 0;
    case O_CLIENT_CA: a->client_ca = v; return 0;
    case O_CONFIG: a->config = v; return 0;
    case O_KUBE_VERSION: a->kube_version = v; return 0;
    case O_FEATURE_GATES: return add_multi(a->gates, &a->ngates, v, "-g", err);
    case O_RUNTIME_CONFIG: a->runtime = v; return 0;
    case O_INVENTORY:
        return add_multi(a->inventory, &a->ninventory, v, "--inventory", err);
    case O_IN_CLUSTER: a->in_cluster = 1; return 0;
    case O_APISERVER: a->cl.apiserver = v; return 0;
    case O_SA_DIR: a->sa_dir = v; return 0;
    case O_DRA_VERSION: a->cl.dra_version = v; return 0;
    case O_POLICY_REPORTS:
        return interval_opt("--policy-reports", v, "10m, 1h",
                            &a->report_interval, err);
    case O_TARGET_REFRESH:
        return interval_opt("--target-refresh", v, "30s, 5m",
                            &a->target_refresh, err);
    case O_EXCLUDE_NAMESPACE:
        return add_multi(a->exclude, &a->nexclude, v, "--exclude-namespace",
                         err);
    case O_MODE:
        if (strcmp(v, "warn") && strcmp(v, "enforce"))
            return err_set(err, "--mode must be 'enforce' or 'warn', not "
                           "'%s'", v);
        a->warn_mode = !strcmp(v, "warn");
        return 0;
    default:
        break;
    }
    rc = number_option(id, flag, v, &n, err);
    if (rc < 0)
        return -1;
    switch (rc ? id : -1) {
    case O_LIST_PAGE_SIZE: a->cl.page_size = (unsigned)n; return 0;
    case O_THREADS: a->srv.threads = (unsigned)n; return 0;
    case O_COSTLY_THREADS: a->srv.costly_threads = (unsigned)n; return 0;
    case O_MAX_CONNECTIONS: a->srv.max_connections = (unsigned)n; return 0;
    case O_CONN_TIMEOUT: a->srv.conn_timeout = (unsigned)n; return 0;
    case O_MAX_BODY: a->srv.max_body = n; return 0;
    case O_MEMORY_BUDGET: a->srv.memory_budget = n; return 0;
    case O_DEADLINE_MS: a->deadline_ms = (unsigned)n; return 0;
    case O_BUDGET_CEL_COST: a->budget_cel_cost = n; return 0;
    case O_BUDGET_ALLOC_STEPS: a->budget_alloc_steps = n; return 0;
    case O_DRAIN_DELAY_MS: a->drain_delay_ms = (unsigned)n; return 0;
    case O_GRACE_SECONDS: a->grace_seconds = (unsigned)n; return 0;
    case O_INVENTORY_MIN_PERCENT: a->inv_min_percent = (unsigned)n; return 0;
    default: BUG("option id %d has no case", id);
    }
}

/* 0 parsed, 1 --help, -1 error (*err). */
static int parse_serve(int argc, char **argv, struct serve_args *a,
                       struct err *err)
{
    struct opt_parser p;
    const char *v;
    int id;

    memset(a, 0, sizeof(*a));
    a->srv.listen = "0.0.0.0:8443";
    a->srv.threads = 2;
    a->srv.costly_threads = 1;
    a->srv.max_body = LIMIT_BODY_BYTES;
    a->srv.memory_budget = MEMBUDGET_DEFAULT_BYTES;
    a->srv.max_connections = 1024;
    a->srv.conn_timeout = 30;
    a->deadline_ms = 2000;
    a->budget_cel_cost = ADMISSION_BUDGET_CEL_COST;
    a->budget_alloc_steps = ADMISSION_BUDGET_ALLOC_STEPS;
    a->grace_seconds = 10;
    a->inv_min_percent = INVSTORE_MIN_PERCENT;
    a->drain_delay_ms = 2000;
    a->target_refresh = 300;
    opt_init(&p, &serve_table, argc, argv);
    for (;;) {
        id = opt_next(&p, &v, err);
        if (id == OPT_DONE)
            break;
        if (id == OPT_ERROR)
            return -1;
        if (id == OPT_OPERAND)
            return err_set(err, "unexpected argument '%s'", v);
        if (id == O_HELP)
            return 1;
        if (serve_option(a, id, opt_typed(&p), v, err) < 0)
            return -1;
    }
    if (!a->cert || !a->key)
        return err_set(err, "--tls-cert and --tls-key are required");
    if (a->srv.memory_budget && a->srv.memory_budget <= a->srv.max_body)
        return err_set(err, "--memory-budget %zu admits no body of "
                       "--max-body %zu: give it more (or 0 for none)",
                       a->srv.memory_budget, a->srv.max_body);
    return 0;
}

static int build_config(const struct serve_args *a, struct config *cfg,
                        struct err *err)
{
    size_t i;

    if (a->config && config_load_file(cfg, a->config, err) < 0)
        return -1;
    if (a->kube_version && config_set_kube_version(cfg, a->kube_version,
                                                   err) < 0)
        return -1;
    for (i = 0; i < a->ngates; i++)
        if (config_add_gates(cfg, a->gates[i], err) < 0)
            return -1;
    if (a->runtime && config_add_runtime(cfg, a->runtime, err) < 0)
        return -1;
    return 0;
}

/* clustertarget's make_config: a config of the flags for each engine */
static int flags_config(void *cls, struct config *cfg, struct err *err)
{
    return build_config(cls, cfg, err);
}

/* /readyz with --in-cluster: the inventory synced and, when it comes from
 * the apiserver, the version known */
struct in_cluster {
    struct cluster *cl;
    struct clustertarget *target;   /* NULL: -k */
};

static int in_cluster_ready(void *cls)
{
    const struct in_cluster *ic = cls;

    return cluster_synced(ic->cl)
           && (!ic->target || clustertarget_known(ic->target));
}

/* The version and gates from the apiserver unless -k (or the config file
 * names a version): clustertarget.h. */
static int start_target(struct serve_args *a, const struct config *cfg,
                        struct invstore *store, struct metrics *m,
                        struct in_cluster *ic, struct err *err)
{
    struct clustertarget_opts to;

    if (cfg->kube_version)
        return 0;
    memset(&to, 0, sizeof(to));
    to.apiserver = a->cl.apiserver;
    to.sa_dir = a->sa_dir;
    to.gates = !cfg->ngates;
    to.period = a->target_refresh;
    to.make_config = flags_config;
    to.cls = a;
    ic->target = clustertarget_new(&to, store, m, err);
    if (!ic->target || clustertarget_start(ic->target, err) < 0)
        return -1;
    return 0;
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

    nanosleep(&ts, NULL);
}

/* SIGTERM: /readyz 503 at once and every response closes its connection.
 * The server keeps serving for at least delay_ms (the apiserver learns of
 * the endpoint removal late, and bytes of a request may still sit in a
 * socket buffer) and then while requests are in flight, up to the grace
 * period; then the listener closes (new connections are refused). A
 * connection accepted just before that may still be in its TLS handshake
 * or sending its first request, which no request counter sees yet:
 * closing it now would drop a request the client has already written. So
 * the open connections get up to DRAIN_LINGER_MS more (each answer closes
 * its connection, so busy ones go away by themselves), requests in flight
 * the rest of the grace period; stopping the daemon then closes the idle
 * keep-alive connections. */
#define DRAIN_LINGER_MS 1000

static void drain(struct server *srv, unsigned grace_seconds,
                  unsigned delay_ms)
{
    long waited = 0, linger = 0, limit = (long)grace_seconds * 1000;
    size_t left;

    log_msg(LOG_INFO, "draining: %zu requests in flight, grace %us",
            server_in_flight(srv), grace_seconds);
    server_drain(srv);
    for (left = server_in_flight(srv);
         (left > 0 || waited < (long)delay_ms) && waited < limit;
         left = server_in_flight(srv)) {
        sleep_ms(20);
        waited += 20;
        server_tick(srv);
    }
    server_quiesce(srv);
    for (left = server_in_flight(srv);
         (left > 0 || (server_connections(srv) > 0
                       && linger < DRAIN_LINGER_MS)) && waited < limit;
         left = server_in_flight(srv)) {
        sleep_ms(20);
        waited += 20;
        linger += 20;
        server_tick(srv);
    }
    if (left)
        log_msg(LOG_WARN, "grace period over, dropping %zu requests", left);
}

static int cmd_serve(int argc, char **argv)
{
    struct serve_args a;
    struct err err = { "" };
    struct config cfg;
    struct engine *eng = NULL;
    struct metrics *m = metrics_new();
    struct invstore *store = invstore_new(m);
    struct invfiles *files = NULL;
    struct cluster *cl = NULL;
    struct in_cluster ic = { NULL, NULL };
    struct reportwriter *reports = NULL;
    struct tls *tls = NULL;
    struct server *srv = NULL;
    struct admission_cfg adm;
    const char *excluded[2 * MAX_MULTI + 256];
    struct sigaction sa;
    size_t i;
    int rc, ret = 1, served = 0;

    config_init(&cfg);
    rc = parse_serve(argc, argv, &a, &err);
    if (rc > 0) {
        usage(stdout);
        ret = 0;
        goto out;
    }
    if (rc < 0) {
        fprintf(stderr, "claimcheck-webhook: %s\n", err.msg);
        ret = 2;
        goto out;
    }
    if (build_config(&a, &cfg, &err) < 0)
        goto fail;
    /* the flags' engine (the default version unless -k); with
     * --in-cluster and no -k, the apiserver's replaces it */
    eng = engine_new(&cfg, &rules_builtin, &err);
    if (!eng || invstore_set_engine(store, eng, NULL, NULL, &err) < 0)
        goto fail;
    metrics_target(m, engine_kube_version(eng),
                   cfg.kube_version ? "flags" : "default",
                   cfg.ngates ? "flags" : "defaults");
    memset(&adm, 0, sizeof(adm));
    for (i = 0; i < cfg.nexcluded && adm.nexcluded < 256 + MAX_MULTI; i++)
        excluded[adm.nexcluded++] = cfg.excluded_ns[i];
    for (i = 0; i < a.nexclude; i++)
        excluded[adm.nexcluded++] = a.exclude[i];
    adm.excluded_ns = excluded;
    adm.warn_mode = a.warn_mode;
    adm.deadline_ms = a.deadline_ms;
    adm.budget_cel_cost = a.budget_cel_cost;
    adm.budget_alloc_steps = a.budget_alloc_steps;
    adm.metrics = m;

    tls = tls_new(a.cert, a.key, a.client_ca, 2 * a.srv.conn_timeout + 30,
                  m, &err);
    if (!tls || tls_start(tls, &err) < 0)
        goto fail;
    invstore_set_min_percent(store, a.inv_min_percent);
    if (a.ninventory) {
        files = invfiles_new(store, a.inventory, a.ninventory, &err);
        if (!files || invfiles_start(files, &err) < 0)
            goto fail;
    }
    if (a.report_interval && !a.in_cluster) {
        err_set(&err, "--policy-reports needs --in-cluster");
        goto fail;
    }
    if (a.in_cluster) {
        a.cl.sa_dir = a.sa_dir;
        if (kubeapi_global_init(&err) < 0)
            goto fail;
        if (start_target(&a, &cfg, store, m, &ic, &err) < 0)
            goto fail;
        cl = cluster_new(&a.cl, store, m, &err);
        ic.cl = cl;
        if (!cl || cluster_start(cl, &err) < 0)
            goto fail;
        a.srv.ready_fn = in_cluster_ready;
        a.srv.ready_cls = &ic;
    }
    if (a.report_interval) {
        struct reportwriter_opts ro = {a.cl.apiserver, a.sa_dir,
                                       a.report_interval, a.cl.page_size,
                                       &cfg};
        reports = reportwriter_new(&ro, &err);
        if (!reports || reportwriter_start(reports, &err) < 0)
            goto fail;
    }
    if (!a.in_cluster && !a.ninventory) {
        /* an empty snapshot, so rules needing none still run */
        if (invstore_rebuild(store, &err) < 0)
            goto fail;
    }

    membudget_tune_malloc();
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);

    srv = server_new(&a.srv, tls, &adm, store, m, &err);
    if (!srv || server_start(srv, &err) < 0)
        goto fail;
    /* eng is the store's: read only while no target thread can replace
     * (and free) it */
    log_msg(LOG_INFO, "claimcheck-webhook %s ready to serve (mode %s, "
            "deadline %u ms, kube %s)", claimcheck_version,
            a.warn_mode ? "warn" : "enforce", a.deadline_ms,
            ic.target ? "from the apiserver"
            : engine_kube_version(eng));
    while (!got_term) {
        sleep_ms(100);
        server_tick(srv);
    }
    drain(srv, a.grace_seconds, a.drain_delay_ms);
    ret = 0;
    served = 1;
    goto out;
fail:
    log_msg(LOG_ERROR, "%s", err.msg);
    fprintf(stderr, "claimcheck-webhook: %s\n", err.msg);
out:
    server_free(srv);       /* stops the daemon: no handler runs after */
    reportwriter_free(reports);
    clustertarget_free(ic.target);
    cluster_free(cl);
    invfiles_free(files);
    tls_free(tls);
    invstore_free(store);
    metrics_free(m);
    if (a.in_cluster)
        kubeapi_global_cleanup();
    config_release(&cfg);
    if (served)     /* not after --help */
        log_msg(LOG_INFO, "stopped");
    return ret;
}

static int cmd_version(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("claimcheck-webhook %s (Kubernetes up to %s)\n",
           claimcheck_version, target_newest());
    return 0;
}

static int cmd_help(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    usage(stdout);
    return 0;
}

/* the commands: name -> function (argv[0] is the name) */
static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
} commands[] = {
    { "serve", cmd_serve },
    { "certs", certs_main },
    { "audit", audit_main },
    { "version", cmd_version },
    { "--version", cmd_version },
    { "help", cmd_help },
    { "--help", cmd_help },
    { "-h", cmd_help },
};

int main(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : "";
    size_t i;

    for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (!strcmp(cmd, commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "claimcheck-webhook: unknown command '%s'\n", cmd);
    usage(stderr);
    return 2;
}
