/*
 * tls.h - the serving certificate: loading, hot reload, and the hooks
 * libmicrohttpd needs to hand it out per handshake.
 *
 * A struct tls holds the current credentials (certificate chain + private
 * key) behind an atomic pointer. A reload thread polls the files every
 * second (stat() follows the `..data` symlink of Secret volumes, so a swap
 * shows as a new inode); a pair that parses and matches replaces the
 * current one, anything else keeps the old pair serving and is logged.
 * Replaced credentials are freed only after hold_seconds (longer than any
 * handshake can take: the connection timeout bounds it), RCU-style, so a
 * handshake that picked up the old pointer never sees freed memory.
 * webhook/tls.c is the only file including GnuTLS headers.
 */
#ifndef CLAIMCHECK_WEBHOOK_TLS_H
#define CLAIMCHECK_WEBHOOK_TLS_H

#include <stddef.h>
#include <time.h>

struct err;
struct metrics;
struct tls;
struct MHD_Connection;
struct MHD_OptionItem;

/* Loads cert/key (PEM; the cert file may hold a chain) and the optional
 * client CA bundle. Fails (-1 via NULL + err) if they do not load or the
 * key does not match the certificate. m may be NULL. */
struct tls *tls_new(const char *cert, const char *key, const char *client_ca,
                    unsigned hold_seconds, struct metrics *m,
                    struct err *err);
/* Starts the reload thread. */
int tls_start(struct tls *t, struct err *err);
/* Stops the thread and frees every credential. Only after the daemon is
 * stopped. */
void tls_free(struct tls *t);
/* Checks the files now (also done every second by the thread). Returns 1 if
 * a new pair was installed, 0 if nothing changed, -1 if the new files were
 * rejected (the old pair keeps serving). */
int tls_reload(struct tls *t);

/* Appends libmicrohttpd options (cert callback, priorities, client CA
 * trust) to items; returns how many were written (at most max, >= 3
 * needed). The items point into t: keep t alive as long as the daemon. */
size_t tls_mhd_options(struct tls *t, struct MHD_OptionItem *items,
                       size_t max);
/* Called from MHD's connection-notify callback: stores t in the
 * connection's socket context, where the certificate callback finds it
 * (GnuTLS's callback carries no user pointer). */
void tls_bind_connection(struct tls *t, void **socket_context);
/* With a client CA: 1 if the peer sent a certificate that verifies, else 0.
 * Without one: always 1. */
int tls_client_ok(struct tls *t, struct MHD_Connection *c);
time_t tls_not_after(struct tls *t);

#endif
