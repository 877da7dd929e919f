// no-task: an orchestration that returns without submitting anything. With
// upstream simpler a run of it never completes (simpler_wait_run does not
// return), which is what simabi uses to check that a hang is reported.
// Same exported names as one-task.cpp; the image still carries the child
// kernel func_id 0 so that both callables differ only in what they submit.

#include "pto_orchestration_api.h"

extern "C" {

__attribute__((visibility("default"))) PTO2OrchestrationConfig
aicpu_orchestration_config(const ChipTaskArgs &args) {
    (void)args;
    PTO2OrchestrationConfig cfg{};
    cfg.expected_arg_count = 0;
    return cfg;
}

__attribute__((visibility("default"))) void aicpu_orchestration_entry(const ChipTaskArgs &args) { (void)args; }

}  // extern "C"
