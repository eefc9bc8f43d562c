/*
 * fuzz_lint.c - libFuzzer target: the object model and every rule on
 * arbitrary documents. Bytes -> run_add_text() (the linter's path: split,
 * pods/workloads parsed lazily) -> run_check() against the default engine
 * and a fixed inventory (fuzz_common.h) -> every output format rendered
 * into /dev/null. The first byte picks whether the inventory is used (bit
 * 0), whether the input is also added a second time as another file (bit 1,
 * cross-file references), --show-suppressed (bit 2) and which of SARIF,
 * JUnit and GitHub are rendered too (bits 3-5) and the engine (bits 6-7,
 * see fuzz_setup()).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../../validate/arena.h"
#include "../../validate/diag.h"
#include "../../validate/limits.h"
#include "../../lint/render.h"
#include "../../validate/run.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct arena a;
    struct diag_list diags;
    struct render_opts ro;
    struct run *r;
    const struct engine *eng;
    const struct run_obj *objs;
    struct render_object *robjs;
    unsigned flags = size ? data[0] : 0;
    size_t i, nobjs;

    fuzz_setup();
    if (!devnull)
        devnull = fopen("/dev/null", "w");
    if (size) {
        data++;
        size--;
    }
    arena_init(&a, ARENA_CHUNK_BYTES);
    diag_list_init(&diags, &a);
    eng = fuzz_engines[(flags >> 6) & 3];
    r = run_new(eng, (flags & 1) ? fuzz_inventory : NULL, &a, &diags);
    run_add_text(r, "fuzz.yaml", (const char *)data, size);
    if (flags & 2)
        run_add_text(r, "again.json", (const char *)data, size);
    run_check(r);
    diag_list_sort(&diags);
    for (i = 0; i < diags.n; i++)
        if (!diags.v[i].rule || !diags.v[i].msg)
            __builtin_trap();   /* every finding has a rule and a message */

    memset(&ro, 0, sizeof(ro));
    ro.hints = 1;
    ro.rules = &rules_builtin;
    ro.show_suppressed = (flags & 4) != 0;
    ro.fail_on = SEV_ERROR;
    ro.kube_version = engine_kube_version(eng);
    ro.tool_version = "fuzz";
    ro.files = (flags & 2) ? 2 : 1;
    ro.objects = run_objects(r);
    objs = run_checked(r, &nobjs);
    robjs = arena_alloc(&a, (nobjs + 1) * sizeof(*robjs));
    for (i = 0; i < nobjs; i++) {
        robjs[i].file = objs[i].file;
        robjs[i].kind = objs[i].kind;
        robjs[i].ns = objs[i].ns;
        robjs[i].name = objs[i].name;
    }
    ro.objs = robjs;
    ro.nobjs = nobjs;
    /* text and JSON always; SARIF (which writes every rule's help: most
     * of an execution's time), JUnit and GitHub when bits 3-5 say so */
    for (i = 0; i < render_nformats; i++)
        if (i < 2 || (flags & (1u << (i + 1))))
            render(devnull, &render_formats[i], &diags, &ro);
    (void)run_parse_errors(r);
    run_free(r);
    arena_release(&a);
    return 0;
}
