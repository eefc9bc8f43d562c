/*
 * limits.h - every size, depth and budget claimcheck enforces, in one place
 * (like curl's DYN_* limits). Inputs past a limit produce a clear finding or
 * error naming the limit; they never crash or hang the process.
 */
#ifndef CLAIMCHECK_LIMITS_H
#define CLAIMCHECK_LIMITS_H

#define LIMIT_FILE_BYTES        (256u * 1024 * 1024) /* one input file */
#define LIMIT_NEST_DEPTH        200     /* YAML/JSON nesting (libyaml is quadratic on deep flow) */
#define LIMIT_ALIAS_NODES       1000000 /* nodes created by alias expansion, per document */
#define LIMIT_ALIAS_FACTOR      10      /* ... and at most this many times the document's own nodes */
#define LIMIT_SCALAR_BYTES      (64u * 1024 * 1024) /* one scalar */
#define LIMIT_PATH_BYTES        4096    /* a rendered JSON path */
#define LIMIT_MSG_BYTES         4096    /* a rendered finding message */
#define LIMIT_CONFIG_BYTES      (1024u * 1024) /* the config file */

#define LIMIT_BODY_BYTES        (3u * 1024 * 1024) /* webhook request body (default --max-body) */

#define ARENA_CHUNK_BYTES       (64u * 1024)

#endif
