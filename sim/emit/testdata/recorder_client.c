/*
 * recorder_client: a consumer of the recording runtime (docs/trace.md) that
 * forks and uses several threads, run by sim/emit's TestRecorderClient
 * against the recorder over the emitted fake.
 *
 * usage: recorder_client RECORDER.so
 *
 * The main thread binds the host log, creates a shared context S (kernel
 * init on device 0) and a context M that only it uses, then starts four threads: two
 * with a context of their own each (the whole kernel lifecycle, every NULL
 * the ABI lets a caller pass, malformed images: too short, misaligned, a
 * corrupted header), and two that share S. While they run it forks three
 * children: one that uses its own context, M (inherited), a thread of its
 * own and forks a grandchild; one that exits at once without a call; one
 * that makes one call and exits with code 3. Every process prints
 *
 *     trace pid=P parent=Q calls=N
 *
 * (Q = 0 for the main process; N = the calls it made into the recorder
 * since it started or was forked), every waiter "exit pid=P code=C", and the
 * main process "PASS recorder_client" when every checked result was right.
 * The test reads the traces.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static _Atomic long g_calls;
static _Atomic int g_failures;

/* Counts a call into the recorder, then makes it. */
#define CALL(expr) (atomic_fetch_add(&g_calls, 1), (expr))

static void say(const char *s)
{
    size_t n = strlen(s);
    while (n > 0) {
        ssize_t k = write(1, s, n);
        if (k <= 0) {
            return;
        }
        s += k;
        n -= (size_t)k;
    }
}

static void expect(const char *what, long got, long want)
{
    if (got != want) {
        char line[256];
        snprintf(line, sizeof line, "FAIL pid %d: %s: expected %ld got %ld\n", (int)getpid(), what, want, got);
        say(line);
        atomic_fetch_add(&g_failures, 1);
    }
}

static SimplerHostLogState g_log = {1, sizeof(SimplerHostLogState), 25, 0};
static CallConfig g_cfg;
static ChipCallable *g_img;       /* a canonical image: one IN tensor, a 64-byte binary */
static size_t g_img_size;
static uint8_t *g_misaligned;     /* the same bytes 8 bytes past a 64-byte boundary */
static ChipCallable *g_corrupted; /* sig_count 9999 */
static uint8_t *g_short;          /* 100 bytes */
static ChipStorageTaskArgs *g_args;

static void *stream_of(int i) { return (void *)(uintptr_t)(0x5A00 + 0x100 * (uintptr_t)i); }

static void setup_memory(void)
{
    memset(&g_cfg, 0, sizeof g_cfg);
    g_img_size = sizeof(ChipCallable) + 64;
    size_t rounded = (g_img_size + 8 + 63) / 64 * 64;
    g_img = aligned_alloc(64, rounded);
    memset(g_img, 0, g_img_size);
    g_img->signature[0] = 1; /* IN */
    g_img->sig_count = 1;
    g_img->binary_size = 64;
    uint8_t *m = aligned_alloc(64, rounded);
    g_misaligned = m + 8;
    memcpy(g_misaligned, g_img, g_img_size);
    g_corrupted = aligned_alloc(64, rounded);
    memcpy(g_corrupted, g_img, g_img_size);
    g_corrupted->sig_count = 9999;
    g_short = aligned_alloc(64, 128);
    memcpy(g_short, g_img, 100);
    g_args = aligned_alloc(64, sizeof *g_args);
    memset(g_args, 0, sizeof *g_args);
    g_args->tensor_count = 1;
    g_args->tensors[0].address_space = 1; /* DEVICE */
}

/* Kernel init on device dev, which must be the calling thread's current
 * device; a device is claimed by one kernel context at a time. */
static int kinit(void *c, int dev) { return CALL(p_simpler_kernel_mode_init(c, dev, NULL, 0, NULL, 0, NULL, 0, &g_cfg, 1)); }

/* A thread with a context of its own (on device 1 + i): the lifecycle,
 * NULLs, malformed images. */
static void *own_thread(void *arg)
{
    int i = (int)(intptr_t)arg;
    void *s = stream_of(i);
    expect("setdev", CALL(p_simabi_set_current_device(1 + i)), 0);
    void *c = CALL(p_create_device_context());
    expect("create", c != NULL, 1);
    expect("supported(NULL)", CALL(p_simpler_kernel_mode_supported(NULL)), 1);
    expect("kinit(NULL)", CALL(p_simpler_kernel_mode_init(NULL, 0, NULL, 0, NULL, 0, NULL, 0, &g_cfg, 1)), -1004);
    expect("kinit", kinit(c, 1 + i), 0);
    int32_t out = 77;
    expect("prepare(NULL ctx)", CALL(p_simpler_kernel_mode_prepare_callable(NULL, g_img, g_img_size, &out)), -1004);
    expect("prepare(NULL callable)", CALL(p_simpler_kernel_mode_prepare_callable(c, NULL, 0, &out)), -1004);
    expect("out after prepare(NULL callable)", out, -1);
    expect("prepare(NULL out)", CALL(p_simpler_kernel_mode_prepare_callable(c, g_img, g_img_size, NULL)), -1004);
    expect("prepare(short)", CALL(p_simpler_kernel_mode_prepare_callable(c, g_short, 100, &out)), -1004);
    expect("prepare(misaligned)", CALL(p_simpler_kernel_mode_prepare_callable(c, g_misaligned, g_img_size, &out)), -1004);
    expect("prepare(corrupted)", CALL(p_simpler_kernel_mode_prepare_callable(c, g_corrupted, g_img_size, &out)), -1004);
    expect("prepare", CALL(p_simpler_kernel_mode_prepare_callable(c, g_img, g_img_size, &out)), 0);
    expect("id", out, 0);
    for (int k = 0; k < 8; k++) {
        expect("launch", CALL(p_simpler_kernel_mode_launch(c, 0, g_args, s)), 0);
    }
    expect("launch(NULL args)", CALL(p_simpler_kernel_mode_launch(c, 0, NULL, s)), -1004);
    expect("launch(NULL stream)", CALL(p_simpler_kernel_mode_launch(c, 0, g_args, NULL)), -1004);
    expect("launch(NULL ctx)", CALL(p_simpler_kernel_mode_launch(NULL, 0, g_args, s)), -1004);
    expect("sync", CALL(p_simabi_sync_stream(s)), 0);
    expect("sync(NULL)", CALL(p_simabi_sync_stream(NULL)), -1004);
    expect("finalize(NULL)", CALL(p_finalize_device(NULL)), -1000);
    expect("finalize", CALL(p_finalize_device(c)), 0);
    CALL(p_destroy_device_context(c));
    CALL(p_destroy_device_context(NULL));
    return NULL;
}

static void *g_shared;

/* A thread sharing S with another: statuses are left to the scheduler (a
 * prepare or launch may overlap the other thread's, X-2). */
static void *shared_thread(void *arg)
{
    int i = (int)(intptr_t)arg;
    void *s = stream_of(i);
    expect("setdev", CALL(p_simabi_set_current_device(0)), 0);
    for (int k = 0; k < 20; k++) {
        expect("supported(S)", CALL(p_simpler_kernel_mode_supported(g_shared)), 1);
        (void)CALL(p_committed_device_memory_ctx(g_shared));
        int32_t out = -7;
        (void)CALL(p_simpler_kernel_mode_prepare_callable(g_shared, g_img, g_img_size, &out));
        (void)CALL(p_simpler_kernel_mode_launch(g_shared, 0, g_args, s));
        (void)CALL(p_simabi_sync_stream(s));
    }
    return NULL;
}

static void report(pid_t parent)
{
    char line[128];
    snprintf(line, sizeof line, "trace pid=%d parent=%d calls=%ld\n", (int)getpid(), (int)parent, atomic_load(&g_calls));
    say(line);
}

static int wait_for(pid_t pid)
{
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
    }
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    char line[64];
    snprintf(line, sizeof line, "exit pid=%d code=%d\n", (int)pid, code);
    say(line);
    return code;
}

static void *child_thread(void *arg)
{
    (void)arg;
    for (int k = 0; k < 3; k++) {
        expect("child thread supported(NULL)", CALL(p_simpler_kernel_mode_supported(NULL)), 1);
    }
    void *c = CALL(p_create_device_context());
    CALL(p_destroy_device_context(c));
    return NULL;
}

/* Forked: counts start again. */
static void forked(void)
{
    atomic_store(&g_calls, 0);
    atomic_store(&g_failures, 0);
}

/* The first child: its own context (device 5), M (inherited), a thread, a
 * grandchild. */
static int first_child(pid_t parent, void *m)
{
    forked();
    expect("child committed(M)", (long)CALL(p_committed_device_memory_ctx(m)), 0);
    expect("child setdev", CALL(p_simabi_set_current_device(5)), 0);
    void *c = CALL(p_create_device_context());
    expect("child kinit", kinit(c, 5), 0);
    int32_t out = -7;
    expect("child prepare", CALL(p_simpler_kernel_mode_prepare_callable(c, g_img, g_img_size, &out)), 0);
    expect("child launch", CALL(p_simpler_kernel_mode_launch(c, out, g_args, stream_of(9))), 0);
    expect("child sync", CALL(p_simabi_sync_stream(stream_of(9))), 0);
    pthread_t t;
    pthread_create(&t, NULL, child_thread, NULL);
    pthread_join(t, NULL);
    pid_t me = getpid();
    pid_t g = fork();
    if (g == 0) {
        forked();
        expect("grandchild supported(NULL)", CALL(p_simpler_kernel_mode_supported(NULL)), 1);
        (void)CALL(p_get_runtime_size());
        report(me);
        _exit(atomic_load(&g_failures) ? 1 : 0);
    }
    expect("grandchild exit", wait_for(g), 0);
    expect("child finalize", CALL(p_finalize_device(c)), 0);
    CALL(p_destroy_device_context(c));
    CALL(p_destroy_device_context(m));
    report(parent);
    return atomic_load(&g_failures) ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: recorder_client RECORDER.so\n");
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
    setup_memory();
    expect("bind", CALL(p_simpler_host_log_bind_state(&g_log)), 0);
    expect("setdev", CALL(p_simabi_set_current_device(0)), 0);
    g_shared = CALL(p_create_device_context());
    void *m = CALL(p_create_device_context());
    expect("kinit(S)", kinit(g_shared, 0), 0);
    int32_t out = -7;
    expect("prepare(S)", CALL(p_simpler_kernel_mode_prepare_callable(g_shared, g_img, g_img_size, &out)), 0);

    pthread_t threads[4];
    for (int i = 0; i < 4; i++) {
        pthread_create(&threads[i], NULL, i < 2 ? own_thread : shared_thread, (void *)(intptr_t)i);
    }
    pid_t me = getpid();
    fflush(stdout);
    pid_t kids[3];
    for (int i = 0; i < 3; i++) {
        kids[i] = fork();
        if (kids[i] < 0) {
            say("FAIL fork\n");
            return 1;
        }
        if (kids[i] == 0) {
            switch (i) {
            case 0:
                _exit(first_child(me, m));
            case 1:
                forked();
                report(me);
                _exit(0);
            default:
                forked();
                (void)CALL(p_committed_device_memory_ctx(m));
                report(me);
                _exit(3);
            }
        }
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(threads[i], NULL);
    }
    expect("first child exit", wait_for(kids[0]), 0);
    expect("second child exit", wait_for(kids[1]), 0);
    expect("third child exit", wait_for(kids[2]), 3);
    expect("sync(S)", CALL(p_simabi_sync_stream(stream_of(2))), 0);
    expect("sync(S)", CALL(p_simabi_sync_stream(stream_of(3))), 0);
    expect("finalize(S)", CALL(p_finalize_device(g_shared)), 0);
    CALL(p_destroy_device_context(g_shared));
    CALL(p_destroy_device_context(m));
    report(0);
    if (atomic_load(&g_failures) == 0) {
        say("PASS recorder_client\n");
        return 0;
    }
    return 1;
}
