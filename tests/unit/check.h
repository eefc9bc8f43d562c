/*
 * check.h - the smallest test harness, used by every unit test: one
 * file-scope `static CHECK_INIT;`, then CHECK(cond) counts a pass or prints
 * the failing expression with file:line, CHECK_STR(a, b) compares strings,
 * CHECK_MSG(cond, fmt, ...) prints its own reason on failure, and
 * CHECK_DONE() prints the closing line `N passed, N failed` and returns the
 * exit status. Header-only so every test binary stays one file.
 */
#ifndef CLAIMCHECK_TEST_CHECK_H
#define CLAIMCHECK_TEST_CHECK_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct check_counts {
    int passed, failed;
};

#define CHECK_INIT struct check_counts check_counts_ = {0, 0}
#define CHECK(c) check_one_(&check_counts_, (c) != 0, #c, __FILE__, __LINE__)
#define CHECK_STR(a, b) check_str_(&check_counts_, (a), (b), #a, __FILE__, \
                                   __LINE__)
#define CHECK_MSG(c, ...) check_msg_(&check_counts_, (c) != 0, __FILE__, \
                                    __LINE__, __VA_ARGS__)
#define CHECK_DONE() check_done_(&check_counts_)
/* the counters themselves, for drivers that tally data files */
#define CHECK_COUNTS (&check_counts_)

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

static inline void check_msg_(struct check_counts *c, int ok, const char *f,
                              int l, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static inline void check_msg_(struct check_counts *c, int ok, const char *f,
                              int l, const char *fmt, ...)
{
    va_list ap;

    if (ok) {
        c->passed++;
        return;
    }
    c->failed++;
    printf("FAIL %s:%d: ", f, l);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

static inline int check_done_(const struct check_counts *c)
{
    printf("%d passed, %d failed\n", c->passed, c->failed);
    return c->failed ? 1 : 0;
}

#endif
