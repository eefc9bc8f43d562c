/*
 * audit.h - `claimcheck-webhook audit` (what `claimcheck audit` runs):
 * every rule on the objects of a live cluster, with its live inventory and
 * the devices its claims hold, reported in the linter's formats.
 */
#ifndef CLAIMCHECK_WEBHOOK_AUDIT_H
#define CLAIMCHECK_WEBHOOK_AUDIT_H

/* argv[0] is "audit". Returns the exit status: 0 nothing at or above
 * --fail-on, 1 findings at or above it, 2 a usage error or a cluster that
 * could not be read. */
int audit_main(int argc, char **argv);

#endif
