package emit

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/simabi/simabi/abi"
)

// The Python package (python/, docs/fake-runtime.md) builds fakes from the
// bundle (bundle.go) without Go. These tests keep it equal to the emitter:
// the shipped bundle is what Bundle returns now, and the package's Python,
// run here, assembles byte for byte what Source and RecorderSource emit, for
// every profile, every mutant and a matrix of knobs (F-1, F-2, F-4).

const bundleDir = "../../python/src/simabi_fake/_bundle"

// The shipped bundle is what the emitter's templates and tables give now: a
// template, a mutant, a knob or a table changed without go generate
// ./sim/emit fails here.
func TestBundleIsCurrent(t *testing.T) {
	want, err := Bundle()
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(bundleDir)
	if err != nil {
		t.Fatalf("the Python package's bundle: %v (run go generate ./sim/emit)", err)
	}
	got := map[string][]byte{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(bundleDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		got[e.Name()] = b
	}
	var stale []string
	for name, w := range want {
		g, ok := got[name]
		switch {
		case !ok:
			stale = append(stale, name+": missing")
		case !bytes.Equal(g, w):
			gl, wl := strings.Split(string(g), "\n"), strings.Split(string(w), "\n")
			i := 0
			for i < len(gl) && i < len(wl) && gl[i] == wl[i] {
				i++
			}
			line := func(l []string) string {
				if i < len(l) {
					return l[i]
				}
				return "(end of file)"
			}
			stale = append(stale, fmt.Sprintf("%s: differs from line %d: shipped %q, emitter %q", name, i+1, line(gl), line(wl)))
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			stale = append(stale, name+": not part of the bundle any more")
		}
	}
	if len(stale) > 0 {
		slices.Sort(stale)
		t.Errorf("python/src/simabi_fake/_bundle is not what sim/emit emits now; run go generate ./sim/emit:\n  %s", strings.Join(stale, "\n  "))
	}
}

// Applying the hunks of lineDiff(a, b) to a gives b, for any texts.
func TestBundleLineDiffApplies(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		line := rapid.SampledFrom([]string{"", "a", "b", "c", "{", "}"})
		a := rapid.SliceOfN(line, 0, 40).Draw(t, "a")
		b := rapid.SliceOfN(line, 0, 40).Draw(t, "b")
		hs := lineDiff(a, b)
		got, ok := compose(a, []patch{{"f": hs}}, "f")
		if !ok {
			t.Fatalf("the hunks of one diff overlap: %v", hs)
		}
		if !slices.Equal(got, b) {
			t.Fatalf("applying %v to %q gives %q, want %q", hs, a, got, b)
		}
	})
}

// The combination check has teeth: two flags whose hunks overlap get a
// combination of their own (the strict knob and the E-SUP mutant change
// the same line of simpler_kernel_mode_supported).
func TestBundleStoresOverlappingFlagsAsCombination(t *testing.T) {
	u, err := unitBuilder{name: "tmr", render: fakeRenderer(ProfileTMR),
		choices: []string{"mutant:supported-after-init-0"}, switches: []string{"knob:strict=true"}}.build(map[string]string{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := u.Combos["mutant:supported-after-init-0 knob:strict=true"]; !ok {
		t.Fatalf("no combination for the mutant and the strict knob; combos: %v", slices.Sorted(maps.Keys(u.Combos)))
	}
}

// python runs testdata/bundle_check.py with the package of python/src on
// PYTHONPATH: req in, the answer decoded into out.
func python(t *testing.T, req, out any) {
	t.Helper()
	py := ""
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		if path, err := exec.LookPath(p); err == nil {
			py = path
			break
		}
	}
	if py == "" {
		t.Skip("skipping: no python3 (the Python package's tests need Debian's python3)")
	}
	src, err := filepath.Abs("../../python/src")
	if err != nil {
		t.Fatal(err)
	}
	in, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, "testdata/bundle_check.py")
	cmd.Env = append(os.Environ(), "PYTHONPATH="+src, "PYTHONDONTWRITEBYTECODE=1")
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("python3 testdata/bundle_check.py: %v\n%s", err, stderr.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
		t.Fatalf("python3 testdata/bundle_check.py answered %q: %v\n%s", stdout.String(), err, stderr.String())
	}
}

// pyConfig is one build as the Python package takes it.
type pyConfig struct {
	Profile string   `json:"profile"`
	Knobs   []string `json:"knobs"`
	Mutant  string   `json:"mutant"`
	Omit    []string `json:"omit"`
}

type pyResult struct {
	Runtime, ACL, Header string
	Error                string
}

// goSource is what gen-fake-runtime makes of c: its sources, or its error
// as gen-fake-runtime prints it (without "emit: ").
func goSource(c pyConfig) (Sources, string) {
	cfg := Config{Profile: Profile(c.Profile), Mutant: c.Mutant, Omit: c.Omit}
	for _, kv := range c.Knobs {
		if err := ParseKnob(kv, &cfg.Knobs); err != nil {
			return Sources{}, strings.TrimPrefix(err.Error(), "emit: ")
		}
	}
	src, err := Source(cfg)
	if err != nil {
		return Sources{}, strings.TrimPrefix(err.Error(), "emit: ")
	}
	return src, ""
}

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// knobMatrix uses every form of KnobForms, alone and combined, with the
// integer spellings of strconv.ParseInt's base 0.
var knobMatrix = [][]string{
	nil,
	{"status.simpler_kernel_mode_launch=-93"},
	{"status.simpler_kernel_mode_prepare_callable=0"},
	{"status.simpler_kernel_mode_prepare_callable=0", "prepare_writes_id=false"},
	{"status.simpler_kernel_mode_prepare_callable=-1004", "status.finalize_device=0x10", "status.simpler_init=-1_000", "status.comm_barrier=010"},
	{"status.simpler_init=0b_101", "status.copy_to_device_ctx=+0o17", "status.simpler_run=-2147483648"},
	{"fail.2=1:-1000", "fail.finalize-release=2:-5", "fail.finalize-fatal=1:0", "fail.10=3:-1001"},
	{"prepare_writes_id=false"},
	{"prepare_writes_id=true", "fatal_device=false", "strict=0"},
	{"fatal_device=true"},
	{"strict=true"},
	{"must_not_call=comm_barrier, comm_init", "must_not_call=finalize_device,comm_barrier"},
	{"crash.simpler_init=true", "crash.comm_destroy=1", "crash.comm_destroy=false", "crash.finalize_device=T"},
	{"hang.finalize_device=true", "hang.create_device_context=True"},
	{"null.create_device_context=true", "null.get_pipeline_contract=TRUE", "null.create_comm_stream_ctx=t"},
	{"comm_timeout_ms=250"},
	{"comm_timeout_ms=0x10", "comm_timeout_ms=1_000", "strict=true", "null.comm_init=true"},
	{"poll_pending=1"},
	{"poll_pending=0x3", "poll_pending=0", "poll_pending=2", "strict=true"},
	{"pipeline=host_build_graph"},
	{"pipeline=single", "strict=true"},
	{"pipeline=host_build_graph", "pipeline=tensormap_and_ringbuffer", "poll_pending=1"},
	{"status.simpler_kernel_mode_prepare_callable=0", "status.simpler_kernel_mode_launch=-1003", "fail.prepare-copy=1:-1000",
		"prepare_writes_id=false", "fatal_device=true", "strict=true", "must_not_call=comm_barrier,comm_init",
		"crash.simpler_init=true", "hang.finalize_device=true", "null.create_device_context=true",
		"hang.simpler_kernel_mode_prepare_callable=true", "crash.simpler_kernel_mode_prepare_callable=true",
		"must_not_call=simpler_kernel_mode_prepare_callable", "null.device_malloc_ctx=true"},
	{"status.simpler_init=0", "strict=true", "null.device_malloc_ctx=true", "must_not_call=simpler_provision_dma_workspace"},
}

// pyMatrix is the configurations whose sources Python must reproduce: the
// knob matrix on every profile (every other one with symbols omitted), every
// combination of the flag knobs, every mutant alone, with every flag knob
// the profile takes and with the knobs that fill holes, and every
// combination of flags the shipped bundle stores a patch of its own for.
func pyMatrix(t *testing.T) []pyConfig {
	b, err := os.ReadFile(filepath.Join(bundleDir, BundleManifest))
	if err != nil {
		t.Fatal(err)
	}
	var shipped struct {
		Fake map[string]struct {
			Combos map[string]json.RawMessage `json:"combos"`
		} `json:"fake"`
	}
	if err := json.Unmarshal(b, &shipped); err != nil {
		t.Fatal(err)
	}
	var out []pyConfig
	omits := [][]string{nil, {"comm_barrier", "simabi_inject"}}
	for _, p := range Profiles {
		for i, ks := range knobMatrix {
			out = append(out, pyConfig{Profile: string(p), Knobs: ks, Omit: omits[i%2]})
		}
		var takes []string
		for _, set := range subsets(flagKnobs) {
			out = append(out, pyConfig{Profile: string(p), Knobs: set})
			if _, err := goSource(pyConfig{Profile: string(p), Knobs: set}); err == "" && len(set) == 1 {
				takes = append(takes, set[0])
			}
		}
		for combo := range shipped.Fake[string(p)].Combos {
			c := pyConfig{Profile: string(p)}
			for _, fl := range strings.Fields(combo) {
				if kind, v, _ := strings.Cut(fl, ":"); kind == "mutant" {
					c.Mutant = v
				} else {
					c.Knobs = append(c.Knobs, v)
				}
			}
			out = append(out, c)
		}
		if p == ProfileLegacy {
			continue
		}
		for _, m := range mutants {
			out = append(out, pyConfig{Profile: string(p), Mutant: m.Name},
				pyConfig{Profile: string(p), Knobs: takes, Mutant: m.Name},
				pyConfig{Profile: string(p), Knobs: knobMatrix[len(knobMatrix)-2], Mutant: m.Name, Omit: omits[1]})
		}
	}
	return out
}

// The package's Python assembles exactly the C of Source, for every
// profile, every mutant and a matrix that uses every knob form, alone and
// combined (pyMatrix); where Go refuses a configuration, Python refuses it
// with the same message.
func TestPythonAssemblesTheEmittedSources(t *testing.T) {
	configs := pyMatrix(t)
	type goResult struct {
		want pyResult
		err  string
	}
	// Go renders on every core while Python runs.
	results := make([]goResult, len(configs))
	var next atomic.Int64
	var wg sync.WaitGroup
	defer wg.Wait()
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(configs); i = int(next.Add(1) - 1) {
				src, err := goSource(configs[i])
				results[i] = goResult{pyResult{Runtime: sha(src.Runtime), ACL: sha(src.ACL), Header: sha(src.Header)}, err}
			}
		})
	}
	var got []pyResult
	python(t, map[string]any{"op": "sources", "configs": configs}, &got)
	wg.Wait()
	if len(got) != len(configs) {
		t.Fatalf("python answered %d configurations, asked %d", len(got), len(configs))
	}
	used := map[string]bool{}
	built := 0
	for i, c := range configs {
		name := fmt.Sprintf("%s %v mutant=%q omit=%v", c.Profile, c.Knobs, c.Mutant, c.Omit)
		if goErr := results[i].err; goErr != "" || got[i].Error != "" {
			if goErr != got[i].Error {
				t.Errorf("%s: Go says %q, Python %q", name, goErr, got[i].Error)
			}
			continue
		}
		built++
		for _, kv := range c.Knobs {
			for _, f := range KnobForms {
				if knobFormRE(f).MatchString(kv) {
					used[f.Key] = true
				}
			}
		}
		if results[i].want != got[i] {
			src, _ := goSource(c)
			var full []pyResult
			python(t, map[string]any{"op": "sources", "configs": []pyConfig{c}, "full": true}, &full)
			t.Errorf("%s: Python's sources differ from Source's:\nruntime (-go +python):\n%s\nacl:\n%s\nheader:\n%s", name,
				shortDiff(src.Runtime, full[0].Runtime), shortDiff(src.ACL, full[0].ACL), shortDiff(src.Header, full[0].Header))
		}
	}
	for _, f := range KnobForms {
		if !used[f.Key] {
			t.Errorf("the matrix builds no configuration with knob %s=%s: add one (and teach the Python package the knob)", f.Key, f.Value)
		}
	}
	if want := 3*len(mutants) + 20; built < want {
		t.Errorf("only %d configurations built, want at least %d", built, want)
	}
	t.Logf("%d configurations, %d built", len(configs), built)
}

func knobFormRE(f KnobForm) *regexp.Regexp {
	key := regexp.QuoteMeta(f.Key)
	key = strings.NewReplacer(`<entry>`, `\w+`, `<site>`, `[\w-]+`).Replace(key)
	return regexp.MustCompile("^" + key + "=")
}

func shortDiff(want, got string) string {
	if want == got {
		return "  (same)"
	}
	d := cmp.Diff(strings.Split(want, "\n"), strings.Split(got, "\n"))
	if len(d) > 3000 {
		d = d[:3000] + "\n..."
	}
	return d
}

// The recorder's source too, for both revisions with and without hooks.
func TestPythonAssemblesTheRecorderSource(t *testing.T) {
	type recConfig struct {
		Revision string `json:"revision"`
		Hooks    bool   `json:"hooks"`
	}
	configs := []recConfig{{"kernel", true}, {"kernel", false}, {"legacy", true}, {"legacy", false}}
	var got []string
	python(t, map[string]any{"op": "recorders", "configs": configs}, &got)
	for i, c := range configs {
		rev, _ := ParseRevision(c.Revision)
		src, err := RecorderSource(RecorderConfig{Revision: rev, NoHooks: !c.Hooks})
		if err != nil {
			t.Fatal(err)
		}
		if got[i] != sha(src) {
			t.Errorf("recorder %+v: Python's source differs from RecorderSource's", c)
		}
	}
}

// Python refuses what gen-fake-runtime refuses, in the same words: a knob
// that does not parse, an entry a profile lacks or that returns no status
// or pointer, a fault knob off tmr or one simabi_inject refuses, an unknown
// profile, symbol or mutant, a mutant of legacy.
func TestPythonKnobErrorsAreGenFakeRuntimes(t *testing.T) {
	tmr := func(knobs ...string) pyConfig { return pyConfig{Profile: "tmr", Knobs: knobs} }
	configs := []pyConfig{
		tmr("nokey"), tmr("=1"), tmr("status.finalize_device=abc"), tmr("status.finalize_device=2147483648"),
		tmr("status.finalize_device=-2147483649"), tmr("status.finalize_device=0x"), tmr("status.finalize_device=08"),
		tmr("status.finalize_device=1__0"), tmr("status.finalize_device=_1"), tmr("status.finalize_device=1_"),
		tmr("status.finalize_device= 1"), tmr("status.finalize_device="), tmr("status.finalize_device=0x_"),
		tmr("status.finalize_device=１"), tmr("fail.11=1:-1"), tmr("fail.0=1:-1"), tmr("fail.nosuch=1:-1"),
		tmr("fail.2=1"), tmr("fail.2=x:-1"), tmr("fail.2=1:0"), tmr("fail.2=-1:-1000"), tmr("fail.99999999999=1:-1"),
		tmr("strict=yes"), tmr("prepare_writes_id=maybe"), tmr("crash.simpler_init=2"), tmr("bogus=1"),
		tmr("status.=1"), tmr("status.get_runtime_size=0"), tmr("status.nosuch=0"), tmr("null.finalize_device=true"),
		tmr("must_not_call=nosuch"), tmr("hang.nosuch=true"), tmr("crash.nosuch=true"), tmr("null.nosuch=true"),
		tmr("poll_pending=-1"), tmr("poll_pending=x"), tmr("poll_pending=2147483648"),
		tmr("pipeline=tmr"), tmr("pipeline="), {Profile: "legacy", Knobs: []string{"pipeline=Single"}},
		tmr("stat\tus=1"), tmr("statüs=1\x7f"), tmr("fail.prepare-copy=1:0", "fail.+2=1:-1"),
		{Profile: "legacy", Knobs: []string{"null.simpler_init=true"}},
		{Profile: "legacy", Knobs: []string{"status.simpler_kernel_mode_launch=-93"}},
		{Profile: "legacy", Knobs: []string{"fail.2=1:-1000"}},
		{Profile: "refusing", Knobs: []string{"fatal_device=true"}},
		{Profile: "gpu"}, {Profile: "tmr", Omit: []string{"nosuch"}}, {Profile: "legacy", Omit: []string{"simpler_kernel_mode_init"}},
		{Profile: "tmr", Mutant: "nosuch"}, {Profile: "legacy", Mutant: "ids-from-one"}, {Profile: "tmr", Mutant: "refusing-latches"},
	}
	var got []pyResult
	python(t, map[string]any{"op": "sources", "configs": configs}, &got)
	refused := 0
	for i, c := range configs {
		_, goErr := goSource(c)
		if goErr != "" {
			refused++
		}
		if goErr != got[i].Error {
			t.Errorf("%s %q mutant=%q omit=%v: Go says %q, Python %q", c.Profile, c.Knobs, c.Mutant, c.Omit, goErr, got[i].Error)
		}
	}
	if refused < len(configs)-1 { // fail.+2 is site 2, so that configuration's second knob is fine
		t.Errorf("Go refused %d of %d configurations", refused, len(configs))
	}
}

// The package's builders (simabi_fake.abi) write the bytes of abi's: an
// image from a spec (children, scalars, names, an omitted scalar count),
// task args with tensors and scalars, a CallConfig in both layouts.
func TestPythonBuildersMatchAbi(t *testing.T) {
	images := map[string]abi.ChipCallableSpec{
		"empty":      {},
		"one IN":     {Signature: []abi.ArgDirection{abi.DirIn}, Binary: make([]byte, 64)},
		"children":   {Signature: []abi.ArgDirection{abi.DirIn, abi.DirOut, abi.DirScalar}, FuncName: KernelAddScalarF32, ConfigName: "cfg", Binary: []byte("orchestration"), Children: []abi.ChildKernel{{FuncID: 3, Signature: []abi.ArgDirection{abi.DirIn}, Binary: []byte{1, 2, 3}}, {FuncID: 1023, Binary: make([]byte, 70)}}},
		"no scalars": {Signature: []abi.ArgDirection{abi.DirInOut, abi.DirScalar, abi.DirScalar}, OmitScalarCount: true},
		"bad":        {Signature: []abi.ArgDirection{abi.DirScalar, abi.DirIn}},
	}
	type child struct {
		FuncID    int32
		Signature []abi.ArgDirection
		Binary    string
	}
	type spec struct {
		Signature            []abi.ArgDirection
		FuncName, ConfigName string
		Binary               string
		Children             []child
		OmitScalarCount      bool
	}
	type tensor struct {
		Addr  uint64   `json:"addr"`
		DType uint8    `json:"dtype"`
		Shape []uint32 `json:"shape"`
	}
	req := map[string]any{"op": "builders"}
	specs := map[string]spec{}
	want := map[string]string{}
	for name, s := range images {
		js := spec{Signature: s.Signature, FuncName: s.FuncName, ConfigName: s.ConfigName, Binary: hex.EncodeToString(s.Binary), OmitScalarCount: s.OmitScalarCount}
		for _, c := range s.Children {
			js.Children = append(js.Children, child{c.FuncID, c.Signature, hex.EncodeToString(c.Binary)})
		}
		specs[name] = js
		img, err := s.Build()
		if err != nil {
			want["image "+name] = "error: " + err.Error()
		} else {
			want["image "+name] = hex.EncodeToString(img)
		}
	}
	req["images"] = specs
	tensors := []tensor{{0x1000, uint8(abi.Float32), []uint32{4}}, {0x2040, uint8(abi.FP4E2M1), []uint32{3, 0, 5}}, {1 << 40, uint8(abi.Int64), []uint32{2, 3, 4, 5, 6}}}
	req["tensors"] = tensors
	args := abi.NewTaskArgs()
	for _, tn := range tensors {
		ct, err := abi.ContiguousTensor(tn.Addr, abi.DataType(tn.DType), tn.Shape...)
		if err != nil {
			t.Fatal(err)
		}
		if err := args.AddTensor(ct); err != nil {
			t.Fatal(err)
		}
	}
	if err := args.AddScalarFloat32(2.5); err != nil {
		t.Fatal(err)
	}
	if err := args.AddScalar(^uint64(0)); err != nil {
		t.Fatal(err)
	}
	want["task args"] = hex.EncodeToString(args.Bytes())
	cfg := abi.CallConfig{AicpuThreadNum: 3, EnableChipSwimlane: 1, EnableDumpArgs: -2, EnablePMU: 4, EnableDepGen: 5, EnableScopeStats: 6, CaptureClockAnchors: 7,
		RingTaskWindow: [4]uint64{1, 2, 3, 4}, RingHeap: [4]uint64{5, 6, 7, 8}, RingDepPool: [4]uint64{9, 10, 11, 1 << 63}}
	if err := cfg.SetOutputPrefix("out/run-1"); err != nil {
		t.Fatal(err)
	}
	want["call config"] = hex.EncodeToString(cfg.Bytes())
	legacy := make([]byte, abi.LegacyCallConfigSize)
	if err := cfg.EncodeLegacy(legacy); err != nil {
		t.Fatal(err)
	}
	want["call config legacy"] = hex.EncodeToString(legacy)
	got := map[string]string{}
	python(t, req, &got)
	for name, w := range want {
		g := got[name]
		if strings.HasPrefix(w, "error: ") {
			// Both refuse; the words are the package's own.
			if !strings.HasPrefix(g, "error: abi: invalid ChipCallable spec: ") {
				t.Errorf("%s: Go refuses (%s), Python gives %.80q", name, w, g)
			}
			continue
		}
		if g != w {
			i := 0
			for i < len(g) && i < len(w) && g[i] == w[i] {
				i++
			}
			t.Errorf("%s: Python's bytes differ from abi's from byte %d (of %d, Python %d)", name, i/2, len(w)/2, len(g)/2)
		}
	}
}

// The package computes the cache key Build computes, so that a fake built
// by either is found by the other in the shared cache.
func TestPythonCacheKeyIsBuilds(t *testing.T) {
	src, err := Source(Config{Profile: ProfileRefusing})
	if err != nil {
		t.Fatal(err)
	}
	cc, err := resolveCompiler("")
	if err != nil {
		t.Skipf("skipping: %v", err)
	}
	var got string
	python(t, map[string]any{"op": "key", "profile": "refusing"}, &got)
	if want := cacheKey(src, cc); got != want {
		t.Errorf("Python's cache key %s, Build's %s", got, want)
	}
}
