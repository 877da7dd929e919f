package emit

import (
	"fmt"
	"strings"

	"github.com/simabi/simabi/abi"
)

// Mutant is a runtime that breaks exactly one clause of docs/contract.md
// (F-4). The emitted source of a mutant differs from the plain runtime only
// where it breaks that clause; each changed spot carries a
// "MUTANT <name> [<rule>]" comment.
type Mutant struct {
	Name   string // stable: appears in reports and test names
	Clause string // the clause it breaks, e.g. "V-PREP-1.1"
	// Profile is the build profile the mutant is emitted for: tmr, or
	// refusing or legacy for a clause only such a build shows.
	Profile Profile
	// Isolate: the mutant shows itself only by crashing or aborting the
	// process (a read outside the caller's span, a freed context called
	// again, library code running after an unload), so only a checker that
	// runs each case in a child process (abicheck mutants) can kill it.
	Isolate     bool
	Description string
	Rule        string // the clause's rule, e.g. "V-PREP-1"
	Group       string // the rule group: S, V, L, K, E, M, D, U or X
}

// mutants is docs/semantics.md §13, in its order: by clause, in the
// contract's order.
var mutants = []Mutant{
	{Name: "device-band-code", Clause: "S-1.1", Description: "launch of a never-published id returns -7 (device band) instead of CALLABLE_NOT_RESIDENT"},
	{Name: "forwarded-code-changed", Clause: "S-1.2", Description: "a failing allocate-and-copy (fault site 2) returns INTERNAL instead of its own code"},
	{Name: "undocumented-code", Clause: "S-2.1", Description: "a V-LAUNCH refusal returns -1009, a code docs/contract.md does not define"},
	{Name: "hostlog-refuses-debug", Clause: "S-2.2", Description: "the host-log binder refuses threshold 10 (DEBUG)"},
	{Name: "hostlog-threshold-range", Clause: "S-2.3", Description: "the host-log binder accepts any threshold in 10..60"},
	{Name: "hostlog-null-ok", Clause: "S-2.4", Description: "the host-log binder returns 0 for a NULL state"},
	{Name: "hostlog-version-unchecked", Clause: "S-2.5", Description: "the host-log binder accepts any abi_version"},
	{Name: "hostlog-size-unchecked", Clause: "S-2.6", Description: "the host-log binder accepts a struct_size below 16"},
	{Name: "null-query-nonzero", Clause: "S-3.1", Description: "get_aicpu_dlopen_count(NULL) returns 1"},
	{Name: "null-copy-is", Clause: "S-3.2", Description: "copy_to_device_ctx with a NULL ctx returns INVALID_STATE"},
	{Name: "span-empty-refused", Clause: "V-SPAN.1", Description: "kernel init refuses an empty (NULL, 0) span"},
	{Name: "span-bytes-refused", Clause: "V-SPAN.2", Description: "kernel init refuses an aicore span with a pointer and a size"},
	{Name: "span-nullsize-ok", Clause: "V-SPAN.3", Description: "kernel init accepts a span with a NULL pointer and a nonzero size"},
	{Name: "span-half-ok", Clause: "V-SPAN.4", Description: "a span with a pointer and size 0 accepted at kernel init"},
	{Name: "kinit-null-ctx-is", Clause: "V-INIT.1", Description: "kernel init with a NULL ctx returns INVALID_STATE"},
	{Name: "kinit-null-config-ok", Clause: "V-INIT.2", Description: "kernel init takes a NULL config as the all-zero config"},
	{Name: "kinit-negative-device-late", Clause: "V-INIT.3", Description: "kernel init checks device_id < 0 only after the latch check, so a latched context answers INVALID_STATE"},
	{Name: "init-gen0-ok", Clause: "V-INIT.4", Description: "context_generation 0 accepted"},
	{Name: "kinit-dispatcher-unchecked", Clause: "V-INIT.5", Description: "kernel init does not check the dispatcher span"},
	{Name: "prep-keeps-out", Clause: "V-PREP-1.1", Description: "prepare does not write -1 before its checks"},
	{Name: "prep-out-before-register", Clause: "V-PREP-1.2", Description: "prepare writes the id before device registration, so a registration failure leaves it in out"},
	{Name: "null-prepare-internal", Clause: "V-PREP-2.1", Description: "prepare with a NULL ctx returns INTERNAL instead of INVALID_ARGUMENT"},
	{Name: "prep-null-callable-is", Clause: "V-PREP-2.2", Description: "prepare with a NULL callable returns INVALID_STATE"},
	{Name: "prep-null-out-ok", Clause: "V-PREP-2.3", Description: "prepare with a NULL out_callable_id goes on and returns 0"},
	{Name: "prep-short-in-vimg", Clause: "V-PREP-2.4", Description: "prepare checks a size below 9376 only inside V-IMG, after the state and device checks"},
	{Name: "prep-misaligned-ok", Clause: "V-PREP-2.5", Description: "prepare does not refuse a misaligned image"},
	{Name: "launch-null-ctx-is", Clause: "V-LAUNCH.1", Description: "launch with a NULL ctx returns INVALID_STATE"},
	{Name: "launch-null-args-late", Clause: "V-LAUNCH.2", Description: "launch checks NULL args only after the dispatch check, so a non-dispatching context answers INVALID_STATE"},
	{Name: "launch-null-stream-late", Clause: "V-LAUNCH.3", Description: "launch checks a NULL stream only after the dispatch check"},
	{Name: "launch-negative-id-nr", Clause: "V-LAUNCH.4", Description: "launch of a negative id returns CALLABLE_NOT_RESIDENT"},
	{Name: "launch-id-8192-ok", Clause: "V-LAUNCH.5", Description: "launch does not range-check the id (8192 → NOT_RESIDENT)"},
	{Name: "img-reads-past-end", Clause: "V-IMG.1", Isolate: true, Description: "V-IMG reads the byte after the span"},
	{Name: "img-wrap-unchecked", Clause: "V-IMG.2", Isolate: true, Description: "V-IMG reads an image whose address plus size wraps"},
	{Name: "img-negative-sigcount-ok", Clause: "V-IMG.3", Description: "a negative sig_count is accepted"},
	{Name: "img-inout-refused", Clause: "V-IMG.4", Description: "an INOUT (3) signature entry is refused"},
	{Name: "img-sigval-4-ok", Clause: "V-IMG.4", Description: "a signature entry of 4 is accepted"},
	{Name: "img-order-unchecked", Clause: "V-IMG.5", Description: "a tensor entry after a scalar entry is accepted"},
	{Name: "img-128-scalars-refused", Clause: "V-IMG.6", Description: "an image with exactly 128 scalars is refused"},
	{Name: "img-unrecorded-sccount-refused", Clause: "V-IMG.7", Description: "a stored scalar_count of 0 (not recorded) must equal the scalars too"},
	{Name: "img-name-len-unchecked", Clause: "V-IMG.8", Isolate: true, Description: "V-IMG reads the byte at func_name_len without checking the length"},
	{Name: "img-cname-nul-unchecked", Clause: "V-IMG.9", Description: "the byte at config_name_len need not be NUL"},
	{Name: "img-fname-early-nul-ok", Clause: "V-IMG.10", Description: "a NUL inside func_name before its length is accepted"},
	{Name: "img-negative-childcount-ok", Clause: "V-IMG.12", Description: "a negative child_count is accepted"},
	{Name: "img-negative-funcid-ok", Clause: "V-IMG.13", Description: "a negative child func id is accepted"},
	{Name: "img-dup-funcid-ok", Clause: "V-IMG.14", Description: "duplicate child func ids accepted"},
	{Name: "img-child-gap-ok", Clause: "V-IMG.15", Description: "a child offset past align_up(used, 64) is accepted when it is 64-byte aligned"},
	{Name: "img-child-header-unchecked", Clause: "V-IMG.16", Isolate: true, Description: "V-IMG reads a child header without checking that it fits"},
	{Name: "img-negative-child-sigcount-ok", Clause: "V-IMG.17", Description: "a negative child sig_count is accepted"},
	{Name: "img-trailing-ok", Clause: "V-IMG.19", Description: "V-IMG step 6 skipped: trailing bytes accepted"},
	{Name: "img-resolved-addr-checked", Clause: "V-IMG.20", Description: "a child with a nonzero resolved_addr is refused"},
	{Name: "cfg-negative-threads-ok", Clause: "V-CFG.1", Description: "a negative aicpu_thread_num is accepted"},
	{Name: "cfg-pmu-ok", Clause: "V-CFG.2", Description: "enable_pmu accepted in kernel mode"},
	{Name: "cfg-swimlane-4-refused", Clause: "V-CFG.3", Description: "enable_chip_swimlane 4 is refused"},
	{Name: "cfg-depgen-no-prefix-ok", Clause: "V-CFG.4", Description: "enable_dep_gen with an empty output_prefix is accepted"},
	{Name: "cfg-unterminated-ok-when-off", Clause: "V-CFG.5", Description: "an output_prefix with no NUL is refused only when a diagnostic is enabled"},
	{Name: "cfg-window-pow2-unchecked", Clause: "V-CFG.6", Description: "a task window that is not a power of two is accepted"},
	{Name: "cfg-heap-unchecked", Clause: "V-CFG.7", Description: "a ring heap below 1024 is accepted"},
	{Name: "cfg-dep-pool-max-unchecked", Clause: "V-CFG.8", Description: "a dep pool above 2^31-1 is accepted"},
	{Name: "cfg-first-ring-only", Clause: "V-CFG.9", Description: "only ring 0 of the four is checked"},
	{Name: "cfg-partial-ring-refused", Clause: "V-CFG.10", Description: "a ring with some entries set and others 0 is refused"},
	{Name: "contract-version-2", Clause: "V-CONTRACT.1", Description: "the pipeline contract says abi_version 2"},
	{Name: "contract-nine-resources", Clause: "V-CONTRACT.2", Description: "the pipeline contract says resource_count 9"},
	{Name: "contract-depth-3", Clause: "V-CONTRACT.3", Description: "the pipeline contract says pipeline_depth 3"},
	{Name: "contract-bytes-declared", Clause: "V-CONTRACT.4", Description: "the pipeline contract declares bytes_per_copy for its first resource"},
	{Name: "contract-heap-twice", Clause: "V-CONTRACT.5", Description: "the pipeline contract declares its first arena kind twice"},
	{Name: "contract-no-aicore-stream", Clause: "V-CONTRACT.6", Description: "the pipeline contract's AICORE_STREAM is HOST_PER_RUN"},
	{Name: "created-latched-program", Clause: "L-1.1", Description: "create_device_context returns a context latched PROGRAM"},
	{Name: "create-null-at-8-live", Clause: "L-1.2", Description: "create_device_context returns NULL while 8 contexts are live"},
	{Name: "acl-relatch-refused", Clause: "L-2.1", Description: "ensure_acl_ready_ctx on a program context returns INVALID_STATE"},
	{Name: "program-over-kernel", Clause: "L-2.2", Description: "simpler_init on a kernel context succeeds"},
	{Name: "refused-acl-sets-device", Clause: "L-2.2", Description: "ensure_acl_ready_ctx refused on a kernel context still sets the thread's device"},
	{Name: "kernel-over-program", Clause: "L-2.3", Description: "kernel init on a program context without a device takes it over"},
	{Name: "finalize-unlatches", Clause: "L-3.1", Description: "a successful kernel finalize unlatches the context"},
	{Name: "latch-cleared-on-fail", Clause: "L-3.2", Description: "a kernel init failing after the latch unlatches the context"},
	{Name: "rollback-unlatches", Clause: "L-3.2", Description: "simpler_init takes a kernel context whose init rolled back (fault site 1) as unlatched"},
	{Name: "poison-unlatches", Clause: "L-3.3", Description: "a poisoned kernel context is unlatched"},
	{Name: "quarantine-unlatches", Clause: "L-3.3", Description: "simpler_init takes a quarantined kernel context (fault site 6) as unlatched"},
	{Name: "teardown-fail-clears-latch", Clause: "L-3.4", Description: "a failing program teardown (fault site 10) unlatches the context, so a kernel init takes it"},
	{Name: "acl-does-not-latch", Clause: "L-4.1", Description: "ensure_acl_ready_ctx does not latch PROGRAM"},
	{Name: "refusal-latches", Clause: "L-4.2", Description: "simpler_init with a device id < 0 latches PROGRAM before refusing it"},
	{Name: "acl-refusal-latches", Clause: "L-4.2", Description: "ensure_acl_ready_ctx with a device id < 0 latches PROGRAM before refusing it"},
	{Name: "latch-before-cfg", Clause: "L-5.1", Description: "kernel init latches before V-CFG, so a V-CFG refusal leaves it latched"},
	{Name: "refusing-latches", Clause: "L-5.1", Profile: abi.ProfileRefusing, Description: "a refusing build latches KERNEL before it refuses kernel init with UNSUPPORTED"},
	{Name: "new-accepts-dispatch", Clause: "K-1.1", Description: "a context back in New after a rolled-back init accepts prepares"},
	{Name: "init-lands-ready", Clause: "K-2.1", Description: "a successful kernel init lands in ReadyEnqueued: a launch before any prepare is NOT_RESIDENT"},
	{Name: "kinit-idempotent", Clause: "K-2.2", Description: "kernel init on a kernel-initialized context returns 0"},
	{Name: "prepare-stays-collecting", Clause: "K-3.1", Description: "the first successful prepare leaves the context in Collecting: its launch is refused"},
	{Name: "second-prepare-resets-phase", Clause: "K-3.2", Description: "a later successful prepare moves the context back to Collecting"},
	{Name: "poison-ignored", Clause: "K-4.1", Description: "a registration failure does not poison"},
	{Name: "enqueue-failure-no-poison", Clause: "K-4.2", Description: "an enqueue failure (fault site 4) does not poison"},
	{Name: "poison-frees-blocks", Clause: "K-4.4", Description: "poison frees the context's code blocks"},
	{Name: "poisoned-close-refused", Clause: "K-4.6", Description: "finalize of a Poisoned context returns INVALID_STATE"},
	{Name: "close-new-refused", Clause: "K-5.1", Description: "finalize of a kernel context in New returns INVALID_STATE"},
	{Name: "close-failure-stays-live", Clause: "K-5.2", Description: "a close whose first step fails leaves the context in its live phase"},
	{Name: "close-failure-swallowed", Clause: "K-5.3", Description: "a failed release step is ignored: the close goes on, reaches Closed and returns 0"},
	{Name: "close-retry-skips-rest", Clause: "K-5.4", Description: "a retried close reaches Closed without releasing what is left"},
	{Name: "closing-reverts-on-retry-failure", Clause: "K-5.5", Description: "a retried close that fails again returns the context to Collecting"},
	{Name: "finalize-closed-is", Clause: "K-6.1", Description: "finalize of a Closed context returns INVALID_STATE"},
	{Name: "reinit-after-close", Clause: "K-6.2", Description: "kernel init on a Closed context succeeds"},
	{Name: "closed-accepts-dispatch", Clause: "K-6.3", Description: "after a successful finalize, prepare proceeds as if Collecting"},
	{Name: "closed-launch-nr", Clause: "K-6.4", Description: "launch on a Closed context returns CALLABLE_NOT_RESIDENT"},
	{Name: "rollback-leaves-collecting", Clause: "K-7.1", Description: "a rolled-back init leaves the context in Collecting"},
	{Name: "rollback-failure-lands-new", Clause: "K-7.2", Description: "a failed rollback lands in New instead of Closing"},
	{Name: "rollback-failure-code", Clause: "K-7.3", Description: "a failed rollback returns the rollback's code instead of the creation's"},
	{Name: "supported-null-0", Clause: "E-SUP.1", Description: "supported(NULL) returns 0 on a tmr build"},
	{Name: "refusing-supported-null-1", Clause: "E-SUP.1", Profile: abi.ProfileRefusing, Description: "supported(NULL) returns 1 on a refusing build"},
	{Name: "supported-after-init-0", Clause: "E-SUP.2", Description: "supported returns 0 on a kernel-initialized context"},
	{Name: "supported-sets-device", Clause: "E-SUP.3", Description: "supported on a kernel context calls aclrtSetDevice"},
	{Name: "kinit-cfg-before-init-args", Clause: "E-KINIT.1", Description: "kernel init runs V-CFG before V-INIT"},
	{Name: "refusing-kinit-is", Clause: "E-KINIT.2", Profile: abi.ProfileRefusing, Description: "a refusing build's kernel init returns INVALID_STATE instead of UNSUPPORTED"},
	{Name: "state-refusal-takes-claim", Clause: "E-KINIT.3", Description: "kernel init refused on a latched context still takes the device claim"},
	{Name: "claim-unchecked", Clause: "E-KINIT.4", Description: "a second kernel context takes a device another context holds"},
	{Name: "kinit-device-unchecked", Clause: "E-KINIT.5", Description: "kernel init does not check the thread's current device"},
	{Name: "kinit-no-device-ok", Clause: "E-KINIT.5", Description: "kernel init passes a thread with no current device"},
	{Name: "failed-init-retry-ok", Clause: "E-KINIT.6", Description: "a kernel init that failed after the latch may be retried"},
	{Name: "claim-not-released", Clause: "E-CLAIM.1", Description: "a successful finalize keeps the device claim"},
	{Name: "claim-kept-on-fail", Clause: "E-CLAIM.2", Description: "a failed init keeps the device claim"},
	{Name: "poison-releases-claim", Clause: "E-CLAIM.3", Description: "poison releases the device claim"},
	{Name: "closing-releases-claim", Clause: "E-CLAIM.4", Description: "a close that stops in Closing releases the device claim"},
	{Name: "prep-minus-one-late", Clause: "E-PREP.1", Description: "prepare writes -1 only after V-PREP-2"},
	{Name: "prep-args-after-state", Clause: "E-PREP.2", Description: "prepare checks size and alignment after the state check"},
	{Name: "prep-not-kernel-ia", Clause: "E-PREP.3", Description: "prepare on a context that is not a kernel context returns INVALID_ARGUMENT"},
	{Name: "prep-device-after-vimg", Clause: "E-PREP.4", Description: "prepare checks the current device after V-IMG"},
	{Name: "prep-huge-vimg-first", Clause: "E-PREP.5", Description: "prepare runs V-IMG before the size check"},
	{Name: "copy-failure-charges", Clause: "E-PREP.6", Description: "a failing allocate-and-copy (fault site 2) keeps the block it charged"},
	{Name: "failed-copy-keeps-tail", Clause: "E-PREP.6", Description: "a failing allocate-and-copy (fault site 2) into a block's tail keeps that tail used"},
	{Name: "prep-id-not-written", Clause: "E-PREP.7", Description: "a successful prepare does not write the id"},
	{Name: "registration-at-launch", Clause: "E-PREP.8", Description: "device registration (fault site 3) happens at the first launch, not at prepare"},
	{Name: "refusing-prepare-unsup", Clause: "E-PREP.9", Profile: abi.ProfileRefusing, Description: "a refusing build's prepare returns UNSUPPORTED instead of INVALID_STATE"},
	{Name: "launch-not-kernel-ia", Clause: "E-LAUNCH.1", Description: "launch on a context that is not a kernel context returns INVALID_ARGUMENT"},
	{Name: "launch-before-prepare-nr", Clause: "E-LAUNCH.2", Description: "launch before any prepare returns NOT_RESIDENT"},
	{Name: "launch-device-after-nr", Clause: "E-LAUNCH.3", Description: "launch looks the id up before it checks the current device"},
	{Name: "launch-nr-off-by-one", Clause: "E-LAUNCH.4", Description: "launch takes the id one past the last published as resident"},
	{Name: "launch-scalar-count-unchecked", Clause: "E-LAUNCH.5", Description: "launch does not compare args.scalar_count"},
	{Name: "launch-alien-space-ok", Clause: "E-LAUNCH.6", Description: "launch accepts a tensor whose address_space is neither HOST nor DEVICE"},
	{Name: "launch-first-tensor-only", Clause: "E-LAUNCH.6", Description: "launch checks the address_space of the first tensor only"},
	{Name: "stream-switch-ok", Clause: "E-LAUNCH.7", Description: "the stream-switch gate is off"},
	{Name: "launch-checks-alignment", Clause: "E-LAUNCH.8", Description: "launch refuses args not aligned to 64 bytes"},
	{Name: "refused-launch-records-stream", Clause: "E-LAUNCH.9", Description: "a launch refused for its args still records its stream as the last one"},
	{Name: "refusing-launch-nr", Clause: "E-LAUNCH.10", Profile: abi.ProfileRefusing, Description: "a refusing build's launch returns NOT_RESIDENT instead of INVALID_STATE"},
	{Name: "async-reported-twice", Clause: "E-LAUNCH-ASYNC.2", Description: "an asynchronous failure is reported by two synchronizes"},
	{Name: "async-failure-stops-queue", Clause: "E-LAUNCH-ASYNC.3", Description: "a synchronize that reports an asynchronous failure leaves the stream's later work pending"},
	{Name: "async-poisons", Clause: "E-LAUNCH-ASYNC.4", Description: "an asynchronous device failure poisons the context"},
	{Name: "async-failure-releases-claim", Clause: "E-LAUNCH-ASYNC.4", Description: "an asynchronous device failure (fault site 8) releases the context's device claim"},
	{Name: "finalize-null-ia", Clause: "E-FIN.1", Description: "finalize_device(NULL) returns INVALID_ARGUMENT"},
	{Name: "finalize-ignores-runs", Clause: "E-FIN.2", Description: "finalize_device tears a program context down with a run outstanding"},
	{Name: "refused-finalize-drops-callables", Clause: "E-FIN.3", Description: "finalize_device refused for an outstanding run drops the callables"},
	{Name: "finalize-fresh-latches", Clause: "E-FIN.4", Description: "finalize_device of a fresh context latches it PROGRAM"},
	{Name: "program-finalize-keeps-attached", Clause: "E-FIN.5", Description: "finalize_device of a program context returns 0 and leaves it attached"},
	{Name: "program-teardown-swallowed", Clause: "E-FIN.6", Description: "a failing program teardown (site 10) is not returned by finalize_device"},
	{Name: "teardown-failure-keeps-attached", Clause: "E-FIN.7", Description: "a failing program teardown (site 10) leaves the context attached"},
	{Name: "prepared-run-not-outstanding", Clause: "E-FIN.8", Description: "only a launched, uncompleted run counts as outstanding: finalize and destroy go through with a prepared or completed run"},
	{Name: "completed-run-not-outstanding", Clause: "E-FIN.9", Description: "a run that completed no longer counts as outstanding"},
	{Name: "failed-finalize-run-keeps-run", Clause: "E-FIN.9", Description: "finalize_run of a never-launched run fails and keeps the run outstanding"},
	{Name: "run-leaves-outstanding", Clause: "E-FIN.10", Description: "simpler_run leaves its run outstanding"},
	{Name: "refused-prepare-run-reserves", Clause: "E-FIN.11", Description: "a prepare_run refused for an unregistered id leaves a run outstanding"},
	{Name: "unregister-ignores-runs", Clause: "E-FIN.12", Description: "unregister goes through while a run is outstanding"},
	{Name: "register-ignores-runs", Clause: "E-FIN.13", Description: "register goes through while a run is outstanding"},
	{Name: "destroy-ignores-runs", Clause: "E-DESTROY.1", Isolate: true, Description: "destroy frees a program context with a run outstanding"},
	{Name: "destroy-unfinalized", Clause: "E-DESTROY.2", Description: "destroy frees an unfinalized kernel context (and its claim)"},
	{Name: "destroy-init-failed-ok", Clause: "E-DESTROY.2", Isolate: true, Description: "destroy frees a kernel context whose init failed and that holds nothing"},
	{Name: "refused-destroy-drops-callables", Clause: "E-DESTROY.3", Description: "a destroy refused for an outstanding run drops the callables"},
	{Name: "refused-destroy-drops-residents", Clause: "E-DESTROY.3", Description: "a destroy refused for an unfinalized kernel context drops its residents"},
	{Name: "refused-destroy-frees-device-memory", Clause: "E-DESTROY.3", Description: "a destroy refused for an outstanding run frees every allocation device_malloc_ctx gave the context"},
	{Name: "refused-destroy-deferred", Clause: "E-DESTROY.4", Isolate: true, Description: "a refused destroy frees the context at its next successful finalize"},
	{Name: "destroy-null-crashes", Clause: "E-DESTROY.6", Isolate: true, Description: "destroy_device_context(NULL) aborts the process"},
	{Name: "pinit-null-ia", Clause: "E-PINIT.1", Description: "simpler_init(NULL) returns INVALID_ARGUMENT"},
	{Name: "pinit-negative-device-ok", Clause: "E-PINIT.2", Description: "simpler_init accepts a device id < 0"},
	{Name: "pinit-dispatcher-span-unchecked", Clause: "E-PINIT.3", Description: "simpler_init does not check the dispatcher span"},
	{Name: "pinit-sdma-span-unchecked", Clause: "E-PINIT.4", Description: "simpler_init does not check the SDMA warm-up span"},
	{Name: "prewarm-threads-5-ok", Clause: "E-PINIT.5", Description: "a prewarm_config with aicpu_thread_num 5 (a5's limit) is accepted"},
	{Name: "prewarm-swimlane-unchecked", Clause: "E-PINIT.6", Description: "a prewarm_config's swimlane is not range-checked"},
	{Name: "prewarm-depgen-no-prefix-ok", Clause: "E-PINIT.7", Description: "a prewarm_config with enable_dep_gen and an empty prefix is accepted"},
	{Name: "prewarm-unterminated-ok", Clause: "E-PINIT.8", Description: "a prewarm_config whose output_prefix has no NUL is accepted"},
	{Name: "prewarm-heap-unchecked", Clause: "E-PINIT.9", Description: "a prewarm_config's ring heaps are not checked (its other ring entries are)"},
	{Name: "prewarm-pmu-refused", Clause: "E-PINIT.10", Description: "a prewarm_config with enable_pmu is refused"},
	{Name: "pinit-reattach-ok", Clause: "E-PINIT.11", Description: "simpler_init on a context with a device attached returns 0"},
	{Name: "pinit-no-set-device", Clause: "E-PINIT.12", Description: "simpler_init does not make device_id the thread's current device"},
	{Name: "pinit-after-finalize-refused", Clause: "E-PINIT.14", Description: "simpler_init after a successful program finalize returns INVALID_STATE"},
	{Name: "acl-null-is", Clause: "E-ACL.1", Description: "ensure_acl_ready_ctx(NULL) returns INVALID_STATE"},
	{Name: "acl-negative-device-ok", Clause: "E-ACL.2", Description: "ensure_acl_ready_ctx accepts a device id < 0"},
	{Name: "acl-no-set-device", Clause: "E-ACL.3", Description: "ensure_acl_ready_ctx does not set the thread's current device"},
	{Name: "acl-repeat-keeps-device", Clause: "E-ACL.4", Description: "a repeat ensure_acl_ready_ctx keeps the first device"},
	{Name: "acl-attaches", Clause: "E-ACL.5", Description: "ensure_acl_ready_ctx counts as an attached device"},
	{Name: "prog-args-first", Clause: "E-PROG.1", Description: "program entries check their arguments before the live-init check"},
	{Name: "prog-latches-program", Clause: "E-PROG.2", Description: "a refused program entry latches PROGRAM"},
	{Name: "prog-refusal-sets-device", Clause: "E-PROG.3", Description: "a program entry refused on a kernel context calls aclrtSetDevice"},
	{Name: "malloc-without-init", Clause: "E-PROG.4", Description: "device_malloc_ctx allocates without a live program init"},
	{Name: "run-null-storage-is", Clause: "E-PROG.6", Description: "prepare_run and run with NULL run storage return INVALID_STATE"},
	{Name: "run-null-args-as-empty", Clause: "E-PROG.7", Description: "prepare_run and run take NULL args as no tensors and no scalars"},
	{Name: "run-null-config-ok", Clause: "E-PROG.8", Description: "prepare_run and run take a NULL CallConfig as the defaults instead of refusing it"},
	{Name: "run-null-descriptor-ok", Clause: "E-PROG.9", Description: "prepare_run and run accept a NULL descriptor"},
	{Name: "null-args-refusal-holds-storage", Clause: "E-PROG.10", Description: "a prepare_run refused for NULL args holds its run storage"},
	{Name: "unregister-keeps-id", Clause: "E-PROG.11", Description: "unregister returns 0 and leaves the id registered"},
	{Name: "prepare-run-counts-swapped", Clause: "E-PROG.12", Description: "prepare_run compares args.tensor_count with the callable's scalars"},
	{Name: "unregistered-run-ok", Clause: "E-PROG.13", Description: "prepare_run of an id never registered runs an empty callable"},
	{Name: "busy-storage-ok", Clause: "E-PROG.14", Description: "prepare_run on run storage holding a run replaces that run"},
	{Name: "launch-run-no-publish", Clause: "E-PROG.15", Description: "launch_run does not publish accepted_value"},
	{Name: "relaunch-ok", Clause: "E-PROG.16", Description: "launch_run of a launched run returns 0 again"},
	{Name: "poll-never-complete", Clause: "E-PROG.17", Description: "poll_run of a completed run returns 0"},
	{Name: "wait-run-prepared-ok", Clause: "E-PROG.18", Description: "wait_run of a never-launched run returns 0"},
	{Name: "finalize-run-keeps-storage", Clause: "E-PROG.19", Description: "finalize_run does not free its run storage"},
	{Name: "run-unsupported", Clause: "E-PROG.20", Description: "simpler_run returns UNSUPPORTED"},
	{Name: "register-id-8192-ok", Clause: "E-PROG.21", Description: "simpler_register_callable takes id 8192, one past the program registry's bound"},
	{Name: "legacy-register-id-64-ok", Clause: "E-PROG.22", Profile: abi.ProfileLegacy, Description: "a legacy build's simpler_register_callable takes id 64: the target revision's bound of 8192 instead of upstream's legacy 64"},
	{Name: "launch-run-null-storage-ok", Clause: "E-PROG.23", Description: "simpler_launch_run with NULL run storage returns 0"},
	{Name: "copy-null-host-ok", Clause: "E-PROG.24", Description: "copy_from_device_ctx with a NULL host pointer returns 0"},
	{Name: "free-keeps-committed", Clause: "E-PROG.25", Description: "device_free_ctx frees the allocation but keeps its bytes committed"},
	{Name: "dlopen-count-survives-finalize", Clause: "E-PROG.26", Description: "a program finalize does not restart get_aicpu_dlopen_count"},
	{Name: "register-duplicate-replaces", Clause: "E-PROG.27", Description: "simpler_register_callable of an id registered already replaces it and returns 0"},
	{Name: "copy-refuses-comm-window", Clause: "E-PROG.28", Description: "copy_to_device_ctx and copy_from_device_ctx refuse a span inside a mapped comm window (only the context's allocations)"},
	{Name: "copy-into-released-window", Clause: "E-PROG.28", Isolate: true, Description: "a comm window's span stays reachable by the copies after its mapping went (the copy reaches unmapped memory)"},
	{Name: "one-run-per-context", Clause: "E-PROG.29", Description: "simpler_prepare_run refuses a second run of a context on other run storage while the first is outstanding, as upstream's simulator does"},
	{Name: "copy-past-end-accepted", Clause: "E-PROG.30", Description: "a copy whose span starts inside an allocation and runs past its end copies what lies inside and returns 0 (the bounds check looks at the start only)"},
	{Name: "copy-prefix-then-refuse", Clause: "E-PROG.30", Description: "a copy whose span runs past an allocation's end copies what lies inside before it returns INVALID_ARGUMENT"},
	{Name: "copy-zero-refused", Clause: "E-PROG.31", Description: "a copy of 0 bytes with a live program init returns INVALID_ARGUMENT"},
	{Name: "free-interior-frees", Clause: "E-PROG.32", Description: "device_free_ctx of a pointer inside an allocation frees that allocation"},
	{Name: "malloc-zero-null", Clause: "E-PROG.33", Description: "device_malloc_ctx of 0 bytes returns NULL (upstream's std::malloc(0) returns a pointer)"},
	{Name: "malloc-failure-charges", Clause: "E-PROG.34", Description: "a device_malloc_ctx that fails (2^62 bytes) charges the size to committed memory"},
	{Name: "comm-init-null-path-ok", Clause: "E-COMM.1", Description: "comm_init with a NULL rootinfo_path returns a handle"},
	{Name: "comm-init-rank-unchecked", Clause: "E-COMM.2", Description: "comm_init accepts a rank >= nranks"},
	{Name: "comm-init-64-refused", Clause: "E-COMM.3", Description: "comm_init refuses 64 ranks"},
	{Name: "comm-init-null-stream", Clause: "E-COMM.4", Description: "comm_init returns NULL for a NULL stream"},
	{Name: "comm-alloc-null-out-ok", Clause: "E-COMM.5", Description: "comm_alloc_windows with a NULL device_ctx_out allocates and returns 0"},
	{Name: "comm-session-private", Clause: "E-COMM.6", Description: "a rank that attaches to its session works on a private copy: its writes reach no other handle"},
	{Name: "comm-windows-out-unset", Clause: "E-COMM.7", Description: "comm_alloc_windows leaves windowsOut 0"},
	{Name: "comm-query-null-out-ok", Clause: "E-COMM.10", Description: "comm_get_window_size with a NULL size_out returns 0"},
	{Name: "comm-base-before-alloc-nonzero", Clause: "E-COMM.11", Description: "comm_get_local_window_base answers 4096 before comm_alloc_windows"},
	{Name: "comm-derive-null-ids-ok", Clause: "E-COMM.12", Description: "comm_derive_context reads NULL rank_ids as zeros"},
	{Name: "comm-derive-without-windows", Clause: "E-COMM.13", Description: "comm_derive_context derives from a handle without windows"},
	{Name: "comm-derive-count-truncated", Clause: "E-COMM.14", Description: "comm_derive_context reads rank_count as 32 bits"},
	{Name: "comm-derive-end-exclusive", Clause: "E-COMM.15", Description: "comm_derive_context refuses window_offset + window_size equal to winSize"},
	{Name: "comm-derive-end-wraps", Clause: "E-COMM.15", Description: "comm_derive_context accepts a window_offset + window_size that wraps past 2^64, as upstream's size_t sum does"},
	{Name: "comm-derive-rank-ids-unchecked", Clause: "E-COMM.16", Description: "comm_derive_context does not range-check rank_ids"},
	{Name: "comm-derive-offset-lost", Clause: "E-COMM.17", Description: "a derived context's windows leave out window_offset"},
	{Name: "comm-barrier-without-windows", Clause: "E-COMM.18", Description: "comm_barrier of a handle without windows returns 0"},
	{Name: "comm-alloc-no-wait", Clause: "E-COMM.8", Description: "comm_alloc_windows counts its rank ready and returns 0 without waiting for the others"},
	{Name: "comm-alloc-timeout-uncounted", Clause: "E-COMM.9", Description: "comm_alloc_windows whose ready wait times out counts its rank out again before it returns -1"},
	{Name: "comm-barrier-last-fails", Clause: "E-COMM.19", Description: "the barrier's last arrival returns -1"},
	{Name: "comm-barrier-no-wait", Clause: "E-COMM.20", Description: "an earlier arrival at the barrier returns 0 without waiting for the last"},
	{Name: "comm-barrier-timeout-ok", Clause: "E-COMM.21", Description: "an arrival whose barrier wait times out returns 0"},
	{Name: "comm-dalloc-null-base-ok", Clause: "E-COMM.22", Description: "comm_alloc_domain_windows with a NULL local_window_base_out allocates and returns 0"},
	{Name: "comm-dalloc-bad-count-code", Clause: "E-COMM.23", Description: "comm_alloc_domain_windows refuses a bad rank_count or domain_rank with INVALID_ARGUMENT instead of -1"},
	{Name: "comm-dalloc-zero-window-ok", Clause: "E-COMM.24", Description: "comm_alloc_domain_windows allocates windows of 0 bytes"},
	{Name: "comm-dalloc-live-id-ok", Clause: "E-COMM.25", Description: "comm_alloc_domain_windows allocates again under a live allocation_id"},
	{Name: "comm-dalloc-rank-ids-unchecked", Clause: "E-COMM.26", Description: "comm_alloc_domain_windows does not compare rank_ids[domain_rank] with the handle's rank"},
	{Name: "comm-dalloc-no-zero", Clause: "E-COMM.27", Description: "comm_alloc_domain_windows does not zero its own window"},
	{Name: "comm-dalloc-base-is-segment", Clause: "E-COMM.28", Description: "comm_alloc_domain_windows writes the segment's start as local_window_base_out"},
	{Name: "comm-dalloc-timeout-writes-out", Clause: "E-COMM.29", Description: "comm_alloc_domain_windows whose ready wait times out writes both out pointers before it returns -1"},
	{Name: "comm-release-null-ok", Clause: "E-COMM.30", Description: "comm_release_domain_windows(NULL) returns 0"},
	{Name: "comm-release-unknown-ok", Clause: "E-COMM.31", Description: "comm_release_domain_windows of an allocation_id not live returns 0"},
	{Name: "comm-release-mismatch-ok", Clause: "E-COMM.32", Description: "comm_release_domain_windows does not compare rank_count and domain_rank"},
	{Name: "comm-release-fails", Clause: "E-COMM.33", Description: "comm_release_domain_windows returns -1 after it released"},
	{Name: "comm-release-timeout-ok", Clause: "E-COMM.34", Description: "comm_release_domain_windows whose release barrier times out returns 0"},
	{Name: "comm-gprep-domain0-ok", Clause: "E-COMM.35", Description: "comm_global_domain_prepare accepts domain_id 0"},
	{Name: "comm-gprep-rank-unchecked", Clause: "E-COMM.36", Description: "comm_global_domain_prepare accepts a domain_rank >= rank_count"},
	{Name: "comm-gprep-zero-window-code", Clause: "E-COMM.37", Description: "comm_global_domain_prepare refuses window_size 0 with INVALID_ARGUMENT instead of -1"},
	{Name: "comm-gprep-fabric-ok", Clause: "E-COMM.38", Description: "comm_global_domain_prepare accepts profile 2 (A3_FABRIC)"},
	{Name: "comm-gprep-null-base-ok", Clause: "E-COMM.39", Description: "comm_global_domain_prepare with a NULL local_window_base_out prepares and returns 0"},
	{Name: "comm-gprep-live-ok", Clause: "E-COMM.40", Description: "comm_global_domain_prepare prepares a live domain_id again"},
	{Name: "comm-desc-reserved-set", Clause: "E-COMM.41", Description: "comm_global_domain_prepare writes 1 into the descriptor's reserved field"},
	{Name: "comm-import-null-out-ok", Clause: "E-COMM.42", Description: "comm_global_domain_import with a NULL device_ctx_out imports and returns 0"},
	{Name: "comm-import-count-code", Clause: "E-COMM.43", Description: "comm_global_domain_import refuses a descriptor_count other than rank_count with INVALID_ARGUMENT instead of -1"},
	{Name: "comm-import-twice-ok", Clause: "E-COMM.44", Description: "comm_global_domain_import imports a domain again"},
	{Name: "comm-import-version-unchecked", Clause: "E-COMM.45", Description: "comm_global_domain_import does not check a descriptor's version"},
	{Name: "comm-import-count-field-unchecked", Clause: "E-COMM.46", Description: "comm_global_domain_import does not compare a descriptor's rank_count"},
	{Name: "comm-import-size-unchecked", Clause: "E-COMM.47", Description: "comm_global_domain_import does not compare a descriptor's mapping_size"},
	{Name: "comm-import-handle-size-0-ok", Clause: "E-COMM.48", Description: "comm_global_domain_import accepts a handle_size of 0"},
	{Name: "comm-import-duplicate-code", Clause: "E-COMM.49", Description: "comm_global_domain_import refuses a rank named twice with INVALID_ARGUMENT instead of -1"},
	{Name: "comm-import-absent-peer-own", Clause: "E-COMM.50", Description: "comm_global_domain_import maps its own window for a peer whose window cannot be opened"},
	{Name: "comm-import-own-reopened", Clause: "E-COMM.51", Description: "comm_global_domain_import maps the domain's own window anew from its descriptor, not the local window"},
	{Name: "comm-import-refusal-marks-imported", Clause: "E-COMM.52", Description: "an import refused at a peer's window leaves the domain imported"},
	{Name: "comm-grelease-unknown-fails", Clause: "E-COMM.53", Description: "comm_global_domain_release of a domain_id not live returns -1"},
	{Name: "comm-grelease-keeps-domain", Clause: "E-COMM.54", Description: "comm_global_domain_release leaves the domain prepared"},
	{Name: "comm-destroy-null-ok", Clause: "E-COMM.56", Description: "comm_destroy(NULL) returns 0"},
	{Name: "comm-destroy-keeps-allocation-names", Clause: "E-COMM.57", Description: "comm_destroy unmaps the handle's domain allocations without unlinking their names"},
	{Name: "comm-destroy-fails", Clause: "E-COMM.58", Description: "comm_destroy returns -1 after its destroy barrier"},
	{Name: "comm-first-out-unlinks", Clause: "E-COMM.58", Description: "every rank out of a session (and of a domain allocation) unlinks its segment, not only the last: a handle that joins the session while a rank is still in it gets a new segment"},
	{Name: "comm-destroy-timeout-ok", Clause: "E-COMM.59", Description: "comm_destroy whose destroy barrier times out returns 0"},
	{Name: "ids-from-one", Clause: "M-1.1", Description: "the first id is 1"},
	{Name: "ids-shared-across-contexts", Clause: "M-1.2", Description: "launch finds an id another context minted"},
	{Name: "dedup", Clause: "M-2.1", Description: "identical bytes get the id of their first prepare"},
	{Name: "failure-consumes-id", Clause: "M-3.1", Description: "a failed prepare after V-IMG consumes an id"},
	{Name: "count-8191", Clause: "M-4.1", Description: "COUNT at 8191 residents"},
	{Name: "count-as-bytes", Clause: "M-4.2", Description: "a prepare past 8192 residents returns CALLABLE_BYTES_EXCEEDED"},
	{Name: "count-evicts-first", Clause: "M-4.3", Description: "a prepare past 8192 residents evicts id 0"},
	{Name: "no-first-fit", Clause: "M-5.1", Description: "every small image gets a new 2 MiB block"},
	{Name: "large-image-rounded", Clause: "M-5.2", Description: "an image above 2 MiB is charged whole 2 MiB blocks"},
	{Name: "slack-not-counted", Clause: "M-5.3", Description: "the budget counts the bytes used, not the blocks allocated"},
	{Name: "no-byte-budget", Clause: "M-5.4", Description: "the byte budget is not enforced"},
	{Name: "full-budget-refuses-tail", Clause: "M-5.5", Description: "with the budget full, an image that fits a block's tail is refused"},
	{Name: "budget-off-by-one", Clause: "M-5.6", Description: "a prepare that fills the budget exactly is refused"},
	{Name: "launch-reads-caller-image", Clause: "M-6.1", Description: "launch reads the counts from the caller's image"},
	{Name: "patches-caller-image", Clause: "M-6.2", Description: "prepare writes a child's resolved_addr into the caller's image"},
	{Name: "vimg-failure-commits", Clause: "M-7.2", Description: "a prepare refused by V-IMG commits the launch region"},
	{Name: "launch-commits", Clause: "M-7.3", Description: "each launch adds 64 bytes to committed memory"},
	{Name: "committed-null-nonzero", Clause: "M-7.4", Description: "committed_device_memory_ctx(NULL) returns 1"},
	{Name: "committed-fresh-nonzero", Clause: "M-7.5", Description: "committed_device_memory_ctx of a fresh context returns 4096"},
	{Name: "committed-after-finalize", Clause: "M-7.6", Description: "committed memory is not 0 after finalize"},
	{Name: "kinit-calls-aclinit", Clause: "D-1.1", Description: "kernel init calls aclInit"},
	{Name: "finalize-resets-device", Clause: "D-1.2", Description: "kernel finalize calls aclrtResetDevice"},
	{Name: "refusing-kinit-sets-device", Clause: "D-1.2", Profile: abi.ProfileRefusing, Description: "a refusing build's kernel init sets the thread's current device"},
	{Name: "finalize-syncs-device", Clause: "D-1.3", Description: "kernel finalize calls aclrtSynchronizeDevice"},
	{Name: "device-unchecked", Clause: "D-2.1", Description: "launch does not check the current device"},
	{Name: "prepare-device-unchecked", Clause: "D-2.1", Description: "prepare does not check the current device"},
	{Name: "finalize-device-unchecked", Clause: "D-2.1", Description: "finalize does not check the current device"},
	{Name: "no-device-passes", Clause: "D-2.2", Description: "a thread with no current device passes the device check"},
	{Name: "device-refusal-poisons", Clause: "D-2.3", Description: "a launch refused by the device check poisons the context"},
	{Name: "init-failed-finalize-skips-d2", Clause: "D-2.4", Description: "finalize of an init-failed context skips the device check"},
	{Name: "launch-syncs-caller-stream", Clause: "D-3.1", Description: "launch completes the work pending on its caller stream"},
	{Name: "stream-dereferenced", Clause: "D-3.2", Isolate: true, Description: "launch reads the first byte its caller stream points at"},
	{Name: "fatal-resets", Clause: "D-4.1", Description: "a fatal device is reset: finalize returns 0 instead of INVALID_STATE"},
	{Name: "quarantine-once", Clause: "D-4.2", Description: "finalize of a quarantined context returns 0 from the second call on"},
	{Name: "quarantine-destroyable", Clause: "D-4.3", Isolate: true, Description: "destroy frees a quarantined context"},
	{Name: "quarantine-releases-claim", Clause: "D-4.4", Description: "a quarantined context releases its device claim"},
	{Name: "thread-key-leak", Clause: "U-1.1", Isolate: true, Description: "init leaves a thread-exit destructor in the library: a thread that exits after the unload crashes"},
	{Name: "late-thread-leak", Clause: "U-1.2", Isolate: true, Description: "init starts a detached thread that runs library code 50 ms later: after an unload it crashes whatever the process does then"},
	{Name: "claim-racy", Clause: "X-1.3", Description: "the claim check and the claim take are apart: two racing inits both take one device"},
	{Name: "mint-racy", Clause: "X-1.4", Description: "prepare reads the next id before it takes the gate: overlapping prepares mint one id twice"},
	{Name: "launch-waits", Clause: "X-2.1", Description: "a launch overlapping a prepare waits for it instead of failing fast"},
	{Name: "prepare-fails-fast", Clause: "X-2.2", Description: "a prepare overlapping another prepare returns INVALID_STATE instead of waiting"},
}

// The codes the status mutants return (S-1, S-2).
const (
	// MutantDeviceBandCode is device code 7 (REQUIRE_SYNC_START_INVALID)
	// negated: a host-side refusal reported in the device-latched band.
	MutantDeviceBandCode abi.Status = -7
	// MutantUndocumentedCode is one below the smallest host code docs/contract.md
	// defines.
	MutantUndocumentedCode = abi.HostBandMin - 1
)

func init() {
	if !MutantDeviceBandCode.IsDeviceLatched() || MutantDeviceBandCode.Name() == "" {
		panic(fmt.Sprintf("emit: %d is no longer a named device-latched code", MutantDeviceBandCode))
	}
	if MutantUndocumentedCode.IsDefinedHost() || !MutantUndocumentedCode.IsHostBand() || MutantUndocumentedCode.IsDeviceLatched() {
		panic(fmt.Sprintf("emit: %d is not an undocumented host-band code", MutantUndocumentedCode))
	}
	for i := range mutants {
		m := &mutants[i]
		if m.Profile == "" {
			m.Profile = ProfileTMR
		}
		dot := strings.LastIndexByte(m.Clause, '.')
		if dot < 0 {
			panic("emit: mutant " + m.Name + ": clause " + m.Clause + " is not RULE.N")
		}
		m.Rule = m.Clause[:dot]
		m.Group, _, _ = strings.Cut(m.Rule, "-")
	}
}

// Mutants returns every mutant the generator knows, in a stable order.
func Mutants() []Mutant {
	out := make([]Mutant, len(mutants))
	copy(out, mutants)
	return out
}

// LookupMutant finds a mutant by name.
func LookupMutant(name string) (Mutant, bool) {
	for _, m := range mutants {
		if m.Name == name {
			return m, true
		}
	}
	return Mutant{}, false
}
