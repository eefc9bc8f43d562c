/*
 * hook_test_admission.c - webhook/admission.c without HTTP: request field
 * checks, the allow/deny/warn mapping from a diag list, the warning limits
 * (length, control characters, invalid UTF-8, duplicates, 4 KiB total),
 * warn mode, the config's action per rule (deny, warn, off), skipped
 * operations/kinds/namespaces, and the cost per request with the real
 * engine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../rules/rules.h"
#include "../../validate/arena.h"
#include "../../validate/buf.h"
#include "../../validate/clock.h"
#include "../../validate/config.h"
#include "../../validate/diag.h"
#include "../../validate/engine.h"
#include "../../validate/err.h"
#include "../../validate/limits.h"
#include "../../validate/load_json.h"
#include "../../validate/tree.h"
#include "../../webhook/admission.h"
#include "check.h"

static CHECK_INIT;

static const char review_fmt[] =
    "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
    "\"request\":{\"uid\":\"u-1\",\"operation\":\"%s\",\"namespace\":\"%s\","
    "\"kind\":{\"group\":\"%s\",\"version\":\"v1\",\"kind\":\"%s\"},"
    "\"object\":{\"apiVersion\":\"v1\",\"kind\":\"%s\",\"metadata\":"
    "{\"generateName\":\"web-\"},\"spec\":{\"containers\":[{\"name\":\"c\","
    "\"image\":\"x\"}]}}}}";

static struct tnode *json_of(struct arena *a, const char *s)
{
    struct tnode *t = NULL;
    struct err err;

    if (load_json(a, s, strlen(s), &t, &err) < 0)
        printf("bad JSON in test: %s\n", err.msg);
    return t;
}

static void test_parse(void)
{
    struct arena a;
    struct review rv;
    struct err err;
    char body[2048];

    arena_init(&a, 0);
    snprintf(body, sizeof(body), review_fmt, "CREATE", "ml", "", "Pod",
             "Pod");
    CHECK(admission_parse(&a, body, strlen(body), &rv, &err) == 0);
    CHECK(strcmp(rv.uid, "u-1") == 0);
    CHECK(strcmp(rv.rkind, "Pod") == 0 && strcmp(rv.group, "") == 0);
    CHECK(strcmp(rv.ns, "ml") == 0);
    CHECK(strcmp(rv.name, "web-*") == 0);
    CHECK(rv.object != NULL);
#define BAD(s) CHECK(admission_parse(&a, s, strlen(s), &rv, &err) < 0)
    BAD("[]");
    BAD("{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"Pod\"}");
    BAD("{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":"
        "\"AdmissionReview\",\"request\":{\"uid\":\"\"}}");
    BAD("{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":"
        "\"AdmissionReview\",\"request\":{\"uid\":\"u\",\"operation\":1}}");
    BAD("{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":"
        "\"AdmissionReview\",\"request\":{\"uid\":\"u\",\"operation\":"
        "\"CREATE\",\"kind\":{\"kind\":\"Pod\"},\"dryRun\":\"yes\"}}");
    CHECK(strstr(err.msg, "dryRun") != NULL);
#undef BAD
    arena_release(&a);
}

static struct diag *add(struct diag_list *l, const char *id, enum sev sev,
                        const char *path, const char *msg)
{
    struct diag *d = diag_list_add(l);
    const struct rule *r = ruleset_find(&rules_builtin, id);

    d->rule = r;
    d->sev = sev;
    d->path = path;
    d->msg = msg;
    return d;
}

static void test_render(void)
{
    struct arena a;
    struct review rv;
    struct err err;
    struct diag_list l;
    struct admission_cfg cfg;
    struct admission_out out;
    struct buf b;
    struct tnode *t;
    const struct tnode *w;
    char body[2048];
    char longmsg[600];

    arena_init(&a, 0);
    memset(&cfg, 0, sizeof(cfg));
    snprintf(body, sizeof(body), review_fmt, "CREATE", "ml", "", "Pod",
             "Pod");
    admission_parse(&a, body, strlen(body), &rv, &err);
    diag_list_init(&l, &a);
    add(&l, "extended-resource-limits", SEV_ERROR, "spec.containers[0]",
        "first error");
    add(&l, "claim-schema", SEV_ERROR, NULL, "second error");
    add(&l, "shared-claim-replicas", SEV_WARN, "spec.x", "a warning");
    add(&l, "shared-claim-replicas", SEV_WARN, "spec.x", "a warning");
    add(&l, "pod-claim-unused", SEV_INFO, "spec.y",
        "line\nbreak\tand \x01 control and bad \xff utf8");
    memset(longmsg, 'x', sizeof(longmsg) - 1);
    longmsg[sizeof(longmsg) - 1] = '\0';
    add(&l, "pod-claim-unused", SEV_WARN, "spec.z", longmsg);
    buf_init(&b, LIMIT_BODY_BYTES);
    admission_render(&cfg, &a, &rv, &l, 0, &b, &out);
    t = json_of(&a, b.p);
    CHECK(t != NULL);
    CHECK(strcmp(out.decision, "deny") == 0);
    CHECK(strcmp(tree_str(tree_at(t, "response.uid")), "u-1") == 0);
    CHECK(strcmp(tree_str(tree_get(t, "apiVersion")),
                 "admission.k8s.io/v1") == 0);
    CHECK(tree_at(t, "response.allowed")
          && tree_at(t, "response.allowed")->kind == T_BOOL
          && !tree_true(tree_at(t, "response.allowed")));
    {
        long long code = 0;
        tree_int(tree_at(t, "response.status.code"), &code);
        CHECK(code == 403);
    }
    CHECK(strcmp(tree_str(tree_at(t, "response.status.reason")),
                 "Forbidden") == 0);
    CHECK(strstr(tree_str(tree_at(t, "response.status.message")),
                 "[extended-resource-limits] spec.containers[0]: first "
                 "error; [claim-schema] second error") != NULL);
    w = tree_at(t, "response.warnings");
    CHECK(tree_is_seq(w) && w->n == 3);
    for (unsigned i = 0; w && i < w->n; i++) {
        const char *s = tree_str(w->kids[i]);
        size_t runes = 0;
        for (const char *p = s; *p; p++) {
            CHECK((unsigned char)*p >= 0x20);
            if (((unsigned char)*p & 0xc0) != 0x80)
                runes++;
        }
        CHECK(runes <= ADMISSION_WARN_MAX);
        CHECK(utf8_valid(s, strlen(s)));
    }
    if (w && w->n == 3) {
        CHECK(strcmp(tree_str(w->kids[0]),
                     "shared-claim-replicas: a warning (at spec.x)") == 0);
        CHECK(strstr(tree_str(w->kids[1]), "line break and   control and "
                     "bad ? utf8") != NULL);
        CHECK(strstr(tree_str(w->kids[2]), "...") != NULL);
        CHECK(strstr(tree_str(w->kids[2]), "(at spec.z)") == NULL);
    }
    CHECK(strcmp(out.rules, "extended-resource-limits,claim-schema,"
                 "shared-claim-replicas,pod-claim-unused") == 0);

    /* warn mode: nothing denies, errors are tagged */
    cfg.warn_mode = 1;
    buf_reset(&b);
    admission_render(&cfg, &a, &rv, &l, 0, &b, &out);
    t = json_of(&a, b.p);
    CHECK(tree_true(tree_at(t, "response.allowed")));
    CHECK(tree_at(t, "response.status") == NULL);
    CHECK(strstr(b.p, "extended-resource-limits (error, not enforced): "
                 "first error") != NULL);
    CHECK(strcmp(out.decision, "warn") == 0);

    /* deadline overrun: allowed, one warning, findings dropped */
    cfg.warn_mode = 0;
    cfg.deadline_ms = 5;
    buf_reset(&b);
    admission_render(&cfg, &a, &rv, &l, 12.0, &b, &out);
    t = json_of(&a, b.p);
    CHECK(tree_true(tree_at(t, "response.allowed")));
    w = tree_at(t, "response.warnings");
    CHECK(w && w->n == 1 && strstr(tree_str(w->kids[0]), "5 ms budget"));
    CHECK(strcmp(out.decision, "overrun") == 0);
    buf_release(&b);
    arena_release(&a);
}

static void test_warning_budget(void)
{
    struct arena a;
    struct review rv;
    struct err err;
    struct diag_list l;
    struct admission_cfg cfg;
    struct admission_out out;
    struct buf b;
    struct tnode *t;
    const struct tnode *w;
    char body[2048];
    size_t total = 0;

    arena_init(&a, 0);
    memset(&cfg, 0, sizeof(cfg));
    snprintf(body, sizeof(body), review_fmt, "CREATE", "ml", "", "Pod",
             "Pod");
    admission_parse(&a, body, strlen(body), &rv, &err);
    diag_list_init(&l, &a);
    for (int i = 0; i < 200; i++)
        add(&l, "shared-claim-replicas", SEV_WARN, "spec",
            arena_printf(&a, "warning number %d with some text to make it "
                         "longer than a few words", i));
    buf_init(&b, LIMIT_BODY_BYTES);
    admission_render(&cfg, &a, &rv, &l, 0, &b, &out);
    t = json_of(&a, b.p);
    w = tree_at(t, "response.warnings");
    CHECK(w && w->n > 10 && w->n < 200);
    for (unsigned i = 0; w && i < w->n; i++)
        total += strlen(tree_str(w->kids[i]));
    CHECK(total <= ADMISSION_WARN_TOTAL);
    CHECK(w && strstr(tree_str(w->kids[w->n - 1]), "more findings not "
                      "shown") != NULL);
    buf_release(&b);
    arena_release(&a);
}

static void test_wanted(void)
{
    struct arena a;
    struct review rv;
    struct err err;
    struct admission_cfg cfg;
    const char *excl[] = { "kube-system" };
    char body[2048];
    static const struct { const char *op, *ns, *group, *kind; int want; }
    cases[] = {
        { "CREATE", "ml", "", "Pod", 1 },
        { "UPDATE", "ml", "apps", "Deployment", 1 },
        { "CREATE", "ml", "batch", "CronJob", 1 },
        { "CREATE", "", "resource.k8s.io", "DeviceClass", 1 },
        { "DELETE", "ml", "", "Pod", 0 },
        { "CONNECT", "ml", "", "Pod", 0 },
        { "CREATE", "ml", "", "ConfigMap", 0 },
        { "CREATE", "ml", "example.com", "Pod", 0 },
        { "CREATE", "kube-system", "", "Pod", 0 },
    };

    arena_init(&a, 0);
    memset(&cfg, 0, sizeof(cfg));
    cfg.excluded_ns = excl;
    cfg.nexcluded = 1;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        snprintf(body, sizeof(body), review_fmt, cases[i].op, cases[i].ns,
                 cases[i].group, cases[i].kind, cases[i].kind);
        CHECK(admission_parse(&a, body, strlen(body), &rv, &err) == 0);
        CHECK(admission_wanted(&cfg, &rv) == cases[i].want);
    }
    arena_release(&a);
}

static double now_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* rules: {ID: {action}} from a config file: warn turns that rule's errors
 * into warnings (never deny), off leaves the rule out of the answer, and
 * a category's action covers its rules; the other errors still deny. */
static void test_actions(void)
{
    static const char text[] =
        "rules:\n"
        "  extended-resource-limits: {action: warn}\n"
        "  claim-schema: {severity: error, action: off}\n"
        "  sharing: {action: warn}\n";
    char path[] = "/tmp/claimcheck-actions-XXXXXX";
    struct config c;
    struct engine *e;
    struct err err = { "" };
    struct arena a;
    struct review rv;
    struct diag_list l;
    struct admission_cfg cfg;
    struct admission_out out;
    struct buf b;
    struct tnode *t;
    const struct tnode *w;
    char body[2048];
    int fd = mkstemp(path);

    CHECK(fd >= 0);
    if (fd < 0)
        return;
    CHECK(write(fd, text, sizeof(text) - 1) == (ssize_t)(sizeof(text) - 1));
    close(fd);
    config_init(&c);
    CHECK(config_load_file(&c, path, &err) == 0);
    unlink(path);
    e = engine_new(&c, &rules_builtin, &err);
    CHECK_MSG(e != NULL, "engine_new: %s", err.msg);
    if (!e) {
        config_release(&c);
        return;
    }
    CHECK(engine_rule_action(e, ruleset_find(&rules_builtin,
          "extended-resource-limits")) == ACTION_WARN);
    CHECK(engine_rule_action(e, ruleset_find(&rules_builtin,
          "claim-schema")) == ACTION_OFF);
    CHECK(engine_rule_action(e, ruleset_find(&rules_builtin,
          "shared-claim-replicas")) == ACTION_WARN);   /* sharing */
    CHECK(engine_rule_action(e, ruleset_find(&rules_builtin,
          "pod-claim-undeclared")) == ACTION_DENY);    /* the default */

    arena_init(&a, 0);
    memset(&cfg, 0, sizeof(cfg));
    cfg.engine = e;
    snprintf(body, sizeof(body), review_fmt, "CREATE", "ml", "", "Pod",
             "Pod");
    admission_parse(&a, body, strlen(body), &rv, &err);
    diag_list_init(&l, &a);
    add(&l, "extended-resource-limits", SEV_ERROR, "spec.a", "warned");
    add(&l, "claim-schema", SEV_ERROR, "spec.b", "left out");
    add(&l, "shared-claim-replicas", SEV_ERROR, "spec.c", "by category");
    buf_init(&b, LIMIT_BODY_BYTES);
    admission_render(&cfg, &a, &rv, &l, 0, &b, &out);
    t = json_of(&a, b.p);
    CHECK(tree_true(tree_at(t, "response.allowed")));
    CHECK(strcmp(out.decision, "warn") == 0);
    w = tree_at(t, "response.warnings");
    CHECK(tree_is_seq(w) && w->n == 2);
    CHECK(strstr(b.p, "extended-resource-limits (error, not enforced): "
                 "warned") != NULL);
    CHECK(strstr(b.p, "shared-claim-replicas (error, not enforced): "
                 "by category") != NULL);
    CHECK(strstr(b.p, "left out") == NULL);

    /* a rule without an action still denies beside them */
    add(&l, "pod-claim-undeclared", SEV_ERROR, "spec.d", "still denied");
    buf_reset(&b);
    admission_render(&cfg, &a, &rv, &l, 0, &b, &out);
    t = json_of(&a, b.p);
    CHECK(!tree_true(tree_at(t, "response.allowed")));
    CHECK(strcmp(out.decision, "deny") == 0);
    CHECK(strstr(tree_str(tree_at(t, "response.status.message")),
                 "[pod-claim-undeclared] spec.d: still denied") != NULL);
    CHECK(strstr(tree_str(tree_at(t, "response.status.message")),
                 "warned") == NULL);
    buf_release(&b);
    arena_release(&a);
    engine_free(e);
    config_release(&c);
}

/* The real engine with the default config, and an admission cfg using
 * it; NULL (a failed check) when it cannot be made. */
static struct engine *engine_cfg(struct config *c, struct admission_cfg *cfg)
{
    struct err err = { "" };
    struct engine *e;

    config_init(c);
    e = engine_new(c, &rules_builtin, &err);
    CHECK(e != NULL);
    memset(cfg, 0, sizeof(*cfg));
    cfg->engine = e;
    return e;
}

/* The real engine end to end, and what one request costs. */
static void test_engine(void)
{
    struct config c;
    struct engine *e;
    struct admission_cfg cfg;
    struct admission_out out;
    struct buf b;
    char body[2048];
    double t0, per;
    int i, n = 2000;

    e = engine_cfg(&c, &cfg);
    if (!e)
        return;
    snprintf(body, sizeof(body), review_fmt, "CREATE", "ml", "", "Pod",
             "Pod");
    buf_init(&b, LIMIT_BODY_BYTES);
    t0 = now_us();
    for (i = 0; i < n; i++) {
        struct arena a;
        arena_init(&a, 16 * 1024);
        buf_reset(&b);
        admission_handle(&cfg, NULL, &a, body, strlen(body), 0, &b, &out);
        arena_release(&a);
    }
    per = (now_us() - t0) / n;
    CHECK(out.status == 200);
    printf("admission_handle: %.1f us per small Pod review\n", per);
    buf_release(&b);
    engine_free(e);
    config_release(&c);
}

/* A DeviceClass UPDATE that keeps its selectors is validated in
 * Kubernetes' StoredExpressions environment (validateDeviceClassSpec):
 * includes() is declared there whatever DRAListTypeAttributes says, so the
 * unchanged selector is allowed; a CREATE, or an UPDATE that changes the
 * selectors, is validated as a new expression and denied with the gate
 * named (issue 15). */
static const char class_fmt[] =
    "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"DeviceClass\","
    "\"metadata\":{\"name\":\"gpu.example.com\"},\"spec\":{"
    "\"selectors\":[{\"cel\":{\"expression\":\"%s\"}}]}}";
static const char update_fmt[] =
    "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
    "\"request\":{\"uid\":\"u-2\",\"operation\":\"%s\","
    "\"kind\":{\"group\":\"resource.k8s.io\",\"version\":\"v1\","
    "\"kind\":\"DeviceClass\"},\"object\":%s%s%s}}";

static int class_review(struct engine *e, const char *op, const char *expr,
                        const char *old_expr, char *msg, size_t msgsz)
{
    struct admission_cfg cfg;
    struct admission_out out;
    struct arena a;
    struct buf b;
    char obj[1024], old[1024], body[4096];
    int denied;

    memset(&cfg, 0, sizeof(cfg));
    cfg.engine = e;
    snprintf(obj, sizeof(obj), class_fmt, expr);
    snprintf(old, sizeof(old), class_fmt, old_expr ? old_expr : "");
    snprintf(body, sizeof(body), update_fmt, op, obj,
             old_expr ? ",\"oldObject\":" : "", old_expr ? old : "");
    arena_init(&a, 16 * 1024);
    buf_init(&b, LIMIT_BODY_BYTES);
    admission_handle(&cfg, NULL, &a, body, strlen(body), 0, &b, &out);
    denied = strstr(b.p, "\"allowed\":false") != NULL;
    snprintf(msg, msgsz, "%s", b.p);
    buf_release(&b);
    arena_release(&a);
    return denied;
}

/* --deadline-ms counts from the request's arrival: a review that waited
 * in the queue past it is allowed with the overrun warning (and no rule
 * runs), the same review arrived now is judged (issue 16) */
static void test_queued(void)
{
    struct config c;
    struct engine *e;
    struct admission_cfg cfg;
    struct admission_out out;
    struct arena a;
    struct buf b;
    char obj[1024], body[4096];
    int i;

    e = engine_cfg(&c, &cfg);
    if (!e)
        return;
    cfg.deadline_ms = 200;
    snprintf(obj, sizeof(obj), class_fmt, "device.driver ==");
    snprintf(body, sizeof(body), update_fmt, "CREATE", obj, "", "");
    buf_init(&b, LIMIT_BODY_BYTES);
    for (i = 0; i < 2; i++) {
        uint64_t now = clock_mono_ns();
        arena_init(&a, 16 * 1024);
        buf_reset(&b);
        /* i == 0: arrived 5 ms ago; i == 1: 500 ms ago */
        admission_handle(&cfg, NULL, &a, body, strlen(body),
                         now - (i ? 500 : 5) * 1000000ull, &b, &out);
        if (i == 0) {
            CHECK_MSG(strstr(b.p, "\"allowed\":false") != NULL, "%s", b.p);
            CHECK_STR(out.decision, "deny");
        } else {
            CHECK_MSG(strstr(b.p, "\"allowed\":true") != NULL
                      && strstr(b.p, "since the request arrived, over its "
                                "200 ms budget") != NULL, "%s", b.p);
            CHECK_STR(out.decision, "overrun");
        }
        arena_release(&a);
    }
    buf_release(&b);
    engine_free(e);
    config_release(&c);
}

static void test_stored_selectors(void)
{
    static const char *const inc = "device.attributes['gpu.example.com']"
                                   ".ids.includes(1)";
    struct config c;
    struct err err = { "" };
    struct engine *e;
    char msg[4096];

    config_init(&c);
    CHECK(config_add_gates(&c, "DRAListTypeAttributes=false", &err) == 0);
    e = engine_new(&c, &rules_builtin, &err);
    CHECK(e != NULL);
    if (!e)
        return;
    CHECK_MSG(class_review(e, "CREATE", inc, NULL, msg, sizeof(msg)) &&
              strstr(msg, "selector-invalid") &&
              strstr(msg, "DRAListTypeAttributes"),
              "CREATE: includes() is a new expression: %s", msg);
    CHECK_MSG(!class_review(e, "UPDATE", inc, inc, msg, sizeof(msg)),
              "UPDATE keeping the selectors: StoredExpressions: %s", msg);
    CHECK_MSG(class_review(e, "UPDATE", inc, "device.driver == 'x'", msg,
                           sizeof(msg)) && strstr(msg, "selector-invalid"),
              "UPDATE changing the selectors: NewExpressions: %s", msg);
    CHECK_MSG(class_review(e, "UPDATE", inc, NULL, msg, sizeof(msg)),
              "UPDATE without oldObject: NewExpressions: %s", msg);
    engine_free(e);
    config_release(&c);
}

/* UPDATE ratcheting with the real engine (no inventory: the findings are
 * pod-claim-undeclared and claim-schema). Each case: operation, kind and
 * group, the object, the oldObject (JSON or "null"), allowed?, and a text
 * the answer must hold. */
#define POD_BAD(meta, image, extra) \
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"," \
    "\"namespace\":\"ml\"" meta "},\"spec\":{\"containers\":[{\"name\":" \
    "\"c\",\"image\":\"" image "\",\"resources\":{\"claims\":[{\"name\":" \
    "\"gpu\"}]}}]}" extra "}"
#define POD_GOOD \
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"," \
    "\"namespace\":\"ml\"},\"spec\":{\"containers\":[{\"name\":\"c\"," \
    "\"image\":\"a\"}]}}"
#define DEPLOY(labels, image, status) \
    "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":" \
    "{\"name\":\"d\",\"namespace\":\"ml\"" labels "},\"spec\":{\"selector\":" \
    "{\"matchLabels\":{\"a\":\"b\"}},\"template\":{\"metadata\":{\"labels\":" \
    "{\"a\":\"b\"}},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"" \
    image "\",\"resources\":{\"claims\":[{\"name\":\"gpu\"}]}}]}}}" status "}"
#define CLAIM(count, status) \
    "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\"," \
    "\"metadata\":{\"name\":\"c\",\"namespace\":\"ml\"},\"spec\":{\"devices\":" \
    "{\"requests\":[{\"name\":\"r\",\"exactly\":{\"deviceClassName\":" \
    "\"gpu\",\"count\":" count "}}]}}" status "}"

static void test_update(void)
{
    static const struct {
        const char *op, *group, *kind, *object, *old;
        int allowed;
        const char *holds;
    } cases[] = {
        /* the findings deny on CREATE, and on UPDATE without oldObject */
        { "CREATE", "", "Pod", POD_BAD("", "a", ""), "null", 0,
          "pod-claim-undeclared" },
        { "UPDATE", "", "Pod", POD_BAD("", "a", ""), "null", 0,
          "pod-claim-undeclared" },
        /* a finalizer removed while terminating: never denied */
        { "UPDATE", "", "Pod",
          POD_BAD(",\"deletionTimestamp\":\"2026-01-01T00:00:00Z\"", "a", ""),
          POD_BAD(",\"deletionTimestamp\":\"2026-01-01T00:00:00Z\","
                  "\"finalizers\":[\"x/y\"]", "a", ""), 1, "\"allowed\":true" },
        /* metadata-only and status-only */
        { "UPDATE", "", "Pod", POD_BAD(",\"labels\":{\"k\":\"v\"}", "a", ""),
          POD_BAD("", "a", ""), 1, "\"allowed\":true" },
        { "UPDATE", "", "Pod", POD_BAD("", "a", ",\"status\":{\"phase\":"
                                       "\"Running\"}"),
          POD_BAD("", "a", ""), 1, "\"allowed\":true" },
        { "UPDATE", "apps", "Deployment",
          DEPLOY("", "a", ",\"status\":{\"replicas\":1}"),
          DEPLOY("", "a", ""), 1, "\"allowed\":true" },
        { "UPDATE", "apps", "Deployment",
          DEPLOY(",\"annotations\":{\"k\":\"v\"}", "a", ""),
          DEPLOY("", "a", ""), 1, "\"allowed\":true" },
        /* ... but the apiserver's own rules still judge them: it
         * validates every update of the resource in full */
        { "UPDATE", "resource.k8s.io", "ResourceClaim",
          CLAIM("-1", ",\"status\":{\"reservedFor\":[]}"), CLAIM("-1", ""), 0,
          "claim-schema" },
        { "UPDATE", "resource.k8s.io", "ResourceClaim",
          CLAIM("1", ",\"status\":{\"reservedFor\":[]}"), CLAIM("1", ""), 1,
          "\"allowed\":true" },
        /* a spec change: what was there already warns, not denies */
        { "UPDATE", "", "Pod", POD_BAD("", "b", ""), POD_BAD("", "a", ""), 1,
          "already there before this update" },
        { "UPDATE", "apps", "Deployment", DEPLOY("", "b", ""),
          DEPLOY("", "a", ""), 1, "already there before this update" },
        /* ... and what the change introduces denies as on CREATE */
        { "UPDATE", "", "Pod", POD_BAD("", "a", ""), POD_GOOD, 0,
          "pod-claim-undeclared" },
        { "UPDATE", "resource.k8s.io", "ResourceClaim", CLAIM("-1", ""),
          CLAIM("1", ""), 0, "claim-schema" },
    };
    struct config c;
    struct engine *e;
    struct admission_cfg cfg;
    struct admission_out out;
    struct buf b, body;

    e = engine_cfg(&c, &cfg);
    if (!e)
        return;
    buf_init(&b, LIMIT_BODY_BYTES);
    buf_init(&body, LIMIT_BODY_BYTES);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct arena a;
        arena_init(&a, 16 * 1024);
        buf_reset(&b);
        buf_reset(&body);
        buf_addf(&body, "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":"
                 "\"AdmissionReview\",\"request\":{\"uid\":\"u\","
                 "\"operation\":\"%s\",\"namespace\":\"ml\",\"kind\":"
                 "{\"group\":\"%s\",\"version\":\"v1\",\"kind\":\"%s\"},"
                 "\"object\":%s,\"oldObject\":%s}}", cases[i].op,
                 cases[i].group, cases[i].kind, cases[i].object,
                 cases[i].old);
        admission_handle(&cfg, NULL, &a, body.p, body.len, 0, &b, &out);
        CHECK(out.status == 200);
        CHECK(strstr(b.p, cases[i].allowed ? "\"allowed\":true"
                     : "\"allowed\":false") != NULL);
        CHECK(strstr(b.p, cases[i].holds) != NULL);
        if (!strstr(b.p, cases[i].holds)
            || !strstr(b.p, cases[i].allowed ? "\"allowed\":true"
                       : "\"allowed\":false"))
            printf("update case %zu: %s\n", i, b.p);
        arena_release(&a);
    }
    buf_release(&body);
    buf_release(&b);
    engine_free(e);
    config_release(&c);
}

int main(void)
{
    test_stored_selectors();
    test_queued();
    test_parse();
    test_render();
    test_actions();
    test_warning_budget();
    test_wanted();
    test_update();
    test_engine();
    return CHECK_DONE();
}
