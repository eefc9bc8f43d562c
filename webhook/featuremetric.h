/*
 * featuremetric.h - the apiserver's feature gates as its /metrics text
 * says them: the samples of `kubernetes_feature_enabled{name="X",
 * stage="BETA"} 0|1` in the Prometheus text format (0.0.4), read for the
 * gates of the gate table (validate/k8s/gates.h); every other metric and
 * every other gate is skipped.
 *
 * Strict and bounded: a sample of that metric must be well formed (label
 * names, quoted values with the format's three escapes, a value of 0 or 1,
 * an optional integer timestamp), have a `name` label, and say the same of
 * a gate every time; a NUL byte anywhere, more than FEATUREMETRIC_MAX_SAMPLES
 * samples or a sample line over FEATUREMETRIC_LINE_MAX bytes fail the whole
 * text. The caller bounds the text's size (the GET's buffer).
 */
#ifndef CLAIMCHECK_WEBHOOK_FEATUREMETRIC_H
#define CLAIMCHECK_WEBHOOK_FEATUREMETRIC_H

#include <stddef.h>

#include "../validate/target.h"

struct err;

#define FEATUREMETRIC_NAME "kubernetes_feature_enabled"
#define FEATUREMETRIC_MAX_SAMPLES 4096  /* kube-apiserver has ~300 gates */
#define FEATUREMETRIC_LINE_MAX 1024     /* one sample line of the metric */

struct featuremetric {
    signed char on[TARGET_MAX_GATES];   /* by gate-table index: 1 on, 0 off,
                                           -1 not in the text */
    size_t samples;                     /* samples of the metric read */
    size_t known;                       /* ... of gates in the gate table */
};

/* Parses text (len bytes, need not end in NUL) into fm. 0, or -1 with err
 * naming the line and what is wrong with it (fm is then all -1). */
int featuremetric_parse(struct featuremetric *fm, const char *text,
                        size_t len, struct err *err);

#endif
