/*
 * rule.c - lookups on a rule table and the category names (exact, and
 * "did you mean"). The tables
 * themselves belong to the front ends' rule sets (rules/registry.c).
 */
#include "rule.h"

#include <string.h>

#include "suggest.h"

const struct rule *ruleset_find(const struct ruleset *rs, const char *id)
{
    size_t lo = 0, hi = rs->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(id, rs->v[mid].id);
        if (c == 0)
            return &rs->v[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

static const char *const category_names[] = {
    [CAT_INPUT] = "input",
    [CAT_SCHEMA] = "schema",
    [CAT_REFERENCE] = "reference",
    [CAT_CONFLICT] = "conflict",
    [CAT_FEATURE_GATE] = "feature-gate",
    [CAT_API_VERSION] = "api-version",
    [CAT_SELECTOR] = "selector",
    [CAT_SATISFIABILITY] = "satisfiability",
    [CAT_SHARING] = "sharing",
};

const char *category_name(enum category c)
{
    return category_names[c];
}

int category_parse(const char *s, enum category *out)
{
    size_t i;

    for (i = 0; i < sizeof(category_names) / sizeof(category_names[0]); i++)
        if (strcmp(s, category_names[i]) == 0) {
            *out = (enum category)i;
            return 0;
        }
    return -1;
}

const char *ruleset_suggest(const struct ruleset *rs, const char *word)
{
    struct suggest s;
    size_t i;

    suggest_init(&s, word);
    for (i = 0; i < rs->n; i++)
        suggest_add(&s, rs->v[i].id);
    for (i = 0; i < sizeof(category_names) / sizeof(category_names[0]); i++)
        suggest_add(&s, category_names[i]);
    return suggest_best(&s);
}
