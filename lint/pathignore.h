/*
 * pathignore.h - the config's ignorePaths: which input paths lint leaves
 * out. Globs (validate/glob.h) are relative to the config file's
 * directory; a path is compared in absolute form, "." and ".." resolved
 * by name (symlinks are not followed), and is left out when it or one of
 * its directories below the config's directory matches. Paths outside
 * that directory and stdin are never left out.
 */
#ifndef CLAIMCHECK_PATHIGNORE_H
#define CLAIMCHECK_PATHIGNORE_H

#include <stddef.h>

struct config;

struct pathignore {             /* do not touch the fields */
    const char *const *globs;   /* borrowed from the config */
    size_t n;
    const char *config;         /* the config file, for messages */
    char *base;                 /* its directory, absolute; malloc'ed */
    char *cwd;                  /* malloc'ed */
};

/* From cfg's ignorePaths (none: nothing is left out). config_path names
 * the file in messages. cfg must outlive pi. */
void pathignore_init(struct pathignore *pi, const struct config *cfg,
                     const char *config_path);
/* The glob that leaves path out, or NULL. */
const char *pathignore_match(const struct pathignore *pi, const char *path);
void pathignore_release(struct pathignore *pi);

#endif
