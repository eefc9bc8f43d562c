/*
 * hook_test_certs.c - certs/ through its public API only (no OpenSSL
 * headers here): generation, file modes, refusal to overwrite, --force,
 * caBundle encoding, not-after, key/cert match, CA reuse, option checks and
 * certs_main() exit codes. The openssl(1) view of the same files is
 * tests/certs/run.sh.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../certs/certs.h"
#include "../../validate/buf.h"
#include "../../validate/err.h"
#include "check.h"

static CHECK_INIT;

/* A P-256 CA valid 2026-11-29 .. 2126-11-05 made with `openssl req -x509`
 * for these tests only (its key is public: it is right here). */
static const char test_ca_crt[] =
    "-----BEGIN CERTIFICATE-----\n"
    "MIIBqjCCAVGgAwIBAgIUIQNW1/1ETPe4N6t0RVbsvGY2+P0wCgYIKoZIzj0EAwIw\n"
    "IjEgMB4GA1UEAwwXY2xhaW1jaGVjayB1bml0IHRlc3QgQ0EwIBcNMjYxMTI5MTU1\n"
    "NDQxWhgPMjEyNjExMDUxNTU0NDFaMCIxIDAeBgNVBAMMF2NsYWltY2hlY2sgdW5p\n"
    "dCB0ZXN0IENBMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEAJcUpwF21cB3D1FX\n"
    "yacJrajlvf5dt0GAuzWN+q6EzfIWYUawWB8opXmtiSxLlIx37o5dkdxy8fyDlHZ0\n"
    "54zVZqNjMGEwHQYDVR0OBBYEFHmpbFQYg2687+tkHrKK7agK5W5GMB8GA1UdIwQY\n"
    "MBaAFHmpbFQYg2687+tkHrKK7agK5W5GMA8GA1UdEwEB/wQFMAMBAf8wDgYDVR0P\n"
    "AQH/BAQDAgEGMAoGCCqGSM49BAMCA0cAMEQCIFtNQX4ZnNBXJbutVvKzss6IqKJ0\n"
    "5QHX2rs8HF0Q8c/oAiB0RNJc4qf2DN1dvme4kk/SqlfD3YbXHcU7UNZ94wiD3A==\n"
    "-----END CERTIFICATE-----\n";

static const char test_ca_key[] =
    "-----BEGIN PRIVATE KEY-----\n"
    "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgel+pJbWN+K+lu3pp\n"
    "51GIqImgipNuGoRqcARPMbdZ+omhRANCAAQAlxSnAXbVwHcPUVfJpwmtqOW9/l23\n"
    "QYC7NY36roTN8hZhRrBYHyilea2JLEuUjHfujl2R3HLx/IOUdnTnjNVm\n"
    "-----END PRIVATE KEY-----\n";

/* The same key, AES-256 encrypted with passphrase "x". */
static const char test_ca_key_enc[] =
    "-----BEGIN ENCRYPTED PRIVATE KEY-----\n"
    "MIHsMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAcBAgAvzoSxREOAwICCAAw\n"
    "DAYIKoZIhvcNAgkFADAdBglghkgBZQMEASoEELZYkhUP5O+8Y1ish53pquQEgZCr\n"
    "ro2CtZGU+XSctsTaW0M2Eehm/LImX6uEXHSqmupN40WfKlkB9i5nNwrezsYBBNor\n"
    "7VjM84VR70ZCCfgEN27tr8R1CUXDZ0UThQi/w7khn3HdKbiz4ZdQv8QjUqjnzzm+\n"
    "IKBC6r6ANNmxOycnIv/RuOk5dMj5224ifujDnZcYHHd5O/S0JOFeLLTvq6dOfj0=\n"
    "-----END ENCRYPTED PRIVATE KEY-----\n";

static char root[64];          /* mkdtemp'd scratch directory */
static struct err err;

/* ==== small file helpers ==== */

/* root/rel; the strings live until the end of the run (options keep
 * pointers to them). */
static char *paths[1024];
static size_t npaths;

static const char *path(const char *rel)
{
    size_t n = strlen(root) + strlen(rel) + 2;
    char *s = malloc(n);

    if (!s || npaths == sizeof(paths) / sizeof(paths[0])) {
        printf("out of path slots\n");
        exit(2);
    }
    snprintf(s, n, "%s/%s", root, rel);
    paths[npaths++] = s;
    return s;
}

/* malloc'ed contents (NUL-terminated) or NULL. */
static char *slurp(const char *file, size_t *len)
{
    FILE *f = fopen(file, "rb");
    char *p;
    long n;

    if (!f)
        return NULL;
    n = fseek(f, 0, SEEK_END) < 0 ? -1 : ftell(f);
    if (n < 0 || fseek(f, 0, SEEK_SET) < 0) {
        fclose(f);
        return NULL;
    }
    p = malloc((size_t)n + 1);
    if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
        free(p);
        p = NULL;
    }
    if (p)
        p[n] = '\0';
    if (len)
        *len = (size_t)n;
    fclose(f);
    return p;
}

static int same_content(const char *a, const char *b)
{
    char *x = slurp(a, NULL), *y = slurp(b, NULL);
    int same = x && y && !strcmp(x, y);

    free(x);
    free(y);
    return same;
}

static void put(const char *file, const char *s)
{
    FILE *f = fopen(file, "wb");

    if (!f) {
        printf("cannot write %s\n", file);
        exit(2);
    }
    fputs(s, f);
    fclose(f);
}

static void copy(const char *from, const char *to)
{
    char *s = slurp(from, NULL);

    if (!s) {
        printf("cannot read %s\n", from);
        exit(2);
    }
    put(to, s);
    free(s);
}

static int mode_of(const char *file)
{
    struct stat st;

    if (stat(file, &st) < 0)
        return -1;
    return (int)(st.st_mode & 07777);
}

static int exists(const char *file)
{
    struct stat st;

    return lstat(file, &st) == 0;
}

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

static int count_entries(const char *dir)
{
    struct dirent *de;
    DIR *d = opendir(dir);
    int n = 0;

    if (!d)
        return -1;
    for (de = readdir(d); de; de = readdir(d))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            n++;
    closedir(d);
    return n;
}

/* Go's strict base64 (as a caBundle is read): the project's decoder
 * (validate/buf.c, tested in test_core); malloc'ed or NULL. */
static char *b64dec(const char *s)
{
    struct buf b;
    char *out = NULL;

    buf_init(&b, strlen(s) + 1);
    if (buf_add_base64(&b, s, strlen(s), 1) == 0)
        out = strdup(b.p);
    buf_release(&b);
    return out;
}

/* ==== certs_main() with stdout+stderr captured ==== */

static char outbuf[65536];

static int run(int argc, const char **argv)
{
    const char *cap = path("captured.txt");
    int fd, so, se, rc;
    char *s;

    fflush(stdout);
    fflush(stderr);
    fd = open(cap, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    so = dup(1);
    se = dup(2);
    dup2(fd, 1);
    dup2(fd, 2);
    close(fd);
    rc = certs_main(argc, (char **)(void *)argv);
    fflush(stdout);
    fflush(stderr);
    dup2(so, 1);
    dup2(se, 2);
    close(so);
    close(se);
    s = slurp(cap, NULL);
    snprintf(outbuf, sizeof(outbuf), "%s", s ? s : "");
    free(s);
    unlink(cap);
    return rc;
}

#define RUN(...) run((int)(sizeof((const char *[]){ __VA_ARGS__ }) / \
                           sizeof(const char *)), \
                     (const char *[]){ __VA_ARGS__ })

/* ==== tests ==== */

static struct certs_opts base(const char *dir)
{
    struct certs_opts o;

    memset(&o, 0, sizeof(o));
    o.service = "hook";
    o.namespace_ = "claimcheck";
    o.out_dir = dir;
    return o;
}

static void test_generate_default(void)
{
    struct certs_opts o = base(path("a"));
    long long now = (long long)time(NULL), na;
    mode_t old = umask(0);     /* modes must not depend on the umask */
    char *b64, *pem, *key;
    int r;

    r = certs_generate(&o, &err);
    umask(old);
    CHECK(r == 0);
    if (r) {
        printf("  err: %s\n", err.msg);
        return;
    }
    CHECK(mode_of(path("a/tls.key")) == 0600);
    CHECK(mode_of(path("a/tls.crt")) == 0644);
    CHECK(mode_of(path("a/ca.crt")) == 0644);
    CHECK(count_entries(path("a")) == 3);     /* no temporaries left */

    na = certs_not_after(path("a/tls.crt"), &err);
    CHECK(na >= now + 365LL * 86400 - 5 && na <= now + 365LL * 86400 + 5);
    na = certs_not_after(path("a/ca.crt"), &err);
    CHECK(na >= now + 3650LL * 86400 - 5 && na <= now + 3650LL * 86400 + 5);
    CHECK(certs_pair_matches(path("a/tls.crt"), path("a/tls.key"),
                             &err) == 0);

    key = slurp(path("a/tls.key"), NULL);
    CHECK(key && !strncmp(key, "-----BEGIN PRIVATE KEY-----\n", 28));
    free(key);

    b64 = certs_ca_bundle_b64(path("a/ca.crt"), &err);
    CHECK(b64 != NULL);
    CHECK(b64 && !strchr(b64, '\n'));
    pem = b64 ? b64dec(b64) : NULL;
    key = slurp(path("a/ca.crt"), NULL);
    CHECK(pem && key && !strcmp(pem, key));
    free(pem);
    free(key);
    free(b64);
}

static void test_no_overwrite(void)
{
    struct certs_opts o = base(path("a"));

    copy(path("a/ca.crt"), path("ca.before"));
    copy(path("a/tls.key"), path("key.before"));
    CHECK(certs_outputs_exist(&o, &err) == 1);
    CHECK(strstr(err.msg, "already exists") != NULL);
    err.msg[0] = '\0';
    CHECK(certs_generate(&o, &err) == -1);
    CHECK(strstr(err.msg, "a/ca.crt' already exists (use --force") != NULL);
    CHECK(same_content(path("a/ca.crt"), path("ca.before")));
    CHECK(same_content(path("a/tls.key"), path("key.before")));
    CHECK(count_entries(path("a")) == 3);

    /* one file present is enough to refuse, and nothing else appears */
    mkdir(path("b"), 0755);
    put(path("b/tls.key"), "keep me\n");
    o.out_dir = path("b");
    CHECK(certs_generate(&o, &err) == -1);
    CHECK(strstr(err.msg, "b/tls.key' already exists") != NULL);
    CHECK(count_entries(path("b")) == 1);

    o.out_dir = path("a");
    o.force = 1;
    CHECK(certs_generate(&o, &err) == 0);
    CHECK(!same_content(path("a/ca.crt"), path("ca.before")));
    CHECK(!same_content(path("a/tls.key"), path("key.before")));
    CHECK(mode_of(path("a/tls.key")) == 0600);
    CHECK(certs_pair_matches(path("a/tls.crt"), path("a/tls.key"),
                             &err) == 0);
    CHECK(count_entries(path("a")) == 3);
}

static void test_rsa_and_extras(void)
{
    static const char *const dns[] = { "localhost", "HOOK.claimcheck.svc",
                                       "*.example.com" };
    static const char *const ip[] = { "127.0.0.1", "::1" };
    struct certs_opts o = base(path("rsa/deep/dir"));
    char *key;

    o.rsa_bits = 2048;
    o.days = 10;
    o.extra_dns = dns;
    o.n_extra_dns = 3;
    o.extra_ip = ip;
    o.n_extra_ip = 2;
    CHECK(certs_generate(&o, &err) == 0);
    CHECK(certs_pair_matches(path("rsa/deep/dir/tls.crt"),
                             path("rsa/deep/dir/tls.key"), &err) == 0);
    key = slurp(path("rsa/deep/dir/tls.key"), NULL);
    CHECK(key && !strncmp(key, "-----BEGIN PRIVATE KEY-----\n", 28));
    free(key);
    /* keys of different runs never match each other's certs */
    CHECK(certs_pair_matches(path("a/tls.crt"), path("rsa/deep/dir/tls.key"),
                             &err) == -1);
    CHECK(strstr(err.msg, "does not match") != NULL);
}

static void expect_bad(struct certs_opts *o, const char *needle)
{
    err.msg[0] = '\0';
    CHECK(certs_generate(o, &err) == -1);
    CHECK_MSG(strstr(err.msg, needle) != NULL, "expected '%s' in '%s'",
              needle, err.msg);
}

static void test_bad_options(void)
{
    static const char *const bad_dns[] = { "a..b" };
    static const char *const bad_ip[] = { "1.2.3" };
    struct certs_opts o = base(path("bad"));

    o.service = "Hook_1";
    expect_bad(&o, "service name 'Hook_1' is not a DNS-1123 label");
    o = base(path("bad"));
    o.namespace_ = NULL;
    expect_bad(&o, "missing namespace");
    o = base(path("bad"));
    o.days = CERTS_MAX_DAYS + 1;
    expect_bad(&o, "days must be between 1 and 3650");
    o = base(path("bad"));
    o.rsa_bits = 1024;
    expect_bad(&o, "rsa key size must be 2048 or 3072");
    o = base(path("bad"));
    o.extra_dns = bad_dns;
    o.n_extra_dns = 1;
    expect_bad(&o, "'a..b' is not a valid DNS name");
    o = base(path("bad"));
    o.extra_ip = bad_ip;
    o.n_extra_ip = 1;
    expect_bad(&o, "'1.2.3' is not an IP address");
    o = base(path("bad"));
    o.ca_cert = path("ca.before");
    expect_bad(&o, "needs both the certificate and the key");
    CHECK(!exists(path("bad")));        /* nothing created on bad input */
}

static void test_ca_reuse(void)
{
    struct certs_opts o = base(path("r"));
    char *b64, *pem;

    put(path("myca.crt"), test_ca_crt);
    put(path("myca.key"), test_ca_key);
    put(path("myca-enc.key"), test_ca_key_enc);
    o.ca_cert = path("myca.crt");
    o.ca_key = path("myca.key");
    CHECK(certs_generate(&o, &err) == 0);
    CHECK(same_content(path("r/ca.crt"), path("myca.crt")));
    CHECK(certs_pair_matches(path("r/tls.crt"), path("r/tls.key"),
                             &err) == 0);
    b64 = certs_ca_bundle_b64(path("r/ca.crt"), &err);
    pem = b64 ? b64dec(b64) : NULL;
    CHECK(pem && !strcmp(pem, test_ca_crt));
    free(b64);
    free(pem);

    /* rotate in place: ca.crt is the reused CA file, so it is not an
     * "existing output"; only tls.* are */
    o.out_dir = path("r2");
    mkdir(path("r2"), 0755);
    put(path("r2/ca.crt"), test_ca_crt);
    o.ca_cert = path("r2/ca.crt");
    CHECK(certs_outputs_exist(&o, &err) == 0);
    CHECK(certs_generate(&o, &err) == 0);
    CHECK(certs_outputs_exist(&o, &err) == 1);
    o.force = 1;
    CHECK(certs_generate(&o, &err) == 0);
    CHECK(same_content(path("r2/ca.crt"), path("myca.crt")));

    /* the CA key must match the CA cert */
    o = base(path("r3"));
    o.ca_cert = path("myca.crt");
    o.ca_key = path("a/tls.key");
    expect_bad(&o, "does not match");
    /* a leaf is not a CA, even with its own key */
    o.ca_cert = path("a/tls.crt");
    expect_bad(&o, "is not a CA certificate");
    /* encrypted keys are refused without ever prompting */
    o.ca_cert = path("myca.crt");
    o.ca_key = path("myca-enc.key");
    expect_bad(&o, "encrypted key");
    o.ca_key = path("nope.key");
    expect_bad(&o, "cannot open '");
    CHECK(!exists(path("r3")));
}

static void test_read_errors(void)
{
    put(path("garbage.crt"), "hello\n");
    CHECK(certs_not_after(path("missing.crt"), &err) == -1);
    CHECK(strstr(err.msg, "cannot open '") && strstr(err.msg, "missing.crt"));
    CHECK(certs_not_after(path("garbage.crt"), &err) == -1);
    CHECK(strstr(err.msg, "holds no PEM certificate") != NULL);
    CHECK(certs_ca_bundle_b64(path("garbage.crt"), &err) == NULL);
    CHECK(certs_pair_matches(path("a/tls.crt"), path("garbage.crt"),
                             &err) == -1);
    CHECK(strstr(err.msg, "holds no PEM private key") != NULL);
    CHECK(certs_not_after(path("myca.crt"), &err) == 4949567681LL);
}

static void test_main(void)
{
    CHECK(RUN("certs", "--help") == 0);
    CHECK(strstr(outbuf, "usage: claimcheck-webhook certs") != NULL);
    CHECK(RUN("certs") == 2);
    CHECK(strstr(outbuf, "error: missing --service") != NULL);
    CHECK(RUN("certs", "--service", "hook") == 2);
    CHECK(RUN("certs", "--bogus") == 2);
    CHECK(strstr(outbuf, "unknown option '--bogus'") != NULL);
    CHECK(RUN("certs", "--service", "hook", "--namespace", "ns", "--days",
              "12x") == 2);
    CHECK(RUN("certs", "--service", "hook", "--namespace", "ns", "--rsa",
              "4096") == 2);
    CHECK(RUN("certs", "--service=hook", "--namespace", "ns", "--service",
              "x") == 2);
    CHECK(RUN("certs", "--check", path("a"), "--service", "hook",
              "--namespace", "claimcheck", "--force") == 2);
    CHECK(strstr(outbuf, "'--force' cannot be used with --check") != NULL);
    CHECK(RUN("certs", "--service", "hook", "--namespace", "claimcheck",
              "--min-days", "3") == 2);

    /* generation through the CLI */
    CHECK(RUN("certs", "--service=hook", "--namespace=claimcheck",
              "--out", path("m"), "--ip", "10.0.0.1") == 0);
    CHECK(strstr(outbuf, "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t") == outbuf);
    CHECK(RUN("certs", "--service=hook", "--namespace=claimcheck",
              "--out", path("m")) == 2);
    CHECK(strstr(outbuf, "already exists (use --force to overwrite)") !=
          NULL);

    /* --check */
    CHECK(RUN("certs", "--check", path("m"), "--service", "hook",
              "--namespace", "claimcheck", "--ip", "10.0.0.1") == 0);
    CHECK(strstr(outbuf, "result: ok") != NULL);
    CHECK(RUN("certs", "--check", path("m"), "--service", "other",
              "--namespace", "claimcheck") == 1);
    CHECK(strstr(outbuf, "lacks SAN 'DNS:other.claimcheck.svc'") != NULL);
    CHECK(RUN("certs", "--check", path("m"), "--service", "hook",
              "--namespace", "claimcheck", "--ip", "10.0.0.2") == 1);
    CHECK(RUN("certs", "--check", path("rsa/deep/dir"), "--service", "hook",
              "--namespace", "claimcheck") == 1);   /* 10 days < 30 */
    /* 9 or 10 days, depending on whether a second has passed */
    CHECK(strstr(outbuf, "tls.crt' expires in ") != NULL);
    CHECK(strstr(outbuf, " days (minimum 30)") != NULL);
    CHECK(RUN("certs", "--check", path("rsa/deep/dir"), "--service", "hook",
              "--namespace", "claimcheck", "--min-days", "5") == 0);
    /* broken chain: someone else's CA */
    copy(path("a/ca.crt"), path("m/ca.crt"));
    CHECK(RUN("certs", "--check", path("m"), "--service", "hook",
              "--namespace", "claimcheck") == 1);
    CHECK(strstr(outbuf, "chain: FAILED") != NULL);
    /* key mismatch */
    copy(path("r/ca.crt"), path("r/ca.crt"));
    copy(path("a/tls.key"), path("r/tls.key"));
    CHECK(RUN("certs", "--check", path("r"), "--service", "hook",
              "--namespace", "claimcheck") == 1);
    CHECK(strstr(outbuf, "key: FAILED") != NULL);
    CHECK(RUN("certs", "--check", path("nowhere"), "--service", "hook",
              "--namespace", "claimcheck") == 1);
    CHECK(strstr(outbuf, "cannot open '") != NULL);
}

int main(void)
{
    snprintf(root, sizeof(root), "/tmp/hook_test_certs.XXXXXX");
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        return 2;
    }
    test_generate_default();
    test_no_overwrite();
    test_rsa_and_extras();
    test_bad_options();
    test_ca_reuse();
    test_read_errors();
    test_main();
    if (!CHECK_COUNTS->failed)
        rmtree(root);
    else
        printf("scratch directory kept: %s\n", root);
    while (npaths)
        free(paths[--npaths]);
    return CHECK_DONE();
}
