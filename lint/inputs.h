/*
 * inputs.h - the files a command reads: the paths it is given (a file,
 * "-" for stdin, or a directory's manifests: *.yaml, *.yml and *.json,
 * sorted, hidden entries skipped, at most 64 levels down, a directory
 * reached again through a symlink skipped, paths the config's ignorePaths
 * name left out), each read whole (a big regular file mapped, see
 * file_text_read()) through validate/file.c and kept until
 * inputs_release(): a run reads pod-like documents again in
 * run_check(). While a run reads them, a mapped file's pages that were
 * read may leave memory (inputs_on_read()).
 */
#ifndef CLAIMCHECK_INPUTS_H
#define CLAIMCHECK_INPUTS_H

#include <stddef.h>

#include "../validate/file.h"

struct input {
    char *name;                 /* as given / found; malloc'ed */
    struct file_text text;      /* the contents: read, or mapped when big */
};

struct pathignore;

struct inputs {                 /* zeroed to start; do not touch v/cap */
    struct input *v;
    size_t n, cap;
    int failed;                 /* a path could not be read */
    size_t reading;             /* inputs_on_read(): the input last hit */
    const struct pathignore *ignore;    /* set to leave paths out, or NULL */
};

/* Reads path into in. A path that cannot be read is reported on stderr
 * ("claimcheck: cannot read 'x': ...") and sets in->failed; the caller
 * goes on with the others and exits 2 at the end. A path in->ignore
 * leaves out is not read: said once on stderr when it is path itself,
 * silently when a directory walk finds it. */
void inputs_add(struct inputs *in, const char *path);
/* Adds a text that is no file (a rendered Kustomize directory) as an
 * input called name; data is copied. */
void inputs_add_text(struct inputs *in, const char *name, const char *data,
                     size_t len);
void inputs_release(struct inputs *in);
/* A run's run_on_read() function for runs given in's texts (arg: in):
 * the input holding [from, to) lets what was read go from memory
 * (file_text_forget()), so a linted file costs its pages only while they
 * are read. */
void inputs_on_read(void *arg, const char *from, const char *to);
struct inventory;
struct err;
/* Adds the objects of every input to inv (inventory_add_texts(): files
 * parsed on two threads, added in order): 0, or -1 with err naming the
 * first file that does not parse. */
int inputs_to_inventory(const struct inputs *in, struct inventory *inv,
                        struct err *err);

#endif
