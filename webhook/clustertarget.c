/*
 * clustertarget.c - the target of a live cluster (see clustertarget.h):
 * the version judged against the gate table, the apiserver's feature
 * gates turned into the overrides of its version's defaults, and the
 * serve-time thread that reads both (clusterread.c), builds an engine for
 * them and hands it to the invstore. It reads no flags (main.c does) and
 * judges no object (the engine does).
 */
#include "clustertarget.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../rules/rules.h"
#include "../validate/config.h"
#include "../validate/engine.h"
#include "../validate/err.h"
#include "../validate/k8s/gates.h"
#include "../validate/target.h"
#include "../validate/xalloc.h"
#include "clusterread.h"
#include "featuremetric.h"
#include "invstore.h"
#include "kubeapi.h"
#include "kubeconfig.h"
#include "log.h"
#include "stopper.h"
#include "metrics.h"

#define BACKOFF_MAX 30          /* seconds between failed first checks */
#define GATES_MAX 2048          /* "A=true,B=false,..." of the table */

const char *clustertarget_judge(const char *cluster, char *note,
                                size_t nmax)
{
    struct config cfg;
    struct target t;
    struct err err;
    int known;

    config_init(&cfg);
    cfg.kube_version = cluster;
    known = *cluster && target_init(&t, &cfg, &err) == 0;
    config_release(&cfg);
    note[0] = '\0';
    if (known)
        return cluster;
    snprintf(note, nmax, "the apiserver is Kubernetes %s, which the gate "
             "table does not know: judging as %s (give -k to choose)",
             cluster, target_newest());
    return target_newest();
}

/* ==== the watcher ======================================================== */

/* /metrics as last seen, so a failure is logged once */
enum gates_state { GATES_OK, GATES_HTTP, GATES_FAILED, GATES_NONE };

struct clustertarget {
    struct clustertarget_opts o;
    struct invstore *store;
    struct metrics *metrics;
    struct kubecreds cr;
    struct kubeapi *k;
    pthread_t thread;
    int started;
    struct stopper stop;        /* the sleep between checks */
    atomic_int known;
    char current[GATES_MAX + 64];   /* "1.34 apiserver A=true" in use */
    char cluster[16];           /* the apiserver's version in use */
    enum gates_state gstate;    /* thread only, as the rest */
    long gstatus;               /* ... its HTTP status */
};

/* a config of the flags, owned by the engine built on it */
static void config_free(void *cls)
{
    config_release(cls);
    free(cls);
}

/* The gates of fm that differ from the defaults of Kubernetes 1.<minor>
 * as a -g list into out (what the cluster's --feature-gates changed; a
 * gate the version lacks or locks cannot be set there and is skipped). */
static void overrides(const struct featuremetric *fm, int minor, char *out,
                      size_t max)
{
    size_t i, n = 0;

    out[0] = '\0';
    for (i = 0; i < gate_count && i < TARGET_MAX_GATES; i++) {
        struct gate_state s;
        int w;
        if (fm->on[i] < 0 || gate_state_at(&gate_table[i], minor, &s) < 0
            || s.stage == GATE_ABSENT || s.stage == GATE_REMOVED
            || s.locked || fm->on[i] == s.on)
            continue;
        w = snprintf(out + n, max - n, "%s%s=%s", n ? "," : "",
                     gate_table[i].name, fm->on[i] ? "true" : "false");
        if (w < 0 || (size_t)w >= max - n) {
            out[n] = '\0';
            return;
        }
        n += (size_t)w;
    }
}

/* Logs what GET /metrics gave when it changed from the last check. */
static void gates_log(struct clustertarget *t, enum gates_state st,
                      const struct clusterread_fail *f, const char *why,
                      const char *version)
{
    if (st == t->gstate && (st != GATES_HTTP || f->status == t->gstatus))
        return;
    t->gstate = st;
    t->gstatus = f->status;
    switch (st) {
    case GATES_OK:
        log_msg(LOG_INFO, "target: feature gates read from the apiserver's "
                "/metrics");
        return;
    case GATES_HTTP:
        if (f->status == 403) {
            log_msg(LOG_WARN, "target: the service account may not get "
                    "'/metrics' (403 Forbidden): judging with the default "
                    "feature gates of Kubernetes %s; the optional "
                    "ClusterRole rule (nonResourceURLs [\"/metrics\"], "
                    "verbs [\"get\"]) in deploy/kubernetes/base/rbac.yaml "
                    "lets the webhook read them", version);
            return;
        }
        break;
    default:
        break;
    }
    log_msg(LOG_WARN, "target: cannot read the apiserver's feature gates "
            "(%s): judging with the default feature gates of Kubernetes %s",
            why, version);
}

/* The apiserver's gates as overrides of version's defaults into out;
 * returns where they came from: "apiserver" or "defaults". */
static const char *read_gates(struct clustertarget *t, const char *version,
                              char *out, size_t max)
{
    struct featuremetric fm;
    struct clusterread_fail f;
    struct err err = { "" };
    enum gates_state st = GATES_OK;

    out[0] = '\0';
    if (clusterread_gates(t->k, &fm, &f, &err) < 0)
        st = f.status > 0 ? GATES_HTTP : GATES_FAILED;
    else if (!fm.samples) {
        st = GATES_NONE;
        snprintf(err.msg, sizeof(err.msg), "'/metrics' has no samples of "
                 "'%s'", FEATUREMETRIC_NAME);
    }
    gates_log(t, st, &f, err.msg, version);
    if (st != GATES_OK)
        return "defaults";
    overrides(&fm, (int)strtol(version + 2, NULL, 10), out, max);
    return "apiserver";
}

/* An engine for version and gates on a config of the flags, handed to
 * the store. 0 or -1 with err. */
static int switch_engine(struct clustertarget *t, const char *version,
                         const char *gates, struct err *err)
{
    struct config *cfg = xcalloc(1, sizeof(*cfg));
    struct engine *eng;

    config_init(cfg);
    if (t->o.make_config(t->o.cls, cfg, err) < 0
        || config_set_kube_version(cfg, version, err) < 0
        || (*gates && config_add_gates(cfg, gates, err) < 0)) {
        config_free(cfg);
        return -1;
    }
    eng = engine_new(cfg, &rules_builtin, err);
    if (!eng) {
        config_free(cfg);
        return -1;
    }
    return invstore_set_engine(t->store, eng, config_free, cfg, err);
}

/* One check: 0 when the engine in use is the apiserver's (switched if it
 * was not), -1 when the version could not be read or the engine built. */
static int check(struct clustertarget *t)
{
    struct clusterread cr;
    struct clusterread_fail f;
    struct err err = { "" };
    char gates[GATES_MAX], key[sizeof(t->current)], note[256];
    const char *version, *src = "flags";
    int ret = -1;

    clusterread_init(&cr);
    if (clusterread_version(t->k, &cr, &f, &err) < 0) {
        if (atomic_load(&t->known))
            log_msg(LOG_WARN, "target: cannot read the apiserver's version "
                    "(%s): still judging as Kubernetes %s", err.msg,
                    t->cluster);
        else
            log_msg(LOG_WARN, "target: cannot read the apiserver's version "
                    "(%s): not ready until it is known", err.msg);
        goto out;
    }
    version = clustertarget_judge(cr.version, note, sizeof(note));
    gates[0] = '\0';
    if (t->o.gates)
        src = read_gates(t, version, gates, sizeof(gates));
    snprintf(key, sizeof(key), "%s %s %s", version, src, gates);
    if (!strcmp(key, t->current) && !strcmp(cr.version, t->cluster)) {
        ret = 0;
        goto out;
    }
    /* the same target for another version (1.40 and 1.41 both judged as
     * the newest) keeps the engine */
    if (strcmp(key, t->current)
        && switch_engine(t, version, gates, &err) < 0) {
        log_msg(LOG_ERROR, "target: cannot judge at Kubernetes %s: %s",
                version, err.msg);
        goto out;
    }
    if (*note)
        log_msg(LOG_WARN, "target: %s", note);
    if (t->cluster[0] && strcmp(t->cluster, cr.version))
        log_msg(LOG_INFO, "target: the apiserver changed from Kubernetes "
                "%s to %s: judging as %s, feature gates from %s%s%s",
                t->cluster, cr.version, version, src, *gates ? ": " : "",
                gates);
    else
        log_msg(LOG_INFO, "target: the apiserver is Kubernetes %s (%s): "
                "judging as %s, feature gates from %s%s%s", cr.version,
                cr.git_version, version, src, *gates ? ": " : "", gates);
    metrics_target(t->metrics, version, "apiserver", src);
    snprintf(t->current, sizeof(t->current), "%s", key);
    snprintf(t->cluster, sizeof(t->cluster), "%s", cr.version);
    atomic_store(&t->known, 1);
    ret = 0;
out:
    clusterread_release(&cr);
    return ret;
}

static void *target_main(void *arg)
{
    struct clustertarget *t = arg;
    long long backoff = 1, wait;

    do {
        if (check(t) == 0) {
            backoff = 1;
            wait = t->o.period;
        } else {
            wait = backoff < t->o.period ? backoff : t->o.period;
            backoff = backoff * 2 < BACKOFF_MAX ? backoff * 2 : BACKOFF_MAX;
        }
    } while (!stopper_wait(&t->stop, wait));
    return NULL;
}

struct clustertarget *clustertarget_new(const struct clustertarget_opts *o,
                                        struct invstore *s,
                                        struct metrics *m, struct err *err)
{
    struct clustertarget *t = xcalloc(1, sizeof(*t));

    t->o = *o;
    if (t->o.period < 1)
        t->o.period = 1;
    t->store = s;
    t->metrics = m;
    stopper_init(&t->stop);
    kubecreds_init(&t->cr);
    if (kubecreds_in_cluster(&t->cr, o->apiserver, o->sa_dir, err) < 0) {
        clustertarget_free(t);
        return NULL;
    }
    t->k = kubeapi_new(&t->cr);
    kubeapi_set_stop(t->k, stopper_stopping, &t->stop);
    return t;
}

int clustertarget_start(struct clustertarget *t, struct err *err)
{
    log_msg(LOG_INFO, "target: reading the version%s of %s every %llds",
            t->o.gates ? " and feature gates" : "", t->cr.server,
            t->o.period);
    if (pthread_create(&t->thread, NULL, target_main, t) != 0)
        return err_set(err, "cannot start the target thread");
    t->started = 1;
    return 0;
}

int clustertarget_known(void *cls)
{
    struct clustertarget *t = cls;

    return atomic_load(&t->known);
}

void clustertarget_free(struct clustertarget *t)
{
    if (!t)
        return;
    stopper_stop(&t->stop);
    if (t->started)
        pthread_join(t->thread, NULL);
    kubeapi_free(t->k);
    kubecreds_release(&t->cr);
    stopper_destroy(&t->stop);
    free(t);
}
