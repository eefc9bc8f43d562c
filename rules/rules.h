/*
 * rules.h - claimcheck's rule catalogue: the table of rules/registry.c,
 * sorted by id, one row per rule. The types and the API a check sees are
 * the core's (validate/rule.h); the front ends hand this table to
 * engine_new(). Rule ids are stable forever.
 */
#ifndef CLAIMCHECK_RULES_H
#define CLAIMCHECK_RULES_H

#include "../validate/rule.h"

/* Every rule of claimcheck, sorted by id. */
extern const struct ruleset rules_builtin;

#endif
