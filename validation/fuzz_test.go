package validation_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/validation"
)

// FuzzImage feeds arbitrary bytes, copied into a 16-byte-aligned span with
// cap == len (a read past the span panics), through V-IMG. It must never
// panic, must agree with the docs/contract.md oracle, and every accepted image must
// decode with Spec and re-encode with Build byte-identically on every byte
// V-IMG inspects; the re-encoded image and the image with all uninspected
// bytes scrambled are accepted too.
func FuzzImage(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		img := aligned(data)
		st := validation.Image(img)
		if st != abi.OK && st != abi.InvalidArgument {
			t.Fatalf("V-IMG returned %v", st)
		}
		if !bytes.Equal(img, data) {
			t.Fatal("V-IMG modified the image")
		}
		addr := uint64(uintptr(abi.Ptr(img)))
		if want := refImage(addr, img); (st == abi.OK) != want {
			t.Fatalf("V-IMG = %v, oracle accepts = %v (%v)", st, want, validation.CheckImageAt(uintptr(addr), img))
		}
		if len(img) > 0 {
			// The same bytes at an address where the span wraps.
			if got := validation.ImageAt(^uintptr(0)-uintptr(len(img))+1, img); got != abi.InvalidArgument {
				t.Fatalf("V-IMG step 1: wrapping span = %v", got)
			}
		}
		if st != abi.OK {
			return
		}
		r, err := abi.NewChipCallableReader(img)
		if err != nil {
			t.Fatalf("accepted image: reader: %v", err)
		}
		spec, err := r.Spec()
		if err != nil {
			t.Fatalf("accepted image: Spec: %v", err)
		}
		rebuilt, err := spec.Build()
		if err != nil {
			t.Fatalf("accepted image: Build(Spec): %v", err)
		}
		if len(rebuilt) != len(img) {
			t.Fatalf("Build(Spec(img)) has %d bytes, img %d", len(rebuilt), len(img))
		}
		if a, b := masked(img), masked(rebuilt); !bytes.Equal(a, b) {
			i := 0
			for a[i] == b[i] {
				i++
			}
			t.Fatalf("Build(Spec(img)) differs at inspected byte %d: %#x vs %#x", i, b[i], a[i])
		}
		if validation.Image(rebuilt) != abi.OK {
			t.Fatal("Build(Spec(img)) refused by V-IMG")
		}
		if got := validation.Image(scrambled(img, byte(len(img)))); got != abi.OK {
			t.Fatalf("accepted image with uninspected bytes scrambled = %v", got)
		}
	})
}

// FuzzCallConfig feeds arbitrary bytes to V-CFG, kernel and program: no
// panic; kernel in {OK, IA, UNSUP}; program in {OK, IA}; both agree with the
// docs/contract.md oracle run over the decoded abi.CallConfig, and with themselves
// over its re-encoding.
func FuzzCallConfig(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		b := make([]byte, len(data))
		copy(b, data)
		k := validation.KernelCallConfig(b)
		p := validation.ProgramCallConfig(b)
		if k != abi.OK && k != abi.InvalidArgument && k != abi.Unsupported {
			t.Fatalf("KernelCallConfig = %v", k)
		}
		if p != abi.OK && p != abi.InvalidArgument {
			t.Fatalf("ProgramCallConfig = %v", p)
		}
		if !bytes.Equal(b, data) {
			t.Fatal("V-CFG modified the config")
		}
		kd, ks := validation.CheckCallConfig(b, true)
		pd, ps := validation.CheckCallConfig(b, false)
		if ks != k || ps != p || (k == abi.OK) != (kd == validation.CfgOK) || (p == abi.OK) != (pd == validation.CfgOK) {
			t.Fatalf("CheckCallConfig (%v %v / %v %v) disagrees with %v / %v", kd, ks, pd, ps, k, p)
		}
		if len(b) < abi.CallConfigSize {
			if k != abi.InvalidArgument || p != abi.InvalidArgument {
				t.Fatalf("%d-byte config: %v / %v", len(b), k, p)
			}
			return
		}
		c, err := abi.DecodeCallConfig(b)
		if err != nil {
			t.Fatal(err)
		}
		if rk, rp := refCallConfig(c, true), refCallConfig(c, false); k != rk || p != rp {
			t.Fatalf("kernel %v (oracle %v), program %v (oracle %v)", k, rk, p, rp)
		}
		enc := c.Bytes()
		if !bytes.Equal(enc, b[:abi.CallConfigSize]) {
			t.Fatal("decode/encode of the config is not byte-identical")
		}
		if validation.KernelCallConfig(enc) != k || validation.ProgramCallConfig(enc) != p {
			t.Fatal("the re-encoded config is judged differently")
		}
	})
}

var updateSeeds = flag.Bool("update-fuzz-seeds", false, "rewrite the seed corpora under testdata/fuzz")

type seed struct {
	name string
	data []byte
}

// imageSeeds are the FuzzImage seed corpus: canonical images with 0, 1 and 3
// children and one image per V-IMG boundary.
func imageSeeds(t *testing.T) []seed {
	s3 := sampleSpec(3)
	mut := func(name string, spec abi.ChipCallableSpec, m func([]byte) []byte) seed {
		return seed{name, m(build(t, spec))}
	}
	omit := sampleSpec(3)
	omit.OmitScalarCount = true
	long := sampleSpec(1)
	long.FuncName, long.ConfigName = strings.Repeat("f", 63), strings.Repeat("c", 63)
	ids := sampleSpec(2)
	ids.Children[0].FuncID, ids.Children[1].FuncID = 1023, 0
	noChildAt := sampleSpec(1)
	noChildAt.Children[0].Binary = nil
	return []seed{
		{"canonical-0-children", build(t, sampleSpec(0))},
		{"canonical-1-child", build(t, sampleSpec(1))},
		{"canonical-3-children", build(t, s3)},
		{"canonical-3-children-scalar-count-not-recorded", build(t, omit)},
		{"canonical-names-63-bytes", build(t, long)},
		{"canonical-func-id-1023", build(t, ids)},
		{"canonical-empty-spec", build(t, abi.ChipCallableSpec{})},
		{"canonical-uninspected-bytes-scrambled", scrambled(build(t, s3), 7)},
		{"empty", nil},
		{"header-one-byte-short", make([]byte, 9375)},
		mut("sig-count-257", s3, func(b []byte) []byte { put32(b, offSigCount, 257); return b }),
		mut("sig-value-4", s3, func(b []byte) []byte { put32(b, offSig, 4); return b }),
		mut("tensor-after-scalar", s3, func(b []byte) []byte {
			put32(b, offSig+4, 0)
			put32(b, offSig+8, 1)
			put32(b, offScalarCount, 0)
			return b
		}),
		mut("scalar-count-mismatch", s3, func(b []byte) []byte { put32(b, offScalarCount, 2); return b }),
		mut("func-name-length-64", s3, func(b []byte) []byte { put32(b, offFuncNameLen, 64); return b }),
		mut("config-name-embedded-nul", s3, func(b []byte) []byte { b[offConfigName+1] = 0; return b }),
		mut("binary-size-past-storage", sampleSpec(0), func(b []byte) []byte { put32(b, offBinarySize, int64(len(b)-headerSize+1)); return b }),
		mut("child-count-1025", s3, func(b []byte) []byte { put32(b, offChildCount, 1025); return b }),
		mut("child-func-id-1024", s3, func(b []byte) []byte { put32(b, offChildIDs+4, 1024); return b }),
		mut("child-func-id-duplicate", s3, func(b []byte) []byte { put32(b, offChildIDs+8, 0); return b }),
		mut("child-offset-plus-1", s3, func(b []byte) []byte { put32(b, offChildOffs+4, int64(le.Uint32(b[offChildOffs+4:]))+1); return b }),
		mut("child-header-truncated", noChildAt, func(b []byte) []byte { return b[:len(b)-1] }),
		mut("child-sig-count-33", s3, func(b []byte) []byte { put32(b, childAt(b, 1)+cSigCount, 33); return b }),
		mut("child-binary-overrun", s3, func(b []byte) []byte {
			h := childAt(b, 2)
			put32(b, h+cBinarySize, int64(le.Uint32(b[h+cBinarySize:]))+1)
			return b
		}),
		mut("tail-one-byte-short", s3, func(b []byte) []byte { return b[:len(b)-1] }),
		mut("tail-one-byte-long", s3, func(b []byte) []byte { return append(b, 0) }),
	}
}

// configSeeds are the FuzzCallConfig seed corpus: the zero config and one
// config per V-CFG boundary.
func configSeeds() []seed {
	cfg := func(name string, mod func(*abi.CallConfig)) seed {
		var c abi.CallConfig
		mod(&c)
		return seed{name, c.Bytes()}
	}
	return []seed{
		cfg("zero", func(*abi.CallConfig) {}),
		cfg("threads-1", func(c *abi.CallConfig) { c.AicpuThreadNum = 1 }),
		cfg("threads-4", func(c *abi.CallConfig) { c.AicpuThreadNum = 4 }),
		cfg("threads-5", func(c *abi.CallConfig) { c.AicpuThreadNum = 5 }),
		cfg("threads-minus-1", func(c *abi.CallConfig) { c.AicpuThreadNum = -1 }),
		cfg("dump-args", func(c *abi.CallConfig) { c.EnableDumpArgs = 1 }),
		cfg("pmu", func(c *abi.CallConfig) { c.EnablePMU = 1 }),
		cfg("scope-stats", func(c *abi.CallConfig) { c.EnableScopeStats = 1 }),
		cfg("capture-clock-anchors", func(c *abi.CallConfig) { c.CaptureClockAnchors = 1 }),
		cfg("swimlane-4-with-prefix", func(c *abi.CallConfig) { c.EnableChipSwimlane = 4; _ = c.SetOutputPrefix("out") }),
		cfg("swimlane-5", func(c *abi.CallConfig) { c.EnableChipSwimlane = 5; _ = c.SetOutputPrefix("out") }),
		cfg("swimlane-without-prefix", func(c *abi.CallConfig) { c.EnableChipSwimlane = 1 }),
		cfg("dep-gen-without-prefix", func(c *abi.CallConfig) { c.EnableDepGen = 1 }),
		cfg("prefix-without-nul", func(c *abi.CallConfig) {
			for i := range c.OutputPrefix {
				c.OutputPrefix[i] = 'p'
			}
		}),
		cfg("ring-task-window-3", func(c *abi.CallConfig) { c.RingTaskWindow[0] = 3 }),
		cfg("ring-task-window-2pow30", func(c *abi.CallConfig) { c.RingTaskWindow[1] = 1 << 30 }),
		cfg("ring-task-window-2pow31", func(c *abi.CallConfig) { c.RingTaskWindow[2] = 1 << 31 }),
		cfg("ring-heap-1023", func(c *abi.CallConfig) { c.RingHeap[3] = 1023 }),
		cfg("ring-dep-pool-2pow31-minus-1", func(c *abi.CallConfig) { c.RingDepPool[0] = 1<<31 - 1 }),
		cfg("ring-dep-pool-2pow31", func(c *abi.CallConfig) { c.RingDepPool[1] = 1 << 31 }),
		{"short-1147", make([]byte, 1147)},
	}
}

func corpusFile(data []byte) []byte {
	return []byte(fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", data))
}

// The seed corpora under testdata/fuzz are exactly what imageSeeds and
// configSeeds produce (run with -update-fuzz-seeds to rewrite them).
func TestFuzzSeedCorpus(t *testing.T) {
	for target, seeds := range map[string][]seed{"FuzzImage": imageSeeds(t), "FuzzCallConfig": configSeeds()} {
		dir := filepath.Join("testdata", "fuzz", target)
		if *updateSeeds {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		var want []string
		for _, s := range seeds {
			want = append(want, s.name)
			path := filepath.Join(dir, s.name)
			content := corpusFile(s.data)
			if *updateSeeds {
				if err := os.WriteFile(path, content, 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Errorf("seed %s: %v (run go test ./validation -run TestFuzzSeedCorpus -update-fuzz-seeds)", path, err)
				continue
			}
			if !bytes.Equal(got, content) {
				t.Errorf("seed %s is stale (run go test ./validation -run TestFuzzSeedCorpus -update-fuzz-seeds)", path)
			}
		}
		// Files the fuzzer found and saved are kept; only the named seeds are checked.
		entries, _ := os.ReadDir(dir)
		var have []string
		for _, e := range entries {
			have = append(have, e.Name())
		}
		for _, n := range want {
			if !slices.Contains(have, n) && !*updateSeeds {
				t.Errorf("%s lacks seed %s", dir, n)
			}
		}
	}
}

// The seeds mean what their names say.
func TestFuzzSeedsVerdicts(t *testing.T) {
	for _, s := range imageSeeds(t) {
		want := abi.InvalidArgument
		if strings.HasPrefix(s.name, "canonical-") {
			want = abi.OK
		}
		if got := validation.Image(aligned(s.data)); got != want {
			t.Errorf("image seed %s: V-IMG = %v, want %v", s.name, got, want)
		}
	}
	valid := map[string]bool{"zero": true, "threads-4": true, "swimlane-4-with-prefix": true, "ring-task-window-2pow30": true, "ring-dep-pool-2pow31-minus-1": true}
	kernelOnly := map[string]bool{"dump-args": true, "pmu": true, "scope-stats": true, "capture-clock-anchors": true}
	for _, s := range configSeeds() {
		k, p := validation.KernelCallConfig(s.data), validation.ProgramCallConfig(s.data)
		switch {
		case valid[s.name]:
			if k != abi.OK || p != abi.OK {
				t.Errorf("config seed %s: %v / %v", s.name, k, p)
			}
		case kernelOnly[s.name]:
			if k != abi.Unsupported || p != abi.OK {
				t.Errorf("config seed %s: %v / %v", s.name, k, p)
			}
		default:
			if k != abi.InvalidArgument || p != abi.InvalidArgument {
				t.Errorf("config seed %s: %v / %v", s.name, k, p)
			}
		}
	}
}
