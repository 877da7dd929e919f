// noop-kernel: the child kernel (func_id 0) of simabi's test callables. In a
// simulator build the runtime dlopens each child and calls its kernel_entry
// with the task's argument block; this one ignores it. Needs no header.

#include <cstdint>

extern "C" __attribute__((visibility("default"))) void kernel_entry(int64_t *args) { (void)args; }
