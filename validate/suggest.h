/*
 * suggest.h - "did you mean": the known word nearest to a mistyped one
 * (an option, a rule id, a config key, a field name), as git's help.c does
 * for commands. The distance is optimal string alignment (Damerau: a swap
 * of two neighbouring letters costs one, like an insertion, deletion or
 * substitution); letters compare case-insensitively.
 *
 * Limits: words and candidates longer than SUGGEST_MAX_LEN are never
 * suggested (so one comparison costs at most 64 x 64 steps); a candidate
 * is close enough when its distance is at most a third of the typed
 * word's length, rounded up, and at least 1. On a tie the first candidate
 * offered wins, so a table's order decides.
 *
 *     struct suggest s;
 *     suggest_init(&s, typed);
 *     for (i = 0; i < n; i++)
 *         suggest_add(&s, known[i]);
 *     best = suggest_best(&s);        (NULL: nothing close enough)
 *
 * A struct suggest lives on the stack; it keeps pointers to the strings
 * it was given, which must outlive it. Do not touch the fields.
 */
#ifndef CLAIMCHECK_SUGGEST_H
#define CLAIMCHECK_SUGGEST_H

#define SUGGEST_MAX_LEN 64

struct suggest {
    const char *word;           /* what was typed */
    const char *best;           /* nearest candidate so far, or NULL */
    unsigned best_dist;
    unsigned max_dist;          /* farther candidates are ignored */
};

void suggest_init(struct suggest *s, const char *word);
void suggest_add(struct suggest *s, const char *candidate);
/* The nearest candidate within the bound, or NULL. */
const char *suggest_best(const struct suggest *s);

/* The edit distance of a and b (case-insensitive), or SUGGEST_MAX_LEN + 1
 * when either is longer than SUGGEST_MAX_LEN. */
unsigned suggest_distance(const char *a, const char *b);

#endif
