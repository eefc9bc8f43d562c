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
 */
#ifndef CLAIMCHECK_FILE_H
#define CLAIMCHECK_FILE_H

#include <stddef.h>

struct err;

/* Reads path ("-": standard input) into *data, malloc'ed and
 * NUL-terminated (the NUL is not counted in *len); the caller frees it.
 * Returns 0, or -1 with *err filled and *data NULL. */
int file_read(const char *path, size_t max, char **data, size_t *len,
              struct err *err);

#endif
