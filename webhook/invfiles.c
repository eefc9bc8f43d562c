/*
 * invfiles.c - reads --inventory files into the invstore and reloads them
 * on change (poll thread). Owns directory walking and the change signature;
 * parsing and snapshot building belong to the core and invstore.c.
 */
#include "invfiles.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../validate/err.h"
#include "../validate/file.h"
#include "../validate/limits.h"
#include "../validate/xalloc.h"
#include "invstore.h"
#include "log.h"

#define INVFILES_MAX 4096       /* files under all --inventory paths */
#define INVFILES_DEPTH 8        /* directory recursion */

struct invfiles {
    struct invstore *store;
    char **paths;
    size_t npaths;
    uint64_t sig;               /* signature of the last load attempt */
    pthread_t thread;
    int started;
    pthread_mutex_t mu;
    pthread_cond_t cond;
    int stop;
};

struct filelist {
    char **names;
    size_t n;
    uint64_t sig;
};

static void sig_mix(uint64_t *h, const void *p, size_t n)
{
    const unsigned char *c = p;
    size_t i;

    for (i = 0; i < n; i++) {
        *h ^= c[i];
        *h *= 1099511628211u;
    }
}

/* Files under path (a file given by name counts whatever it is called;
 * in directories *.yaml, *.yml and *.json, hidden entries skipped, in
 * name order so the signature and the load order are stable), each
 * mixed into the change signature. Below the top, what cannot be read is
 * skipped. */
static int walk(const char *path, int depth, int top, struct filelist *l,
                struct file_dirs *dirs, struct err *err)
{
    struct stat st;
    char **kids;
    size_t nk, i;
    int rc = 0;

    if (stat(path, &st) < 0) {
        if (top)
            return err_set(err, "cannot read '%s': %s", path,
                           strerror(errno));
        return 0;
    }
    if (!top && !S_ISDIR(st.st_mode) && !file_is_manifest(path))
        return 0;
    sig_mix(&l->sig, path, strlen(path));
    sig_mix(&l->sig, &st.st_ino, sizeof(st.st_ino));
    sig_mix(&l->sig, &st.st_size, sizeof(st.st_size));
    sig_mix(&l->sig, &st.st_mtim, sizeof(st.st_mtim));
    sig_mix(&l->sig, &st.st_ctim, sizeof(st.st_ctim));
    if (!S_ISDIR(st.st_mode)) {
        if (l->n >= INVFILES_MAX)
            return err_set(err, "more than %d inventory files",
                           INVFILES_MAX);
        l->names[l->n++] = xstrdup(path);
        return 0;
    }
    if (depth >= INVFILES_DEPTH || !file_dirs_enter(dirs, &st))
        return 0;
    if (file_list_dir(path, &kids, &nk, err) < 0)
        return top ? -1 : 0;
    for (i = 0; i < nk && rc == 0; i++)
        rc = walk(kids[i], depth + 1, 0, l, dirs, err);
    file_list_free(kids, nk);
    return rc;
}

static void filelist_release(struct filelist *l)
{
    size_t i;

    for (i = 0; i < l->n; i++)
        free(l->names[i]);
    free(l->names);
}

static int list_files(struct invfiles *f, struct filelist *l, struct err *err)
{
    struct file_dirs dirs = {0};
    size_t i;
    int rc = 0;

    l->n = 0;
    l->sig = 1469598103934665603u;
    l->names = xcalloc(INVFILES_MAX, sizeof(*l->names));
    for (i = 0; i < f->npaths && rc == 0; i++)
        rc = walk(f->paths[i], 0, 1, l, &dirs, err);
    file_dirs_release(&dirs);
    return rc;
}

/* Returns 1 loaded, 0 unchanged, -1 failed or -2 refused (old snapshot
 * kept; invstore_set_files()). */
static int invfiles_load(struct invfiles *f, int force, struct err *err)
{
    struct filelist l;
    char **texts = NULL;
    size_t *lens = NULL, i, nread = 0;
    int ret = -1;

    if (list_files(f, &l, err) < 0)
        goto out;
    if (!force && l.sig == f->sig) {
        ret = 0;
        goto out;
    }
    f->sig = l.sig;
    texts = xcalloc(l.n ? l.n : 1, sizeof(*texts));
    lens = xcalloc(l.n ? l.n : 1, sizeof(*lens));
    for (nread = 0; nread < l.n; nread++)
        if (file_read(l.names[nread], LIMIT_FILE_BYTES, &texts[nread],
                      &lens[nread], err) < 0)
            goto out;
    ret = invstore_set_files(f->store, l.n, (const char *const *)l.names,
                             (const char *const *)texts, lens, err);
    if (ret < 0)
        goto out;
    log_msg(LOG_INFO, "inventory loaded: %zu files, %zu objects", l.n,
            invstore_size(f->store));
    ret = 1;
out:
    for (i = 0; i < nread; i++)
        free(texts[i]);
    free(texts);
    free(lens);
    filelist_release(&l);
    return ret;
}

struct invfiles *invfiles_new(struct invstore *s, const char *const *paths,
                              size_t n, struct err *err)
{
    struct invfiles *f = xcalloc(1, sizeof(*f));
    size_t i;

    f->store = s;
    f->paths = xcalloc(n ? n : 1, sizeof(*f->paths));
    for (i = 0; i < n; i++) {
        f->paths[i] = xstrdup(paths[i]);
    }
    f->npaths = n;
    pthread_mutex_init(&f->mu, NULL);
    pthread_cond_init(&f->cond, NULL);
    if (invfiles_load(f, 1, err) < 0) {
        invfiles_free(f);
        return NULL;
    }
    return f;
}

static void *poll_main(void *arg)
{
    struct invfiles *f = arg;

    pthread_mutex_lock(&f->mu);
    while (!f->stop) {
        struct timespec ts;
        struct err err = { "" };
        int rc;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += 1;
        pthread_cond_timedwait(&f->cond, &f->mu, &ts);
        if (f->stop)
            break;
        pthread_mutex_unlock(&f->mu);
        rc = invfiles_load(f, 0, &err);
        if (rc == -2)
            log_msg(LOG_WARN, "inventory refused, keeping the previous "
                    "snapshot: %s", err.msg);
        else if (rc < 0)
            log_msg(LOG_ERROR, "inventory reload failed, keeping the "
                    "previous snapshot: %s", err.msg);
        pthread_mutex_lock(&f->mu);
    }
    pthread_mutex_unlock(&f->mu);
    return NULL;
}

int invfiles_start(struct invfiles *f, struct err *err)
{
    if (pthread_create(&f->thread, NULL, poll_main, f) != 0)
        return err_set(err, "cannot start the inventory reload thread");
    f->started = 1;
    return 0;
}

void invfiles_free(struct invfiles *f)
{
    size_t i;

    if (!f)
        return;
    if (f->started) {
        pthread_mutex_lock(&f->mu);
        f->stop = 1;
        pthread_cond_signal(&f->cond);
        pthread_mutex_unlock(&f->mu);
        pthread_join(f->thread, NULL);
    }
    for (i = 0; i < f->npaths; i++)
        free(f->paths[i]);
    free(f->paths);
    pthread_cond_destroy(&f->cond);
    pthread_mutex_destroy(&f->mu);
    free(f);
}
