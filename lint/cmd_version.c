/*
 * cmd_version.c - `claimcheck version`: the version (validate/version.c)
 * and the newest Kubernetes release in the gate table.
 */
#include "cmds.h"

#include <stdio.h>

#include "../validate/err.h"
#include "../validate/target.h"
#include "../validate/version.h"
#include "cli.h"

static const struct opt rows[] = {
    { "help", 'h', OPT_FLAG, NULL, "show this help", CLI_HELP },
};
const struct opt_table version_options = OPT_TABLE(rows);

static int on_option(void *ctx, int id, const char *v, struct err *err)
{
    (void)ctx;
    if (id == OPT_OPERAND)
        return err_set(err, "version takes no operand, not '%s'", v);
    BUG("option id %d has no case", id);
}

int cmd_version(const struct cli *cli, int argc, char **argv)
{
    int ret;

    if (cli_parse(cli, argc, argv, on_option, NULL, &ret) < 0)
        return ret;
    printf("claimcheck %s (Kubernetes feature-gate table up to %s)\n",
           claimcheck_version, target_newest());
    return 0;
}
