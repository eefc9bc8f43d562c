/*
 * buf.h - bounded growable byte string (curl's dynbuf). Every buffer has a
 * maximum fixed at buf_init(); an append past it fails with -1 and leaves the
 * buffer unchanged, so network input can never grow memory without bound.
 *
 * Invariants: after buf_init(), b->p is never NULL and is NUL-terminated;
 * b->len excludes the NUL. Read p/len freely; do not write the fields.
 * Allocation failure aborts (like the arena).
 */
#ifndef CLAIMCHECK_BUF_H
#define CLAIMCHECK_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct buf {
    char *p;        /* contents, NUL-terminated */
    size_t len;     /* bytes used, without the NUL */
    size_t cap;     /* bytes allocated */
    size_t max;     /* hard limit on len */
};

void buf_init(struct buf *b, size_t max);
int buf_add(struct buf *b, const void *s, size_t n);  /* 0 or -1 (too big) */
int buf_adds(struct buf *b, const char *s);
int buf_addc(struct buf *b, char c);
int buf_addf(struct buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int buf_vaddf(struct buf *b, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
/* Appends s as a JSON string literal (quotes and escapes included). */
int buf_add_json_str(struct buf *b, const char *s);
/* The same as Go's encoding/json.Marshal writes it (what the apiserver
 * receives from kubectl): <, > and & as \u003c \u003e \u0026, U+2028 and
 * U+2029 escaped, invalid UTF-8 as \ufffd per byte. */
int buf_add_json_str_go(struct buf *b, const char *s);
/* Appends the bytes that standard base64 text s[0..n) encodes. strict is
 * Go's base64.StdEncoding (padding required, only \r and \n ignored, as a
 * YAML !!binary value is read); else spaces are ignored too and padding
 * is optional. 0, or -1 when s is not base64 or the result does not fit
 * (b is then as it was). */
int buf_add_base64(struct buf *b, const char *s, size_t n, int strict);
/* Appends s for a terminal, a CI log or stderr: control characters
 * escaped (\n \r \t \e, \xHH, C1 as \u0080-\u009f, bytes that are not
 * UTF-8 as \xHH), so s can start no line and send no terminal sequence.
 * line_start: s begins a line, so a leading "::" (after spaces: a GitHub
 * workflow command) becomes "\x3a:". */
int buf_add_visible(struct buf *b, const char *s, int line_start);
/* Makes room for n more bytes, allocating exactly that much when it must
 * grow (a body whose length is known: no doubling slack, no copies while
 * it is read). 0, or -1 when len + n would pass max. */
int buf_presize(struct buf *b, size_t n);
void buf_reset(struct buf *b);          /* len = 0, keeps memory */
void buf_release(struct buf *b);        /* frees; buf_init again to reuse */

#endif
