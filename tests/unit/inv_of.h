/*
 * inv_of.h - the inventory of one YAML text, for the unit tests that
 * build device models (test_allocate.c, and through dm_random.h
 * test_devmodel_next.c and test_warm_next.c). A text that does not load
 * ends the test binary: every check after it would read nothing.
 * Header-only: each test binary stays one file.
 */
#ifndef CLAIMCHECK_TEST_INV_OF_H
#define CLAIMCHECK_TEST_INV_OF_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../validate/err.h"
#include "../../validate/inventory.h"

static inline struct inventory *inv_of(const char *yaml)
{
    struct inventory *inv = inventory_new();
    struct err err;

    if (inventory_add_text(inv, "t", yaml, strlen(yaml), &err) < 0) {
        printf("FAIL inventory: %s\n", err.msg);
        exit(1);
    }
    return inv;
}

#endif
