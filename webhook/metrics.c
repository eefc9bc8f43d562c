/*
 * metrics.c - the webhook's Prometheus metrics: fixed label tables and
 * atomic counters, one small mutex-protected table for findings by rule.
 * Knows nothing about HTTP; server.c calls metrics_render() for /metrics.
 */
#include "metrics.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../validate/buf.h"
#include "../validate/kinds.h"
#include "../validate/xalloc.h"

/* requests by kind: a row of validate/kinds.h's table (the admitted
 * kinds), or "other" in the last slot */
#define NKINDS (KIND_MAX + 1)
#define OTHER_KIND KIND_MAX

static const char *const ops[] = {
    "CREATE", "UPDATE", "DELETE", "CONNECT", "other",
};
#define NOPS (sizeof(ops) / sizeof(ops[0]))

static const char *const decisions[] = {
    "allow", "deny", "warn", "skip", "error", "overrun",
};
#define NDECISIONS (sizeof(decisions) / sizeof(decisions[0]))

/* seconds; sub-millisecond buckets first (validation is ~10-100 us) */
static const double bounds[] = {
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
    0.1, 0.25, 0.5, 1, 2.5, 5,
};
#define NBOUNDS (sizeof(bounds) / sizeof(bounds[0]))

#define MAX_RULES 512

struct rule_count {
    const char *id;
    atomic_ullong n;
};

/* inventory refusals by reason (invstore.h) */
static const char *const refusal_reasons[] = {"empty", "shrunk",
                                               "empty-list"};
#define NREFUSALS (sizeof(refusal_reasons) / sizeof(refusal_reasons[0]))

struct metrics {
    atomic_ullong requests[NKINDS][NOPS][NDECISIONS];
    atomic_ullong hist[NBOUNDS + 1];    /* last = +Inf only */
    atomic_ullong hist_sum_ns;
    atomic_ullong hist_count;
    atomic_ullong overruns;
    atomic_ullong budget_overruns;
    atomic_ullong memory_refused;
    atomic_ullong http[6];              /* index = status / 100 */
    atomic_ullong inv_objects;
    atomic_llong inv_updated;
    atomic_ullong inv_errors;
    atomic_ullong inv_refused[NREFUSALS];
    atomic_llong cert_not_after;
    atomic_ullong cert_reloads, cert_reload_failures;
    pthread_mutex_t target_mu;          /* guards target */
    char target[192];                   /* claimcheck_target_info's labels */
    pthread_mutex_t rules_mu;           /* guards adding to rules[] */
    struct rule_count rules[MAX_RULES];
    atomic_size_t nrules;
};

static size_t index_of(const char *const *table, size_t n, const char *s)
{
    size_t i;

    for (i = 0; s && i + 1 < n; i++)
        if (strcmp(table[i], s) == 0)
            return i;
    return n - 1;
}

static size_t kind_index(const char *kind)
{
    const struct kind_info *k = kind ? kind_by_name(kind, strlen(kind))
                                     : NULL;

    if (!k || !(k->flags & KIND_ADMITTED))
        return OTHER_KIND;
    return (size_t)(k - kind_table);
}

static const char *kind_label(size_t k)
{
    return k == OTHER_KIND ? "other" : kind_table[k].name;
}

struct metrics *metrics_new(void)
{
    struct metrics *m = xcalloc(1, sizeof(*m));

    pthread_mutex_init(&m->rules_mu, NULL);
    pthread_mutex_init(&m->target_mu, NULL);
    return m;
}

void metrics_free(struct metrics *m)
{
    if (!m)
        return;
    pthread_mutex_destroy(&m->rules_mu);
    pthread_mutex_destroy(&m->target_mu);
    free(m);
}

void metrics_request(struct metrics *m, const char *kind,
                     const char *operation, const char *decision,
                     double seconds)
{
    size_t k = kind_index(kind);
    size_t o = index_of(ops, NOPS, operation);
    size_t d = index_of(decisions, NDECISIONS, decision);
    size_t b;

    atomic_fetch_add(&m->requests[k][o][d], 1);
    for (b = 0; b < NBOUNDS && seconds > bounds[b]; b++)
        ;
    atomic_fetch_add(&m->hist[b], 1);
    atomic_fetch_add(&m->hist_sum_ns,
                     (unsigned long long)(seconds * 1e9 + 0.5));
    atomic_fetch_add(&m->hist_count, 1);
}

void metrics_finding(struct metrics *m, const char *rule_id)
{
    size_t i, n = atomic_load(&m->nrules);

    for (i = 0; i < n; i++) {
        if (strcmp(m->rules[i].id, rule_id) == 0) {
            atomic_fetch_add(&m->rules[i].n, 1);
            return;
        }
    }
    pthread_mutex_lock(&m->rules_mu);
    n = atomic_load(&m->nrules);
    for (i = 0; i < n; i++)
        if (strcmp(m->rules[i].id, rule_id) == 0)
            break;
    if (i == n && n < MAX_RULES) {
        m->rules[n].id = rule_id;
        atomic_store(&m->rules[n].n, 0);
        /* publish the slot only after it is filled */
        atomic_store(&m->nrules, n + 1);
    }
    if (i < MAX_RULES)
        atomic_fetch_add(&m->rules[i].n, 1);
    pthread_mutex_unlock(&m->rules_mu);
}

void metrics_deadline_overrun(struct metrics *m)
{
    atomic_fetch_add(&m->overruns, 1);
}

void metrics_budget_overrun(struct metrics *m)
{
    atomic_fetch_add(&m->budget_overruns, 1);
}

void metrics_memory_refused(struct metrics *m)
{
    atomic_fetch_add(&m->memory_refused, 1);
}

void metrics_http(struct metrics *m, int status)
{
    int c = status / 100;

    if (c < 0 || c > 5)
        c = 0;
    atomic_fetch_add(&m->http[c], 1);
}

void metrics_inventory(struct metrics *m, size_t objects, time_t updated)
{
    atomic_store(&m->inv_objects, (unsigned long long)objects);
    atomic_store(&m->inv_updated, (long long)updated);
}

void metrics_inventory_error(struct metrics *m)
{
    atomic_fetch_add(&m->inv_errors, 1);
}

void metrics_inventory_refused(struct metrics *m, const char *reason)
{
    size_t i;

    for (i = 0; i < NREFUSALS; i++)
        if (!strcmp(reason, refusal_reasons[i]))
            atomic_fetch_add(&m->inv_refused[i], 1);
}

void metrics_cert(struct metrics *m, time_t not_after)
{
    atomic_store(&m->cert_not_after, (long long)not_after);
}

void metrics_cert_reload(struct metrics *m, int ok)
{
    atomic_fetch_add(ok ? &m->cert_reloads : &m->cert_reload_failures, 1);
}

static void help(struct buf *b, const char *name, const char *type,
                 const char *text)
{
    buf_addf(b, "# HELP %s %s\n# TYPE %s %s\n", name, text, name, type);
}

int metrics_render(struct metrics *m, struct buf *b)
{
    size_t k, o, d, i, n;
    unsigned long long cum = 0;
    int rc;
    long long upd;
    time_t now = time(NULL);

    help(b, "claimcheck_admission_requests_total", "counter",
         "AdmissionReview requests by kind, operation and decision");
    for (k = 0; k < NKINDS; k++) {
        if (k != OTHER_KIND
            && (k >= kind_count || !(kind_table[k].flags & KIND_ADMITTED)))
            continue;
        for (o = 0; o < NOPS; o++)
            for (d = 0; d < NDECISIONS; d++) {
                unsigned long long v = atomic_load(&m->requests[k][o][d]);
                if (!v)
                    continue;
                buf_addf(b, "claimcheck_admission_requests_total{kind=\"%s\","
                         "operation=\"%s\",decision=\"%s\"} %llu\n",
                         kind_label(k), ops[o], decisions[d], v);
            }
    }
    help(b, "claimcheck_admission_duration_seconds", "histogram",
         "time from the request headers to the queued response");
    for (i = 0; i < NBOUNDS; i++) {
        cum += atomic_load(&m->hist[i]);
        buf_addf(b, "claimcheck_admission_duration_seconds_bucket"
                 "{le=\"%g\"} %llu\n", bounds[i], cum);
    }
    cum += atomic_load(&m->hist[NBOUNDS]);
    buf_addf(b, "claimcheck_admission_duration_seconds_bucket{le=\"+Inf\"} "
             "%llu\n", cum);
    buf_addf(b, "claimcheck_admission_duration_seconds_sum %.9f\n",
             (double)atomic_load(&m->hist_sum_ns) / 1e9);
    buf_addf(b, "claimcheck_admission_duration_seconds_count %llu\n",
             atomic_load(&m->hist_count));
    help(b, "claimcheck_findings_total", "counter", "findings by rule");
    n = atomic_load(&m->nrules);
    for (i = 0; i < n; i++)
        buf_addf(b, "claimcheck_findings_total{rule=\"%s\"} %llu\n",
                 m->rules[i].id, atomic_load(&m->rules[i].n));
    help(b, "claimcheck_deadline_overruns_total", "counter",
         "requests allowed unchecked because validation exceeded "
         "--deadline-ms");
    buf_addf(b, "claimcheck_deadline_overruns_total %llu\n",
             atomic_load(&m->overruns));
    help(b, "claimcheck_budget_overruns_total", "counter",
         "requests allowed not fully checked because their CEL cost or "
         "allocator steps exceeded --budget-cel-cost or "
         "--budget-alloc-steps");
    buf_addf(b, "claimcheck_budget_overruns_total %llu\n",
             atomic_load(&m->budget_overruns));
    help(b, "claimcheck_memory_refused_total", "counter",
         "requests refused (429) because their body did not fit in "
         "--memory-budget");
    buf_addf(b, "claimcheck_memory_refused_total %llu\n",
             atomic_load(&m->memory_refused));
    help(b, "claimcheck_http_responses_total", "counter",
         "HTTP responses by status class");
    for (i = 1; i < 6; i++)
        buf_addf(b, "claimcheck_http_responses_total{code=\"%zuxx\"} %llu\n",
                 i, atomic_load(&m->http[i]));
    help(b, "claimcheck_inventory_objects", "gauge",
         "objects in the current inventory snapshot");
    buf_addf(b, "claimcheck_inventory_objects %llu\n",
             atomic_load(&m->inv_objects));
    upd = atomic_load(&m->inv_updated);
    help(b, "claimcheck_inventory_updated_timestamp_seconds", "gauge",
         "when the inventory snapshot was last built or, in-cluster, "
         "confirmed current by healthy watches (0 = never)");
    buf_addf(b, "claimcheck_inventory_updated_timestamp_seconds %lld\n", upd);
    help(b, "claimcheck_inventory_age_seconds", "gauge",
         "seconds since the inventory snapshot was last built or "
         "confirmed current (-1 = never)");
    buf_addf(b, "claimcheck_inventory_age_seconds %lld\n",
             upd ? (long long)now - upd : -1LL);
    help(b, "claimcheck_inventory_errors_total", "counter",
         "inventory reload or sync failures");
    buf_addf(b, "claimcheck_inventory_errors_total %llu\n",
             atomic_load(&m->inv_errors));
    help(b, "claimcheck_inventory_refused_total", "counter",
         "inventory loads refused because they would lose data");
    for (i = 0; i < NREFUSALS; i++)
        buf_addf(b, "claimcheck_inventory_refused_total{reason=\"%s\"} "
                 "%llu\n", refusal_reasons[i],
                 atomic_load(&m->inv_refused[i]));
    help(b, "claimcheck_tls_cert_not_after_timestamp_seconds", "gauge",
         "expiry of the serving certificate");
    buf_addf(b, "claimcheck_tls_cert_not_after_timestamp_seconds %lld\n",
             atomic_load(&m->cert_not_after));
    help(b, "claimcheck_tls_cert_reloads_total", "counter",
         "serving certificate reloads by result");
    buf_addf(b, "claimcheck_tls_cert_reloads_total{result=\"ok\"} %llu\n",
             atomic_load(&m->cert_reloads));
    rc = buf_addf(b, "claimcheck_tls_cert_reloads_total{result=\"error\"} "
                  "%llu\n", atomic_load(&m->cert_reload_failures));
    pthread_mutex_lock(&m->target_mu);
    if (m->target[0]) {
        help(b, "claimcheck_target_info", "gauge",
             "the Kubernetes version requests are judged at, where it came "
             "from (apiserver, flags, default) and where the feature gates "
             "came from (apiserver, defaults, flags)");
        rc = buf_addf(b, "claimcheck_target_info{%s} 1\n", m->target);
    }
    pthread_mutex_unlock(&m->target_mu);
    return rc;
}

void metrics_target(struct metrics *m, const char *version,
                    const char *version_source, const char *gates_source)
{
    pthread_mutex_lock(&m->target_mu);
    snprintf(m->target, sizeof(m->target), "version=\"%s\","
             "version_source=\"%s\",gates_source=\"%s\"", version,
             version_source, gates_source);
    pthread_mutex_unlock(&m->target_mu);
}
