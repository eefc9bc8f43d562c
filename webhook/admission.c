/*
 * admission.c - AdmissionReview v1 request -> engine -> response. Owns the
 * wire format (field checks, echo of apiVersion/kind/uid, status and
 * warnings rendering and their limits) and the allow/deny decision. The
 * body is parsed through load_json (validate/load_json.c); the response is
 * rendered with buf_*. It does not own HTTP (server.c) or rules (core).
 */
#include "admission.h"

#include <string.h>

#include "../rules/rules.h"
#include "../validate/arena.h"
#include "../validate/budget.h"
#include "../validate/buf.h"
#include "../validate/clock.h"
#include "../validate/diag.h"
#include "../validate/engine.h"
#include "../validate/err.h"
#include "../validate/kinds.h"
#include "../validate/load_json.h"
#include "../validate/tree.h"
#include "metrics.h"

#define REVIEW_API "admission.k8s.io/v1"
#define REVIEW_KIND "AdmissionReview"
#define RULES_LIST_MAX 512


/* ---- request --------------------------------------------------------- */

/* request.* members nothing here reads: checked as JSON, no tree made
 * (oldObject alone is half of every UPDATE) */
static const char *const unread_keys[] = {
    "userInfo", "oldObject", "options", "resource", "requestKind",
    "requestResource", "requestSubResource", "subResource", NULL
};
static const struct json_skip unread = { 2, unread_keys };
/* ... and on UPDATE, where oldObject is what the change is judged against */
static const char *const unread_keys_update[] = {
    "userInfo", "options", "resource", "requestKind", "requestResource",
    "requestSubResource", "subResource", NULL
};
static const struct json_skip unread_update = { 2, unread_keys_update };

static int want_str(const struct tnode *parent, const char *key,
                    const char *where, int required, const char **out,
                    struct err *err)
{
    const struct tnode *n = tree_get(parent, key);

    *out = NULL;
    if (!n || n->kind == T_NULL) {
        if (required)
            return err_set(err, "'%s%s' is missing", where, key);
        return 0;
    }
    if (n->kind != T_STR)
        return err_set(err, "'%s%s' must be a string, not %s", where, key,
                       tree_kind_name(n));
    *out = n->str;
    return 0;
}

int admission_parse(struct arena *a, const char *body, size_t len,
                    struct review *rv, struct err *err)
{
    struct tnode *root;
    const struct tnode *rq, *rk, *obj, *dry, *md;
    const char *s;

    memset(rv, 0, sizeof(*rv));
    if (load_json_skipping(a, body, len, &unread, &root, err) < 0)
        return -1;
    s = tree_str(tree_at(root, "request.operation"));
    if (s && !strcmp(s, "UPDATE")
        && load_json_skipping(a, body, len, &unread_update, &root, err) < 0)
        return -1;
    if (!tree_is_map(root))
        return err_set(err, "body must be a JSON object (an AdmissionReview)"
                       ", not %s", tree_kind_name(root));
    if (want_str(root, "apiVersion", "", 1, &rv->api_version, err) < 0
        || want_str(root, "kind", "", 1, &rv->kind, err) < 0)
        return -1;
    if (strcmp(rv->kind, REVIEW_KIND) != 0)
        return err_set(err, "kind '%s' is not AdmissionReview", rv->kind);
    if (strcmp(rv->api_version, REVIEW_API) != 0)
        return err_set(err, "apiVersion '%s' is not supported (want "
                       REVIEW_API ")", rv->api_version);
    rq = tree_get(root, "request");
    if (!tree_is_map(rq))
        return err_set(err, "'request' must be an object");
    if (want_str(rq, "uid", "request.", 1, &rv->uid, err) < 0)
        return -1;
    if (!*rv->uid)
        return err_set(err, "'request.uid' is empty");
    if (want_str(rq, "operation", "request.", 1, &rv->operation, err) < 0)
        return -1;
    rk = tree_get(rq, "kind");
    if (!tree_is_map(rk))
        return err_set(err, "'request.kind' must be an object");
    if (want_str(rk, "kind", "request.kind.", 1, &rv->rkind, err) < 0
        || want_str(rk, "group", "request.kind.", 0, &rv->group, err) < 0)
        return -1;
    if (!rv->group)
        rv->group = "";
    if (want_str(rq, "namespace", "request.", 0, &rv->ns, err) < 0)
        return -1;
    if (!rv->ns)
        rv->ns = "";
    dry = tree_get(rq, "dryRun");
    if (dry && dry->kind != T_NULL && dry->kind != T_BOOL)
        return err_set(err, "'request.dryRun' must be a boolean");
    rv->dry_run = tree_true(dry);
    obj = tree_get(rq, "object");
    if (obj && obj->kind != T_NULL && !tree_is_map(obj))
        return err_set(err, "'request.object' must be an object");
    rv->object = tree_is_map(obj) ? obj : NULL;
    obj = tree_get(rq, "oldObject");        /* read on UPDATE only */
    if (obj && obj->kind != T_NULL && !tree_is_map(obj))
        return err_set(err, "'request.oldObject' must be an object");
    rv->old_object = tree_is_map(obj) ? obj : NULL;
    if (want_str(rq, "name", "request.", 0, &s, err) < 0)
        return -1;
    rv->name = s;
    md = tree_get(rv->object, "metadata");
    if (md && !tree_is_map(md) && md->kind != T_NULL)
        return err_set(err, "'request.object.metadata' must be an object");
    if (!rv->name || !*rv->name)
        rv->name = tree_str(tree_get(md, "name"));
    if (!rv->name || !*rv->name) {
        s = tree_str(tree_get(md, "generateName"));
        rv->name = s ? arena_printf(a, "%s*", s) : "";
    }
    return 0;
}

int admission_wanted(const struct admission_cfg *c, const struct review *rv)
{
    size_t i;
    int kind_ok = 0;

    if (strcmp(rv->operation, "CREATE") != 0
        && strcmp(rv->operation, "UPDATE") != 0)
        return 0;
    /* CREATE and UPDATE of the admitted kinds (validate/kinds.h) are
     * validated; everything else is allowed */
    for (i = 0; i < kind_count; i++)
        if ((kind_table[i].flags & KIND_ADMITTED)
            && strcmp(kind_table[i].name, rv->rkind) == 0
            && strcmp(kind_table[i].group, rv->group) == 0)
            kind_ok = 1;
    if (!kind_ok)
        return 0;
    for (i = 0; i < c->nexcluded; i++)
        if (strcmp(c->excluded_ns[i], rv->ns) == 0)
            return 0;
    return 1;
}

/* ---- warnings -------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s (0 if invalid). */
static size_t utf8_seq(const unsigned char *s)
{
    size_t n, i;

    if (*s < 0x80)
        return 1;
    n = *s >= 0xf0 ? 4 : *s >= 0xe0 ? 3 : *s >= 0xc0 ? 2 : 0;
    if (!n)
        return 0;
    for (i = 1; i < n; i++)
        if (!s[i])
            return 0;
    return utf8_valid((const char *)s, n) ? n : 0;
}

char *admission_clean_line(struct arena *a, const char *s, size_t max_runes)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t total = 0, runes = 0, cap = strlen(s) + 4;
    char *out = arena_alloc(a, cap), *o = out;
    size_t i;

    /* count runes first so truncation can leave room for "..." */
    for (i = 0; p[i];) {
        size_t n = utf8_seq(p + i);
        i += n ? n : 1;
        total++;
    }
    for (i = 0; p[i] && runes < max_runes; runes++) {
        size_t n = utf8_seq(p + i);
        if (total > max_runes && runes + 3 >= max_runes)
            break;
        if (n == 0) {
            *o++ = '?';
            i++;
        } else if (n == 1 && (p[i] < 0x20 || p[i] == 0x7f)) {
            *o++ = ' ';
            i++;
        } else {
            memcpy(o, p + i, n);
            o += n;
            i += n;
        }
    }
    if (total > max_runes) {
        memcpy(o, "...", 3);
        o += 3;
    }
    *o = '\0';
    return out;
}

static size_t runes_of(const char *s)
{
    size_t n = 0;

    for (; *s; s++)
        if (((unsigned char)*s & 0xc0) != 0x80)
            n++;
    return n;
}

struct warnings {
    const char **v;
    size_t n, cap;
    size_t bytes;               /* JSON-independent text bytes so far */
    size_t dropped;
};

static void warnings_add(struct arena *a, struct warnings *w,
                         const char *line)
{
    size_t i, len = strlen(line);

    for (i = 0; i < w->n; i++)
        if (strcmp(w->v[i], line) == 0)
            return;
    /* keep room for the "N more" line */
    if (w->bytes + len > ADMISSION_WARN_TOTAL - 64) {
        w->dropped++;
        return;
    }
    if (w->n == w->cap) {
        size_t want = w->cap ? w->cap * 2 : 8;
        w->v = arena_grow(a, w->v, w->n, want, sizeof(*w->v));
        w->cap = want;
    }
    w->v[w->n++] = line;
    w->bytes += len;
}

static const char *rule_id(const struct diag *d)
{
    return d->rule && d->rule->id ? d->rule->id : "claimcheck";
}

static const char *warning_line(struct arena *a, const struct diag *d,
                                int was_error)
{
    const char *tag = was_error ? " (error, not enforced)" : "";
    const char *msg = d->msg ? d->msg : "";
    char *s;

    if (d->path && *d->path) {
        s = arena_printf(a, "%s%s: %s (at %s)", rule_id(d), tag, msg,
                         d->path);
        s = admission_clean_line(a, s, ADMISSION_WARN_MAX);
        if (runes_of(s) <= ADMISSION_WARN_LINE)
            return s;
    }
    s = arena_printf(a, "%s%s: %s", rule_id(d), tag, msg);
    return admission_clean_line(a, s, ADMISSION_WARN_MAX);
}

/* ---- response -------------------------------------------------------- */

static void render_head(struct buf *b, const struct review *rv)
{
    buf_adds(b, "{\"apiVersion\":");
    buf_add_json_str(b, rv->api_version);
    buf_adds(b, ",\"kind\":");
    buf_add_json_str(b, rv->kind);
    buf_adds(b, ",\"response\":{\"uid\":");
    buf_add_json_str(b, rv->uid);
}

static const char *rules_list(struct arena *a, const struct diag_list *d)
{
    struct buf b;
    size_t i, j;
    const char *out;

    if (!d || !d->n)
        return NULL;
    buf_init(&b, RULES_LIST_MAX);
    for (i = 0; i < d->n; i++) {
        const char *id = rule_id(&d->v[i]);
        int seen = 0;
        for (j = 0; j < i && !seen; j++)
            seen = strcmp(rule_id(&d->v[j]), id) == 0;
        if (!seen && (b.len ? buf_addc(&b, ',') : 0) == 0)
            buf_adds(&b, id);
    }
    out = arena_strndup(a, b.p, b.len);
    buf_release(&b);
    return out;
}

/* The answer; overrun: the one warning of an answer given past the
 * request's budget (allowed, its findings left out), else NULL. */
static void render(const struct admission_cfg *c, struct arena *a,
                   const struct review *rv, const struct diag_list *d,
                   const char *overrun, struct buf *resp,
                   struct admission_out *out)
{
    struct warnings w = { NULL, 0, 0, 0, 0 };
    struct buf msg;
    size_t i, nerr = 0;

    buf_init(&msg, ADMISSION_MSG_MAX);
    if (overrun) {
        warnings_add(a, &w, overrun);
        d = NULL;
    }
    for (i = 0; d && i < d->n; i++) {
        const struct diag *g = &d->v[i];
        enum config_action act = c->engine && g->rule
            ? engine_rule_action(c->engine, g->rule) : ACTION_DENY;
        if (g->sev == SEV_OFF || g->suppressed || act == ACTION_OFF)
            continue;
        if (c->metrics)
            metrics_finding(c->metrics, rule_id(g));
        if (g->sev == SEV_ERROR && !c->warn_mode && act == ACTION_DENY) {
            if (nerr++ == 0)
                buf_addf(&msg, "claimcheck denied %s %s%s%s: ", rv->rkind,
                         rv->ns, *rv->ns ? "/" : "", rv->name);
            else
                buf_adds(&msg, "; ");
            buf_addf(&msg, "[%s] %s%s%s", rule_id(g),
                     g->path && *g->path ? g->path : "",
                     g->path && *g->path ? ": " : "",
                     g->msg ? g->msg : "");
            continue;
        }
        warnings_add(a, &w, warning_line(a, g, g->sev == SEV_ERROR));
    }
    if (w.dropped)
        warnings_add(a, &w, arena_printf(a, "claimcheck: %zu more findings "
                     "not shown", w.dropped));
    render_head(resp, rv);
    if (nerr) {
        const char *m = admission_clean_line(a, msg.len < msg.max ? msg.p
                                             : "(message too long)",
                                             ADMISSION_MSG_MAX);
        buf_adds(resp, ",\"allowed\":false,\"status\":{\"code\":403,"
                 "\"reason\":\"Forbidden\",\"message\":");
        buf_add_json_str(resp, m);
        buf_adds(resp, "}");
    } else {
        buf_adds(resp, ",\"allowed\":true");
    }
    if (w.n) {
        buf_adds(resp, ",\"warnings\":[");
        for (i = 0; i < w.n; i++) {
            if (i)
                buf_addc(resp, ',');
            buf_add_json_str(resp, w.v[i]);
        }
        buf_adds(resp, "]");
    }
    buf_adds(resp, "}}");
    buf_release(&msg);
    out->status = 200;
    out->decision = overrun ? "overrun" : nerr ? "deny"
                    : w.n ? "warn" : "allow";
    out->rules = rules_list(a, d);
}

/* The deadline's warning. */
static const char *deadline_warning(const struct admission_cfg *c,
                                    struct arena *a, double overrun_ms)
{
    return arena_printf(a, "claimcheck: validation took %.0f ms since the "
                        "request arrived, over its %u ms budget; allowed "
                        "unchecked", overrun_ms, c->deadline_ms);
}

void admission_render(const struct admission_cfg *c, struct arena *a,
                      const struct review *rv, const struct diag_list *d,
                      double overrun_ms, struct buf *resp,
                      struct admission_out *out)
{
    render(c, a, rv, d, overrun_ms > 0 ? deadline_warning(c, a, overrun_ms)
                                       : NULL, resp, out);
}

static void render_error(struct buf *resp, struct admission_out *out,
                         struct arena *a, const char *msg)
{
    buf_reset(resp);
    buf_adds(resp, "{\"error\":{\"code\":400,\"message\":");
    buf_add_json_str(resp, admission_clean_line(a, msg, 1024));
    buf_adds(resp, "}}");
    out->status = 400;
    out->decision = "error";
    out->error = arena_strdup(a, msg);
}

/* Does an UPDATE keep the object's CEL selectors as stored? Kubernetes
 * then validates them in its StoredExpressions environment: a claim's and
 * a template's spec are immutable; a DeviceClass's when its selectors are
 * exactly the old ones (validateDeviceClassSpec). */
static int selectors_stored(const struct review *rv)
{
    if (strcmp(rv->operation, "UPDATE") != 0 ||
        strcmp(rv->group, "resource.k8s.io") != 0)
        return 0;
    if (strcmp(rv->rkind, "ResourceClaim") == 0 ||
        strcmp(rv->rkind, "ResourceClaimTemplate") == 0)
        return 1;
    if (strcmp(rv->rkind, "DeviceClass") != 0 || !rv->old_object)
        return 0;
    return tree_same(tree_at(rv->object, "spec.selectors"),
                     tree_at(rv->old_object, "spec.selectors"), NULL);
}

/* ---- UPDATE, as the apiserver ratchets ------------------------------- */

/* An UPDATE claimcheck's own rules do not judge: 2 when the object is
 * being deleted (removing a finalizer is never denied), 1 when only its
 * metadata or status changed (controllers' and kubelets' updates of
 * objects that exist: only the apiserver's own rules, RULE_APISERVER,
 * still judge it, as the apiserver validates every update in full). */
static int update_unjudged(const struct review *rv)
{
    static const char *const meta_status[] = {"metadata", "status", NULL};
    const struct tnode *del;

    if (strcmp(rv->operation, "UPDATE") != 0)
        return 0;
    del = tree_at(rv->object, "metadata.deletionTimestamp");
    if (del && del->kind != T_NULL)
        return 2;
    return rv->old_object
           && tree_same(rv->object, rv->old_object, meta_status);
}

/* Errors of now that before has too (same rule, same path) become
 * warnings saying so: only what the update introduces denies (not the
 * rules the apiserver itself re-validates on every UPDATE). */
static void ratchet(struct arena *a, struct diag_list *now,
                    const struct diag_list *before)
{
    size_t i, j;

    for (i = 0; i < now->n; i++) {
        struct diag *d = &now->v[i];
        if (d->sev != SEV_ERROR || d->suppressed
            || (d->rule->flags & RULE_APISERVER))
            continue;   /* the apiserver re-validates those in full */
        for (j = 0; j < before->n; j++) {
            const struct diag *o = &before->v[j];
            if (o->rule == d->rule && !strcmp(o->path ? o->path : "",
                                              d->path ? d->path : "")) {
                d->sev = SEV_WARN;
                /* in front: warnings are cut at ADMISSION_WARN_MAX */
                d->msg = arena_printf(a, "already there before this "
                                      "update, not enforced: %s",
                                      d->msg ? d->msg : "");
                break;
            }
        }
    }
}

/* An UPDATE nothing here judges still gets the apiserver's own verdict:
 * it validates every update in full, so only its rules' errors stay. */
static void keep_apiserver_errors(struct diag_list *l)
{
    size_t i, k = 0;

    for (i = 0; i < l->n; i++)
        if (l->v[i].sev == SEV_ERROR && !l->v[i].suppressed
            && (l->v[i].rule->flags & RULE_APISERVER))
            l->v[k++] = l->v[i];
    l->n = k;
}

static int has_error(const struct diag_list *l)
{
    size_t i;

    for (i = 0; i < l->n; i++)
        if (l->v[i].sev == SEV_ERROR && !l->v[i].suppressed)
            return 1;
    return 0;
}

/* The overrun answer: allowed with a warning, counted. over: which
 * limit was passed (budget.h). */
static void render_overrun(const struct admission_cfg *c, struct arena *a,
                           const struct diag_list *d, uint64_t start,
                           enum budget_over over, struct buf *resp,
                           struct admission_out *out)
{
    double took = (double)(clock_mono_ns() - start) / 1e6;    /* ms */
    const char *warning;

    if (over == BUDGET_CEL || over == BUDGET_ALLOC) {
        /* claimcheck's own decision, as failurePolicy: Ignore would be */
        warning = arena_printf(a, "claimcheck: over the request's budget "
                               "of %llu %s (%s); allowed, not fully "
                               "checked", over == BUDGET_CEL
                               ? c->budget_cel_cost : c->budget_alloc_steps,
                               over == BUDGET_CEL ? "CEL cost units"
                               : "allocator steps", over == BUDGET_CEL
                               ? "--budget-cel-cost" : "--budget-alloc-steps");
        if (c->metrics)
            metrics_budget_overrun(c->metrics);
    } else {
        warning = deadline_warning(c, a, took > 0 ? took : 1e-3);
        if (c->metrics)
            metrics_deadline_overrun(c->metrics);
    }
    render(c, a, &out->rv, d, warning, resp, out);
}

static uint64_t deadline_of(const struct admission_cfg *c, uint64_t start)
{
    return c->deadline_ms ? start + (uint64_t)c->deadline_ms * 1000000u : 0;
}

int admission_begin(const struct admission_cfg *c, struct arena *a,
                    const char *body, size_t len, uint64_t arrived_ns,
                    struct buf *resp, struct admission_out *out)
{
    struct err err = { "" };
    uint64_t start = arrived_ns ? arrived_ns : clock_mono_ns();

    memset(out, 0, sizeof(*out));
    if (admission_parse(a, body, len, &out->rv, &err) < 0) {
        render_error(resp, out, a, err.msg);
        return 0;
    }
    if (!admission_wanted(c, &out->rv)) {
        admission_render(c, a, &out->rv, NULL, 0, resp, out);
        out->decision = "skip";
        return 0;
    }
    if (!out->rv.object) {
        render_error(resp, out, a, "'request.object' is missing");
        return 0;
    }
    if (update_unjudged(&out->rv) == 2) {   /* being deleted: never denied */
        admission_render(c, a, &out->rv, NULL, 0, resp, out);
        return 0;
    }
    if (clock_past(deadline_of(c, start))) {
        render_overrun(c, a, NULL, start, BUDGET_DEADLINE, resp, out);
        return 0;
    }
    return 1;
}

void admission_handle(const struct admission_cfg *c,
                      const struct inventory *inv, struct arena *a,
                      const char *body, size_t len, uint64_t arrived_ns,
                      struct buf *resp, struct admission_out *out)
{
    if (admission_begin(c, a, body, len, arrived_ns, resp, out))
        admission_judge(c, inv, a, arrived_ns, resp, out);
}

void admission_judge(const struct admission_cfg *c,
                     const struct inventory *inv, struct arena *a,
                     uint64_t arrived_ns, struct buf *resp,
                     struct admission_out *out)
{
    struct err err = { "" };
    struct diag_list diags;
    struct work_budget budget;
    uint64_t start = arrived_ns ? arrived_ns : clock_mono_ns();
    uint64_t deadline = deadline_of(c, start);
    int cut = 0, unjudged = update_unjudged(&out->rv);

    diag_list_init(&diags, a);
    /* The budget counts from the request's arrival: one that waited in
     * the queue past it is answered at once, without running the rules.
     * It reaches into the engine: it is checked before every rule
     * and inside the allocator's search, which stop once it has passed
     * (the run's findings are dropped). Work that cannot stop halfway
     * (one CEL evaluation, one selector over the inventory, whose results
     * are cached for the next requests) finishes first, so the answer may
     * come somewhat after the budget; past it the answer is always "allow +
     * warning" (what failurePolicy: Ignore would give on a timeout, without
     * the wait) and is counted. */
    if (clock_past(deadline)) {     /* (again: it may have waited since) */
        render_overrun(c, a, NULL, start, BUDGET_DEADLINE, resp, out);
        return;
    }
    /* The work budget (--budget-cel-cost, --budget-alloc-steps) covers
     * both judgements of an UPDATE together. Past it the answer is the
     * same "allow + warning", at once. */
    memset(&budget, 0, sizeof(budget));
    budget.deadline_ns = deadline;
    budget.cel_cost_max = c->budget_cel_cost;
    budget.alloc_steps_max = c->budget_alloc_steps;
    if (c->engine) {
        int stored = selectors_stored(&out->rv);
        out->metered = 1;
        cut = engine_check_update(c->engine, inv, out->rv.object, out->rv.ns,
                                  stored, &budget, &diags, &err);
        if (cut == 0 && !unjudged && out->rv.old_object
            && has_error(&diags)) {
            struct diag_list before;
            diag_list_init(&before, a);
            cut = engine_check_update(c->engine, inv, out->rv.old_object,
                                      out->rv.ns, stored, &budget, &before,
                                      &err);
            if (cut == 0)
                ratchet(a, &diags, &before);
        }
        out->cel_cost = budget.cel_cost;
        out->alloc_steps = budget.alloc_steps;
        if (cut < 0) {
            render_error(resp, out, a, err.msg);
            return;
        }
    }
    if (unjudged)
        keep_apiserver_errors(&diags);
    if (cut || clock_past(deadline)) {
        enum budget_over over = work_budget_over(&budget);
        render_overrun(c, a, &diags, start, over ? over : BUDGET_DEADLINE,
                       resp, out);
        return;
    }
    admission_render(c, a, &out->rv, &diags, 0, resp, out);
}
