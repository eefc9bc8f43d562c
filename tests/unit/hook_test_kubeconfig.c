/*
 * hook_test_kubeconfig.c - credentials for `audit` and the in-cluster
 * watcher: kubeconfig files merged as kubectl merges them (KUBECONFIG
 * lists, first file wins per value and per entry, current-context or a
 * named one, relative paths, -data fields, the errors users meet), the
 * service account, and exec credential plugins (arguments, environment,
 * KUBERNETES_EXEC_INFO, the cache until expirationTimestamp, failures).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../validate/err.h"
#include "../../webhook/execcred.h"
#include "../../webhook/kubeapi.h"
#include "../../webhook/kubeconfig.h"
#include "check.h"

static CHECK_INIT;
static char dir[256];

static const char *path_of(const char *name)
{
    static char p[4][512];
    static int i;

    i = (i + 1) % 4;
    snprintf(p[i], sizeof(p[i]), "%s/%s", dir, name);
    return p[i];
}

static void write_file(const char *name, const char *text, int mode)
{
    FILE *f = fopen(path_of(name), "w");

    if (!f) {
        perror(name);
        exit(1);
    }
    fputs(text, f);
    fclose(f);
    chmod(path_of(name), (mode_t)mode);
}

static int load(const char *path, const char *ctx, struct kubecreds *cr,
                struct err *err)
{
    kubecreds_release(cr);
    kubecreds_init(cr);
    err->msg[0] = '\0';
    return kubeconfig_load(path, ctx, cr, err);
}

/* ==== kubeconfig ========================================================= */

static const char first[] =
    "apiVersion: v1\nkind: Config\ncurrent-context: dev\n"
    "clusters:\n"
    "- name: c1\n  cluster:\n    server: https://one.example:6443/\n"
    "    certificate-authority: certs/ca.crt\n"
    "- name: c2\n  cluster:\n    server: https://two.example\n"
    "    certificate-authority-data: aGVsbG8=\n    tls-server-name: api\n"
    "users:\n"
    "- name: tok\n  user:\n    token: abc\n    tokenFile: ignored\n"
    "- name: file\n  user:\n    tokenFile: tok.txt\n"
    "contexts:\n"
    "- name: dev\n  context: {cluster: c1, user: tok}\n"
    "- name: two\n  context: {cluster: c2, user: file}\n";

static const char second[] =
    "apiVersion: v1\nkind: Config\ncurrent-context: other\n"
    "clusters:\n"
    "- name: c1\n  cluster:\n    server: https://shadowed.example\n"
    "    insecure-skip-tls-verify: true\n"
    "- name: c3\n  cluster:\n    server: https://three.example\n"
    "    insecure-skip-tls-verify: true\n"
    "users:\n"
    "- name: tok\n  user: {token: shadowed}\n"
    "- name: cert\n  user:\n    client-certificate-data: Y2VydA==\n"
    "    client-key-data: a2V5\n"
    "- name: both\n  user:\n    client-certificate: a.crt\n"
    "    client-certificate-data: Y2VydA==\n    client-key: a.key\n"
    "- name: gcp\n  user:\n    auth-provider: {name: gcp}\n"
    "- name: nokey\n  user:\n    client-certificate: a.crt\n"
    "- name: abs\n  user:\n    client-certificate: /etc/x.crt\n"
    "    client-key: /etc/x.key\n"
    "contexts:\n"
    "- name: dev\n  context: {cluster: c3, user: cert}\n"
    "- name: three\n  context: {cluster: c3, user: cert}\n"
    "- name: both\n  context: {cluster: c3, user: both}\n"
    "- name: gcp\n  context: {cluster: c3, user: gcp}\n"
    "- name: nokey\n  context: {cluster: c3, user: nokey}\n"
    "- name: nocluster\n  context: {cluster: c9, user: cert}\n"
    "- name: abs\n  context: {cluster: c1, user: abs}\n";

static void test_kubeconfig(void)
{
    struct kubecreds cr;
    struct err err;
    char env[2048];

    kubecreds_init(&cr);
    mkdir(path_of("sub"), 0700);
    write_file("sub/first.yaml", first, 0600);
    write_file("second.yaml", second, 0600);
    /* the first file sets current-context, c1 and tok; missing and empty
     * names in the list are skipped */
    snprintf(env, sizeof(env), "%s::%s:%s", path_of("sub/first.yaml"),
             path_of("missing.yaml"), path_of("second.yaml"));
    setenv("KUBECONFIG", env, 1);
    CHECK(load(NULL, NULL, &cr, &err) == 0);
    CHECK_STR(cr.server, "https://one.example:6443");
    CHECK(!cr.insecure);                    /* c1 of the second file lost */
    CHECK_STR(cr.ca_file, path_of("sub/certs/ca.crt"));
    CHECK_STR(cr.token, "abc");             /* token wins over tokenFile */
    CHECK(!cr.token_file);
    CHECK(strstr(cr.origin, "context 'dev'") != NULL);
    /* -data decoded, tls-server-name, a relative tokenFile */
    CHECK(load(NULL, "two", &cr, &err) == 0);
    CHECK(cr.ca_pem && cr.ca_pem_len == 5 && !memcmp(cr.ca_pem, "hello", 5));
    CHECK_STR(cr.tls_server_name, "api");
    CHECK_STR(cr.token_file, path_of("sub/tok.txt"));
    /* entries only the second file has */
    CHECK(load(NULL, "three", &cr, &err) == 0);
    CHECK_STR(cr.server, "https://three.example");
    CHECK(cr.insecure);
    CHECK(cr.cert_pem && !memcmp(cr.cert_pem, "cert", 4)
          && cr.key_pem && !memcmp(cr.key_pem, "key", 3));
    CHECK(load(NULL, "abs", &cr, &err) == 0);
    CHECK_STR(cr.cert_file, "/etc/x.crt");
    CHECK_STR(cr.key_file, "/etc/x.key");
    /* errors */
    CHECK(load(NULL, "nope", &cr, &err) < 0
          && strstr(err.msg, "context 'nope' is not in"));
    CHECK(load(NULL, "both", &cr, &err) < 0
          && strstr(err.msg, "both client-certificate and "
                             "client-certificate-data"));
    CHECK(load(NULL, "gcp", &cr, &err) < 0
          && strstr(err.msg, "auth-provider 'gcp'"));
    CHECK(load(NULL, "nokey", &cr, &err) < 0
          && strstr(err.msg, "without a key"));
    CHECK(load(NULL, "nocluster", &cr, &err) < 0
          && strstr(err.msg, "cluster 'c9'"));
    /* --kubeconfig: that file only, and it must exist */
    CHECK(load(path_of("second.yaml"), NULL, &cr, &err) < 0
          && strstr(err.msg, "context 'other' is not in"));
    CHECK(load(path_of("second.yaml"), "dev", &cr, &err) == 0);
    CHECK_STR(cr.server, "https://three.example");
    CHECK(load(path_of("missing.yaml"), NULL, &cr, &err) < 0
          && strstr(err.msg, "cannot read kubeconfig"));
    /* KUBECONFIG naming no existing file, a file that does not parse */
    setenv("KUBECONFIG", path_of("missing.yaml"), 1);
    CHECK(load(NULL, NULL, &cr, &err) < 0
          && strstr(err.msg, "none of the files in KUBECONFIG"));
    write_file("bad.yaml", "clusters: [\n", 0600);
    CHECK(load(path_of("bad.yaml"), NULL, &cr, &err) < 0
          && strstr(err.msg, "bad.yaml':"));
    /* ~/.kube/config when KUBECONFIG is unset */
    unsetenv("KUBECONFIG");
    setenv("HOME", dir, 1);
    mkdir(path_of(".kube"), 0700);
    write_file(".kube/config", first, 0600);
    CHECK(load(NULL, NULL, &cr, &err) == 0);
    CHECK_STR(cr.ca_file, path_of(".kube/certs/ca.crt"));
    kubecreds_release(&cr);
}

static void test_in_cluster(void)
{
    struct kubecreds cr;
    struct err err;

    kubecreds_init(&cr);
    unsetenv("KUBERNETES_SERVICE_HOST");
    CHECK(kubecreds_in_cluster(&cr, NULL, NULL, &err) < 0
          && strstr(err.msg, "KUBERNETES_SERVICE_HOST"));
    setenv("KUBERNETES_SERVICE_HOST", "fd00::1", 1);
    setenv("KUBERNETES_SERVICE_PORT", "443", 1);
    CHECK(kubecreds_in_cluster(&cr, NULL, "/sa", &err) == 0);
    CHECK_STR(cr.server, "https://[fd00::1]:443");
    CHECK_STR(cr.token_file, "/sa/token");
    CHECK_STR(cr.ca_file, "/sa/ca.crt");
    kubecreds_release(&cr);
    kubecreds_init(&cr);
    CHECK(kubecreds_in_cluster(&cr, "https://api.local/", NULL, &err) == 0);
    CHECK_STR(cr.server, "https://api.local");
    CHECK_STR(cr.token_file, KUBE_SA_DIR "/token");
    kubecreds_release(&cr);
}

/* ==== exec plugins ======================================================= */

/* A plugin that counts its runs in runs.txt, saves its arguments and
 * environment, and prints the credential of $PLUGIN_MODE. */
static const char plugin[] =
    "#!/bin/sh\n"
    "echo run >> \"$PLUGIN_DIR/runs.txt\"\n"
    "printf '%s\\n' \"$@\" > \"$PLUGIN_DIR/args.txt\"\n"
    "printf '%s' \"$KUBERNETES_EXEC_INFO\" > \"$PLUGIN_DIR/info.txt\"\n"
    "case \"$PLUGIN_MODE\" in\n"
    "fresh) exp=2999-01-01T00:00:00Z ;;\n"
    "stale) exp=2000-01-01T00:00:00Z ;;\n"
    "fail) echo 'no credentials' >&2; exit 3 ;;\n"
    "junk) echo 'not json'; exit 0 ;;\n"
    "cert) printf '{\"apiVersion\":\"client.authentication.k8s.io/v1\","
    "\"kind\":\"ExecCredential\",\"status\":{\"clientCertificateData\":"
    "\"C\",\"clientKeyData\":\"K\"}}'; exit 0 ;;\n"
    "esac\n"
    "printf '{\"apiVersion\":\"client.authentication.k8s.io/v1\","
    "\"kind\":\"ExecCredential\",\"status\":{\"token\":\"tok-%s\","
    "\"expirationTimestamp\":\"%s\"}}' \"$1\" \"$exp\"\n";

static int runs(void)
{
    FILE *f = fopen(path_of("runs.txt"), "r");
    char line[64];
    int n = 0;

    if (!f)
        return 0;
    while (fgets(line, sizeof(line), f))
        n++;
    fclose(f);
    return n;
}

static struct execcred *plugin_with(const char *mode, const char *cmd)
{
    static char envs[2][600];
    static const char *args[] = {"alpha", "two words"};
    const char *env[2];
    struct execcred_spec s;

    snprintf(envs[0], sizeof(envs[0]), "PLUGIN_DIR=%s", dir);
    snprintf(envs[1], sizeof(envs[1]), "PLUGIN_MODE=%s", mode);
    env[0] = envs[0];
    env[1] = envs[1];
    memset(&s, 0, sizeof(s));
    s.api_version = "client.authentication.k8s.io/v1";
    s.command = cmd ? cmd : path_of("plugin.sh");
    s.args = args;
    s.nargs = 2;
    s.env = env;
    s.nenv = 2;
    s.interactive_mode = "Never";
    s.install_hint = "install it with: apt install plugin";
    s.cluster_json = "{\"server\":\"https://x\"}";
    return execcred_new(&s);
}

static void test_exec(void)
{
    struct execcred *x;
    struct execcred_out o;
    struct err err;
    FILE *f;
    char text[512];
    size_t n;

    write_file("plugin.sh", plugin, 0700);
    remove(path_of("runs.txt"));
    /* a credential that is still valid is fetched once */
    x = plugin_with("fresh", NULL);
    CHECK(execcred_get(x, &o, &err) == 0);
    CHECK_STR(o.token, "tok-alpha");
    execcred_out_release(&o);
    CHECK(execcred_get(x, &o, &err) == 0 && runs() == 1);
    execcred_out_release(&o);
    /* after a 401 it is fetched again */
    execcred_expire(x);
    CHECK(execcred_get(x, &o, &err) == 0 && runs() == 2);
    execcred_out_release(&o);
    execcred_free(x);
    f = fopen(path_of("args.txt"), "r");
    n = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
    text[n] = '\0';
    if (f)
        fclose(f);
    CHECK_STR(text, "alpha\ntwo words\n");
    f = fopen(path_of("info.txt"), "r");
    n = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
    text[n] = '\0';
    if (f)
        fclose(f);
    CHECK_STR(text, "{\"apiVersion\":\"client.authentication.k8s.io/v1\","
                    "\"kind\":\"ExecCredential\",\"spec\":{\"interactive\":"
                    "false,\"cluster\":{\"server\":\"https://x\"}}}");
    /* an expired credential is fetched for every use */
    remove(path_of("runs.txt"));
    x = plugin_with("stale", NULL);
    CHECK(execcred_get(x, &o, &err) == 0);
    execcred_out_release(&o);
    CHECK(execcred_get(x, &o, &err) == 0 && runs() == 2);
    execcred_out_release(&o);
    execcred_free(x);
    /* a client certificate */
    x = plugin_with("cert", NULL);
    CHECK(execcred_get(x, &o, &err) == 0 && !o.token && o.cert_len == 1
          && !strcmp(o.cert_pem, "C") && !strcmp(o.key_pem, "K"));
    execcred_out_release(&o);
    execcred_free(x);
    /* failures */
    x = plugin_with("fail", NULL);
    CHECK(execcred_get(x, &o, &err) < 0
          && strstr(err.msg, "failed (exit status 3)"));
    execcred_free(x);
    x = plugin_with("junk", NULL);
    CHECK(execcred_get(x, &o, &err) < 0
          && strstr(err.msg, "printed no ExecCredential"));
    execcred_free(x);
    x = plugin_with("fresh", "no-such-plugin-claimcheck");
    CHECK(execcred_get(x, &o, &err) < 0
          && strstr(err.msg, "'no-such-plugin-claimcheck' not found: "
                             "install it with: apt install plugin"));
    execcred_free(x);
}

int main(void)
{
    snprintf(dir, sizeof(dir), "/tmp/claimcheck-kubeconfig-XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_kubeconfig();
    test_in_cluster();
    test_exec();
    if (fork() == 0) {
        execlp("rm", "rm", "-rf", dir, (char *)NULL);
        _exit(1);
    }
    return CHECK_DONE();
}
