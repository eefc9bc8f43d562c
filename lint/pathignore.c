/*
 * pathignore.c - ignorePaths (pathignore.h): paths made absolute and
 * relative to the config's directory by name, then matched with
 * validate/glob.c, the path itself and each directory above it.
 */
#include "pathignore.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../validate/config.h"
#include "../validate/glob.h"
#include "../validate/xalloc.h"

#define PATHIGNORE_PATH_MAX 4096

/* path made absolute against cwd, "." and ".." and doubled '/' resolved
 * by name: malloc'ed, "/" or "/a/b" (no trailing '/'). */
static char *absolute(const char *cwd, const char *path)
{
    size_t lc = strlen(cwd), lp = strlen(path), n = 0;
    char *in = xmalloc(lc + lp + 2), *out = xmalloc(lc + lp + 2), *s, *e;

    if (path[0] == '/') {
        memcpy(in, path, lp + 1);
    } else {
        memcpy(in, cwd, lc);
        in[lc] = '/';
        memcpy(in + lc + 1, path, lp + 1);
    }
    for (s = in; *s; s = e) {
        size_t l;
        while (*s == '/')
            s++;
        e = s;
        while (*e && *e != '/')
            e++;
        l = (size_t)(e - s);
        if (l == 0 || (l == 1 && s[0] == '.'))
            continue;
        if (l == 2 && s[0] == '.' && s[1] == '.') {
            while (n > 0 && out[n - 1] != '/')
                n--;
            if (n > 0)
                n--;            /* the '/' before it */
            continue;
        }
        out[n++] = '/';
        memcpy(out + n, s, l);
        n += l;
    }
    if (n == 0)
        out[n++] = '/';
    out[n] = '\0';
    free(in);
    return out;
}

void pathignore_init(struct pathignore *pi, const struct config *cfg,
                     const char *config_path)
{
    char cwd[PATHIGNORE_PATH_MAX];

    memset(pi, 0, sizeof(*pi));
    if (!cfg->nignore)
        return;
    if (!getcwd(cwd, sizeof(cwd))) {
        cwd[0] = '/';           /* relative paths then match nothing */
        cwd[1] = '\0';
    }
    pi->globs = (const char *const *)cfg->ignore_paths;
    pi->n = cfg->nignore;
    pi->config = config_path;
    pi->cwd = xstrdup(cwd);
    pi->base = absolute(pi->cwd, cfg->ignore_base ? cfg->ignore_base : ".");
}

/* The glob (without "./" in front or '/' behind, as written otherwise)
 * that matches rel, or NULL. */
static const char *match_one(const struct pathignore *pi, const char *rel)
{
    char g[PATHIGNORE_PATH_MAX];
    size_t i, l;

    for (i = 0; i < pi->n; i++) {
        const char *p = pi->globs[i];
        while (p[0] == '.' && p[1] == '/')
            p += 2;
        l = strlen(p);
        while (l > 1 && p[l - 1] == '/')
            l--;
        if (l >= sizeof(g))
            continue;
        memcpy(g, p, l);
        g[l] = '\0';
        if (glob_match(g, rel))
            return pi->globs[i];
    }
    return NULL;
}

const char *pathignore_match(const struct pathignore *pi, const char *path)
{
    char *abs, *rel, *slash;
    const char *hit = NULL;
    size_t lb;

    if (!pi || !pi->n || !strcmp(path, "-"))
        return NULL;
    abs = absolute(pi->cwd, path);
    lb = strlen(pi->base);
    if (!strcmp(pi->base, "/"))
        rel = abs + 1;
    else if (!strncmp(abs, pi->base, lb) && abs[lb] == '/')
        rel = abs + lb + 1;
    else {
        free(abs);              /* outside the config's directory */
        return NULL;
    }
    /* the path, then each directory above it: "a/b/c", "a/b", "a" */
    for (;;) {
        if (*rel)
            hit = match_one(pi, rel);
        slash = strrchr(rel, '/');
        if (hit || !slash)
            break;
        *slash = '\0';
    }
    free(abs);
    return hit;
}

void pathignore_release(struct pathignore *pi)
{
    free(pi->base);
    free(pi->cwd);
    memset(pi, 0, sizeof(*pi));
}
