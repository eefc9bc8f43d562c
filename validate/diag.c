/*
 * diag.c - the finding list: append, sort, severity names. Rendering to
 * the output formats lives in render.c.
 */
#include "diag.h"

#include <stdlib.h>
#include <string.h>

#include "rule.h"
#include "arena.h"

void diag_list_init(struct diag_list *l, struct arena *a)
{
    l->arena = a;
    l->v = NULL;
    l->n = 0;
    l->cap = 0;
}

struct diag *diag_list_add(struct diag_list *l)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        l->v = arena_grow(l->arena, l->v, l->n, cap, sizeof(*l->v));
        l->cap = cap;
    }
    memset(&l->v[l->n], 0, sizeof(l->v[0]));
    return &l->v[l->n++];
}

static int cmp_str(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "");
}

static int diag_cmp(const void *pa, const void *pb)
{
    const struct diag *a = pa, *b = pb;
    int c = cmp_str(a->file, b->file);

    if (c)
        return c;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    if (a->col != b->col)
        return a->col < b->col ? -1 : 1;
    c = cmp_str(a->rule ? a->rule->id : NULL, b->rule ? b->rule->id : NULL);
    if (c)
        return c;
    c = cmp_str(a->path, b->path);
    if (c)
        return c;
    return cmp_str(a->msg, b->msg);
}

void diag_list_sort(struct diag_list *l)
{
    if (l->n > 1)
        qsort(l->v, l->n, sizeof(*l->v), diag_cmp);
}

const char *sev_name(enum sev s)
{
    switch (s) {
    case SEV_ERROR: return "error";
    case SEV_WARN: return "warning";
    case SEV_INFO: return "info";
    case SEV_OFF: return "off";
    }
    return "off";
}

int sev_parse(const char *s, enum sev *out)
{
    if (!strcmp(s, "error"))
        *out = SEV_ERROR;
    else if (!strcmp(s, "warning") || !strcmp(s, "warn"))
        *out = SEV_WARN;
    else if (!strcmp(s, "info"))
        *out = SEV_INFO;
    else if (!strcmp(s, "off") || !strcmp(s, "ignore"))
        *out = SEV_OFF;
    else
        return -1;
    return 0;
}
