/*
 * clustertarget.h - the target a live cluster is judged at. The version
 * its apiserver reports (GET /version) is used as it is when the gate
 * table knows it, else judged as the newest the table knows, with a note
 * (`audit` and `serve --in-cluster` share this). For `serve --in-cluster`
 * without -k, a watcher learns the version and, without -g, the feature
 * gates the apiserver runs with (its kubernetes_feature_enabled metric,
 * when RBAC allows GET /metrics) at start, re-checks both every period,
 * and hands the engine built for them to the invstore, which pairs new
 * snapshots with it (requests in flight finish with the old pair, as with
 * an inventory swap).
 *
 * Until the version is known, the engine of the flags (the default
 * version) serves and clustertarget_known() is 0, so /readyz answers 503:
 * judging a cluster at a version it is not could deny what it accepts.
 * The first check is retried with backoff (1 s doubling to 30 s); a
 * re-check that fails keeps the engine in use. GET /metrics answering an
 * error (403 without the optional RBAC rule) or a text that does not parse
 * is logged once and the version's default gates are used.
 */
#ifndef CLAIMCHECK_WEBHOOK_CLUSTERTARGET_H
#define CLAIMCHECK_WEBHOOK_CLUSTERTARGET_H

#include <stddef.h>

struct clustertarget;
struct config;
struct err;
struct invstore;
struct metrics;

/* The version a cluster reporting `cluster` ("1.34") is judged at:
 * cluster itself when the gate table knows it, else target_newest() and
 * a note saying so in note (else note is ""). */
const char *clustertarget_judge(const char *cluster, char *note,
                                size_t nmax);

struct clustertarget_opts {
    const char *apiserver;      /* as cluster_opts */
    const char *sa_dir;
    int gates;                  /* read the gates from GET /metrics */
    long long period;           /* seconds between re-checks */
    /* fills a config from the flags (no version: it is set here); it
     * must stay valid while engines built on it are alive */
    int (*make_config)(void *cls, struct config *cfg, struct err *err);
    void *cls;
};

/* kubeapi_global_init() must have run. */
struct clustertarget *clustertarget_new(const struct clustertarget_opts *o,
                                        struct invstore *s,
                                        struct metrics *m, struct err *err);
int clustertarget_start(struct clustertarget *t, struct err *err);
/* 1 once an engine for the apiserver's version is in use (for /readyz);
 * cls is a struct clustertarget. */
int clustertarget_known(void *cls);
/* Stops the thread (aborting a request) and frees t; engines handed to
 * the invstore stay with it. */
void clustertarget_free(struct clustertarget *t);

#endif
