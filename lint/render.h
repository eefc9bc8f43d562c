/*
 * render.h - the output formats of a finding list, one file each
 * (render_text.c, render_json.c, render_sarif.c, render_junit.c,
 * render_github.c, render_policyreport.c, render_html.c) behind one table,
 * render_formats[] in render.c: a new format is one file and one row.
 * Every renderer reads the same struct diag fields; none decides
 * severities or filters rules (the engine did).
 */
#ifndef CLAIMCHECK_RENDER_H
#define CLAIMCHECK_RENDER_H

#include <stdio.h>
#include <stddef.h>

#include "../validate/diag.h"

struct buf;
struct ruleset;

/* A checked object: JUnit has one testcase each, a PolicyReport one pass
 * result for each without a finding */
struct render_object {
    const char *file, *api_version, *kind, *ns, *name;
};

struct devicemap;

/* --fail-on RULE=LEVEL: one rule's own threshold */
struct render_fail_rule {
    const char *rule;           /* a rule id */
    enum sev sev;               /* the lowest severity that fails; SEV_OFF:
                                   never */
};

struct render_opts {
    const struct ruleset *rules;    /* SARIF lists them all */
    int color;                  /* ANSI colours (text, on a terminal) */
    int hints;                  /* print hint lines (text) */
    int show_suppressed;        /* list suppressed findings too */
    enum sev fail_on;           /* JUnit failure threshold */
    const struct render_fail_rule *fail_rules;  /* ... per rule, which win */
    size_t nfail_rules;
    const char *kube_version;   /* "1.34" for the JSON header */
    const char *tool_version;   /* claimcheck version for SARIF */
    size_t files, objects;      /* summary counts */
    const struct render_object *objs;   /* JUnit testcases */
    size_t nobjs;
    const char *cluster;        /* audit: the apiserver read ("https://..."):
                                   findings are located by object, not by
                                   file:line, and the summary names it */
    long long now;              /* Unix seconds: PolicyReport timestamps */
    const struct devicemap *devicemap;  /* html: the devices (NULL: none) */
    int no_inventory;           /* judged without an inventory (no -i) */
    int input_inventory;        /* the linted files' ResourceSlices and
                                   Nodes served as the inventory */
    const struct rule **not_run;    /* rules that could not run */
    size_t nnot_run;
};

struct render_format {
    const char *name;           /* what -o takes: "text" */
    int color;                  /* may use colour on a terminal */
    void (*render)(struct buf *b, const struct diag_list *l,
                   const struct render_opts *o);
};

/* The formats, in the order help and completion list them. */
extern const struct render_format render_formats[];
extern const size_t render_nformats;

/* 1 if d (not suppressed) fails the run: at or above its rule's own
 * threshold in v (the last one given), else at or above fail_on (SEV_OFF:
 * never). */
int render_fails(enum sev fail_on, const struct render_fail_rule *v,
                 size_t n, const struct diag *d);
/* The format called name, or NULL. */
const struct render_format *render_format_find(const char *name);
/* Writes the whole report for l to f. Returns 0, or -1 on a write error. */
int render(FILE *f, const struct render_format *fmt,
           const struct diag_list *l, const struct render_opts *o);

#endif
