/*
 * render_int.h - what the renderers share (render.c) and the renderer of
 * each format (render_<format>.c). Only render*.c include it.
 */
#ifndef CLAIMCHECK_RENDER_INT_H
#define CLAIMCHECK_RENDER_INT_H

#include "render.h"

#define RENDER_OUT_MAX ((size_t)1 << 30)    /* one report */

void render_text(struct buf *b, const struct diag_list *l,
                 const struct render_opts *o);
void render_json(struct buf *b, const struct diag_list *l,
                 const struct render_opts *o);
void render_sarif(struct buf *b, const struct diag_list *l,
                  const struct render_opts *o);
void render_junit(struct buf *b, const struct diag_list *l,
                  const struct render_opts *o);
void render_github(struct buf *b, const struct diag_list *l,
                   const struct render_opts *o);
void render_policyreport(struct buf *b, const struct diag_list *l,
                         const struct render_opts *o);

/* the finding's hint: its own, else its rule's */
const char *render_hint(const struct diag *d);
/* the finding's file, "-" for stdin and admission requests */
const char *render_file(const struct diag *d);
/* listed at all: not suppressed, or show_suppressed */
int render_visible(const struct diag *d, const struct render_opts *o);
/* findings by severity, suppressed ones left out */
void render_count(const struct diag_list *l, size_t *err, size_t *warn,
                  size_t *info);
/* findings suppressed (by an annotation or a config exception) */
size_t render_suppressed(const struct diag_list *l);
/* "key":"value" (value NULL: ""), then a comma when comma is set */
void render_json_kv(struct buf *b, const char *k, const char *v, int comma);

#endif
