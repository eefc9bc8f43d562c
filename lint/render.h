/*
 * render.h - one renderer per output format for a finding list (jq's one
 * locfile_locate idea): text (compiler style), JSON (the contract's
 * format), SARIF 2.1.0, JUnit XML and GitHub workflow commands.
 */
#ifndef CLAIMCHECK_RENDER_H
#define CLAIMCHECK_RENDER_H

#include <stdio.h>
#include <stddef.h>

#include "../validate/diag.h"

enum render_format { FMT_TEXT, FMT_JSON, FMT_SARIF, FMT_JUNIT, FMT_GITHUB };

/* A checked object, for JUnit (one testcase each) */
struct render_object {
    const char *file, *kind, *ns, *name;
};

struct ruleset;

struct render_opts {
    const struct ruleset *rules;    /* SARIF lists them all */
    int color;                  /* ANSI colours (text, on a terminal) */
    int hints;                  /* print hint lines (text) */
    int show_suppressed;        /* list suppressed findings too */
    enum sev fail_on;           /* JUnit failure threshold */
    const char *kube_version;   /* "1.34" for the JSON header */
    const char *tool_version;   /* claimcheck version for SARIF */
    size_t files, objects;      /* summary counts */
    const struct render_object *objs;   /* JUnit testcases */
    size_t nobjs;
};

int render_format_parse(const char *s, enum render_format *out);
/* Writes the whole report for l to f. Returns 0, or -1 on a write error. */
int render(FILE *f, enum render_format fmt, const struct diag_list *l,
           const struct render_opts *o);

#endif
