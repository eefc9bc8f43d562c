/*
 * limits.h - every size, depth and budget claimcheck enforces, in one place
 * (like curl's DYN_* limits). Inputs past a limit produce a clear finding or
 * error naming the limit; they never crash or hang the process.
 */
#ifndef CLAIMCHECK_LIMITS_H
#define CLAIMCHECK_LIMITS_H

#define LIMIT_FILE_BYTES        (256u * 1024 * 1024) /* one input file */
/* YAML/JSON nesting (libyaml is quadratic on deep flow) */
#define LIMIT_NEST_DEPTH        200
/* nodes created by alias expansion, per document, and at most
 * LIMIT_ALIAS_FACTOR times the document's own nodes */
#define LIMIT_ALIAS_NODES       1000000
#define LIMIT_ALIAS_FACTOR      10
#define LIMIT_SCALAR_BYTES      (64u * 1024 * 1024) /* one scalar */
#define LIMIT_PATH_BYTES        4096    /* a rendered JSON path */
#define LIMIT_MSG_BYTES         4096    /* a rendered finding message */
#define LIMIT_POOL_KEY_BYTES    1024    /* "driver\x1fpool" looked up */
#define LIMIT_PLACEMENT_BYTES   (64u * 1024)    /* a Pod placement's key (a
                                                   longer one is not kept) */
#define LIMIT_CONFIG_BYTES      (1024u * 1024) /* the config file */

/* webhook request body (default --max-body) */
#define LIMIT_BODY_BYTES        (3u * 1024 * 1024)

/* Arena chunk sizes (arena_init), by how much a user of one allocates */
#define ARENA_TINY_BYTES        (4u * 1024)    /* a cache entry */
#define ARENA_SMALL_BYTES       (16u * 1024)   /* config, one small list */
#define ARENA_CHUNK_BYTES       (64u * 1024)   /* a document, a request */
#define ARENA_LARGE_BYTES       (256u * 1024)  /* an inventory snapshot */
#define ARENA_RUN_BYTES         (1024u * 1024) /* a whole linter run */

#endif
