/*
 * spawn.h - running a helper program and reading what it prints: no
 * shell (posix_spawnp, argv as given, looked up on PATH), standard input
 * /dev/null, standard output and standard error read into bounded buffers
 * at once (poll: neither pipe can fill and block the child), and a
 * deadline after which the child is killed. The linter renders Kustomize
 * directories with it; the webhook runs kubeconfig exec credential
 * plugins.
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

struct spawn_opts {
    char *const *env;           /* NULL: this process's environment */
    int keep_stdin;             /* ours (an interactive plugin), not
                                   /dev/null */
    int keep_stderr;            /* ours, not read into errout */
    size_t out_max;             /* standard output beyond it: killed */
    size_t err_max;             /* standard error beyond it: dropped */
    unsigned timeout_s;         /* then killed; 0: no deadline */
};

/* Runs argv (argv[0] looked up on PATH) as o says until it exits, prints
 * more than o->out_max bytes or runs for o->timeout_s seconds (then it is
 * killed with SIGKILL and waited for). 0: it ran, *res says how it ended
 * (release it with spawn_result_release()); SPAWN_NOT_FOUND; -1 with err:
 * it could not be started. */
int spawn_run(const char *const *argv, const struct spawn_opts *o,
              struct spawn_result *res, struct err *err);
void spawn_result_release(struct spawn_result *res);

#endif
