/*
 * test_suggest.c - validate/suggest.c: the edit distance (insertions,
 * deletions, substitutions, neighbour swaps, case) and the choice of the
 * nearest candidate within the bound.
 */
#include <string.h>

#include "../../validate/suggest.h"
#include "check.h"

static const char *best_of(const char *word, const char *const *cands)
{
    struct suggest s;

    suggest_init(&s, word);
    for (; *cands; cands++)
        suggest_add(&s, *cands);
    return suggest_best(&s);
}

int main(void)
{
    static const char *const opts[] = {
        "kube-version", "feature-gates", "runtime-config", "inventory",
        "format", "output", "fail-on", "config", "enable", "disable",
        "show-suppressed", "no-color", "no-hints", NULL
    };
    static const char *const rules[] = {
        "shared-claim-replicas", "pod-claim-unused", "pod-claim-undeclared",
        "selector-invalid", "selector-never-matches", NULL
    };
    static const char *const tie[] = { "abcd", "abce", NULL };
    char longw[SUGGEST_MAX_LEN + 2];
    CHECK_INIT;

    /* the distance */
    CHECK(suggest_distance("", "") == 0);
    CHECK(suggest_distance("abc", "") == 3);
    CHECK(suggest_distance("", "abc") == 3);
    CHECK(suggest_distance("format", "format") == 0);
    CHECK(suggest_distance("fromat", "format") == 1);      /* a swap */
    CHECK(suggest_distance("formt", "format") == 1);       /* a deletion */
    CHECK(suggest_distance("formaat", "format") == 1);     /* an insertion */
    CHECK(suggest_distance("formet", "format") == 1);      /* a substitution */
    CHECK(suggest_distance("FORMAT", "format") == 0);      /* case */
    CHECK(suggest_distance("kitten", "sitting") == 3);
    CHECK(suggest_distance("ca", "abc") == 3);             /* OSA, not full DL */
    CHECK(suggest_distance("abcdef", "badcfe") == 3);      /* three swaps */
    memset(longw, 'a', sizeof(longw) - 1);
    longw[sizeof(longw) - 1] = '\0';
    CHECK(suggest_distance(longw, "a") == SUGGEST_MAX_LEN + 1);
    CHECK(suggest_distance("a", longw) == SUGGEST_MAX_LEN + 1);
    longw[SUGGEST_MAX_LEN] = '\0';                          /* exactly the max */
    CHECK(suggest_distance(longw, longw) == 0);

    /* the nearest candidate */
    CHECK_STR(best_of("fromat", opts), "format");
    CHECK_STR(best_of("fail-no", opts), "fail-on");
    CHECK_STR(best_of("kube-versoin", opts), "kube-version");
    CHECK_STR(best_of("no-colour", opts), "no-color");
    CHECK_STR(best_of("inventroy", opts), "inventory");
    CHECK_STR(best_of("shared-claim-replica", rules), "shared-claim-replicas");
    CHECK_STR(best_of("selector-invlaid", rules), "selector-invalid");
    CHECK_STR(best_of("abcf", tie), "abcd");               /* first on a tie */
    CHECK_STR(best_of("Format", opts), "format");

    /* nothing close enough */
    CHECK(best_of("bogus", opts) == NULL);
    CHECK(best_of("x", opts) == NULL);
    CHECK(best_of("", opts) == NULL);
    CHECK(best_of("banana-split", rules) == NULL);
    CHECK(best_of(longw, opts) == NULL);
    {
        static const char *const one[] = { "ab", NULL };
        CHECK_STR(best_of("ax", one), "ab");                /* 1 of 2 letters */
        CHECK(best_of("xy", one) == NULL);
    }
    return CHECK_DONE();
}
