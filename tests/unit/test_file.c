/*
 * test_file.c - validate/file.c: whole files of every size up to the
 * limit and one past it (regular file and stream), an empty file, a
 * missing file and a directory (messages naming the path), stdin ("-")
 * from a pipe; texts kept whole (file_text_read()): a big file mapped
 * with its NUL, kept when the file grows, a truncated one said and exit
 * 2, its pages let go as it is read (file_text_forget()) and read again
 * unchanged; a directory's listing and which names are manifests.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../validate/err.h"
#include "../../validate/file.h"
#include "check.h"

static char dir[] = "/tmp/test_file_XXXXXX";

static const char *put(const char *name, size_t n)
{
    static char path[256];
    FILE *f;
    size_t i;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "wb");
    if (!f)
        abort();
    for (i = 0; i < n; i++)
        fputc('a' + (int)(i % 26), f);
    fclose(f);
    return path;
}

/* file_read of path: 0 when the contents are n letters a-z repeated */
static int read_ok(const char *path, size_t max, size_t n)
{
    struct err err;
    char *data;
    size_t len, i;
    int ok;

    if (file_read(path, max, &data, &len, &err) < 0)
        return 0;
    ok = len == n && data[len] == '\0';
    for (i = 0; ok && i < n; i++)
        ok = data[i] == 'a' + (int)(i % 26);
    free(data);
    return ok;
}

static int read_err(const char *path, size_t max, const char *want)
{
    struct err err;
    char *data = (char *)1;
    size_t len;

    if (file_read(path, max, &data, &len, &err) == 0) {
        free(data);
        return 0;
    }
    if (data) {
        printf("    data not NULL after an error\n");
        return 0;
    }
    if (strcmp(err.msg, want)) {
        printf("    message '%s', want '%s'\n", err.msg, want);
        return 0;
    }
    return 1;
}

/* file_text_read of path: 1 when it holds the n letters of put(),
 * NUL-terminated, mapped or not as want_mapped says */
static int text_ok(const char *path, size_t max, size_t n, int want_mapped)
{
    struct file_text t;
    struct err err;
    size_t i;
    int ok;

    if (file_text_read(path, max, &t, &err) < 0) {
        printf("    %s\n", err.msg);
        return 0;
    }
    ok = t.len == n && t.data[n] == '\0' && !t.mapped == !want_mapped
         && (!t.mapped || t.mapped == n);
    for (i = 0; ok && i < n; i++)
        ok = t.data[i] == 'a' + (int)(i % 26);
    if (!ok)
        printf("    %s: len %zu mapped %zu, want %zu mapped %d\n", path,
               t.len, t.mapped, n, want_mapped);
    file_text_release(&t);
    return ok && !t.data && !t.len && !t.mapped;
}

static int text_err(const char *path, size_t max, const char *want)
{
    struct file_text t;
    struct err err;

    if (file_text_read(path, max, &t, &err) == 0) {
        file_text_release(&t);
        return 0;
    }
    if (t.data || t.len || t.mapped) {
        printf("    text not zeroed after an error\n");
        return 0;
    }
    if (strcmp(err.msg, want)) {
        printf("    message '%s', want '%s'\n", err.msg, want);
        return 0;
    }
    return 1;
}

/* Appends 8 bytes to the file at path */
static void grow(const char *path)
{
    FILE *f = fopen(path, "ab");

    if (!f)
        abort();
    fputs("xxxxxxxx", f);
    fclose(f);
}

/* A mapped text keeps its NUL when the file grows afterwards (the last
 * page is a private copy; the others show the file as it is). */
static int text_grown_ok(void)
{
    const char *path = put("grown", 200000);
    struct file_text t;
    struct err err;
    int ok;

    if (file_text_read(path, 1 << 20, &t, &err) < 0 || !t.mapped)
        return 0;
    grow(path);
    ok = t.len == 200000 && t.data[t.len] == '\0'
         && t.data[t.len - 1] == 'a' + (int)((200000 - 1) % 26);
    file_text_release(&t);
    return ok;
}

/* KiB of the mapping at p resident (its smaps "Rss:"), or -1 */
static long mapping_rss(const void *p)
{
    char line[256], want[32];
    FILE *f = fopen("/proc/self/smaps", "r");
    long kb = -1;
    int in = 0;

    if (!f)
        return -1;
    snprintf(want, sizeof(want), "%lx-", (unsigned long)p);
    while (fgets(line, sizeof(line), f)) {
        if (strchr(line, '-') && strchr(line, ' ') > strchr(line, '-'))
            in = !strncmp(line, want, strlen(want));
        else if (in && !strncmp(line, "Rss:", 4)) {
            kb = strtol(line + 4, NULL, 10);
            break;
        }
    }
    fclose(f);
    return in ? kb : -1;
}

/* 1 when t holds the n letters of put() and its NUL */
static int letters_ok(const struct file_text *t, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (t->data[i] != 'a' + (int)(i % 26))
            return 0;
    return t->len == n && t->data[n] == '\0';
}

/* file_text_forget(): the pages before the point read leave memory once
 * FILE_FORGET_BYTES have gathered (not before), come back unchanged when
 * read again, and go again on a new pass; the page with the NUL stays
 * (the file grown meanwhile: a page read again would show its bytes); a
 * text that was read, not mapped, is left alone (its pages are the only
 * copy). */
static int text_forget_ok(void)
{
    const size_t n = 1000000;
    const char *path = put("forget", n);
    struct file_text t;
    struct err err;
    long full, rss;
    char *heap;
    int ok = 1;

    if (file_text_read(path, 1 << 21, &t, &err) < 0 || !t.mapped)
        return 0;
    full = mapping_rss(t.data);
    if (full < 900) {           /* MAP_POPULATE: about 977 KiB */
        printf("    %ld KiB resident after the read\n", full);
        file_text_release(&t);
        return 0;
    }
    grow(path);
    file_text_forget(&t, t.data, t.data + FILE_FORGET_BYTES - 1);
    if (mapping_rss(t.data) != full) {
        printf("    pages went before %d bytes gathered\n",
               FILE_FORGET_BYTES);
        ok = 0;
    }
    file_text_forget(&t, t.data + FILE_FORGET_BYTES - 1,
                     t.data + FILE_FORGET_BYTES + 4096);
    rss = mapping_rss(t.data);
    if (rss > full - FILE_FORGET_BYTES / 1024 + 4) {
        printf("    %ld KiB resident after a forget of 256 KiB (of %ld)\n",
               rss, full);
        ok = 0;
    }
    file_text_forget(&t, t.data + FILE_FORGET_BYTES + 4096, t.data + n);
    rss = mapping_rss(t.data);
    if (rss > 8) {
        printf("    %ld KiB resident after a forget of all\n", rss);
        ok = 0;
    }
    ok &= letters_ok(&t, n);                    /* read again */
    if (mapping_rss(t.data) < 900) {
        printf("    not resident again after the read\n");
        ok = 0;
    }
    file_text_forget(&t, t.data + 10, t.data + n);  /* a new pass */
    rss = mapping_rss(t.data);
    if (rss > 8) {
        printf("    %ld KiB resident after the second pass\n", rss);
        ok = 0;
    }
    ok &= letters_ok(&t, n);
    file_text_release(&t);
    /* a read text (a big one is mapped from malloc, page-aligned here):
     * its bytes are the only copy */
    heap = mmap(NULL, n + 1, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (heap == MAP_FAILED)
        abort();
    memset(heap, 'a', n);
    heap[n] = '\0';
    t.data = heap;
    t.len = n;
    t.mapped = 0;
    t.forget_from = 0;
    file_text_forget(&t, heap, heap + n);
    ok &= heap[0] == 'a' && heap[n / 2] == 'a' && heap[n - 1] == 'a';
    munmap(heap, n + 1);
    return ok;
}

/* Maps a file and truncates it under the reader: never returns. */
static void read_truncated(void *arg)
{
    const char *path = put("shrinks", 200000);
    struct file_text t;
    struct err err;
    volatile char c;

    (void)arg;
    if (file_text_read(path, 1 << 20, &t, &err) < 0 || !t.mapped)
        _exit(3);
    if (truncate(path, 0) < 0)
        _exit(4);
    c = t.data[100000];
    (void)c;
}

/* A mapped file truncated under the reader: the process says so on
 * stderr and exits 2, not killed by SIGBUS. */
static int text_truncated_ok(void)
{
    char got[200];
    int status = check_child(read_truncated, NULL, got, sizeof(got));

    if (!WIFEXITED(status) || WEXITSTATUS(status) != 2
        || strcmp(got, "claimcheck: an input file was truncated while it "
                       "was read\n")) {
        printf("    status %#x, stderr '%s'\n", status, got);
        return 0;
    }
    return 1;
}

/* file_read("-") with stdin a pipe holding n letters */
static int stdin_ok(size_t n, size_t max, const char *want_err)
{
    int fds[2], saved = dup(0), ok;
    size_t i;
    pid_t pid;

    if (pipe(fds) < 0)
        abort();
    pid = fork();
    if (pid == 0) {
        FILE *w = fdopen(fds[1], "w");
        close(fds[0]);
        for (i = 0; i < n; i++)
            fputc('a' + (int)(i % 26), w);
        fclose(w);
        _exit(0);
    }
    close(fds[1]);
    dup2(fds[0], 0);
    close(fds[0]);
    clearerr(stdin);
    ok = want_err ? read_err("-", max, want_err) : read_ok("-", max, n);
    dup2(saved, 0);         /* closes the pipe: a writer still busy gets
                               SIGPIPE */
    close(saved);
    clearerr(stdin);
    waitpid(pid, NULL, 0);
    return ok;
}

int main(void)
{
    char path[300];
    CHECK_INIT;

    if (!mkdtemp(dir))
        abort();
    CHECK(read_ok(put("empty", 0), 100, 0));
    CHECK(read_ok(put("small", 10), 100, 10));
    CHECK(read_ok(put("exact", 100), 100, 100));
    CHECK(read_ok(put("big", 200000), 1 << 20, 200000)); /* > one chunk */
    snprintf(path, sizeof(path), "%s/over", dir);
    put("over", 101);
    {
        char want[400];
        snprintf(want, sizeof(want), "'%s' is larger than the 101 byte "
                 "input limit", path);
        CHECK(read_err(path, 101, want) == 0);   /* 101 fits in 101 */
        snprintf(want, sizeof(want), "'%s' is larger than the 100 byte "
                 "input limit", path);
        CHECK(read_err(path, 100, want));
    }
    put("kib", 2049);
    snprintf(path, sizeof(path), "%s/kib", dir);
    {
        char want[400];
        snprintf(want, sizeof(want), "'%s' is larger than the 2 KiB input "
                 "limit", path);
        CHECK(read_err(path, 2048, want));
        put("mib", (1 << 20) + 1);
        snprintf(path, sizeof(path), "%s/mib", dir);
        snprintf(want, sizeof(want), "'%s' is larger than the 1 MiB input "
                 "limit", path);
        CHECK(read_err(path, 1 << 20, want));
        snprintf(path, sizeof(path), "%s/none", dir);
        snprintf(want, sizeof(want), "cannot open '%s': No such file or "
                 "directory", path);
        CHECK(read_err(path, 100, want));
        snprintf(want, sizeof(want), "cannot read '%s': Is a directory",
                 dir);
        CHECK(read_err(dir, 100, want));
    }
    /* stdin: a stream, so the limit is found while reading */
    CHECK(stdin_ok(0, 100, NULL));
    CHECK(stdin_ok(100, 100, NULL));
    CHECK(stdin_ok(300000, 1 << 20, NULL));
    CHECK(stdin_ok(101, 100, "'-' is larger than the 100 byte input limit"));
    CHECK(stdin_ok(300000, 65536,
                   "'-' is larger than the 64 KiB input limit"));
    /* a directory's entries: hidden ones skipped, sorted, "dir/name" */
    {
        char sub[300], want[400], **names;
        size_t n;
        struct err err;
        snprintf(sub, sizeof(sub), "%s/d", dir);
        mkdir(sub, 0700);
        put("d/b.yaml", 1);
        put("d/a.txt", 1);
        put("d/.hidden.yaml", 1);
        put("d/c.json", 1);
        CHECK(file_list_dir(sub, &names, &n, &err) == 0);
        CHECK(n == 3);
        snprintf(want, sizeof(want), "%s/a.txt", sub);
        CHECK(n == 3 && !strcmp(names[0], want));
        snprintf(want, sizeof(want), "%s/c.json", sub);
        CHECK(n == 3 && !strcmp(names[2], want));
        file_list_free(names, n);
        snprintf(sub, sizeof(sub), "%s/d/", dir);  /* no "//" */
        CHECK(file_list_dir(sub, &names, &n, &err) == 0);
        snprintf(want, sizeof(want), "%s/d/b.yaml", dir);
        CHECK(n == 3 && !strcmp(names[1], want));
        file_list_free(names, n);
        snprintf(sub, sizeof(sub), "%s/none", dir);
        snprintf(want, sizeof(want), "cannot open directory '%s': No such "
                 "file or directory", sub);
        CHECK(file_list_dir(sub, &names, &n, &err) < 0);
        CHECK_STR(err.msg, want);
        CHECK(names == NULL && n == 0);
        CHECK(file_is_manifest("a.yaml") && file_is_manifest("d/a.yml")
              && file_is_manifest("a.json") && file_is_manifest(".x.yaml"));
        CHECK(!file_is_manifest("a.txt") && !file_is_manifest("yaml")
              && !file_is_manifest("d.yaml/a") && !file_is_manifest("a.yaml~"));
    }
    /* /dev/null is no regular file: read as a stream */
    CHECK(read_ok("/dev/null", 100, 0));
    /* texts kept whole: a big regular file mapped, with its NUL; small
     * ones, stdin-like ones and page-size multiples read */
    CHECK(text_ok(put("t0", 0), 100, 0, 0));
    CHECK(text_ok(put("t1", 10), 100, 10, 0));
    CHECK(text_ok(put("t2", FILE_MAP_MIN - 1), 1 << 20, FILE_MAP_MIN - 1,
                  0));
    CHECK(text_ok(put("t3", FILE_MAP_MIN + 1), 1 << 20, FILE_MAP_MIN + 1,
                  1));
    CHECK(text_ok(put("t4", 200000), 200000, 200000, 1));
    CHECK(text_ok(put("t5", 4 * FILE_MAP_MIN), 1 << 20, 4 * FILE_MAP_MIN,
                  0));
    CHECK(text_ok("/dev/null", 100, 0, 0));
    {
        char want[400];
        put("t6", 200001);
        snprintf(path, sizeof(path), "%s/t6", dir);
        snprintf(want, sizeof(want), "'%s' is larger than the 200000 byte "
                 "input limit", path);
        CHECK(text_err(path, 200000, want));
        snprintf(path, sizeof(path), "%s/none", dir);
        snprintf(want, sizeof(want), "cannot open '%s': No such file or "
                 "directory", path);
        CHECK(text_err(path, 100, want));
    }
    CHECK(text_grown_ok());
    CHECK(text_forget_ok());
    CHECK(text_truncated_ok());
    {
        char cmd[400];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            return 1;
    }
    return CHECK_DONE();
}
