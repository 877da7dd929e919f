/*
 * efin_client: an independent client of a host runtime, written from docs/contract.md
 * and docs/contract.md alone (no generated declarations): the E-FIN scenario of an
 * outstanding native run. A run is outstanding from its successful
 * simpler_prepare_run until simpler_finalize_run returns, launched or not;
 * meanwhile finalize_device returns INTERNAL (-1000) and nothing is torn down.
 *
 * usage: efin_client RUNTIME.so    (the emitted fake: zero-argument callable)
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint32_t abi_version, struct_size;
    int32_t threshold, clock_anchor_pid;
} SimplerHostLogState;

typedef struct {
    uint32_t pipeline_slot, arena_bank;
    uint64_t run_id, generation, dispatch_id, run_epoch;
    int32_t *accepted_state;
    int32_t accepted_value;
} NativeRunDescriptor;

static int failures;

static void expect(const char *what, long got, long want)
{
    if (got != want) {
        printf("FAIL %s: expected %ld got %ld\n", what, want, got);
        failures++;
    }
}

#define SYM(name, ret, params)                                                                                  \
    ret(*name) params;                                                                                          \
    *(void **)&name = dlsym(rt, #name);                                                                         \
    if (name == NULL) {                                                                                         \
        fprintf(stderr, "missing %s\n", #name);                                                                 \
        return 2;                                                                                               \
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
    SYM(simpler_host_log_bind_state, int, (SimplerHostLogState *));
    SYM(create_device_context, void *, (void));
    SYM(destroy_device_context, void, (void *));
    SYM(simpler_init, int, (void *, int, const uint8_t *, size_t, const uint8_t *, size_t, const uint8_t *, size_t,
                              const void *, int, const void *, uint64_t));
    SYM(finalize_device, int, (void *));
    SYM(get_runtime_size, size_t, (void));
    SYM(get_runtime_alignment, size_t, (void));
    SYM(simpler_register_callable, int, (void *, int32_t, const void *));
    SYM(simpler_prepare_run, int, (void *, void *, int32_t, const void *, const void *, const void *));
    SYM(simpler_launch_run, int, (void *, void *));
    SYM(simpler_wait_run, int, (void *, void *));
    SYM(simpler_finalize_run, int, (void *, void *));

    SimplerHostLogState log = {1, sizeof log, 25, 0};
    expect("bind the host log (threshold 25)", simpler_host_log_bind_state(&log), 0);
    void *ctx = create_device_context();
    expect("simpler_init", simpler_init(ctx, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 0), 0);

    /* A canonical ChipCallable of 9376 bytes: no signature, no binary, no children. */
    uint8_t *img = aligned_alloc(16, 9376);
    memset(img, 0, 9376);
    expect("register", simpler_register_callable(ctx, 0, img), 0);

    size_t size = get_runtime_size(), align = get_runtime_alignment();
    void *storage = aligned_alloc(align, (size + align - 1) / align * align);
    memset(storage, 0, size);
    uint8_t *args = aligned_alloc(64, 33856);
    memset(args, 0, 33856);
    uint8_t cfg[1148];
    memset(cfg, 0, sizeof cfg);
    int32_t accepted = -1;
    NativeRunDescriptor desc = {0, 0, 1, 1, 1, 1, &accepted, 9};

    expect("prepare_run", simpler_prepare_run(ctx, storage, 0, args, cfg, &desc), 0);
    expect("finalize with the run outstanding", finalize_device(ctx), -1000);
    expect("launch_run", simpler_launch_run(ctx, storage), 0);
    expect("accepted_state published at launch", accepted, 9);
    expect("finalize with the run outstanding (launched)", finalize_device(ctx), -1000);
    expect("wait_run", simpler_wait_run(ctx, storage), 0);
    expect("finalize with the run outstanding (completed)", finalize_device(ctx), -1000);
    expect("finalize_run", simpler_finalize_run(ctx, storage), 0);
    expect("finalize once the run is finalized", finalize_device(ctx), 0);
    destroy_device_context(ctx);
    if (failures == 0) {
        printf("PASS efin_client\n");
    }
    return failures ? 1 : 0;
}
