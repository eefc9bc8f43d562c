/*
 * test_cel_corpus.c - every CEL `expression:` in the upstream corpus
 * (../shared/corpus/upstream, or $CLAIMCHECK_CORPUS) must compile as a DRA
 * selector, except the documented exceptions below. The extractor is
 * line-based: plain, single-quoted, double-quoted and block (| and |-)
 * scalars, as the corpus uses them; YAML comment lines are skipped.
 */
#include "../../validate/cel/cel.h"
#include "../../validate/arena.h"
#include "check.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* expressions that are not valid DRA selectors, and why */
static const struct { const char *needle, *why; } exceptions[] = {
    { "expressionValue", "kubernetes/api round-trip testdata uses the "
      "placeholder identifier 'expressionValue', not a real selector" },
    { "object.spec", "ValidatingAdmissionPolicy validation (variable "
      "'object'), not a device selector" },
};

static CHECK_INIT;
static int excepted;

static const char *exception_for(const char *e)
{
    size_t i;
    for (i = 0; i < sizeof(exceptions) / sizeof(exceptions[0]); i++) {
        if (strstr(e, exceptions[i].needle))
            return exceptions[i].why;
    }
    return NULL;
}

static void try_expr(const char *file, int line, const char *e)
{
    struct arena a;
    struct cel_env env = { 1, 1, 0, 0, 0 };
    struct cel_program *p;
    struct cel_error err;
    const char *why = exception_for(e);
    int rc;

    arena_init(&a, 65536);
    rc = cel_compile(&a, &env, e, strlen(e), &p, &err);
    if (why) {
        excepted++;
        CHECK_MSG(rc < 0, "%s:%d: listed as invalid but compiles: %s", file,
                  line, e);
    } else {
        CHECK_MSG(rc == 0, "%s:%d:%u: %s\n    %s", file, line, err.col,
                  err.msg, e);
    }
    if (rc == 0)
        cel_program_release(p);
    arena_release(&a);
}

static size_t indent_of(const char *s)
{
    size_t i = 0;
    while (s[i] == ' ')
        i++;
    return i;
}

/* Unquotes a flow scalar in place. */
static void unquote(char *s)
{
    size_t n = strlen(s), i, o = 0;

    while (n && (s[n - 1] == ' ' || s[n - 1] == '\r'))
        s[--n] = 0;
    if (n >= 2 && s[0] == '\'' && s[n - 1] == '\'') {
        for (i = 1; i + 1 < n; i++) {
            s[o++] = s[i];
            if (s[i] == '\'' && s[i + 1] == '\'')
                i++;
        }
        s[o] = 0;
    } else if (n >= 2 && s[0] == '"' && s[n - 1] == '"') {
        for (i = 1; i + 1 < n; i++) {
            if (s[i] == '\\' && i + 2 < n) {
                i++;
                s[o++] = s[i] == 'n' ? '\n' : s[i];
                continue;
            }
            s[o++] = s[i];
        }
        s[o] = 0;
    }
}

static void scan_file(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[4096];
    int ln = 0;

    if (!f)
        return;
    while (fgets(line, sizeof(line), f)) {
        char *k, *v;
        size_t ind;

        ln++;
        ind = indent_of(line);
        if (line[ind] == '#')
            continue;
        k = strstr(line, "expression:");
        if (!k)
            continue;
        v = k + strlen("expression:");
        while (*v == ' ')
            v++;
        if (v[0] == '|') {
            /* block scalar: following lines indented deeper */
            char buf[16384] = "";
            size_t bl = 0, bi = 0;
            int start = ln;
            long pos = ftell(f);
            while (fgets(line, sizeof(line), f)) {
                size_t li = indent_of(line);
                if (line[li] == '\n' || line[li] == 0) {
                    ln++;
                    pos = ftell(f);
                    continue;
                }
                if (li <= ind)
                    break;
                if (!bi)
                    bi = li;
                ln++;
                bl += (size_t)snprintf(buf + bl, sizeof(buf) - bl, "%s",
                                       line + (li >= bi ? bi : li));
                if (bl >= sizeof(buf))
                    bl = sizeof(buf) - 1;
                pos = ftell(f);
            }
            fseek(f, pos, SEEK_SET);
            while (bl && (buf[bl - 1] == '\n' || buf[bl - 1] == ' '))
                buf[--bl] = 0;
            try_expr(path, start, buf);
            continue;
        }
        v[strcspn(v, "\n")] = 0;
        unquote(v);
        if (*v)
            try_expr(path, ln, v);
    }
    fclose(f);
}

static void walk(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;

    if (!d)
        return;
    for (e = readdir(d); e; e = readdir(d)) {
        char p[4096];
        struct stat st;
        size_t l;

        if (e->d_name[0] == '.')
            continue;
        snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
        if (stat(p, &st) < 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            walk(p);
            continue;
        }
        l = strlen(p);
        if ((l > 5 && !strcmp(p + l - 5, ".yaml")) ||
            (l > 4 && !strcmp(p + l - 4, ".yml")))
            scan_file(p);
    }
    closedir(d);
}

int main(void)
{
    const char *root = getenv("CLAIMCHECK_CORPUS");
    struct stat st;

    if (!root)
        root = "../shared/corpus/upstream";
    if (stat(root, &st) < 0 || !S_ISDIR(st.st_mode)) {
        printf("skipped: corpus '%s' not found (set CLAIMCHECK_CORPUS)\n"
               "0 passed, 0 failed, 1 skipped\n", root);
        return 0;
    }
    walk(root);
    printf("corpus: %d expressions compiled as expected (%d documented "
           "exceptions)\n", CHECK_COUNTS->passed, excepted);
    CHECK_MSG(CHECK_COUNTS->passed + CHECK_COUNTS->failed >= 40,
              "too few expressions found (%d)",
              CHECK_COUNTS->passed + CHECK_COUNTS->failed);
    return CHECK_DONE();
}
