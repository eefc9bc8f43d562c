/*
 * version.c - holds the version string the Makefile passes in
 * (-DCLAIMCHECK_VERSION); see version.h.
 */
#include "version.h"

#ifndef CLAIMCHECK_VERSION
#error "build with the Makefile: it passes -DCLAIMCHECK_VERSION"
#endif

const char claimcheck_version[] = CLAIMCHECK_VERSION;
