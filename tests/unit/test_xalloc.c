/*
 * test_xalloc.c - validate/xalloc.c: sizes of 0 still give a pointer to
 * free, xstrdup copies, and an allocation that cannot succeed (an
 * overflowing xcalloc, an impossible xmalloc) aborts with the message
 * instead of returning NULL.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../validate/xalloc.h"
#include "check.h"

static void oom(void *arg)
{
    int what = *(const int *)arg;

    if (what == 0)
        xcalloc(SIZE_MAX / 2, 4);       /* n * size overflows */
    else if (what == 1)
        xmalloc(SIZE_MAX - 16);         /* no such memory */
    else
        xrealloc(NULL, SIZE_MAX - 16);
}

/* Runs what in a child with stderr captured: 1 when it died of SIGABRT
 * after printing "claimcheck: out of memory". */
static int dies_of_oom(int what)
{
    char msg[256];
    int status = check_child(oom, &what, msg, sizeof(msg));

    return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT
           && strstr(msg, "claimcheck: out of memory (") == msg;
}

int main(void)
{
    char *p, *q;
    CHECK_INIT;

    p = xmalloc(0);
    CHECK(p != NULL);
    p = xrealloc(p, 0);
    CHECK(p != NULL);
    free(p);
    p = xcalloc(0, 8);
    CHECK(p != NULL);
    free(p);
    p = xcalloc(4, 8);
    CHECK(p && !memcmp(p, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16));
    p = xrealloc(p, 1 << 20);
    CHECK(p && p[0] == 0);
    free(p);
    q = xstrdup("claimcheck");
    CHECK_STR(q, "claimcheck");
    free(q);
    CHECK(dies_of_oom(0));
#ifdef __SANITIZE_ADDRESS__
    /* ASan answers an impossible size itself (allocator_may_return_null
     * is read at start-up), before xmalloc can */
    printf("skipped: xmalloc/xrealloc of an impossible size under ASan\n");
#else
    CHECK(dies_of_oom(1));
    CHECK(dies_of_oom(2));
#endif
    return CHECK_DONE();
}
