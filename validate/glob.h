/*
 * glob.h - shell-style patterns over '/'-separated paths and names, as
 * kube-linter's and kubeconform's users write them (doublestar):
 *
 *   *       any run of characters but '/'
 *   ?       one character but '/'
 *   [abc] [a-z] [!a-z] [^a-z]   one character of (not of) the class;
 *           '/' never matches; an unclosed '[' is an ordinary character
 *   **      a whole segment of its own (between slashes, or at either
 *           end): zero or more whole segments; inside a segment it is
 *           '*' twice (examples: tests/unit/test_glob.c)
 *   \x      x itself
 *
 * The whole text must match. No recursion and no allocation: the cost
 * is bounded by len(pattern) x len(text) (no exponential blow-up).
 */
#ifndef CLAIMCHECK_GLOB_H
#define CLAIMCHECK_GLOB_H

/* 1 if text matches pattern, else 0. */
int glob_match(const char *pattern, const char *text);

#endif
