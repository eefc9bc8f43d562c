/*
 * xalloc.h - malloc, calloc, realloc and strdup that never return NULL:
 * out of memory prints "claimcheck: out of memory (N bytes)" and aborts,
 * as the arena does (failurePolicy decides what the apiserver does about
 * a webhook that died; the linter has nothing better to do). So callers
 * write no NULL checks. A size of 0 asks for 1 byte: the result is always
 * a pointer to free().
 */
#ifndef CLAIMCHECK_XALLOC_H
#define CLAIMCHECK_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);   /* n * size overflowing aborts too */
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* The message and abort() behind all of them (and the arena's). */
_Noreturn void xalloc_die(size_t n);

#endif
