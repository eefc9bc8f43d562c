/*
 * suggest.c - the "did you mean" search: optimal string alignment distance
 * over at most SUGGEST_MAX_LEN letters, three rows of a dynamic program on
 * the stack (no allocation). Owns only the distance and the choice of the
 * nearest candidate; what to say about it is the caller's.
 */
#include "suggest.h"

#include <ctype.h>
#include <string.h>

static unsigned min3(unsigned a, unsigned b, unsigned c)
{
    unsigned m = a < b ? a : b;

    return m < c ? m : c;
}

static int same(char a, char b)
{
    return tolower((unsigned char)a) == tolower((unsigned char)b);
}

unsigned suggest_distance(const char *a, const char *b)
{
    unsigned rows[3][SUGGEST_MAX_LEN + 1];
    unsigned *prev2 = rows[0], *prev = rows[1], *cur = rows[2], *t;
    size_t la = strlen(a), lb = strlen(b), i, j;

    if (la > SUGGEST_MAX_LEN || lb > SUGGEST_MAX_LEN)
        return SUGGEST_MAX_LEN + 1;
    for (j = 0; j <= lb; j++)
        prev[j] = (unsigned)j;
    for (i = 1; i <= la; i++) {
        cur[0] = (unsigned)i;
        for (j = 1; j <= lb; j++) {
            unsigned cost = same(a[i - 1], b[j - 1]) ? 0 : 1;
            cur[j] = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
            if (i > 1 && j > 1 && same(a[i - 1], b[j - 2])
                && same(a[i - 2], b[j - 1]) && prev2[j - 2] + 1 < cur[j])
                cur[j] = prev2[j - 2] + 1;
        }
        t = prev2;
        prev2 = prev;
        prev = cur;
        cur = t;
    }
    return prev[lb];
}

void suggest_init(struct suggest *s, const char *word)
{
    size_t n = strlen(word);

    s->word = word;
    s->best = NULL;
    s->best_dist = SUGGEST_MAX_LEN + 1;
    s->max_dist = n > SUGGEST_MAX_LEN ? 0 : (unsigned)(n + 2) / 3;
    if (n && n <= SUGGEST_MAX_LEN && s->max_dist < 1)
        s->max_dist = 1;
}

void suggest_add(struct suggest *s, const char *candidate)
{
    unsigned d;

    if (!candidate || !s->max_dist)
        return;
    d = suggest_distance(s->word, candidate);
    if (d <= s->max_dist && d < s->best_dist) {
        s->best = candidate;
        s->best_dist = d;
    }
}

const char *suggest_best(const struct suggest *s)
{
    return s->best;
}
