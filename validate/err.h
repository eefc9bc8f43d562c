/*
 * err.h - failures (not findings): a bad flag, an unreadable file, a
 * malformed AdmissionReview. Functions that can fail return -1 and leave a
 * message in a caller-supplied struct err; err_set() returns -1 so callers
 * can write `return err_set(err, "...")`. Messages follow git: lowercase,
 * no full stop, subject in single quotes.
 */
#ifndef CLAIMCHECK_ERR_H
#define CLAIMCHECK_ERR_H

struct err {
    char msg[256];
};

int err_set(struct err *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Programmer errors: abort with file:line (git's BUG). */
#define BUG(...) bug_at(__FILE__, __LINE__, __VA_ARGS__)
_Noreturn void bug_at(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
