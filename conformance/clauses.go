package conformance

import (
	"github.com/simabi/simabi/conformance/model"
	"slices"
	"strconv"
	"strings"
)

// The clause table: every testable clause of docs/contract.md (a marker
// "[E-DESTROY.3]" in the text), bound to what judges it. TestClauseTable
// keeps it equal to the contract, clause for clause; abicheck explain,
// abicheck mutants and the contract's *Checked.* lines read it.

// ClauseSpec binds one clause of the contract to the directed checks that
// judge it and the emitted mutants that break it, or says why no call
// through the ABI can drive it.
type ClauseSpec struct {
	ID string // "E-DESTROY.3"
	// Held are the build profiles held to the clause; zero means the
	// rule's (rulecatalogue.go). A clause that is a decision of the target
	// revision leaves legacy out (docs/contract.md "Revisions").
	Held model.ProfileSet
	// Checks are the directed checks (catalogue.go) that judge the clause:
	// between them they kill each of Mutants.
	Checks []string
	// Mutants are the emitted mutants (sim/emit) that break exactly this
	// clause; each belongs to one clause.
	Mutants []string
	// Undriven says why no call through the ABI can show the clause, for a
	// clause no mutant can break observably.
	Undriven string
	// Gaps says why a profile held to the clause has no check that drives
	// it there (a capability the profile's builds lack).
	Gaps string
}

// gapNoInjection: the fault sites are driven through simabi_inject, which
// a refusing build answers UNSUPPORTED for every site (it models none) and
// upstream's builds do not export.
const gapNoInjection = "the fault site is driven through simabi_inject, which a refusing build answers UNSUPPORTED for every site and upstream's builds do not export"

// The comm family's clause no call can drive: it says how the project's
// own tests drive it instead. (Its timeouts are driven through the hook
// simabi_comm_timeout_ms: e-comm/timeout-*.)
const (
	undrivenCommUnload = "the runner calls nothing of a library after unloading it: TestComm_ECOMM55_unloadReleasesGlobalDomains " +
		"(sim/emit) loads a runtime twice in one process"
)

var clauseTable = []ClauseSpec{
	{ID: "S-1.1", Checks: []string{"s-1/host-refusals-below-1000", "s-2/documented-codes"}, Mutants: []string{"device-band-code"}},
	{ID: "S-1.2", Gaps: gapNoInjection, Checks: []string{"s-1/forwarded-codes"}, Mutants: []string{"forwarded-code-changed"}},
	{ID: "S-2.1", Checks: []string{"s-2/documented-codes", "s-3/null-context"}, Mutants: []string{"undocumented-code"}},
	{ID: "S-2.2", Checks: []string{"s-2/host-log-binder"}, Mutants: []string{"hostlog-refuses-debug"}},
	{ID: "S-2.3", Checks: []string{"s-2/host-log-binder"}, Mutants: []string{"hostlog-threshold-range"}},
	{ID: "S-2.4", Checks: []string{"s-2/host-log-binder"}, Mutants: []string{"hostlog-null-ok"}},
	{ID: "S-2.5", Checks: []string{"s-2/host-log-binder"}, Mutants: []string{"hostlog-version-unchecked"}},
	{ID: "S-2.6", Checks: []string{"s-2/host-log-binder"}, Mutants: []string{"hostlog-size-unchecked"}},
	{ID: "S-3.1", Checks: []string{"s-3/null-context"}, Mutants: []string{"null-query-nonzero"}},
	{ID: "S-3.2", Checks: []string{"s-3/null-context"}, Mutants: []string{"null-copy-is"}},
	{ID: "V-SPAN.1", Checks: []string{"v-span/kernel-init"}, Mutants: []string{"span-empty-refused"}},
	{ID: "V-SPAN.2", Checks: []string{"v-span/kernel-init"}, Mutants: []string{"span-bytes-refused"}},
	{ID: "V-SPAN.3", Checks: []string{"v-span/kernel-init"}, Mutants: []string{"span-nullsize-ok"}},
	{ID: "V-SPAN.4", Checks: []string{"v-init/arguments"}, Mutants: []string{"span-half-ok"}},
	{ID: "V-INIT.1", Checks: []string{"v-init/arguments"}, Mutants: []string{"kinit-null-ctx-is"}},
	{ID: "V-INIT.2", Checks: []string{"v-init/arguments"}, Mutants: []string{"kinit-null-config-ok"}},
	{ID: "V-INIT.3", Checks: []string{"v-init/every-state"}, Mutants: []string{"kinit-negative-device-late"}},
	{ID: "V-INIT.4", Checks: []string{"v-init/arguments"}, Mutants: []string{"init-gen0-ok"}},
	{ID: "V-INIT.5", Checks: []string{"v-span/kernel-init"}, Mutants: []string{"kinit-dispatcher-unchecked"}},
	{ID: "V-PREP-1.1", Checks: []string{"v-prep-1/out-is-minus-one"}, Mutants: []string{"prep-keeps-out"}},
	{ID: "V-PREP-1.2", Checks: []string{"k-4/registration-poisons", "v-prep-1/out-is-minus-one"}, Mutants: []string{"prep-out-before-register"}},
	{ID: "V-PREP-2.1", Checks: []string{"s-3/null-context-kernel-entries"}, Mutants: []string{"null-prepare-internal"}},
	{ID: "V-PREP-2.2", Checks: []string{"v-prep-2/arguments"}, Mutants: []string{"prep-null-callable-is"}},
	{ID: "V-PREP-2.3", Checks: []string{"v-prep-2/arguments"}, Mutants: []string{"prep-null-out-ok"}},
	{ID: "V-PREP-2.4", Checks: []string{"v-prep-2/every-state"}, Mutants: []string{"prep-short-in-vimg"}},
	{ID: "V-PREP-2.5", Checks: []string{"v-prep-2/arguments"}, Mutants: []string{"prep-misaligned-ok"}},
	{ID: "V-LAUNCH.1", Checks: []string{"v-launch/arguments"}, Mutants: []string{"launch-null-ctx-is"}},
	{ID: "V-LAUNCH.2", Checks: []string{"v-launch/every-state"}, Mutants: []string{"launch-null-args-late"}},
	{ID: "V-LAUNCH.3", Checks: []string{"v-launch/every-state"}, Mutants: []string{"launch-null-stream-late"}},
	{ID: "V-LAUNCH.4", Checks: []string{"v-launch/arguments"}, Mutants: []string{"launch-negative-id-nr"}},
	{ID: "V-LAUNCH.5", Checks: []string{"v-launch/arguments"}, Mutants: []string{"launch-id-8192-ok"}},
	{ID: "V-IMG.1", Checks: []string{"v-img/edges"}, Mutants: []string{"img-reads-past-end"}},
	{ID: "V-IMG.2", Checks: []string{"v-img/edges"}, Mutants: []string{"img-wrap-unchecked"}},
	{ID: "V-IMG.3", Checks: []string{"v-img/defects"}, Mutants: []string{"img-negative-sigcount-ok"}},
	{ID: "V-IMG.4", Checks: []string{"v-img/signature-values"}, Mutants: []string{"img-inout-refused", "img-sigval-4-ok"}},
	{ID: "V-IMG.5", Checks: []string{"v-img/defects"}, Mutants: []string{"img-order-unchecked"}},
	{ID: "V-IMG.6", Checks: []string{"v-img/signature-values"}, Mutants: []string{"img-128-scalars-refused"}},
	{ID: "V-IMG.7", Checks: []string{"v-img/defects"}, Mutants: []string{"img-unrecorded-sccount-refused"}},
	{ID: "V-IMG.8", Checks: []string{"v-img/edges"}, Mutants: []string{"img-name-len-unchecked"}},
	{ID: "V-IMG.9", Checks: []string{"v-img/defects"}, Mutants: []string{"img-cname-nul-unchecked"}},
	{ID: "V-IMG.10", Checks: []string{"v-img/defects"}, Mutants: []string{"img-fname-early-nul-ok"}},
	{ID: "V-IMG.11", Undriven: "every image this step refuses is refused again, with the same IA, by step 5 or 6 (used starts past the storage), and the step reads nothing a skipped check would read", Checks: []string{"v-img/defects"}},
	{ID: "V-IMG.12", Checks: []string{"v-img/defects"}, Mutants: []string{"img-negative-childcount-ok"}},
	{ID: "V-IMG.13", Checks: []string{"v-img/defects"}, Mutants: []string{"img-negative-funcid-ok"}},
	{ID: "V-IMG.14", Checks: []string{"v-img/defects"}, Mutants: []string{"img-dup-funcid-ok"}},
	{ID: "V-IMG.15", Checks: []string{"v-img/defects"}, Mutants: []string{"img-child-gap-ok"}},
	{ID: "V-IMG.16", Checks: []string{"v-img/edges"}, Mutants: []string{"img-child-header-unchecked"}},
	{ID: "V-IMG.17", Checks: []string{"v-img/defects"}, Mutants: []string{"img-negative-child-sigcount-ok"}},
	{ID: "V-IMG.18", Undriven: "every image this step refuses is refused again, with the same IA, by the next child's header check or by step 6, and V-IMG reads no byte of a child binary", Checks: []string{"v-img/defects"}},
	{ID: "V-IMG.19", Checks: []string{"v-img/defects"}, Mutants: []string{"img-trailing-ok"}},
	{ID: "V-IMG.20", Checks: []string{"v-img/unchecked-fields"}, Mutants: []string{"img-resolved-addr-checked"}},
	{ID: "V-CFG.1", Checks: []string{"v-cfg/values"}, Mutants: []string{"cfg-negative-threads-ok"}},
	{ID: "V-CFG.2", Checks: []string{"v-cfg/order"}, Mutants: []string{"cfg-pmu-ok"}},
	{ID: "V-CFG.3", Checks: []string{"v-cfg/values"}, Mutants: []string{"cfg-swimlane-4-refused"}},
	{ID: "V-CFG.4", Checks: []string{"v-cfg/order"}, Mutants: []string{"cfg-depgen-no-prefix-ok"}},
	{ID: "V-CFG.5", Checks: []string{"v-cfg/order"}, Mutants: []string{"cfg-unterminated-ok-when-off"}},
	{ID: "V-CFG.6", Checks: []string{"v-cfg/ring"}, Mutants: []string{"cfg-window-pow2-unchecked"}},
	{ID: "V-CFG.7", Checks: []string{"v-cfg/ring"}, Mutants: []string{"cfg-heap-unchecked"}},
	{ID: "V-CFG.8", Checks: []string{"v-cfg/ring"}, Mutants: []string{"cfg-dep-pool-max-unchecked"}},
	{ID: "V-CFG.9", Checks: []string{"v-cfg/ring"}, Mutants: []string{"cfg-first-ring-only"}},
	{ID: "V-CFG.10", Checks: []string{"v-cfg/ring"}, Mutants: []string{"cfg-partial-ring-refused"}},
	{ID: "V-ARENA.1", Undriven: "no entry of the ABI exposes arena change requests, so there is nothing to call from outside"},
	{ID: "V-ARENA.2", Undriven: "no entry of the ABI exposes arena change requests, so there is nothing to call from outside"},
	{ID: "V-ARENA.3", Undriven: "no entry of the ABI exposes arena change requests, so there is nothing to call from outside"},
	{ID: "V-CONTRACT.1", Checks: []string{"v-contract/admissible"}, Mutants: []string{"contract-version-2"}},
	{ID: "V-CONTRACT.2", Checks: []string{"v-contract/admissible"}, Mutants: []string{"contract-nine-resources"}},
	{ID: "V-CONTRACT.3", Checks: []string{"v-contract/admissible"}, Mutants: []string{"contract-depth-3"}},
	{ID: "V-CONTRACT.4", Checks: []string{"v-contract/admissible"}, Mutants: []string{"contract-bytes-declared"}},
	{ID: "V-CONTRACT.5", Checks: []string{"v-contract/admissible"}, Mutants: []string{"contract-heap-twice"}},
	{ID: "V-CONTRACT.6", Checks: []string{"v-contract/admissible"}, Mutants: []string{"contract-no-aicore-stream"}},
	{ID: "L-1.1", Checks: []string{"l-1/fresh-contexts"}, Mutants: []string{"created-latched-program"}},
	{ID: "L-1.2", Checks: []string{"l-1/fresh-contexts"}, Mutants: []string{"create-null-at-8-live"}},
	{ID: "L-2.1", Checks: []string{"l-2/one-mode-per-context"}, Mutants: []string{"acl-relatch-refused"}},
	{ID: "L-2.2", Checks: []string{"l-2/one-mode-per-context"}, Mutants: []string{"program-over-kernel", "refused-acl-sets-device"}},
	{ID: "L-2.3", Checks: []string{"l-2/one-mode-per-context"}, Mutants: []string{"kernel-over-program"}},
	{ID: "L-3.1", Checks: []string{"k-6/closed-is-terminal"}, Mutants: []string{"finalize-unlatches"}},
	{ID: "L-3.2", Checks: []string{"l-3/latch-survives-failed-init", "k-7/init-rollback"}, Mutants: []string{"latch-cleared-on-fail", "rollback-unlatches"}},
	{ID: "L-3.3", Checks: []string{"l-3/latch-survives-poison", "d-4/quarantine"}, Mutants: []string{"poison-unlatches", "quarantine-unlatches"}},
	{ID: "L-3.4", Checks: []string{"e-fin/program-teardown-failure"}, Mutants: []string{"teardown-fail-clears-latch"}},
	{ID: "L-4.1", Checks: []string{"l-2/one-mode-per-context"}, Mutants: []string{"acl-does-not-latch"}},
	{ID: "L-4.2", Checks: []string{"e-pinit/arguments"}, Mutants: []string{"refusal-latches", "acl-refusal-latches"}},
	{ID: "L-5.1", Checks: []string{"l-5/refusal-before-latch"}, Mutants: []string{"latch-before-cfg", "refusing-latches"}},
	{ID: "K-1.1", Checks: []string{"k-7/init-rollback"}, Mutants: []string{"new-accepts-dispatch"}},
	{ID: "K-2.1", Checks: []string{"e-launch/before-prepare"}, Mutants: []string{"init-lands-ready"}},
	{ID: "K-2.2", Checks: []string{"k-2/no-reinit-after-close"}, Mutants: []string{"kinit-idempotent"}},
	{ID: "K-3.1", Checks: []string{"k-3/phases"}, Mutants: []string{"prepare-stays-collecting"}},
	{ID: "K-3.2", Checks: []string{"k-3/phases"}, Mutants: []string{"second-prepare-resets-phase"}},
	{ID: "K-4.1", Checks: []string{"k-4/registration-poisons"}, Mutants: []string{"poison-ignored"}},
	{ID: "K-4.2", Checks: []string{"k-4/enqueue-poisons"}, Mutants: []string{"enqueue-failure-no-poison"}},
	{ID: "K-4.3", Undriven: "no fault site reaches the AICPU bring-up (abi.md lists sites 1 to 10), so no call can make kernel init fail there"},
	{ID: "K-4.4", Checks: []string{"k-4/registration-poisons"}, Mutants: []string{"poison-frees-blocks"}},
	{ID: "K-4.5", Undriven: "every poisoning step (device registration, enqueue) lies behind a dispatch check that New, Poisoned, Closing and Closed refuse, or inside init"},
	{ID: "K-4.6", Checks: []string{"k-4/registration-poisons"}, Mutants: []string{"poisoned-close-refused"}},
	{ID: "K-5.1", Checks: []string{"k-7/init-rollback"}, Mutants: []string{"close-new-refused"}},
	{ID: "K-5.2", Checks: []string{"k-5/close-failure-is-returned"}, Mutants: []string{"close-failure-stays-live"}},
	{ID: "K-5.3", Checks: []string{"k-5/close-failure-is-returned"}, Mutants: []string{"close-failure-swallowed"}},
	{ID: "K-5.4", Checks: []string{"k-5/close-failure-is-returned"}, Mutants: []string{"close-retry-skips-rest"}},
	{ID: "K-5.5", Checks: []string{"k-5/close-failure-is-returned"}, Mutants: []string{"closing-reverts-on-retry-failure"}},
	{ID: "K-6.1", Checks: []string{"k-6/closed-is-terminal"}, Mutants: []string{"finalize-closed-is"}},
	{ID: "K-6.2", Checks: []string{"k-2/no-reinit-after-close"}, Mutants: []string{"reinit-after-close"}},
	{ID: "K-6.3", Checks: []string{"k-6/closed-is-terminal"}, Mutants: []string{"closed-accepts-dispatch"}},
	{ID: "K-6.4", Checks: []string{"k-6/closed-is-terminal"}, Mutants: []string{"closed-launch-nr"}},
	{ID: "K-7.1", Checks: []string{"k-7/init-rollback"}, Mutants: []string{"rollback-leaves-collecting"}},
	{ID: "K-7.2", Checks: []string{"k-7/init-rollback"}, Mutants: []string{"rollback-failure-lands-new"}},
	{ID: "K-7.3", Checks: []string{"k-7/init-rollback"}, Mutants: []string{"rollback-failure-code"}},
	{ID: "E-SUP.1", Checks: []string{"e-sup/constant"}, Mutants: []string{"supported-null-0", "refusing-supported-null-1"}},
	{ID: "E-SUP.2", Checks: []string{"e-sup/constant"}, Mutants: []string{"supported-after-init-0"}},
	{ID: "E-SUP.3", Checks: []string{"d-1/no-device-calls", "e-sup/constant"}, Mutants: []string{"supported-sets-device"}},
	{ID: "E-KINIT.1", Checks: []string{"e-kinit/order"}, Mutants: []string{"kinit-cfg-before-init-args"}},
	{ID: "E-KINIT.2", Held: model.OnRefusing, Checks: []string{"refusing/validate-then-refuse"}, Mutants: []string{"refusing-kinit-is"}},
	{ID: "E-KINIT.3", Held: model.OnTMR, Checks: []string{"e-kinit/refusals-take-nothing"}, Mutants: []string{"state-refusal-takes-claim"}},
	{ID: "E-KINIT.4", Held: model.OnTMR, Checks: []string{"e-claim/released-by-failed-init"}, Mutants: []string{"claim-unchecked"}},
	{ID: "E-KINIT.5", Held: model.OnTMR, Checks: []string{"l-3/latch-survives-failed-init", "d-2/borrowed-device"}, Mutants: []string{"kinit-device-unchecked", "kinit-no-device-ok"}},
	{ID: "E-KINIT.6", Held: model.OnTMR, Checks: []string{"l-3/latch-survives-failed-init"}, Mutants: []string{"failed-init-retry-ok"}},
	{ID: "E-CLAIM.1", Checks: []string{"e-claim/released-by-failed-init"}, Mutants: []string{"claim-not-released"}},
	{ID: "E-CLAIM.2", Checks: []string{"e-claim/released-by-failed-init"}, Mutants: []string{"claim-kept-on-fail"}},
	{ID: "E-CLAIM.3", Checks: []string{"k-4/registration-poisons"}, Mutants: []string{"poison-releases-claim"}},
	{ID: "E-CLAIM.4", Checks: []string{"k-5/close-failure-is-returned"}, Mutants: []string{"closing-releases-claim"}},
	{ID: "E-CLAIM.5", Undriven: "two loaded copies of one library in one sequence: the checker's runner loads one private copy per sequence"},
	{ID: "E-PREP.1", Checks: []string{"v-prep-1/out-is-minus-one"}, Mutants: []string{"prep-minus-one-late"}},
	{ID: "E-PREP.2", Checks: []string{"v-prep-2/every-state"}, Mutants: []string{"prep-args-after-state"}},
	{ID: "E-PREP.3", Held: model.OnTMR, Checks: []string{"e-prep/check-order"}, Mutants: []string{"prep-not-kernel-ia"}},
	{ID: "E-PREP.4", Held: model.OnTMR, Checks: []string{"e-prep/check-order"}, Mutants: []string{"prep-device-after-vimg"}},
	{ID: "E-PREP.5", Held: model.OnTMR, Checks: []string{"e-prep/check-order"}, Mutants: []string{"prep-huge-vimg-first"}},
	{ID: "E-PREP.6", Held: model.OnTMR, Checks: []string{"m-3/failures-mint-nothing", "m-5/failed-prepare-keeps-tail"}, Mutants: []string{"copy-failure-charges", "failed-copy-keeps-tail"}},
	{ID: "E-PREP.7", Held: model.OnTMR, Checks: []string{"m-1/dense-ids-per-context"}, Mutants: []string{"prep-id-not-written"}},
	{ID: "E-PREP.8", Held: model.OnTMR, Checks: []string{"k-4/registration-poisons"}, Mutants: []string{"registration-at-launch"}},
	{ID: "E-PREP.9", Held: model.OnRefusing, Checks: []string{"refusing/validate-then-refuse"}, Mutants: []string{"refusing-prepare-unsup"}},
	{ID: "E-LAUNCH.1", Held: model.OnTMR, Checks: []string{"e-launch/not-dispatching"}, Mutants: []string{"launch-not-kernel-ia"}},
	{ID: "E-LAUNCH.2", Held: model.OnTMR, Checks: []string{"e-launch/before-prepare"}, Mutants: []string{"launch-before-prepare-nr"}},
	{ID: "E-LAUNCH.3", Held: model.OnTMR, Checks: []string{"d-2/borrowed-device"}, Mutants: []string{"launch-device-after-nr"}},
	{ID: "E-LAUNCH.4", Held: model.OnTMR, Checks: []string{"e-launch/before-prepare"}, Mutants: []string{"launch-nr-off-by-one"}},
	{ID: "E-LAUNCH.5", Held: model.OnTMR, Checks: []string{"e-launch/before-prepare"}, Mutants: []string{"launch-scalar-count-unchecked"}},
	{ID: "E-LAUNCH.6", Held: model.OnTMR, Checks: []string{"e-launch/address-space"}, Mutants: []string{"launch-alien-space-ok", "launch-first-tensor-only"}},
	{ID: "E-LAUNCH.7", Held: model.OnTMR, Checks: []string{"e-launch/stream-switch"}, Mutants: []string{"stream-switch-ok"}},
	{ID: "E-LAUNCH.8", Held: model.OnTMR, Checks: []string{"e-launch/reads-only-counts"}, Mutants: []string{"launch-checks-alignment"}},
	{ID: "E-LAUNCH.9", Held: model.OnTMR, Checks: []string{"e-launch/stream-switch"}, Mutants: []string{"refused-launch-records-stream"}},
	{ID: "E-LAUNCH.10", Held: model.OnRefusing, Checks: []string{"refusing/validate-then-refuse"}, Mutants: []string{"refusing-launch-nr"}},
	{ID: "E-LAUNCH-ASYNC.1", Undriven: "the checker's images are no-op kernels, which read nothing of args when their work runs; a kernel that reads its args needs caller device memory, which the checker does not allocate"},
	{ID: "E-LAUNCH-ASYNC.2", Checks: []string{"e-launch-async/delivered-once"}, Mutants: []string{"async-reported-twice"}},
	{ID: "E-LAUNCH-ASYNC.3", Checks: []string{"e-launch-async/delivered-once"}, Mutants: []string{"async-failure-stops-queue"}},
	{ID: "E-LAUNCH-ASYNC.4", Checks: []string{"e-launch-async/delivered-once"}, Mutants: []string{"async-poisons", "async-failure-releases-claim"}},
	{ID: "E-FIN.1", Checks: []string{"s-3/null-context"}, Mutants: []string{"finalize-null-ia"}},
	{ID: "E-FIN.2", Checks: []string{"e-fin/outstanding-prepared-run"}, Mutants: []string{"finalize-ignores-runs"}},
	{ID: "E-FIN.3", Checks: []string{"e-fin/outstanding-prepared-run"}, Mutants: []string{"refused-finalize-drops-callables"}},
	{ID: "E-FIN.4", Checks: []string{"e-fin/nothing-to-release"}, Mutants: []string{"finalize-fresh-latches"}},
	{ID: "E-FIN.5", Checks: []string{"e-prog/run-storage"}, Mutants: []string{"program-finalize-keeps-attached"}},
	{ID: "E-FIN.6", Gaps: gapNoInjection, Checks: []string{"e-fin/program-teardown-failure"}, Mutants: []string{"program-teardown-swallowed"}},
	{ID: "E-FIN.7", Gaps: gapNoInjection, Checks: []string{"e-fin/program-teardown-failure"}, Mutants: []string{"teardown-failure-keeps-attached"}},
	{ID: "E-FIN.8", Checks: []string{"e-fin/outstanding-prepared-run"}, Mutants: []string{"prepared-run-not-outstanding"}},
	{ID: "E-FIN.9", Checks: []string{"e-fin/outstanding-launched-run", "e-fin/outstanding-prepared-run"}, Mutants: []string{"completed-run-not-outstanding", "failed-finalize-run-keeps-run"}},
	{ID: "E-FIN.10", Checks: []string{"e-prog/run-storage"}, Mutants: []string{"run-leaves-outstanding"}},
	{ID: "E-FIN.11", Checks: []string{"e-fin/outstanding-prepared-run"}, Mutants: []string{"refused-prepare-run-reserves"}},
	{ID: "E-FIN.12", Checks: []string{"e-fin/outstanding-prepared-run"}, Mutants: []string{"unregister-ignores-runs"}},
	{ID: "E-FIN.13", Checks: []string{"e-fin/outstanding-prepared-run"}, Mutants: []string{"register-ignores-runs"}},
	{ID: "E-DESTROY.1", Checks: []string{"e-destroy/refused-leaves-program-context"}, Mutants: []string{"destroy-ignores-runs"}},
	{ID: "E-DESTROY.2", Held: model.OnTMR, Checks: []string{"e-destroy/refused-until-finalized", "k-7/init-rollback"}, Mutants: []string{"destroy-unfinalized", "destroy-init-failed-ok"}},
	{ID: "E-DESTROY.3", Checks: []string{"e-destroy/refused-leaves-program-context", "e-destroy/refused-until-finalized", "e-destroy/refused-keeps-device-memory"},
		Mutants: []string{"refused-destroy-drops-callables", "refused-destroy-drops-residents", "refused-destroy-frees-device-memory"}},
	{ID: "E-DESTROY.4", Checks: []string{"e-destroy/refused-until-finalized", "e-destroy/refused-leaves-program-context"}, Mutants: []string{"refused-destroy-deferred"}},
	{ID: "E-DESTROY.5", Undriven: "a freed handle must not be called again, and what a context holds is private to it or released before destroy, so no call can see that the memory went"},
	{ID: "E-DESTROY.6", Checks: []string{"s-3/null-context"}, Mutants: []string{"destroy-null-crashes"}},
	{ID: "E-PINIT.1", Checks: []string{"s-3/null-context"}, Mutants: []string{"pinit-null-ia"}},
	{ID: "E-PINIT.2", Checks: []string{"e-pinit/arguments"}, Mutants: []string{"pinit-negative-device-ok"}},
	{ID: "E-PINIT.3", Held: model.OnKernel, Checks: []string{"e-pinit/arguments"}, Mutants: []string{"pinit-dispatcher-span-unchecked"}},
	{ID: "E-PINIT.4", Held: model.OnKernel, Checks: []string{"e-pinit/arguments"}, Mutants: []string{"pinit-sdma-span-unchecked"}},
	{ID: "E-PINIT.5", Held: model.OnKernel, Checks: []string{"e-pinit/prewarm"}, Mutants: []string{"prewarm-threads-5-ok"}},
	{ID: "E-PINIT.6", Held: model.OnKernel, Checks: []string{"e-pinit/prewarm"}, Mutants: []string{"prewarm-swimlane-unchecked"}},
	{ID: "E-PINIT.7", Held: model.OnKernel, Checks: []string{"e-pinit/prewarm"}, Mutants: []string{"prewarm-depgen-no-prefix-ok"}},
	{ID: "E-PINIT.8", Held: model.OnKernel, Checks: []string{"e-pinit/prewarm"}, Mutants: []string{"prewarm-unterminated-ok"}},
	{ID: "E-PINIT.9", Checks: []string{"e-pinit/prewarm"}, Mutants: []string{"prewarm-heap-unchecked"}},
	{ID: "E-PINIT.10", Checks: []string{"e-pinit/prewarm"}, Mutants: []string{"prewarm-pmu-refused"}},
	{ID: "E-PINIT.11", Held: model.OnKernel, Checks: []string{"e-pinit/arguments"}, Mutants: []string{"pinit-reattach-ok"}},
	{ID: "E-PINIT.12", Checks: []string{"e-acl/current-device"}, Mutants: []string{"pinit-no-set-device"}},
	{ID: "E-PINIT.13", Undriven: "no fault site reaches simpler_init's attach or prewarm, and a build that checks the prewarm before the latch (as E-PINIT orders) has no other failure after it"},
	{ID: "E-PINIT.14", Checks: []string{"e-fin/program-teardown-failure", "e-pinit/arguments"}, Mutants: []string{"pinit-after-finalize-refused"}},
	{ID: "E-ACL.1", Checks: []string{"s-3/null-context"}, Mutants: []string{"acl-null-is"}},
	{ID: "E-ACL.2", Held: model.OnKernel, Checks: []string{"e-pinit/arguments"}, Mutants: []string{"acl-negative-device-ok"}},
	{ID: "E-ACL.3", Held: model.OnKernel, Checks: []string{"e-acl/current-device"}, Mutants: []string{"acl-no-set-device"}},
	{ID: "E-ACL.4", Held: model.OnKernel, Checks: []string{"e-acl/current-device"}, Mutants: []string{"acl-repeat-keeps-device"}},
	{ID: "E-ACL.5", Checks: []string{"e-pinit/arguments"}, Mutants: []string{"acl-attaches"}},
	{ID: "E-PROG.1", Held: model.OnKernel, Checks: []string{"e-prog/state-before-arguments"}, Mutants: []string{"prog-args-first"}},
	{ID: "E-PROG.2", Held: model.OnKernel, Checks: []string{"e-prog/state-before-arguments"}, Mutants: []string{"prog-latches-program"}},
	{ID: "E-PROG.3", Held: model.OnKernel, Checks: []string{"e-prog/state-before-arguments"}, Mutants: []string{"prog-refusal-sets-device"}},
	{ID: "E-PROG.4", Held: model.OnKernel, Checks: []string{"e-prog/state-before-arguments"}, Mutants: []string{"malloc-without-init"}},
	{ID: "E-PROG.5", Undriven: "without a live init the context has no device pointer to free, so no call can show what device_free_ctx did"},
	{ID: "E-PROG.6", Checks: []string{"e-prog/run-null-arguments"}, Mutants: []string{"run-null-storage-is"}},
	{ID: "E-PROG.7", Checks: []string{"e-prog/run-null-arguments"}, Mutants: []string{"run-null-args-as-empty"}},
	{ID: "E-PROG.8", Checks: []string{"e-prog/run-null-arguments"}, Mutants: []string{"run-null-config-ok"}},
	{ID: "E-PROG.9", Checks: []string{"e-prog/run-null-arguments"}, Mutants: []string{"run-null-descriptor-ok"}},
	{ID: "E-PROG.10", Checks: []string{"e-prog/run-null-arguments"}, Mutants: []string{"null-args-refusal-holds-storage"}},
	{ID: "E-PROG.11", Checks: []string{"e-prog/run-family"}, Mutants: []string{"unregister-keeps-id"}},
	{ID: "E-PROG.12", Checks: []string{"e-prog/run-family"}, Mutants: []string{"prepare-run-counts-swapped"}},
	{ID: "E-PROG.13", Checks: []string{"e-prog/run-family"}, Mutants: []string{"unregistered-run-ok"}},
	{ID: "E-PROG.14", Checks: []string{"e-prog/run-storage"}, Mutants: []string{"busy-storage-ok"}},
	{ID: "E-PROG.15", Checks: []string{"e-prog/run-family"}, Mutants: []string{"launch-run-no-publish"}},
	{ID: "E-PROG.16", Checks: []string{"e-prog/run-storage"}, Mutants: []string{"relaunch-ok"}},
	{ID: "E-PROG.17", Checks: []string{"e-fin/outstanding-launched-run"}, Mutants: []string{"poll-never-complete"}},
	{ID: "E-PROG.18", Checks: []string{"e-prog/run-family"}, Mutants: []string{"wait-run-prepared-ok"}},
	{ID: "E-PROG.19", Checks: []string{"e-prog/run-storage"}, Mutants: []string{"finalize-run-keeps-storage"}},
	{ID: "E-PROG.20", Checks: []string{"e-prog/run-storage"}, Mutants: []string{"run-unsupported"}},
	{ID: "E-PROG.21", Held: model.OnKernel, Checks: []string{"e-prog/register-id-bound"}, Mutants: []string{"register-id-8192-ok"}},
	{ID: "E-PROG.22", Held: model.OnLegacy, Checks: []string{"e-prog/register-id-bound"}, Mutants: []string{"legacy-register-id-64-ok"}},
	{ID: "E-PROG.23", Checks: []string{"e-prog/live-init-arguments"}, Mutants: []string{"launch-run-null-storage-ok"}},
	{ID: "E-PROG.24", Checks: []string{"e-prog/live-init-arguments"}, Mutants: []string{"copy-null-host-ok"}},
	{ID: "E-PROG.25", Checks: []string{"e-prog/live-init-arguments"}, Mutants: []string{"free-keeps-committed"}},
	{ID: "E-PROG.26", Checks: []string{"e-prog/live-init-arguments"}, Mutants: []string{"dlopen-count-survives-finalize"}},
	{ID: "E-PROG.27", Checks: []string{"e-prog/live-init-arguments"}, Mutants: []string{"register-duplicate-replaces"}},
	{ID: "E-PROG.28", Checks: []string{"e-prog/copy-comm-windows"}, Mutants: []string{"copy-refuses-comm-window", "copy-into-released-window"}},
	{ID: "E-PROG.29", Checks: []string{"e-prog/two-slots"}, Mutants: []string{"one-run-per-context"}},
	{ID: "E-PROG.30", Checks: []string{"e-prog/copy-past-end"}, Mutants: []string{"copy-past-end-accepted", "copy-prefix-then-refuse"}},
	{ID: "E-PROG.31", Checks: []string{"e-prog/copy-zero-bytes"}, Mutants: []string{"copy-zero-refused"}},
	{ID: "E-PROG.32", Checks: []string{"e-prog/free-not-an-allocation"}, Mutants: []string{"free-interior-frees"}},
	{ID: "E-PROG.33", Checks: []string{"e-prog/malloc-zero"}, Mutants: []string{"malloc-zero-null"}},
	{ID: "E-PROG.34", Checks: []string{"e-prog/malloc-huge"}, Mutants: []string{"malloc-failure-charges"}},
	{ID: "E-COMM.1", Checks: []string{"e-comm/init"}, Mutants: []string{"comm-init-null-path-ok"}},
	{ID: "E-COMM.2", Checks: []string{"e-comm/init"}, Mutants: []string{"comm-init-rank-unchecked"}},
	{ID: "E-COMM.3", Checks: []string{"e-comm/init"}, Mutants: []string{"comm-init-64-refused"}},
	{ID: "E-COMM.4", Checks: []string{"e-comm/init"}, Mutants: []string{"comm-init-null-stream"}},
	{ID: "E-COMM.5", Checks: []string{"e-comm/alloc-windows"}, Mutants: []string{"comm-alloc-null-out-ok"}},
	{ID: "E-COMM.6", Checks: []string{"e-comm/shared-windows", "e-comm/alloc-windows", "e-comm/ranks-windows"}, Mutants: []string{"comm-session-private"}},
	{ID: "E-COMM.7", Checks: []string{"e-comm/alloc-windows"}, Mutants: []string{"comm-windows-out-unset"}},
	{ID: "E-COMM.8", Checks: []string{"e-comm/ranks-barrier"}, Mutants: []string{"comm-alloc-no-wait"}},
	{ID: "E-COMM.9", Checks: []string{"e-comm/timeout-alloc"}, Mutants: []string{"comm-alloc-timeout-uncounted"}},
	{ID: "E-COMM.10", Checks: []string{"e-comm/alloc-windows"}, Mutants: []string{"comm-query-null-out-ok"}},
	{ID: "E-COMM.11", Checks: []string{"e-comm/alloc-windows"}, Mutants: []string{"comm-base-before-alloc-nonzero"}},
	{ID: "E-COMM.12", Checks: []string{"e-comm/derive"}, Mutants: []string{"comm-derive-null-ids-ok"}},
	{ID: "E-COMM.13", Checks: []string{"e-comm/derive"}, Mutants: []string{"comm-derive-without-windows"}},
	{ID: "E-COMM.14", Checks: []string{"e-comm/derive"}, Mutants: []string{"comm-derive-count-truncated"}},
	{ID: "E-COMM.15", Checks: []string{"e-comm/derive"}, Mutants: []string{"comm-derive-end-exclusive", "comm-derive-end-wraps"}},
	{ID: "E-COMM.16", Checks: []string{"e-comm/derive"}, Mutants: []string{"comm-derive-rank-ids-unchecked"}},
	{ID: "E-COMM.17", Checks: []string{"e-comm/derive-windows", "e-comm/derive"}, Mutants: []string{"comm-derive-offset-lost"}},
	{ID: "E-COMM.18", Checks: []string{"e-comm/barrier"}, Mutants: []string{"comm-barrier-without-windows"}},
	{ID: "E-COMM.19", Checks: []string{"e-comm/barrier"}, Mutants: []string{"comm-barrier-last-fails"}},
	{ID: "E-COMM.20", Checks: []string{"e-comm/ranks-barrier"}, Mutants: []string{"comm-barrier-no-wait"}},
	{ID: "E-COMM.21", Checks: []string{"e-comm/timeout-barrier"}, Mutants: []string{"comm-barrier-timeout-ok"}},
	{ID: "E-COMM.22", Checks: []string{"e-comm/domain-windows"}, Mutants: []string{"comm-dalloc-null-base-ok"}},
	{ID: "E-COMM.23", Checks: []string{"e-comm/domain-windows"}, Mutants: []string{"comm-dalloc-bad-count-code"}},
	{ID: "E-COMM.24", Checks: []string{"e-comm/domain-windows"}, Mutants: []string{"comm-dalloc-zero-window-ok"}},
	{ID: "E-COMM.25", Checks: []string{"e-comm/domain-windows"}, Mutants: []string{"comm-dalloc-live-id-ok"}},
	{ID: "E-COMM.26", Checks: []string{"e-comm/domain-windows"}, Mutants: []string{"comm-dalloc-rank-ids-unchecked"}},
	{ID: "E-COMM.27", Checks: []string{"e-comm/domain-zeroes", "e-comm/domain-windows"}, Mutants: []string{"comm-dalloc-no-zero"}},
	{ID: "E-COMM.28", Checks: []string{"e-comm/domain-windows", "e-comm/domain-zeroes"}, Mutants: []string{"comm-dalloc-base-is-segment"}},
	{ID: "E-COMM.29", Checks: []string{"e-comm/timeout-domain"}, Mutants: []string{"comm-dalloc-timeout-writes-out"}},
	{ID: "E-COMM.30", Checks: []string{"e-comm/domain-release"}, Mutants: []string{"comm-release-null-ok"}},
	{ID: "E-COMM.31", Checks: []string{"e-comm/domain-release"}, Mutants: []string{"comm-release-unknown-ok"}},
	{ID: "E-COMM.32", Checks: []string{"e-comm/domain-release"}, Mutants: []string{"comm-release-mismatch-ok"}},
	{ID: "E-COMM.33", Checks: []string{"e-comm/domain-release", "e-comm/domain-windows"}, Mutants: []string{"comm-release-fails"}},
	{ID: "E-COMM.34", Checks: []string{"e-comm/timeout-release"}, Mutants: []string{"comm-release-timeout-ok"}},
	{ID: "E-COMM.35", Checks: []string{"e-comm/global-prepare"}, Mutants: []string{"comm-gprep-domain0-ok"}},
	{ID: "E-COMM.36", Checks: []string{"e-comm/global-prepare"}, Mutants: []string{"comm-gprep-rank-unchecked"}},
	{ID: "E-COMM.37", Checks: []string{"e-comm/global-prepare"}, Mutants: []string{"comm-gprep-zero-window-code"}},
	{ID: "E-COMM.38", Checks: []string{"e-comm/global-prepare"}, Mutants: []string{"comm-gprep-fabric-ok"}},
	{ID: "E-COMM.39", Checks: []string{"e-comm/global-prepare"}, Mutants: []string{"comm-gprep-null-base-ok"}},
	{ID: "E-COMM.40", Checks: []string{"e-comm/global-prepare"}, Mutants: []string{"comm-gprep-live-ok"}},
	{ID: "E-COMM.41", Checks: []string{"e-comm/global-prepare", "e-comm/global-import"}, Mutants: []string{"comm-desc-reserved-set"}},
	{ID: "E-COMM.42", Checks: []string{"e-comm/global-import", "e-comm/global-release"}, Mutants: []string{"comm-import-null-out-ok"}},
	{ID: "E-COMM.43", Checks: []string{"e-comm/global-import"}, Mutants: []string{"comm-import-count-code"}},
	{ID: "E-COMM.44", Checks: []string{"e-comm/global-import"}, Mutants: []string{"comm-import-twice-ok"}},
	{ID: "E-COMM.45", Checks: []string{"e-comm/global-import"}, Mutants: []string{"comm-import-version-unchecked"}},
	{ID: "E-COMM.46", Checks: []string{"e-comm/global-import"}, Mutants: []string{"comm-import-count-field-unchecked"}},
	{ID: "E-COMM.47", Checks: []string{"e-comm/global-import"}, Mutants: []string{"comm-import-size-unchecked"}},
	{ID: "E-COMM.48", Checks: []string{"e-comm/global-import"}, Mutants: []string{"comm-import-handle-size-0-ok"}},
	{ID: "E-COMM.49", Checks: []string{"e-comm/global-import"}, Mutants: []string{"comm-import-duplicate-code"}},
	{ID: "E-COMM.50", Checks: []string{"e-comm/global-import", "e-comm/global-windows"}, Mutants: []string{"comm-import-absent-peer-own"}},
	{ID: "E-COMM.51", Checks: []string{"e-comm/global-windows", "e-comm/global-import"}, Mutants: []string{"comm-import-own-reopened"}},
	{ID: "E-COMM.52", Checks: []string{"e-comm/global-import"}, Mutants: []string{"comm-import-refusal-marks-imported"}},
	{ID: "E-COMM.53", Checks: []string{"e-comm/global-release"}, Mutants: []string{"comm-grelease-unknown-fails"}},
	{ID: "E-COMM.54", Checks: []string{"e-comm/global-release", "e-comm/global-windows"}, Mutants: []string{"comm-grelease-keeps-domain"}},
	{ID: "E-COMM.55", Undriven: undrivenCommUnload},
	{ID: "E-COMM.56", Checks: []string{"e-comm/destroy"}, Mutants: []string{"comm-destroy-null-ok"}},
	{ID: "E-COMM.57", Checks: []string{"e-comm/destroy-unlinks"}, Mutants: []string{"comm-destroy-keeps-allocation-names"}},
	{ID: "E-COMM.58", Checks: []string{"e-comm/destroy", "e-comm/destroy-unlinks", "e-comm/ranks-last-out"}, Mutants: []string{"comm-destroy-fails", "comm-first-out-unlinks"}},
	{ID: "E-COMM.59", Checks: []string{"e-comm/timeout-destroy"}, Mutants: []string{"comm-destroy-timeout-ok"}},
	{ID: "M-1.1", Checks: []string{"m-1/dense-ids-per-context"}, Mutants: []string{"ids-from-one"}},
	{ID: "M-1.2", Checks: []string{"m-1/dense-ids-per-context"}, Mutants: []string{"ids-shared-across-contexts"}},
	{ID: "M-2.1", Checks: []string{"m-2/no-deduplication"}, Mutants: []string{"dedup"}},
	{ID: "M-3.1", Checks: []string{"m-3/failures-mint-nothing"}, Mutants: []string{"failure-consumes-id"}},
	{ID: "M-4.1", Checks: []string{"m-4/count"}, Mutants: []string{"count-8191"}},
	{ID: "M-4.2", Checks: []string{"m-4/count"}, Mutants: []string{"count-as-bytes"}},
	{ID: "M-4.3", Checks: []string{"m-4/count"}, Mutants: []string{"count-evicts-first"}},
	{ID: "M-5.1", Checks: []string{"m-7/committed"}, Mutants: []string{"no-first-fit"}},
	{ID: "M-5.2", Checks: []string{"m-5/large-blocks"}, Mutants: []string{"large-image-rounded"}},
	{ID: "M-5.3", Checks: []string{"m-5/byte-budget"}, Mutants: []string{"slack-not-counted"}},
	{ID: "M-5.4", Checks: []string{"m-5/byte-budget"}, Mutants: []string{"no-byte-budget"}},
	{ID: "M-5.5", Checks: []string{"m-5/byte-budget"}, Mutants: []string{"full-budget-refuses-tail"}},
	{ID: "M-5.6", Checks: []string{"m-5/byte-budget"}, Mutants: []string{"budget-off-by-one"}},
	{ID: "M-6.1", Checks: []string{"m-6/caller-image-not-read-again"}, Mutants: []string{"launch-reads-caller-image"}},
	{ID: "M-6.2", Checks: []string{"v-img/defects"}, Mutants: []string{"patches-caller-image"}},
	{ID: "M-7.1", Held: model.OnTMR, Undriven: "the contract lets a checker assert only which way committed memory moves for a kernel context (C0 may be nonzero, the sizes are the runtime's), so no call tells the sum from another that moves the same way"},
	{ID: "M-7.2", Held: model.OnTMR, Checks: []string{"m-7/committed"}, Mutants: []string{"vimg-failure-commits"}},
	{ID: "M-7.3", Held: model.OnTMR, Checks: []string{"m-7/committed"}, Mutants: []string{"launch-commits"}},
	{ID: "M-7.4", Checks: []string{"m-7/committed", "s-3/null-context"}, Mutants: []string{"committed-null-nonzero"}},
	{ID: "M-7.5", Checks: []string{"m-7/committed", "l-1/fresh-contexts"}, Mutants: []string{"committed-fresh-nonzero"}},
	{ID: "M-7.6", Checks: []string{"m-7/committed", "e-fin/nothing-to-release"}, Mutants: []string{"committed-after-finalize"}},
	{ID: "D-1.1", Checks: []string{"d-1/no-device-calls", "refusing/validate-then-refuse"}, Mutants: []string{"kinit-calls-aclinit"}},
	{ID: "D-1.2", Checks: []string{"d-1/no-device-calls", "refusing/validate-then-refuse"}, Mutants: []string{"finalize-resets-device", "refusing-kinit-sets-device"}},
	{ID: "D-1.3", Checks: []string{"d-1/no-device-calls", "refusing/validate-then-refuse"}, Mutants: []string{"finalize-syncs-device"}},
	{ID: "D-2.1", Checks: []string{"d-2/borrowed-device"}, Mutants: []string{"device-unchecked", "prepare-device-unchecked", "finalize-device-unchecked"}},
	{ID: "D-2.2", Checks: []string{"d-2/borrowed-device"}, Mutants: []string{"no-device-passes"}},
	{ID: "D-2.3", Checks: []string{"d-2/borrowed-device"}, Mutants: []string{"device-refusal-poisons"}},
	{ID: "D-2.4", Checks: []string{"d-2/init-failed"}, Mutants: []string{"init-failed-finalize-skips-d2"}},
	{ID: "D-3.1", Checks: []string{"e-launch-async/delivered-once"}, Mutants: []string{"launch-syncs-caller-stream"}},
	{ID: "D-3.2", Checks: []string{"e-launch/stream-switch"}, Mutants: []string{"stream-dereferenced"}},
	{ID: "D-4.1", Checks: []string{"d-4/quarantine"}, Mutants: []string{"fatal-resets"}},
	{ID: "D-4.2", Checks: []string{"d-4/quarantine"}, Mutants: []string{"quarantine-once"}},
	{ID: "D-4.3", Checks: []string{"d-4/quarantine"}, Mutants: []string{"quarantine-destroyable"}},
	{ID: "D-4.4", Checks: []string{"d-4/quarantine"}, Mutants: []string{"quarantine-releases-claim"}},
	{ID: "U-1.1", Checks: []string{"u-1/program-thread-exits-after-unload"}, Mutants: []string{"thread-key-leak"}},
	{ID: "U-1.2", Checks: []string{"u-1/program-thread-exits-after-unload"}, Mutants: []string{"late-thread-leak"}},
	{ID: "U-1.3", Checks: []string{"u-1/program-thread-exits-after-unload"}, Undriven: "an atexit handler a shared library registers is bound to the library (glibc's atexit is __cxa_atexit with the library's __dso_handle) and runs when dlclose unloads it, and a Go checker's own exit runs no atexit handler, so none can outlive an unload in a way a call shows"},
	{ID: "X-1.1", Undriven: "only inits latch a mode, and an init racing other calls on the same context is the caller's error (X-3), so no call can show a torn latch"},
	{ID: "X-1.2", Undriven: "the phase changes under the submission gate (X-2 checks it) or in init and finalize, whose races X-3 leaves open"},
	{ID: "X-1.3", Checks: []string{"x-1/claim-race"}, Mutants: []string{"claim-racy"}},
	{ID: "X-1.4", Checks: []string{"x-2/launch-fails-fast"}, Mutants: []string{"mint-racy"}},
	{ID: "X-2.1", Checks: []string{"x-2/launch-fails-fast"}, Mutants: []string{"launch-waits"}},
	{ID: "X-2.2", Checks: []string{"x-2/launch-fails-fast"}, Mutants: []string{"prepare-fails-fast"}},
	{ID: "X-3.1", Undriven: "no result is asserted"},
}

// Clauses returns the clause table in the contract's order.
func Clauses() []ClauseSpec { return append([]ClauseSpec(nil), clauseTable...) }

// ClauseByID finds clause id ("E-DESTROY.3", case-insensitive).
func ClauseByID(id string) (ClauseSpec, bool) {
	for _, c := range clauseTable {
		if strings.EqualFold(c.ID, strings.TrimSpace(id)) {
			return c, true
		}
	}
	return ClauseSpec{}, false
}

// RuleID is the ID of the clause's rule ("E-DESTROY").
func (c ClauseSpec) RuleID() string { return c.ID[:strings.LastIndexByte(c.ID, '.')] }

// N is the clause's number within its rule.
func (c ClauseSpec) N() int {
	n, _ := strconv.Atoi(c.ID[strings.LastIndexByte(c.ID, '.')+1:])
	return n
}

// Rule is the clause's rule.
func (c ClauseSpec) Rule() model.Rule {
	r, _ := model.RuleByName(c.RuleID())
	return r
}

// Profiles are the build profiles held to the clause.
func (c ClauseSpec) Profiles() model.ProfileSet {
	if c.Held != 0 {
		return c.Held
	}
	if r := c.Rule(); r != model.RuleNone {
		return model.RuleProfiles(r)
	}
	return 0
}

// HeldOn reports whether builds of profile p are held to the clause.
func (c ClauseSpec) HeldOn(p model.Profile) bool { return c.Profiles()&model.ProfileBit(p) != 0 }

// HeldOnText names the profiles held to the clause ("tmr, refusing").
func (c ClauseSpec) HeldOnText() string {
	var ps []string
	for _, p := range profileOrder {
		if c.HeldOn(p) {
			ps = append(ps, p.String())
		}
	}
	return strings.Join(ps, ", ")
}

// GapProfilesText names the profiles held to the clause that no check of
// it drives.
func (c ClauseSpec) GapProfilesText() string {
	var ps []string
	for _, p := range profileOrder {
		if c.HeldOn(p) && len(c.ChecksOn(p)) == 0 {
			ps = append(ps, p.String())
		}
	}
	return strings.Join(ps, ", ")
}

// ChecksOn are the clause's checks that run on a build of profile p.
func (c ClauseSpec) ChecksOn(p model.Profile) []string {
	if !c.HeldOn(p) {
		return nil
	}
	var out []string
	for _, name := range c.Checks {
		if ch, ok := checkByName(name); ok && ch.AppliesTo(p) {
			out = append(out, name)
		}
	}
	return out
}

// checkByName finds a directed check of the catalogue.
func checkByName(name string) (*Check, bool) {
	for i := range catalogue {
		if catalogue[i].Name == name {
			return &catalogue[i], true
		}
	}
	return nil, false
}

// claimedMutants maps each directed check to the mutants it is designed to
// kill: every mutant of every clause that names the check.
func claimedMutants() map[string][]string {
	out := map[string][]string{}
	for _, c := range clauseTable {
		for _, ch := range c.Checks {
			for _, m := range c.Mutants {
				if !slices.Contains(out[ch], m) {
					out[ch] = append(out[ch], m)
				}
			}
		}
	}
	return out
}

// ChecksClaiming are the directed checks designed to kill mutant, in the
// order its clause lists them (the first is the one expected to kill it).
func ChecksClaiming(mutant string) []Check {
	c, ok := ClauseOfMutant(mutant)
	if !ok {
		return nil
	}
	all := Catalogue()
	var out []Check
	for _, name := range c.Checks {
		for _, ch := range all {
			if ch.Name == name {
				out = append(out, ch)
			}
		}
	}
	return out
}

// ClauseOfMutant is the clause a mutant breaks.
func ClauseOfMutant(name string) (ClauseSpec, bool) {
	for _, c := range clauseTable {
		if slices.Contains(c.Mutants, name) {
			return c, true
		}
	}
	return ClauseSpec{}, false
}

// profileOrder is the order profiles are named in.
var profileOrder = []model.Profile{model.ProfileTMR, model.ProfileRefusing, model.ProfileLegacy}

// ProfileOrder is the build profiles in the order the clause table names
// them (HeldOnText; the HTML report's clause-coverage matrix).
func ProfileOrder() []model.Profile { return slices.Clone(profileOrder) }

// CoverageLine is the *Checked.* paragraph that closes rule id's section
// in docs/contract.md, generated from the clause table: which clauses a
// directed check drives on which profile, which a held profile cannot
// drive (Gaps) and which no call can (Undriven). "" for a rule without
// clauses.
func CoverageLine(rule string) string {
	var cs []ClauseSpec
	for _, c := range clauseTable {
		if c.RuleID() == rule {
			cs = append(cs, c)
		}
	}
	if len(cs) == 0 {
		return ""
	}
	// Checked: group the profiles with the same set of clause numbers.
	type group struct {
		nums     []int
		profiles []string
	}
	var groups []group
	for _, p := range profileOrder {
		r, ok := model.RuleByName(rule)
		if !ok || !r.Applies(p) {
			continue
		}
		var nums []int
		for _, c := range cs {
			if c.Undriven == "" && len(c.ChecksOn(p)) > 0 {
				nums = append(nums, c.N())
			}
		}
		if len(nums) == 0 {
			continue
		}
		found := false
		for i := range groups {
			if slices.Equal(groups[i].nums, nums) {
				groups[i].profiles = append(groups[i].profiles, p.String())
				found = true
			}
		}
		if !found {
			groups = append(groups, group{nums, []string{p.String()}})
		}
	}
	var b strings.Builder
	b.WriteString("*Checked.*")
	if len(groups) == 0 {
		b.WriteString(" No clause is driven by a check.")
	}
	for i, g := range groups {
		switch {
		case i > 0:
			b.WriteString("; ")
		case len(g.nums) == 1:
			b.WriteString(" Clause ")
		default:
			b.WriteString(" Clauses ")
		}
		b.WriteString(numberList(g.nums) + " on " + andList(g.profiles))
	}
	if len(groups) > 0 {
		b.WriteString(".")
	}
	// Gaps: held, not driven there.
	type gap struct {
		nums     []int
		profiles []string
		why      string
	}
	var gaps []gap
	for _, c := range cs {
		if c.Undriven != "" {
			continue
		}
		var ps []string
		for _, p := range profileOrder {
			if c.HeldOn(p) && len(c.ChecksOn(p)) == 0 {
				ps = append(ps, p.String())
			}
		}
		if len(ps) == 0 {
			continue
		}
		if n := len(gaps); n > 0 && gaps[n-1].why == c.Gaps && slices.Equal(gaps[n-1].profiles, ps) {
			gaps[n-1].nums = append(gaps[n-1].nums, c.N())
			continue
		}
		gaps = append(gaps, gap{[]int{c.N()}, ps, c.Gaps})
	}
	for _, g := range gaps {
		b.WriteString(" Not driven on " + andList(g.profiles) + ": " + numberList(g.nums) + " (" + g.why + ").")
	}
	// Undriven: no call can.
	var un []gap
	for _, c := range cs {
		if c.Undriven == "" {
			continue
		}
		if n := len(un); n > 0 && un[n-1].why == c.Undriven {
			un[n-1].nums = append(un[n-1].nums, c.N())
			continue
		}
		un = append(un, gap{nums: []int{c.N()}, why: c.Undriven})
	}
	for _, g := range un {
		b.WriteString(" No call can drive " + numberList(g.nums) + ": " + g.why + ".")
	}
	return b.String()
}

// numberList renders clause numbers with runs as ranges: "1–4, 6 and 8".
func numberList(ns []int) string {
	var parts []string
	for i := 0; i < len(ns); {
		j := i
		for j+1 < len(ns) && ns[j+1] == ns[j]+1 {
			j++
		}
		switch {
		case j == i:
			parts = append(parts, strconv.Itoa(ns[i]))
		case j == i+1:
			parts = append(parts, strconv.Itoa(ns[i]), strconv.Itoa(ns[j]))
		default:
			parts = append(parts, strconv.Itoa(ns[i])+"–"+strconv.Itoa(ns[j]))
		}
		i = j + 1
	}
	return andList(parts)
}

// andList joins "a", "b" and "c" as "a, b and c".
func andList(xs []string) string {
	switch len(xs) {
	case 0:
		return ""
	case 1:
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}
