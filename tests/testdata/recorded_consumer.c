/*
 * recorded_consumer: a consumer of the host-runtime ABI that is not one of
 * the checker's own, recorded through the recording runtime by
 * tests/recorded_consumer_test.go (docs/trace.md, issue "Record anything,
 * read everything"). Unlike sim/emit/testdata/recorder_client.c (threads
 * and forks around one shared session) it runs each scenario in a child of
 * its own, so that every scenario has its own trace, and it goes where that
 * client does not: program mode with device memory and the run family,
 * garbage pointers (unmapped memory) where the callee refuses before it
 * reads them, launches refused for a tensor other than tensor 0, every
 * fault site through simabi_inject and the asynchronous failures through
 * simabi_sync_stream, and a child a parent kills when it hangs.
 *
 * usage: recorded_consumer RUNTIME.so [SCENARIO...]
 *
 * It checks no answer (it runs over mutants too); it prints one line per
 * scenario, "scenario NAME pid=P status=S" (S: exit code, "signal N", or
 * "killed" when the child ran past SIMABI_CONSUMER_TIMEOUT_MS, default
 * 10000, and was killed), and "done" at the end.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CORE_CODE_AT 192 /* where a child's code starts: 192 bytes into it */

static SimplerHostLogState g_log = {1, sizeof(SimplerHostLogState), 25, 0};
static CallConfig g_cfg;              /* all defaults */
static CallConfig g_cfg_pmu;          /* enable_pmu: kernel mode refuses it (V-CFG) */
static CallConfig g_cfg_threads;      /* aicpu_thread_num 9: refused (V-CFG) */
static ChipCallable *g_img;           /* two IN tensors and one scalar, a 64-byte binary */
static ChipCallable *g_img_b;         /* the same with other binary bytes */
static size_t g_img_size;
static uint8_t *g_short;              /* 200 bytes of g_img */
static uint8_t *g_misaligned;         /* g_img 4 bytes past a 64-byte boundary */
static ChipCallable *g_corrupt;       /* sig_count 9999 */
static ChipStorageTaskArgs *g_args;   /* matching g_img: all DEVICE */
static ChipStorageTaskArgs *g_args_h; /* tensor 1 HOST */
static ChipStorageTaskArgs *g_args_x; /* tensor 0 of address space 7 */
static ChipStorageTaskArgs *g_args_n; /* one tensor too few */
static void *g_unmapped;              /* a page nobody may read */
static uint8_t g_span[64];

static void *stream(int i) { return (void *)(uintptr_t)(0x7700 + 0x40 * (uintptr_t)i); }

static ChipCallable *image(uint8_t salt)
{
    size_t rounded = (g_img_size + 63) / 64 * 64;
    ChipCallable *c = aligned_alloc(64, rounded);
    memset(c, 0, g_img_size);
    c->signature[0] = 1; /* IN */
    c->signature[1] = 1;
    c->signature[2] = 0; /* SCALAR */
    c->sig_count = 3;
    c->scalar_count = 1;
    c->binary_size = 64;
    for (int i = 0; i < 64; i++) {
        c->storage[i] = (uint8_t)(salt + i);
    }
    return c;
}

static ChipStorageTaskArgs *args(int tensors, uint8_t space0, uint8_t space1)
{
    ChipStorageTaskArgs *a = aligned_alloc(64, sizeof *a);
    memset(a, 0, sizeof *a);
    a->tensor_count = tensors;
    a->scalar_count = 1;
    for (int i = 0; i < 256; i++) {
        a->tensors[i].address_space = 1; /* DEVICE */
    }
    a->tensors[0].address_space = space0;
    a->tensors[1].address_space = space1;
    return a;
}

static void setup(void)
{
    memset(&g_cfg, 0, sizeof g_cfg);
    g_cfg_pmu = g_cfg;
    g_cfg_pmu.enable_pmu = 1;
    g_cfg_threads = g_cfg;
    g_cfg_threads.aicpu_thread_num = 9;
    g_img_size = sizeof(ChipCallable) + 64;
    g_img = image(1);
    g_img_b = image(100);
    g_short = aligned_alloc(64, 256);
    memcpy(g_short, g_img, 200);
    uint8_t *m = aligned_alloc(64, (g_img_size + 64 + 63) / 64 * 64);
    g_misaligned = m + 4;
    memcpy(g_misaligned, g_img, g_img_size);
    g_corrupt = image(1);
    g_corrupt->sig_count = 9999;
    g_args = args(2, 1, 1);
    g_args_h = args(2, 1, 0);
    g_args_x = args(2, 7, 1);
    g_args_n = args(1, 1, 1);
    g_unmapped = mmap(NULL, 1 << 16, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

/* A kernel context on dev (made current) with g_img prepared as id 0. */
static void *kernel_ctx(int dev)
{
    p_simabi_set_current_device(dev);
    void *c = p_create_device_context();
    p_simpler_kernel_mode_supported(c);
    p_simpler_kernel_mode_init(c, dev, NULL, 0, NULL, 0, NULL, 0, &g_cfg, 1);
    int32_t id = -1;
    p_simpler_kernel_mode_prepare_callable(c, g_img, g_img_size, &id);
    return c;
}

static void close_ctx(void *c)
{
    p_finalize_device(c);
    p_destroy_device_context(c);
}

/* ---- scenarios ---- */

static void kernel_lifecycle(void)
{
    void *c = kernel_ctx(0);
    for (int i = 0; i < 3; i++) {
        p_simpler_kernel_mode_launch(c, 0, g_args, stream(0));
    }
    p_simabi_sync_stream(stream(0));
    p_committed_device_memory_ctx(c);
    p_simpler_kernel_mode_supported(c);
    p_finalize_device(c);
    p_committed_device_memory_ctx(c);
    p_destroy_device_context(c);
}

static void launch_refusals(void)
{
    void *c = kernel_ctx(1);
    p_simpler_kernel_mode_launch(c, 0, g_args_h, stream(0)); /* tensor 1 HOST */
    p_simpler_kernel_mode_launch(c, 0, g_args_x, stream(0)); /* tensor 0 of space 7 */
    p_simpler_kernel_mode_launch(c, 0, g_args_n, stream(0)); /* a tensor too few */
    g_args_n->tensor_count = 300;
    p_simpler_kernel_mode_launch(c, 0, g_args_n, stream(0));
    g_args_n->tensor_count = 1;
    p_simpler_kernel_mode_launch(c, 0, NULL, stream(0));
    p_simpler_kernel_mode_launch(c, 0, g_args, NULL);
    p_simpler_kernel_mode_launch(c, 8192, g_args, stream(0));
    p_simpler_kernel_mode_launch(c, 5, g_args, stream(0)); /* never published */
    p_simpler_kernel_mode_launch(NULL, 0, g_args, stream(0));
    p_simpler_kernel_mode_launch(c, 0, g_args, stream(0));
    p_simabi_sync_stream(stream(0));
    close_ctx(c);
}

static void launch_before_prepare(void)
{
    p_simabi_set_current_device(2);
    void *c = p_create_device_context();
    p_simpler_kernel_mode_init(c, 2, NULL, 0, NULL, 0, NULL, 0, &g_cfg, 7);
    p_simpler_kernel_mode_launch(c, 0, g_args, stream(1));
    int32_t id = 123;
    p_simpler_kernel_mode_prepare_callable(c, g_img, g_img_size, &id);
    p_simpler_kernel_mode_launch(c, id, g_args, stream(1));
    p_simabi_sync_stream(stream(1));
    close_ctx(c);
}

static void nulls_and_garbage(void)
{
    p_simabi_set_current_device(3);
    void *c = p_create_device_context();
    int32_t id = 55;
    p_simpler_kernel_mode_supported(NULL);
    p_committed_device_memory_ctx(NULL);
    p_simpler_kernel_mode_init(NULL, 3, NULL, 0, NULL, 0, NULL, 0, g_unmapped, 1);
    p_simpler_kernel_mode_init(c, 3, NULL, 0, NULL, 0, NULL, 0, &g_cfg, 0);      /* generation 0 */
    p_simpler_kernel_mode_init(c, 3, g_span, 0, NULL, 0, NULL, 0, &g_cfg, 1);    /* half a span */
    p_simpler_kernel_mode_init(c, 3, NULL, 0, NULL, 0, NULL, 0, &g_cfg_pmu, 1);  /* enable_pmu */
    p_simpler_kernel_mode_init(c, 3, NULL, 0, NULL, 0, NULL, 0, &g_cfg_threads, 1);
    p_simpler_kernel_mode_init(c, -3, NULL, 0, NULL, 0, NULL, 0, &g_cfg, 1);
    p_simpler_kernel_mode_init(c, 3, NULL, 0, NULL, 0, NULL, 0, &g_cfg, 1); /* refusals before the latch: still free */
    p_simpler_kernel_mode_prepare_callable(NULL, g_img, g_img_size, &id);
    p_simpler_kernel_mode_prepare_callable(NULL, g_unmapped, 1 << 16, &id);
    p_simpler_kernel_mode_prepare_callable(c, NULL, g_img_size, &id);
    p_simpler_kernel_mode_prepare_callable(c, g_img, g_img_size, NULL);
    p_simpler_kernel_mode_prepare_callable(c, g_short, 200, &id);
    p_simpler_kernel_mode_prepare_callable(c, g_misaligned, g_img_size, &id);
    p_simpler_kernel_mode_prepare_callable(c, g_corrupt, g_img_size, &id);
    p_simpler_kernel_mode_prepare_callable(c, g_img, g_img_size, &id);
    p_simpler_kernel_mode_launch(NULL, 0, g_unmapped, stream(2));
    p_simpler_prepare_run(NULL, g_unmapped, 0, g_unmapped, g_unmapped, g_unmapped);
    p_simpler_run(NULL, NULL, 0, NULL, NULL, NULL);
    p_simabi_sync_stream(NULL);
    p_simabi_inject(0, 1, -1234); /* no such site */
    p_simabi_inject(2, -1, -1234);
    p_simabi_inject(2, 1, 0);
    p_finalize_device(NULL);
    p_destroy_device_context(NULL);
    p_ensure_acl_ready_ctx(NULL, 3);
    p_simpler_init(NULL, 3, NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 0);
    close_ctx(c);
}

static void site8_idle_then_pending(void)
{
    void *c = kernel_ctx(4);
    p_simabi_inject(8, 2, -1000);
    p_simabi_sync_stream(stream(0)); /* idle: not a pass of site 8 */
    p_simpler_kernel_mode_launch(c, 0, g_args, stream(1));
    p_simpler_kernel_mode_launch(c, 0, g_args, stream(1));
    p_simabi_sync_stream(stream(1)); /* delivers -1000 */
    p_simpler_kernel_mode_launch(c, 0, g_args, stream(1));
    p_simabi_sync_stream(stream(1)); /* and once more */
    p_simpler_kernel_mode_launch(c, 0, g_args, stream(1));
    p_simabi_sync_stream(stream(1)); /* disarmed: 0 */
    close_ctx(c);
}

static void stream_switch(void)
{
    void *c = kernel_ctx(5);
    p_simpler_kernel_mode_launch(c, 0, g_args, stream(0));
    p_simpler_kernel_mode_launch(c, 0, g_args, stream(1)); /* s0 pending: refused */
    p_simabi_sync_stream(stream(0));
    p_simpler_kernel_mode_launch(c, 0, g_args, stream(1));
    p_simabi_sync_stream(stream(1));
    close_ctx(c);
}

static void fault_init(void)
{
    p_simabi_set_current_device(6);
    void *c = p_create_device_context();
    p_simabi_inject(1, 1, -1234);
    p_simpler_kernel_mode_init(c, 6, NULL, 0, NULL, 0, NULL, 0, &g_cfg, 1);
    p_simpler_init(c, 6, NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 0); /* still kernel-latched */
    p_ensure_acl_ready_ctx(c, 6);
    p_simpler_kernel_mode_init(c, 6, NULL, 0, NULL, 0, NULL, 0, &g_cfg, 2);
    p_finalize_device(c);
    p_destroy_device_context(c);
    void *d = p_create_device_context();
    p_simabi_inject(1, 1, -1300);
    p_simabi_inject(9, 1, -2001);
    p_simpler_kernel_mode_init(d, 6, NULL, 0, NULL, 0, NULL, 0, &g_cfg, 1);
    p_finalize_device(d);
    p_destroy_device_context(d);
    void *e = p_create_device_context();
    p_simpler_kernel_mode_init(e, 6, NULL, 0, NULL, 0, NULL, 0, &g_cfg, 3);
    close_ctx(e);
}

static void fault_prepare(void)
{
    void *c = kernel_ctx(7);
    int32_t id = 9;
    p_simabi_inject(2, 1, -1300);
    p_simpler_kernel_mode_prepare_callable(c, g_img_b, g_img_size, &id); /* fails: mints nothing */
    p_simpler_kernel_mode_prepare_callable(c, g_img_b, g_img_size, &id);
    p_simpler_kernel_mode_launch(c, id, g_args, stream(0));
    p_simabi_sync_stream(stream(0));
    p_simabi_inject(3, 1, -2001);
    p_simpler_kernel_mode_prepare_callable(c, g_img, g_img_size, &id); /* poisons */
    p_simpler_kernel_mode_launch(c, 0, g_args, stream(0));
    p_simpler_kernel_mode_prepare_callable(c, g_img, g_img_size, &id);
    close_ctx(c);
}

static void fault_launch(void)
{
    void *c = kernel_ctx(8);
    p_simabi_inject(4, 1, -2001);
    p_simpler_kernel_mode_launch(c, 0, g_args, stream(0)); /* poisons */
    p_simpler_kernel_mode_launch(c, 0, g_args, stream(0));
    p_simabi_sync_stream(stream(0));
    close_ctx(c);
}

static void fault_finalize(void)
{
    void *c = kernel_ctx(9);
    p_simabi_inject(5, 1, -1234);
    p_finalize_device(c); /* a release step fails */
    p_finalize_device(c); /* the rest */
    p_destroy_device_context(c);
    void *d = kernel_ctx(9);
    p_simabi_inject(6, 1, 0);
    p_finalize_device(d); /* fatal: quarantined */
    p_finalize_device(d);
    p_simpler_kernel_mode_launch(d, 0, g_args, stream(0));
    p_destroy_device_context(d);
}

/* An image with two children (func ids a and b), each with a 16-byte
 * binary, and extra bytes past the last piece. */
static ChipCallable *with_children(int32_t a, int32_t b, size_t extra, size_t *size)
{
    size_t used = 64;                     /* the orchestration binary */
    size_t off0 = (used + 63) / 64 * 64;  /* child 0 */
    used = off0 + CORE_CODE_AT + 16;
    size_t off1 = (used + 63) / 64 * 64;  /* child 1 */
    used = off1 + CORE_CODE_AT + 16;
    *size = sizeof(ChipCallable) + used + extra;
    ChipCallable *c = aligned_alloc(64, (*size + 63) / 64 * 64);
    memset(c, 0, *size);
    c->signature[0] = 1;
    c->sig_count = 1;
    c->binary_size = 64;
    c->child_count = 2;
    c->child_func_ids[0] = a;
    c->child_func_ids[1] = b;
    c->child_offsets[0] = (uint32_t)off0;
    c->child_offsets[1] = (uint32_t)off1;
    ((CoreCallable *)(void *)(c->storage + off0))->binary_size = 16;
    ((CoreCallable *)(void *)(c->storage + off1))->binary_size = 16;
    return c;
}

static void images(void)
{
    void *c = kernel_ctx(27);
    int32_t id = -1;
    size_t n;
    ChipCallable *ok = with_children(1, 2, 0, &n);
    p_simpler_kernel_mode_prepare_callable(c, ok, n, &id);
    ChipCallable *dup = with_children(3, 3, 0, &n); /* a func id twice */
    p_simpler_kernel_mode_prepare_callable(c, dup, n, &id);
    ChipCallable *trailing = with_children(4, 5, 64, &n); /* bytes past the last piece */
    p_simpler_kernel_mode_prepare_callable(c, trailing, n, &id);
    p_simpler_kernel_mode_prepare_callable(c, g_img, g_img_size + 8, &id);
    close_ctx(c);
}

static void *g_shared;
static atomic_int g_prepare_returned;

static void *preparer(void *arg)
{
    (void)arg;
    p_simabi_set_current_device(10);
    int32_t id = -1;
    p_simpler_kernel_mode_prepare_callable(g_shared, g_img_b, g_img_size, &id);
    atomic_store(&g_prepare_returned, 1);
    return NULL;
}

/* A prepare of another thread parked holding the gate (simabi_hold_gate),
 * a launch refused at once while it is, then the gate released: the
 * order is driven through the control hooks, not by sleeping, so every run
 * answers alike. Then a prepare alone that site 7 holds 1 ms longer. */
static void hold_gate(void)
{
    g_shared = kernel_ctx(10);
    p_simabi_hold_gate(g_shared, 1);
    pthread_t t;
    pthread_create(&t, NULL, preparer, NULL);
    /* 1: a prepare is parked. A runtime that refuses the prepare, or never
     * parks it, ends the wait when the prepare returns. */
    while ((p_simabi_gate_state(g_shared) & 1) == 0 && !atomic_load(&g_prepare_returned)) {
        sched_yield();
    }
    p_simpler_kernel_mode_launch(g_shared, 0, g_args, stream(3)); /* refused at once */
    p_simabi_hold_gate(g_shared, 0);
    pthread_join(t, NULL);
    int32_t id = -1;
    p_simabi_inject(7, 1, 1);
    p_simpler_kernel_mode_prepare_callable(g_shared, g_img, g_img_size, &id);
    p_simabi_sync_stream(stream(3));
    close_ctx(g_shared);
}

/* A run storage and its descriptor. */
typedef struct {
    void *rt;
    NativeRunDescriptor *d;
    int32_t accepted;
} storage;

static storage new_storage(int32_t value)
{
    storage s;
    size_t size = p_get_runtime_size(), align = p_get_runtime_alignment();
    if (align < sizeof(void *)) {
        align = sizeof(void *);
    }
    s.rt = aligned_alloc(align, (size + align - 1) / align * align);
    memset(s.rt, 0, size);
    s.d = aligned_alloc(64, 64);
    memset(s.d, 0, sizeof *s.d);
    s.accepted = -1;
    s.d->run_id = 1;
    s.d->generation = 1;
    s.d->accepted_value = value;
    return s;
}

static void program_mode(void)
{
    p_simabi_set_current_device(11);
    void *c = p_create_device_context();
    p_simpler_init(c, 11, NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 0);
    void *dev = p_device_malloc_ctx(c, 4096);
    uint8_t host[256];
    memset(host, 0x5a, sizeof host);
    p_copy_to_device_ctx(c, dev, host, sizeof host);
    p_copy_from_device_ctx(c, host, dev, sizeof host);
    DeviceMemoryInfo info;
    p_device_memory_info_ctx(c, &info);
    p_device_malloc_ctx(c, (size_t)1 << 62); /* too much: NULL */
    p_device_free_ctx(c, dev);
    p_device_free_ctx(c, NULL);
    p_get_aicpu_dlopen_count(c);
    p_get_host_dlopen_count(c);
    p_supports_concurrent_native_prepare_ctx(c);
    p_simpler_register_callable(c, 0, g_img);
    p_simpler_register_callable(c, 1, NULL);
    storage s = new_storage(77);
    s.d->accepted_state = &s.accepted;
    p_simpler_prepare_run(c, s.rt, 0, g_args, &g_cfg, s.d);
    p_simpler_launch_run(c, s.rt);
    p_simpler_poll_run(c, s.rt);
    p_simpler_wait_run(c, s.rt);
    p_simpler_finalize_run(c, s.rt);
    p_simpler_run(c, s.rt, 0, g_args, NULL, s.d); /* a NULL CallConfig: refused */
    p_simpler_run(c, s.rt, 0, g_args, &g_cfg, s.d);
    p_simpler_launch_run(c, NULL);
    p_simpler_unregister_callable(c, 0);
    p_committed_device_memory_ctx(c);
    p_finalize_device(c);
    p_destroy_device_context(c);
}

static void program_outstanding(void)
{
    p_simabi_set_current_device(12);
    void *c = p_create_device_context();
    p_simpler_init(c, 12, NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 0);
    p_simpler_register_callable(c, 0, g_img);
    storage s = new_storage(5);
    s.d->accepted_state = &s.accepted;
    p_simpler_prepare_run(c, s.rt, 0, g_args, &g_cfg, s.d);
    p_finalize_device(c); /* a run is outstanding: refused, nothing torn down */
    p_simpler_unregister_callable(c, 0);
    p_simpler_launch_run(c, s.rt);
    p_simpler_wait_run(c, s.rt);
    p_simpler_finalize_run(c, s.rt);
    p_finalize_device(c);
    p_destroy_device_context(c);
}

static void program_teardown(void)
{
    p_simabi_set_current_device(13);
    void *c = p_create_device_context();
    p_simpler_init(c, 13, NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 0);
    p_simabi_inject(10, 1, -1234);
    p_finalize_device(c); /* the teardown fails: its code */
    p_destroy_device_context(c);
}

static void program_on_kernel(void)
{
    void *c = kernel_ctx(14);
    p_simpler_init(c, 14, NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 0); /* one mode per context */
    p_ensure_acl_ready_ctx(c, 14);
    p_device_malloc_ctx(c, 64);
    p_copy_to_device_ctx(c, NULL, NULL, 0);
    p_simpler_register_callable(c, 0, g_img);
    p_simpler_wait_run(c, NULL);
    void *p = p_create_device_context();
    p_simpler_init(p, 15, NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 0);
    p_simpler_kernel_mode_init(p, 15, NULL, 0, NULL, 0, NULL, 0, &g_cfg, 1); /* and back */
    close_ctx(p);
    close_ctx(c);
}

static void ids(void)
{
    void *c = kernel_ctx(16);
    int32_t id = -1;
    p_simpler_kernel_mode_prepare_callable(c, g_img, g_img_size, &id); /* the same bytes: a new id */
    p_simpler_kernel_mode_prepare_callable(c, g_img_b, g_img_size, &id);
    p_simpler_kernel_mode_launch(c, 2, g_args, stream(0));
    p_simpler_kernel_mode_launch(c, 3, g_args, stream(0));
    p_simabi_sync_stream(stream(0));
    close_ctx(c);
}

static void claims(void)
{
    p_simabi_set_current_device(17);
    void *a = p_create_device_context();
    void *b = p_create_device_context();
    p_simpler_kernel_mode_init(a, 17, NULL, 0, NULL, 0, NULL, 0, &g_cfg, 1);
    p_simpler_kernel_mode_init(b, 17, NULL, 0, NULL, 0, NULL, 0, &g_cfg, 1); /* claimed */
    p_simabi_inject(1, 1, -1234);
    void *d = p_create_device_context();
    p_simabi_set_current_device(18);
    p_simpler_kernel_mode_init(d, 18, NULL, 0, NULL, 0, NULL, 0, &g_cfg, 1); /* fails: releases 18 */
    void *e = p_create_device_context();
    p_simpler_kernel_mode_init(e, 18, NULL, 0, NULL, 0, NULL, 0, &g_cfg, 1);
    close_ctx(e);
    close_ctx(d);
    p_simabi_set_current_device(17);
    close_ctx(a);
    p_simpler_kernel_mode_init(b, 17, NULL, 0, NULL, 0, NULL, 0, &g_cfg, 2);
    close_ctx(b);
}

static void borrowed_device(void)
{
    void *c = kernel_ctx(19);
    p_simabi_set_current_device(0);
    p_simpler_kernel_mode_launch(c, 0, g_args, stream(0));
    p_simabi_set_current_device(-1);
    int32_t id = -1;
    p_simpler_kernel_mode_prepare_callable(c, g_img_b, g_img_size, &id);
    p_simabi_current_device();
    p_finalize_device(c);
    p_simabi_set_current_device(19);
    p_simabi_current_device();
    p_simpler_kernel_mode_launch(c, 0, g_args, stream(0));
    p_simabi_sync_stream(stream(0));
    close_ctx(c);
}

static void closed(void)
{
    void *c = kernel_ctx(20);
    p_finalize_device(c);
    int32_t id = -1;
    p_simpler_kernel_mode_prepare_callable(c, g_img_b, g_img_size, &id);
    p_simpler_kernel_mode_launch(c, 0, g_args, stream(0));
    p_simpler_kernel_mode_init(c, 20, NULL, 0, NULL, 0, NULL, 0, &g_cfg, 2);
    p_committed_device_memory_ctx(c);
    p_finalize_device(c);
    p_destroy_device_context(c);
}

static void destroy_unfinalized(void)
{
    void *c = kernel_ctx(21);
    p_destroy_device_context(c); /* refused: no successful finalize */
    p_simpler_kernel_mode_supported(c);
    p_simpler_kernel_mode_launch(c, 0, g_args, stream(0));
    p_simabi_sync_stream(stream(0));
    close_ctx(c);
}

static void async_failure(void)
{
    void *c = kernel_ctx(22);
    p_simabi_inject(8, 1, -1234);
    p_simpler_kernel_mode_launch(c, 0, g_args, stream(0));
    p_simabi_sync_stream(stream(0)); /* delivered once */
    p_simpler_kernel_mode_launch(c, 0, g_args, stream(0)); /* still admitted */
    p_simabi_sync_stream(stream(0));
    close_ctx(c);
}

static void *own_context(void *arg)
{
    int dev = (int)(intptr_t)arg;
    void *c = kernel_ctx(dev);
    for (int i = 0; i < 4; i++) {
        p_simpler_kernel_mode_launch(c, 0, g_args, stream(dev));
    }
    p_simabi_sync_stream(stream(dev));
    close_ctx(c);
    return NULL;
}

static void threads(void)
{
    pthread_t t[3];
    for (int i = 0; i < 3; i++) {
        pthread_create(&t[i], NULL, own_context, (void *)(intptr_t)(23 + i));
    }
    for (int i = 0; i < 3; i++) {
        pthread_join(t[i], NULL);
    }
}

/* Over a runtime whose launch never returns the parent kills this child:
 * its trace ends inside the launch. */
static void hang(void)
{
    void *c = kernel_ctx(26);
    for (int i = 0; i < 3; i++) {
        p_simpler_kernel_mode_launch(c, 0, g_args, stream(0));
    }
    p_simabi_sync_stream(stream(0));
    close_ctx(c);
}

static const struct {
    const char *name;
    void (*run)(void);
} scenarios[] = {
    {"kernel_lifecycle", kernel_lifecycle},
    {"launch_refusals", launch_refusals},
    {"launch_before_prepare", launch_before_prepare},
    {"nulls_and_garbage", nulls_and_garbage},
    {"site8_idle_then_pending", site8_idle_then_pending},
    {"stream_switch", stream_switch},
    {"fault_init", fault_init},
    {"fault_prepare", fault_prepare},
    {"fault_launch", fault_launch},
    {"fault_finalize", fault_finalize},
    {"hold_gate", hold_gate},
    {"program_mode", program_mode},
    {"program_outstanding", program_outstanding},
    {"program_teardown", program_teardown},
    {"program_on_kernel", program_on_kernel},
    {"ids", ids},
    {"images", images},
    {"claims", claims},
    {"borrowed_device", borrowed_device},
    {"closed", closed},
    {"destroy_unfinalized", destroy_unfinalized},
    {"async_failure", async_failure},
    {"threads", threads},
    {"hang", hang},
};

static int wanted(int argc, char **argv, const char *name)
{
    if (argc <= 2) {
        return 1;
    }
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], name) == 0) {
            return 1;
        }
    }
    return 0;
}

/* Waits for the child at most timeout_ms, then kills it. */
static void wait_child(const char *name, pid_t pid, long timeout_ms)
{
    int status = 0;
    struct timespec tick = {0, 5 * 1000 * 1000};
    long waited = 0;
    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid) {
            break;
        }
        if (r < 0 && errno != EINTR) {
            printf("scenario %s pid=%d status=lost\n", name, (int)pid);
            return;
        }
        if (waited >= timeout_ms) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            printf("scenario %s pid=%d status=killed\n", name, (int)pid);
            return;
        }
        nanosleep(&tick, NULL);
        waited += 5;
    }
    if (WIFEXITED(status)) {
        printf("scenario %s pid=%d status=%d\n", name, (int)pid, WEXITSTATUS(status));
    } else {
        printf("scenario %s pid=%d status=signal %d\n", name, (int)pid, WTERMSIG(status));
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: recorded_consumer RUNTIME.so [SCENARIO...]\n");
        return 2;
    }
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        fprintf(stderr, "%s\n", dlerror());
        return 2;
    }
    if (load(h) != 0) {
        return 2;
    }
    const char *t = getenv("SIMABI_CONSUMER_TIMEOUT_MS");
    long timeout_ms = t != NULL && *t != '\0' ? atol(t) : 10000;
    setup();
    p_simpler_host_log_bind_state(&g_log);
    setvbuf(stdout, NULL, _IONBF, 0);
    for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++) {
        if (!wanted(argc, argv, scenarios[i].name)) {
            continue;
        }
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork");
            return 1;
        }
        if (pid == 0) {
            scenarios[i].run();
            exit(0); /* runs the recorder's destructor: no in-flight file is left */
        }
        wait_child(scenarios[i].name, pid, timeout_ms);
    }
    printf("done\n");
    return 0;
}
