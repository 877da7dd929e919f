// Package emit writes the C11 source of a simabi fake host runtime and its fake
// ACL library, and builds them into shared libraries with the system C
// compiler (rules F-1..F-4 of docs/contract.md).
//
// The runtime follows docs/semantics.md call for call, like the Go reference
// runtime in package sim. Every number and table in the C (status codes,
// sizes, struct layouts, fault sites, the kernel phase table) is generated from
// packages abi and latch. A build yields two libraries in one directory:
// libhost_runtime.so, which needs libascendcl.so (DT_NEEDED, rpath $ORIGIN).
// The fake ACL is one per process: its first copy loaded owns the state and
// every later copy forwards to it (acl.c.tmpl), so every runtime and every
// caller in a process share one ACL, whichever files they loaded.
package emit

import (
	"bytes"
	"embed"
	"fmt"
	"slices"
	"strings"
	"sync"
	"text/template"
	"unicode"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/latch"
	"github.com/simabi/simabi/sim/semantics"
	"github.com/simabi/simabi/validation"
)

// Profile is a build profile (abi.Profile).
type Profile = abi.Profile

// Profiles.
const (
	ProfileTMR      = abi.ProfileTMR      // supported = 1: the full kernel lifecycle
	ProfileRefusing = abi.ProfileRefusing // supported = 0: kernel entries validate, then refuse
	ProfileLegacy   = abi.ProfileLegacy   // the pre-kernel revision: program mode only (semantics §12)
)

// Profiles lists every profile.
var Profiles = []Profile{ProfileTMR, ProfileRefusing, ProfileLegacy}

// Config selects what to emit.
type Config struct {
	Profile Profile
	// Omit lists exported symbols to remove: they are compiled but not
	// exported, so dlsym fails for them (F-2).
	Omit   []string
	Knobs  Knobs
	Mutant string // a name from Mutants(), or "" (F-4)
}

// Sources are the two C translation units of one fake, and a header for
// C and C++ callers.
type Sources struct {
	Runtime string // libhost_runtime.so
	ACL     string // libascendcl.so
	Header  string // simabi_fake.h: layouts, entry and ACL prototypes
}

// Simulated-runtime constants of docs/semantics.md, from sim/semantics as
// the Go runtime takes them, so that the two cannot drift.
const (
	PersistentLaunchRegionBytes uint64 = semantics.PersistentLaunchRegionBytes // §7
	DeviceMemoryTotal           uint64 = semantics.DeviceMemoryTotal           // §10: simulated HBM
	// MaxDerivedImage bounds the size simpler_register_callable derives from
	// an image header.
	MaxDerivedImage uint64 = semantics.MaxDerivedImage
	// SwimlaneMaxLevel is V-CFG's enable_chip_swimlane bound.
	SwimlaneMaxLevel = validation.SwimlaneMaxLevel
)

// Simulated kernels, chosen at prepare by func_name (semantics §7).
const (
	KernelAddScalarF32 = semantics.KernelAddScalarF32
	KernelCopyBytes    = semantics.KernelCopyBytes
)

// ACL status codes of the fake ACL library (abi's).
const (
	ACLSuccess      = abi.ACLSuccess
	ACLInvalidParam = abi.ACLErrorInvalidParam // ACL_ERROR_INVALID_PARAM
	ACLBadAlloc     = abi.ACLErrorBadAlloc     // ACL_ERROR_BAD_ALLOC: the device memory is exhausted
)

// ACLCounters names the counters simabi_acl_counters writes, in order.
var ACLCounters = abi.ACLCounterNames[:]

//go:embed templates/runtime.c.tmpl templates/acl.c.tmpl
var templateFS embed.FS

// ExportedSymbols returns the symbols a complete build of profile p exports
// (hooks and simpler_host_log_bind_state included), in abi.Symbols order.
func ExportedSymbols(p Profile) []abi.Symbol {
	var out []abi.Symbol
	for _, s := range abi.Symbols {
		if s.Revisions.Has(p.Revision()) {
			out = append(out, s)
		}
	}
	return out
}

func (cfg Config) normalized() (Config, map[string]abi.Symbol, error) {
	if cfg.Profile == "" {
		cfg.Profile = ProfileTMR
	}
	if !slices.Contains(Profiles, cfg.Profile) {
		return cfg, nil, fmt.Errorf("emit: unknown profile %q (tmr, refusing, legacy)", cfg.Profile)
	}
	exported := map[string]abi.Symbol{}
	for _, s := range ExportedSymbols(cfg.Profile) {
		exported[s.Name] = s
	}
	for _, o := range cfg.Omit {
		if _, ok := exported[o]; !ok {
			return cfg, nil, fmt.Errorf("emit: -omit %s: not a symbol of the %s profile", o, cfg.Profile)
		}
	}
	if cfg.Mutant != "" {
		if _, ok := LookupMutant(cfg.Mutant); !ok {
			return cfg, nil, fmt.Errorf("emit: unknown mutant %q (see -list-mutants)", cfg.Mutant)
		}
		m, _ := LookupMutant(cfg.Mutant)
		switch {
		case m.Profile == ProfileLegacy && cfg.Profile != ProfileLegacy:
			return cfg, nil, fmt.Errorf("emit: mutant %s breaks %s, which only a legacy build shows: emit it with -profile legacy", m.Name, m.Clause)
		case m.Profile != ProfileLegacy && cfg.Profile == ProfileLegacy:
			return cfg, nil, fmt.Errorf("emit: mutant %s applies to the tmr and refusing profiles, not legacy", m.Name)
		case m.Profile == ProfileRefusing && cfg.Profile != ProfileRefusing:
			return cfg, nil, fmt.Errorf("emit: mutant %s breaks %s, which only a refusing build shows: emit it with -profile refusing", m.Name, m.Clause)
		}
	}
	if err := cfg.Knobs.validate(cfg.Profile, exported); err != nil {
		return cfg, nil, err
	}
	return cfg, exported, nil
}

// Source emits the C source of the fake runtime and of its ACL library.
func Source(cfg Config) (Sources, error) {
	cfg, exported, err := cfg.normalized()
	if err != nil {
		return Sources{}, err
	}
	out, err := render(cfg, exported, knobValues{cfg})
	if err != nil {
		return Sources{}, err
	}
	// Every exported symbol must have been defined exactly once.
	defined := map[string]int{}
	for _, name := range definedNames(out.Runtime) {
		defined[name]++
	}
	for name := range exported {
		if defined[name] != 1 {
			return Sources{}, fmt.Errorf("emit: internal error: %s is defined %d times in the emitted runtime", name, defined[name])
		}
	}
	return out, nil
}

// render executes both templates for cfg, with the knobs written by kt, and
// renders the header.
func render(cfg Config, exported map[string]abi.Symbol, kt knobText) (Sources, error) {
	funcs := template.FuncMap{
		"mut": func(name string) (bool, error) {
			if _, ok := LookupMutant(name); !ok {
				return false, fmt.Errorf("template names unknown mutant %q", name)
			}
			return cfg.Mutant == name, nil
		},
		"export": func(sym string) (string, error) {
			if _, ok := exported[sym]; !ok {
				return "", fmt.Errorf("template exports %s, which the %s profile does not list", sym, cfg.Profile)
			}
			return kt.export(sym), nil
		},
		"prologue":     kt.prologue,
		"fixed":        kt.fixed,
		"fixedPrepare": kt.fixedPrepare,
		"pipeline":     kt.pipeline,
	}
	parsed, err := parsedTemplates()
	if err != nil {
		return Sources{}, err
	}
	data := newTemplateData(cfg, kt)
	var out Sources
	for _, t := range []struct {
		tmpl *template.Template
		dst  *string
	}{{parsed.runtime, &out.Runtime}, {parsed.acl, &out.ACL}} {
		tmpl, err := t.tmpl.Clone()
		if err != nil {
			return Sources{}, err
		}
		var b bytes.Buffer
		if err := tmpl.Funcs(funcs).Execute(&b, data); err != nil {
			return Sources{}, fmt.Errorf("emit: %s: %w", tmpl.Name(), err)
		}
		*t.dst = b.String()
	}
	out.Header = header(cfg.Profile)
	return out, nil
}

// header renders simabi_fake.h for profile p: the layouts of abi, the
// prototype of every entry the profile exports and the fake ACL's API.
func header(p Profile) string {
	var b strings.Builder
	fmt.Fprintf(&b, "/* simabi_fake.h — declarations for callers of a simabi fake runtime (profile %s).\n", p)
	b.WriteString(" * Generated by github.com/simabi/simabi/sim/emit; do not edit. */\n")
	b.WriteString("#ifndef SIMABI_FAKE_H\n#define SIMABI_FAKE_H\n\n")
	b.WriteString("#include <stddef.h>\n#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n")
	b.WriteString("typedef void *DeviceContextHandle;\ntypedef void *RuntimeHandle;\ntypedef void *CommHandle;\n\n")
	b.WriteString("#ifdef __cplusplus /* the C11 spellings of the layout declarations */\n")
	b.WriteString("#define _Static_assert static_assert\n#define _Alignas(n) alignas(n)\n#define _Alignof(t) alignof(t)\n#endif\n\n")
	b.WriteString(abi.CDeclarations(""))
	b.WriteString("/* libhost_runtime.so */\n")
	for _, s := range ExportedSymbols(p) {
		b.WriteString(s.ProtoIn(p.Revision()) + ";\n")
	}
	b.WriteString("\n/* libascendcl.so (fake ACL) */\n")
	for _, f := range aclFuncs {
		if !f.Public {
			continue
		}
		b.WriteString(f.Prototype() + ";")
		if f.Comment != "" {
			b.WriteString(" /* " + f.Comment + " */")
		}
		b.WriteString("\n")
	}
	b.WriteString("\n#ifdef __cplusplus\n}\n#endif\n\n#endif /* SIMABI_FAKE_H */\n")
	return b.String()
}

// definedNames is the name of every exported (or omitted) definition of
// src: a line SIMABI_EXPORT or SIMABI_OMITTED, then a line whose first '('
// follows the name. A scan, not a regular expression: this runs on every
// Build, and the expression took a third of emitting a source.
func definedNames(src string) []string {
	var names []string
	for start := 0; start < len(src); {
		end := strings.IndexByte(src[start:], '\n')
		if end < 0 {
			break
		}
		line := src[start : start+end]
		start += end + 1
		if line != "SIMABI_EXPORT" && line != "SIMABI_OMITTED" {
			continue
		}
		next := src[start:]
		if nl := strings.IndexByte(next, '\n'); nl >= 0 {
			next = next[:nl]
		}
		paren := strings.IndexByte(next, '(')
		if paren < 0 {
			continue
		}
		i := paren
		for i > 0 && isIdentChar(next[i-1]) {
			i--
		}
		if i < paren {
			names = append(names, next[i:paren])
		}
	}
	return names
}

type templates struct{ runtime, acl *template.Template }

// parsedTemplates parses both templates once. Execution binds the
// per-config functions on a clone.
var parsedTemplates = sync.OnceValues(func() (templates, error) {
	stub := template.FuncMap{
		"mut":          func(string) (bool, error) { return false, nil },
		"export":       func(string) (string, error) { return "", nil },
		"prologue":     func(string) string { return "" },
		"fixed":        func(string) string { return "" },
		"fixedPrepare": func() string { return "" },
		"pipeline":     func(string) (string, error) { return "", nil },
	}
	var t templates
	for _, f := range []struct {
		file string
		dst  **template.Template
	}{{"templates/runtime.c.tmpl", &t.runtime}, {"templates/acl.c.tmpl", &t.acl}} {
		text, err := templateFS.ReadFile(f.file)
		if err != nil {
			return t, err
		}
		tmpl, err := template.New(f.file).Funcs(stub).Option("missingkey=error").Parse(string(text))
		if err != nil {
			return t, fmt.Errorf("emit: %s: %w", f.file, err)
		}
		*f.dst = tmpl
	}
	return t, nil
})

// ---- template data ----

type cNamed struct {
	Name  string
	Value string
}

type cConst struct {
	Name, Value, Comment string
}

type siteData struct {
	Enum, Name string
	Num        int32
}

type cellData struct{ Event, To, Result, Effect string }

type rowData struct {
	Phase string
	Cells []cellData
}

type counterData struct{ Enum, Name string }

type templateData struct {
	Banner                       []string
	Profile                      Profile
	Tmr, Refusing, Legacy        bool
	Supported                    int
	PrepareWritesID, FatalDevice int
	Strict                       int
	StrictBool                   bool
	MutantName                   string
	Decls                        string
	Codes                        []cNamed
	KernelFault                  int32
	Consts                       []cConst
	Sites                        []siteData
	FirstSite, LastSite          int32
	FaultCounts, FaultCodes      string
	Phases, Events               []string
	Results, Effects             []string
	Table                        []rowData
	ContractABIVersion           uint32
	ACLInvalidParam              int
	ACLRepeatInit                int
	ACLBadAlloc                  int
	ACLResetDeviceSlot           int
	DeviceMemoryTotal            uint64
	ACLCounters                  []counterData
	ACLFuncs                     []aclFunc
	ACLTableLayout               uint32
	MutantDeviceBandCode         int32 // S-1 mutant
	MutantUndocumentedCode       int32 // S-2 mutant
	LogLevels                    []int32
	GateParked, GateWaiter       int32 // simabi_gate_state's parts
	CommTimeoutMs                string
	PollPending                  string
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// cIdent turns "ReadyEnqueued", "record runtime error" or "init-create" into
// READY_ENQUEUED, RECORD_RUNTIME_ERROR, INIT_CREATE.
func cIdent(s string) string {
	var b strings.Builder
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case r == ' ' || r == '-' || r == '.':
			b.WriteByte('_')
		case unicode.IsUpper(r) && i > 0 && unicode.IsLower(rs[i-1]):
			b.WriteByte('_')
			b.WriteRune(r)
		default:
			b.WriteRune(unicode.ToUpper(r))
		}
	}
	return b.String()
}

func newTemplateData(cfg Config, kt knobText) templateData {
	d := templateData{
		Profile:            cfg.Profile,
		Tmr:                cfg.Profile == ProfileTMR,
		Refusing:           cfg.Profile == ProfileRefusing,
		Legacy:             cfg.Profile == ProfileLegacy,
		Supported:          b2i(cfg.Profile == ProfileTMR),
		PrepareWritesID:    b2i(!cfg.Knobs.PrepareNoID),
		FatalDevice:        b2i(cfg.Knobs.FatalDevice),
		Strict:             b2i(cfg.Knobs.Strict),
		StrictBool:         cfg.Knobs.Strict,
		MutantName:         cfg.Mutant,
		Decls:              abi.CDeclarations(""),
		KernelFault:        -5, // device-latched INVALID_ARGS, negated
		FirstSite:          abi.FirstSite,
		LastSite:           abi.LastSite,
		ContractABIVersion: abi.PipelineContractABIVersion,
		ACLInvalidParam:    ACLInvalidParam,
		ACLRepeatInit:      abi.ACLErrorRepeatInitialize,
		ACLBadAlloc:        ACLBadAlloc,
		DeviceMemoryTotal:  DeviceMemoryTotal,
		ACLResetDeviceSlot: slices.Index(ACLCounters, "aclrtResetDevice"),
		ACLFuncs:           aclFuncs,
		ACLTableLayout:     aclTableLayout,

		GateParked:             abi.GateParked,
		GateWaiter:             abi.GateWaiter,
		MutantDeviceBandCode:   int32(MutantDeviceBandCode),
		MutantUndocumentedCode: int32(MutantUndocumentedCode),
	}
	if abi.DeviceLatchedNames[-d.KernelFault] != "INVALID_ARGS" {
		panic("emit: abi no longer names device code 5 INVALID_ARGS")
	}
	for _, l := range abi.LogLevels() {
		d.LogLevels = append(d.LogLevels, int32(l))
	}
	d.Banner = append(d.Banner, "Profile: "+string(cfg.Profile))
	d.Banner = append(d.Banner, kt.banner()...)
	if m, ok := LookupMutant(cfg.Mutant); ok {
		d.Banner = append(d.Banner, fmt.Sprintf("MUTANT %s breaks clause %s: %s.", m.Name, m.Clause, m.Description))
	}
	for _, s := range abi.HostStatuses {
		d.Codes = append(d.Codes, cNamed{"PTO_RUNTIME_ERR_" + s.Name(), fmt.Sprint(int32(s))})
	}
	d.Consts = runtimeConsts(kt)
	for site := abi.FirstSite; site <= abi.LastSite; site++ {
		d.Sites = append(d.Sites, siteData{cIdent(abi.SiteNames[site]), abi.SiteNames[site], site})
	}
	d.FaultCounts, d.FaultCodes = kt.faultArrays()
	d.CommTimeoutMs = kt.commTimeout()
	d.PollPending = kt.pollPending()

	d.addLatch()
	for _, n := range ACLCounters {
		d.ACLCounters = append(d.ACLCounters, counterData{cIdent(strings.TrimPrefix(strings.TrimPrefix(n, "aclrt"), "acl")), n})
	}
	return d
}

// runtimeConsts are the runtime's #defines of the contract's numbers.
func runtimeConsts(kt knobText) []cConst {
	var out []cConst
	c := func(name string, v any, comment string) {
		out = append(out, cConst{name, fmt.Sprint(v), comment})
	}
	u := func(name string, v uint64, comment string) {
		out = append(out, cConst{name, fmt.Sprintf("%dull", v), comment})
	}
	c("MAX_REGISTERED_CALLABLE_IDS", abi.MaxRegisteredCallableIDs, "kernel ids are in [0, 8192)")
	c("LEGACY_REGISTERED_CALLABLE_IDS", abi.LegacyRegisteredCallableIDs, "a legacy build registers program ids in [0, 64)")
	c("KERNEL_MAX_FUNC_ID", abi.KernelMaxFuncID, "")
	c("MAX_CHILDREN", abi.MaxChildren, "")
	c("CHIP_MAX_TENSOR_ARGS", abi.ChipMaxTensorArgs, "")
	c("CHIP_MAX_SCALAR_ARGS", abi.ChipMaxScalarArgs, "")
	c("CORE_MAX_TENSOR_ARGS", abi.CoreMaxTensorArgs, "")
	c("CALLABLE_ALIGN", abi.CallableAlign, "child offsets inside an image")
	c("CALLABLE_CHILD_ALIGN", abi.CallableChildAlign, "alignment of an image's base address")
	c("CALLABLE_FUNC_NAME_MAX", abi.CallableFuncNameMax, "")
	c("MAX_TENSOR_DIMS", abi.MaxTensorDims, "")
	c("RUNTIME_ENV_RING_COUNT", abi.RuntimeEnvRingCount, "")
	c("OUTPUT_PREFIX_BYTES", abi.OutputPrefixBytes, "")
	c("CORE_CODE_OFFSET", abi.CoreCodeOffset, "where a child's code starts")
	c("CHIP_CALLABLE_SIZE", abi.ChipCallableSize, "sizeof(ChipCallable): the V-PREP-2 floor")
	c("CALL_CONFIG_SIZE", abi.CallConfigSize, "")
	c("PLATFORM_MAX_AICPU_THREADS", abi.PlatformMaxAicpuThreadsA2A3, "a2a3")
	c("SWIMLANE_MAX_LEVEL", SwimlaneMaxLevel, "")
	c("RING_MIN", validation.RingMin, "")
	c("RING_MAX", validation.RingMax, "")
	c("RING_MAX_POW2", largestPow2(validation.RingMax), "the largest power of two <= RING_MAX")
	c("RING_MIN_HEAP", validation.RingMinHeap, "")
	u("KERNEL_CODE_BUDGET", abi.KernelCodeBudget, "2 GiB [M-5]")
	u("KERNEL_CODE_BLOCK_BYTES", abi.KernelCodeBlockBytes, "2 MiB")
	u("KERNEL_CHARGE_ALIGN", abi.KernelChargeAlign, "")
	u("PERSISTENT_LAUNCH_REGION_BYTES", PersistentLaunchRegionBytes, "§7")
	u("DEVICE_MEMORY_TOTAL", DeviceMemoryTotal, "32 GiB of simulated HBM")
	u("MAX_DERIVED_IMAGE", MaxDerivedImage, "bound of an image size derived from a registered header")
	size, _ := kt.pipeline("runtime-size") // a field of pipelineFields: no error
	align, _ := kt.pipeline("runtime-alignment")
	c("RUNTIME_STORAGE_SIZE", size, abi.EntryGetRuntimeSize.Name()+": the pipeline's run storage")
	c("RUNTIME_STORAGE_ALIGN", align, abi.EntryGetRuntimeAlignment.Name())
	c("HOST_LOG_STATE_ABI_VERSION", abi.HostLogStateABIVersion, "")
	c("HOST_LOG_STATE_SIZE", abi.HostLogStateSize, "")
	c("HOST_BIND_REFUSED", int32(abi.HostBindRefused), abi.EntryHostLogBindState.Name()+"'s refusal (docs/contract.md)")
	c("DIR_SCALAR", int32(abi.DirScalar), "")
	c("DIR_IN", int32(abi.DirIn), "")
	c("DIR_OUT", int32(abi.DirOut), "")
	c("DIR_INOUT", int32(abi.DirInOut), "")
	c("DTYPE_FLOAT32", uint8(abi.Float32), "")
	c("ADDRESS_SPACE_DEVICE", uint8(abi.DeviceSpace), "")
	c("POLL_NOT_READY", int32(abi.PollNotReady), "")
	c("POLL_COMPLETE", int32(abi.PollComplete), "")
	c("LEGACY_ERR_GENERIC", fmt.Sprintf("(%d)", abi.LegacyGeneric), "")
	c("LEGACY_ERR_UNSUPPORTED", fmt.Sprintf("(%d)", abi.LegacyUnsupported), "")
	c("LEGACY_ERR_PREPARED_INCOMPATIBLE", fmt.Sprintf("(%d)", abi.LegacyPreparedIncompatible), "")
	c("LEGACY_POLL_ERROR", fmt.Sprintf("(%d)", abi.LegacyPollError), "")
	c("KERNEL_NAME_ADD_SCALAR_F32", fmt.Sprintf("%q", KernelAddScalarF32), "")
	c("KERNEL_NAME_COPY_BYTES", fmt.Sprintf("%q", KernelCopyBytes), "")
	c("COMM_MAX_RANK_NUM", abi.CommMaxRankNum, "E-COMM")
	c("COMM_HEADER_BYTES", semantics.CommHeaderBytes, "§14: the session header")
	c("COMM_ATTACH_POLL_US", semantics.CommAttachPollMicros, "")
	c("COMM_BARRIER_POLL_US", semantics.CommBarrierPollMicros, "")
	c("COMM_SHM_NAME_LEN", abi.CommShmNameLen, "")
	c("COMM_SHM_PREFIX", fmt.Sprintf("%q", abi.CommShmPrefix), "")
	c("COMM_HDR_NRANKS", semantics.CommHdrNRanks, "")
	c("COMM_HDR_ALLOC_DONE", semantics.CommHdrAllocDone, "")
	c("COMM_HDR_READY_COUNT", semantics.CommHdrReadyCount, "")
	c("COMM_HDR_BARRIER_COUNT", semantics.CommHdrBarrierCount, "")
	c("COMM_HDR_BARRIER_PHASE", semantics.CommHdrBarrierPhase, "")
	c("COMM_HDR_DESTROY_COUNT", semantics.CommHdrDestroyCount, "")
	c("COMM_HDR_WIN_SIZE", semantics.CommHdrWinSize, "")
	u("COMM_STD_HASH_SEED", abi.CommStdHashSeed, "libstdc++'s std::hash<std::string>, 64-bit")
	u("COMM_STD_HASH_MUL", abi.CommStdHashMul, "")
	c("COMM_GLOBAL_DOMAIN_VERSION", abi.CommGlobalDomainVersion, "")
	c("COMM_PROFILE_SIM_SHM", abi.CommProfileSimShm, "")
	c("COMM_DESC_HANDLE_BYTES", abi.CommDescHandleBytes, "")
	return out
}

// addLatch adds the latch's phases, events, results, effects and its
// transition table (latch.Table), word for word.
func (d *templateData) addLatch() {
	for p := range latch.NumPhases {
		d.Phases = append(d.Phases, cIdent(p.String()))
	}
	for e := range latch.NumEvents {
		d.Events = append(d.Events, cIdent(e.String()))
	}
	for r := latch.ResOK; r <= latch.ResContinue; r++ {
		d.Results = append(d.Results, cIdent(r.String()))
	}
	for e := latch.EffNone; e <= latch.EffRecordTeardownError; e++ {
		d.Effects = append(d.Effects, cIdent(e.String()))
	}
	for p := range latch.NumPhases {
		row := rowData{Phase: cIdent(p.String())}
		for e := range latch.NumEvents {
			t := latch.Table[p][e]
			row.Cells = append(row.Cells, cellData{cIdent(e.String()), cIdent(t.To.String()), cIdent(t.Result.String()), cIdent(t.Effect.String())})
		}
		d.Table = append(d.Table, row)
	}
}

func largestPow2(n uint64) uint64 {
	p := uint64(1)
	for p*2 <= n {
		p *= 2
	}
	return p
}
