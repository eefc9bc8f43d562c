/*
 * cel_internal.h - what the files of validate/cel/ share: the value type,
 * the AST, the program, the evaluation context, the function table and the
 * internal API used by the conformance runner (arbitrary variables, a
 * general environment without `device`). Not for use outside validate/cel/
 * and its tests.
 */
#ifndef CLAIMCHECK_CEL_INTERNAL_H
#define CLAIMCHECK_CEL_INTERNAL_H

#include "cel.h"
#include "../quantity.h"

#include <stddef.h>
#include <stdint.h>

struct arena;

#define CEL_MAX_PARSE_DEPTH 250     /* nested parens/calls/lists, as cel-go */
#define CEL_MAX_NODE_DEPTH  1000    /* AST height (left-deep chains) */
#define CEL_MAX_SLOTS       64      /* variables + comprehension locals */
#define CEL_SCRATCH_INLINE  8192    /* bytes of stack scratch per eval */
#define CEL_INCLUDES_MAX    48      /* ResourceSliceMaxAttributeValuesPerDevice:
                                       includes() scans no further */
#define CEL_REGEX_MATCH_LIMIT 100000
#define CEL_REGEX_DEPTH_LIMIT 10000
#define CEL_REGEX_HEAP_LIMIT_KIB 8192

/* ================= values ================= */

enum cel_vkind {
    CEL_V_ERROR, CEL_V_NULL, CEL_V_BOOL, CEL_V_INT, CEL_V_UINT, CEL_V_DOUBLE,
    CEL_V_STRING, CEL_V_BYTES, CEL_V_LIST, CEL_V_MAP, CEL_V_TYPE, CEL_V_OPT,
    CEL_V_QUANTITY, CEL_V_SEMVER,
    CEL_V_IP,           /* sub = 4 or 6, v.ip = address, aux = 0 */
    CEL_V_CIDR,         /* sub = 4 or 6, v.ip = address, aux = prefix */
    CEL_V_TIMESTAMP,    /* v.t: seconds since the epoch + nanoseconds */
    CEL_V_DURATION,     /* v.t: seconds + nanoseconds (0 <= nsec < 1e9) */
    CEL_V_URL,          /* v.s: the validated URL text */
    CEL_V_FORMAT,       /* k8s named format: sub = which */
    CEL_V_DEVICE,       /* x = struct cel_device */
    CEL_V_DEVMAP,       /* device.attributes (sub 0) / device.capacity (1) */
    CEL_V_DEVDOM        /* one domain of it: s = domain, x = device */
};

/* type codes for CEL_V_TYPE values and the checker */
enum cel_tkind {
    CEL_T_DYN, CEL_T_NULL, CEL_T_BOOL, CEL_T_INT, CEL_T_UINT, CEL_T_DOUBLE,
    CEL_T_STRING, CEL_T_BYTES, CEL_T_LIST, CEL_T_MAP, CEL_T_TYPE, CEL_T_OPT,
    CEL_T_QUANTITY, CEL_T_SEMVER, CEL_T_IP, CEL_T_CIDR, CEL_T_TIMESTAMP,
    CEL_T_DURATION, CEL_T_URL, CEL_T_FORMAT, CEL_T_DEVICE,
    CEL_T_ERROR, CEL_T_NTYPES
};

struct cel_list;
struct cel_map;
struct cel_semver;

struct cel_value {
    unsigned char kind;         /* enum cel_vkind */
    unsigned char sub;          /* TYPE: tkind; OPT: 1 = has value;
                                   DEVMAP/DEVDOM: 1 = capacity;
                                   IP/CIDR: address family (4, 6) */
    unsigned short aux;         /* CIDR: prefix length */
    int32_t qexp;               /* QUANTITY: the exponent; sub holds the
                                   Format and the representation
                                   (cel_vquantity) */
    const void *x;              /* DEVICE/DEVMAP/DEVDOM: the device */
    union {
        int b;
        int64_t i;
        uint64_t u;
        double d;
        struct { const char *p; size_t n; } s;  /* STRING BYTES ERROR DEVDOM */
        const struct cel_list *l;
        const struct cel_map *m;
        const struct cel_value *opt;            /* NULL when none */
        struct { uint64_t lo; int64_t hi; } q;  /* QUANTITY: mantissa */
        const struct cel_semver *sv;
        unsigned char ip[16];                   /* IP/CIDR (v4: first 4) */
        struct { int64_t sec; int32_t nsec; } t; /* TIMESTAMP/DURATION */
    } v;
};

struct cel_list { size_t n; const struct cel_value *v; };
struct cel_map { size_t n; const struct cel_value *k, *v; };
struct cel_semver {
    uint64_t major, minor, patch;
    const char *pre; size_t npre;       /* prerelease, without '-' */
};

/* ================= scratch (per evaluation) ================= */

struct cel_scratch_chunk;
struct cel_scratch {
    char *cur, *end;
    struct cel_scratch_chunk *chunks;   /* malloc'd spill blocks */
    size_t total;
    _Alignas(16) char inline_buf[CEL_SCRATCH_INLINE];
};
void cel_scratch_init(struct cel_scratch *s);
void *cel_scratch_alloc(struct cel_scratch *s, size_t n);
void cel_scratch_release(struct cel_scratch *s);

/* ================= static types (types.c) ================= */
/* The checker's types, as cel-go's: kinds, parameters (list element, map
 * key and value, optional_type and type(T) parameter), names of opaque and
 * struct types, type parameters (declared letters in declaration strings,
 * numbered fresh variables in the checker). Primitive types are the
 * constant objects below; composite ones live in the compile arena. */
enum cel_tykind {
    CEL_TY_DYN, CEL_TY_ANY, CEL_TY_ERROR, CEL_TY_NULL, CEL_TY_BOOL,
    CEL_TY_INT, CEL_TY_UINT, CEL_TY_DOUBLE, CEL_TY_STRING, CEL_TY_BYTES,
    CEL_TY_DURATION, CEL_TY_TIMESTAMP, CEL_TY_LIST, CEL_TY_MAP, CEL_TY_TYPE,
    CEL_TY_OPAQUE, CEL_TY_STRUCT, CEL_TY_PARAM
};
struct cel_type {
    unsigned char kind;         /* enum cel_tykind */
    unsigned char np;           /* parameters in p[] */
    unsigned id;                /* PARAM without name: fresh variable */
    const char *name;           /* OPAQUE/STRUCT name; PARAM letter */
    const struct cel_type *p[2];
};
extern const struct cel_type cel_ty_dyn, cel_ty_any, cel_ty_error,
    cel_ty_null, cel_ty_bool, cel_ty_int, cel_ty_uint, cel_ty_double,
    cel_ty_string, cel_ty_bytes, cel_ty_duration, cel_ty_timestamp,
    cel_ty_quantity, cel_ty_semver, cel_ty_url, cel_ty_format, cel_ty_device,
    cel_ty_ip, cel_ty_cidr;
const struct cel_type *cel_ty_list(struct arena *a, const struct cel_type *e);
const struct cel_type *cel_ty_map(struct arena *a, const struct cel_type *k,
                                  const struct cel_type *v);
const struct cel_type *cel_ty_opt(struct arena *a, const struct cel_type *e);
const struct cel_type *cel_ty_type(struct arena *a, const struct cel_type *e);
int cel_ty_is_opt(const struct cel_type *t);
int cel_ty_is_dyn(const struct cel_type *t);      /* dyn or any */
int cel_ty_exact(const struct cel_type *a, const struct cel_type *b);
/* FormatCELType (checker messages: "map(string, dyn)", "any") and
 * Type.String() (compile.go's result message: "google.protobuf.Any") */
void cel_ty_fmt(const struct cel_type *t, char *out, size_t sz);
void cel_ty_str(const struct cel_type *t, char *out, size_t sz);
const struct cel_type *cel_ty_most_general(const struct cel_type *a,
                                           const struct cel_type *b);

#define CEL_OVL_MAX_ARGS 4
struct cel_ovl {                /* one overload of a declaration string */
    const char *id;             /* cel-go's overload id */
    unsigned char member;       /* args[0] is the receiver */
    unsigned char nargs;
    unsigned char general_only; /* '!': not in the Kubernetes environment */
    const struct cel_type *args[CEL_OVL_MAX_ARGS];
    const struct cel_type *ret;
};
/* Parses a declaration string into overloads (arena-owned). 0 or -1. */
int cel_decl_parse(struct arena *a, const char *decl, struct cel_ovl **out,
                   size_t *n);

/* Type-parameter substitutions of one check (cel-go's mapping), with an
 * undo trail instead of copies: a failed assignability test leaves the
 * substitutions as they were. */
struct cel_tymap {
    struct arena *a;
    const struct cel_type **sub;        /* by fresh variable number */
    size_t nvars, cap;
    struct { size_t id; const struct cel_type *old; } *trail;
    size_t ntrail, captrail;
};
void cel_tymap_init(struct cel_tymap *m, struct arena *a);
const struct cel_type *cel_tymap_fresh(struct cel_tymap *m);
size_t cel_tymap_mark(const struct cel_tymap *m);
void cel_tymap_undo(struct cel_tymap *m, size_t mark);
/* isAssignable(t1, t2): may bind variables; 1 or 0 (nothing bound) */
int cel_ty_assignable(struct cel_tymap *m, const struct cel_type *t1,
                      const struct cel_type *t2);
int cel_ty_assignable_list(struct cel_tymap *m,
                           const struct cel_type *const *l1,
                           const struct cel_type *const *l2, unsigned n);
/* substitute(): bound variables replaced; unbound ones by dyn if to_dyn */
const struct cel_type *cel_ty_subst(struct cel_tymap *m,
                                    const struct cel_type *t, int to_dyn);
/* An overload's argument and result types with its declared parameters
 * replaced by fresh variables (args has room for o->nargs). */
void cel_ovl_instantiate(struct cel_tymap *m, const struct cel_ovl *o,
                         const struct cel_type **args,
                         const struct cel_type **ret);

/* ================= AST ================= */

enum cel_nkind {
    CEL_N_LIT, CEL_N_IDENT, CEL_N_SELECT, CEL_N_OPTSELECT, CEL_N_HAS,
    CEL_N_INDEX, CEL_N_OPTINDEX, CEL_N_CALL, CEL_N_LIST, CEL_N_MAP,
    CEL_N_AND, CEL_N_OR, CEL_N_COND, CEL_N_NOT, CEL_N_NEG,
    CEL_N_BINOP,        /* op in n->op */
    CEL_N_COMPR,        /* macro in n->op (enum cel_macro) */
    CEL_N_BIND          /* cel.bind(var, init, body) */
};

enum cel_binop {
    CEL_OP_EQ, CEL_OP_NE, CEL_OP_LT, CEL_OP_LE, CEL_OP_GT, CEL_OP_GE,
    CEL_OP_IN, CEL_OP_ADD, CEL_OP_SUB, CEL_OP_MUL, CEL_OP_DIV, CEL_OP_MOD
};

enum cel_macro {
    CEL_M_ALL, CEL_M_EXISTS, CEL_M_EXISTS_ONE, CEL_M_MAP, CEL_M_MAP_FILTER,
    CEL_M_FILTER, CEL_M_ALL2, CEL_M_EXISTS2, CEL_M_EXISTS_ONE2,
    CEL_M_TLIST, CEL_M_TLIST_FILTER, CEL_M_TMAP, CEL_M_TMAP_FILTER,
    CEL_M_TMAPENTRY, CEL_M_TMAPENTRY_FILTER,
    CEL_M_OPTMAP, CEL_M_OPTFLATMAP, CEL_M_SORTBY
};

struct cel_func;

struct cel_node {
    unsigned char kind;         /* enum cel_nkind */
    unsigned char op;           /* binop / macro */
    unsigned char member;       /* CALL: args[0] is the receiver */
    unsigned char opt_elems;    /* LIST/MAP: some entries are optional */
    unsigned char novl;         /* CALL/operators: overloads that matched */
    unsigned char konst;        /* a constant of the optimized program;
                                   2: a list/map literal built once, in
                                   lit */
    unsigned char rtc;          /* calls and operators: cel_call_class() */
    unsigned offset;            /* byte offset in the expression */
    unsigned nargs;
    struct cel_node **args;     /* children */
    unsigned char *optflags;    /* LIST/MAP: per entry, 1 = optional */
    const char *name;           /* IDENT/SELECT field/CALL function */
    size_t name_len;
    int slot;                   /* IDENT: variable slot; COMPR: first var */
    int slot2;                  /* COMPR: second var (-1), accumulator */
    const struct cel_func *fn;  /* CALL: resolved function */
    const struct cel_type *type;    /* static type (after checking) */
    const char *const *ovl;     /* ids of the overloads that matched */
    uint32_t lit_cost;          /* LIT folded from a call: its runtime cost */
    const void *aux;            /* CALL matches/find: precompiled regex */
    struct cel_value lit;       /* LIT */
};

/* ================= program ================= */

struct cel_var { const char *name; int slot; unsigned char type; };

struct cel_program {
    struct cel_node *root;
    const char *expr;           /* copy of the source (NUL-terminated) */
    size_t len;
    struct cel_env env;
    int general;                /* compiled with cel_compile_vars */
    int unchecked;              /* type errors deferred to runtime */
    int parsed_only;            /* never checked: no slots, no types (for
                                   the analyses of cel_pinned_driver_parsed) */
    int kube_minor;             /* target Kubernetes minor, 0 = newest */
    int unoptimized;            /* cel_unoptimize(): no constants */
    int device_slot;            /* slot of `device`, -1 if none */
    int nslots;
    uint64_t cost_min, cost_max;    /* the estimated cost (cost.c) */
    struct cel_regex **regexes; /* owned regexes, for release */
    size_t nregexes;
};

/* ================= evaluation context ================= */

struct cel_eval {
    const struct cel_program *p;
    struct cel_value slots[CEL_MAX_SLOTS];
    struct cel_scratch *scratch;
    uint64_t cost;              /* runtime cost counter */
    const struct cel_node *err_node;  /* node where the first error arose */
};

/* Error values: message in scratch (or static). */
/* Defines a library function with the call signature every library
 * table uses (lib_*.c). */
#define F(name) static struct cel_value name(struct cel_eval *ev, \
    const struct cel_node *n, const struct cel_value *a, unsigned na)

/* The "no such overload: name(type, type)" error of a function call n
 * with arguments a[0..na): shared by every library file. */
struct cel_value cel_no_overload(struct cel_eval *ev, const struct cel_node *n,
                                 const struct cel_value *a, unsigned na);
struct cel_value cel_verr(struct cel_eval *ev, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* small constructors: inline, they sit on the hot path */
static inline struct cel_value cel_vbool(int b)
{
    struct cel_value v = { CEL_V_BOOL, 0, 0, 0, NULL, { 0 } };
    v.v.b = b != 0;
    return v;
}
static inline struct cel_value cel_vint(int64_t i)
{
    struct cel_value v = { CEL_V_INT, 0, 0, 0, NULL, { 0 } };
    v.v.i = i;
    return v;
}
static inline struct cel_value cel_vuint(uint64_t u)
{
    struct cel_value v = { CEL_V_UINT, 0, 0, 0, NULL, { 0 } };
    v.v.u = u;
    return v;
}
static inline struct cel_value cel_vdouble(double d)
{
    struct cel_value v = { CEL_V_DOUBLE, 0, 0, 0, NULL, { 0 } };
    v.v.d = d;
    return v;
}
static inline struct cel_value cel_vstr(const char *p, size_t n)
{
    struct cel_value v = { CEL_V_STRING, 0, 0, 0, NULL, { 0 } };
    v.v.s.p = p;
    v.v.s.n = n;
    return v;
}
static inline struct cel_value cel_vbytes(const char *p, size_t n)
{
    struct cel_value v = { CEL_V_BYTES, 0, 0, 0, NULL, { 0 } };
    v.v.s.p = p;
    v.v.s.n = n;
    return v;
}
static inline struct cel_value cel_vnull(void)
{
    struct cel_value v = { CEL_V_NULL, 0, 0, 0, NULL, { 0 } };
    return v;
}
static inline struct cel_value cel_vtype(int t)
{
    struct cel_value v = { CEL_V_TYPE, 0, 0, 0, NULL, { 0 } };
    v.sub = (unsigned char)t;
    return v;
}
struct cel_value cel_vlist(struct cel_eval *ev, const struct cel_value *v,
                           size_t n);
struct cel_value cel_vopt(struct cel_eval *ev, const struct cel_value *inner);
char *cel_ev_alloc(struct cel_eval *ev, size_t n);

/* ================= cost.c, callcost.c ================= */
#define CEL_COST_MSG "operation cancelled: actual cost limit exceeded"
#define CEL_COST_LIST 10            /* common.ListCreateBaseCost */
#define CEL_COST_STR_FACTOR 0.1     /* common.StringTraversalCostFactor */
#define CEL_COST_REGEX_FACTOR 0.25  /* common.RegexStringLengthCostFactor */
static inline uint64_t cel_add_sat(uint64_t x, uint64_t y)
{
    return y > 0 && x > UINT64_MAX - y ? UINT64_MAX : x + y;
}
#define CEL_COST_MAP 30             /* common.MapCreateBaseCost */
/* Kubernetes' cost estimate of a checked program into p->cost_min/max. */
void cel_estimate_cost(struct cel_program *p, struct arena *a);
/* The runtime cost of one call (arguments a, receiver first; res may be
 * NULL before the call: a lower bound then) as cel-go's CostTracker with
 * Kubernetes' estimators charges it; cls is cel_call_class() of the
 * function name and call style, decided once per node. */
#define CEL_RT_ONE 0        /* cel_call_class(): the default cost 1 */
#define CEL_RT_FREE 1       /* ... a call the optimizer removed: 0 */
int cel_call_class(const char *fn, int member);
uint64_t cel_call_cost(struct cel_eval *ev, int cls,
                       const struct cel_value *a, unsigned na,
                       const struct cel_value *res);
int cel_call_cost_needs_result(int cls);
uint64_t cel_call_cost_of(const struct cel_program *p,
                          const struct cel_node *n,
                          const struct cel_value *a, unsigned na,
                          const struct cel_value *res);
uint64_t cel_actual_size(const struct cel_value *v);
/* eval.c: the plan of a checked program: the constants the optimizer
 * folds (they cost nothing) and each call's runtime cost class */
void cel_plan(struct arena *a, struct cel_node *n);
/* check.c: quantity()/semver() of literals into literals (after the cost
 * estimate); the name of an operator's function ("_==_") */
void cel_fold(struct cel_program *p, struct arena *a);
const char *cel_binop_function(int op);
/* lib_format.c: the regex size Kubernetes assumes for a named format */
int cel_format_max_regex(const struct cel_value *f);

/* A resource guard before work proportional to n (big allocations): -1
 * when the cost so far plus n is over the limit; charges nothing (the
 * call's cost is charged by eval.c). Return cel_verr(ev, "%s",
 * CEL_COST_MSG) then. */
int cel_work_guard(struct cel_eval *ev, uint64_t n);
/* Stable merge sort of v[0..n) by keys[0..n) (keys == v allowed); both
 * arrays are permuted together. 0, or -1 with *err when two keys are not
 * comparable. */
int cel_sort_values(struct cel_eval *ev, struct cel_value *v,
                    struct cel_value *keys, size_t n, struct cel_value *err);
#define CEL_MAX_STRING (4u * 1024 * 1024)   /* runtime string results */

/* ================= values.c ================= */
/* Heterogeneous equality: 1 = equal, 0 = not, -1 = error value returned in
 * *errv (no such overload is never an error for ==: different types are
 * unequal). */
int cel_value_equal(const struct cel_value *a, const struct cel_value *b);
/* Ordering: -1/0/1, or 2 when not comparable (no such overload), 3 NaN. */
int cel_value_compare(const struct cel_value *a, const struct cel_value *b);
int cel_value_type(const struct cel_value *v);  /* enum cel_tkind */
const char *cel_type_name(int t);
int cel_type_lookup(const char *name, size_t n);  /* -1 if not a type name */
/* Renders v as a CEL literal; returns 0 or -1 if out is too small. */
int cel_value_render(const struct cel_value *v, char *out, size_t outsz);
/* map access on any map-like value: 1 found, 0 not, -1 bad key type */
int cel_map_get(struct cel_eval *ev, const struct cel_value *m,
                const struct cel_value *key, struct cel_value *out);
size_t cel_map_size(const struct cel_value *m);
/* the `in` operator on a map-like value: 1 when key is present */
int cel_map_has(const struct cel_value *m, const struct cel_value *key);
/* i-th key / value of a map-like value (0 <= i < size) */
void cel_map_entry(struct cel_eval *ev, const struct cel_value *m, size_t i,
                   struct cel_value *k, struct cel_value *v);
int cel_is_map(const struct cel_value *v);
int cel_utf8_len(const char *s, size_t n, size_t *out);
void cel_format_double(double d, char *out, size_t outsz);

/* ================= lexer/parser ================= */
/* Parses expr into an AST in arena `a`. Returns root or NULL + err. */
struct cel_node *cel_parse(struct arena *a, const char *expr, size_t len,
                           struct cel_error *err);
void cel_error_set(struct cel_error *err, int kind, const char *expr,
                   unsigned offset, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* ================= checker ================= */
/* Resolves names, checks types, folds constant quantity()/semver()/regexes,
 * estimates the cost. vars: declared variables (slots assigned here). */
int cel_check(struct arena *a, struct cel_program *p,
              const struct cel_var *vars, size_t nvars, int want_bool,
              struct cel_error *err);

/* ================= evaluation ================= */
struct cel_value cel_eval_node(struct cel_eval *ev, const struct cel_node *n);

/* ================= function table ================= */
/* One row per function name. decl lists its overloads (types.c's
 * declaration strings: "ID:(T1,T2)->R" or "ID:T0.(T1)->R", separated by
 * spaces; an ID starting with '!' is declared only in the general
 * environment, not in Kubernetes'). impl evaluates every overload (it
 * dispatches on the argument values); NULL for the operators, which
 * eval.c evaluates itself. since: the first Kubernetes minor whose
 * NewExpressions environment declares the function (0 = always). */
struct cel_func {
    const char *name;
    const char *decl;
    unsigned char since;
    struct cel_value (*impl)(struct cel_eval *ev, const struct cel_node *n,
                             const struct cel_value *args, unsigned nargs);
};
const struct cel_func *cel_func_lookup(const char *name, size_t n);

/* functions shared across library files (same name, other receiver) */
struct cel_value cel_list_index_of(struct cel_eval *ev,
                                   const struct cel_node *n,
                                   const struct cel_value *a, unsigned na,
                                   int last);
struct cel_value cel_str_reverse(struct cel_eval *ev, const struct cel_node *n,
                                 const struct cel_value *a, unsigned na);

/* library tables, one per file */
extern const struct cel_func cel_lib_core[];
extern const size_t cel_lib_core_n;
extern const struct cel_func cel_lib_strings[];
extern const size_t cel_lib_strings_n;
extern const struct cel_func cel_lib_lists[];
extern const size_t cel_lib_lists_n;
extern const struct cel_func cel_lib_k8s[];
extern const size_t cel_lib_k8s_n;
extern const struct cel_func cel_lib_net[];
extern const size_t cel_lib_net_n;
extern const struct cel_func cel_lib_time[];
extern const size_t cel_lib_time_n;
extern const struct cel_func cel_lib_url[];
extern const size_t cel_lib_url_n;
extern const struct cel_func cel_lib_format[];
extern const size_t cel_lib_format_n;

/* lib_time.c: normalizes (sec, nsec) into a TIMESTAMP/DURATION value;
 * -1 when out of range. cel_time_format renders RFC 3339 / "1.5s". */
int cel_time_make(int kind, int64_t sec, int64_t nsec, struct cel_value *out);
void cel_time_format(const struct cel_value *v, char *out, size_t outsz);

/* lib_net.c: canonical text of an IP / CIDR value */
void cel_net_format(const struct cel_value *v, char *out, size_t outsz);

/* ================= quantity.c ================= */

/* Quantities are validate/quantity.h's; these convert a CEL value to and
 * from one (the value keeps the mantissa, the exponent, the Format and the
 * representation). */
struct cel_value cel_vquantity(const struct quantity *q);
void cel_quantity_get(const struct cel_value *v, struct quantity *q);
int cel_quantity_cmp(const struct cel_value *a, const struct cel_value *b);
/* canonical String() */
void cel_quantity_format(const struct cel_value *v, char *out, size_t outsz);

/* ================= semver.c ================= */
int cel_semver_parse(const char *s, size_t n, int normalize,
                     struct cel_semver *out);
int cel_semver_cmp(const struct cel_semver *a, const struct cel_semver *b);
void cel_semver_format(const struct cel_semver *v, char *out, size_t outsz);

/* ================= regex.c ================= */
struct cel_regex;
/* Validates RE2 syntax and compiles. Returns NULL and fills msg (256). */
struct cel_regex *cel_regex_compile(struct arena *a, const char *pat,
                                    size_t n, int jit, char *msg);
void cel_regex_free(struct cel_regex *re);
/* 1 match, 0 no match, -1 error (msg). find: so and eo set on match. */
/* The yes/no of matches(): a search, and past the backtracking limits
 * the DFA matcher (no backtracking). 1, 0, or -1 with msg. */
int cel_regex_test(const struct cel_regex *re, const char *s, size_t n,
                   char *msg);
int cel_regex_search(const struct cel_regex *re, const char *s, size_t n,
                     size_t start, size_t *so, size_t *eo, char *msg);

/* ================= internal API for tests/conformance ================= */
struct cel_binding { const char *name; struct cel_value value; };
/* General environment: declares vars (dyn-typed) instead of `device`. */
int cel_compile_vars(struct arena *a, const struct cel_env *env,
                     const char *expr, size_t len, const char *const *vars,
                     size_t nvars, int check, struct cel_program **out,
                     struct cel_error *err);
/* Evaluates with bindings (by name); the result may point into scratch,
 * which the caller releases; *cost (may be NULL) gets the runtime cost.
 * Returns 0 or -1 (err; *out is the error). */
int cel_eval_bindings(const struct cel_program *p,
                      const struct cel_binding *b, size_t nb,
                      struct cel_scratch *scratch, struct cel_value *out,
                      uint64_t *cost, struct cel_error *err);
/* Compiles as Kubernetes' library cost tests do (tests/unit/test_cel_k8s.c,
 * apiserver cost_test.go testCost): the general environment without
 * variables, the cost estimated with the tests' size estimator (strings and
 * bytes of unknown size are 0..12, nothing is known from `device`), the
 * program planned without OptOptimize (constant literals and conversions
 * are built, at their cost, every evaluation). */
int cel_compile_library_test(struct arena *a, const char *expr, size_t len,
                             struct cel_program **out,
                             struct cel_error *err);
void cel_estimate_cost_test(struct cel_program *p, struct arena *a);
void cel_unoptimize(struct cel_program *p);

#endif
