/*
 * test_file.c - validate/file.c: whole files of every size up to the
 * limit and one past it (regular file and stream), an empty file, a
 * missing file and a directory (messages naming the path), stdin ("-")
 * from a pipe; a directory's listing and which names are manifests.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    {
        char cmd[400];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            return 1;
    }
    return CHECK_DONE();
}
