/*
 * parse.c - CEL recursive-descent parser (cel-spec grammar) producing the AST
 * in an arena. Macros (has, all, exists, exists_one, map, filter, the
 * two-variable forms, cel.bind) become dedicated nodes here. Recursion is
 * bounded by CEL_MAX_PARSE_DEPTH and AST height by CEL_MAX_NODE_DEPTH, so a
 * hostile expression yields a parse error, never a stack overflow. Names are
 * not resolved here (check.c does that).
 */
#include "cel_internal.h"
#include "lex.h"
#include "../arena.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct parser {
    struct cel_lexer lx;
    struct cel_token tok;       /* current token */
    struct cel_token peek;      /* next token, when has_peek */
    int has_peek;
    int depth;
    int failed;
    struct arena *a;
    struct cel_error *err;
};

void cel_error_set(struct cel_error *err, int kind, const char *expr,
                   unsigned offset, const char *fmt, ...)
{
    va_list ap;
    unsigned i, line = 1, col = 1;

    if (!err)
        return;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
    va_end(ap);
    err->kind = kind;
    err->offset = offset;
    if (expr) {
        for (i = 0; i < offset && expr[i]; i++) {
            if (expr[i] == '\n') {
                line++;
                col = 1;
            } else if (((unsigned char)expr[i] & 0xC0) != 0x80) {
                col++;
            }
        }
    }
    err->line = line;
    err->col = col;
}

static void perr(struct parser *ps, unsigned off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void perr(struct parser *ps, unsigned off, const char *fmt, ...)
{
    char msg[200];
    va_list ap;

    if (ps->failed)
        return;
    ps->failed = 1;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    cel_error_set(ps->err, CEL_ERR_PARSE, ps->lx.src, off, "%s", msg);
}

static void advance(struct parser *ps)
{
    if (ps->has_peek) {
        ps->tok = ps->peek;
        ps->has_peek = 0;
    } else {
        cel_lex_next(&ps->lx, &ps->tok);
    }
    if (ps->tok.kind == TK_ERROR)
        ps->failed = 1;
}

static int accept(struct parser *ps, int kind)
{
    if (ps->tok.kind != kind)
        return 0;
    advance(ps);
    return 1;
}

static const char *tok_desc(const struct cel_token *t)
{
    switch (t->kind) {
    case TK_EOF: return "end of input";
    case TK_RPAREN: return "')'";
    case TK_RBRACK: return "']'";
    case TK_RBRACE: return "'}'";
    case TK_COMMA: return "','";
    case TK_COLON: return "':'";
    default: return "token";
    }
}

static int expect(struct parser *ps, int kind, const char *what)
{
    if (ps->tok.kind == kind) {
        advance(ps);
        return 1;
    }
    if (ps->tok.kind == TK_EOF)
        perr(ps, ps->tok.offset, "syntax error: expected %s, got end of input",
             what);
    else
        perr(ps, ps->tok.offset, "syntax error: expected %s at '%.*s'", what,
             (int)(ps->tok.len ? ps->tok.len : 1),
             ps->lx.src + ps->tok.offset);
    return 0;
}

static unsigned node_height(const struct cel_node *n)
{
    return n ? n->slot2 : 0;    /* during parsing slot2 holds the height */
}

static struct cel_node *mk(struct parser *ps, int kind, unsigned off,
                           unsigned nargs)
{
    struct cel_node *n = arena_alloc(ps->a, sizeof(*n));

    n->kind = (unsigned char)kind;
    n->offset = off;
    n->nargs = nargs;
    n->slot = -1;
    n->slot2 = 1;
    if (nargs)
        n->args = arena_alloc(ps->a, nargs * sizeof(*n->args));
    return n;
}

/* Recomputes height from children; errors when too tall. */
static void seal(struct parser *ps, struct cel_node *n)
{
    unsigned i, h = 0;

    for (i = 0; i < n->nargs; i++) {
        unsigned ch = node_height(n->args[i]);
        if (ch > h)
            h = ch;
    }
    n->slot2 = (int)h + 1;
    if (h + 1 > CEL_MAX_NODE_DEPTH)
        perr(ps, n->offset, "expression nesting exceeds limit of %d",
             CEL_MAX_NODE_DEPTH);
}

static struct cel_node *expr(struct parser *ps);

static struct cel_node *mk_lit(struct parser *ps, unsigned off,
                               struct cel_value v)
{
    struct cel_node *n = mk(ps, CEL_N_LIT, off, 0);
    n->lit = v;
    return n;
}

/* Parses "(args)" after a function name; ps->tok is '('. */
static struct cel_node **call_args(struct parser *ps, unsigned *count)
{
    struct cel_node **v = NULL;
    size_t n = 0, cap = 0;

    advance(ps);    /* ( */
    if (ps->tok.kind != TK_RPAREN) {
        for (;;) {
            struct cel_node *e = expr(ps);
            if (ps->failed)
                return NULL;
            if (n == cap) {
                v = arena_grow(ps->a, v, n, cap ? cap * 2 : 4, sizeof(*v));
                cap = cap ? cap * 2 : 4;
            }
            v[n++] = e;
            if (!accept(ps, TK_COMMA))
                break;
        }
    }
    if (!expect(ps, TK_RPAREN, "')'"))
        return NULL;
    *count = (unsigned)n;
    return v;
}

static int is_ident_node(const struct cel_node *n)
{
    return n->kind == CEL_N_IDENT;
}

static int name_is(const struct cel_node *n, const char *s)
{
    return n->name_len == strlen(s) && memcmp(n->name, s, n->name_len) == 0;
}

/* Builds a comprehension node for a member macro, or returns NULL when the
 * call is not a macro (then it is an ordinary call). */
/* The macros: a receiver-style call with this name and argument count
 * (the target not counted) expands; twovar: the first two arguments are
 * variable names. */
static const struct {
    const char *name;
    unsigned nargs;
    int macro;
    int twovar;
} macros[] = {
    {"all", 2, CEL_M_ALL, 0},
    {"all", 3, CEL_M_ALL2, 1},
    {"exists", 2, CEL_M_EXISTS, 0},
    {"exists", 3, CEL_M_EXISTS2, 1},
    {"exists_one", 2, CEL_M_EXISTS_ONE, 0},
    {"existsOne", 2, CEL_M_EXISTS_ONE, 0},
    {"exists_one", 3, CEL_M_EXISTS_ONE2, 1},
    {"existsOne", 3, CEL_M_EXISTS_ONE2, 1},
    {"map", 2, CEL_M_MAP, 0},
    {"map", 3, CEL_M_MAP_FILTER, 0},
    {"filter", 2, CEL_M_FILTER, 0},
    {"transformList", 3, CEL_M_TLIST, 1},
    {"transformList", 4, CEL_M_TLIST_FILTER, 1},
    {"transformMap", 3, CEL_M_TMAP, 1},
    {"transformMap", 4, CEL_M_TMAP_FILTER, 1},
    {"transformMapEntry", 3, CEL_M_TMAPENTRY, 1},
    {"transformMapEntry", 4, CEL_M_TMAPENTRY_FILTER, 1},
    {"optMap", 2, CEL_M_OPTMAP, 0},
    {"optFlatMap", 2, CEL_M_OPTFLATMAP, 0},
    {"sortBy", 2, CEL_M_SORTBY, 0},
};

static struct cel_node *macro(struct parser *ps, struct cel_node *target,
                              const char *name, size_t nl,
                              struct cel_node **a, unsigned na, unsigned off)
{
    int m = -1, twovar = 0;
    struct cel_node *n;
    size_t k;

    for (k = 0; k < sizeof(macros) / sizeof(macros[0]); k++)
        if (macros[k].nargs == na && strlen(macros[k].name) == nl
            && memcmp(name, macros[k].name, nl) == 0) {
            m = macros[k].macro;
            twovar = macros[k].twovar;
            break;
        }
    if (m < 0)
        return NULL;
    if (!is_ident_node(a[0]) || (twovar && !is_ident_node(a[1]))) {
        perr(ps, a[0]->offset, "argument must be a simple name");
        return NULL;
    }
    if (twovar && a[0]->name_len == a[1]->name_len &&
        memcmp(a[0]->name, a[1]->name, a[0]->name_len) == 0) {
        perr(ps, a[1]->offset, "duplicate variable name '%.*s'",
             (int)a[1]->name_len, a[1]->name);
        return NULL;
    }
    n = mk(ps, CEL_N_COMPR, off, 5);
    n->op = (unsigned char)m;
    n->args[0] = target;
    n->args[1] = a[0];
    n->args[2] = twovar ? a[1] : NULL;
    n->args[3] = a[twovar ? 2 : 1];
    n->args[4] = (unsigned)(twovar ? 3 : 2) < na ? a[twovar ? 3 : 2] : NULL;
    seal(ps, n);
    return n;
}

static struct cel_node *primary(struct parser *ps)
{
    struct cel_token t = ps->tok;
    struct cel_node *n;

    switch (t.kind) {
    case TK_INT:
        advance(ps);
        if (t.int_overflow || t.u > (uint64_t)INT64_MAX) {
            perr(ps, t.offset, "integer literal out of range");
            return NULL;
        }
        return mk_lit(ps, t.offset, cel_vint((int64_t)t.u));
    case TK_UINT:
        advance(ps);
        return mk_lit(ps, t.offset, cel_vuint(t.u));
    case TK_DOUBLE:
        advance(ps);
        return mk_lit(ps, t.offset, cel_vdouble(t.d));
    case TK_STRING:
        advance(ps);
        return mk_lit(ps, t.offset, cel_vstr(t.s, t.n));
    case TK_BYTES:
        advance(ps);
        return mk_lit(ps, t.offset, cel_vbytes(t.s, t.n));
    case TK_TRUE:
    case TK_FALSE:
        advance(ps);
        return mk_lit(ps, t.offset, cel_vbool(t.kind == TK_TRUE));
    case TK_NULL:
        advance(ps);
        return mk_lit(ps, t.offset, cel_vnull());
    case TK_LPAREN:
        advance(ps);
        n = expr(ps);
        if (ps->failed || !expect(ps, TK_RPAREN, "')'"))
            return NULL;
        return n;
    case TK_LBRACK: {
        struct cel_node **v = NULL;
        unsigned char *of = NULL;
        size_t cnt = 0, cap = 0;
        int anyopt = 0;

        advance(ps);
        while (ps->tok.kind != TK_RBRACK) {
            int opt = accept(ps, TK_QUEST);
            struct cel_node *e = expr(ps);
            if (ps->failed)
                return NULL;
            if (cnt == cap) {
                size_t nc = cap ? cap * 2 : 4;
                v = arena_grow(ps->a, v, cnt, nc, sizeof(*v));
                of = arena_grow(ps->a, of, cnt, nc, 1);
                cap = nc;
            }
            of[cnt] = (unsigned char)opt;
            anyopt |= opt;
            v[cnt++] = e;
            if (!accept(ps, TK_COMMA))
                break;
        }
        if (!expect(ps, TK_RBRACK, "']'"))
            return NULL;
        n = mk(ps, CEL_N_LIST, t.offset, 0);
        n->nargs = (unsigned)cnt;
        n->args = v;
        n->optflags = of;
        n->opt_elems = (unsigned char)anyopt;
        seal(ps, n);
        return n;
    }
    case TK_LBRACE: {
        struct cel_node **v = NULL;
        unsigned char *of = NULL;
        size_t cnt = 0, cap = 0;
        int anyopt = 0;

        advance(ps);
        while (ps->tok.kind != TK_RBRACE) {
            int opt = accept(ps, TK_QUEST);
            struct cel_node *k = expr(ps), *val;
            if (ps->failed || !expect(ps, TK_COLON, "':'"))
                return NULL;
            val = expr(ps);
            if (ps->failed)
                return NULL;
            if (cnt + 2 > cap) {
                size_t nc = cap ? cap * 2 : 8;
                v = arena_grow(ps->a, v, cnt, nc, sizeof(*v));
                of = arena_grow(ps->a, of, cnt / 2, nc / 2, 1);
                cap = nc;
            }
            of[cnt / 2] = (unsigned char)opt;
            anyopt |= opt;
            v[cnt++] = k;
            v[cnt++] = val;
            if (!accept(ps, TK_COMMA))
                break;
        }
        if (!expect(ps, TK_RBRACE, "'}'"))
            return NULL;
        n = mk(ps, CEL_N_MAP, t.offset, 0);
        n->nargs = (unsigned)cnt;
        n->args = v;
        n->optflags = of;
        n->opt_elems = (unsigned char)anyopt;
        seal(ps, n);
        return n;
    }
    case TK_DOT:
        advance(ps);
        if (ps->tok.kind != TK_IDENT) {
            perr(ps, ps->tok.offset, "syntax error: expected identifier");
            return NULL;
        }
        t = ps->tok;
        /* fall through */
    case TK_IDENT: {
        advance(ps);
        if (ps->tok.kind == TK_LPAREN) {
            unsigned na = 0;
            struct cel_node **a = call_args(ps, &na);
            if (ps->failed)
                return NULL;
            if (t.n == 3 && memcmp(t.s, "has", 3) == 0) {
                if (na != 1 || a[0]->kind != CEL_N_SELECT) {
                    perr(ps, t.offset, "invalid argument to has() macro");
                    return NULL;
                }
                n = mk(ps, CEL_N_HAS, t.offset, 1);
                n->args[0] = a[0]->args[0];
                n->name = a[0]->name;
                n->name_len = a[0]->name_len;
                seal(ps, n);
                return n;
            }
            n = mk(ps, CEL_N_CALL, t.offset, 0);
            n->name = t.s;
            n->name_len = t.n;
            n->args = a;
            n->nargs = na;
            seal(ps, n);
            return n;
        }
        if (ps->tok.kind == TK_LBRACE) {
            perr(ps, ps->tok.offset,
                 "message construction is not supported: '%.*s'",
                 (int)t.n, t.s);
            return NULL;
        }
        n = mk(ps, CEL_N_IDENT, t.offset, 0);
        n->name = t.s;
        n->name_len = t.n;
        return n;
    }
    case TK_RESERVED:
        perr(ps, t.offset, "reserved identifier '%.*s'", (int)t.len,
             ps->lx.src + t.offset);
        return NULL;
    case TK_ERROR:
        ps->failed = 1;
        return NULL;
    case TK_EOF:
        perr(ps, t.offset, "syntax error: unexpected end of input");
        return NULL;
    default:
        perr(ps, t.offset, "syntax error: unexpected %s '%.*s'",
             tok_desc(&t), (int)t.len, ps->lx.src + t.offset);
        return NULL;
    }
}

static struct cel_node *member(struct parser *ps, struct cel_node *n)
{
    while (!ps->failed && n) {
        unsigned off = ps->tok.offset;

        if (ps->tok.kind == TK_DOT) {
            int opt;
            struct cel_token id;

            advance(ps);
            opt = accept(ps, TK_QUEST);
            if (ps->tok.kind != TK_IDENT && ps->tok.kind != TK_RESERVED &&
                ps->tok.kind != TK_IN && ps->tok.kind != TK_TRUE &&
                ps->tok.kind != TK_FALSE && ps->tok.kind != TK_NULL) {
                perr(ps, ps->tok.offset, "syntax error: expected field name");
                return NULL;
            }
            id = ps->tok;
            if (id.kind != TK_IDENT) {
                id.s = ps->lx.src + id.offset;
                id.n = id.len;
            }
            advance(ps);
            if (!opt && ps->tok.kind == TK_LPAREN) {
                unsigned na = 0, i;
                struct cel_node **a = call_args(ps, &na), *c;
                if (ps->failed)
                    return NULL;
                if (na > 0) {
                    c = macro(ps, n, id.s, id.n, a, na, id.offset);
                    if (ps->failed)
                        return NULL;
                    if (c) {
                        n = c;
                        continue;
                    }
                }
                if (n->kind == CEL_N_IDENT && name_is(n, "cel") &&
                    id.n == 4 && memcmp(id.s, "bind", 4) == 0) {
                    if (na != 3 || !is_ident_node(a[0])) {
                        perr(ps, id.offset, "cel.bind() requires a variable "
                             "name, an initializer and a body");
                        return NULL;
                    }
                    c = mk(ps, CEL_N_BIND, n->offset, 3);
                    c->args[0] = a[0];
                    c->args[1] = a[1];
                    c->args[2] = a[2];
                    seal(ps, c);
                    n = c;
                    continue;
                }
                c = mk(ps, CEL_N_CALL, id.offset, na + 1);
                c->member = 1;
                c->name = id.s;
                c->name_len = id.n;
                c->args[0] = n;
                for (i = 0; i < na; i++)
                    c->args[i + 1] = a[i];
                seal(ps, c);
                n = c;
                continue;
            }
            {
                struct cel_node *s = mk(ps, opt ? CEL_N_OPTSELECT
                                                : CEL_N_SELECT, id.offset, 1);
                s->args[0] = n;
                s->name = id.s;
                s->name_len = id.n;
                seal(ps, s);
                n = s;
            }
            continue;
        }
        if (ps->tok.kind == TK_LBRACK) {
            int opt;
            struct cel_node *ix, *k;

            advance(ps);
            opt = accept(ps, TK_QUEST);
            k = expr(ps);
            if (ps->failed || !expect(ps, TK_RBRACK, "']'"))
                return NULL;
            ix = mk(ps, opt ? CEL_N_OPTINDEX : CEL_N_INDEX, off, 2);
            ix->args[0] = n;
            ix->args[1] = k;
            seal(ps, ix);
            n = ix;
            continue;
        }
        if (ps->tok.kind == TK_LBRACE && n->kind == CEL_N_SELECT) {
            perr(ps, ps->tok.offset, "message construction is not supported");
            return NULL;
        }
        break;
    }
    return n;
}

static struct cel_node *unary(struct parser *ps)
{
    unsigned off = ps->tok.offset;
    int nots = 0, negs = 0;
    struct cel_node *n;

    if (ps->tok.kind == TK_NOT) {
        while (ps->tok.kind == TK_NOT) {
            nots++;
            advance(ps);
        }
        n = member(ps, primary(ps));
        while (n && nots-- > 0) {
            struct cel_node *u = mk(ps, CEL_N_NOT, off, 1);
            u->args[0] = n;
            seal(ps, u);
            n = u;
        }
        return n;
    }
    if (ps->tok.kind == TK_MINUS) {
        unsigned last = off;
        while (ps->tok.kind == TK_MINUS) {
            negs++;
            last = ps->tok.offset;
            advance(ps);
        }
        if (ps->tok.kind == TK_INT || ps->tok.kind == TK_DOUBLE) {
            struct cel_token t = ps->tok;
            advance(ps);
            if (t.kind == TK_INT) {
                if (t.int_overflow || t.u > (uint64_t)INT64_MAX + 1) {
                    perr(ps, t.offset, "integer literal out of range");
                    return NULL;
                }
                n = mk_lit(ps, last, cel_vint(t.u == (uint64_t)INT64_MAX + 1
                                              ? INT64_MIN
                                              : -(int64_t)t.u));
            } else {
                n = mk_lit(ps, last, cel_vdouble(-t.d));
            }
            negs--;
            n = member(ps, n);
        } else {
            n = member(ps, primary(ps));
        }
        while (n && negs-- > 0) {
            struct cel_node *u = mk(ps, CEL_N_NEG, off, 1);
            u->args[0] = n;
            seal(ps, u);
            n = u;
        }
        return n;
    }
    return member(ps, primary(ps));
}

static struct cel_node *binary(struct parser *ps, int kind, int op,
                               unsigned off, struct cel_node *l,
                               struct cel_node *r)
{
    struct cel_node *n;

    if (!l || !r || ps->failed)
        return NULL;
    n = mk(ps, kind, off, 2);
    n->op = (unsigned char)op;
    n->args[0] = l;
    n->args[1] = r;
    seal(ps, n);
    return n;
}

/* One left-associative level: operand (op operand)*, ops[] mapping the
 * level's tokens to operators. */
struct binop_tok {
    int tok, op;
};

static struct cel_node *left_assoc(struct parser *ps,
                                   struct cel_node *(*operand)(struct parser *),
                                   const struct binop_tok *ops, size_t nops)
{
    struct cel_node *n = operand(ps);

    while (n && !ps->failed) {
        unsigned off = ps->tok.offset;
        size_t i;
        for (i = 0; i < nops && (int)ps->tok.kind != ops[i].tok; i++)
            ;
        if (i == nops)
            break;
        advance(ps);
        n = binary(ps, CEL_N_BINOP, ops[i].op, off, n, operand(ps));
    }
    return n;
}

static struct cel_node *mul(struct parser *ps)
{
    static const struct binop_tok ops[] = {
        {TK_STAR, CEL_OP_MUL}, {TK_SLASH, CEL_OP_DIV},
        {TK_PERCENT, CEL_OP_MOD},
    };

    return left_assoc(ps, unary, ops, sizeof(ops) / sizeof(ops[0]));
}

static struct cel_node *add(struct parser *ps)
{
    static const struct binop_tok ops[] = {
        {TK_PLUS, CEL_OP_ADD}, {TK_MINUS, CEL_OP_SUB},
    };

    return left_assoc(ps, mul, ops, sizeof(ops) / sizeof(ops[0]));
}

static struct cel_node *relation(struct parser *ps)
{
    struct cel_node *n = add(ps);

    while (n && !ps->failed) {
        int op;
        unsigned off = ps->tok.offset;
        switch (ps->tok.kind) {
        case TK_EQ: op = CEL_OP_EQ; break;
        case TK_NE: op = CEL_OP_NE; break;
        case TK_LT: op = CEL_OP_LT; break;
        case TK_LE: op = CEL_OP_LE; break;
        case TK_GT: op = CEL_OP_GT; break;
        case TK_GE: op = CEL_OP_GE; break;
        case TK_IN: op = CEL_OP_IN; break;
        default: return n;
        }
        advance(ps);
        n = binary(ps, CEL_N_BINOP, op, off, n, add(ps));
    }
    return n;
}

static struct cel_node *and_expr(struct parser *ps)
{
    struct cel_node *n = relation(ps);

    while (n && !ps->failed && ps->tok.kind == TK_AND) {
        unsigned off = ps->tok.offset;
        advance(ps);
        n = binary(ps, CEL_N_AND, 0, off, n, relation(ps));
    }
    return n;
}

static struct cel_node *or_expr(struct parser *ps)
{
    struct cel_node *n = and_expr(ps);

    while (n && !ps->failed && ps->tok.kind == TK_OR) {
        unsigned off = ps->tok.offset;
        advance(ps);
        n = binary(ps, CEL_N_OR, 0, off, n, and_expr(ps));
    }
    return n;
}

static struct cel_node *expr(struct parser *ps)
{
    struct cel_node *c, *n;

    if (++ps->depth > CEL_MAX_PARSE_DEPTH) {
        perr(ps, ps->tok.offset, "expression recursion limit exceeded "
             "(max nesting %d)", CEL_MAX_PARSE_DEPTH);
        return NULL;
    }
    c = or_expr(ps);
    if (c && !ps->failed && ps->tok.kind == TK_QUEST) {
        unsigned off = ps->tok.offset;
        struct cel_node *t, *f;
        advance(ps);
        t = or_expr(ps);
        if (ps->failed || !expect(ps, TK_COLON, "':'")) {
            ps->depth--;
            return NULL;
        }
        f = expr(ps);
        if (!t || !f || ps->failed) {
            ps->depth--;
            return NULL;
        }
        n = mk(ps, CEL_N_COND, off, 3);
        n->args[0] = c;
        n->args[1] = t;
        n->args[2] = f;
        seal(ps, n);
        c = n;
    }
    ps->depth--;
    return ps->failed ? NULL : c;
}

static void clear_heights(struct cel_node *n, int depth)
{
    unsigned i;

    if (!n || depth > CEL_MAX_NODE_DEPTH + 2)
        return;
    n->slot2 = -1;
    for (i = 0; i < n->nargs; i++)
        clear_heights(n->args[i], depth + 1);
}

struct cel_node *cel_parse(struct arena *a, const char *src, size_t len,
                           struct cel_error *err)
{
    struct parser ps;
    struct cel_node *root;

    memset(&ps, 0, sizeof(ps));
    ps.lx.src = src;
    ps.lx.len = len;
    ps.lx.a = a;
    ps.lx.err = err;
    ps.a = a;
    ps.err = err;
    advance(&ps);
    if (ps.failed)
        return NULL;
    root = expr(&ps);
    if (!ps.failed && ps.tok.kind != TK_EOF)
        perr(&ps, ps.tok.offset, "syntax error: unexpected '%.*s'",
             (int)(ps.tok.len ? ps.tok.len : 1), src + ps.tok.offset);
    if (ps.failed || !root)
        return NULL;
    clear_heights(root, 0);
    return root;
}
