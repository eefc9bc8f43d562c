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

/* Waits for pid (killed at once when res says so, else at the deadline:
 * a child may close its outputs and go on running). */
static void reap(pid_t pid, uint64_t deadline, struct spawn_result *res,
                 int *status)
{
    const struct timespec tick = {0, 10000000};     /* 10 ms */
    pid_t w;

    while (!res->timed_out && !res->out_too_big) {
        w = waitpid(pid, status, WNOHANG);
        if (w == pid || (w < 0 && errno != EINTR))
            return;
        if (clock_mono_ns() >= deadline)
            res->timed_out = 1;
        else
            nanosleep(&tick, NULL);
    }
    kill(pid, SIGKILL);
    while (waitpid(pid, status, 0) < 0 && errno == EINTR)
        ;
}

int spawn_run(const char *const *argv, size_t out_max, size_t err_max,
              unsigned timeout_s, struct spawn_result *res, struct err *err)
{
    posix_spawn_file_actions_t fa;
    int outp[2], errp[2], rc, status = 0, err_over = 0;
    uint64_t deadline = clock_mono_ns() + (uint64_t)timeout_s * 1000000000u;
    struct pollfd pf[2];
    char **av;
    size_t n;
    pid_t pid;

    memset(res, 0, sizeof(*res));
    buf_init(&res->out, out_max);
    buf_init(&res->errout, err_max);
    if (pipe(outp) < 0)
        return err_set(err, "cannot run '%s': %s", argv[0], strerror(errno));
    if (pipe(errp) < 0) {
        close(outp[0]);
        close(outp[1]);
        return err_set(err, "cannot run '%s': %s", argv[0], strerror(errno));
    }
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, outp[1], 1);
    posix_spawn_file_actions_adddup2(&fa, errp[1], 2);
    posix_spawn_file_actions_addclose(&fa, outp[0]);
    posix_spawn_file_actions_addclose(&fa, outp[1]);
    posix_spawn_file_actions_addclose(&fa, errp[0]);
    posix_spawn_file_actions_addclose(&fa, errp[1]);
    for (n = 0; argv[n]; n++)
        ;
    av = xcalloc(n + 1, sizeof(*av));   /* posix_spawnp's argv is not const */
    for (n = 0; argv[n]; n++)
        av[n] = xstrdup(argv[n]);
    rc = posix_spawnp(&pid, av[0], &fa, NULL, av, environ);
    posix_spawn_file_actions_destroy(&fa);
    for (n = 0; av[n]; n++)
        free(av[n]);
    free(av);
    close(outp[1]);
    close(errp[1]);
    if (rc) {
        close(outp[0]);
        close(errp[0]);
        spawn_result_release(res);
        if (rc == ENOENT)
            return SPAWN_NOT_FOUND;
        return err_set(err, "cannot run '%s': %s", argv[0], strerror(rc));
    }
    pf[0].fd = outp[0];
    pf[1].fd = errp[0];
    pf[0].events = pf[1].events = POLLIN;
    while (pf[0].fd >= 0 || pf[1].fd >= 0) {
        uint64_t now = clock_mono_ns();
        int i, ready;
        if (now >= deadline) {
            res->timed_out = 1;
            break;
        }
        ready = poll(pf, 2, (int)((deadline - now) / 1000000u) + 1);
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
