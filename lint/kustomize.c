/*
 * kustomize.c - `lint --kustomize DIR` (kustomize.h). Owns which tool
 * renders the directory (kubectl's built-in kustomize first, the
 * standalone kustomize when only that is installed), its limits (the
 * linter's input limit on what it prints, KUSTOMIZE_TIMEOUT_S) and what a
 * failure says. Running it is validate/spawn.c's (no shell); the rendered
 * stream is linted like any other input.
 */
#include "kustomize.h"

#include <stdlib.h>
#include <string.h>

#include "../validate/buf.h"
#include "../validate/err.h"
#include "../validate/limits.h"
#include "../validate/spawn.h"
#include "../validate/xalloc.h"
#include "cli.h"
#include "inputs.h"

#define KUSTOMIZE_TIMEOUT_S 120     /* a render that takes longer hangs */
#define KUSTOMIZE_STDERR_MAX 2048   /* of the tool's stderr, quoted */

/* The two tools, in the order tried: argv without the directory. */
static const char *const tools[][3] = {
    {"kubectl", "kustomize", NULL},
    {"kustomize", "build", NULL},
};

/* "kubectl kustomize 'DIR'": the command as a failure names it. */
static void say_failure(const char *const *argv, const char *dir,
                        const struct spawn_result *r)
{
    struct buf b;
    size_t len = r->errout.len;

    buf_init(&b, 4 * KUSTOMIZE_STDERR_MAX + 256);
    buf_addf(&b, "'%s %s ", argv[0], argv[1]);
    buf_add_visible(&b, dir, 0);
    if (r->timed_out)
        buf_addf(&b, "' did not finish in %u s", KUSTOMIZE_TIMEOUT_S);
    else if (r->out_too_big)
        buf_addf(&b, "' printed more than the %u MiB input limit",
                 LIMIT_FILE_BYTES >> 20);
    else if (r->exited)
        buf_addf(&b, "' failed (exit status %d)", r->code);
    else
        buf_addf(&b, "' was killed by signal %d", r->signal);
    while (len && (r->errout.p[len - 1] == '\n'
                   || r->errout.p[len - 1] == '\r'))
        len--;
    if (len && !r->timed_out && !r->out_too_big) {
        char *msg = xmalloc(len + 1);
        memcpy(msg, r->errout.p, len);
        msg[len] = '\0';
        buf_adds(&b, ": ");
        buf_add_visible(&b, msg, 0);
        if (r->errout.len == r->errout.max)
            buf_adds(&b, " [...]");
        free(msg);
    }
    cli_error("%s", b.p);
    buf_release(&b);
}

void kustomize_add(struct inputs *in, const char *dir)
{
    struct spawn_opts so = {0};
    struct spawn_result r;
    struct err err;
    const char *argv[4];
    size_t t;
    int rc = SPAWN_NOT_FOUND;

    so.out_max = LIMIT_FILE_BYTES;
    so.err_max = KUSTOMIZE_STDERR_MAX;
    so.timeout_s = KUSTOMIZE_TIMEOUT_S;
    for (t = 0; t < sizeof(tools) / sizeof(tools[0]); t++) {
        argv[0] = tools[t][0];
        argv[1] = tools[t][1];
        argv[2] = dir;
        argv[3] = NULL;
        rc = spawn_run(argv, &so, &r, &err);
        if (rc != SPAWN_NOT_FOUND)
            break;
    }
    if (rc == SPAWN_NOT_FOUND) {
        cli_error("--kustomize '%s' needs kubectl or kustomize on PATH: "
                  "install kubectl (its 'kubectl kustomize' renders the "
                  "directory) or the standalone kustomize", dir);
        in->failed = 1;
        return;
    }
    if (rc < 0) {
        cli_error("%s", err.msg);
        in->failed = 1;
        return;
    }
    if (!r.exited || r.code || r.timed_out || r.out_too_big) {
        say_failure(argv, dir, &r);
        in->failed = 1;
        spawn_result_release(&r);
        return;
    }
    inputs_add_text(in, dir, r.out.p, r.out.len);
    spawn_result_release(&r);
}
