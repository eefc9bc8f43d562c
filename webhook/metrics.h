/*
 * metrics.h - Prometheus counters, gauges and the latency histogram of the
 * webhook, rendered in the text exposition format for GET /metrics.
 *
 * All update functions are thread-safe and cheap (atomics; the per-rule
 * table takes a mutex only to add a rule id seen for the first time).
 * Label values come from fixed tables: unknown kinds and operations are
 * counted as "other", so a client cannot grow the label space.
 */
#ifndef CLAIMCHECK_WEBHOOK_METRICS_H
#define CLAIMCHECK_WEBHOOK_METRICS_H

#include <stddef.h>
#include <time.h>

struct buf;
struct metrics;

struct metrics *metrics_new(void);
void metrics_free(struct metrics *m);

/* One answered /validate request. kind/operation/decision are matched
 * against fixed tables; seconds is the handler's latency. */
void metrics_request(struct metrics *m, const char *kind,
                     const char *operation, const char *decision,
                     double seconds);
/* One finding of rule id (static string; at most 512 distinct ids). */
void metrics_finding(struct metrics *m, const char *rule_id);
void metrics_deadline_overrun(struct metrics *m);
/* A request past its work budget (--budget-cel-cost, --budget-alloc-steps). */
void metrics_budget_overrun(struct metrics *m);
/* A body refused (429) because it did not fit in the memory budget. */
void metrics_memory_refused(struct metrics *m);
/* HTTP responses by status class, for every route. */
void metrics_http(struct metrics *m, int status);
void metrics_inventory(struct metrics *m, size_t objects, time_t updated);
void metrics_inventory_error(struct metrics *m);
/* An inventory load refused for reason "empty" or "shrunk" (invstore.h),
 * or "empty-list" (cluster.c: an empty list after a non-empty one). */
void metrics_inventory_refused(struct metrics *m, const char *reason);
void metrics_cert(struct metrics *m, time_t not_after);
void metrics_cert_reload(struct metrics *m, int ok);
/* The target requests are judged at (claimcheck_target_info): version
 * "1.34", where it came from ("apiserver", "flags", "default") and where
 * the feature gates came from ("apiserver", "defaults", "flags"); static
 * or short strings, copied. */
void metrics_target(struct metrics *m, const char *version,
                    const char *version_source, const char *gates_source);
/* Renders everything into out (bounded by its max). Returns 0 or -1. */
int metrics_render(struct metrics *m, struct buf *out);

#endif
