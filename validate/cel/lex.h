/*
 * lex.h - the CEL tokenizer's interface, shared by lex.c, parse.c and
 * analysis.c (cel_conjuncts splits a selector's text at its && tokens).
 */
#ifndef CLAIMCHECK_CEL_LEX_H
#define CLAIMCHECK_CEL_LEX_H

#include <stddef.h>
#include <stdint.h>

struct arena;
struct cel_error;

enum cel_tok {
    TK_EOF, TK_INT, TK_UINT, TK_DOUBLE, TK_STRING, TK_BYTES, TK_IDENT,
    TK_TRUE, TK_FALSE, TK_NULL, TK_IN, TK_RESERVED,
    TK_LPAREN, TK_RPAREN, TK_LBRACK, TK_RBRACK, TK_LBRACE, TK_RBRACE,
    TK_DOT, TK_COMMA, TK_COLON, TK_QUEST, TK_NOT, TK_MINUS, TK_PLUS,
    TK_STAR, TK_SLASH, TK_PERCENT, TK_EQ, TK_NE, TK_LT, TK_LE, TK_GT, TK_GE,
    TK_AND, TK_OR, TK_ERROR
};

struct cel_token {
    int kind;               /* enum cel_tok */
    unsigned offset, len;   /* source span */
    uint64_t u;             /* INT (magnitude) / UINT */
    int int_overflow;       /* INT magnitude > 2^63 */
    double d;
    const char *s; size_t n;   /* STRING/BYTES decoded (arena), IDENT raw */
};

struct cel_lexer {
    const char *src;
    size_t len, pos;
    struct arena *a;
    struct cel_error *err;
};

/* Reads the next token; TK_ERROR with err filled on a lexical error. */
void cel_lex_next(struct cel_lexer *lx, struct cel_token *t);

#endif
