/*
 * cli.c - the plumbing every `claimcheck` command shares: the parse loop
 * over its option table, --help, the target options and the messages.
 * What an option means is the command's (cmd_<name>.c).
 */
#include "cli.h"

#include <stdarg.h>
#include <string.h>

#include "../validate/buf.h"
#include "../validate/config.h"
#include "../validate/err.h"

#define CLI_MESSAGE_MAX ((size_t)1 << 20)  /* one message on stderr */

int cli_parse(const struct cli *cli, int argc, char **argv,
              int (*on)(void *ctx, int id, const char *value,
                        struct err *err),
              void *ctx, int *exit_code)
{
    struct opt_parser p;
    struct err err;
    const char *v;
    int id;

    opt_init(&p, cli->cmd->opts, argc, argv);
    for (;;) {
        id = opt_next(&p, &v, &err);
        if (id == OPT_DONE)
            return 0;
        if (id == OPT_ERROR) {
            *exit_code = cli_usage_error(cli, "%s", err.msg);
            return -1;
        }
        if (id == CLI_HELP) {
            cli_help(cli, stdout);
            *exit_code = 0;
            return -1;
        }
        if (on(ctx, id, v, &err) < 0) {
            cli_error("%s", err.msg);
            *exit_code = 2;
            return -1;
        }
    }
}

int cli_target_option(struct config *cfg, int id, const char *value,
                      struct err *err)
{
    switch (id) {
    case CLI_KUBE_VERSION:
        return config_set_kube_version(cfg, value, err);
    case CLI_FEATURE_GATES:
        return config_add_gates(cfg, value, err);
    case CLI_RUNTIME_CONFIG:
        return config_add_runtime(cfg, value, err);
    default:
        BUG("option id %d has no case", id);
    }
}

int cli_text_or_json(const char *value, int *json, struct err *err)
{
    if (strcmp(value, "json") && strcmp(value, "text"))
        return err_set(err, "the format is text or json, not '%s'", value);
    *json = !strcmp(value, "json");
    return 0;
}

void cli_help(const struct cli *cli, FILE *f)
{
    const struct command *c = cli->cmd;

    fprintf(f, "usage: claimcheck %s%s%s\n", c->name, *c->synopsis ? " " : "",
            c->synopsis);
    if (c->about)
        fprintf(f, "\n%s", c->about);
    fprintf(f, "\noptions:\n");
    opt_help(f, c->opts);
    if (c->more)
        c->more(f);
}

/* "claimcheck: MESSAGE": the message names paths and objects, so its
 * control characters are escaped (buf_add_visible) */
static void verror(const char *fmt, va_list ap)
{
    struct buf msg, out;

    buf_init(&msg, CLI_MESSAGE_MAX);
    buf_init(&out, 4 * CLI_MESSAGE_MAX);
    buf_vaddf(&msg, fmt, ap);
    buf_adds(&out, "claimcheck: ");
    buf_add_visible(&out, msg.p, 0);
    buf_addc(&out, '\n');
    fputs(out.p, stderr);
    buf_release(&msg);
    buf_release(&out);
}

void cli_error(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    verror(fmt, ap);
    va_end(ap);
}

int cli_usage_error(const struct cli *cli, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    verror(fmt, ap);
    va_end(ap);
    fprintf(stderr, "(see 'claimcheck %s --help')\n", cli->cmd->name);
    return 2;
}
