/*
 * hook_test_featuremetric.c - the apiserver's feature gates read from its
 * /metrics text (webhook/featuremetric.c): a real page's shape (comments,
 * other metrics, gates the table does not know), the format's escapes and
 * spacing, and hostile input: malformed samples, a gate both on and off,
 * NUL bytes, overlong lines and too many samples fail the whole text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../validate/buf.h"
#include "../../validate/err.h"
#include "../../validate/k8s/gates.h"
#include "../../webhook/featuremetric.h"
#include "check.h"

static CHECK_INIT;

static int parse(struct featuremetric *fm, const char *text, struct err *e)
{
    e->msg[0] = '\0';
    return featuremetric_parse(fm, text, strlen(text), e);
}

static int gate(const struct featuremetric *fm, const char *name)
{
    int i = gate_find(name);

    return i < 0 ? -2 : fm->on[i];
}

static void test_page(void)
{
    struct featuremetric fm;
    struct err e;
    const char *page =
        "# HELP kubernetes_feature_enabled [BETA] This metric records the "
        "data about the stage and enablement of a k8s feature.\n"
        "# TYPE kubernetes_feature_enabled gauge\n"
        "kubernetes_feature_enabled{name=\"APIListChunking\",stage=\"\"} 1\n"
        "kubernetes_feature_enabled{name=\"DRAAdminAccess\",stage=\"BETA\"} 0\n"
        "kubernetes_feature_enabled{stage=\"BETA\",name=\"DRAPrioritizedList\"}"
        " 1 1700000000000\n"
        "kubernetes_feature_enabled_total 7\n"
        "apiserver_request_total{code=\"200\",name=\"x}\\\"y\"} 12.5e3\n"
        "\n"
        "  kubernetes_feature_enabled { name = \"DRAListTypeAttributes\" , "
        "stage=\"ALPHA\\n\\\\\", } 0\n"
        "kubernetes_feature_enabled{name=\"DRAAdminAccess\",stage=\"BETA\"} 0";

    CHECK(parse(&fm, page, &e) == 0);
    CHECK_STR(e.msg, "");
    CHECK(gate(&fm, "DRAAdminAccess") == 0);
    CHECK(gate(&fm, "DRAPrioritizedList") == 1);
    CHECK(gate(&fm, "DRAListTypeAttributes") == 0);
    CHECK(gate(&fm, "DRAPartitionableDevices") == -1);  /* not in the text */
    CHECK(fm.samples == 5);
    CHECK(fm.known == 3);               /* APIListChunking is not DRA */
    CHECK(parse(&fm, "", &e) == 0 && fm.samples == 0 && fm.known == 0);
    CHECK(parse(&fm, "# only comments\nup 1\n", &e) == 0 && fm.samples == 0);
}

/* every line must fail the whole text, naming its line */
static void test_hostile(void)
{
    static const char *bad[] = {
        "kubernetes_feature_enabled{name=\"DRAAdminAccess\"} 2",
        "kubernetes_feature_enabled{name=\"DRAAdminAccess\"} 1.0",
        "kubernetes_feature_enabled{name=\"DRAAdminAccess\"} true",
        "kubernetes_feature_enabled{name=\"DRAAdminAccess\"}",
        "kubernetes_feature_enabled{name=\"DRAAdminAccess\"}1",
        "kubernetes_feature_enabled{name=\"DRAAdminAccess\"} 1 12 13",
        "kubernetes_feature_enabled{name=\"DRAAdminAccess\"} 1 -",
        "kubernetes_feature_enabled{name=\"DRAAdminAccess\" 1",
        "kubernetes_feature_enabled{name=\"DRAAdminAccess} 1",
        "kubernetes_feature_enabled{name=DRAAdminAccess} 1",
        "kubernetes_feature_enabled{name\"DRAAdminAccess\"} 1",
        "kubernetes_feature_enabled{=\"DRAAdminAccess\"} 1",
        "kubernetes_feature_enabled{9name=\"DRAAdminAccess\"} 1",
        "kubernetes_feature_enabled{name=\"DRA\\tAdmin\"} 1",
        "kubernetes_feature_enabled{name=\"DRA Admin\"} 1",
        "kubernetes_feature_enabled{name=\"\"} 1",
        "kubernetes_feature_enabled{stage=\"BETA\"} 1",
        "kubernetes_feature_enabled 1",
        "kubernetes_feature_enabled{name=\"A\",name=\"B\"} 1",
        "kubernetes_feature_enabled{name=\"DRAAdminAccess\"}} 1",
        "kubernetes_feature_enabled{,} 1",
        "kubernetes_feature_enabled{name=\"DRAAdminAccess\"} 1\r",
    };
    struct featuremetric fm;
    struct err e;
    char text[512];
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        snprintf(text, sizeof(text), "# TYPE x gauge\n%s\nup 1\n", bad[i]);
        CHECK_MSG(parse(&fm, text, &e) < 0 && strstr(e.msg, "line 2 ")
                  && gate(&fm, "DRAAdminAccess") == -1,
                  "accepted or wrong message: %s -> '%s'", bad[i], e.msg);
    }
    CHECK(parse(&fm, "kubernetes_feature_enabled{name=\"DRAAdminAccess\"} 1\n"
                "kubernetes_feature_enabled{name=\"DRAAdminAccess\"} 0\n",
                &e) < 0);
    CHECK(strstr(e.msg, "'DRAAdminAccess' is both on and off") != NULL);
    CHECK(gate(&fm, "DRAAdminAccess") == -1);
    /* a NUL byte, even in a line of another metric */
    CHECK(featuremetric_parse(&fm, "up 1\n\0x 1\n", 10, &e) < 0);
    CHECK(strstr(e.msg, "NUL") != NULL);
    /* the text need not end in NUL: only len bytes are read */
    CHECK(featuremetric_parse(&fm, "kubernetes_feature_enabled{name=\"DRA"
                              "AdminAccess\"} 1 trailing", 51, &e) == 0);
    CHECK(gate(&fm, "DRAAdminAccess") == 1);
}

static void test_bounds(void)
{
    struct featuremetric fm;
    struct err e;
    struct buf b;
    size_t i;

    buf_init(&b, 1u << 20);
    /* a label value longer than the gate name may be */
    buf_adds(&b, "kubernetes_feature_enabled{name=\"");
    for (i = 0; i < 600; i++)
        buf_addc(&b, 'A');
    buf_adds(&b, "\"} 1\n");
    CHECK(featuremetric_parse(&fm, b.p, b.len, &e) < 0);
    /* a line over FEATUREMETRIC_LINE_MAX */
    buf_reset(&b);
    buf_adds(&b, "kubernetes_feature_enabled{name=\"X\",stage=\"");
    for (i = 0; i < FEATUREMETRIC_LINE_MAX; i++)
        buf_addc(&b, 'b');
    buf_adds(&b, "\"} 1\n");
    CHECK(featuremetric_parse(&fm, b.p, b.len, &e) < 0);
    CHECK(strstr(e.msg, "too long") != NULL);
    /* as many samples as allowed pass, one more fails */
    buf_reset(&b);
    for (i = 0; i < FEATUREMETRIC_MAX_SAMPLES; i++)
        buf_addf(&b, "kubernetes_feature_enabled{name=\"G%zu\"} 1\n", i);
    CHECK(featuremetric_parse(&fm, b.p, b.len, &e) == 0);
    CHECK(fm.samples == FEATUREMETRIC_MAX_SAMPLES && fm.known == 0);
    buf_adds(&b, "kubernetes_feature_enabled{name=\"DRAAdminAccess\"} 1\n");
    CHECK(featuremetric_parse(&fm, b.p, b.len, &e) < 0);
    CHECK(strstr(e.msg, "too many samples") != NULL);
    buf_release(&b);
}

int main(void)
{
    test_page();
    test_hostile();
    test_bounds();
    return CHECK_DONE();
}
