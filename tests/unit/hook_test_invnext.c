/*
 * hook_test_invnext.c - the webhook's snapshots build their device model
 * from the one published before (webhook/invstore.c, inventory_set_previous):
 * a rebuild over the same --inventory files takes every device from the
 * model before; a reload parses new objects and builds them all again.
 */
#include <string.h>

#include "../../validate/devmodel.h"
#include "../../validate/engine.h"
#include "../../validate/err.h"
#include "../../validate/inventory.h"
#include "../../webhook/invstore.h"
#include "check.h"

static CHECK_INIT;

static const char slices[] =
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
    "metadata: {name: s1}\nspec:\n  driver: d.example.com\n  nodeName: n1\n"
    "  pool: {name: p1, generation: 0, resourceSliceCount: 1}\n"
    "  devices:\n  - {name: a, attributes: {m: {string: x}}}\n"
    "  - {name: b, attributes: {m: {string: y}}}\n---\n"
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
    "metadata: {name: s2}\nspec:\n  driver: d.example.com\n  nodeName: n2\n"
    "  pool: {name: p2, generation: 0, resourceSliceCount: 1}\n"
    "  devices:\n  - {name: a, attributes: {m: {string: x}}}\n";

/* The model of the snapshot published now. */
static size_t reused(struct invstore *s, size_t *ndevs)
{
    struct invref *r = invstore_acquire(s);
    const struct devmodel *m = inventory_devices(invref_inventory(r));
    size_t n = m ? m->reused : 0;

    *ndevs = m ? m->ndevs : 0;
    invref_release(r);
    return n;
}

int main(void)
{
    struct invstore *s = invstore_new(NULL);
    struct err err = { "" };
    const char *files[] = { "a.yaml" };
    const char *texts[] = { slices };
    size_t lens[] = { sizeof(slices) - 1 }, n;
    int i;

    CHECK(invstore_set_files(s, 1, files, texts, lens, &err) == 0);
    CHECK(reused(s, &n) == 0 && n == 3);
    for (i = 0; i < 3; i++) {
        CHECK(invstore_rebuild(s, &err) == 0);
        CHECK(reused(s, &n) == 3 && n == 3);
    }
    /* a reload: the same text, new objects */
    CHECK(invstore_set_files(s, 1, files, texts, lens, &err) == 0);
    CHECK(reused(s, &n) == 0 && n == 3);
    invstore_free(s);
    return CHECK_DONE();
}
