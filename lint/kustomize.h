/*
 * kustomize.h - `lint --kustomize DIR`: a Kustomize directory rendered by
 * kubectl (or kustomize) into one input (kustomize.c).
 */
#ifndef CLAIMCHECK_KUSTOMIZE_H
#define CLAIMCHECK_KUSTOMIZE_H

struct inputs;

/* Renders dir with `kubectl kustomize DIR`, or `kustomize build DIR` when
 * kubectl is not on PATH, and adds the output to in as one input named
 * dir (findings name the directory, lines count in the rendered stream).
 * A tool missing, failing, printing more than the input limit or running
 * past the deadline is reported on stderr (the tool's stderr escaped and
 * bounded) and sets in->failed: exit 2. */
void kustomize_add(struct inputs *in, const char *dir);

#endif
