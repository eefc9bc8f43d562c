/*
 * kubeconfig.h - where the credentials of a struct kubecreds come from:
 * kubeconfig files merged as kubectl merges them, or the pod's service
 * account (--in-cluster).
 *
 * Files: the one given (it must exist), else every file of $KUBECONFIG
 * (':'-separated; empty names and missing files skipped), else
 * ~/.kube/config. The first file to set a value or a clusters/users/
 * contexts entry wins, and entries are never merged field by field
 * (kubectl's rules). The context is the one named, else current-context.
 * Relative file names (certificate-authority, client-certificate,
 * client-key, tokenFile, and an exec command with a '/') are relative to
 * the file that set them.
 */
#ifndef CLAIMCHECK_WEBHOOK_KUBECONFIG_H
#define CLAIMCHECK_WEBHOOK_KUBECONFIG_H

struct err;
struct kubecreds;

#define KUBE_SA_DIR "/var/run/secrets/kubernetes.io/serviceaccount"

/* Fills cr (kubecreds_init'ed) from the kubeconfig; path NULL: $KUBECONFIG
 * or ~/.kube/config; context NULL: current-context. 0, or -1 with err
 * (no file, a file that does not parse, no such context, cluster or user,
 * a field that cannot be used: auth-provider, both a file and its -data). */
int kubeconfig_load(const char *path, const char *context,
                    struct kubecreds *cr, struct err *err);

/* Fills cr for the pod's service account: apiserver (NULL: https://
 * $KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT), the token file
 * (re-read for every request) and CA of sa_dir (NULL: KUBE_SA_DIR).
 * 0, or -1 with err. */
int kubecreds_in_cluster(struct kubecreds *cr, const char *apiserver,
                         const char *sa_dir, struct err *err);

#endif
