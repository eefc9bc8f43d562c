/*
 * fuzz_admission.c - libFuzzer target: the webhook's AdmissionReview
 * handler in-process, bytes in -> response out (webhook/admission.h
 * admission_handle(), no HTTP, no TLS), with the default engine and the
 * fixed inventory of fuzz_common.h. Checks that every response is valid
 * JSON (parsed back with load_json(), which also insists on valid UTF-8)
 * and that every warning respects the apiserver's 256-character limit.
 * Byte 0 picks warn mode (bit 0), an excluded namespace (bit 1), whether
 * the inventory is used (bit 2) and the engine (bits 3-4, see fuzz_setup());
 * the rest is the request body.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../../validate/arena.h"
#include "../../validate/buf.h"
#include "../../validate/limits.h"
#include "../../validate/load_json.h"
#include "../../validate/tree.h"
#include "../../webhook/admission.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t runes(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const excluded[] = { "kube-system" };
    struct admission_cfg cfg;
    struct admission_out out;
    struct arena a;
    struct buf resp;
    struct tnode *root = NULL;
    struct err err;
    unsigned flags = size ? data[0] : 0;
    const struct tnode *w;
    unsigned i;

    if (size) {
        data++;
        size--;
    }
    fuzz_setup();
    memset(&cfg, 0, sizeof(cfg));
    cfg.engine = fuzz_engines[(flags >> 3) & 3];
    cfg.warn_mode = (flags & 1) != 0;
    if (flags & 2) {
        cfg.excluded_ns = excluded;
        cfg.nexcluded = 1;
    }
    arena_init(&a, ARENA_CHUNK_BYTES);
    buf_init(&resp, LIMIT_BODY_BYTES);
    admission_handle(&cfg, (flags & 4) ? fuzz_inventory : NULL, &a,
                     (const char *)data, size, 0, &resp, &out);
    if (!resp.len)
        __builtin_trap();       /* always a body */
    if (load_json(&a, resp.p, resp.len, &root, &err) < 0)
        __builtin_trap();       /* ... and it is JSON */
    w = tree_at(root, "response.warnings");
    if (w) {
        size_t total = 0;
        for (i = 0; i < w->n; i++) {
            const char *s = tree_str(w->kids[i]);
            if (!s || runes(s) > ADMISSION_WARN_MAX)
                __builtin_trap();
            total += strlen(s);
        }
        if (total > ADMISSION_WARN_TOTAL + 512)
            __builtin_trap();
    }
    buf_release(&resp);
    arena_release(&a);
    return 0;
}
