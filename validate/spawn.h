/*
 * spawn.h - running a helper program and reading what it prints: no
 * shell (posix_spawnp, argv as given, looked up on PATH), standard input
 * /dev/null, standard output and standard error read into bounded buffers
 * at once (poll: neither pipe can fill and block the child), and a
 * deadline after which the child is killed. The linter renders Kustomize
 * directories with it.
 */
#ifndef CLAIMCHECK_SPAWN_H
#define CLAIMCHECK_SPAWN_H

#include <stddef.h>

#include "buf.h"

struct err;

struct spawn_result {
    struct buf out;             /* standard output, whole */
    struct buf errout;          /* standard error, its first err_max bytes */
    int exited, code;           /* exited normally, with this status */
    int signal;                 /* else killed by this signal */
    int out_too_big;            /* printed more than out_max: killed */
    int timed_out;              /* still running at the deadline: killed */
};

#define SPAWN_NOT_FOUND (-2)    /* spawn_run(): argv[0] is not on PATH */

/* Runs argv (argv[0] looked up on PATH) until it exits, prints more than
 * out_max bytes on standard output or runs for timeout_s seconds (then it
 * is killed with SIGKILL and waited for). Standard error beyond err_max
 * bytes is read and dropped. 0: it ran, *res says how it ended (release
 * it with spawn_result_release()); SPAWN_NOT_FOUND; -1 with err: it could
 * not be started. */
int spawn_run(const char *const *argv, size_t out_max, size_t err_max,
              unsigned timeout_s, struct spawn_result *res, struct err *err);
void spawn_result_release(struct spawn_result *res);

#endif
