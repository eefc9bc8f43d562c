/*
 * cmd_audit.c - `claimcheck audit`: the audit reads a cluster over HTTPS
 * (libcurl, OpenSSL), which the linter binary does not link, so it is
 * claimcheck-webhook's `audit` command; this execs it git-style with every
 * argument: first the claimcheck-webhook next to this binary, then the one
 * on PATH. When there is none, it says what to install. The audit's
 * option table is here too, for `claimcheck help audit` and completion;
 * claimcheck-webhook (webhook/audit.c) parses with the same table.
 */
#include "cmds.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../validate/xalloc.h"
#include "cli.h"

#define AUDIT_BIN "claimcheck-webhook"
#define AUDIT_ARGS_MAX 4096

static const struct opt rows[] = {
    { NULL, 0, OPT_FLAG, NULL, "cluster:", 0 },
    { "kubeconfig", 0, OPT_VALUE, "FILE",
      "kubeconfig (default: $KUBECONFIG, merged as\nkubectl does, or "
      "~/.kube/config)", AUDIT_KUBECONFIG },
    { "context", 0, OPT_VALUE, "NAME",
      "context (default: current-context)", AUDIT_CONTEXT },
    { "in-cluster", 0, OPT_FLAG, NULL,
      "the pod's service account instead", AUDIT_IN_CLUSTER },
    { "apiserver", 0, OPT_VALUE, "URL", "with --in-cluster: the apiserver",
      AUDIT_APISERVER },
    { "sa-dir", 0, OPT_VALUE, "DIR", "with --in-cluster: token and ca.crt",
      AUDIT_SA_DIR },
    { "namespace", 'n', OPT_VALUE, "NS", "namespaced objects of NS only",
      AUDIT_NAMESPACE },
    { "page-size", 0, OPT_VALUE, "N",
      "objects per list request (default 500)", AUDIT_PAGE_SIZE },
    { "idle-after", 0, OPT_VALUE, "DURATION",
      "claim-idle threshold (default 24h)", AUDIT_IDLE_AFTER },
    { NULL, 0, OPT_FLAG, NULL, "report (as claimcheck lint):", 0 },
    { "kube-version", 'k', OPT_VALUE, "X.Y",
      "target version (default: the apiserver's)", CLI_KUBE_VERSION },
    { "feature-gates", 'g', OPT_VALUE, "K=V,..",
      "feature gate overrides", CLI_FEATURE_GATES },
    { "runtime-config", 0, OPT_VALUE, "GV=true,..", "extra API versions",
      CLI_RUNTIME_CONFIG },
    CLI_REPORT_ROWS(AUDIT_),
    { "help", 'h', OPT_FLAG, NULL, "show this help", CLI_HELP },
};
const struct opt_table audit_options = OPT_TABLE(rows);

const char audit_about[] =
    "Checks the objects of a live cluster with every rule, against its live\n"
    "inventory, with the devices its claims hold counted as taken.\n";

void audit_help_more(FILE *f)
{
    fprintf(f, "\nexit status: 0 nothing at or above --fail-on, 1 findings "
            "at or above it,\n2 usage error or a cluster that could not be "
            "read\n");
}

int cmd_audit(const struct cli *cli, int argc, char **argv)
{
    char bin[] = AUDIT_BIN, audit[] = "audit";
    char self[PATH_MAX], beside[PATH_MAX + sizeof(AUDIT_BIN)];
    char **args;
    ssize_t n;
    int i;

    if (argc > AUDIT_ARGS_MAX) {
        fprintf(stderr, "claimcheck: too many arguments\n");
        return 2;
    }
    (void)cli;
    args = xcalloc((size_t)argc + 2, sizeof(*args));
    args[0] = bin;
    args[1] = audit;
    for (i = 1; i < argc; i++)
        args[i + 1] = argv[i];
    n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n > 0) {
        char *slash;
        self[n] = '\0';
        slash = strrchr(self, '/');
        if (slash) {
            slash[1] = '\0';
            snprintf(beside, sizeof(beside), "%s%s", self, AUDIT_BIN);
            if (access(beside, X_OK) == 0)
                execv(beside, args);
        }
    }
    execvp(AUDIT_BIN, args);
    if (errno == ENOENT)
        fprintf(stderr, "claimcheck: 'claimcheck audit' needs %s, which "
                "reads the cluster (it links libcurl and OpenSSL; the "
                "linter does not): install it next to claimcheck or on PATH "
                "(make install installs both; or run the claimcheck "
                "container image)\n", AUDIT_BIN);
    else
        fprintf(stderr, "claimcheck: cannot run %s: %s\n", AUDIT_BIN,
                strerror(errno));
    free(args);
    return 2;
}
