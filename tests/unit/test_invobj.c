/*
 * test_invobj.c - inventory objects parsed once and shared by snapshots
 * (validate/invobj.h): an object's tree outlives the text it was loaded
 * from, objects share one copy of each string, kinds a snapshot would not
 * keep are refused, and two snapshots holding one object see the same
 * object (identity kept across snapshots) until the last of them and the
 * owner let it go. ASan/valgrind check the frees.
 */
#include <string.h>

#include "../../validate/arena.h"
#include "../../validate/engine.h"
#include "../../validate/err.h"
#include "../../validate/inventory.h"
#include "../../validate/invobj.h"
#include "../../validate/kinds.h"
#include "../../validate/limits.h"
#include "../../validate/load_json.h"
#include "../../validate/object.h"
#include "../../validate/tree.h"
#include "check.h"

static CHECK_INIT;

static const char slice_a[] =
"{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceSlice\","
"\"metadata\":{\"name\":\"node-a-gpu\"},\"spec\":{\"driver\":\"gpu.example.com\","
"\"nodeName\":\"node-a\",\"pool\":{\"name\":\"node-a\",\"generation\":1,"
"\"resourceSliceCount\":1},\"devices\":[{\"name\":\"gpu-0\"}]}}";
static const char slice_b[] =
"{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceSlice\","
"\"metadata\":{\"name\":\"node-b-gpu\"},\"spec\":{\"driver\":\"gpu.example.com\","
"\"nodeName\":\"node-b\",\"pool\":{\"name\":\"node-b\",\"generation\":1,"
"\"resourceSliceCount\":1},\"devices\":[{\"name\":\"gpu-0\"}]}}";
static const char slice_b2[] =   /* node-b-gpu updated: two devices */
"{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceSlice\","
"\"metadata\":{\"name\":\"node-b-gpu\"},\"spec\":{\"driver\":\"gpu.example.com\","
"\"nodeName\":\"node-b\",\"pool\":{\"name\":\"node-b\",\"generation\":2,"
"\"resourceSliceCount\":1},\"devices\":[{\"name\":\"gpu-0\"},"
"{\"name\":\"gpu-1\"}]}}";
static const char pod[] =        /* not an inventory kind */
"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},"
"\"spec\":{\"containers\":[]}}";
static const char nameless[] =
"{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{}}";

/* The object of text, loaded into a scratch arena released at once: the
 * invobj must hold its own copy. */
static struct invobj *make(const char *text, struct invstrs *strs)
{
    struct arena a;
    struct tnode *t = NULL;
    struct err err = { "" };
    struct invobj *o = NULL;

    arena_init(&a, ARENA_SMALL_BYTES);
    if (load_json(&a, text, strlen(text), &t, &err) == 0)
        o = invobj_new(t, strs);
    else
        CHECK_MSG(0, "load_json: %s", err.msg);
    arena_release(&a);
    return o;
}

static const char *spec_str(const struct invobj *o, const char *key)
{
    return tree_str(tree_get(tree_get(invobj_tree(o), "spec"), key));
}

static const struct object *slice(const struct inventory *inv,
                                  const char *name)
{
    return inventory_lookup(inv, K_SLICE, "", name);
}

int main(void)
{
    struct invstrs *strs = invstrs_new();
    struct invobj *a = make(slice_a, strs), *b = make(slice_b, strs), *b2;
    struct inventory *s1, *s2;
    const struct object *a1, *b1;

    CHECK(a && b);
    if (!a || !b)
        return CHECK_DONE();
    CHECK(make(pod, strs) == NULL);
    CHECK(make(nameless, strs) == NULL);
    CHECK_STR(invobj_object(a)->name, "node-a-gpu");
    CHECK(invobj_object(a)->inventory == 1);
    CHECK_STR(spec_str(a, "nodeName"), "node-a");
    /* one copy of each string for both objects */
    CHECK(spec_str(a, "driver") == spec_str(b, "driver"));
    CHECK(tree_get(invobj_tree(a), "spec")->key
          == tree_get(invobj_tree(b), "spec")->key);

    /* snapshot 1: a, b; then b is updated (a new object), snapshot 2:
     * a, b2. a is the same object in both; b1 stays as it was. */
    s1 = inventory_new();
    inventory_add_invobj(s1, a);
    inventory_add_invobj(s1, b);
    b2 = make(slice_b2, strs);
    CHECK(b2 != NULL);
    if (!b2)
        return CHECK_DONE();
    invobj_release(b);              /* the owner's reference: replaced */
    s2 = inventory_new();
    inventory_add_invobj(s2, a);
    inventory_add_invobj(s2, b2);
    CHECK(inventory_size(s1) == 2 && inventory_size(s2) == 2);
    a1 = slice(s1, "node-a-gpu");
    b1 = slice(s1, "node-b-gpu");
    CHECK(a1 == invobj_object(a));
    CHECK(slice(s2, "node-a-gpu") == a1);
    CHECK(slice(s2, "node-b-gpu") == invobj_object(b2));
    CHECK(slice(s2, "node-b-gpu") != b1);
    CHECK(tree_at(b1->spec, "devices")->n == 1);
    CHECK(tree_at(invobj_object(b2)->spec, "devices")->n == 2);

    /* the owner lets everything go: the snapshots still read theirs */
    invobj_release(a);
    invobj_release(b2);
    invstrs_release(strs);
    CHECK_STR(slice(s1, "node-b-gpu")->name, "node-b-gpu");
    CHECK_STR(tree_str(tree_at(slice(s1, "node-b-gpu")->spec, "driver")),
              "gpu.example.com");
    inventory_free(s1);
    /* a outlives s1 in s2; b (only in s1) is gone */
    CHECK_STR(slice(s2, "node-a-gpu")->name, "node-a-gpu");
    CHECK_STR(tree_str(tree_at(slice(s2, "node-a-gpu")->spec, "nodeName")),
              "node-a");
    CHECK(inventory_devices(s2) != NULL);
    inventory_free(s2);
    return CHECK_DONE();
}
