/*
 * diag.h - findings and their renderers.
 *
 * A finding (struct diag) is data: rules add them through report() (see
 * rules/rules.h), the engine resolves the effective severity, and one
 * renderer per output format prints a diag_list. Every string in a diag is
 * owned by the arena of the list. Positions are 1-based; 0 = unknown.
 */
#ifndef CLAIMCHECK_DIAG_H
#define CLAIMCHECK_DIAG_H

#include <stdio.h>
#include <stddef.h>

struct arena;
struct buf;
struct rule;

enum sev { SEV_OFF, SEV_INFO, SEV_WARN, SEV_ERROR };

struct diag {
    const struct rule *rule;    /* id, category, summary, hint */
    enum sev sev;               /* effective severity */
    const char *api_version, *kind, *ns, *name; /* object reported on */
    unsigned doc_index;         /* document number in its file (0-based) */
    const char *path;           /* "spec.template.spec.containers[0]..." */
    const char *file;           /* as given on the command line; "-" stdin */
    unsigned line, col;
    const char *msg;            /* one sentence, lowercase, no full stop */
    const char *hint;           /* NULL -> rule->hint */
    const char **details;       /* explanation lines (satisfiability) */
    size_t ndetails;
    int suppressed;             /* an ignore annotation matched */
    const char *suppress_reason;
};

struct diag_list {
    struct arena *arena;        /* owns the diags and their strings */
    struct diag *v;
    size_t n, cap;
};

void diag_list_init(struct diag_list *l, struct arena *a);
/* Appends a zeroed diag and returns it (arena-owned, valid until the next
 * diag_list_add: the vector may move). */
struct diag *diag_list_add(struct diag_list *l);
/* Stable sort by file, line, column, rule id. */
void diag_list_sort(struct diag_list *l);
const char *sev_name(enum sev s);       /* "error", "warning", "info" */
int sev_parse(const char *s, enum sev *out);  /* also "off"; -1 if unknown */

#endif
