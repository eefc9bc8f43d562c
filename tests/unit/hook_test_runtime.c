/*
 * hook_test_runtime.c - the webhook's shared runtime state without HTTP:
 * inventory snapshots (publish while readers hold refs, from threads;
 * file objects parsed once and shared by the snapshots built on them,
 * their strings held once),
 * Prometheus rendering, TLS credential reload (new pair, unchanged,
 * mismatched pair kept out, not-after), the batched request log (held
 * until a flush, whole lines from threads, JSON, number formatting, the
 * time as gmtime_r() gives it), and
 * the memory budget (takes within the limit, from threads), and the
 * estimate of costly reviews (a selector found wherever it is nested).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../certs/certs.h"
#include "../../validate/arena.h"
#include "../../validate/buf.h"
#include "../../validate/engine.h"
#include "../../validate/err.h"
#include "../../validate/inventory.h"
#include "../../validate/kinds.h"
#include "../../validate/load_json.h"
#include "../../validate/object.h"
#include "../../validate/stream.h"
#include "../../validate/tree.h"
#include "../../webhook/costly.h"
#include "../../webhook/invstore.h"
#include "../../webhook/log.h"
#include "../../webhook/membudget.h"
#include "../../webhook/metrics.h"
#include "../../webhook/tls.h"
#include "check.h"

static CHECK_INIT;

static const char inv_text[] =
    "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\n"
    "metadata:\n  name: gpu.example.com\n";

struct reader {
    struct invstore *s;
    atomic_int *stop;
    atomic_long reads;
};

static void *reader_main(void *arg)
{
    struct reader *r = arg;

    while (!atomic_load(r->stop)) {
        struct invref *ref = invstore_acquire(r->s);
        const struct inventory *inv = invref_inventory(ref);
        if (inv)
            (void)inventory_size(inv);   /* touches the snapshot */
        invref_release(ref);
        atomic_fetch_add(&r->reads, 1);
    }
    return NULL;
}

static void test_invstore(void)
{
    struct invstore *s = invstore_new(NULL);
    struct err err = { "" };
    const char *files[] = { "a.yaml" };
    const char *texts[] = { inv_text };
    size_t lens[] = { sizeof(inv_text) - 1 };
    const char *bad[] = { "kind: [\n" };
    size_t badlen[] = { 8 };
    struct invref *pinned;
    pthread_t th[4];
    struct reader rd[4];
    atomic_int stop = 0;
    int i;

    CHECK(invstore_acquire(s) == NULL);
    CHECK(invstore_set_files(s, 1, files, texts, lens, &err) == 0);
    CHECK(invstore_size(s) == 1);
    pinned = invstore_acquire(s);
    CHECK(pinned != NULL);
    /* a bad text keeps the previous snapshot */
    CHECK(invstore_set_files(s, 1, files, bad, badlen, &err) < 0);
    CHECK(strstr(err.msg, "a.yaml") != NULL);
    CHECK(invstore_size(s) == 1);
    /* a new snapshot while one is pinned: the pinned one stays usable */
    CHECK(invstore_rebuild(s, &err) == 0);
    CHECK(inventory_size(invref_inventory(pinned)) == 1);
    invref_release(pinned);
    for (i = 0; i < 4; i++) {
        rd[i].s = s;
        rd[i].stop = &stop;
        atomic_init(&rd[i].reads, 0);
        pthread_create(&th[i], NULL, reader_main, &rd[i]);
    }
    /* publish while every reader is reading: at least 200 snapshots and
     * until each reader has pinned 1000 (bounded: 200000 rebuilds) */
    for (i = 0; i < 200000; i++) {
        int j, busy = 1;
        if (invstore_rebuild(s, &err) < 0) {
            CHECK(0);
            break;
        }
        for (j = 0; j < 4; j++)
            busy = busy && atomic_load(&rd[j].reads) >= 1000;
        if (i >= 200 && busy)
            break;
    }
    atomic_store(&stop, 1);
    for (i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        CHECK(atomic_load(&rd[i].reads) >= 1000);
    }
    invstore_free(s);
}

/* A compact snapshot (the webhook's) holds each string of its objects'
 * trees once: keys and values repeated across objects (as a large
 * inventory repeats them) are one copy. */
static void test_inventory_strings(void)
{
    static const char text[] =
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\n"
        "metadata:\n  name: a\n  labels: {tier: gold}\n---\n"
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\n"
        "metadata:\n  name: b\n  labels: {tier: gold}\n";
    struct inventory *inv = inventory_new();
    struct err err = { "" };
    const struct object *a, *b;
    const struct tnode *ta, *tb;

    inventory_set_compact(inv, 1);
    CHECK(inventory_add_text(inv, "c.yaml", text, sizeof(text) - 1,
                             &err) == 0);
    a = inventory_lookup(inv, K_CLASS, "", "a");
    b = inventory_lookup(inv, K_CLASS, "", "b");
    CHECK(a && b);
    if (a && b) {
        ta = tree_get(tree_get(a->metadata, "labels"), "tier");
        tb = tree_get(tree_get(b->metadata, "labels"), "tier");
        CHECK(ta && tb && ta != tb);
        CHECK(ta && tb && !strcmp(ta->str, "gold") && ta->str == tb->str
              && ta->key == tb->key);
    }
    inventory_free(inv);
}

/* A cluster source for test_invstore_shared: one Node. */
static int add_node(void *cls, struct inventory *inv, struct err *err)
{
    static const char node[] = "apiVersion: v1\nkind: Node\n"
                               "metadata:\n  name: node-1\n";
    struct arena a;
    struct ydocs docs;
    int ret = -1;

    (void)cls;
    arena_init(&a, 4096);
    stream_load(&a, NULL, node, sizeof(node) - 1, &docs);
    if (docs.n == 1 && docs.v[0].root)
        ret = inventory_add_tree(inv, docs.v[0].root, err);
    arena_release(&a);
    return ret;
}

/* The files are parsed once per load: a rebuild (a cluster change) uses
 * the very objects of the load, not a new parse of a kept copy of the
 * texts (the caller's texts may be gone), and the snapshots share them
 * while any of them lives. */
static void test_invstore_shared(void)
{
    struct invstore *s = invstore_new(NULL);
    struct err err = { "" };
    const char *files[] = { "a.yaml" };
    char *text = strdup(inv_text);
    const char *texts[] = { text };
    size_t lens[] = { strlen(inv_text) };
    const struct object *o1, *o2;
    struct invref *r1, *r2;

    CHECK(invstore_set_files(s, 1, files, texts, lens, &err) == 0);
    memset(text, ' ', lens[0]);         /* the caller's text is gone */
    free(text);
    r1 = invstore_acquire(s);
    invstore_set_cluster(s, add_node, NULL);
    CHECK(invstore_rebuild(s, &err) == 0);
    r2 = invstore_acquire(s);
    CHECK(r1 != r2);
    CHECK(inventory_size(invref_inventory(r2)) == 2);
    CHECK(inventory_lookup(invref_inventory(r2), K_NODE, "", "node-1")
          != NULL);
    o1 = inventory_lookup(invref_inventory(r1), K_CLASS, "",
                          "gpu.example.com");
    o2 = inventory_lookup(invref_inventory(r2), K_CLASS, "",
                          "gpu.example.com");
    CHECK(o1 != NULL && o1 == o2);      /* one parse, shared */
    invref_release(r1);
    /* a new load replaces them; the snapshot holding the old ones keeps
     * them alive until released */
    texts[0] = inv_text;
    CHECK(invstore_set_files(s, 1, files, texts, lens, &err) == 0);
    CHECK(strcmp(object_ns(o2), "") == 0 && !strcmp(o2->name,
                                                   "gpu.example.com"));
    invref_release(r2);
    r1 = invstore_acquire(s);
    CHECK(inventory_lookup(invref_inventory(r1), K_CLASS, "",
                           "gpu.example.com") != o1);
    invref_release(r1);
    invstore_free(s);
}

static void test_metrics(void)
{
    struct metrics *m = metrics_new();
    struct buf b;

    metrics_request(m, "Pod", "CREATE", "deny", 0.00005);
    metrics_request(m, "Pod", "CREATE", "deny", 0.003);
    metrics_request(m, "Foo", "PATCH", "nonsense", 7.0);
    metrics_finding(m, "rule-a");
    metrics_finding(m, "rule-a");
    metrics_finding(m, "rule-b");
    metrics_deadline_overrun(m);
    metrics_inventory(m, 42, 1000);
    metrics_cert(m, 2000000000);
    buf_init(&b, 1 << 20);
    CHECK(metrics_render(m, &b) == 0);
    CHECK(strstr(b.p, "claimcheck_admission_requests_total{kind=\"Pod\","
                 "operation=\"CREATE\",decision=\"deny\"} 2\n") != NULL);
    CHECK(strstr(b.p, "{kind=\"other\",operation=\"other\","
                 "decision=\"overrun\"} 1\n") != NULL);
    CHECK(strstr(b.p, "_bucket{le=\"0.0001\"} 1\n") != NULL);
    CHECK(strstr(b.p, "_bucket{le=\"0.005\"} 2\n") != NULL);
    CHECK(strstr(b.p, "_bucket{le=\"+Inf\"} 3\n") != NULL);
    CHECK(strstr(b.p, "claimcheck_admission_duration_seconds_count 3\n")
          != NULL);
    CHECK(strstr(b.p, "claimcheck_findings_total{rule=\"rule-a\"} 2\n")
          != NULL);
    CHECK(strstr(b.p, "claimcheck_findings_total{rule=\"rule-b\"} 1\n")
          != NULL);
    CHECK(strstr(b.p, "claimcheck_deadline_overruns_total 1\n") != NULL);
    CHECK(strstr(b.p, "claimcheck_inventory_objects 42\n") != NULL);
    CHECK(strstr(b.p, "claimcheck_tls_cert_not_after_timestamp_seconds "
                 "2000000000\n") != NULL);
    /* every sample line is "name{labels} value" or "name value" */
    for (const char *line = b.p; *line; ) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        CHECK(line[0] == '#' || memchr(line, ' ', len) != NULL);
        line += len + (eol != NULL);
    }
    buf_release(&b);
    metrics_free(m);
}

static int gen(const char *dir, const char *ca_cert, const char *ca_key)
{
    struct certs_opts o;
    struct err err = { "" };

    memset(&o, 0, sizeof(o));
    o.service = "webhook";
    o.namespace_ = "default";
    o.out_dir = dir;
    o.days = 20;
    o.ca_cert = ca_cert;
    o.ca_key = ca_key;
    o.force = 1;
    if (certs_generate(&o, &err) < 0) {
        printf("certs_generate: %s\n", err.msg);
        return -1;
    }
    return 0;
}

static int copy(const char *from, const char *to)
{
    char buf[8192];
    FILE *a = fopen(from, "rb"), *b;
    size_t n;
    char tmp[512];

    if (!a)
        return -1;
    snprintf(tmp, sizeof(tmp), "%s.tmp", to);
    b = fopen(tmp, "wb");
    if (!b) {
        fclose(a);
        return -1;
    }
    for (n = fread(buf, 1, sizeof(buf), a); n > 0;
         n = fread(buf, 1, sizeof(buf), a))
        fwrite(buf, 1, n, b);
    fclose(a);
    fclose(b);
    return rename(tmp, to);
}

static void test_tls(void)
{
    char dir[] = "/tmp/hook_test_tls.XXXXXX", p[8][512];
    struct metrics *m = metrics_new();
    struct err err = { "" };
    struct tls *t;
    time_t na;

    if (!mkdtemp(dir)) {
        CHECK(0);
        return;
    }
    snprintf(p[0], sizeof(p[0]), "%s/a", dir);
    snprintf(p[1], sizeof(p[1]), "%s/b", dir);
    snprintf(p[2], sizeof(p[2]), "%s/tls.crt", dir);
    snprintf(p[3], sizeof(p[3]), "%s/tls.key", dir);
    snprintf(p[4], sizeof(p[4]), "%s/a/tls.crt", dir);
    snprintf(p[5], sizeof(p[5]), "%s/a/tls.key", dir);
    snprintf(p[6], sizeof(p[6]), "%s/b/tls.crt", dir);
    snprintf(p[7], sizeof(p[7]), "%s/b/tls.key", dir);
    CHECK(gen(p[0], NULL, NULL) == 0);
    CHECK(gen(p[1], NULL, NULL) == 0);
    CHECK(copy(p[4], p[2]) == 0 && copy(p[5], p[3]) == 0);
    /* mismatched pair refused at start */
    t = tls_new(p[4], p[7], NULL, 1, m, &err);
    CHECK(t == NULL && strstr(err.msg, "does not match") != NULL);
    t = tls_new(p[2], p[3], NULL, 1, m, &err);
    CHECK(t != NULL);
    if (!t)
        goto out;
    na = tls_not_after(t);
    CHECK(na > time(NULL) + 19 * 86400 && na < time(NULL) + 21 * 86400);
    CHECK(tls_reload(t) == 0);                  /* nothing changed */
    CHECK(copy(p[6], p[2]) == 0);               /* cert b, key a */
    CHECK(tls_reload(t) == -1);                 /* kept out */
    CHECK(tls_not_after(t) == na);
    CHECK(tls_reload(t) == 0);                  /* same files: not retried */
    CHECK(copy(p[7], p[3]) == 0);               /* now key b too */
    CHECK(tls_reload(t) == 1);
    tls_free(t);
out:
    metrics_free(m);
    {
        char cmd[600];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        CHECK(system(cmd) == 0);
    }
}

/* Reads what was written to fd since offset *off. */
static size_t read_new(int fd, off_t *off, char *out, size_t cap)
{
    ssize_t n = pread(fd, out, cap - 1, *off);

    if (n < 0)
        n = 0;
    out[n] = '\0';
    *off += n;
    return (size_t)n;
}

struct logger {
    struct log_batch *lb;
    int id;
};

static void *logger_main(void *arg)
{
    struct logger *l = arg;
    struct log_req r = { "uid-t", "Pod", "ns", "p", "CREATE", "allow", NULL,
                         NULL, 200, 0.5, 0, 0, 0 };
    int i;

    for (i = 0; i < 2000; i++)
        log_request(l->lb, &r);
    return NULL;
}

static void test_log_batch(void)
{
    char path[] = "/tmp/hook_test_log.XXXXXX", *text = malloc(1 << 20);
    int fd = mkstemp(path), saved = dup(2);
    off_t off = 0;
    struct log_batch *lb = log_batch_new();
    struct log_req r = { "u1", "Pod", "ml", "web-1", "CREATE", "deny",
                         "device-plugin-dra-conflict", NULL, 200, 1234.5678,
                         0, 0, 0 };
    struct logger ls[2] = { { lb, 0 }, { lb, 1 } };
    pthread_t th[2];
    size_t n, lines = 0, good = 0;
    char *line, *save;

    CHECK(fd >= 0 && text);
    if (fd < 0 || !text)
        return;
    dup2(fd, 2);
    log_request(lb, &r);
    CHECK(read_new(fd, &off, text, 1 << 20) == 0);     /* held back */
    log_batch_flush(lb);
    n = read_new(fd, &off, text, 1 << 20);
    CHECK(n > 0 && text[n - 1] == '\n');
    CHECK(strstr(text, "\"level\":\"info\",\"msg\":\"admission\",\"uid\":\"u1\","
                 "\"kind\":\"Pod\",\"namespace\":\"ml\",\"name\":\"web-1\","
                 "\"operation\":\"CREATE\",\"decision\":\"deny\",\"rules\":"
                 "\"device-plugin-dra-conflict\",\"status\":200,"
                 "\"latency_ms\":1234.568}\n") != NULL);
    CHECK(strncmp(text, "{\"time\":\"20", 11) == 0 && text[19] == 'T'
          && text[32] == 'Z');
    r.latency_ms = 0.0004;
    r.status = 413;
    log_request(NULL, &r);                              /* unbatched */
    n = read_new(fd, &off, text, 1 << 20);
    CHECK(strstr(text, "\"level\":\"warn\"") != NULL);
    CHECK(strstr(text, "\"status\":413,\"latency_ms\":0.000}") != NULL);
    /* a request the rules ran on says what it spent of its budget */
    r.metered = 1;
    r.cel_cost = 1234567;
    r.alloc_steps = 89;
    log_request(NULL, &r);
    n = read_new(fd, &off, text, 1 << 20);
    CHECK(strstr(text, "\"rules\":\"device-plugin-dra-conflict\","
                 "\"cel_cost\":1234567,\"alloc_steps\":89,\"status\":413,")
          != NULL);
    /* two threads, 4,000 lines: more than one batch, none torn or lost */
    pthread_create(&th[0], NULL, logger_main, &ls[0]);
    pthread_create(&th[1], NULL, logger_main, &ls[1]);
    pthread_join(th[0], NULL);
    pthread_join(th[1], NULL);
    log_batch_free(lb);
    n = read_new(fd, &off, text, 1 << 20);
    CHECK(n > 64 * 1024);
    for (line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        lines++;
        good += line[0] == '{' && strstr(line, "\"latency_ms\":0.500}")
                && strchr(line + 1, '{') == NULL;
    }
    CHECK(lines == 4000 && good == 4000);
    dup2(saved, 2);
    close(saved);
    close(fd);
    unlink(path);
    free(text);
}

/* 1 when log_time() says what gmtime_r() does for secs.nsec */
static int log_time_is_gmtime(long long secs, long nsec, long long *n)
{
    struct timespec ts = { (time_t)secs, nsec };
    struct tm tm;
    char got[LOG_TIME_LEN + 8], want[64];

    memset(got, 'x', sizeof(got));
    log_time(got, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    snprintf(want, sizeof(want), "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ",
             tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
             tm.tm_min, tm.tm_sec, nsec / 1000000);
    (*n)++;
    if (strlen(got) == LOG_TIME_LEN && !strcmp(got, want))
        return 1;
    fprintf(stderr, "log_time(%lld.%09ld) = %.32s, gmtime_r: %s\n", secs,
            nsec, got, want);
    return 0;
}

/* log_time() against gmtime_r(): the days around every year's end and
 * February from 1970 to 2200 (leap years, 2000 and 2100), the epoch's
 * neighbours and a spread of seconds, milliseconds cut (not rounded) */
static void test_log_time(void)
{
    static const long long fixed[] = {
        0, 1, 59, 60, 3599, 3600, 86399, 86400, 951782400, 951868799,
        951868800, 1798761599, 1798761600, 4107542399, 4107542400,
        4107628800, 253402300799, -1, -86400, -86401,
    };
    long long t, bad = 0, n = 0;
    size_t i;
    int y, d;

    for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
        bad += !log_time_is_gmtime(fixed[i], 999999999, &n);
    for (y = 1970; y < 2200; y++)
        for (d = -3; d <= 3; d++) {
            struct tm tm = { .tm_year = y - 1900, .tm_mon = 0,
                             .tm_mday = 1 + d, .tm_hour = 23,
                             .tm_min = 59, .tm_sec = 59 };
            t = (long long)timegm(&tm);
            bad += !log_time_is_gmtime(t, 0, &n);
            bad += !log_time_is_gmtime(t + 1, 1000000, &n);
            tm.tm_mon = 1;
            tm.tm_mday = 27 + d;
            t = (long long)timegm(&tm);
            bad += !log_time_is_gmtime(t, 500000, &n);
            bad += !log_time_is_gmtime(t + 1, 123456789, &n);
        }
    for (t = 0; t < 8000000000LL; t += 7777777)
        bad += !log_time_is_gmtime(t, (long)(t % 1000000000), &n);
    CHECK(bad == 0);
    CHECK(n > 4000);
}

/* 4 threads take and give 1,000 bytes 20,000 times each against a
 * budget of 3,500: never more than 3 at once, nothing lost */
struct taker {
    struct membudget *b;
    atomic_size_t *worst;
    long refused;
};

static void *taker_main(void *arg)
{
    struct taker *t = arg;
    int i;

    for (i = 0; i < 20000; i++) {
        size_t u, w;
        if (membudget_take(t->b, 1000) < 0) {
            t->refused++;
            continue;
        }
        u = membudget_used(t->b);
        w = atomic_load(t->worst);
        while (u > w && !atomic_compare_exchange_weak(t->worst, &w, u))
            ;
        membudget_give(t->b, 1000);
    }
    return NULL;
}

static void test_membudget(void)
{
    struct membudget b;
    struct taker t[4];
    pthread_t th[4];
    atomic_size_t worst;
    int i;

    membudget_init(&b, 3500);
    CHECK(membudget_take(&b, 3000) == 0);
    CHECK(membudget_take(&b, 501) == -1);       /* past the limit */
    CHECK(membudget_used(&b) == 3000);          /* ... nothing charged */
    CHECK(membudget_take(&b, 500) == 0);        /* exactly the limit */
    CHECK(membudget_take(&b, 1) == -1);
    membudget_give(&b, 3500);
    CHECK(membudget_take(&b, 3501) == -1);      /* never fits */
    CHECK(membudget_take(&b, (size_t)-1) == -1); /* no wrap-around */
    atomic_init(&worst, 0);
    for (i = 0; i < 4; i++) {
        t[i].b = &b;
        t[i].worst = &worst;
        t[i].refused = 0;
        pthread_create(&th[i], NULL, taker_main, &t[i]);
    }
    for (i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    CHECK(atomic_load(&worst) <= 3000);
    CHECK(membudget_used(&b) == 0);
    membudget_init(&b, 0);                      /* no budget: counted */
    CHECK(membudget_take(&b, 1u << 30) == 0);
    CHECK(membudget_used(&b) == 1u << 30);
    /* trims when idle after large requests: not while anything is held,
     * MEMBUDGET_IDLE_TRIMS times, again when a connection closes (until
     * the trims ran with none open), none after small requests only */
    membudget_closed(&b);
    CHECK(membudget_idle(&b, 0) == 0);          /* no large request yet */
    CHECK(membudget_after(&b, MEMBUDGET_TRIM_BYTES - 1) == 0);
    CHECK(membudget_idle(&b, 0) == 0);
    CHECK(membudget_after(&b, MEMBUDGET_TRIM_BYTES) == 1);
    CHECK(membudget_idle(&b, 3) == 0);          /* 1 GiB still held */
    membudget_give(&b, 1u << 30);
    for (i = 0; i < MEMBUDGET_IDLE_TRIMS; i++)
        CHECK(membudget_idle(&b, 3) == 1);
    CHECK(membudget_idle(&b, 3) == 0);
    membudget_closed(&b);                       /* 3 open: 2 after */
    for (i = 0; i < MEMBUDGET_IDLE_TRIMS; i++)
        CHECK(membudget_idle(&b, 0) == 1);
    CHECK(membudget_idle(&b, 0) == 0);
    membudget_closed(&b);                       /* trimmed with none open */
    CHECK(membudget_idle(&b, 0) == 0);
    membudget_after(&b, MEMBUDGET_TRIM_BYTES - 1);
    CHECK(membudget_idle(&b, 0) == 0);
}

/* invstore_set_files() over several files (parsed through
 * inventory_add_texts): each file's object count is what a reload that
 * empties one of them is judged by, and a bad file anywhere keeps the
 * snapshot */
static void test_invstore_files(void)
{
    static const char two[] =
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\n"
        "metadata: {name: b1}\n---\n"
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\n"
        "metadata: {name: b2}\n";
    static const char three[] =
        "apiVersion: v1\nkind: List\nitems:\n"
        "- {apiVersion: resource.k8s.io/v1, kind: DeviceClass, "
        "metadata: {name: c1}}\n"
        "- {apiVersion: resource.k8s.io/v1, kind: DeviceClass, "
        "metadata: {name: c2}}\n"
        "- {apiVersion: resource.k8s.io/v1, kind: DeviceClass, "
        "metadata: {name: c3}}\n";
    struct invstore *s = invstore_new(NULL);
    struct err err = { "" };
    const char *files[] = { "a.yaml", "b.yaml", "c.yaml" };
    const char *texts[] = { inv_text, two, three };
    size_t lens[] = { sizeof(inv_text) - 1, sizeof(two) - 1,
                      sizeof(three) - 1 };
    const char *empty_b[] = { inv_text, "", three };
    size_t empty_lens[] = { sizeof(inv_text) - 1, 0, sizeof(three) - 1 };
    const char *bad_c[] = { inv_text, two, "kind: [\n" };
    size_t bad_lens[] = { sizeof(inv_text) - 1, sizeof(two) - 1, 8 };

    invstore_set_min_percent(s, 0);
    CHECK(invstore_set_files(s, 3, files, texts, lens, &err) == 0);
    CHECK(invstore_size(s) == 6);
    /* b.yaml had 2 objects: emptied, it is refused by name */
    CHECK(invstore_set_files(s, 3, files, empty_b, empty_lens, &err) == -2);
    CHECK_MSG(strstr(err.msg, "'b.yaml' is empty (it had 2 objects)")
              != NULL, "refusal: %s", err.msg);
    CHECK(invstore_size(s) == 6);
    CHECK(invstore_set_files(s, 3, files, bad_c, bad_lens, &err) == -1);
    CHECK_MSG(strstr(err.msg, "c.yaml:") != NULL, "error: %s", err.msg);
    CHECK(invstore_size(s) == 6);
    /* a.yaml emptied instead (1 object) */
    empty_b[0] = "";
    empty_lens[0] = 0;
    empty_b[1] = two;
    empty_lens[1] = sizeof(two) - 1;
    CHECK(invstore_set_files(s, 3, files, empty_b, empty_lens, &err) == -2);
    CHECK_MSG(strstr(err.msg, "'a.yaml' is empty (it had 1 objects)")
              != NULL, "refusal: %s", err.msg);
    invstore_free(s);
}

/* costly_review() on JSON text with expr in place of every '@': 1 when
 * the object's selectors are estimated costly */
static int costly_of(const char *tmpl, const char *expr)
{
    struct arena a;
    struct err err = { "" };
    struct tnode *root = NULL;
    struct buf text;
    int r = -1;

    buf_init(&text, 1 << 16);
    for (; *tmpl; tmpl++)
        if (*tmpl == '@')
            buf_adds(&text, expr);
        else
            buf_addc(&text, *tmpl);
    arena_init(&a, 0);
    if (load_json(&a, text.p, text.len, &root, &err) == 0)
        r = costly_review(root);
    else
        fprintf(stderr, "costly_of: %s\n", err.msg);
    arena_release(&a);
    buf_release(&text);
    return r;
}

/* The estimate finds a selector wherever it is (under maps and lists, at
 * any depth, after scalars), and only in a map named "cel" */
static void test_costly(void)
{
    static const char claim[] =
        "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\","
        "\"metadata\":{\"name\":\"c\",\"labels\":{\"cel\":\"x\"}},"
        "\"spec\":{\"devices\":{\"requests\":[{\"name\":\"r\",\"exactly\":"
        "{\"deviceClassName\":\"gpu\",\"count\":1,\"selectors\":["
        "{\"cel\":{\"expression\":\"device.driver != ''\"}},"
        "{\"cel\":{\"expression\":\"@\"}}]}}]}}}";
    static const char seq_of_seq[] =
        "{\"a\":[1,\"s\",[{\"cel\":{\"expression\":\"@\"}}]]}";
    static const char scalar_cel[] =
        "{\"cel\":\"@\",\"c\":{\"cel\":[\"@\"]},\"ce\":{\"expression\":"
        "\"@\"}}";
    static const char top[] = "{\"cel\":{\"expression\":\"@\"}}";
    /* 30 x 30 x 30 iterations: estimated 310,031 */
#define L30 "[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23," \
            "24,25,26,27,28,29,30]"
    static const char costly[] =
        L30 ".all(x, " L30 ".all(y, " L30 ".all(z, x * y * z > 0 && "
        "device.driver != '')))";
#undef L30
    static const char cheap[] = "device.driver != ''";

    CHECK(costly_of(claim, costly) == 1);
    CHECK(costly_of(claim, cheap) == 0);
    CHECK(costly_of(seq_of_seq, costly) == 1);
    CHECK(costly_of(seq_of_seq, cheap) == 0);
    CHECK(costly_of(scalar_cel, costly) == 0);  /* no map named cel */
    CHECK(costly_of(top, costly) == 1);         /* right under the object */
    CHECK(costly_review(NULL) == 0);
}

int main(void)
{
    test_costly();
    test_membudget();
    test_log_batch();
    test_log_time();
    test_invstore();
    test_invstore_shared();
    test_invstore_files();
    test_inventory_strings();
    test_metrics();
    test_tls();
    return CHECK_DONE();
}
