/*
 * main.c - claimcheck-webhook: subcommands (serve, certs, version, help),
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
#include "../validate/config.h"
#include "../validate/engine.h"
#include "../validate/err.h"
#include "../validate/limits.h"
#include "../validate/target.h"
#include "../validate/version.h"
#include "admission.h"
#include "cluster.h"
#include "invfiles.h"
#include "invstore.h"
#include "log.h"
#include "metrics.h"
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
    struct cluster_opts cl;
    const char *sa_dir;
    int warn_mode;
    unsigned deadline_ms;
    unsigned grace_seconds;
    unsigned drain_delay_ms;
};

static const char usage_text[] =
"usage: claimcheck-webhook serve --tls-cert FILE --tls-key FILE [options]\n"
"       claimcheck-webhook certs --service NAME --namespace NS [--out DIR]\n"
"       claimcheck-webhook version\n"
"\n"
"serve options:\n"
"  --listen ADDR:PORT        listen address (default 0.0.0.0:8443)\n"
"  --tls-cert FILE           serving certificate (PEM, chain allowed);\n"
"  --tls-key FILE            its key; both reloaded when they change\n"
"  --client-ca FILE          require client certificates signed by FILE\n"
"  -c, --config FILE         claimcheck config (rules, gates, excluded ns)\n"
"  -k, --kube-version X.Y    target Kubernetes version\n"
"  -g, --feature-gates K=V,...  feature-gate overrides (repeatable)\n"
"  --runtime-config GV=true,... extra API versions\n"
"  -i, --inventory PATH      cluster objects (files/dirs, repeatable;\n"
"                            reloaded on change)\n"
"  --in-cluster              list+watch the inventory from the apiserver\n"
"  --apiserver URL           apiserver (default from KUBERNETES_SERVICE_*)\n"
"  --sa-dir DIR              service-account token+CA dir (default\n"
"                            " CLUSTER_SA_DIR ")\n"
"  --dra-version V           resource.k8s.io version to watch (default v1)\n"
"  --list-page-size N        objects per list page (default 500)\n"
"  --mode enforce|warn       warn never denies (default enforce)\n"
"  --exclude-namespace NS    allow NS untouched (repeatable; adds to config)\n"
"  --threads N               worker threads (default 2)\n"
"  --max-connections N       concurrent connections (default 1024)\n"
"  --conn-timeout S          idle/slow connection timeout (default 30)\n"
"  --max-body BYTES          request body cap (default 3145728; more: 413)\n"
"  --deadline-ms MS          validation budget; past it: allow + warning\n"
"                            (default 2000, 0 = none)\n"
"  --drain-delay-ms MS       after SIGTERM keep serving (readyz 503) at\n"
"                            least this long (default 2000)\n"
"  --grace-seconds S         SIGTERM drain limit (default 10)\n";

static int usage(FILE *f, int code)
{
    fputs(usage_text, f);
    return code;
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

static int add_multi(const char **v, size_t *n, const char *s,
                     const char *flag, struct err *err)
{
    if (*n >= MAX_MULTI)
        return err_set(err, "too many %s flags", flag);
    v[(*n)++] = s;
    return 0;
}

/* --flag VALUE or --flag=VALUE; returns the value or NULL. */
static const char *flag_value(int argc, char **argv, int *i, const char *arg,
                              const char *name)
{
    size_t n = strlen(name);

    if (strncmp(arg, name, n) == 0 && arg[n] == '=')
        return arg + n + 1;
    if (strcmp(arg, name) == 0 && *i + 1 < argc)
        return argv[++*i];
    return NULL;
}

static int is_flag(const char *arg, const char *name)
{
    size_t n = strlen(name);

    return strncmp(arg, name, n) == 0 && (arg[n] == '\0' || arg[n] == '=');
}

static int parse_serve(int argc, char **argv, struct serve_args *a,
                       struct err *err)
{
    int i;

    memset(a, 0, sizeof(*a));
    a->srv.listen = "0.0.0.0:8443";
    a->srv.threads = 2;
    a->srv.max_body = LIMIT_BODY_BYTES;
    a->srv.max_connections = 1024;
    a->srv.conn_timeout = 30;
    a->deadline_ms = 2000;
    a->grace_seconds = 10;
    a->drain_delay_ms = 2000;
    for (i = 1; i < argc; i++) {
        const char *arg = argv[i], *v;
        unsigned long n;

#define VAL(name) (is_flag(arg, name) && \
                   ((v = flag_value(argc, argv, &i, arg, name)) != NULL \
                    || (err_set(err, "%s needs a value", name), 0)))
        v = NULL;
        if (strcmp(arg, "--in-cluster") == 0) {
            a->in_cluster = 1;
        } else if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            return 1;
        } else if (VAL("--listen")) {
            a->srv.listen = v;
        } else if (VAL("--tls-cert")) {
            a->cert = v;
        } else if (VAL("--tls-key")) {
            a->key = v;
        } else if (VAL("--client-ca")) {
            a->client_ca = v;
        } else if (VAL("--config") || VAL("-c")) {
            a->config = v;
        } else if (VAL("--kube-version") || VAL("-k")) {
            a->kube_version = v;
        } else if (VAL("--feature-gates") || VAL("-g")) {
            if (add_multi(a->gates, &a->ngates, v, "-g", err) < 0)
                return -1;
        } else if (VAL("--runtime-config")) {
            a->runtime = v;
        } else if (VAL("--inventory") || VAL("-i")) {
            if (add_multi(a->inventory, &a->ninventory, v, "--inventory",
                          err) < 0)
                return -1;
        } else if (VAL("--exclude-namespace")) {
            if (add_multi(a->exclude, &a->nexclude, v,
                          "--exclude-namespace", err) < 0)
                return -1;
        } else if (VAL("--apiserver")) {
            a->cl.apiserver = v;
        } else if (VAL("--sa-dir")) {
            a->sa_dir = v;
        } else if (VAL("--list-page-size")) {
            if (parse_uint("--list-page-size", v, 100000, &n, err) < 0
                || n == 0)
                return err_set(err, "--list-page-size needs 1..100000");
            a->cl.page_size = (unsigned)n;
        } else if (VAL("--dra-version")) {
            a->cl.dra_version = v;
        } else if (VAL("--mode")) {
            if (strcmp(v, "warn") == 0)
                a->warn_mode = 1;
            else if (strcmp(v, "enforce") == 0)
                a->warn_mode = 0;
            else
                return err_set(err, "--mode must be 'enforce' or 'warn', "
                               "not '%s'", v);
        } else if (VAL("--threads")) {
            if (parse_uint("--threads", v, 256, &n, err) < 0 || n == 0)
                return err_set(err, "--threads needs 1..256");
            a->srv.threads = (unsigned)n;
        } else if (VAL("--max-connections")) {
            if (parse_uint("--max-connections", v, 100000, &n, err) < 0
                || n == 0)
                return err_set(err, "--max-connections needs 1..100000");
            a->srv.max_connections = (unsigned)n;
        } else if (VAL("--conn-timeout")) {
            if (parse_uint("--conn-timeout", v, 3600, &n, err) < 0 || n == 0)
                return err_set(err, "--conn-timeout needs 1..3600");
            a->srv.conn_timeout = (unsigned)n;
        } else if (VAL("--max-body")) {
            if (parse_uint("--max-body", v, 64ul * 1024 * 1024, &n, err) < 0
                || n == 0)
                return err_set(err, "--max-body needs 1..67108864");
            a->srv.max_body = n;
        } else if (VAL("--deadline-ms")) {
            if (parse_uint("--deadline-ms", v, 600000, &n, err) < 0)
                return -1;
            a->deadline_ms = (unsigned)n;
        } else if (VAL("--drain-delay-ms")) {
            if (parse_uint("--drain-delay-ms", v, 3600000, &n, err) < 0)
                return -1;
            a->drain_delay_ms = (unsigned)n;
        } else if (VAL("--grace-seconds")) {
            if (parse_uint("--grace-seconds", v, 3600, &n, err) < 0)
                return -1;
            a->grace_seconds = (unsigned)n;
        } else if (err->msg[0]) {
            return -1;
        } else {
            return err_set(err, "unknown option '%s'", arg);
        }
#undef VAL
    }
    if (!a->cert || !a->key)
        return err_set(err, "--tls-cert and --tls-key are required");
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
    while (((left = server_in_flight(srv)) > 0 || waited < (long)delay_ms)
           && waited < limit) {
        sleep_ms(20);
        waited += 20;
        server_tick(srv);
    }
    server_quiesce(srv);
    while (((left = server_in_flight(srv)) > 0
            || (server_connections(srv) > 0 && linger < DRAIN_LINGER_MS))
           && waited < limit) {
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
    struct tls *tls = NULL;
    struct server *srv = NULL;
    struct admission_cfg adm;
    const char *excluded[2 * MAX_MULTI + 256];
    char token_path[4096], ca_path[4096];
    struct sigaction sa;
    size_t i;
    int rc, ret = 1, served = 0;

    config_init(&cfg);
    rc = parse_serve(argc, argv, &a, &err);
    if (rc > 0) {
        ret = usage(stdout, 0);
        goto out;
    }
    if (rc < 0) {
        fprintf(stderr, "claimcheck-webhook: %s\n", err.msg);
        ret = 2;
        goto out;
    }
    if (build_config(&a, &cfg, &err) < 0)
        goto fail;
    eng = engine_new(&cfg, &rules_builtin, &err);
    if (!eng)
        goto fail;
    memset(&adm, 0, sizeof(adm));
    for (i = 0; i < cfg.nexcluded && adm.nexcluded < 256 + MAX_MULTI; i++)
        excluded[adm.nexcluded++] = cfg.excluded_ns[i];
    for (i = 0; i < a.nexclude; i++)
        excluded[adm.nexcluded++] = a.exclude[i];
    adm.excluded_ns = excluded;
    adm.engine = eng;
    adm.warn_mode = a.warn_mode;
    adm.deadline_ms = a.deadline_ms;
    adm.metrics = m;

    tls = tls_new(a.cert, a.key, a.client_ca, 2 * a.srv.conn_timeout + 30,
                  m, &err);
    if (!tls || tls_start(tls, &err) < 0)
        goto fail;
    if (a.ninventory) {
        files = invfiles_new(store, a.inventory, a.ninventory, &err);
        if (!files || invfiles_start(files, &err) < 0)
            goto fail;
    }
    if (a.in_cluster) {
        const char *dir = a.sa_dir ? a.sa_dir : CLUSTER_SA_DIR;
        snprintf(token_path, sizeof(token_path), "%s/token", dir);
        snprintf(ca_path, sizeof(ca_path), "%s/ca.crt", dir);
        a.cl.token_file = token_path;
        a.cl.ca_file = ca_path;
        if (cluster_global_init(&err) < 0)
            goto fail;
        cl = cluster_new(&a.cl, store, m, &err);
        if (!cl || cluster_start(cl, &err) < 0)
            goto fail;
        a.srv.ready_fn = cluster_synced;
        a.srv.ready_cls = cl;
    } else if (!a.ninventory) {
        /* an empty snapshot, so rules needing none still run */
        if (invstore_rebuild(store, &err) < 0)
            goto fail;
    }

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
    log_msg(LOG_INFO, "claimcheck-webhook %s ready to serve (mode %s, "
            "deadline %u ms, kube %s)", claimcheck_version,
            a.warn_mode ? "warn" : "enforce", a.deadline_ms,
            cfg.kube_version ? cfg.kube_version : target_newest());
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
    cluster_free(cl);
    invfiles_free(files);
    tls_free(tls);
    engine_free(eng);
    invstore_free(store);
    metrics_free(m);
    if (a.in_cluster)
        cluster_global_cleanup();
    config_release(&cfg);
    if (served)     /* not after --help */
        log_msg(LOG_INFO, "stopped");
    return ret;
}

int main(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : "";

    if (strcmp(cmd, "serve") == 0)
        return cmd_serve(argc - 1, argv + 1);
    if (strcmp(cmd, "certs") == 0)
        return certs_main(argc - 1, argv + 1);
    if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0) {
        printf("claimcheck-webhook %s (Kubernetes up to %s)\n",
               claimcheck_version, target_newest());
        return 0;
    }
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0
        || strcmp(cmd, "-h") == 0)
        return usage(stdout, 0);
    fprintf(stderr, "claimcheck-webhook: unknown command '%s'\n", cmd);
    return usage(stderr, 2);
}
