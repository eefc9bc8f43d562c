/*
 * file.h - reading a whole file into memory: the one reader behind lint's
 * inputs and inventories, the config file, `cel --device`, the webhook's
 * inventory, certificate and token files and certs/' PEM files.
 *
 * Limits: the caller names the most bytes it accepts; a larger file is an
 * error before anything is read when its size is known (a regular file),
 * else as soon as the limit is passed (stdin, pipes). A regular file is
 * read into one exact allocation, so the peak is its size once.
 *
 * Failure messages name the path: "cannot open 'PATH': REASON", "'PATH'
 * is larger than the 256 MiB input limit", "cannot read 'PATH': REASON".
 *
 * Directories: which entries a directory given as input contributes, in
 * what order (the linter's inputs and the webhook's inventory walk them
 * alike; how deep and what an error does is theirs).
 */
#ifndef CLAIMCHECK_FILE_H
#define CLAIMCHECK_FILE_H

#include <stddef.h>

struct err;
struct stat;

/* Reads path ("-": standard input) into *data, malloc'ed and
 * NUL-terminated (the NUL is not counted in *len); the caller frees it.
 * Returns 0, or -1 with *err filled and *data NULL. */
int file_read(const char *path, size_t max, char **data, size_t *len,
              struct err *err);

/* A file's text kept whole for as long as its reader needs it (the
 * linter's inputs: a run reads pod-like documents a second time). A
 * regular file of FILE_MAP_MIN bytes or more is mapped read-only, not
 * read: reading a big file into fresh memory costs a page fault per
 * 4 KiB (issue 17); the mapping shares the page cache. Smaller files,
 * stdin, pipes and files whose size is a multiple of the page size (no
 * room for the NUL) are read as file_read() reads them. data is
 * NUL-terminated either way and must not be written.
 *
 * A mapped file that is truncated while mapped leaves pages with nothing
 * behind them: reading one raises SIGBUS, and the handler a mapping
 * installs says "claimcheck: an input file was truncated while it was
 * read" and exits 2 (a file changed in place shows its new bytes, as git
 * and ripgrep show them; the NUL after the text stays). */
#define FILE_MAP_MIN (64 * 1024)
struct file_text {
    const char *data;
    size_t len;                 /* without the NUL */
    size_t mapped;              /* bytes mapped; 0: malloc'ed */
    size_t forget_from;         /* file_text_forget()'s: not let go yet */
};
/* Reads or maps path ("-": standard input) under the limit max, with
 * file_read()'s messages. Returns 0, or -1 with *err filled and *t
 * zeroed. */
int file_text_read(const char *path, size_t max, struct file_text *t,
                   struct err *err);
/* The reader is done with t's bytes [from, to) for now (from and to
 * point into t->data): a mapped text lets the whole pages before to go
 * from memory, once FILE_FORGET_BYTES have gathered since the last time
 * (a call reaching back before that starts a new pass), which keeps a
 * linted file's peak memory to what the run keeps instead of the whole
 * file. A page read again comes back from the page cache, as the file's
 * bytes: nothing is lost but the time of a page fault. The page with the
 * NUL (written: a private copy) never goes. A read text is left alone. */
#define FILE_FORGET_BYTES (256 * 1024)
void file_text_forget(struct file_text *t, const char *from,
                      const char *to);
/* Unmaps or frees t's text; t zeroed. */
void file_text_release(struct file_text *t);

/* 1 when name ends in .yaml, .yml or .json: a manifest file found in a
 * directory (a file given by name is read whatever it is called). */
int file_is_manifest(const char *name);

/* The entries of directory path as "path/name", hidden ones (".x": also
 * .git and Kubernetes' ..data) left out, sorted by name; *names and each
 * name malloc'ed, free with file_list_free(). Returns 0, or -1 and *err
 * ("cannot open directory 'PATH': REASON"). */
int file_list_dir(const char *path, char ***names, size_t *n,
                  struct err *err);
void file_list_free(char **names, size_t n);

/* The directories a walk has entered, by device and inode: a directory
 * reached again (a symlink to an ancestor, two symlinks to one place) is
 * not walked again, so a walk visits each directory once whatever the
 * links. Zeroed to start. */
struct file_dirs {
    struct { unsigned long long dev, ino; } *v;
    size_t n, cap;
};
/* 1 when st (a directory's stat()) is new, now entered; 0 when entered
 * before. */
int file_dirs_enter(struct file_dirs *s, const struct stat *st);
void file_dirs_release(struct file_dirs *s);

#endif
