/*
 * render_html.h - `-o html`: one self-contained page (inline CSS, script
 * and SVG; no network request) with the run's device map (devicemap.h):
 * every node with its devices by driver and pool and the counters they
 * use, which claims hold which devices or could take them, the claims that
 * cannot be satisfied and why, and the findings with file:line, searchable
 * and filtered by node, driver, namespace and rule, one page of them at a
 * time (thousands of nodes stay fast). The page itself is
 * lint/html/page.html, compiled into render_html_data.c.
 */
#ifndef CLAIMCHECK_RENDER_HTML_H
#define CLAIMCHECK_RENDER_HTML_H

struct buf;
struct diag_list;
struct render_opts;

/* the page before and after the report's JSON (generated; NULL-ended) */
extern const char *const render_html_head[];
extern const char *const render_html_tail[];

void render_html(struct buf *b, const struct diag_list *l,
                 const struct render_opts *o);

#endif
