/*
 * execcred.h - exec credential plugins (client.authentication.k8s.io
 * ExecCredential, as EKS, GKE and AKS kubeconfigs use them): runs the
 * command with its args and env plus KUBERNETES_EXEC_INFO, reads the
 * ExecCredential it prints, and keeps the token or client certificate
 * until status.expirationTimestamp (for the life of the process when it has
 * none), as client-go does. Thread-safe: one plugin run at a time.
 */
#ifndef CLAIMCHECK_WEBHOOK_EXECCRED_H
#define CLAIMCHECK_WEBHOOK_EXECCRED_H

#include <stddef.h>

struct err;
struct execcred;

/* users[].user.exec of a kubeconfig; strings are copied by execcred_new */
struct execcred_spec {
    const char *api_version;    /* client.authentication.k8s.io/v1 (or
                                   v1beta1) */
    const char *command;        /* a path (relative ones already resolved
                                   against the kubeconfig's folder) or a
                                   name looked up in PATH */
    const char *const *args;
    size_t nargs;
    const char *const *env;     /* "NAME=VALUE", added to the environment */
    size_t nenv;
    const char *interactive_mode;   /* Never, IfAvailable, Always; NULL:
                                       IfAvailable */
    const char *install_hint;   /* printed when the command is missing */
    const char *cluster_json;   /* spec.cluster of KUBERNETES_EXEC_INFO
                                   (provideClusterInfo), or NULL */
};

/* What the plugin gave; malloc'ed copies (execcred_out_release). */
struct execcred_out {
    char *token;                /* status.token, or NULL */
    char *cert_pem, *key_pem;   /* status.clientCertificateData / KeyData */
    size_t cert_len, key_len;
};

struct execcred *execcred_new(const struct execcred_spec *s);
void execcred_free(struct execcred *x);
/* The cached credential, or a fresh one from running the plugin when there
 * is none or it has expired. 0, or -1 with err (the command is missing,
 * failed, needs a terminal, or printed no valid ExecCredential). */
int execcred_get(struct execcred *x, struct execcred_out *out,
                 struct err *err);
/* Forgets the cached credential (the apiserver answered 401). */
void execcred_expire(struct execcred *x);
void execcred_out_release(struct execcred_out *o);

#endif
