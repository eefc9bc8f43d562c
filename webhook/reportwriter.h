/*
 * reportwriter.h - `serve --policy-reports INTERVAL` (off by default): in
 * a background thread, every INTERVAL, audit the cluster with the pod's
 * service account (audit.c, as `claimcheck audit --in-cluster` does) and
 * apply the PolicyReports (policyreport.h) with server-side apply; delete
 * claimcheck's reports of namespaces that no longer have checked objects.
 * Needs the wgpolicyk8s.io CRDs installed and the RBAC of docs/audit.md.
 * Failures are logged and retried at the next round; admission never
 * waits for it.
 */
#ifndef CLAIMCHECK_WEBHOOK_REPORTWRITER_H
#define CLAIMCHECK_WEBHOOK_REPORTWRITER_H

struct config;
struct err;
struct reportwriter;

struct reportwriter_opts {
    const char *apiserver;      /* NULL: from KUBERNETES_SERVICE_* */
    const char *sa_dir;         /* NULL: KUBE_SA_DIR */
    long long interval;         /* seconds between rounds */
    unsigned page_size;         /* list page size, 0: 500 */
    const struct config *cfg;   /* serve's settings (borrowed) */
};

struct reportwriter *reportwriter_new(const struct reportwriter_opts *o,
                                      struct err *err);
int reportwriter_start(struct reportwriter *w, struct err *err);
/* Rounds done (for tests: a log line says so too). */
unsigned reportwriter_rounds(struct reportwriter *w);
/* Stops the thread (an ongoing round is aborted) and frees w. */
void reportwriter_free(struct reportwriter *w);

#endif
