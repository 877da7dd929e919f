package abi_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/simabi/simabi/abi"
)

// chipWorker6ebaf77 is what upstream's ChipWorker at 6ebaf77 resolves at
// init, typed in by hand from src/common/worker/chip_worker.cpp:205-256 (its
// load_symbol calls, in their order) and host_log_binding.h: measured
// 2026-12-03, 43 symbols.
var chipWorker6ebaf77 = []string{
	"create_device_context", "destroy_device_context", "device_malloc_ctx", "device_free_ctx",
	"committed_device_memory_ctx", "copy_to_device_ctx", "copy_from_device_ctx", "get_runtime_size",
	"get_runtime_alignment", "simpler_init", "simpler_register_callable", "simpler_run", "simpler_prepare_run",
	"simpler_launch_run", "simpler_poll_run", "simpler_wait_run", "simpler_finalize_run",
	"supports_concurrent_native_prepare_ctx", "get_arena_bank_gm_heap_base_ctx", "get_retained_temp_addr_ctx",
	"get_pipeline_contract", "simpler_unregister_callable", "get_aicpu_dlopen_count", "get_host_dlopen_count",
	"get_run_stream_set_create_count", "simpler_provision_dma_workspace", "finalize_device", "ensure_acl_ready_ctx",
	"create_comm_stream_ctx", "destroy_comm_stream_ctx", "comm_init", "comm_alloc_windows",
	"comm_get_local_window_base", "comm_get_window_size", "comm_derive_context", "comm_alloc_domain_windows",
	"comm_release_domain_windows", "comm_global_domain_prepare", "comm_global_domain_import",
	"comm_global_domain_release", "comm_barrier", "comm_destroy", "simpler_host_log_bind_state",
}

func requirementNames(rs []abi.ConsumerRequirement) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Name)
	}
	slices.Sort(out)
	return out
}

// C-BIND-1: the legacy consumer's set is exactly upstream ChipWorker's 43,
// each with the upstream change that made ChipWorker resolve it.
func TestConsumerSet_CBIND1_legacyIsChipWorkers43(t *testing.T) {
	got := abi.ConsumerSet(abi.ChipWorker)
	want := slices.Clone(chipWorker6ebaf77)
	slices.Sort(want)
	if d := cmp.Diff(want, requirementNames(got)); d != "" {
		t.Errorf("ConsumerSet(legacy) vs ChipWorker at 6ebaf77 (-chipworker +abi):\n%s", d)
	}
	if len(got) != 43 {
		t.Errorf("ConsumerSet(legacy) has %d symbols, want 43", len(got))
	}
	for _, r := range got {
		if r.Consumer != abi.ChipWorker || !strings.HasPrefix(r.Since, "ChipWorker since ") || r.WhenSupported {
			t.Errorf("%s: %+v", r.Name, r)
		}
	}
	// The six domain entries ChipWorker added from May to August 2026.
	for name, since := range map[string]string{
		"comm_derive_context":        "5fd3f10 (#752, 2026-05-19)",
		"comm_alloc_domain_windows":  "7b97dfd (#817, 2026-05-20)",
		"comm_global_domain_release": "60ab6ab (#1456, 2026-08-08)",
	} {
		i := slices.IndexFunc(got, func(r abi.ConsumerRequirement) bool { return r.Name == name })
		if i < 0 || !strings.Contains(got[i].Since, since) {
			t.Errorf("%s: since %q, want %q", name, got[i].Since, since)
		}
	}
}

// C-BIND-1: the target revision's consumer requires every entry of the
// entry table but the hooks and the legacy provision entry; the kernel trio
// only when supported.
func TestConsumerSet_CBIND1_kernelIsTheEntryTable(t *testing.T) {
	var want []string
	for group, entries := range abiMDEntries {
		if group == "simulation hooks" || group == "simulation control" {
			continue
		}
		want = append(want, entries...)
	}
	slices.Sort(want)
	got := abi.ConsumerSet(abi.KernelConsumer)
	if d := cmp.Diff(want, requirementNames(got)); d != "" {
		t.Errorf("ConsumerSet(kernel) vs the entry table (-table +abi):\n%s", d)
	}
	for _, r := range got {
		if r.WhenSupported != slices.Contains(kernelTrio, r.Name) {
			t.Errorf("%s: WhenSupported %v", r.Name, r.WhenSupported)
		}
	}
}

// The export check names every missing symbol, its group and what requires
// it; the trio counts only for a build that reports support.
func TestMissingExports_CBIND1_namesEachWithGroupAndRevision(t *testing.T) {
	lacks := map[string]bool{"comm_derive_context": true, "comm_global_domain_import": true, "simpler_kernel_mode_launch": true}
	exports := func(name string) bool { return !lacks[name] }
	got := abi.MissingExports(abi.ChipWorker, exports, false)
	var lines []string
	for _, m := range got {
		lines = append(lines, m.String())
	}
	want := []string{
		"comm_derive_context (comm; required by the legacy consumer, upstream ChipWorker at 6ebaf77 (src/common/worker/chip_worker.cpp): ChipWorker since 5fd3f10 (#752, 2026-05-19))",
		"comm_global_domain_import (comm; required by the legacy consumer, upstream ChipWorker at 6ebaf77 (src/common/worker/chip_worker.cpp): ChipWorker since 60ab6ab (#1456, 2026-08-08))",
	}
	if d := cmp.Diff(want, lines); d != "" {
		t.Errorf("MissingExports(legacy):\n%s", d)
	}
	if got, want := abi.FormatMissing(got), "comm_derive_context (comm, ChipWorker since 5fd3f10 (#752, 2026-05-19)), comm_global_domain_import (comm, ChipWorker since 60ab6ab (#1456, 2026-08-08)); required by the legacy consumer, upstream ChipWorker at 6ebaf77 (src/common/worker/chip_worker.cpp)"; got != want {
		t.Errorf("FormatMissing(legacy) = %q, want %q", got, want)
	}
	if got, want := abi.FormatMissing(abi.MissingExports(abi.KernelConsumer, exports, true)), "simpler_kernel_mode_launch (kernel mode), comm_derive_context (comm), comm_global_domain_import (comm); required by the kernel revision's consumer (C-BIND-1)"; got != want {
		t.Errorf("FormatMissing(kernel) = %q, want %q", got, want)
	}
	if got := requirementNames(abi.MissingExports(abi.KernelConsumer, exports, false)); !slices.Equal(got, []string{"comm_derive_context", "comm_global_domain_import"}) {
		t.Errorf("MissingExports(kernel, unsupported) = %v", got)
	}
	if got := requirementNames(abi.MissingExports(abi.KernelConsumer, exports, true)); !slices.Equal(got, []string{"comm_derive_context", "comm_global_domain_import", "simpler_kernel_mode_launch"}) {
		t.Errorf("MissingExports(kernel, supported) = %v", got)
	}
	all := func(string) bool { return true }
	if got := abi.MissingExports(abi.ChipWorker, all, true); len(got) != 0 {
		t.Errorf("a complete library misses %v", got)
	}
}

func TestExportRevision_CBIND1(t *testing.T) {
	for _, tc := range []struct {
		has  []string
		want abi.Revision
	}{
		{[]string{"simpler_provision_dma_workspace"}, abi.RevLegacy},
		{[]string{"simpler_provision_dma_workspace", "simpler_kernel_mode_supported"}, abi.RevKernel},
		{[]string{"simpler_kernel_mode_supported"}, abi.RevKernel},
		{nil, abi.RevKernel},
	} {
		if got := abi.ExportRevision(func(n string) bool { return slices.Contains(tc.has, n) }); got != tc.want {
			t.Errorf("ExportRevision(%v) = %v, want %v", tc.has, got, tc.want)
		}
	}
}

// C-BIND-1: each revision has one consumer, which loads that revision.
func TestConsumerOf_CBIND1_oneConsumerPerRevision(t *testing.T) {
	for _, tc := range []struct {
		rev  abi.Revision
		want abi.Consumer
		name string
	}{
		{abi.RevKernel, abi.KernelConsumer, "the kernel revision's consumer (C-BIND-1)"},
		{abi.RevLegacy, abi.ChipWorker, "the legacy consumer, upstream ChipWorker at 6ebaf77 (src/common/worker/chip_worker.cpp)"},
	} {
		c := abi.ConsumerOf(tc.rev)
		if c != tc.want || c.Revision() != tc.rev || c.String() != tc.name {
			t.Errorf("ConsumerOf(%s) = %d (revision %s, %q), want %d (%q)", tc.rev, c, c.Revision(), c, tc.want, tc.name)
		}
	}
}
