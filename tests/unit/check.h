/*
 * check.h - the smallest test harness: CHECK(cond) counts a pass or prints
 * the failing expression with file:line; check_done() prints the closing
 * line `N passed, N failed` and returns the exit status. Header-only so
 * every test binary stays one file.
 */
#ifndef CLAIMCHECK_TEST_CHECK_H
#define CLAIMCHECK_TEST_CHECK_H

#include <stdio.h>
#include <string.h>

struct check_counts {
    int passed, failed;
};

#define CHECK_INIT struct check_counts check_counts_ = {0, 0}
#define CHECK(c) check_one_(&check_counts_, (c) != 0, #c, __FILE__, __LINE__)
#define CHECK_STR(a, b) check_str_(&check_counts_, (a), (b), #a, __FILE__, \
                                   __LINE__)
#define CHECK_DONE() check_done_(&check_counts_)

static inline void check_one_(struct check_counts *c, int ok, const char *e,
                              const char *f, int l)
{
    if (ok) {
        c->passed++;
        return;
    }
    c->failed++;
    printf("FAIL %s:%d: %s\n", f, l, e);
}

static inline void check_str_(struct check_counts *c, const char *a,
                              const char *b, const char *e, const char *f,
                              int l)
{
    if (a && b && strcmp(a, b) == 0) {
        c->passed++;
        return;
    }
    c->failed++;
    printf("FAIL %s:%d: %s is \"%s\", want \"%s\"\n", f, l, e,
           a ? a : "(null)", b ? b : "(null)");
}

static inline int check_done_(const struct check_counts *c)
{
    printf("%d passed, %d failed\n", c->passed, c->failed);
    return c->failed ? 1 : 0;
}

#endif
