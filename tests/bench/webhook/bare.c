/*
 * bare.c - the benchmark's baseline: a bare libmicrohttpd TLS server (same
 * threading as claimcheck-webhook: epoll + a pool of --threads) that reads
 * the POST body and answers a fixed "allowed" AdmissionReview. Built by
 * tests/bench/webhook/run.sh; not part of the product.
 *   bare CERT KEY PORT THREADS
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <microhttpd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

static char reply_body[] = "{\"apiVersion\":\"admission.k8s.io/v1\","
    "\"kind\":\"AdmissionReview\",\"response\":{\"uid\":\"bench\","
    "\"allowed\":true}}";

static enum MHD_Result on_access(void *cls, struct MHD_Connection *c,
                                 const char *url, const char *method,
                                 const char *version, const char *upload,
                                 size_t *upload_size, void **req_cls)
{
    struct MHD_Response *r;
    enum MHD_Result ret;

    (void)cls;
    (void)url;
    (void)method;
    (void)version;
    (void)upload;
    if (!*req_cls) {
        *req_cls = c;
        return MHD_YES;
    }
    if (*upload_size) {
        *upload_size = 0;
        return MHD_YES;
    }
    r = MHD_create_response_from_buffer(strlen(reply_body), reply_body,
                                        MHD_RESPMEM_PERSISTENT);
    MHD_add_response_header(r, "Content-Type", "application/json");
    ret = MHD_queue_response(c, 200, r);
    MHD_destroy_response(r);
    return ret;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *p;
    long n;

    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    p = calloc(1, (size_t)n + 1);
    if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
        free(p);
        p = NULL;
    }
    fclose(f);
    return p;
}

int main(int argc, char **argv)
{
    struct MHD_Daemon *d;
    char *cert, *key;

    if (argc != 5) {
        fprintf(stderr, "usage: bare CERT KEY PORT THREADS\n");
        return 2;
    }
    cert = slurp(argv[1]);
    key = slurp(argv[2]);
    if (!cert || !key)
        return 1;
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    d = MHD_start_daemon(MHD_USE_TLS | MHD_USE_EPOLL_INTERNAL_THREAD,
                         (uint16_t)strtoul(argv[3], NULL, 10), NULL, NULL, on_access,
                         NULL, MHD_OPTION_HTTPS_MEM_CERT, cert,
                         MHD_OPTION_HTTPS_MEM_KEY, key,
                         MHD_OPTION_HTTPS_PRIORITIES,
                         "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2",
                         MHD_OPTION_THREAD_POOL_SIZE,
                         (unsigned)strtoul(argv[4], NULL, 10), MHD_OPTION_END);
    if (!d)
        return 1;
    while (!stop)
        usleep(100000);
    MHD_stop_daemon(d);
    return 0;
}
