// one-task: the smallest orchestration that makes a program-mode run finish.
// It takes no tensor or scalar argument and submits a single AIV task that
// runs child kernel func_id 0 (noop-kernel.cpp). Written for simabi's upstream
// lane against upstream simpler's orchestration API (pto_orchestration_api.h),
// which tensormap_and_ringbuffer and host_build_graph share: both look up
// aicpu_orchestration_config and aicpu_orchestration_entry by name.

#include "pto_orchestration_api.h"

extern "C" {

__attribute__((visibility("default"))) PTO2OrchestrationConfig
aicpu_orchestration_config(const ChipTaskArgs &args) {
    (void)args;
    PTO2OrchestrationConfig cfg{};
    cfg.expected_arg_count = 0;
    return cfg;
}

// The runtime already holds the outer scope open around this call.
__attribute__((visibility("default"))) void aicpu_orchestration_entry(const ChipTaskArgs &args) {
    (void)args;
    CoreTaskArgs none;
    (void)rt_submit_aiv_task(0, none);
}

}  // extern "C"
