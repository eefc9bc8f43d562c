/*
 * cmd_pending.c - subcommands whose modules have not landed yet answer
 * with a clear usage error instead of a crash. Each function moves to its
 * own cmd_*.c file when its module lands (and is deleted here).
 */
#include "cmds.h"

#include <stdio.h>

static int pending(const char *name)
{
    fprintf(stderr, "claimcheck: '%s' is not available in this build yet\n",
            name);
    return 2;
}

int cmd_cel(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return pending("cel");
}
