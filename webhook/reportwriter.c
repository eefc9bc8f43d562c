/*
 * reportwriter.c - the PolicyReport writer of `serve` (see
 * reportwriter.h): its thread and schedule, one audit per round, applying
 * each report (server-side apply, field manager "claimcheck") and deleting
 * stale ones. What a report holds is policyreport.c's business; reading
 * the cluster is audit.c's.
 */
#include "reportwriter.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lint/policyreport.h"
#include "../lint/render.h"
#include "../validate/buf.h"
#include "../validate/clock.h"
#include "../validate/config.h"
#include "../validate/err.h"
#include "../validate/limits.h"
#include "../validate/load_json.h"
#include "../validate/strmap.h"
#include "../validate/tree.h"
#include "../validate/xalloc.h"
#include "audit.h"
#include "kubeapi.h"
#include "kubeconfig.h"
#include "log.h"
#include "stopper.h"

#define RW_ANSWER_MAX (16u << 20)
#define RW_TIMEOUT 30
#define RW_GROUP "/apis/" POLICYREPORT_API
#define RW_MANAGER "fieldManager=claimcheck&force=true"
#define RW_SELECTOR "labelSelector=app.kubernetes.io%2Fmanaged-by%3Dclaimcheck"

struct reportwriter {
    struct reportwriter_opts o;
    struct kubecreds cr;
    struct kubeapi *k;
    pthread_t thread;
    int started;
    struct stopper stop;        /* the sleep between rounds */
    atomic_uint rounds;
};

/* ==== one round ========================================================== */

struct applied {
    struct reportwriter *w;
    struct strmap ns;           /* namespaces written */
    struct arena a;
    size_t ok, failed;
    char first_err[320];
};

static void apply_one(void *cls, const char *ns, const struct buf *doc)
{
    struct applied *ap = cls;
    struct buf answer;
    struct err err;
    char path[512];
    long status;

    if (ns)
        snprintf(path, sizeof(path), RW_GROUP "/namespaces/%s/policyreports/"
                 POLICYREPORT_NAME "?" RW_MANAGER, ns);
    else
        snprintf(path, sizeof(path), RW_GROUP "/clusterpolicyreports/"
                 POLICYREPORT_NAME "?" RW_MANAGER);
    buf_init(&answer, RW_ANSWER_MAX);
    status = kubeapi_send(ap->w->k, "PATCH", path,
                          "application/apply-patch+yaml", doc->p, doc->len,
                          &answer, RW_TIMEOUT, &err);
    if (status == 200 || status == 201) {
        ap->ok++;
        if (ns)
            strmap_put(&ap->ns, ns, &ap->ns);
    } else {
        ap->failed++;
        if (!ap->first_err[0])
            snprintf(ap->first_err, sizeof(ap->first_err), "%s: %s",
                     ns ? ns : "cluster", status > 0
                     ? (status == 404 ? "HTTP 404 (are the wgpolicyk8s.io "
                        "CRDs installed?)" : status == 403 ? "HTTP 403 (the "
                        "ClusterRole lacks patch on policyreports)"
                        : "HTTP error") : err.msg);
    }
    buf_release(&answer);
}

/* Deletes claimcheck's PolicyReports of namespaces not written now. */
static size_t delete_stale(struct applied *ap)
{
    struct buf answer;
    struct arena a;
    struct tnode *t;
    struct err err;
    const struct tnode *items;
    size_t i, n = 0;

    buf_init(&answer, RW_ANSWER_MAX);
    arena_init(&a, ARENA_CHUNK_BYTES);
    if (kubeapi_get(ap->w->k, RW_GROUP "/policyreports?" RW_SELECTOR,
                    &answer, RW_TIMEOUT, &err) != 200
        || load_json(&a, answer.p, answer.len, &t, &err) < 0)
        goto out;
    items = tree_get(t, "items");
    for (i = 0; tree_is_seq(items) && i < items->n; i++) {
        const char *ns = tree_str(tree_at(items->kids[i],
                                          "metadata.namespace"));
        const char *nm = tree_str(tree_at(items->kids[i], "metadata.name"));
        char path[512];
        struct buf b;
        if (!ns || !nm || strcmp(nm, POLICYREPORT_NAME)
            || strmap_get(&ap->ns, ns))
            continue;
        snprintf(path, sizeof(path), RW_GROUP "/namespaces/%s/"
                 "policyreports/%s", ns, nm);
        buf_init(&b, RW_ANSWER_MAX);
        if (kubeapi_send(ap->w->k, "DELETE", path, NULL, NULL, 0, &b,
                         RW_TIMEOUT, &err) == 200)
            n++;
        buf_release(&b);
    }
out:
    arena_release(&a);
    buf_release(&answer);
    return n;
}

static void round_once(struct reportwriter *w)
{
    struct config cfg = *w->o.cfg;     /* shares its strings, read only */
    struct clusterread_opts ro;
    struct render_opts rop;
    struct applied ap;
    struct audit au;
    struct err err;
    double t0 = clock_mono_s();
    size_t stale;

    memset(&ro, 0, sizeof(ro));
    ro.page_size = w->o.page_size;
    if (audit_cluster(&au, w->k, &cfg, &ro, &err) < 0) {
        log_msg(LOG_WARN, "policy reports: cannot audit the cluster: %s",
                err.msg);
        audit_release(&au);
        return;
    }
    if (au.note[0])
        log_msg(LOG_INFO, "policy reports: %s", au.note);
    audit_render_opts(&au, w->cr.server, &rop);
    memset(&ap, 0, sizeof(ap));
    ap.w = w;
    arena_init(&ap.a, ARENA_SMALL_BYTES);
    strmap_init(&ap.ns, &ap.a);
    policyreport_each(&au.diags, &rop, apply_one, &ap);
    stale = ap.failed ? 0 : delete_stale(&ap);
    if (ap.failed)
        log_msg(LOG_WARN, "policy reports: %zu written, %zu failed (%s)",
                ap.ok, ap.failed, ap.first_err);
    else
        log_msg(LOG_INFO, "policy reports: %zu written, %zu stale deleted, "
                "%zu findings on %zu objects in %.0f ms", ap.ok, stale,
                au.diags.n, rop.objects, (clock_mono_s() - t0) * 1000);
    arena_release(&ap.a);
    audit_release(&au);
    atomic_fetch_add(&w->rounds, 1);
}

/* ==== the thread ========================================================= */

static void *writer_main(void *arg)
{
    struct reportwriter *w = arg;

    do
        round_once(w);
    while (!stopper_wait(&w->stop, w->o.interval));
    return NULL;
}

struct reportwriter *reportwriter_new(const struct reportwriter_opts *o,
                                      struct err *err)
{
    struct reportwriter *w = xcalloc(1, sizeof(*w));

    w->o = *o;
    stopper_init(&w->stop);
    kubecreds_init(&w->cr);
    if (kubecreds_in_cluster(&w->cr, o->apiserver, o->sa_dir, err) < 0) {
        reportwriter_free(w);
        return NULL;
    }
    w->k = kubeapi_new(&w->cr);
    kubeapi_set_stop(w->k, stopper_stopping, &w->stop);
    return w;
}

int reportwriter_start(struct reportwriter *w, struct err *err)
{
    if (pthread_create(&w->thread, NULL, writer_main, w) != 0)
        return err_set(err, "cannot start the policy report thread");
    w->started = 1;
    log_msg(LOG_INFO, "policy reports: every %llds to %s", w->o.interval,
            w->cr.server);
    return 0;
}

unsigned reportwriter_rounds(struct reportwriter *w)
{
    return atomic_load(&w->rounds);
}

void reportwriter_free(struct reportwriter *w)
{
    if (!w)
        return;
    stopper_stop(&w->stop);
    if (w->started)
        pthread_join(w->thread, NULL);
    kubeapi_free(w->k);
    kubecreds_release(&w->cr);
    stopper_destroy(&w->stop);
    free(w);
}
