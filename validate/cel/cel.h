/*
 * cel.h - the CEL engine for DRA device selectors: parse, type-check,
 * estimate cost, evaluate against one device, and static facts for the
 * selector rules.
 *
 * Invariants: a struct cel_program lives in the arena passed to cel_compile()
 * and is immutable afterwards, so any number of threads may evaluate it at
 * once. Evaluation allocates nothing on the hot path (a fixed stack scratch;
 * big intermediate values spill to malloc'd blocks freed before return).
 * Every function that can fail returns -1 and fills a struct cel_error whose
 * message is lowercase without a full stop (git style).
 */
#ifndef CLAIMCHECK_CEL_H
#define CLAIMCHECK_CEL_H

#include <stddef.h>
#include <stdint.h>

struct arena;

#define CEL_MAX_EXPR_BYTES  10240     /* Kubernetes' selector length limit */
#define CEL_MAX_COST        1000000   /* CELSelectorExpressionMaxCost */

/* The DRA environment as compile.go builds it. The features are the
 * feature gates of the same names; the fields are positional in some
 * initializers, so new ones go last. */
struct cel_env {
    int consumable_capacity;    /* DRAConsumableCapacity: the device type
                                   with allowMultipleAllocations */
    int list_attributes;        /* DRAListTypeAttributes: attribute values
                                   are dyn (else the unknown type, and a
                                   macro over one does not compile), list
                                   values bind (else a device with one
                                   fails to match: slices stored while the
                                   gate was on keep them, and the
                                   scheduler refuses them then), and
                                   includes() is declared */
    int regex_jit;              /* JIT-compile constant patterns; then the
                                   caller must call cel_program_release() */
    int stored;                 /* the StoredExpressions environment (an
                                   unchanged stored selector, the
                                   scheduler): every library whatever the
                                   version, includes() and
                                   allowMultipleAllocations whatever the
                                   features; else NewExpressions */
    int kube_minor;             /* NewExpressions of Kubernetes 1.<minor>:
                                   libraries and macros added later are
                                   undeclared; 0 = the newest */
};

enum cel_err_kind { CEL_ERR_PARSE = 1, CEL_ERR_CHECK, CEL_ERR_LIMIT,
                    CEL_ERR_RUNTIME,
                    CEL_ERR_UNSUPPORTED     /* valid in Kubernetes, but uses a
                                               library claimcheck lacks
                                               (image refs): not a
                                               finding, skip it */
};

struct cel_error {
    char msg[256];          /* lowercase, e.g. "no such key: model" */
    unsigned offset;        /* byte offset of the offending token (0-based) */
    unsigned line, col;     /* 1-based line/column within the expression */
    int kind;               /* enum cel_err_kind */
};

struct cel_program;         /* compiled + checked; immutable; thread-safe */

/* Compiles a selector as the apiserver validates it: parses and
 * type-checks `expr` in the DRA environment (variable `device`); the
 * result must be bool or the unknown type (compile.go: "must evaluate to
 * bool or the unknown type, not <type>"; dyn too with list_attributes).
 * Enforces the 10 KiB length limit, nesting limits and the estimated cost
 * limit (CEL_ERR_LIMIT "too complex, exceeds cost limit"). The program and
 * everything it points to live in `a`. Returns 0, or -1 with err filled. */
int cel_compile(struct arena *a, const struct cel_env *env, const char *expr,
                size_t len, struct cel_program **out, struct cel_error *err);
/* Compiles a selector as compile.go does (the scheduler, claimcheck cel
 * --selector): like cel_compile, but the cost is only estimated
 * (cel_program_cost), not limited; the runtime limit still applies. */
int cel_compile_selector(struct arena *a, const struct cel_env *env,
                         const char *expr, size_t len,
                         struct cel_program **out, struct cel_error *err);
/* Compiles an expression, not a selector (claimcheck cel): the same
 * environment, any result type, no cost limit (the estimate is still
 * made: cel_program_cost). */
int cel_compile_expr(struct arena *a, const struct cel_env *env,
                     const char *expr, size_t len, struct cel_program **out,
                     struct cel_error *err);
/* cel_compile for a target Kubernetes 1.<kube_minor> (0 = env's): older
 * targets lack two-variable comprehensions (< 1.32), the semver library
 * (< 1.31) and the ext lists functions (< 1.34), and the apiserver of that
 * version rejects selectors using them. */
int cel_compile_target(struct arena *a, const struct cel_env *env,
                       int kube_minor, const char *expr, size_t len,
                       struct cel_program **out, struct cel_error *err);
/* Kubernetes' estimated cost range of a compiled program (compile.go's
 * MaxCost is *max; the apiserver rejects a selector over CEL_MAX_COST). */
void cel_program_cost(const struct cel_program *p, uint64_t *min,
                      uint64_t *max);
/* Frees what the arena cannot: JIT-compiled regex code (only allocated when
 * env->regex_jit was set). Safe to call on any program, once. */
void cel_program_release(struct cel_program *p);

enum cel_attr_type { CEL_ATTR_INT, CEL_ATTR_BOOL, CEL_ATTR_STRING,
                     CEL_ATTR_VERSION, CEL_ATTR_INTS, CEL_ATTR_BOOLS,
                     CEL_ATTR_STRINGS, CEL_ATTR_VERSIONS };
struct cel_attr {           /* one device attribute, domain already split off */
    const char *domain;     /* e.g. "gpu.nvidia.com" */
    const char *id;         /* e.g. "productName" */
    enum cel_attr_type type;
    union {                 /* the value, by type (one member is set: read
                               the one type says; 48 bytes an attribute,
                               millions of them in a large inventory) */
        long long i;        /* INT */
        int b;              /* BOOL */
        const char *s;      /* STRING, VERSION */
        const long long *iv;    /* INTS */
        const int *bv;      /* BOOLS */
        const char *const *sv;  /* STRINGS, VERSIONS */
    };
    size_t nv;              /* list types: how many values */
    const char *name;       /* as the slice writes it ("model" or
                               "gpu.nvidia.com/model"), for messages;
                               NULL: domain/id */
};
struct cel_capacity { const char *domain, *id; const char *quantity; };
struct cel_device {
    const char *driver;
    const struct cel_attr *attrs; size_t nattrs;
    const struct cel_capacity *caps; size_t ncaps;
    int allow_multiple_allocations;
    unsigned bind;      /* CEL_BIND_*: set by cel_device_prepare, or 0 */
    const char *unsupported;    /* the name of an attribute with no value
                                   of a known type ({}), which attrs leave
                                   out: every evaluation fails with
                                   "attribute <name>: unsupported attribute
                                   value", as DeviceMatches does; or NULL */
};

#define CEL_BIND_READY 1u   /* the flags below are known */
#define CEL_BIND_LISTS 2u   /* a list-valued attribute */
#define CEL_BIND_BADVER 4u  /* a version that is not semver 2.0.0 */
/* Notes once what binding the attributes before every evaluation checks
 * (a device's attributes do not change after this), so that evaluations
 * skip the walk; a device never prepared is checked each time. */
void cel_device_prepare(struct cel_device *dev);

/* Evaluates a selector program against one device as DeviceMatches does:
 * every attribute is bound first (an attribute of no known type, and
 * without list_attributes a list value, is an error for the whole device:
 * "attribute <name>: unsupported attribute value"; a version that is not
 * semver 2.0.0 one too), and a
 * result that is not bool is an error ("CEL result of type <t> could not
 * be converted to bool"). Returns 1 (true), 0 (false), or -1 with a
 * runtime error in err. Reentrant. */
int cel_eval_device(const struct cel_program *p, const struct cel_device *dev,
                    struct cel_error *err);
/* The same, and *cost gets the runtime cost units the evaluation used
 * (Kubernetes' accounting: at most the cost limit). */
int cel_eval_device_costed(const struct cel_program *p,
                           const struct cel_device *dev, uint64_t *cost,
                           struct cel_error *err);
/* Evaluates a general program (dev may be NULL: referencing `device` is then
 * an error) and renders the result as a CEL literal into out ("true", "42",
 * "\"s\"", "[1, 2]", "{\"a\": 1}", "2u", "1.5", "b\"..\"", "null",
 * "semver(\"1.2.3\")", "quantity(\"1Gi\")"). Returns 0, or -1 + err (also
 * when out is too small). */
int cel_eval_to_string(const struct cel_program *p,
                       const struct cel_device *dev, char *out, size_t outsz,
                       struct cel_error *err);
/* The same, and *cost gets the runtime cost the evaluation used. */
int cel_eval_to_string_costed(const struct cel_program *p,
                              const struct cel_device *dev, char *out,
                              size_t outsz, uint64_t *cost,
                              struct cel_error *err);

/* 1 if s is a strict Semantic Versioning 2.0.0 string, the form the
 * apiserver requires of a device's version attributes (semverRe):
 * MAJOR.MINOR.PATCH without leading zeros, optional -prerelease and
 * +build. (Components past 2^64 are refused; the regex would take them.) */
int cel_semver_valid(const char *s);

/* ---- static facts for the selector rules ---- */

/* If every satisfying device must have device.driver == X (a top-level
 * conjunct, also inside cel.bind, parentheses or `in ["X"]`), returns X
 * (program-owned), else NULL. */
const char *cel_pinned_driver(const struct cel_program *p);
/* The same for a selector that does not compile (a type error, an unknown
 * function, a limit): the driver its syntax tree alone pins, or NULL (also
 * when it does not parse). Memory from a. */
const char *cel_pinned_driver_parsed(struct arena *a, const char *expr,
                                     size_t len);
/* Calls fn for every device.attributes[D] / device.capacity[D] lookup with a
 * constant domain D, with the byte offset of the domain literal. */
void cel_foreach_domain(const struct cel_program *p,
                        void (*fn)(void *ctx, const char *domain,
                                   int is_capacity, unsigned offset),
                        void *ctx);
/* Lists every device field the program reads: fn(ctx, what, domain, id)
 * with what = CEL_REF_DRIVER or CEL_REF_ALLOW_MULTI (domain, id NULL), or
 * CEL_REF_ATTR / CEL_REF_CAP with the constant domain and id (strings live
 * as long as the call). Returns 0 when the list is complete, -1 when the
 * program also reads the device in a way that cannot be listed (iterating
 * device.attributes, a computed key, a whole domain map used as a value):
 * then devices that agree on the listed fields may still evaluate
 * differently. Duplicates are possible. */
enum { CEL_REF_DRIVER, CEL_REF_ALLOW_MULTI, CEL_REF_ATTR, CEL_REF_CAP };
int cel_device_refs(const struct cel_program *p,
                    void (*fn)(void *ctx, int what, const char *domain,
                               const char *id),
                    void *ctx);

/* The clauses of a selector as written: when its root is a chain of &&,
 * the text of each operand (offsets into the expression, blanks trimmed),
 * else the whole text. At most max spans; a longer chain gives the whole
 * text as one. Returns the number of spans (0 only when max is 0). Scratch
 * memory from a. */
struct cel_span { size_t offset, len; };
size_t cel_conjuncts(struct arena *a, const struct cel_program *p,
                     struct cel_span *out, size_t max);

/* A selector (clause) that compares one device field with a constant:
 * device.attributes[D].id OP <int> (either side, negated or not), or
 * device.capacity[D].id.compareTo(quantity(Q)) OP 0 / .isGreaterThan(
 * quantity(Q)) / .isLessThan(quantity(Q)), also through cel.bind. */
struct cel_comparison {
    int what;                   /* CEL_REF_ATTR (an int constant) or
                                   CEL_REF_CAP (a quantity) */
    char domain[128], id[128];
    const char *holds;          /* the relation of the device's value to the
                                   constant when the selector is true:
                                   "==" "!=" "<" "<=" ">" ">=" */
    const char *fails;          /* ... and when it is false */
    int is_quantity;
    char quantity[64];          /* the quantity as written: "80Gi" */
    long long i;                /* the int constant */
};
/* Returns 0 and fills out when p is one such comparison, else -1. */
int cel_comparison_of(const struct cel_program *p,
                      struct cel_comparison *out);

/* Decides whether the conjunction of n programs is provably unsatisfiable
 * for every device. Returns 1 only with a proof, filling why (one sentence),
 * *which (index of the program whose clause completes the contradiction)
 * and *offset (byte offset of that clause); returns 0 otherwise. */
int cel_conj_unsat(const struct cel_program *const *progs, size_t n,
                   char *why, size_t whysz, size_t *which, unsigned *offset);
/* Same, naming program i as labels[i] in why (e.g. "class", "request");
 * labels or any entry may be NULL ("selector N"). The message names the
 * attribute path and both values, e.g. "device.driver must be both
 * 'gpu.nvidia.com' (class) and 'gpu.amd.com' (request)". */
int cel_conj_unsat_labels(const struct cel_program *const *progs,
                          const char *const *labels, size_t n, char *why,
                          size_t whysz, size_t *which, unsigned *offset);

/* The text forms of timestamp() and duration(), for callers outside CEL
 * too (Kubernetes timestamps, --idle-after 24h): RFC 3339
 * (2006-01-02T15:04:05[.frac](Z|+hh:mm)) into Unix seconds and nanos, and
 * Go's time.ParseDuration syntax ("1h30m", "-1.5s") into seconds and
 * nanos. 0, or -1 when s[0..n) is not one. */
int cel_rfc3339_parse(const char *s, size_t n, int64_t *sec, int32_t *nsec);
int cel_duration_parse(const char *s, size_t n, int64_t *sec, int64_t *nsec);

#endif
