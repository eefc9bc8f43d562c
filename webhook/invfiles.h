/*
 * invfiles.h - the static inventory (--inventory PATH, repeatable): files
 * and directories (*.yaml, *.yml, *.json, recursively) read into the
 * invstore at start and again whenever any of them changes (polled every
 * second by stat(), so Secret/ConfigMap `..data` swaps are seen). A change
 * that does not parse keeps the previous snapshot and is logged; so does a
 * change that would lose data (invstore_set_files(): a file now empty, far
 * fewer objects), logged as a warning.
 */
#ifndef CLAIMCHECK_WEBHOOK_INVFILES_H
#define CLAIMCHECK_WEBHOOK_INVFILES_H

#include <stddef.h>

struct err;
struct invfiles;
struct invstore;

/* Loads the paths once (failure = -1 via NULL + err) and remembers them. */
struct invfiles *invfiles_new(struct invstore *s, const char *const *paths,
                              size_t n, struct err *err);
int invfiles_start(struct invfiles *f, struct err *err);
void invfiles_free(struct invfiles *f);

#endif
