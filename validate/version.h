/*
 * version.h - the version of claimcheck and claimcheck-webhook, from one
 * source: the Makefile passes `git describe --tags --dirty` (in a git tree
 * with tags; a leading "v" dropped) or else the VERSION file to
 * version.c, the only file compiled with it, and rebuilds it when the
 * version changes. `version` commands, SARIF's tool version, the webhook's
 * log and its User-Agent read it.
 */
#ifndef CLAIMCHECK_VERSION_H
#define CLAIMCHECK_VERSION_H

extern const char claimcheck_version[];    /* "0.2.0" */

#endif
