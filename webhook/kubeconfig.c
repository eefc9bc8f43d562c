/*
 * kubeconfig.c - credentials from kubeconfig files (kubectl's merge rules,
 * see kubeconfig.h) and from the pod's service account. Reads the files
 * with the core's YAML loader, picks the context, its cluster and user,
 * resolves relative paths and decodes the -data fields into a struct
 * kubecreds. It sends no request (kubeapi.c) and runs no plugin
 * (execcred.c: the exec spec is handed over).
 */
#include "kubeconfig.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../validate/arena.h"
#include "../validate/buf.h"
#include "../validate/err.h"
#include "../validate/file.h"
#include "../validate/limits.h"
#include "../validate/load_yaml.h"
#include "../validate/tree.h"
#include "../validate/xalloc.h"
#include "execcred.h"
#include "kubeapi.h"

#define KUBECONFIG_MAX (16u << 20)  /* one kubeconfig file */
#define KUBECONFIG_FILES 64
#define KUBECONFIG_PEM_MAX (1u << 20)

struct kcfile {
    const char *path;
    const char *dir;            /* for relative paths: "" or "dir/" */
    const struct tnode *root;
};

struct kc {
    struct arena a;             /* trees and scratch */
    struct kcfile f[KUBECONFIG_FILES];
    size_t n;
};

/* ==== reading and merging =============================================== */

static const char *dir_of(struct arena *a, const char *path)
{
    const char *slash = strrchr(path, '/');

    return slash ? arena_strndup(a, path, (size_t)(slash - path + 1)) : "";
}

/* Reads one file; missing ones are skipped unless `must`. */
static int kc_add(struct kc *kc, const char *path, int must, struct err *err)
{
    struct ydocs docs;
    struct err ferr;
    char *data, *text;
    size_t len;

    if (kc->n == KUBECONFIG_FILES)
        return err_set(err, "more than %d kubeconfig files",
                       KUBECONFIG_FILES);
    if (!must && access(path, F_OK) < 0 && errno == ENOENT)
        return 0;
    if (file_read(path, KUBECONFIG_MAX, &data, &len, &ferr) < 0)
        return err_set(err, "cannot read kubeconfig: %s", ferr.msg);
    text = arena_strndup(&kc->a, data, len);
    free(data);
    load_yaml(&kc->a, text, strlen(text), &docs);
    if (docs.n && docs.v[0].error)
        return err_set(err, "kubeconfig '%s':%u:%u: %s", path,
                       docs.v[0].line, docs.v[0].col, docs.v[0].error);
    if (!docs.n || !docs.v[0].root)
        return 0;       /* an empty file sets nothing */
    if (!tree_is_map(docs.v[0].root))
        return err_set(err, "kubeconfig '%s' is not a mapping", path);
    kc->f[kc->n].path = arena_strdup(&kc->a, path);
    kc->f[kc->n].dir = dir_of(&kc->a, path);
    kc->f[kc->n].root = docs.v[0].root;
    kc->n++;
    return 0;
}

static int kc_read(struct kc *kc, const char *path, struct err *err)
{
    const char *env = getenv("KUBECONFIG"), *home;
    char *list, *p, *next;

    if (path)
        return kc_add(kc, path, 1, err);
    if (env && *env) {
        list = arena_strdup(&kc->a, env);
        for (p = list; p; p = next) {
            next = strchr(p, ':');
            if (next)
                *next++ = '\0';
            if (*p && kc_add(kc, p, 0, err) < 0)
                return -1;
        }
        if (!kc->n)
            return err_set(err, "no kubeconfig: none of the files in "
                           "KUBECONFIG ('%s') exists", env);
        return 0;
    }
    home = getenv("HOME");
    if (!home || !*home)
        return err_set(err, "no kubeconfig: HOME is not set (give "
                       "--kubeconfig or --in-cluster)");
    p = arena_printf(&kc->a, "%s/.kube/config", home);
    if (kc_add(kc, p, 0, err) < 0)
        return -1;
    if (!kc->n)
        return err_set(err, "no kubeconfig: '%s' does not exist (give "
                       "--kubeconfig, set KUBECONFIG, or use --in-cluster)",
                       p);
    return 0;
}

/* The first file's entry `name` of list `list` (clusters, users,
 * contexts): its inner map (cluster, user, context), and which file. */
static const struct tnode *kc_find(const struct kc *kc, const char *list,
                                   const char *inner, const char *name,
                                   size_t *file)
{
    size_t i, k;

    for (i = 0; i < kc->n; i++) {
        const struct tnode *l = tree_get(kc->f[i].root, list);
        for (k = 0; tree_is_seq(l) && k < l->n; k++) {
            const char *nm = tree_str(tree_get(l->kids[k], "name"));
            if (nm && !strcmp(nm, name)) {
                *file = i;
                return tree_get(l->kids[k], inner);
            }
        }
    }
    return NULL;
}

static const char *kc_current_context(const struct kc *kc)
{
    size_t i;

    for (i = 0; i < kc->n; i++) {
        const char *c = tree_str(tree_get(kc->f[i].root, "current-context"));
        if (c && *c)
            return c;
    }
    return NULL;
}

/* ==== fields ============================================================ */

static const char *str_of(const struct tnode *m, const char *key)
{
    const char *s = tree_str(tree_get(m, key));

    return s && *s ? s : NULL;
}

/* A file name relative to the kubeconfig that set it. */
static const char *resolve(struct kubecreds *cr, const struct kcfile *f,
                           const char *p)
{
    if (!p || p[0] == '/')
        return p ? arena_strdup(&cr->arena, p) : NULL;
    return arena_printf(&cr->arena, "%s%s", f->dir, p);
}

/* A -data field: base64 of PEM bytes, decoded into cr's arena. */
static int decode(struct kubecreds *cr, const struct kcfile *f,
                  const char *field, const char *b64, const char **out,
                  size_t *len, struct err *err)
{
    struct buf b;

    buf_init(&b, KUBECONFIG_PEM_MAX);
    if (buf_add_base64(&b, b64, strlen(b64), 0) < 0) {
        buf_release(&b);
        return err_set(err, "kubeconfig '%s': %s is not base64", f->path,
                       field);
    }
    *out = arena_strndup(&cr->arena, b.p, b.len);
    *len = b.len;
    buf_release(&b);
    return 0;
}

/* A file field and its -data twin: at most one of them (kubectl refuses
 * both). */
static int file_or_data(struct kubecreds *cr, const struct kcfile *f,
                        const struct tnode *m, const char *key,
                        const char **file, const char **pem, size_t *len,
                        struct err *err)
{
    char dkey[64];
    const char *fv = str_of(m, key), *dv;

    snprintf(dkey, sizeof(dkey), "%s-data", key);
    dv = str_of(m, dkey);
    if (fv && dv)
        return err_set(err, "kubeconfig '%s': both %s and %s are set",
                       f->path, key, dkey);
    if (dv)
        return decode(cr, f, dkey, dv, pem, len, err);
    *file = resolve(cr, f, fv);
    return 0;
}

static int read_cluster(struct kubecreds *cr, const struct kc *kc,
                        size_t fi, const struct tnode *cl, const char *name,
                        struct err *err)
{
    const struct kcfile *f = &kc->f[fi];
    const char *server = str_of(cl, "server");
    size_t n;

    if (!server)
        return err_set(err, "kubeconfig '%s': cluster '%s' has no server",
                       f->path, name);
    n = strlen(server);
    while (n && server[n - 1] == '/')
        n--;
    cr->server = arena_strndup(&cr->arena, server, n);
    cr->insecure = tree_true(tree_get(cl, "insecure-skip-tls-verify"));
    cr->tls_server_name = str_of(cl, "tls-server-name")
        ? arena_strdup(&cr->arena, str_of(cl, "tls-server-name")) : NULL;
    return file_or_data(cr, f, cl, "certificate-authority", &cr->ca_file,
                        &cr->ca_pem, &cr->ca_pem_len, err);
}

/* spec.cluster of KUBERNETES_EXEC_INFO (provideClusterInfo) */
static const char *cluster_json(struct arena *a, const struct tnode *cl,
                                const struct kubecreds *cr)
{
    struct buf b;
    const char *ca = str_of(cl, "certificate-authority-data");
    const char *out;

    buf_init(&b, 4u << 20);
    buf_adds(&b, "{\"server\":");
    buf_add_json_str(&b, cr->server);
    if (cr->tls_server_name) {
        buf_adds(&b, ",\"tls-server-name\":");
        buf_add_json_str(&b, cr->tls_server_name);
    }
    if (cr->insecure)
        buf_adds(&b, ",\"insecure-skip-tls-verify\":true");
    if (ca) {
        buf_adds(&b, ",\"certificate-authority-data\":");
        buf_add_json_str(&b, ca);
    }
    buf_adds(&b, "}");
    out = arena_strdup(a, b.p);
    buf_release(&b);
    return out;
}

static int read_exec(struct kubecreds *cr, const struct kcfile *f,
                     const struct tnode *ex, const struct tnode *cl,
                     const char *user, struct err *err)
{
    struct execcred_spec s;
    const struct tnode *args = tree_get(ex, "args");
    const struct tnode *env = tree_get(ex, "env");
    const char *cmd = str_of(ex, "command");
    const char **av, **ev;
    size_t i;

    memset(&s, 0, sizeof(s));
    s.api_version = str_of(ex, "apiVersion");
    if (!cmd || !s.api_version)
        return err_set(err, "kubeconfig '%s': the exec plugin of user '%s' "
                       "needs command and apiVersion", f->path, user);
    if (strcmp(s.api_version, "client.authentication.k8s.io/v1")
        && strcmp(s.api_version, "client.authentication.k8s.io/v1beta1"))
        return err_set(err, "kubeconfig '%s': exec apiVersion '%s' of user "
                       "'%s' is not supported (client.authentication."
                       "k8s.io/v1 or v1beta1)", f->path, s.api_version,
                       user);
    /* a path with a '/' is relative to the kubeconfig; a bare name is
     * looked up in PATH */
    s.command = strchr(cmd, '/') ? resolve(cr, f, cmd) : cmd;
    av = arena_alloc(&cr->arena, ((args ? args->n : 0) + 1) * sizeof(*av));
    for (i = 0; tree_is_seq(args) && i < args->n; i++)
        av[s.nargs++] = tree_text(args->kids[i]) ? tree_text(args->kids[i])
                                                 : "";
    s.args = av;
    ev = arena_alloc(&cr->arena, ((env ? env->n : 0) + 1) * sizeof(*ev));
    for (i = 0; tree_is_seq(env) && i < env->n; i++) {
        const char *nm = str_of(env->kids[i], "name");
        const char *v = tree_text(tree_get(env->kids[i], "value"));
        if (nm)
            ev[s.nenv++] = arena_printf(&cr->arena, "%s=%s", nm,
                                        v ? v : "");
    }
    s.env = ev;
    s.interactive_mode = str_of(ex, "interactiveMode");
    s.install_hint = str_of(ex, "installHint");
    if (tree_true(tree_get(ex, "provideClusterInfo")))
        s.cluster_json = cluster_json(&cr->arena, cl, cr);
    cr->exec = execcred_new(&s);
    return 0;
}

static int read_user(struct kubecreds *cr, const struct kc *kc, size_t fi,
                     const struct tnode *u, const struct tnode *cl,
                     const char *name, struct err *err)
{
    const struct kcfile *f = &kc->f[fi];
    const struct tnode *ex = tree_get(u, "exec");
    const struct tnode *ap = tree_get(u, "auth-provider");

    if (ap)
        return err_set(err, "kubeconfig '%s': user '%s' uses auth-provider "
                       "'%s', which claimcheck does not run: use the "
                       "provider's exec plugin (e.g. gke-gcloud-auth-plugin, "
                       "kubelogin)", f->path, name,
                       str_of(ap, "name") ? str_of(ap, "name") : "?");
    if (str_of(u, "token"))
        cr->token = arena_strdup(&cr->arena, str_of(u, "token"));
    else
        cr->token_file = resolve(cr, f, str_of(u, "tokenFile"));
    if (file_or_data(cr, f, u, "client-certificate", &cr->cert_file,
                     &cr->cert_pem, &cr->cert_pem_len, err) < 0
        || file_or_data(cr, f, u, "client-key", &cr->key_file, &cr->key_pem,
                        &cr->key_pem_len, err) < 0)
        return -1;
    if (!(cr->cert_file || cr->cert_pem) != !(cr->key_file || cr->key_pem))
        return err_set(err, "kubeconfig '%s': user '%s' has a client "
                       "certificate without a key, or a key without one",
                       f->path, name);
    if (tree_is_map(ex) && read_exec(cr, f, ex, cl, name, err) < 0)
        return -1;
    return 0;
}

int kubeconfig_load(const char *path, const char *context,
                    struct kubecreds *cr, struct err *err)
{
    struct kc *kc = xcalloc(1, sizeof(*kc));
    const struct tnode *ctx, *cl, *u;
    const char *cname, *uname;
    size_t fctx = 0, fcl = 0, fu = 0;
    int ret = -1;

    arena_init(&kc->a, ARENA_CHUNK_BYTES);
    if (kc_read(kc, path, err) < 0)
        goto out;
    if (!context)
        context = kc_current_context(kc);
    if (!context) {
        err_set(err, "kubeconfig '%s' sets no current-context: give "
                "--context", kc->n ? kc->f[0].path : "");
        goto out;
    }
    ctx = kc_find(kc, "contexts", "context", context, &fctx);
    if (!tree_is_map(ctx)) {
        err_set(err, "context '%s' is not in kubeconfig '%s'%s", context,
                kc->f[0].path, kc->n > 1 ? " (nor the others of KUBECONFIG)"
                                         : "");
        goto out;
    }
    cname = str_of(ctx, "cluster");
    uname = str_of(ctx, "user");
    cl = cname ? kc_find(kc, "clusters", "cluster", cname, &fcl) : NULL;
    if (!tree_is_map(cl)) {
        err_set(err, "context '%s' names cluster '%s', which is not in the "
                "kubeconfig", context, cname ? cname : "");
        goto out;
    }
    if (read_cluster(cr, kc, fcl, cl, cname, err) < 0)
        goto out;
    u = uname ? kc_find(kc, "users", "user", uname, &fu) : NULL;
    if (uname && !tree_is_map(u)) {
        err_set(err, "context '%s' names user '%s', which is not in the "
                "kubeconfig", context, uname);
        goto out;
    }
    if (u && read_user(cr, kc, fu, u, cl, uname, err) < 0)
        goto out;
    cr->origin = arena_printf(&cr->arena, "context '%s' of '%s'", context,
                              kc->f[fctx].path);
    ret = 0;
out:
    arena_release(&kc->a);
    free(kc);
    return ret;
}

/* ==== the service account =============================================== */

int kubecreds_in_cluster(struct kubecreds *cr, const char *apiserver,
                         const char *sa_dir, struct err *err)
{
    const char *dir = sa_dir ? sa_dir : KUBE_SA_DIR;
    size_t n;

    if (apiserver) {
        cr->server = arena_strdup(&cr->arena, apiserver);
    } else {
        const char *host = getenv("KUBERNETES_SERVICE_HOST");
        const char *port = getenv("KUBERNETES_SERVICE_PORT");
        if (!host || !*host || !port || !*port)
            return err_set(err, "--in-cluster needs KUBERNETES_SERVICE_HOST "
                           "and KUBERNETES_SERVICE_PORT (or --apiserver)");
        cr->server = arena_printf(&cr->arena, "https://%s%s%s:%s",
                                  strchr(host, ':') ? "[" : "", host,
                                  strchr(host, ':') ? "]" : "", port);
    }
    n = strlen(cr->server);
    while (n && cr->server[n - 1] == '/')
        n--;
    cr->server = arena_strndup(&cr->arena, cr->server, n);
    cr->token_file = arena_printf(&cr->arena, "%s/token", dir);
    cr->ca_file = arena_printf(&cr->arena, "%s/ca.crt", dir);
    cr->origin = arena_printf(&cr->arena, "the service account of '%s'",
                              dir);
    return 0;
}
