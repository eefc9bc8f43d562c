/*
 * spawn.c - a helper program run without a shell, its two outputs read
 * into bounded buffers with a deadline (spawn.h). Owns the pipes, the
 * poll loop, killing and reaping the child; not what the output means.
 */
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "err.h"
#include "xalloc.h"

extern char **environ;

/* One read from fd into b (up to its max; past it *over = 1 and, when
 * drop, the bytes are read and thrown away). 1 while open, 0 at EOF. */
static int drain(int fd, struct buf *b, int drop, int *over)
{
    char chunk[65536];
    ssize_t n = read(fd, chunk, sizeof(chunk));
    size_t room;

    if (n < 0)
        return errno == EINTR || errno == EAGAIN;
    if (n == 0)
        return 0;
    room = b->max - b->len;
    if ((size_t)n > room) {
        *over = 1;
        if (!drop)
            return 1;
        buf_add(b, chunk, room);
        return 1;
    }
    buf_add(b, chunk, (size_t)n);
    return 1;
}

/* Waits for pid: killed at once when res says so, else at the deadline
 * (0: none), since a child may close its outputs and go on running. */
static void reap(pid_t pid, uint64_t deadline, struct spawn_result *res,
                 int *status)
{
    const struct timespec tick = {0, 10000000};     /* 10 ms */
    pid_t w;

    while (deadline && !res->timed_out && !res->out_too_big) {
        w = waitpid(pid, status, WNOHANG);
        if (w == pid || (w < 0 && errno != EINTR))
            return;
        if (clock_mono_ns() >= deadline)
            res->timed_out = 1;
        else
            nanosleep(&tick, NULL);
    }
    if (res->timed_out || res->out_too_big)
        kill(pid, SIGKILL);
    while (waitpid(pid, status, 0) < 0 && errno == EINTR)
        ;
}

/* A pipe whose ends the children of other threads do not inherit (the
 * webhook spawns from several): -1 with err. */
static int pipe_cloexec(int p[2], const char *what, struct err *err)
{
    if (pipe(p) < 0)
        return err_set(err, "cannot run '%s': %s", what, strerror(errno));
    fcntl(p[0], F_SETFD, FD_CLOEXEC);
    fcntl(p[1], F_SETFD, FD_CLOEXEC);
    return 0;
}

/* Starts argv with its outputs on the write ends of outp and errp (errp
 * NULL: ours); 0, SPAWN_NOT_FOUND, or -1 with err. */
static int start(const char *const *argv, const struct spawn_opts *o,
                 const int outp[2], const int *errp, pid_t *pid,
                 struct err *err)
{
    posix_spawn_file_actions_t fa;
    char **av;
    size_t n;
    int rc;

    posix_spawn_file_actions_init(&fa);
    if (!o->keep_stdin)
        posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, outp[1], 1);
    if (errp)
        posix_spawn_file_actions_adddup2(&fa, errp[1], 2);
    for (n = 0; argv[n]; n++)
        ;
    av = xcalloc(n + 1, sizeof(*av));   /* posix_spawnp's argv is not const */
    for (n = 0; argv[n]; n++)
        av[n] = xstrdup(argv[n]);
    rc = posix_spawnp(pid, av[0], &fa, NULL, av,
                      o->env ? o->env : environ);
    posix_spawn_file_actions_destroy(&fa);
    for (n = 0; av[n]; n++)
        free(av[n]);
    free(av);
    if (rc == ENOENT)
        return SPAWN_NOT_FOUND;
    if (rc)
        return err_set(err, "cannot run '%s': %s", argv[0], strerror(rc));
    return 0;
}

int spawn_run(const char *const *argv, const struct spawn_opts *o,
              struct spawn_result *res, struct err *err)
{
    int outp[2], errp[2], rc, status = 0, err_over = 0;
    uint64_t deadline = o->timeout_s ? clock_mono_ns()
                        + (uint64_t)o->timeout_s * 1000000000u : 0;
    struct pollfd pf[2];
    pid_t pid;

    memset(res, 0, sizeof(*res));
    buf_init(&res->out, o->out_max);
    buf_init(&res->errout, o->err_max);
    if (pipe_cloexec(outp, argv[0], err) < 0)
        return -1;
    if (!o->keep_stderr && pipe_cloexec(errp, argv[0], err) < 0) {
        close(outp[0]);
        close(outp[1]);
        return -1;
    }
    rc = start(argv, o, outp, o->keep_stderr ? NULL : errp, &pid, err);
    close(outp[1]);
    if (!o->keep_stderr)
        close(errp[1]);
    pf[0].fd = outp[0];
    pf[1].fd = o->keep_stderr ? -1 : errp[0];
    if (rc) {
        close(pf[0].fd);
        if (pf[1].fd >= 0)
            close(pf[1].fd);
        spawn_result_release(res);
        return rc;
    }
    pf[0].events = pf[1].events = POLLIN;
    while (pf[0].fd >= 0 || pf[1].fd >= 0) {
        uint64_t now = clock_mono_ns();
        int i, ready;
        if (deadline && now >= deadline) {
            res->timed_out = 1;
            break;
        }
        ready = poll(pf, 2, deadline ? (int)((deadline - now) / 1000000u) + 1
                                     : -1);
        if (ready < 0 && errno != EINTR)
            break;
        for (i = 0; ready > 0 && i < 2; i++) {
            if (pf[i].fd < 0 || !pf[i].revents)
                continue;
            if (!drain(pf[i].fd, i ? &res->errout : &res->out, i,
                       i ? &err_over : &res->out_too_big)) {
                close(pf[i].fd);
                pf[i].fd = -1;
            }
        }
        if (res->out_too_big)
            break;
    }
    if (pf[0].fd >= 0)
        close(pf[0].fd);
    if (pf[1].fd >= 0)
        close(pf[1].fd);
    reap(pid, deadline, res, &status);
    if (WIFEXITED(status)) {
        res->exited = 1;
        res->code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status))
        res->signal = WTERMSIG(status);
    return 0;
}

void spawn_result_release(struct spawn_result *res)
{
    buf_release(&res->out);
    buf_release(&res->errout);
}
