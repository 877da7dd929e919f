/* loadunload.c — a consumer that loads a host runtime, drives one kernel
 * session and one program context, leaves the program context behind and
 * unloads the runtime, CYCLES times; it prints its resident set after WARM
 * cycles and after all of them (tests/loadunload_test.go). It uses the
 * simulation hooks for the device and the stream, as the checker does.
 *
 *   loadunload LIB CYCLES WARM   → "rss WARM_BYTES END_BYTES"
 */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    uint32_t abi_version, struct_size;
    int32_t threshold, clock_anchor_pid;
} host_log_state;

#define CHIP_CALLABLE_SIZE 9376
#define TASK_ARGS_SIZE 33856
#define CALL_CONFIG_SIZE 1148

static void *sym(void *h, const char *name)
{
    void *p = dlsym(h, name);
    if (p == NULL) {
        fprintf(stderr, "loadunload: %s: %s\n", name, dlerror());
        exit(2);
    }
    return p;
}

static long resident_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long size = 0, resident = 0;
    if (f == NULL || fscanf(f, "%ld %ld", &size, &resident) != 2) {
        fprintf(stderr, "loadunload: /proc/self/statm unreadable\n");
        exit(2);
    }
    fclose(f);
    return resident * sysconf(_SC_PAGESIZE);
}

#define CHECK(call)                                                                                                    \
    do {                                                                                                               \
        int rc_ = (call);                                                                                              \
        if (rc_ != 0) {                                                                                                \
            fprintf(stderr, "loadunload: cycle %d: %s = %d\n", cycle, #call, rc_);                                    \
            exit(1);                                                                                                   \
        }                                                                                                              \
    } while (0)

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: loadunload LIB CYCLES WARM\n");
        return 2;
    }
    int cycles = atoi(argv[2]), warm = atoi(argv[3]);
    /* A canonical image: one IN tensor and a 64-byte orchestration binary. */
    uint8_t *img = aligned_alloc(64, CHIP_CALLABLE_SIZE + 64);
    memset(img, 0, CHIP_CALLABLE_SIZE + 64);
    int32_t one = 1;
    uint32_t bin = 64;
    memcpy(img + 0, &one, 4);    /* signature[0] = IN */
    memcpy(img + 1024, &one, 4); /* sig_count */
    memcpy(img + 1028, &bin, 4); /* binary_size */
    uint8_t *args = aligned_alloc(64, TASK_ARGS_SIZE);
    memset(args, 0, TASK_ARGS_SIZE);
    memcpy(args + 33792, &one, 4); /* tensor_count */
    args[43] = 1;                  /* tensors[0].address_space = DEVICE */
    uint8_t *cfg = aligned_alloc(64, CALL_CONFIG_SIZE + 60);
    memset(cfg, 0, CALL_CONFIG_SIZE);
    void *stream = (void *)(uintptr_t)0x5a00;
    long at_warm = 0;
    for (int cycle = 0; cycle < cycles; cycle++) {
        if (cycle == warm) {
            at_warm = resident_bytes();
        }
        void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
        if (h == NULL) {
            fprintf(stderr, "loadunload: %s\n", dlerror());
            return 2;
        }
        host_log_state st = {1, sizeof st, 25, 0};
        CHECK(((int (*)(host_log_state *))sym(h, "simpler_host_log_bind_state"))(&st));
        ((int (*)(int32_t))sym(h, "simabi_set_current_device"))(0);
        void *(*create)(void) = (void *(*)(void))sym(h, "create_device_context");
        void (*destroy)(void *) = (void (*)(void *))sym(h, "destroy_device_context");
        int (*finalize)(void *) = (int (*)(void *))sym(h, "finalize_device");
        int (*launch)(void *, int32_t, const void *, void *) =
            (int (*)(void *, int32_t, const void *, void *))sym(h, "simpler_kernel_mode_launch");
        void *k = create();
        CHECK(((int (*)(void *, int, const uint8_t *, size_t, const uint8_t *, size_t, const uint8_t *, size_t,
                        const void *, uint64_t))sym(h, "simpler_kernel_mode_init"))(k, 0, NULL, 0, NULL, 0, NULL, 0, cfg,
                                                                                     (uint64_t)cycle + 1));
        int32_t id = -2;
        CHECK(((int (*)(void *, const void *, size_t, int32_t *))sym(h, "simpler_kernel_mode_prepare_callable"))(
            k, img, CHIP_CALLABLE_SIZE + 64, &id));
        CHECK(launch(k, id, args, stream));
        CHECK(((int (*)(void *))sym(h, "simabi_sync_stream"))(stream));
        CHECK(launch(k, id, args, stream)); /* left pending at the unload */
        CHECK(finalize(k));
        destroy(k);
        void *p = create();
        CHECK(((int (*)(void *, int, const uint8_t *, size_t, const uint8_t *, size_t, const uint8_t *, size_t,
                        const void *, int, const void *, uint64_t))sym(h, "simpler_init"))(p, 0, NULL, 0, NULL, 0, NULL,
                                                                                            0, NULL, 0, NULL, 0));
        if (((void *(*)(void *, size_t))sym(h, "device_malloc_ctx"))(p, 4096) == NULL) {
            fprintf(stderr, "loadunload: cycle %d: device_malloc_ctx returned NULL\n", cycle);
            return 1;
        }
        /* p stays attached and holds device memory: the unload releases it. */
        ((int (*)(int32_t))sym(h, "simabi_set_current_device"))(-1);
        dlclose(h);
    }
    printf("rss %ld %ld\n", at_warm, resident_bytes());
    return 0;
}
