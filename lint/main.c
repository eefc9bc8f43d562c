/*
 * main.c - `claimcheck`: the command table and the dispatch to it, plus
 * the top-level help. Each command is one file (cmd_<name>.c) with its
 * option table; adding a command is that file and one row here. All
 * state lives in main's frame and the commands' (no mutable globals).
 */
#include <stdio.h>
#include <string.h>

#include "../validate/suggest.h"
#include "cli.h"
#include "cmds.h"

static const struct command commands[] = {
    { .name = "lint", .run = cmd_lint, .synopsis = "[options] [PATH ...]",
      .operands = "PATH",
      .summary = "check manifests (files, directories, - for stdin)",
      .opts = &lint_options, .more = lint_help_more },
    { .name = "audit", .run = cmd_audit, .synopsis = "[options]",
      .summary = "check a live cluster (runs claimcheck-webhook audit)",
      .about = audit_about, .opts = &audit_options,
      .more = audit_help_more },
    { .name = "rules", .run = cmd_rules, .synopsis = "[-o json]",
      .summary = "list the rules", .opts = &rules_options },
    { .name = "explain", .run = cmd_explain, .synopsis = "RULE",
      .operands = "RULE",
      .summary = "what a rule catches, why, and how to fix it",
      .opts = &explain_options },
    { .name = "gates", .run = cmd_gates, .synopsis = "[-k X.Y] [-g ...]",
      .summary = "DRA feature gates at a Kubernetes version",
      .about = gates_about, .opts = &gates_options },
    { .name = "cel", .run = cmd_cel, .synopsis = "[--device FILE] EXPR",
      .summary = "evaluate a CEL expression in the DRA environment",
      .about = cel_about, .opts = &cel_options },
    { .name = "match", .run = cmd_match,
      .synopsis = "-i INVENTORY [--class NAME] EXPR",
      .summary = "which inventory devices a selector matches",
      .about = match_about, .opts = &match_options },
    { .name = "version", .run = cmd_version, .synopsis = "",
      .summary = "print the version", .opts = &version_options },
    { .name = "completion", .run = cmd_completion, .synopsis = "bash|zsh",
      .operands = "bash|zsh",
      .summary = "a shell completion script for claimcheck",
      .about = completion_about, .opts = &completion_options },
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
    size_t i;
    int n;

    fprintf(f, "usage: claimcheck <command> [options]\n\ncommands:\n");
    for (i = 0; i < NCOMMANDS; i++) {
        const struct command *c = &commands[i];
        n = fprintf(f, "  %s%s%s", c->name, *c->synopsis ? " " : "",
                    c->synopsis);
        if (n + 2 > OPT_HELP_COLUMN)
            fprintf(f, "\n%*s%s\n", OPT_HELP_COLUMN, "", c->summary);
        else
            fprintf(f, "%*s%s\n", OPT_HELP_COLUMN - n, "", c->summary);
    }
    fprintf(f, "\nlint options:\n");
    opt_help(f, &lint_options);
    lint_help_more(f);
    fprintf(f, "\n'claimcheck COMMAND --help' shows a command's options\n");
}

static const struct command *find(const char *name)
{
    size_t i;

    for (i = 0; i < NCOMMANDS; i++)
        if (!strcmp(commands[i].name, name))
            return &commands[i];
    return NULL;
}

static int unknown_command(const char *name)
{
    struct suggest s;
    size_t i;

    suggest_init(&s, name);
    for (i = 0; i < NCOMMANDS; i++)
        suggest_add(&s, commands[i].name);
    if (suggest_best(&s))
        fprintf(stderr, "claimcheck: unknown command '%s' (did you mean "
                "'%s'?)\n", name, suggest_best(&s));
    else
        fprintf(stderr, "claimcheck: unknown command '%s'\n", name);
    fprintf(stderr, "(see 'claimcheck --help')\n");
    return 2;
}

int main(int argc, char **argv)
{
    struct cli cli = { commands, NCOMMANDS, NULL };
    const char *name;

    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    name = argv[1];
    if (!strcmp(name, "-h") || !strcmp(name, "--help")
        || (!strcmp(name, "help") && argc == 2)) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(name, "help")) {        /* help COMMAND */
        cli.cmd = find(argv[2]);
        if (!cli.cmd)
            return unknown_command(argv[2]);
        cli_help(&cli, stdout);
        return 0;
    }
    if (!strcmp(name, "--version"))
        name = "version";
    cli.cmd = find(name);
    if (!cli.cmd)
        return unknown_command(name);
    return cli.cmd->run(&cli, argc - 1, argv + 1);
}
