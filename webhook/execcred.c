/*
 * execcred.c - exec credential plugins (see execcred.h): the environment
 * the plugin sees, running it (validate/spawn.c: posix_spawn, safe in the
 * threaded webhook), reading and checking its ExecCredential, and the
 * cache until expiry.
 * Where the spec comes from is kubeconfig.c's business; how a credential
 * is put on a request is kubeapi.c's.
 */
#include "execcred.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../validate/arena.h"
#include "../validate/buf.h"
#include "../validate/cel/cel.h"
#include "../validate/err.h"
#include "../validate/limits.h"
#include "../validate/load_json.h"
#include "../validate/spawn.h"
#include "../validate/tree.h"
#include "../validate/xalloc.h"

#define EXECCRED_OUT_MAX (1u << 20)     /* what a plugin may print */

extern char **environ;

struct execcred {
    struct arena arena;         /* the spec's copies */
    struct execcred_spec s;
    pthread_mutex_t mu;
    struct execcred_out cached; /* guarded by mu */
    int have;
    long long expires;          /* Unix seconds; 0: never */
};

static char *xmemdup(const char *s, size_t n)
{
    char *p = xmalloc(n + 1);

    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

struct execcred *execcred_new(const struct execcred_spec *s)
{
    struct execcred *x = xcalloc(1, sizeof(*x));
    const char **args, **env;
    size_t i;

    arena_init(&x->arena, ARENA_TINY_BYTES);
    x->s = *s;
    x->s.api_version = arena_strdup(&x->arena, s->api_version
                                    ? s->api_version : "");
    x->s.command = arena_strdup(&x->arena, s->command ? s->command : "");
    args = arena_alloc(&x->arena, (s->nargs + 1) * sizeof(*args));
    for (i = 0; i < s->nargs; i++)
        args[i] = arena_strdup(&x->arena, s->args[i]);
    x->s.args = args;
    env = arena_alloc(&x->arena, (s->nenv + 1) * sizeof(*env));
    for (i = 0; i < s->nenv; i++)
        env[i] = arena_strdup(&x->arena, s->env[i]);
    x->s.env = env;
    x->s.interactive_mode = s->interactive_mode
        ? arena_strdup(&x->arena, s->interactive_mode) : NULL;
    x->s.install_hint = s->install_hint
        ? arena_strdup(&x->arena, s->install_hint) : NULL;
    x->s.cluster_json = s->cluster_json
        ? arena_strdup(&x->arena, s->cluster_json) : NULL;
    pthread_mutex_init(&x->mu, NULL);
    return x;
}

void execcred_out_release(struct execcred_out *o)
{
    if (o->token)
        memset(o->token, 0, strlen(o->token));
    if (o->key_pem)
        memset(o->key_pem, 0, o->key_len);
    free(o->token);
    free(o->cert_pem);
    free(o->key_pem);
    memset(o, 0, sizeof(*o));
}

void execcred_free(struct execcred *x)
{
    if (!x)
        return;
    execcred_out_release(&x->cached);
    pthread_mutex_destroy(&x->mu);
    arena_release(&x->arena);
    free(x);
}

void execcred_expire(struct execcred *x)
{
    pthread_mutex_lock(&x->mu);
    execcred_out_release(&x->cached);
    x->have = 0;
    pthread_mutex_unlock(&x->mu);
}

/* ==== running the plugin ================================================ */

/* The environment: ours, with the spec's env and KUBERNETES_EXEC_INFO
 * replacing variables of the same name. Arena-owned. */
static char **plugin_env(struct arena *a, const struct execcred_spec *s,
                         int interactive)
{
    struct buf info;
    size_t n = 0, i, k, out = 0;
    char **env;

    while (environ && environ[n])
        n++;
    env = arena_alloc(a, (n + s->nenv + 2) * sizeof(*env));
    for (i = 0; i < n; i++) {
        const char *eq = strchr(environ[i], '=');
        size_t kl = eq ? (size_t)(eq - environ[i]) : strlen(environ[i]);
        int replaced = kl == strlen("KUBERNETES_EXEC_INFO")
                       && !strncmp(environ[i], "KUBERNETES_EXEC_INFO", kl);
        for (k = 0; k < s->nenv && !replaced; k++)
            replaced = !strncmp(s->env[k], environ[i], kl)
                       && s->env[k][kl] == '=';
        if (!replaced)
            env[out++] = environ[i];
    }
    for (k = 0; k < s->nenv; k++)
        env[out++] = (char *)arena_strdup(a, s->env[k]);
    buf_init(&info, 1 << 20);
    buf_adds(&info, "KUBERNETES_EXEC_INFO={\"apiVersion\":");
    buf_add_json_str(&info, s->api_version);
    buf_addf(&info, ",\"kind\":\"ExecCredential\",\"spec\":{\"interactive\":"
             "%s", interactive ? "true" : "false");
    if (s->cluster_json)
        buf_addf(&info, ",\"cluster\":%s", s->cluster_json);
    buf_adds(&info, "}}");
    env[out++] = arena_strdup(a, info.p);
    env[out] = NULL;
    buf_release(&info);
    return env;
}

/* Runs the plugin (validate/spawn.c: no shell, its stderr ours, its stdin
 * ours only when interactive); its stdout into b. 0, or -1 with err. */
static int plugin_run(const struct execcred_spec *s, int interactive,
                      struct buf *b, struct err *err)
{
    struct spawn_opts so = {0};
    struct spawn_result r;
    struct arena a;
    const char **argv;
    int rc, ret = -1;
    size_t i;

    arena_init(&a, ARENA_TINY_BYTES);
    argv = arena_alloc(&a, (s->nargs + 2) * sizeof(*argv));
    argv[0] = s->command;
    for (i = 0; i < s->nargs; i++)
        argv[i + 1] = s->args[i];
    argv[s->nargs + 1] = NULL;
    so.env = plugin_env(&a, s, interactive);
    so.keep_stdin = interactive;
    so.keep_stderr = 1;
    so.out_max = b->max;
    rc = spawn_run(argv, &so, &r, err);
    if (rc == SPAWN_NOT_FOUND) {
        err_set(err, "exec plugin '%s' not found%s%s", s->command,
                s->install_hint ? ": " : "",
                s->install_hint ? s->install_hint : "");
        goto out;
    }
    if (rc < 0) {
        char why[sizeof(err->msg)];
        memcpy(why, err->msg, sizeof(why));
        err_set(err, "exec plugin: %s", why);
        goto out;
    }
    if (r.out_too_big)
        err_set(err, "exec plugin '%s' printed more than %u KiB",
                s->command, EXECCRED_OUT_MAX >> 10);
    else if (!r.exited)
        err_set(err, "exec plugin '%s' was killed by signal %d",
                s->command, r.signal);
    else if (r.code)
        err_set(err, "exec plugin '%s' failed (exit status %d)",
                s->command, r.code);
    else {
        buf_add(b, r.out.p, r.out.len);
        ret = 0;
    }
    spawn_result_release(&r);
out:
    arena_release(&a);
    return ret;
}

/* Reads the ExecCredential the plugin printed into out and *expires. */
static int plugin_parse(const struct execcred_spec *s, const struct buf *b,
                        struct execcred_out *out, long long *expires,
                        struct err *err)
{
    struct arena a;
    struct tnode *t;
    const struct tnode *st;
    const char *v, *tok, *cert, *key, *exp;
    int64_t sec;
    int32_t ns;
    int ret = -1;

    arena_init(&a, ARENA_SMALL_BYTES);
    if (load_json(&a, b->p, b->len, &t, err) < 0) {
        char inner[sizeof(err->msg)];
        memcpy(inner, err->msg, sizeof(inner));
        inner[150] = '\0';
        err_set(err, "exec plugin '%s' printed no ExecCredential: %s",
                s->command, inner);
        goto out;
    }
    v = tree_str(tree_get(t, "apiVersion"));
    if (!v || strcmp(v, s->api_version)
        || !tree_str(tree_get(t, "kind"))
        || strcmp(tree_str(tree_get(t, "kind")), "ExecCredential")) {
        err_set(err, "exec plugin '%s' printed apiVersion '%s', kind '%s': "
                "want ExecCredential of '%s'", s->command, v ? v : "",
                tree_str(tree_get(t, "kind")) ? tree_str(tree_get(t, "kind"))
                : "", s->api_version);
        goto out;
    }
    st = tree_get(t, "status");
    tok = tree_str(tree_get(st, "token"));
    cert = tree_str(tree_get(st, "clientCertificateData"));
    key = tree_str(tree_get(st, "clientKeyData"));
    exp = tree_str(tree_get(st, "expirationTimestamp"));
    if ((!tok || !*tok) && (!cert || !*cert || !key || !*key)) {
        err_set(err, "exec plugin '%s' gave neither status.token nor "
                "status.clientCertificateData and clientKeyData", s->command);
        goto out;
    }
    if ((cert && *cert) != (key && *key)) {
        err_set(err, "exec plugin '%s' gave only one of "
                "clientCertificateData and clientKeyData", s->command);
        goto out;
    }
    *expires = 0;
    if (exp) {
        if (cel_rfc3339_parse(exp, strlen(exp), &sec, &ns) < 0) {
            err_set(err, "exec plugin '%s': expirationTimestamp '%s' is not "
                    "RFC 3339", s->command, exp);
            goto out;
        }
        *expires = sec ? (long long)sec : 1;
    }
    memset(out, 0, sizeof(*out));
    if (tok && *tok)
        out->token = tok ? xstrdup(tok) : NULL;
    if (cert && *cert) {
        out->cert_len = strlen(cert);
        out->cert_pem = xmemdup(cert, out->cert_len);
        out->key_len = strlen(key);
        out->key_pem = xmemdup(key, out->key_len);
    }
    ret = 0;
out:
    arena_release(&a);
    return ret;
}

static void out_copy(struct execcred_out *to, const struct execcred_out *from)
{
    memset(to, 0, sizeof(*to));
    to->token = from->token ? xstrdup(from->token) : NULL;
    if (from->cert_pem) {
        to->cert_pem = xmemdup(from->cert_pem, from->cert_len);
        to->cert_len = from->cert_len;
        to->key_pem = xmemdup(from->key_pem, from->key_len);
        to->key_len = from->key_len;
    }
}

int execcred_get(struct execcred *x, struct execcred_out *out,
                 struct err *err)
{
    const char *mode = x->s.interactive_mode ? x->s.interactive_mode
                                             : "IfAvailable";
    int interactive = strcmp(mode, "Never") && isatty(0);
    struct buf b;
    long long expires = 0;
    int ret = -1;

    pthread_mutex_lock(&x->mu);
    if (x->have && (!x->expires || (long long)time(NULL) < x->expires)) {
        out_copy(out, &x->cached);
        ret = 0;
        goto out;
    }
    execcred_out_release(&x->cached);
    x->have = 0;
    if (!strcmp(mode, "Always") && !isatty(0)) {
        err_set(err, "exec plugin '%s' needs a terminal (interactiveMode: "
                "Always) and there is none", x->s.command);
        goto out;
    }
    buf_init(&b, EXECCRED_OUT_MAX);
    if (plugin_run(&x->s, interactive, &b, err) == 0
        && plugin_parse(&x->s, &b, &x->cached, &expires, err) == 0) {
        x->have = 1;
        x->expires = expires;
        out_copy(out, &x->cached);
        ret = 0;
    }
    if (b.p)
        memset(b.p, 0, b.len);
    buf_release(&b);
out:
    pthread_mutex_unlock(&x->mu);
    return ret;
}
