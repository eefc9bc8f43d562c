/*
 * inputs.c - walks the paths a command is given and reads every file
 * found (validate/file.c does the reading, or maps a big file, and owns
 * the limit; inputs_release() gives the texts back). Owns which
 * files a directory contributes and in what order (each directory once,
 * by device and inode, whatever symlinks lead to it; what ignorePaths
 * names left out, as pathignore.c decides); not what the files mean (the
 * engine's run, or the inventory, parses them; inputs_to_inventory()
 * only hands them to it).
 */
#include "inputs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../validate/engine.h"
#include "../validate/err.h"
#include "../validate/limits.h"
#include "../validate/xalloc.h"
#include "cli.h"
#include "pathignore.h"

#define INPUTS_MAX_DEPTH 64     /* directories below a given path */

static void push(struct inputs *in, const char *name,
                 const struct file_text *text)
{
    if (in->n == in->cap) {
        in->cap = in->cap ? in->cap * 2 : 16;
        in->v = xrealloc(in->v, in->cap * sizeof(*in->v));
    }
    in->v[in->n].name = xstrdup(name);
    in->v[in->n].text = *text;
    in->n++;
}

static void add_path(struct inputs *in, struct file_dirs *dirs,
                     const char *path, int top, int depth);

static void add_dir(struct inputs *in, struct file_dirs *dirs,
                    const char *path, int depth)
{
    struct err err;
    char **names;
    size_t n, i;

    if (file_list_dir(path, &names, &n, &err) < 0) {
        cli_error("%s", err.msg);
        in->failed = 1;
        return;
    }
    for (i = 0; i < n; i++)
        add_path(in, dirs, names[i], 0, depth + 1);
    file_list_free(names, n);
}

static void add_path(struct inputs *in, struct file_dirs *dirs,
                     const char *path, int top, int depth)
{
    struct stat st;
    struct err err;
    struct file_text text;

    if (!top || strcmp(path, "-")) {    /* "-" given: stdin */
        const char *glob = pathignore_match(in->ignore, path);
        if (glob) {
            if (top)
                cli_error("'%s' is not linted: ignorePaths '%s' in '%s' "
                          "names it", path, glob, in->ignore->config);
            return;
        }
        if (stat(path, &st) < 0) {
            cli_error("cannot read '%s': %s", path, strerror(errno));
            in->failed = 1;
            return;
        }
        if (S_ISDIR(st.st_mode)) {
            if (depth > INPUTS_MAX_DEPTH) {
                cli_error("'%s': directories nested too deep", path);
                in->failed = 1;
                return;
            }
            if (file_dirs_enter(dirs, &st))   /* else walked already */
                add_dir(in, dirs, path, depth);
            return;
        }
        if (!top && (!S_ISREG(st.st_mode) || !file_is_manifest(path)))
            return;
    }
    if (file_text_read(path, LIMIT_FILE_BYTES, &text, &err) < 0) {
        cli_error("%s", err.msg);
        in->failed = 1;
        return;
    }
    push(in, path, &text);
}

void inputs_on_read(void *arg, const char *from, const char *to)
{
    struct inputs *in = arg;
    size_t i, k;

    /* the run reads the texts in order: the input last hit, or the next */
    for (k = 0; k < in->n; k++) {
        struct file_text *t;
        i = (in->reading + k) % in->n;
        t = &in->v[i].text;
        if (from >= t->data && from <= t->data + t->len) {
            in->reading = i;
            file_text_forget(t, from, to);
            return;
        }
    }
}

void inputs_add(struct inputs *in, const char *path)
{
    struct file_dirs dirs = {0};

    add_path(in, &dirs, path, 1, 0);
    file_dirs_release(&dirs);
}

void inputs_add_text(struct inputs *in, const char *name, const char *data,
                     size_t len)
{
    char *copy = xmalloc(len + 1);
    struct file_text text = {0};

    memcpy(copy, data, len);
    copy[len] = '\0';
    text.data = copy;
    text.len = len;
    push(in, name, &text);
}

void inputs_release(struct inputs *in)
{
    size_t i;

    for (i = 0; i < in->n; i++) {
        free(in->v[i].name);
        file_text_release(&in->v[i].text);
    }
    free(in->v);
    memset(in, 0, sizeof(*in));
}

int inputs_to_inventory(const struct inputs *in, struct inventory *inv,
                        struct err *err)
{
    struct inventory_text *t = xcalloc(in->n ? in->n : 1, sizeof(*t));
    size_t i;
    int rc;

    for (i = 0; i < in->n; i++) {
        t[i].file = in->v[i].name;
        t[i].data = in->v[i].text.data;
        t[i].len = in->v[i].text.len;
    }
    rc = inventory_add_texts(inv, t, in->n, err);
    free(t);
    return rc;
}
