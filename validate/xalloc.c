/*
 * xalloc.c - the allocation wrappers of xalloc.h: the C library's calls,
 * and one way to die when they fail.
 */
#include "xalloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void xalloc_die(size_t n)
{
    fprintf(stderr, "claimcheck: out of memory (%zu bytes)\n", n);
    abort();
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);

    if (!p)
        xalloc_die(n);
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    void *p;

    if (size && n > SIZE_MAX / size)
        xalloc_die(SIZE_MAX);
    p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        xalloc_die(n * size);
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);

    if (!q)
        xalloc_die(n);
    return q;
}

char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;

    return memcpy(xmalloc(n), s, n);
}
