package abi_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/simabi/simabi/abi"
)

// abiMDEntries is docs/contract.md's entry table, group by group, typed in by hand.
var abiMDEntries = map[string][]string{
	"lifecycle":     {"create_device_context", "destroy_device_context", "simpler_init", "finalize_device"},
	"sizing":        {"get_runtime_size", "get_runtime_alignment"},
	"device memory": {"device_malloc_ctx", "device_free_ctx", "committed_device_memory_ctx", "device_memory_info_ctx", "copy_to_device_ctx", "copy_from_device_ctx"},
	"program runs": {"simpler_register_callable", "simpler_unregister_callable", "simpler_run", "simpler_prepare_run",
		"simpler_launch_run", "simpler_poll_run", "simpler_wait_run", "simpler_finalize_run", "get_aicpu_dlopen_count",
		"get_host_dlopen_count", "get_run_stream_set_create_count"},
	"kernel mode":  {"simpler_kernel_mode_supported", "simpler_kernel_mode_init", "simpler_kernel_mode_prepare_callable", "simpler_kernel_mode_launch"},
	"pipeline":     {"get_pipeline_contract", "supports_concurrent_native_prepare_ctx", "get_arena_bank_gm_heap_base_ctx", "get_retained_temp_addr_ctx"},
	"ACL / stream": {"ensure_acl_ready_ctx", "create_comm_stream_ctx", "destroy_comm_stream_ctx"},
	"comm": {"comm_init", "comm_alloc_windows", "comm_get_local_window_base", "comm_get_window_size", "comm_barrier", "comm_destroy",
		"comm_derive_context", "comm_alloc_domain_windows", "comm_release_domain_windows", "comm_global_domain_prepare",
		"comm_global_domain_import", "comm_global_domain_release"},
	"host log":         {"simpler_host_log_bind_state"},
	"simulation hooks": {"simabi_set_current_device", "simabi_current_device", "simabi_sync_stream", "simabi_inject"},
	// docs/contract.md's addition to abi.md (F-1): the control hooks.
	"simulation control": {"simabi_hold_gate", "simabi_gate_state", "simabi_reset", "simabi_comm_timeout_ms"},
}

var kernelTrio = []string{"simpler_kernel_mode_init", "simpler_kernel_mode_prepare_callable", "simpler_kernel_mode_launch"}

// symbolsOf are the symbols of revision rev with requirement req.
func symbolsOf(rev abi.Revision, req abi.Requirement) []abi.Symbol {
	var out []abi.Symbol
	for _, s := range abi.Symbols {
		if s.Revisions.Has(rev) && s.Required == req {
			out = append(out, s)
		}
	}
	return out
}

// exportedBy are the symbols a runtime of revision rev exports, hooks
// excluded: what an nm -D of a complete build must show.
func exportedBy(rev abi.Revision) []abi.Symbol {
	var out []abi.Symbol
	for _, s := range abi.Symbols {
		if s.Revisions.Has(rev) && !s.Group.Simulation() {
			out = append(out, s)
		}
	}
	return out
}

func names(ss []abi.Symbol) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Name)
	}
	slices.Sort(out)
	return out
}

// Every entry of docs/contract.md is in the table with its group; nothing else is,
// apart from the legacy simpler_provision_dma_workspace.
func TestSymbolTableMatchesABIDocument(t *testing.T) {
	got := map[string][]string{}
	seen := map[string]bool{}
	for _, s := range abi.Symbols {
		if seen[s.Name] {
			t.Errorf("%s listed twice", s.Name)
		}
		seen[s.Name] = true
		if s.Name == "simpler_provision_dma_workspace" {
			continue
		}
		got[string(s.Group)] = append(got[string(s.Group)], s.Name)
	}
	if d := cmp.Diff(abiMDEntries, got); d != "" {
		t.Errorf("symbol table vs docs/contract.md (-abi.md +go):\n%s", d)
	}
	for group, entries := range abiMDEntries {
		for _, name := range entries {
			s, ok := abi.LookupSymbol(name)
			if !ok || string(s.Group) != group || s.Name != name {
				t.Errorf("LookupSymbol(%q) = %+v, %v", name, s, ok)
			}
			if !strings.Contains(s.Proto, name+"(") {
				t.Errorf("%s: prototype %q does not name it", name, s.Proto)
			}
		}
	}
	if _, ok := abi.LookupSymbol("no_such_entry"); ok {
		t.Error("LookupSymbol found no_such_entry")
	}
	// The prototypes carry the parameter counts docs/contract.md gives.
	for name, params := range map[string]int{"simpler_init": 12, "simpler_kernel_mode_init": 10,
		"simpler_kernel_mode_prepare_callable": 4, "simpler_kernel_mode_launch": 4, "simpler_run": 6} {
		s, _ := abi.LookupSymbol(name)
		if n := strings.Count(s.Proto, ",") + 1; n != params {
			t.Errorf("%s prototype has %d parameters, docs/contract.md %d: %s", name, n, params, s.Proto)
		}
	}
	if n := strings.Count(abi.LegacySimplerInitProto, ",") + 1; n != 9 || !strings.HasSuffix(abi.LegacySimplerInitProto, "*prewarm_config)") {
		t.Errorf("legacy simpler_init has %d parameters, want 9 ending at prewarm_config", n)
	}
	// The legacy revision's prototype differs only for simpler_init.
	for _, s := range abi.Symbols {
		want := s.Proto
		if s.Entry == abi.EntrySimplerInit {
			want = abi.LegacySimplerInitProto
		}
		if got := s.ProtoIn(abi.RevLegacy); got != want || s.ProtoIn(abi.RevKernel) != s.Proto {
			t.Errorf("%s: ProtoIn(legacy) = %q, want %q", s.Name, got, want)
		}
	}
}

// C-BIND-1: required = every entry except the kernel trio and the hooks;
// supported is required; the trio is required when supported; hooks optional.
func TestSymbolRequirements(t *testing.T) {
	for _, s := range abi.Symbols {
		want := abi.Required
		switch {
		case slices.Contains(kernelTrio, s.Name):
			want = abi.RequiredWhenSupported
		case s.Group.Simulation():
			want = abi.Optional
		}
		if s.Required != want {
			t.Errorf("%s: %v, want %v", s.Name, s.Required, want)
		}
	}
	got := names(symbolsOf(abi.RevKernel, abi.RequiredWhenSupported))
	want := slices.Clone(kernelTrio)
	slices.Sort(want)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("SymbolsOf(kernel, RequiredWhenSupported):\n%s", d)
	}
	if got := names(symbolsOf(abi.RevKernel, abi.Optional)); len(got) != 8 {
		t.Errorf("optional symbols %v, want the 4 hooks and the 4 control hooks", got)
	}
	if s, _ := abi.LookupSymbol("simpler_kernel_mode_supported"); s.Required != abi.Required {
		t.Error("simpler_kernel_mode_supported is not required")
	}
	for _, q := range []abi.Requirement{abi.Required, abi.RequiredWhenSupported, abi.Optional} {
		if q.String() == "" {
			t.Errorf("Requirement %d has no name", q)
		}
	}
}

// The legacy revision lacks the kernel entries and device_memory_info_ctx and
// has simpler_provision_dma_workspace; the target revision is the reverse.
func TestSymbolRevisions(t *testing.T) {
	legacy := names(exportedBy(abi.RevLegacy))
	kernel := names(exportedBy(abi.RevKernel))
	for _, n := range append(slices.Clone(abiMDEntries["kernel mode"]), "device_memory_info_ctx") {
		if slices.Contains(legacy, n) {
			t.Errorf("legacy exports %s", n)
		}
		if !slices.Contains(kernel, n) {
			t.Errorf("target revision lacks %s", n)
		}
	}
	if !slices.Contains(legacy, "simpler_provision_dma_workspace") || slices.Contains(kernel, "simpler_provision_dma_workspace") {
		t.Error("simpler_provision_dma_workspace must be legacy-only")
	}
	// ExportedBy leaves out the hooks; everything else of docs/contract.md is exported.
	var all []string
	for g, entries := range abiMDEntries {
		if g != "simulation hooks" && g != "simulation control" {
			all = append(all, entries...)
		}
	}
	slices.Sort(all)
	if d := cmp.Diff(all, kernel); d != "" {
		t.Errorf("ExportedBy(RevKernel) (-abi.md +go):\n%s", d)
	}
	if len(legacy) != len(all)-5+1 {
		t.Errorf("legacy exports %d symbols, want %d", len(legacy), len(all)-5+1)
	}
	if !abi.RevKernel.Has(abi.RevKernel) || abi.RevKernel.Has(abi.RevLegacy) || !(abi.RevKernel | abi.RevLegacy).Has(abi.RevLegacy) {
		t.Error("Revision.Has")
	}
	// Program-mode entries exist in both revisions.
	for _, n := range []string{"simpler_init", "simpler_run", "finalize_device", "simpler_host_log_bind_state"} {
		if !slices.Contains(legacy, n) {
			t.Errorf("legacy lacks %s", n)
		}
	}
}

// docs/contract.md: simabi_inject returns IA for a site outside 1..10, count < 0, or
// count > 0 with code 0 (sites 6 and 7 excepted).
func TestCheckInjectArgs(t *testing.T) {
	cases := []struct {
		site, count, code int32
		want              abi.Status
	}{
		{0, 1, -1000, abi.InvalidArgument},
		{11, 1, -1000, abi.InvalidArgument},
		{10, 1, -1000, abi.OK},
		{10, 1, 0, abi.InvalidArgument},
		{-1, 0, 0, abi.InvalidArgument},
		{1, -1, -1000, abi.InvalidArgument},
		{1, 1, 0, abi.InvalidArgument},
		{8, 3, 0, abi.InvalidArgument},
		{9, 1, 0, abi.InvalidArgument},
		{6, 1, 0, abi.OK},
		{7, 5, 0, abi.OK},
		{6, -1, 0, abi.InvalidArgument},
		{1, 0, 0, abi.OK},
		{9, 0, 0, abi.OK},
		{1, 1, -1000, abi.OK},
		{5, 2, -1004, abi.OK},
		{3, 1, 7, abi.OK},
	}
	for _, c := range cases {
		if got := abi.CheckInjectArgs(c.site, c.count, c.code); got != c.want {
			t.Errorf("CheckInjectArgs(%d, %d, %d) = %v, want %v", c.site, c.count, c.code, got, c.want)
		}
	}
	for site := int32(1); site <= 10; site++ {
		if abi.SiteNames[site] == "" {
			t.Errorf("site %d has no name", site)
		}
	}
	if abi.FirstSite != 1 || abi.LastSite != 10 || abi.SiteProgramTeardown != 10 || abi.SiteInitCreate != 1 || abi.SitePrepareCopy != 2 ||
		abi.SitePrepareRegister != 3 || abi.SiteLaunchEnqueue != 4 || abi.SiteFinalizeRelease != 5 ||
		abi.SiteFinalizeFatal != 6 || abi.SitePrepareHoldGate != 7 || abi.SiteAsyncDeviceFail != 8 ||
		abi.SiteInitRollbackFails != 9 {
		t.Error("fault site numbers differ from docs/contract.md")
	}
}

// Row e of the table is entry e, and an entry's name is its row's.
func TestEntryIndexesItsRow(t *testing.T) {
	if len(abi.Symbols) != int(abi.NumEntries) {
		t.Fatalf("%d rows, %d entries", len(abi.Symbols), abi.NumEntries)
	}
	for i, s := range abi.Symbols {
		e := abi.Entry(i)
		if s.Entry != e || e.Name() != s.Name || e.String() != s.Name || s.Name == "" {
			t.Errorf("row %d: %+v; Entry(%d) names %q", i, s, i, e.Name())
		}
	}
	if got, want := abi.NumEntries.Name(), "entry(56)"; got != want {
		t.Errorf("NumEntries.Name() = %q, want %q", got, want)
	}
}
