/*
 * legacy: checks the emitted legacy profile (docs/semantics.md §12): the
 * 9-parameter simpler_init, simpler_provision_dma_workspace and the legacy
 * codes. usage: legacy RUNTIME.so
 */
#include <stdlib.h>
#include <string.h>

typedef int (*legacy_init_fn)(void *, int, const uint8_t *, size_t, const uint8_t *, size_t, const uint8_t *, size_t,
                              const void *);
typedef int (*provision_fn)(void *, uint32_t, const void *, uint64_t);

static int g_failures;

static void expect(const char *what, long got, long want)
{
    if (got != want) {
        printf("FAIL legacy: %s: got %ld, want %ld\n", what, got, want);
        g_failures++;
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        return 2;
    }
    void *rt = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (rt == NULL) {
        fprintf(stderr, "%s\n", dlerror());
        return 2;
    }
    legacy_init_fn init;
    provision_fn provision;
    *(void **)&init = dlsym(rt, "simpler_init");
    *(void **)&provision = dlsym(rt, "simpler_provision_dma_workspace");
    *(void **)&p_create_device_context = dlsym(rt, "create_device_context");
    *(void **)&p_destroy_device_context = dlsym(rt, "destroy_device_context");
    *(void **)&p_finalize_device = dlsym(rt, "finalize_device");
    *(void **)&p_simpler_register_callable = dlsym(rt, "simpler_register_callable");
    *(void **)&p_simpler_launch_run = dlsym(rt, "simpler_launch_run");
    *(void **)&p_simabi_inject = dlsym(rt, "simabi_inject");
    if (init == NULL || provision == NULL || p_create_device_context == NULL || p_finalize_device == NULL ||
        p_simpler_register_callable == NULL || p_simpler_launch_run == NULL || p_simabi_inject == NULL) {
        fprintf(stderr, "missing symbols\n");
        return 2;
    }
    if (dlsym(rt, "simpler_kernel_mode_supported") != NULL || dlsym(rt, "device_memory_info_ctx") != NULL) {
        printf("FAIL legacy: exports kernel-revision symbols\n");
        g_failures++;
    }
    expect("finalize(NULL) is INTERNAL -> -1", p_finalize_device(NULL), -1);
    void *ctx = p_create_device_context();
    expect("register on a fresh context: IS -> -1", p_simpler_register_callable(ctx, 0, NULL), -1);
    expect("provision without a live init", provision(ctx, 1, NULL, 0), -1);
    expect("provision(NULL)", provision(NULL, 1, NULL, 0), -1);
    static const uint8_t bytes[4];
    expect("simpler_init with an inconsistent span: IA -> -1", init(ctx, 0, bytes, 0, NULL, 0, NULL, 0, NULL), -1);
    /* a legacy CallConfig is 1144 bytes: aicpu_thread_num 7 is refused */
    uint8_t cfg[1144];
    memset(cfg, 0, sizeof cfg);
    cfg[0] = 7;
    expect("simpler_init with a bad prewarm config", init(ctx, 0, NULL, 0, NULL, 0, NULL, 0, cfg), -1);
    cfg[0] = 0;
    memset(cfg + 120, 'x', 1024);
    expect("simpler_init with an unterminated legacy prefix", init(ctx, 0, NULL, 0, NULL, 0, NULL, 0, cfg), -1);
    memset(cfg, 0, sizeof cfg);
    expect("simpler_init", init(ctx, 0, NULL, 0, NULL, 0, NULL, 0, cfg), 0);
    expect("simpler_init again: IS -> -1", init(ctx, 0, NULL, 0, NULL, 0, NULL, 0, NULL), -1);
    expect("provision with an inconsistent span", provision(ctx, 1, NULL, 8), -1);
    expect("provision", provision(ctx, 1, NULL, 0), 0);
    expect("launch_run of nothing: IS -> -1", p_simpler_launch_run(ctx, (void *)cfg), -1);
    expect("legacy models no fault site", p_simabi_inject(1, 1, -1000), -1001);
    expect("finalize", p_finalize_device(ctx), 0);
    p_destroy_device_context(ctx);
    if (g_failures == 0) {
        printf("PASS legacy\n");
    }
    return g_failures ? 1 : 0;
}
