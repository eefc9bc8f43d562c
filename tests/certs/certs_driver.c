/*
 * certs_driver.c - test-only stand-in for `claimcheck-webhook certs` until
 * webhook/main.c exists: `certs_driver certs ARGS...` runs certs_main().
 * Built by tests/certs/run.sh; never shipped.
 */
#include <stdio.h>

#include "../../certs/certs.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs("usage: certs_driver certs [ARGS...]\n", stderr);
        return 2;
    }
    return certs_main(argc - 1, argv + 1);
}
