/*
 * outputs.h - what a report goes to, shared by `claimcheck lint` and
 * `claimcheck audit`: the formats asked for (-o F, each optionally
 * followed by --output FILE, kube-linter's convention; at most one to
 * stdout), --fail-on, writing every format, and the exit status the
 * findings give. Messages go to stderr as "PROG: MESSAGE".
 */
#ifndef CLAIMCHECK_OUTPUTS_H
#define CLAIMCHECK_OUTPUTS_H

#include <stddef.h>

#include "../validate/diag.h"
#include "render.h"

struct arena;
struct err;
struct run;

#define OUTPUTS_MAX 8
#define OUTPUTS_MAX_FAIL_RULES 128  /* --fail-on RULE=LEVEL options */

struct output {
    const struct render_format *fmt;
    const char *file;           /* NULL or "-": stdout */
};

struct outputs {
    struct output v[OUTPUTS_MAX];
    size_t n;
    int no_color;               /* --no-color */
    enum sev fail_on;           /* outputs_init: SEV_ERROR */
    struct render_fail_rule fail_rules[OUTPUTS_MAX_FAIL_RULES];
    size_t nfail_rules;         /* --fail-on RULE=LEVEL, in order */
};

void outputs_init(struct outputs *o);
/* -o NAME: 0, or -1 with err (unknown format, too many). */
int outputs_add(struct outputs *o, const char *name, struct err *err);
/* --output FILE for the -o before it: 0, or -1 with err. */
int outputs_set_file(struct outputs *o, const char *file, struct err *err);
/* --fail-on error|warning|info|never, or RULE=LEVEL for one rule of
 * rules (later ones win): 0, or -1 with err (an unknown level; an unknown
 * rule id, with the nearest one). */
int outputs_fail_on(struct outputs *o, const struct ruleset *rules,
                    const char *v, struct err *err);
/* After the options: text to stdout when none was asked for; -1 with err
 * when two formats would go to stdout. */
int outputs_finish(struct outputs *o, struct err *err);
/* Writes every format (colour for text on a terminal unless --no-color or
 * NO_COLOR). Returns 0, or -1 after printing "prog: ..." for a file that
 * cannot be written. */
int outputs_write(const struct outputs *o, const char *prog,
                  const struct diag_list *l, struct render_opts *ro);
/* The run's checked objects as ro's testcases (JUnit), allocated in a. */
void outputs_objects(struct arena *a, const struct run *r,
                     struct render_opts *ro);
/* 1 if one of the formats is `name` ("html"). */
int outputs_has(const struct outputs *o, const char *name);
/* 1 if a finding that is not suppressed is at or above --fail-on (its
 * rule's own, else the global one). */
int outputs_failed(const struct outputs *o, const struct diag_list *l);

#endif
