/*
 * whitebox: compiles an emitted runtime's source into this program (the Go
 * test passes -I with its directory) to check what no entry shows.
 *
 * usage: whitebox CHECK
 *   config-read-once   V-CFG: kernel init reads the caller's CallConfig once
 *                      and keeps the copy it checked, so a concurrent writer
 *                      cannot slip an unchecked config in.
 * Prints "FAIL <rule> <check>: ..." or "PASS <check>"; exits 1 on failure.
 */
#include "host_runtime.c"

#include <inttypes.h>

static int g_failures;

static void expect(const char *rule, const char *what, int64_t got, int64_t want)
{
    if (got != want) {
        printf("FAIL %s whitebox: %s: got %" PRId64 ", want %" PRId64 "\n", rule, what, got, want);
        g_failures++;
    }
}

typedef struct init_arg {
    void *ctx;
    CallConfig *cfg;
    int rc;
} init_arg;

static void *init_thread(void *p)
{
    init_arg *a = p;
    simabi_acl_x_set_current_device(0);
    a->rc = simpler_kernel_mode_init(a->ctx, 0, NULL, 0, NULL, 0, NULL, 0, a->cfg, 1);
    return NULL;
}

/* The init thread checks the config and then waits for the gate, which this
 * thread holds; meanwhile the caller's config turns invalid (enable_pmu is
 * UNSUPPORTED in kernel mode). The context must keep what was checked. */
static void check_config_read_once(void)
{
    CallConfig *cfg = calloc(1, sizeof *cfg);
    void *ctx = create_device_context();
    simabi_ctx *c = ctx_lookup(ctx, "whitebox");
    pthread_mutex_lock(&c->gate);
    init_arg a = {ctx, cfg, -1};
    pthread_t t;
    pthread_create(&t, NULL, init_thread, &a);
    struct timespec d = {0, 200 * 1000000L};
    nanosleep(&d, NULL);
    cfg->enable_pmu = 1;
    pthread_mutex_unlock(&c->gate);
    pthread_join(t, NULL);
    expect("V-CFG", "kernel init", a.rc, 0);
    uint32_t kept;
    memcpy(&kept, c->config + offsetof(CallConfig, enable_pmu), sizeof kept);
    expect("V-CFG", "enable_pmu of the config the context keeps", kept, 0);
    expect("V-CFG", "the kept config passes V-CFG", check_call_config(c->config, 1, 0), 0);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc != 2 || strcmp(argv[1], "config-read-once") != 0) {
        fprintf(stderr, "usage: whitebox config-read-once\n");
        return 2;
    }
    check_config_read_once();
    if (g_failures == 0) {
        printf("PASS %s\n", argv[1]);
    }
    return g_failures ? 1 : 0;
}
