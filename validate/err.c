/*
 * err.c - the failure message holder and BUG().
 */
#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int err_set(struct err *e, const char *fmt, ...)
{
    va_list ap;

    if (!e)
        return -1;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
    va_end(ap);
    return -1;
}

void bug_at(const char *file, int line, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "BUG: %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}
