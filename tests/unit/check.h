/*
 * check.h - the smallest test harness, used by every unit test: one
 * file-scope `static CHECK_INIT;`, then CHECK(cond) counts a pass or prints
 * the failing expression with file:line, CHECK_STR(a, b) compares strings,
 * CHECK_MSG(cond, fmt, ...) prints its own reason on failure, and
 * CHECK_DONE() prints the closing line `N passed, N failed` and returns the
 * exit status; check_read_file() loads a data file of cases;
 * check_child() runs what must end the process in a child. Header-only
 * so every test binary stays one file.
 */
#ifndef CLAIMCHECK_TEST_CHECK_H
#define CLAIMCHECK_TEST_CHECK_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* The contents of a data file, NUL-terminated, malloc'd (free() it); NULL
 * when it cannot be read. For drivers that run a table of cases. */
static inline char *check_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *s;
    long n;

    if (!f)
        return NULL;
    n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (n < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return NULL;
    }
    s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    fclose(f);
    if (s) {
        s[n] = 0;
        *len = (size_t)n;
    }
    return s;
}

/* Runs fn(arg) in a child process with its stderr read into out (at most
 * size - 1 bytes, NUL-terminated): the child's waitpid() status. A child
 * whose fn returns exits 0. For what must end the process (a message and
 * an exit, or a signal). */
static inline int check_child(void (*fn)(void *), void *arg, char *out,
                              size_t size)
{
    int fds[2], status = -1;
    ssize_t n;
    pid_t pid;

    if (pipe(fds) < 0)
        abort();
    pid = fork();
    if (pid < 0)
        abort();
    if (pid == 0) {
        dup2(fds[1], 2);
        close(fds[0]);
        fn(arg);
        _exit(0);
    }
    close(fds[1]);
    n = read(fds[0], out, size - 1);
    out[n > 0 ? n : 0] = '\0';
    close(fds[0]);
    waitpid(pid, &status, 0);
    return status;
}

#endif
