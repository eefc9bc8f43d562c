/*
 * file.c - whole-file reading with a size limit: a regular file in one
 * exact allocation after stat(), anything else (stdin, a pipe, a file
 * that grows while read) through a bounded growing buffer. Owns the
 * messages for unreadable and oversized files; what a file means is the
 * caller's. A text kept whole (file_text_read(), the linter's inputs) is
 * mapped instead when it is a big regular file. Also the listing of a
 * directory's entries and the set of directories a walk has entered.
 */
#include "file.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "err.h"
#include "xalloc.h"

static int too_large(const char *path, size_t max, struct err *err)
{
    if (max % (1024 * 1024) == 0)
        return err_set(err, "'%s' is larger than the %zu MiB input limit",
                       path, max / (1024 * 1024));
    if (max % 1024 == 0)
        return err_set(err, "'%s' is larger than the %zu KiB input limit",
                       path, max / 1024);
    return err_set(err, "'%s' is larger than the %zu byte input limit", path,
                   max);
}

static int read_stream(FILE *f, const char *path, size_t max, char **data,
                       size_t *len, struct err *err)
{
    struct buf b;
    char chunk[65536];
    size_t n;

    buf_init(&b, max);
    for (;;) {
        n = fread(chunk, 1, sizeof(chunk), f);
        if (n && buf_add(&b, chunk, n) < 0) {
            buf_release(&b);
            return too_large(path, max, err);
        }
        if (n < sizeof(chunk))
            break;
    }
    if (ferror(f)) {
        buf_release(&b);
        return err_set(err, "cannot read '%s': %s", path, strerror(errno));
    }
    if (!b.cap) {   /* nothing read: still hand out a malloc'ed buffer */
        buf_addc(&b, '\0');
        b.len = 0;
    }
    *data = b.p;    /* malloc'ed and NUL-terminated */
    *len = b.len;
    return 0;
}

/* The pages of p[0..n) made resident and writable in one call, where the
 * kernel can (Linux 5.14): read() into a fresh big buffer otherwise takes
 * a page fault per 4 KiB, which was a tenth of a lint of a 12 MB file on a
 * virtual machine (issue 17). Only whole pages inside the block. */
static void prefault(char *p, size_t n)
{
#ifdef MADV_POPULATE_WRITE
    const size_t page = 4096;
    uintptr_t from = ((uintptr_t)p + page - 1) & ~(uintptr_t)(page - 1);
    uintptr_t to = ((uintptr_t)p + n) & ~(uintptr_t)(page - 1);

    if (n >= 64 * page && to > from)
        (void)madvise((void *)from, to - from, MADV_POPULATE_WRITE);
#else
    (void)p;
    (void)n;
#endif
}

/* A regular file of a known size: one exact allocation; a file that grew
 * since stat() is read again as a stream. */
static int read_sized(FILE *f, const char *path, size_t size, size_t max,
                      char **data, size_t *len, struct err *err)
{
    char *p;
    size_t n;

    if (size > max)
        return too_large(path, max, err);
    p = xmalloc(size + 1);
    prefault(p, size + 1);
    n = fread(p, 1, size, f);
    if (ferror(f)) {
        free(p);
        return err_set(err, "cannot read '%s': %s", path, strerror(errno));
    }
    if (n == size && fgetc(f) != EOF) {
        free(p);
        rewind(f);
        return read_stream(f, path, max, data, len, err);
    }
    p[n] = '\0';
    *data = p;
    *len = n;
    return 0;
}

/* The open file f, st its fstat() (NULL: none), read whole. */
static int read_open(FILE *f, const struct stat *st, const char *path,
                     size_t max, char **data, size_t *len, struct err *err)
{
    if (st && S_ISREG(st->st_mode))
        return read_sized(f, path, st->st_size < 0 ? 0 : (size_t)st->st_size,
                          max, data, len, err);
    return read_stream(f, path, max, data, len, err);
}

int file_read(const char *path, size_t max, char **data, size_t *len,
              struct err *err)
{
    struct stat st;
    FILE *f;
    int rc;

    *data = NULL;
    *len = 0;
    if (!strcmp(path, "-"))
        return read_stream(stdin, path, max, data, len, err);
    f = fopen(path, "rb");
    if (!f)
        return err_set(err, "cannot open '%s': %s", path, strerror(errno));
    rc = read_open(f, fstat(fileno(f), &st) == 0 ? &st : NULL, path, max,
                   data, len, err);
    fclose(f);
    if (rc < 0)
        *data = NULL;
    return rc;
}

/* ==== texts kept whole: mapped when big ================================= */

/* A file shrinking under its mapping leaves pages with nothing behind
 * them; reading one raises SIGBUS. The text cannot be finished then:
 * said, and the exit status of an unreadable input. */
static void on_sigbus(int sig)
{
    static const char msg[] = "claimcheck: an input file was truncated "
                              "while it was read\n";
    ssize_t n;

    (void)sig;
    n = write(STDERR_FILENO, msg, sizeof(msg) - 1);
    (void)n;
    _exit(2);
}

/* Maps the regular file fd of size bytes (0 < size <= max) read-only
 * with its pages made resident in one call, and puts the NUL after the
 * text in a private copy of the last page, so no later write to the file
 * can take it away. Returns 0, or 1 when the file is better read: its
 * size a multiple of the page size (no room for the NUL) or mapping
 * refused. */
static int map_text(int fd, size_t size, struct file_text *t)
{
    long pagesz = sysconf(_SC_PAGESIZE);
    size_t page = pagesz > 0 ? (size_t)pagesz : 4096, last;
    struct sigaction sa;
    char *p;
    int populate = 0;

    if (size % page == 0)
        return 1;
#ifdef MAP_POPULATE
    populate = MAP_POPULATE;
#endif
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_sigbus;
    sigemptyset(&sa.sa_mask);
    (void)sigaction(SIGBUS, &sa, NULL);
    p = mmap(NULL, size, PROT_READ, MAP_PRIVATE | populate, fd, 0);
    if (p == MAP_FAILED)
        return 1;
    last = size - size % page;
    if (mprotect(p + last, page, PROT_READ | PROT_WRITE) < 0) {
        munmap(p, size);
        return 1;
    }
    p[size] = '\0';
    (void)mprotect(p + last, page, PROT_READ);
    t->data = p;
    t->len = size;
    t->mapped = size;
    return 0;
}

int file_text_read(const char *path, size_t max, struct file_text *t,
                   struct err *err)
{
    struct stat st;
    char *data = NULL;
    FILE *f;
    int rc, have_st;

    memset(t, 0, sizeof(*t));
    if (!strcmp(path, "-")) {
        if (file_read(path, max, &data, &t->len, err) < 0)
            return -1;
        t->data = data;
        return 0;
    }
    f = fopen(path, "rb");
    if (!f)
        return err_set(err, "cannot open '%s': %s", path, strerror(errno));
    have_st = fstat(fileno(f), &st) == 0;
    if (have_st && S_ISREG(st.st_mode) && st.st_size >= FILE_MAP_MIN
        && (unsigned long long)st.st_size <= max
        && map_text(fileno(f), (size_t)st.st_size, t) == 0) {
        fclose(f);
        return 0;
    }
    rc = read_open(f, have_st ? &st : NULL, path, max, &data, &t->len, err);
    fclose(f);
    if (rc < 0) {
        t->len = 0;
        return -1;
    }
    t->data = data;
    return 0;
}

void file_text_forget(struct file_text *t, const char *from, const char *to)
{
    long pagesz;
    size_t page, f, e;

    if (!t->mapped || from < t->data || to < from || to > t->data + t->len)
        return;
    f = (size_t)(from - t->data);
    e = (size_t)(to - t->data);
    /* called per document: most calls end here */
    if (f >= t->forget_from && e < t->forget_from + FILE_FORGET_BYTES)
        return;
    pagesz = sysconf(_SC_PAGESIZE);     /* map_text()'s page */
    page = pagesz > 0 ? (size_t)pagesz : 4096;
    /* to <= the NUL: its page, a private copy, is never reached */
    e &= ~(page - 1);
    if (f < t->forget_from)             /* a new pass */
        t->forget_from = f & ~(page - 1);
    if (e <= t->forget_from || e - t->forget_from < FILE_FORGET_BYTES)
        return;
    (void)madvise((char *)(uintptr_t)t->data + t->forget_from,
                  e - t->forget_from, MADV_DONTNEED);
    t->forget_from = e;
}

void file_text_release(struct file_text *t)
{
    if (t->mapped)
        munmap((void *)(uintptr_t)t->data, t->mapped);
    else
        free((void *)(uintptr_t)t->data);
    memset(t, 0, sizeof(*t));
}

/* ==== directories ======================================================= */

int file_is_manifest(const char *name)
{
    const char *dot = strrchr(name, '.');

    return dot && (!strcmp(dot, ".yaml") || !strcmp(dot, ".yml")
                   || !strcmp(dot, ".json"));
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int file_list_dir(const char *path, char ***names, size_t *n,
                  struct err *err)
{
    DIR *d = opendir(path);
    struct dirent *de;
    size_t cap = 0, sz, plen = strlen(path);
    const char *sep = plen && path[plen - 1] == '/' ? "" : "/";

    *names = NULL;
    *n = 0;
    if (!d)
        return err_set(err, "cannot open directory '%s': %s", path,
                       strerror(errno));
    for (de = readdir(d); de; de = readdir(d)) {
        if (de->d_name[0] == '.')
            continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 32;
            *names = xrealloc(*names, cap * sizeof(**names));
        }
        sz = plen + strlen(sep) + strlen(de->d_name) + 1;
        (*names)[*n] = xmalloc(sz);
        snprintf((*names)[*n], sz, "%s%s%s", path, sep, de->d_name);
        (*n)++;
    }
    closedir(d);
    if (*n)
        qsort(*names, *n, sizeof(**names), cmp_names);
    return 0;
}

void file_list_free(char **names, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

int file_dirs_enter(struct file_dirs *s, const struct stat *st)
{
    size_t i;

    for (i = 0; i < s->n; i++)
        if (s->v[i].dev == (unsigned long long)st->st_dev
            && s->v[i].ino == (unsigned long long)st->st_ino)
            return 0;
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 16;
        s->v = xrealloc(s->v, s->cap * sizeof(*s->v));
    }
    s->v[s->n].dev = (unsigned long long)st->st_dev;
    s->v[s->n].ino = (unsigned long long)st->st_ino;
    s->n++;
    return 1;
}

void file_dirs_release(struct file_dirs *s)
{
    free(s->v);
    s->v = NULL;
    s->n = s->cap = 0;
}
