/*
 * admission.h - AdmissionReview admission.k8s.io/v1 in -> engine ->
 * AdmissionReview out. No HTTP here: server.c hands over the body and sends
 * what this renders.
 *
 * Mapping (README, "Webhook"): any SEV_ERROR
 * finding denies (allowed:false, status.code 403, reason Forbidden, a
 * message listing rule, path and text of each error); SEV_WARN/SEV_INFO go
 * to response.warnings (one line each, <= 120 characters where possible,
 * never over 256, no control characters or invalid UTF-8, deduplicated,
 * <= 4 KiB in total). In warn mode errors become warnings. DELETE, CONNECT,
 * unchecked kinds and excluded namespaces are allowed without work.
 *
 * UPDATE is ratcheted as the apiserver does: an object being deleted
 * (metadata.deletionTimestamp) and a change of metadata or status only are
 * allowed without work; otherwise an error also found on oldObject (same
 * rule, same path, against the same inventory) becomes a warning saying
 * it was already there, and only what the change introduces denies.
 * oldObject is read on UPDATE only.
 */
#ifndef CLAIMCHECK_WEBHOOK_ADMISSION_H
#define CLAIMCHECK_WEBHOOK_ADMISSION_H

#include <stddef.h>
#include <stdint.h>

struct arena;
struct buf;
struct diag_list;
struct engine;
struct err;
struct inventory;
struct metrics;
struct tnode;

#define ADMISSION_WARN_LINE 120     /* aim for this many characters */
#define ADMISSION_WARN_MAX 256      /* the apiserver truncates past this */
#define ADMISSION_WARN_TOTAL 4096   /* ... and past this many in total */
#define ADMISSION_MSG_MAX 8192      /* status.message */
/* The work budget's defaults (--budget-cel-cost, --budget-alloc-steps):
 * far above what any real manifest spends (README "Limits" says what
 * was measured, and how) */
#define ADMISSION_BUDGET_CEL_COST 10000000ull
#define ADMISSION_BUDGET_ALLOC_STEPS 2000000ull

struct admission_cfg {
    const struct engine *engine;    /* NULL: no findings (tests) */
    const char *const *excluded_ns; /* namespaces allowed untouched */
    size_t nexcluded;
    int warn_mode;                  /* --mode warn: never deny */
    unsigned deadline_ms;           /* 0 = no deadline */
    unsigned long long budget_cel_cost;     /* --budget-cel-cost, 0 = none */
    unsigned long long budget_alloc_steps;  /* --budget-alloc-steps */
    struct metrics *metrics;        /* may be NULL */
};

/* The fields of a request that the decision needs; arena-owned. */
struct review {
    const char *api_version, *kind; /* echoed back */
    const char *uid;
    const char *operation;          /* CREATE UPDATE DELETE CONNECT */
    const char *group, *rkind;      /* request.kind */
    const char *ns;                 /* request.namespace, "" if none */
    const char *name;               /* object name, or generateName + '*' */
    const struct tnode *object;     /* request.object, may be NULL */
    const struct tnode *old_object; /* request.oldObject, UPDATE only */
    int dry_run;
};

/* Outcome of one request, for logs and metrics; strings arena-owned. */
struct admission_out {
    int status;                 /* HTTP status of the response */
    const char *decision;       /* allow deny warn skip error overrun */
    const char *rules;          /* distinct rule ids, comma-separated */
    const char *error;          /* 4xx reason */
    int metered;                /* the rules ran: what they spent */
    unsigned long long cel_cost, alloc_steps;
    struct review rv;
};

/* Handles one POST /validate body. Always renders a JSON body into resp:
 * an AdmissionReview (status 200) or {"error":...} (status 400).
 * --deadline-ms counts from arrived_ns (clock.h clock_mono_ns() time of
 * the request's arrival, queue time included; 0 = now): a request that
 * waited past it is allowed with a warning without running the rules. */
void admission_handle(const struct admission_cfg *c,
                      const struct inventory *inv, struct arena *a,
                      const char *body, size_t len, uint64_t arrived_ns,
                      struct buf *resp, struct admission_out *out);
/* admission_handle() in two steps, so the rules may run on another thread
 * (the pool of costly reviews, costly.h): admission_begin() parses the body
 * into out->rv and answers what needs no rules (errors, skips, a deadline
 * already passed); it returns 1 when the rules must run, by
 * admission_judge() with the same arena, resp and out. */
int admission_begin(const struct admission_cfg *c, struct arena *a,
                    const char *body, size_t len, uint64_t arrived_ns,
                    struct buf *resp, struct admission_out *out);
void admission_judge(const struct admission_cfg *c,
                     const struct inventory *inv, struct arena *a,
                     uint64_t arrived_ns, struct buf *resp,
                     struct admission_out *out);

/* The pieces, exposed for unit tests. */
int admission_parse(struct arena *a, const char *body, size_t len,
                    struct review *rv, struct err *err);
/* 1 if the request needs validation (CREATE/UPDATE of a checked kind in a
 * namespace that is not excluded). */
int admission_wanted(const struct admission_cfg *c, const struct review *rv);
/* Renders the AdmissionReview for rv with findings d (may be NULL);
 * overrun_ms > 0 means the deadline passed, overrun_ms after the request
 * arrived: allowed with one warning. */
void admission_render(const struct admission_cfg *c, struct arena *a,
                      const struct review *rv, const struct diag_list *d,
                      double overrun_ms, struct buf *resp,
                      struct admission_out *out);
/* Makes s safe as a warning: control characters -> ' ', invalid UTF-8 ->
 * '?', at most max_runes (longer text ends in "..."). Arena-owned. */
char *admission_clean_line(struct arena *a, const char *s, size_t max_runes);

#endif
