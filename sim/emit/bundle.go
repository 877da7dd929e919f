package emit

//go:generate go run bundle_gen.go -o ../../python/src/simabi_fake/_bundle

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/sim/semantics"
)

// The bundle is the emitter's output in a form that a program without Go
// assembles into exactly what Source, RecorderSource and Build produce: the
// Python package in python/ ships it (docs/fake-runtime.md), so that a Python
// user needs a C compiler and not Go. TestBundleIsCurrent fails when the
// shipped bundle is not what Bundle returns now, and
// TestPythonAssemblesTheEmittedSources runs the package's Python on every
// profile, every mutant and a matrix of knobs and compares its C with
// Source's, byte for byte.
//
// How a build's sources are made from it, for profile P, knobs K and mutant M:
//
//  1. Take P's base text of each file ("files"): the templates executed with
//     no knob and no mutant, every knob-dependent spot left as a hole.
//  2. The flags of the build are "mutant:M" and "knob:S" for each knob
//     string S of K that is one of the flag knobs (prepare_writes_id=false,
//     fatal_device=true, strict=true): the knobs a template branches on. If
//     "combos" has the build's flags (in "flags" order, joined by a space),
//     apply that patch to the base; otherwise apply every flag's patch
//     ("patches") at once. A patch is a list of hunks [start, end, lines]:
//     base lines [start, end) are replaced by lines. Hunks of several
//     patches are applied in the order of (start, end, the flag's position
//     in "flags"); they never overlap (Bundle checks every combination and
//     stores a combo for each one where they would, or where applying them
//     together would not give the emitter's text).
//  3. Fill the holes, "@@simabi-hole:KIND:ARG@@", with the knobs'
//     fragments ("knobs"): export (SIMABI_EXPORT, or SIMABI_OMITTED for an
//     omitted symbol), prologue (the fragments of prologue_order whose knob
//     names the entry), fixed (the status fragment of a status knob),
//     fixed-prepare (prepare, prepare_id when the fixed status is 0 and
//     prepare writes ids, prepare_return), fault-counts and fault-codes
//     (the values of sites 0..last, joined by ", "), comm-timeout (the
//     comm_timeout_ms knob, else the constant COMM_TIMEOUT_MS_DEFAULT),
//     poll-pending (the poll_pending knob, else 0), pipeline:F (field F
//     of the pipeline knob's entry in "pipelines", else of the profile's
//     default there: depth, resource-count, runtime-size and
//     runtime-alignment as decimals, resources as the pipeline_resource
//     fragment of each declared resource, index from 0),
//     and banner: the line
//     holding it is repeated once per banner line (banner_omitted, then
//     banner_knob for each knob string), or dropped when there is none.
//
// Texts are split into lines at "\n" only, and joined again with "\n".
// The recorder is the same, with the flags "revision=legacy" and
// "hooks=false" and no holes.

// bundleFormat is the version of the bundle's layout.
const bundleFormat = 1

// BundleManifest is the bundle's manifest file; the others are the base
// texts it names.
const BundleManifest = "bundle.json"

const (
	holePrefix = "@@simabi-hole:"
	holeSuffix = "@@"
)

func hole(kind, arg string) string { return holePrefix + kind + ":" + arg + holeSuffix }

// bundleHoles writes a marker for every knob-dependent spot.
type bundleHoles struct{}

func (bundleHoles) export(sym string) string   { return hole("export", sym) }
func (bundleHoles) prologue(sym string) string { return hole("prologue", sym) }
func (bundleHoles) fixed(sym string) string    { return hole("fixed", sym) }
func (bundleHoles) fixedPrepare() string       { return hole("fixed-prepare", abi.EntryKernelPrepare.Name()) }
func (bundleHoles) faultArrays() (string, string) {
	return hole("fault-counts", ""), hole("fault-codes", "")
}
func (bundleHoles) banner() []string    { return []string{hole("banner", "")} }
func (bundleHoles) commTimeout() string { return hole("comm-timeout", "") }
func (bundleHoles) pollPending() string { return hole("poll-pending", "") }
func (bundleHoles) pipeline(field string) (string, error) {
	if !slices.Contains(pipelineFields, field) {
		return "", fmt.Errorf("template asks for pipeline field %q (%s)", field, strings.Join(pipelineFields, ", "))
	}
	return hole("pipeline", field), nil
}

// flagKnobs are the knobs a template branches on (not only prints): the
// bundle carries each as a patch.
var flagKnobs = []string{"prepare_writes_id=false", "fatal_device=true", "strict=true"}

func skeleton(cfg Config) (map[string]string, error) {
	cfg, exported, err := cfg.normalized()
	if err != nil {
		return nil, err
	}
	src, err := render(cfg, exported, bundleHoles{})
	if err != nil {
		return nil, err
	}
	return map[string]string{RuntimeSrcName: src.Runtime, ACLSrcName: src.ACL, HeaderName: src.Header}, nil
}

// hunk replaces lines [Start, End) of a base text with Lines.
type hunk struct {
	Start, End int
	Lines      []string
}

func (h hunk) MarshalJSON() ([]byte, error) { return json.Marshal([]any{h.Start, h.End, h.Lines}) }

// patch is the hunks of one flag, per file.
type patch map[string][]hunk

func lines(text string) []string { return strings.Split(text, "\n") }

// lineDiff returns the hunks that turn a into b (Myers' algorithm on the
// lines between the common prefix and suffix).
func lineDiff(a, b []string) []hunk {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	x, y := a[pre:len(a)-suf], b[pre:len(b)-suf]
	var out []hunk
	var cur *hunk
	i, j := 0, 0
	for _, op := range myers(x, y) {
		switch op {
		case '=':
			if cur != nil {
				out = append(out, *cur)
				cur = nil
			}
			i++
			j++
			continue
		}
		if cur == nil {
			cur = &hunk{Start: pre + i, End: pre + i, Lines: []string{}}
		}
		if op == '-' {
			i++
			cur.End = pre + i
		} else {
			cur.Lines = append(cur.Lines, y[j])
			j++
		}
	}
	if cur != nil {
		out = append(out, *cur)
	}
	return out
}

// myers returns a shortest edit script from a to b: '=' keeps a line, '-'
// deletes one of a, '+' inserts one of b.
func myers(a, b []string) []byte {
	n, m := len(a), len(b)
	max := n + m
	off := max + 1
	v := make([]int, 2*max+3)
	var trace [][]int
	for d := 0; d <= max; d++ {
		trace = append(trace, slices.Clone(v))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(trace, n, m, off)
			}
		}
	}
	panic("emit: myers: no edit script") // unreachable: d = n+m always reaches the end
}

func backtrack(trace [][]int, n, m, off int) []byte {
	var ops []byte
	x, y := n, m
	for d := len(trace) - 1; d >= 0; d-- {
		v := trace[d]
		k := x - y
		var pk int
		if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := v[off+pk]
		py := px - pk
		for x > px && y > py {
			ops = append(ops, '=')
			x--
			y--
		}
		if d > 0 {
			if x == px {
				ops = append(ops, '+')
				y--
			} else {
				ops = append(ops, '-')
				x--
			}
		}
	}
	slices.Reverse(ops)
	return ops
}

// compose applies the patches (in flag order) to base file name at once;
// false when two hunks overlap.
func compose(base []string, patches []patch, name string) ([]string, bool) {
	type ordered struct {
		hunk
		flag int
	}
	var all []ordered
	for i, p := range patches {
		for _, h := range p[name] {
			all = append(all, ordered{h, i})
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if a.Start != b.Start {
			return a.Start < b.Start
		}
		if a.End != b.End {
			return a.End < b.End
		}
		return a.flag < b.flag
	})
	var out []string
	at := 0
	for _, h := range all {
		if h.Start < at {
			return nil, false
		}
		out = append(append(out, base[at:h.Start]...), h.Lines...)
		at = h.End
	}
	return append(out, base[at:]...), true
}

// bundleUnit is one library's sources for one variant (a profile, or the
// recorder): base texts, the flags in their order, each flag's patch and the
// combinations whose patches cannot simply be applied together.
type bundleUnit struct {
	Files   map[string]string `json:"files"` // file name -> base text's file in the bundle
	Flags   []string          `json:"flags"`
	Patches map[string]patch  `json:"patches"`
	Combos  map[string]patch  `json:"combos"`
}

// unitBuilder collects one unit: render returns the files for a set of
// flags, or an error when the flags do not apply to the variant. A build
// has at most one of choices (the mutants) and any of switches.
type unitBuilder struct {
	name              string
	render            func(flags []string) (map[string]string, error)
	choices, switches []string
}

func (u unitBuilder) build(texts map[string]string) (bundleUnit, error) {
	base, err := u.render(nil)
	if err != nil {
		return bundleUnit{}, fmt.Errorf("emit: bundle %s: %w", u.name, err)
	}
	unit := bundleUnit{Files: map[string]string{}, Patches: map[string]patch{}, Combos: map[string]patch{}}
	baseLines := map[string][]string{}
	for _, f := range slices.Sorted(maps.Keys(base)) {
		unit.Files[f] = storeText(texts, u.name, f, base[f])
		baseLines[f] = lines(base[f])
	}
	diff := func(got map[string]string) patch {
		p := patch{}
		for f, text := range got {
			if hs := lineDiff(baseLines[f], lines(text)); len(hs) > 0 {
				p[f] = hs
			}
		}
		return p
	}
	var choices, switches []string
	for _, group := range []struct {
		in  []string
		out *[]string
	}{{u.choices, &choices}, {u.switches, &switches}} {
		for _, fl := range group.in {
			got, err := u.render([]string{fl})
			if err != nil {
				continue // the flag does not apply to this variant
			}
			*group.out = append(*group.out, fl)
			unit.Flags = append(unit.Flags, fl)
			unit.Patches[fl] = diff(got)
		}
	}
	// Every combination of two or more flags: where applying their patches
	// together is not the emitter's text, the combination gets its own.
	for _, choice := range append([]string{""}, choices...) {
		for _, sw := range subsets(switches) {
			set := sw
			if choice != "" {
				set = append([]string{choice}, sw...)
			}
			if len(set) < 2 {
				continue
			}
			got, err := u.render(set)
			if err != nil {
				return bundleUnit{}, fmt.Errorf("emit: bundle %s: flags %v apply one by one but not together: %w", u.name, set, err)
			}
			ps := make([]patch, len(set))
			for i, fl := range set {
				ps[i] = unit.Patches[fl]
			}
			for f, text := range got {
				if composed, ok := compose(baseLines[f], ps, f); !ok || strings.Join(composed, "\n") != text {
					unit.Combos[strings.Join(set, " ")] = diff(got)
					break
				}
			}
		}
	}
	return unit, nil
}

// subsets lists every subset of flags, each in flags order.
func subsets(flags []string) [][]string {
	out := [][]string{nil}
	for _, f := range flags {
		for _, s := range out[:len(out):len(out)] {
			out = append(out, append(slices.Clone(s), f))
		}
	}
	return out
}

// storeText stores the base text of file for unit, under the name of an
// identical text stored before (the ACL of every profile is one text).
func storeText(texts map[string]string, unit, file, text string) string {
	for _, n := range slices.Sorted(maps.Keys(texts)) {
		if texts[n] == text {
			return n
		}
	}
	name := unit + "-" + file + ".in"
	texts[name] = text
	return name
}

// fakeRenderer renders profile p with the given flags.
func fakeRenderer(p Profile) func(flags []string) (map[string]string, error) {
	return func(flags []string) (map[string]string, error) {
		cfg := Config{Profile: p}
		for _, fl := range flags {
			switch kind, v, _ := strings.Cut(fl, ":"); kind {
			case "mutant":
				cfg.Mutant = v
			case "knob":
				if err := ParseKnob(v, &cfg.Knobs); err != nil {
					return nil, err
				}
			default:
				return nil, fmt.Errorf("unknown flag %q", fl)
			}
		}
		return skeleton(cfg)
	}
}

func recorderRenderer(flags []string) (map[string]string, error) {
	var cfg RecorderConfig
	for _, fl := range flags {
		switch fl {
		case "revision=legacy":
			cfg.Revision = abi.RevLegacy
		case "hooks=false":
			cfg.NoHooks = true
		default:
			return nil, fmt.Errorf("unknown recorder flag %q", fl)
		}
	}
	src, err := RecorderSource(cfg)
	if err != nil {
		return nil, err
	}
	return map[string]string{RecorderSrcName: src}, nil
}

// Bundle returns the bundle's files by name: BundleManifest and the base
// texts it names.
func Bundle() (map[string][]byte, error) {
	texts := map[string]string{}
	m := manifest{
		Format:  bundleFormat,
		Comment: "Generated by github.com/simabi/simabi/sim/emit (go generate ./sim/emit); do not edit. The format is described in sim/emit/bundle.go.",
		Hole:    [2]string{holePrefix, holeSuffix},
		Fake:    map[string]bundleUnit{},
	}
	var muts, knobs []string
	for _, mu := range mutants {
		muts = append(muts, "mutant:"+mu.Name)
	}
	for _, k := range flagKnobs {
		knobs = append(knobs, "knob:"+k)
	}
	for _, p := range Profiles {
		u, err := unitBuilder{name: string(p), render: fakeRenderer(p), choices: muts, switches: knobs}.build(texts)
		if err != nil {
			return nil, err
		}
		m.Fake[string(p)] = u
		m.Profiles = append(m.Profiles, string(p))
	}
	rec, err := unitBuilder{name: "recorder", render: recorderRenderer, switches: []string{"revision=legacy", "hooks=false"}}.build(texts)
	if err != nil {
		return nil, err
	}
	m.Recorder = rec
	if err := m.tables(); err != nil {
		return nil, err
	}
	js, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{BundleManifest: append(js, '\n')}
	for name, text := range texts {
		out[name] = []byte(text)
	}
	return out, nil
}

// manifest is bundle.json.
type manifest struct {
	Format    int                   `json:"format"`
	Comment   string                `json:"comment"`
	Hole      [2]string             `json:"hole"` // prefix, suffix
	Profiles  []string              `json:"profiles"`
	Fake      map[string]bundleUnit `json:"fake"`
	Recorder  bundleUnit            `json:"recorder"`
	Knobs     knobTables            `json:"knobs"`
	Mutants   []bundleMutant        `json:"mutants"`
	Sites     siteTables            `json:"sites"`
	Statuses  map[string]int32      `json:"statuses"`
	Entries   map[string][]entry    `json:"entries"` // by profile
	ACL       aclTables             `json:"acl"`
	Layouts   []layout              `json:"layouts"`
	Constants map[string]any        `json:"constants"`
	Build     buildTables           `json:"build"`
	Pipelines pipelineTables        `json:"pipelines"`
}

// pipelineTables are abi.PipelineSpecs and each profile's default.
type pipelineTables struct {
	Specs    []bundlePipeline  `json:"specs"`
	Defaults map[string]string `json:"defaults"` // profile -> pipeline
}

type bundlePipeline struct {
	Name             string      `json:"name"`
	Depth            uint32      `json:"depth"`
	Resources        [][3]uint64 `json:"resources"` // kind, class, bytes_per_copy
	RuntimeSize      uint64      `json:"runtime_size"`
	RuntimeAlignment uint64      `json:"runtime_alignment"`
	UpstreamRuntime  bool        `json:"upstream_runtime"`
}

type knobTables struct {
	Forms         []bundleKnobForm  `json:"forms"`
	Flags         []string          `json:"flags"`
	Fragments     map[string]string `json:"fragments"`
	PrologueOrder []string          `json:"prologue_order"`
	PrepareEntry  string            `json:"prepare_entry"`
}

type bundleKnobForm struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

type bundleMutant struct {
	Name        string `json:"name"`
	Clause      string `json:"clause"`
	Rule        string `json:"rule"`
	Group       string `json:"group"`
	Profile     string `json:"profile"` // the profile it is emitted for (refusing: only a refusing build shows its clause)
	Description string `json:"description"`
}

type siteTables struct {
	Names map[string]string `json:"names"` // number -> name
	First int32             `json:"first"`
	Last  int32             `json:"last"`
	// CodeZeroOK are the sites simabi_inject arms with code 0.
	CodeZeroOK []int32 `json:"code_zero_ok"`
	// FaultProfiles are the profiles that model fault sites.
	FaultProfiles []string `json:"fault_profiles"`
}

// entry is an exported entry with its ctypes signature.
type entry struct {
	Name  string `json:"name"`
	Group string `json:"group"`
	Proto string `json:"proto"`
	// SymbolProto is abi's prototype where the profile exports another
	// (legacy simpler_init): knob errors print it.
	SymbolProto string   `json:"symbol_proto,omitempty"`
	Returns     string   `json:"returns"` // status, pointer or value
	Restype     string   `json:"restype"`
	Argtypes    []string `json:"argtypes"`
}

type aclTables struct {
	Funcs    []entry  `json:"funcs"` // the public API
	Counters []string `json:"counters"`
	// D1 is how many of the first counters no kernel path may move.
	D1 int `json:"d1"`
}

type layout struct {
	Name   string        `json:"name"`
	Size   int           `json:"size"`
	Align  int           `json:"align"`
	Fields []layoutField `json:"fields"`
}

type layoutField struct {
	Name   string `json:"name"`
	Offset int    `json:"offset"`
	CType  string `json:"ctype"`
	Elem   int    `json:"elem"`
	Count  int    `json:"count"`
}

type buildTables struct {
	CFlags          []string          `json:"cflags"`
	RuntimeLink     []string          `json:"runtime_link"`
	ACLLink         []string          `json:"acl_link"`
	RecorderLink    []string          `json:"recorder_link"`
	FakeKeySalt     string            `json:"fake_key_salt"`
	RecorderKeySalt string            `json:"recorder_key_salt"`
	Files           map[string]string `json:"files"`
}

// ctypesOf maps a C type of an entry's prototype to the ctypes type the
// Python package declares: handles and pointers c_void_p, output pointers
// of integers typed.
func ctypesOf(ctype string) (string, error) {
	switch ctype {
	case "void":
		return "None", nil
	case "int":
		return "c_int", nil
	case "int32_t", "uint32_t", "uint64_t":
		return "c_" + strings.TrimSuffix(ctype, "_t"), nil
	case "size_t":
		return "c_size_t", nil
	case "const char *":
		return "c_char_p", nil
	case "int32_t *", "uint64_t *", "size_t *", "void **":
		t, err := ctypesOf(strings.TrimSuffix(strings.TrimSuffix(ctype, " *"), "*"))
		return "POINTER(" + t + ")", err
	case "void *":
		return "c_void_p", nil
	case "DeviceContextHandle", "RuntimeHandle", "CommHandle", "simabi_sync_fn":
		return "c_void_p", nil
	}
	if strings.HasSuffix(ctype, "*") {
		return "c_void_p", nil // buffers and structs: an address, bytes or a ctypes object
	}
	return "", fmt.Errorf("emit: bundle: no ctypes type for C type %q", ctype)
}

func entryOf(name, group, proto string) (entry, error) {
	p, err := parseProto(proto)
	if err != nil {
		return entry{}, err
	}
	e := entry{Name: name, Group: group, Proto: proto, Returns: "value", Argtypes: []string{}}
	s := abi.Symbol{Proto: proto}
	switch {
	case returnsStatus(s):
		e.Returns = "status"
	case returnsPointer(s):
		e.Returns = "pointer"
	}
	if e.Restype, err = ctypesOf(p.Ret); err != nil {
		return entry{}, err
	}
	for _, q := range p.Params {
		t, err := ctypesOf(q.Type)
		if err != nil {
			return entry{}, err
		}
		e.Argtypes = append(e.Argtypes, t)
	}
	return e, nil
}

// tables fills the manifest's tables from abi and the emitter.
func (m *manifest) tables() error {
	for _, f := range KnobForms {
		m.Knobs.Forms = append(m.Knobs.Forms, bundleKnobForm(f))
	}
	m.Knobs.Flags = flagKnobs
	m.Knobs.Fragments = knobFragments
	m.Knobs.PrologueOrder = prologueKnobs
	m.Knobs.PrepareEntry = abi.EntryKernelPrepare.Name()
	for _, mu := range mutants {
		m.Mutants = append(m.Mutants, bundleMutant{Name: mu.Name, Clause: mu.Clause, Rule: mu.Rule, Group: mu.Group,
			Profile: string(mu.Profile), Description: mu.Description})
	}
	m.Sites = siteTables{Names: map[string]string{}, First: abi.FirstSite, Last: abi.LastSite, FaultProfiles: []string{string(ProfileTMR)}}
	for site := abi.FirstSite; site <= abi.LastSite; site++ {
		m.Sites.Names[fmt.Sprint(site)] = abi.SiteNames[site]
		if abi.CheckInjectArgs(site, 1, 0) == abi.OK {
			m.Sites.CodeZeroOK = append(m.Sites.CodeZeroOK, site)
		}
	}
	m.Statuses = map[string]int32{"OK": int32(abi.OK)}
	for _, s := range abi.HostStatuses {
		m.Statuses[s.Name()] = int32(s)
	}
	if err := m.entryTables(); err != nil {
		return err
	}
	for _, f := range aclFuncs {
		if !f.Public {
			continue
		}
		e, err := entryOf(f.Name, "acl", f.Prototype())
		if err != nil {
			return err
		}
		m.ACL.Funcs = append(m.ACL.Funcs, e)
	}
	m.ACL.Counters = ACLCounters
	m.ACL.D1 = d1Counters()
	for _, l := range abi.Layouts {
		ly := layout{Name: l.Name, Size: l.Size, Align: l.Align}
		for _, f := range l.Fields {
			ly.Fields = append(ly.Fields, layoutField{f.Name, f.Offset, f.CType, f.Elem, f.Count})
		}
		m.Layouts = append(m.Layouts, ly)
	}
	m.Constants = map[string]any{
		"CHIP_MAX_TENSOR_ARGS":         abi.ChipMaxTensorArgs,
		"CHIP_MAX_SCALAR_ARGS":         abi.ChipMaxScalarArgs,
		"CORE_MAX_TENSOR_ARGS":         abi.CoreMaxTensorArgs,
		"MAX_CHILDREN":                 abi.MaxChildren,
		"KERNEL_MAX_FUNC_ID":           abi.KernelMaxFuncID,
		"CALLABLE_ALIGN":               abi.CallableAlign,
		"CALLABLE_FUNC_NAME_MAX":       abi.CallableFuncNameMax,
		"CORE_CODE_OFFSET":             abi.CoreCodeOffset,
		"MAX_TENSOR_DIMS":              abi.MaxTensorDims,
		"RUNTIME_ENV_RING_COUNT":       abi.RuntimeEnvRingCount,
		"OUTPUT_PREFIX_BYTES":          abi.OutputPrefixBytes,
		"MAX_REGISTERED_CALLABLE_IDS":  abi.MaxRegisteredCallableIDs,
		"DIR_SCALAR":                   int32(abi.DirScalar),
		"DIR_IN":                       int32(abi.DirIn),
		"DIR_OUT":                      int32(abi.DirOut),
		"DIR_INOUT":                    int32(abi.DirInOut),
		"HOST_SPACE":                   uint8(abi.HostSpace),
		"DEVICE_SPACE":                 uint8(abi.DeviceSpace),
		"EXTERNAL_OWNER":               abi.ExternalOwner,
		"ACL_SUCCESS":                  abi.ACLSuccess,
		"ACL_ERROR_INVALID_PARAM":      abi.ACLErrorInvalidParam,
		"ACL_ERROR_BAD_ALLOC":          abi.ACLErrorBadAlloc,
		"ACL_ERROR_REPEAT_INITIALIZE":  abi.ACLErrorRepeatInitialize,
		"KERNEL_ADD_SCALAR_F32":        KernelAddScalarF32,
		"KERNEL_COPY_BYTES":            KernelCopyBytes,
		"DEVICE_MEMORY_TOTAL":          DeviceMemoryTotal,
		"HOST_BIND_REFUSED":            int32(abi.HostBindRefused),
		"SIMPLER_MODE_PROGRAM":         abi.SimplerModeProgram,
		"SIMPLER_MODE_KERNEL":          abi.SimplerModeKernel,
		"POLL_NOT_READY":               int32(abi.PollNotReady),
		"POLL_COMPLETE":                int32(abi.PollComplete),
		"LEGACY_CALL_CONFIG_SIZE":      abi.LegacyCallConfigSize,
		"DEFAULT_RECORDER_IMAGE_LIMIT": DefaultImageLimit,
		"COMM_TIMEOUT_MS_DEFAULT":      semantics.CommTimeoutMs,
	}
	dtypes := map[string]abi.DataType{"FLOAT32": abi.Float32, "FLOAT16": abi.Float16, "INT32": abi.Int32, "INT16": abi.Int16,
		"INT8": abi.Int8, "UINT8": abi.Uint8, "BFLOAT16": abi.BFloat16, "INT64": abi.Int64, "UINT64": abi.Uint64,
		"UINT16": abi.Uint16, "UINT32": abi.Uint32, "BOOL": abi.Bool, "FP8E4M3FN": abi.FP8E4M3FN, "FP8E8M0": abi.FP8E8M0,
		"FP4E2M1": abi.FP4E2M1}
	for name, d := range dtypes {
		m.Constants["DTYPE_"+name] = uint8(d)
		m.Constants["DTYPE_BITS_"+name] = d.Bits()
	}
	m.pipelineTables()
	m.Build = buildTables{
		CFlags: CFlags, RuntimeLink: runtimeLinkArgs, ACLLink: aclLinkArgs, RecorderLink: recorderLinkArgs,
		FakeKeySalt: fakeKeySalt, RecorderKeySalt: recorderKeySalt,
		Files: map[string]string{"runtime_lib": RuntimeLibName, "acl_lib": ACLLibName, "runtime_src": RuntimeSrcName,
			"acl_src": ACLSrcName, "header": HeaderName, "recorder_src": RecorderSrcName},
	}
	return nil
}

// pipelineTables are the program pipelines (abi.PipelineSpecs) and each
// profile's default.
func (m *manifest) pipelineTables() {
	m.Pipelines.Defaults = map[string]string{}
	for _, p := range Profiles {
		m.Pipelines.Defaults[string(p)] = string(p.DefaultPipeline())
	}
	for _, sp := range abi.PipelineSpecs() {
		bp := bundlePipeline{Name: string(sp.Name), Depth: sp.Contract.PipelineDepth, Resources: [][3]uint64{},
			RuntimeSize: sp.RuntimeSize, RuntimeAlignment: sp.RuntimeAlignment, UpstreamRuntime: sp.UpstreamRuntime}
		for _, r := range sp.Contract.Resources[:sp.Contract.ResourceCount] {
			bp.Resources = append(bp.Resources, [3]uint64{uint64(r.Kind), uint64(r.Class), r.BytesPerCopy})
		}
		m.Pipelines.Specs = append(m.Pipelines.Specs, bp)
	}
}

// entryTables are each profile's exported entries with their prototypes.
func (m *manifest) entryTables() error {
	m.Entries = map[string][]entry{}
	for _, p := range Profiles {
		for _, s := range ExportedSymbols(p) {
			proto := s.ProtoIn(p.Revision())
			e, err := entryOf(s.Name, string(s.Group), proto)
			if err != nil {
				return err
			}
			if proto != s.Proto {
				e.SymbolProto = s.Proto
			}
			m.Entries[string(p)] = append(m.Entries[string(p)], e)
		}
	}
	return nil
}

// d1Counters is how many counters, from the first, abi.ACLCounters.Forbidden
// sums (rule D-1).
func d1Counters() int {
	n := 0
	for i := range len(ACLCounters) {
		var c abi.ACLCounters
		reflect.ValueOf(&c).Elem().Field(i).SetUint(1)
		if c.Forbidden() == 0 {
			break
		}
		n++
	}
	return n
}
