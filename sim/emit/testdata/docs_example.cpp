// A C++ test against an emitted fake, linked directly (docs/fake-runtime.md):
//   c++ -std=c++17 -I DIR test.cpp -L DIR -l:libhost_runtime.so -l:libascendcl.so -Wl,-rpath,DIR
#include "simabi_fake.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CHECK(cond)                                                     \
    do {                                                                \
        if (!(cond)) {                                                  \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #cond); \
            return 1;                                                   \
        }                                                               \
    } while (0)

int main()
{
    CHECK(simpler_kernel_mode_supported(nullptr) == 1);
    DeviceContextHandle ctx = create_device_context();
    int32_t id = 7;
    CHECK(simpler_kernel_mode_prepare_callable(ctx, nullptr, 0, &id) == -1004 && id == -1);

    CHECK(aclrtSetDevice(0) == 0); // the caller owns the current device (rule D-1)
    CallConfig cfg;
    std::memset(&cfg, 0, sizeof cfg);
    CHECK(simpler_kernel_mode_init(ctx, 0, nullptr, 0, nullptr, 0, nullptr, 0, &cfg, 1) == 0);

    // A canonical image: one IN tensor, a 64-byte orchestration binary, no children.
    size_t size = sizeof(ChipCallable) + 64;
    auto *img = static_cast<ChipCallable *>(std::aligned_alloc(64, (size + 63) / 64 * 64));
    std::memset(img, 0, size);
    img->signature[0] = 1;
    img->sig_count = 1;
    img->binary_size = 64;
    CHECK(simpler_kernel_mode_prepare_callable(ctx, img, size, &id) == 0 && id == 0);

    auto *args = static_cast<ChipStorageTaskArgs *>(std::aligned_alloc(64, sizeof(ChipStorageTaskArgs)));
    std::memset(args, 0, sizeof *args);
    args->tensor_count = 1;
    args->tensors[0].address_space = 1; // DEVICE
    void *stream = nullptr;
    CHECK(aclrtCreateStream(&stream) == 0);
    CHECK(simpler_kernel_mode_launch(ctx, id, args, stream) == 0);
    CHECK(aclrtSynchronizeStream(stream) == 0); // runs the launch's simulated kernel
    CHECK(finalize_device(ctx) == 0);
    destroy_device_context(ctx);

    uint64_t counts[9];
    CHECK(simabi_acl_counters(counts, 9) == 9);
    CHECK(counts[3] == 0); // aclrtResetDevice: never on the kernel path
    std::puts("ok");
    return 0;
}
